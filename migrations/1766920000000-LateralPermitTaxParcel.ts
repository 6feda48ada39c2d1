import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A property's lateral permits found by its tax parcel (SUL 408's connection order lists the
 * applications for the parcel; api/septic/orders.service.ts lateralCandidatesOf), by index, not by
 * reading the district's permits. Parcels compare without case, as the register's do.
 */
export class LateralPermitTaxParcel1766920000000 implements MigrationInterface {
  name = "LateralPermitTaxParcel1766920000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX lateral_permit_district_tax_parcel ON lateral_permit (district_id, lower(tax_parcel)) WHERE tax_parcel IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX lateral_permit_district_tax_parcel`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A meter read's district is its meter's, and an imported read was entered by whoever entered its
 * file: each read of a 50,000-row import paid four foreign-key checks (district, meter, import,
 * user), 35-45% of its insert (docs/benchmarks.md). Now two: the read references its meter with the
 * meter's district (one check, which also holds every read in its meter's district, the district
 * guaranteed by the meter's own key), and the import; an imported read leaves entered_by_id empty
 * (the import names who entered it; a read recorded by hand still names its enterer, checked).
 * Decision: docs/decisions/meter-reading-keys.md.
 */
export class MeterReadingKeys1767010000000 implements MigrationInterface {
  name = "MeterReadingKeys1767010000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE service_meter ADD CONSTRAINT service_meter_id_district UNIQUE (id, district_id)`);
    await q.query(`ALTER TABLE meter_reading
      ADD CONSTRAINT meter_reading_meter_in_district FOREIGN KEY (meter_id, district_id) REFERENCES service_meter (id, district_id),
      DROP CONSTRAINT meter_reading_meter_id_fkey,
      DROP CONSTRAINT meter_reading_district_id_fkey`);
    await q.query(`UPDATE meter_reading SET entered_by_id = NULL WHERE import_id IS NOT NULL AND entered_by_id IS NOT NULL`);
    await q.query(`ALTER TABLE meter_reading ADD CONSTRAINT meter_reading_entered_by_import CHECK (import_id IS NULL OR entered_by_id IS NULL)`);
    // Only hand-recorded reads name their enterer: the index (for a user's deletion) holds only them.
    await q.query(`DROP INDEX meter_reading_entered_by`);
    await q.query(`CREATE INDEX meter_reading_entered_by ON meter_reading (entered_by_id) WHERE entered_by_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX meter_reading_entered_by`);
    await q.query(`CREATE INDEX meter_reading_entered_by ON meter_reading (entered_by_id)`);
    await q.query(`ALTER TABLE meter_reading DROP CONSTRAINT meter_reading_entered_by_import`);
    await q.query(`UPDATE meter_reading r SET entered_by_id = i.entered_by_id FROM meter_reading_import i WHERE i.id = r.import_id`);
    await q.query(`ALTER TABLE meter_reading
      ADD CONSTRAINT meter_reading_meter_id_fkey FOREIGN KEY (meter_id) REFERENCES service_meter (id),
      ADD CONSTRAINT meter_reading_district_id_fkey FOREIGN KEY (district_id) REFERENCES district (id),
      DROP CONSTRAINT meter_reading_meter_in_district`);
    await q.query(`ALTER TABLE service_meter DROP CONSTRAINT service_meter_id_district`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The register sewer rents rest on (SUL Article 12; Huron Article VI): properties (tax parcel,
 * address, owner of record, segment under SUL 1204) with the history of their owners, service
 * accounts (the occupants; Huron VI-2's "users") open from one day to another, the meters that
 * serve them, and each account's assessments (SUL 1203 EDUs; Huron VI-2/VI-5 per user), kept
 * in full so a later change of EDU shows against the earlier one.
 */
export class SewerRents1766700000000 implements MigrationInterface {
  name = "SewerRents1766700000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sewer_property (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        tax_parcel text NOT NULL CHECK (tax_parcel <> ''),
        street_number text,
        street text NOT NULL,
        city text,
        zip text NOT NULL,
        segment text,
        owner_name text NOT NULL,
        owner_user_id uuid REFERENCES app_user(id),
        owner_mailing_address text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX sewer_property_parcel ON sewer_property (district_id, lower(tax_parcel))`);
    // The register is listed by parcel and searched by the start of a parcel, an address, a street or an owner's name.
    await q.query(`CREATE INDEX sewer_property_list ON sewer_property (district_id, tax_parcel, id)`);
    await q.query(`CREATE INDEX sewer_property_parcel_search ON sewer_property (district_id, lower(tax_parcel) text_pattern_ops)`);
    await q.query(`CREATE INDEX sewer_property_street_search ON sewer_property (district_id, lower(street) text_pattern_ops)`);
    await q.query(`CREATE INDEX sewer_property_address_search ON sewer_property (district_id, lower(coalesce(street_number || ' ', '') || street) text_pattern_ops)`);
    await q.query(`CREATE INDEX sewer_property_owner_search ON sewer_property (district_id, lower(owner_name) text_pattern_ops)`);
    await q.query(`CREATE INDEX sewer_property_owner_of_record ON sewer_property (owner_user_id) WHERE owner_user_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE sewer_property_owner (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        owner_name text NOT NULL,
        owner_user_id uuid REFERENCES app_user(id),
        mailing_address text,
        from_date date NOT NULL,
        to_date date,
        recorded_by_id uuid REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        CHECK (to_date IS NULL OR to_date >= from_date)
      )`);
    await q.query(`CREATE INDEX sewer_property_owner_by_property ON sewer_property_owner (property_id, from_date)`);
    await q.query(`CREATE UNIQUE INDEX sewer_property_owner_current ON sewer_property_owner (property_id) WHERE to_date IS NULL`);
    await q.query(`CREATE INDEX sewer_property_owner_user ON sewer_property_owner (owner_user_id) WHERE owner_user_id IS NOT NULL`);
    await q.query(`CREATE INDEX sewer_property_owner_recorded_by ON sewer_property_owner (recorded_by_id)`);

    await q.query(`CREATE SEQUENCE service_account_number_seq`);
    await q.query(`
      CREATE TABLE service_account (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        account_number text NOT NULL,
        class text NOT NULL CHECK (class IN ('RESIDENTIAL', 'COMMERCIAL', 'INSTITUTIONAL', 'INDUSTRIAL')),
        occupant_name text NOT NULL,
        occupant_user_id uuid REFERENCES app_user(id),
        opened_on date NOT NULL,
        closed_on date,
        close_reason text CHECK (close_reason IN ('SALE', 'MOVE_OUT', 'DISCONTINUED')),
        final_bill jsonb,
        occupancy text NOT NULL DEFAULT 'OCCUPIED' CHECK (occupancy IN ('OCCUPIED', 'UNOCCUPIED', 'SEASONAL')),
        shared_meter_agreement text,
        source_permit_id uuid REFERENCES lateral_permit(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (closed_on IS NULL OR closed_on >= opened_on),
        CHECK ((closed_on IS NULL) = (close_reason IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX service_account_number ON service_account (account_number)`);
    await q.query(`CREATE INDEX service_account_by_property ON service_account (property_id, opened_on, id)`);
    await q.query(`CREATE INDEX service_account_open ON service_account (district_id, class) WHERE closed_on IS NULL`);
    await q.query(`CREATE INDEX service_account_occupant ON service_account (occupant_user_id) WHERE occupant_user_id IS NOT NULL`);
    await q.query(`CREATE INDEX service_account_permit ON service_account (source_permit_id) WHERE source_permit_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE service_meter (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        meter_number text NOT NULL CHECK (meter_number <> ''),
        installed_on date NOT NULL,
        removed_on date,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (removed_on IS NULL OR removed_on >= installed_on)
      )`);
    await q.query(`CREATE UNIQUE INDEX service_meter_in_service ON service_meter (district_id, lower(meter_number)) WHERE removed_on IS NULL`);
    await q.query(`CREATE INDEX service_meter_by_property ON service_meter (property_id, installed_on)`);
    await q.query(`
      CREATE TABLE service_account_meter (
        account_id uuid NOT NULL REFERENCES service_account(id),
        meter_id uuid NOT NULL REFERENCES service_meter(id),
        PRIMARY KEY (account_id, meter_id)
      )`);
    await q.query(`CREATE INDEX service_account_meter_by_meter ON service_account_meter (meter_id)`);

    await q.query(`
      CREATE TABLE service_assessment (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES service_account(id),
        basis text NOT NULL CHECK (basis IN ('EDU', 'USER')),
        effective_on date NOT NULL,
        rows jsonb NOT NULL DEFAULT '[]',
        edu_thousandths integer CHECK (edu_thousandths >= 0),
        water_usage_basis text,
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        entered_by_id uuid REFERENCES app_user(id),
        entered_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((basis = 'EDU') = (edu_thousandths IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX service_assessment_by_account ON service_assessment (account_id, effective_on DESC, entered_at DESC)`);
    await q.query(`CREATE INDEX service_assessment_rulebook ON service_assessment (rulebook_version_id)`);
    await q.query(`CREATE INDEX service_assessment_entered_by ON service_assessment (entered_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE service_assessment`);
    await q.query(`DROP TABLE service_account_meter`);
    await q.query(`DROP TABLE service_meter`);
    await q.query(`DROP TABLE service_account`);
    await q.query(`DROP SEQUENCE service_account_number_seq`);
    await q.query(`DROP TABLE sewer_property_owner`);
    await q.query(`DROP TABLE sewer_property`);
  }
}

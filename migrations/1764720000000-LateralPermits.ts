import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Building lateral (sewer connection) permits (SUL Article 6; Huron Article III): the application
 * and its plans, the fees computed from the rulebook version in force on submission, the permit
 * number, the inspections (SUL 612-613) and the moratoria on sewer segments (SUL 310).
 */
export class LateralPermits1764720000000 implements MigrationInterface {
  name = "LateralPermits1764720000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE lateral_permit (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        applicant_id uuid NOT NULL REFERENCES app_user(id),
        status text NOT NULL DEFAULT 'DRAFT'
          CHECK (status IN ('DRAFT', 'SUBMITTED', 'CHANGES_REQUESTED', 'APPROVED', 'CONNECTED', 'CLOSED', 'WITHDRAWN')),
        permit_class text CHECK (permit_class IN ('RESIDENTIAL_COMMERCIAL_INSTITUTIONAL', 'INDUSTRIAL')),
        building_use text CHECK (building_use IN ('RESIDENTIAL', 'COMMERCIAL', 'INSTITUTIONAL', 'INDUSTRIAL')),
        floor_area_sqft integer CHECK (floor_area_sqft > 0),
        work_kind text CHECK (work_kind IN ('NEW_BUILDING', 'EXISTING_LATERAL')),
        street_number text CHECK (length(street_number) <= 20),
        street text CHECK (length(street) <= 200),
        city text CHECK (length(city) <= 100),
        zip text CHECK (zip ~ '^[0-9]{5}(-[0-9]{4})?$'),
        tax_parcel text CHECK (length(tax_parcel) <= 50),
        owner_name text CHECK (length(owner_name) <= 200),
        agent_name text CHECK (length(agent_name) <= 200),
        contractor_id uuid REFERENCES contractor(id),
        as_built_sheets integer CHECK (as_built_sheets >= 0),
        rulebook_version_id uuid REFERENCES rulebook_version(id),
        fee_lines jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(fee_lines) = 'array'),
        fee_total_cents integer NOT NULL DEFAULT 0 CHECK (fee_total_cents >= 0),
        payment_id uuid REFERENCES payment(id),
        paid_at timestamptz,
        permit_number text UNIQUE,
        submitted_at timestamptz,
        changes_requested_at timestamptz,
        review_notes text CHECK (length(review_notes) <= 4000),
        approved_at timestamptz,
        approved_by_id uuid REFERENCES app_user(id),
        connected_at timestamptz,
        as_built_approved_at timestamptz,
        as_built_approved_by_id uuid REFERENCES app_user(id),
        deposit_refund_due_cents integer NOT NULL DEFAULT 0 CHECK (deposit_refund_due_cents >= 0),
        withdrawn_at timestamptz,
        closed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- Once submitted, an application has every part the law asks for (SUL 602, 604, 606 B).
        CHECK (submitted_at IS NULL OR (permit_class IS NOT NULL AND building_use IS NOT NULL AND work_kind IS NOT NULL
          AND street_number IS NOT NULL AND street IS NOT NULL AND city IS NOT NULL AND zip IS NOT NULL
          AND tax_parcel IS NOT NULL AND owner_name IS NOT NULL AND as_built_sheets IS NOT NULL
          AND rulebook_version_id IS NOT NULL)),
        CHECK ((approved_at IS NULL) = (permit_number IS NULL)),
        CHECK (status IN ('DRAFT', 'SUBMITTED', 'CHANGES_REQUESTED', 'WITHDRAWN') OR approved_at IS NOT NULL),
        CHECK (status NOT IN ('CONNECTED', 'CLOSED') OR connected_at IS NOT NULL)
      )`);
    // The staff queue (by status and age) and the applicant's list.
    await q.query(`CREATE INDEX lateral_permit_queue ON lateral_permit (district_id, status, submitted_at, id)`);
    await q.query(`CREATE INDEX lateral_permit_applicant ON lateral_permit (applicant_id, created_at DESC)`);
    await q.query(`CREATE INDEX lateral_permit_contractor_id ON lateral_permit (contractor_id)`);
    await q.query(`CREATE INDEX lateral_permit_rulebook_version_id ON lateral_permit (rulebook_version_id)`);
    await q.query(`CREATE INDEX lateral_permit_payment_id ON lateral_permit (payment_id)`);
    await q.query(`CREATE INDEX lateral_permit_approved_by_id ON lateral_permit (approved_by_id)`);
    await q.query(`CREATE INDEX lateral_permit_as_built_approved_by_id ON lateral_permit (as_built_approved_by_id)`);

    // Permit numbers run per district and calendar year: LKV-LP-2026-0001.
    await q.query(`
      CREATE TABLE lateral_permit_counter (
        district_id uuid NOT NULL REFERENCES district(id),
        year integer NOT NULL CHECK (year BETWEEN 2000 AND 9999),
        last integer NOT NULL CHECK (last >= 0),
        PRIMARY KEY (district_id, year)
      )`);

    // Plans and specifications filed with an application (uploaded documents).
    await q.query(`
      CREATE TABLE lateral_permit_document (
        permit_id uuid NOT NULL REFERENCES lateral_permit(id) ON DELETE CASCADE,
        document_id uuid NOT NULL REFERENCES document(id),
        position integer NOT NULL CHECK (position >= 0),
        PRIMARY KEY (permit_id, document_id)
      )`);
    await q.query(`CREATE INDEX lateral_permit_document_document_id ON lateral_permit_document (document_id)`);

    await q.query(`
      CREATE TABLE lateral_inspection (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES lateral_permit(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('TRENCH', 'CONNECTION', 'LEAKAGE_TEST')),
        status text NOT NULL DEFAULT 'REQUESTED' CHECK (status IN ('REQUESTED', 'SCHEDULED', 'PASSED', 'FAILED')),
        requested_at timestamptz NOT NULL DEFAULT now(),
        requested_by_id uuid NOT NULL REFERENCES app_user(id),
        applicant_notes text CHECK (length(applicant_notes) <= 2000),
        scheduled_for timestamptz,
        scheduled_by_id uuid REFERENCES app_user(id),
        inspector_id uuid REFERENCES app_user(id),
        result_notes text CHECK (length(result_notes) <= 4000),
        recorded_at timestamptz,
        recorded_by_id uuid REFERENCES app_user(id),
        CHECK (status = 'REQUESTED' OR scheduled_for IS NOT NULL),
        CHECK ((status IN ('PASSED', 'FAILED')) = (recorded_at IS NOT NULL)),
        CHECK ((recorded_at IS NULL) = (recorded_by_id IS NULL))
      )`);
    await q.query(`CREATE INDEX lateral_inspection_permit_id ON lateral_inspection (permit_id, requested_at)`);
    // At most one open request per kind and permit.
    await q.query(`CREATE UNIQUE INDEX lateral_inspection_open_kind ON lateral_inspection (permit_id, kind) WHERE status IN ('REQUESTED', 'SCHEDULED')`);
    await q.query(`CREATE INDEX lateral_inspection_scheduled_for ON lateral_inspection (scheduled_for) WHERE scheduled_for IS NOT NULL`);
    await q.query(`CREATE INDEX lateral_inspection_requested_by_id ON lateral_inspection (requested_by_id)`);
    await q.query(`CREATE INDEX lateral_inspection_scheduled_by_id ON lateral_inspection (scheduled_by_id)`);
    await q.query(`CREATE INDEX lateral_inspection_inspector_id ON lateral_inspection (inspector_id)`);
    await q.query(`CREATE INDEX lateral_inspection_recorded_by_id ON lateral_inspection (recorded_by_id)`);

    // Moratoria on new connections for a sewer segment (SUL 310). Streets are kept normalised
    // (lower case, abbreviated suffixes) so "Harbor Road" and "harbor rd." match.
    await q.query(`
      CREATE TABLE sewer_moratorium (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        segment_name text NOT NULL CHECK (length(segment_name) BETWEEN 1 AND 200),
        streets text[] NOT NULL CHECK (cardinality(streets) BETWEEN 1 AND 100),
        reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
        section text NOT NULL,
        declared_by_id uuid NOT NULL REFERENCES app_user(id),
        declared_at timestamptz NOT NULL DEFAULT now(),
        lifted_at timestamptz,
        lifted_by_id uuid REFERENCES app_user(id),
        lift_reason text CHECK (length(lift_reason) <= 2000),
        CHECK ((lifted_at IS NULL) = (lifted_by_id IS NULL))
      )`);
    await q.query(`CREATE INDEX sewer_moratorium_district_id ON sewer_moratorium (district_id, declared_at DESC)`);
    await q.query(`CREATE INDEX sewer_moratorium_declared_by_id ON sewer_moratorium (declared_by_id)`);
    await q.query(`CREATE INDEX sewer_moratorium_lifted_by_id ON sewer_moratorium (lifted_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ["sewer_moratorium", "lateral_inspection", "lateral_permit_document", "lateral_permit_counter", "lateral_permit"])
      await q.query(`DROP TABLE ${t}`);
  }
}

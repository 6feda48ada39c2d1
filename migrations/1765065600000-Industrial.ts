import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Industrial wastewater discharge permits (SUL Article 10) and their compliance reports (SUL
 * 1005, 1011): the application with SUL 1004 A's items, the notice of intent (1004 H), the
 * issued permit with its limits (903, 904) and report periods, the lab results of each report
 * with their evaluation, the duties an exceedance opens (1005(4)), and each signed report's copy
 * of record, which no statement can change (a trigger refuses UPDATE and DELETE).
 */
export class Industrial1765065600000 implements MigrationInterface {
  name = "Industrial1765065600000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE industrial_permit (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        organization_id uuid NOT NULL REFERENCES organization(id),
        applicant_id uuid NOT NULL REFERENCES app_user(id),
        status text NOT NULL CHECK (status IN ('DRAFT', 'SUBMITTED', 'NOTICE_PUBLISHED', 'ISSUED', 'REVOKED', 'WITHDRAWN')),
        -- SUL 1004 A (1)
        facility_name text,
        street text,
        city text,
        zip text,
        location text,
        -- (2)
        sic_codes text[] NOT NULL DEFAULT '{}',
        -- (3) [{parameter, value, unit}] from a certified lab; never confidential (SUL 1014)
        constituents jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(constituents) = 'array'),
        -- (4)
        discharge_schedule text,
        discharge_hours_per_day numeric CHECK (discharge_hours_per_day BETWEEN 0 AND 24),
        -- (5)
        average_flow_gpd numeric CHECK (average_flow_gpd >= 0),
        peak_flow_gpd numeric CHECK (peak_flow_gpd >= 0),
        flow_variations text,
        -- (7)
        activities text,
        -- (8) [{name, amount, unit, process}]
        products jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(products) = 'array'),
        -- (9) [{name, averagePerDay, maximumPerDay, unit}]
        raw_materials jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(raw_materials) = 'array'),
        -- (10)
        employees integer CHECK (employees >= 0),
        employee_types text,
        hours_of_operation text,
        pretreatment_hours text,
        -- (11) [{parameter, concentration, unit, standardMet}]
        pollutants jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(pollutants) = 'array'),
        standards_met boolean,
        -- (12) [{milestone, dueOn}]
        compliance_schedule jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(compliance_schedule) = 'array'),
        -- (13)
        other_info text,
        -- SUL 1014: text fields the user marks as trade secrets (shown only to staff and the user)
        trade_secret_fields text[] NOT NULL DEFAULT '{}',
        rulebook_version_id uuid REFERENCES rulebook_version(id),
        fee_cents integer CHECK (fee_cents >= 0),
        payment_id uuid REFERENCES payment(id),
        paid_at timestamptz,
        submitted_at timestamptz,
        -- SUL 1004 H
        notice_published_on date,
        notice_published_at timestamptz,
        notice_published_by_id uuid REFERENCES app_user(id),
        notice_text text,
        -- the permit (SUL 1004 C-D)
        permit_number text UNIQUE,
        issued_at timestamptz,
        issued_by_id uuid REFERENCES app_user(id),
        effective_on date,
        expires_on date,
        reporting_months integer[] NOT NULL DEFAULT '{}',
        -- SUL 1004 G
        revoked_at timestamptz,
        revoked_by_id uuid REFERENCES app_user(id),
        revocation_reason text,
        revocation_notes text,
        withdrawn_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status IN ('DRAFT', 'WITHDRAWN')) OR submitted_at IS NOT NULL),
        CHECK ((status NOT IN ('NOTICE_PUBLISHED', 'ISSUED', 'REVOKED')) OR notice_published_on IS NOT NULL),
        CHECK ((status NOT IN ('ISSUED', 'REVOKED')) OR (issued_at IS NOT NULL AND effective_on IS NOT NULL AND expires_on > effective_on)),
        CHECK ((status <> 'REVOKED') OR (revoked_at IS NOT NULL AND revocation_reason IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX industrial_permit_queue ON industrial_permit (district_id, status, submitted_at, id)`);
    await q.query(`CREATE INDEX industrial_permit_district_submitted ON industrial_permit (district_id, submitted_at DESC, id DESC)`);
    await q.query(`CREATE INDEX industrial_permit_organization ON industrial_permit (organization_id, created_at DESC)`);
    await q.query(`CREATE INDEX industrial_permit_applicant_id ON industrial_permit (applicant_id)`);
    await q.query(`CREATE INDEX industrial_permit_rulebook_version_id ON industrial_permit (rulebook_version_id)`);
    await q.query(`CREATE INDEX industrial_permit_payment_id ON industrial_permit (payment_id)`);
    await q.query(`CREATE INDEX industrial_permit_notice_published_by_id ON industrial_permit (notice_published_by_id)`);
    await q.query(`CREATE INDEX industrial_permit_issued_by_id ON industrial_permit (issued_by_id)`);
    await q.query(`CREATE INDEX industrial_permit_revoked_by_id ON industrial_permit (revoked_by_id)`);
    await q.query(`CREATE INDEX industrial_permit_notices ON industrial_permit (notice_published_on DESC, id) WHERE notice_published_on IS NOT NULL`);

    // Permit numbers run per district and calendar year: LKV-IU-2026-0001.
    await q.query(`
      CREATE TABLE industrial_permit_counter (
        district_id uuid NOT NULL REFERENCES district(id),
        year integer NOT NULL CHECK (year BETWEEN 2000 AND 9999),
        last integer NOT NULL CHECK (last >= 0),
        PRIMARY KEY (district_id, year)
      )`);

    // SUL 1004 A (6) plans and (3) the certified lab's report, as uploaded documents.
    await q.query(`
      CREATE TABLE industrial_permit_document (
        permit_id uuid NOT NULL REFERENCES industrial_permit(id) ON DELETE CASCADE,
        document_id uuid NOT NULL REFERENCES document(id),
        kind text NOT NULL CHECK (kind IN ('PLANS', 'LAB_REPORT', 'OTHER')),
        PRIMARY KEY (permit_id, document_id)
      )`);
    await q.query(`CREATE INDEX industrial_permit_document_document_id ON industrial_permit_document (document_id)`);

    // The permit's limits (SUL 903 copied from the rulebook, then as the permit sets them, 904).
    await q.query(`
      CREATE TABLE industrial_limit (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES industrial_permit(id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 0),
        parameter text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('CONCENTRATION', 'MASS', 'PH', 'TEMPERATURE')),
        unit text NOT NULL,
        average numeric,
        maximum numeric,
        minimum numeric,
        section text NOT NULL,
        CHECK (average IS NOT NULL OR maximum IS NOT NULL OR minimum IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX industrial_limit_permit ON industrial_limit (permit_id, position)`);

    // Reports: one row per period the permit's schedule generates (status DUE until started);
    // an amendment is a new row that names the signed report it corrects.
    await q.query(`
      CREATE TABLE industrial_report (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES industrial_permit(id),
        kind text NOT NULL CHECK (kind IN ('PERIODIC', 'NINETY_DAY', 'BASELINE', 'RESAMPLE')),
        period_start date NOT NULL,
        period_end date NOT NULL,
        due_on date NOT NULL,
        status text NOT NULL CHECK (status IN ('DUE', 'DRAFT', 'SIGNED')),
        amends_id uuid REFERENCES industrial_report(id),
        started_at timestamptz,
        signed_at timestamptz,
        signer_id uuid REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (period_end >= period_start),
        CHECK ((status = 'SIGNED') = (signed_at IS NOT NULL AND signer_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX industrial_report_permit ON industrial_report (permit_id, due_on, id)`);
    await q.query(`CREATE INDEX industrial_report_due ON industrial_report (due_on, status)`);
    await q.query(`CREATE UNIQUE INDEX industrial_report_one_amendment ON industrial_report (amends_id) WHERE amends_id IS NOT NULL`);
    await q.query(`CREATE INDEX industrial_report_signer_id ON industrial_report (signer_id)`);

    // Lab results with their evaluation against the permit's limits at the time they were saved.
    await q.query(`
      CREATE TABLE industrial_result (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        report_id uuid NOT NULL REFERENCES industrial_report(id) ON DELETE CASCADE,
        permit_id uuid NOT NULL REFERENCES industrial_permit(id),
        parameter text NOT NULL,
        sample_type text NOT NULL CHECK (sample_type IN ('COMPOSITE', 'GRAB')),
        sampled_at timestamptz NOT NULL,
        value numeric,
        unit text NOT NULL,
        below_detection boolean NOT NULL DEFAULT false,
        detection_limit numeric,
        flow_mgd numeric CHECK (flow_mgd > 0),
        lab text NOT NULL,
        method text NOT NULL,
        status text NOT NULL CHECK (status IN ('OK', 'EXCEEDS', 'INCONCLUSIVE', 'NO_LIMIT')),
        basis text,
        limit_value numeric,
        limit_unit text,
        compared_value numeric,
        ratio numeric,
        section text,
        message text NOT NULL,
        conversion text,
        created_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (below_detection = (value IS NULL)),
        CHECK ((NOT below_detection) OR detection_limit IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX industrial_result_report ON industrial_result (report_id, sampled_at, id)`);
    await q.query(`CREATE INDEX industrial_result_permit ON industrial_result (permit_id, parameter, sampled_at)`);
    await q.query(`CREATE INDEX industrial_result_created_by_id ON industrial_result (created_by_id)`);

    // SUL 1005(4): notify within 24 hours, resample with results within 30 days.
    await q.query(`
      CREATE TABLE industrial_duty (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES industrial_permit(id),
        report_id uuid NOT NULL REFERENCES industrial_report(id) ON DELETE CASCADE,
        result_id uuid NOT NULL REFERENCES industrial_result(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('NOTIFY', 'RESAMPLE')),
        text text NOT NULL,
        section text NOT NULL,
        due_at timestamptz NOT NULL,
        due_on date NOT NULL,
        done_at timestamptz,
        done_by_id uuid REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX industrial_duty_permit ON industrial_duty (permit_id, done_at, due_at)`);
    await q.query(`CREATE INDEX industrial_duty_report_id ON industrial_duty (report_id)`);
    await q.query(`CREATE INDEX industrial_duty_result_id ON industrial_duty (result_id)`);
    await q.query(`CREATE INDEX industrial_duty_done_by_id ON industrial_duty (done_by_id)`);

    // A signed report's results cannot change: corrections are a new report that amends it.
    await q.query(`
      CREATE FUNCTION industrial_result_locked() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r uuid := COALESCE(NEW.report_id, OLD.report_id);
      BEGIN
        IF EXISTS (SELECT 1 FROM industrial_report WHERE id = r AND status = 'SIGNED') THEN
          RAISE EXCEPTION 'industrial report % is signed; its results cannot change (file an amendment)', r USING ERRCODE = 'check_violation';
        END IF;
        RETURN COALESCE(NEW, OLD);
      END $$`);
    await q.query(`CREATE TRIGGER industrial_result_locked BEFORE INSERT OR UPDATE OR DELETE ON industrial_result FOR EACH ROW EXECUTE FUNCTION industrial_result_locked()`);

    // The copy of record of each signed report (EPA CROMERR, 40 CFR 3.2000(b)(5)): nothing changes it.
    await q.query(`
      CREATE TABLE industrial_copy_of_record (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        report_id uuid NOT NULL UNIQUE REFERENCES industrial_report(id),
        document text NOT NULL,
        sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        signer_id uuid NOT NULL REFERENCES app_user(id),
        signer_name text NOT NULL,
        signer_email text NOT NULL,
        certification text NOT NULL,
        received_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX industrial_copy_of_record_signer_id ON industrial_copy_of_record (signer_id)`);
    await q.query(`
      CREATE FUNCTION industrial_copy_of_record_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a copy of record cannot be changed or deleted' USING ERRCODE = 'check_violation';
      END $$`);
    await q.query(
      `CREATE TRIGGER industrial_copy_of_record_immutable BEFORE UPDATE OR DELETE ON industrial_copy_of_record FOR EACH ROW EXECUTE FUNCTION industrial_copy_of_record_immutable()`,
    );
    await q.query(
      `CREATE TRIGGER industrial_copy_of_record_no_truncate BEFORE TRUNCATE ON industrial_copy_of_record FOR EACH STATEMENT EXECUTE FUNCTION industrial_copy_of_record_immutable()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE industrial_copy_of_record`);
    await q.query(`DROP FUNCTION industrial_copy_of_record_immutable()`);
    await q.query(`DROP TABLE industrial_duty`);
    await q.query(`DROP TABLE industrial_result`);
    await q.query(`DROP FUNCTION industrial_result_locked()`);
    await q.query(`DROP TABLE industrial_report`);
    await q.query(`DROP TABLE industrial_limit`);
    await q.query(`DROP TABLE industrial_permit_document`);
    await q.query(`DROP TABLE industrial_permit_counter`);
    await q.query(`DROP TABLE industrial_permit`);
  }
}

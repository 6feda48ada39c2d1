import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The report kinds besides the periodic report (SUL 1005, 1011, 1004 A(12)).
 *
 * - `industrial_violation_notice`: the notification of a violation the user made (SUL 1005(4)),
 *   one per NOTIFY duty: who was told, how, when, what was said.
 * - `industrial_report.duty_id`: a RESAMPLE report is started from its RESAMPLE duty; signing it
 *   completes the duty. One report per duty (amendments carry no duty).
 * - `industrial_report.basis_on`: the date a NINETY_DAY report (final compliance / start of
 *   discharge, 1005(2)) or a BASELINE report (promulgation of the categorical standard, 1005(1))
 *   counts from.
 * - `industrial_slug_discharge`: an accidental or slug discharge (SUL 1011): the immediate
 *   notification, and the written report (a report of kind SLUG) with its causes and measures.
 * - `industrial_report_statement`: the 90-day report's statement (standards met consistently or
 *   the O&M / pretreatment needed) and the qualified professional's certification.
 * - `industrial_progress_report`: progress on a compliance-schedule milestone (SUL 1004 A(12)(c)).
 */
export class IndustrialReportKinds1765238400000 implements MigrationInterface {
  name = "IndustrialReportKinds1765238400000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE industrial_report DROP CONSTRAINT industrial_report_kind_check`);
    await q.query(`ALTER TABLE industrial_report ADD CONSTRAINT industrial_report_kind_check CHECK (kind IN ('PERIODIC', 'NINETY_DAY', 'BASELINE', 'RESAMPLE', 'SLUG'))`);
    await q.query(`ALTER TABLE industrial_report ADD COLUMN duty_id uuid REFERENCES industrial_duty(id)`);
    await q.query(`ALTER TABLE industrial_report ADD COLUMN basis_on date`);
    await q.query(`CREATE UNIQUE INDEX industrial_report_duty ON industrial_report (duty_id) WHERE duty_id IS NOT NULL AND amends_id IS NULL`);
    await q.query(`CREATE INDEX industrial_report_duty_id ON industrial_report (duty_id)`);

    await q.query(`
      CREATE TABLE industrial_violation_notice (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        duty_id uuid NOT NULL UNIQUE REFERENCES industrial_duty(id) ON DELETE CASCADE,
        permit_id uuid NOT NULL REFERENCES industrial_permit(id),
        notified_whom text NOT NULL,
        method text NOT NULL CHECK (method IN ('PHONE', 'EMAIL', 'IN_PERSON', 'LETTER')),
        notified_at timestamptz NOT NULL,
        text text NOT NULL,
        on_time boolean NOT NULL,
        filed_by_id uuid NOT NULL REFERENCES app_user(id),
        filed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX industrial_violation_notice_permit ON industrial_violation_notice (permit_id, filed_at)`);
    await q.query(`CREATE INDEX industrial_violation_notice_filed_by_id ON industrial_violation_notice (filed_by_id)`);

    await q.query(`
      CREATE TABLE industrial_slug_discharge (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES industrial_permit(id),
        report_id uuid NOT NULL UNIQUE REFERENCES industrial_report(id),
        occurred_at timestamptz NOT NULL,
        notified_at timestamptz NOT NULL,
        notified_whom text NOT NULL,
        substance text NOT NULL,
        estimated_volume_gallons numeric NOT NULL CHECK (estimated_volume_gallons >= 0),
        description text NOT NULL DEFAULT '',
        causes text,
        measures text,
        written_due_on date NOT NULL,
        analyses_due_on date NOT NULL,
        filed_by_id uuid NOT NULL REFERENCES app_user(id),
        filed_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX industrial_slug_discharge_permit ON industrial_slug_discharge (permit_id, occurred_at)`);
    await q.query(`CREATE INDEX industrial_slug_discharge_filed_by_id ON industrial_slug_discharge (filed_by_id)`);

    await q.query(`
      CREATE TABLE industrial_report_statement (
        report_id uuid PRIMARY KEY REFERENCES industrial_report(id) ON DELETE CASCADE,
        standards_met boolean NOT NULL,
        measures text,
        professional_name text NOT NULL,
        professional_credential text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE industrial_progress_report (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES industrial_permit(id),
        milestone_index int NOT NULL CHECK (milestone_index >= 0),
        milestone text NOT NULL,
        milestone_due_on date NOT NULL,
        met boolean NOT NULL,
        met_on date,
        reason text,
        expected_on date,
        filed_by_id uuid NOT NULL REFERENCES app_user(id),
        filed_at timestamptz NOT NULL DEFAULT now(),
        CHECK (met = (met_on IS NOT NULL)),
        CHECK (met OR (reason IS NOT NULL AND expected_on IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX industrial_progress_report_permit ON industrial_progress_report (permit_id, milestone_index, filed_at)`);
    await q.query(`CREATE INDEX industrial_progress_report_filed_by_id ON industrial_progress_report (filed_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE industrial_progress_report`);
    await q.query(`DROP TABLE industrial_report_statement`);
    await q.query(`DROP TABLE industrial_slug_discharge`);
    await q.query(`DROP TABLE industrial_violation_notice`);
    await q.query(`ALTER TABLE industrial_report DROP COLUMN basis_on`);
    await q.query(`ALTER TABLE industrial_report DROP COLUMN duty_id`);
    await q.query(`DELETE FROM industrial_report WHERE kind = 'SLUG'`);
    await q.query(`ALTER TABLE industrial_report DROP CONSTRAINT industrial_report_kind_check`);
    await q.query(`ALTER TABLE industrial_report ADD CONSTRAINT industrial_report_kind_check CHECK (kind IN ('PERIODIC', 'NINETY_DAY', 'BASELINE', 'RESAMPLE'))`);
  }
}

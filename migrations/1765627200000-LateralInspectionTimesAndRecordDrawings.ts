import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Inspections record when they actually took place (never later than the result is recorded) and
 * the applicant's preferred day; the applicant files the as-built (record) drawings of SUL 606 B
 * on the permit, beside the plans, for the District Operator's approval.
 */
export class LateralInspectionTimesAndRecordDrawings1765627200000 implements MigrationInterface {
  name = "LateralInspectionTimesAndRecordDrawings1765627200000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE lateral_inspection ADD COLUMN preferred_on date, ADD COLUMN inspected_at timestamptz`);
    // Results recorded before this change: the recording time is the best record of the inspection.
    await q.query(`UPDATE lateral_inspection SET inspected_at = recorded_at WHERE recorded_at IS NOT NULL`);
    await q.query(`
      ALTER TABLE lateral_inspection
        ADD CONSTRAINT lateral_inspection_inspected_when_recorded CHECK ((inspected_at IS NULL) = (recorded_at IS NULL)),
        ADD CONSTRAINT lateral_inspection_inspected_before_recorded CHECK (inspected_at IS NULL OR inspected_at <= recorded_at)`);
    await q.query(`ALTER TABLE lateral_permit_document ADD COLUMN kind text NOT NULL DEFAULT 'PLAN' CHECK (kind IN ('PLAN', 'AS_BUILT'))`);
    await q.query(`ALTER TABLE lateral_permit ADD COLUMN as_built_filed_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE lateral_permit DROP COLUMN as_built_filed_at`);
    await q.query(`ALTER TABLE lateral_permit_document DROP COLUMN kind`);
    await q.query(`ALTER TABLE lateral_inspection DROP CONSTRAINT lateral_inspection_inspected_before_recorded, DROP CONSTRAINT lateral_inspection_inspected_when_recorded`);
    await q.query(`ALTER TABLE lateral_inspection DROP COLUMN inspected_at, DROP COLUMN preferred_on`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A planned inspection (SUL 502 A) moved to another day or cancelled by the District Operator, with
 * the reason: a cancelled plan stays on the sewer's record and leaves the open list.
 */
export class ExtensionInspectionPlanChanges1767090000000 implements MigrationInterface {
  name = "ExtensionInspectionPlanChanges1767090000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE extension_inspection_plan
        ADD COLUMN cancelled_on date,
        ADD COLUMN cancellation_reason text CHECK (length(cancellation_reason) BETWEEN 1 AND 1000),
        ADD COLUMN cancelled_by_id uuid REFERENCES app_user(id),
        ADD CONSTRAINT extension_inspection_plan_cancelled_check CHECK (
          (cancelled_on IS NULL) = (cancellation_reason IS NULL) AND (cancelled_on IS NULL) = (cancelled_by_id IS NULL)
          AND (cancelled_on IS NULL OR inspection_id IS NULL))`);
    await q.query(`CREATE INDEX extension_inspection_plan_cancelled_by ON extension_inspection_plan (cancelled_by_id)`);
    await q.query(`DROP INDEX extension_inspection_plan_open`);
    await q.query(`CREATE INDEX extension_inspection_plan_open ON extension_inspection_plan (district_id, planned_on, id) WHERE inspection_id IS NULL AND cancelled_on IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX extension_inspection_plan_open`);
    await q.query(`CREATE INDEX extension_inspection_plan_open ON extension_inspection_plan (district_id, planned_on, id) WHERE inspection_id IS NULL`);
    await q.query(`DROP INDEX extension_inspection_plan_cancelled_by`);
    await q.query(`ALTER TABLE extension_inspection_plan DROP CONSTRAINT extension_inspection_plan_cancelled_check, DROP COLUMN cancelled_by_id, DROP COLUMN cancellation_reason, DROP COLUMN cancelled_on`);
  }
}

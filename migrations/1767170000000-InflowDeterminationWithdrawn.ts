import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A determination of inflow withdrawn by the District Operator before it is billed
 * (docs/decisions/inflow-determination-withdrawn.md): kept on the record with who withdrew it, when
 * and why; the bill run no longer bills it and its days may be determined again.
 */
export class InflowDeterminationWithdrawn1767170000000 implements MigrationInterface {
  name = "InflowDeterminationWithdrawn1767170000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inflow_determination ADD COLUMN withdrawn_at timestamptz`);
    await q.query(`ALTER TABLE inflow_determination ADD COLUMN withdrawn_by_id uuid REFERENCES app_user(id)`);
    await q.query(`ALTER TABLE inflow_determination ADD COLUMN withdrawn_reason text`);
    await q.query(
      `ALTER TABLE inflow_determination ADD CONSTRAINT inflow_determination_withdrawn_check
         CHECK ((withdrawn_at IS NULL AND withdrawn_by_id IS NULL AND withdrawn_reason IS NULL)
             OR (withdrawn_at IS NOT NULL AND withdrawn_by_id IS NOT NULL AND withdrawn_reason <> ''))`,
    );
    await q.query(`CREATE INDEX inflow_determination_withdrawn_by ON inflow_determination (withdrawn_by_id) WHERE withdrawn_by_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX inflow_determination_withdrawn_by`);
    await q.query(`ALTER TABLE inflow_determination DROP CONSTRAINT inflow_determination_withdrawn_check`);
    await q.query(`ALTER TABLE inflow_determination DROP COLUMN withdrawn_reason`);
    await q.query(`ALTER TABLE inflow_determination DROP COLUMN withdrawn_by_id`);
    await q.query(`ALTER TABLE inflow_determination DROP COLUMN withdrawn_at`);
  }
}

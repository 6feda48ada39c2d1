import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Bill runs, issue 14's last rules:
 * - a preview being computed is marked on its run (who, since when), so a second Clerk previewing
 *   the same period is told so instead of colliding with it;
 * - an account's industrial permit (SUL 1202: the surcharge is billed from the industrial user's
 *   own results for the period);
 * - the discontinued account a new one reinstates (Huron VI-5: reinstatement within twelve months
 *   pays the minimum charges of the period of discontinuance), at most one reinstatement each;
 * - the bill line of those minimums.
 */
export class BillRunGuardsSurchargeReinstatement1766880000000 implements MigrationInterface {
  name = "BillRunGuardsSurchargeReinstatement1766880000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bill_run ADD COLUMN computing_by_id uuid REFERENCES app_user(id), ADD COLUMN computing_since timestamptz`);
    await q.query(`CREATE INDEX bill_run_computing_by ON bill_run (computing_by_id) WHERE computing_by_id IS NOT NULL`);
    await q.query(`ALTER TABLE service_account ADD COLUMN industrial_permit_id uuid REFERENCES industrial_permit(id), ADD COLUMN reinstates_account_id uuid REFERENCES service_account(id)`);
    await q.query(`CREATE INDEX service_account_industrial_permit ON service_account (industrial_permit_id) WHERE industrial_permit_id IS NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX service_account_reinstates ON service_account (reinstates_account_id) WHERE reinstates_account_id IS NOT NULL`);
    await q.query(`ALTER TABLE bill_line DROP CONSTRAINT bill_line_kind_check`);
    await q.query(
      `ALTER TABLE bill_line ADD CONSTRAINT bill_line_kind_check CHECK (kind IN ('FIXED', 'VOLUME', 'MINIMUM', 'USE_ABOVE_MINIMUM', 'OWNER_EXCESS', 'SURCHARGE', 'ADJUSTMENT', 'REINSTATEMENT_MINIMUMS'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bill_line DROP CONSTRAINT bill_line_kind_check`);
    await q.query(`ALTER TABLE bill_line ADD CONSTRAINT bill_line_kind_check CHECK (kind IN ('FIXED', 'VOLUME', 'MINIMUM', 'USE_ABOVE_MINIMUM', 'OWNER_EXCESS', 'SURCHARGE', 'ADJUSTMENT'))`);
    await q.query(`DROP INDEX service_account_reinstates`);
    await q.query(`DROP INDEX service_account_industrial_permit`);
    await q.query(`ALTER TABLE service_account DROP COLUMN reinstates_account_id, DROP COLUMN industrial_permit_id`);
    await q.query(`DROP INDEX bill_run_computing_by`);
    await q.query(`ALTER TABLE bill_run DROP COLUMN computing_since, DROP COLUMN computing_by_id`);
  }
}

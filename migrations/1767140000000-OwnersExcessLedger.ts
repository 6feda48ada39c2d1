import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Issue 14, a Huron owner's excess bill paid and enforced (Huron VI-2, VI-3, VI-4): the excess
 * bills of a shared meter have no service account (bill.kind OWNER_EXCESS, one per meter and
 * period), so their payments, VI-3 penalties and violations are kept in the same ledger keyed by
 * the property instead: an entry belongs to exactly one balance, an account's or the property's
 * owner's excess (docs/decisions/huron-owners-excess-bill-paying.md). A payment never lands on the
 * other: the key is the one its payable names. Existing rows are all accounts' and keep their key.
 */
export class OwnersExcessLedger1767140000000 implements MigrationInterface {
  name = "OwnersExcessLedger1767140000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE account_ledger_entry ALTER COLUMN account_id DROP NOT NULL`);
    await q.query(`ALTER TABLE account_ledger_entry ADD COLUMN excess_property_id uuid REFERENCES sewer_property(id)`);
    await q.query(`ALTER TABLE account_ledger_entry ADD CONSTRAINT account_ledger_one_balance CHECK (num_nonnulls(account_id, excess_property_id) = 1)`);
    await q.query(`CREATE INDEX account_ledger_by_excess_property ON account_ledger_entry (excess_property_id, effective_on) WHERE excess_property_id IS NOT NULL`);
    // The property's issued excess bills, read for its balance (bill_by_property holds every bill of the property).
    await q.query(`CREATE INDEX bill_owner_excess_by_property ON bill (property_id, mailed_on) WHERE kind = 'OWNER_EXCESS' AND status = 'ISSUED'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX bill_owner_excess_by_property`);
    // The ledger's trigger refuses deletes; the owner's excess entries go with the column they need.
    await q.query(`ALTER TABLE account_ledger_entry DISABLE TRIGGER account_ledger_kept`);
    await q.query(`DELETE FROM account_ledger_entry WHERE excess_property_id IS NOT NULL`);
    await q.query(`ALTER TABLE account_ledger_entry ENABLE TRIGGER account_ledger_kept`);
    await q.query(`DROP INDEX account_ledger_by_excess_property`);
    await q.query(`ALTER TABLE account_ledger_entry DROP CONSTRAINT account_ledger_one_balance`);
    await q.query(`ALTER TABLE account_ledger_entry DROP COLUMN excess_property_id`);
    await q.query(`ALTER TABLE account_ledger_entry ALTER COLUMN account_id SET NOT NULL`);
  }
}

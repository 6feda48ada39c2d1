import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Issue 14, refunding an account's credit (api/rents/refunds.ts): the Town Clerk pays back money an
 * account holds beyond what it owes, by check at the counter or back to the card of a card payment
 * on the account. A REFUND entry of account_ledger_entry now keeps how: its reason, its receipt
 * number (the district's receipt book), and either the check (its number; the entry's day is the
 * check's date) or the card refund (refund_id, the payment refunded in payment_id). The entry is
 * still never changed or deleted. No REFUND entry was written before this migration.
 */
export class AccountCreditRefunds1767150000000 implements MigrationInterface {
  name = "AccountCreditRefunds1767150000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE account_ledger_entry
        ADD COLUMN refund_id uuid REFERENCES refund(id),
        ADD COLUMN check_number text CHECK (check_number IS NULL OR length(check_number) BETWEEN 1 AND 40),
        ADD COLUMN reason text CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 1000),
        ADD COLUMN receipt_number text`);
    await q.query(`
      ALTER TABLE account_ledger_entry ADD CONSTRAINT account_ledger_refund_how CHECK (
        kind <> 'REFUND' OR (reason IS NOT NULL AND receipt_number IS NOT NULL AND created_by_id IS NOT NULL
          AND ((refund_id IS NOT NULL AND payment_id IS NOT NULL AND check_number IS NULL) OR (refund_id IS NULL AND payment_id IS NULL AND check_number IS NOT NULL))))`);
    await q.query(`CREATE UNIQUE INDEX account_ledger_refund ON account_ledger_entry (refund_id) WHERE refund_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX account_ledger_refund`);
    await q.query(`ALTER TABLE account_ledger_entry DROP CONSTRAINT account_ledger_refund_how`);
    await q.query(`ALTER TABLE account_ledger_entry DROP COLUMN refund_id, DROP COLUMN check_number, DROP COLUMN reason, DROP COLUMN receipt_number`);
  }
}

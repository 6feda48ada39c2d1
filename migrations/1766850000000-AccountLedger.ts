import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Issue 14, the money after a bill is issued: an account's ledger of what is not a bill (payments
 * received, the late penalty and interest of SUL 1118 and Huron VI-3, a Huron VI-3 violation
 * marker, money paid back). An account's balance is its issued bills' totals plus these entries;
 * what each bill still owes is worked out by applying the credits to the oldest bill first
 * (docs/decisions/account-balance-oldest-bill-first.md), so no allocation is stored. Each entry
 * has a unique key, so a payment is posted once and the daily job posts each late charge once.
 * An entry is never changed or deleted.
 */
export class AccountLedger1766850000000 implements MigrationInterface {
  name = "AccountLedger1766850000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE account_ledger_entry (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        account_id uuid NOT NULL REFERENCES service_account(id),
        kind text NOT NULL CHECK (kind IN ('PAYMENT', 'PENALTY', 'INTEREST', 'VIOLATION', 'REFUND')),
        amount_cents integer NOT NULL,
        bill_id uuid REFERENCES bill(id),
        payment_id uuid REFERENCES payment(id),
        effective_on date NOT NULL,
        description text NOT NULL CHECK (description <> ''),
        section text,
        unique_key text NOT NULL UNIQUE,
        created_by_id uuid REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (kind <> 'PAYMENT' OR (amount_cents < 0 AND payment_id IS NOT NULL)),
        CHECK (kind NOT IN ('PENALTY', 'INTEREST') OR (amount_cents > 0 AND bill_id IS NOT NULL AND section IS NOT NULL)),
        CHECK (kind <> 'VIOLATION' OR (amount_cents = 0 AND bill_id IS NOT NULL AND section IS NOT NULL)),
        CHECK (kind <> 'REFUND' OR amount_cents > 0)
      )`);
    await q.query(`CREATE INDEX account_ledger_by_account ON account_ledger_entry (account_id, effective_on)`);
    await q.query(`CREATE INDEX account_ledger_by_district ON account_ledger_entry (district_id, kind, effective_on)`);
    await q.query(`CREATE INDEX account_ledger_by_bill ON account_ledger_entry (bill_id) WHERE bill_id IS NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX account_ledger_payment ON account_ledger_entry (payment_id) WHERE kind = 'PAYMENT'`);
    await q.query(`CREATE INDEX account_ledger_created_by ON account_ledger_entry (created_by_id) WHERE created_by_id IS NOT NULL`);
    await q.query(`
      CREATE FUNCTION account_ledger_entry_is_kept() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'an account ledger entry is never changed or deleted'; END $$`);
    await q.query(`CREATE TRIGGER account_ledger_kept BEFORE UPDATE OR DELETE ON account_ledger_entry FOR EACH ROW EXECUTE FUNCTION account_ledger_entry_is_kept()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE account_ledger_entry`);
    await q.query(`DROP FUNCTION account_ledger_entry_is_kept()`);
  }
}

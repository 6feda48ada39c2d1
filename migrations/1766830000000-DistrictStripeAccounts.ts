import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Each district's own Stripe account (Stripe Connect): card payments are direct charges on it, so
 * a town's money never passes through the platform's balance. A district has at most one
 * connected account, and an account belongs to one district. Each payment keeps the account its
 * checkout was made on: its refund, its session's closing and its webhook events go to that
 * account even if the district connects another one later.
 */
export class DistrictStripeAccounts1766830000000 implements MigrationInterface {
  name = "DistrictStripeAccounts1766830000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE district_stripe_account (
        district_id uuid PRIMARY KEY REFERENCES district(id),
        account_id text NOT NULL UNIQUE CHECK (account_id ~ '^acct_[A-Za-z0-9]+$'),
        connected_by text NOT NULL CHECK (connected_by IN ('ADMIN', 'OPERATOR')),
        connected_by_id uuid REFERENCES app_user(id),
        charges_enabled boolean NOT NULL DEFAULT false,
        details_submitted boolean NOT NULL DEFAULT false,
        payouts_enabled boolean NOT NULL DEFAULT false,
        status_checked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX district_stripe_account_connected_by_id ON district_stripe_account (connected_by_id)`);
    await q.query(`ALTER TABLE payment ADD COLUMN stripe_account_id text CHECK (stripe_account_id ~ '^acct_[A-Za-z0-9]+$')`);
    // A connected account's webhook finds the district whose payments were made on it.
    await q.query(`CREATE INDEX payment_stripe_account ON payment (stripe_account_id, district_id) WHERE stripe_account_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX payment_stripe_account`);
    await q.query(`ALTER TABLE payment DROP COLUMN stripe_account_id`);
    await q.query(`DROP TABLE district_stripe_account`);
  }
}

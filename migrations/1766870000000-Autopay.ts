import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Autopay (issue 14, "Paying"): the person billed for a service account saves a card through
 * Stripe (a Customer and its card on the district's own connected account, issue 15) and turns
 * autopay on; each issued bill is charged on its due date, once (autopay_charge: one row per bill,
 * its attempts and outcome; the PaymentIntent's idempotency key is made from the bill and the
 * attempt number stored before Stripe is called).
 */
export class Autopay1766870000000 implements MigrationInterface {
  name = "Autopay1766870000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE autopay (
        account_id uuid PRIMARY KEY REFERENCES service_account(id),
        district_id uuid NOT NULL REFERENCES district(id),
        user_id uuid NOT NULL REFERENCES app_user(id),
        provider text NOT NULL CHECK (provider IN ('stripe', 'test')),
        stripe_account_id text CHECK (stripe_account_id ~ '^acct_[A-Za-z0-9]+$'),
        customer_id text,
        setup_session_id text,
        payment_method_id text,
        card_brand text,
        card_last4 text,
        card_exp_month integer,
        card_exp_year integer,
        test_declines boolean NOT NULL DEFAULT false,
        enabled boolean NOT NULL DEFAULT false,
        enabled_on date,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (enabled = (enabled_on IS NOT NULL)),
        CHECK (NOT enabled OR payment_method_id IS NOT NULL),
        CHECK ((provider = 'stripe') = (stripe_account_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX autopay_user ON autopay (user_id)`);
    await q.query(`CREATE INDEX autopay_enabled ON autopay (district_id, account_id) WHERE enabled`);
    await q.query(`CREATE INDEX autopay_setup_session ON autopay (setup_session_id) WHERE setup_session_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE autopay_charge (
        bill_id uuid PRIMARY KEY REFERENCES bill(id),
        account_id uuid NOT NULL REFERENCES service_account(id),
        district_id uuid NOT NULL REFERENCES district(id),
        user_id uuid NOT NULL REFERENCES app_user(id),
        due_on date NOT NULL,
        status text NOT NULL CHECK (status IN ('CHARGING', 'SUCCEEDED', 'RETRY', 'LEFT_TO_PAY', 'SKIPPED')),
        amount_cents integer NOT NULL DEFAULT 0 CHECK (amount_cents >= 0),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_on date,
        provider text CHECK (provider IN ('stripe', 'test')),
        stripe_account_id text CHECK (stripe_account_id ~ '^acct_[A-Za-z0-9]+$'),
        customer_id text,
        payment_method_id text,
        card_label text,
        payment_intent_id text,
        payment_id uuid REFERENCES payment(id),
        outcome text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'RETRY') = (next_attempt_on IS NOT NULL)),
        CHECK ((status = 'SUCCEEDED') = (payment_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX autopay_charge_work ON autopay_charge (status, next_attempt_on) WHERE status IN ('CHARGING', 'RETRY')`);
    await q.query(`CREATE INDEX autopay_charge_account ON autopay_charge (account_id, due_on DESC)`);
    await q.query(`CREATE INDEX autopay_charge_intent ON autopay_charge (payment_intent_id) WHERE payment_intent_id IS NOT NULL`);
    await q.query(`CREATE INDEX autopay_charge_payment ON autopay_charge (payment_id) WHERE payment_id IS NOT NULL`);
    await q.query(`CREATE INDEX autopay_charge_district ON autopay_charge (district_id)`);
    await q.query(`CREATE INDEX autopay_charge_user ON autopay_charge (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE autopay_charge`);
    await q.query(`DROP TABLE autopay`);
  }
}

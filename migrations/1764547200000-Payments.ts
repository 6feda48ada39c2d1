import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Payments: fees and deposits (SUL 1212, SUL 606 B) paid by card through Stripe, the built-in test
 * checkout, or at the Clerk's counter; webhook deduplication; refunds; receipt numbering.
 * Money is integer cents; times are timestamptz (UTC).
 */
export class Payments1764547200000 implements MigrationInterface {
  name = "Payments1764547200000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE payment (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        payer_id uuid NOT NULL REFERENCES app_user(id),
        payable_type text NOT NULL CHECK (length(payable_type) BETWEEN 1 AND 100),
        payable_id uuid NOT NULL,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'PAID', 'CANCELLED', 'REFUNDED', 'PARTIALLY_REFUNDED')),
        lines jsonb NOT NULL CHECK (jsonb_typeof(lines) = 'array' AND jsonb_array_length(lines) > 0),
        amount_cents integer NOT NULL CHECK (amount_cents > 0),
        refunded_cents integer NOT NULL DEFAULT 0,
        currency text NOT NULL DEFAULT 'usd',
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        provider text CHECK (provider IN ('stripe', 'test', 'counter')),
        provider_session_id text UNIQUE,
        provider_payment_intent text,
        idempotency_key text UNIQUE,
        method text CHECK (method IN ('card', 'cash', 'check')),
        check_number text,
        receipt_number text UNIQUE,
        paid_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (refunded_cents >= 0 AND refunded_cents <= amount_cents),
        CHECK (method IS DISTINCT FROM 'check' OR check_number IS NOT NULL),
        CHECK ((status = 'PENDING' OR status = 'CANCELLED') = (paid_at IS NULL)),
        CHECK ((paid_at IS NULL) = (receipt_number IS NULL))
      )`);
    await q.query(`CREATE INDEX payment_district_created ON payment (district_id, created_at DESC)`);
    await q.query(`CREATE INDEX payment_payer_created ON payment (payer_id, created_at DESC)`);
    await q.query(`CREATE INDEX payment_payable ON payment (payable_type, payable_id)`);
    await q.query(`CREATE INDEX payment_rulebook_version_id ON payment (rulebook_version_id)`);

    // Webhook deduplication: one row per provider event, written in the transaction that handles it.
    await q.query(`
      CREATE TABLE payment_event (
        provider_event_id text PRIMARY KEY,
        payment_id uuid REFERENCES payment(id),
        type text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX payment_event_payment_id ON payment_event (payment_id)`);

    await q.query(`
      CREATE TABLE refund (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        payment_id uuid NOT NULL REFERENCES payment(id),
        amount_cents integer NOT NULL CHECK (amount_cents > 0),
        reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
        line_codes jsonb NOT NULL CHECK (jsonb_typeof(line_codes) = 'array'),
        method text NOT NULL CHECK (method IN ('card', 'cash', 'check')),
        provider_refund_id text UNIQUE,
        receipt_number text NOT NULL UNIQUE,
        created_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX refund_payment_id ON refund (payment_id, created_at)`);
    await q.query(`CREATE INDEX refund_created_by_id ON refund (created_by_id)`);

    // One receipt book per district and calendar year (the fiscal year, SUL 1211): LAK-2026-000042.
    await q.query(`
      CREATE TABLE receipt_counter (
        district_id uuid NOT NULL REFERENCES district(id),
        year integer NOT NULL CHECK (year BETWEEN 2000 AND 9999),
        last integer NOT NULL CHECK (last >= 0),
        PRIMARY KEY (district_id, year)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ["receipt_counter", "refund", "payment_event", "payment"]) await q.query(`DROP TABLE ${t}`);
  }
}

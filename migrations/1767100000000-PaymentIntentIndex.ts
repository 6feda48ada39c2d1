import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The payout report (api/payments/payouts.service.ts) matches a payout's charges and refunds to the
 * district's payments by their payment intent, in one query: without an index that query read every
 * payment the district ever took (the district's index, then a filter), a cost growing with the
 * years of sewer bills paid by card. Only payments made through Stripe have an intent.
 */
export class PaymentIntentIndex1767100000000 implements MigrationInterface {
  name = "PaymentIntentIndex1767100000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX payment_district_payment_intent ON payment (district_id, provider_payment_intent) WHERE provider_payment_intent IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX payment_district_payment_intent`);
  }
}

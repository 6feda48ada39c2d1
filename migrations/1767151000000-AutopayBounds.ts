import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Issue 14, autopay's loose ends (api/rents/autopay-charges.ts): an attempt Stripe does not answer
 * is tried again each hour only until AUTOPAY_UNANSWERED_HOURS after the first try it went
 * unanswered (`autopay_charge.unanswered_since`), then the bill is left to pay like a last
 * decline; and the person billed is warned once per card expiry (`autopay.expiry_warned_for`,
 * the card's "YYYY-MM") when the saved card expires before the due date of the next bill to charge.
 */
export class AutopayBounds1767151000000 implements MigrationInterface {
  name = "AutopayBounds1767151000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE autopay_charge ADD COLUMN unanswered_since timestamptz`);
    await q.query(`ALTER TABLE autopay ADD COLUMN expiry_warned_for text CHECK (expiry_warned_for IS NULL OR expiry_warned_for ~ '^[0-9]{4}-[0-9]{2}$')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE autopay DROP COLUMN expiry_warned_for`);
    await q.query(`ALTER TABLE autopay_charge DROP COLUMN unanswered_since`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Cancelled payments: when and why a payment still pending was cancelled (its application
 * withdrawn, its load cancelled, its charge held or voided). The cancellation is kept when a card
 * payment completes at Stripe after it (the money is receipted and flagged for refund), so a paid
 * payment may carry one too. Payments enforcement cancelled before this migration get the time of
 * their last change and the reason from their audit entry.
 */
export class PaymentCancellation1765497600000 implements MigrationInterface {
  name = "PaymentCancellation1765497600000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payment ADD COLUMN cancelled_at timestamptz, ADD COLUMN cancel_reason text`);
    await q.query(`
      UPDATE payment p SET cancelled_at = p.updated_at,
             cancel_reason = coalesce((SELECT a.reason FROM audit_entry a
                                        WHERE a.action = 'payment.cancelled' AND a.entity_type = 'Payment' AND a.entity_id = p.id::text AND a.reason <> ''
                                        ORDER BY a.at DESC LIMIT 1), 'Cancelled before it was paid.')
       WHERE p.status = 'CANCELLED'`);
    await q.query(`
      ALTER TABLE payment
        ADD CONSTRAINT payment_cancel_reason CHECK ((cancelled_at IS NULL) = (cancel_reason IS NULL) AND length(cancel_reason) BETWEEN 1 AND 1000),
        ADD CONSTRAINT payment_cancelled_has_time CHECK (status <> 'CANCELLED' OR cancelled_at IS NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payment DROP CONSTRAINT payment_cancelled_has_time, DROP CONSTRAINT payment_cancel_reason, DROP COLUMN cancel_reason, DROP COLUMN cancelled_at`);
  }
}

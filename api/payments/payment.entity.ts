import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

export const PAYMENT_STATUSES = ["PENDING", "PAID", "CANCELLED", "REFUNDED", "PARTIALLY_REFUNDED"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type PaymentProvider = "stripe" | "test" | "counter";
export type PaymentMethod = "card" | "cash" | "check";

/** One item of a payment, with the rulebook section its amount comes from. Integer cents. */
export type PaymentLine = { code: string; label: string; section: string; amountCents: number; refundable?: boolean };

/** Statuses in which money was received (a receipt exists). */
export const RECEIVED_STATUSES: readonly PaymentStatus[] = ["PAID", "PARTIALLY_REFUNDED", "REFUNDED"];

/** Money that arrived for a payment already cancelled (a checkout completed in the race), not yet all returned. */
export const refundDue = (p: Pick<Payment, "cancelledAt" | "paidAt" | "refundedCents" | "amountCents">): boolean =>
  p.cancelledAt !== null && p.paidAt !== null && p.refundedCents < p.amountCents;

@Entity("payment")
export class Payment {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  /** null for a quick-pay payment (no sign-in): the one who started it reaches it by its access token */
  @Column("uuid", { name: "payer_id", nullable: true }) payerId: string | null;
  /** quick pay: SHA-256 of the unguessable token in the return URL; the token itself is never stored */
  @Column("text", { name: "access_token_hash", nullable: true, select: false }) accessTokenHash: string | null;
  /** quick pay: where the receipt is emailed, if the payer gave an address */
  @Column("text", { name: "receipt_email", nullable: true }) receiptEmail: string | null;
  @Column("text", { name: "payable_type" }) payableType: string;
  @Column("uuid", { name: "payable_id" }) payableId: string;
  @Column("text") status: PaymentStatus;
  @Column("jsonb") lines: PaymentLine[];
  @Column("integer", { name: "amount_cents" }) amountCents: number;
  @Column("integer", { name: "refunded_cents", default: 0 }) refundedCents: number;
  @Column("text", { default: "usd" }) currency: string;
  @Column("uuid", { name: "rulebook_version_id" }) rulebookVersionId: string;
  @Column("text", { nullable: true }) provider: PaymentProvider | null;
  @Column("text", { name: "provider_session_id", nullable: true }) providerSessionId: string | null;
  @Column("text", { name: "provider_payment_intent", nullable: true }) providerPaymentIntent: string | null;
  @Column("text", { name: "idempotency_key", nullable: true }) idempotencyKey: string | null;
  /** the district's connected Stripe account the checkout was made on (direct charge); null before Connect or off Stripe */
  @Column("text", { name: "stripe_account_id", nullable: true }) stripeAccountId: string | null;
  @Column("text", { nullable: true }) method: PaymentMethod | null;
  @Column("text", { name: "check_number", nullable: true }) checkNumber: string | null;
  @Column("text", { name: "receipt_number", nullable: true }) receiptNumber: string | null;
  @Column("timestamptz", { name: "paid_at", nullable: true }) paidAt: Date | null;
  /** set when the payment was cancelled while pending; kept if a card payment completes after it (then refund due) */
  @Column("timestamptz", { name: "cancelled_at", nullable: true }) cancelledAt: Date | null;
  @Column("text", { name: "cancel_reason", nullable: true }) cancelReason: string | null;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

@Entity("refund")
export class Refund {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "payment_id" }) paymentId: string;
  @Column("integer", { name: "amount_cents" }) amountCents: number;
  @Column("text") reason: string;
  @Column("jsonb", { name: "line_codes" }) lineCodes: string[];
  @Column("text") method: PaymentMethod;
  @Column("text", { name: "provider_refund_id", nullable: true }) providerRefundId: string | null;
  @Column("text", { name: "receipt_number" }) receiptNumber: string;
  @Column("uuid", { name: "created_by_id" }) createdById: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
}

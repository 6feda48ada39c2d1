import { statusLabel } from "../../api/common/format";

/** A payment's status in plain words, the same on the payer's pages and the staff ledger. */
export const PAYMENT_STATUS_LABELS: Record<string, string> = {
  PENDING: "Waiting for payment",
  PAID: "Paid",
  CANCELLED: "Cancelled",
  REFUNDED: "Refunded",
  PARTIALLY_REFUNDED: "Paid, deposit returned",
  // the ledger's filter, not a status: money received after the payment was cancelled
  REFUND_DUE: "Paid after cancellation, refund due",
};

/** A cancellation's reason as a sentence: "The application was withdrawn." stays, "refused: too big" gets its full stop. */
export const asSentence = (s: string | null | undefined) => (s ? (/[.!?]$/.test(s) ? s : `${s}.`) : "No reason was given.");

/** "Paid after cancellation, refund due" when money arrived for a cancelled payment; never a raw code. */
export function paymentStatusLabel(p: { status: string; refundDue?: boolean | null }): string {
  if (p.refundDue) return PAYMENT_STATUS_LABELS.REFUND_DUE;
  return statusLabel(p.status, PAYMENT_STATUS_LABELS);
}

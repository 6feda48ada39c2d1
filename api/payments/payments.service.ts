import { Payment, Refund, refundDue, type PaymentLine, type PaymentStatus } from "./payment.entity.js";

/**
 * Payments of fees and deposits (SUL 1212 inspection and administration fee, SUL 606 B refundable
 * as-built deposit). Amounts always come from the server (the feature that creates the payment
 * reads them from the district's rulebook); the browser only chooses to pay.
 *
 * Card payments go through Stripe Checkout, or, without Stripe keys, through a built-in test
 * checkout that is clearly labelled. Either way a completed checkout is applied by one function,
 * settleCheckout, which deduplicates provider events and locks the payment row. The Clerk records
 * payments made at the counter (cash, check) and refunds the refundable lines.
 *
 * Who may see a payment: its payer, and staff of its district. Others get NOT_FOUND.
 */
export { Payment, Refund, refundDue };
export type { PaymentLine, PaymentStatus };
export { registerPayable, payableHandler, payableTitles, titleKey, linesOwedBack } from "./payables.js";
export type { PayableHandler } from "./payables.js";
export { createPayment } from "./creation.service.js";
export { cancelPendingPayments, EXPIRE_CHECKOUT_JOB, configurePaymentJobs } from "./cancellation.service.js";
export { paymentsFor, isPaid, getPayment, paymentByAccess, myPayments, REFUND_DUE, districtPayments, refundsFor } from "./lists.service.js";
export { stripeClient, paymentProviderMode } from "./stripe.js";
export { startCheckout, settleCheckout, expireCheckout, recordProviderEvent, testCheckoutSession, completeTestCheckout, isPayer, returnUrls, counterOnlyError } from "./checkout.service.js";
export type { SettleInput, SettleOutcome } from "./checkout.service.js";
export { receiptPrefix, formatReceiptDate, describeMethod, receiptLine } from "./receipts.js";
export { recordCounterPayment, refundPayment } from "./clerk.service.js";
export { connectionsOf, connectionOf, takesCardPayments, stripeConnection, startStripeOnboarding, refreshStripeConnection, connectAccountByOperator } from "./connect.service.js";
export type { ConnectionView, StripeConnection } from "./connect.service.js";

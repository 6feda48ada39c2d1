import { clock } from "../common/clock.js";
import Stripe from "stripe";
import type { DataSource, EntityManager } from "typeorm";
import { audit, type Actor } from "../audit/audit.service.js";
import type { Config } from "../config.js";
import { enqueueJob, registerJobHandler } from "../jobs/queue.js";
import { Payment } from "./payment.entity.js";
import { onAccount, stripeClient } from "./stripe.js";
import { settleCheckout } from "./checkout.service.js";

/** Unpaid payments cancelled when what they pay for is abandoned, and their open checkouts closed after commit. */

// ---------------------------------------------------------------------------------------------
// Cancelling (called by features when what was to be paid for is abandoned)

/**
 * Cancels the payable's PENDING payments inside the caller's transaction, with a reason kept on
 * each (the payer reads it on the payment's page) and an audit entry each: a withdrawn or denied
 * application, a cancelled load, a charge held or voided. A cancelled payment can no longer be
 * paid (online, in the test checkout or at the counter). Paid payments are left as they are:
 * whether their money goes back is the feature's decision.
 *
 * An open Stripe Checkout Session is closed by a job queued here, not by calling Stripe now: the
 * caller's transaction may still roll back (the session would be closed for a payment still due)
 * and Stripe's answer must not hold the row locks. Until the job runs the payer may still finish
 * Stripe's page; the webhook then records the money as paid after cancellation and flags it for
 * refund (settleCheckout), so a payment is never lost. The built-in test checkout is closed by the
 * status change itself. Returns the payments cancelled.
 */
export async function cancelPendingPayments(
  tx: EntityManager,
  actor: Actor,
  input: { payableType: string; payableId: string; reason: string },
): Promise<Payment[]> {
  const reason = String(input.reason ?? "").trim();
  if (!reason || reason.length > 1000) throw new Error("a payment is cancelled with a reason of 1 to 1,000 characters");
  const pending = await tx
    .createQueryBuilder(Payment, "p")
    .setLock("pessimistic_write")
    .where("p.payable_type = :t AND p.payable_id = :id AND p.status = 'PENDING'", { t: input.payableType, id: input.payableId })
    .orderBy("p.created_at", "ASC")
    .getMany();
  const now = clock.now();
  const out: Payment[] = [];
  for (const p of pending) {
    await tx.update(Payment, { id: p.id }, { status: "CANCELLED", cancelledAt: now, cancelReason: reason, updatedAt: now });
    const closeSession = p.provider === "stripe" && p.providerSessionId ? p.providerSessionId : null;
    if (closeSession) await enqueueCheckoutExpiry(tx, p, closeSession);
    await audit(tx, actor, {
      action: "payment.cancelled",
      entityType: "Payment",
      entityId: p.id,
      districtId: p.districtId,
      reason,
      details: { payableType: p.payableType, payableId: p.payableId, amountCents: p.amountCents, provider: p.provider, sessionId: p.providerSessionId, closeStripeSession: closeSession !== null },
    });
    out.push(await tx.findOneByOrFail(Payment, { id: p.id }));
  }
  return out;
}

export const EXPIRE_CHECKOUT_JOB = "payments.expire-checkout";

/** Each server's configuration by its data source: the job below needs the Stripe keys (several servers may share a process in tests). */
const jobConfigs = new WeakMap<DataSource, Config>();
export function configurePaymentJobs(ds: DataSource, config: Config): void {
  jobConfigs.set(ds, config);
}

export async function enqueueCheckoutExpiry(tx: EntityManager, p: Payment, sessionId: string): Promise<void> {
  await enqueueJob(tx, { name: EXPIRE_CHECKOUT_JOB, payload: { paymentId: p.id, sessionId }, singletonKey: `${EXPIRE_CHECKOUT_JOB}:${sessionId}`, maxAttempts: 10 });
}

/**
 * Closes the Stripe Checkout Session of a cancelled payment (checkout.sessions.expire), after the
 * cancelling transaction committed. A session no longer open was paid meanwhile (the webhook
 * records that as paid after cancellation) or had lapsed; either way there is nothing to close.
 * Network and Stripe server errors throw, so the queue retries with backoff.
 */
registerJobHandler(EXPIRE_CHECKOUT_JOB, async (ds, payload: { paymentId: string; sessionId: string }, log, job) => {
  const config = jobConfigs.get(ds);
  if (!config?.stripe) {
    log.warn({ ...payload }, "Stripe is not configured: the cancelled payment's checkout session is left to lapse (24 hours); a payment on it is still recorded");
    return;
  }
  const stripe = stripeClient(config);
  // The session lives on the account it was made on (the district's own; the platform's before Connect).
  const [p] = await ds.query(`SELECT district_id, stripe_account_id FROM payment WHERE id = $1`, [payload.paymentId]);
  const account = onAccount(p?.stripe_account_id ?? null);
  let status: string | null;
  try {
    status = (await stripe.checkout.sessions.expire(payload.sessionId, {}, account)).status;
  } catch (e) {
    if (!(e instanceof Stripe.errors.StripeInvalidRequestError)) throw e;
    status = (await stripe.checkout.sessions.retrieve(payload.sessionId, {}, account)).status;
  }
  if (status === "complete") log.warn({ ...payload }, "the payer completed the checkout before it could be closed; the webhook records it as paid after cancellation");
  // Closing a session twice is harmless (Stripe answers the second with its status); the audit entry and the job's completion commit together, once.
  await ds.transaction(async (tx) => {
    await job.done(tx);
    await audit(tx, { userId: null }, { action: "payment.checkout_closed", entityType: "Payment", entityId: payload.paymentId, districtId: p?.district_id ?? null, details: { sessionId: payload.sessionId, sessionStatus: status } });
  });
});

import { clock } from "../common/clock.js";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import Stripe from "stripe";
import type { DataSource, EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import type { Config } from "../config.js";
import { isUuid } from "../documents/documents.service.js";
import { sha256 } from "../common/tokens.js";
import { Payment } from "./payment.entity.js";
import { enqueueCheckoutExpiry } from "./cancellation.service.js";
import { onAccount, stripeClient } from "./stripe.js";
import { connectionOf, takesCardPayments } from "./connect.service.js";
import { District } from "../districts/district.entity.js";
import { markPaid } from "./receipts.js";

/** Card payments: Stripe Checkout or the labelled test checkout, applied once by settleCheckout whatever the number of provider events. */

// ---------------------------------------------------------------------------------------------
// Checkout

export async function lockPayment(tx: EntityManager, id: string): Promise<Payment | null> {
  return tx.createQueryBuilder(Payment, "p").setLock("pessimistic_write").where("p.id = :id", { id }).getOne();
}

export function requirePending(p: Payment) {
  if (p.status === "PENDING") return;
  if (p.status === "CANCELLED") throw cancelledError(p);
  throw conflict(`This payment is already paid (receipt ${p.receiptNumber}).`);
}

const cancelledError = (p: Pick<Payment, "cancelReason">) =>
  conflict(`This payment was cancelled: ${(p.cancelReason ?? "").replace(/[\s.]+$/, "") || "no reason was given"}. Nothing is due.`);

const testCheckoutUrl = (sessionId: string, access?: string | null) => `/payments/test-checkout/${sessionId}${access ? `?access=${encodeURIComponent(access)}` : ""}`;

/** "checkout-<id>", then "checkout-<id>-a2", "-a3" when an expired session has to be replaced. */
function nextCheckoutKey(paymentId: string, current: string | null): string {
  const m = current ? /-a(\d+)$/.exec(current) : null;
  if (!current) return `checkout-${paymentId}`;
  return `checkout-${paymentId}-a${m ? Number(m[1]) + 1 : 2}`;
}

/**
 * Whether the caller is the one who pays this payment: its signed-in payer, or for a quick-pay
 * payment (no payer) whoever holds its access token (compared by SHA-256; only the hash is stored).
 * Staff of the district may see a payment, but only its payer pays it.
 */
export async function isPayer(db: DataSource | EntityManager, p: Pick<Payment, "id" | "payerId">, viewer: Viewer | null, access?: string | null): Promise<boolean> {
  if (p.payerId !== null) return !!viewer && p.payerId === viewer.userId;
  if (!access) return false;
  const [row] = await db.query(`SELECT 1 FROM payment WHERE id = $1 AND payer_id IS NULL AND access_token_hash = $2`, [p.id, sha256(access)]);
  return !!row;
}

/** The pages Stripe (or the test checkout) sends the payer back to; a quick-pay payment's carry its access token. */
export function returnUrls(publicUrl: string, paymentId: string, access?: string | null): { success: string; cancel: string } {
  if (access) {
    const q = `access=${encodeURIComponent(access)}`;
    return { success: `${publicUrl}/payments/${paymentId}/done?${q}`, cancel: `${publicUrl}/pay?cancelled=1` };
  }
  return { success: `${publicUrl}/payments/${paymentId}/done`, cancel: `${publicUrl}/payments/${paymentId}` };
}

/**
 * starts checkout for a pending payment the viewer owns (or, for quick pay, whose access token is
 * given); returns where to send the browser. A double-clicked Pay returns the same session
 * (idempotency key stored on the payment).
 */
export async function startCheckout(
  ds: DataSource,
  config: Config,
  viewer: Viewer | null,
  paymentId: string,
  meta: { requestId?: string; access?: string | null },
): Promise<{ url: string; provider: "stripe" | "test" }> {
  const p = isUuid(paymentId) ? await ds.getRepository(Payment).findOne({ where: { id: paymentId } }) : null;
  if (!p || !(await isPayer(ds, p, viewer, meta.access))) throw notFound("That payment");
  requirePending(p);
  const access = p.payerId === null ? meta.access : null;
  const actor: Actor = { userId: viewer?.userId ?? null, requestId: meta.requestId };
  if (!config.stripe) return startTestCheckout(ds, actor, p.id, access);
  // Direct charges on the district's own account: without one able to take charges, counter only.
  const connection = await connectionOf(ds, p.districtId);
  if (!takesCardPayments(config, connection)) throw counterOnlyError((await ds.getRepository(District).findOneByOrFail({ id: p.districtId })).name);
  return startStripeCheckout(ds, config, actor, p.id, connection!.accountId, 0, access);
}

/** What the payer reads when the district has no Stripe account of its own able to take card payments. */
export const counterOnlyError = (districtName: string) =>
  conflict(`${districtName} takes payments at the district office only (cash or check): it has not connected its own card payment account yet.`);

async function startTestCheckout(ds: DataSource, actor: Actor, paymentId: string, access?: string | null): Promise<{ url: string; provider: "test" }> {
  return ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, paymentId))!;
    requirePending(p);
    if (p.provider === "test" && p.providerSessionId) return { url: testCheckoutUrl(p.providerSessionId, access), provider: "test" as const };
    const sessionId = `test_cs_${randomBytes(16).toString("hex")}`;
    await tx.update(Payment, { id: p.id }, { provider: "test", providerSessionId: sessionId, idempotencyKey: p.idempotencyKey ?? nextCheckoutKey(p.id, null), updatedAt: clock.now() });
    await audit(tx, actor, { action: "payment.checkout_started", entityType: "Payment", entityId: p.id, districtId: p.districtId, details: { provider: "test", sessionId } });
    return { url: testCheckoutUrl(sessionId, access), provider: "test" as const };
  });
}

async function startStripeCheckout(
  ds: DataSource,
  config: Config,
  actor: Actor,
  paymentId: string,
  accountId: string,
  attempt: number,
  access?: string | null,
): Promise<{ url: string; provider: "stripe" }> {
  const urls = returnUrls(config.publicUrl, paymentId, access);
  const stripe = stripeClient(config);
  // 1. Store the idempotency key (and the account the session is made on) before calling Stripe,
  // so every click uses the same one.
  const state = await ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, paymentId))!;
    requirePending(p);
    // An open session stays on the account it was made on (the money still goes to the district).
    if (p.provider === "stripe" && p.providerSessionId) return { payment: p, key: p.idempotencyKey!, sessionId: p.providerSessionId, account: p.stripeAccountId };
    if (p.provider === "stripe" && p.idempotencyKey && p.stripeAccountId === accountId) return { payment: p, key: p.idempotencyKey, sessionId: null, account: accountId };
    const key = nextCheckoutKey(p.id, p.idempotencyKey);
    await tx.update(Payment, { id: p.id }, { provider: "stripe", providerSessionId: null, idempotencyKey: key, stripeAccountId: accountId, updatedAt: clock.now() });
    return { payment: p, key, sessionId: null, account: accountId };
  });

  // 2. A session already exists: send the browser back to it while it is open.
  if (state.sessionId) {
    const existing = await stripe.checkout.sessions.retrieve(state.sessionId, {}, onAccount(state.account));
    if (existing.status === "open" && existing.url) {
      // Cancelled while Stripe answered: the cancellation's job closes this session; do not send the payer to it.
      const now = await ds.getRepository(Payment).findOneByOrFail({ id: paymentId });
      if (now.status === "CANCELLED") throw cancelledError(now);
      return { url: existing.url, provider: "stripe" };
    }
    if (existing.status === "complete") return { url: urls.success, provider: "stripe" };
    if (attempt > 0) throw new Error(`Stripe checkout session ${state.sessionId} is ${existing.status} right after being made`);
    // Expired (Stripe sessions last 24 hours): forget it and make a new one under a new key.
    await ds.transaction(async (tx) => {
      const p = (await lockPayment(tx, paymentId))!;
      await forgetExpiredSession(tx, p, state.sessionId!, actor, { noticedBy: "startCheckout" });
    });
    return startStripeCheckout(ds, config, actor, paymentId, accountId, attempt + 1, access);
  }

  // 3. Create it. The same key returns the same session, however many clicks race here.
  const p = state.payment;
  const session = await stripe.checkout.sessions.create(
    {
      mode: "payment",
      line_items: p.lines.map((l) => ({
        quantity: 1,
        price_data: { currency: "usd", unit_amount: l.amountCents, product_data: { name: `${l.label} (${l.section})` } },
      })),
      client_reference_id: p.id,
      metadata: { paymentId: p.id },
      payment_intent_data: { metadata: { paymentId: p.id } },
      success_url: urls.success,
      cancel_url: urls.cancel,
    },
    onAccount(state.account, { idempotencyKey: state.key }),
  );
  if (!session.url) throw new Error(`Stripe checkout session ${session.id} has no url`);

  // 4. Remember the session (the webhook finds the payment by it).
  const cancelled = await ds.transaction(async (tx) => {
    const cur = (await lockPayment(tx, paymentId))!;
    if (cur.status === "CANCELLED") {
      // Cancelled while the session was being made (its id was not stored, so the cancellation
      // could not close it): close it now, through the same job.
      await enqueueCheckoutExpiry(tx, cur, session.id);
      return cur;
    }
    if (cur.providerSessionId === session.id || cur.status !== "PENDING" || cur.idempotencyKey !== state.key || cur.providerSessionId) return null;
    await tx.update(Payment, { id: cur.id }, { providerSessionId: session.id, updatedAt: clock.now() });
    await audit(tx, actor, { action: "payment.checkout_started", entityType: "Payment", entityId: cur.id, districtId: cur.districtId, details: { provider: "stripe", sessionId: session.id } });
    return null;
  });
  if (cancelled) throw cancelledError(cancelled);
  return { url: session.url, provider: "stripe" };
}

/**
 * A Stripe session of a pending payment has expired (after 24 hours, or closed by us): forget it
 * and move the idempotency key on, so the next Pay makes a fresh session instead of Stripe
 * replaying the expired one. Nothing changes when the payment holds another session or is no
 * longer pending. The caller holds the payment's row lock.
 */
async function forgetExpiredSession(tx: EntityManager, p: Payment, sessionId: string, actor: Actor, details: Record<string, unknown>): Promise<boolean> {
  if (p.status !== "PENDING" || p.provider !== "stripe" || p.providerSessionId !== sessionId) return false;
  await tx.update(Payment, { id: p.id }, { providerSessionId: null, idempotencyKey: nextCheckoutKey(p.id, p.idempotencyKey), updatedAt: clock.now() });
  await audit(tx, actor, { action: "payment.checkout_expired", entityType: "Payment", entityId: p.id, districtId: p.districtId, details: { ...details, sessionId } });
  return true;
}

export type SettleInput = {
  provider: "stripe" | "test";
  /** the provider's event id (Stripe's evt_..., or test_evt_...): each is applied once */
  eventId: string;
  sessionId: string;
  /** what the provider says was paid, in cents, and in which currency */
  amountTotal: number | null;
  currency: string | null;
  paymentIntent: string | null;
  /** optional: the event type stored for deduplication (default checkout.session.completed) */
  type?: string;
  /**
   * Stripe only: the connected account the event came from (its `account`), or null for an event
   * of the platform's own account. Only a payment made on that account is touched.
   */
  account?: string | null;
  /** optional: the session's client_reference_id, used when the session id was not yet stored */
  paymentId?: string | null;
  /** optional: who caused it (the payer for the test checkout; nobody for a webhook) */
  actor?: Actor;
  /** optional: for the link in the receipt email */
  publicUrl?: string;
  log?: Logger;
};
export type SettleOutcome = "duplicate_event" | "unknown_session" | "amount_mismatch" | "already_settled" | "paid" | "paid_after_cancel" | "cancelled";

/**
 * Applies a completed checkout: the one path by which a card payment becomes PAID, used by the
 * Stripe webhook and the built-in test checkout. In the caller's transaction:
 *   1. locks the payment by its checkout session (FOR UPDATE);
 *   2. records the provider event in payment_event (a repeated event stops here);
 *   3. refuses an amount or currency that differs from the payment's (audited, status unchanged);
 *   4. ignores a payment that is no longer PENDING (repeated or out-of-order events), except a
 *      CANCELLED one paid at Stripe after all: that money is receipted and flagged for refund;
 *   5. marks it PAID with a receipt number, calls the payable's onPaid, audits, and queues the receipt.
 */
export async function settleCheckout(tx: EntityManager, input: SettleInput): Promise<{ outcome: SettleOutcome; paymentId: string | null }> {
  const log = input.log;
  const type = input.type ?? "checkout.session.completed";
  // Lock the payment first, then record the event: events for one payment queue on the row lock.
  // (Recording first would take a key-share lock through payment_event's foreign key, and two
  // transactions each holding one while waiting for FOR UPDATE would deadlock.)
  let p = await lockBySession(tx, input.sessionId, input.account);
  // The session was made but its id not yet stored (or the server stopped in between): the
  // session carries the payment id as client_reference_id.
  if (!p && input.paymentId && isUuid(input.paymentId)) {
    p = await lockPayment(tx, input.paymentId);
    if (p && input.account !== undefined && p.stripeAccountId !== input.account) p = null;
  }
  const fresh = await recordProviderEvent(tx, input.eventId, type, input.sessionId, p?.id ?? null, input.account);
  if (!fresh) return { outcome: "duplicate_event", paymentId: p?.id ?? null };
  if (!p) {
    log?.warn({ eventId: input.eventId, sessionId: input.sessionId, account: input.account }, "checkout completed for a session no payment made on this account knows; ignored");
    return { outcome: "unknown_session", paymentId: null };
  }
  const actor = input.actor ?? { userId: null };
  const details = { provider: input.provider, eventId: input.eventId, sessionId: input.sessionId, amountTotal: input.amountTotal, currency: input.currency };
  const amountMatches = input.amountTotal === p.amountCents && (input.currency ?? "").toLowerCase() === p.currency;
  // One way a completed card checkout marks the payment paid, whether or not it was cancelled meanwhile.
  const paidByCard = (afterCancel: boolean) =>
    markPaid(tx, p, {
      provider: input.provider,
      method: "card",
      checkNumber: null,
      sessionId: input.sessionId,
      paymentIntent: input.paymentIntent,
      actor,
      publicUrl: input.publicUrl,
      details: { eventId: input.eventId, sessionId: input.sessionId },
      ...(afterCancel ? { afterCancel: true } : {}),
    });

  if (p.status === "CANCELLED") {
    // The test checkout is ours and closed with the cancellation, in its transaction: nothing was paid.
    if (input.provider === "test") return { outcome: "cancelled", paymentId: p.id };
    // The payer finished Stripe's page while the payable was abandoned (the session could not be
    // closed inside that transaction, and may have been paid before the job closed it). The money
    // is real: it gets a receipt like any payment and is flagged for the Clerk to refund in full;
    // the payable is not told (its onPaid is not called), as it was withdrawn or cancelled.
    if (!amountMatches) return amountMismatch(tx, p, actor, details, log);
    log?.error({ paymentId: p.id, ...details }, "a checkout completed for a cancelled payment; recorded as paid after cancellation, the Clerk should refund it");
    await paidByCard(true);
    return { outcome: "paid_after_cancel", paymentId: p.id };
  }

  if (p.status !== "PENDING") {
    // The same checkout again (or an older event after a newer one): nothing to do. A different
    // checkout completed for a payment already settled means the payer paid twice: flag it.
    if (p.providerSessionId !== input.sessionId || p.provider !== input.provider) {
      log?.error({ paymentId: p.id, ...details }, "a second checkout completed for a payment already settled; the Clerk should refund it");
      await audit(tx, actor, { action: "payment.duplicate_checkout", entityType: "Payment", entityId: p.id, districtId: p.districtId, details: { ...details, status: p.status } });
    }
    return { outcome: "already_settled", paymentId: p.id };
  }

  if (!amountMatches) return amountMismatch(tx, p, actor, details, log);

  await paidByCard(false);
  return { outcome: "paid", paymentId: p.id };
}

async function amountMismatch(tx: EntityManager, p: Payment, actor: Actor, details: Record<string, unknown>, log?: Logger): Promise<{ outcome: "amount_mismatch"; paymentId: string }> {
  log?.error({ paymentId: p.id, expected: p.amountCents, ...details }, "checkout amount differs from the payment; not marked paid");
  await audit(tx, actor, {
    action: "payment.amount_mismatch",
    entityType: "Payment",
    entityId: p.id,
    districtId: p.districtId,
    details: { ...details, expectedCents: p.amountCents, expectedCurrency: p.currency },
  });
  return { outcome: "amount_mismatch", paymentId: p.id };
}

/**
 * Stripe's checkout.session.expired: the payer left the session unpaid until it lapsed (24 hours),
 * or we closed it. A pending payment stays PENDING (the payer may still pay) and forgets the
 * session, so the next Pay makes a fresh one. A cancelled or paid payment, or a session the
 * payment no longer holds, changes nothing. Deduplicated like settleCheckout, in the caller's
 * transaction.
 */
export async function expireCheckout(
  tx: EntityManager,
  input: { eventId: string; type?: string; sessionId: string; account?: string | null; log?: Logger },
): Promise<{ outcome: "duplicate_event" | "unknown_session" | "checkout_expired" | "unchanged"; paymentId: string | null }> {
  const p = await lockBySession(tx, input.sessionId, input.account);
  const fresh = await recordProviderEvent(tx, input.eventId, input.type ?? "checkout.session.expired", input.sessionId, p?.id ?? null, input.account);
  if (!fresh) return { outcome: "duplicate_event", paymentId: p?.id ?? null };
  if (!p) return { outcome: "unknown_session", paymentId: null };
  const changed = await forgetExpiredSession(tx, p, input.sessionId, { userId: null }, { eventId: input.eventId, noticedBy: "webhook" });
  if (changed) input.log?.info({ paymentId: p.id, sessionId: input.sessionId }, "checkout session expired unpaid; the payment stays pending and the next Pay makes a new session");
  return { outcome: changed ? "checkout_expired" : "unchanged", paymentId: p.id };
}

/**
 * The payment holding this checkout session, row-locked; with `account` given (a Stripe event),
 * only a payment made on that account (null: on the platform's own account, before Connect), so
 * an event of one district's account never reaches another district's payment.
 */
async function lockBySession(tx: EntityManager, sessionId: string, account: string | null | undefined): Promise<Payment | null> {
  const q = tx.createQueryBuilder(Payment, "p").setLock("pessimistic_write").where("p.provider_session_id = :s", { s: sessionId });
  if (account !== undefined) q.andWhere("p.stripe_account_id IS NOT DISTINCT FROM :a", { a: account });
  return q.getOne();
}

/**
 * Remembers a provider event (with its payment: the one given, else the one holding the session,
 * made on `account` when given); false when it was seen before, and then nothing else is done with it.
 */
export async function recordProviderEvent(
  tx: EntityManager,
  eventId: string,
  type: string,
  sessionId: string | null,
  paymentId: string | null = null,
  account?: string | null,
): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO payment_event (provider_event_id, payment_id, type)
     VALUES ($1, coalesce($4::uuid, (SELECT id FROM payment WHERE provider_session_id = $2 AND ($5::boolean OR stripe_account_id IS NOT DISTINCT FROM $6::text))), $3)
     ON CONFLICT (provider_event_id) DO NOTHING RETURNING provider_event_id`,
    [eventId, sessionId, type, paymentId, account === undefined, account ?? null],
  );
  return rows.length > 0;
}

/** The built-in test checkout's session, for its payer (or a quick-pay payment's access token), only while Stripe is not configured. */
export async function testCheckoutSession(ds: DataSource, config: Config, viewer: Viewer | null, sessionId: string, access?: string | null): Promise<Payment> {
  if (config.stripe) throw forbidden("The test checkout is off: this portal takes real card payments through Stripe.");
  const p = await ds.getRepository(Payment).findOne({ where: { providerSessionId: String(sessionId), provider: "test" } });
  if (!p || !(await isPayer(ds, p, viewer, access))) throw notFound("That checkout");
  return p;
}

/**
 * The test checkout's Pay or Cancel button. PAY applies the checkout through settleCheckout, as a
 * Stripe webhook would, with the payment's own amount; CANCEL changes nothing (like leaving
 * Stripe's page), so the payer can pay later.
 */
export async function completeTestCheckout(
  ds: DataSource,
  config: Config,
  viewer: Viewer | null,
  sessionId: string,
  outcome: string,
  meta: { requestId?: string; log?: Logger; access?: string | null },
): Promise<Payment> {
  const p = await testCheckoutSession(ds, config, viewer, sessionId, meta.access);
  if (outcome !== "PAY" && outcome !== "CANCEL") throw badInput({ outcome: 'Use "PAY" or "CANCEL".' });
  if (outcome === "PAY") {
    if (p.status === "CANCELLED") throw cancelledError(p);
    const r = await ds.transaction((tx) =>
      settleCheckout(tx, {
        provider: "test",
        eventId: `test_evt_${randomBytes(16).toString("hex")}`,
        sessionId: p.providerSessionId!,
        amountTotal: p.amountCents,
        currency: p.currency,
        paymentIntent: null,
        actor: { userId: viewer?.userId ?? null, requestId: meta.requestId },
        publicUrl: config.publicUrl,
        log: meta.log,
      }),
    );
    // Cancelled between the check above and the row lock.
    if (r.outcome === "cancelled") throw cancelledError(await ds.getRepository(Payment).findOneByOrFail({ id: p.id }));
  }
  return ds.getRepository(Payment).findOneOrFail({ where: { id: p.id } });
}

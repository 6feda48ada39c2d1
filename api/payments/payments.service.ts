import { clock } from "../common/clock.js";
import { districtCode } from "../districts/district-code.js";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import Stripe from "stripe";
import type { DataSource, EntityManager } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { staffOf } from "../staff/staff-of.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { dateIn } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { formatCents } from "../common/money.js";
import { sha256 } from "../common/tokens.js";
import type { Config } from "../config.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueJob, registerJobHandler } from "../jobs/queue.js";
import { enqueueEmail, enqueueEmails } from "../outbox/outbox.service.js";
import { PAYMENT_STATUSES, Payment, RECEIVED_STATUSES, Refund, refundDue, type PaymentLine, type PaymentMethod, type PaymentStatus } from "./payment.entity.js";

export { Payment, Refund, refundDue };
export type { PaymentLine, PaymentStatus };

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

// ---------------------------------------------------------------------------------------------
// Payable types: each feature that charges for something registers how to react to payment.

export type PayableHandler = {
  /** called inside the transaction that marks the payment paid */
  onPaid(tx: EntityManager, payment: Payment): Promise<void>;
  /** what was paid for, for receipts and lists: "Lateral permit application LP-..." */
  title(payableId: string, tx: EntityManager | DataSource): Promise<string>;
  /** portal page of the thing paid for */
  href(payableId: string): string;
  /**
   * Optional: titles of many payables in one query (the staff ledger uses it so a page of payments
   * costs one query per payable type, not one per row). Without it, title() is called per payable.
   */
  titles?(payableIds: string[], ds: EntityManager | DataSource): Promise<Map<string, string>>;
  /**
   * Optional: the codes of lines each payable owes back now although they are no deposit (a fee for
   * a service not given: a refused or cancelled load's dumping fee), by payable id, in one query.
   * The Clerk may refund these lines as well as the refundable ones; the payer's pages say so.
   */
  linesOwedBack?(payableIds: string[], ds: EntityManager | DataSource): Promise<Map<string, string[]>>;
};

const handlers = new Map<string, PayableHandler>();

export function registerPayable(type: string, handler: PayableHandler): void {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,99}$/.test(type)) throw new Error(`payable type "${type}" must be a plain identifier like LateralPermit`);
  handlers.set(type, handler);
}

export function payableHandler(type: string): PayableHandler {
  const h = handlers.get(type);
  if (!h) throw new Error(`no payable handler is registered for "${type}" (call registerPayable at start)`);
  return h;
}

/** Titles for many payables, one call per payable type (see PayableHandler.titles). */
export async function payableTitles(ds: DataSource | EntityManager, keys: { type: string; id: string }[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const byType = new Map<string, Set<string>>();
  for (const k of keys) (byType.get(k.type) ?? byType.set(k.type, new Set()).get(k.type)!).add(k.id);
  for (const [type, ids] of byType) {
    const h = handlers.get(type);
    if (!h) {
      for (const id of ids) out.set(titleKey(type, id), type);
      continue;
    }
    if (h.titles) {
      const titles = await h.titles([...ids], ds);
      for (const id of ids) out.set(titleKey(type, id), titles.get(id) ?? type);
    } else for (const id of ids) out.set(titleKey(type, id), await h.title(id, ds));
  }
  return out;
}
export const titleKey = (type: string, id: string) => `${type}\u0000${id}`;

/** The lines each payable owes back though they are no deposit (see PayableHandler.linesOwedBack), keyed by titleKey; one call per payable type. */
export async function linesOwedBack(ds: DataSource | EntityManager, keys: { type: string; id: string }[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const byType = new Map<string, Set<string>>();
  for (const k of keys) (byType.get(k.type) ?? byType.set(k.type, new Set()).get(k.type)!).add(k.id);
  for (const [type, ids] of byType) {
    const h = handlers.get(type);
    if (!h?.linesOwedBack) continue;
    const owed = await h.linesOwedBack([...ids], ds);
    for (const [id, codes] of owed) out.set(titleKey(type, id), codes);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Creating payments (called by features, inside their own transaction)

const MAX_LINES = 50;
/** Stripe Checkout's largest amount in USD: $999,999.99. */
const MAX_TOTAL_CENTS = 99_999_999;

function normalizeLines(lines: PaymentLine[]): PaymentLine[] {
  if (!Array.isArray(lines) || lines.length === 0 || lines.length > MAX_LINES) throw badInput({ lines: `A payment has 1 to ${MAX_LINES} lines.` });
  const seen = new Set<string>();
  return lines.map((l, i) => {
    const code = String(l.code ?? "").trim();
    const label = String(l.label ?? "").trim();
    const section = String(l.section ?? "").trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(code)) throw badInput({ lines: `Line ${i + 1}: the code must be letters, digits, ".", "_" or "-".` });
    if (seen.has(code)) throw badInput({ lines: `Line ${i + 1}: the code "${code}" appears twice.` });
    seen.add(code);
    if (!label || label.length > 200) throw badInput({ lines: `Line ${i + 1}: a label of 1 to 200 characters is needed.` });
    if (!section || section.length > 100) throw badInput({ lines: `Line ${i + 1}: the section of the law the amount comes from is needed.` });
    if (!Number.isSafeInteger(l.amountCents) || l.amountCents <= 0) throw badInput({ lines: `Line ${i + 1}: the amount must be a positive whole number of cents.` });
    return { code, label, section, amountCents: l.amountCents, refundable: l.refundable === true };
  });
}

/** creates a PENDING payment inside the caller's transaction; amounts come from the server, never the browser */
export async function createPayment(
  tx: EntityManager,
  actor: Actor,
  input: { districtId: string; payerId: string; payableType: string; payableId: string; lines: PaymentLine[]; rulebookVersionId: string },
): Promise<Payment> {
  payableHandler(input.payableType);
  if (!isUuid(input.payableId)) throw new Error(`payable id must be a uuid, got ${input.payableId}`);
  const lines = normalizeLines(input.lines);
  const amountCents = lines.reduce((s, l) => s + l.amountCents, 0);
  if (amountCents > MAX_TOTAL_CENTS) throw badInput({ lines: `A payment can be at most ${formatCents(MAX_TOTAL_CENTS)}.` });
  const [version] = await tx.query(`SELECT district_id FROM rulebook_version WHERE id = $1`, [input.rulebookVersionId]);
  if (!version || version.district_id !== input.districtId) throw new Error("the rulebook version must belong to the payment's district");
  const created = await tx.save(
    tx.create(Payment, {
      districtId: input.districtId,
      payerId: input.payerId,
      payableType: input.payableType,
      payableId: input.payableId,
      status: "PENDING",
      lines,
      amountCents,
      currency: "usd",
      rulebookVersionId: input.rulebookVersionId,
    }),
  );
  await audit(tx, actor, {
    action: "payment.created",
    entityType: "Payment",
    entityId: created.id,
    districtId: input.districtId,
    details: { payableType: input.payableType, payableId: input.payableId, amountCents, lines: lines.map((l) => ({ code: l.code, amountCents: l.amountCents })) },
  });
  return tx.findOneOrFail(Payment, { where: { id: created.id } });
}

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

async function enqueueCheckoutExpiry(tx: EntityManager, p: Payment, sessionId: string): Promise<void> {
  await enqueueJob(tx, { name: EXPIRE_CHECKOUT_JOB, payload: { paymentId: p.id, sessionId }, singletonKey: `${EXPIRE_CHECKOUT_JOB}:${sessionId}`, maxAttempts: 10 });
}

/**
 * Closes the Stripe Checkout Session of a cancelled payment (checkout.sessions.expire), after the
 * cancelling transaction committed. A session no longer open was paid meanwhile (the webhook
 * records that as paid after cancellation) or had lapsed; either way there is nothing to close.
 * Network and Stripe server errors throw, so the queue retries with backoff.
 */
registerJobHandler(EXPIRE_CHECKOUT_JOB, async (ds, payload: { paymentId: string; sessionId: string }, log) => {
  const config = jobConfigs.get(ds);
  if (!config?.stripe) {
    log.warn({ ...payload }, "Stripe is not configured: the cancelled payment's checkout session is left to lapse (24 hours); a payment on it is still recorded");
    return;
  }
  const stripe = stripeClient(config);
  let status: string | null;
  try {
    status = (await stripe.checkout.sessions.expire(payload.sessionId)).status;
  } catch (e) {
    if (!(e instanceof Stripe.errors.StripeInvalidRequestError)) throw e;
    status = (await stripe.checkout.sessions.retrieve(payload.sessionId)).status;
  }
  if (status === "complete") log.warn({ ...payload }, "the payer completed the checkout before it could be closed; the webhook records it as paid after cancellation");
  const [p] = await ds.query(`SELECT district_id FROM payment WHERE id = $1`, [payload.paymentId]);
  await ds.transaction((tx) =>
    audit(tx, { userId: null }, { action: "payment.checkout_closed", entityType: "Payment", entityId: payload.paymentId, districtId: p?.district_id ?? null, details: { sessionId: payload.sessionId, sessionStatus: status } }),
  );
});

// ---------------------------------------------------------------------------------------------
// Reading

export async function paymentsFor(ds: DataSource | EntityManager, payableType: string, payableId: string): Promise<Payment[]> {
  return ds.getRepository(Payment).find({ where: { payableType, payableId }, order: { createdAt: "ASC" } });
}

/**
 * Whether everything charged for the payable is paid: at least one payment received and none still
 * pending. Every line of a payment, non-refundable and refundable, is paid together; a deposit later
 * returned (SUL 606 B) still counts as paid. Money that arrived after its payment was cancelled
 * does not count: it is owed back to the payer (see cancelPendingPayments).
 */
export async function isPaid(ds: DataSource | EntityManager, payableType: string, payableId: string): Promise<boolean> {
  const [row] = await ds.query(
    `SELECT count(*) FILTER (WHERE status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED') AND cancelled_at IS NULL)::int AS received,
            count(*) FILTER (WHERE status = 'PENDING')::int AS pending
       FROM payment WHERE payable_type = $1 AND payable_id = $2`,
    [payableType, payableId],
  );
  return row.received > 0 && row.pending === 0;
}

const canRead = (viewer: Viewer, p: Payment) => p.payerId === viewer.userId || isStaff(viewer, p.districtId);

/** The payment, for its payer or staff of its district; NOT_FOUND for anyone else. */
export async function getPayment(ds: DataSource, viewer: Viewer, id: string): Promise<Payment> {
  const p = isUuid(id) ? await ds.getRepository(Payment).findOne({ where: { id } }) : null;
  if (!p || !canRead(viewer, p)) throw notFound("That payment");
  return p;
}

export async function myPayments(ds: DataSource, viewer: Viewer, first = 50): Promise<Payment[]> {
  return ds.getRepository(Payment).find({ where: { payerId: viewer.userId }, order: { createdAt: "DESC", id: "DESC" }, take: pageSize(first) });
}

/** The ledger's filter for money received after its payment was cancelled and not yet returned. */
export const REFUND_DUE = "REFUND_DUE";

/**
 * The district's ledger for its CLERK or ADMIN, newest first, keyset-paginated on (created_at, id)
 * with the cursor kept to the microsecond (the index payment_district_created serves it).
 */
export async function districtPayments(
  ds: DataSource,
  viewer: Viewer,
  f: { districtId: string; status?: string | null; first?: number | null; before?: string | null },
): Promise<{ payments: Payment[]; nextCursor: string | null }> {
  if (!hasRole(viewer, "CLERK", f.districtId) && !hasRole(viewer, "ADMIN", f.districtId)) throw forbidden("You are not the Clerk or an ADMIN of that district.");
  const first = pageSize(f.first);
  const q = ds
    .getRepository(Payment)
    .createQueryBuilder("p")
    .addSelect(`to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, "cursor_at")
    .where("p.district_id = :d", { d: f.districtId })
    .orderBy("p.created_at", "DESC")
    .addOrderBy("p.id", "DESC")
    .limit(first + 1);
  if (f.status === REFUND_DUE) q.andWhere("p.cancelled_at IS NOT NULL AND p.paid_at IS NOT NULL AND p.refunded_cents < p.amount_cents");
  else if (f.status) {
    if (!PAYMENT_STATUSES.includes(f.status as PaymentStatus)) throw badInput({ status: `Use one of ${PAYMENT_STATUSES.join(", ")} or ${REFUND_DUE}.` });
    q.andWhere("p.status = :s", { s: f.status });
  }
  if (f.before) {
    const { key: at, id } = decodeCursor(f.before, isInstant, "before")!;
    q.andWhere("(p.created_at, p.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))", { at, id });
  }
  const { entities, raw } = await q.getRawAndEntities();
  const payments = entities.slice(0, first);
  const lastRaw = raw[payments.length - 1];
  return {
    payments,
    nextCursor: entities.length > first && lastRaw ? encodeCursor(lastRaw.cursor_at, payments[payments.length - 1].id) : null,
  };
}

export async function refundsFor(ds: DataSource | EntityManager, paymentIds: readonly string[]): Promise<Refund[]> {
  if (!paymentIds.length) return [];
  return ds
    .getRepository(Refund)
    .createQueryBuilder("r")
    .where("r.payment_id IN (:...ids)", { ids: [...paymentIds] })
    .orderBy("r.created_at", "ASC")
    .getMany();
}

// ---------------------------------------------------------------------------------------------
// Stripe

const clients = new WeakMap<object, Stripe>();

/** One Stripe client per configuration; STRIPE_API_BASE points it at a local stand-in in tests. */
export function stripeClient(config: Config): Stripe {
  const s = config.stripe;
  if (!s) throw new Error("Stripe is not configured");
  let c = clients.get(s);
  if (!c) {
    c = new Stripe(s.secretKey, { ...(s.api ?? {}), maxNetworkRetries: 2, timeout: 20_000, telemetry: false });
    clients.set(s, c);
  }
  return c;
}

export const paymentProviderMode = (config: Config): "stripe" | "test" => (config.stripe ? "stripe" : "test");

// ---------------------------------------------------------------------------------------------
// Checkout

async function lockPayment(tx: EntityManager, id: string): Promise<Payment | null> {
  return tx.createQueryBuilder(Payment, "p").setLock("pessimistic_write").where("p.id = :id", { id }).getOne();
}

function requirePending(p: Payment) {
  if (p.status === "PENDING") return;
  if (p.status === "CANCELLED") throw cancelledError(p);
  throw conflict(`This payment is already paid (receipt ${p.receiptNumber}).`);
}

const cancelledError = (p: Pick<Payment, "cancelReason">) =>
  conflict(`This payment was cancelled: ${(p.cancelReason ?? "").replace(/[\s.]+$/, "") || "no reason was given"}. Nothing is due.`);

const testCheckoutUrl = (sessionId: string) => `/payments/test-checkout/${sessionId}`;

/** "checkout-<id>", then "checkout-<id>-a2", "-a3" when an expired session has to be replaced. */
function nextCheckoutKey(paymentId: string, current: string | null): string {
  const m = current ? /-a(\d+)$/.exec(current) : null;
  if (!current) return `checkout-${paymentId}`;
  return `checkout-${paymentId}-a${m ? Number(m[1]) + 1 : 2}`;
}

/** starts checkout for a pending payment the viewer owns; returns where to send the browser. A double-clicked Pay returns the same session (idempotency key stored on the payment). */
export async function startCheckout(
  ds: DataSource,
  config: Config,
  viewer: Viewer,
  paymentId: string,
  meta: { requestId?: string },
): Promise<{ url: string; provider: "stripe" | "test" }> {
  const p = isUuid(paymentId) ? await ds.getRepository(Payment).findOne({ where: { id: paymentId } }) : null;
  // Staff of the district may see the payment, but only the payer pays it.
  if (!p || p.payerId !== viewer.userId) throw notFound("That payment");
  requirePending(p);
  const actor: Actor = { userId: viewer.userId, requestId: meta.requestId };
  if (!config.stripe) return startTestCheckout(ds, actor, p.id);
  return startStripeCheckout(ds, config, actor, p.id, 0);
}

async function startTestCheckout(ds: DataSource, actor: Actor, paymentId: string): Promise<{ url: string; provider: "test" }> {
  return ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, paymentId))!;
    requirePending(p);
    if (p.provider === "test" && p.providerSessionId) return { url: testCheckoutUrl(p.providerSessionId), provider: "test" as const };
    const sessionId = `test_cs_${randomBytes(16).toString("hex")}`;
    await tx.update(Payment, { id: p.id }, { provider: "test", providerSessionId: sessionId, idempotencyKey: p.idempotencyKey ?? nextCheckoutKey(p.id, null), updatedAt: clock.now() });
    await audit(tx, actor, { action: "payment.checkout_started", entityType: "Payment", entityId: p.id, districtId: p.districtId, details: { provider: "test", sessionId } });
    return { url: testCheckoutUrl(sessionId), provider: "test" as const };
  });
}

async function startStripeCheckout(ds: DataSource, config: Config, actor: Actor, paymentId: string, attempt: number): Promise<{ url: string; provider: "stripe" }> {
  const stripe = stripeClient(config);
  // 1. Store the idempotency key before calling Stripe, so every click uses the same one.
  const state = await ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, paymentId))!;
    requirePending(p);
    if (p.provider === "stripe" && p.providerSessionId) return { payment: p, key: p.idempotencyKey!, sessionId: p.providerSessionId };
    if (p.provider === "stripe" && p.idempotencyKey) return { payment: p, key: p.idempotencyKey, sessionId: null };
    const key = nextCheckoutKey(p.id, p.idempotencyKey);
    await tx.update(Payment, { id: p.id }, { provider: "stripe", providerSessionId: null, idempotencyKey: key, updatedAt: clock.now() });
    return { payment: p, key, sessionId: null };
  });

  // 2. A session already exists: send the browser back to it while it is open.
  if (state.sessionId) {
    const existing = await stripe.checkout.sessions.retrieve(state.sessionId);
    if (existing.status === "open" && existing.url) {
      // Cancelled while Stripe answered: the cancellation's job closes this session; do not send the payer to it.
      const now = await ds.getRepository(Payment).findOneByOrFail({ id: paymentId });
      if (now.status === "CANCELLED") throw cancelledError(now);
      return { url: existing.url, provider: "stripe" };
    }
    if (existing.status === "complete") return { url: `${config.publicUrl}/payments/${paymentId}/done`, provider: "stripe" };
    if (attempt > 0) throw new Error(`Stripe checkout session ${state.sessionId} is ${existing.status} right after being made`);
    // Expired (Stripe sessions last 24 hours): forget it and make a new one under a new key.
    await ds.transaction(async (tx) => {
      const p = (await lockPayment(tx, paymentId))!;
      await forgetExpiredSession(tx, p, state.sessionId!, actor, { noticedBy: "startCheckout" });
    });
    return startStripeCheckout(ds, config, actor, paymentId, attempt + 1);
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
      success_url: `${config.publicUrl}/payments/${p.id}/done`,
      cancel_url: `${config.publicUrl}/payments/${p.id}`,
    },
    { idempotencyKey: state.key },
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
  let p = await tx.createQueryBuilder(Payment, "p").setLock("pessimistic_write").where("p.provider_session_id = :s", { s: input.sessionId }).getOne();
  // The session was made but its id not yet stored (or the server stopped in between): the
  // session carries the payment id as client_reference_id.
  if (!p && input.paymentId && isUuid(input.paymentId)) p = await lockPayment(tx, input.paymentId);
  const fresh = await recordProviderEvent(tx, input.eventId, type, input.sessionId, p?.id ?? null);
  if (!fresh) return { outcome: "duplicate_event", paymentId: p?.id ?? null };
  if (!p) {
    log?.warn({ eventId: input.eventId, sessionId: input.sessionId }, "checkout completed for a session no payment knows; ignored");
    return { outcome: "unknown_session", paymentId: null };
  }
  const actor = input.actor ?? { userId: null };
  const details = { provider: input.provider, eventId: input.eventId, sessionId: input.sessionId, amountTotal: input.amountTotal, currency: input.currency };
  const amountMatches = input.amountTotal === p.amountCents && (input.currency ?? "").toLowerCase() === p.currency;

  if (p.status === "CANCELLED") {
    // The test checkout is ours and closed with the cancellation, in its transaction: nothing was paid.
    if (input.provider === "test") return { outcome: "cancelled", paymentId: p.id };
    // The payer finished Stripe's page while the payable was abandoned (the session could not be
    // closed inside that transaction, and may have been paid before the job closed it). The money
    // is real: it gets a receipt like any payment and is flagged for the Clerk to refund in full;
    // the payable is not told (its onPaid is not called), as it was withdrawn or cancelled.
    if (!amountMatches) return amountMismatch(tx, p, actor, details, log);
    log?.error({ paymentId: p.id, ...details }, "a checkout completed for a cancelled payment; recorded as paid after cancellation, the Clerk should refund it");
    await markPaid(tx, p, {
      provider: input.provider,
      method: "card",
      checkNumber: null,
      sessionId: input.sessionId,
      paymentIntent: input.paymentIntent,
      actor,
      publicUrl: input.publicUrl,
      details: { eventId: input.eventId, sessionId: input.sessionId },
      afterCancel: true,
    });
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

  await markPaid(tx, p, {
    provider: input.provider,
    method: "card",
    checkNumber: null,
    sessionId: input.sessionId,
    paymentIntent: input.paymentIntent,
    actor,
    publicUrl: input.publicUrl,
    details: { eventId: input.eventId, sessionId: input.sessionId },
  });
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
  input: { eventId: string; type?: string; sessionId: string; log?: Logger },
): Promise<{ outcome: "duplicate_event" | "unknown_session" | "checkout_expired" | "unchanged"; paymentId: string | null }> {
  const p = await tx.createQueryBuilder(Payment, "p").setLock("pessimistic_write").where("p.provider_session_id = :s", { s: input.sessionId }).getOne();
  const fresh = await recordProviderEvent(tx, input.eventId, input.type ?? "checkout.session.expired", input.sessionId, p?.id ?? null);
  if (!fresh) return { outcome: "duplicate_event", paymentId: p?.id ?? null };
  if (!p) return { outcome: "unknown_session", paymentId: null };
  const changed = await forgetExpiredSession(tx, p, input.sessionId, { userId: null }, { eventId: input.eventId, noticedBy: "webhook" });
  if (changed) input.log?.info({ paymentId: p.id, sessionId: input.sessionId }, "checkout session expired unpaid; the payment stays pending and the next Pay makes a new session");
  return { outcome: changed ? "checkout_expired" : "unchanged", paymentId: p.id };
}

/**
 * Remembers a provider event (with its payment: the one given, else the one holding the session);
 * false when it was seen before, and then nothing else is done with it.
 */
export async function recordProviderEvent(tx: EntityManager, eventId: string, type: string, sessionId: string | null, paymentId: string | null = null): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO payment_event (provider_event_id, payment_id, type)
     VALUES ($1, coalesce($4::uuid, (SELECT id FROM payment WHERE provider_session_id = $2)), $3)
     ON CONFLICT (provider_event_id) DO NOTHING RETURNING provider_event_id`,
    [eventId, sessionId, type, paymentId],
  );
  return rows.length > 0;
}

/** The built-in test checkout's session, for its payer, only while Stripe is not configured. */
export async function testCheckoutSession(ds: DataSource, config: Config, viewer: Viewer, sessionId: string): Promise<Payment> {
  if (config.stripe) throw forbidden("The test checkout is off: this portal takes real card payments through Stripe.");
  const p = await ds.getRepository(Payment).findOne({ where: { providerSessionId: String(sessionId), provider: "test" } });
  if (!p || p.payerId !== viewer.userId) throw notFound("That checkout");
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
  viewer: Viewer,
  sessionId: string,
  outcome: string,
  meta: { requestId?: string; log?: Logger },
): Promise<Payment> {
  const p = await testCheckoutSession(ds, config, viewer, sessionId);
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
        actor: { userId: viewer.userId, requestId: meta.requestId },
        publicUrl: config.publicUrl,
        log: meta.log,
      }),
    );
    // Cancelled between the check above and the row lock.
    if (r.outcome === "cancelled") throw cancelledError(await ds.getRepository(Payment).findOneByOrFail({ id: p.id }));
  }
  return ds.getRepository(Payment).findOneOrFail({ where: { id: p.id } });
}

// ---------------------------------------------------------------------------------------------
// Marking paid, receipts

/** "LAK" for lakeview: the first three letters of the district's slug. */
export const receiptPrefix = districtCode;

/**
 * The next number in the district's receipt book for the year (the fiscal year is the calendar
 * year, SUL 1211) in the district's time zone: LKV-2026-000042. The counter row is locked until the
 * caller's transaction ends, so numbers are sequential without gaps.
 */
async function nextReceiptNumber(tx: EntityManager, district: District, at: Date): Promise<string> {
  const year = Number(dateIn(district.timeZone, at).slice(0, 4));
  const [row] = await tx.query(
    `INSERT INTO receipt_counter (district_id, year, last) VALUES ($1, $2, 1)
     ON CONFLICT (district_id, year) DO UPDATE SET last = receipt_counter.last + 1 RETURNING last`,
    [district.id, year],
  );
  return `${receiptPrefix(district.slug)}-${year}-${String(row.last).padStart(6, "0")}`;
}

async function markPaid(
  tx: EntityManager,
  p: Payment,
  how: {
    provider: "stripe" | "test" | "counter";
    method: PaymentMethod;
    checkNumber: string | null;
    sessionId: string | null;
    paymentIntent: string | null;
    actor: Actor;
    publicUrl?: string;
    details: Record<string, unknown>;
    /** the payment was cancelled before this money arrived: receipt it, do not apply it to the payable, flag it for refund */
    afterCancel?: boolean;
  },
): Promise<Payment> {
  const district = await tx.findOneOrFail(District, { where: { id: p.districtId } });
  const paidAt = clock.now();
  const receiptNumber = await nextReceiptNumber(tx, district, paidAt);
  await tx.update(
    Payment,
    { id: p.id },
    {
      status: "PAID",
      paidAt,
      receiptNumber,
      provider: how.provider,
      method: how.method,
      checkNumber: how.checkNumber,
      providerSessionId: how.sessionId,
      providerPaymentIntent: how.paymentIntent,
      updatedAt: paidAt,
    },
  );
  const paid = await tx.findOneOrFail(Payment, { where: { id: p.id } });
  if (!how.afterCancel) await payableHandler(paid.payableType).onPaid(tx, paid);
  await audit(tx, how.actor, {
    action: how.afterCancel ? "payment.paid_after_cancel" : "payment.paid",
    entityType: "Payment",
    entityId: paid.id,
    districtId: paid.districtId,
    reason: how.afterCancel ? paid.cancelReason : null,
    details: {
      ...how.details,
      provider: how.provider,
      method: how.method,
      checkNumber: how.checkNumber,
      amountCents: paid.amountCents,
      receiptNumber,
      ...(how.afterCancel ? { cancelledAt: paid.cancelledAt, refundDue: true } : {}),
    },
  });
  await enqueueReceiptEmail(tx, paid, district, how.publicUrl);
  if (how.afterCancel) await tellClerksRefundDue(tx, paid, district, how.publicUrl);
  return paid;
}

/** The district's Clerks learn that money arrived for a cancelled payment and is to be returned. */
async function tellClerksRefundDue(tx: EntityManager, p: Payment, district: District, publicUrl?: string): Promise<void> {
  const clerks = await staffOf(tx, p.districtId, "CLERK");
  const title = await payableHandler(p.payableType).title(p.payableId, tx);
  await enqueueEmails(
    tx,
    clerks.map((c) => ({
      to: c.email,
      recipientId: c.id,
      districtId: p.districtId,
      kind: "payment.refund_due",
      subject: `Refund due: ${formatCents(p.amountCents)} paid after cancellation (receipt ${p.receiptNumber})`,
      body: [
        `A card payment of ${formatCents(p.amountCents)} to ${district.name} for ${title} arrived after the payment was cancelled (${p.cancelReason}).`,
        `It has receipt ${p.receiptNumber} and was not applied to the application. Refund it in full from the payments ledger.`,
        ...(publicUrl ? ["", `${publicUrl}/staff/payments?districtId=${p.districtId}&status=${REFUND_DUE}`] : []),
        "",
      ].join("\n"),
    })),
  );
}

/** "April 3, 2026" in the district's time zone. */
export function formatReceiptDate(at: Date, timeZone: string): string {
  return at.toLocaleDateString("en-US", { timeZone, year: "numeric", month: "long", day: "numeric" });
}

export function describeMethod(p: Pick<Payment, "method" | "provider" | "checkNumber">): string {
  if (p.method === "cash") return "Paid in cash at the district office";
  if (p.method === "check") return `Paid by check no. ${p.checkNumber}`;
  if (p.provider === "test") return "Paid by card in the test checkout (no real money moved)";
  return "Paid by card";
}

/** One receipt line: "Inspection and administration fee, residential (Sewer Use Law 1212): $150.00". */
export const receiptLine = (l: PaymentLine) => `${l.label} (${l.section}): ${formatCents(l.amountCents)}${l.refundable ? " (refundable deposit)" : ""}`;

async function enqueueReceiptEmail(tx: EntityManager, p: Payment, district: District, publicUrl?: string): Promise<void> {
  const payer = await tx.findOneOrFail(User, { where: { id: p.payerId } });
  const title = await payableHandler(p.payableType).title(p.payableId, tx);
  const body = [
    `Hello ${payer.displayName},`,
    "",
    `${district.name} received your payment. This is your receipt.`,
    "",
    `Receipt number: ${p.receiptNumber}`,
    `Date: ${formatReceiptDate(p.paidAt!, district.timeZone)}`,
    `For: ${title}`,
    "",
    ...p.lines.map(receiptLine),
    `Total paid: ${formatCents(p.amountCents)}`,
    `${describeMethod(p)}.`,
    ...(p.cancelledAt
      ? ["", `This payment was cancelled before your card payment reached us (${p.cancelReason}). Nothing was due, so ${district.name} returns the full amount; you will receive a refund receipt.`]
      : []),
    "",
    `${district.name}`,
    `${district.address}`,
    ...(publicUrl ? ["", `Print the receipt: ${publicUrl}/payments/${p.id}/receipt`] : []),
    "",
  ].join("\n");
  await enqueueEmail(tx, {
    to: payer.email,
    recipientId: payer.id,
    districtId: p.districtId,
    kind: "payment.receipt",
    subject: `Receipt ${p.receiptNumber}: ${formatCents(p.amountCents)} paid to ${district.name}`,
    body,
  });
}

// ---------------------------------------------------------------------------------------------
// The Clerk: counter payments and refunds

/** The payment for the CLERK of its district: NOT_FOUND for outsiders, FORBIDDEN for other staff of it. */
async function paymentForClerk(ds: DataSource | EntityManager, clerk: Viewer, paymentId: string): Promise<Payment> {
  const p = isUuid(paymentId) ? await ds.getRepository(Payment).findOne({ where: { id: paymentId } }) : null;
  if (!p || !isStaff(clerk, p.districtId)) throw notFound("That payment");
  if (!hasRole(clerk, "CLERK", p.districtId)) throw forbidden("Only the district's Clerk records payments and refunds.");
  return p;
}

/** CLERK of the payment's district: records cash, or a check with its number, taken at the counter. */
export async function recordCounterPayment(
  ds: DataSource,
  config: Config,
  clerk: Viewer,
  paymentId: string,
  input: { method: "cash" | "check"; checkNumber?: string | null },
  meta: { requestId?: string; log?: Logger },
): Promise<Payment> {
  const checkNumber = String(input.checkNumber ?? "").trim();
  if (input.method !== "cash" && input.method !== "check") throw badInput({ method: "Choose cash or check." });
  if (input.method === "check" && !checkNumber) throw badInput({ checkNumber: "Enter the check number." });
  if (checkNumber.length > 40) throw badInput({ checkNumber: "A check number has at most 40 characters." });
  const found = await paymentForClerk(ds, clerk, paymentId);
  requirePending(found);

  // A card checkout may be open: close it first, so the payer cannot also pay by card.
  if (found.provider === "stripe" && found.providerSessionId && config.stripe) {
    const stripe = stripeClient(config);
    const s = await stripe.checkout.sessions.retrieve(found.providerSessionId);
    if (s.status === "complete") throw conflict("The payer has just paid this by card; wait a moment for the card processor's confirmation.");
    if (s.status === "open") {
      try {
        await stripe.checkout.sessions.expire(found.providerSessionId);
      } catch (e) {
        if (e instanceof Stripe.errors.StripeInvalidRequestError)
          throw conflict("The payer's card checkout could not be closed (it may have just been paid). Reload and try again.");
        throw e;
      }
    }
  }

  return ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, found.id))!;
    requirePending(p);
    return markPaid(tx, p, {
      provider: "counter",
      method: input.method,
      checkNumber: input.method === "check" ? checkNumber : null,
      // kept, so a card payment completing on the old session later is flagged as paid twice
      sessionId: p.providerSessionId,
      paymentIntent: null,
      actor: { userId: clerk.userId, requestId: meta.requestId },
      publicUrl: config.publicUrl,
      details: { counter: true },
    });
  });
}

/** Which lines may be refunded now, and for how much; throws when the request cannot be met. */
function checkRefund(p: Payment, refunds: Refund[], codes: string[], owedBack: string[] = []): { amountCents: number; lines: PaymentLine[] } {
  if (p.status === "PENDING" || p.status === "CANCELLED") throw conflict("Only a paid payment can be refunded.");
  if (p.status === "REFUNDED") throw conflict("This payment is already refunded in full.");
  const refunded = new Map<string, string>();
  for (const r of refunds) for (const c of r.lineCodes) refunded.set(c, r.receiptNumber);
  const lines: PaymentLine[] = [];
  // Money paid after its payment was cancelled was never due: every line of it goes back.
  const allLines = p.cancelledAt !== null;
  for (const code of codes) {
    const line = p.lines.find((l) => l.code === code);
    if (!line) throw badInput({ lineCodes: `This payment has no line "${code}".` });
    if (!line.refundable && !allLines && !owedBack.includes(code))
      throw badInput(
        { lineCodes: `${line.label} (${line.section}) is not refundable; only a deposit, or a fee owed back for a service not given, is returned.` },
        "Only refundable lines can be refunded.",
      );
    if (refunded.has(code)) throw conflict(`${line.label} was already refunded (receipt ${refunded.get(code)}).`, { lineCodes: "Already refunded." });
    lines.push(line);
  }
  const amountCents = lines.reduce((s, l) => s + l.amountCents, 0);
  if (amountCents > p.amountCents - p.refundedCents) throw conflict(`A refund can be at most what remains paid, ${formatCents(p.amountCents - p.refundedCents)}.`);
  return { amountCents, lines };
}

/**
 * CLERK of the payment's district: returns refundable lines (the as-built deposit, SUL 606 B) and
 * lines the payable owes back (a refused load's dumping fee, PayableHandler.linesOwedBack),
 * never more than was paid and never a line twice. A Stripe payment is refunded through Stripe
 * (with an idempotency key per payment and set of lines, so a retry never refunds twice);
 * otherwise the refund is recorded as paid back by check (or cash when paid in cash).
 */
export async function refundPayment(
  ds: DataSource,
  config: Config,
  clerk: Viewer,
  paymentId: string,
  input: { lineCodes: string[]; reason: string; method?: "cash" | "check" | null },
  meta: { requestId?: string; log?: Logger },
): Promise<Refund> {
  const reason = String(input.reason ?? "").trim();
  const codes = [...new Set((input.lineCodes ?? []).map((c) => String(c).trim()).filter(Boolean))].sort();
  const fields: Record<string, string> = {};
  if (!codes.length) fields.lineCodes = "Choose the line to refund.";
  if (!reason) fields.reason = "Say why the money is returned (the receipt and the audit log keep it).";
  else if (reason.length > 1000) fields.reason = "At most 1,000 characters.";
  if (input.method && input.method !== "cash" && input.method !== "check") fields.method = "Choose cash or check.";
  if (Object.keys(fields).length) throw badInput(fields);

  const found = await paymentForClerk(ds, clerk, paymentId);
  const owedBack = async (db: DataSource | EntityManager) =>
    (await linesOwedBack(db, [{ type: found.payableType, id: found.payableId }])).get(titleKey(found.payableType, found.payableId)) ?? [];
  const { amountCents } = checkRefund(found, await refundsFor(ds, [found.id]), codes, await owedBack(ds));

  let method: PaymentMethod;
  let providerRefundId: string | null = null;
  if (found.provider === "stripe") {
    if (!config.stripe || !found.providerPaymentIntent)
      throw conflict("This payment was made by card through Stripe, which is not configured now: refund it in the Stripe dashboard.");
    const refund = await stripeClient(config).refunds.create(
      { payment_intent: found.providerPaymentIntent, amount: amountCents, metadata: { paymentId: found.id, lineCodes: codes.join(",") } },
      { idempotencyKey: `refund-${found.id}-${sha256(codes.join(",")).slice(0, 16)}` },
    );
    if (refund.status === "failed" || refund.status === "canceled") throw conflict(`The card processor refused the refund (${refund.status}).`);
    method = "card";
    providerRefundId = refund.id;
  } else method = input.method ?? (found.method === "cash" ? "cash" : "check");

  return ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, found.id))!;
    checkRefund(p, await refundsFor(tx, [p.id]), codes, await owedBack(tx));
    const district = await tx.findOneOrFail(District, { where: { id: p.districtId } });
    const now = clock.now();
    const receiptNumber = await nextReceiptNumber(tx, district, now);
    const saved = await tx.save(
      tx.create(Refund, { paymentId: p.id, amountCents, reason, lineCodes: codes, method, providerRefundId, receiptNumber, createdById: clerk.userId }),
    );
    const refundedCents = p.refundedCents + amountCents;
    const status: PaymentStatus = refundedCents === p.amountCents ? "REFUNDED" : "PARTIALLY_REFUNDED";
    await tx.update(Payment, { id: p.id }, { refundedCents, status, updatedAt: now });
    await audit(
      tx,
      { userId: clerk.userId, requestId: meta.requestId },
      {
        action: "payment.refunded",
        entityType: "Payment",
        entityId: p.id,
        districtId: p.districtId,
        reason,
        details: { refundId: saved.id, amountCents, lineCodes: codes, method, providerRefundId, receiptNumber },
      },
    );
    const payer = await tx.findOneOrFail(User, { where: { id: p.payerId } });
    const lines = p.lines.filter((l) => codes.includes(l.code));
    await enqueueEmail(tx, {
      to: payer.email,
      recipientId: payer.id,
      districtId: p.districtId,
      kind: "payment.refund",
      subject: `Refund ${receiptNumber}: ${formatCents(amountCents)} from ${district.name}`,
      body: [
        `Hello ${payer.displayName},`,
        "",
        `${district.name} is returning ${formatCents(amountCents)} of payment ${p.receiptNumber}.`,
        "",
        `Refund receipt number: ${receiptNumber}`,
        `Date: ${formatReceiptDate(now, district.timeZone)}`,
        ...lines.map((l) => `${l.label} (${l.section}): ${formatCents(l.amountCents)}`),
        `Reason: ${reason}`,
        method === "card" ? "The money goes back to the card you paid with; your bank may take a few days to show it." : `Paid back by ${method}.`,
        "",
        `${district.name}`,
        `${district.address}`,
        "",
      ].join("\n"),
    });
    return tx.findOneOrFail(Refund, { where: { id: saved.id } });
  });
}

export { RECEIVED_STATUSES };

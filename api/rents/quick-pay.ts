import type { DataSource, EntityManager } from "typeorm";
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS } from "../accounts/accounts.service.js";
import { audit, auditMany } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { AppError, badInput, conflict } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { queryPrepared } from "../db/prepared.js";
import { newToken, sha256 } from "../common/tokens.js";
import type { Config } from "../config.js";
import { Payment } from "../payments/payment.entity.js";
import { connectionOf, counterOnlyError, describeMethod, paymentByAccess, refundsFor, startCheckout, takesCardPayments, testCheckoutSession, completeTestCheckout } from "../payments/payments.service.js";
import type { Logger } from "pino";
import { registerJobHandler } from "../jobs/queue.js";
import { onAccount, stripeClient } from "../payments/stripe.js";
import { stripeConfigOf } from "../payments/webhook.js";
import { SEWER_ACCOUNT_PAYABLE, accountBalances, balancesSql, createAccountPayment, toBalance } from "./ledger.js";

/**
 * Quick pay (issue 14, "Paying"): anyone with an account number and its service address's ZIP
 * code sees what is due and pays it without signing in. The lookup answers the amount due, the
 * last bill's period and due date, and nothing else (no name, no address); a wrong number and a
 * wrong ZIP get the same answer by the same path (one statement either way). Lookups are limited
 * per client address and per account number like password checks (api/accounts): the count and the
 * attempt's record come after advisory locks of both, in one statement (the function account_lookup),
 * so concurrent tries cannot pass the limit.
 * The payment has no payer: an unguessable token in the return address (only its SHA-256 kept)
 * lets whoever started it read its done page and receipt, and nothing else.
 */

/** The limits' window and figures: the sign-in limits' (api/accounts), not law. */
export const LOOKUP_WINDOW = "15 minutes";
export const MAX_LOOKUP_FAILURES_PER_NUMBER = MAX_FAILURES_PER_ACCOUNT;
export const MAX_LOOKUP_FAILURES_PER_ADDRESS = MAX_FAILURES_PER_ADDRESS;

export type LookupPurpose = "QUICK_PAY" | "LINK";

/** The same answer whichever of the two is wrong. */
export const NO_MATCH = "No account has this number with this ZIP code. Check both against your bill.";
const TOO_MANY = "Too many account numbers that did not match were tried. Wait 15 minutes and try again.";

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** "lkv-000123 " → "LKV-000123". */
export const normalizeAccountNumber = (s: string | null | undefined) =>
  String(s ?? "")
    .trim()
    .replace(/\s+/g, "")
    .toUpperCase();

/** "13600" or "13600-1234" → "13600"; anything else null. */
export function normalizeZip(s: string | null | undefined): string | null {
  const m = /^(\d{5})(?:-?\d{4})?$/.exec(String(s ?? "").trim());
  return m ? m[1] : null;
}

/** The number and ZIP as typed, normalized; field errors when either is no such thing (not an attempt). */
function lookupInput(input: { accountNumber: string; zip: string }): { number: string; zip: string } {
  const number = normalizeAccountNumber(input.accountNumber);
  const zip = normalizeZip(input.zip);
  const fields: Record<string, string> = {};
  if (!number) fields.accountNumber = "Enter the account number printed on your bill, like LKV-000123.";
  else if (number.length > 40) fields.accountNumber = "An account number has at most 40 characters.";
  if (!zip) fields.zip = "Enter the 5-digit ZIP code of the service address.";
  if (Object.keys(fields).length) throw badInput(fields);
  return { number, zip: zip! };
}

/**
 * SQL: the lookup under the limits, `account_lookup` (migration 1767020000000): the locks of the
 * number and the address, then the failures' counts, the lookup (the number and the ZIP matched
 * together: one path whichever is wrong) and the attempt's record; nothing looked up or recorded
 * once refused. Parameters $1-$7. Run alone, never in a transaction: its locks are held to the commit.
 */
const LOOKUP = `SELECT * FROM account_lookup($1, $2, $3, $4, $5, $6, $7::interval)`;
const lookupParams = (purpose: LookupPurpose, l: { number: string; zip: string }, ip: string) => [
  purpose,
  l.number,
  ip,
  l.zip,
  MAX_LOOKUP_FAILURES_PER_NUMBER,
  MAX_LOOKUP_FAILURES_PER_ADDRESS,
  LOOKUP_WINDOW,
];

type FoundAccount = { id: string; districtId: string; accountNumber: string; districtName: string };

/** The lookup's row: the account, or the limit's error, or the same field error for a wrong number and a wrong ZIP. */
function foundOrThrow(r: any): FoundAccount {
  if (!r.admitted) throw new AppError("TOO_MANY_REQUESTS", TOO_MANY);
  if (!r.account_id) throw badInput({ accountNumber: NO_MATCH, zip: NO_MATCH });
  return { id: r.account_id, districtId: r.district_id, accountNumber: r.account_number, districtName: r.district_name };
}

/**
 * The account with this number whose property's ZIP is this one, admitted against the limits;
 * a field error otherwise, the same for a wrong number and a wrong ZIP. Every try is recorded
 * (failed or not); failures count against the number and the client address. One statement.
 */
export async function findAccountByNumberAndZip(ds: DataSource, purpose: LookupPurpose, input: { accountNumber: string; zip: string }, ip: string): Promise<FoundAccount> {
  const [r] = await queryPrepared(ds, LOOKUP, lookupParams(purpose, lookupInput(input), ip));
  return foundOrThrow(r);
}

export type QuickPayAccount = {
  accountNumber: string;
  districtName: string;
  balanceCents: number;
  pastDueCents: number;
  periodFrom: string | null;
  periodTo: string | null;
  dueOn: string | null;
  /** it can be paid by card online now; false: at the district office only */
  cardPayments: boolean;
};

async function cardPaymentsOf(db: DataSource | EntityManager, config: Config, districtId: string): Promise<boolean> {
  if (!config.stripe) return true;
  return takesCardPayments(config, await connectionOf(db, districtId));
}

/** The lookup and, when it finds the account, its balance (read in the same statement, as of its start). */
const LOOKUP_WITH_BALANCE = `WITH f AS (${LOOKUP}),
     bal AS (${balancesSql("ARRAY(SELECT account_id FROM f WHERE account_id IS NOT NULL)", "$8::timestamptz")})
     SELECT f.*, bal.id, bal.balance, bal.past_due, bal.bill_id, bal.number, bal.period_start, bal.period_end, bal.mailed_on, bal.due_on, bal.total_cents
       FROM f LEFT JOIN bal ON bal.id = f.account_id`;

/** What is due on the account: the amount, the last bill's period and due date; nothing else. One statement (and the district's Stripe account with Stripe on). */
export async function quickPayLookup(ds: DataSource, config: Config, input: { accountNumber: string; zip: string }, meta: { ip: string }): Promise<QuickPayAccount> {
  const [r] = await queryPrepared(ds, LOOKUP_WITH_BALANCE, [...lookupParams("QUICK_PAY", lookupInput(input), meta.ip), clock.now()]);
  const a = foundOrThrow(r);
  const balance = toBalance(r);
  return {
    accountNumber: a.accountNumber,
    districtName: a.districtName,
    balanceCents: balance.balanceCents,
    pastDueCents: balance.pastDueCents,
    periodFrom: balance.lastBill?.periodFrom ?? null,
    periodTo: balance.lastBill?.periodTo ?? null,
    dueOn: balance.lastBill?.dueOn ?? null,
    cardPayments: await cardPaymentsOf(ds, config, a.districtId),
  };
}

/**
 * Starts paying without signing in: the number and ZIP again (an attempt like the lookup), the
 * amount (the balance when none is given; more or less lands on the balance), an optional email
 * for the receipt. Makes a payment with no payer and a fresh access token, and starts its
 * checkout (Stripe on the district's own account, or the labelled test checkout); answers where
 * to send the browser. A district without a Stripe account that takes charges: counter only.
 */
export async function startQuickPay(
  ds: DataSource,
  config: Config,
  input: { accountNumber: string; zip: string; amountCents?: number | null; email?: string | null },
  meta: { ip: string; requestId?: string },
): Promise<{ url: string; paymentId: string }> {
  const email = String(input.email ?? "").trim().toLowerCase() || null;
  if (email && (!EMAIL_RE.test(email) || email.length > 254)) throw badInput({ email: "Enter an email address like name@example.com, or leave it empty." });
  const a = await findAccountByNumberAndZip(ds, "QUICK_PAY", input, meta.ip);
  if (!(await cardPaymentsOf(ds, config, a.districtId))) {
    const [d] = await ds.query(`SELECT name FROM district WHERE id = $1`, [a.districtId]);
    throw counterOnlyError(d.name);
  }
  const access = newToken("qp_");
  const actor = { userId: null, requestId: meta.requestId };
  const paymentId = await ds.transaction(async (tx) => {
    let amount = input.amountCents ?? null;
    if (amount === null) {
      const b = (await accountBalances(tx, [a.id])).get(a.id)!;
      if (b.balanceCents <= 0) throw conflict(b.balanceCents < 0 ? `Nothing is due: the account has a credit of ${formatCents(-b.balanceCents)}.` : "Nothing is due on this account.");
      amount = b.balanceCents;
    }
    const p = await createAccountPayment(tx, actor, { accountId: a.id, payerId: null, amountCents: amount });
    // The line names the account only: Stripe's page and the token's pages show no service address.
    const lines = p.lines.map((l) => ({ ...l, label: `Payment toward the balance of sewer account ${a.accountNumber}` }));
    await tx.query(`UPDATE payment SET access_token_hash = $2, receipt_email = $3, lines = $4::jsonb WHERE id = $1`, [p.id, sha256(access), email, JSON.stringify(lines)]);
    await audit(tx, actor, {
      action: "rents.quick_pay_started",
      entityType: "ServiceAccount",
      entityId: a.id,
      districtId: a.districtId,
      details: { paymentId: p.id, amountCents: amount, receiptEmail: email !== null, ip: meta.ip },
    });
    return p.id;
  });
  const { url } = await startCheckout(ds, config, null, paymentId, { requestId: meta.requestId, access });
  return { url, paymentId };
}

export type QuickPaymentView = {
  id: string;
  status: string;
  amountCents: number;
  refundedCents: number;
  paidAt: Date | null;
  receiptNumber: string | null;
  methodDescription: string | null;
  provider: string | null;
  cancelReason: string | null;
  accountNumber: string;
  lines: { code: string; label: string; section: string; amountCents: number }[];
  refunds: { id: string; amountCents: number; reason: string; method: string; receiptNumber: string; createdAt: Date }[];
  districtName: string;
  districtAddress: string;
  timeZone: string;
};

async function quickView(ds: DataSource, p: Payment): Promise<QuickPaymentView> {
  const [[d], [a], refunds] = await Promise.all([
    ds.query(`SELECT name, address, time_zone FROM district WHERE id = $1`, [p.districtId]) as Promise<any[]>,
    ds.query(`SELECT account_number FROM service_account WHERE id = $1`, [p.payableId]) as Promise<any[]>,
    refundsFor(ds, [p.id]),
  ]);
  return {
    id: p.id,
    status: p.status,
    amountCents: p.amountCents,
    refundedCents: p.refundedCents,
    paidAt: p.paidAt,
    receiptNumber: p.receiptNumber,
    methodDescription: p.method ? describeMethod(p) : null,
    provider: p.provider,
    cancelReason: p.cancelReason,
    accountNumber: a?.account_number ?? "",
    lines: p.lines.map((l) => ({ code: l.code, label: l.label, section: l.section, amountCents: l.amountCents })),
    refunds: refunds.map((r) => ({ id: r.id, amountCents: r.amountCents, reason: r.reason, method: r.method, receiptNumber: r.receiptNumber, createdAt: r.createdAt })),
    districtName: d.name,
    districtAddress: d.address,
    timeZone: d.time_zone,
  };
}

/** The quick-pay payment for whoever holds its token: its status, lines and receipt; nothing else. */
export async function quickPayment(ds: DataSource, id: string, access: string): Promise<QuickPaymentView> {
  return quickView(ds, await paymentByAccess(ds, id, access));
}

/** The test checkout of a quick-pay payment (no Stripe keys only), for the token's holder. */
export async function quickPayTestCheckout(ds: DataSource, config: Config, sessionId: string, access: string): Promise<QuickPaymentView> {
  return quickView(ds, await testCheckoutSession(ds, config, null, sessionId, access));
}

export async function completeQuickPayTestCheckout(
  ds: DataSource,
  config: Config,
  sessionId: string,
  access: string,
  outcome: string,
  meta: { requestId?: string; log?: Logger },
): Promise<QuickPaymentView> {
  return quickView(ds, await completeTestCheckout(ds, config, null, sessionId, outcome, { ...meta, access }));
}

// ---------------------------------------------------------------------------------------------
// Abandoned quick-pay payments, by a job every hour

export const QUICK_PAY_EXPIRY_JOB = "rents.quick-pay-expiry";
/**
 * How long a quick-pay checkout stays open: Stripe expires a Checkout Session 24 hours after it is
 * made (its default, which startCheckout keeps). The labelled test checkout's session is the
 * payment row and never lapses by itself: it is held to the same 24 hours from the payment's making
 * (quick pay starts its checkout at once). Not law: Stripe's figure, the portal's practice.
 */
export const QUICK_PAY_CHECKOUT_HOURS = 24;
export const ABANDONED_REASON = "The checkout was left unpaid until it expired (24 hours). Nothing was charged; start quick pay again to pay.";
const EXPIRY_BATCH = 200;

/**
 * Cancels quick-pay payments (no payer) left PENDING after their checkout expired, so they no
 * longer show as waiting (docs/sewer-rents.md, quick pay). Candidates: PENDING, no payer, made
 * more than QUICK_PAY_CHECKOUT_HOURS ago, in batches of EXPIRY_BATCH by id. A Stripe session is
 * asked of Stripe on the account it was made on: only `expired` cancels (an open one is left, a
 * `complete` one is the webhook's to settle); a payment whose expired session the webhook already
 * forgot (no session), or whose checkout never started, or a test checkout past its 24 hours, is
 * cancelled too. Each batch is one transaction of a fixed number of statements: the rows locked and
 * checked again (still PENDING, still holding the same session), one update, one audit statement.
 * A paid payment is never touched; a second run finds nothing. Returns how many were cancelled.
 */
export async function expireAbandonedQuickPayments(ds: DataSource, config: Config | null, log?: Logger): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - QUICK_PAY_CHECKOUT_HOURS * 3_600_000);
  let after = "00000000-0000-0000-0000-000000000000";
  let cancelled = 0;
  for (;;) {
    const rows: { id: string; provider: string | null; provider_session_id: string | null; stripe_account_id: string | null }[] = await ds.query(
      `SELECT id, provider, provider_session_id, stripe_account_id FROM payment
        WHERE payable_type = $1 AND payer_id IS NULL AND status = 'PENDING' AND created_at < $2 AND id > $3
        ORDER BY id LIMIT $4`,
      [SEWER_ACCOUNT_PAYABLE, cutoff, after, EXPIRY_BATCH],
    );
    if (!rows.length) break;
    after = rows[rows.length - 1].id;
    const lapsed: { id: string; session: string | null; how: string }[] = [];
    for (const r of rows) {
      if (r.provider !== "stripe" || !r.provider_session_id) {
        lapsed.push({ id: r.id, session: r.provider_session_id, how: r.provider === "test" ? "test checkout past 24 hours" : r.provider === "stripe" ? "session expired and forgotten" : "checkout never started" });
        continue;
      }
      if (!config?.stripe) continue; // Stripe's session cannot be asked: left for a server with the keys.
      try {
        const session = await stripeClient(config).checkout.sessions.retrieve(r.provider_session_id, {}, onAccount(r.stripe_account_id));
        if (session.status === "expired") lapsed.push({ id: r.id, session: r.provider_session_id, how: "session expired" });
        else if (session.status === "complete") log?.warn({ paymentId: r.id, sessionId: r.provider_session_id }, "a quick-pay checkout is complete at Stripe but its payment is pending; the webhook settles it");
      } catch (err) {
        log?.warn({ err, paymentId: r.id }, "a quick-pay checkout session could not be read; the next run asks again");
      }
    }
    if (lapsed.length) cancelled += await ds.transaction((tx) => cancelLapsed(tx, lapsed));
    if (rows.length < EXPIRY_BATCH) break;
  }
  if (cancelled) log?.info({ cancelled }, "abandoned quick-pay payments cancelled");
  return cancelled;
}

async function cancelLapsed(tx: EntityManager, lapsed: { id: string; session: string | null; how: string }[]): Promise<number> {
  const now = clock.now();
  const rows: any[] = await tx.query(
    // The row's conditions are checked again on the row as it is once locked (a payment paid meanwhile is left alone).
    `UPDATE payment p SET status = 'CANCELLED', cancelled_at = $3, cancel_reason = $4, updated_at = $3
       FROM unnest($1::uuid[], $2::text[]) AS t(id, session)
      WHERE p.id = t.id AND p.status = 'PENDING' AND p.payer_id IS NULL AND p.provider_session_id IS NOT DISTINCT FROM t.session
      RETURNING p.id, p.district_id, p.payable_id, p.amount_cents, p.provider, p.provider_session_id`,
    [lapsed.map((l) => l.id), lapsed.map((l) => l.session), now, ABANDONED_REASON],
  );
  const done: any[] = Array.isArray(rows[0]) ? rows[0] : rows;
  const how = new Map(lapsed.map((l) => [l.id, l.how]));
  await auditMany(
    tx,
    { userId: null },
    done.map((p) => ({
      action: "payment.cancelled",
      entityType: "Payment",
      entityId: p.id,
      districtId: p.district_id,
      reason: ABANDONED_REASON,
      details: { payableType: SEWER_ACCOUNT_PAYABLE, payableId: p.payable_id, amountCents: p.amount_cents, provider: p.provider, sessionId: p.provider_session_id, quickPay: true, abandoned: how.get(p.id) },
    })),
  );
  return done.length;
}

registerJobHandler(QUICK_PAY_EXPIRY_JOB, async (ds, _payload, log) => {
  await expireAbandonedQuickPayments(ds, stripeConfigOf(ds), log);
});

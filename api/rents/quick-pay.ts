import type { DataSource, EntityManager } from "typeorm";
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS } from "../accounts/accounts.service.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { AppError, badInput, conflict } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { queryPrepared } from "../db/prepared.js";
import { newToken, sha256 } from "../common/tokens.js";
import type { Config } from "../config.js";
import { Payment } from "../payments/payment.entity.js";
import { connectionOf, counterOnlyError, describeMethod, paymentByAccess, refundsFor, startCheckout, takesCardPayments, testCheckoutSession, completeTestCheckout } from "../payments/payments.service.js";
import type { Logger } from "pino";
import { accountBalances, balancesSql, createAccountPayment, toBalance } from "./ledger.js";

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

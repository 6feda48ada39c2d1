import { stringify } from "csv-stringify/sync";
import Stripe from "stripe";
import type { DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { addCalendarDays, dateIn, isCalendarDate, zonedWallTime, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { pageSize } from "../common/paging.js";
import type { Config } from "../config.js";
import type { District } from "../districts/district.entity.js";
import { getDistrict } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { connectionOf } from "./connect.service.js";
import { payableTitles, titleKey } from "./payables.js";
import { Payment } from "./payment.entity.js";
import { onAccount, stripeClient } from "./stripe.js";

/**
 * The district's payout report: what Stripe paid out of the district's own account (Stripe
 * Connect, direct charges: connect.service.ts) to its bank, and for one payout the payments and
 * refunds it settled with Stripe's fees, matched to the portal's payments by their payment intent,
 * so the Clerk reconciles the bank deposit against the portal's receipts. Read from Stripe each
 * time on the district's connected account (the Stripe-Account header), never stored; the account
 * is the caller's district's own, never one named by the caller.
 */

export type PayoutView = {
  id: string;
  amountCents: number;
  currency: string;
  /** the calendar date Stripe expects it at the bank, in the district's zone */
  arrivalDate: CalendarDate;
  createdAt: Date;
  /** paid, pending, in_transit, canceled or failed (Stripe's words) */
  status: string;
  /** made by Stripe's payout schedule (its lines can be listed) rather than by hand in the Dashboard */
  automatic: boolean;
  method: string | null;
  description: string | null;
  failureMessage: string | null;
};

/** Where a district's payouts can be read, or in plain words why not. */
type Reach = { district: District; accountId: string | null; notice: string | null };

export type PayoutList = { districtId: string; accountId: string | null; notice: string | null; payouts: PayoutView[]; nextCursor: string | null };

export type PayoutLine = {
  /** Stripe's balance transaction (txn_...) */
  id: string;
  /** charge, payment, refund, payment_refund, adjustment, stripe_fee, ... (Stripe's words) */
  type: string;
  description: string | null;
  createdAt: Date;
  amountCents: number;
  feeCents: number;
  netCents: number;
  /** the charge, refund or dispute behind it (ch_..., re_..., du_...) */
  sourceId: string | null;
  paymentIntentId: string | null;
  /** the portal's payment it belongs to; null: a payment the portal does not know */
  payment: Payment | null;
  /** for a refund line, the portal's refund receipt, when the portal made that refund */
  refundReceiptNumber: string | null;
};

export type PayoutTotals = { amountCents: number; feeCents: number; netCents: number };

export type PayoutReport = {
  districtId: string;
  accountId: string | null;
  notice: string | null;
  payout: PayoutView | null;
  lines: PayoutLine[];
  totals: PayoutTotals;
  /** lines of money the portal does not know (a payment taken in the Dashboard, an adjustment...) */
  unknownCount: number;
  /** false when the payout has more lines than the report lists (LINE_CAP) */
  complete: boolean;
};

/** One payout's lines read at most (100 per call to Stripe). */
const LINE_CAP = 5000;
const PAYOUT_ID = /^po_[A-Za-z0-9]+$/;
const CURSOR = /^po_[A-Za-z0-9]+$/;

/**
 * The district for its CLERK or ADMIN (those who read its payments ledger): NOT_FOUND for
 * outsiders, FORBIDDEN for its other staff.
 */
async function districtForPayouts(ds: DataSource, viewer: Viewer, districtId: string): Promise<District> {
  if (!isUuid(districtId) || !isStaff(viewer, districtId)) throw notFound("That district");
  if (!hasRole(viewer, "CLERK", districtId) && !hasRole(viewer, "ADMIN", districtId)) throw forbidden("Only the district's Clerk or an ADMIN reads its payouts.");
  return getDistrict(ds, { id: districtId });
}

/** The caller's district's own connected account, or why its payouts cannot be read. */
async function reach(ds: DataSource, config: Config, viewer: Viewer, districtId: string): Promise<Reach> {
  const district = await districtForPayouts(ds, viewer, districtId);
  if (!config.stripe)
    return { district, accountId: null, notice: "This portal is not connected to Stripe (the deployment's operator has not set its Stripe keys): no card payment moved real money, so there are no payouts to show." };
  const c = await connectionOf(ds, district.id);
  if (!c)
    return { district, accountId: null, notice: `${district.name} has no Stripe account of its own connected: its card payments have no payouts to show. The district's ADMIN connects one under Card payments.` };
  return { district, accountId: c.accountId, notice: null };
}

/** Stripe's answer for an account the platform no longer reaches, in words; other errors go on. */
function stripeRefusal(e: unknown, accountId: string): string | null {
  if (e instanceof Stripe.errors.StripeError && (e.statusCode === 403 || e.type === "StripePermissionError" || e.code === "account_invalid"))
    return `Stripe does not let the portal read the account ${accountId} any more (it may have been disconnected from the platform in Stripe). The district's payouts are in its own Stripe Dashboard.`;
  return null;
}

/**
 * The calendar date a payout reaches the bank. Stripe gives it as midnight UTC of that date (a bank
 * day, not an instant: read in New York's zone it would be the day before); any other time is an
 * instant, whose date is the district's.
 */
export function arrivalDateOf(arrivalSeconds: number, timeZone: string): CalendarDate {
  const at = new Date(arrivalSeconds * 1000);
  return arrivalSeconds % 86_400 === 0 ? at.toISOString().slice(0, 10) : dateIn(timeZone, at);
}

const payoutView = (p: Stripe.Payout, timeZone: string): PayoutView => ({
  id: p.id,
  amountCents: p.amount,
  currency: p.currency,
  arrivalDate: arrivalDateOf(p.arrival_date, timeZone),
  createdAt: new Date(p.created * 1000),
  status: p.status,
  automatic: p.automatic,
  method: p.method ?? null,
  description: p.description ?? null,
  failureMessage: p.failure_message ?? null,
});

/**
 * Stripe's arrival_date bound for a calendar date: from its midnight UTC (Stripe's own arrival
 * dates) or its first second in the district's zone, whichever is earlier, to the later of the
 * same midnight and its last second in the zone; the page is then kept to the dates asked for.
 */
function arrivalBound(date: CalendarDate, timeZone: string, edge: "from" | "to"): number {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`) / 1000;
  if (edge === "from") return Math.min(midnightUtc, Math.floor(zonedWallTime(midnightUtc * 1000, timeZone).getTime() / 1000));
  return Math.max(midnightUtc, Math.floor(zonedWallTime(Date.parse(`${addCalendarDays(date, 1)}T00:00:00Z`), timeZone).getTime() / 1000) - 1);
}

/**
 * CLERK or ADMIN: the district's payouts to its bank, newest first, a page at a time (`after`:
 * the last payout of the page before, Stripe's starting_after), those arriving from `from` to `to`
 * (calendar dates in the district's zone, either optional). A deployment without Stripe keys or
 * a district without a connected account gets no payouts and a notice saying so.
 */
export async function districtPayouts(
  ds: DataSource,
  config: Config,
  viewer: Viewer,
  f: { districtId: string; from?: string | null; to?: string | null; after?: string | null; first?: number | null },
): Promise<PayoutList> {
  const fields: Record<string, string> = {};
  if (f.from && !isCalendarDate(f.from)) fields.from = "Enter a date as YYYY-MM-DD.";
  if (f.to && !isCalendarDate(f.to)) fields.to = "Enter a date as YYYY-MM-DD.";
  if (!fields.from && !fields.to && f.from && f.to && f.from > f.to) fields.to = "The end date is before the start date.";
  if (f.after && !CURSOR.test(f.after)) fields.after = "Not a page of this list.";
  const r = await reach(ds, config, viewer, f.districtId);
  if (Object.keys(fields).length) throw badInput(fields);
  // The page size is checked whether or not there is an account to read (a list's first, as every list's).
  const limit = pageSize(f.first, 25, 100);
  const none = { districtId: r.district.id, accountId: r.accountId, payouts: [], nextCursor: null };
  if (!r.accountId) return { ...none, notice: r.notice };
  const tz = r.district.timeZone;
  const arrival: Stripe.RangeQueryParam = {};
  if (f.from) arrival.gte = arrivalBound(f.from, tz, "from");
  if (f.to) arrival.lte = arrivalBound(f.to, tz, "to");
  let page: Stripe.ApiList<Stripe.Payout>;
  try {
    page = await stripeClient(config).payouts.list(
      { limit, ...(f.after ? { starting_after: f.after } : {}), ...(f.from || f.to ? { arrival_date: arrival } : {}) },
      onAccount(r.accountId),
    );
  } catch (e) {
    // (a cursor Stripe does not know on this account: another account's payout, say)
    if (f.after && e instanceof Stripe.errors.StripeError && e.statusCode === 404) throw badInput({ after: "Not a page of this list." });
    const notice = stripeRefusal(e, r.accountId);
    if (notice) return { ...none, notice };
    throw e;
  }
  const payouts = page.data.map((p) => payoutView(p, tz)).filter((p) => (!f.from || p.arrivalDate >= f.from) && (!f.to || p.arrivalDate <= f.to));
  const last = page.data[page.data.length - 1];
  return { ...none, notice: null, payouts, nextCursor: page.has_more && last ? last.id : null };
}

const idOf = (x: string | { id: string } | null | undefined): string | null => (x == null ? null : typeof x === "string" ? x : x.id);

/** The payment intent behind a balance transaction's source (a charge, a refund, a dispute), if any. */
function intentOf(source: Stripe.BalanceTransaction["source"]): string | null {
  if (!source || typeof source === "string") return null;
  const pi = (source as { payment_intent?: string | { id: string } | null }).payment_intent;
  return idOf(pi);
}

/**
 * CLERK or ADMIN: one payout of the district's account with the balance transactions it settled
 * (Stripe's `payout` filter, each with its charge or refund), each matched to the portal's payment
 * by its payment intent (one query for all of them, with the receipts of the refunds made through
 * the portal), with Stripe's fee and the net; the lines' nets add up to the payout. Another account's
 * payout is NOT_FOUND, as Stripe answers it. Stripe lists the lines of automatic payouts only.
 */
export async function districtPayout(ds: DataSource, config: Config, viewer: Viewer, districtId: string, payoutId: string): Promise<PayoutReport & { district: District }> {
  const r = await reach(ds, config, viewer, districtId);
  const empty = { district: r.district, districtId: r.district.id, accountId: r.accountId, payout: null, lines: [], totals: { amountCents: 0, feeCents: 0, netCents: 0 }, unknownCount: 0, complete: true };
  if (!r.accountId) return { ...empty, notice: r.notice };
  if (!PAYOUT_ID.test(payoutId)) throw notFound("That payout");
  const stripe = stripeClient(config);
  const opts = onAccount(r.accountId);
  let payout: Stripe.Payout;
  const txns: Stripe.BalanceTransaction[] = [];
  let complete = true;
  try {
    payout = await stripe.payouts.retrieve(payoutId, {}, opts);
    if (payout.automatic) {
      let after: string | undefined;
      for (;;) {
        const page = await stripe.balanceTransactions.list({ payout: payout.id, limit: 100, expand: ["data.source"], ...(after ? { starting_after: after } : {}) }, opts);
        txns.push(...page.data);
        if (!page.has_more || !page.data.length) break;
        if (txns.length >= LINE_CAP) {
          complete = false;
          break;
        }
        after = page.data[page.data.length - 1].id;
      }
    }
  } catch (e) {
    if (e instanceof Stripe.errors.StripeError && e.statusCode === 404) throw notFound("That payout");
    const notice = stripeRefusal(e, r.accountId);
    if (notice) return { ...empty, notice };
    throw e;
  }
  // The payout's own transaction (the money leaving the balance) is the payout, not one of its lines.
  const settled = txns.filter((t) => t.type !== "payout" && idOf(t.source) !== payout.id);
  const intents = [...new Set(settled.map((t) => intentOf(t.source)).filter((x): x is string => !!x))];
  // One statement for the whole payout, whatever its lines: the district's payments of these
  // intents, each with the receipts of its refunds made through Stripe.
  const { entities: payments, raw } = await ds
    .getRepository(Payment)
    .createQueryBuilder("p")
    .addSelect(
      `(SELECT coalesce(jsonb_object_agg(r.provider_refund_id, r.receipt_number), '{}'::jsonb) FROM refund r WHERE r.payment_id = p.id AND r.provider_refund_id IS NOT NULL)`,
      "refund_receipts",
    )
    .where("p.district_id = :d AND p.provider_payment_intent = ANY(CAST(:pis AS text[]))", { d: r.district.id, pis: intents })
    .getRawAndEntities();
  const byIntent = new Map(payments.map((p) => [p.providerPaymentIntent!, p]));
  const refundReceipt = new Map<string, string>(raw.flatMap((x: any) => Object.entries((x.refund_receipts ?? {}) as Record<string, string>)));
  const lines: PayoutLine[] = settled.map((t) => {
    const pi = intentOf(t.source);
    const sourceId = idOf(t.source);
    return {
      id: t.id,
      type: t.type,
      description: t.description ?? null,
      createdAt: new Date(t.created * 1000),
      amountCents: t.amount,
      feeCents: t.fee,
      netCents: t.net,
      sourceId,
      paymentIntentId: pi,
      payment: (pi && byIntent.get(pi)) || null,
      refundReceiptNumber: (sourceId && refundReceipt.get(sourceId)) || null,
    };
  });
  const totals = lines.reduce((s, l) => ({ amountCents: s.amountCents + l.amountCents, feeCents: s.feeCents + l.feeCents, netCents: s.netCents + l.netCents }), { amountCents: 0, feeCents: 0, netCents: 0 });
  return { ...empty, notice: null, payout: payoutView(payout, r.district.timeZone), lines, totals, unknownCount: lines.filter((l) => !l.payment).length, complete };
}

const dollars = (cents: number) => `${cents < 0 ? "-" : ""}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, "0")}`;

/**
 * CLERK or ADMIN: one payout's lines as CSV, for the bank reconciliation: each line with the
 * portal's receipt (or "Not in the portal"), Stripe's amount, fee and net, and a total line equal
 * to the payout. Without an account to read, CONFLICT with the notice.
 */
export async function districtPayoutCsv(ds: DataSource, config: Config, viewer: Viewer, districtId: string, payoutId: string): Promise<{ filename: string; csv: string }> {
  const r = await districtPayout(ds, config, viewer, districtId, payoutId);
  if (!r.payout) throw conflict(r.notice ?? "There is no payout to show.");
  const tz = r.district.timeZone;
  const matched = r.lines.map((l) => l.payment).filter((p): p is Payment => !!p);
  const titles = await payableTitles(
    ds,
    matched.map((p) => ({ type: p.payableType, id: p.payableId })),
  );
  const rows: (string | number)[][] = [
    ["Payout", "Arrival date", "Stripe transaction", "Type", "Date", "Charge or refund", "Payment intent", "Portal receipt", "Refund receipt", "Paid for", "Amount", "Stripe fee", "Net", "In the portal"],
    ...r.lines.map((l) => [
      r.payout!.id,
      r.payout!.arrivalDate,
      l.id,
      l.type,
      dateIn(tz, l.createdAt),
      l.sourceId ?? "",
      l.paymentIntentId ?? "",
      l.payment?.receiptNumber ?? "",
      l.refundReceiptNumber ?? "",
      l.payment ? (titles.get(titleKey(l.payment.payableType, l.payment.payableId)) ?? "") : (l.description ?? ""),
      dollars(l.amountCents),
      dollars(l.feeCents),
      dollars(l.netCents),
      l.payment ? "Yes" : "No: not a portal payment",
    ]),
    [r.payout.id, r.payout.arrivalDate, "Total", "", "", "", "", "", "", `${r.lines.length} lines${r.complete ? "" : " (more not listed)"}`, dollars(r.totals.amountCents), dollars(r.totals.feeCents), dollars(r.totals.netCents), ""],
  ];
  return { filename: `payout-${r.district.slug}-${r.payout.arrivalDate}-${r.payout.id}.csv`, csv: stringify(rows, { record_delimiter: "\r\n" }) };
}

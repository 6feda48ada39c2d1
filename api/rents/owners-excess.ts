import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import type { Actor } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { Payment, createPayment, registerPayable } from "../payments/payments.service.js";
import { actorOf, addressOf, type Meta } from "./common.js";
import { openItems, openItemsSql, postPaymentTo, type Db } from "./ledger.js";
import { balanceLines, checkCounterPayment, markCounterPaid, openBillsOf, type LedgerLine, type OpenBill } from "./ledger.service.js";

/**
 * A Huron owner's excess bills paid and enforced (issue 14; Huron VI-2, VI-3, VI-4;
 * docs/decisions/huron-owners-excess-bill-paying.md). Users behind one meter each pay the minimum
 * and the owner of record gets a bill of the excess, a meter's bill with no service account
 * (bill.kind OWNER_EXCESS). The excess bills of one property are a balance of their own, kept in
 * account_ledger_entry keyed by the property (excess_property_id, never an account): paid online by
 * the property's owner of record and at the counter by the Town Clerk, credited to the oldest bill
 * first as accounts are (ledger.ts openItems, `of: "excess"`), charged VI-3's penalty by the same
 * hourly job, on VI-4's levy list and in the receivables. A payment toward it is its own payable
 * (the property's id), so it never lands on an account's balance, nor an account's on it.
 */

/** The payable type of a payment toward a property's owner's excess bills; its id is the property's id. */
export const OWNERS_EXCESS_PAYABLE = "SewerOwnersExcess";

export type ExcessMoney = {
  propertyId: string;
  districtId: string;
  /** "Owner's excess bills, 12 Main Street, Huron 13600 (tax parcel 1.2-3)" */
  title: string;
  ownerName: string;
  asOf: CalendarDate;
  /** > 0 owed, < 0 a credit (an overpayment, which the next excess bill uses first) */
  balanceCents: number;
  pastDueCents: number;
  /** may the viewer pay it online (the property's owner of record) */
  canPay: boolean;
  /** may the viewer record counter payments (the district's Town Clerk) */
  canRecordPayment: boolean;
  lines: LedgerLine[];
  openBills: OpenBill[];
};

const MAX_PAYMENT_CENTS = 99_999_999;

const EXCESS_BALANCES = `WITH ${openItemsSql("$1::uuid[]", "$2::timestamptz", "excess")},
       past AS (SELECT o.account_id, sum(o.unpaid) AS cents FROM open o JOIN acc ON acc.id = o.account_id
                 WHERE o.unpaid > 0 AND (o.kind IN ('PENALTY', 'INTEREST') OR (o.kind = 'BILL' AND o.due_on < acc.today)) GROUP BY o.account_id),
       total AS (SELECT account_id, sum(amount) AS cents FROM items GROUP BY account_id)
       SELECT acc.id, coalesce(past.cents, 0)::bigint::text AS past_due, coalesce(total.cents, 0)::bigint::text AS balance
         FROM acc LEFT JOIN past ON past.account_id = acc.id LEFT JOIN total ON total.account_id = acc.id`;

/** The owner's excess balances of many properties in one statement whatever their number (past due: isPastDue's rule, as accounts'). */
export async function excessBalances(db: Db, propertyIds: string[]): Promise<Map<string, { balanceCents: number; pastDueCents: number }>> {
  const ids = [...new Set(propertyIds.filter(isUuid))];
  const out = new Map<string, { balanceCents: number; pastDueCents: number }>();
  if (!ids.length) return out;
  const rows: any[] = await db.query(EXCESS_BALANCES, [ids, clock.now()]);
  for (const r of rows) out.set(r.id, { balanceCents: Number(r.balance), pastDueCents: Number(r.past_due) });
  return out;
}

/** "Owner's excess bills, 12 Main Street, Huron 13600 (tax parcel 1.2-3)", by property id, in one statement. */
export async function excessTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  const valid = ids.filter(isUuid);
  if (!valid.length) return new Map();
  const rows: any[] = await db.query(`SELECT p.id, p.tax_parcel, p.street_number, p.street, p.city, p.zip FROM sewer_property p WHERE p.id = ANY($1::uuid[])`, [valid]);
  return new Map(rows.map((r) => [r.id, `Owner's excess bills, ${addressOf(r)} (tax parcel ${r.tax_parcel})`]));
}

/**
 * The property's row with its district's zone and whether it has an issued excess bill; NOT_FOUND
 * unless the viewer is its district's staff or its owner of record (`staffOnly`: staff only).
 * VI-4 makes the rents a lien on the property: its owner of record reads and pays the property's
 * whole excess balance.
 */
async function excessRow(db: Db, viewer: Viewer, propertyId: string, opts: { lock?: boolean; staffOnly?: boolean } = {}): Promise<any> {
  if (!isUuid(propertyId)) throw notFound("That property");
  const [r] = await db.query(
    `SELECT p.id, p.district_id, p.owner_user_id, p.owner_name, d.time_zone,
            EXISTS (SELECT 1 FROM bill b WHERE b.property_id = p.id AND b.kind = 'OWNER_EXCESS' AND b.status = 'ISSUED') AS has_excess
       FROM sewer_property p JOIN district d ON d.id = p.district_id WHERE p.id = $1 ${opts.lock ? "FOR UPDATE OF p" : ""}`,
    [propertyId],
  );
  if (!r) throw notFound("That property");
  if (isStaff(viewer, r.district_id)) return r;
  if (!opts.staffOnly && r.owner_user_id === viewer.userId) return r;
  throw notFound("That property");
}

/** The property's owner's excess balance and history: its owner of record and its district's staff; NOT_FOUND for anyone else. */
export async function ownersExcessMoney(db: Db, viewer: Viewer, propertyId: string): Promise<ExcessMoney> {
  const p = await excessRow(db, viewer, propertyId);
  const balance = (await excessBalances(db, [p.id])).get(p.id)!;
  return {
    propertyId: p.id,
    districtId: p.district_id,
    title: (await excessTitles(db, [p.id])).get(p.id)!,
    ownerName: p.owner_name,
    asOf: dateIn(p.time_zone),
    ...balance,
    canPay: p.owner_user_id === viewer.userId,
    canRecordPayment: hasRole(viewer, "CLERK", p.district_id),
    lines: await balanceLines(db, "excess", p.id),
    openBills: openBillsOf(await openItems(db, [p.id], { of: "excess" })),
  };
}

/**
 * A PENDING payment toward the property's owner's excess bills, inside the caller's transaction:
 * any amount from a cent up (a part, all, or more: a credit the next excess bill uses first).
 * The line cites Huron VI-2 (the excess charged to the owner).
 */
export async function createExcessPayment(tx: EntityManager, actor: Actor, input: { propertyId: string; payerId: string; amountCents: number }): Promise<Payment> {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1 || input.amountCents > MAX_PAYMENT_CENTS)
    throw badInput({ amountCents: `Enter an amount from $0.01 to ${formatCents(MAX_PAYMENT_CENTS)}.` });
  const district = await tx.getRepository(District).findOneByOrFail({ id: (await tx.query(`SELECT district_id FROM sewer_property WHERE id = $1`, [input.propertyId]))[0].district_id });
  const rb = await rulebookOn(tx, district);
  const title = (await excessTitles(tx, [input.propertyId])).get(input.propertyId)!;
  return createPayment(tx, actor, {
    districtId: district.id,
    payerId: input.payerId,
    payableType: OWNERS_EXCESS_PAYABLE,
    payableId: input.propertyId,
    lines: [{ code: "sewer-rent", label: `Payment toward the ${title[0].toLowerCase()}${title.slice(1)}`.slice(0, 200), section: rb.entry("billing.minimumPerUserBehindMeter").section, amountCents: input.amountCents, refundable: false }],
    rulebookVersionId: rb.version.id,
  });
}

/**
 * The owner of record pays toward the property's excess bills online (the payment page, then
 * Stripe Checkout on the district's account or the test checkout): the amount they choose, the
 * balance when they choose none. A pending payment of theirs for the same amount is reused.
 */
export async function payOwnersExcess(ds: DataSource, viewer: Viewer, input: { propertyId: string; amountCents?: number | null }, meta: Meta): Promise<Payment> {
  return ds.transaction(async (tx) => {
    const p = await excessRow(tx, viewer, input.propertyId, { lock: true });
    if (p.owner_user_id !== viewer.userId) throw forbidden("Only the property's owner of record pays its owner's excess bills online; the Town Clerk records payments at the counter.");
    if (!p.has_excess) throw conflict("This property has no owner's excess bill.");
    let amount = input.amountCents ?? null;
    if (amount === null) {
      const b = (await excessBalances(tx, [p.id])).get(p.id)!;
      if (b.balanceCents <= 0) throw conflict(b.balanceCents < 0 ? `Nothing is due: the owner's excess bills have a credit of ${formatCents(-b.balanceCents)}.` : "Nothing is due on the owner's excess bills.");
      amount = b.balanceCents;
    }
    const [pending] = await tx.query(
      `SELECT id FROM payment WHERE payable_type = $1 AND payable_id = $2 AND payer_id = $3 AND status = 'PENDING' AND amount_cents = $4 ORDER BY created_at DESC LIMIT 1`,
      [OWNERS_EXCESS_PAYABLE, p.id, viewer.userId, amount],
    );
    if (pending) return tx.findOneByOrFail(Payment, { id: pending.id });
    return createExcessPayment(tx, actorOf(viewer, meta.requestId), { propertyId: p.id, payerId: viewer.userId, amountCents: amount });
  });
}

/**
 * The Town Clerk records cash or a check taken at the counter toward the property's owner's excess
 * bills: payment, receipt number, posting and receipt email in one transaction. The payer on
 * record is the owner of record when they have a sign-in (they get the receipt), else the Clerk.
 */
export async function recordOwnersExcessCounterPayment(
  ds: DataSource,
  viewer: Viewer,
  input: { propertyId: string; amountCents: number; method: string; checkNumber?: string | null },
  meta: Meta & { publicUrl?: string },
): Promise<Payment> {
  const [found] = isUuid(input.propertyId) ? await ds.query(`SELECT district_id FROM sewer_property WHERE id = $1`, [input.propertyId]) : [];
  if (!found || !isStaff(viewer, found.district_id)) throw notFound("That property");
  if (!hasRole(viewer, "CLERK", found.district_id)) throw forbidden("Only the Town Clerk records payments taken at the counter.");
  const checkNumber = checkCounterPayment(input);
  return ds.transaction(async (tx) => {
    const p = await excessRow(tx, viewer, input.propertyId, { lock: true, staffOnly: true });
    if (!p.has_excess) throw conflict("This property has no owner's excess bill.");
    const actor = actorOf(viewer, meta.requestId);
    const payment = await createExcessPayment(tx, actor, { propertyId: p.id, payerId: p.owner_user_id ?? viewer.userId, amountCents: input.amountCents });
    return markCounterPaid(tx, payment, { method: input.method, checkNumber, actor, publicUrl: meta.publicUrl, details: { propertyId: p.id, ownersExcess: true } });
  });
}

/** Posts a paid payment to the property's owner's excess balance, keyed by the property and never by an account. */
export const postExcessPayment = (tx: EntityManager, payment: Payment) => postPaymentTo(tx, "excess", payment);

registerPayable(OWNERS_EXCESS_PAYABLE, {
  onPaid: postExcessPayment,
  async title(id: string, db: Db) {
    return (await excessTitles(db, [id])).get(id) ?? "Owner's excess bills";
  },
  titles: (ids: string[], db: Db) => excessTitles(db, ids),
  href: () => "/properties/bills",
});

import type { DataSource, EntityManager } from "typeorm";
import type { Actor } from "../audit/audit.service.js";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { isUuid } from "../documents/documents.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { Payment } from "../payments/payments.service.js";
import { markPaid } from "../payments/receipts.js";
import { accountRow, actorOf, ownersAccount, type Meta } from "./common.js";
import { SEWER_ACCOUNT_PAYABLE, accountBalances, createAccountPayment, isPastDue, openItems, type AccountBalance, type Db, type OpenItem } from "./ledger.js";

/**
 * An account's money (issue 14): what its occupant, its owner of record and its district's staff
 * read (balance, past due, bills, payments, late charges), paying online toward the balance and the
 * Town Clerk's counter payments. The late charges are late-charges.service.ts's; a property's
 * owner's excess bills (Huron VI-2) share the history, the open bills and the counter's checks.
 */

export type LedgerLine = {
  on: CalendarDate;
  kind: "BILL" | "PAYMENT" | "PENALTY" | "INTEREST" | "VIOLATION" | "REFUND";
  description: string;
  section: string | null;
  amountCents: number;
  balanceCents: number;
  billId: string | null;
  paymentId: string | null;
};
export type OpenBill = { billId: string; number: string; mailedOn: CalendarDate; dueOn: CalendarDate; totalCents: number; unpaidCents: number; lateChargesUnpaidCents: number; pastDue: boolean };
export type AccountMoney = AccountBalance & {
  accountNumber: string;
  districtId: string;
  /** today in the district's zone */
  asOf: CalendarDate;
  /** may the viewer pay it online (its occupant or owner of record) */
  canPay: boolean;
  /** may the viewer record counter payments (the district's Town Clerk) */
  canRecordPayment: boolean;
  lines: LedgerLine[];
  openBills: OpenBill[];
};

/**
 * The bills and entries of a balance (an account's, or a property's owner's excess bills), oldest
 * first, with the running balance: the latest 500, in one statement.
 */
export async function balanceLines(db: Db, of: "account" | "excess", id: string): Promise<LedgerLine[]> {
  const [bills, billWord, column] =
    of === "account" ? ["b.account_id = $1", "Sewer bill ", "account_id"] : ["b.property_id = $1 AND b.kind = 'OWNER_EXCESS'", "Owner''s excess bill ", "excess_property_id"];
  const rows: any[] = await db.query(
    `SELECT * FROM (
       SELECT x.*, sum(x.amount) OVER (ORDER BY x.on_date, x.at, x.part, x.tie) AS balance,
              row_number() OVER (ORDER BY x.on_date DESC, x.at DESC, x.part DESC, x.tie DESC) AS back
         FROM (
           SELECT b.mailed_on::text AS on_date, 'BILL' AS kind, 0 AS part,
                  '${billWord}' || b.number || ', ' || to_char(b.served_from, 'FMMonth FMDD, YYYY') || ' to ' || to_char(b.served_to, 'FMMonth FMDD, YYYY') AS description,
                  NULL::text AS section, b.total_cents AS amount, b.id AS bill_id, NULL::uuid AS payment_id, b.issued_at AS at, b.number AS tie
             FROM bill b WHERE ${bills} AND b.status = 'ISSUED'
           UNION ALL
           SELECT e.effective_on::text, e.kind, CASE e.kind WHEN 'PENALTY' THEN 1 WHEN 'INTEREST' THEN 2 WHEN 'VIOLATION' THEN 3 ELSE 4 END,
                  e.description, e.section, e.amount_cents, e.bill_id, e.payment_id, e.created_at, e.id::text
             FROM account_ledger_entry e WHERE e.${column} = $1
         ) x
     ) y WHERE y.back <= 500
     ORDER BY y.on_date, y.at, y.part, y.tie`,
    [id],
  );
  return rows.map((r) => ({
    on: r.on_date,
    kind: r.kind,
    description: r.description,
    section: r.section,
    amountCents: r.amount,
    balanceCents: Number(r.balance),
    billId: r.bill_id,
    paymentId: r.payment_id,
  }));
}

/** The bills with something unpaid, each with its late charges unpaid. */
export const openBillsOf = (items: OpenItem[]): OpenBill[] => {
  const bills = new Map<string, OpenBill>();
  for (const i of items) {
    if (!i.billId) continue;
    if (i.kind === "BILL")
      bills.set(i.billId, { billId: i.billId, number: i.number!, mailedOn: i.onDate, dueOn: i.dueOn, totalCents: i.amountCents, unpaidCents: i.unpaidCents, lateChargesUnpaidCents: 0, pastDue: isPastDue(i) && i.unpaidCents > 0 });
    else {
      const b = bills.get(i.billId);
      if (b) {
        b.lateChargesUnpaidCents += i.unpaidCents;
        if (i.unpaidCents > 0) b.pastDue = true;
      }
    }
  }
  return [...bills.values()].filter((b) => b.unpaidCents + b.lateChargesUnpaidCents > 0);
};

/** An account's money: its occupant, its owner of record (their ownership's accounts) and its district's staff; NOT_FOUND for anyone else. */
export async function accountMoney(db: Db, viewer: Viewer, accountId: string): Promise<AccountMoney> {
  const a = await accountRow(db, viewer, accountId);
  const balance = (await accountBalances(db, [a.id])).get(a.id)!;
  const items = await openItems(db, [a.id]);
  return {
    ...balance,
    accountNumber: a.account_number,
    districtId: a.district_id,
    asOf: dateIn(a.time_zone),
    canPay: mayPay(viewer, a),
    canRecordPayment: hasRole(viewer, "CLERK", a.district_id),
    lines: await balanceLines(db, "account", a.id),
    openBills: openBillsOf(items),
  };
}

const mayPay = (viewer: Viewer, a: any) => a.occupant_user_id === viewer.userId || (a.owner_user_id === viewer.userId && ownersAccount(a.closed_on, a.owner_from));

/**
 * The occupant or the owner of record pays toward the balance online (the payment page, then
 * Stripe Checkout or the test checkout): the amount they choose, the balance when they choose
 * none. A pending payment of theirs for the same amount is reused, so a double click makes one.
 */
export async function payServiceAccount(ds: DataSource, viewer: Viewer, input: { accountId: string; amountCents?: number | null }, meta: Meta): Promise<Payment> {
  return ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true });
    if (!mayPay(viewer, a)) throw forbidden("Only the account's occupant or the property's owner of record pays its balance online; the Town Clerk records payments at the counter.");
    let amount = input.amountCents ?? null;
    if (amount === null) {
      const b = (await accountBalances(tx, [a.id])).get(a.id)!;
      if (b.balanceCents <= 0) throw conflict(b.balanceCents < 0 ? `Nothing is due: the account has a credit of ${formatCents(-b.balanceCents)}.` : "Nothing is due on this account.");
      amount = b.balanceCents;
    }
    const [pending] = await tx.query(
      `SELECT id FROM payment WHERE payable_type = $1 AND payable_id = $2 AND payer_id = $3 AND status = 'PENDING' AND amount_cents = $4 ORDER BY created_at DESC LIMIT 1`,
      [SEWER_ACCOUNT_PAYABLE, a.id, viewer.userId, amount],
    );
    if (pending) return tx.findOneByOrFail(Payment, { id: pending.id });
    return createAccountPayment(tx, actorOf(viewer, meta.requestId), { accountId: a.id, payerId: viewer.userId, amountCents: amount });
  });
}

/**
 * The Town Clerk records money taken at the counter (cash, or a check with its number) against an
 * account, any amount: one transaction makes the payment, marks it paid with the next receipt
 * number (api/payments receipts), posts the credit and emails the receipt. The payer on record is
 * the account's occupant, else the owner of record, when they have a sign-in (they get the
 * receipt); else the Clerk, who prints it.
 */
export async function recordAccountCounterPayment(
  ds: DataSource,
  viewer: Viewer,
  input: { accountId: string; amountCents: number; method: string; checkNumber?: string | null },
  meta: Meta & { publicUrl?: string },
): Promise<Payment> {
  const [found] = isUuid(input.accountId) ? await ds.query(`SELECT district_id FROM service_account WHERE id = $1`, [input.accountId]) : [];
  if (!found || !isStaff(viewer, found.district_id)) throw notFound("That account");
  if (!hasRole(viewer, "CLERK", found.district_id)) throw forbidden("Only the Town Clerk records payments taken at the counter.");
  const checkNumber = checkCounterPayment(input);
  return ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true, staffOnly: true });
    const actor = actorOf(viewer, meta.requestId);
    const payerId = a.occupant_user_id ?? a.owner_user_id ?? viewer.userId;
    const p = await createAccountPayment(tx, actor, { accountId: a.id, payerId, amountCents: input.amountCents });
    return markCounterPaid(tx, p, { method: input.method, checkNumber, actor, publicUrl: meta.publicUrl, details: { accountId: a.id } });
  });
}

/** A counter payment's method, check number and amount, every problem at once; returns the check number (null for cash). */
export function checkCounterPayment(input: { amountCents: number; method: string; checkNumber?: string | null }): string | null {
  const fields: Record<string, string> = {};
  const checkNumber = String(input.checkNumber ?? "").trim();
  if (input.method !== "cash" && input.method !== "check") fields.method = "Choose cash or check.";
  if (input.method === "check" && !checkNumber) fields.checkNumber = "Enter the check number.";
  if (checkNumber.length > 40) fields.checkNumber = "A check number has at most 40 characters.";
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1 || input.amountCents > 99_999_999) fields.amountCents = "Enter an amount from $0.01 to $999,999.99.";
  if (Object.keys(fields).length) throw badInput(fields);
  return input.method === "check" ? checkNumber : null;
}

/** Marks money taken at the counter paid, in the caller's transaction: the receipt number, the posting (the payable's) and the receipt email. */
export function markCounterPaid(
  tx: EntityManager,
  payment: Payment,
  c: { method: string; checkNumber: string | null; actor: Actor; publicUrl?: string; details: Record<string, unknown> },
): Promise<Payment> {
  return markPaid(tx, payment, {
    provider: "counter",
    method: c.method as "cash" | "check",
    checkNumber: c.checkNumber,
    sessionId: null,
    paymentIntent: null,
    actor: c.actor,
    publicUrl: c.publicUrl,
    details: { counter: true, ...c.details },
  });
}

/** The payments posted to an account, newest first (for the pages' list with receipts). One statement. */
export async function accountPayments(db: Db, viewer: Viewer, accountId: string): Promise<Payment[]> {
  const a = await accountRow(db, viewer, accountId);
  return db
    .getRepository(Payment)
    .createQueryBuilder("p")
    .where("p.payable_type = :t AND p.payable_id = :id AND p.status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')", { t: SEWER_ACCOUNT_PAYABLE, id: a.id })
    .orderBy("p.paid_at", "DESC")
    .limit(100)
    .getMany();
}

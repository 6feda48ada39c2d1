import type { DataSource, EntityManager } from "typeorm";
import { audit, type Actor } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { queryPrepared } from "../db/prepared.js";
import { isUuid } from "../documents/documents.service.js";
import { Payment, createPayment, registerPayable } from "../payments/payments.service.js";

/**
 * An account's money after its bills are issued (issue 14): the balance is the account's issued
 * bills plus its ledger entries (payments received, late penalty and interest, money paid back);
 * what each bill still owes comes from applying every credit to the oldest bill first, in one SQL
 * statement (docs/decisions/account-balance-oldest-bill-first.md). This file is the contract other
 * features use (quick pay, autopay): the payable type, balances, and a payment toward a balance.
 */

export type Db = DataSource | EntityManager;

/** The payable type of a payment toward a sewer account's balance; its id is the account's id. */
export const SEWER_ACCOUNT_PAYABLE = "SewerAccount";

export type AccountBalance = {
  accountId: string;
  /** > 0 owed, < 0 a credit on the account (overpayment) */
  balanceCents: number;
  /** the part of the balance past its due date (late charges are past due from the day they are added) */
  pastDueCents: number;
  lastBill: { id: string; number: string; periodFrom: string; periodTo: string; mailedOn: string; dueOn: string; totalCents: number } | null;
};

/** One debit of an account (a bill, or a late charge or money paid back) and what of it is unpaid after every credit went to the oldest debits first. */
export type OpenItem = {
  accountId: string;
  districtId: string;
  billId: string | null;
  kind: "BILL" | "PENALTY" | "INTEREST" | "REFUND";
  number: string | null;
  /** the bill's mailing (billing) date, or the entry's day */
  onDate: CalendarDate;
  /** the bill's due date, or the entry's day */
  dueOn: CalendarDate;
  amountCents: number;
  unpaidCents: number;
  /** the district's today on the rules' clock */
  today: CalendarDate;
  rulebookVersionId: string | null;
};

/**
 * Every debit of the accounts `ids` (an SQL uuid[]: `$1` unless given) with its unpaid part as of
 * `now` (`$2`): the common table expressions `acc` (each account's district and today), `items`,
 * `credit`, `debits` and `open`. `of: "excess"`: the same over properties' owner's excess balances
 * (Huron VI-2: the OWNER_EXCESS bills of the property `ids` and the entries keyed by
 * excess_property_id; docs/decisions/huron-owners-excess-bill-paying.md), each row's account_id
 * then the property's id.
 */
export const openItemsSql = (ids = "$1::uuid[]", now = "$2::timestamptz", of: "account" | "excess" = "account") => {
  const x = of === "excess";
  return `acc AS (
       ${x ? `SELECT p.id, p.district_id, (${now} AT TIME ZONE d.time_zone)::date AS today
         FROM sewer_property p JOIN district d ON d.id = p.district_id WHERE p.id = ANY(${ids})` : `SELECT a.id, a.district_id, (${now} AT TIME ZONE d.time_zone)::date AS today
         FROM service_account a JOIN district d ON d.id = a.district_id WHERE a.id = ANY(${ids})`}
     ), items AS (
       SELECT ${x ? "b.property_id" : "b.account_id"} AS account_id, b.id AS bill_id, 'BILL' AS kind, b.number, b.mailed_on AS on_date, b.due_on, 0 AS part, b.id::text AS tie,
              b.total_cents AS amount, b.rulebook_version_id
         FROM bill b WHERE ${x ? `b.property_id = ANY(${ids}) AND b.kind = 'OWNER_EXCESS'` : `b.account_id = ANY(${ids})`} AND b.status = 'ISSUED'
       UNION ALL
       SELECT ${x ? "e.excess_property_id" : "e.account_id"}, e.bill_id, e.kind, b.number, coalesce(b.mailed_on, e.effective_on), e.effective_on,
              CASE e.kind WHEN 'PENALTY' THEN 1 WHEN 'INTEREST' THEN 2 ELSE 3 END, e.id::text, e.amount_cents, b.rulebook_version_id
         FROM account_ledger_entry e LEFT JOIN bill b ON b.id = e.bill_id WHERE ${x ? "e.excess_property_id" : "e.account_id"} = ANY(${ids}) AND e.amount_cents <> 0
     ), credit AS (
       SELECT account_id, -sum(amount) AS cents FROM items WHERE amount < 0 GROUP BY account_id
     ), debits AS (
       SELECT i.*, coalesce(sum(i.amount) OVER (PARTITION BY i.account_id ORDER BY i.on_date, i.number NULLS LAST, i.part, i.tie
                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
         FROM items i WHERE i.amount > 0
     ), open AS (
       SELECT d.*, d.amount - least(d.amount, greatest(0, coalesce(c.cents, 0) - d.before)) AS unpaid
         FROM debits d LEFT JOIN credit c ON c.account_id = d.account_id
     )`;
};

/**
 * Every debit of the accounts with its unpaid part (`onlyUnpaid`: those with something unpaid; `of:
 * "excess"`: of the properties' owner's excess balances, each item's accountId the property's id),
 * in one statement whatever their number. Debits are ordered by their bill's billing date (a late
 * charge sits behind its bill: the bill, then its penalty, then its interest), and the sum of the
 * credits (payments, credit bills) covers them in that order.
 */
export async function openItems(db: Db, accountIds: string[], opts: { onlyUnpaid?: boolean; of?: "account" | "excess" } = {}): Promise<OpenItem[]> {
  if (!accountIds.length) return [];
  const rows: any[] = await db.query(
    `WITH ${openItemsSql(undefined, undefined, opts.of)}
     SELECT o.account_id, acc.district_id, o.bill_id, o.kind, o.number, o.on_date::text AS on_date, o.due_on::text AS due_on, o.amount::int AS amount,
            o.unpaid::int AS unpaid, acc.today::text AS today, o.rulebook_version_id
       FROM open o JOIN acc ON acc.id = o.account_id
      ${opts.onlyUnpaid ? "WHERE o.unpaid > 0" : ""}
      ORDER BY o.account_id, o.on_date, o.number NULLS LAST, o.part, o.tie`,
    [accountIds, clock.now()],
  );
  return rows.map((r) => ({
    accountId: r.account_id,
    districtId: r.district_id,
    billId: r.bill_id,
    kind: r.kind,
    number: r.number,
    onDate: r.on_date,
    dueOn: r.due_on,
    amountCents: r.amount,
    unpaidCents: r.unpaid,
    today: r.today,
    rulebookVersionId: r.rulebook_version_id,
  }));
}

/** Whether an unpaid item counts as past due today: a bill after its due date; a late charge from the day it is added. */
export const isPastDue = (i: Pick<OpenItem, "kind" | "dueOn" | "today">) => (i.kind === "PENALTY" || i.kind === "INTEREST" ? true : i.kind === "BILL" && i.dueOn < i.today);

/**
 * SQL, a LATERAL subquery of one row: `balance` and `past_due` (bigint) of the account `id` (an SQL
 * uuid) as of `today` (an SQL date), by openItemsSql's rule and isPastDue's in one pass over the
 * account's items. With the credits sorted before the debits (these in openItemsSql's order), the
 * running total at a debit is what is owed up to and with it less all the credit: the debit's
 * unpaid part is that total held between 0 and its amount. One window and one aggregate (23 plan
 * nodes with the last bill, where openItemsSql's CTEs and their joins took 36: docs/benchmarks.md).
 */
const balanceOfSql = (id: string, today: string) => `SELECT coalesce(sum(o.amount), 0)::bigint AS balance,
         coalesce(sum(least(o.amount, greatest(0, o.running)))
                    FILTER (WHERE o.amount > 0 AND (o.kind IN ('PENALTY', 'INTEREST') OR (o.kind = 'BILL' AND o.due_on < ${today}))), 0)::bigint AS past_due
    FROM (SELECT i.kind, i.due_on, i.amount,
                 sum(i.amount) OVER (ORDER BY i.amount > 0, i.on_date, i.number NULLS LAST, i.part, i.tie ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running
            FROM (SELECT 'BILL' AS kind, b.number, b.mailed_on AS on_date, b.due_on, 0 AS part, b.id::text AS tie, b.total_cents AS amount
                    FROM bill b WHERE b.account_id = ${id} AND b.status = 'ISSUED'
                  UNION ALL
                  SELECT e.kind, b.number, coalesce(b.mailed_on, e.effective_on), e.effective_on, CASE e.kind WHEN 'PENALTY' THEN 1 WHEN 'INTEREST' THEN 2 ELSE 3 END, e.id::text, e.amount_cents
                    FROM account_ledger_entry e LEFT JOIN bill b ON b.id = e.bill_id WHERE e.account_id = ${id} AND e.amount_cents <> 0) i) o`;

/**
 * SQL: the columns of an account's balance (toBalance's) and the joins that make them, for the
 * account row `a` and its district `d` as of `now` (an SQL timestamptz): `balance`, `past_due` and
 * the last issued bill (`bill_id`, `number`, `period_start`, `period_end`, `mailed_on`, `due_on`,
 * `total_cents`).
 */
export const BALANCE_COLUMNS = `bal.balance::text AS balance, bal.past_due::text AS past_due,
       lb.id AS bill_id, lb.number, lb.period_start::text AS period_start, lb.period_end::text AS period_end,
       lb.mailed_on::text AS mailed_on, lb.due_on::text AS due_on, lb.total_cents`;
export const balanceJoinsSql = (now: string, a = "a", d = "d") => `CROSS JOIN LATERAL (${balanceOfSql(`${a}.id`, `(${now} AT TIME ZONE ${d}.time_zone)::date`)}) bal
  LEFT JOIN LATERAL (SELECT b.id, b.number, b.period_start, b.period_end, b.mailed_on, b.due_on, b.total_cents FROM bill b
                      WHERE b.account_id = ${a}.id AND b.status = 'ISSUED' ORDER BY b.period_start DESC, b.mailed_on DESC LIMIT 1) lb ON true`;

/**
 * SQL: one row a valid account of `ids` (an SQL uuid[]) with its balance as of `now` (an SQL
 * timestamptz): `id` and BALANCE_COLUMNS. A query of its own, to run alone or as a common table
 * expression of another.
 */
export const balancesSql = (ids: string, now: string) => `SELECT a.id, ${BALANCE_COLUMNS}
  FROM service_account a JOIN district d ON d.id = a.district_id
  ${balanceJoinsSql(now)}
 WHERE a.id = ANY(${ids})`;

/** An account's balance from a row of balancesSql. */
export const toBalance = (r: any): AccountBalance => ({
  accountId: r.id,
  balanceCents: Number(r.balance),
  pastDueCents: Number(r.past_due),
  lastBill: r.bill_id
    ? { id: r.bill_id, number: r.number, periodFrom: r.period_start, periodTo: r.period_end, mailedOn: r.mailed_on, dueOn: r.due_on, totalCents: r.total_cents }
    : null,
});

const BALANCES = balancesSql("$1::uuid[]", "$2::timestamptz");

/** Balances of many accounts in one statement whatever their number (an account with nothing billed has a zero balance). */
export async function accountBalances(db: Db, accountIds: string[]): Promise<Map<string, AccountBalance>> {
  const ids = [...new Set(accountIds.filter(isUuid))];
  const out = new Map<string, AccountBalance>();
  if (!ids.length) return out;
  const rows: any[] = await queryPrepared(db, BALANCES, [ids, clock.now()]);
  for (const r of rows) out.set(r.id, toBalance(r));
  return out;
}

/** Stripe Checkout's largest amount in USD, as api/payments allows. */
const MAX_PAYMENT_CENTS = 99_999_999;

/** "Sewer account LKV-000123, 12 Main Street, Lakeview 13600". */
export async function accountTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  const valid = ids.filter(isUuid);
  if (!valid.length) return new Map();
  const rows: any[] = await db.query(
    `SELECT a.id, a.account_number, p.street_number, p.street, p.city, p.zip FROM service_account a JOIN sewer_property p ON p.id = a.property_id WHERE a.id = ANY($1::uuid[])`,
    [valid],
  );
  return new Map(rows.map((r) => [r.id, `Sewer account ${r.account_number}, ${r.street_number ? `${r.street_number} ` : ""}${r.street}${r.city ? `, ${r.city}` : ""} ${r.zip}`]));
}

/**
 * A PENDING payment (api/payments createPayment) toward the account's balance, inside the caller's
 * transaction. Any amount from a cent up: a part of the balance, all of it, or more (an
 * overpayment is a credit on the account). payerId null: quick pay without sign-in (the caller
 * gives the payment its access token). The line cites the law the rents are due under.
 */
export async function createAccountPayment(tx: EntityManager, actor: Actor, input: { accountId: string; payerId: string | null; amountCents: number }): Promise<Payment> {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1 || input.amountCents > MAX_PAYMENT_CENTS)
    throw badInput({ amountCents: `Enter an amount from $0.01 to ${formatCents(MAX_PAYMENT_CENTS)}.` });
  const [a] = isUuid(input.accountId) ? await tx.query(`SELECT id, district_id FROM service_account WHERE id = $1`, [input.accountId]) : [];
  if (!a) throw notFound("That account");
  const district = await tx.getRepository(District).findOneByOrFail({ id: a.district_id });
  const rb = await rulebookOn(tx, district);
  const title = (await accountTitles(tx, [a.id])).get(a.id)!;
  return createPayment(tx, actor, {
    districtId: district.id,
    // Quick pay has no signed-in payer (payment.payer_id is nullable since migration 1766860000000).
    payerId: input.payerId as string,
    payableType: SEWER_ACCOUNT_PAYABLE,
    payableId: a.id,
    lines: [{ code: "sewer-rent", label: `Payment toward the balance of ${title}`.slice(0, 200), section: rentSection(rb), amountCents: input.amountCents, refundable: false }],
    rulebookVersionId: rb.version.id,
  });
}

/** The section the rents are due under: SUL 1203 (user charges) where accounts are assessed in EDUs; Huron VI-2 (rents imposed on users) elsewhere. */
function rentSection(rb: Rulebook): string {
  const edu = rb.entry("billing.eduAssessment");
  return edu.value === true ? edu.section : rb.entry("billing.minimumPerUserBehindMeter").section;
}

/**
 * Posts a paid payment to the balance its payable names (an account's, or a property's owner's
 * excess bills'): a credit of the amount paid, dated the day it was paid in the district's zone,
 * once (the entry's unique key is the payment's). Partial payments and overpayments simply land on
 * the balance.
 */
export async function postPaymentTo(tx: EntityManager, of: "account" | "excess", payment: Payment): Promise<void> {
  const [d] = await tx.query(`SELECT time_zone FROM district WHERE id = $1`, [payment.districtId]);
  const paidOn = dateIn(d.time_zone, payment.paidAt ?? clock.now());
  const how = payment.method === "cash" ? "cash" : payment.method === "check" ? `check no. ${payment.checkNumber}` : "card";
  const [column, table, action, entityType] =
    of === "account"
      ? ["account_id", "service_account", "rents.payment_posted", "ServiceAccount"]
      : ["excess_property_id", "sewer_property", "rents.owners_excess_payment_posted", "SewerProperty"];
  const inserted: any[] = await tx.query(
    `INSERT INTO account_ledger_entry (district_id, ${column}, kind, amount_cents, payment_id, effective_on, description, unique_key)
     SELECT x.district_id, x.id, 'PAYMENT', $2, $3, $4, $5, $6 FROM ${table} x WHERE x.id = $1 AND x.district_id = $7
     ON CONFLICT (unique_key) DO NOTHING RETURNING id`,
    [payment.payableId, -payment.amountCents, payment.id, paidOn, `Payment received, receipt ${payment.receiptNumber} (${how})`, `payment:${payment.id}`, payment.districtId],
  );
  if (!inserted.length) return;
  await audit(tx, { userId: null }, {
    action,
    entityType,
    entityId: payment.payableId,
    districtId: payment.districtId,
    details: { paymentId: payment.id, amountCents: payment.amountCents, receiptNumber: payment.receiptNumber, effectiveOn: paidOn },
  });
}

/** Posts a paid payment to its account. */
export const postPayment = (tx: EntityManager, payment: Payment) => postPaymentTo(tx, "account", payment);

registerPayable(SEWER_ACCOUNT_PAYABLE, {
  onPaid: postPayment,
  async title(id: string, db: Db) {
    return (await accountTitles(db, [id])).get(id) ?? "Sewer account";
  },
  titles: (ids: string[], db: Db) => accountTitles(db, ids),
  href: () => "/properties/bills",
});

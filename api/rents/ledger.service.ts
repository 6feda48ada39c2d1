import type { DataSource, EntityManager } from "typeorm";
import type { Logger } from "pino";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { isUuid } from "../documents/documents.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookById } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { enqueueEmails, type EmailDraft } from "../outbox/outbox.service.js";
import { Payment } from "../payments/payments.service.js";
import { markPaid } from "../payments/receipts.js";
import { accountRow, actorOf, ownersAccount, type Meta } from "./common.js";
import { SEWER_ACCOUNT_PAYABLE, accountBalances, createAccountPayment, isPastDue, openItems, type AccountBalance, type Db, type OpenItem } from "./ledger.js";
import { lateChargesDue, type LateCharge } from "./ledger.rules.js";
import { postExcessLateCharges } from "./owners-excess.js";

/**
 * An account's money (issue 14): what its occupant, its owner of record and its district's staff
 * read (balance, past due, bills, payments, late charges), paying online toward the balance, the
 * Town Clerk's counter payments, and the job that adds the law's late charges on their day.
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

/** The bills and entries of an account, oldest first, with the running balance: the latest 500, in one statement. */
async function ledgerLines(db: Db, accountId: string): Promise<LedgerLine[]> {
  const rows: any[] = await db.query(
    `SELECT * FROM (
       SELECT x.*, sum(x.amount) OVER (ORDER BY x.on_date, x.at, x.part, x.tie) AS balance,
              row_number() OVER (ORDER BY x.on_date DESC, x.at DESC, x.part DESC, x.tie DESC) AS back
         FROM (
           SELECT b.mailed_on::text AS on_date, 'BILL' AS kind, 0 AS part,
                  'Sewer bill ' || b.number || ', ' || to_char(b.served_from, 'FMMonth FMDD, YYYY') || ' to ' || to_char(b.served_to, 'FMMonth FMDD, YYYY') AS description,
                  NULL::text AS section, b.total_cents AS amount, b.id AS bill_id, NULL::uuid AS payment_id, b.issued_at AS at, b.number AS tie
             FROM bill b WHERE b.account_id = $1 AND b.status = 'ISSUED'
           UNION ALL
           SELECT e.effective_on::text, e.kind, CASE e.kind WHEN 'PENALTY' THEN 1 WHEN 'INTEREST' THEN 2 WHEN 'VIOLATION' THEN 3 ELSE 4 END,
                  e.description, e.section, e.amount_cents, e.bill_id, e.payment_id, e.created_at, e.id::text
             FROM account_ledger_entry e WHERE e.account_id = $1
         ) x
     ) y WHERE y.back <= 500
     ORDER BY y.on_date, y.at, y.part, y.tie`,
    [accountId],
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

const openBillsOf = (items: OpenItem[]): OpenBill[] => {
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
    lines: await ledgerLines(db, a.id),
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
  const fields: Record<string, string> = {};
  const checkNumber = String(input.checkNumber ?? "").trim();
  if (input.method !== "cash" && input.method !== "check") fields.method = "Choose cash or check.";
  if (input.method === "check" && !checkNumber) fields.checkNumber = "Enter the check number.";
  if (checkNumber.length > 40) fields.checkNumber = "A check number has at most 40 characters.";
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1 || input.amountCents > 99_999_999) fields.amountCents = "Enter an amount from $0.01 to $999,999.99.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true, staffOnly: true });
    const actor = actorOf(viewer, meta.requestId);
    const payerId = a.occupant_user_id ?? a.owner_user_id ?? viewer.userId;
    const p = await createAccountPayment(tx, actor, { accountId: a.id, payerId, amountCents: input.amountCents });
    return markPaid(tx, p, {
      provider: "counter",
      method: input.method as "cash" | "check",
      checkNumber: input.method === "check" ? checkNumber : null,
      sessionId: null,
      paymentIntent: null,
      actor,
      publicUrl: meta.publicUrl,
      details: { counter: true, accountId: a.id },
    });
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

// ---------------------------------------------------------------------------------------------
// Late charges on the law's day (SUL 1118 via 1210; Huron VI-3), by a job every hour

export const LATE_CHARGES_JOB = "rents.late-charges";
const LATE_BATCH = 1000;

/**
 * For each district, the accounts with an issued bill past its due date, in batches of 1,000 by
 * id; for each batch's accounts that owe something, in one transaction and a fixed number of statements: what each bill still
 * owes (oldest first), the late charges already posted, the new ones inserted once (their unique
 * key), one email per account to the owner of record (else the occupant) saying what was added,
 * and one audit entry. Returns how many charges were posted.
 */
export async function postLateCharges(ds: DataSource, publicUrl: string, log?: Logger): Promise<number> {
  const districts = await ds.getRepository(District).find();
  let posted = 0;
  for (const district of districts) {
    const today = dateIn(district.timeZone);
    let after = "00000000-0000-0000-0000-000000000000";
    for (;;) {
      const rows: { id: string; owes: boolean }[] = await ds.query(
        `SELECT a.id, (coalesce((SELECT sum(b.total_cents) FROM bill b WHERE b.account_id = a.id AND b.status = 'ISSUED'), 0)
                     + coalesce((SELECT sum(e.amount_cents) FROM account_ledger_entry e WHERE e.account_id = a.id), 0)) > 0 AS owes
           FROM service_account a
          WHERE a.district_id = $1 AND a.id > $3 AND EXISTS (SELECT 1 FROM bill b WHERE b.account_id = a.id AND b.status = 'ISSUED' AND b.due_on < $2)
          ORDER BY a.id LIMIT $4`,
        [district.id, today, after, LATE_BATCH],
      );
      if (!rows.length) break;
      after = rows[rows.length - 1].id;
      // Only accounts that owe something can have a late charge due.
      const owing = rows.filter((r) => r.owes).map((r) => r.id);
      if (owing.length) posted += await ds.transaction((tx) => lateChargesForBatch(tx, district, owing, today, publicUrl));
      if (rows.length < LATE_BATCH) break;
    }
    // Huron VI-2's owner's excess bills (no account): the same charges on their own balances.
    posted += await postExcessLateCharges(ds, district, today, publicUrl, log);
  }
  if (posted) log?.info({ posted }, "late charges posted");
  return posted;
}

async function lateChargesForBatch(tx: EntityManager, district: District, ids: string[], today: CalendarDate, publicUrl: string): Promise<number> {
  // Serialise with payments and other runs on these accounts.
  await tx.query(`SELECT id FROM service_account WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
  const items = await openItems(tx, ids);
  const keys: any[] = await tx.query(`SELECT account_id, unique_key FROM account_ledger_entry WHERE account_id = ANY($1::uuid[]) AND kind IN ('PENALTY', 'INTEREST', 'VIOLATION')`, [ids]);
  const postedKeys = new Set<string>(keys.map((k) => k.unique_key));
  const adds: (LateCharge & { accountId: string; billId: string })[] = [];
  for (const i of items) {
    if (i.kind !== "BILL" || i.unpaidCents <= 0 || !i.rulebookVersionId) continue;
    const rb = await rulebookById(tx, i.rulebookVersionId);
    for (const c of lateChargesDue(rb, { id: i.billId!, number: i.number!, totalCents: i.amountCents, mailedOn: i.onDate }, i.unpaidCents, postedKeys, today))
      adds.push({ ...c, accountId: i.accountId, billId: i.billId! });
  }
  if (!adds.length) return 0;
  const inserted: { account_id: string; unique_key: string }[] = await tx.query(
    `INSERT INTO account_ledger_entry (district_id, account_id, kind, amount_cents, bill_id, effective_on, description, section, unique_key)
     SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::int[], $5::uuid[], $6::date[], $7::text[], $8::text[], $9::text[])
     ON CONFLICT (unique_key) DO NOTHING RETURNING account_id, unique_key`,
    [
      district.id,
      adds.map((c) => c.accountId),
      adds.map((c) => c.kind),
      adds.map((c) => c.amountCents),
      adds.map((c) => c.billId),
      adds.map((c) => c.effectiveOn),
      adds.map((c) => c.description),
      adds.map((c) => c.section),
      adds.map((c) => c.key),
    ],
  );
  if (!inserted.length) return 0;
  const done = new Set(inserted.map((r) => r.unique_key));
  const byAccount = new Map<string, LateCharge[]>();
  for (const c of adds) if (done.has(c.key)) (byAccount.get(c.accountId) ?? byAccount.set(c.accountId, []).get(c.accountId)!).push(c);
  // The owner of record (Huron VI-3 bills the owners; VI-4 makes it a lien on the property), else the occupant, when they have a sign-in.
  const who: any[] = await tx.query(
    `SELECT a.id, a.account_number, u.id AS user_id, u.email, u.display_name
       FROM service_account a JOIN sewer_property p ON p.id = a.property_id
       JOIN app_user u ON u.id = coalesce(p.owner_user_id, a.occupant_user_id)
      WHERE a.id = ANY($1::uuid[])`,
    [[...byAccount.keys()]],
  );
  const balances = await accountBalances(tx, [...byAccount.keys()]);
  const drafts: EmailDraft[] = who.map((w) => {
    const charges = byAccount.get(w.id)!;
    const b = balances.get(w.id)!;
    const money = charges.filter((c) => c.amountCents > 0);
    return {
      to: w.email,
      recipientId: w.user_id,
      districtId: district.id,
      kind: "rents.late_charges",
      subject: money.length ? `Sewer account ${w.account_number}: ${formatCents(money.reduce((s, c) => s + c.amountCents, 0))} added for late payment` : `Sewer account ${w.account_number}: unpaid bill in violation`,
      body: [
        `Hello ${w.display_name},`,
        "",
        `${district.name} added to sewer account ${w.account_number}:`,
        ...charges.map((c) => `- ${formatDate(c.effectiveOn)}: ${c.description}${c.amountCents ? `: ${formatCents(c.amountCents)}` : ""} (${c.section})`),
        "",
        `Balance now: ${formatCents(b.balanceCents)}, of which ${formatCents(b.pastDueCents)} is past due.`,
        `Pay online or see the account: ${publicUrl}/properties/bills`,
        "",
      ].join("\n"),
    };
  });
  await enqueueEmails(tx, drafts);
  await audit(tx, { userId: null }, {
    action: "rents.late_charges_posted",
    entityType: "District",
    entityId: district.id,
    districtId: district.id,
    details: { today, accounts: byAccount.size, charges: inserted.length, penalties: inserted.filter((r) => r.unique_key.startsWith("penalty:")).length, violations: inserted.filter((r) => r.unique_key.startsWith("violation:")).length },
  });
  return inserted.length;
}

registerJobHandler(LATE_CHARGES_JOB, async (ds, payload: { publicUrl?: string }, log) => {
  await postLateCharges(ds, payload.publicUrl ?? "", log);
});

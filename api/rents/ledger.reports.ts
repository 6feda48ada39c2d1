import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { dateIn, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { csvCell, statementFor } from "../enforcement/rules.js";
import { addressOf } from "./common.js";
import { openItems } from "./ledger.js";
import { agingBucket } from "./ledger.rules.js";
import { ACCOUNT_CLASSES, CLASS_LABELS, type AccountClass } from "./rules.js";

/**
 * The district's money as its staff read it: receivables by account with their aging (not yet
 * due, 1-30, 31-60, 61-90, over 90 days past due), the receivables and payments exports (CSV,
 * every cell quoted and formulas neutralised as csvCell does), and SUL 1214's annual review
 * figures (billed, collected, outstanding by class) for a fiscal year (SUL 1211). Huron's law
 * asks for no such review and sets no fiscal year: there is none.
 */

const BATCH = 5000;

export type AgingRow = {
  /** the account's id; for an OWNER_EXCESS row the property's */
  accountId: string;
  kind: "ACCOUNT" | "OWNER_EXCESS";
  accountNumber: string;
  occupantName: string;
  ownerName: string;
  address: string;
  class: string;
  balanceCents: number;
  currentCents: number;
  days30Cents: number;
  days60Cents: number;
  days90Cents: number;
  over90Cents: number;
};
export type AnnualRow = { class: string; classLabel: string; billedCents: number; lateChargesCents: number; collectedCents: number; outstandingCents: number };
export type AnnualReview = { year: number; from: CalendarDate; to: CalendarDate; section: string; rows: AnnualRow[] };

async function staffDistrict(ds: DataSource, viewer: Viewer, districtId: string): Promise<District> {
  const d = isUuid(districtId) ? await ds.getRepository(District).findOneBy({ id: districtId }) : null;
  if (!d) throw notFound("That district");
  if (!isStaff(viewer, d.id)) throw forbidden("Only staff of this district read its receivables.");
  return d;
}

const empty = (): Omit<AgingRow, "accountId" | "kind" | "accountNumber" | "occupantName" | "ownerName" | "address" | "class"> => ({
  balanceCents: 0,
  currentCents: 0,
  days30Cents: 0,
  days60Cents: 0,
  days90Cents: 0,
  over90Cents: 0,
});

/** Every account of the district with a balance, with its aging; accounts read in batches of 5,000, two statements each. */
async function agingRows(ds: DataSource, district: District): Promise<AgingRow[]> {
  const out: AgingRow[] = [];
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const accounts: any[] = await ds.query(
      `SELECT a.id, a.account_number, a.occupant_name, a.class, p.owner_name, p.street_number, p.street, p.city, p.zip,
              coalesce((SELECT sum(b.total_cents) FROM bill b WHERE b.account_id = a.id AND b.status = 'ISSUED'), 0)
            + coalesce((SELECT sum(e.amount_cents) FROM account_ledger_entry e WHERE e.account_id = a.id), 0) AS balance
         FROM service_account a JOIN sewer_property p ON p.id = a.property_id
        WHERE a.district_id = $1 AND a.id > $2 ORDER BY a.id LIMIT $3`,
      [district.id, after, BATCH],
    );
    if (!accounts.length) break;
    after = accounts[accounts.length - 1].id;
    const owing = accounts.filter((a) => Number(a.balance) !== 0);
    const items = await openItems(ds, owing.map((a) => a.id), { onlyUnpaid: true });
    const rows = new Map<string, AgingRow>();
    for (const a of owing)
      rows.set(a.id, { accountId: a.id, kind: "ACCOUNT", accountNumber: a.account_number, occupantName: a.occupant_name, ownerName: a.owner_name, address: addressOf(a), class: a.class, ...empty(), balanceCents: Number(a.balance) });
    const dueOf = new Map(items.filter((i) => i.kind === "BILL").map((i) => [i.billId!, i.dueOn]));
    for (const i of items) {
      const r = rows.get(i.accountId)!;
      // A late charge ages with its bill.
      const bucket = agingBucket((i.billId && dueOf.get(i.billId)) || i.dueOn, i.today);
      r[`${bucket}Cents`] += i.unpaidCents;
    }
    // A credit (an overpayment) is shown as current, below zero.
    for (const r of rows.values()) if (r.balanceCents < 0) r.currentCents = r.balanceCents;
    out.push(...[...rows.values()].sort((x, y) => x.accountNumber.localeCompare(y.accountNumber)));
    if (accounts.length < BATCH) break;
  }
  out.push(...(await excessAgingRows(ds, district)));
  return out;
}

/**
 * Huron VI-2: each property whose owner's excess bills (no account) have a balance, aged as an
 * account's are, after the accounts; properties read in batches of 5,000, two statements each.
 */
async function excessAgingRows(ds: DataSource, district: District): Promise<AgingRow[]> {
  const out: AgingRow[] = [];
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const props: any[] = await ds.query(
      `SELECT p.id, p.owner_name, p.tax_parcel, p.street_number, p.street, p.city, p.zip,
              coalesce((SELECT sum(b.total_cents) FROM bill b WHERE b.property_id = p.id AND b.kind = 'OWNER_EXCESS' AND b.status = 'ISSUED'), 0)
            + coalesce((SELECT sum(e.amount_cents) FROM account_ledger_entry e WHERE e.excess_property_id = p.id), 0) AS balance
         FROM sewer_property p
        WHERE p.district_id = $1 AND p.id > $2 AND EXISTS (SELECT 1 FROM bill b WHERE b.property_id = p.id AND b.kind = 'OWNER_EXCESS' AND b.status = 'ISSUED')
        ORDER BY p.id LIMIT $3`,
      [district.id, after, BATCH],
    );
    if (!props.length) break;
    after = props[props.length - 1].id;
    const owing = props.filter((p) => Number(p.balance) !== 0);
    const items = await openItems(ds, owing.map((p) => p.id), { onlyUnpaid: true, of: "excess" });
    const rows = new Map<string, AgingRow>();
    for (const p of owing)
      rows.set(p.id, { accountId: p.id, kind: "OWNER_EXCESS", accountNumber: `Owner's excess, parcel ${p.tax_parcel}`, occupantName: "", ownerName: p.owner_name, address: addressOf(p), class: "", ...empty(), balanceCents: Number(p.balance) });
    const dueOf = new Map(items.filter((i) => i.kind === "BILL").map((i) => [i.billId!, i.dueOn]));
    // A late charge ages with its bill; a credit (an overpayment) is shown as current, below zero.
    for (const i of items) rows.get(i.accountId)![`${agingBucket((i.billId && dueOf.get(i.billId)) || i.dueOn, i.today)}Cents`] += i.unpaidCents;
    for (const r of rows.values()) if (r.balanceCents < 0) r.currentCents = r.balanceCents;
    out.push(...[...rows.values()].sort((x, y) => x.accountNumber.localeCompare(y.accountNumber)));
    if (props.length < BATCH) break;
  }
  return out;
}

/** SUL 1214's figures for the fiscal year (1211: January to December) by class, in one statement; null where the law sets no fiscal year (Huron). */
async function annualReview(ds: DataSource, district: District, year: number | null): Promise<AnnualReview | null> {
  const rb = await rulebookOn(ds, district);
  const fy = rb.entry("billing.fiscalYearStart");
  if (typeof fy.value !== "string" || !/^January 1$/i.test(fy.value.trim())) return null;
  const y = year ?? Number(dateIn(district.timeZone).slice(0, 4));
  if (!Number.isInteger(y) || y < 2000 || y > 2100) throw badInput({ year: "Enter a year like 2026." });
  const from = `${y}-01-01`;
  const to = `${y}-12-31`;
  const rows: any[] = await ds.query(
    `WITH acc AS (SELECT id, class FROM service_account WHERE district_id = $1),
     billed AS (SELECT a.class, sum(b.total_cents) AS cents FROM bill b JOIN acc a ON a.id = b.account_id
                 WHERE b.district_id = $1 AND b.status = 'ISSUED' AND b.mailed_on BETWEEN $2 AND $3 GROUP BY a.class),
     entries AS (SELECT a.class, sum(e.amount_cents) FILTER (WHERE e.kind IN ('PENALTY', 'INTEREST')) AS late,
                        -sum(e.amount_cents) FILTER (WHERE e.kind IN ('PAYMENT', 'REFUND')) AS collected
                   FROM account_ledger_entry e JOIN acc a ON a.id = e.account_id
                  WHERE e.district_id = $1 AND e.effective_on BETWEEN $2 AND $3 GROUP BY a.class),
     balances AS (SELECT a.class, a.id,
                         coalesce((SELECT sum(b.total_cents) FROM bill b WHERE b.account_id = a.id AND b.status = 'ISSUED' AND b.mailed_on <= $3), 0)
                       + coalesce((SELECT sum(e.amount_cents) FROM account_ledger_entry e WHERE e.account_id = a.id AND e.effective_on <= $3), 0) AS cents
                    FROM acc a),
     outstanding AS (SELECT class, sum(cents) FILTER (WHERE cents > 0) AS cents FROM balances GROUP BY class)
     SELECT c.class, coalesce(b.cents, 0)::bigint AS billed, coalesce(e.late, 0)::bigint AS late, coalesce(e.collected, 0)::bigint AS collected, coalesce(o.cents, 0)::bigint AS outstanding
       FROM unnest($4::text[]) AS c(class)
       LEFT JOIN billed b ON b.class = c.class LEFT JOIN entries e ON e.class = c.class LEFT JOIN outstanding o ON o.class = c.class`,
    [district.id, from, to, [...ACCOUNT_CLASSES]],
  );
  return {
    year: y,
    from,
    to,
    section: `${fy.section}, 1214`,
    rows: rows.map((r) => ({
      class: r.class,
      classLabel: CLASS_LABELS[r.class as AccountClass],
      billedCents: Number(r.billed),
      lateChargesCents: Number(r.late),
      collectedCents: Number(r.collected),
      outstandingCents: Number(r.outstanding),
    })),
  };
}

export async function receivables(ds: DataSource, viewer: Viewer, districtId: string, year: number | null) {
  const district = await staffDistrict(ds, viewer, districtId);
  const rows = await agingRows(ds, district);
  const totals: AgingRow = { accountId: district.id, kind: "ACCOUNT", accountNumber: "Total", occupantName: "", ownerName: "", address: "", class: "", ...empty() };
  for (const r of rows) for (const k of Object.keys(empty()) as (keyof ReturnType<typeof empty>)[]) totals[k] += r[k];
  return { districtId: district.id, asOf: dateIn(district.timeZone), rows, totals, annualReview: await annualReview(ds, district, year) };
}

const money = (cents: number) => (cents / 100).toFixed(2);
const csvOf = (rows: (string | number | null)[][]) => `${rows.map((r) => r.map(csvCell).join(",")).join("\r\n")}\r\n`;

/** The receivables export: one line per account with a balance, with its aging. */
export async function receivablesCsv(ds: DataSource, viewer: Viewer, districtId: string): Promise<{ asOf: string; slug: string; csv: string }> {
  const district = await staffDistrict(ds, viewer, districtId);
  const rows = await agingRows(ds, district);
  return {
    asOf: dateIn(district.timeZone),
    slug: district.slug,
    csv: csvOf([
      ["Account", "Occupant", "Owner of record", "Service address", "Class", "Balance", "Not yet due", "1-30 days past due", "31-60 days", "61-90 days", "Over 90 days"],
      ...rows.map((r) => [r.accountNumber, r.occupantName, r.ownerName, r.address, CLASS_LABELS[r.class as AccountClass] ?? r.class, ...[r.balanceCents, r.currentCents, r.days30Cents, r.days60Cents, r.days90Cents, r.over90Cents].map(money)]),
    ]),
  };
}

/**
 * The payments export: every payment posted to the district's accounts and to its properties' owner's
 * excess bills (Huron VI-2: the owner of record named, no account) from `from` to `to` (days in its
 * zone), and every credit refunded (a negative amount, "refund, check" or "refund, card"), in one statement.
 */
export async function paymentsCsv(ds: DataSource, viewer: Viewer, input: { districtId: string; from?: string | null; to?: string | null }): Promise<{ from: string; to: string; slug: string; csv: string }> {
  const district = await staffDistrict(ds, viewer, input.districtId);
  const today = dateIn(district.timeZone);
  const from = (input.from ?? "").trim() || `${today.slice(0, 4)}-01-01`;
  const to = (input.to ?? "").trim() || today;
  const fields: Record<string, string> = {};
  if (!isCalendarDate(from)) fields.from = "Use a date like 2026-01-01.";
  if (!isCalendarDate(to)) fields.to = "Use a date like 2026-12-31.";
  else if (isCalendarDate(from) && to < from) fields.to = "The last day cannot be before the first.";
  if (Object.keys(fields).length) throw badInput(fields);
  const rows: any[] = await ds.query(
    `SELECT e.effective_on::text AS on_date, e.kind, coalesce(e.receipt_number, p.receipt_number) AS receipt_number,
            coalesce(a.account_number, 'Owner''s excess (Huron VI-2)') AS account_number, coalesce(a.occupant_name, pr.owner_name) AS occupant_name, pr.street_number, pr.street, pr.city, pr.zip,
            p.provider, CASE WHEN e.kind = 'REFUND' AND e.check_number IS NOT NULL THEN 'check' ELSE p.method END AS method, coalesce(e.check_number, p.check_number) AS check_number, -e.amount_cents AS cents
       FROM account_ledger_entry e LEFT JOIN payment p ON p.id = e.payment_id LEFT JOIN service_account a ON a.id = e.account_id
       JOIN sewer_property pr ON pr.id = coalesce(a.property_id, e.excess_property_id)
      WHERE e.district_id = $1 AND e.kind IN ('PAYMENT', 'REFUND') AND e.effective_on BETWEEN $2 AND $3
      ORDER BY e.effective_on, e.kind, 3`,
    [district.id, from, to],
  );
  return {
    from,
    to,
    slug: district.slug,
    csv: csvOf([
      ["Date", "Receipt", "Account", "Occupant", "Service address", "How", "Check number", "Amount"],
      ...rows.map((r) => [r.on_date, r.receipt_number, r.account_number, r.occupant_name, addressOf(r), `${r.kind === "REFUND" ? "refund, " : ""}${r.method === "card" ? (r.provider === "test" ? "card (test)" : "card") : r.method}`, r.check_number, money(r.cents)]),
    ]),
  };
}

// ---------------------------------------------------------------------------------------------
// The tax levy (SUL 1118; Huron VI-4): delinquent sewer bills as the levy report's input

export type SewerLevyRow = {
  billId: string;
  number: string;
  accountNumber: string;
  billedOn: CalendarDate;
  dueOn: CalendarDate;
  ownerName: string;
  taxParcel: string;
  address: string;
  /** what of each part is unpaid today */
  originalCents: number;
  penaltyCents: number;
  interestCents: number;
  totalCents: number;
  daysDelinquent: number;
};

/**
 * The district's sewer bills that go on the tax levy as of `asOf`, with what of each is unpaid
 * today (the bill, its penalty, its interest: credits went to the oldest bills first). SUL 1118:
 * delinquent at least `billing.taxLevyDelinquentDays` (60) as of the levy date, by statementFor's
 * count. Where the law sets no minimum (Huron VI-4: the rents and penalties due and owing are a
 * lien), every bill in arrears, unpaid after its due date. Accounts read in batches of 5,000, then
 * the properties with owner's excess bills (Huron VI-2, no account) alike.
 */
export async function sewerLevyRows(ds: DataSource | EntityManager, district: District, rb: Rulebook, asOf: CalendarDate): Promise<SewerLevyRow[]> {
  if (!rb.enabled("billing.taxLevyEnabled")) return [];
  const min = rb.entry("billing.taxLevyDelinquentDays").value;
  const out: SewerLevyRow[] = [];
  // The accounts' bills, then (Huron VI-2) the owner's excess bills of each property, which have no account.
  for (const of of ["account", "excess"] as const) {
    let after = "00000000-0000-0000-0000-000000000000";
    for (;;) {
      const ids: string[] = (
        await ds.query(
          of === "account"
            ? `SELECT DISTINCT b.account_id FROM bill b WHERE b.district_id = $1 AND b.status = 'ISSUED' AND b.mailed_on <= $2 AND b.account_id > $3 ORDER BY b.account_id LIMIT $4`
            : `SELECT DISTINCT b.property_id AS account_id FROM bill b WHERE b.district_id = $1 AND b.kind = 'OWNER_EXCESS' AND b.status = 'ISSUED' AND b.mailed_on <= $2 AND b.property_id > $3 ORDER BY 1 LIMIT $4`,
          [district.id, asOf, after, BATCH],
        )
      ).map((r: any) => r.account_id);
      if (!ids.length) break;
      after = ids[ids.length - 1];
      const items = await openItems(ds, ids, { onlyUnpaid: true, of });
      const bills = new Map<string, { bill: (typeof items)[number]; penalty: number; interest: number; days: number }>();
      for (const i of items) {
        if (i.kind !== "BILL" || i.onDate > asOf) continue;
        const s = statementFor(rb, { amountCents: i.amountCents, billedOn: i.onDate, label: `Sewer bill ${i.number}`, section: "" }, asOf);
        const listed = typeof min === "number" ? s.delinquent && s.daysDelinquent >= min : asOf > i.dueOn;
        if (listed) bills.set(i.billId!, { bill: i, penalty: 0, interest: 0, days: s.delinquent ? s.daysDelinquent : 0 });
      }
      for (const i of items) {
        const b = i.billId ? bills.get(i.billId) : undefined;
        if (b && i.kind === "PENALTY") b.penalty += i.unpaidCents;
        if (b && i.kind === "INTEREST") b.interest += i.unpaidCents;
      }
      if (bills.size) {
        const info: any[] = await ds.query(
          `SELECT b.id, a.account_number, p.owner_name, p.tax_parcel, p.street_number, p.street, p.city, p.zip
             FROM bill b LEFT JOIN service_account a ON a.id = b.account_id JOIN sewer_property p ON p.id = b.property_id WHERE b.id = ANY($1::uuid[])`,
          [[...bills.keys()]],
        );
        for (const r of info) {
          const { bill, penalty, interest, days } = bills.get(r.id)!;
          out.push({
            billId: r.id,
            number: bill.number!,
            // An owner's excess bill (Huron VI-2) has no account.
            accountNumber: r.account_number ?? "",
            billedOn: bill.onDate,
            dueOn: bill.dueOn,
            ownerName: r.owner_name,
            taxParcel: r.tax_parcel,
            address: addressOf(r),
            originalCents: bill.unpaidCents,
            penaltyCents: penalty,
            interestCents: interest,
            totalCents: bill.unpaidCents + penalty + interest,
            daysDelinquent: days,
          });
        }
      }
      if (ids.length < BATCH) break;
    }
  }
  return out.sort((x, y) => x.ownerName.localeCompare(y.ownerName) || x.billedOn.localeCompare(y.billedOn) || x.number.localeCompare(y.number));
}

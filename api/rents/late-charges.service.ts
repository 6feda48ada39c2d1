import type { DataSource, EntityManager } from "typeorm";
import type { Logger } from "pino";
import { audit } from "../audit/audit.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookById } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { enqueueEmails, type EmailDraft } from "../outbox/outbox.service.js";
import { addressOf } from "./common.js";
import { accountBalances, openItems, type Db } from "./ledger.js";
import { lateChargesDue, type LateCharge } from "./ledger.rules.js";
import { excessBalances } from "./owners-excess.js";

/**
 * Late charges on the law's day (SUL 1118 via 1210; Huron VI-3), by a job every hour, on the two
 * kinds of balance: a service account's, and a property's owner's excess bills (Huron VI-2: a
 * shared meter's excess billed to the owner of record, no account). Docs:
 * docs/decisions/sewer-bill-late-charges.md, huron-owners-excess-bill-paying.md.
 */

export const LATE_CHARGES_JOB = "rents.late-charges";
const LATE_BATCH = 1000;

type Balance = { balanceCents: number; pastDueCents: number };
/** Who is told of a balance's late charges, and how the balance is named to them. */
type Addressee = { id: string; user_id: string; email: string; display_name: string; name: string; added: string; link: string };

/** What differs between the two balances; everything else is one code path. */
type Side = {
  /** openItems' balance kind */
  of: "account" | "excess";
  /** the balance's own row (locked while its charges are posted) and its entries' column */
  table: "service_account" | "sewer_property";
  column: "account_id" | "excess_property_id";
  /** of the balance `x`: its issued bills */
  billsOf: string;
  balances: (db: Db, ids: string[]) => Promise<Map<string, Balance>>;
  addressees: (db: Db, ids: string[]) => Promise<Addressee[]>;
  /** the audit entry's count of balances */
  countKey: string;
  auditDetails?: Record<string, unknown>;
};

const ACCOUNTS: Side = {
  of: "account",
  table: "service_account",
  column: "account_id",
  billsOf: "b.account_id = x.id",
  balances: accountBalances,
  // The owner of record (Huron VI-3 bills the owners; VI-4 makes it a lien on the property), else the occupant, when they have a sign-in.
  addressees: async (db, ids) =>
    (
      await db.query(
        `SELECT a.id, a.account_number, u.id AS user_id, u.email, u.display_name
           FROM service_account a JOIN sewer_property p ON p.id = a.property_id
           JOIN app_user u ON u.id = coalesce(p.owner_user_id, a.occupant_user_id)
          WHERE a.id = ANY($1::uuid[])`,
        [ids],
      )
    ).map((w: any) => ({ ...w, name: `Sewer account ${w.account_number}`, added: `sewer account ${w.account_number}`, link: "Pay online or see the account" })),
  countKey: "accounts",
};

const OWNERS_EXCESS: Side = {
  of: "excess",
  table: "sewer_property",
  column: "excess_property_id",
  billsOf: "b.property_id = x.id AND b.kind = 'OWNER_EXCESS'",
  balances: excessBalances,
  // VI-2 charges the excess to the owner; VI-3 bills the owners: the owner of record, when they have a sign-in.
  addressees: async (db, ids) =>
    (
      await db.query(
        `SELECT p.id, p.tax_parcel, p.street_number, p.street, p.city, p.zip, u.id AS user_id, u.email, u.display_name
           FROM sewer_property p JOIN app_user u ON u.id = p.owner_user_id WHERE p.id = ANY($1::uuid[])`,
        [ids],
      )
    ).map((w: any) => ({
      ...w,
      name: `Owner's excess bills, ${addressOf(w)}`,
      added: `the owner's excess bills of ${addressOf(w)} (tax parcel ${w.tax_parcel})`,
      link: "Pay online or see the bills",
    })),
  countKey: "properties",
  auditDetails: { ownersExcess: true },
};

/** Every district's late charges due today in its zone, accounts then owner's excess bills. Returns how many were posted. */
export async function postLateCharges(ds: DataSource, publicUrl: string, log?: Logger): Promise<number> {
  let posted = 0;
  for (const district of await ds.getRepository(District).find()) {
    const today = dateIn(district.timeZone);
    for (const side of [ACCOUNTS, OWNERS_EXCESS]) posted += await postLateChargesOf(ds, side, district, today, publicUrl);
  }
  if (posted) log?.info({ posted }, "late charges posted");
  return posted;
}

/** A district's owner's excess bills' late charges alone (tests count its statements). */
export const postExcessLateCharges = (ds: DataSource, district: District, today: CalendarDate, publicUrl: string) => postLateChargesOf(ds, OWNERS_EXCESS, district, today, publicUrl);

/**
 * The district's balances of one kind with an issued bill past its due date, in batches of 1,000 by
 * id; for each batch's balances that owe something, in one transaction and a fixed number of
 * statements: what each bill still owes (oldest first), the late charges already posted, the new
 * ones inserted once (their unique key: the bill's), one email per balance to the person billed,
 * and one audit entry.
 */
async function postLateChargesOf(ds: DataSource, side: Side, district: District, today: CalendarDate, publicUrl: string): Promise<number> {
  let posted = 0;
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const rows: { id: string; owes: boolean }[] = await ds.query(
      `SELECT x.id, (coalesce((SELECT sum(b.total_cents) FROM bill b WHERE ${side.billsOf} AND b.status = 'ISSUED'), 0)
                   + coalesce((SELECT sum(e.amount_cents) FROM account_ledger_entry e WHERE e.${side.column} = x.id), 0)) > 0 AS owes
         FROM ${side.table} x
        WHERE x.district_id = $1 AND x.id > $3 AND EXISTS (SELECT 1 FROM bill b WHERE ${side.billsOf} AND b.status = 'ISSUED' AND b.due_on < $2)
        ORDER BY x.id LIMIT $4`,
      [district.id, today, after, LATE_BATCH],
    );
    if (!rows.length) break;
    after = rows[rows.length - 1].id;
    // Only balances that owe something can have a late charge due.
    const owing = rows.filter((r) => r.owes).map((r) => r.id);
    if (owing.length) posted += await ds.transaction((tx) => lateChargesForBatch(tx, side, district, owing, today, publicUrl));
    if (rows.length < LATE_BATCH) break;
  }
  return posted;
}

async function lateChargesForBatch(tx: EntityManager, side: Side, district: District, ids: string[], today: CalendarDate, publicUrl: string): Promise<number> {
  // Serialise with payments toward these balances (they lock the same rows) and other runs.
  await tx.query(`SELECT id FROM ${side.table} WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
  const items = await openItems(tx, ids, { of: side.of });
  const keys: any[] = await tx.query(`SELECT unique_key FROM account_ledger_entry WHERE ${side.column} = ANY($1::uuid[]) AND kind IN ('PENALTY', 'INTEREST', 'VIOLATION')`, [ids]);
  const postedKeys = new Set<string>(keys.map((k) => k.unique_key));
  const adds: (LateCharge & { balanceId: string; billId: string })[] = [];
  for (const i of items) {
    if (i.kind !== "BILL" || i.unpaidCents <= 0 || !i.rulebookVersionId) continue;
    const rb = await rulebookById(tx, i.rulebookVersionId);
    for (const c of lateChargesDue(rb, { id: i.billId!, number: i.number!, totalCents: i.amountCents, mailedOn: i.onDate }, i.unpaidCents, postedKeys, today))
      adds.push({ ...c, balanceId: i.accountId, billId: i.billId! });
  }
  if (!adds.length) return 0;
  const inserted: { unique_key: string }[] = await tx.query(
    `INSERT INTO account_ledger_entry (district_id, ${side.column}, kind, amount_cents, bill_id, effective_on, description, section, unique_key)
     SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::int[], $5::uuid[], $6::date[], $7::text[], $8::text[], $9::text[])
     ON CONFLICT (unique_key) DO NOTHING RETURNING unique_key`,
    [
      district.id,
      adds.map((c) => c.balanceId),
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
  const byBalance = new Map<string, LateCharge[]>();
  for (const c of adds) if (done.has(c.key)) (byBalance.get(c.balanceId) ?? byBalance.set(c.balanceId, []).get(c.balanceId)!).push(c);
  const ids2 = [...byBalance.keys()];
  const balances = await side.balances(tx, ids2);
  const drafts: EmailDraft[] = (await side.addressees(tx, ids2)).map((w) => {
    const charges = byBalance.get(w.id)!;
    const b = balances.get(w.id)!;
    const money = charges.filter((c) => c.amountCents > 0);
    return {
      to: w.email,
      recipientId: w.user_id,
      districtId: district.id,
      kind: "rents.late_charges",
      subject: money.length ? `${w.name}: ${formatCents(money.reduce((s, c) => s + c.amountCents, 0))} added for late payment` : `${w.name}: unpaid bill in violation`,
      body: [
        `Hello ${w.display_name},`,
        "",
        `${district.name} added to ${w.added}:`,
        ...charges.map((c) => `- ${formatDate(c.effectiveOn)}: ${c.description}${c.amountCents ? `: ${formatCents(c.amountCents)}` : ""} (${c.section})`),
        "",
        `Balance now: ${formatCents(b.balanceCents)}, of which ${formatCents(b.pastDueCents)} is past due.`,
        `${w.link}: ${publicUrl}/properties/bills`,
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
    details: {
      today,
      ...side.auditDetails,
      [side.countKey]: byBalance.size,
      charges: inserted.length,
      penalties: inserted.filter((r) => r.unique_key.startsWith("penalty:")).length,
      violations: inserted.filter((r) => r.unique_key.startsWith("violation:")).length,
    },
  });
  return inserted.length;
}

registerJobHandler(LATE_CHARGES_JOB, async (ds, payload: { publicUrl?: string }, log) => {
  await postLateCharges(ds, payload.publicUrl ?? "", log);
});

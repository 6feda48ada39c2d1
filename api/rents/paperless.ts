import type express from "express";
import PDFDocument from "pdfkit";
import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import { stringify } from "csv-stringify/sync";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { AppError, forbidden, notFound } from "../common/errors.js";
import type { Config } from "../config.js";
import { rulebookById, rulebookOn } from "../districts/districts.service.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { signedInFile } from "../graphql/request-context.js";
import { accountRow, actorOf, addressOf, type Db, type Meta } from "./common.js";
import { billRunBills, billUsage, type BillView } from "./bill-runs.service.js";
import { drawStatement } from "./bill-pdf.js";
import { readPart, type OwnerPart } from "./owners-page.js";

/**
 * Paperless (issue 14: "the owner chooses email only"): the party an account's bills are billed to
 * (Huron VI-3: the owner of record; SUL: the occupant, else the owner, as the bill's email goes)
 * chooses email only; a bill issued while the choice is on is left out of the run's paper mailing.
 * Each choice is kept (who, when) and audited; the mailing takes the choice in force when each bill
 * was issued, so a later change does not rewrite a run already mailed. Every bill is still emailed
 * on issue to whoever has a sign-in: for paper accounts the email is a courtesy copy
 * (docs/decisions/paperless-bills.md). The Clerk reads how many bills go on paper, the mailing list
 * (CSV) and one PDF of the paper bills.
 */

/** Whether the district's bills go to the owner of record (Huron VI-3: "billed to and paid by the owners of property"), as bill runs address them. */
async function billsToOwner(db: Db, districtId: string): Promise<boolean> {
  const district = await db.getRepository(District).findOneByOrFail({ id: districtId });
  const rb = await rulebookOn(db, district);
  return rb.enabled("billing.minimumPerUserBehindMeter");
}

/** The sign-in the account's bills go to: the owner of record where bills go to owners; else the occupant, else the owner (as the bill's email goes). */
async function billedParty(db: Db, a: any): Promise<string | null> {
  return (await billsToOwner(db, a.district_id)) ? (a.owner_user_id ?? a.occupant_user_id) : (a.occupant_user_id ?? a.owner_user_id);
}

export type PaperlessView = { accountId: string; paperless: boolean; canChoose: boolean; chosenAt: Date | null; chosenByName: string | null };

/** An account's choice, for those who read the account (staff, occupant, owner of record); `canChoose` for the billed party. */
export async function paperlessOf(ds: DataSource, viewer: Viewer, accountId: string): Promise<PaperlessView> {
  const a = await accountRow(ds, viewer, accountId);
  const [c] = await ds.query(
    `SELECT c.paperless, c.chosen_at, u.display_name FROM paperless_choice c JOIN app_user u ON u.id = c.chosen_by_id WHERE c.account_id = $1 ORDER BY c.chosen_at DESC, c.id LIMIT 1`,
    [a.id],
  );
  return { accountId: a.id, paperless: c?.paperless ?? false, canChoose: (await billedParty(ds, a)) === viewer.userId, chosenAt: c?.chosen_at ?? null, chosenByName: c?.display_name ?? null };
}

/**
 * The choices of the open accounts the viewer's bills come for (as occupant or owner of record), with
 * the rulebook in force in each one's district (the rulebooks are cached by version): one statement,
 * or a column of the owner's page's (owners-page.ts). The accounts by the occupant's and the owner's
 * indexes (an OR across the join read every account).
 */
export const myPaperlessPart: OwnerPart<PaperlessView[]> = {
  key: "paperless",
  now: true,
  sql: `WITH mine AS (
       SELECT a.id FROM service_account a WHERE a.occupant_user_id = $1 AND a.closed_on IS NULL
       UNION
       SELECT a.id FROM sewer_property p JOIN service_account a ON a.property_id = p.id WHERE p.owner_user_id = $1 AND a.closed_on IS NULL
     )
     SELECT coalesce(json_agg(x ORDER BY x.account_number), '[]') FROM (
       SELECT a.id, a.account_number, a.district_id, a.occupant_user_id, p.owner_user_id, c.paperless, c.chosen_at, c.display_name,
              (SELECT v.id FROM rulebook_version v WHERE v.district_id = d.id AND v.effective_date <= ($2::timestamptz AT TIME ZONE d.time_zone)::date
                ORDER BY v.effective_date DESC, v.version DESC LIMIT 1) AS rulebook_version_id,
              ($2::timestamptz AT TIME ZONE d.time_zone)::date::text AS today
         FROM mine JOIN service_account a ON a.id = mine.id JOIN sewer_property p ON p.id = a.property_id JOIN district d ON d.id = a.district_id
         LEFT JOIN LATERAL (SELECT c.paperless, c.chosen_at, u.display_name FROM paperless_choice c JOIN app_user u ON u.id = c.chosen_by_id
                             WHERE c.account_id = a.id ORDER BY c.chosen_at DESC, c.id LIMIT 1) c ON true) x`,
  async map(rows: any[], viewer, db) {
    const toOwner = new Map<string, boolean>();
    for (const r of rows) {
      if (toOwner.has(r.district_id)) continue;
      if (!r.rulebook_version_id) throw notFound(`A rulebook in force on ${r.today}`);
      toOwner.set(r.district_id, (await rulebookById(db, r.rulebook_version_id)).enabled("billing.minimumPerUserBehindMeter"));
    }
    return rows.map((a) => {
      const party = toOwner.get(a.district_id) ? (a.owner_user_id ?? a.occupant_user_id) : (a.occupant_user_id ?? a.owner_user_id);
      return { accountId: a.id, paperless: a.paperless ?? false, canChoose: party === viewer.userId, chosenAt: a.chosen_at ? new Date(a.chosen_at) : null, chosenByName: a.display_name ?? null };
    });
  },
};

/** The viewer's choices (myPaperlessPart) in a statement of their own. */
export const myPaperless = (ds: DataSource, viewer: Viewer): Promise<PaperlessView[]> => readPart(ds, viewer, myPaperlessPart);

/** Only the party billed chooses email only (or paper again); recorded with who and when, audited. */
export async function setPaperless(ds: DataSource, viewer: Viewer, input: { accountId: string; paperless: boolean }, meta: Meta): Promise<PaperlessView> {
  await ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true });
    if ((await billedParty(tx, a)) !== viewer.userId)
      throw forbidden("Only the person the account's bills are addressed to chooses how they receive them (Huron VI-3: the owner of record; otherwise the occupant).");
    const [cur] = await tx.query(`SELECT paperless FROM paperless_choice WHERE account_id = $1 ORDER BY chosen_at DESC, id LIMIT 1`, [a.id]);
    if ((cur?.paperless ?? false) === input.paperless) return;
    await tx.query(`INSERT INTO paperless_choice (account_id, paperless, chosen_by_id, chosen_at) VALUES ($1, $2, $3, clock_timestamp())`, [a.id, input.paperless, viewer.userId]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: input.paperless ? "rents.paperless_chosen" : "rents.paper_bills_chosen",
      entityType: "ServiceAccount",
      entityId: a.id,
      districtId: a.district_id,
      details: { paperless: input.paperless },
    });
  });
  return paperlessOf(ds, viewer, input.accountId);
}

/** SQL: the bill (alias b) goes on paper: no account (an owner's excess bill), or its account's choice in force when it was issued is not email only. */
const ON_PAPER = `NOT coalesce((SELECT c.paperless FROM paperless_choice c WHERE c.account_id = b.account_id AND c.chosen_at <= b.issued_at ORDER BY c.chosen_at DESC, c.id LIMIT 1), false)`;

async function runForStaff(db: Db, viewer: Viewer, runId: string): Promise<{ id: string; district_id: string; status: string; period_start: string }> {
  const [run] = isUuid(runId) ? await db.query(`SELECT id, district_id, status, period_start::text AS period_start FROM bill_run WHERE id = $1`, [runId]) : [];
  if (!run || !isStaff(viewer, run.district_id)) throw notFound("That bill run");
  return run;
}

export type PaperMailing = { runId: string; issued: number; onPaper: number; paperless: number };

/** How many of the run's issued bills go on paper and how many by email only (the district's staff). */
export async function paperMailing(db: Db, viewer: Viewer, runId: string): Promise<PaperMailing> {
  const run = await runForStaff(db, viewer, runId);
  const [r] = await db.query(`SELECT count(*)::int AS issued, count(*) FILTER (WHERE ${ON_PAPER})::int AS on_paper FROM bill b WHERE b.run_id = $1 AND b.status = 'ISSUED'`, [run.id]);
  return { runId: run.id, issued: r.issued, onPaper: r.on_paper, paperless: r.issued - r.on_paper };
}

/** The mailing list of the run's paper bills as CSV: one line a bill, the address it is mailed to. */
export async function mailingListCsv(db: Db, viewer: Viewer, runId: string): Promise<{ csv: string; name: string }> {
  const run = await runForStaff(db, viewer, runId);
  const rows: any[] = await db.query(
    `SELECT b.number, a.account_number, b.bill_to, b.kind, b.final, a.final_bill, p.street_number, p.street, p.city, p.zip, p.owner_mailing_address, b.total_cents, b.due_on::text AS due_on,
            d.slug
       FROM bill b JOIN sewer_property p ON p.id = b.property_id LEFT JOIN service_account a ON a.id = b.account_id JOIN district d ON d.id = b.district_id
      WHERE b.run_id = $1 AND b.status = 'ISSUED' AND ${ON_PAPER}
      ORDER BY b.number`,
    [run.id],
  );
  const ownerBilled = await billsToOwner(db, run.district_id);
  const csv = stringify(
    rows.map((r) => {
      const service = addressOf(r);
      // Where it is mailed: a final bill's forwarding address; an owner's bill to the owner's mailing address; else the service address.
      const toOwner = r.kind === "OWNER_EXCESS" || ownerBilled;
      const mailTo = (r.final && r.final_bill?.forwardingAddress) || (toOwner && r.owner_mailing_address) || service;
      return [r.number, r.account_number ?? "", r.bill_to, mailTo, service, (r.total_cents / 100).toFixed(2), r.due_on ?? ""];
    }),
    { header: true, columns: ["bill", "account", "billed to", "mailing address", "service address", "amount", "due on"] },
  );
  return { csv, name: `paper-bills-${rows[0]?.slug ?? "run"}-${run.period_start}.csv` };
}

/**
 * One PDF of the run's paper bills, each its statement as /bills/:id/bill.pdf draws it, a page
 * each, streamed in pages of 200 bills (memory stays flat as the run grows).
 */
export async function paperBillsPdf(ds: DataSource, viewer: Viewer, runId: string, out: NodeJS.WritableStream): Promise<void> {
  const run = await runForStaff(ds, viewer, runId);
  const [d] = await ds.query(`SELECT name, address FROM district WHERE id = $1`, [run.district_id]);
  const doc = new PDFDocument({ size: "LETTER", margin: 54, autoFirstPage: false, info: { Title: `Paper sewer bills, period from ${run.period_start}`, Author: d.name } });
  const finished = new Promise<void>((resolve, reject) => {
    out.on("finish", () => resolve());
    out.on("error", reject);
  });
  doc.pipe(out);
  let after: string | null = null;
  let drawn = 0;
  do {
    const page = await billRunBills(ds, viewer, run.id, { first: 200, after });
    const ids = page.items.filter((b) => b.status === "ISSUED").map((b) => b.id);
    const paper = ids.length ? new Set<string>((await ds.query(`SELECT b.id FROM bill b WHERE b.id = ANY($1::uuid[]) AND ${ON_PAPER}`, [ids])).map((r: any) => r.id)) : new Set<string>();
    const bills = page.items.filter((b) => paper.has(b.id));
    const usage = await usageOf(ds, bills, run.period_start);
    for (const b of bills) {
      doc.addPage();
      drawStatement(doc, d, b, usage.get(b.id) ?? (b.accountId ? [] : await billUsage(ds, b)));
      drawn++;
    }
    after = page.nextCursor;
  } while (after);
  if (!drawn) doc.addPage().font("Helvetica").fontSize(12).text("No bill of this run goes on paper.");
  doc.end();
  await finished;
}

/** The usage chart's figures of many accounts' bills of one run in one statement (each bill's two years, as billUsage reads them). */
async function usageOf(db: Db, bills: BillView[], periodStart: string): Promise<Map<string, Awaited<ReturnType<typeof billUsage>>>> {
  const byAccount = bills.filter((b) => b.accountId);
  const out = new Map<string, Awaited<ReturnType<typeof billUsage>>>();
  if (!byAccount.length) return out;
  const rows: any[] = await db.query(
    `SELECT b.account_id, b.period_start::text AS period_start, b.period_end::text AS period_end, b.gallons::text AS gallons, b.total_cents, b.number
       FROM bill b WHERE b.account_id = ANY($1::uuid[]) AND b.status = 'ISSUED'
        AND b.period_start > ($2::date - interval '2 years') AND b.period_start <= $2::date
      ORDER BY b.account_id, b.period_start`,
    [byAccount.map((b) => b.accountId), periodStart],
  );
  for (const b of byAccount)
    out.set(
      b.id,
      rows
        .filter((r) => r.account_id === b.accountId)
        .slice(-60)
        .map((r) => ({ periodStart: r.period_start, periodEnd: r.period_end, gallons: r.gallons === null ? null : Number(r.gallons), totalCents: r.total_cents, number: r.number })),
    );
  return out;
}

/**
 * GET /bill-runs/:id/paper-bills.csv (the mailing list) and /bill-runs/:id/paper-bills.pdf (the
 * paper bills in one PDF): the district's staff; another district's staff and anyone else 404,
 * signed out 401.
 */
export function registerPaperMailing(app: express.Express, opts: { ds: DataSource; config: Config; log: Logger }) {
  const { ds } = opts;
  const guard = (what: string, serve: Parameters<typeof signedInFile>[2]) => signedInFile(opts, what, serve);
  app.get(
    "/bill-runs/:id/paper-bills.csv",
    guard("mailing list", async (viewer, req, res) => {
      const { csv, name } = await mailingListCsv(ds, viewer, req.params.id);
      res.status(200).set({ "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${name}"`, "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff" });
      res.end(csv);
    }),
  );
  app.get(
    "/bill-runs/:id/paper-bills.pdf",
    guard("paper bills", async (viewer, req, res) => {
      await runForStaff(ds, viewer, req.params.id);
      res.status(200).set({ "Content-Type": "application/pdf", "Content-Disposition": `inline; filename="paper-bills-${req.params.id}.pdf"`, "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff" });
      await paperBillsPdf(ds, viewer, req.params.id, res);
    }),
  );
}

import { parse } from "csv-parse/sync";
import type { DataSource, EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import type { District } from "../districts/district.entity.js";
import type { Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { actorOf, clean, lawInspectingAtSale, loadDistrict, nextInspectionNumbers, requireOperator, requireStaffOf, type Db, type Meta } from "./common.js";
import { articleSection, parseSaleDate } from "./rules.js";

/**
 * The Tax Assessor's notices of sales (SUL 703: "Upon notice from the Tax Assessor, the District
 * Operator shall inspect any newly sold property"). The District Operator, to whom 703 gives the
 * notice, enters a sale or imports the assessor's CSV (parcel, sale date, buyer); each sale opens
 * an inspection of the property unless one is already under way. Each bad row is reported with its
 * line and why; the good rows go in, in one transaction with one audit entry.
 */

export type RowError = { line: number; reason: string };
export type SaleImportView = {
  id: string;
  districtId: string;
  fileName: string;
  rowsRead: number;
  rowsImported: number;
  errors: RowError[];
  createdAt: Date;
  /** Inspections the import opened. */
  inspectionsOpened: number;
};

/** Rows a file may hold: a year of a town's sales with room to spare. */
export const MAX_ROWS = 20_000;

const COLUMN_NAMES: Record<string, "parcel" | "date" | "buyer"> = {
  parcel: "parcel",
  "tax parcel": "parcel",
  "tax map number": "parcel",
  "parcel id": "parcel",
  sbl: "parcel",
  "print key": "parcel",
  "sale date": "date",
  date: "date",
  "date of sale": "date",
  buyer: "buyer",
  "buyer name": "buyer",
  grantee: "buyer",
};

type Row = { line: number; parcel: string; date: string; buyer: string };

/** The file's rows with their line numbers, or a field error when it cannot be read as a sales file. */
function readFile(csv: string): Row[] {
  let records: string[][];
  try {
    records = parse(csv, { bom: true, skip_empty_lines: true, relax_column_count: true, on_record: (r: string[], c: { lines: number }) => (r.push(String(c.lines)), r) });
  } catch (e: any) {
    throw badInput({ file: `The file is not a CSV file we can read${e?.lines ? ` (line ${e.lines})` : ""}: ${String(e?.message ?? e).replace(/^Invalid Record Length: |^CSV_[A-Z_]+: /, "")}` });
  }
  if (records.length < 2) throw badInput({ file: "The file has no rows: its first line names the columns (parcel, sale date, buyer), each line after it is a sale." });
  const header = records[0].slice(0, -1).map((h) => COLUMN_NAMES[h.trim().toLowerCase().replace(/[_\s]+/g, " ")] ?? null);
  const [parcel, date, buyer] = (["parcel", "date", "buyer"] as const).map((n) => header.indexOf(n));
  if (parcel < 0 || date < 0 || buyer < 0) throw badInput({ file: "The first line must name the columns: the tax parcel, the sale date and the buyer." });
  if (records.length - 1 > MAX_ROWS) throw badInput({ file: `The file has ${records.length - 1} rows; import at most ${MAX_ROWS.toLocaleString("en-US")} at a time.` });
  const cell = (r: string[], i: number) => (i >= r.length - 1 ? "" : r[i].trim());
  return records.slice(1).map((r) => ({ line: Number(r[r.length - 1]), parcel: cell(r, parcel), date: cell(r, date), buyer: cell(r, buyer) }));
}

type Good = { line: number | null; propertyId: string; parcel: string; soldOn: CalendarDate; buyer: string; ownerUserId: string | null; address: string };

/**
 * Checks the rows against the register and what is recorded (three queries whatever the rows):
 * unknown parcel, a bad or future date, no buyer, a sale already recorded or listed twice.
 */
async function checkRows(db: Db, district: District, rows: Row[], today: CalendarDate): Promise<{ good: Good[]; errors: RowError[] }> {
  const errors: RowError[] = [];
  const parcels = [...new Set(rows.map((r) => r.parcel.toLowerCase()).filter(Boolean))];
  const found: { key: string; id: string; tax_parcel: string; owner_user_id: string | null; address: string }[] = parcels.length
    ? await db.query(
        `SELECT lower(p.tax_parcel) AS key, p.id, p.tax_parcel, p.owner_user_id, trim(coalesce(p.street_number || ' ', '') || p.street) AS address
           FROM sewer_property p WHERE p.district_id = $1 AND lower(p.tax_parcel) = ANY($2::text[])`,
        [district.id, parcels],
      )
    : [];
  const byParcel = new Map(found.map((p) => [p.key, p]));
  const recorded: { property_id: string; sold_on: string }[] = found.length
    ? await db.query(`SELECT property_id, to_char(sold_on, 'YYYY-MM-DD') AS sold_on FROM inflow_sale WHERE property_id = ANY($1::uuid[])`, [found.map((p) => p.id)])
    : [];
  const seen = new Map<string, number | null>(recorded.map((r) => [`${r.property_id}|${r.sold_on}`, null]));
  const good: Good[] = [];
  for (const r of rows) {
    const bad = (reason: string) => errors.push({ line: r.line, reason });
    if (!r.parcel) {
      bad("The tax parcel is missing.");
      continue;
    }
    const p = byParcel.get(r.parcel.toLowerCase());
    if (!p) {
      bad(`Unknown parcel "${r.parcel}": no property of that tax parcel is in this district's register.`);
      continue;
    }
    const soldOn = parseSaleDate(r.date);
    if (!soldOn) {
      bad(`The sale date "${r.date}" is not a date (use 2026-12-31 or 12/31/2026).`);
      continue;
    }
    if (soldOn > today) {
      bad(`The sale date ${formatDate(soldOn)} is in the future: the Tax Assessor gives notice of a sale made.`);
      continue;
    }
    const buyer = clean(r.buyer);
    if (!buyer || buyer.length > 200) {
      bad(buyer ? "The buyer's name is longer than 200 characters." : "The buyer is missing.");
      continue;
    }
    const key = `${p.id}|${soldOn}`;
    if (seen.has(key)) {
      const at = seen.get(key);
      bad(at ? `Duplicate: the sale of ${p.tax_parcel} on ${formatDate(soldOn)} is already on line ${at}.` : `The sale of ${p.tax_parcel} on ${formatDate(soldOn)} is already recorded.`);
      continue;
    }
    seen.set(key, r.line);
    good.push({ line: r.line, propertyId: p.id, parcel: p.tax_parcel, soldOn, buyer, ownerUserId: p.owner_user_id, address: p.address });
  }
  return { good, errors };
}

/**
 * Records the sales and opens an inspection of each property sold that has none under way (a
 * fixed number of statements whatever the rows). Returns the inspections opened.
 */
async function recordSales(tx: EntityManager, viewer: Viewer, district: District, rb: Rulebook, good: Good[], importId: string | null, today: CalendarDate): Promise<number> {
  if (!good.length) return 0;
  const sales: { id: string; property_id: string; sold_on: string }[] = await tx.query(
    `INSERT INTO inflow_sale (district_id, property_id, sold_on, buyer_name, import_id, line, entered_by_id)
     SELECT $1, r.property_id, r.sold_on, r.buyer, $5, r.line, $6 FROM unnest($2::uuid[], $3::date[], $4::text[], $7::int[]) AS r(property_id, sold_on, buyer, line)
     RETURNING id, property_id, to_char(sold_on, 'YYYY-MM-DD') AS sold_on`,
    [district.id, good.map((g) => g.propertyId), good.map((g) => g.soldOn), good.map((g) => g.buyer), importId, viewer.userId, good.map((g) => g.line)],
  );
  // The latest sale of each property opens its inspection, unless one is under way.
  const latest = new Map<string, Good>();
  for (const g of good) if (!latest.has(g.propertyId) || latest.get(g.propertyId)!.soldOn < g.soldOn) latest.set(g.propertyId, g);
  // The properties sold are locked (in a fixed order) so a request or an opening at the same moment waits for this one.
  await tx.query(`SELECT id FROM sewer_property WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, [[...latest.keys()]]);
  const busy: { property_id: string }[] = await tx.query(`SELECT property_id FROM inflow_inspection WHERE property_id = ANY($1::uuid[]) AND status IN ('OPEN', 'ORDERED')`, [[...latest.keys()]]);
  for (const b of busy) latest.delete(b.property_id);
  const opening = [...latest.values()];
  if (!opening.length) return 0;
  const numbers = await nextInspectionNumbers(tx, district, today.slice(0, 4), opening.length);
  const saleByKey = new Map(sales.map((s) => [`${s.property_id}|${s.sold_on}`, s.id]));
  const opened: { id: string; property_id: string; number: string }[] = await tx.query(
    `INSERT INTO inflow_inspection (district_id, property_id, number, origin, sale_id, status, rulebook_version_id, opened_by_id)
     SELECT $1, r.property_id, r.number, 'SALE', r.sale_id, 'OPEN', $5, $6 FROM unnest($2::uuid[], $3::text[], $4::uuid[]) AS r(property_id, number, sale_id)
     RETURNING id, property_id, number`,
    [district.id, opening.map((g) => g.propertyId), numbers, opening.map((g) => saleByKey.get(`${g.propertyId}|${g.soldOn}`)), rb.version.id, viewer.userId],
  );
  // The owner of record (when in the portal) hears of the inspection.
  const owners = opening.filter((g) => g.ownerUserId);
  if (owners.length) {
    const people: { id: string; email: string; display_name: string }[] = await tx.query(`SELECT id, email, display_name FROM app_user WHERE id = ANY($1::uuid[])`, [owners.map((g) => g.ownerUserId)]);
    const byId = new Map(people.map((p) => [p.id, p]));
    const numberOf = new Map(opened.map((o) => [o.property_id, o.number]));
    await enqueueEmails(
      tx,
      owners.flatMap((g) => {
        const u = byId.get(g.ownerUserId!);
        if (!u) return [];
        return [
          {
            to: u.email,
            recipientId: u.id,
            districtId: district.id,
            kind: "inflow.inspection_opened",
            subject: `Inflow inspection of ${g.address}`,
            body:
              `Hello ${u.display_name},\n\nThe Tax Assessor gave notice of the sale of ${g.address} (tax parcel ${g.parcel}) on ${formatDate(g.soldOn)}. ` +
              `The ${district.operatorTitle} will inspect the property for sump pumps, footing drains, roof leaders, cellar drains, catch basins and other inflow sources connected to the sanitary sewer (${articleSection(rb, 703)}). ` +
              `Inspection ${numberOf.get(g.propertyId)}: see it under Inflow in the portal.\n\n${district.name}\n`,
          },
        ];
      }),
    );
  }
  return opened.length;
}

/** The District Operator enters one sale from the Tax Assessor's notice (SUL 703). */
export async function recordSale(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; taxParcel: string; soldOn: string; buyerName: string },
  meta: Meta,
): Promise<{ inspectionId: string | null; saleId: string }> {
  const district = await loadDistrict(ds, input.districtId);
  requireOperator(viewer, district);
  const rb = await lawInspectingAtSale(ds, district);
  const today = dateIn(district.timeZone);
  // Every field's problem in one answer, each at its field; then the row's own checks (a sale already recorded).
  const fields: Record<string, string> = {};
  const parcel = clean(input.taxParcel);
  if (!parcel) fields.taxParcel = "Give the property's tax parcel.";
  else if (!(await ds.query(`SELECT 1 FROM sewer_property WHERE district_id = $1 AND lower(tax_parcel) = lower($2)`, [district.id, parcel])).length)
    fields.taxParcel = `Unknown parcel "${parcel}": no property of that tax parcel is in this district's register.`;
  const soldOn = parseSaleDate(input.soldOn);
  if (!soldOn) fields.soldOn = "Enter the sale date like 2026-11-20.";
  else if (soldOn > today) fields.soldOn = `The sale date ${formatDate(soldOn)} is in the future: the Tax Assessor gives notice of a sale made.`;
  const buyer = clean(input.buyerName);
  if (!buyer || buyer.length > 200) fields.buyerName = buyer ? "Keep the buyer's name to 200 characters." : "Name the buyer.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const { good, errors } = await checkRows(tx, district, [{ line: 0, parcel: parcel!, date: soldOn!, buyer: buyer! }], today);
    if (errors.length) throw badInput({ soldOn: errors[0].reason });
    good[0].line = null;
    const opened = await recordSales(tx, viewer, district, rb, good, null, today);
    const [sale] = await tx.query(`SELECT id FROM inflow_sale WHERE property_id = $1 AND sold_on = $2`, [good[0].propertyId, good[0].soldOn]);
    const [insp] = await tx.query(`SELECT id FROM inflow_inspection WHERE property_id = $1 AND status IN ('OPEN', 'ORDERED')`, [good[0].propertyId]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "inflow.sale_recorded",
      entityType: "InflowSale",
      entityId: sale.id,
      districtId: district.id,
      details: { taxParcel: good[0].parcel, soldOn: good[0].soldOn, buyerName: good[0].buyer, inspectionOpened: opened > 0, inspectionId: insp?.id ?? null },
    });
    return { saleId: sale.id, inspectionId: insp?.id ?? null };
  });
}

/** The District Operator imports the assessor's CSV of sales: each bad row reported with its line, the good rows in. */
export async function importSales(ds: DataSource, viewer: Viewer, input: { districtId: string; fileName: string; csv: string }, meta: Meta): Promise<SaleImportView> {
  const district = await loadDistrict(ds, input.districtId);
  requireOperator(viewer, district);
  const rb = await lawInspectingAtSale(ds, district);
  const fileName = (clean(input.fileName) ?? "sales.csv").slice(0, 200);
  const rows = readFile(input.csv ?? "");
  const today = dateIn(district.timeZone);
  return ds.transaction(async (tx) => {
    // One import of a district at a time, so two files cannot both record one sale.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('inflow_sale_import:' || $1))`, [district.id]);
    const { good, errors } = await checkRows(tx, district, rows, today);
    errors.sort((a, b) => a.line - b.line);
    const [imp] = await tx.query(
      `INSERT INTO inflow_sale_import (district_id, file_name, rows_read, rows_imported, errors, entered_by_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, created_at`,
      [district.id, fileName, rows.length, good.length, JSON.stringify(errors), viewer.userId],
    );
    const opened = await recordSales(tx, viewer, district, rb, good, imp.id, today);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "inflow.sales_imported",
      entityType: "InflowSaleImport",
      entityId: imp.id,
      districtId: district.id,
      details: { fileName, rowsRead: rows.length, rowsImported: good.length, rowsRejected: errors.length, inspectionsOpened: opened },
    });
    return { id: imp.id, districtId: district.id, fileName, rowsRead: rows.length, rowsImported: good.length, errors, createdAt: imp.created_at, inspectionsOpened: opened };
  });
}

/** One import's report, for the district's staff. */
export async function getSaleImport(ds: DataSource, viewer: Viewer, id: string): Promise<SaleImportView> {
  const [r] = isUuid(id ?? "")
    ? await ds.query(
        `SELECT m.*, (SELECT count(*)::int FROM inflow_inspection i JOIN inflow_sale s ON s.id = i.sale_id WHERE s.import_id = m.id) AS opened FROM inflow_sale_import m WHERE m.id = $1`,
        [id],
      )
    : [];
  if (!r) throw notFound("That import");
  try {
    requireStaffOf(viewer, r.district_id);
  } catch {
    throw notFound("That import");
  }
  return { id: r.id, districtId: r.district_id, fileName: r.file_name, rowsRead: r.rows_read, rowsImported: r.rows_imported, errors: r.errors ?? [], createdAt: r.created_at, inspectionsOpened: r.opened };
}

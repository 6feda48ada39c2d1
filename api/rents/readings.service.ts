import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import type { DataSource } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { isUuid } from "../documents/documents.service.js";
import type { Page } from "../graphql/page.js";
import { pageSize } from "../common/paging.js";
import { uuid7 } from "../common/uuid7.js";
import { actorOf, clean, requireClerk, type Db, type Meta } from "./common.js";
import {
  COLUMN_NAMES,
  afterRead,
  estimateRead,
  measureActual,
  measureReaderEstimate,
  parseKind,
  parseReadDate,
  parseReading,
  type MeterState,
  type ReadFlag,
  type ReadKind,
  type Register,
} from "./readings.rules.js";

/**
 * Importing meter readings (SUL 1205) as handheld and drive-by reading systems export them: each
 * bad row reported with its line and why, the good rows imported in one transaction with an audit
 * entry, and the import kept with its counts and report. Statements are fixed whatever the number
 * of rows (reads are written a few thousand to a statement).
 */

export type RowError = { line: number; reason: string };
export type ImportView = {
  id: string;
  districtId: string;
  fileName: string;
  rowsRead: number;
  rowsImported: number;
  rowsEstimated: number;
  rowsRejected: number;
  errors: RowError[];
  enteredByName: string | null;
  createdAt: Date;
};
export type ReadingView = {
  id: string;
  meterId: string;
  meterNumber: string;
  readOn: CalendarDate;
  reading: number;
  kind: ReadKind;
  gallons: number | null;
  flags: ReadFlag[];
  importId: string | null;
  line: number | null;
  truedUpById: string | null;
};

/** Rows a file may hold: a district's quarter with room to spare. */
export const MAX_ROWS = 200_000;
const CHUNK = 5_000;

const toImport = (r: any): ImportView => ({
  id: r.id,
  districtId: r.district_id,
  fileName: r.file_name,
  rowsRead: r.rows_read,
  rowsImported: r.rows_imported,
  rowsEstimated: r.rows_estimated,
  rowsRejected: r.rows_rejected,
  errors: r.errors ?? [],
  enteredByName: r.entered_by_name ?? null,
  createdAt: r.created_at,
});

type Row = { line: number; account: string; meter: string; date: string; reading: string; kind: string; newMeter: string; newReading: string };

/**
 * A file with no quotes, its lines ending all in \n or all in \r\n, as reading systems export them:
 * its records as csv-parse reads it below (empty lines skipped, each record ending with its line
 * number), split here at a tenth of the cost; null for any other file.
 */
function plainRecords(csv: string): string[][] | null {
  if (csv.includes('"')) return null;
  if (csv.charCodeAt(0) === 0xfeff) csv = csv.slice(1);
  let eol = "\n";
  if (csv.includes("\r")) {
    const count = (s: string) => {
      let n = 0;
      for (let i = csv.indexOf(s); i >= 0; i = csv.indexOf(s, i + 1)) n++;
      return n;
    };
    const crlf = count("\r\n");
    if (crlf !== count("\r") || crlf !== count("\n")) return null;
    eol = "\r\n";
  }
  const lines = csv.split(eol);
  const records: string[][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === "") continue;
    const r = lines[i].split(",");
    r.push(String(i + 1));
    records.push(r);
  }
  return records;
}

/** The file's rows with their line numbers, or a field error when it cannot be read as a reading file. */
function readFile(csv: string): Row[] {
  let records: string[][];
  try {
    // Each record carries the line it ends on (cheaper than csv-parse's `info` object per record).
    records = plainRecords(csv) ?? parse(csv, { bom: true, skip_empty_lines: true, relax_column_count: true, on_record: (r: string[], c: { lines: number }) => (r.push(String(c.lines)), r) });
  } catch (e: any) {
    throw badInput({ file: `The file is not a CSV file we can read${e?.lines ? ` (line ${e.lines})` : ""}: ${String(e?.message ?? e).replace(/^Invalid Record Length: |^CSV_[A-Z_]+: /, "")}` });
  }
  if (records.length < 2) throw badInput({ file: "The file has no rows: its first line names the columns (meter or account, date, reading), each line after it is a read." });
  const header = records[0].slice(0, -1).map((h) => COLUMN_NAMES[h.trim().toLowerCase().replace(/\s+/g, " ")] ?? null);
  const at = (name: string) => header.indexOf(name as never);
  const [account, meter, date, reading, kind, newMeter, newReading] = ["account", "meter", "date", "reading", "kind", "newMeter", "newReading"].map(at);
  if (date < 0 || reading < 0 || (meter < 0 && account < 0))
    throw badInput({ file: "The first line must name the columns: a meter number or an account number, the read date and the reading (kind is optional)." });
  if (records.length - 1 > MAX_ROWS) throw badInput({ file: `The file has ${records.length - 1} rows; import at most ${MAX_ROWS.toLocaleString("en-US")} at a time.` });
  const cell = (r: string[], i: number) => (i < 0 || i >= r.length - 1 ? "" : r[i].trim());
  const out: Row[] = new Array(records.length - 1);
  for (let k = 1; k < records.length; k++) {
    const r = records[k];
    out[k - 1] = {
      line: Number(r[r.length - 1]),
      account: cell(r, account),
      meter: cell(r, meter),
      date: cell(r, date),
      reading: cell(r, reading),
      kind: cell(r, kind),
      newMeter: cell(r, newMeter),
      newReading: cell(r, newReading),
    };
  }
  return out;
}

type MeterRow = {
  id: string;
  /** Lower-cased, to match the file's; `label` as the register spells it. */
  number: string;
  label: string;
  installedOn: CalendarDate;
  removedOn: CalendarDate | null;
  register: Register;
  state: MeterState;
  isNew?: boolean;
};

type Good = { id: string; meter: MeterRow; readOn: CalendarDate; reading: number; kind: ReadKind; gallons: number | null; flags: ReadFlag[]; line: number | null };

/**
 * The Town Clerk imports a reading file. Each bad row is reported (unknown meter or account, a bad
 * date or one in the future, a bad number, a reading lower than the last that is not a rollover, a
 * duplicate); the good rows go in. A blank reading (or kind E) with no reading is a missing read,
 * estimated from the account's own use; a row naming a new meter is a meter change.
 */
export async function importReadings(ds: DataSource, viewer: Viewer, input: { districtId: string; fileName: string; csv: string }, meta: Meta): Promise<ImportView> {
  if (!isUuid(input.districtId)) throw forbidden("Only the Town Clerk of this district imports its meter readings.");
  requireClerk(viewer, input.districtId);
  const fileName = clean(input.fileName) ?? "readings.csv";
  if (fileName.length > 200) throw badInput({ fileName: "Use a file name of at most 200 characters." });
  const rows = readFile(input.csv ?? "");

  return ds.transaction(async (tx) => {
    // No JIT in this transaction: compiling the meters' statement for 50,000 meters took longer than running it (0.5 of 1.3 s).
    const [district] = await tx.query(`SELECT id, time_zone, set_config('jit', 'off', true) FROM district WHERE id = $1`, [input.districtId]);
    if (!district) throw notFound("That district");
    const today = dateIn(district.time_zone);
    const errors: RowError[] = [];
    const bad = (line: number, reason: string) => errors.push({ line, reason });

    // Each number the file names, and whether a row naming it has no reading (to be estimated from the meter's own use).
    const numbers = new Map<string, boolean>();
    const accounts = new Map<string, boolean>();
    for (const r of rows) {
      const blank = r.reading === "";
      if (r.meter) numbers.set(r.meter.toLowerCase(), blank || numbers.get(r.meter.toLowerCase()) === true);
      else if (r.account) accounts.set(r.account.toLowerCase(), blank || accounts.get(r.account.toLowerCase()) === true);
      if (r.newMeter && !numbers.has(r.newMeter.toLowerCase())) numbers.set(r.newMeter.toLowerCase(), false);
    }
    // One import at a time in a district (two files naming the same meter would measure from the same last read).
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('meter_reading_import'), hashtext($1))`, [district.id]);
    // Every meter the file names or the accounts it names are served by, with what a new read is measured from.
    const meterRows = await metersNamed(
      tx,
      district.id,
      [...numbers].map(([number, estimating]) => ({ number, estimating })),
      [...accounts].map(([number, estimating]) => ({ number, estimating })),
    );
    const accountRows: any[] = accounts.size
      ? await tx.query(
          `SELECT lower(a.account_number) AS number, a.id, a.opened_on::text AS opened_on, a.closed_on::text AS closed_on, am.meter_id
             FROM unnest($2::text[]) AS n(number) JOIN service_account a ON a.district_id = $1 AND lower(a.account_number) = n.number
             LEFT JOIN service_account_meter am ON am.account_id = a.id`,
          [district.id, [...accounts.keys()]],
        )
      : [];

    const meters = new Map<string, MeterRow>();
    const byNumber = new Map<string, MeterRow[]>();
    for (const r of meterRows) {
      const twice = meters.get(r.id);
      if (twice) {
        // Named by number and by an account: its own use is read where a row to estimate named it.
        if (r.estimating) twice.state = toMeterRow(r).state;
        continue;
      }
      const m = toMeterRow(r);
      meters.set(m.id, m);
      byNumber.set(m.number, [...(byNumber.get(m.number) ?? []), m]);
    }
    const accountsByNumber = new Map<string, { id: string; openedOn: string; closedOn: string | null; meterIds: string[] }>();
    for (const r of accountRows) {
      const a = accountsByNumber.get(r.number) ?? { id: r.id, openedOn: r.opened_on, closedOn: r.closed_on, meterIds: [] as string[] };
      if (r.meter_id) a.meterIds.push(r.meter_id);
      accountsByNumber.set(r.number, a);
    }
    const inServiceOn = (m: MeterRow, day: CalendarDate) => m.installedOn <= day && (m.removedOn === null || day <= m.removedOn);

    // Each row checked on its own, then the meter's rows in date order.
    type Parsed = { row: Row; meter: MeterRow; readOn: CalendarDate; reading: number | null; kind: ReadKind; change: { number: string; start: number } | null };
    const parsed: Parsed[] = [];
    const changes: { old: MeterRow; fresh: MeterRow }[] = [];
    for (const row of rows) {
      const readOn = parseReadDate(row.date);
      if (!readOn) {
        bad(row.line, `The read date "${row.date}" is not a date (use 2026-12-31 or 12/31/2026).`);
        continue;
      }
      if (readOn > today) {
        bad(row.line, `The read date ${readOn} is in the future.`);
        continue;
      }
      const kind = parseKind(row.kind);
      if (!kind) {
        bad(row.line, `The kind "${row.kind}" is not one we know: use A (actual) or E (estimated).`);
        continue;
      }
      const blank = row.reading.trim() === "";
      const reading = blank ? null : parseReading(row.reading);
      if (!blank && reading === null) {
        bad(row.line, `The reading "${row.reading}" is not a whole number.`);
        continue;
      }
      if (blank && row.kind.trim() !== "" && kind === "ACTUAL") {
        bad(row.line, "An actual read needs its reading (leave the kind empty or E to have it estimated).");
        continue;
      }
      let meter: MeterRow | undefined;
      if (row.meter) {
        const candidates = byNumber.get(row.meter.toLowerCase()) ?? [];
        meter = candidates.find((m) => inServiceOn(m, readOn));
        if (!meter) {
          const other = candidates[0];
          if (!other) bad(row.line, `Unknown meter "${row.meter}": no meter of that number is in this district's register.`);
          else if (readOn < other.installedOn) bad(row.line, `Meter ${row.meter} was installed on ${other.installedOn}, after the read date ${readOn}.`);
          else bad(row.line, `Meter ${row.meter} was taken out of service on ${other.removedOn}, before the read date ${readOn}.`);
          continue;
        }
      } else {
        const a = accountsByNumber.get(row.account.toLowerCase());
        if (!a) {
          bad(row.line, `Unknown account "${row.account}": no account of that number is in this district's register.`);
          continue;
        }
        if (readOn < a.openedOn || (a.closedOn !== null && readOn > a.closedOn)) {
          bad(row.line, `Account ${row.account} was not open on ${readOn} (open ${a.openedOn}${a.closedOn ? ` to ${a.closedOn}` : " on"}).`);
          continue;
        }
        const serving = a.meterIds.map((id) => meters.get(id)!).filter((m) => m && inServiceOn(m, readOn));
        if (serving.length !== 1) {
          bad(row.line, serving.length ? `Account ${row.account} has ${serving.length} meters: give the meter number.` : `Account ${row.account} has no meter in service on ${readOn}.`);
          continue;
        }
        meter = serving[0];
      }
      let change: Parsed["change"] = null;
      if (row.newMeter) {
        const start = parseReading(row.newReading || "0");
        const taken = (byNumber.get(row.newMeter.toLowerCase()) ?? []).some((m) => m.removedOn === null);
        if (start === null) bad(row.line, `The new meter's reading "${row.newReading}" is not a whole number.`);
        else if (taken) bad(row.line, `Meter ${row.newMeter} is already in service: a meter change names a new meter.`);
        else if (reading === null) bad(row.line, "A meter change needs the old meter's final reading.");
        if (start === null || taken || reading === null) continue;
        change = { number: row.newMeter, start };
      }
      parsed.push({ row, meter, readOn, reading, kind, change });
    }

    // Each meter's rows in date order (then line); most meters have one row in a file.
    const byMeter = new Map<MeterRow, Parsed[]>();
    for (const p of parsed) {
      const those = byMeter.get(p.meter);
      if (those) those.push(p);
      else byMeter.set(p.meter, [p]);
    }
    const good: Good[] = [];
    let estimated = 0;
    for (const [m, those] of byMeter) {
      if (those.length > 1) those.sort((a, b) => (a.readOn < b.readOn ? -1 : a.readOn > b.readOn ? 1 : a.row.line - b.row.line));
      // The meter's read taken last from this file: rows are in date order, so a second row of its day is its duplicate.
      let taken: { readOn: CalendarDate; line: number } | null = null;
      for (const p of those) {
        if (taken && taken.readOn === p.readOn) {
          bad(p.row.line, `Duplicate: meter ${m.label} already has a read on ${p.readOn} (line ${taken.line}).`);
          continue;
        }
        const last = m.state.last;
        if (last && p.readOn === last.readOn) {
          bad(p.row.line, `Duplicate: meter ${m.label} already has a read on ${p.readOn}.`);
          continue;
        }
        if (last && p.readOn < last.readOn) {
          bad(p.row.line, `Meter ${m.label} already has a later read (${last.readOn}); a read cannot be added before it.`);
          continue;
        }
        let reading: number, gallons: number | null, flags: ReadFlag[];
        if (p.reading === null) {
          const e = estimateRead(m.register, m.state, p.readOn);
          if ("error" in e) {
            bad(p.row.line, e.error);
            continue;
          }
          ({ reading, gallons, flags } = e);
        } else {
          const r = p.kind === "ESTIMATED" ? measureReaderEstimate(m.register, m.state, p.reading) : measureActual(m.register, m.state, p.reading);
          if ("error" in r) {
            bad(p.row.line, r.error);
            continue;
          }
          reading = p.reading;
          ({ gallons, flags } = r);
        }
        const kind: ReadKind = p.reading === null ? "ESTIMATED" : p.kind;
        if (p.change || m.removedOn === p.readOn) flags = [...flags, "FINAL"];
        taken = { readOn: p.readOn, line: p.row.line };
        // Time-ordered ids (uuid7): 50,000 reads go in at the primary key's right edge, not at random pages (about 10% of each insert, docs/benchmarks.md).
        good.push({ id: uuid7(), meter: m, readOn: p.readOn, reading, kind, gallons, flags, line: p.row.line });
        if (kind === "ESTIMATED") estimated++;
        m.state = afterRead(m.state, p.readOn, reading, kind, gallons);
        if (p.change) {
          m.removedOn = p.readOn;
          const fresh: MeterRow = {
            id: randomUUID(),
            number: p.change.number.toLowerCase(),
            label: p.change.number,
            installedOn: p.readOn,
            removedOn: null,
            register: { ...m.register, startReading: p.change.start },
            state: { last: null, lastActual: null, estimatedSince: 0, usage: null },
            isNew: true,
          };
          changes.push({ old: m, fresh });
        }
      }
    }
    errors.sort((a, b) => a.line - b.line);

    const [imp] = await tx.query(
      `INSERT INTO meter_reading_import (district_id, file_name, rows_read, rows_imported, rows_estimated, rows_rejected, errors, entered_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [district.id, fileName, rows.length, good.length, estimated, errors.length, JSON.stringify(errors), viewer.userId],
    );
    if (changes.length) {
      // A meter change: the old meter out of service on its final read's day, the new one in service from it, serving the same open accounts.
      await tx.query(`UPDATE service_meter m SET removed_on = c.day FROM unnest($1::uuid[], $2::date[]) AS c(id, day) WHERE m.id = c.id`, [
        changes.map((c) => c.old.id),
        changes.map((c) => c.fresh.installedOn),
      ]);
      await tx.query(
        `INSERT INTO service_meter (id, district_id, property_id, meter_number, installed_on, register_digits, gallons_per_unit, start_reading)
         SELECT c.id, $1, o.property_id, c.number, c.day, o.register_digits, o.gallons_per_unit, c.start
           FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::date[], $6::bigint[]) AS c(id, old_id, number, day, start) JOIN service_meter o ON o.id = c.old_id`,
        [district.id, changes.map((c) => c.fresh.id), changes.map((c) => c.old.id), changes.map((c) => c.fresh.label), changes.map((c) => c.fresh.installedOn), changes.map((c) => c.fresh.register.startReading)],
      );
      await tx.query(
        `INSERT INTO service_account_meter (account_id, meter_id)
         SELECT x.account_id, c.new_id FROM unnest($1::uuid[], $2::uuid[]) AS c(old_id, new_id)
           JOIN service_account_meter x ON x.meter_id = c.old_id JOIN service_account a ON a.id = x.account_id AND a.closed_on IS NULL`,
        [changes.map((c) => c.old.id), changes.map((c) => c.fresh.id)],
      );
    }
    await insertReads(tx, district.id, imp.id, null, good);
    // An actual read trues up the estimates before it: each estimate points at the read that did.
    const actualMeters = [...new Set(good.filter((g) => g.kind === "ACTUAL" && g.flags.includes("TRUE_UP")).map((g) => g.meter.id))];
    if (actualMeters.length)
      await tx.query(
        `UPDATE meter_reading e SET trued_up_by_id = t.id
           FROM (SELECT DISTINCT ON (e2.id) e2.id AS estimate_id, a.id FROM meter_reading e2
                   JOIN meter_reading a ON a.meter_id = e2.meter_id AND a.kind = 'ACTUAL' AND a.read_on > e2.read_on
                  WHERE e2.meter_id = ANY($1::uuid[]) AND e2.kind = 'ESTIMATED' AND e2.trued_up_by_id IS NULL
                  ORDER BY e2.id, a.read_on) t
          WHERE e.id = t.estimate_id`,
        [actualMeters],
      );
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "rents.readings_imported",
      entityType: "MeterReadingImport",
      entityId: imp.id,
      districtId: district.id,
      details: { fileName, rowsRead: rows.length, rowsImported: good.length, rowsEstimated: estimated, rowsRejected: errors.length, meterChanges: changes.length },
    });
    return (await importsWhere(tx, "i.id = $1", [imp.id]))[0];
  });
}

/**
 * Meters of the district by number (lower-cased) or by the accounts (numbers, lower-cased) they
 * serve, with what a new read is measured from: each meter's last read, last actual read and the
 * estimates since by its (meter_id, read_on) index, never all its reads. Its own use over the last
 * year (what a missing read is estimated from) only for the meters `estimating` says (a row of the
 * file with no reading names it): three more index reads a meter. A meter named twice (by number
 * and by an account) comes twice; the caller keeps one.
 */
async function metersNamed(tx: Db, districtId: string, numbers: { number: string; estimating: boolean }[], accounts: { number: string; estimating: boolean }[]): Promise<any[]> {
  return tx.query(
    `WITH named AS (
       SELECT m.*, n.estimating FROM unnest($2::text[], $3::boolean[]) AS n(number, estimating) JOIN service_meter m ON m.district_id = $1 AND lower(m.meter_number) = n.number
       UNION ALL
       SELECT m.*, n.estimating FROM unnest($4::text[], $5::boolean[]) AS n(number, estimating)
         JOIN service_account a ON a.district_id = $1 AND lower(a.account_number) = n.number
         JOIN service_account_meter am ON am.account_id = a.id JOIN service_meter m ON m.id = am.meter_id)
     SELECT m.id, m.meter_number AS label, m.estimating, m.installed_on::text AS installed_on, m.removed_on::text AS removed_on,
            m.register_digits, m.gallons_per_unit::float8 AS gallons_per_unit, m.start_reading::text AS start_reading,
            l.read_on::text AS last_on, l.reading::text AS last_reading, l.kind AS last_kind,
            la.read_on::text AS actual_on, la.reading::text AS actual_reading,
            e.gallons::text AS estimated_since, u.usage_from::text AS usage_from, ug.gallons::text AS usage_gallons
       FROM named m
       LEFT JOIN LATERAL (SELECT r.read_on, r.reading, r.kind FROM meter_reading r WHERE r.meter_id = m.id ORDER BY r.read_on DESC LIMIT 1) l ON true
       -- The last actual read: the last read unless that is an estimate.
       LEFT JOIN LATERAL (SELECT l.read_on, l.reading WHERE l.kind = 'ACTUAL'
                          UNION ALL
                          (SELECT r.read_on, r.reading FROM meter_reading r WHERE l.kind = 'ESTIMATED' AND r.meter_id = m.id AND r.kind = 'ACTUAL' ORDER BY r.read_on DESC LIMIT 1)) la ON true
       LEFT JOIN LATERAL (SELECT sum(r.consumption_gallons) AS gallons FROM meter_reading r
                           WHERE l.kind = 'ESTIMATED' AND r.meter_id = m.id AND r.read_on > coalesce(la.read_on, '-infinity') AND r.kind = 'ESTIMATED') e ON true
       -- Its own use: from its first actual read in the year to the last one, not before the current occupant's account opened.
       LEFT JOIN LATERAL (SELECT min(r.read_on) AS usage_from FROM meter_reading r
                           WHERE m.estimating AND la.read_on IS NOT NULL AND r.meter_id = m.id AND r.kind = 'ACTUAL'
                             AND r.read_on >= greatest(la.read_on - 365, coalesce((SELECT max(a.opened_on) FROM service_account_meter x JOIN service_account a ON a.id = x.account_id AND a.closed_on IS NULL WHERE x.meter_id = m.id), la.read_on - 365))) u ON true
       LEFT JOIN LATERAL (SELECT sum(r.consumption_gallons) AS gallons FROM meter_reading r
                           WHERE u.usage_from < la.read_on AND r.meter_id = m.id AND r.read_on > u.usage_from AND r.read_on <= la.read_on) ug ON true`,
    [districtId, numbers.map((n) => n.number), numbers.map((n) => n.estimating), accounts.map((a) => a.number), accounts.map((a) => a.estimating)],
  );
}

function toMeterRow(r: any): MeterRow {
  return {
    id: r.id,
    number: r.label.toLowerCase(),
    label: r.label,
    installedOn: r.installed_on,
    removedOn: r.removed_on,
    register: { digits: r.register_digits, gallonsPerUnit: Number(r.gallons_per_unit), startReading: r.start_reading === null ? null : Number(r.start_reading) },
    state: {
      last: r.last_on ? { readOn: r.last_on, reading: Number(r.last_reading), kind: r.last_kind } : null,
      lastActual: r.actual_on ? { readOn: r.actual_on, reading: Number(r.actual_reading) } : null,
      estimatedSince: r.estimated_since === null ? 0 : Number(r.estimated_since),
      usage: r.usage_from && r.usage_gallons !== null ? { gallons: Number(r.usage_gallons), days: daysFrom(r.usage_from, r.actual_on) } : null,
    },
  };
}

/**
 * One actual read the Town Clerk records outside a file, in the caller's transaction (an account's
 * final reading when it closes, SUL 1205's "records of meter readings"): measured from the meter's
 * reads like an imported one (rollover, true-up of estimates before it), flagged FINAL when it is
 * the last read for a leaving account. Returns why it cannot be recorded, for the caller's field.
 */
export async function recordActualRead(
  tx: Db,
  input: { districtId: string; meterId: string; meterNumber: string; readOn: CalendarDate; reading: number; userId: string; final: boolean },
): Promise<{ error: string } | { id: string; gallons: number | null; flags: ReadFlag[] }> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('meter_reading_import'), hashtext($1))`, [input.districtId]);
  const row = (await metersNamed(tx, input.districtId, [{ number: input.meterNumber.toLowerCase(), estimating: false }], [])).find((r) => r.id === input.meterId);
  if (!row) return { error: "The account's meter is not in the register." };
  const m = toMeterRow(row);
  const last = m.state.last;
  if (last && input.readOn <= last.readOn)
    return { error: last.readOn === input.readOn ? `Meter ${m.label} already has a read on ${input.readOn}.` : `Meter ${m.label} already has a later read (${last.readOn}).` };
  const r = measureActual(m.register, m.state, input.reading);
  if ("error" in r) return r;
  const flags: ReadFlag[] = input.final ? [...r.flags, "FINAL"] : r.flags;
  const id = randomUUID();
  await insertReads(tx, input.districtId, null, input.userId, [{ id, meter: m, readOn: input.readOn, reading: input.reading, kind: "ACTUAL", gallons: r.gallons, flags, line: null }]);
  if (flags.includes("TRUE_UP"))
    await tx.query(`UPDATE meter_reading SET trued_up_by_id = $2 WHERE meter_id = $1 AND kind = 'ESTIMATED' AND trued_up_by_id IS NULL AND read_on < $3`, [m.id, id, input.readOn]);
  return { id, gallons: r.gallons, flags };
}

const daysFrom = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/**
 * The reads, a few thousand to a statement (arrays unnested: one statement whatever a chunk's size);
 * an imported read's enterer is its import's (entered_by_id only on a read recorded by hand).
 * Each array goes as its literal, written here: none of its values needs escaping (ids, dates,
 * numbers, the kinds and flags' names), which costs a tenth of the driver's escaping value by value.
 */
async function insertReads(tx: Db, districtId: string, importId: string | null, enteredById: string | null, good: Good[]) {
  const literal = (values: (string | number | null)[]) => `{${values.map((v) => (v === null ? "NULL" : v)).join(",")}}`;
  for (let i = 0; i < good.length; i += CHUNK) {
    const c = good.slice(i, i + CHUNK);
    await tx.query(
      `INSERT INTO meter_reading (id, district_id, meter_id, read_on, reading, kind, consumption_gallons, flags, import_id, line, entered_by_id)
       SELECT r.id, $1, r.meter_id, r.read_on, r.reading, r.kind, r.gallons, CASE WHEN r.flags = '' THEN '{}'::text[] ELSE string_to_array(r.flags, ' ') END, $2, r.line, $3
         FROM unnest($4::uuid[], $5::uuid[], $6::date[], $7::bigint[], $8::text[], $9::bigint[], $10::text[], $11::int[])
           AS r(id, meter_id, read_on, reading, kind, gallons, flags, line)`,
      [
        districtId,
        importId,
        enteredById,
        literal(c.map((g) => g.id)),
        literal(c.map((g) => g.meter.id)),
        literal(c.map((g) => g.readOn)),
        literal(c.map((g) => g.reading)),
        literal(c.map((g) => g.kind)),
        literal(c.map((g) => g.gallons)),
        // Flags joined by spaces and quoted: an empty element is "" (none).
        literal(c.map((g) => `"${g.flags.join(" ")}"`)),
        literal(c.map((g) => g.line)),
      ],
    );
  }
}

async function importsWhere(db: Db, where: string, params: unknown[], limit = 1): Promise<ImportView[]> {
  const rows = await db.query(
    `SELECT i.*, u.display_name AS entered_by_name FROM meter_reading_import i LEFT JOIN app_user u ON u.id = i.entered_by_id
      WHERE ${where} ORDER BY i.created_at DESC, i.id DESC LIMIT ${limit}`,
    params,
  );
  return rows.map(toImport);
}

function requireStaff(viewer: Viewer, districtId: string) {
  if (!isStaff(viewer, districtId)) throw forbidden("Only staff of this district can read its meter readings.");
}

/** The district's imports, newest first, keyset-paged. */
export async function listImports(db: Db, viewer: Viewer, districtId: string, opts: { first?: number | null; after?: string | null }): Promise<Page<ImportView>> {
  if (!isUuid(districtId)) throw forbidden("Only staff of this district can read its meter readings.");
  requireStaff(viewer, districtId);
  const first = pageSize(opts.first, 20, 100);
  const params: unknown[] = [districtId];
  let where = "i.district_id = $1";
  if (opts.after) {
    const [at, id] = decodeCursor(opts.after);
    params.push(at, id);
    where += ` AND (i.created_at, i.id) < ($2::timestamptz, $3::uuid)`;
  }
  const items = await importsWhere(db, where, params, first + 1);
  const more = items.length > first;
  const page = items.slice(0, first);
  return { items: page, nextCursor: more ? encodeCursor(page[page.length - 1]) : null };
}

const encodeCursor = (i: ImportView) => Buffer.from(`${new Date(i.createdAt).toISOString()}|${i.id}`).toString("base64url");
function decodeCursor(c: string): [string, string] {
  const [at, id] = Buffer.from(c, "base64url").toString().split("|");
  if (!at || !isUuid(id ?? "") || Number.isNaN(Date.parse(at))) throw badInput({ after: "That page cursor is not valid." });
  return [at, id];
}

/** One import's report; NOT_FOUND unless the viewer is its district's staff. */
export async function getImport(db: Db, viewer: Viewer, id: string): Promise<ImportView> {
  if (!isUuid(id)) throw notFound("That import");
  const [i] = await importsWhere(db, "i.id = $1", [id]);
  if (!i || !isStaff(viewer, i.districtId)) throw notFound("That import");
  return i;
}

/** A meter's reads, newest first (at most the last `first`); NOT_FOUND unless the viewer is its district's staff. */
export async function meterReadings(db: Db, viewer: Viewer, meterId: string, first?: number | null): Promise<ReadingView[]> {
  const size = pageSize(first, 40, 200);
  if (!isUuid(meterId)) throw notFound("That meter");
  const [m] = await db.query(`SELECT id, district_id, meter_number FROM service_meter WHERE id = $1`, [meterId]);
  if (!m || !isStaff(viewer, m.district_id)) throw notFound("That meter");
  const rows = await db.query(
    `SELECT r.id, r.meter_id, r.read_on::text AS read_on, r.reading::text AS reading, r.kind, r.consumption_gallons::text AS gallons, r.flags, r.import_id, r.line, r.trued_up_by_id
       FROM meter_reading r WHERE r.meter_id = $1 ORDER BY r.read_on DESC LIMIT $2`,
    [meterId, size],
  );
  return rows.map((r: any) => ({
    id: r.id,
    meterId: r.meter_id,
    meterNumber: m.meter_number,
    readOn: r.read_on,
    reading: Number(r.reading),
    kind: r.kind,
    gallons: r.gallons === null ? null : Number(r.gallons),
    flags: r.flags,
    importId: r.import_id,
    line: r.line,
    truedUpById: r.trued_up_by_id,
  }));
}

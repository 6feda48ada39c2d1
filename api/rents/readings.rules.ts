import { daysBetween, type CalendarDate } from "../common/dates.js";

/**
 * Meter readings as the law's volume (SUL 1205: "metered water consumption as shown on the records
 * of meter readings"): how far a register moved between two reads (through its limit when it
 * rolled over), a meter's first read, an estimate when the reader could not read the meter, and the
 * true-up by the next actual read. Pure functions; the import (readings.service.ts) applies them.
 * See docs/decisions/meter-readings.md.
 */

export type Register = { digits: number; gallonsPerUnit: number; startReading: number | null };
export type ReadKind = "ACTUAL" | "ESTIMATED";
export type ReadFlag = "ROLLOVER" | "TRUE_UP" | "FIRST_READ" | "BASELINE" | "FINAL" | "FROM_AVERAGE";
export const READ_KINDS: readonly ReadKind[] = ["ACTUAL", "ESTIMATED"];

export const READ_KIND_LABELS: Record<ReadKind, string> = { ACTUAL: "Actual read", ESTIMATED: "Estimated" };
export const READ_FLAG_LABELS: Record<ReadFlag, string> = {
  ROLLOVER: "Register rolled over",
  TRUE_UP: "Trues up the estimates before it",
  FIRST_READ: "First read of the meter, from its start reading",
  BASELINE: "First read of the meter: no use measured",
  FINAL: "Final read of a meter taken out",
  FROM_AVERAGE: "Estimated from the account's average daily use",
};

/** The register's limit: it shows 0 to 10^digits - 1 and rolls over to 0 past it. */
export const registerLimit = (digits: number) => 10 ** digits;

/**
 * Units the register moved from `previous` to `reading`. Forward when the reading is not lower;
 * a lower reading is a rollover when going through the limit is the smaller movement (the meter
 * went round rather than back), else it is a lower read (null): a meter does not run backward.
 */
export function registerAdvance(previous: number, reading: number, digits: number): { units: number; rollover: boolean } | null {
  if (reading >= previous) return { units: reading - previous, rollover: false };
  const through = registerLimit(digits) - previous + reading;
  return through < previous - reading ? { units: through, rollover: true } : null;
}

export const gallonsOf = (units: number, gallonsPerUnit: number) => Math.round(units * gallonsPerUnit);

/** The meter's reads already on record that a new read is measured from. */
export type MeterState = {
  /** The latest read of any kind. */
  last: { readOn: CalendarDate; reading: number; kind: ReadKind } | null;
  /** The latest actual read (the register as really seen). */
  lastActual: { readOn: CalendarDate; reading: number } | null;
  /** Gallons of the estimates after the last actual read (trued up by the next one). */
  estimatedSince: number;
  /** The account's own use to estimate from: gallons and days between its actual reads (see averageDailyUse). */
  usage: { gallons: number; days: number } | null;
};

export type Measured = { gallons: number | null; flags: ReadFlag[] } | { error: string };

/**
 * The gallons an actual read measures: from the last actual read, less what the estimates since it
 * already counted (the true-up: negative when they overestimated); a meter's first read counts
 * from its start reading when known, else it is the baseline later reads are measured from.
 */
export function measureActual(reg: Register, s: MeterState, reading: number): Measured {
  if (reading >= registerLimit(reg.digits)) return { error: `The reading has more digits than the meter's register (${reg.digits}).` };
  const from = s.lastActual?.reading ?? reg.startReading;
  if (from === null || from === undefined) return { gallons: null, flags: ["BASELINE"] };
  const advance = registerAdvance(from, reading, reg.digits);
  if (!advance) return { error: `The reading ${reading} is lower than the last one (${from}${s.lastActual ? `, ${s.lastActual.readOn}` : ", the meter's start reading"}) and is not a rollover of its register.` };
  const flags: ReadFlag[] = [];
  if (advance.rollover) flags.push("ROLLOVER");
  if (!s.lastActual) flags.push("FIRST_READ");
  if (s.lastActual && s.last && s.last.kind === "ESTIMATED") flags.push("TRUE_UP");
  return { gallons: gallonsOf(advance.units, reg.gallonsPerUnit) - (s.lastActual ? s.estimatedSince : 0), flags };
}

/** A reader's own estimate with a reading: measured from the latest read of any kind. */
export function measureReaderEstimate(reg: Register, s: MeterState, reading: number): Measured {
  if (reading >= registerLimit(reg.digits)) return { error: `The reading has more digits than the meter's register (${reg.digits}).` };
  if (!s.last) return { error: "The meter has no earlier read to estimate from: enter an actual reading." };
  const advance = registerAdvance(s.last.reading, reading, reg.digits);
  if (!advance) return { error: `The estimated reading ${reading} is lower than the last one (${s.last.reading}, ${s.last.readOn}).` };
  return { gallons: gallonsOf(advance.units, reg.gallonsPerUnit), flags: advance.rollover ? ["ROLLOVER"] : [] };
}

/** Average daily gallons over the account's own actual reads, or null when there is none to go on. */
export function averageDailyUse(usage: MeterState["usage"]): number | null {
  if (!usage || usage.days <= 0 || usage.gallons < 0) return null;
  return usage.gallons / usage.days;
}

/**
 * A missing read estimated from the account's own average daily use times the days since the
 * meter's latest read, rounded to the register's unit; the register reading it stands for wraps
 * past the limit like the meter would.
 */
export function estimateRead(reg: Register, s: MeterState, readOn: CalendarDate): { reading: number; gallons: number; flags: ReadFlag[] } | { error: string } {
  const daily = averageDailyUse(s.usage);
  if (!s.last || daily === null) return { error: "There is no earlier use of this account to estimate from: enter the reading." };
  const units = Math.round((daily * daysBetween(s.last.readOn, readOn)) / reg.gallonsPerUnit);
  const raw = s.last.reading + units;
  const limit = registerLimit(reg.digits);
  const flags: ReadFlag[] = ["FROM_AVERAGE"];
  if (raw >= limit) flags.push("ROLLOVER");
  return { reading: raw % limit, gallons: gallonsOf(units, reg.gallonsPerUnit), flags };
}

/** The state after a read is recorded, for the next row of the same meter in the same file. */
export function afterRead(s: MeterState, readOn: CalendarDate, reading: number, kind: ReadKind, gallons: number | null): MeterState {
  if (kind === "ESTIMATED") return { ...s, last: { readOn, reading, kind }, estimatedSince: s.estimatedSince + (gallons ?? 0) };
  const usage =
    s.lastActual && gallons !== null
      ? { gallons: (s.usage?.gallons ?? 0) + gallons + s.estimatedSince, days: (s.usage?.days ?? 0) + daysBetween(s.lastActual.readOn, readOn) }
      : s.usage;
  return { last: { readOn, reading, kind }, lastActual: { readOn, reading }, estimatedSince: 0, usage };
}

/** The columns a reading file may have, by the names reading systems give them. */
export const COLUMN_NAMES: Record<string, "account" | "meter" | "date" | "reading" | "kind" | "newMeter" | "newReading"> = {
  account: "account",
  "account number": "account",
  account_number: "account",
  accountnumber: "account",
  acct: "account",
  meter: "meter",
  "meter number": "meter",
  meter_number: "meter",
  meternumber: "meter",
  "meter id": "meter",
  date: "date",
  "read date": "date",
  read_date: "date",
  readdate: "date",
  "reading date": "date",
  read_on: "date",
  reading: "reading",
  read: "reading",
  "meter reading": "reading",
  kind: "kind",
  type: "kind",
  "read type": "kind",
  read_type: "kind",
  "new meter": "newMeter",
  new_meter: "newMeter",
  "new meter number": "newMeter",
  "new reading": "newReading",
  new_reading: "newReading",
  "new meter reading": "newReading",
};

/** A row's kind as reading systems write it: A/ACTUAL/blank, E/EST/ESTIMATED; null when not one of them. */
export function parseKind(v: string | undefined): ReadKind | null {
  const k = (v ?? "").trim().toUpperCase();
  if (k === "" || k === "A" || k === "ACT" || k === "ACTUAL") return "ACTUAL";
  if (k === "E" || k === "EST" || k === "ESTIMATE" || k === "ESTIMATED") return "ESTIMATED";
  return null;
}

/** A register reading: whole digits only (leading zeros as the dials show them). */
export function parseReading(v: string | undefined): number | null {
  const t = (v ?? "").trim();
  if (!/^\d{1,15}$/.test(t)) return null;
  return Number(t);
}

/** A read date as YYYY-MM-DD or MM/DD/YYYY (the two forms reading systems export); null when not a real day. */
export function parseReadDate(v: string | undefined): CalendarDate | null {
  const t = (v ?? "").trim();
  let y: number, m: number, d: number;
  let r = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (r) [y, m, d] = [+r[1], +r[2], +r[3]];
  else if ((r = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(t))) [y, m, d] = [+r[3], +r[1], +r[2]];
  else return null;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return null;
  return dt.toISOString().slice(0, 10);
}

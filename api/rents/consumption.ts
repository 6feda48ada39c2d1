import { addCalendarDays, addMonths, daysBetween, isCalendarDate, type CalendarDate } from "../common/dates.js";
import type { Db } from "./common.js";

/**
 * What each account used in a billing period, from the meter readings (SUL 1205: the volume is the
 * metered water "as shown on the records of meter readings"). Each read already carries the
 * gallons since its meter's previous read (worked out at import: rollover, a meter's first read,
 * an estimate's true-up, api/rents/readings.rules.ts), so a period's use is the sum of the reads
 * dated in it, within the account's own days. One SQL statement whatever the number of accounts.
 */

export type ReadKind = "ACTUAL" | "ESTIMATED";

export type PeriodRead = {
  meterId: string;
  meterNumber: string;
  readOn: CalendarDate;
  reading: number;
  kind: ReadKind;
  /** Gallons since the meter's previous read (negative for a true-up that gives back an overestimate). */
  gallons: number;
  flags: string[];
  /** Accounts served by this meter during the period (Huron VI-2: several users behind one meter). */
  sharedWith: number;
};

export type PeriodConsumption = {
  gallons: number;
  /** Some of the period's use rests on an estimated read (to be trued up by the next actual read). */
  estimated: boolean;
  /** No read in the period that measures use (none at all, or only a meter's baseline). */
  noRead: boolean;
  /** A meter of the account serves other accounts in the period: the gallons are the whole meter's. */
  shared: boolean;
  reads: PeriodRead[];
  /** Use in each earlier period of the same length over the two years before `from`, oldest first; only periods with a read that measures use. */
  history: { from: CalendarDate; to: CalendarDate; gallons: number }[];
};

/**
 * The earlier periods of the same length as [from, to] over the two years before it, oldest first:
 * whole months when the period is whole months (8 quarters, 24 months), otherwise runs of as many days.
 */
export function historyPeriods(from: CalendarDate, to: CalendarDate): { from: CalendarDate; to: CalendarDate }[] {
  const out: { from: CalendarDate; to: CalendarDate }[] = [];
  const months = wholeMonths(from, to);
  if (months) {
    for (let k = Math.floor(24 / months); k >= 1; k--) out.push({ from: addMonths(from, -k * months), to: addCalendarDays(addMonths(from, -(k - 1) * months), -1) });
  } else {
    const len = daysBetween(from, to) + 1;
    for (let k = Math.floor(730 / len); k >= 1; k--) out.push({ from: addCalendarDays(from, -k * len), to: addCalendarDays(from, -(k - 1) * len - 1) });
  }
  return out;
}

/** The number of months when [from, to] runs from a month's first day to a month's last day, else 0. */
function wholeMonths(from: CalendarDate, to: CalendarDate): number {
  if (from.slice(8) !== "01" || addCalendarDays(to, 1).slice(8) !== "01") return 0;
  return (+to.slice(0, 4) - +from.slice(0, 4)) * 12 + (+to.slice(5, 7) - +from.slice(5, 7)) + 1;
}

const empty = (): PeriodConsumption => ({ gallons: 0, estimated: false, noRead: true, shared: false, reads: [], history: [] });

/** A period's parameters for `useOfAccount`: its days, the first history period's first day, the history periods' first days. */
export type UsePeriod = { from: CalendarDate; to: CalendarDate; historyFrom: CalendarDate; periods: { from: CalendarDate; to: CalendarDate }[] };

export function usePeriod(from: CalendarDate, to: CalendarDate): UsePeriod {
  if (!isCalendarDate(from) || !isCalendarDate(to) || to < from) throw new Error(`not a period: ${from} to ${to}`);
  const periods = historyPeriods(from, to);
  return { from, to, historyFrom: periods.length ? periods[0].from : from, periods };
}

/** The parameters `useOfAccount`'s SQL names, in its placeholders' order: the period's first and last days, the history's first day, the history periods' first days. */
export const useParams = (p: UsePeriod): unknown[] => [p.from, p.to, p.historyFrom, p.periods.length ? p.periods.map((x) => x.from) : [p.from]];

/**
 * SQL: `LEFT JOIN LATERAL (...) use ON true` giving the account `a` (service_account) a column
 * `use_meters`: for each of its meters (json), the meter, its number, the accounts it serves open
 * in the period, its reads dated in the period within the account's days, and its use in the
 * history periods ("period:gallons,..."). Keyed lookups from the account: its meters, each
 * meter's accounts by service_account_meter_by_meter, its reads from the first history period to
 * the period's end by meter_reading_per_day (a few a meter), so a batch costs its own rows and
 * never a pass over a whole table. `$from` etc. are the placeholders of `useParams`' values.
 */
export function useOfAccount(ph: { from: string; to: string; historyFrom: string; periods: string }): string {
  const { from, to, historyFrom, periods } = ph;
  return `LEFT JOIN LATERAL (
    SELECT json_agg(json_build_array(am.meter_id, m.meter_number, s.n, r.reads, r.history)) AS use_meters
      FROM service_account_meter am
      JOIN service_meter m ON m.id = am.meter_id
      CROSS JOIN LATERAL (SELECT greatest(count(*)::int, 1) AS n FROM service_account_meter x JOIN service_account o ON o.id = x.account_id
                           WHERE x.meter_id = am.meter_id AND o.opened_on <= ${to}::date AND (o.closed_on IS NULL OR o.closed_on >= ${from}::date)) s
      CROSS JOIN LATERAL (
        SELECT json_agg(json_build_array(r.read_on::text, r.reading::text, r.kind, r.consumption_gallons::text, r.flags) ORDER BY r.read_on) FILTER (WHERE r.read_on >= greatest(a.opened_on, ${from}::date)) AS reads,
               string_agg(width_bucket(r.read_on, ${periods}::date[]) || ':' || r.consumption_gallons, ',') FILTER (WHERE r.read_on < ${from}::date AND r.consumption_gallons IS NOT NULL) AS history
          FROM meter_reading r
         WHERE r.meter_id = am.meter_id
           AND r.read_on BETWEEN least(greatest(a.opened_on, ${historyFrom}::date), greatest(a.opened_on, ${from}::date)) AND least(coalesce(a.closed_on, ${to}::date), ${to}::date)) r
     WHERE am.account_id = a.id) use ON true`;
}

/** One account's consumption from its `use_meters` (useOfAccount's column). */
export function useOfMeters(meters: [string, string, number, [string, string, ReadKind, string | null, string[] | null][] | null, string | null][] | null, p: UsePeriod): PeriodConsumption {
  const c = empty();
  if (!meters) return c;
  let hist: Map<number, number> | null = null;
  for (const [meterId, meterNumber, sharedWith, reads, history] of meters) {
    if (sharedWith > 1) c.shared = true;
    for (const [readOn, reading, kind, gallons, flags] of reads ?? []) {
      const measured = gallons !== null;
      c.reads.push({ meterId, meterNumber, readOn, reading: Number(reading), kind, gallons: measured ? Number(gallons) : 0, flags: flags ?? [], sharedWith });
      if (measured) {
        c.gallons += Number(gallons);
        c.noRead = false;
      }
      if (kind === "ESTIMATED") c.estimated = true;
    }
    // "period:gallons,..." (a string: the driver's array parser costs more than the split, per row of every batch).
    if (history) {
      hist ??= new Map<number, number>();
      for (const pair of history.split(",")) {
        const at = pair.indexOf(":");
        const b = Number(pair.slice(0, at));
        hist.set(b, (hist.get(b) ?? 0) + Number(pair.slice(at + 1)));
      }
    }
  }
  if (hist) {
    const h = hist;
    c.history = [...h.keys()]
      .filter((i) => i >= 1 && i <= p.periods.length)
      .sort((a, b) => a - b)
      .map((i) => ({ from: p.periods[i - 1].from, to: p.periods[i - 1].to, gallons: h.get(i)! }));
  }
  // An account's reads in date order (then by meter), whatever the order of its meters.
  if (c.reads.length > 1) c.reads.sort((a, b) => (a.readOn < b.readOn ? -1 : a.readOn > b.readOn ? 1 : a.meterNumber < b.meterNumber ? -1 : a.meterNumber > b.meterNumber ? 1 : 0));
  return c;
}

/**
 * Each account's consumption from `from` to `to` (both days included): the reads of its meters
 * dated in the period and within the account's open days, the gallons they measure, whether any is
 * an estimate, whether a meter is shared (each account sharing it gets the whole meter's reads,
 * flagged), and the account's use by period over the two years before. Every account asked for is
 * in the map (with `noRead` when nothing measures its use). One statement; a bill run reads the same
 * with its batch of accounts (useOfAccount).
 */
export async function periodConsumption(db: Db, accountIds: string[], from: CalendarDate, to: CalendarDate): Promise<Map<string, PeriodConsumption>> {
  const p = usePeriod(from, to);
  const out = new Map<string, PeriodConsumption>();
  const ids = [...new Set(accountIds)];
  for (const id of ids) out.set(id, empty());
  if (!ids.length) return out;
  const rows: { id: string; use_meters: Parameters<typeof useOfMeters>[0] }[] = await db.query(
    `SELECT a.id, use.use_meters FROM service_account a ${useOfAccount({ from: "$2", to: "$3", historyFrom: "$4", periods: "$5" })} WHERE a.id = ANY($1::uuid[])`,
    [ids, ...useParams(p)],
  );
  for (const r of rows) out.set(r.id, useOfMeters(r.use_meters, p));
  return out;
}

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

/**
 * Each account's consumption from `from` to `to` (both days included): the reads of its meters
 * dated in the period and within the account's open days, the gallons they measure, whether any is
 * an estimate, whether a meter is shared (each account sharing it gets the whole meter's reads,
 * flagged), and the account's use by period over the two years before. Every account asked for is
 * in the map (with `noRead` when nothing measures its use).
 */
export async function periodConsumption(db: Db, accountIds: string[], from: CalendarDate, to: CalendarDate): Promise<Map<string, PeriodConsumption>> {
  if (!isCalendarDate(from) || !isCalendarDate(to) || to < from) throw new Error(`not a period: ${from} to ${to}`);
  const out = new Map<string, PeriodConsumption>();
  const ids = [...new Set(accountIds)];
  for (const id of ids) out.set(id, empty());
  if (!ids.length) return out;
  const periods = historyPeriods(from, to);
  const historyFrom = periods.length ? periods[0].from : from;

  // One statement, driven by the batch's accounts: each account's meters, then each meter's reads
  // from the first history period to the period's end by the (meter_id, read_on) index (a few reads
  // a meter), split here into the period's reads and the earlier periods' buckets (width_bucket over
  // the periods' first days). Joining the whole of meter_reading by hash on every batch made the
  // preview grow faster than its accounts (docs/benchmarks.md, bill runs).
  const rows: any[] = await db.query(
    `WITH lk AS (
       SELECT am.account_id, am.meter_id, m.meter_number,
              greatest(a.opened_on, $4::date) AS h_from, greatest(a.opened_on, $2::date) AS p_from, least(coalesce(a.closed_on, $3::date), $3::date) AS to_on
         FROM service_account_meter am JOIN service_account a ON a.id = am.account_id JOIN service_meter m ON m.id = am.meter_id
        WHERE am.account_id = ANY($1::uuid[])),
     sharing AS (
       SELECT x.meter_id, count(*)::int AS n
         FROM (SELECT DISTINCT meter_id FROM lk) u JOIN service_account_meter x ON x.meter_id = u.meter_id JOIN service_account o ON o.id = x.account_id
        WHERE o.opened_on <= $3::date AND (o.closed_on IS NULL OR o.closed_on >= $2::date)
        GROUP BY x.meter_id)
     SELECT lk.account_id, lk.meter_id, lk.meter_number, coalesce(s.n, 1) AS shared_with, r.reads, r.history
       FROM lk LEFT JOIN sharing s ON s.meter_id = lk.meter_id
       CROSS JOIN LATERAL (
         SELECT json_agg(json_build_array(r.read_on::text, r.reading::text, r.kind, r.consumption_gallons::text, r.flags) ORDER BY r.read_on) FILTER (WHERE r.read_on >= lk.p_from) AS reads,
                string_agg(width_bucket(r.read_on, $5::date[]) || ':' || r.consumption_gallons, ',') FILTER (WHERE r.read_on < $2::date AND r.consumption_gallons IS NOT NULL) AS history
           FROM meter_reading r
          WHERE r.meter_id = lk.meter_id AND r.read_on BETWEEN least(lk.h_from, lk.p_from) AND lk.to_on) r`,
    [ids, from, to, historyFrom, periods.length ? periods.map((p) => p.from) : [from]],
  );

  const hist = new Map<string, Map<number, number>>();
  for (const r of rows) {
    const c = out.get(r.account_id)!;
    if (r.shared_with > 1) c.shared = true;
    for (const [readOn, reading, kind, gallons, flags] of (r.reads ?? []) as [string, string, ReadKind, string | null, string[] | null][]) {
      const measured = gallons !== null;
      c.reads.push({ meterId: r.meter_id, meterNumber: r.meter_number, readOn, reading: Number(reading), kind, gallons: measured ? Number(gallons) : 0, flags: flags ?? [], sharedWith: r.shared_with });
      if (measured) {
        c.gallons += Number(gallons);
        c.noRead = false;
      }
      if (kind === "ESTIMATED") c.estimated = true;
    }
    // "period:gallons,..." (a string: the driver's array parser costs more than the split, per row of every batch).
    if (r.history) {
      const h = hist.get(r.account_id) ?? new Map<number, number>();
      for (const pair of (r.history as string).split(",")) {
        const at = pair.indexOf(":");
        const b = Number(pair.slice(0, at));
        h.set(b, (h.get(b) ?? 0) + Number(pair.slice(at + 1)));
      }
      hist.set(r.account_id, h);
    }
  }
  for (const [id, h] of hist) {
    const c = out.get(id)!;
    c.history = [...h.keys()]
      .filter((i) => i >= 1 && i <= periods.length)
      .sort((a, b) => a - b)
      .map((i) => ({ from: periods[i - 1].from, to: periods[i - 1].to, gallons: h.get(i)! }));
  }
  // An account's reads in date order (then by meter), whatever the order of its meters' rows.
  for (const c of out.values()) if (c.reads.length > 1) c.reads.sort((a, b) => (a.readOn < b.readOn ? -1 : a.readOn > b.readOn ? 1 : a.meterNumber < b.meterNumber ? -1 : a.meterNumber > b.meterNumber ? 1 : 0));
  return out;
}

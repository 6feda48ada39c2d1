import { addCalendarDays, addMonths, daysBetween, isCalendarDate, type CalendarDate } from "../common/dates.js";
import type { Db } from "./common.js";

/**
 * What each account used in a billing period, from the meter readings (SUL 1205: the volume is the
 * metered water "as shown on the records of meter readings"). Each read already carries the
 * gallons since its meter's previous read (worked out at import: rollover, a meter's first read,
 * an estimate's true-up, api/rents/readings.rules.ts), so a period's use is the sum of the reads
 * dated in it, within the account's own days. Two SQL statements whatever the number of accounts.
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

  const [reads, history] = await Promise.all([
    db.query(
      `WITH links AS (
         SELECT am.account_id, am.meter_id, a.opened_on, a.closed_on
           FROM service_account_meter am JOIN service_account a ON a.id = am.account_id
          WHERE am.account_id = ANY($1::uuid[])),
       sharing AS (
         SELECT x.meter_id, count(*)::int AS n
           FROM service_account_meter x JOIN service_account o ON o.id = x.account_id
          WHERE x.meter_id IN (SELECT meter_id FROM links) AND o.opened_on <= $3::date AND (o.closed_on IS NULL OR o.closed_on >= $2::date)
          GROUP BY x.meter_id)
       SELECT l.account_id, l.meter_id, m.meter_number, coalesce(s.n, 1) AS shared_with,
              r.read_on::text AS read_on, r.reading::text AS reading, r.kind, r.consumption_gallons::text AS gallons, r.flags
         FROM links l JOIN service_meter m ON m.id = l.meter_id LEFT JOIN sharing s ON s.meter_id = l.meter_id
         LEFT JOIN meter_reading r ON r.meter_id = l.meter_id
               AND r.read_on BETWEEN greatest($2::date, l.opened_on) AND least($3::date, coalesce(l.closed_on, $3::date))
        ORDER BY l.account_id, r.read_on, m.meter_number`,
      [ids, from, to],
    ) as Promise<any[]>,
    periods.length
      ? (db.query(
          `WITH p AS (SELECT * FROM unnest($2::date[], $3::date[]) WITH ORDINALITY AS p(from_on, to_on, i))
           SELECT t.account_id, array_agg(t.i ORDER BY t.i) AS periods, array_agg(t.gallons ORDER BY t.i) AS gallons
             FROM (SELECT am.account_id, p.i, sum(r.consumption_gallons)::text AS gallons
                     FROM service_account_meter am JOIN service_account a ON a.id = am.account_id
                     JOIN meter_reading r ON r.meter_id = am.meter_id AND r.consumption_gallons IS NOT NULL
                          AND r.read_on BETWEEN $4::date AND $5::date AND r.read_on >= a.opened_on AND (a.closed_on IS NULL OR r.read_on <= a.closed_on)
                     JOIN p ON r.read_on BETWEEN p.from_on AND p.to_on
                    WHERE am.account_id = ANY($1::uuid[])
                    GROUP BY am.account_id, p.i) t
            GROUP BY t.account_id`,
          [ids, periods.map((p) => p.from), periods.map((p) => p.to), periods[0].from, periods[periods.length - 1].to],
        ) as Promise<any[]>)
      : Promise.resolve([] as any[]),
  ]);

  for (const r of reads) {
    const c = out.get(r.account_id)!;
    if (r.shared_with > 1) c.shared = true;
    if (!r.read_on) continue;
    const flags: string[] = r.flags ?? [];
    const measured = r.gallons !== null;
    c.reads.push({
      meterId: r.meter_id,
      meterNumber: r.meter_number,
      readOn: r.read_on,
      reading: Number(r.reading),
      kind: r.kind,
      gallons: measured ? Number(r.gallons) : 0,
      flags,
      sharedWith: r.shared_with,
    });
    if (measured) {
      c.gallons += Number(r.gallons);
      c.noRead = false;
    }
    if (r.kind === "ESTIMATED") c.estimated = true;
  }
  for (const h of history) {
    const c = out.get(h.account_id)!;
    c.history = (h.periods as (string | number)[]).map((i, k) => {
      const p = periods[Number(i) - 1];
      return { from: p.from, to: p.to, gallons: Number(h.gallons[k]) };
    });
  }
  return out;
}

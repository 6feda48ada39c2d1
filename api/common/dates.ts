/**
 * Deadlines are calendar dates (YYYY-MM-DD) in the district's time zone; instants are stored in UTC.
 * Plain Intl, no date library: a calendar date is just a string, and day arithmetic happens in UTC
 * on the date alone, so daylight-saving changes never shift a deadline.
 */
import { clock } from "./clock.js";

export type CalendarDate = string; // "2026-11-30"

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(s: string): s is CalendarDate {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.toISOString().slice(0, 10) === s;
}

// Building an Intl.DateTimeFormat costs far more than using one: one per zone, kept (a report of
// 500 lab results converts 500 sample times).
const dayFormats = new Map<string, Intl.DateTimeFormat>();
const wallFormats = new Map<string, Intl.DateTimeFormat>();
// Every offset in use today, and every change of offset, falls on a quarter hour of UTC, so all
// instants of one quarter hour share a calendar date in any zone: remembered per quarter hour.
const QUARTER_HOUR_MS = 15 * 60 * 1000;
const datesByQuarter = new Map<string, Map<number, CalendarDate>>();
const offsetsByQuarter = new Map<string, Map<number, number>>();
/** A zone's remembered quarter hours, started again past 50,000 (about 17 months of quarters). */
function quartersOf<T>(store: Map<string, Map<number, T>>, timeZone: string): Map<number, T> {
  let known = store.get(timeZone);
  if (!known || known.size >= 50_000) store.set(timeZone, (known = new Map()));
  return known;
}

/** The calendar date an instant falls on in a time zone. */
export function dateIn(timeZone: string, instant: Date = clock.now()): CalendarDate {
  const quarter = Math.floor(instant.getTime() / QUARTER_HOUR_MS);
  const known = quartersOf(datesByQuarter, timeZone);
  const hit = known.get(quarter);
  if (hit) return hit;
  let fmt = dayFormats.get(timeZone);
  if (!fmt) dayFormats.set(timeZone, (fmt = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })));
  const parts = fmt.formatToParts(instant);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  const date = `${get("year")}-${get("month")}-${get("day")}`;
  known.set(quarter, date);
  return date;
}

export function addCalendarDays(date: CalendarDate, days: number): CalendarDate {
  const m = DATE_RE.exec(date);
  if (!m) throw new Error(`not a calendar date: ${date}`);
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3] + days)).toISOString().slice(0, 10);
}

/**
 * The same day of the month `months` later (earlier when negative); when that month is shorter, its
 * last day: Jan 31 + 1 month = Feb 28 (Feb 29 in a leap year), Feb 29 + 12 months = Feb 28, and
 * Mar 31 less 1 month = Feb 28 or 29. Interest months (SUL 1118), compliance-schedule limits
 * (SUL 1004 A(12)(b)), the permit term limit (SUL 1004 D) and SNC periods count months this way.
 * Not for the last day of a term: see termLastDay.
 */
export function addMonths(date: CalendarDate, months: number): CalendarDate {
  const m = DATE_RE.exec(date);
  if (!m) throw new Error(`not a calendar date: ${date}`);
  const first = new Date(Date.UTC(+m[1], +m[2] - 1 + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(+m[3], last))).toISOString().slice(0, 10);
}

/**
 * The last day in force of a term of `months` months whose first day is `start` (both days count).
 * The term covers every day from `start` up to, not including, the same day `months` later; where
 * that month has no such day (29 February in a common year, the 31st of a 30-day month) it covers
 * the whole of that month, and the next term would start on the 1st of the month after. So a
 * one-year licence (SUL 802) from 29 Feb 2028 runs through 28 Feb 2029 (366 days, the leap day
 * included); from 28 Feb 2028 through 27 Feb 2029; from 1 Mar 2028 through 28 Feb 2029 (365 days).
 * Clamping first and then taking a day off (addMonths less a day) would end the 29 February licence
 * on 27 February, a day short of its year. See docs/decisions/licence-term-full-year.md.
 */
export function termLastDay(start: CalendarDate, months: number): CalendarDate {
  if (!Number.isInteger(months) || months < 1) throw new Error(`a term is a whole number of months, at least one: ${months}`);
  const same = addMonths(start, months);
  // addMonths clamped (the day does not exist that month): the term runs to that month's end.
  return same.slice(8) === start.slice(8) ? addCalendarDays(same, -1) : same;
}

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: CalendarDate, to: CalendarDate): number {
  const a = Date.parse(`${from}T00:00:00Z`);
  const b = Date.parse(`${to}T00:00:00Z`);
  return Math.round((b - a) / 86_400_000);
}

/**
 * A deadline N calendar days after an event (the event's day is day 0, SUL 1111: a notice counts
 * as given on mailing), in the district's zone.
 */
export function calendarDeadline(eventAt: Date, days: number, timeZone: string): CalendarDate {
  return addCalendarDays(dateIn(timeZone, eventAt), days);
}

/** Days left until a deadline date, counted in the district's zone; 0 on the last day, negative once passed. */
export function daysLeft(deadline: CalendarDate, timeZone: string, now: Date = clock.now()): number {
  return daysBetween(dateIn(timeZone, now), deadline);
}

/**
 * The UTC instant of a wall-clock time in a time zone (two passes settle daylight-saving edges).
 * `wallUtc` is the wall time written as if it were UTC: Date.UTC(y, m - 1, d, h, mi, s).
 */
export function zonedWallTime(wallUtc: number, timeZone: string): Date {
  let fmt = wallFormats.get(timeZone);
  if (!fmt)
    wallFormats.set(
      timeZone,
      (fmt = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      })),
    );
  const offsets = quartersOf(offsetsByQuarter, timeZone);
  let t = wallUtc - offsetAt(fmt, offsets, wallUtc);
  t = wallUtc - offsetAt(fmt, offsets, t);
  return new Date(t);
}

/** A zone's offset at an instant, the same for the whole quarter hour it falls in (see above). */
function offsetAt(fmt: Intl.DateTimeFormat, offsets: Map<number, number>, t: number): number {
  const quarter = Math.floor(t / QUARTER_HOUR_MS);
  const hit = offsets.get(quarter);
  if (hit !== undefined) return hit;
  const start = quarter * QUARTER_HOUR_MS;
  const p = fmt.formatToParts(new Date(start));
  const g = (k: string) => Number(p.find((x) => x.type === k)!.value);
  const offset = Date.UTC(g("year"), g("month") - 1, g("day"), g("hour"), g("minute"), g("second")) - start;
  offsets.set(quarter, offset);
  return offset;
}

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A wall-clock time in a time zone ("2026-12-07T09:30", as a datetime-local input or a lab's CSV
 * sends it) as an instant; an ISO instant with "Z" or an offset is taken as it is. Null when it is
 * neither, or names no real time (31 November, hour 24, minute 60). A report's save reads hundreds.
 */
export function zonedInstant(input: string | null | undefined, timeZone: string): Date | null {
  const s = String(input ?? "").trim();
  const m = WALL_TIME.exec(s);
  if (m) {
    const month = +m[2] - 1;
    const day = +m[3];
    const hour = +m[4];
    const minute = +m[5];
    const second = m[6] === undefined ? 0 : +m[6];
    const wall = Date.UTC(+m[1], month, day, hour, minute, second);
    // Date.UTC rolls 31 April over to 1 May: a date that moved was not a date.
    const back = new Date(wall);
    if (back.getUTCMonth() !== month || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
    return zonedWallTime(wall, timeZone);
  }
  if (!ISO_INSTANT.test(s)) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t);
}

/** The first instant after the deadline day has ended in the district's zone (local midnight). */
export function endOfDay(date: CalendarDate, timeZone: string): Date {
  return zonedWallTime(Date.parse(`${addCalendarDays(date, 1)}T00:00:00Z`), timeZone);
}

// Dates and times in words, as every page, email and PDF shows them: one formatter (format.ts).
export { formatDate, formatDateTime } from "./format.js";

const weekdayFormats = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The calendar date, weekday (0 = Sunday) and minutes after midnight of an instant in a zone. */
export function wallClock(instant: Date, timeZone: string): { date: CalendarDate; weekday: number; minutes: number } {
  let fmt = weekdayFormats.get(timeZone);
  if (!fmt)
    weekdayFormats.set(
      timeZone,
      (fmt = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", weekday: "short" })),
    );
  const parts = fmt.formatToParts(instant);
  const g = (t: string) => parts.find((p) => p.type === t)!.value;
  return { date: `${g("year")}-${g("month")}-${g("day")}`, weekday: WEEKDAYS.indexOf(g("weekday")), minutes: (+g("hour") % 24) * 60 + +g("minute") };
}

/**
 * One way to show times, dates, counts and statuses wherever a person reads them: the portal's
 * pages (web/components/format.tsx re-exports this module), the emails and the printed permit.
 * An instant is shown on a district's clock with its zone's abbreviation ("Dec 1, 2026, 8:49 AM EST");
 * a record with no district on the portal's clock (portalTimeZone, docs/decisions/portal-clock.md);
 * a calendar date in words ("December 1, 2026"), never as ISO; "1 day", not "1 days"; a status as
 * a word ("Submitted"), never its code. Plain Intl, no Node: the browser bundle imports it too.
 */

/** A calendar date, "2026-11-30": a deadline or a day in a district's zone (api/common/dates.ts). */
type CalendarDate = string;
/** An instant as stored (a Date) or as GraphQL sends it (an ISO string). */
export type Instant = Date | string;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

// Building an Intl.DateTimeFormat costs far more than using one: each kept, per zone and style.
const formats = new Map<string, Intl.DateTimeFormat>();
function format(key: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let f = formats.get(key);
  if (!f) formats.set(key, (f = make()));
  return f;
}
const asDate = (x: Instant) => (x instanceof Date ? x : new Date(x));
/** A calendar date's noon in UTC: the same day in every zone's reading of it. */
const noonOf = (date: CalendarDate) => new Date(`${date}T12:00:00Z`);

/** "December 1, 2026" from "2026-12-01"; with `weekday`, "Tuesday, December 1, 2026". Anything not a date comes back as it is. */
export function formatDate(date: CalendarDate, opts: { weekday?: boolean } = {}): string {
  if (!DATE_RE.test(date)) return date;
  const f = format(`date:${opts.weekday ? "w" : ""}`, () =>
    new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "long", day: "numeric", ...(opts.weekday ? { weekday: "long" } : {}) }),
  );
  return f.format(noonOf(date));
}

/** "Dec 1, 2026": a calendar date where a table has little room. */
export function formatShortDate(date: CalendarDate): string {
  if (!DATE_RE.test(date)) return date;
  return format("short", () => new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric" })).format(noonOf(date));
}

/** "November 2026" from "2026-11" (a monthly statement's month). */
export function formatMonth(month: string): string {
  if (!/^\d{4}-\d{2}$/.test(month)) return month;
  return format("month", () => new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "long" })).format(noonOf(`${month}-15`));
}

/** The zone's abbreviation at that instant as US readers know it: "EST" in winter, "EDT" in summer. */
export function zoneAbbreviation(instant: Instant, timeZone: string): string {
  const parts = format(`zone:${timeZone}`, () => new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "short" })).formatToParts(asDate(instant));
  return parts.find((p) => p.type === "timeZoneName")?.value ?? timeZone;
}

/**
 * An instant on a district's clock, with the zone's abbreviation:
 * - "medium" (the default): "Dec 1, 2026, 8:49 AM EST";
 * - "full", for an appointment (a hearing, an inspection, a load's arrival): "Tuesday, December 1, 2026 at 8:49 AM EST".
 */
export function formatDateTime(instant: Instant, timeZone: string, style: "medium" | "full" = "medium"): string {
  const d = asDate(instant);
  if (Number.isNaN(d.getTime())) return "";
  const f = format(`dt:${style}:${timeZone}`, () =>
    style === "full"
      ? new Intl.DateTimeFormat("en-US", { timeZone, dateStyle: "full", timeStyle: "short" })
      : new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" }),
  );
  return `${f.format(d).replace(/\u202f/g, " ")} ${zoneAbbreviation(d, timeZone)}`;
}

/** The time alone on a district's clock: "8:49 AM EST" (a day sheet under its date's heading). */
export function formatTime(instant: Instant, timeZone: string): string {
  const d = asDate(instant);
  if (Number.isNaN(d.getTime())) return "";
  const f = format(`t:${timeZone}`, () => new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", minute: "2-digit" }));
  return `${f.format(d).replace(/\u202f/g, " ")} ${zoneAbbreviation(d, timeZone)}`;
}

/** The calendar date an instant falls on in a district's zone, in words: "December 1, 2026" (a receipt's date). */
export function formatDayOf(instant: Instant, timeZone: string): string {
  const d = asDate(instant);
  if (Number.isNaN(d.getTime())) return "";
  return format(`day:${timeZone}`, () => new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "long", day: "numeric" })).format(d);
}

/**
 * The portal's clock, for a record that belongs to no district (a session, an API token, an upload,
 * an email about the account): the zone its districts keep; where they keep several, the one most
 * of them keep, the first in alphabetical order on a tie (docs/decisions/portal-clock.md).
 */
export function portalTimeZone(districtZones: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const z of districtZones) counts.set(z, (counts.get(z) ?? 0) + 1);
  const [best] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return best?.[0] ?? "UTC";
}

/** A count with its noun: "1 day", "3 days", "1 load", "2 copies" (give the plural where adding "s" is wrong). */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** Days to a deadline in words: "3 days left", "1 day left", "due today", "2 days late". */
export function daysLeftText(n: number | null | undefined): string {
  if (n === null || n === undefined) return "";
  return n > 0 ? `${countOf(n, "day")} left` : n === 0 ? "due today" : `${countOf(-n, "day")} late`;
}

/** Hours to a deadline in words: "4 hours left", "1 hour left", "due now", "2 hours late". */
export function hoursLeftText(n: number): string {
  return n > 0 ? `${countOf(n, "hour")} left` : n === 0 ? "due now" : `${countOf(-n, "hour")} late`;
}

/**
 * A status code as a word, where no feature gives its own label: "SUBMITTED" → "Submitted",
 * "PARTIALLY_REFUNDED" → "Partially refunded", "in_review" → "In review". A label already in
 * words comes back as it is.
 */
export function statusLabel(code: string | null | undefined, labels?: Readonly<Record<string, string>>): string {
  if (!code) return "";
  if (labels?.[code]) return labels[code];
  if (!/^[A-Za-z]+(_[A-Za-z]+)*$/.test(code) || (code !== code.toUpperCase() && code !== code.toLowerCase())) return code;
  const words = code.toLowerCase().replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

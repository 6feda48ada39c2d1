import { Fragment } from "react";
import { formatDate, formatDateTime, portalTimeZone, type Instant } from "../../api/common/format";

// One formatter for pages, emails and the printed permit (api/common/format.ts): the same record reads the same everywhere.
export {
  countOf,
  daysLeftText,
  formatDate as formatCalendarDate,
  formatDateTime,
  formatDayOf,
  formatMonth,
  formatShortDate,
  formatTime,
  hoursLeftText,
  portalTimeZone,
  statusLabel,
  zoneAbbreviation,
} from "../../api/common/format";

/**
 * An instant in a <time> element, on a clock always named: the record's district's zone, or for a
 * record of no district (a session, a token, an upload) the portal's (clockOf).
 */
export function DateTime({ iso, timeZone, style }: { iso: Instant | null | undefined; timeZone: string; style?: "medium" | "full" }) {
  if (!iso) return null;
  const d = iso instanceof Date ? iso : new Date(iso);
  return <time dateTime={d.toISOString()}>{formatDateTime(d, timeZone, style)}</time>;
}

/** A calendar date (YYYY-MM-DD) in a <time> element, in words: "August 1, 2005". */
export function CalendarDate({ date }: { date: string | null | undefined }) {
  if (!date) return null;
  return <time dateTime={date}>{formatDate(date)}</time>;
}

/** The portal's clock for records of no district, from the districts' zones (`districts { timeZone }`, public and cached). */
export const clockOf = (districts: readonly { timeZone: string }[]) => portalTimeZone(districts.map((d) => d.timeZone));

// One formatter per zone: building an Intl.DateTimeFormat costs more than formatting with it.
const DAY_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** Today's calendar date (YYYY-MM-DD) in a time zone (a district's). */
export function todayIn(timeZone: string, instant: Date = new Date()): string {
  let f = DAY_FORMATS.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    DAY_FORMATS.set(timeZone, f);
  }
  const parts = f.formatToParts(instant);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${get("year")}-${get("month")}-${get("day")}`;
}

export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).toISOString().slice(0, 10) === s;
}

export const STAFF_ROLE_LABELS: Record<string, string> = {
  CLERK: "Clerk",
  OPERATOR: "Operator",
  BOARD: "Board member",
  ADMIN: "Administrator",
};

/** Who a demo account acts as, in words (staff roles as STAFF_ROLE_LABELS; the others as what they do). */
export const DEMO_ROLE_LABELS: Record<string, string> = {
  APPLICANT: "Homeowner (applicant)",
  INDUSTRIAL_USER: "Industrial user (Authorized Representative)",
  CONTRACTOR: "Contractor",
  HAULER: "Septage hauler",
  CLERK: "Town Clerk",
  OPERATOR: "District Operator or Superintendent",
  BOARD: "Town Board member",
  ADMIN: "Administrator",
};

export const ORGANIZATION_KIND_LABELS: Record<string, string> = {
  HAULER: "Septage hauling company",
  INDUSTRIAL_USER: "Industrial user",
  CONTRACTOR: "Contracting firm",
  DEVELOPER: "Developer or builder",
};

export const MEMBERSHIP_ROLE_LABELS: Record<string, string> = {
  OWNER: "Owner",
  AUTHORIZED_REPRESENTATIVE: "Authorized Representative",
  MEMBER: "Member",
};

const URL_RE = /(https?:\/\/[^\s<>"']+)/g;

/**
 * Plain text with its http(s) URLs made into links; line breaks are kept by the
 * tapline-plain-text class (white-space: pre-wrap). Trailing punctuation stays outside the link.
 */
export function Linkified({ text }: { text: string }) {
  const parts = text.split(URL_RE);
  return (
    <>
      {parts.map((part, i) => {
        if (i % 2 === 0) return <Fragment key={i}>{part}</Fragment>;
        const m = /^(.*?)([.,;:!?)\]]*)$/.exec(part)!;
        return (
          <Fragment key={i}>
            <a className="usa-link" href={m[1]}>
              {m[1]}
            </a>
            {m[2]}
          </Fragment>
        );
      })}
    </>
  );
}

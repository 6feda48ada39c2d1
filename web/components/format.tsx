import { Fragment } from "react";
import { formatDateTime } from "~/util";

export { formatDateTime };

/** An instant in a <time> element: on the district's clock when its zone is given, else in UTC. */
export function DateTime({ iso, timeZone }: { iso: string | null | undefined; timeZone?: string }) {
  if (!iso) return null;
  return <time dateTime={iso}>{formatDateTime(iso, timeZone)}</time>;
}

/** A calendar date (YYYY-MM-DD) in words: "August 1, 2005". */
export function formatCalendarDate(date: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
  return new Date(`${date}T12:00:00Z`).toLocaleDateString("en-US", { timeZone: "UTC", year: "numeric", month: "long", day: "numeric" });
}

/** Days to a deadline in words: "3 days left", "1 day left", "due today", "2 days late". */
export function daysLeftText(n: number | null | undefined): string {
  if (n === null || n === undefined) return "";
  return n > 0 ? `${n} ${n === 1 ? "day" : "days"} left` : n === 0 ? "due today" : `${-n} ${n === -1 ? "day" : "days"} late`;
}

/** Today's calendar date (YYYY-MM-DD) in a time zone (a district's). */
export function todayIn(timeZone: string, instant: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(instant);
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

import { addCalendarDays, daysBetween, formatDate, termLastDay, wallClock, type CalendarDate } from "../common/dates.js";
import { formatCents } from "../common/money.js";
import { districtCode } from "../districts/district-code.js";
import type { Rulebook } from "../districts/districts.service.js";
import type { HaulerLicense, HaulerPermission, LicenseStatus, LoadStatus, SourceKind } from "./hauler.entity.js";

/**
 * The pure rules of septage hauling (SUL Article 8, 1208; Huron IV-8): fees, the days and hours a
 * licence allows, whether a licence is in force on a day, renewal windows. Every figure comes in
 * from the rulebook; nothing here is a constant of the law.
 */

export const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
export const SOURCE_KIND_LABELS: Record<SourceKind, string> = {
  RESIDENTIAL_SEPTIC_TANK: "Residential septic tank",
  HOLDING_TANK: "Holding tank",
  PORTABLE_TOILETS: "Portable toilets",
  GREASE_TRAP: "Grease trap",
  OTHER: "Other",
};
export const LICENSE_STATUS_LABELS: Record<LicenseStatus, string> = {
  DRAFT: "Draft",
  SUBMITTED: "Waiting for the Town Board",
  APPROVED: "Approved",
  DENIED: "Denied",
  SUSPENDED: "Suspended",
  REVOKED: "Revoked",
  EXPIRED: "Expired",
  WITHDRAWN: "Withdrawn",
};

/** Load statuses in plain words. */
export const LOAD_STATUS_LABELS: Record<LoadStatus, string> = {
  BOOKED: "Booked",
  APPROVED: "Approved",
  REFUSED: "Refused",
  RECEIVED: "Received",
  CANCELLED: "Cancelled",
};

export const licenseNumber = (slug: string, year: string, n: number) => `${districtCode(slug)}-HL-${year}-${String(n).padStart(4, "0")}`;

/**
 * The dumping fee of a load (SUL 1208, set by the Board): the rate per 1,000 gallons times the
 * gallons, rounded to the cent, and never less than the minimum per load.
 */
export function dumpingFeeCents(gallons: number, ratePer1000Cents: number, minimumCents: number): number {
  return Math.max(minimumCents, Math.round((gallons * ratePer1000Cents) / 1000));
}

/** "07:00:00" or "7:00" → minutes after midnight; null when not a time of day. */
export function minutesOf(time: string | null | undefined): number | null {
  const m = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(String(time ?? "").trim());
  if (!m || +m[1] > 23 || +m[2] > 59) return null;
  return +m[1] * 60 + +m[2];
}
export const hhmm = (time: string | null | undefined): string => {
  const m = minutesOf(time);
  return m === null ? "" : `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
};

export { wallClock } from "../common/dates.js";

export type Schedule = { dumpingDays: number[] | null; dumpingFrom: string | null; dumpingTo: string | null };

/** "Monday to Friday, 07:00 to 15:00" */
export function describeSchedule(s: Schedule): string {
  const days = [...(s.dumpingDays ?? [])].sort((a, b) => a - b);
  if (!days.length) return "no days set";
  const contiguous = days.every((d, i) => i === 0 || d === days[i - 1] + 1);
  const dayText = days.length === 1 ? DAY_NAMES[days[0]] : contiguous && days.length > 2 ? `${DAY_NAMES[days[0]]} to ${DAY_NAMES[days[days.length - 1]]}` : days.map((d) => DAY_NAMES[d]).join(", ");
  return `${dayText}, ${hhmm(s.dumpingFrom)} to ${hhmm(s.dumpingTo)}`;
}

/** Whether an arrival falls on an allowed day, at or after the opening time and before the closing time (SUL 803). */
export function insideSchedule(s: Schedule, arrival: Date, timeZone: string): boolean {
  const w = wallClock(arrival, timeZone);
  const from = minutesOf(s.dumpingFrom);
  const to = minutesOf(s.dumpingTo);
  return (s.dumpingDays ?? []).includes(w.weekday) && from !== null && to !== null && w.minutes >= from && w.minutes < to;
}

/**
 * The last day in force of a licence starting on `from` (SUL 802: "shall be for one (1) year"):
 * the day before the same date `termMonths` later, or the end of February for one starting on
 * 29 February, so every licence is in force for a full year (docs/decisions/licence-term-full-year.md).
 */
export const licenseEnd = (from: CalendarDate, termMonths: number): CalendarDate => termLastDay(from, termMonths);

export type Standing = {
  /** IN_FORCE, NOT_YET_IN_FORCE, EXPIRED, PART364_LAPSED, PART364_REVOKED, SUSPENDED, REVOKED, or the application's status */
  state: string;
  label: string;
  inForce: boolean;
  /** why loads are refused, and what to do about it */
  reasons: string[];
  daysLeft: number | null;
};

/**
 * Whether a licence is in force on `day` (a calendar date in the district's zone), worked out from
 * its dates: a licence past its last day is expired, and one whose Part 364 permit has lapsed or
 * been revoked is invalid at once (SUL 802), with no one having to act.
 */
export function licenseStanding(l: HaulerLicense, day: CalendarDate, opts: { part364Required: boolean; section: string }): Standing {
  const left = l.validUntil ? daysBetween(day, l.validUntil) : null;
  const base = { daysLeft: left };
  if (l.status === "SUSPENDED")
    return { ...base, state: "SUSPENDED", label: "Suspended", inForce: false, reasons: [`The District Operator suspended this licence (${opts.section}): ${l.actionReason ?? ""}`.trim()] };
  if (l.status === "REVOKED")
    return { ...base, state: "REVOKED", label: "Revoked", inForce: false, reasons: [`The District Operator revoked this licence (${opts.section}): ${l.actionReason ?? ""}`.trim()] };
  if (l.status !== "APPROVED" || !l.validFrom || !l.validUntil)
    return { ...base, state: l.status, label: LICENSE_STATUS_LABELS[l.status], inForce: false, reasons: [`The licence is not issued (${LICENSE_STATUS_LABELS[l.status].toLowerCase()}).`] };
  if (day > l.validUntil)
    return { ...base, state: "EXPIRED", label: "Expired", inForce: false, reasons: [`The licence expired on ${formatDate(l.validUntil)} (${opts.section}: licences last one year). Apply to renew it.`] };
  if (opts.part364Required && l.part364RevokedAt)
    return {
      ...base,
      state: "PART364_REVOKED",
      label: "Invalid: Part 364 permit revoked",
      inForce: false,
      reasons: [`The NYSDEC Part 364 waste transporter permit on file was recorded as revoked, so the licence is invalid (${opts.section}). Upload a valid Part 364 permit to be reinstated.`],
    };
  if (opts.part364Required && (!l.part364ExpiresOn || day > l.part364ExpiresOn))
    return {
      ...base,
      state: "PART364_LAPSED",
      label: "Invalid: Part 364 permit expired",
      inForce: false,
      reasons: [
        `The NYSDEC Part 364 waste transporter permit on file (${l.part364PermitNumber ?? "no number"}) expired on ${l.part364ExpiresOn ? formatDate(l.part364ExpiresOn) : "an unknown date"}, so the licence is invalid (${opts.section}). Upload the renewed Part 364 permit with its new expiry date to be reinstated.`,
      ],
    };
  if (day < l.validFrom)
    return { ...base, state: "NOT_YET_IN_FORCE", label: `Starts ${formatDate(l.validFrom)}`, inForce: false, reasons: [`The licence starts on ${formatDate(l.validFrom)}.`] };
  return { ...base, state: "IN_FORCE", label: "In force", inForce: true, reasons: [] };
}

/** Whether a special permission (Huron IV-8) is in force on a day. */
export function permissionStanding(p: HaulerPermission, day: CalendarDate, section: string): Standing {
  const left = p.validUntil ? daysBetween(day, p.validUntil) : null;
  if (p.status === "REVOKED") return { state: "REVOKED", label: "Revoked", inForce: false, daysLeft: left, reasons: [`The Superintendent revoked this permission (${section}): ${p.decisionReason ?? ""}`.trim()] };
  if (p.status !== "GRANTED" || !p.validFrom || !p.validUntil)
    return { state: p.status, label: p.status === "REQUESTED" ? "Waiting for the Superintendent" : "Denied", inForce: false, daysLeft: left, reasons: [`The special permission is not granted (${section}).`] };
  if (day > p.validUntil) return { state: "EXPIRED", label: "Expired", inForce: false, daysLeft: left, reasons: [`The special permission ended on ${formatDate(p.validUntil)}; ask for a new one (${section}).`] };
  if (day < p.validFrom) return { state: "NOT_YET_IN_FORCE", label: `Starts ${formatDate(p.validFrom)}`, inForce: false, daysLeft: left, reasons: [`The special permission starts on ${formatDate(p.validFrom)}.`] };
  return { state: "IN_FORCE", label: "Granted", inForce: true, daysLeft: left, reasons: [] };
}

/** The day renewal opens: `windowDays` before the last day of the licence. */
export const renewalOpensOn = (validUntil: CalendarDate, windowDays: number): CalendarDate => addCalendarDays(validUntil, -windowDays);

/**
 * Which reminder is due on `day` for a licence ending `validUntil`: the smallest of the configured
 * days-before figures that `day` has reached, if it was not sent yet (after a long gap only the
 * nearest one goes out, not all of them at once).
 */
export function reminderDue(validUntil: CalendarDate, day: CalendarDate, reminderDays: number[], sent: number[]): number | null {
  const left = daysBetween(day, validUntil);
  if (left < 0) return null;
  const reached = reminderDays.filter((d) => left <= d).sort((a, b) => a - b);
  if (!reached.length) return null;
  const tier = reached[0];
  return sent.some((s) => s <= tier) ? null : tier;
}

/** The money line on a statement: "credit $6.00" or "due $6.00". */
export const signedMoney = (cents: number) => (cents < 0 ? `credit ${formatCents(-cents)}` : cents > 0 ? `due ${formatCents(cents)}` : formatCents(0));

/** Whether a district takes bookings of loads today, from its rulebook alone (a licence's own standing is separate). */
export type BookingReadiness = { ready: boolean; reason: string | null; section: string | null };

/**
 * Loads can be booked at a district unless its law has the dumping fee paid before dumping (SUL 801)
 * and the Town Board has not set the fee yet (SUL 1208): no figure is invented, so until the ADMIN
 * enters the Board's figure no load can be booked. Told before any form, and to staff as a task.
 */
export function loadBookingReadiness(rb: Pick<Rulebook, "entry" | "enabled">, districtName: string): BookingReadiness {
  const rate = rb.entry("hauler.dumpingFeePer1000Gallons");
  if (rb.enabled("hauler.dumpingFeePaidBeforeDumping") && typeof rate.value !== "number") {
    const before = rb.entry("hauler.dumpingFeePaidBeforeDumping").section;
    return {
      ready: false,
      reason:
        `Loads cannot be booked at ${districtName} yet: the Town Board has not set the dumping fee (${rate.section}), ` +
        `and each load's fee is paid before dumping (${before}). Booking opens once the fee is in the district's rulebook.`,
      section: rate.section,
    };
  }
  return { ready: true, reason: null, section: null };
}

/**
 * A warning when the Part 364 permit on file ends before the licence does (SUL 802: the licence
 * falls with it): the day it lapses, and whether that comes before renewal opens, so the hauler
 * files the renewed permit in time. Null when no permit is required, none is lapsing, or it has
 * already lapsed (the standing says so then).
 */
export function part364Warning(
  l: Pick<HaulerLicense, "status" | "validUntil" | "part364ExpiresOn" | "part364RevokedAt" | "part364PermitNumber">,
  day: CalendarDate,
  opts: { part364Required: boolean; section: string },
  renewalOpens: CalendarDate | null,
): string | null {
  if (!opts.part364Required || l.status !== "APPROVED" || !l.validUntil || !l.part364ExpiresOn || l.part364RevokedAt) return null;
  if (l.part364ExpiresOn < day || l.part364ExpiresOn >= l.validUntil) return null;
  const before =
    renewalOpens && l.part364ExpiresOn < renewalOpens
      ? `before renewal opens on ${formatDate(renewalOpens)}`
      : `before the licence ends on ${formatDate(l.validUntil)}`;
  return (
    `Your NYSDEC Part 364 permit${l.part364PermitNumber ? ` ${l.part364PermitNumber}` : ""} expires on ${formatDate(l.part364ExpiresOn)}, ${before}. ` +
    `From ${formatDate(addCalendarDays(l.part364ExpiresOn, 1))} the licence is invalid and loads are refused (${opts.section}) until you file the renewed permit on the licence page.`
  );
}

/** Where a licence's next step is done: its edit page, the payment, the renewal, the licence page (Part 364), the booking form, or nowhere. */
export type LicenseAction = "EDIT" | "PAY" | "RENEW" | "RENEWAL" | "PART364" | "BOOK" | "NONE";
export type LicenseNextStep = { text: string | null; dueDate: CalendarDate | null; action: LicenseAction };

/** What the company does next about a licence, by when, and where: the licence card and the dashboard say the same. */
export function licenseNextStep(
  l: Pick<HaulerLicense, "status" | "validFrom" | "validUntil" | "part364ExpiresOn" | "part364RevokedAt" | "part364PermitNumber">,
  s: Standing,
  o: {
    day: CalendarDate;
    feeDue: boolean;
    renewalOpens: CalendarDate | null;
    renewal: { status: string; feeDue: boolean } | null;
    booking: BookingReadiness;
    part364: { part364Required: boolean; section: string };
  },
): LicenseNextStep {
  const step = (text: string | null, action: LicenseAction, dueDate: CalendarDate | null = null): LicenseNextStep => ({ text, action, dueDate });
  switch (l.status) {
    case "DRAFT":
      return step("Finish the application and submit it.", "EDIT");
    case "SUBMITTED":
      return o.feeDue ? step("Pay the application fee; the Town Board reviews the application once it is paid.", "PAY") : step("The Town Board reviews the application.", "NONE");
    case "DENIED":
      return step("The Town Board denied the application, with its reasons on the licence page. You may apply again.", "NONE");
    case "SUSPENDED":
      return step("No loads are accepted while the licence is suspended; the District Operator reinstates it.", "NONE");
    case "REVOKED":
      return step("The licence is revoked; apply for a new licence to discharge again.", "NONE");
    case "APPROVED":
      break;
    default:
      return step(null, "NONE");
  }
  if (s.state === "EXPIRED") return o.renewal ? step("The licence has expired; see its renewal.", "RENEWAL") : step("The licence has expired; apply for a new licence.", "NONE");
  if (s.state === "PART364_LAPSED" || s.state === "PART364_REVOKED")
    return step("File the renewed Part 364 permit on the licence page: until then the licence is invalid and loads are refused.", "PART364");
  if (l.part364ExpiresOn && part364Warning(l, o.day, o.part364, o.renewalOpens))
    return step(`File the renewed Part 364 permit before ${formatDate(l.part364ExpiresOn)}, when the one on file expires.`, "PART364", l.part364ExpiresOn);
  if (o.renewal?.status === "DRAFT") return step("Finish the renewal and submit it.", "RENEWAL", l.validUntil);
  if (o.renewal?.status === "SUBMITTED")
    return o.renewal.feeDue
      ? step("Pay the renewal's application fee; the Town Board reviews it once it is paid.", "RENEWAL", l.validUntil)
      : step("The Town Board reviews the renewal.", "RENEWAL", l.validUntil);
  if (!o.renewal && o.renewalOpens && o.day >= o.renewalOpens) return step(`Renew the licence before it ends on ${formatDate(l.validUntil!)}.`, "RENEW", l.validUntil);
  if (!o.booking.ready) return step(o.booking.reason, "NONE");
  const book =
    s.state === "NOT_YET_IN_FORCE" ? `Book loads for ${formatDate(l.validFrom!)} on; pay each dumping fee before you come.` : "Book each load and pay its dumping fee before you come.";
  const opens = !o.renewal && o.renewalOpens && o.day < o.renewalOpens ? ` Renewal opens on ${formatDate(o.renewalOpens)}.` : "";
  return step(book + opens, "BOOK", l.validUntil);
}

/**
 * The rules of enforcement and delinquency as pure functions of a rulebook and calendar dates
 * (no database, no clock): what each kind of action is, its deadlines, a fine's limits, and a
 * charge's statement (penalty and interest) on a given date. Figures come from the rulebook only.
 */
import { addCalendarDays, addMonths, daysBetween, type CalendarDate } from "../common/dates.js";
import type { Rulebook } from "../districts/districts.service.js";
import type { ActionKind, PetitionTo, Relief } from "./enforcement.entity.js";
import { countOf, formatDate } from "../common/format.js";

type KindInfo = {
  label: string;
  /** the SUL section; Huron districts cite Article V instead */
  sulSection: string;
  /** who a petition goes to (SUL 1104-1108); null: no petition against it */
  petitionTo: PetitionTo | null;
  /** the relief a petition may ask for */
  reliefs: Relief[];
  /** the decisions open to the Board (or Operator) on the petition, besides a show-cause hearing */
  decisions: ("REJECT" | "MODIFY" | "SUSPEND" | "RECONNECT")[];
};

export const KINDS: Record<ActionKind, KindInfo> = {
  NOTICE_OF_VIOLATION: { label: "Notice of violation", sulSection: "Sewer Use Law 1102", petitionTo: null, reliefs: [], decisions: [] },
  CONSENT_ORDER: { label: "Consent order", sulSection: "Sewer Use Law 1103", petitionTo: null, reliefs: [], decisions: [] },
  COMPLIANCE_ORDER: { label: "Administrative (compliance) order", sulSection: "Sewer Use Law 1104", petitionTo: "TOWN_BOARD", reliefs: ["MODIFY", "SUSPEND"], decisions: ["REJECT", "MODIFY", "SUSPEND"] },
  FINE: { label: "Administrative fine", sulSection: "Sewer Use Law 1105", petitionTo: "TOWN_BOARD", reliefs: ["MODIFY", "SUSPEND"], decisions: ["REJECT", "MODIFY", "SUSPEND"] },
  CEASE_AND_DESIST: { label: "Cease and desist order", sulSection: "Sewer Use Law 1106", petitionTo: "TOWN_BOARD", reliefs: ["MODIFY", "SUSPEND"], decisions: ["REJECT", "MODIFY", "SUSPEND"] },
  PERMIT_TERMINATION: { label: "Notice of permit termination", sulSection: "Sewer Use Law 1107", petitionTo: "TOWN_BOARD", reliefs: ["CONTINUED_USE"], decisions: ["REJECT"] },
  WATER_SEVERANCE: { label: "Water supply severance", sulSection: "Sewer Use Law 1108", petitionTo: "DISTRICT_OPERATOR", reliefs: ["RECONNECT"], decisions: ["REJECT", "RECONNECT"] },
  SUMMARY_ABATEMENT: { label: "Summary abatement (emergency order)", sulSection: "Sewer Use Law 1117", petitionTo: null, reliefs: [], decisions: [] },
};

export const RELIEF_LABELS: Record<Relief, string> = {
  MODIFY: "Modify the order or fine",
  SUSPEND: "Suspend the order or fine",
  RECONNECT: "Reconnect the water supply",
  CONTINUED_USE: "Permit continued use of the sewer",
};

export const DECISION_LABELS: Record<KindInfo["decisions"][number], string> = { REJECT: "Reject as frivolous", MODIFY: "Modify", SUSPEND: "Suspend", RECONNECT: "Reconnect the water supply" };

export const ACTION_STATUS_LABELS: Record<string, string> = {
  SERVED: "Served",
  UNDER_PETITION: "Under petition",
  FINAL: "Final",
  SUSPENDED: "Suspended",
  VACATED: "Vacated",
  RECONNECTED: "Water reconnected",
};

export const PETITION_STATUS_LABELS: Record<string, string> = {
  FILED: "Filed, awaiting decision",
  HEARING_ORDERED: "Show-cause hearing ordered",
  REJECTED: "Rejected as frivolous",
  MODIFIED: "Granted: modified",
  SUSPENDED: "Granted: suspended",
  RECONNECTED: "Granted: water reconnected",
  UPHELD: "Upheld after the hearing",
  VACATED: "Vacated after the hearing",
  WITHDRAWN: "Withdrawn",
};

export const PETITION_TO_LABELS: Record<PetitionTo, string> = { TOWN_BOARD: "the Town Board", DISTRICT_OPERATOR: "the District Operator" };

/** "an administrative fine", "a consent order": a kind's label in a sentence. */
export function aKind(kind: ActionKind): string {
  const l = KINDS[kind].label.toLowerCase();
  return `${/^[aeiou]/.test(l) ? "an" : "a"} ${l}`;
}

/** The section to cite for a kind of action in this district ("Sewer Use Law 1105"; "Huron V-2"). */
export function sectionFor(rb: Rulebook, kind: ActionKind): string {
  if (kind === "FINE") return rb.entry("enforcement.fineMaxPerDay").section;
  if (kind === "NOTICE_OF_VIOLATION") return rb.entry("enforcement.noticeOfViolationAnswerDays").section;
  const prefix = rb.entry("enforcement.petitionsEnabled").section;
  // Districts whose law is not the SUL cite their own enforcement article for the other kinds.
  return prefix.startsWith("Sewer Use Law") ? KINDS[kind].sulSection : prefix.replace(/ [0-9-]+$/, "");
}

/**
 * Whether the district's law lets the Operator serve this kind of action: the notice everywhere; the
 * fine where fines are administrative (SUL 1105; in Huron a court fines on conviction, V-2); the
 * orders where the law has them (SUL 1103-1108, 1117; not Huron).
 */
export function kindProvided(rb: Rulebook, kind: ActionKind): boolean {
  if (kind === "NOTICE_OF_VIOLATION") return true;
  if (kind === "FINE") return !rb.enabled("enforcement.finesOnConviction");
  return rb.enabled("enforcement.ordersEnabled");
}

/** Whether the district's law lets a respondent petition against this kind of action. */
export function petitionable(rb: Rulebook, kind: ActionKind): boolean {
  return KINDS[kind].petitionTo !== null && rb.enabled("enforcement.petitionsEnabled") && typeof rb.entry("enforcement.petitionDays").value === "number";
}

/**
 * The dates an action served (mailed) on `servedOn` carries. A notice counts as given on mailing
 * (SUL 1111), so the mailing day is day 0 and the last day is servedOn + N.
 */
export function deadlinesFor(rb: Rulebook, kind: ActionKind, servedOn: CalendarDate) {
  const answerDays = rb.entry("enforcement.noticeOfViolationAnswerDays").value;
  const answerDueOn = kind === "NOTICE_OF_VIOLATION" && typeof answerDays === "number" ? addCalendarDays(servedOn, answerDays) : null;
  const petitionDueOn = petitionable(rb, kind) ? addCalendarDays(servedOn, rb.require("enforcement.petitionDays").value) : null;
  const hearingDays = rb.entry("enforcement.summaryAbatementHearingDays").value;
  const hearingDueOn = kind === "SUMMARY_ABATEMENT" && typeof hearingDays === "number" ? addCalendarDays(servedOn, hearingDays) : null;
  return { answerDueOn, petitionDueOn, petitionTo: petitionDueOn ? KINDS[kind].petitionTo : null, hearingDueOn };
}

/**
 * Where an action stands today: final by a decision, final by default once the petition window
 * closed without a petition (SUL 1110), or still open to a petition.
 */
export function finality(
  a: { status: string; kind: ActionKind; petitionDueOn: string | null; finalOn: string | null; finalReason: string | null },
  today: CalendarDate,
): { final: boolean; finalOn: CalendarDate | null; reason: string | null; byDefault: boolean } {
  if (a.finalOn) return { final: a.finalOn <= today, finalOn: a.finalOn, reason: a.finalReason, byDefault: false };
  if (a.status === "SERVED" && a.petitionDueOn && today > a.petitionDueOn)
    return { final: true, finalOn: addCalendarDays(a.petitionDueOn, 1), reason: "No petition was filed within the time allowed: the respondent is in default and the right to contest is waived.", byDefault: true };
  return { final: false, finalOn: null, reason: null, byDefault: false };
}

// ---------------------------------------------------------------------------------------------
// Fines: each day a separate violation, each within the rulebook's range (SUL 1105; Huron V-2)

export function fineLimits(rb: Rulebook): { minCents: number; maxCents: number; section: string } {
  const min = rb.entry("enforcement.fineMinPerDay");
  const max = rb.require("enforcement.fineMaxPerDay");
  return { minCents: typeof min.value === "number" ? min.value : 1, maxCents: max.value, section: max.section };
}

/** Spreads a total over the days of a fine, cent-exact (earlier days take the odd cents). */
export function spreadOverDays(dates: string[], totalCents: number): { date: string; amountCents: number }[] {
  const base = Math.floor(totalCents / dates.length);
  const extra = totalCents - base * dates.length;
  return dates.map((date, i) => ({ date, amountCents: base + (i < extra ? 1 : 0) }));
}

// ---------------------------------------------------------------------------------------------
// Delinquency (SUL 1118; Huron VI-3)

/** Whole months from `from` to `to` (addMonths: Jan 31 + 1 month = Feb 28), and whether a part of a month is left over. */
export function monthsElapsed(from: CalendarDate, to: CalendarDate): { whole: number; part: boolean } {
  if (to <= from) return { whole: 0, part: false };
  let whole = 0;
  while (addMonths(from, whole + 1) <= to) whole++;
  return { whole, part: addMonths(from, whole) < to };
}

export type StatementLine = { code: string; label: string; section: string; amountCents: number };
export type Statement = {
  asOf: CalendarDate;
  billedOn: CalendarDate;
  /** the day from which lateness is counted: the billing date (SUL 1118) or the due date (Huron VI-3) */
  dueOn: CalendarDate;
  /** the last day the bill can be paid without penalty */
  lastDayWithoutPenalty: CalendarDate;
  daysSinceBilling: number;
  delinquent: boolean;
  /** days past the last day without penalty (0 while not delinquent) */
  daysDelinquent: number;
  interestMonths: number;
  lines: StatementLine[];
  totalCents: number;
  /** Huron VI-3: a charge unpaid this long after its due date is a violation of the law */
  violation: { since: CalendarDate; section: string } | null;
  explanation: string;
};

const pct = (cents: number, percent: number, times = 1) => Math.round((cents * percent * times) / 100);

/**
 * A charge's statement on `asOf`: the original bill, then, once it is unpaid past the rulebook's
 * period, the penalty on the original bill and interest per month on the unpaid balance counted
 * back to the billing date. The last day of the period is still on time (day 20 after billing in
 * the SUL: on time; day 21: penalty and the first month of interest).
 */
export function statementFor(
  rb: Rulebook,
  charge: { amountCents: number; billedOn: CalendarDate; label: string; section: string; actionId?: string | null },
  asOf: CalendarDate,
): Statement {
  // A fine (a charge of an enforcement action) is late-charged only where the penalty covers every
  // payment due (SUL 1118); Huron VI-3's covers sewer charges, so a court's fine stays as imposed.
  // A rulebook version written before the entry existed charged every bill alike.
  const scope = "billing.penaltyOnEveryPaymentDue" as const;
  const lateCharged = !charge.actionId || !rb.has(scope) || rb.enabled(scope);
  const late = rb.require("billing.lateAfterDays");
  const countFrom = rb.entry("billing.lateAfterDaysCountFrom").value;
  const dueDays = rb.entry("billing.dueDaysAfterMailing").value;
  const dueOn = countFrom === "due date" && typeof dueDays === "number" ? addCalendarDays(charge.billedOn, dueDays) : charge.billedOn;
  const lastDayWithoutPenalty = addCalendarDays(dueOn, late.value);
  const delinquent = lateCharged && asOf > lastDayWithoutPenalty;
  const lines: StatementLine[] = [{ code: "charge", label: charge.label, section: charge.section, amountCents: charge.amountCents }];
  let interestMonths = 0;
  const parts: string[] = [`Billed ${formatDate(charge.billedOn)}.`];
  if (dueOn !== charge.billedOn) parts.push(`Due ${formatDate(dueOn)} (${rb.entry("billing.dueDaysAfterMailing").section}).`);
  if (lateCharged) parts.push(`Paid by ${formatDate(lastDayWithoutPenalty)}, no penalty is added (${late.section}).`);
  else parts.push(`No late penalty is added to a fine (${rb.entry(scope).section} applies to sewer charges).`);
  if (delinquent) {
    const penalty = rb.entry("billing.penaltyPercent");
    if (typeof penalty.value === "number" && penalty.value > 0) {
      const amount = pct(charge.amountCents, penalty.value);
      if (amount > 0) lines.push({ code: "penalty", label: `Penalty, ${penalty.value}% of the original bill`, section: penalty.section, amountCents: amount });
    }
    const interest = rb.entry("billing.monthlyInterestPercent");
    if (typeof interest.value === "number" && interest.value > 0) {
      const m = monthsElapsed(charge.billedOn, asOf);
      interestMonths = m.whole + (m.part && rb.enabled("billing.interestPartMonthCounts") ? 1 : 0);
      const amount = pct(charge.amountCents, interest.value, interestMonths);
      if (amount > 0)
        lines.push({
          code: "interest",
          label: `Interest, ${interest.value}% a month for ${countOf(interestMonths, "month")} since ${formatDate(charge.billedOn)}`,
          section: interest.section,
          amountCents: amount,
        });
    }
    parts.push(`Unpaid after ${formatDate(lastDayWithoutPenalty)}: delinquent.`);
  }
  const violationDays = rb.entry("billing.violationAfterDaysInArrears");
  let violation: Statement["violation"] = null;
  if (lateCharged && typeof violationDays.value === "number") {
    const since = addCalendarDays(dueOn, violationDays.value + 1);
    if (asOf >= since) violation = { since, section: violationDays.section };
  }
  return {
    asOf,
    billedOn: charge.billedOn,
    dueOn,
    lastDayWithoutPenalty,
    daysSinceBilling: daysBetween(charge.billedOn, asOf),
    delinquent,
    daysDelinquent: delinquent ? daysBetween(lastDayWithoutPenalty, asOf) : 0,
    interestMonths,
    lines,
    totalCents: lines.reduce((s, l) => s + l.amountCents, 0),
    violation,
    explanation: parts.join(" "),
  };
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "October 1" → "2026-10-01" in the given year; null when the rulebook has no such date. */
export function dateInYear(text: unknown, year: number): CalendarDate | null {
  if (typeof text !== "string") return null;
  const m = /^([A-Za-z]+)\s+(\d{1,2})$/.exec(text.trim());
  if (!m) return null;
  const month = MONTHS.indexOf(m[1].toLowerCase());
  if (month < 0) return null;
  return `${year}-${String(month + 1).padStart(2, "0")}-${m[2].padStart(2, "0")}`;
}

/** Whether a charge goes on the tax levy as of a date (SUL 1118: delinquent at least 60 days as of October 1; Huron VI-4: any arrears). */
export function onTaxLevy(rb: Rulebook, s: Statement): boolean {
  if (!rb.enabled("billing.taxLevyEnabled") || !s.delinquent) return false;
  const min = rb.entry("billing.taxLevyDelinquentDays").value;
  return typeof min === "number" ? s.daysDelinquent >= min : true;
}

export function csvCell(v: string | number | null): string {
  const s = v === null ? "" : String(v);
  // Quote everything; neutralise spreadsheet formulas (a cell starting with = + - @).
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
}

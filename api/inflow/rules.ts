import { daysBetween, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { formatDate } from "../common/format.js";
import type { Rulebook } from "../districts/districts.service.js";

/**
 * The law of inflow (SUL 701-705; Huron III-8) as pure functions over a rulebook version. Every
 * figure is read from the rulebook with its section: the 100 feet of 702
 * (`inflow.stormSewerWithinFeet`), whether the law has an inspection at sale at all
 * (`inflow.disconnectOnSaleEnabled`: SUL 702-703 yes, Huron no), and 705's surcharge (statute cap
 * `billing.inflowSurchargeMaxFactor`, the Board's rate `billing.inflowSurchargeFactor`, null until
 * the Board sets it). Huron's law forbids the connections (III-8) and gives its Article V notice;
 * it has no inspection at sale, no 100 feet, no certificate and no surcharge: nothing is borrowed.
 */

/** Sources of inflow as the laws name them (SUL 701's list; Huron III-8's roof downspouts, exterior foundation and areaway drains), and any other. */
export const SOURCE_KINDS = ["SUMP_PUMP", "FOOTING_DRAIN", "ROOF_LEADER", "ROOF_DRAIN", "CELLAR_DRAIN", "AREAWAY_DRAIN", "CATCH_BASIN", "COOLING_WATER", "OTHER"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export const SOURCE_KIND_LABELS: Record<SourceKind, string> = {
  SUMP_PUMP: "Sump pump",
  FOOTING_DRAIN: "Footing or foundation drain",
  ROOF_LEADER: "Roof leader or downspout",
  ROOF_DRAIN: "Roof drain",
  CELLAR_DRAIN: "Cellar drain",
  AREAWAY_DRAIN: "Areaway drain",
  CATCH_BASIN: "Catch basin",
  COOLING_WATER: "Uncontaminated cooling water discharge",
  OTHER: "Other source of inflow",
};

/** What the inspector found of one source: connected to the sanitary sewer, disconnected, or connected again after its disconnection (704). */
export const SOURCE_STATES = ["CONNECTED", "DISCONNECTED", "RECONNECTED"] as const;
export type SourceState = (typeof SOURCE_STATES)[number];
export const SOURCE_STATE_LABELS: Record<SourceState, string> = {
  CONNECTED: "Connected to the sanitary sewer",
  DISCONNECTED: "Disconnected",
  RECONNECTED: "Reconnected after its disconnection",
};

export type VisitOutcome = "PASSED" | "ORDERED" | "VIOLATION";

/** The section of the district's law a rule comes from, read from the rulebook entry that carries it. */
const sectionOf = (rb: Rulebook, key: "inflow.newSourcesProhibited" | "inflow.disconnectOnSaleEnabled" | "inflow.stormSewerWithinFeet") => rb.entry(key).section;

/** Sections of Article 7 next to 702 (703, 704, 705), named from the rulebook's 702 entry ("Sewer Use Law 702" → "Sewer Use Law 703"). */
export function articleSection(rb: Rulebook, n: 703 | 704 | 705): string {
  return sectionOf(rb, "inflow.disconnectOnSaleEnabled").replace(/\b702\b/, String(n));
}

/** Whether the district's law has the Tax Assessor's notice and the inspection at sale (SUL 702-703; Huron none). */
export function inspectsAtSale(rb: Rulebook): boolean {
  return rb.enabled("inflow.disconnectOnSaleEnabled");
}

/** The refusal where the law has no inspection at sale (Huron): names the law and what it does provide. */
export function noInspectionAtSale(rb: Rulebook, lawName: string): string {
  return `The ${lawName} has no inspection when a property is sold and no inflow certificate (${sectionOf(rb, "inflow.disconnectOnSaleEnabled")}): it forbids inflow connections, and a connection found is a violation served with a written notice.`;
}

export type DisconnectionJudgement = { required: boolean; reason: string; section: string };

/**
 * SUL 702: existing inflow connections must be disconnected before the sale where a separate storm
 * sewer is within 100 feet of the property line (100 is within, 100.1 is not) or the District
 * Operator judges natural drainage sufficient. `stormSewerFeet` null: no storm sewer available.
 * Huron III-8 forbids every such connection, so disconnection is always required there.
 */
export function disconnectionRequired(rb: Rulebook, found: { stormSewerFeet: number | null; naturalDrainageAdequate: boolean }): DisconnectionJudgement {
  if (!inspectsAtSale(rb)) {
    const section = sectionOf(rb, "inflow.newSourcesProhibited");
    return { required: true, reason: `No such connection may be made to the sanitary sewer (${section}).`, section };
  }
  const within = rb.require("inflow.stormSewerWithinFeet");
  const near = found.stormSewerFeet !== null && found.stormSewerFeet <= within.value;
  const far = found.stormSewerFeet === null ? "no separate storm sewer is available" : `the nearest storm sewer is ${feet(found.stormSewerFeet)} from the property line, more than ${feet(within.value)}`;
  if (near)
    return { required: true, reason: `A separate storm sewer is ${feet(found.stormSewerFeet!)} from the property line, within ${feet(within.value)} (${within.section}).`, section: within.section };
  if (found.naturalDrainageAdequate)
    return { required: true, reason: `The District Operator judged natural drainage sufficient, and ${far} (${within.section}).`, section: within.section };
  return { required: false, reason: `Disconnection before sale is not required: ${far} and natural drainage is not sufficient (${within.section}).`, section: within.section };
}

export const feet = (n: number) => `${Number.isInteger(n) ? n : n.toFixed(1)} ${n === 1 ? "foot" : "feet"}`;

export type SourceFinding = { kind: SourceKind; state: SourceState };
export type VisitJudgement = { outcome: VisitOutcome; disconnection: DisconnectionJudgement; connected: number; basis: string };

/**
 * One visit judged: PASSED when no source is connected (or 702 does not require disconnection and
 * none was reconnected after a disconnection under the Article); otherwise ORDERED (SUL: the
 * disconnection order with its date, and a re-inspection) or VIOLATION (Huron: III-8 forbids the
 * connection; the Superintendent serves the written notice of Article V).
 */
export function judgeVisit(rb: Rulebook, found: { sources: SourceFinding[]; stormSewerFeet: number | null; naturalDrainageAdequate: boolean }): VisitJudgement {
  const disconnection = disconnectionRequired(rb, found);
  const connected = found.sources.filter((s) => s.state !== "DISCONNECTED");
  const reconnected = connected.some((s) => s.state === "RECONNECTED");
  if (!connected.length)
    return { outcome: "PASSED", disconnection, connected: 0, basis: found.sources.length ? "Every inflow source found is disconnected from the sanitary sewer." : "No inflow source is connected to the sanitary sewer." };
  if (!inspectsAtSale(rb)) return { outcome: "VIOLATION", disconnection, connected: connected.length, basis: disconnection.reason };
  if (!disconnection.required && !reconnected) return { outcome: "PASSED", disconnection, connected: connected.length, basis: disconnection.reason };
  return { outcome: "ORDERED", disconnection, connected: connected.length, basis: reconnected && !disconnection.required ? `A source disconnected under the Article was reconnected (${articleSection(rb, 704)}).` : disconnection.reason };
}

/** Whether a pass issues an inflow compliance certificate: the record of 703's inspection (SUL only). */
export const issuesCertificate = (rb: Rulebook, outcome: VisitOutcome) => outcome === "PASSED" && inspectsAtSale(rb);

/**
 * The disconnection order's date: the law gives no period (702 asks only that it be done before the
 * sale), so the District Operator sets it; it must be after the day of the visit
 * (docs/decisions/inflow-order-deadline.md).
 */
export function orderDeadlineProblem(visitedOn: CalendarDate, deadline: string | null | undefined): string | null {
  if (!deadline) return "Give the date by which the connections must be disconnected (the law sets no period: you set it).";
  if (!isCalendarDate(deadline)) return "Enter a date like 2027-03-15.";
  if (deadline <= visitedOn) return `The date must be after the day of the inspection (${formatDate(visitedOn)}).`;
  return null;
}

/**
 * Reminders of a disconnection order (not in the law, which sets no period: the district's practice,
 * as the septic notices'): the owner and the inspection's parties once from ORDER_REMINDER_DAYS
 * before its date through the date itself; the District Operators once, the day after it, so the
 * property is inspected again. Each once per date (a new order's date is reminded again).
 */
export const ORDER_REMINDER_DAYS = 14;
export function orderReminder(deadline: CalendarDate, sentFor: { reminded: CalendarDate | null; lapse: CalendarDate | null }, today: CalendarDate): "REMIND" | "LAPSED" | null {
  if (today > deadline) return sentFor.lapse === deadline ? null : "LAPSED";
  return sentFor.reminded !== deadline && daysBetween(today, deadline) <= ORDER_REMINDER_DAYS ? "REMIND" : null;
}

/**
 * Which findings the District Operator may open an enforcement action from. SUL 704: reconnecting a
 * source disconnected under the Article is a wilful violation. Huron III-8 with Article V: any
 * prohibited connection found is a violation served with a written notice.
 */
export function enforceable(rb: Rulebook, state: SourceState): { ok: boolean; section: string } {
  if (inspectsAtSale(rb)) return { ok: state === "RECONNECTED", section: articleSection(rb, 704) };
  return { ok: state !== "DISCONNECTED", section: sectionOf(rb, "inflow.newSourcesProhibited") };
}

export type Surcharge = { factor: number | null; maxFactor: number | null; section: string; problem: string | null };

/**
 * SUL 705: inflow is billed under Article 12, and the Town Board may surcharge it at a rate not over
 * five times the normal sewage volume charge. The cap is the statute's (`billing.inflowSurchargeMaxFactor`);
 * the rate the Board's (`billing.inflowSurchargeFactor`), none until set. Huron sets neither.
 */
export function inflowSurcharge(rb: Rulebook): Surcharge {
  const cap = rb.entry("billing.inflowSurchargeMaxFactor");
  const rate = rb.entry("billing.inflowSurchargeFactor");
  const maxFactor = typeof cap.value === "number" ? cap.value : null;
  const factor = typeof rate.value === "number" ? rate.value : null;
  let problem: string | null = null;
  if (factor !== null && maxFactor === null) problem = `The ${cap.section} provides no inflow surcharge.`;
  else if (factor !== null && maxFactor !== null && factor > maxFactor) problem = `The surcharge may be at most ${maxFactor} times the normal sewage volume charge (${cap.section}); ${factor} is set.`;
  else if (factor !== null && factor < 0) problem = "The surcharge cannot be negative.";
  return { factor, maxFactor, section: rate.section, problem };
}

/**
 * The surcharge on a property's inflow, in cents: the normal volume charge times the Board's rate
 * (none unset), rounded half up once (the rate taken to thousandths, so 1.5 × 333 is exactly 499.5
 * → 500); a rate past the cap is refused.
 */
export function inflowSurchargeCents(rb: Rulebook, normalVolumeChargeCents: number): { cents: number; section: string } {
  const s = inflowSurcharge(rb);
  if (s.problem) throw new RangeError(s.problem);
  if (s.factor === null) return { cents: 0, section: s.section };
  const milli = BigInt(Math.round(s.factor * 1000));
  const num = BigInt(Math.round(normalVolumeChargeCents)) * milli;
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const q = Number((2n * abs + 1000n) / 2000n);
  return { cents: neg ? -q : q, section: s.section };
}

// ---------------------------------------------------------------------------------------------
// SUL 705: the District Operator's determination of the amount of inflow

/**
 * Whether the district's law has the determination of inflow and its charge (SUL 705:
 * `inflow.chargesEnabled`; Huron III-8 forbids the connections and sets no charge). A rulebook
 * version written before the key was added answers by the surcharge's statute cap.
 */
export function chargesInflow(rb: Rulebook): boolean {
  if (rb.has("inflow.chargesEnabled")) return rb.enabled("inflow.chargesEnabled");
  return typeof rb.entry("billing.inflowSurchargeMaxFactor").value === "number";
}

/** The section of the law's charge for inflow ("Sewer Use Law 705"). */
export function chargeSection(rb: Rulebook): string {
  return rb.has("inflow.chargesEnabled") ? rb.entry("inflow.chargesEnabled").section : rb.entry("billing.inflowSurchargeMaxFactor").section;
}

/** The refusal where the law has no determination of inflow and no charge for it (Huron). */
export function noInflowCharge(rb: Rulebook, lawName: string): string {
  return `The ${lawName} provides no determination of inflow and no charge for it (${chargeSection(rb)}): it forbids the connections, and a connection found is a violation served with a written notice.`;
}

/** How the District Operator determined the amount (SUL 705: "whatever action is necessary ... including ... a control manhole"). */
export const DETERMINATION_METHODS = ["CONTROL_MANHOLE_METER", "PUMP_RUN_TIME", "ESTIMATE"] as const;
export type DeterminationMethod = (typeof DETERMINATION_METHODS)[number];
export const DETERMINATION_METHOD_LABELS: Record<DeterminationMethod, string> = {
  CONTROL_MANHOLE_METER: "Metered at a control manhole",
  PUMP_RUN_TIME: "Measured sump pump run time",
  ESTIMATE: "Estimate",
};

/** The most gallons one determination may carry (a mistyped figure is refused, not billed). */
export const MAX_DETERMINED_GALLONS = 100_000_000;

export type DeterminationInput = { periodFrom: string; periodTo: string; gallons: number; method: string; note: string | null; controlManholeBy: string | null };

/**
 * The problems of a determination, by field (none: an empty object): the period's days as calendar
 * dates, the last not after today; the gallons a whole number from 1 (zero inflow is no charge:
 * nothing to record) to MAX_DETERMINED_GALLONS; one of the methods; a note saying how it was
 * determined; a control manhole's date, when required, after today.
 */
export function determinationProblems(d: DeterminationInput, today: CalendarDate): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isCalendarDate(d.periodFrom ?? "")) out.periodFrom = "Enter the first day of the inflow determined like 2026-10-01.";
  if (!isCalendarDate(d.periodTo ?? "")) out.periodTo = "Enter the last day of the inflow determined like 2026-12-31.";
  else if (d.periodTo > today) out.periodTo = `The last day cannot be after today (${formatDate(today)}): determine inflow that has happened.`;
  else if (isCalendarDate(d.periodFrom ?? "") && d.periodTo < d.periodFrom) out.periodTo = "The last day cannot be before the first.";
  if (!Number.isSafeInteger(d.gallons) || d.gallons < 1 || d.gallons > MAX_DETERMINED_GALLONS)
    out.gallons = `Enter the gallons of inflow as a whole number from 1 to ${MAX_DETERMINED_GALLONS.toLocaleString("en-US")}.`;
  if (!DETERMINATION_METHODS.includes(d.method as DeterminationMethod)) out.method = "Choose how the amount was determined: a control manhole's meter, the sump pump's run time, or an estimate.";
  if (!d.note) out.note = "Say how the amount was determined (the readings, the run time and the pump's rate, or what the estimate rests on).";
  else if (d.note.length > 2000) out.note = "Keep the note to 2,000 characters.";
  if (d.controlManholeBy) {
    if (!isCalendarDate(d.controlManholeBy)) out.controlManholeBy = "Enter the date like 2027-03-15.";
    else if (d.controlManholeBy <= today) out.controlManholeBy = `The date must be after today (${formatDate(today)}).`;
  }
  return out;
}

/** Parses the assessor's sale date: 2026-12-31 or 12/31/2026. */
export function parseSaleDate(v: string | undefined): CalendarDate | null {
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

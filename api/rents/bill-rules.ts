import { addCalendarDays, addMonths, daysBetween, termLastDay, type CalendarDate } from "../common/dates.js";
import { formatDate } from "../common/format.js";
import type { Rulebook } from "../districts/districts.service.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";
import { ACCOUNT_CLASSES, formatEdus, type AccountClass } from "./rules.js";
import { chargeSection, chargesInflow, inflowSurcharge, inflowSurchargeCents } from "../inflow/rules.js";

/**
 * The law of a sewer bill as pure functions over the rulebook: the billing periods (SUL 1206;
 * Huron VI-3), the mailing and due dates (Huron VI-3; SUL 1118), the user charge's fixed and
 * variable parts (SUL 1203, 1205), the surcharge for abnormal sewage (SUL 1202, 201), Huron's
 * minimum per user and the owner's excess (VI-2, VI-5, VII), inflow and its surcharge (SUL 705),
 * days served (first and final bills), and what a preview flags. Money is integer cents, rounded half up once per line. No figure here.
 */

export type LineKind = "FIXED" | "VOLUME" | "MINIMUM" | "USE_ABOVE_MINIMUM" | "OWNER_EXCESS" | "SURCHARGE" | "ADJUSTMENT" | "REINSTATEMENT_MINIMUMS" | "INFLOW" | "INFLOW_SURCHARGE";

export type BillLine = {
  kind: LineKind;
  description: string;
  /** what the rate is applied to, in words ("1.75 EDUs × 91 of 365 days") */
  quantity: string | null;
  /** the rate in words ("$6.50 per 1,000 gallons") */
  rate: string | null;
  amountCents: number;
  section: string;
};

/** 12345 → "12,345", without Intl (a run formats figures for every account). */
export const thousands = (n: number): string => (n < 0 ? "-" : "") + String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
/** Integer cents as "$1,234.56" (formatCents's words, without Intl). */
export const cents = (c: number): string => (c < 0 ? "-" : "") + "$" + thousands(Math.floor(Math.abs(c) / 100)) + "." + String(Math.abs(c) % 100).padStart(2, "0");

/** a / b rounded half up (b > 0), exactly, whatever the size. */
export function divRound(a: bigint, b: bigint): number {
  if (b <= 0n) throw new Error("divisor must be positive");
  const neg = a < 0n;
  const abs = neg ? -a : a;
  const q = (2n * abs + b) / (2n * b);
  return Number(neg ? -q : q);
}

// ---------------------------------------------------------------------------------------------
// Periods (SUL 1206; Huron VI-3)

export type Cycle = "INDUSTRIAL" | "OTHER" | "ALL";
export const CYCLE_LABELS: Record<Cycle, string> = { INDUSTRIAL: "Industrial users", OTHER: "All users but industrial", ALL: "All users" };

/**
 * The district's billing cycles: SUL 1206 bills industrial users monthly and the others quarterly
 * (two cycles); where the Board's one period covers every class (Huron VI-3) there is one.
 */
export function billingCycles(rb: Rulebook): { cycle: Cycle; months: number; classes: AccountClass[]; section: string }[] {
  const ind = rb.require("billing.periodMonthsIndustrial");
  const other = rb.require("billing.periodMonthsOther");
  if (ind.value === other.value) return [{ cycle: "ALL", months: other.value, classes: [...ACCOUNT_CLASSES], section: other.section }];
  return [
    { cycle: "INDUSTRIAL", months: ind.value, classes: ["INDUSTRIAL"], section: ind.section },
    { cycle: "OTHER", months: other.value, classes: ACCOUNT_CLASSES.filter((c) => c !== "INDUSTRIAL"), section: other.section },
  ];
}

/** A period of the cycle starting on the first of a month: its last day, or a field error. */
export function billingPeriod(rb: Rulebook, cycle: string, start: CalendarDate): { ok: true; start: CalendarDate; end: CalendarDate; months: number; classes: AccountClass[]; section: string } | { ok: false; field: "cycle" | "periodStart"; message: string } {
  const c = billingCycles(rb).find((x) => x.cycle === cycle);
  if (!c) return { ok: false, field: "cycle", message: `Choose one of this district's billing cycles: ${billingCycles(rb).map((x) => CYCLE_LABELS[x.cycle].toLowerCase()).join(", ")}.` };
  if (!/^\d{4}-\d{2}-01$/.test(start)) return { ok: false, field: "periodStart", message: "A billing period starts on the first day of a month." };
  // Periods follow each other from January (the fiscal year of SUL 1211; the Board's period under Huron VI-3).
  const month = Number(start.slice(5, 7)) - 1;
  if (month % c.months !== 0) return { ok: false, field: "periodStart", message: `Periods of ${c.months} months start in ${monthsStarting(c.months)} (${c.section}).` };
  return { ok: true, start, end: termLastDay(start, c.months), months: c.months, classes: c.classes, section: c.section };
}

const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
function monthsStarting(months: number): string {
  const names = MONTH_NAMES.filter((_, i) => i % months === 0);
  return names.length > 4 ? "any month" : names.join(", ");
}

/** Days served in the period: from the later of the period's start and the account's first day to the earlier of its end and the last day served. */
export function daysServed(period: { start: CalendarDate; end: CalendarDate }, openedOn: CalendarDate, closedOn: CalendarDate | null): { from: CalendarDate; to: CalendarDate; days: number; periodDays: number } | null {
  const from = openedOn > period.start ? openedOn : period.start;
  const to = closedOn !== null && closedOn < period.end ? closedOn : period.end;
  const periodDays = daysBetween(period.start, period.end) + 1;
  if (to < from) return null;
  return { from, to, days: daysBetween(from, to) + 1, periodDays };
}

// ---------------------------------------------------------------------------------------------
// Mailing and due dates (Huron VI-3; SUL 1118)

/**
 * Huron VI-3: bills are "mailed on or after the first day of the month immediately following the
 * period" and due "on or before fifteen (15) days after the date of mailing". SUL sets no due date
 * of its own: a bill unpaid 20 days after the billing date is in default (1118), so the bill reads
 * "pay by" that 20th day. No bill is mailed before its period is over, under either law.
 */
export function mailingAndDue(rb: Rulebook, periodEnd: CalendarDate, mailedOn: CalendarDate): { ok: true; dueOn: CalendarDate; dueText: string; section: string } | { ok: false; message: string } {
  const firstOfNext = earliestMailing(periodEnd);
  const due = rb.entry("billing.dueDaysAfterMailing");
  if (mailedOn < firstOfNext) {
    const why = typeof due.value === "number" ? `${due.section}: bills are mailed on or after the first day of the month after the period` : "a bill is mailed once its period is over";
    return { ok: false, message: `The bills cannot be mailed before ${formatDate(firstOfNext)} (${why}).` };
  }
  if (typeof due.value === "number") {
    const dueOn = addCalendarDays(mailedOn, due.value);
    return { ok: true, dueOn, dueText: `Due on or before ${formatDate(dueOn)}, ${due.value} days after mailing (${due.section}).`, section: due.section };
  }
  const late = rb.require("billing.lateAfterDays");
  const penalty = rb.entry("billing.penaltyPercent");
  const dueOn = addCalendarDays(mailedOn, late.value);
  return {
    ok: true,
    dueOn,
    dueText: `Pay by ${formatDate(dueOn)}: a bill unpaid ${late.value} days after the billing date is in default${typeof penalty.value === "number" ? ` and a penalty of ${penalty.value}% is added` : ""} (${late.section}).`,
    section: late.section,
  };
}

/** The first mailing day a period allows: the first day of the month after the one it ends in (Huron VI-3). */
export function earliestMailing(periodEnd: CalendarDate): CalendarDate {
  return addMonths(`${periodEnd.slice(0, 8)}01`, 1);
}

// ---------------------------------------------------------------------------------------------
// SUL 1203: the fixed part, shared over EDUs

/**
 * SUL 1203: UC(F) is the fixed costs "divided by the total number of Equivalent Dwelling Units".
 * The Board's fixed costs are a figure for the fiscal year (1211); a period's share is the year's
 * costs × the period's days ÷ the year's days, and it is shared over the EDU-days served in the
 * period (each account's EDUs × its days served), so an account served part of the period pays
 * for its days and the accounts' fixed parts add up to the period's share. `districtEduDays` is
 * Σ EDU thousandths × days served over every account of the district in the period.
 * See docs/decisions/bill-fixed-part-and-proration.md.
 */
export function fixedPart(
  rb: Rulebook,
  a: { eduThousandths: number; days: number; periodDays: number; yearDays: number; districtEduDays: bigint },
): BillLine | null {
  const costs = rb.entry("billing.fixedCostsPerYear");
  if (typeof costs.value !== "number" || a.eduThousandths <= 0 || a.districtEduDays <= 0n) return null;
  // account share = costs × (periodDays / yearDays) × (edu × days) / districtEduDays
  const amount = divRound(BigInt(costs.value) * BigInt(a.periodDays) * BigInt(a.eduThousandths) * BigInt(a.days), BigInt(a.yearDays) * a.districtEduDays);
  const averageEdus = Number(a.districtEduDays) / a.periodDays / 1000;
  const perEduPeriod = divRound(BigInt(costs.value) * BigInt(a.periodDays) * BigInt(a.periodDays) * 1000n, BigInt(a.yearDays) * a.districtEduDays);
  return {
    kind: "FIXED",
    description: `Fixed user cost, UC(F): the Town's fixed costs for the year (${cents(costs.value)}) divided by the district's ${thousands(Math.floor(averageEdus))}${averageEdus % 1 ? `.${String(Math.round((averageEdus % 1) * 1000)).padStart(3, "0").replace(/0+$/, "")}` : ""} EDUs`,
    quantity: `${formatEdus(a.eduThousandths)} EDU${a.eduThousandths === 1000 ? "" : "s"}${a.days < a.periodDays ? ` × ${a.days} of ${a.periodDays} days served` : ""}`,
    rate: `${cents(perEduPeriod)} per EDU for the period (${a.periodDays} of ${a.yearDays} days of the fiscal year)`,
    amountCents: amount,
    section: costs.section,
  };
}

/** Days in the fiscal year holding `date` (SUL 1211: January to December). */
export function yearDays(date: CalendarDate): number {
  const y = Number(date.slice(0, 4));
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 366 : 365;
}

// ---------------------------------------------------------------------------------------------
// SUL 1203, 1205: the variable part per 1,000 gallons, less a deduction granted

/**
 * UC(V): "a rate per thousand gallons of sewage based upon metered water usage" (SUL 1203, 1205);
 * where the District Operator granted a percentage of the metered water as the basis (1205, a
 * flow-deduction request PERCENTAGE_SET), only that percentage is charged.
 */
export function variablePart(rb: Rulebook, a: { gallons: number; sewerPercent: number | null; deductionSection?: string | null; estimated?: boolean }): BillLine | null {
  const rate = rb.entry("billing.volumeChargePer1000Gallons");
  if (typeof rate.value !== "number") return null;
  const gallons = Math.max(0, Math.round(a.gallons));
  const pct = a.sewerPercent ?? 100;
  const amount = divRound(BigInt(gallons) * BigInt(pct) * BigInt(rate.value), 100_000n);
  const basis = pct === 100 ? gallons : divRound(BigInt(gallons) * BigInt(pct), 100n);
  return {
    kind: "VOLUME",
    description: `Variable user cost, UC(V): metered water${a.estimated ? " (estimated read)" : ""}`,
    quantity:
      pct === 100
        ? `${thousands(gallons)} gallons`
        : `${thousands(gallons)} gallons metered × ${pct}% reaching the sewer (deduction granted, ${a.deductionSection ?? "Sewer Use Law 1205"}) = ${thousands(basis)} gallons`,
    rate: `${cents(rate.value)} per 1,000 gallons`,
    amountCents: amount,
    section: rate.section,
  };
}

// ---------------------------------------------------------------------------------------------
// SUL 1202: surcharge for abnormal sewage (the 201 strengths of normal sewage)

/** Pounds in a million gallons of water at 1 mg/L (SUL 201 states both: 2,090 lbs per million gallons is 250 mg/L). */
export const POUNDS_PER_MG_PER_MGL = 8.34;

export type StrengthResult = { parameter: string; concentrationMgL: number };

/** A strength the Board surcharges: the normal-sewage row of SUL 201 it is measured against and the Board's rate per pound above it. */
export type SurchargeRate = { parameter: string; normalMgL: number; normalSection: string; ratePerPoundCents: number | null; section: string; matches: (resultParameter: string) => boolean };

const SURCHARGED: { key: RulebookKey; matches: (p: string) => boolean }[] = [
  { key: "billing.surchargePerPoundBod", matches: (p) => /\bbod|biochemical oxygen demand/i.test(p) },
  { key: "billing.surchargePerPoundSuspendedSolids", matches: (p) => /\btss\b|suspended solids/i.test(p) },
];

/**
 * SUL 1202's rates: for each strength the Board surcharges (BOD, suspended solids), the ceiling of
 * normal sewage from the 201 table (`limits.normalSewage`, mg/L) and the Board's rate per pound
 * (null until a resolution sets it). None where the district has no normal-sewage table (Huron).
 */
export function surchargeRates(rb: Rulebook): SurchargeRate[] {
  const normal = rb.entry("limits.normalSewage");
  const rows = Array.isArray(normal.value) ? (normal.value as { parameter: string; maximum: number | null; unit: string }[]) : [];
  const out: SurchargeRate[] = [];
  for (const s of SURCHARGED) {
    const row = rows.find((r) => s.matches(r.parameter) && r.maximum !== null && r.unit.toLowerCase() === "mg/l");
    if (!row) continue;
    const rate = rb.entry(s.key);
    out.push({ parameter: row.parameter, normalMgL: row.maximum!, normalSection: normal.section, ratePerPoundCents: typeof rate.value === "number" ? rate.value : null, section: rate.section, matches: s.matches });
  }
  return out;
}

/**
 * SUL 1202: "All persons discharging ... wastes with concentrations in excess of the pollutant
 * concentrations in normal sewage shall pay a surcharge." For each surcharged strength: the user's
 * average concentration in its results for the period; above normal (201), pounds above normal =
 * (C − normal) mg/L × 8.34 × million gallons of metered water (1205: the flow is the metered water,
 * less a deduction granted), × the Board's rate per pound. At normal or below, or without the
 * Board's rate, no line. Results in µg/L are not mixed in (the 201 table is in mg/L).
 */
export function surcharge(rates: SurchargeRate[], results: StrengthResult[], gallons: number): BillLine[] {
  if (gallons <= 0) return [];
  const out: BillLine[] = [];
  for (const n of rates) {
    if (n.ratePerPoundCents === null) continue;
    const mine = results.filter((r) => n.matches(r.parameter));
    if (!mine.length) continue;
    const avg = mine.reduce((s, r) => s + r.concentrationMgL, 0) / mine.length;
    if (avg <= n.normalMgL) continue;
    const mg = gallons / 1_000_000;
    const pounds = (avg - n.normalMgL) * POUNDS_PER_MG_PER_MGL * mg;
    const poundsTenths = Math.round(pounds * 10);
    out.push({
      kind: "SURCHARGE",
      description: `Surcharge for abnormal sewage, ${n.parameter}: average ${round3(avg)} mg/L in ${mine.length} result${mine.length === 1 ? "" : "s"} for the period, normal sewage ${n.normalMgL} mg/L (${n.normalSection})`,
      quantity: `(${round3(avg)} − ${n.normalMgL}) mg/L × ${POUNDS_PER_MG_PER_MGL} lb per million gallons per mg/L × ${round3(mg)} million gallons = ${thousands(Math.floor(poundsTenths / 10))}.${poundsTenths % 10} lb`,
      rate: `${cents(n.ratePerPoundCents)} per pound`,
      amountCents: divRound(BigInt(poundsTenths) * BigInt(n.ratePerPoundCents), 10n),
      section: n.section,
    });
  }
  return out;
}
const round3 = (n: number) => Number(n.toFixed(3)).toLocaleString("en-US", { maximumFractionDigits: 3 });

// ---------------------------------------------------------------------------------------------
// Huron VI-2, VI-5, VII: the minimum per user and the owner's excess

/**
 * Huron VII: the Board's schedule includes a minimum charge; VI-2: each user pays at least the
 * minimum. A user alone on a meter pays the minimum and the use charge above it; users sharing one
 * meter each pay the minimum and the owner pays the excess (the meter's use charge less the users'
 * minimums), "unless all parties concerned agree otherwise and notify the Town Clerk": then the
 * excess is not billed by rule and the preview shows it for the Clerk to bill as agreed. VI-5: an
 * unoccupied or seasonal residence pays the minimum like any other until discontinued. The minimum
 * is for a full period; a first or final bill pays it for the days served.
 */
export function huronUserCharge(
  rb: Rulebook,
  a: { days: number; periodDays: number; useCents: number | null; usersBehindMeter: number; occupancy?: string },
): { lines: BillLine[]; task: string | null } {
  const min = rb.entry("billing.minimumCharge");
  if (typeof min.value !== "number") return { lines: [], task: `The Town Board has not set the minimum charge (${min.section}).` };
  const amount = divRound(BigInt(min.value) * BigInt(a.days), BigInt(a.periodDays));
  const lines: BillLine[] = [
    {
      kind: "MINIMUM",
      description: `Minimum charge per user${a.occupancy === "UNOCCUPIED" ? " (unoccupied, not discontinued: Huron VI-5)" : a.occupancy === "SEASONAL" ? " (seasonal residence: Huron VI-5)" : ""}`,
      quantity: a.days < a.periodDays ? `${a.days} of ${a.periodDays} days served` : "1 user",
      rate: `${cents(min.value)} per period`,
      amountCents: amount,
      section: min.section,
    },
  ];
  if (a.usersBehindMeter <= 1 && a.useCents !== null && a.useCents > amount) {
    const rate = rb.entry("billing.volumeChargePer1000Gallons");
    lines.push({ kind: "USE_ABOVE_MINIMUM", description: "Use charge above the minimum (metered water)", quantity: `${cents(a.useCents)} use charge − ${cents(amount)} minimum`, rate: null, amountCents: a.useCents - amount, section: rate.section });
  }
  return { lines, task: null };
}

/** Huron VI-2: the owner's excess on a shared meter: the meter's use charge less the minimums its users pay (none when they pay more). */
export function ownersExcess(useCents: number, minimumsCents: number, users: number, section: string): BillLine | null {
  const excess = useCents - minimumsCents;
  if (excess <= 0) return null;
  return {
    kind: "OWNER_EXCESS",
    description: `Excess over the minimum charges of the ${users} users behind one meter, charged to the owner`,
    quantity: `${cents(useCents)} use charge − ${cents(minimumsCents)} in minimums`,
    rate: null,
    amountCents: excess,
    section,
  };
}

/**
 * Huron VI-5: "If ... within twelve (12) months after the filing of such notice [of permanent
 * discontinuance] with the Town Clerk, the owner shall wish to reinstate the apartment or
 * residence ..., the service shall not be reinstated until the minimum charges for the period of
 * discontinuance shall have been paid." The notice is taken as filed on the discontinued account's
 * last day; a reinstatement on or before the same day `billing.reinstatementWithinMonths` months
 * later pays the minimums of the days between (not one day more). Each billing period of the gap
 * counts like a first or final bill: the minimum for the period × the gap's days in it ÷ the
 * period's days, so a gap of one whole period is one minimum (docs/decisions/huron-reinstatement-minimums.md).
 * Null where the law has no such rule, the Board set no minimum, the gap is empty or the
 * reinstatement came later.
 */
export function reinstatementMinimums(
  rb: Rulebook,
  a: { discontinuedLastDay: CalendarDate; reinstatedOn: CalendarDate; periodMonths: number },
): BillLine | null {
  const within = rb.entry("billing.reinstatementWithinMonths");
  const min = rb.entry("billing.minimumCharge");
  if (typeof within.value !== "number" || typeof min.value !== "number") return null;
  if (a.reinstatedOn > addMonths(a.discontinuedLastDay, within.value)) return null;
  const from = addCalendarDays(a.discontinuedLastDay, 1);
  const to = addCalendarDays(a.reinstatedOn, -1);
  if (to < from) return null;
  let amount = 0;
  let periods = 0;
  // The periods of the cycle (from January, SUL 1206 / Huron VI-3) the gap touches.
  let start: CalendarDate = `${from.slice(0, 5)}${String(Math.floor((Number(from.slice(5, 7)) - 1) / a.periodMonths) * a.periodMonths + 1).padStart(2, "0")}-01`;
  while (start <= to) {
    const end = termLastDay(start, a.periodMonths);
    const days = daysServed({ start, end }, from, to);
    if (days) {
      amount += divRound(BigInt(min.value) * BigInt(days.days), BigInt(days.periodDays));
      periods++;
    }
    start = addCalendarDays(end, 1);
  }
  const gapDays = daysBetween(from, to) + 1;
  return {
    kind: "REINSTATEMENT_MINIMUMS",
    description: `Minimum charges while discontinued: the permanent discontinuance filed ${formatDate(a.discontinuedLastDay)} was reinstated ${formatDate(a.reinstatedOn)}, within ${within.value} months`,
    quantity: `${gapDays} day${gapDays === 1 ? "" : "s"} discontinued, ${formatDate(from)} to ${formatDate(to)}, over ${periods} billing period${periods === 1 ? "" : "s"}`,
    rate: `${cents(min.value)} per period of ${a.periodMonths} months, for its days discontinued`,
    amountCents: amount,
    section: within.section,
  };
}

/** The use charge of metered water under Huron VII's schedule (the Board's rate per 1,000 gallons), or null when the Board set none. */
export function useCharge(rb: Rulebook, gallons: number): number | null {
  const rate = rb.entry("billing.volumeChargePer1000Gallons");
  if (typeof rate.value !== "number") return null;
  return divRound(BigInt(Math.max(0, Math.round(gallons))) * BigInt(rate.value), 1000n);
}

// ---------------------------------------------------------------------------------------------
// SUL 705: inflow, billed according to Article 12, and the Board's surcharge

export type InflowDetermined = { gallons: number; from: CalendarDate; to: CalendarDate; methodLabel: string };

/**
 * SUL 705: "The property from which the inflow originated shall be billed for inflow according to
 * Article 12, however, the Town Board may cause a surcharge at a rate not to exceed five (5) times
 * that for normal sewage volume charge." The District Operator's determination (gallons over its
 * days) is charged at the normal volume charge per 1,000 gallons (1203, 1205:
 * `billing.volumeChargePer1000Gallons`), rounded half up; the surcharge is the Board's factor
 * (`billing.inflowSurchargeFactor`) × that charge, none while the Board has set none, and refused
 * (no line, a `problem` for the Clerk) past the statute's cap (`billing.inflowSurchargeMaxFactor`, 5).
 * No line where the law has no such charge (Huron), for no gallons, or while the Board has set no
 * volume charge. The flag tells the Clerk the bill carries inflow.
 */
export function inflowCharge(rb: Rulebook, d: InflowDetermined): { lines: BillLine[]; flag: { code: FlagCode; text: string } | null; problem: string | null } {
  const none = { lines: [], flag: null, problem: null };
  if (!chargesInflow(rb)) return none;
  const gallons = Math.max(0, Math.round(d.gallons));
  if (gallons <= 0) return none;
  const rate = rb.entry("billing.volumeChargePer1000Gallons");
  if (typeof rate.value !== "number") return none;
  const section = chargeSection(rb);
  const volume = divRound(BigInt(gallons) * BigInt(rate.value), 1000n);
  const when = `${formatDate(d.from)} to ${formatDate(d.to)}`;
  const lines: BillLine[] = [
    {
      kind: "INFLOW",
      description: `Inflow, ${section}: determined by the District Operator for ${when} (${d.methodLabel.toLowerCase()}), billed according to Article 12`,
      quantity: `${thousands(gallons)} gallons of inflow`,
      rate: `${cents(rate.value)} per 1,000 gallons, the normal sewage volume charge (${rate.section})`,
      amountCents: volume,
      section,
    },
  ];
  const s = inflowSurcharge(rb);
  if (!s.problem && s.factor !== null && s.factor > 0) {
    const factorEntry = rb.entry("billing.inflowSurchargeFactor");
    const by = factorEntry.resolution ? `, resolution ${factorEntry.resolution.number} of ${formatDate(factorEntry.resolution.adoptedOn)}` : "";
    const amount = inflowSurchargeCents(rb, volume).cents;
    lines.push({
      kind: "INFLOW_SURCHARGE",
      description: `Inflow surcharge, ${s.section}: set by the Town Board${by}`,
      quantity: `${cents(volume)} inflow volume charge`,
      rate: `${s.factor} times the normal sewage volume charge (at most ${s.maxFactor}, ${s.section})`,
      amountCents: amount,
      section: s.section,
    });
  }
  return {
    lines,
    flag: { code: "INFLOW_BILLED", text: `${FLAG_LABELS.INFLOW_BILLED} (${section}): ${thousands(gallons)} gallons determined for ${when}` },
    problem: s.problem ? `${s.problem} No inflow surcharge is billed until the ADMIN corrects it.` : null,
  };
}

// ---------------------------------------------------------------------------------------------
// What the Board has not set, for bills

export type BillTask = { key: RulebookKey | "surcharge"; text: string };

/**
 * Figures a bill run needs that the Board has not set: SUL 1203's fixed costs and rate per 1,000
 * gallons; Huron VII's minimum charge and rate; SUL 1202's surcharge rates per pound of BOD and
 * suspended solids (no surcharge is billed without them: never an invented figure). The older
 * `billing.fixedChargePerEdu` is not read (docs/decisions/bill-fixed-part-and-proration.md).
 */
export function boardTasksForBills(rb: Rulebook): BillTask[] {
  const keys: RulebookKey[] = rb.enabled("billing.eduAssessment")
    ? ["billing.fixedCostsPerYear", "billing.volumeChargePer1000Gallons"]
    : rb.enabled("billing.minimumPerUserBehindMeter")
      ? ["billing.minimumCharge", "billing.volumeChargePer1000Gallons"]
      : ["billing.volumeChargePer1000Gallons"];
  const tasks: BillTask[] = keys
    .map((k) => rb.entry(k))
    .filter((e) => e.value === null)
    .map((e) => ({ key: e.key as RulebookKey, text: `The Town Board has not set the ${e.label.charAt(0).toLowerCase()}${e.label.slice(1)} (${e.section}); bills carry no line for it until the ADMIN enters it with the Board's resolution.` }));
  // SUL 1202: the Board's surcharge rates, where the law surcharges (its figures are the Board's).
  for (const r of surchargeRates(rb))
    if (r.ratePerPoundCents === null && rb.entry(SURCHARGED.find((x) => x.matches(r.parameter))!.key).source === "board")
      tasks.push({ key: "surcharge", text: `The Town Board has set no surcharge per pound of ${r.parameter} above normal sewage (${r.section}; normal is ${r.normalMgL} mg/L, ${r.normalSection}); no surcharge is billed for it until the ADMIN enters it with the Board's resolution.` });
  return tasks;
}

// ---------------------------------------------------------------------------------------------
// What a preview flags

export type FlagCode = "FAR_FROM_HISTORY" | "NO_READ" | "ESTIMATED_READ" | "ZERO_TOTAL" | "NEGATIVE_TOTAL" | "EDU_CHANGED" | "SHARED_METER_AGREEMENT" | "NOT_ASSESSED" | "INFLOW_BILLED";
export const FLAG_LABELS: Record<FlagCode, string> = {
  FAR_FROM_HISTORY: "Use far from the account's own history",
  NO_READ: "No meter read in the period",
  ESTIMATED_READ: "Estimated read",
  ZERO_TOTAL: "Total is zero",
  NEGATIVE_TOTAL: "Total is below zero",
  EDU_CHANGED: "EDUs changed since the last bill",
  SHARED_METER_AGREEMENT: "Shared meter with an agreement on file: bill the owner's excess as agreed",
  NOT_ASSESSED: "Not assessed in EDUs",
  INFLOW_BILLED: "Inflow billed",
};

/** How far from its own history a period's use may be before a person looks: half or double the average per day. */
export const HISTORY_FACTOR = 2;

/** Whether gallons per day this period are under half or over double the account's average per day in earlier periods. */
export function farFromHistory(gallons: number, days: number, history: { from: string; to: string; gallons: number }[]): { far: boolean; averagePerDay: number | null } {
  const usable = history.filter((h) => h.gallons >= 0);
  const histDays = usable.reduce((s, h) => s + daysBetween(h.from, h.to) + 1, 0);
  if (!usable.length || histDays <= 0 || days <= 0) return { far: false, averagePerDay: null };
  const avg = usable.reduce((s, h) => s + h.gallons, 0) / histDays;
  const now = gallons / days;
  if (avg === 0) return { far: now > 0, averagePerDay: 0 };
  return { far: now > avg * HISTORY_FACTOR || now < avg / HISTORY_FACTOR, averagePerDay: avg };
}

export const BILL_STATUS_LABELS: Record<string, string> = { ISSUED: "Issued", PAID: "Paid", PARTLY_PAID: "Partly paid" };
export const RUN_STATUS_LABELS: Record<string, string> = { PREVIEW: "Preview, not issued", ISSUING: "Being issued", ISSUED: "Issued" };
export const LINE_KIND_LABELS: Record<LineKind, string> = {
  FIXED: "Fixed user cost",
  VOLUME: "Variable user cost",
  MINIMUM: "Minimum charge",
  USE_ABOVE_MINIMUM: "Use above the minimum",
  OWNER_EXCESS: "Owner's excess",
  SURCHARGE: "Surcharge",
  ADJUSTMENT: "Adjustment",
  REINSTATEMENT_MINIMUMS: "Minimums while discontinued",
  INFLOW: "Inflow",
  INFLOW_SURCHARGE: "Inflow surcharge",
};

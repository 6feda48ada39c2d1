import { addCalendarDays, termLastDay, type CalendarDate } from "../common/dates.js";
import { formatDate } from "../common/format.js";
import type { Rulebook } from "../districts/districts.service.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";
import type { LimitRow } from "../districts/rulebook-schema.js";

/**
 * The law of new sewers and sewer extensions built by developers (SUL Article 5) as pure
 * functions over a rulebook version: the tests of 505 A-G and 506 B judged from what is entered,
 * the materials of 503 A, the capacity of 501 and the notice of 502 A. Every figure is read from
 * the rulebook with its section; none is a constant here. Huron's law has no such article
 * (extension.provided is false there), so nothing here is reached for Huron.
 */

export const TEST_KINDS = ["INFILTRATION", "EXFILTRATION", "DEFLECTION", "AIR", "SEWER_VACUUM", "MANHOLE_VACUUM", "FORCE_MAIN"] as const;
export type TestKind = (typeof TEST_KINDS)[number];

export const TEST_KIND_LABELS: Record<TestKind, string> = {
  INFILTRATION: "Infiltration test",
  EXFILTRATION: "Exfiltration test",
  DEFLECTION: "Deflection (mandrel) test",
  AIR: "Low-pressure air test",
  SEWER_VACUUM: "Vacuum test of the sewer",
  MANHOLE_VACUUM: "Vacuum test of a manhole",
  FORCE_MAIN: "Force main pressure test",
};

/** PASSED or FAILED from the law's figures; NOT_JUDGED when the rulebook lacks what the law points to (the Uni-Bell table). */
export type TestOutcome = "PASSED" | "FAILED" | "NOT_JUDGED";

/** One thing the law asks of a test, with whether what was entered meets it. */
export type Criterion = { text: string; section: string; met: boolean };

export type Judgement = { kind: TestKind; outcome: TestOutcome; criteria: Criterion[]; reason: string | null };

/** What the tester enters; which fields a kind needs is in `requiredFields`. Lengths in feet, diameters in inches unless named. */
export type TestEntry = {
  kind: TestKind;
  lengthFeet?: number | null;
  nominalDiameterInches?: number | null;
  /** manholes in the leakage test's section (505 B) */
  manholes?: number | null;
  periodMinutes?: number | null;
  /** water in or out of the section over the period (infiltration, exfiltration), or added to hold pressure (force main) */
  gallons?: number | null;
  // Exfiltration (505 A)
  headAbovePipeTopFeet?: number | null;
  /** groundwater above the top of the pipe at the highest point under test; 0 or less when below it */
  groundwaterAbovePipeTopFeet?: number | null;
  downstreamHeadFeet?: number | null;
  downstreamFreeboardInches?: number | null;
  filledHours?: number | null;
  // Deflection (505 E)
  insideDiameterInches?: number | null;
  mandrelDiameterInches?: number | null;
  mandrelPassed?: boolean | null;
  greatestDeflectionPercent?: number | null;
  // Air (505 F) and vacuum (505 G)
  testPressurePsi?: number | null;
  seconds?: number | null;
  // Manholes (505 G)
  depthFeet?: number | null;
  manholeDiameterFeet?: number | null;
  // Force mains (506 B)
  operatingPressurePsi?: number | null;
};

export type TestField = Exclude<keyof TestEntry, "kind">;

const LEAKAGE: TestField[] = ["lengthFeet", "nominalDiameterInches", "manholes", "periodMinutes", "gallons"];
/** The figures each kind of test is judged from (greatestDeflectionPercent is optional). */
export const REQUIRED_FIELDS: Record<TestKind, TestField[]> = {
  INFILTRATION: LEAKAGE,
  EXFILTRATION: [...LEAKAGE, "headAbovePipeTopFeet", "groundwaterAbovePipeTopFeet", "downstreamHeadFeet", "downstreamFreeboardInches", "filledHours"],
  DEFLECTION: ["lengthFeet", "insideDiameterInches", "mandrelDiameterInches", "mandrelPassed"],
  AIR: ["lengthFeet", "nominalDiameterInches", "testPressurePsi", "seconds"],
  SEWER_VACUUM: ["lengthFeet", "nominalDiameterInches", "seconds"],
  MANHOLE_VACUUM: ["depthFeet", "manholeDiameterFeet", "seconds"],
  FORCE_MAIN: ["lengthFeet", "nominalDiameterInches", "operatingPressurePsi", "testPressurePsi", "periodMinutes", "gallons"],
};

/** Fields missing or out of range for the kind, as field errors (empty when the entry can be judged). */
export function entryProblems(e: TestEntry): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of REQUIRED_FIELDS[e.kind]) {
    const v = e[f];
    if (v === null || v === undefined) out[f] = "Enter this figure.";
    else if (typeof v === "number" && (!Number.isFinite(v) || (v < 0 && f !== "groundwaterAbovePipeTopFeet"))) out[f] = "Enter a figure of zero or more.";
  }
  for (const f of ["lengthFeet", "nominalDiameterInches", "periodMinutes", "insideDiameterInches", "mandrelDiameterInches", "depthFeet", "manholeDiameterFeet", "seconds", "operatingPressurePsi"] as const)
    if (REQUIRED_FIELDS[e.kind].includes(f) && e[f] === 0) out[f] = "Enter a figure over zero.";
  if (e.manholes != null && !Number.isInteger(e.manholes)) out.manholes = "Enter a whole number of manholes.";
  if (e.greatestDeflectionPercent != null && !(e.greatestDeflectionPercent >= 0)) out.greatestDeflectionPercent = "Enter a figure of zero or more.";
  return out;
}

const FEET_PER_MILE = 5280;
/** Comparisons allow for binary fractions (1.1 gallons is not exact in floating point), never for a real excess. */
const EPS = 1e-9;
const atMost = (x: number, limit: number) => x <= limit + EPS * Math.max(1, Math.abs(limit));
const atLeast = (x: number, limit: number) => x >= limit - EPS * Math.max(1, Math.abs(limit));

/** A figure as people read it: at most two decimals, thousands separated. */
export const num = (n: number, digits = 2) => n.toLocaleString("en-US", { maximumFractionDigits: digits });

function fig(rb: Rulebook, key: RulebookKey): { value: number; section: string } {
  const r = rb.require(key);
  return { value: r.value, section: r.section };
}

/** 505 B: no test section longer than the law's figure (1,000 ft); 506 B for force mains. */
function sectionLength(rb: Rulebook, lengthFeet: number, key: RulebookKey): Criterion {
  const max = fig(rb, key);
  return { text: `Test section ${num(lengthFeet)} ft long, at most ${num(max.value)} ft`, section: max.section, met: atMost(lengthFeet, max.value) };
}

/**
 * 505 A-B: the allowance of a test section in gallons per 24 hours: the law's rate per mile per inch
 * of nominal diameter over the pipe's length, plus each manhole's allowance (a manhole counts as a
 * 48-inch pipe 5 ft long, 1.1 gallons per 24 hours: the law's own figure, used as stated).
 */
export function leakageAllowanceGallonsPerDay(rb: Rulebook, lengthFeet: number, nominalDiameterInches: number, manholes: number): number {
  const rate = fig(rb, "extension.maxLeakageGallonsPerInchMile").value;
  const perManhole = fig(rb, "extension.manholeLeakageGallons").value;
  return (rate * nominalDiameterInches * lengthFeet) / FEET_PER_MILE + manholes * perManhole;
}

/** The measured leakage as gallons per 24 hours: what the period showed, at the same rate for a day. */
export const perDay = (gallons: number, periodMinutes: number) => (gallons * 24 * 60) / periodMinutes;

function leakageCriteria(rb: Rulebook, e: Required<Pick<TestEntry, "lengthFeet" | "nominalDiameterInches" | "manholes" | "periodMinutes" | "gallons">>): Criterion[] {
  const rate = fig(rb, "extension.maxLeakageGallonsPerInchMile");
  const manhole = fig(rb, "extension.manholeLeakageGallons");
  const period = fig(rb, "extension.minTestPeriodHours");
  const allowed = leakageAllowanceGallonsPerDay(rb, e.lengthFeet!, e.nominalDiameterInches!, e.manholes!);
  const measured = perDay(e.gallons!, e.periodMinutes!);
  return [
    sectionLength(rb, e.lengthFeet!, "extension.maxTestSectionFeet"),
    { text: `Test period ${num(e.periodMinutes! / 60)} hours, at least ${num(period.value)}`, section: period.section, met: atLeast(e.periodMinutes!, period.value * 60) },
    {
      text:
        `Leakage ${num(measured)} gallons per 24 hours, at most ${num(allowed)} ` +
        `(${num(rate.value)} per mile per inch of diameter for ${num(e.lengthFeet!)} ft of ${num(e.nominalDiameterInches!)}-inch pipe, ` +
        `plus ${num(manhole.value)} for each of ${e.manholes} manhole${e.manholes === 1 ? "" : "s"})`,
      section: `${rate.section}; ${manhole.section}`,
      met: atMost(measured, allowed),
    },
  ];
}

/** 505 A: the exfiltration test's head and the 24 hours filled before measuring. */
function exfiltrationCriteria(rb: Rulebook, e: TestEntry): Criterion[] {
  const minHead = fig(rb, "extension.exfiltrationMinHeadFeet");
  const maxDown = fig(rb, "extension.exfiltrationMaxDownstreamHeadFeet");
  const freeboard = fig(rb, "extension.exfiltrationMinFreeboardInches");
  const filled = fig(rb, "extension.exfiltrationFilledHours");
  // "5 feet above the top of the pipe or 5 feet above groundwater, whichever is higher"
  const groundwater = Math.max(0, e.groundwaterAbovePipeTopFeet!);
  const needed = minHead.value + groundwater;
  return [
    {
      text: `Head at the highest point ${num(e.headAbovePipeTopFeet!)} ft above the top of the pipe, at least ${num(needed)} (${num(minHead.value)} ft above ${groundwater > 0 ? "groundwater" : "the top of the pipe"})`,
      section: minHead.section,
      met: atLeast(e.headAbovePipeTopFeet!, needed),
    },
    { text: `Head at the downstream manhole ${num(e.downstreamHeadFeet!)} ft, at most ${num(maxDown.value)}`, section: maxDown.section, met: atMost(e.downstreamHeadFeet!, maxDown.value) },
    {
      text: `Water ${num(e.downstreamFreeboardInches!)} inches below the top of the downstream manhole, at least ${num(freeboard.value)}`,
      section: freeboard.section,
      met: atLeast(e.downstreamFreeboardInches!, freeboard.value),
    },
    { text: `Filled ${num(e.filledHours!)} hours before measuring, at least ${num(filled.value)}`, section: filled.section, met: atLeast(e.filledHours!, filled.value) },
  ];
}

/** 505 E: a rigid mandrel of 95% of the inside diameter pulled through; no length deflected over 5%. */
function deflectionCriteria(rb: Rulebook, e: TestEntry): Criterion[] {
  const mandrel = fig(rb, "extension.mandrelPercentOfInsideDiameter");
  const maxDefl = fig(rb, "extension.maxDeflectionPercent");
  const needed = (e.insideDiameterInches! * mandrel.value) / 100;
  const out: Criterion[] = [
    sectionLength(rb, e.lengthFeet!, "extension.maxTestSectionFeet"),
    {
      text: `Mandrel ${num(e.mandrelDiameterInches!, 3)} inches across, at least ${num(mandrel.value)}% of the ${num(e.insideDiameterInches!, 3)}-inch inside diameter (${num(needed, 3)} inches)`,
      section: mandrel.section,
      met: atLeast(e.mandrelDiameterInches!, needed),
    },
    { text: e.mandrelPassed ? "The mandrel passed through the whole section" : "The mandrel did not pass through the whole section", section: mandrel.section, met: e.mandrelPassed === true },
  ];
  if (e.greatestDeflectionPercent != null)
    out.push({ text: `Greatest deflection measured ${num(e.greatestDeflectionPercent)}%, at most ${num(maxDefl.value)}%`, section: maxDefl.section, met: atMost(e.greatestDeflectionPercent, maxDefl.value) });
  return out;
}

/** A Uni-Bell table row as the district enters it (see rulebook-keys.ts): diameter, minimum time, seconds per foot. */
export type UniBellRow = { diameterInches: number; minimumSeconds: number; secondsPerFoot: number };

/** Reads the district's Uni-Bell table; rows it cannot read are left out (and so are not judged against). */
export function uniBellRows(rows: readonly LimitRow[]): UniBellRow[] {
  const out: UniBellRow[] = [];
  for (const r of rows) {
    const d = Number.parseFloat(r.parameter);
    if (Number.isFinite(d) && d > 0 && typeof r.minimum === "number" && typeof r.average === "number") out.push({ diameterInches: d, minimumSeconds: r.minimum, secondsPerFoot: r.average });
  }
  return out;
}

/**
 * 505 F and G: the time the Uni-Bell table specifies for a section: its minimum time, or its time
 * for a longer length (seconds per foot times the length) when that is more. Null when the district
 * has not entered the table, or has no row for this diameter.
 */
export function uniBellSeconds(rb: Rulebook, key: "extension.airTestTable" | "extension.sewerVacuumTestTable", diameterInches: number, lengthFeet: number): { seconds: number | null; reason: string | null; section: string } {
  const e = rb.entry(key);
  const rows = e.kind === "table" ? uniBellRows(e.value) : [];
  if (!rows.length) return { seconds: null, reason: `The district has not entered the Uni-Bell table the law judges this test by (${e.section}).`, section: e.section };
  const row = rows.find((r) => Math.abs(r.diameterInches - diameterInches) < EPS);
  if (!row) return { seconds: null, reason: `The district's Uni-Bell table has no row for ${num(diameterInches)}-inch pipe (${e.section}).`, section: e.section };
  return { seconds: Math.max(row.minimumSeconds, row.secondsPerFoot * lengthFeet), reason: null, section: e.section };
}

function uniBellCriteria(rb: Rulebook, e: TestEntry, key: "extension.airTestTable" | "extension.sewerVacuumTestTable", drop: string): { criteria: Criterion[]; reason: string | null } {
  const criteria: Criterion[] = [sectionLength(rb, e.lengthFeet!, "extension.maxTestSectionFeet")];
  if (key === "extension.airTestTable") {
    const max = fig(rb, "extension.airTestMaxPsi");
    criteria.push({ text: `Test pressure ${num(e.testPressurePsi!)} psi, at most ${num(max.value)}`, section: max.section, met: atMost(e.testPressurePsi!, max.value) });
  }
  const spec = uniBellSeconds(rb, key, e.nominalDiameterInches!, e.lengthFeet!);
  if (spec.seconds === null) return { criteria, reason: spec.reason };
  criteria.push({
    text: `${drop} took ${num(e.seconds!)} seconds, at least ${num(spec.seconds)} (Uni-Bell table, ${num(e.nominalDiameterInches!)}-inch pipe, ${num(e.lengthFeet!)} ft)`,
    section: spec.section,
    met: atLeast(e.seconds!, spec.seconds),
  });
  return { criteria, reason: null };
}

/**
 * 505 G: the least time a manhole's vacuum may take to fall from 10 to 9 inches of mercury, by depth
 * band (10 ft or less, to 15 ft, to 25 ft; a band's upper figure belongs to it, see
 * docs/decisions/extension-test-readings.md) and diameter (4 ft as tabled, +30 s at 5 ft, +60 s at
 * 6 ft). Null with the reason where the law states no time (deeper than 25 ft, other diameters).
 */
export function manholeVacuumSeconds(rb: Rulebook, depthFeet: number, diameterFeet: number): { seconds: number | null; reason: string | null; section: string } {
  const k = (s: string) => fig(rb, `extension.manholeVacuum.${s}` as RulebookKey);
  const bands = [
    [k("shallowMaxDepthFeet"), k("shallowSeconds")],
    [k("middleMaxDepthFeet"), k("middleSeconds")],
    [k("deepMaxDepthFeet"), k("deepSeconds")],
  ] as const;
  const section = bands[0][1].section;
  const band = bands.find(([max]) => atMost(depthFeet, max.value));
  if (!band) return { seconds: null, reason: `The law states no vacuum test time for a manhole deeper than ${num(bands[2][0].value)} ft (${section}).`, section };
  const base = k("baseDiameterFeet").value;
  const adds = new Map([
    [base, 0],
    [5, k("fiveFootAddSeconds").value],
    [6, k("sixFootAddSeconds").value],
  ]);
  const add = [...adds].find(([d]) => Math.abs(d - diameterFeet) < EPS)?.[1];
  if (add === undefined) return { seconds: null, reason: `The law states vacuum test times for ${num(base)}, 5 and 6-foot manholes only, not ${num(diameterFeet)}-foot (${section}).`, section };
  return { seconds: band[1].value + add, reason: null, section };
}

/** 506 B: 150% of the operating pressure held at least 2 hours; leakage per day within the law's rate; sections of at most 1,000 ft. */
function forceMainCriteria(rb: Rulebook, e: TestEntry): Criterion[] {
  const pct = fig(rb, "extension.forceMain.testPressurePercent");
  const hours = fig(rb, "extension.forceMain.minTestHours");
  const rate = fig(rb, "extension.forceMain.maxLeakageGallonsPerInchMile");
  const neededPsi = (e.operatingPressurePsi! * pct.value) / 100;
  const allowed = (rate.value * e.nominalDiameterInches! * e.lengthFeet!) / FEET_PER_MILE;
  const measured = perDay(e.gallons!, e.periodMinutes!);
  return [
    sectionLength(rb, e.lengthFeet!, "extension.forceMain.maxTestSectionFeet"),
    {
      text: `Test pressure ${num(e.testPressurePsi!)} psi, at least ${num(pct.value)}% of the ${num(e.operatingPressurePsi!)} psi operating pressure (${num(neededPsi)} psi)`,
      section: pct.section,
      met: atLeast(e.testPressurePsi!, neededPsi),
    },
    { text: `Held ${num(e.periodMinutes! / 60)} hours, at least ${num(hours.value)}`, section: hours.section, met: atLeast(e.periodMinutes!, hours.value * 60) },
    {
      text: `Leakage ${num(measured)} gallons a day, at most ${num(allowed)} (${num(rate.value)} per mile per inch of diameter for ${num(e.lengthFeet!)} ft of ${num(e.nominalDiameterInches!)}-inch pipe)`,
      section: rate.section,
      met: atMost(measured, allowed),
    },
  ];
}

/**
 * Judges one test attempt from what was entered (call entryProblems first): PASSED when every
 * criterion is met, FAILED when any is not (even where the Uni-Bell table is missing: a failed
 * criterion fails whatever the table would say), NOT_JUDGED when the rulebook lacks what the law
 * points to and nothing entered fails.
 */
export function judgeTest(rb: Rulebook, e: TestEntry): Judgement {
  let criteria: Criterion[];
  let reason: string | null = null;
  switch (e.kind) {
    case "INFILTRATION":
      criteria = leakageCriteria(rb, e as Required<TestEntry>);
      break;
    case "EXFILTRATION":
      criteria = [...leakageCriteria(rb, e as Required<TestEntry>), ...exfiltrationCriteria(rb, e)];
      break;
    case "DEFLECTION":
      criteria = deflectionCriteria(rb, e);
      break;
    case "AIR":
      ({ criteria, reason } = uniBellCriteria(rb, e, "extension.airTestTable", "The pressure's drop from 3.5 to 2.5 psig"));
      break;
    case "SEWER_VACUUM":
      ({ criteria, reason } = uniBellCriteria(rb, e, "extension.sewerVacuumTestTable", "The vacuum's drop from 7 to 6 inches of mercury"));
      break;
    case "MANHOLE_VACUUM": {
      const spec = manholeVacuumSeconds(rb, e.depthFeet!, e.manholeDiameterFeet!);
      criteria =
        spec.seconds === null
          ? []
          : [
              {
                text: `The vacuum's drop from 10 to 9 inches of mercury took ${num(e.seconds!)} seconds, at least ${num(spec.seconds)} (${num(e.manholeDiameterFeet!)}-ft manhole, ${num(e.depthFeet!)} ft deep)`,
                section: spec.section,
                met: atLeast(e.seconds!, spec.seconds),
              },
            ];
      reason = spec.reason;
      break;
    }
    case "FORCE_MAIN":
      criteria = forceMainCriteria(rb, e);
      break;
  }
  const failed = criteria.some((c) => !c.met);
  const outcome: TestOutcome = failed ? "FAILED" : reason ? "NOT_JUDGED" : "PASSED";
  return { kind: e.kind, outcome, criteria, reason: failed ? null : reason };
}

/** The kinds a sewer's sections must pass before any lateral is connected (502 A): a leakage test, by water or, in lieu of it, air or vacuum (505 F, G). */
export const LEAKAGE_KINDS: readonly TestKind[] = ["INFILTRATION", "EXFILTRATION", "AIR", "SEWER_VACUUM"];

// ---- Materials (503 A) ----

export const SEWER_TYPES = ["GRAVITY", "LOW_PRESSURE"] as const;
export type SewerType = (typeof SEWER_TYPES)[number];

/** 503 A(2): the smallest inside diameter for the sewer's type. */
export function minimumDiameter(rb: Rulebook, type: SewerType): { inches: number; section: string } {
  const f = fig(rb, type === "GRAVITY" ? "extension.minGravityDiameterInches" : "extension.minLowPressureDiameterInches");
  return { inches: f.value, section: f.section };
}

/** 503 A: the application's stated pipe, for the review checklist; the diameter is judged, the material needs the Operator's eye unless PVC. */
export function materialsCriteria(rb: Rulebook, m: { sewerType: SewerType; diameterInches: number; pvc: boolean }): Criterion[] {
  const min = minimumDiameter(rb, m.sewerType);
  const section = min.section.replace(/\(2\)$/, "(1)");
  return [
    { text: `${m.sewerType === "GRAVITY" ? "Gravity" : "Low-pressure"} sewer ${num(m.diameterInches)} inches across inside, at least ${num(min.inches)}`, section: min.section, met: atLeast(m.diameterInches, min.inches) },
    {
      text: m.pvc ? "Heavy wall PVC pipe to the listed ASTM specifications" : "Pipe other than PVC: needs the District Operator's prior written approval",
      section,
      met: m.pvc,
    },
  ];
}

// ---- Capacity (501) ----

/**
 * 501: "current use" of a sewer or of the plant is its present use plus the unused capacity the
 * Town Board has committed by resolution to other users. The application is denied when its design
 * flow is more than what is left of the design capacity after current use. Gallons per day.
 */
export function capacityLeft(c: { designGpd: number; presentUseGpd: number; committedGpd: number }): number {
  return c.designGpd - c.presentUseGpd - c.committedGpd;
}
export function hasCapacity(c: { designGpd: number; presentUseGpd: number; committedGpd: number }, flowGpd: number): boolean {
  return flowGpd <= capacityLeft(c);
}

// ---- Notice of construction (502 A) ----

/** 502 A: the first day construction may start after notice given on `givenOn` (a calendar date in the district's zone). */
export function earliestStart(rb: Rulebook, givenOn: CalendarDate): { date: CalendarDate; days: number; section: string } {
  const days = rb.require("extension.constructionNoticeDays");
  return { date: addCalendarDays(givenOn, days.value), days: days.value, section: days.section };
}

/** The notice's problem, or null when the start is far enough ahead. */
export function noticeProblem(rb: Rulebook, givenOn: CalendarDate, startOn: CalendarDate): string | null {
  const e = earliestStart(rb, givenOn);
  return startOn < e.date
    ? `The District Operator must be told ${e.days} days before construction starts (${e.section}): a notice given on ${formatDate(givenOn)} allows a start on ${formatDate(e.date)} or later.`
    : null;
}

// ---------------------------------------------------------------------------------------------
// Acceptance and the guarantee (507)

/** The as-built drawings' problem, or null: the law's copies filed (four, SUL 507). */
export function asBuiltProblem(rb: Rulebook, copiesFiled: number): string | null {
  const copies = rb.require("extension.asBuiltCopies");
  return copiesFiled < copies.value ? `${num(copies.value)} copies of the as-built drawings are filed with the District Operator before the sewer is accepted (${copies.section}); ${num(copiesFiled)} filed.` : null;
}

/**
 * The last day of the guarantee (SUL 507: "for one (1) year" after the Town's acceptance): the
 * year counted as a licence's term is (termLastDay), the day of acceptance being its first day.
 */
export function guaranteeLastDay(rb: Rulebook, acceptedOn: CalendarDate): { date: CalendarDate; years: number; section: string } {
  const years = rb.require("extension.guaranteeYears");
  return { date: termLastDay(acceptedOn, Math.round(years.value * 12)), years: years.value, section: years.section };
}

/** What the District Operator's final acceptance waits for (SUL 502 A, 507), in words; empty when nothing. */
export function acceptanceProblems(
  prefix: string,
  s: { testsProblem: string | null; asBuiltApproved: boolean; inspections: { conforms: boolean }[]; unpaidCharges: string[] },
): string[] {
  const out: string[] = [];
  if (s.testsProblem) out.push(s.testsProblem);
  if (!s.asBuiltApproved) out.push(`The as-built drawings are not yet approved (${prefix} 507).`);
  if (!s.inspections.length) out.push(`No construction inspection has been recorded (${prefix} 502 A).`);
  else if (!s.inspections[s.inspections.length - 1].conforms) out.push(`The latest inspection found work not in accordance with the approved plans and specifications (${prefix} 502 A).`);
  for (const c of s.unpaidCharges) out.push(`${c} set by the Town Board ${c.endsWith("s") ? "are" : "is"} not paid (${prefix} 502 A).`);
  return out;
}

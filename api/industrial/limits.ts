import { addCalendarDays, dateIn, endOfDay, type CalendarDate } from "../common/dates.js";
import type { RuleEntry } from "../districts/rulebook-schema.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";

/**
 * The limits engine of industrial discharge permits: pure functions, no database.
 *
 * - The district's default limits come from its rulebook: SUL 903's table (average daily on a
 *   composite sample, maximum instantaneous on a grab sample, mg/L), pH (SUL 902(3)), temperature
 *   (SUL 902(9)), fats, oils and grease (SUL 903 note (5)); Huron IV-5, IV-13, IV-15, IV-17, IV-18,
 *   IV-21 (24-hour averages, any single reading at most 3 times the average).
 * - A permit copies them and may change them (SUL 904, 1004 C(2)), including mass limits in lb/day
 *   (lb/day = mg/L x MGD x 8.34, SUL 1005(3)(b)).
 * - Units are converted explicitly, and every conversion is said in the result; units that measure
 *   different things (a concentration against a mass rate) are refused, never guessed.
 * - A result over its limit is an exceedance and opens the duties of SUL 1005(4): notify the
 *   District Operator within 24 hours, resample and send the results within 30 days.
 * - Significant non-compliance criteria (SUL 201): chronic, technical review (TRC), late reports,
 *   missed milestones. Every figure comes from the rulebook; none is a constant here, except the
 *   physical constants of the unit conversions.
 */

// ---------------------------------------------------------------------------------------------
// Units

export const UNITS = ["mg/L", "ug/L", "ppm", "lb/day", "s.u.", "degF", "degC", "gpd", "MGD"] as const;
export type Unit = (typeof UNITS)[number];
export type Dimension = "concentration" | "mass rate" | "pH" | "temperature" | "flow";

export const UNIT_LABELS: Record<Unit, string> = {
  "mg/L": "mg/L",
  "ug/L": "µg/L",
  ppm: "ppm",
  "lb/day": "lb/day",
  "s.u.": "s.u. (pH)",
  degF: "°F",
  degC: "°C",
  gpd: "gallons/day",
  MGD: "MGD",
};

const DIMENSION: Record<Unit, Dimension> = {
  "mg/L": "concentration",
  "ug/L": "concentration",
  ppm: "concentration",
  "lb/day": "mass rate",
  "s.u.": "pH",
  degF: "temperature",
  degC: "temperature",
  gpd: "flow",
  MGD: "flow",
};

export const dimensionOf = (u: Unit): Dimension => DIMENSION[u];

/** Pounds per day from mg/L and million gallons per day: 8.34 lb per gallon of water x 10^6 / 10^6. */
export const LB_PER_DAY_FACTOR = 8.34;

export class UnitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnitError";
  }
}

const ALIASES: Record<string, Unit> = {
  "mg/l": "mg/L",
  "ug/l": "ug/L",
  "µg/l": "ug/L",
  "μg/l": "ug/L",
  ppm: "ppm",
  "parts per million": "ppm",
  "lb/day": "lb/day",
  "lbs/day": "lb/day",
  "lb/d": "lb/day",
  "s.u.": "s.u.",
  su: "s.u.",
  "std units": "s.u.",
  ph: "s.u.",
  degf: "degF",
  "°f": "degF",
  f: "degF",
  "degrees f": "degF",
  degc: "degC",
  "°c": "degC",
  c: "degC",
  "degrees c": "degC",
  gpd: "gpd",
  "gal/day": "gpd",
  "gallons/day": "gpd",
  mgd: "MGD",
};

const unitsSeen = new Map<string, Unit | null>();
/** A unit as written on a lab sheet or in the rulebook ("mg/L", "µg/L", "pH", "degrees F"); null when unknown. */
export function parseUnit(raw: string): Unit | null {
  let u = unitsSeen.get(raw);
  if (u === undefined) {
    u = ALIASES[raw.trim().toLowerCase().replace(/\s+/g, " ")] ?? null;
    if (unitsSeen.size < 1000) unitsSeen.set(raw, u);
  }
  return u;
}

/** How each concentration unit relates to mg/L. ppm is taken as mg/L (water, 1 kg per litre), as Huron's law writes its limits. */
const TO_MG_L: Partial<Record<Unit, number>> = { "mg/L": 1, "ug/L": 0.001, ppm: 1 };
const TO_GPD: Partial<Record<Unit, number>> = { gpd: 1, MGD: 1_000_000 };

/**
 * Converts a value between units of the same kind; throws UnitError for units that measure
 * different things (mg/L against lb/day needs a flow: use massLbPerDay).
 */
export function convert(value: number, from: Unit, to: Unit): number {
  if (from === to) return value;
  const a = DIMENSION[from];
  const b = DIMENSION[to];
  if (a !== b) throw new UnitError(`${UNIT_LABELS[from]} (${a}) cannot be compared with ${UNIT_LABELS[to]} (${b}).`);
  if (a === "concentration") return round((value * TO_MG_L[from]!) / TO_MG_L[to]!);
  if (a === "flow") return round((value * TO_GPD[from]!) / TO_GPD[to]!);
  if (a === "temperature") return round(from === "degC" ? (value * 9) / 5 + 32 : ((value - 32) * 5) / 9);
  throw new UnitError(`No conversion from ${UNIT_LABELS[from]} to ${UNIT_LABELS[to]}.`);
}

/** lb/day = mg/L x MGD x 8.34 (SUL 1005(3)(b) mass). */
export function massLbPerDay(concentrationMgL: number, flowMgd: number): number {
  return round(concentrationMgL * flowMgd * LB_PER_DAY_FACTOR);
}

/** Twelve significant digits: enough for lab figures, and 1.2 x 1.2 compares equal to 1.44. */
export function round(n: number): number {
  return Number.isFinite(n) ? Number(n.toPrecision(12)) : n;
}

// ---------------------------------------------------------------------------------------------
// Limits

/** CONCENTRATION (average and/or maximum), MASS (lb/day), PH (range), TEMPERATURE (maximum). */
export const LIMIT_KINDS = ["CONCENTRATION", "MASS", "PH", "TEMPERATURE"] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

export type Limit = {
  parameter: string;
  kind: LimitKind;
  unit: Unit;
  /** average daily (SUL 903, on a composite sample) or 24-hour average (Huron IV-21) */
  average: number | null;
  /** maximum instantaneous (SUL 903, on a grab sample) or any single reading (Huron IV-21) */
  maximum: number | null;
  /** a lower bound: pH */
  minimum: number | null;
  /** where the figure comes from: "Sewer Use Law 903", "Huron IV-21", or "Permit condition (SUL 904)" */
  section: string;
};

export type RuleSource = { entry(key: RulebookKey): RuleEntry };

const num = (e: RuleEntry): number | null => (typeof e.value === "number" ? e.value : null);

function unitOf(raw: string | undefined, what: string): Unit {
  const u = raw ? parseUnit(raw) : null;
  if (!u) throw new UnitError(`The rulebook gives ${what} in "${raw}", a unit the portal does not know.`);
  return u;
}

/**
 * The district's default limits, copied onto a new permit (SUL 903, 902; Huron Article IV). Rows
 * the law leaves blank (SUL 903's tin) carry no figure and are left out.
 */
export function defaultLimits(rb: RuleSource): Limit[] {
  const out: Limit[] = [];
  const table = rb.entry("limits.table");
  if (table.kind === "table")
    for (const row of table.value) {
      if (row.average === null && row.maximum === null && (row.minimum ?? null) === null) continue;
      out.push({
        parameter: row.parameter,
        kind: "CONCENTRATION",
        unit: unitOf(row.unit, row.parameter),
        average: row.average,
        maximum: row.maximum,
        minimum: row.minimum ?? null,
        section: table.section,
      });
    }
  const phMin = rb.entry("limits.ph.min");
  const phMax = rb.entry("limits.ph.max");
  if (num(phMin) !== null || num(phMax) !== null)
    out.push({
      parameter: "pH",
      kind: "PH",
      unit: "s.u.",
      average: null,
      maximum: num(phMax),
      minimum: num(phMin),
      section: phMin.section === phMax.section ? phMin.section : `${phMin.section}; ${phMax.section}`,
    });
  const temp = rb.entry("limits.temperatureMaxF");
  if (num(temp) !== null)
    out.push({ parameter: "Temperature", kind: "TEMPERATURE", unit: unitOf(temp.unit ?? "degrees F", "temperature"), average: null, maximum: num(temp), minimum: null, section: temp.section });
  const single = (key: RulebookKey, parameter: string) => {
    const e = rb.entry(key);
    if (num(e) === null) return;
    if (out.some((l) => l.parameter.toLowerCase().startsWith(parameter.toLowerCase().split(",")[0].split(" ")[0]))) return;
    out.push({ parameter, kind: "CONCENTRATION", unit: unitOf(e.unit, parameter), average: null, maximum: num(e), minimum: null, section: e.section });
  };
  single("limits.fatsOilsGreaseMax", "Fats, oils and grease");
  single("limits.phenolsMax", "Phenols, total");
  single("limits.sulfidesMax", "Sulfides");
  return out;
}

/** Checks a permit's limit row as staff edit it; returns field messages (empty when good). */
export function limitProblems(l: Limit): string[] {
  const p: string[] = [];
  if (!l.parameter.trim()) p.push("Name the parameter.");
  if (!LIMIT_KINDS.includes(l.kind)) p.push("Choose concentration, mass, pH or temperature.");
  const dim = DIMENSION[l.unit];
  const want: Record<LimitKind, Dimension> = { CONCENTRATION: "concentration", MASS: "mass rate", PH: "pH", TEMPERATURE: "temperature" };
  if (!dim) p.push("Choose a unit.");
  else if (dim !== want[l.kind]) p.push(`A ${l.kind.toLowerCase()} limit cannot be in ${UNIT_LABELS[l.unit]}.`);
  for (const k of ["average", "maximum", "minimum"] as const) {
    const v = l[k];
    if (v !== null && (!Number.isFinite(v) || (l.kind !== "TEMPERATURE" && v < 0))) p.push(`The ${k} must be a number of zero or more.`);
  }
  if (l.average === null && l.maximum === null && l.minimum === null) p.push("Give at least one figure.");
  if (l.average !== null && l.maximum !== null && l.average > l.maximum) p.push("The average limit cannot be above the maximum.");
  if (l.minimum !== null && l.maximum !== null && l.minimum > l.maximum) p.push("The lowest allowed value cannot be above the highest.");
  return p;
}

/** A concentration limit turned into a mass limit at a flow (lb/day = mg/L x MGD x 8.34), for permits that set mass limits. */
export function massLimitFrom(l: Limit, flowMgd: number): Limit {
  if (l.kind !== "CONCENTRATION") throw new UnitError(`Only a concentration limit becomes a mass limit, not ${l.parameter}.`);
  const toMass = (v: number | null) => (v === null ? null : massLbPerDay(convert(v, l.unit, "mg/L"), flowMgd));
  return { parameter: l.parameter, kind: "MASS", unit: "lb/day", average: toMass(l.average), maximum: toMass(l.maximum), minimum: null, section: l.section };
}

// ---------------------------------------------------------------------------------------------
// Evaluation of one result

export const SAMPLE_TYPES = ["COMPOSITE", "GRAB"] as const;
export type SampleType = (typeof SAMPLE_TYPES)[number];

export type Result = {
  parameter: string;
  sampleType: SampleType;
  /** the measured value; for a result below the detection limit, null with detectionLimit set */
  value: number | null;
  unit: Unit;
  belowDetection: boolean;
  /** the method's detection limit (in `unit`), for a result below it */
  detectionLimit: number | null;
  /** the day's flow in MGD, needed to judge a concentration against a mass limit */
  flowMgd?: number | null;
};

/** OK, EXCEEDS (over a limit), INCONCLUSIVE (below a detection limit that is above the limit), NO_LIMIT. */
export type EvaluationStatus = "OK" | "EXCEEDS" | "INCONCLUSIVE" | "NO_LIMIT";
export type Basis = "AVERAGE" | "MAXIMUM" | "MINIMUM" | "RANGE";

export type Check = {
  status: EvaluationStatus;
  kind: LimitKind | null;
  basis: Basis | null;
  /** the limit figure the value was compared with, in limitUnit */
  limitValue: number | null;
  limitUnit: Unit | null;
  /** the value as compared, in limitUnit (after any conversion) */
  comparedValue: number | null;
  /** comparedValue / limitValue (how far over or under); null for minimums and non-numbers */
  ratio: number | null;
  section: string | null;
  /** plain-language conversion said aloud ("1,300 µg/L = 1.3 mg/L"), or null */
  conversion: string | null;
  message: string;
};

export type Evaluation = Check & { checks: Check[] };

// One formatter kept: toLocaleString with options builds a new one on every call.
const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });
/**
 * A figure as the messages print it (en-US, at most six decimals). Under 1,000 with at most six
 * decimals en-US prints what String does, so Intl is skipped: a save prints hundreds.
 */
export function formatFigure(n: number): string {
  const r = round(n);
  if (r > -1000 && r < 1000 && !Object.is(r, -0)) {
    const s = String(r);
    const dot = s.indexOf(".");
    if (s.indexOf("e") < 0 && (dot < 0 || s.length - dot <= 7)) return s;
  }
  return numberFormat.format(r);
}
const fmt = formatFigure;
const withUnit = (n: number, u: Unit) => `${fmt(n)} ${UNIT_LABELS[u]}`;

const BASIS_WORDS: Record<string, string> = {
  AVERAGE: "average daily limit (composite sample)",
  MAXIMUM: "maximum instantaneous limit",
  MINIMUM: "lowest allowed value",
};

function basisWords(l: Limit, basis: Basis): string {
  if (l.kind === "MASS") return basis === "AVERAGE" ? "average daily mass limit" : "maximum daily mass limit";
  if (l.kind === "PH") return basis === "MINIMUM" ? "lowest allowed pH" : "highest allowed pH";
  if (l.kind === "TEMPERATURE") return "highest allowed temperature";
  return BASIS_WORDS[basis];
}

/**
 * Which figure a sample is judged by: a composite sample against the average limit, a grab sample
 * against the maximum (SUL 903; Huron IV-21 "24-hour average" and "any single reading"). A sample
 * type whose figure the limit leaves blank falls back to the other figure. pH is a range and
 * temperature a maximum whatever the sample.
 */
function figuresFor(l: Limit, sampleType: SampleType): Figure[] {
  if (l.kind === "PH") {
    const f: { basis: Basis; value: number }[] = [];
    if (l.minimum !== null) f.push({ basis: "MINIMUM", value: l.minimum });
    if (l.maximum !== null) f.push({ basis: "MAXIMUM", value: l.maximum });
    return f;
  }
  const avg = l.average !== null ? { basis: "AVERAGE" as Basis, value: l.average } : null;
  const max = l.maximum !== null ? { basis: "MAXIMUM" as Basis, value: l.maximum } : null;
  const min = l.minimum !== null ? [{ basis: "MINIMUM" as Basis, value: l.minimum }] : [];
  if (sampleType === "COMPOSITE") return [...min, ...(avg ? [avg] : max ? [max] : [])];
  return [...min, ...(max ? [max] : avg ? [avg] : [])];
}

type Figure = { basis: Basis; value: number };

/**
 * What every result judged against a limit shares, worked out once per limit: its figures by
 * sample type and the words for each ("maximum instantaneous limit of 2.6 mg/L"). A save judges
 * hundreds of results against the same few limits.
 */
const shared = new WeakMap<Limit, { COMPOSITE?: Figure[]; GRAB?: Figure[]; words: Map<Basis, string> }>();
function sharedOf(l: Limit) {
  let m = shared.get(l);
  if (!m) shared.set(l, (m = { words: new Map() }));
  return m;
}
const figuresOf = (l: Limit, sampleType: SampleType): readonly Figure[] => {
  const m = sharedOf(l);
  return (m[sampleType] ??= figuresFor(l, sampleType));
};
function figureWords(l: Limit, f: Figure): string {
  const m = sharedOf(l);
  let w = m.words.get(f.basis);
  if (w === undefined) m.words.set(f.basis, (w = `${basisWords(l, f.basis)} of ${withUnit(f.value, l.unit)}`));
  return w;
}

/** The value of a result in the unit of a limit, with the conversion said; throws UnitError. */
function valueIn(r: Result, value: number, l: Limit): { v: number; conversion: string | null } {
  if (l.kind === "MASS" && dimensionOf(r.unit) === "concentration") {
    if (!r.flowMgd || r.flowMgd <= 0)
      throw new UnitError(`${r.parameter} has a mass limit in lb/day: give the day's flow (MGD) to turn ${UNIT_LABELS[r.unit]} into lb/day.`);
    const mgL = convert(value, r.unit, "mg/L");
    const lb = massLbPerDay(mgL, r.flowMgd);
    return { v: lb, conversion: `${withUnit(value, r.unit)} x ${fmt(r.flowMgd)} MGD x ${LB_PER_DAY_FACTOR} = ${withUnit(lb, "lb/day")}` };
  }
  if (r.unit === l.unit) return { v: value, conversion: null };
  const v = convert(value, r.unit, l.unit);
  return { v, conversion: `${withUnit(value, r.unit)} = ${withUnit(v, l.unit)}` };
}

/** Judges one result against one limit. Throws UnitError when the units cannot be compared. */
export function checkAgainst(r: Result, l: Limit): Check {
  const figures = figuresOf(l, r.sampleType);
  if (!figures.length) return noLimit(r);
  if (r.belowDetection) {
    if (r.detectionLimit === null || !(r.detectionLimit >= 0)) throw new UnitError("A result below the detection limit needs the detection limit.");
    const { v, conversion } = valueIn(r, r.detectionLimit, l);
    const upper = figures.filter((f) => f.basis !== "MINIMUM");
    const over = upper.find((f) => v > f.value);
    const lowest = upper[0] ?? figures[0];
    if (over)
      return {
        status: "INCONCLUSIVE",
        kind: l.kind,
        basis: over.basis,
        limitValue: over.value,
        limitUnit: l.unit,
        comparedValue: v,
        ratio: null,
        section: l.section,
        conversion,
        message: `Below the detection limit of ${withUnit(v, l.unit)}, which is above the ${figureWords(l, over)} (${l.section}): use a method sensitive enough to show compliance.`,
      };
    return {
      status: "OK",
      kind: l.kind,
      basis: lowest.basis,
      limitValue: lowest.value,
      limitUnit: l.unit,
      comparedValue: null,
      ratio: null,
      section: l.section,
      conversion,
      message: `Below the detection limit (${withUnit(v, l.unit)}), under the ${figureWords(l, lowest)}.`,
    };
  }
  if (r.value === null || !Number.isFinite(r.value)) throw new UnitError("Enter the measured value, or mark the result below the detection limit.");
  const { v, conversion } = valueIn(r, r.value, l);
  for (const f of figures) {
    const bad = f.basis === "MINIMUM" ? v < f.value : v > f.value;
    if (bad)
      return {
        status: "EXCEEDS",
        kind: l.kind,
        basis: f.basis,
        limitValue: f.value,
        limitUnit: l.unit,
        comparedValue: v,
        ratio: f.basis === "MINIMUM" || f.value === 0 ? null : round(v / f.value),
        section: l.section,
        conversion,
        message:
          f.basis === "MINIMUM"
            ? `${withUnit(v, l.unit)} is below the ${figureWords(l, f)} (${l.section}).`
            : `${withUnit(v, l.unit)} exceeds the ${figureWords(l, f)} (${l.section}).`,
      };
  }
  const shown = figures.filter((f) => f.basis !== "MINIMUM").at(-1) ?? figures[0];
  const range = l.kind === "PH" && l.minimum !== null && l.maximum !== null;
  return {
    status: "OK",
    kind: l.kind,
    basis: range ? "RANGE" : shown.basis,
    limitValue: shown.value,
    limitUnit: l.unit,
    comparedValue: v,
    ratio: shown.basis === "MINIMUM" || shown.value === 0 ? null : round(v / shown.value),
    section: l.section,
    conversion,
    message: range
      ? `${withUnit(v, l.unit)} is within ${fmt(l.minimum!)} to ${fmt(l.maximum!)} (${l.section}).`
      : `${withUnit(v, l.unit)} is within the ${figureWords(l, shown)} (${l.section}).`,
  };
}

function noLimit(r: Result): Check {
  return {
    status: "NO_LIMIT",
    kind: null,
    basis: null,
    limitValue: null,
    limitUnit: null,
    comparedValue: r.value,
    ratio: null,
    section: null,
    conversion: null,
    message: `The permit sets no limit for ${r.parameter}: the result is recorded.`,
  };
}

const norm = (s: string) => s.trim().toLowerCase();

/**
 * The limits a result is judged by: its parameter's, in a unit it can be compared with (none when
 * the permit sets none; UnitError when none fits). The same for every result of one parameter,
 * unit and flow-or-not, so remembered per list of limits (a save judges hundreds against one list).
 */
const applicableByList = new WeakMap<Limit[], Map<string, Limit[]>>();
function applicableLimits(r: Result, limits: Limit[]): Limit[] {
  const key = `${norm(r.parameter)}\u0000${r.unit}\u0000${r.flowMgd ? 1 : 0}`;
  let known = applicableByList.get(limits);
  if (!known) applicableByList.set(limits, (known = new Map()));
  let applicable = known.get(key);
  if (applicable) return applicable;
  const mine = limits.filter((l) => norm(l.parameter) === norm(r.parameter));
  const dim = dimensionOf(r.unit);
  const comparable = mine.filter((l) => {
    const ld = dimensionOf(l.unit);
    return ld === dim || (l.kind === "MASS" && dim === "concentration");
  });
  if (mine.length && !comparable.length)
    throw new UnitError(
      `${r.parameter} is limited in ${mine.map((l) => UNIT_LABELS[l.unit]).join(" and ")}; a result in ${UNIT_LABELS[r.unit]} cannot be compared with it.`,
    );
  // A concentration result is judged against a mass limit only when the day's flow is given
  // (when only mass limits fit, the check asks for the flow).
  applicable = comparable.filter((l) => !(l.kind === "MASS" && dim === "concentration" && !r.flowMgd));
  if (!applicable.length) applicable = comparable;
  known.set(key, applicable);
  return applicable;
}
const RANK: Record<EvaluationStatus, number> = { EXCEEDS: 3, INCONCLUSIVE: 2, OK: 1, NO_LIMIT: 0 };

/**
 * Judges a result against every limit the permit sets for its parameter (a concentration and a
 * mass limit may both apply); the worst check decides. Throws UnitError for a unit that fits none.
 */
export function evaluate(r: Result, limits: Limit[]): Evaluation {
  const applicable = applicableLimits(r, limits);
  if (!applicable.length) return { ...noLimit(r), checks: [] };
  const checks = applicable.map((l) => checkAgainst(r, l));
  const worst = checks.reduce((a, b) => (RANK[b.status] > RANK[a.status] ? b : a));
  return { ...worst, checks };
}

// ---------------------------------------------------------------------------------------------
// Duties an exceedance opens (SUL 1005(4))

export type Duty = { kind: "NOTIFY" | "RESAMPLE"; text: string; section: string; dueAt: Date; dueOn: CalendarDate };

/**
 * The user learns of a violation when the result reaches it (`learnedAt`): it must notify the
 * District Operator within the rulebook's hours, and repeat the sampling and send the results
 * within its days (SUL 1005(4)). Calendar days count in the district's zone, the day learned being day 0.
 */
export function dutiesFor(rb: RuleSource, learnedAt: Date, timeZone: string, parameter: string): Duty[] {
  const hours = rb.entry("industrial.violationNotifyHours");
  const days = rb.entry("industrial.resampleDays");
  const out: Duty[] = [];
  if (num(hours) !== null) {
    const dueAt = new Date(learnedAt.getTime() + num(hours)! * 3_600_000);
    out.push({
      kind: "NOTIFY",
      text: `Notify the District Operator of the ${parameter} violation within ${num(hours)} hours of learning of it`,
      section: hours.section,
      dueAt,
      dueOn: dateIn(timeZone, dueAt),
    });
  }
  if (num(days) !== null) {
    const dueOn = addCalendarDays(dateIn(timeZone, learnedAt), num(days)!);
    out.push({
      kind: "RESAMPLE",
      text: `Repeat the ${parameter} sampling and analysis and send the results within ${num(days)} days`,
      section: days.section,
      dueAt: endOfDay(dueOn, timeZone),
      dueOn,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Significant non-compliance (SUL 201), over one period's measurements

/** BOD, TSS, fats, oil and grease take the conventional TRC factor (1.4); all others the other one (1.2). */
export function isConventional(parameter: string): boolean {
  const p = norm(parameter);
  return (
    /\bbod\b|biochemical oxygen demand/.test(p) ||
    /\btss\b|suspended solids/.test(p) ||
    /\bfog\b|\bfats?\b|\boils?\b|\bgrease\b/.test(p)
  );
}

export type Measurement = { value: number; limit: number };

/** At or over a share, in whole-number arithmetic: 2 of 3 is 66.67 %, at least 66 %. */
const atLeastShare = (count: number, total: number, percent: number) => total > 0 && count * 100 >= percent * total - 1e-9;

/**
 * (a) chronic, from counts (the district-wide dashboard counts in SQL): `exceeded` of `total`
 * measurements over their limit, at or above the rulebook percent.
 */
export function chronicFromCounts(exceeded: number, total: number, percent: number): { snc: boolean; exceeded: number; total: number } {
  return { snc: atLeastShare(exceeded, total, percent), exceeded, total };
}

/** The TRC factor of a parameter: conventional (BOD, TSS, fats, oil and grease) or other. */
export function trcFactor(parameter: string, rule: { factorConventional: number; factorOther: number }): number {
  return isConventional(parameter) ? rule.factorConventional : rule.factorOther;
}

/** (b) technical review criteria, from counts: `atOrAbove` of `total` at or above limit x factor. */
export function trcFromCounts(
  parameter: string,
  atOrAbove: number,
  total: number,
  rule: { percent: number; factorConventional: number; factorOther: number },
): { snc: boolean; factor: number; atOrAbove: number; total: number } {
  return { snc: atLeastShare(atOrAbove, total, rule.percent), factor: trcFactor(parameter, rule), atOrAbove, total };
}

/**
 * (a) chronic: the share of a parameter's measurements that exceed their limit is at or above the
 * rulebook percent (66 %).
 */
export function chronicViolation(ms: Measurement[], percent: number): { snc: boolean; exceeded: number; total: number } {
  return chronicFromCounts(ms.filter((m) => round(m.value) > round(m.limit)).length, ms.length, percent);
}

/**
 * (b) technical review criteria: the share of measurements at or above limit x factor is at or
 * above the rulebook percent (33 %); factor 1.4 for BOD, TSS, fats, oil and grease, 1.2 for others.
 */
export function trcViolation(
  parameter: string,
  ms: Measurement[],
  rule: { percent: number; factorConventional: number; factorOther: number },
): { snc: boolean; factor: number; atOrAbove: number; total: number } {
  const factor = trcFactor(parameter, rule);
  return trcFromCounts(parameter, ms.filter((m) => round(m.value) >= round(m.limit * factor)).length, ms.length, rule);
}

/** (f) a required report more than `days` (30) days late: submitted (or still missing) after due + days. */
export function lateReport(dueOn: CalendarDate, submittedOn: CalendarDate | null, today: CalendarDate, days: number): { snc: boolean; daysLate: number } {
  const on = submittedOn ?? today;
  const daysLate = Math.max(0, Math.round((Date.parse(`${on}T00:00:00Z`) - Date.parse(`${dueOn}T00:00:00Z`)) / 86_400_000));
  return { snc: daysLate > days, daysLate };
}

/** (e) a compliance schedule milestone missed by `days` (90) days or more. */
export function missedMilestone(dueOn: CalendarDate, metOn: CalendarDate | null, today: CalendarDate, days: number): { snc: boolean; daysLate: number } {
  const on = metOn ?? today;
  const daysLate = Math.max(0, Math.round((Date.parse(`${on}T00:00:00Z`) - Date.parse(`${dueOn}T00:00:00Z`)) / 86_400_000));
  return { snc: daysLate >= days, daysLate };
}

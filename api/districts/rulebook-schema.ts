import { z } from "zod";
import { displayValue } from "./present.js";

/**
 * The shape of a district's rulebook as shipped in api/districts/data/*.json and as stored per
 * version. Every figure the law sets is an entry with the section it comes from; features read
 * entries by key (see rulebook-keys.ts), never from constants in code.
 */
export const RULE_KINDS = [
  "money", // integer cents, e.g. 15000 = $150.00
  "money_rate", // integer cents per `unit` (unit reads "per square foot ..."), e.g. 50 = $0.50 per square foot
  "integer", // a count (sheets, months, occurrences)
  "number", // a decimal figure with a `unit` (mg/L, degrees F, s.u.)
  "days", // calendar days unless `unit` says "business days"
  "percent", // a percentage, e.g. 20 = 20 %
  "boolean", // the district has / does not have this procedure
  "text", // plain-language text (hours, places, statements)
  "table", // rows of limits: see limitRow
] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export const limitRow = z.object({
  parameter: z.string().min(1),
  unit: z.string().min(1),
  /** average daily (SUL, composite sample) or 24-hour average (Huron); null when the law leaves it blank */
  average: z.number().nonnegative().nullable(),
  /** maximum instantaneous (SUL, grab sample) or highest single reading (Huron); null when blank */
  maximum: z.number().nonnegative().nullable(),
  /** a lower bound (pH, flashpoint) where the law sets one */
  minimum: z.number().nullable().optional(),
  note: z.string().optional(),
});
export type LimitRow = z.infer<typeof limitRow>;

const RULE_KEY = /^[a-z][a-z0-9]*(\.[a-z][a-zA-Z0-9]*)+$/;
const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Where an entry's figure comes from (docs/decisions/statute-or-board-figures.md):
 * - "statute": written in the district's law, or the law provides no such thing (null / false /
 *   []). It changes only with the law: a new version of the shipped file, loaded on migrate.
 * - "board": set by Town Board resolution within the law's bounds (or a figure of the district's
 *   own practice the law leaves to it). The ADMIN's editor changes it, citing the resolution.
 */
export const RULE_SOURCES = ["statute", "board"] as const;
export type RuleSource = (typeof RULE_SOURCES)[number];

/**
 * A bound the law puts on a board figure: another entry of the same rulebook (`entry`, e.g. the
 * law's cap hauler.applicationFeeMax) or a fixed figure (`value`, in the entry's own unit), with
 * the section that sets it. Bounds are inclusive ("not to exceed $100" allows $100.00). A bound
 * naming an entry whose value is null does not apply (the law sets none).
 */
export const ruleBound = z
  .object({ entry: z.string().regex(RULE_KEY).optional(), value: z.number().optional(), section: z.string().min(1) })
  .strict()
  .refine((b) => (b.entry === undefined) !== (b.value === undefined), "A bound names either an entry or a value.");
export type RuleBound = z.infer<typeof ruleBound>;

/** The Town Board resolution that set a board figure: its number and the day it was adopted. */
export const resolution = z.object({ number: z.string().trim().min(1).max(60), adoptedOn: z.string().regex(CALENDAR_DATE) }).strict();
export type Resolution = z.infer<typeof resolution>;

const base = {
  key: z.string().regex(RULE_KEY),
  label: z.string().min(1),
  /** citation as shown to residents: "Sewer Use Law 1212", "Huron III-2" */
  section: z.string().min(1),
  unit: z.string().optional(),
  /** plain-language explanation shown on the public rules page */
  note: z.string().optional(),
  source: z.enum(RULE_SOURCES),
  /** board entries: the resolution that set the figure in force, where one is recorded */
  resolution: resolution.optional(),
  /** board entries: the least and the most the law allows */
  min: ruleBound.optional(),
  max: ruleBound.optional(),
};

export const ruleEntry = z.discriminatedUnion("kind", [
  z.object({ ...base, kind: z.literal("money"), value: z.number().int().nonnegative().nullable() }),
  z.object({ ...base, kind: z.literal("money_rate"), value: z.number().int().nonnegative().nullable() }),
  z.object({ ...base, kind: z.literal("integer"), value: z.number().int().nullable() }),
  z.object({ ...base, kind: z.literal("number"), value: z.number().nullable() }),
  z.object({ ...base, kind: z.literal("days"), value: z.number().int().nonnegative().nullable() }),
  z.object({ ...base, kind: z.literal("percent"), value: z.number().nonnegative().nullable() }),
  z.object({ ...base, kind: z.literal("boolean"), value: z.boolean() }),
  z.object({ ...base, kind: z.literal("text"), value: z.string().nullable() }),
  z.object({ ...base, kind: z.literal("table"), value: z.array(limitRow) }),
]);
export type RuleEntry = z.infer<typeof ruleEntry>;

export const districtFile = z.object({
  district: z.object({
    slug: z.string().regex(/^[a-z0-9-]+$/),
    name: z.string().min(1),
    lawName: z.string().min(1),
    /** the short form used in citations: "Sewer Use Law" or "Huron" */
    citationPrefix: z.string().min(1),
    /** what the law calls the official who reviews permits and inspects the work: "District Operator" (SUL 201), "Superintendent" (Huron I) */
    operatorTitle: z.string().min(1),
    timeZone: z.string().min(1),
    address: z.string().min(1),
    contacts: z.array(z.object({ role: z.string(), name: z.string(), email: z.string().email(), phone: z.string() })),
    publicNotice: z.string(),
  }),
  rulebook: z.object({
    /** a label for the shipped version, e.g. "Local Law #2 of 2000, amended 2005" */
    label: z.string().min(1),
    effectiveDate: z.string().regex(CALENDAR_DATE),
    entries: z.array(ruleEntry).min(1).superRefine((entries, ctx) => {
      for (const [i, message] of structureProblems(entries)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i], message });
    }),
  }),
});
export type DistrictFile = z.infer<typeof districtFile>;

const NUMERIC_KINDS: ReadonlySet<RuleKind> = new Set(["money", "money_rate", "integer", "number", "days", "percent"]);

/**
 * How entries may be put together, whatever their values: keys are unique; only board entries
 * carry a resolution or bounds; a bound's entry exists in the same rulebook and is a figure of the
 * same kind. Returns [index, message] pairs (the shipped file is refused when there are any).
 */
export function structureProblems(entries: RuleEntry[]): [number, string][] {
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const out: [number, string][] = [];
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (seen.has(e.key)) out.push([i, `${e.key} appears twice.`]);
    seen.add(e.key);
    if (e.source === "statute" && (e.resolution || e.min || e.max))
      out.push([i, `${e.key} is set by the law: only a board entry carries a resolution or bounds.`]);
    for (const b of [e.min, e.max]) {
      if (!b) continue;
      if (!NUMERIC_KINDS.has(e.kind)) out.push([i, `${e.key} is not a figure, so it cannot have a bound.`]);
      if (b.entry === undefined) continue;
      const other = byKey.get(b.entry);
      if (!other) out.push([i, `${e.key} is bounded by ${b.entry}, which is not in this rulebook.`]);
      else if (other.kind !== e.kind) out.push([i, `${e.key} is bounded by ${b.entry}, a figure of another kind.`]);
      else if (other.source !== "statute") out.push([i, `${e.key} is bounded by ${b.entry}, which the law does not set.`]);
    }
  });
  return out;
}

/** A bound's figure in this rulebook: its value, or the value of the entry it names (null when that entry is not set). */
export function boundValue(b: RuleBound, byKey: ReadonlyMap<string, RuleEntry>): number | null {
  if (b.value !== undefined) return b.value;
  const v = byKey.get(b.entry!)?.value;
  return typeof v === "number" ? v : null;
}

/**
 * Rules between entries of one rulebook, checked whenever a version is written (shipped, edited
 * or carried over a law amendment): field errors keyed by the entry's key, naming its label. A
 * board figure must lie within the bounds the law sets (`min`/`max`), e.g. the hauler licence
 * application fee may not exceed the most the law allows (SUL 801: "not to exceed $100").
 */
export function crossEntryProblems(entries: RuleEntry[]): Record<string, string> {
  const describe = (e: RuleEntry, value: number) => displayValue({ ...e, value } as RuleEntry);
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const out: Record<string, string> = {};
  for (const e of entries) {
    if (typeof e.value !== "number") continue;
    const min = e.min ? boundValue(e.min, byKey) : null;
    const max = e.max ? boundValue(e.max, byKey) : null;
    if (max !== null && e.value > max) out[e.key] = `${e.label} may not be over ${describe(e, max)} (${e.max!.section}).`;
    else if (min !== null && e.value < min) out[e.key] = `${e.label} may not be under ${describe(e, min)} (${e.min!.section}).`;
  }
  return out;
}

import { z } from "zod";

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

const base = {
  key: z.string().regex(/^[a-z][a-z0-9]*(\.[a-z][a-zA-Z0-9]*)+$/),
  label: z.string().min(1),
  /** citation as shown to residents: "Sewer Use Law 1212", "Huron III-2" */
  section: z.string().min(1),
  unit: z.string().optional(),
  /** plain-language explanation shown on the public rules page */
  note: z.string().optional(),
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
    timeZone: z.string().min(1),
    address: z.string().min(1),
    contacts: z.array(z.object({ role: z.string(), name: z.string(), email: z.string().email(), phone: z.string() })),
    publicNotice: z.string(),
  }),
  rulebook: z.object({
    /** a label for the shipped version, e.g. "Local Law #2 of 2000, amended 2005" */
    label: z.string().min(1),
    effectiveDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    entries: z.array(ruleEntry).min(1),
  }),
});
export type DistrictFile = z.infer<typeof districtFile>;

/**
 * Rules between entries of one rulebook, checked whenever a version is written (shipped or edited):
 * field errors keyed by the entry's key. The hauler licence application fee may not exceed the
 * most the law allows (SUL 801: "not over $100").
 */
export function crossEntryProblems(entries: RuleEntry[]): Record<string, string> {
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const out: Record<string, string> = {};
  const fee = byKey.get("hauler.applicationFee");
  const max = byKey.get("hauler.applicationFeeMax");
  if (fee && max && typeof fee.value === "number" && typeof max.value === "number" && fee.value > max.value)
    out["hauler.applicationFee"] = `${fee.label} may not be over $${(max.value / 100).toFixed(2)} (${max.section}).`;
  return out;
}

import { formatCents } from "../common/money.js";
import { RULEBOOK_KEYS } from "./rulebook-keys.js";
import type { RuleEntry } from "./rulebook-schema.js";
import type { RuleEntryType, RulebookType } from "./districts.types.js";
import type { RulebookVersion } from "./rulebook-version.entity.js";

const num = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 4 });
/** "1 months" reads "1 month". */
const withUnit = (n: number, unit?: string) => (unit ? `${num(n)} ${n === 1 && /[^s]s$/.test(unit) ? unit.slice(0, -1) : unit}` : num(n));

/** The value as a resident reads it. */
export function displayValue(e: RuleEntry): string {
  if (e.value === null) return "Not set by this district's law";
  switch (e.kind) {
    case "money":
      return formatCents(e.value as number);
    case "money_rate":
      return `${formatCents(e.value as number)}${e.unit ? ` ${e.unit}` : ""}`;
    case "days":
      return withUnit(e.value as number, e.unit ?? "calendar days");
    case "percent":
      return `${num(e.value as number)}%`;
    case "boolean":
      return e.value ? "Yes" : "No";
    case "text":
      return e.value as string;
    case "table":
      return `${(e.value as unknown[]).length} limits`;
    default:
      return withUnit(e.value as number, e.unit);
  }
}

export function presentEntry(e: RuleEntry): RuleEntryType {
  const meta = (RULEBOOK_KEYS as Record<string, { topic: string }>)[e.key];
  return {
    key: e.key,
    topic: meta?.topic ?? "Other",
    label: e.label,
    kind: e.kind,
    section: e.section,
    unit: e.unit ?? null,
    note: e.note ?? null,
    display: displayValue(e),
    applies: e.kind === "boolean" ? e.value : e.value !== null && !(Array.isArray(e.value) && e.value.length === 0),
    amountCents: e.kind === "money" || e.kind === "money_rate" ? (e.value as number | null) : null,
    number: typeof e.value === "number" ? e.value : null,
    rows: e.kind === "table" ? e.value.map((r) => ({ ...r, minimum: r.minimum ?? null, note: r.note ?? null })) : null,
    value: e.value,
  };
}

const presented = new WeakMap<RulebookVersion, RulebookType>();

/** Versions are immutable, so the presentation of a cached version is computed once. */
export function presentRulebook(v: RulebookVersion): RulebookType {
  let p = presented.get(v);
  if (!p) presented.set(v, (p = build(v)));
  return p;
}

function build(v: RulebookVersion): RulebookType {
  return {
    id: v.id,
    version: v.version,
    label: v.label,
    effectiveDate: v.effectiveDate,
    source: v.source,
    reason: v.reason,
    createdAt: v.createdAt,
    entries: v.entries.map(presentEntry),
  };
}

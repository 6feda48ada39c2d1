import { formatDate } from "../common/dates.js";
import { formatCents } from "../common/money.js";
import { BOARD_TABLES } from "./board-tables.js";
import { RULEBOOK_KEYS } from "./rulebook-keys.js";
import type { RuleBound, RuleEntry } from "./rulebook-schema.js";
import type { RuleBoundType, RuleEntryType, RuleSourceEnum, RulebookType } from "./districts.types.js";
import type { RulebookVersion } from "./rulebook-version.entity.js";

const num = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 4 });
/** "1 months" reads "1 month". */
const withUnit = (n: number, unit?: string) => (unit ? `${num(n)} ${n === 1 && /[^s]s$/.test(unit) ? unit.slice(0, -1) : unit}` : num(n));

/** The value as a resident reads it. */
export function displayValue(e: RuleEntry): string {
  if (e.value === null) return e.source === "board" ? "Not set by the Town Board" : "Not set by this district's law";
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

/** A bound's figure in this version: its own value, or the value of the law's entry it names. */
function presentBound(e: RuleEntry, b: RuleBound | undefined, byKey: ReadonlyMap<string, RuleEntry>): RuleBoundType | null {
  if (!b) return null;
  const named = b.entry === undefined ? null : byKey.get(b.entry);
  const value = b.value ?? (typeof named?.value === "number" ? named.value : null);
  return { value, display: value === null ? null : displayValue({ ...e, value } as RuleEntry), section: b.section, key: b.entry ?? null };
}

/** "within the law's cap of $100.00 (Sewer Use Law 801)"; null without bounds that apply. */
export function boundsText(min: RuleBoundType | null, max: RuleBoundType | null): string | null {
  const lo = min?.display ? min : null;
  const hi = max?.display ? max : null;
  if (lo && hi)
    return lo.section === hi.section
      ? `within the law's bounds of ${lo.display} to ${hi.display} (${hi.section})`
      : `within the law's bounds of ${lo.display} (${lo.section}) to ${hi.display} (${hi.section})`;
  if (hi) return `within the law's cap of ${hi.display} (${hi.section})`;
  if (lo) return `no less than the law's minimum of ${lo.display} (${lo.section})`;
  return null;
}

export function presentEntry(e: RuleEntry, byKey: ReadonlyMap<string, RuleEntry> = new Map()): RuleEntryType {
  const meta = (RULEBOOK_KEYS as Record<string, { topic: string }>)[e.key];
  // Rows written before entries named their source are read as the law's.
  const board = e.source === "board";
  const min = board ? presentBound(e, e.min, byKey) : null;
  const max = board ? presentBound(e, e.max, byKey) : null;
  const bounds = boundsText(min, max);
  const resolution = board && e.resolution ? { number: e.resolution.number, adoptedOn: e.resolution.adoptedOn } : null;
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
    tableColumns: e.kind === "table" && board ? (BOARD_TABLES[e.key]?.columns ?? null) : null,
    value: e.value,
    source: (board ? "board" : "statute") as RuleSourceEnum, // the enum's values are the stored words
    resolution,
    min,
    max,
    boundsText: bounds,
    sourceText: board
      ? ["Set by the Town Board", resolution && `resolution ${resolution.number} of ${formatDate(resolution.adoptedOn)}`, bounds].filter(Boolean).join(", ")
      : `Set by the law, ${e.section}`,
  };
}

const byKeyCache = new WeakMap<readonly RuleEntry[], Map<string, RuleEntry>>();
function byKeyOf(entries: readonly RuleEntry[]): Map<string, RuleEntry> {
  let m = byKeyCache.get(entries);
  if (!m) byKeyCache.set(entries, (m = new Map(entries.map((e) => [e.key, e]))));
  return m;
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
    entries: v.entries.map((e, _i, all) => presentEntry(e, byKeyOf(all))),
  };
}

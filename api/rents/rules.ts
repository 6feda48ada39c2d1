import type { Rulebook } from "../districts/districts.service.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";

/**
 * The law of the sewer-rent register as pure functions over a district's rulebook: how an account
 * is assessed (SUL 1203's EDU table; Huron VI-2's users), which Board figures the bills still lack,
 * and the words for classes, occupancy and closings. No figure is written here.
 */

/** SUL 1206, 602; Huron VI-2: the classes of users ("residential, commercial, institutional, industrial"). */
export const ACCOUNT_CLASSES = ["RESIDENTIAL", "COMMERCIAL", "INSTITUTIONAL", "INDUSTRIAL"] as const;
export type AccountClass = (typeof ACCOUNT_CLASSES)[number];
export const CLASS_LABELS: Record<AccountClass, string> = {
  RESIDENTIAL: "Residential",
  COMMERCIAL: "Commercial",
  INSTITUTIONAL: "Institutional",
  INDUSTRIAL: "Industrial",
};

/** Why an account closed: the property sold, the occupant moved out, or the use was permanently discontinued (Huron VI-5). */
export const CLOSE_REASONS = ["SALE", "MOVE_OUT", "DISCONTINUED"] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];
export const CLOSE_REASON_LABELS: Record<CloseReason, string> = {
  SALE: "Property sold",
  MOVE_OUT: "Moved out",
  DISCONTINUED: "Permanently discontinued",
};

/** Huron VI-5: the minimum charge still applies to an unoccupied or seasonal residence. */
export const OCCUPANCIES = ["OCCUPIED", "UNOCCUPIED", "SEASONAL"] as const;
export type Occupancy = (typeof OCCUPANCIES)[number];
export const OCCUPANCY_LABELS: Record<Occupancy, string> = {
  OCCUPIED: "Occupied",
  UNOCCUPIED: "Unoccupied (not permanently discontinued)",
  SEASONAL: "Seasonal",
};

export type Basis = "EDU" | "USER";

/** How the district's law assesses an account: EDUs from the 1203 table (SUL), or each user (Huron VI-2). */
export function assessmentBasis(rb: Rulebook): { basis: Basis; section: string; note: string | null } {
  const edu = rb.entry("billing.eduAssessment");
  if (edu.value === true) return { basis: "EDU", section: edu.section, note: edu.note ?? null };
  const user = rb.entry("billing.minimumPerUserBehindMeter");
  return { basis: "USER", section: user.section, note: user.note ?? edu.note ?? null };
}

/** Whether the district's law lets the service area be segmented (SUL 1204); Huron's does not. */
export function segments(rb: Rulebook): { enabled: boolean; section: string } {
  const e = rb.entry("billing.segmentsEnabled");
  return { enabled: e.value === true, section: e.section };
}

/** The billing period of a class, in months (SUL 1206: monthly for industrial users, quarterly for the others; Huron VI-3: the Board's). */
export function periodMonths(rb: Rulebook, cls: AccountClass): { months: number; section: string } {
  const e = rb.require(cls === "INDUSTRIAL" ? "billing.periodMonthsIndustrial" : "billing.periodMonthsOther");
  return { months: e.value, section: e.section };
}

// ---------------------------------------------------------------------------------------------
// EDUs (SUL 1203)

/** EDUs are held as whole thousandths: every figure of the 1203 table is a multiple of 0.001 (docs/decisions/edu-thousandths.md). */
export const THOUSANDTH = 1000;

export type EduRow = { key: string; label: string; section: string; unit: string; countOf: string; perUnit: number; perMillionths: number };

/** The rows of the district's EDU table, in the rulebook's order: every billing.edu.* figure the district has (none in Huron). */
export function eduTable(rb: Rulebook): EduRow[] {
  if (assessmentBasis(rb).basis !== "EDU") return [];
  return rb.entries
    .filter((e) => e.key.startsWith("billing.edu.") && e.kind === "number" && typeof e.value === "number")
    .map((e) => {
      const unit = e.unit ?? "EDU";
      return {
        key: e.key,
        label: e.label.replace(/^EDUs: /, ""),
        section: e.section,
        unit,
        countOf: unit.replace(/^EDUs? per /, "") || "unit",
        perUnit: e.value as number,
        perMillionths: Math.round((e.value as number) * 1_000_000),
      };
    });
}

/** The uses assessed "as determined by water usage" (SUL 1203), or null where the district has none. */
export function waterUsageRow(rb: Rulebook): { key: RulebookKey; label: string; section: string; uses: string } | null {
  if (assessmentBasis(rb).basis !== "EDU") return null;
  const e = rb.entry("billing.edu.byWaterUsage");
  return typeof e.value === "string" && e.value ? { key: "billing.edu.byWaterUsage", label: e.label, section: e.section, uses: e.value } : null;
}

/** A row's EDUs: count × the table's figure, to the thousandth (half up, for a Board figure finer than the table's). */
export function rowThousandths(perMillionths: number, count: number): number {
  return Math.round((perMillionths * count) / 1000);
}

/** "1.75" from 1750; "0.002" from 2; "12" from 12000. */
export function formatEdus(thousandths: number): string {
  const whole = Math.floor(thousandths / THOUSANDTH);
  const frac = String(thousandths % THOUSANDTH).padStart(3, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : String(whole);
}

/** "1.25" → 1250; null when not a non-negative number with at most three decimals. */
export function parseEdus(text: string): number | null {
  const m = /^(\d{1,6})(?:\.(\d{1,3}))?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * THOUSANDTH + Number((m[2] ?? "").padEnd(3, "0"));
}

export const MAX_COUNT = 10_000_000; // a count beyond any building (square feet of the largest mall)

export type AssessedRow = { key: string; label: string; section: string; unit: string; perUnit: number; count: number; eduThousandths: number };

/**
 * The Clerk's worksheet under SUL 1203: a count for each row that applies, and EDUs determined
 * from water usage for the uses the table assesses that way (with what they rest on). Returns the
 * rows entered, the total, and field errors by `count.<key>`, `waterUsageEdus`, `waterUsageBasis`.
 */
export function assessEdus(
  rb: Rulebook,
  input: { counts: { key: string; count: number }[]; waterUsageEdus?: string | null; waterUsageBasis?: string | null },
): { rows: AssessedRow[]; totalThousandths: number; waterUsageThousandths: number | null; fields: Record<string, string> } {
  const table = new Map(eduTable(rb).map((r) => [r.key, r]));
  const fields: Record<string, string> = {};
  const rows: AssessedRow[] = [];
  const seen = new Set<string>();
  for (const c of input.counts) {
    const row = table.get(c.key);
    const f = `count.${c.key}`;
    if (!row) {
      fields[f] = "This row is not in the district's EDU table.";
      continue;
    }
    if (seen.has(c.key)) {
      fields[f] = "Enter each row once.";
      continue;
    }
    seen.add(c.key);
    if (!Number.isInteger(c.count) || c.count < 0 || c.count > MAX_COUNT) {
      fields[f] = `Enter a whole number of ${row.countOf}s, from 0 to ${MAX_COUNT.toLocaleString("en-US")}.`;
      continue;
    }
    if (c.count === 0) continue;
    rows.push({ key: row.key, label: row.label, section: row.section, unit: row.unit, perUnit: row.perUnit, count: c.count, eduThousandths: rowThousandths(row.perMillionths, c.count) });
  }
  let water: number | null = null;
  const w = waterUsageRow(rb);
  const wText = (input.waterUsageEdus ?? "").trim();
  const basis = (input.waterUsageBasis ?? "").trim();
  if (wText) {
    if (!w) fields.waterUsageEdus = "This district assesses no use by water usage.";
    else if ((water = parseEdus(wText)) === null) fields.waterUsageEdus = "Enter EDUs like 2.5 (at most three decimals).";
    else if (!basis) fields.waterUsageBasis = `Say what the EDUs rest on (the water usage and how it was counted, ${w.section}).`;
    else if (basis.length > 1000) fields.waterUsageBasis = "Use at most 1,000 characters.";
  } else if (basis) fields.waterUsageEdus = "Enter the EDUs determined from water usage, or leave the basis empty.";
  const rowsOrder = [...table.keys()];
  rows.sort((a, b) => rowsOrder.indexOf(a.key) - rowsOrder.indexOf(b.key));
  const total = rows.reduce((s, r) => s + r.eduThousandths, 0) + (water ?? 0);
  if (!Object.keys(fields).length && total === 0) fields.counts = "Enter a count for at least one row, or the EDUs determined from water usage.";
  return { rows, totalThousandths: total, waterUsageThousandths: water, fields };
}

// ---------------------------------------------------------------------------------------------
// What the Board has not set

export type BoardTask = { key: RulebookKey; label: string; section: string; text: string };

/**
 * The Board figures the district's bills rest on that no resolution has set yet: under SUL 1203
 * the fixed costs (shared over the EDUs) and the rate per 1,000 gallons (1205's metered water);
 * under Huron VII the minimum charge its rent schedule must include. The register works without
 * them; the Clerk is told, so the ADMIN enters them with the Board's resolution.
 */
export function boardTasks(rb: Rulebook): BoardTask[] {
  const keys: RulebookKey[] = [];
  if (rb.enabled("billing.eduAssessment")) keys.push("billing.fixedCostsPerYear", "billing.volumeChargePer1000Gallons");
  if (rb.enabled("billing.minimumPerUserBehindMeter")) keys.push("billing.minimumCharge");
  return keys
    .map((k) => rb.entry(k))
    .filter((e) => e.source === "board" && e.value === null)
    .map((e) => ({
      key: e.key as RulebookKey,
      label: e.label,
      section: e.section,
      text: `The Town Board has not set the ${e.label.charAt(0).toLowerCase()}${e.label.slice(1)} (${e.section}). Bills cannot be run until the ADMIN enters it in the rulebook with the Board's resolution.`,
    }));
}

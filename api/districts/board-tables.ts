import type { LimitRow } from "./rulebook-schema.js";

/**
 * The tables the Town Board (or the district) enters through the ADMIN's rulebook editor, with the
 * columns each row takes. A board table without a spec here is not editable in the portal; a table
 * the law states (statute) never is. The Uni-Bell tables (SUL 505 F, G) are cited by the law
 * without being stated: each row is one nominal pipe diameter in inches (`parameter`), the table's
 * minimum time in seconds (`minimum`) and its time for a longer length in seconds per foot
 * (`average`), as api/extensions/rules.ts `uniBellRows` reads them.
 */
export type TableColumn = { field: "parameter" | "minimum" | "average"; label: string };
export type BoardTableSpec = { rowUnit: string; columns: TableColumn[]; maxRows: number };

const UNI_BELL: BoardTableSpec = {
  rowUnit: "seconds",
  maxRows: 40,
  columns: [
    { field: "parameter", label: "Nominal pipe diameter (inches)" },
    { field: "minimum", label: "Minimum time (seconds)" },
    { field: "average", label: "Time for a longer length (seconds per foot)" },
  ],
};

export const BOARD_TABLES: Readonly<Record<string, BoardTableSpec>> = {
  "extension.airTestTable": UNI_BELL,
  "extension.sewerVacuumTestTable": UNI_BELL,
};

const NUMBER = /^(\d+\.?\d*|\.\d+)$/;
const readNumber = (v: unknown): number | null => {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string" || !NUMBER.test(v.trim())) return null;
  return Number(v.trim());
};

/**
 * Reads the rows the ADMIN gives for a board table: each a positive diameter, a positive minimum
 * time and positive seconds per foot, no diameter twice, at most the spec's rows. Answers the rows
 * as stored (ordered by diameter, the unit filled in) or the first problem, naming the row.
 */
export function readBoardTable(spec: BoardTableSpec, value: unknown): { rows: LimitRow[] } | { problem: string } {
  if (!Array.isArray(value)) return { problem: "Give the table as a list of rows." };
  if (value.length > spec.maxRows) return { problem: `A table has at most ${spec.maxRows} rows.` };
  const rows: LimitRow[] = [];
  const seen = new Set<number>();
  for (const [i, raw] of value.entries()) {
    const r = (raw ?? {}) as Record<string, unknown>;
    const n = `Row ${i + 1}`;
    const diameter = readNumber(r.parameter);
    if (diameter === null || diameter <= 0 || diameter > 120) return { problem: `${n}: give the nominal pipe diameter in inches, a number greater than 0 (for example 8).` };
    if (seen.has(diameter)) return { problem: `${n}: the ${diameter}-inch diameter is in the table twice; give each diameter once.` };
    seen.add(diameter);
    const minimum = readNumber(r.minimum);
    if (minimum === null || minimum <= 0 || minimum > 100_000) return { problem: `${n}: give the minimum time in seconds, a number greater than 0 (for example 227).` };
    const perFoot = readNumber(r.average);
    if (perFoot === null || perFoot <= 0 || perFoot > 1_000) return { problem: `${n}: give the time for a longer length in seconds per foot, a number greater than 0 (for example 0.76).` };
    rows.push({ parameter: String(diameter), unit: spec.rowUnit, average: perFoot, maximum: null, minimum });
  }
  rows.sort((a, b) => Number(a.parameter) - Number(b.parameter));
  return { rows };
}

/** Shapes and pieces shared by the public rules page and the staff rulebook editor. */

export type LimitRow = {
  parameter: string;
  unit: string;
  average: number | null;
  maximum: number | null;
  minimum: number | null;
  note: string | null;
};
export type RuleEntry = {
  key: string;
  topic: string;
  label: string;
  kind: string;
  section: string;
  unit: string | null;
  note: string | null;
  display: string;
  applies: boolean;
  amountCents?: number | null;
  number?: number | null;
  rows: LimitRow[] | null;
  /** A table the district enters (the Uni-Bell tables): its own columns, in order; null for the law's limits tables. */
  tableColumns?: { field: "parameter" | "minimum" | "average"; label: string }[] | null;
  /** STATUTE: set by the law; BOARD: set by Town Board resolution within the law's bounds */
  source: "STATUTE" | "BOARD";
  /** "Set by the law, Sewer Use Law 801" or "Set by the Town Board, resolution 2026-14 of November 3, 2026, within the law's cap of $100.00 (Sewer Use Law 801)" */
  sourceText: string;
  boundsText: string | null;
  resolution: { number: string; adoptedOn: string } | null;
  min: RuleBound | null;
  max: RuleBound | null;
};
export type RuleBound = { value: number | null; display: string | null; section: string; key: string | null };
export type Rulebook = { version: number; label: string; effectiveDate: string; entries: RuleEntry[] };
export type RulebookVersion = { version: number; label: string; effectiveDate: string; source: string; reason: string | null; createdAt?: string };

/** GraphQL selection for a rulebook's entries. */
export const ENTRY_FIELDS = `key topic label kind section unit note display applies amountCents number rows { parameter unit average maximum minimum note }
  source sourceText boundsText resolution { number adoptedOn } min { value display section key } max { value display section key }`;

/** Entries grouped by topic, topics in the order they first appear. */
export function byTopic<T extends { topic: string }>(entries: T[]): { topic: string; entries: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const e of entries) {
    const g = groups.get(e.topic);
    if (g) g.push(e);
    else groups.set(e.topic, [e]);
  }
  return [...groups].map(([topic, entries]) => ({ topic, entries }));
}

/** A stable, valid id fragment from a label or key. */
export const slugify = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

// One formatter for every cell: toLocaleString with options builds a new one per call, the rules page's most costly line.
const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 4 });
const num = (n: number | null | undefined) => (n === null || n === undefined ? null : NUMBER.format(n));

/** A rulebook table's scrollable, labelled container, its table and its caption (label and section). */
function TableFrame({ entry, children }: { entry: RuleEntry; children: React.ReactNode }) {
  return (
    <div className="usa-table-container--scrollable" tabIndex={0} role="region" aria-label={entry.label}>
      <table className="usa-table usa-table--striped usa-table--compact">
        <caption>{`${entry.label} (${entry.section})`}</caption>
        {children}
      </table>
    </div>
  );
}

/** A limits table (a rulebook entry of kind "table") as a USWDS table with a caption. */
export function LimitsTable({ entry }: { entry: RuleEntry }) {
  const rows = entry.rows ?? [];
  const hasMin = rows.some((r) => r.minimum !== null);
  const hasAvg = rows.some((r) => r.average !== null);
  const hasMax = rows.some((r) => r.maximum !== null);
  const hasNote = rows.some((r) => r.note);
  const blank = <span className="text-base-dark">Not set</span>;
  const own = entry.tableColumns;
  if (own?.length)
    return (
      <TableFrame entry={entry}>
        <thead>
          <tr>
            {own.map((c) => (
              <th scope="col" key={c.field}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.parameter}>
              {own.map((c, i) => {
                const v = r[c.field];
                return i === 0 ? (
                  <th scope="row" key={c.field}>
                    {String(v)}
                  </th>
                ) : (
                  <td className="tapline-num" key={c.field}>
                    {typeof v === "number" ? num(v) : blank}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </TableFrame>
    );
  return (
    <TableFrame entry={entry}>
      <thead>
        <tr>
          <th scope="col">Substance or measure</th>
          <th scope="col">Unit</th>
          {hasAvg && <th scope="col">Average</th>}
          {hasMax && <th scope="col">Maximum</th>}
          {hasMin && <th scope="col">Minimum</th>}
          {hasNote && <th scope="col">Note</th>}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.parameter}>
            <th scope="row">{r.parameter}</th>
            <td>{r.unit}</td>
            {hasAvg && <td className="tapline-num">{num(r.average) ?? blank}</td>}
            {hasMax && <td className="tapline-num">{num(r.maximum) ?? blank}</td>}
            {hasMin && <td className="tapline-num">{num(r.minimum) ?? blank}</td>}
            {hasNote && <td>{r.note ?? ""}</td>}
          </tr>
        ))}
      </tbody>
    </TableFrame>
  );
}

/** "Label: display (Section)", who sets it (the law, or the Town Board and its resolution), and the note beneath. */
export function RuleLine({ entry }: { entry: RuleEntry }) {
  const display = entry.kind === "table" && !entry.applies ? "Not set by this district's law" : entry.display;
  return (
    <>
      <p className="tapline-rule__line">
        <strong>{`${entry.label}:`}</strong>
        {` ${display} `}
        <span className="tapline-rule__section">{`(${entry.section})`}</span>
      </p>
      <p className="tapline-rule__note">
        <SourceTag entry={entry} />
        {` ${entry.sourceText}.`}
      </p>
      {entry.note && <p className="tapline-rule__note">{entry.note}</p>}
    </>
  );
}

/** A small tag: "Law" or "Town Board". */
export function SourceTag({ entry }: { entry: Pick<RuleEntry, "source"> }) {
  return entry.source === "BOARD" ? (
    <span className="usa-tag bg-accent-cool-darker">Town Board</span>
  ) : (
    <span className="usa-tag bg-base-dark">Law</span>
  );
}

export const SOURCE_LABELS: Record<string, string> = {
  shipped: "From the law",
  admin: "Town Board resolution, entered by the district",
};

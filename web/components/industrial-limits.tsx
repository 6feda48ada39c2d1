/**
 * The permit's limits as the Operator edits them (SUL 903, 904): before issuance on the staff
 * permit page, and in a modification (1004 B). One row a limit; an emptied parameter removes it.
 */

export type LimitRow = { parameter: string; kind: string; unit: string; average: number | null; maximum: number | null; minimum: number | null; section: string };

const KINDS = [
  { value: "CONCENTRATION", label: "Concentration" },
  { value: "MASS", label: "Mass (lb/day)" },
  { value: "PH", label: "pH range" },
  { value: "TEMPERATURE", label: "Temperature" },
];
const UNITS = [
  { value: "mg/L", label: "mg/L" },
  { value: "ug/L", label: "µg/L" },
  { value: "ppm", label: "ppm" },
  { value: "lb/day", label: "lb/day" },
  { value: "s.u.", label: "s.u." },
  { value: "degF", label: "°F" },
  { value: "degC", label: "°C" },
];
const n = (x: number | null) => (x === null ? "" : String(x));

/** The limits table's fields as screen readers hear them (the column and the row), for an error summary. */
export const LIMIT_LABELS: Record<string, string> = {
  limits: "Limits",
  "limits.*": "Limits, row {n}",
  "limits.*.parameter": "Parameter, row {n}",
  "limits.*.kind": "Kind, row {n}",
  "limits.*.unit": "Unit, row {n}",
  "limits.*.average": "Average daily, row {n}",
  "limits.*.maximum": "Maximum, row {n}",
  "limits.*.minimum": "Lowest allowed, row {n}",
  "limits.*.section": "Law, row {n}",
};

/**
 * The rows posted by LimitsEditor, as the API's limit input, with a message for each row whose
 * figure is not a number (keyed as the API keys the list: `limits.N`, rows with no parameter left
 * out). Such a row still goes to the API, with no kind, which the API refuses: the API then checks
 * every other field in the same answer and saves nothing, and the page's message stands for the row.
 */
export function parseLimitRows(form: FormData): { limits: Record<string, unknown>[]; errors: Record<string, string> } {
  const limits: Record<string, unknown>[] = [];
  const errors: Record<string, string> = {};
  for (let i = 0; i < Number(form.get("rows") ?? 0); i++) {
    const g = (c: string) => String(form.get(`limits.${i}.${c}`) ?? "").trim();
    if (!g("parameter")) continue;
    const nums: Record<string, number | null> = {};
    const unread: string[] = [];
    for (const c of ["average", "maximum", "minimum"]) {
      const t = g(c);
      nums[c] = t === "" ? null : /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
      if (t !== "" && nums[c] === null) unread.push(c === "minimum" ? "lowest allowed" : c === "average" ? "average daily" : c);
    }
    if (unread.length) errors[`limits.${limits.length}`] = `${g("parameter")}: enter the ${unread.join(" and the ")} as a number.`;
    limits.push({ parameter: g("parameter"), kind: unread.length ? "" : g("kind"), unit: g("unit"), ...nums, section: g("section") || null });
  }
  return { limits, errors };
}

/** The editable table; `value(name, fallback)` gives back what was posted when the form comes back with errors. */
export function LimitsEditor({ rows, caption, value, errors }: { rows: LimitRow[]; caption: string; value: (name: string, fallback: string) => string; errors: Record<string, string> }) {
  return (
    <>
      <input type="hidden" name="rows" value={rows.length} />
      <table className="usa-table usa-table--borderless usa-table--compact width-full">
        <caption className="usa-sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Parameter</th>
            <th scope="col">Kind</th>
            <th scope="col">Unit</th>
            <th scope="col">Average daily</th>
            <th scope="col">Maximum</th>
            <th scope="col">Lowest</th>
            <th scope="col">Law</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((l, i) => {
            const g = (c: string, d: string) => value(`limits.${i}.${c}`, d);
            return (
              <tr key={i} id={`limits.${i}`}>
                <td>
                  <input className="usa-input" name={`limits.${i}.parameter`} defaultValue={g("parameter", l.parameter)} aria-label={`Parameter, row ${i + 1}`} />
                  {errors[`limits.${i}`] && <span className="usa-error-message">{errors[`limits.${i}`]}</span>}
                </td>
                <td>
                  <CellSelect name={`limits.${i}.kind`} defaultValue={g("kind", l.kind)} label={`Kind, row ${i + 1}`} options={KINDS} />
                </td>
                <td>
                  <CellSelect name={`limits.${i}.unit`} defaultValue={g("unit", l.unit)} label={`Unit, row ${i + 1}`} options={UNITS} />
                </td>
                <td>
                  <input className="usa-input" name={`limits.${i}.average`} defaultValue={g("average", n(l.average))} aria-label={`Average daily, row ${i + 1}`} inputMode="decimal" />
                </td>
                <td>
                  <input className="usa-input" name={`limits.${i}.maximum`} defaultValue={g("maximum", n(l.maximum))} aria-label={`Maximum, row ${i + 1}`} inputMode="decimal" />
                </td>
                <td>
                  <input className="usa-input" name={`limits.${i}.minimum`} defaultValue={g("minimum", n(l.minimum))} aria-label={`Lowest allowed, row ${i + 1}`} inputMode="decimal" />
                </td>
                <td>
                  <input className="usa-input" name={`limits.${i}.section`} defaultValue={g("section", l.section)} aria-label={`Law, row ${i + 1}`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** A select in a table cell, named for screen readers by its column and row. */
function CellSelect({ name, defaultValue, label, options }: { name: string; defaultValue: string; label: string; options: { value: string; label: string }[] }) {
  return (
    <select className="usa-select" name={name} defaultValue={defaultValue} aria-label={label}>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

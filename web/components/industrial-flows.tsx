import { Form } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { formatCalendarDate } from "~/components/format";

/**
 * Daily flows of a periodic compliance report (SUL 1005(3)(a)): the days of the period above the
 * average daily flow given in the application are recorded in the report. Entered as text, one
 * day a line ("2026-11-03, 14500 gpd"), so a meter's export can be pasted; no JavaScript needed.
 */

export const DAILY_FLOW_FIELDS = `kind dailyFlows { day flowGpd enteredValue enteredUnit averageGpd aboveAverage finding }`;
export type DailyFlow = { day: string; flowGpd: number; enteredValue: number; enteredUnit: string; averageGpd: number | null; aboveAverage: boolean; finding: string };
export type DailyFlowInfo = { kind: string; dailyFlows: DailyFlow[] };
export type FlowInput = { day: string; flow: number | null; unit: string };

/** Lines "day, flow[, unit]" (comma, semicolon, tab or spaces; unit gpd by default) into the API's input, with the lines that cannot be read. */
export function parseFlowLines(text: string): { flows: FlowInput[]; lines: number[]; errors: Record<string, string> } {
  const flows: FlowInput[] = [];
  const lines: number[] = [];
  const errors: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const m = /^(\S+?)[\s,;]+([-+]?[\d,]*\.?\d+)\s*(gpd|mgd)?$/i.exec(line);
    if (!m) {
      errors[`line ${i + 1}`] = `Line ${i + 1}: write the day and the flow, like "2026-11-03, 14500 gpd".`;
      return;
    }
    flows.push({ day: m[1].replace(/,$/, ""), flow: Number(m[2].replace(/,/g, "")), unit: m[3] ? (m[3].toLowerCase() === "mgd" ? "MGD" : "gpd") : "gpd" });
    lines.push(i + 1);
  });
  return { flows, lines, errors };
}

const gpd = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });
const asText = (flows: DailyFlow[]) => flows.map((f) => `${f.day}, ${f.enteredValue} ${f.enteredUnit}`).join("\n");

export function DailyFlowsSection({ report, editable, busy, error, value }: { report: DailyFlowInfo; editable: boolean; busy: boolean; error?: string; value?: string }) {
  if (report.kind !== "PERIODIC") return null;
  const above = report.dailyFlows.filter((f) => f.aboveAverage);
  const average = report.dailyFlows.find((f) => f.averageGpd !== null)?.averageGpd ?? null;
  return (
    <section aria-labelledby="flows-heading">
      <h2 id="flows-heading">Daily flows (Sewer Use Law 1005(3)(a))</h2>
      <p>
        The report records every daily flow of the period above the average daily flow given in the application
        {average !== null ? ` (${gpd(average)} gallons a day)` : ""}.{" "}
        {report.dailyFlows.length
          ? `${report.dailyFlows.length} ${report.dailyFlows.length === 1 ? "day" : "days"} entered; ${above.length} above the average.`
          : "No daily flows entered yet."}
      </p>
      {report.dailyFlows.length > 0 && (
        <table className="usa-table usa-table--borderless usa-table--stacked width-full">
          <caption className="usa-sr-only">Daily flows</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Flow (gpd)</th>
              <th scope="col">Against the application's average</th>
            </tr>
          </thead>
          <tbody>
            {report.dailyFlows.map((f) => (
              <tr key={f.day}>
                <th scope="row" data-label="Day">
                  {formatCalendarDate(f.day)}
                </th>
                <td data-label="Flow (gpd)">
                  {gpd(f.flowGpd)}
                  {f.enteredUnit === "MGD" ? ` (${f.enteredValue} MGD)` : ""}
                </td>
                <td data-label="Against the application's average">
                  {f.aboveAverage ? <span className="usa-tag bg-secondary-dark">Above average</span> : null} {f.finding}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editable && (
        <Form method="post" className="usa-form usa-form--large" noValidate>
          <AuthenticityTokenInput />
          <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
            <label className="usa-label" htmlFor="flows">
              The period's daily flows, one day a line
            </label>
            <span className="usa-hint" id="flows-hint">
              Day and flow in gallons a day, or add MGD: <kbd>2026-11-03, 14500</kbd> or <kbd>2026-11-04, 0.0152 MGD</kbd>. Saving replaces the list.
            </span>
            {error && (
              <span className="usa-error-message" id="flows-error" role="alert">
                {error}
              </span>
            )}
            <textarea className="usa-textarea" id="flows" name="flows" rows={8} aria-describedby={`flows-hint${error ? " flows-error" : ""}`} defaultValue={value ?? asText(report.dailyFlows)} />
          </div>
          <button className="usa-button usa-button--outline" type="submit" name="intent" value="flows" disabled={busy}>
            Save daily flows
          </button>
        </Form>
      )}
    </section>
  );
}

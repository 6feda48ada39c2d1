import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { DateTime, formatCalendarDate, daysLeftText } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { DAILY_FLOW_FIELDS, DailyFlowsSection, parseFlowLines, type DailyFlowInfo } from "~/components/industrial-flows";
import { REPORT_KIND_FIELDS, ReportKindPanel, type ReportKindInfo } from "~/components/industrial-events";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, statusOf } from "~/graphql.server";
import { formValues } from "~/util";

export const meta: MetaFunction = () => [{ title: "Compliance report | Tapline" }];

/**
 * A periodic compliance report (SUL 1005(3)): lab results entered one by one or as CSV, each
 * judged against the permit's limits when saved, with the duties an exceedance opens (1005(4));
 * the Authorized Representative reviews the copy and the certification and signs with the
 * password (CROMERR); a signed report shows its copy of record, which anyone can verify.
 */

type Duty = { id: string; kind: string; text: string; section: string; dueAt: string; dueOn: string };
type Result = {
  id: string;
  parameter: string;
  sampleType: string;
  sampledAt: string;
  value: number | null;
  unitLabel: string;
  belowDetection: boolean;
  detectionLimit: number | null;
  flowMgd: number | null;
  lab: string;
  method: string;
  status: string;
  message: string;
  conversion: string | null;
  duties: Duty[];
};
type Report = DailyFlowInfo & ReportKindInfo & {
  id: string;
  status: string;
  statusLabel: string;
  periodStart: string;
  periodEnd: string;
  dueOn: string;
  daysLeft: number | null;
  amendsId: string | null;
  amendedById: string | null;
  contentHash: string | null;
  certification: string;
  signedAt: string | null;
  results: Result[];
  duties: Duty[];
  copyOfRecord: { id: string; sha256: string; signerName: string; signerEmail: string; receivedAt: string } | null;
  permit: { id: string; permitNumber: string | null; facilityName: string | null; organizationName: string; viewerRole: string | null; timeZone: string; limits: { parameter: string }[] };
};
type Verification = { valid: boolean; storedSha256: string; computedSha256: string; matchesReport: boolean; problems: string[] };
type Data = { report: Report; verification: Verification | null };
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string>; at: number };

const REPORT_FIELDS = `id status statusLabel periodStart periodEnd dueOn daysLeft amendsId amendedById contentHash certification signedAt
  results { id parameter sampleType sampledAt value unitLabel belowDetection detectionLimit flowMgd lab method status message conversion duties { id kind text section dueAt dueOn } }
  duties { id kind text section dueAt dueOn }
  copyOfRecord { id sha256 signerName signerEmail receivedAt }
  permit { id permitNumber facilityName organizationName viewerRole timeZone limits { parameter } }
  ${DAILY_FLOW_FIELDS}
  ${REPORT_KIND_FIELDS}`;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const verify = new URL(request.url).searchParams.get("verify") === "1";
  const r = await gql<{ industrialReport: Report; verifyCopyOfRecord?: Verification }>(
    context,
    request,
    `query Report($id: ID!) { industrialReport(id: $id) { ${REPORT_FIELDS} } }`,
    { id: params.id },
  );
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  let verification: Verification | null = null;
  if (verify && r.data.industrialReport.status === "SIGNED") {
    const v = await gql<{ verifyCopyOfRecord: Verification }>(context, request, `query Verify($id: ID!) { verifyCopyOfRecord(reportId: $id) { valid storedSha256 computedSha256 matchesReport problems } }`, {
      id: params.id,
    });
    if (v.ok) verification = v.data.verifyCopyOfRecord;
  }
  return { report: r.data.industrialReport, verification } satisfies Data;
}

const numberOrNull = (s: string) => {
  const t = s.replace(/,/g, "").trim();
  if (!t) return null;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
};

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values = formValues(form, "password");
  const here = `/industrial/reports/${params.id}`;
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) =>
    Response.json({ intent, error, fields, values, at: Date.now() } satisfies ActionData, { status: 400, headers });
  let r;
  let next = here;
  if (intent === "add") {
    const value = numberOrNull(values.value ?? "");
    const detectionLimit = numberOrNull(values.detectionLimit ?? "");
    const flowMgd = numberOrNull(values.flowMgd ?? "");
    const below = values.belowDetection === "yes";
    // A number the page cannot read is told here, and still sent as one the API refuses (no value,
    // a flow of -1 MGD), so the API checks every other field in the same answer and saves nothing.
    const local: Record<string, string> = {};
    if (!below && Number.isNaN(value)) local.value = "Enter the value as a number, e.g. 1.30.";
    if (below && Number.isNaN(detectionLimit)) local.detectionLimit = "Enter the detection limit as a number.";
    if (Number.isNaN(flowMgd)) local.flowMgd = "Enter the flow in MGD as a number.";
    const readable = (n: number | null) => (n === null || Number.isNaN(n) ? null : n);
    r = await gql<{ addIndustrialResults: { id: string }[] }>(context, request, `mutation Add($r: ID!, $x: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $x) { id } }`, {
      r: params.id,
      x: [
        {
          parameter: values.parameter ?? "",
          sampleType: values.sampleType ?? "",
          sampledAt: values.sampledAt ?? "",
          value: below ? null : readable(value),
          unit: values.unit ?? "",
          belowDetection: below,
          detectionLimit: below ? readable(detectionLimit) : null,
          flowMgd: Number.isNaN(flowMgd) ? -1 : flowMgd,
          lab: values.lab ?? "",
          method: values.method ?? "",
        },
      ],
    });
    if (Object.keys(local).length) {
      const fields = { ...(r.ok ? {} : r.error.fields), ...local };
      return fail("Please correct the highlighted fields.", fields, cookieHeaders(r));
    }
    if (r.ok) next = `${here}?saved=${r.data.addIndustrialResults.map((x) => x.id).join(",")}#saved`;
  } else if (intent === "csv") {
    const file = form.get("file");
    const text = file && typeof file !== "string" && file.size > 0 ? await file.text() : String(form.get("csv") ?? "");
    r = await gql<{ uploadIndustrialResultsCsv: { id: string }[] }>(context, request, `mutation Csv($r: ID!, $csv: String!) { uploadIndustrialResultsCsv(reportId: $r, csv: $csv) { id } }`, {
      r: params.id,
      csv: text,
    });
    if (r.ok) next = `${here}?saved=${r.data.uploadIndustrialResultsCsv.map((x) => x.id).join(",")}#saved`;
  } else if (intent === "delete") {
    r = await gql(context, request, `mutation Del($id: ID!) { deleteIndustrialResult(id: $id) { id } }`, { id: values.resultId ?? "" });
    if (r.ok) next = `${here}?done=${encodeURIComponent("The result is deleted.")}`;
  } else if (intent === "sign") {
    r = await gql(context, request, `mutation Sign($i: SignIndustrialReportInput!) { signIndustrialReport(input: $i) { id } }`, {
      i: { reportId: params.id, password: String(form.get("password") ?? ""), certify: values.certify === "yes", reviewedHash: values.reviewedHash ?? "" },
    });
    if (r.ok) next = `${here}?done=${encodeURIComponent("The report is signed and received. An acknowledgment is in your email.")}`;
  } else if (intent === "flows") {
    const parsed = parseFlowLines(values.flows ?? "");
    if (Object.keys(parsed.errors).length) return fail("Some lines could not be read; nothing was saved.", { flows: Object.values(parsed.errors).join(" ") });
    r = await gql(context, request, `mutation Flows($r: ID!, $f: [IndustrialDailyFlowInput!]!) { setIndustrialDailyFlows(reportId: $r, flows: $f) { day } }`, { r: params.id, f: parsed.flows });
    if (!r.ok && r.error.code === "BAD_USER_INPUT") {
      // The API names the list's items (flows.3): the page names the lines of the text.
      const lines = Object.entries(r.error.fields).map(([k, m]) => (/^flows\.\d+$/.test(k) ? `Line ${parsed.lines[Number(k.slice(6))]}: ${m}` : m));
      return fail(r.error.message, { flows: lines.join(" ") }, cookieHeaders(r));
    }
    if (r.ok) next = `${here}?done=${encodeURIComponent("The daily flows are saved.")}#flows-heading`;
  } else if (intent === "statement") {
    if (values.standardsMet !== "yes" && values.standardsMet !== "no") return fail("Please correct the highlighted fields.", { standardsMet: "Say whether the standards are met consistently." });
    r = await gql(context, request, `mutation Statement($i: IndustrialNinetyDayStatementInput!) { saveNinetyDayStatement(input: $i) { reportId } }`, {
      i: { reportId: params.id, standardsMet: values.standardsMet === "yes", measures: values.measures ?? "", professionalName: values.professionalName ?? "", professionalCredential: values.professionalCredential ?? "" },
    });
    if (r.ok) next = `${here}?done=${encodeURIComponent("The statement is saved.")}`;
  } else if (intent === "amend") {
    r = await gql<{ amendIndustrialReport: { id: string } }>(context, request, `mutation Amend($id: ID!) { amendIndustrialReport(id: $id) { id } }`, { id: params.id });
    if (r.ok) next = `/industrial/reports/${r.data.amendIndustrialReport.id}?done=${encodeURIComponent("An amended report is started from the signed one's results. Correct it and sign it.")}`;
  } else return fail("Unknown action.", {});
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    // A CSV's errors come line by line ("line 3": "Line 3: ..."); the summary names the line once.
    const fields: Record<string, string> = {};
    for (const [k, m] of Object.entries(r.error.fields)) fields[k] = /^line \d+$/.test(k) ? m.replace(/^Line \d+: /, "") : m;
    return fail(r.error.message, fields, cookieHeaders(r));
  }
  return redirect(next, { headers: cookieHeaders(r) });
}

const fmt = (x: number | null) => (x === null ? "" : x.toLocaleString("en-US", { maximumFractionDigits: 6 }));
const UNITS = [
  { value: "mg/L", label: "mg/L" },
  { value: "ug/L", label: "µg/L" },
  { value: "ppm", label: "ppm" },
  { value: "lb/day", label: "lb/day" },
  { value: "s.u.", label: "s.u. (pH)" },
  { value: "degF", label: "°F" },
  { value: "degC", label: "°C" },
];
/** Each field's visible label: the form shows these, and the error summary names fields by them. */
export const LABELS: Record<string, string> = {
  parameter: "Parameter",
  sampleType: "Sample type",
  sampledAt: "Sampled at (the district's local time)",
  value: "Value",
  unit: "Unit",
  belowDetection: "Below the detection limit",
  detectionLimit: "Detection limit (for a result below it)",
  flowMgd: "The day's flow, MGD (for mass limits)",
  lab: "Laboratory (NYSDOH-certified)",
  method: "Method (Standard Methods)",
  results: "Results",
  csv: "CSV file",
  flows: "The period's daily flows, one day a line",
  standardsMet: "Are the pretreatment standards met on a consistent basis?",
  measures: "If not: the additional operation and maintenance or pretreatment needed",
  professionalName: "Qualified professional who reviewed it",
  professionalCredential: "Professional's credential",
  certify: "I have reviewed this report and make the certification above",
  password: "Your password, to sign",
  reviewedHash: "The report as you reviewed it",
  reportId: "Report",
  // The API's keys for a list of results (one result from this form is reported by its own keys).
  "results.*.parameter": "Result {n}: Parameter",
  "results.*.sampleType": "Result {n}: Sample type",
  "results.*.sampledAt": "Result {n}: Sampled at",
  "results.*.value": "Result {n}: Value",
  "results.*.unit": "Result {n}: Unit",
  "results.*.belowDetection": "Result {n}: Below the detection limit",
  "results.*.detectionLimit": "Result {n}: Detection limit",
  "results.*.flowMgd": "Result {n}: Flow, MGD",
  "results.*.lab": "Result {n}: Laboratory",
  "results.*.method": "Result {n}: Method",
  // The page tells a flow's problems by the line of the text box (flows.N never reaches the summary).
  "flows.*.day": "The period's daily flows, one day a line",
  "flows.*.flow": "The period's daily flows, one day a line",
  "flows.*.unit": "The period's daily flows, one day a line",
};

/** Each task an exceedance opens, linked to where it is done (the permit's events page). */
function DutyItems({ duties, timeZone, permitId, member }: { duties: Duty[]; timeZone: string; permitId: string; member: boolean }) {
  return (
    <ul className="usa-list">
      {duties.map((d) => (
        <li key={d.id}>
          {member ? (
            <Link className="usa-link" to={`/industrial/${permitId}/events#${d.kind === "NOTIFY" ? "notify" : "resample"}`}>
              {d.text}
            </Link>
          ) : (
            d.text
          )}{" "}
          ({d.section}): due {d.kind === "NOTIFY" ? <DateTime iso={d.dueAt} timeZone={timeZone} /> : `by ${formatCalendarDate(d.dueOn)}`}
        </li>
      ))}
    </ul>
  );
}

export default function ReportPage() {
  const { report: r, verification } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const p = r.permit;
  const member = p.viewerRole !== null;
  const ar = p.viewerRole === "AUTHORIZED_REPRESENTATIVE";
  const editable = member && r.status !== "SIGNED";
  const saved = new Set((params.get("saved") ?? "").split(",").filter(Boolean));
  const justSaved = r.results.filter((x) => saved.has(x.id));
  const exceeded = justSaved.filter((x) => x.status === "EXCEEDS");
  const e = a?.fields ?? {};
  const v = (k: string) => (a?.intent === "add" ? (a.values[k] ?? "") : "");
  const parameters = [...new Set(p.limits.map((l) => l.parameter))];
  const labels: Record<string, string> = { ...LABELS };
  for (const k of Object.keys(e)) if (/^line \d+$/.test(k)) labels[k] = `Line ${k.slice(5)}`;
  return (
    <>
      <p>
        <Link className="usa-link" to={`/industrial/${p.id}`}>
          Permit {p.permitNumber}
        </Link>
      </p>
      <h1>
        {r.kind === "PERIODIC" ? "Compliance report" : r.kindLabel.replace(/ \(.*$/, "")}, {formatCalendarDate(r.periodStart)} to {formatCalendarDate(r.periodEnd)}
      </h1>
      <p className="usa-intro">
        {p.facilityName} · {p.organizationName} · <span className="usa-tag">{r.statusLabel}</span>
        {r.amendsId ? " · amends an earlier signed report" : ""}
      </p>
      <p>
        Due {formatCalendarDate(r.dueOn)} ({/\((Sewer Use Law [^)]*\)?)\)$/.exec(r.kindLabel)?.[1] ?? "Sewer Use Law 1005(3)"})
        {r.daysLeft !== null ? `: ${daysLeftText(r.daysLeft)}.` : "."}
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      {justSaved.length > 0 && !a && (
        <div id="saved" className={`usa-alert ${exceeded.length ? "usa-alert--error" : "usa-alert--success"}`} role="alert">
          <div className="usa-alert__body">
            <h2 className="usa-alert__heading">{exceeded.length ? "Limit exceeded" : `${justSaved.length} ${justSaved.length === 1 ? "result" : "results"} saved, within the limits`}</h2>
            <ul className="usa-list">
              {justSaved.map((x) => (
                <li key={x.id}>
                  {x.parameter} ({x.sampleType.toLowerCase()}): {x.message}
                  {x.conversion ? ` Converted: ${x.conversion}.` : ""}
                </li>
              ))}
            </ul>
            {exceeded.length > 0 && (
              <>
                <p className="usa-alert__text">What the law requires now:</p>
                <DutyItems duties={exceeded.flatMap((x) => x.duties)} timeZone={p.timeZone} permitId={p.id} member={member} />
              </>
            )}
          </div>
        </div>
      )}
      {/* A signing error is told beside the sign box, where the person is; the others at the top. */}
      {a?.intent !== "sign" && <ErrorSummary message={a?.error} fields={e} labels={labels} />}
      {r.amendedById && (
        <Notice type="warning">
          This report was corrected by an{" "}
          <Link className="usa-link" to={`/industrial/reports/${r.amendedById}`}>
            amended report
          </Link>
          .
        </Notice>
      )}

      <section aria-labelledby="results-heading">
        <h2 id="results-heading">Lab results</h2>
        {r.results.length === 0 ? (
          <p>No results entered yet.</p>
        ) : (
          <table className="usa-table usa-table--borderless usa-table--stacked width-full">
            <caption className="usa-sr-only">Results with their evaluation against the permit's limits</caption>
            <thead>
              <tr>
                <th scope="col">Parameter</th>
                <th scope="col">Sample</th>
                <th scope="col">Result</th>
                <th scope="col">Evaluation</th>
                <th scope="col">Lab and method</th>
                {editable && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {r.results.map((x) => (
                <tr key={x.id}>
                  <th scope="row" data-label="Parameter">
                    {x.parameter}
                  </th>
                  <td data-label="Sample">
                    {x.sampleType === "COMPOSITE" ? "Composite" : "Grab"}, <DateTime iso={x.sampledAt} timeZone={p.timeZone} />
                  </td>
                  <td data-label="Result">
                    {x.belowDetection ? `Below detection (< ${fmt(x.detectionLimit)})` : fmt(x.value)} {x.unitLabel}
                    {x.flowMgd ? `, flow ${fmt(x.flowMgd)} MGD` : ""}
                  </td>
                  <td data-label="Evaluation">
                    <span className="usa-tag">{x.status === "EXCEEDS" ? "Exceeds" : x.status === "OK" ? "Within limit" : x.status === "INCONCLUSIVE" ? "Inconclusive" : "No limit"}</span>{" "}
                    {x.message}
                    {x.conversion ? ` Converted: ${x.conversion}.` : ""}
                  </td>
                  <td data-label="Lab and method">
                    {x.lab}; {x.method}
                  </td>
                  {editable && (
                    <td data-label="Change">
                      <Form method="post">
                        <AuthenticityTokenInput />
                        <input type="hidden" name="resultId" value={x.id} />
                        <button className="usa-button usa-button--unstyled" type="submit" name="intent" value="delete">
                          Delete<span className="usa-sr-only"> the {x.parameter} result</span>
                        </button>
                      </Form>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {r.duties.length > 0 && (
        <section aria-labelledby="duties-heading">
          <h2 id="duties-heading">Tasks from exceedances (Sewer Use Law 1005(4))</h2>
          <DutyItems duties={r.duties} timeZone={p.timeZone} permitId={p.id} member={member} />
        </section>
      )}

      <DailyFlowsSection report={r} editable={editable} busy={busy} error={e.flows} value={a?.intent === "flows" ? a.values.flows : undefined} />
      <ReportKindPanel r={r} editable={editable} errors={e} values={a?.intent === "statement" ? a.values : null} busy={busy} />

      {editable && (
        <>
          <section aria-labelledby="add-heading">
            <h2 id="add-heading">Enter a result</h2>
            <p>Each result is checked against the permit's limits as soon as it is saved.</p>
            <Form method="post" className="usa-form usa-form--large" noValidate>
              <AuthenticityTokenInput />
              <SelectField
                name="parameter"
                label={LABELS.parameter}
                options={[{ value: "", label: "Choose the parameter" }, ...parameters.map((x) => ({ value: x, label: x }))]}
                defaultValue={v("parameter")}
                error={e.parameter}
                required
              />
              <SelectField
                name="sampleType"
                label={LABELS.sampleType}
                hint="Composite samples are judged against the average daily limit, grab samples against the maximum instantaneous limit (Sewer Use Law 903)."
                options={[
                  { value: "", label: "Choose" },
                  { value: "COMPOSITE", label: "Composite" },
                  { value: "GRAB", label: "Grab" },
                ]}
                defaultValue={v("sampleType")}
                error={e.sampleType}
                required
              />
              <TextField name="sampledAt" type="datetime-local" label={LABELS.sampledAt} defaultValue={v("sampledAt")} error={e.sampledAt} required />
              <TextField name="value" label={LABELS.value} defaultValue={v("value")} error={e.value} inputMode="decimal" />
              <SelectField name="unit" label={LABELS.unit} options={UNITS} defaultValue={v("unit") || "mg/L"} error={e.unit} required />
              <div className="usa-checkbox">
                <input className="usa-checkbox__input" id="belowDetection" type="checkbox" name="belowDetection" value="yes" defaultChecked={v("belowDetection") === "yes"} />
                <label className="usa-checkbox__label" htmlFor="belowDetection">
                  {LABELS.belowDetection}
                </label>
              </div>
              <TextField name="detectionLimit" label={LABELS.detectionLimit} defaultValue={v("detectionLimit")} error={e.detectionLimit} inputMode="decimal" />
              <TextField name="flowMgd" label={LABELS.flowMgd} defaultValue={v("flowMgd")} error={e.flowMgd} inputMode="decimal" />
              <TextField name="lab" label={LABELS.lab} defaultValue={v("lab")} error={e.lab} required />
              <TextField name="method" label={LABELS.method} hint="e.g. EPA 200.7" defaultValue={v("method")} error={e.method} required />
              <button className="usa-button" type="submit" name="intent" value="add" disabled={busy}>
                Save and check
              </button>
            </Form>
          </section>

          <section aria-labelledby="csv-heading">
            <h2 id="csv-heading">Upload results as CSV</h2>
            <p>
              The first line names the columns: <code>sampled_at,sample_type,parameter,value,unit,below_detection,detection_limit,flow_mgd,lab,method</code>. A file
              with any bad line is refused, with each line's error, and nothing from it is saved.
            </p>
            <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large">
              <AuthenticityTokenInput />
              <div className={`usa-form-group${e.csv ? " usa-form-group--error" : ""}`}>
                <label className="usa-label" htmlFor="csv">
                  CSV file
                </label>
                {e.csv && (
                  <span className="usa-error-message" role="alert">
                    {e.csv}
                  </span>
                )}
                <input className="usa-file-input" id="csv" name="file" type="file" accept=".csv,text/csv" />
              </div>
              <button className="usa-button usa-button--outline" type="submit" name="intent" value="csv" disabled={busy}>
                Upload and check
              </button>
            </Form>
          </section>

          {r.status === "DRAFT" && (
            <section aria-labelledby="sign-heading">
              <h2 id="sign-heading">Review, certify and sign</h2>
              {ar ? (
                // A new key after each refusal remounts the form: a wrong password is not kept in the field.
                <Form method="post" className="usa-form usa-form--large" noValidate key={a?.intent === "sign" ? `sign-${a.at}` : "sign"}>
                  {a?.intent === "sign" && <ErrorSummary message={a.error} fields={e} labels={labels} />}
                  <AuthenticityTokenInput />
                  <input type="hidden" name="reviewedHash" value={r.contentHash ?? ""} />
                  <p>
                    You sign the report as shown on this page: {r.results.length} results for {formatCalendarDate(r.periodStart)} to {formatCalendarDate(r.periodEnd)}.
                  </p>
                  <blockquote className="tapline-plain-text" id="certification-text">
                    {r.certification}
                  </blockquote>
                  <div className={`usa-form-group${e.certify ? " usa-form-group--error" : ""}`}>
                    {e.certify && (
                      <span className="usa-error-message" role="alert">
                        {e.certify}
                      </span>
                    )}
                    <div className="usa-checkbox">
                      <input className="usa-checkbox__input" id="certify" type="checkbox" name="certify" value="yes" aria-describedby="certification-text" />
                      <label className="usa-checkbox__label" htmlFor="certify">
                        {LABELS.certify}
                      </label>
                    </div>
                  </div>
                  <TextField name="password" type="password" label={LABELS.password} error={e.password} autoComplete="current-password" required />
                  <button className="usa-button" type="submit" name="intent" value="sign" disabled={busy}>
                    Sign and submit the report
                  </button>
                </Form>
              ) : (
                <p>Only the organization's Authorized Representative signs compliance reports (Sewer Use Law 201, 1005).</p>
              )}
            </section>
          )}
        </>
      )}

      {r.copyOfRecord && (
        <section aria-labelledby="cor-heading">
          <h2 id="cor-heading">Copy of record</h2>
          <dl className="tapline-facts">
            <dt>Signed by</dt>
            <dd>
              {r.copyOfRecord.signerName} ({r.copyOfRecord.signerEmail})
            </dd>
            <dt>Received</dt>
            <dd>
              <DateTime iso={r.copyOfRecord.receivedAt} timeZone={p.timeZone} />
            </dd>
            <dt>SHA-256</dt>
            <dd>
              <code className="tapline-plain-text">{r.copyOfRecord.sha256}</code>
            </dd>
          </dl>
          <p>
            <Link className="usa-link" to={`/industrial/reports/${r.id}/record`}>
              Print the copy of record
            </Link>
          </p>
          {verification ? (
            verification.valid ? (
              <SuccessAlert>The copy of record verifies: its SHA-256 matches and the stored results are those signed.</SuccessAlert>
            ) : (
              <Notice type="warning">The copy of record does not verify: {verification.problems.join(" ")}</Notice>
            )
          ) : (
            <Form method="get">
              <input type="hidden" name="verify" value="1" />
              <button className="usa-button usa-button--outline" type="submit">
                Verify the copy of record
              </button>
            </Form>
          )}
          {member && !r.amendedById && (
            <Form method="post">
              <AuthenticityTokenInput />
              <button className="usa-button usa-button--secondary" type="submit" name="intent" value="amend">
                Correct it with an amended report
              </button>
            </Form>
          )}
        </section>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { DateTime, daysLeftText, formatCalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { LIFECYCLE_FIELDS, StaffLifecycle, type Lifecycle } from "~/components/industrial-lifecycle";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";
import { LIMIT_LABELS, LimitsEditor, parseLimitRows } from "~/components/industrial-limits";

export const meta: MetaFunction = () => [{ title: "Discharge permit review | Staff | Tapline" }];

/**
 * The District Operator's page for one application or permit: publish the notice of intent
 * (SUL 1004 H), set the limits (903, 904), issue (1004 D, H; 1005(3) months) and revoke (1004 G).
 * Every button is a GraphQL operation; the API refuses what the law does not allow, and the
 * refusal is shown here.
 */

type Limit = { parameter: string; kind: string; unit: string; average: number | null; maximum: number | null; minimum: number | null; section: string };
type Permit = {
  id: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  facilityName: string | null;
  organizationName: string;
  districtName: string;
  timeZone: string;
  address: string;
  sicCodes: string[];
  averageFlowGpd: number | null;
  peakFlowGpd: number | null;
  activities: string | null;
  tradeSecretFields: string[];
  feeCents: number | null;
  paymentId: string | null;
  paidAt: string | null;
  submittedAt: string | null;
  noticePublishedOn: string | null;
  noticeText: string | null;
  earliestIssueOn: string | null;
  effectiveOn: string | null;
  expiresOn: string | null;
  reportingMonths: number[];
  revocationReasonLabel: string | null;
  limits: Limit[];
  reports: { id: string; periodStart: string; periodEnd: string; dueOn: string; statusLabel: string; daysLeft: number | null }[];
  openDuties: { id: string; kind: string; text: string; dueOn: string }[];
  documents: { documentId: string; kind: string }[];
};
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string> };

const FIELDS = `id status statusLabel permitNumber facilityName organizationName districtName timeZone address sicCodes averageFlowGpd peakFlowGpd activities tradeSecretFields
  feeCents paymentId paidAt submittedAt noticePublishedOn noticeText earliestIssueOn effectiveOn expiresOn reportingMonths revocationReasonLabel
  limits { parameter kind unit average maximum minimum section }
  reports { id periodStart periodEnd dueOn statusLabel daysLeft }
  openDuties { id kind text dueOn }
  documents { documentId kind }`;

type Snc = {
  periodStart: string;
  periodEnd: string;
  inSnc: boolean;
  notJudged: string[];
  findings: { criterion: string; text: string; section: string }[];
  parameters: { parameter: string; total: number; exceeded: number; atOrAboveTrc: number; trcFactor: number; chronic: boolean; trc: boolean }[];
};

/** Each field's visible label, in the forms' order: the error summary names fields by them. */
export const LABELS: Record<string, string> = {
  text: "Anything to add to the notice (optional)",
  ...LIMIT_LABELS,
  effectiveOn: "Effective (today if empty)",
  expiresOn: "Expires",
  reportingMonths: "Periodic reports are due in (Sewer Use Law 1005(3)(a))",
  reason: "Reason",
  notes: "What happened (the permittee reads it)",
};

export async function loader(args: LoaderFunctionArgs) {
  const data = await requireSignedIn<{ industrialPermit: Permit }>(args, `query StaffIndustrial($id: ID!) { industrialPermit(id: $id) { ${FIELDS} viewerRole viewerIsStaff ${LIFECYCLE_FIELDS} currentLimits: limits { parameter kind unitLabel average maximum minimum } } }`, { id: args.params.id });
  const period = new URL(args.request.url).searchParams.get("snc") || null;
  const snc = ["ISSUED", "REVOKED"].includes(data.industrialPermit.status)
    ? (
        await requireSignedIn<{ industrialPermitSnc: Snc }>(
          args,
          `query Snc($id: ID!, $s: String) { industrialPermitSnc(permitId: $id, periodStart: $s) { periodStart periodEnd inSnc notJudged findings { criterion text section }
            parameters { parameter total exceeded atOrAboveTrc trcFactor chronic trc } } }`,
          { id: args.params.id, s: period },
        )
      ).industrialPermitSnc
    : null;
  return { ...data, snc };
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const EXTRA_ROWS = 3;
const REASONS = [
  { value: "", label: "Choose the reason (Sewer Use Law 1004 G)" },
  { value: "FALSIFIED_REPORTS", label: "Falsifying self-monitoring reports" },
  { value: "TAMPERING", label: "Tampering with monitoring equipment" },
  { value: "REFUSED_ACCESS", label: "Refusing timely access to the premises" },
  { value: "EFFLUENT_LIMITS", label: "Failure to meet effluent limitations" },
  { value: "UNPAID_FINES", label: "Failure to pay fines" },
  { value: "UNPAID_CHARGES", label: "Failure to pay user charges" },
  { value: "COMPLIANCE_SCHEDULE", label: "Failure to meet compliance schedules" },
];

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values = formValues(form);
  values.reportingMonths = form.getAll("reportingMonths").map(String).join(",");
  const here = `/staff/industrial/${params.id}`;
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) => Response.json({ intent, error, fields, values } satisfies ActionData, { status: 400, headers });
  let r;
  let done = "";
  if (intent === "notice") {
    r = await gql(context, request, `mutation Notice($id: ID!, $t: String) { publishIndustrialNotice(id: $id, text: $t) { id } }`, { id: params.id, t: values.text || null });
    done = "The notice of intent is published on the public notices page.";
  } else if (intent === "limits") {
    const { limits, errors: local } = parseLimitRows(form);
    r = await gql(context, request, `mutation Limits($id: ID!, $l: [IndustrialLimitInput!]!) { setIndustrialPermitLimits(id: $id, limits: $l) { id } }`, { id: params.id, l: limits });
    if (Object.keys(local).length) return fail("Please correct the highlighted limits.", { ...(r.ok ? {} : r.error.fields), ...local }, cookieHeaders(r));
    done = "The permit's limits are saved.";
  } else if (intent === "issue") {
    const months = form.getAll("reportingMonths").map(Number);
    r = await gql(context, request, `mutation Issue($i: IssueIndustrialPermitInput!) { issueIndustrialPermit(input: $i) { id } }`, {
      i: { id: params.id, effectiveOn: values.effectiveOn || null, expiresOn: values.expiresOn ?? "", reportingMonths: months },
    });
    done = "The permit is issued and the industrial user told.";
  } else if (intent === "revoke") {
    r = await gql(context, request, `mutation Revoke($i: RevokeIndustrialPermitInput!) { revokeIndustrialPermit(input: $i) { id } }`, {
      i: { id: params.id, reason: values.reason ?? "", notes: values.notes ?? "" },
    });
    done = "The permit is revoked and the industrial user told.";
  } else return fail("Unknown action.", {});
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return fail(r.error.message, r.error.fields, cookieHeaders(r));
  }
  return redirect(`${here}?done=${encodeURIComponent(done)}`, { headers: cookieHeaders(r) });
}


export default function StaffIndustrialPermit() {
  const { industrialPermit: p, snc } = useLoaderData<typeof loader>() as { industrialPermit: Permit; snc: Snc | null };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const e = a?.fields ?? {};
  const val = (intent: string, k: string, fallback: string) => (a?.intent === intent ? (a.values[k] ?? "") : fallback);
  const beforeIssue = p.status === "SUBMITTED" || p.status === "NOTICE_PUBLISHED";
  const rows: Limit[] = [...p.limits, ...Array.from({ length: EXTRA_ROWS }, () => ({ parameter: "", kind: "CONCENTRATION", unit: "mg/L", average: null, maximum: null, minimum: null, section: "" }))];
  const months = new Set(a?.intent === "issue" ? (a.values.reportingMonths ?? "").split(",").filter(Boolean).map(Number) : p.reportingMonths.length ? p.reportingMonths : [6, 12]);
  return (
    <>
      <p>
        <Link className="usa-link" to="/staff/industrial">
          Back to the discharge permits
        </Link>
      </p>
      <h1>{p.permitNumber ? `Discharge permit ${p.permitNumber}` : "Discharge permit application"}</h1>
      <p className="usa-intro">
        {p.facilityName} · {p.organizationName} · <span className="usa-tag">{p.statusLabel}</span>
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={e} labels={LABELS} />
      <p>
        <Link className="usa-link" to={`/industrial/${p.id}`}>
          The full application and the permit's public page
        </Link>
      </p>
      <dl className="tapline-facts">
        <dt>Address</dt>
        <dd>{p.address}</dd>
        <dt>SIC codes</dt>
        <dd>{p.sicCodes.join(", ")}</dd>
        <dt>Flows</dt>
        <dd>
          Average {p.averageFlowGpd?.toLocaleString("en-US")} gallons a day, peak {p.peakFlowGpd?.toLocaleString("en-US")}
        </dd>
        <dt>Trade secrets</dt>
        <dd>{p.tradeSecretFields.length ? p.tradeSecretFields.join(", ") : "None marked"}</dd>
        <dt>Documents</dt>
        <dd>
          {p.documents.map((d, i) => (
            <span key={d.documentId}>
              {i > 0 && ", "}
              <a className="usa-link" href={`/documents/${d.documentId}`}>
                {d.kind === "PLANS" ? "Plans" : d.kind === "LAB_REPORT" ? "Laboratory report" : "Document"}
              </a>
            </span>
          ))}
        </dd>
        <dt>Submitted</dt>
        <dd>
          <DateTime iso={p.submittedAt} timeZone={p.timeZone} />
        </dd>
        <dt>Fee</dt>
        <dd>
          {p.feeCents !== null ? money(p.feeCents) : ""} {p.paidAt ? "paid" : "not paid yet"}
          {p.paymentId && (
            <>
              {" "}
              (
              <Link className="usa-link" to={`/payments/${p.paymentId}`}>
                the payment
              </Link>
              )
            </>
          )}
        </dd>
      </dl>

      {p.status === "SUBMITTED" && (
        <section aria-labelledby="notice-heading">
          <h2 id="notice-heading">Notice of intent (Sewer Use Law 1004 H)</h2>
          <p>Publishing puts the notice on the portal's public notices page; the permit can be issued 14 days later at the earliest.</p>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <div className="usa-form-group">
              <label className="usa-label" htmlFor="text">
                Anything to add to the notice (optional)
              </label>
              <textarea className="usa-textarea" id="text" name="text" defaultValue={val("notice", "text", "")} />
            </div>
            <button className="usa-button" type="submit" name="intent" value="notice">
              Publish the notice of intent
            </button>
          </Form>
        </section>
      )}
      {p.noticeText && (
        <section aria-labelledby="published-heading">
          <h2 id="published-heading">Notice published {formatCalendarDate(p.noticePublishedOn!)}</h2>
          <p className="tapline-plain-text">{p.noticeText}</p>
        </section>
      )}

      {(p.effectiveOn || (p as unknown as Lifecycle).previousPermitId) && <StaffLifecycle p={{ ...(p as unknown as Lifecycle), limits: (p as unknown as { currentLimits: Lifecycle["limits"] }).currentLimits }} />}

      {p.status === "NOTICE_PUBLISHED" && (
        <section aria-labelledby="issue-heading">
          <h2 id="issue-heading">Issue the permit</h2>
          {p.earliestIssueOn && <p>The permit may be issued from {formatCalendarDate(p.earliestIssueOn)} (Sewer Use Law 1004 H), for at most 5 years (Sewer Use Law 1004 D).</p>}
          <Form method="post" className="usa-form usa-form--large" noValidate>
            <AuthenticityTokenInput />
            <TextField name="effectiveOn" type="date" label={LABELS.effectiveOn} defaultValue={val("issue", "effectiveOn", "")} error={e.effectiveOn} />
            <TextField name="expiresOn" type="date" label={LABELS.expiresOn} defaultValue={val("issue", "expiresOn", "")} error={e.expiresOn} required />
            <fieldset className={`usa-fieldset${e.reportingMonths ? " usa-form-group--error" : ""}`} id="reportingMonths">
              <legend className="usa-legend">Periodic reports are due in (Sewer Use Law 1005(3)(a))</legend>
              {e.reportingMonths && (
                <span className="usa-error-message" role="alert">
                  {e.reportingMonths}
                </span>
              )}
              {MONTHS.map((m, i) => (
                <div className="usa-checkbox" key={m}>
                  <input
                    className="usa-checkbox__input"
                    id={`month-${i + 1}`}
                    type="checkbox"
                    name="reportingMonths"
                    value={i + 1}
                    defaultChecked={months.has(i + 1)}
                  />
                  <label className="usa-checkbox__label" htmlFor={`month-${i + 1}`}>
                    {m}
                  </label>
                </div>
              ))}
            </fieldset>
            <button className="usa-button" type="submit" name="intent" value="issue">
              Issue the permit
            </button>
          </Form>
        </section>
      )}

      <section aria-labelledby="limits-heading">
        <h2 id="limits-heading">Limits</h2>
        {beforeIssue ? (
          <>
            <p>Copied from the district's rulebook (Sewer Use Law 903); change them for this permit (Sewer Use Law 904). Empty the parameter to remove a row.</p>
            <Form method="post" noValidate>
              <AuthenticityTokenInput />
              <LimitsEditor rows={rows} caption="The permit's limits" value={(name, fallback) => val("limits", name, fallback)} errors={e} />
              <button className="usa-button usa-button--outline" type="submit" name="intent" value="limits">
                Save the limits
              </button>
            </Form>
          </>
        ) : (
          <ul className="usa-list">
            {p.limits.map((l, i) => (
              <li key={i}>
                {l.parameter} ({l.kind.toLowerCase()}): {[l.average !== null ? `average ${l.average}` : null, l.maximum !== null ? `maximum ${l.maximum}` : null, l.minimum !== null ? `lowest ${l.minimum}` : null].filter(Boolean).join(", ")}{" "}
                {l.unit} ({l.section})
              </li>
            ))}
          </ul>
        )}
      </section>

      {p.reports.length > 0 && (
        <section aria-labelledby="reports-heading">
          <h2 id="reports-heading">Reports</h2>
          <p>
            <Link className="usa-link" to={`/staff/industrial/${p.id}/events`}>
              Violation notifications, repeat sampling, accidental discharges, milestones; set the 90-day and baseline report dates
            </Link>
          </p>
          <ul className="usa-list">
            {p.reports.map((r) => (
              <li key={r.id}>
                <Link className="usa-link" to={`/industrial/reports/${r.id}`}>
                  {formatCalendarDate(r.periodStart)} to {formatCalendarDate(r.periodEnd)}
                </Link>
                : due {formatCalendarDate(r.dueOn)}, {r.statusLabel.toLowerCase()}
                {r.daysLeft !== null && r.daysLeft < 0 ? ` (${daysLeftText(r.daysLeft)})` : ""}
              </li>
            ))}
          </ul>
        </section>
      )}

      {p.openDuties.length > 0 && (
        <Notice type="warning">
          Open tasks from exceedances: {p.openDuties.map((d) => `${d.text} by ${formatCalendarDate(d.dueOn)}`).join("; ")}.
        </Notice>
      )}

      {snc && (
        <section aria-labelledby="snc-heading">
          <h2 id="snc-heading">Significant non-compliance (Sewer Use Law 201)</h2>
          <p>
            {formatCalendarDate(snc.periodStart)} to {formatCalendarDate(snc.periodEnd)}:{" "}
            <strong>{snc.inSnc ? "in significant non-compliance" : "no significant non-compliance found"}</strong>.
          </p>
          {snc.findings.length > 0 && (
            <ul className="usa-list">
              {snc.findings.map((f, i) => (
                <li key={i}>
                  {f.text} ({f.section})
                </li>
              ))}
            </ul>
          )}
          {snc.parameters.length > 0 && (
            <table className="usa-table usa-table--borderless usa-table--stacked width-full">
              <caption>Measurements of the period by parameter</caption>
              <thead>
                <tr>
                  <th scope="col">Parameter</th>
                  <th scope="col">Measurements</th>
                  <th scope="col">Over the limit</th>
                  <th scope="col">At or above the TRC level</th>
                </tr>
              </thead>
              <tbody>
                {snc.parameters.map((x) => (
                  <tr key={x.parameter}>
                    <th scope="row" data-label="Parameter">
                      {x.parameter}
                    </th>
                    <td data-label="Measurements">{x.total}</td>
                    <td data-label="Over the limit">
                      {x.exceeded}
                      {x.chronic ? " (chronic)" : ""}
                    </td>
                    <td data-label="At or above the TRC level">
                      {x.atOrAboveTrc} at {x.trcFactor} times the limit{x.trc ? " (TRC)" : ""}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p className="usa-hint">Not judged here: {snc.notJudged.join(" ")}</p>
        </section>
      )}

      {p.status === "ISSUED" && (
        <section aria-labelledby="revoke-heading">
          <h2 id="revoke-heading">Revoke the permit</h2>
          <Form method="post" className="usa-form usa-form--large" noValidate>
            <AuthenticityTokenInput />
            <SelectField name="reason" label={LABELS.reason} options={REASONS} defaultValue={val("revoke", "reason", "")} error={e.reason} required />
            <div className={`usa-form-group${e.notes ? " usa-form-group--error" : ""}`}>
              <label className="usa-label" htmlFor="notes">
                What happened (the permittee reads it)
              </label>
              {e.notes && (
                <span className="usa-error-message" role="alert">
                  {e.notes}
                </span>
              )}
              <textarea className="usa-textarea" id="notes" name="notes" defaultValue={val("revoke", "notes", "")} />
            </div>
            <button className="usa-button usa-button--secondary" type="submit" name="intent" value="revoke">
              Revoke the permit
            </button>
          </Form>
        </section>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

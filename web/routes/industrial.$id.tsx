import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { DateTime, formatCalendarDate, daysLeftText } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { LIFECYCLE_FIELDS, PermitLifecycle, type Lifecycle } from "~/components/industrial-lifecycle";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, statusOf } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Wastewater discharge permit | Tapline" }];

/**
 * A discharge permit: public once its notice of intent is out (SUL 1014), with its limits and
 * report schedule; the organization sees its application, fee, reports and open duties.
 */

type PermitPage = {
  id: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  facilityName: string | null;
  address: string;
  location: string | null;
  organizationName: string;
  districtName: string;
  timeZone: string;
  sicCodes: string[];
  constituents: { parameter: string; value: number; unit: string }[];
  dischargeSchedule: string | null;
  averageFlowGpd: number | null;
  peakFlowGpd: number | null;
  activities: string | null;
  products: { name: string; amount: number; unit: string; process: string | null }[];
  rawMaterials: { name: string; averagePerDay: number; maximumPerDay: number; unit: string }[];
  employees: number | null;
  hoursOfOperation: string | null;
  pollutants: { parameter: string; concentration: number; unit: string; standardMet: boolean }[];
  standardsMet: boolean | null;
  complianceSchedule: { milestone: string; dueOn: string }[];
  otherInfo: string | null;
  tradeSecretFields: string[];
  withheldFields: string[];
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
  revocationNotes: string | null;
  viewerRole: string | null;
  viewerIsStaff: boolean;
  limits: { id: string; parameter: string; kind: string; unitLabel: string; average: number | null; maximum: number | null; minimum: number | null; section: string }[];
  reports: { id: string; kind: string; kindLabel: string; periodStart: string; periodEnd: string; dueOn: string; status: string; statusLabel: string; amendsId: string | null }[];
  nextReport: { id: string; periodStart: string; periodEnd: string; dueOn: string; daysLeft: number } | null;
  openDuties: { id: string; kind: string; text: string; section: string; dueAt: string; dueOn: string; reportId: string }[];
};

const PERMIT_PAGE_FIELDS = `id status statusLabel permitNumber facilityName address location organizationName districtName timeZone sicCodes
  constituents { parameter value unit } dischargeSchedule averageFlowGpd peakFlowGpd activities products { name amount unit process }
  rawMaterials { name averagePerDay maximumPerDay unit } employees hoursOfOperation pollutants { parameter concentration unit standardMet } standardsMet
  complianceSchedule { milestone dueOn } otherInfo tradeSecretFields withheldFields feeCents paymentId paidAt submittedAt noticePublishedOn noticeText earliestIssueOn
  effectiveOn expiresOn reportingMonths revocationReasonLabel revocationNotes viewerRole viewerIsStaff
  limits { id parameter kind unitLabel average maximum minimum section }
  reports { id kind kindLabel periodStart periodEnd dueOn status statusLabel amendsId }
  nextReport { id periodStart periodEnd dueOn daysLeft }
  openDuties { id kind text section dueAt dueOn reportId }`;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const r = await gql<{ industrialPermit: PermitPage }>(context, request, `query IndustrialPermit($id: ID!) { industrialPermit(id: $id) { ${PERMIT_PAGE_FIELDS} ${LIFECYCLE_FIELDS} } }`, { id: params.id });
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  return r.data;
}

type ActionData = { error: string; fields: Record<string, string> };

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const here = `/industrial/${params.id}`;
  const q: Record<string, [string, Record<string, unknown>, string]> = {
    withdraw: [`mutation W($id: ID!) { withdrawIndustrialApplication(id: $id) { id } }`, { id: params.id }, "The application is withdrawn."],
    duty: [`mutation D($id: ID!) { completeIndustrialDuty(id: $id) { id } }`, { id: String(form.get("dutyId") ?? "") }, "The task is marked done."],
  };
  const m = q[intent];
  if (!m) return Response.json({ error: "Unknown action.", fields: {} } satisfies ActionData, { status: 400 });
  const r = await gql(context, request, m[0], m[1]);
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`${here}?done=${encodeURIComponent(m[2])}`, { headers: cookieHeaders(r) });
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const n = (x: number | null) => (x === null ? "" : x.toLocaleString("en-US", { maximumFractionDigits: 6 }));
const withheld = "Withheld from the public as a trade secret (Sewer Use Law 1014).";

function LimitsTable({ limits }: { limits: PermitPage["limits"] }) {
  return (
    <table className="usa-table usa-table--borderless usa-table--stacked width-full">
      <caption>Average daily figures apply to composite samples, maximum instantaneous figures to grab samples</caption>
      <thead>
        <tr>
          <th scope="col">Parameter</th>
          <th scope="col">Average daily</th>
          <th scope="col">Maximum instantaneous</th>
          <th scope="col">Lowest allowed</th>
          <th scope="col">Unit</th>
          <th scope="col">Law</th>
        </tr>
      </thead>
      <tbody>
        {limits.map((l) => (
          <tr key={l.id}>
            <th scope="row" data-label="Parameter">
              {l.parameter}
              {l.kind === "MASS" ? " (mass)" : ""}
            </th>
            <td data-label="Average daily">{n(l.average)}</td>
            <td data-label="Maximum instantaneous">{n(l.maximum)}</td>
            <td data-label="Lowest allowed">{n(l.minimum)}</td>
            <td data-label="Unit">{l.unitLabel}</td>
            <td data-label="Law">{l.section}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DutiesList({ duties, timeZone }: { duties: PermitPage["openDuties"]; timeZone: string }) {
  return (
    <ul className="usa-list">
      {duties.map((d) => (
        <li key={d.id}>
          <strong>{d.kind === "NOTIFY" ? "Notify the District Operator" : "Resample"}:</strong> {d.text} ({d.section}), due{" "}
          {d.kind === "NOTIFY" ? <DateTime iso={d.dueAt} timeZone={timeZone} /> : `by ${formatCalendarDate(d.dueOn)}`}
        </li>
      ))}
    </ul>
  );
}

export default function IndustrialPermitPage() {
  const { industrialPermit: p } = useLoaderData<typeof loader>() as { industrialPermit: PermitPage };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const member = p.viewerRole !== null;
  const manager = p.viewerRole === "OWNER" || p.viewerRole === "AUTHORIZED_REPRESENTATIVE";
  const hidden = new Set(p.withheldFields);
  return (
    <>
      <h1>{p.permitNumber ? `Wastewater discharge permit ${p.permitNumber}` : "Wastewater discharge permit application"}</h1>
      <p className="usa-intro">
        {p.facilityName ?? "(no facility name yet)"} · {p.organizationName} · {p.districtName} · <span className="usa-tag">{p.statusLabel}</span>
      </p>
      {params.get("submitted") && <SuccessAlert>Your application is submitted. The District Operator reviews it and publishes a notice of intent before issuing the permit.</SuccessAlert>}
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} />
      {p.viewerIsStaff && (
        <p>
          <Link className="usa-link" to={`/staff/industrial/${p.id}`}>
            Open in the staff review
          </Link>
        </p>
      )}
      {p.status === "DRAFT" && manager && (
        <p>
          <Link className="usa-button" to={`/industrial/apply?id=${p.id}`}>
            Continue the application
          </Link>
        </p>
      )}
      {member && p.paymentId && !p.paidAt && (
        <Notice type="warning">
          The application fee of {money(p.feeCents ?? 0)} (Sewer Use Law 1004 A) is not paid yet; no permit is issued before it is.{" "}
          <Link className="usa-link" to={`/payments/${p.paymentId}`}>
            Pay the fee
          </Link>
        </Notice>
      )}
      {p.status === "REVOKED" && (
        <Notice type="warning">
          Revoked: {p.revocationReasonLabel} (Sewer Use Law 1004 G). {p.revocationNotes}
        </Notice>
      )}

      {p.openDuties.length > 0 && (
        <section aria-labelledby="duties-heading">
          <h2 id="duties-heading">What you must do now</h2>
          <p>A sample exceeded the permit's limits (Sewer Use Law 1005(4)):</p>
          <DutiesList duties={p.openDuties} timeZone={p.timeZone} />
          {member && (
            <p>
              <Link className="usa-button" to={`/industrial/${p.id}/events`}>
                Record the notification or start the repeat sampling report
              </Link>
            </p>
          )}
        </section>
      )}

      {p.noticeText && (
        <section aria-labelledby="notice-heading">
          <h2 id="notice-heading">Notice of intent (Sewer Use Law 1004 H)</h2>
          <p>Published {formatCalendarDate(p.noticePublishedOn!)}.</p>
          <p className="tapline-plain-text">{p.noticeText}</p>
          {p.status === "NOTICE_PUBLISHED" && p.earliestIssueOn && <p>The permit may be issued from {formatCalendarDate(p.earliestIssueOn)}.</p>}
        </section>
      )}

      {p.effectiveOn && (
        <section aria-labelledby="term-heading">
          <h2 id="term-heading">The permit</h2>
          <dl className="tapline-facts">
            <dt>In force</dt>
            <dd>
              {formatCalendarDate(p.effectiveOn)} to {formatCalendarDate(p.expiresOn!)}
            </dd>
            <dt>Periodic reports</dt>
            <dd>Due in {p.reportingMonths.map((m) => MONTHS[m - 1]).join(" and ")} (Sewer Use Law 1005(3))</dd>
            {p.nextReport && (
              <>
                <dt>Next report</dt>
                <dd>
                  {formatCalendarDate(p.nextReport.periodStart)} to {formatCalendarDate(p.nextReport.periodEnd)}, due {formatCalendarDate(p.nextReport.dueOn)} (
                  {daysLeftText(p.nextReport.daysLeft)}){" "}
                  {member && (
                    <Link className="usa-link" to={`/industrial/reports/${p.nextReport.id}`}>
                      Enter the results
                    </Link>
                  )}
                </dd>
              </>
            )}
          </dl>
        </section>
      )}

      {(p.effectiveOn || (p as unknown as Lifecycle).previousPermitId) && <PermitLifecycle p={p as unknown as Lifecycle} />}
      {member && p.status === "ISSUED" && (
        <p>
          <Link className="usa-link" to={`/industrial/${p.id}/events`}>
            Violations, accidental discharges and compliance schedule progress (Sewer Use Law 1005(4), 1011, 1004 A(12))
          </Link>
        </p>
      )}

      {p.limits.length > 0 && (
        <section aria-labelledby="limits-heading">
          <h2 id="limits-heading">{p.effectiveOn ? "Limits" : "Proposed limits"}</h2>
          <LimitsTable limits={p.limits} />
        </section>
      )}

      {p.reports.length > 0 && (
        <section aria-labelledby="reports-heading">
          <h2 id="reports-heading">Compliance reports</h2>
          <table className="usa-table usa-table--borderless usa-table--stacked width-full">
            <caption className="usa-sr-only">Report periods, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col">Due</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {p.reports.map((r) => (
                <tr key={r.id}>
                  <th scope="row" data-label="Period">
                    {member || p.viewerIsStaff || r.status === "SIGNED" ? (
                      <Link className="usa-link" to={`/industrial/reports/${r.id}`}>
                        {formatCalendarDate(r.periodStart)} to {formatCalendarDate(r.periodEnd)}
                      </Link>
                    ) : (
                      `${formatCalendarDate(r.periodStart)} to ${formatCalendarDate(r.periodEnd)}`
                    )}
                    {r.amendsId ? " (amendment)" : ""}
                    {r.kind !== "PERIODIC" ? ` · ${r.kindLabel}` : ""}
                  </th>
                  <td data-label="Due">{formatCalendarDate(r.dueOn)}</td>
                  <td data-label="Status">{r.statusLabel}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}

      <section aria-labelledby="application-heading">
        <h2 id="application-heading">The application (Sewer Use Law 1004 A)</h2>
        <dl className="tapline-facts">
          <dt>Address</dt>
          <dd>
            {p.address}
            {p.location ? ` (${p.location})` : ""}
          </dd>
          <dt>SIC codes</dt>
          <dd>{p.sicCodes.join(", ")}</dd>
          <dt>Constituents</dt>
          <dd>{p.constituents.map((c) => `${c.parameter} ${n(c.value)} ${c.unit}`).join("; ")}</dd>
          <dt>Discharge</dt>
          <dd>{p.dischargeSchedule}</dd>
          <dt>Flows</dt>
          <dd>
            Average {n(p.averageFlowGpd)} gallons a day, peak {n(p.peakFlowGpd)}
          </dd>
          <dt>Activities and processes</dt>
          <dd>{hidden.has("activities") ? withheld : p.activities}</dd>
          <dt>Products</dt>
          <dd>{hidden.has("products") ? withheld : p.products.map((x) => `${x.name}: ${n(x.amount)} ${x.unit}${x.process ? ` (${x.process})` : ""}`).join("; ")}</dd>
          <dt>Raw materials</dt>
          <dd>{hidden.has("rawMaterials") ? withheld : p.rawMaterials.map((x) => `${x.name}: ${n(x.averagePerDay)} average, ${n(x.maximumPerDay)} maximum ${x.unit}`).join("; ")}</dd>
          <dt>Employees and hours</dt>
          <dd>
            {n(p.employees)} employees; {p.hoursOfOperation}
          </dd>
          <dt>Pollutants limited by standards</dt>
          <dd>
            {p.pollutants.map((x) => `${x.parameter} ${n(x.concentration)} ${x.unit} (${x.standardMet ? "met" : "not met"})`).join("; ")}
            {p.standardsMet === false ? " Standards are not met on a consistent basis." : ""}
          </dd>
          {p.complianceSchedule.length > 0 && (
            <>
              <dt>Compliance schedule</dt>
              <dd>{p.complianceSchedule.map((s) => `${s.milestone}: ${formatCalendarDate(s.dueOn)}`).join("; ")}</dd>
            </>
          )}
          {(p.otherInfo || hidden.has("otherInfo")) && (
            <>
              <dt>Other information</dt>
              <dd>{hidden.has("otherInfo") ? withheld : p.otherInfo}</dd>
            </>
          )}
          {member && p.tradeSecretFields.length > 0 && (
            <>
              <dt>Marked as trade secrets</dt>
              <dd>{p.tradeSecretFields.join(", ")} (shown only to your organization and the district's staff)</dd>
            </>
          )}
          {p.submittedAt && (
            <>
              <dt>Submitted</dt>
              <dd>
                <DateTime iso={p.submittedAt} timeZone={p.timeZone} />
              </dd>
            </>
          )}
        </dl>
      </section>

      {manager && ["DRAFT", "SUBMITTED", "NOTICE_PUBLISHED"].includes(p.status) && (
        <Form method="post">
          <AuthenticityTokenInput />
          <button className="usa-button usa-button--secondary" type="submit" name="intent" value="withdraw">
            Withdraw the application
          </button>
        </Form>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

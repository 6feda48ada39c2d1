import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Significant non-compliance | Staff | Tapline" }];

type Permit = {
  permitId: string;
  permitNumber: string;
  facilityName: string | null;
  organizationName: string;
  status: string;
  inSnc: boolean;
  criteria: string[];
  reportsDue: number;
  findings: { criterion: string; text: string; section: string }[];
  parameters: { parameter: string; total: number; exceeded: number; atOrAboveTrc: number; trcFactor: number; chronic: boolean; trc: boolean }[];
};
type Dashboard = {
  periodStart: string;
  periodEnd: string;
  periods: string[];
  totalPermits: number;
  nextCursor: string | null;
  inSncCount: number;
  notJudged: string[];
  permits: Permit[];
  publication: { publishedOn: string; publishedByName: string } | null;
  publicationEnabled: boolean;
  publicationSection: string;
  canPublish: boolean;
  publishableFrom: string;
};
type ActionData = { error: string; fields: Record<string, string> };

const CRITERIA: Record<string, string> = { CHRONIC: "Chronic (66%)", TRC: "Technical review criteria (33%)", LATE_REPORT: "Report over 30 days late", MILESTONE: "Milestone 90+ days late" };

/** Each field's visible label, in the form's order (a record the page acts on by its name): the error summary names fields by them. */
export const LABELS: Record<string, string> = { districtId: "District", periodStart: "Period" };

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const r = await gql<{ industrialSncDashboard: Dashboard }>(
    args.context,
    args.request,
    `query SncDashboard($d: ID!, $s: String, $a: String) { industrialSncDashboard(districtId: $d, periodStart: $s, first: 25, after: $a) {
      periodStart periodEnd periods totalPermits nextCursor inSncCount notJudged canPublish publicationEnabled publicationSection publishableFrom publication { publishedOn publishedByName }
      permits { permitId permitNumber facilityName organizationName status inSnc criteria reportsDue findings { criterion text section }
        parameters { parameter total exceeded atOrAboveTrc trcFactor chronic trc } } } }`,
    { d: district.id, s: url.searchParams.get("period") || null, a: url.searchParams.get("after") || null },
  );
  const base = { districts: info.districts.map((d) => ({ id: d.id, name: d.name })), districtId: district.id, districtName: district.name };
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(url.pathname + url.search)}`);
    // A district without a permit program, or a period that cannot be chosen: say so on the page.
    if (r.error.code === "CONFLICT" || r.error.code === "BAD_USER_INPUT") return { ...base, dashboard: null, problem: Object.values(r.error.fields ?? {})[0] ?? r.error.message };
    throw new Response(r.error.message, { status: r.error.code === "FORBIDDEN" ? 403 : 500 });
  }
  return { ...base, dashboard: r.data.industrialSncDashboard, problem: null as string | null };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const districtId = String(form.get("districtId") ?? "");
  const period = String(form.get("period") ?? "");
  const here = `/staff/industrial/snc?districtId=${encodeURIComponent(districtId)}&period=${encodeURIComponent(period)}`;
  if (form.get("confirm") !== "yes")
    return Response.json({ error: "Please confirm that the list is ready to publish.", fields: { confirm: "Tick the box to confirm: a published list cannot be changed." } } satisfies ActionData, { status: 400 });
  const r = await gql(context, request, `mutation PublishSnc($d: ID!, $s: String!) { publishSncList(districtId: $d, periodStart: $s) { id publishedOn } }`, { d: districtId, s: period });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields ?? {} } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`${here}&done=${encodeURIComponent("The list is published on the public records page (Sewer Use Law 1122).")}`, { headers: cookieHeaders(r) });
}

/** Every permit of the district over one six-month period with its significant non-compliance (SUL 201); the published list (SUL 1122). */
export default function StaffSnc() {
  const { districts, districtId, districtName, dashboard: d, problem } = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  return (
    <>
      <h1>Significant non-compliance</h1>
      <p className="usa-intro">
        {districtName}: every industrial user's permit over a six-month period, judged by the criteria of Sewer Use Law 201. Open a permit to see the measurements
        behind it.
      </p>
      <p>
        <Link className="usa-link" to="/staff/industrial">
          Industrial permits
        </Link>{" "}
        ·{" "}
        <Link className="usa-link" to="/staff/industrial/reports">
          Compliance reports
        </Link>{" "}
        ·{" "}
        <Link className="usa-link" to="/public-records/snc">
          Published lists
        </Link>
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="get" className="usa-form">
        {districts.length > 1 && <SelectField name="districtId" label="District" options={districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={districtId} />}
        {districts.length === 1 && <input type="hidden" name="districtId" value={districtId} />}
        {d && (
          <SelectField
            name="period"
            label="Period"
            options={d.periods.map((p) => ({ value: p, label: periodLabel(p) }))}
            defaultValue={d.periodStart}
          />
        )}
        <button className="usa-button usa-button--outline" type="submit">
          Show
        </button>
      </Form>
      {problem && (
        <div className="usa-alert usa-alert--info usa-alert--slim margin-y-2">
          <div className="usa-alert__body">
            <p className="usa-alert__text">{problem}</p>
          </div>
        </div>
      )}
      {d && (
        <>
          <h2>
            {formatCalendarDate(d.periodStart)} to {formatCalendarDate(d.periodEnd)}
          </h2>
          <p>
            <strong>
              {d.inSncCount} of {d.totalPermits} {d.totalPermits === 1 ? "permit" : "permits"}
            </strong>{" "}
            in significant non-compliance.
          </p>
          {d.totalPermits === 0 ? (
            <p>No permit was in force in this period.</p>
          ) : (
            <table className="usa-table usa-table--stacked usa-table--borderless width-full">
              <caption>Permits in significant non-compliance first, then by permit number</caption>
              <thead>
                <tr>
                  <th scope="col">Permit</th>
                  <th scope="col">Significant non-compliance</th>
                  <th scope="col">Measurements by parameter</th>
                </tr>
              </thead>
              <tbody>
                {d.permits.map((p) => (
                  <tr key={p.permitId}>
                    <th scope="row" data-label="Permit">
                      <Link className="usa-link" to={`/staff/industrial/${p.permitId}?snc=${d.periodStart}#snc-heading`}>
                        {p.permitNumber}
                      </Link>
                      <span className="display-block">
                        {p.organizationName}
                        {p.facilityName ? `, ${p.facilityName}` : ""}
                      </span>
                    </th>
                    <td data-label="Significant non-compliance">
                      {p.inSnc ? (
                        <>
                          <ul className="add-list-reset">
                            {p.criteria.map((c) => (
                              <li key={c}>
                                <span className="usa-tag bg-secondary-dark margin-bottom-05">{CRITERIA[c] ?? c}</span>
                              </li>
                            ))}
                          </ul>
                          <ul className="usa-list font-body-2xs">
                            {p.findings.map((f, i) => (
                              <li key={i}>
                                {f.text} ({f.section})
                              </li>
                            ))}
                          </ul>
                        </>
                      ) : (
                        "None found"
                      )}
                    </td>
                    <td data-label="Measurements by parameter">
                      {p.parameters.length === 0 ? (
                        "No measurements in the period"
                      ) : (
                        <ul className="add-list-reset font-body-2xs">
                          {p.parameters.map((x) => (
                            <li key={x.parameter}>
                              {x.parameter}: {x.total} measured, {x.exceeded} over the limit, {x.atOrAboveTrc} at or above {x.trcFactor} times
                            </li>
                          ))}
                        </ul>
                      )}
                      <span className="display-block font-body-2xs">
                        {p.reportsDue} {p.reportsDue === 1 ? "report" : "reports"} due in the period
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {d.nextCursor && (
            <p>
              <Link className="usa-link" to={`?districtId=${districtId}&period=${d.periodStart}&after=${d.nextCursor}`}>
                More permits
              </Link>
            </p>
          )}
          <p className="usa-hint">Not judged here: {d.notJudged.join(" ")}</p>

          <section aria-labelledby="publish-heading">
            <h2 id="publish-heading">Publish the list ({d.publicationSection})</h2>
            {!d.publicationEnabled ? (
              <p>This district's law does not publish users in significant non-compliance.</p>
            ) : d.publication ? (
              <p>
                Published on {formatCalendarDate(d.publication.publishedOn)} by {d.publication.publishedByName}.{" "}
                <Link className="usa-link" to="/public-records/snc">
                  See the public list
                </Link>
                .
              </p>
            ) : d.canPublish ? (
              <Form method="post" className="usa-form usa-form--large" noValidate>
                <AuthenticityTokenInput />
                <input type="hidden" name="districtId" value={districtId} />
                <input type="hidden" name="period" value={d.periodStart} />
                <p>
                  Publishing freezes this period's list of {d.inSncCount} {d.inSncCount === 1 ? "permit" : "permits"} in significant non-compliance, by
                  organization, on the public records page, for the annual newspaper notice. It cannot be changed afterwards.
                </p>
                <div className={`usa-form-group${a?.fields?.confirm ? " usa-form-group--error" : ""}`}>
                  {a?.fields?.confirm && (
                    <span className="usa-error-message" id="confirm-error" role="alert">
                      {a.fields.confirm}
                    </span>
                  )}
                  <div className="usa-checkbox">
                    <input className="usa-checkbox__input" id="confirm" name="confirm" type="checkbox" value="yes" aria-describedby={a?.fields?.confirm ? "confirm-error" : undefined} />
                    <label className="usa-checkbox__label" htmlFor="confirm">
                      I have checked the list for {formatCalendarDate(d.periodStart)} to {formatCalendarDate(d.periodEnd)} and it is ready to publish
                    </label>
                  </div>
                </div>
                <button className="usa-button" type="submit">
                  Publish the list
                </button>
              </Form>
            ) : (
              <p>
                The District Operator or an administrator publishes this period's list, from {formatCalendarDate(d.publishableFrom)} (the day after the period
                ends).
              </p>
            )}
          </section>
        </>
      )}
    </>
  );
}

function periodLabel(start: string): string {
  const y = start.slice(0, 4);
  return start.slice(5, 7) === "01" ? `January to June ${y}` : start.slice(5, 7) === "07" ? `July to December ${y}` : start;
}

export const ErrorBoundary = NestedErrorBoundary;

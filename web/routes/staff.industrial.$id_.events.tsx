import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import {
  DutyTable,
  EVENTS_PERMIT_FIELDS,
  MilestoneTable,
  SlugFacts,
  daysText,
  type EventsPermit,
} from "~/components/industrial-events";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Violations, discharges and milestones | Staff | Tapline" }];

/**
 * Staff: one permit's violation notifications and repeat sampling (SUL 1005(4)), accidental
 * discharges (1011), milestone progress (1004 A(12)), and the District Operator's dates for the
 * 90-day (1005(2)) and baseline (1005(1)) reports.
 */

type Page = EventsPermit & {
  viewerIsStaff: boolean;
  reports: { id: string; kind: string; kindLabel: string; basisOn: string | null; dueOn: string; status: string; statusLabel: string; daysLeft: number | null; amendsId: string | null }[];
};
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

/** Each field's visible label, in the form's order (a record the page acts on by its name): the error summary names fields by them. */
export const LABELS: Record<string, string> = {
  kind: "Report",
  basisOn: "Date",
  permitId: "Permit",
};

export async function loader(args: LoaderFunctionArgs) {
  const data = await requireSignedIn<{ industrialPermit: Page }>(
    args,
    `query StaffPermitEvents($id: ID!) { industrialPermit(id: $id) { ${EVENTS_PERMIT_FIELDS} viewerIsStaff
      reports { id kind kindLabel basisOn dueOn status statusLabel daysLeft amendsId } } }`,
    { id: args.params.id },
  );
  if (!data.industrialPermit.viewerIsStaff) throw new Response("This page is for the district's staff.", { status: 403 });
  return data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { kind: String(form.get("kind") ?? ""), basisOn: String(form.get("basisOn") ?? "") };
  const here = `/staff/industrial/${params.id}/events`;
  const r = await gql<{ setIndustrialReportDate: { dueOn: string; kind: string } }>(
    context,
    request,
    `mutation SetDate($i: IndustrialReportDateInput!) { setIndustrialReportDate(input: $i) { dueOn kind } }`,
    { i: { permitId: params.id, ...values } },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  const what = r.data.setIndustrialReportDate.kind === "NINETY_DAY" ? "90-day compliance report" : "baseline monitoring report";
  return redirect(`${here}?done=${encodeURIComponent(`The ${what} is due ${formatCalendarDate(r.data.setIndustrialReportDate.dueOn)}. The permit holder is reminded 14 days before.`)}`, {
    headers: cookieHeaders(r),
  });
}

export default function StaffPermitEvents() {
  const { industrialPermit: p } = useLoaderData<typeof loader>() as { industrialPermit: Page };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const e = a?.fields ?? {};
  const dated = p.reports.filter((r) => (r.kind === "NINETY_DAY" || r.kind === "BASELINE") && !r.amendsId);
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/industrial/${p.id}`}>
          Permit {p.permitNumber}
        </Link>
      </p>
      <h1>Violations, discharges and milestones</h1>
      <p className="usa-intro">
        {p.facilityName} · {p.organizationName}
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={e} labels={LABELS} />

      <section aria-labelledby="violations-heading">
        <h2 id="violations-heading">Violation notifications and repeat sampling (Sewer Use Law 1005(4))</h2>
        {p.duties.length === 0 ? <p>No result has exceeded a limit.</p> : <DutyTable duties={p.duties} reportHref={(id) => `/industrial/reports/${id}`} timeZone={p.timeZone} />}
      </section>

      <section aria-labelledby="slug-heading">
        <h2 id="slug-heading">Accidental or slug discharges (Sewer Use Law 1011)</h2>
        {p.slugDischarges.length === 0 ? (
          <p>None reported.</p>
        ) : (
          p.slugDischarges.map((s) => (
            <div key={s.id} className="margin-bottom-2">
              <h3>
                <Link className="usa-link" to={`/industrial/slug/${s.id}`}>
                  {s.substance}
                </Link>
              </h3>
              <SlugFacts s={s} timeZone={p.timeZone} />
            </div>
          ))
        )}
      </section>

      {p.milestones.length > 0 && (
        <section aria-labelledby="milestones-heading">
          <h2 id="milestones-heading">Compliance schedule progress (Sewer Use Law 1004 A(12))</h2>
          <MilestoneTable milestones={p.milestones} />
        </section>
      )}

      <section aria-labelledby="dated-heading">
        <h2 id="dated-heading">90-day compliance and baseline monitoring reports</h2>
        {dated.length > 0 && (
          <ul className="usa-list">
            {dated.map((r) => (
              <li key={r.id}>
                <Link className="usa-link" to={`/industrial/reports/${r.id}`}>
                  {r.kindLabel}
                </Link>
                : counted from {r.basisOn ? formatCalendarDate(r.basisOn) : "-"}, due {formatCalendarDate(r.dueOn)}, {r.statusLabel.toLowerCase()}
                {r.daysLeft !== null ? ` (${daysText(r.daysLeft)})` : ""}
              </li>
            ))}
          </ul>
        )}
        {p.status === "ISSUED" && (
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <p>
              District Operator: the 90-day report is due 90 days after the final compliance date or the start of discharge (Sewer Use Law 1005(2)); the baseline report 180 days after a
              categorical standard's promulgation (1005(1)). A date can be corrected until the report is started.
            </p>
            <SelectField
              name="kind"
              label={LABELS.kind}
              options={[
                { value: "NINETY_DAY", label: "90-day compliance report: date of final compliance or start of discharge" },
                { value: "BASELINE", label: "Baseline monitoring report: promulgation date of the categorical standard" },
              ]}
              defaultValue={a?.values.kind}
              error={e.kind}
              required
            />
            <TextField name="basisOn" type="date" label={LABELS.basisOn} defaultValue={a?.values.basisOn} error={e.basisOn} required />
            <button className="usa-button" type="submit" disabled={busy}>
              Set the date
            </button>
          </Form>
        )}
      </section>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

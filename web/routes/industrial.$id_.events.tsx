import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { DateTime, formatCalendarDate, formatDateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { TextArea } from "~/components/hauler";
import {
  DutyTable,
  EVENTS_PERMIT_FIELDS,
  EVENT_RULES_FIELDS,
  MilestoneTable,
  ViolationDuties,
  daysText,
  type EventRules,
  type EventsPermit,
} from "~/components/industrial-events";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, statusOf } from "~/graphql.server";
import { formValues } from "~/util";

export const meta: MetaFunction = () => [{ title: "Violations, discharges and milestones | Tapline" }];

/**
 * The industrial user's reports besides the periodic one: the notification of a violation and the
 * repeat sampling (SUL 1005(4); 24 hours and 30 days, or the permit's rulebook's figures), an
 * accidental or slug discharge (1011), and progress on the compliance schedule's milestones (1004 A(12)(c)).
 */

type Page = EventsPermit & { viewerRole: string | null; eventRules: EventRules };
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string> };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const r = await gql<{ industrialPermit: Page }>(
    context,
    request,
    `query PermitEvents($id: ID!) { industrialPermit(id: $id) { ${EVENTS_PERMIT_FIELDS} ${EVENT_RULES_FIELDS} viewerRole } }`,
    { id: params.id },
  );
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  if (r.data.industrialPermit.viewerRole === null) throw new Response("This page is for the permit holder's members.", { status: 404 });
  return r.data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values = formValues(form);
  const here = `/industrial/${params.id}/events`;
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) => Response.json({ intent, error, fields, values } satisfies ActionData, { status: 400, headers });
  let r;
  let next = here;
  if (intent === "notify") {
    r = await gql<{ fileViolationNotice: { id: string; onTime: boolean } }>(context, request, `mutation Notify($i: IndustrialViolationNoticeInput!) { fileViolationNotice(input: $i) { id onTime } }`, {
      i: { dutyId: values.dutyId ?? "", notifiedWhom: values.notifiedWhom ?? "", method: values.method ?? "", notifiedAt: values.notifiedAt ?? "", text: values.text ?? "" },
    });
    if (r.ok)
      next = `${here}?done=${encodeURIComponent(r.data.fileViolationNotice.onTime ? "The notification is recorded, on time." : "The notification is recorded. It was made after the time the law allows, so it is shown as late.")}`;
  } else if (intent === "resample") {
    r = await gql<{ startResampleReport: { id: string } }>(context, request, `mutation Resample($id: ID!) { startResampleReport(dutyId: $id) { id } }`, { id: values.dutyId ?? "" });
    if (r.ok) next = `/industrial/reports/${r.data.startResampleReport.id}?done=${encodeURIComponent("The repeat sampling report is started. Enter the repeat results; the Authorized Representative signs it.")}`;
  } else if (intent === "slug") {
    const volume = (values.estimatedVolumeGallons ?? "").replace(/,/g, "").trim();
    const n = volume === "" ? null : /^\d+(\.\d+)?$/.test(volume) ? Number(volume) : NaN;
    // A volume the page cannot read goes as one the API refuses (-1), so every other field is checked in the same answer.
    const unread = Number.isNaN(n) ? { estimatedVolumeGallons: "Enter the volume in gallons as a number." } : null;
    r = await gql<{ reportSlugDischarge: { id: string; writtenDueOn: string } }>(context, request, `mutation Slug($i: IndustrialSlugDischargeInput!) { reportSlugDischarge(input: $i) { id writtenDueOn } }`, {
      i: {
        permitId: params.id,
        occurredAt: values.occurredAt ?? "",
        notifiedAt: values.slugNotifiedAt ?? "",
        notifiedWhom: values.slugNotifiedWhom ?? "",
        substance: values.substance ?? "",
        estimatedVolumeGallons: unread ? -1 : n,
        description: values.description ?? "",
      },
    });
    if (unread) return fail("Please correct the highlighted fields.", { ...(r.ok ? {} : slugFields(r.error.fields)), ...unread }, cookieHeaders(r));
    if (r.ok)
      next = `/industrial/slug/${r.data.reportSlugDischarge.id}?done=${encodeURIComponent(`The discharge is recorded and the District Operator is told by email. Write the report by ${formatCalendarDate(r.data.reportSlugDischarge.writtenDueOn)}.`)}`;
  } else if (intent === "progress") {
    const met = values.met === "yes" ? true : values.met === "no" ? false : null;
    if (met === null) return fail("Please correct the highlighted fields.", { met: "Say whether the milestone was met." });
    r = await gql(context, request, `mutation Progress($i: IndustrialMilestoneProgressInput!) { fileMilestoneProgress(input: $i) { id } }`, {
      i: { permitId: params.id, milestoneIndex: Number(values.milestoneIndex ?? -1), met, metOn: values.metOn || null, reason: values.reason || null, expectedOn: values.expectedOn || null },
    });
    if (r.ok) next = `${here}?done=${encodeURIComponent("The progress report is filed.")}#milestones-heading`;
  } else return fail("Unknown action.", {});
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return fail(r.error.message, intent === "slug" ? slugFields(r.error.fields) : r.error.fields, cookieHeaders(r));
  }
  return redirect(next, { headers: cookieHeaders(r) });
}

/** The slug form's notification fields have their own names on this page. */
function slugFields(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, m] of Object.entries(fields)) out[k === "notifiedAt" || k === "notifiedWhom" ? `slug${k[0].toUpperCase()}${k.slice(1)}` : k] = m;
  return out;
}

const METHODS = [
  { value: "", label: "- Choose -" },
  { value: "PHONE", label: "By telephone" },
  { value: "EMAIL", label: "By email" },
  { value: "IN_PERSON", label: "In person" },
  { value: "LETTER", label: "By letter" },
];
/** Each field's visible label: the forms show these, and the error summary names fields by them. */
export const LABELS: Record<string, string> = {
  dutyId: "Violation",
  notifiedWhom: "Whom you told at the district",
  method: "How",
  notifiedAt: "When",
  text: "What you told the district",
  occurredAt: "When the discharge happened",
  slugNotifiedAt: "When you told the district",
  slugNotifiedWhom: "Whom you told",
  substance: "What was discharged",
  estimatedVolumeGallons: "Estimated volume, gallons",
  description: "What happened (optional)",
  permitId: "Permit",
  milestoneIndex: "Milestone",
  met: "Was it met?",
  metOn: "If met: the date",
  reason: "If not met: the reason for the delay",
  expectedOn: "If not met: the date you expect to meet it",
};

export default function PermitEvents() {
  const { industrialPermit: p } = useLoaderData<typeof loader>() as { industrialPermit: Page };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const e = a?.fields ?? {};
  const v = (intent: string, k: string) => (a?.intent === intent ? (a.values[k] ?? "") : "");
  const openNotify = p.duties.filter((d) => d.kind === "NOTIFY" && !d.doneAt);
  const openResample = p.duties.filter((d) => d.kind === "RESAMPLE" && !d.doneAt);
  const issued = p.status === "ISSUED";
  return (
    <>
      <p>
        <Link className="usa-link" to={`/industrial/${p.id}`}>
          Permit {p.permitNumber}
        </Link>
      </p>
      <h1>Violations, discharges and milestones</h1>
      <p className="usa-intro">
        {p.facilityName} · {p.organizationName}
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      {a && !["notify", "slug", "progress"].includes(a.intent) && <ErrorSummary message={a.error} fields={e} labels={LABELS} />}
      <section aria-labelledby="violations-heading">
        <h2 id="violations-heading">Violations (Sewer Use Law 1005(4))</h2>
        <p>
          <ViolationDuties rules={p.eventRules} />
        </p>
        {p.duties.length === 0 ? <p>No result has exceeded a limit.</p> : <DutyTable duties={p.duties} reportHref={(id) => `/industrial/reports/${id}`} timeZone={p.timeZone} />}

        {openNotify.length > 0 && (
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <h3 id="notify">Record the notification you made</h3>
            {a?.intent === "notify" && <ErrorSummary message={a.error} fields={e} labels={LABELS} />}
            <SelectField
              name="dutyId"
              label={LABELS.dutyId}
              options={openNotify.map((d) => ({ value: d.id, label: `${d.text}: due ${formatDateTime(d.dueAt, p.timeZone)}` }))}
              defaultValue={v("notify", "dutyId")}
              error={e.dutyId}
              required
            />
            <TextField name="notifiedWhom" label={LABELS.notifiedWhom} defaultValue={v("notify", "notifiedWhom")} error={e.notifiedWhom} required />
            <SelectField name="method" label={LABELS.method} options={METHODS} defaultValue={v("notify", "method")} error={e.method} required />
            <TextField name="notifiedAt" type="datetime-local" label={LABELS.notifiedAt} hint="Date and time, in the district's time" defaultValue={v("notify", "notifiedAt")} error={e.notifiedAt} required />
            <TextArea name="text" label={LABELS.text} hint="The parameter, the result, and what you are doing about it" defaultValue={v("notify", "text")} error={e.text} />
            <button className="usa-button" type="submit" name="intent" value="notify" disabled={busy}>
              Record the notification
            </button>
          </Form>
        )}

        {openResample.filter((d) => !d.resampleReportId).length > 0 && (
          <>
            <h3 id="resample">Repeat sampling</h3>
            <p>Start the repeat sampling report from the violation; enter the repeat results in it, and the Authorized Representative signs it.</p>
            {openResample
              .filter((d) => !d.resampleReportId)
              .map((d) => (
                <Form method="post" key={d.id} className="margin-bottom-1">
                  <AuthenticityTokenInput />
                  <input type="hidden" name="dutyId" value={d.id} />
                  <button className="usa-button usa-button--outline" type="submit" name="intent" value="resample" disabled={busy}>
                    Start the repeat sampling report: {d.text.replace(/^Repeat the /, "").replace(/ sampling.*$/, "")}, due {formatCalendarDate(d.dueOn)} ({daysText(d.daysLeft)})
                  </button>
                </Form>
              ))}
          </>
        )}
      </section>

      <section aria-labelledby="slug-heading">
        <h2 id="slug-heading">Accidental or slug discharges (Sewer Use Law 1011)</h2>
        <p>
          Tell the District Operator at once by telephone, then record it here. A written report of the causes and the measures taken is due within 5 days; lab results may be added within 45 days.
          Accidental discharge reports are public (Sewer Use Law 1014).
        </p>
        {p.slugDischarges.length > 0 && (
          <ul className="usa-list">
            {p.slugDischarges.map((s) => (
              <li key={s.id}>
                <Link className="usa-link" to={`/industrial/slug/${s.id}`}>
                  {s.substance}, <DateTime iso={s.occurredAt} timeZone={p.timeZone} />
                </Link>
                : written report {s.writtenStatus === "SIGNED" ? "received" : `due ${formatCalendarDate(s.writtenDueOn)} (${daysText(s.writtenDaysLeft)})`}
                {s.writtenLate ? " (late)" : ""}
              </li>
            ))}
          </ul>
        )}
        {issued && (
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <h3>Record a discharge</h3>
            {a?.intent === "slug" && <ErrorSummary message={a.error} fields={e} labels={LABELS} />}
            <TextField name="occurredAt" type="datetime-local" label={LABELS.occurredAt} defaultValue={v("slug", "occurredAt")} error={e.occurredAt} required />
            <TextField name="slugNotifiedAt" type="datetime-local" label={LABELS.slugNotifiedAt} defaultValue={v("slug", "slugNotifiedAt")} error={e.slugNotifiedAt} required />
            <TextField name="slugNotifiedWhom" label={LABELS.slugNotifiedWhom} defaultValue={v("slug", "slugNotifiedWhom")} error={e.slugNotifiedWhom} required />
            <TextField name="substance" label={LABELS.substance} defaultValue={v("slug", "substance")} error={e.substance} required />
            <TextField name="estimatedVolumeGallons" label={LABELS.estimatedVolumeGallons} inputMode="decimal" defaultValue={v("slug", "estimatedVolumeGallons")} error={e.estimatedVolumeGallons} required />
            <TextArea name="description" label={LABELS.description} defaultValue={v("slug", "description")} error={e.description} />
            <button className="usa-button" type="submit" name="intent" value="slug" disabled={busy}>
              Record the discharge
            </button>
          </Form>
        )}
      </section>

      {p.milestones.length > 0 && (
        <section aria-labelledby="milestones-heading">
          <h2 id="milestones-heading">Compliance schedule (Sewer Use Law 1004 A(12))</h2>
          <p>A progress report is due at most 14 days after each milestone's date: met, or not met with the reason and the date you expect to meet it.</p>
          <MilestoneTable milestones={p.milestones} />
          {issued && (
            <Form method="post" className="usa-form usa-form--large">
              <AuthenticityTokenInput />
              <h3>File a progress report</h3>
              {a?.intent === "progress" && <ErrorSummary message={a.error} fields={e} labels={LABELS} />}
              <SelectField
                name="milestoneIndex"
                label={LABELS.milestoneIndex}
                options={p.milestones.map((m) => ({ value: String(m.index), label: `${m.milestone} (${formatCalendarDate(m.dueOn)})` }))}
                defaultValue={v("progress", "milestoneIndex")}
                error={e.milestoneIndex}
                required
              />
              <SelectField
                name="met"
                label={LABELS.met}
                options={[
                  { value: "", label: "- Choose -" },
                  { value: "yes", label: "Yes, met" },
                  { value: "no", label: "No, not yet" },
                ]}
                defaultValue={v("progress", "met")}
                error={e.met}
                required
              />
              <TextField name="metOn" type="date" label={LABELS.metOn} defaultValue={v("progress", "metOn")} error={e.metOn} />
              <TextArea name="reason" label={LABELS.reason} defaultValue={v("progress", "reason")} error={e.reason} />
              <TextField name="expectedOn" type="date" label={LABELS.expectedOn} defaultValue={v("progress", "expectedOn")} error={e.expectedOn} />
              <button className="usa-button" type="submit" name="intent" value="progress" disabled={busy}>
                File the progress report
              </button>
            </Form>
          )}
        </section>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

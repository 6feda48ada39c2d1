import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { NestedErrorBoundary } from "~/components/fields";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { TextArea } from "~/components/hauler";
import { EVENT_SLUG_FIELDS, SlugFacts, type EventSlug } from "~/components/industrial-events";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, statusOf } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Accidental discharge | Tapline" }];

/**
 * An accidental or slug discharge (SUL 1011): public once recorded (1014). The permit holder's
 * members write the report (causes, measures) here; results and the Authorized Representative's
 * signature are on its report page, like every report.
 */

type Slug = EventSlug & { permitId: string; permitNumber: string | null; facilityName: string | null };
type Data = { slug: Slug; member: boolean; timeZone: string };
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

/** Each field's visible label, in the form's order (a record the page acts on by its name): the error summary names fields by them. */
export const LABELS: Record<string, string> = {
  causes: "Causes of the discharge",
  measures: "Measures taken to prevent it happening again",
  slugId: "Discharge",
};

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const r = await gql<{ industrialSlugDischarge: Slug }>(context, request, `query Slug($id: ID!) { industrialSlugDischarge(id: $id) { ${EVENT_SLUG_FIELDS} permitId permitNumber facilityName } }`, {
    id: params.id,
  });
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  const s = r.data.industrialSlugDischarge;
  const p = await gql<{ industrialPermit: { viewerRole: string | null; timeZone: string } }>(context, request, `query Role($id: ID!) { industrialPermit(id: $id) { viewerRole timeZone } }`, { id: s.permitId });
  return { slug: s, member: p.ok && p.data.industrialPermit.viewerRole !== null, timeZone: p.ok ? p.data.industrialPermit.timeZone : "UTC" } satisfies Data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { causes: String(form.get("causes") ?? ""), measures: String(form.get("measures") ?? "") };
  const here = `/industrial/slug/${params.id}`;
  const r = await gql<{ saveSlugWrittenReport: { reportId: string } }>(
    context,
    request,
    `mutation Written($i: IndustrialSlugWrittenReportInput!) { saveSlugWrittenReport(input: $i) { reportId } }`,
    { i: { slugId: params.id, ...values } },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/industrial/reports/${r.data.saveSlugWrittenReport.reportId}?done=${encodeURIComponent("The written report is saved. Add any lab results; the Authorized Representative signs it.")}`, {
    headers: cookieHeaders(r),
  });
}

export default function SlugPage() {
  const { slug: s, member, timeZone } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const e = a?.fields ?? {};
  return (
    <>
      <p>
        <Link className="usa-link" to={`/industrial/${s.permitId}`}>
          Permit {s.permitNumber}
        </Link>
      </p>
      <h1>Accidental or slug discharge</h1>
      <p className="usa-intro">
        {s.facilityName} · {s.substance}
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={e} labels={LABELS} />
      <SlugFacts s={s} timeZone={timeZone} />
      {member && (
        <p>
          <Link className="usa-link" to={`/industrial/reports/${s.reportId}`}>
            The written report: lab results and signature
          </Link>
        </p>
      )}
      {member && s.writtenStatus !== "SIGNED" && (
        <Form method="post" className="usa-form usa-form--large">
          <AuthenticityTokenInput />
          <h2>The written report (Sewer Use Law 1011)</h2>
          <TextArea name="causes" label={LABELS.causes} defaultValue={a?.values.causes ?? s.causes ?? ""} error={e.causes} />
          <TextArea name="measures" label={LABELS.measures} defaultValue={a?.values.measures ?? s.measures ?? ""} error={e.measures} />
          <button className="usa-button" type="submit" disabled={busy}>
            Save the written report
          </button>
        </Form>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

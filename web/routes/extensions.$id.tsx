import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { ExtensionSummary, SECTION_FIELDS, TestResults, type Section } from "~/components/extension-tests";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Sewer extension | Tapline" }];

/** The notice form's visible labels by the keys the API reports. */
export const LABELS: Record<string, string> = {
  id: "Application",
  startsOn: "Construction starts on",
};

type Extension = {
  id: string;
  name: string;
  organizationName: string;
  status: string;
  statusLabel: string;
  location: string;
  mapReference: string;
  lots: number;
  designFlowGpd: number;
  decisionReason: string | null;
  noticeGivenOn: string | null;
  constructionStartsOn: string | null;
  earliestConstructionStart: string | null;
  testsPassed: boolean;
  documents: { documentId: string; kindLabel: string; filename: string }[];
  sections: Section[];
};

export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ sewerExtension: Extension }>(
    args,
    `query Extension($id: ID!) { sewerExtension(id: $id) { id name organizationName status statusLabel location mapReference lots designFlowGpd decisionReason
      noticeGivenOn constructionStartsOn earliestConstructionStart testsPassed documents { documentId kindLabel filename } ${SECTION_FIELDS} } }`,
    { id: args.params.id },
  );
  return d.sewerExtension;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const startsOn = String(f.get("startsOn") ?? "").trim();
  const r = await gql(context, request, `mutation Notice($i: ConstructionNoticeInput!) { giveConstructionNotice(input: $i) { id } }`, { i: { id: params.id, startsOn } });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, startsOn }, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/extensions/${params.id}?done=notice`, { headers: cookieHeaders(r) });
}

/** A developer's sewer extension: where it stands, the notice of construction (Sewer Use Law 502 A) and the tests of each section (505). */
export default function ExtensionStatus() {
  const e = useLoaderData<typeof loader>() as Extension;
  const a = useActionData<{ error: string; fields: Record<string, string>; startsOn: string }>();
  const [params] = useSearchParams();
  return (
    <>
      <p>
        <Link className="usa-link" to="/extensions">
          Sewer extensions
        </Link>
      </p>
      <h1>{e.name}</h1>
      {params.get("done") === "applied" && <SuccessAlert>Your application is filed. The District Operator reviews it.</SuccessAlert>}
      {params.get("done") === "notice" && <SuccessAlert>Your notice of construction is given.</SuccessAlert>}
      <ExtensionSummary e={e} />
      {e.status === "APPROVED" && (
        <section aria-labelledby="notice-heading">
          <h2 id="notice-heading">Notice of construction</h2>
          {e.constructionStartsOn && (
            <p>
              Construction starts on <CalendarDate date={e.constructionStartsOn} /> (notice given on <CalendarDate date={e.noticeGivenOn} />).
            </p>
          )}
          <p>
            Tell the District Operator ahead of the start, so the inspections can be planned: with notice given today, construction may start on{" "}
            <CalendarDate date={e.earliestConstructionStart} /> at the earliest (Sewer Use Law 502 A).
          </p>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <TextField name="startsOn" label={LABELS.startsOn} type="date" hint="For example 2027-03-15." defaultValue={a?.startsOn} error={a?.fields?.startsOn} required />
            <button className="usa-button" type="submit">
              {e.constructionStartsOn ? "Give a new notice" : "Give notice"}
            </button>
          </Form>
        </section>
      )}
      <h2>Tests</h2>
      <p>{e.testsPassed ? "Every section has passed: laterals may be connected." : "No building lateral is connected until every section has passed its tests (Sewer Use Law 502 A)."}</p>
      <TestResults sections={e.sections} />
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

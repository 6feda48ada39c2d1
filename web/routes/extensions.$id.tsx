import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { AsBuiltDrawings, ExtensionSummary, SECTION_FIELDS, TestResults, type Section } from "~/components/extension-tests";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Sewer extension | Tapline" }];

/** The notice form's visible labels by the keys the API reports. */
export const LABELS: Record<string, string> = {
  id: "Application",
  startsOn: "Construction starts on",
  documents: "As-built drawings",
  "documents.*.documentId": "As-built drawings",
  "documents.*.kind": "As-built drawings",
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
  documents: { documentId: string; kind: string; kindLabel: string; filename: string }[];
  sections: Section[];
  constructionProblems: string[];
  charges: { kind: string; label: string; amount: string; resolutionNumber: string; resolutionAdoptedOn: string; paid: boolean; paymentId: string | null }[];
  inspections: { id: string; inspectedOn: string; conforms: boolean; findings: string; excavationRequired: boolean }[];
  asBuiltCopies: number | null;
  finalApprovedAt: string | null;
  acceptedOn: string | null;
  acceptanceResolutionNumber: string | null;
  guaranteeEndsOn: string | null;
  securityKind: string | null;
  suretyName: string | null;
  bondNumber: string | null;
  securityDescription: string | null;
  guaranteeClaims: { id: string; noticedOn: string; defect: string }[];
};
type Data = Extension & { myDocuments: { id: string; filename: string }[] };

export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ sewerExtension: Extension; myDocuments: { id: string; filename: string }[] }>(
    args,
    `query Extension($id: ID!) { sewerExtension(id: $id) { id name organizationName status statusLabel location mapReference lots designFlowGpd decisionReason
      noticeGivenOn constructionStartsOn earliestConstructionStart testsPassed documents { documentId kind kindLabel filename } ${SECTION_FIELDS}
      constructionProblems charges { kind label amount resolutionNumber resolutionAdoptedOn paid paymentId } inspections { id inspectedOn conforms findings excavationRequired }
      asBuiltCopies finalApprovedAt acceptedOn acceptanceResolutionNumber guaranteeEndsOn securityKind suretyName bondNumber securityDescription guaranteeClaims { id noticedOn defect } }
      myDocuments { id filename } }`,
    { id: args.params.id },
  );
  return { ...d.sewerExtension, myDocuments: d.myDocuments } satisfies Data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  if (f.get("intent") === "asBuilt") {
    const documentId = String(f.get("documents") ?? "");
    const r = await gql(context, request, `mutation AsBuilt($i: AttachSewerExtensionDocumentsInput!) { attachSewerExtensionDocuments(input: $i) { id } }`, {
      i: { id: params.id, documents: documentId ? [{ documentId, kind: "AS_BUILT" }] : [] },
    });
    if (!r.ok) return Response.json({ intent: "asBuilt", error: r.error.message, fields: r.error.fields, startsOn: "" }, { status: 400, headers: cookieHeaders(r) });
    return redirect(`/extensions/${params.id}?done=asBuilt`, { headers: cookieHeaders(r) });
  }
  const startsOn = String(f.get("startsOn") ?? "").trim();
  const r = await gql(context, request, `mutation Notice($i: ConstructionNoticeInput!) { giveConstructionNotice(input: $i) { id } }`, { i: { id: params.id, startsOn } });
  if (!r.ok) return Response.json({ intent: "notice", error: r.error.message, fields: r.error.fields, startsOn }, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/extensions/${params.id}?done=notice`, { headers: cookieHeaders(r) });
}

/** A developer's sewer extension: where it stands, the notice of construction (Sewer Use Law 502 A) and the tests of each section (505). */
export default function ExtensionStatus() {
  const e = useLoaderData<typeof loader>() as Data;
  const action = useActionData<{ intent: string; error: string; fields: Record<string, string>; startsOn: string }>();
  const a = action?.intent === "notice" ? action : undefined;
  const b = action?.intent === "asBuilt" ? action : undefined;
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
      {params.get("done") === "asBuilt" && <SuccessAlert>The as-built drawings are filed. The District Operator reviews them.</SuccessAlert>}
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
            <TextField name="startsOn" label={LABELS.startsOn} type="date" hint="The first day of construction, not before the earliest date above." defaultValue={a?.startsOn} error={a?.fields?.startsOn} required />
            <button className="usa-button" type="submit">
              {e.constructionStartsOn ? "Give a new notice" : "Give notice"}
            </button>
          </Form>
        </section>
      )}
      {(e.status === "APPROVED" || e.status === "ACCEPTED") && (
        <section aria-labelledby="fees-heading">
          <h2 id="fees-heading">Fees and charges</h2>
          <p>
            You pay for the entire installation, and the inspection fees and proportionate share the Town Board sets by resolution; the inspection
            fees before construction starts (Sewer Use Law 502 A).
          </p>
          {e.charges.length === 0 ? (
            <p>The Town Board has set no charge on this extension: there is nothing to pay.</p>
          ) : (
            <ul className="usa-list">
              {e.charges.map((c) => (
                <li key={c.kind}>
                  {c.label}: {c.amount} (resolution {c.resolutionNumber} of <CalendarDate date={c.resolutionAdoptedOn} />
                  ), {c.paid ? "paid" : "not paid yet"}
                  {!c.paid && c.paymentId && (
                    <>
                      {" "}
                      <Link className="usa-link" to={`/payments/${c.paymentId}`}>
                        Pay {c.amount}
                      </Link>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
          {e.constructionProblems.length > 0 && (
            <>
              <p>Before construction starts:</p>
              <ul className="usa-list">
                {e.constructionProblems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
      <h2>Tests</h2>
      <p>{e.testsPassed ? "Every section has passed: laterals may be connected." : "No building lateral is connected until every section has passed its tests (Sewer Use Law 502 A)."}</p>
      <TestResults sections={e.sections} />
      {(e.status === "APPROVED" || e.status === "ACCEPTED") && (
        <>
          <h2>Inspections</h2>
          <p>The District Operator inspects construction without prior notice and reports the findings to the Town Board (Sewer Use Law 502 A).</p>
          {e.inspections.length === 0 ? (
            <p>No inspection recorded yet.</p>
          ) : (
            <ul className="usa-list">
              {e.inspections.map((i) => (
                <li key={i.id}>
                  <CalendarDate date={i.inspectedOn} />: {i.conforms ? "in accordance with the approved plans and specifications" : "not in accordance with the approved plans and specifications"}
                  {i.excavationRequired ? ", excavation required" : ""}. {i.findings}
                </li>
              ))}
            </ul>
          )}
          <h2>As-built drawings</h2>
          <AsBuiltDrawings documents={e.documents} />
          {e.asBuiltCopies !== null ? (
            <p>Approved by the District Operator.</p>
          ) : (
            <>
              <p>File the as-built drawings here and four paper copies with the District Operator before the sewer is accepted (Sewer Use Law 507).</p>
              {e.status === "APPROVED" && (
                <>
                  <ErrorSummary message={b?.error} fields={b?.fields} labels={LABELS} />
                  <Form method="post" className="usa-form">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="asBuilt" />
                    <SelectField
                      name="documents"
                      label={LABELS.documents}
                      hint="Choose from the files you uploaded (Account, Documents)."
                      options={[{ value: "", label: "Choose a file" }, ...e.myDocuments.map((d) => ({ value: d.id, label: d.filename }))]}
                      error={b?.fields?.documents}
                      required
                    />
                    <button className="usa-button" type="submit">
                      File the as-built drawings
                    </button>
                  </Form>
                </>
              )}
            </>
          )}
          <h2>Acceptance and guarantee</h2>
          {e.acceptedOn ? (
            <>
              <p>
                The Town accepted the sewer on <CalendarDate date={e.acceptedOn} /> (Town Board resolution {e.acceptanceResolutionNumber}): it is the Town's. You
                guarantee it against defects in materials or workmanship through <CalendarDate date={e.guaranteeEndsOn} />, secured by{" "}
                {e.securityKind === "SURETY_BOND" ? `surety bond ${e.bondNumber} of ${e.suretyName}` : e.securityDescription} (Sewer Use Law 507).
              </p>
              {e.guaranteeClaims.length > 0 && (
                <>
                  <p>Defects found under the guarantee:</p>
                  <ul className="usa-list">
                    {e.guaranteeClaims.map((c) => (
                      <li key={c.id}>
                        <CalendarDate date={c.noticedOn} />: {c.defect}
                      </li>
                    ))}
                  </ul>
                </>
              )}
            </>
          ) : e.finalApprovedAt ? (
            <p>The District Operator gave final approval and acceptance; the Town Board's concurrence is awaited (Sewer Use Law 507).</p>
          ) : (
            <p>
              The sewer becomes the Town's once every section has passed, the as-built drawings are approved, the District Operator accepts it and the Town
              Board concurs; your one-year guarantee, secured by a surety bond, runs from then (Sewer Use Law 507).
            </p>
          )}
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

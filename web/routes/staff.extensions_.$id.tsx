import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { ExtensionSummary, SECTION_FIELDS, TestResults, type Section } from "~/components/extension-tests";
import { NestedErrorBoundary, SelectField, TextAreaField } from "~/components/fields";
import { CalendarDate, todayIn } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Sewer extension review | Staff | Tapline" }];

/** The test's figures by the keys the API reports. */
const FIGURE_LABELS: Record<string, string> = {
  lengthFeet: "Length of the section (feet)",
  nominalDiameterInches: "Nominal pipe diameter (inches)",
  manholes: "Manholes in the section",
  periodMinutes: "Test period (minutes)",
  gallons: "Water measured over the period (gallons)",
  headAbovePipeTopFeet: "Head above the top of the pipe at the highest point (feet)",
  groundwaterAbovePipeTopFeet: "Groundwater above the top of the pipe (feet; 0 if below it)",
  downstreamHeadFeet: "Head at the downstream manhole (feet)",
  downstreamFreeboardInches: "Water below the top of the downstream manhole (inches)",
  filledHours: "Hours filled before measuring",
  insideDiameterInches: "Pipe inside diameter (inches)",
  mandrelDiameterInches: "Mandrel diameter (inches)",
  mandrelPassed: "The mandrel passed through the whole section",
  greatestDeflectionPercent: "Greatest deflection measured (percent, if measured)",
  testPressurePsi: "Test pressure (psi)",
  seconds: "Time for the drop (seconds)",
  depthFeet: "Manhole depth (feet)",
  manholeDiameterFeet: "Manhole diameter (feet)",
  operatingPressurePsi: "Normal operating pressure (psi)",
};

/** Every form's visible labels by the keys the API reports, in the page's order. */
export const LABELS: Record<string, string> = {
  id: "Application",
  confirmed: "Checklist",
  decision: "Decision",
  reason: "Reason the developer will read",
  notes: "Notes",
  extensionId: "Application",
  name: "Section name",
  sectionId: "Section",
  kind: "Kind of test",
  testedOn: "Day of the test",
  ...FIGURE_LABELS,
};

type Item = { key: string; label: string; section: string; kind: string; met: boolean };
type Extension = {
  id: string;
  districtId: string;
  name: string;
  organizationName: string;
  status: string;
  statusLabel: string;
  location: string;
  mapReference: string;
  lots: number;
  designFlowGpd: number;
  decisionReason: string | null;
  constructionStartsOn: string | null;
  testsPassed: boolean;
  documents: { documentId: string; kindLabel: string; filename: string }[];
  review: { items: Item[]; hasCapacity: boolean; capacityProblem: string | null; approvable: boolean } | null;
  sections: Section[];
};
type Kind = { kind: string; label: string; fields: string[] };
type Data = { e: Extension; kinds: Kind[]; isOperator: boolean; timeZone: string };
type ActionData = { error: string; fields: Record<string, string>; intent: string; values: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const d = await requireSignedIn<{ sewerExtension: Extension; extensionTestFields: Kind[] }>(
    args,
    `query StaffExtension($id: ID!) { sewerExtension(id: $id) { id districtId name organizationName status statusLabel location mapReference lots designFlowGpd decisionReason
      constructionStartsOn testsPassed documents { documentId kindLabel filename } review { items { key label section kind met } hasCapacity capacityProblem approvable }
      ${SECTION_FIELDS} } extensionTestFields { kind label fields } }`,
    { id: args.params.id },
  );
  const district = info.districts.find((x) => x.id === d.sewerExtension.districtId);
  return { e: d.sewerExtension, kinds: d.extensionTestFields, isOperator: !!district?.roles.includes("OPERATOR"), timeZone: district?.timeZone ?? "America/New_York" } satisfies Data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const intent = s("intent");
  const values = Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)]));
  let r;
  if (intent === "decide") {
    r = await gql(context, request, `mutation Decide($i: DecideSewerExtensionInput!) { decideSewerExtension(input: $i) { id } }`, {
      i: { id: params.id, decision: s("decision"), confirmed: f.getAll("confirmed").map(String), reason: s("reason") || null, notes: s("notes") || null },
    });
  } else if (intent === "section") {
    r = await gql(context, request, `mutation Section($i: AddExtensionTestSectionInput!) { addExtensionTestSection(input: $i) { id } }`, { i: { extensionId: params.id, name: s("name") } });
  } else {
    const figures: Record<string, number | boolean> = {};
    for (const k of Object.keys(FIGURE_LABELS)) {
      if (!f.has(k) || s(k) === "") continue;
      if (k === "mandrelPassed") figures[k] = s(k) === "yes";
      else figures[k] = Number.isFinite(Number(s(k))) ? Number(s(k)) : -1;
    }
    r = await gql(context, request, `mutation Test($i: RecordExtensionTestInput!) { recordExtensionTest(input: $i) { outcome } }`, {
      i: { sectionId: s("sectionId"), kind: s("kind"), testedOn: s("testedOn"), notes: s("notes") || null, ...figures },
    });
  }
  if (!r.ok) {
    // The checklist's error is the decision's: it sits on the decision's select, which the summary links to.
    const fields = { ...r.error.fields };
    if (fields.confirmed) {
      fields.decision = [fields.decision, fields.confirmed].filter(Boolean).join(" ");
      delete fields.confirmed;
    }
    return Response.json({ error: r.error.message, fields, intent, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/extensions/${params.id}?done=${intent}`, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = { decide: "The decision is recorded and the developer is told.", section: "The section is added.", test: "The test is entered and judged." };

/** Staff: the District Operator's review with its checklist and the capacity check (Sewer Use Law 501), the sections and test entry (505, 506 B). */
export default function StaffExtension() {
  const { e, kinds, isOperator, timeZone } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const kind = kinds.find((k) => k.kind === (params.get("kind") ?? a?.values?.kind)) ?? null;
  const err = (intent: string) => (a?.intent === intent ? a : undefined);
  const v = (intent: string, k: string) => err(intent)?.values?.[k];
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/extensions?districtId=${e.districtId}`}>
          Sewer extensions
        </Link>
      </p>
      <h1>{e.name}</h1>
      {DONE[params.get("done") ?? ""] && <SuccessAlert>{DONE[params.get("done")!]}</SuccessAlert>}
      {e.status !== "SUBMITTED" && e.status !== "DENIED" && (
        <p>
          <Link className="usa-link" to={`/staff/extensions/${e.id}/works`}>
            Construction and acceptance
          </Link>
          : the Board's charges, inspections, laterals on the extension, as-built drawings, acceptance and the guarantee (Sewer Use Law 502 A, 507).
        </p>
      )}
      <ExtensionSummary e={e}>
          {e.constructionStartsOn && (
            <>
              <dt>Construction starts</dt>
              <dd>
                <CalendarDate date={e.constructionStartsOn} />
              </dd>
            </>
          )}
      </ExtensionSummary>
      {e.review && (
        <section aria-labelledby="review-heading">
          <h2 id="review-heading">Review</h2>
          {e.review.capacityProblem && <p>{e.review.capacityProblem}</p>}
          <ErrorSummary message={err("decide")?.error} fields={err("decide")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="decide" />
            <fieldset className="usa-fieldset">
              <legend className="usa-legend">{LABELS.confirmed}</legend>
              <ul className="usa-list usa-list--unstyled">
                {e.review.items.map((i) =>
                  i.kind === "CONFIRM" && e.status === "SUBMITTED" && isOperator ? (
                    <li key={i.key} className="usa-checkbox">
                      <input className="usa-checkbox__input" type="checkbox" id={`confirm-${i.key}`} name="confirmed" value={i.key} defaultChecked={i.met} />
                      <label className="usa-checkbox__label" htmlFor={`confirm-${i.key}`}>
                        {i.label} ({i.section})
                      </label>
                    </li>
                  ) : (
                    <li key={i.key}>
                      {i.met ? "Met" : "Not met"}: {i.label} ({i.section})
                    </li>
                  ),
                )}
              </ul>
            </fieldset>
            {e.status === "SUBMITTED" && isOperator && (
              <>
                <SelectField name="decision" label={LABELS.decision} options={[{ value: "APPROVE", label: "Approve" }, { value: "DENY", label: "Deny" }]} defaultValue={v("decide", "decision") ?? (e.review.hasCapacity ? "APPROVE" : "DENY")} error={err("decide")?.fields?.decision} required />
                <TextAreaField name="reason" label={LABELS.reason} hint="Required to deny, unless for lack of capacity: the portal then states the reason." defaultValue={v("decide", "reason")} error={err("decide")?.fields?.reason} />
                <TextAreaField name="notes" label={LABELS.notes} defaultValue={v("decide", "notes")} error={err("decide")?.fields?.notes} />
                <button className="usa-button" type="submit">
                  Record the decision
                </button>
              </>
            )}
          </Form>
        </section>
      )}
      <h2>Tests</h2>
      <p>{e.testsPassed ? "Every section has passed: laterals may be connected." : "No building lateral is connected until every section has passed (Sewer Use Law 502 A)."}</p>
      <TestResults sections={e.sections} />
      {e.status === "APPROVED" && isOperator && (
        <>
          <h3>Add a section</h3>
          <ErrorSummary message={err("section")?.error} fields={err("section")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="section" />
            <TextField name="name" label={LABELS.name} hint='For example "MH-1 to MH-2", or a manhole "MH-3".' defaultValue={v("section", "name")} error={err("section")?.fields?.name} required />
            <button className="usa-button" type="submit">
              Add the section
            </button>
          </Form>
          {e.sections.length > 0 && (
            <>
              <h3>Enter a test</h3>
              <Form method="get" className="usa-form">
                <SelectField name="kind" id="choose-kind" label={LABELS.kind} options={kinds.map((k) => ({ value: k.kind, label: k.label }))} defaultValue={kind?.kind} />
                <button className="usa-button usa-button--outline" type="submit">
                  Show its figures
                </button>
              </Form>
              {kind && (
                <>
                  <ErrorSummary message={err("test")?.error} fields={err("test")?.fields} labels={LABELS} />
                  <Form method="post" className="usa-form usa-form--large">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="test" />
                    <input type="hidden" name="kind" value={kind.kind} />
                    <p>
                      <strong>{kind.label}</strong>
                    </p>
                    <SelectField name="sectionId" label={LABELS.sectionId} options={e.sections.map((x) => ({ value: x.id, label: x.name }))} defaultValue={v("test", "sectionId")} error={err("test")?.fields?.sectionId} required />
                    <TextField name="testedOn" label={LABELS.testedOn} type="date" defaultValue={v("test", "testedOn") ?? todayIn(timeZone)} error={err("test")?.fields?.testedOn} required />
                    {[...kind.fields, ...(kind.kind === "DEFLECTION" ? ["greatestDeflectionPercent"] : [])].map((k) =>
                      k === "mandrelPassed" ? (
                        <SelectField key={k} name={k} label={FIGURE_LABELS[k]} options={[{ value: "yes", label: "Yes" }, { value: "no", label: "No" }]} defaultValue={v("test", k)} error={err("test")?.fields?.[k]} required />
                      ) : (
                        <TextField key={k} name={k} label={FIGURE_LABELS[k]} inputMode="decimal" defaultValue={v("test", k)} error={err("test")?.fields?.[k]} required={k !== "greatestDeflectionPercent"} />
                      ),
                    )}
                    <TextAreaField name="notes" id="test-notes" label={LABELS.notes} defaultValue={v("test", "notes")} error={err("test")?.fields?.notes} />
                    <button className="usa-button" type="submit">
                      Enter the test
                    </button>
                  </Form>
                </>
              )}
            </>
          )}
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

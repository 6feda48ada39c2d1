import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, RadioGroup, TextAreaField } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Septic construction permit | Staff | Tapline" }];

/** The forms' visible labels by the keys the API reports, in the page's order. */
export const LABELS: Record<string, string> = {
  permitId: "Permit",
  decision: "Decision",
  reason: "Reasons",
  stage: "Stage of the work",
  result: "Result",
  inspectedOn: "Inspected on",
  notes: "Notes",
};

type Permit = {
  id: string;
  districtId: string;
  address: string;
  taxParcel: string;
  applicantName: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  systemKindLabel: string;
  buildings: { name: string; useLabel: string }[];
  percolationSummary: string;
  designerName: string;
  designerCredentialLabel: string;
  designerLicense: string;
  feeCents: number;
  feeSection: string | null;
  decisionReason: string | null;
  issuedOn: string | null;
  completedOn: string | null;
  systemId: string | null;
  documents: { documentId: string; kindLabel: string; filename: string }[];
  inspections: { id: string; inspectedOn: string; stageLabel: string; result: string; notes: string | null }[];
};

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const d = await requireSignedIn<{ septicPermit: Permit }>(
    args,
    `query StaffSepticPermit($id: ID!) { septicPermit(id: $id) { id districtId address taxParcel applicantName status statusLabel permitNumber systemKindLabel buildings { name useLabel }
      percolationSummary designerName designerCredentialLabel designerLicense feeCents feeSection decisionReason issuedOn completedOn systemId
      documents { documentId kindLabel filename } inspections { id inspectedOn stageLabel result notes } } }`,
    { id: args.params.id },
  );
  return { permit: d.septicPermit, operator: !!info.districts.find((x) => x.id === d.septicPermit.districtId)?.roles.includes("OPERATOR") };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const intent = s("intent") === "inspect" ? "inspect" : "decide";
  const r =
    intent === "decide"
      ? await gql(context, request, `mutation DecideSeptic($i: DecideSepticPermitInput!) { decideSepticPermit(input: $i) { id } }`, { i: { id: params.id, decision: s("decision"), reason: s("reason") || null } })
      : await gql(context, request, `mutation InspectSeptic($i: RecordSepticInspectionInput!) { recordSepticInspection(input: $i) { id } }`, {
          i: { permitId: params.id, stage: s("stage"), result: s("result"), inspectedOn: s("inspectedOn") || null, notes: s("notes") || null },
        });
  if (!r.ok) {
    const fields = { ...(r.error.fields ?? {}) };
    if (intent === "decide" && !fields.decision && !fields.reason && r.error.code !== "BAD_USER_INPUT") fields.decision = r.error.message;
    return Response.json({ intent, error: r.error.message, fields, values: Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)])) }, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/septic/permits/${params.id}?done=${intent}`, { headers: cookieHeaders(r) });
}

/** Staff: a septic construction permit application (SUL 403), the written permit (404) and inspections at any stage. */
export default function StaffSepticPermit() {
  const { permit: p, operator } = useLoaderData<typeof loader>() as { permit: Permit; operator: boolean };
  const a = useActionData<{ intent: string; error: string; fields: Record<string, string>; values: Record<string, string> }>();
  const [params] = useSearchParams();
  const e = (intent: string) => (a?.intent === intent ? a : null);
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/septic?districtId=${p.districtId}`}>
          Septic systems
        </Link>
      </p>
      <h1>Septic construction permit: {p.address}</h1>
      {params.get("done") === "decide" && <SuccessAlert>The decision is recorded and the owner emailed.</SuccessAlert>}
      {params.get("done") === "inspect" && <SuccessAlert>The inspection is recorded.</SuccessAlert>}
      <p>
        {p.statusLabel}
        {p.permitNumber ? `, permit ${p.permitNumber}` : ""}
        {p.issuedOn && (
          <>
            , issued <CalendarDate date={p.issuedOn} />
          </>
        )}
        {p.completedOn && (
          <>
            , complete <CalendarDate date={p.completedOn} />
          </>
        )}
        .{p.decisionReason ? ` ${p.decisionReason}` : ""}
      </p>
      {p.systemId && (
        <p>
          <Link className="usa-link" to={`/staff/septic/${p.systemId}`}>
            The system on the register
          </Link>
        </p>
      )}
      <dl>
        <dt>Applicant</dt>
        <dd>{p.applicantName}</dd>
        <dt>Tax parcel</dt>
        <dd>{p.taxParcel}</dd>
        <dt>System</dt>
        <dd>
          {p.systemKindLabel}, serving {p.buildings.map((b) => `${b.name} (${b.useLabel.toLowerCase()})`).join(", ")}
        </dd>
        <dt>Percolation tests</dt>
        <dd>{p.percolationSummary}</dd>
        <dt>Designer</dt>
        <dd>
          {p.designerName}, {p.designerCredentialLabel.toLowerCase()}, licence {p.designerLicense}
        </dd>
        <dt>Fee</dt>
        <dd>{p.feeCents > 0 ? `$${(p.feeCents / 100).toFixed(2)} (${p.feeSection})` : "None: the Town Board has set no fee"}</dd>
      </dl>
      <h2>Documents</h2>
      <ul className="usa-list">
        {p.documents.map((d) => (
          <li key={d.documentId}>
            {d.kindLabel}:{" "}
            <a className="usa-link" href={`/documents/${d.documentId}`}>
              {d.filename}
            </a>
          </li>
        ))}
      </ul>
      {operator && p.status === "SUBMITTED" && (
        <>
          <h2>Decision</h2>
          <ErrorSummary message={e("decide")?.error} fields={e("decide")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="decide" />
            <RadioGroup name="decision" legend={LABELS.decision} options={[{ value: "ISSUE", label: "Issue the written permit" }, { value: "DENY", label: "Deny" }]} defaultValue={e("decide")?.values.decision} error={e("decide")?.fields.decision} required />
            <TextAreaField name="reason" label={LABELS.reason} hint="Required to deny; the owner reads them." defaultValue={e("decide")?.values.reason} error={e("decide")?.fields.reason} />
            <button className="usa-button" type="submit">
              Record the decision
            </button>
          </Form>
        </>
      )}
      <h2>Inspections</h2>
      {p.inspections.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <ul className="usa-list">
          {p.inspections.map((i) => (
            <li key={i.id}>
              <CalendarDate date={i.inspectedOn} />, {i.stageLabel.toLowerCase()}: {i.result === "SATISFACTORY" ? "satisfactory" : "deficient"}
              {i.notes ? `. ${i.notes}` : ""}
            </li>
          ))}
        </ul>
      )}
      {operator && p.status === "ISSUED" && (
        <>
          <ErrorSummary message={e("inspect")?.error} fields={e("inspect")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="inspect" />
            <RadioGroup
              name="stage"
              legend={LABELS.stage}
              options={[
                { value: "SITE", label: "Site and percolation tests" },
                { value: "EXCAVATION", label: "Excavation" },
                { value: "TANK", label: "Tank set" },
                { value: "ABSORPTION_FIELD", label: "Absorption field" },
                { value: "FINAL", label: "Final: the system complete (registers it)" },
              ]}
              defaultValue={e("inspect")?.values.stage}
              error={e("inspect")?.fields.stage}
              required
            />
            <RadioGroup name="result" legend={LABELS.result} options={[{ value: "SATISFACTORY", label: "Satisfactory" }, { value: "DEFICIENT", label: "Deficient" }]} defaultValue={e("inspect")?.values.result} error={e("inspect")?.fields.result} required />
            <TextField name="inspectedOn" label={LABELS.inspectedOn} type="date" hint="Today unless given." defaultValue={e("inspect")?.values.inspectedOn} error={e("inspect")?.fields.inspectedOn} />
            <TextAreaField name="notes" label={LABELS.notes} hint="Required when deficient." defaultValue={e("inspect")?.values.notes} error={e("inspect")?.fields.notes} />
            <button className="usa-button" type="submit">
              Record the inspection
            </button>
          </Form>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { DocumentChoices } from "~/components/document-choices";
import { NestedErrorBoundary, RadioGroup, SelectField, TextAreaField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Apply for a septic system construction permit | Tapline" }];

/** The form's visible labels by the keys the API reports, in the form's order. */
export const LABELS: Record<string, string> = {
  propertyId: "Property",
  systemKind: "Kind of system",
  buildings: "Building 1",
  "buildings.*.name": "Building {n}",
  "buildings.*.use": "What building {n} is used for",
  "building-1-name": "Building 2",
  "building-2-name": "Building 3",
  percolationSummary: "Results of the percolation tests",
  designerName: "Designer",
  designerCredential: "The designer is a",
  designerLicense: "Designer's State licence number",
  documents: "Documents",
  "doc-PERCOLATION_TESTS": "Percolation test results (required)",
  "doc-COMPUTATIONS": "Computations (required)",
  "doc-PLOT_PLAN": "Plot plan with the design and cross-section (required)",
  "documents.*.documentId": "Document {n}",
  "documents.*.kind": "Document {n}: what it is",
};

const DOCUMENT_KINDS = ["PERCOLATION_TESTS", "COMPUTATIONS", "PLOT_PLAN"] as const;
const USES = [
  { value: "DWELLING", label: "A family's home" },
  { value: "BUSINESS", label: "A separate business" },
  { value: "ACCESSORY", label: "Accessory to another building (garage, shed, workshop)" },
];

type Property = { id: string; districtId: string; districtName: string; address: string; owners: { fromDate: string }[] | null };
type District = { id: string; name: string; permitsUnavailable: string | null; permitFeeCents: number; permitFeeSection: string };
type Data = { properties: Property[]; districts: District[]; documents: { id: string; filename: string }[] };

export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ myServiceProperties: Property[]; septicDistricts: District[]; myDocuments: { id: string; filename: string }[] }>(
    args,
    `query ApplySeptic { myServiceProperties { id districtId districtName address owners { fromDate } } septicDistricts { id name permitsUnavailable permitFeeCents permitFeeSection } myDocuments { id filename } }`,
  );
  return { properties: d.myServiceProperties.filter((p) => (p.owners ?? []).length > 0), districts: d.septicDistricts, documents: d.myDocuments } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const buildings = [0, 1, 2].map((i) => ({ name: s(`building-${i}-name`), use: s(`building-${i}-use`) })).filter((b, i) => i === 0 || b.name);
  const i = {
    propertyId: s("propertyId"),
    systemKind: s("systemKind"),
    buildings,
    percolationSummary: s("percolationSummary"),
    designerName: s("designerName"),
    designerCredential: s("designerCredential"),
    designerLicense: s("designerLicense"),
    documents: DOCUMENT_KINDS.map((kind) => ({ kind, documentId: s(`doc-${kind}`) })).filter((d) => d.documentId),
  };
  const r = await gql<{ applyForSepticPermit: { id: string } }>(context, request, `mutation ApplySeptic($i: ApplyForSepticPermitInput!) { applyForSepticPermit(input: $i) { id } }`, { i });
  if (!r.ok) {
    // The documents' error sits on the first missing document's select.
    const fields = { ...r.error.fields };
    if (fields.documents) {
      const missing = DOCUMENT_KINDS.find((k) => !s(`doc-${k}`)) ?? "PERCOLATION_TESTS";
      fields[`doc-${missing}`] = fields.documents;
      delete fields.documents;
    }
    return Response.json({ error: r.error.message, fields, values: Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)])) }, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/septic?done=applied`, { headers: cookieHeaders(r) });
}

export default function ApplySeptic() {
  const { properties, districts, documents } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string; fields: Record<string, string>; values: Record<string, string> }>();
  const v = a?.values ?? {};
  const e = a?.fields ?? {};
  const closed = districts.filter((d) => d.permitsUnavailable);
  return (
    <>
      <h1>Apply for a septic system construction permit</h1>
      <p className="usa-intro">
        The application carries the results of the percolation tests, the computations and a plot plan showing the system against the lot lines, wells and
        buildings, designed by a professional engineer, a licensed surveyor or an architect. The District Operator issues the written permit before
        construction starts (Sewer Use Law 403, 404).
      </p>
      {closed.map((d) => (
        <p key={d.id}>
          {d.name}: {d.permitsUnavailable}
        </p>
      ))}
      {districts
        .filter((d) => !d.permitsUnavailable)
        .map((d) => (
          <p key={d.id}>
            {d.name}:{" "}
            {d.permitFeeCents > 0
              ? `the permit fee is $${(d.permitFeeCents / 100).toFixed(2)} (${d.permitFeeSection}), paid online once you apply.`
              : `the Town Board has set no permit fee (${d.permitFeeSection}): there is nothing to pay.`}
          </p>
        ))}
      <ErrorSummary message={a?.error} fields={e} labels={LABELS} />
      {properties.length === 0 ? (
        <p>
          No property is linked to your sign-in as its owner of record. Ask the Town Clerk to link it, then come back. <Link className="usa-link" to="/septic">My septic systems</Link>
        </p>
      ) : (
        <Form method="post" className="usa-form usa-form--large">
          <AuthenticityTokenInput />
          <SelectField name="propertyId" label={LABELS.propertyId} options={properties.map((p) => ({ value: p.id, label: `${p.address} (${p.districtName})` }))} defaultValue={v.propertyId} error={e.propertyId} required />
          <RadioGroup name="systemKind" legend={LABELS.systemKind} options={[{ value: "SEPTIC_TANK", label: "Septic tank and absorption field" }, { value: "CESSPOOL", label: "Cesspool" }]} defaultValue={v.systemKind} error={e.systemKind} required />
          <fieldset className="usa-fieldset">
            <legend className="usa-legend">Buildings the system serves</legend>
            <p className="usa-hint">No two separate buildings, each a family's home or a separate business, may share one septic tank (Sewer Use Law 402).</p>
            {[0, 1, 2].map((i) => (
              <div key={i}>
                <TextField name={`building-${i}-name`} id={i === 0 ? "buildings" : `building-${i}-name`} label={i === 0 ? LABELS.buildings : LABELS[`building-${i}-name`]} hint={i === 0 ? 'e.g. "House"' : "Leave empty if none"} defaultValue={v[`building-${i}-name`]} error={i === 0 ? e.buildings : e[`building-${i}-name`]} required={i === 0} />
                <SelectField name={`building-${i}-use`} id={`building-${i}-use`} label={`What building ${i + 1} is used for`} options={USES} defaultValue={v[`building-${i}-use`]} />
              </div>
            ))}
          </fieldset>
          <TextAreaField name="percolationSummary" label={LABELS.percolationSummary} hint='e.g. "Three test holes, 12 minutes per inch"' defaultValue={v.percolationSummary} error={e.percolationSummary} required />
          <TextField name="designerName" label={LABELS.designerName} defaultValue={v.designerName} error={e.designerName} required />
          <RadioGroup
            name="designerCredential"
            legend={LABELS.designerCredential}
            options={[
              { value: "PROFESSIONAL_ENGINEER", label: "Professional engineer" },
              { value: "LICENSED_SURVEYOR", label: "Licensed surveyor" },
              { value: "ARCHITECT", label: "Architect" },
            ]}
            defaultValue={v.designerCredential}
            error={e.designerCredential}
            required
          />
          <TextField name="designerLicense" label={LABELS.designerLicense} defaultValue={v.designerLicense} error={e.designerLicense} required />
          <DocumentChoices legend={"Documents"} kinds={DOCUMENT_KINDS} labels={LABELS} documents={documents} values={v} errors={e} />
          <button className="usa-button" type="submit">
            Apply
          </button>
        </Form>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

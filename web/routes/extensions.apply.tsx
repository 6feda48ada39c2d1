import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { DocumentChoices } from "~/components/document-choices";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Apply for a sewer extension | Tapline" }];

/** The form's visible labels by the keys the API reports, in the form's order. */
export const LABELS: Record<string, string> = {
  organizationId: "Developer",
  districtId: "Sewer district",
  name: "Subdivision or project",
  location: "Where: streets and area served",
  mapReference: "Map reference (subdivision map or tax map sheet)",
  lots: "Number of lots",
  designFlowGpd: "Design flow (gallons per day)",
  receivingSegmentId: "Receiving sewer segment",
  plantId: "Treatment plant",
  sewerType: "Kind of sewer",
  pipeDiameterInches: "Pipe inside diameter (inches)",
  pipePvc: "Pipe material",
  designerName: "Licensed design professional",
  designerLicense: "Design professional's State licence number",
  documents: "Documents",
  "doc-PLANS": "Plans (required)",
  "doc-SPECIFICATIONS": "Specifications (required)",
  "doc-CALCULATIONS": "Design calculations",
  "doc-STATE_APPROVAL": "State approval (Health Department, NYSDEC)",
  "doc-PIPE_TEST_RESULTS": "Manufacturer's pipe test results",
  "documents.*.documentId": "Document {n}",
  "documents.*.kind": "Document {n}: what it is",
};

const DOCUMENT_KINDS = ["PLANS", "SPECIFICATIONS", "CALCULATIONS", "STATE_APPROVAL", "PIPE_TEST_RESULTS"] as const;

type District = { id: string; name: string; provided: boolean; section: string; lines: { id: string; kind: string; name: string }[] };
type Data = { organizations: { id: string; name: string }[]; districts: District[]; documents: { id: string; filename: string }[]; districtId: string | null };

export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ myOrganizations: { organization: { id: string; name: string; kind: string } }[]; sewerExtensionDistricts: District[]; myDocuments: { id: string; filename: string }[] }>(
    args,
    `query ApplyExtension { myOrganizations { organization { id name kind } } sewerExtensionDistricts { id name provided section lines { id kind name } } myDocuments { id filename } }`,
  );
  const districts = d.sewerExtensionDistricts;
  const asked = new URL(args.request.url).searchParams.get("districtId");
  return {
    organizations: d.myOrganizations.filter((m) => m.organization.kind === "DEVELOPER").map((m) => m.organization),
    districts,
    documents: d.myDocuments,
    districtId: districts.some((x) => x.id === asked && x.provided) ? asked : null,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const n = (k: string) => (s(k) === "" ? NaN : Number(s(k)));
  const documents = DOCUMENT_KINDS.map((kind) => ({ kind, documentId: s(`doc-${kind}`) })).filter((d) => d.documentId);
  const i = {
    districtId: s("districtId"),
    organizationId: s("organizationId"),
    name: s("name"),
    location: s("location"),
    mapReference: s("mapReference"),
    lots: Number.isInteger(n("lots")) ? n("lots") : -1,
    designFlowGpd: Number.isInteger(n("designFlowGpd")) ? n("designFlowGpd") : -1,
    sewerType: s("sewerType"),
    pipeDiameterInches: Number.isFinite(n("pipeDiameterInches")) ? n("pipeDiameterInches") : -1,
    pipePvc: s("pipePvc") !== "OTHER",
    designerName: s("designerName"),
    designerLicense: s("designerLicense"),
    receivingSegmentId: s("receivingSegmentId"),
    plantId: s("plantId"),
    documents,
  };
  const r = await gql<{ applyForSewerExtension: { id: string } }>(context, request, `mutation ApplyExtension($i: ApplyForSewerExtensionInput!) { applyForSewerExtension(input: $i) { id } }`, { i });
  if (!r.ok) {
    // The documents' error sits on the first document's select, which the summary links to.
    const fields = { ...r.error.fields };
    if (fields.documents) {
      fields["doc-PLANS"] = fields.documents;
      delete fields.documents;
    }
    return Response.json({ error: r.error.message, fields, values: Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)])) }, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/extensions/${r.data.applyForSewerExtension.id}?done=applied`, { headers: cookieHeaders(r) });
}

export default function ApplyExtension() {
  const { organizations, districts, documents, districtId } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string; fields: Record<string, string>; values: Record<string, string> }>();
  const v = a?.values ?? {};
  const e = a?.fields ?? {};
  const open = districts.filter((d) => d.provided);
  const chosen = open.find((d) => d.id === (v.districtId ?? districtId)) ?? null;
  return (
    <>
      <h1>Apply for a sewer extension</h1>
      <p className="usa-intro">
        The District Operator reviews the plans and specifications, stamped by a professional licensed to design sewers in the State, and checks the
        capacity left in the receiving sewer and the treatment plant (Sewer Use Law 501, 502).
      </p>
      {districts
        .filter((d) => !d.provided)
        .map((d) => (
          <p key={d.id}>
            {d.name}: its law has no procedure for new sewers built by developers ({d.section}).
          </p>
        ))}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      {organizations.length === 0 ? (
        <p>
          A developer applies as an organization.{" "}
          <Link className="usa-link" to={`/account/organizations?returnTo=${encodeURIComponent("/extensions/apply")}`}>
            Set up your developer organization
          </Link>
          .
        </p>
      ) : !chosen ? (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label={LABELS.districtId} options={open.map((d) => ({ value: d.id, label: d.name }))} required />
          <button className="usa-button" type="submit">
            Continue
          </button>
        </Form>
      ) : (
        <Form method="post" className="usa-form usa-form--large">
          <AuthenticityTokenInput />
          <input type="hidden" name="districtId" value={chosen.id} />
          <p>
            Sewer district: <strong>{chosen.name}</strong> <Link className="usa-link" to="/extensions/apply">(choose another)</Link>
          </p>
          <SelectField name="organizationId" label={LABELS.organizationId} options={organizations.map((o) => ({ value: o.id, label: o.name }))} defaultValue={v.organizationId} error={e.organizationId} required />
          <TextField name="name" label={LABELS.name} defaultValue={v.name} error={e.name} required />
          <TextField name="location" label={LABELS.location} defaultValue={v.location} error={e.location} required />
          <TextField name="mapReference" label={LABELS.mapReference} defaultValue={v.mapReference} error={e.mapReference} required />
          <TextField name="lots" label={LABELS.lots} inputMode="numeric" defaultValue={v.lots} error={e.lots} required />
          <TextField name="designFlowGpd" label={LABELS.designFlowGpd} inputMode="numeric" defaultValue={v.designFlowGpd} error={e.designFlowGpd} required />
          <SelectField name="receivingSegmentId" label={LABELS.receivingSegmentId} options={chosen.lines.filter((l) => l.kind === "SEGMENT").map((l) => ({ value: l.id, label: l.name }))} defaultValue={v.receivingSegmentId} error={e.receivingSegmentId} required />
          <SelectField name="plantId" label={LABELS.plantId} options={chosen.lines.filter((l) => l.kind === "PLANT").map((l) => ({ value: l.id, label: l.name }))} defaultValue={v.plantId} error={e.plantId} required />
          <SelectField name="sewerType" label={LABELS.sewerType} hint="Gravity sewers are at least 8 inches across inside, low-pressure sewers 4 (Sewer Use Law 503 A)." options={[{ value: "GRAVITY", label: "Gravity sewer" }, { value: "LOW_PRESSURE", label: "Low-pressure sewer" }]} defaultValue={v.sewerType} error={e.sewerType} required />
          <TextField name="pipeDiameterInches" label={LABELS.pipeDiameterInches} inputMode="decimal" defaultValue={v.pipeDiameterInches} error={e.pipeDiameterInches} required />
          <SelectField name="pipePvc" label={LABELS.pipePvc} options={[{ value: "PVC", label: "Heavy wall PVC to the listed ASTM specifications" }, { value: "OTHER", label: "Other (needs the Operator's written approval)" }]} defaultValue={v.pipePvc} error={e.pipePvc} required />
          <TextField name="designerName" label={LABELS.designerName} defaultValue={v.designerName} error={e.designerName} required />
          <TextField name="designerLicense" label={LABELS.designerLicense} defaultValue={v.designerLicense} error={e.designerLicense} required />
          <DocumentChoices legend={LABELS.documents} kinds={DOCUMENT_KINDS} labels={LABELS} documents={documents} values={v} errors={e} />
          <button className="usa-button" type="submit">
            Apply
          </button>
        </Form>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import { Form, useNavigation } from "@remix-run/react";
import { Link } from "~/components/link";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { Notice, RadioGroup, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import type { PermitActionData } from "~/components/permit-form.server";

/** What the application form shows: the district, its contractors and fees, my documents, and the saved draft. */
export type PermitFormData = {
  district: {
    id: string;
    slug: string;
    name: string;
    operatorTitle: string;
    rulebook: { entries: { key: string; label: string; section: string; display: string; applies: boolean }[] };
  };
  approvedContractors: { id: string; name: string }[];
  /** What the application carries in this district today (a submitted one: permit.requirements) */
  lateralApplicationRequirements: Requirements;
  moratoria: { id: string; segmentName: string; streets: string[]; reason: string; section: string }[];
  myDocuments: { id: string; filename: string; contentType: string }[];
  documentUploadPolicy: { maxSize: string };
  permit: null | {
    id: string;
    status: string;
    reviewNotes: string | null;
    submittedAt: string | null;
    permitClass: string | null;
    buildingUse: string | null;
    floorAreaSqft: number | null;
    workKind: string | null;
    streetNumber: string | null;
    street: string | null;
    city: string | null;
    zip: string | null;
    taxParcel: string | null;
    ownerName: string | null;
    agentName: string | null;
    contractorId: string | null;
    contractor: { id: string; name: string; standing: { choosable: boolean; reasons: string[] } } | null;
    asBuiltSheets: number | null;
    workDoneBy: string | null;
    requirements: Requirements;
    documents: { id: string }[];
  };
};

type Requirements = {
  plans: { required: boolean; section: string };
  approvedContractor: { required: boolean; section: string };
  asBuiltDrawings: { required: boolean; section: string; copies: number | null };
  floorArea: boolean;
};
const REQUIREMENTS = `plans { required section } approvedContractor { required section } asBuiltDrawings { required section copies } floorArea`;

/**
 * What the form shows that anyone may read: one operation of public fields only, so its answer is
 * kept as a public answer (api/graphql/cache.ts) and a form costs no SQL for it.
 */
export const FORM_PUBLIC_QUERY = `query PermitFormPublic($slug: String!) {
  district(slug: $slug) { id slug name operatorTitle rulebook { entries { key label section display applies } } }
  lateralApplicationRequirements(districtSlug: $slug) { ${REQUIREMENTS} }
}`;

/**
 * The rest, read on every request: the approved contractors and the moratoria in force today
 * (neither is kept as a public answer: staff change them), and the applicant's own documents and
 * upload limit.
 */
export const FORM_PRIVATE_QUERY = `query PermitFormPrivate($slug: String!) {
  approvedContractors(districtSlug: $slug) { id name }
  moratoria(districtSlug: $slug) { id segmentName streets reason section }
  myDocuments { id filename contentType }
  documentUploadPolicy { maxSize }
}`;

export const PERMIT_FORM_FIELDS = `id status reviewNotes submittedAt permitClass buildingUse floorAreaSqft workKind streetNumber street city zip taxParcel ownerName agentName
  contractorId contractor { id name standing { choosable reasons } } workDoneBy asBuiltSheets requirements { ${REQUIREMENTS} } documents { id }`;

/**
 * The form's labels in its order, by the keys the API reports (the plans' keys, documentIds and
 * newPlans, are shown on the plans fieldset: permit-form.server.ts's pageFields).
 */
export const LABELS: Record<string, string> = {
  districtId: "District",
  streetNumber: "House number",
  street: "Street",
  city: "City, town or village",
  zip: "ZIP code",
  taxParcel: "Tax parcel number",
  ownerName: "Owner's name",
  agentName: "Agent's name (if you apply for the owner)",
  permitClass: "Class of permit",
  buildingUse: "Building use",
  floorAreaSqft: "Floor area of the building, in square feet",
  workKind: "Kind of work",
  contractorId: "Contractor",
  workDoneBy: "Who will do the work",
  asBuiltSheets: "Number of sheets of plans showing lateral connections",
  plans: "Plans and specifications",
  documentIds: "Plans and specifications",
  newPlans: "Plans and specifications",
  "newPlans.*.filename": "Plans and specifications",
  "newPlans.*.contentBase64": "Plans and specifications",
  "newPlans.*.organizationId": "Plans and specifications",
};

/** The rulebook's entries the form shows (its fees); the loader sends the page these alone. */
export const FEE_KEYS = ["lateral.fee.residential", "lateral.fee.commercialPerSquareFoot", "lateral.impactFee", "lateral.asBuiltDepositPerSheet"];
const FEE_SECTIONS = (data: PermitFormData) => [...new Set(data.district.rulebook.entries.filter((x) => FEE_KEYS.includes(x.key)).map((x) => x.section))].join(", ");
const TYPE_LABELS: Record<string, string> = { "application/pdf": "PDF", "image/png": "PNG", "image/jpeg": "JPEG" };

export function PermitForm({ data, action }: { data: PermitFormData; action?: PermitActionData }) {
  const p = data.permit;
  const v = action?.values;
  const e = action?.fields ?? {};
  const val = (k: string, saved: string | number | null | undefined) => (v ? v[k] : (saved ?? "")) as string;
  const chosenDocs = new Set(v ? v.documentIds.split(",").filter(Boolean) : (p?.documents.map((d) => d.id) ?? []));
  const id = action?.id ?? p?.id ?? null;
  const afterSubmission = !!p?.submittedAt;
  const busy = useNavigation().state === "submitting";
  const needs = p?.requirements ?? data.lateralApplicationRequirements;
  const fees = data.district.rulebook.entries.filter((x) => FEE_KEYS.includes(x.key) && x.applies);
  const contractorOptions = [{ value: "", label: "Choose a contractor" }, ...data.approvedContractors.map((c) => ({ value: c.id, label: c.name }))];
  if (p?.contractor && !data.approvedContractors.some((c) => c.id === p.contractor!.id))
    contractorOptions.push({ value: p.contractor.id, label: `${p.contractor.name} (can no longer be chosen)` });
  const plansError = e.plans;

  return (
    <>
      <ErrorSummary message={action?.error} fields={e} labels={LABELS} />
      {p?.status === "CHANGES_REQUESTED" && p.reviewNotes && (
        <Notice type="warning">
          <strong>The {data.district.operatorTitle} asks for changes:</strong> {p.reviewNotes}
        </Notice>
      )}
      {data.moratoria.length > 0 && (
        <Notice type="warning">
          New connections are refused on some streets:{" "}
          {data.moratoria.map((m) => `${m.segmentName} (${m.streets.join(", ")}): ${m.reason} (${m.section})`).join("; ")}
        </Notice>
      )}
      <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large" noValidate>
        <AuthenticityTokenInput />
        {id && <input type="hidden" name="id" value={id} />}
        <input type="hidden" name="districtId" value={data.district.id} />

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">The property</legend>
          <TextField name="streetNumber" label={LABELS.streetNumber} defaultValue={val("streetNumber", p?.streetNumber)} error={e.streetNumber} autoComplete="off" required />
          <TextField name="street" label={LABELS.street} hint="For example: Orchard Lane" defaultValue={val("street", p?.street)} error={e.street} required />
          <TextField name="city" label={LABELS.city} defaultValue={val("city", p?.city)} error={e.city} required />
          <TextField name="zip" label={LABELS.zip} defaultValue={val("zip", p?.zip)} error={e.zip} inputMode="numeric" required />
          <TextField name="taxParcel" label={LABELS.taxParcel} hint="Section-block-lot, as on the tax bill, e.g. 101.2-3-4" defaultValue={val("taxParcel", p?.taxParcel)} error={e.taxParcel} required />
          <TextField name="ownerName" label={LABELS.ownerName} defaultValue={val("ownerName", p?.ownerName)} error={e.ownerName} required />
          <TextField name="agentName" label={LABELS.agentName} defaultValue={val("agentName", p?.agentName)} error={e.agentName} />
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">The building and the work</legend>
          <RadioGroup
            name="permitClass"
            legend={LABELS.permitClass}
            error={e.permitClass}
            defaultValue={val("permitClass", p?.permitClass)}
            options={[
              { value: "RESIDENTIAL_COMMERCIAL_INSTITUTIONAL", label: "Class 1: residential, commercial or institutional service" },
              { value: "INDUSTRIAL", label: "Class 2: a building producing industrial wastes" },
            ]}
            required
          />
          <RadioGroup
            name="buildingUse"
            legend={LABELS.buildingUse}
            hint={afterSubmission ? "The fee was computed from this when you submitted; it cannot change now." : undefined}
            error={e.buildingUse}
            defaultValue={val("buildingUse", p?.buildingUse)}
            options={[
              { value: "RESIDENTIAL", label: "Residential" },
              { value: "COMMERCIAL", label: "Commercial" },
              { value: "INSTITUTIONAL", label: "Institutional" },
              { value: "INDUSTRIAL", label: "Industrial" },
            ]}
            required
          />
          {needs.floorArea && (
            <TextField
              name="floorAreaSqft"
              label={LABELS.floorAreaSqft}
              hint="Needed for commercial, institutional and industrial buildings: their fee is charged per square foot."
              defaultValue={val("floorAreaSqft", p?.floorAreaSqft)}
              error={e.floorAreaSqft}
              inputMode="numeric"
            />
          )}
          <RadioGroup
            name="workKind"
            legend={LABELS.workKind}
            error={e.workKind}
            defaultValue={val("workKind", p?.workKind)}
            options={[
              { value: "NEW_BUILDING", label: "A new building to connect" },
              { value: "EXISTING_LATERAL", label: "Work on an existing lateral" },
            ]}
            required
          />
          {needs.approvedContractor.required ? (
            <>
              <SelectField
                name="contractorId"
                label={LABELS.contractorId}
                hint={`From ${data.district.name}'s list of approved contractors (${needs.approvedContractor.section}).`}
                options={contractorOptions}
                defaultValue={val("contractorId", p?.contractorId)}
                error={e.contractorId}
                required
              />
              <p className="usa-hint">
                {data.approvedContractors.length === 0 ? "No contractor is on the district's list today. " : ""}
                <Link className="usa-link" to={`/contractors/${data.district.slug}`}>
                  See the list of approved contractors
                </Link>
                ; a contractor not on it can{" "}
                <Link className="usa-link" to={`/contractors/apply?district=${data.district.slug}`}>
                  apply to be approved
                </Link>
                .
              </p>
            </>
          ) : (
            <TextField
              name="workDoneBy"
              label={LABELS.workDoneBy}
              hint={`The owner, or the plumber or contractor the owner hires. ${data.district.name} keeps no list of approved contractors (${needs.approvedContractor.section}).`}
              defaultValue={val("workDoneBy", p?.workDoneBy)}
              error={e.workDoneBy}
              required
            />
          )}
        </fieldset>

        <fieldset className="usa-fieldset" aria-describedby="plans-hint">
          <legend className={`usa-legend usa-legend--large${plansError ? " usa-label--error" : ""}`} id="plans">
            {LABELS.plans} {needs.plans.required ? <span className="usa-hint">(required)</span> : <span className="usa-hint">(optional)</span>}
          </legend>
          <div className="usa-hint" id="plans-hint">
            {needs.plans.required
              ? `Attach the plans showing the lateral and its connection (${needs.plans.section})`
              : `Attach plans now if you have them; the ${data.district.operatorTitle} may ask for plans, specifications or other information the work needs (${needs.plans.section})`}
            : PDF, PNG or JPEG, up to {data.documentUploadPolicy.maxSize} each.
          </div>
          {plansError && (
            <span className="usa-error-message" role="alert">
              {plansError}
            </span>
          )}
          {data.myDocuments.map((d) => (
            <div className="usa-checkbox" key={d.id}>
              <input
                className="usa-checkbox__input"
                id={`doc-${d.id}`}
                type="checkbox"
                name="documentIds"
                value={d.id}
                defaultChecked={chosenDocs.has(d.id)}
                aria-invalid={plansError ? true : undefined}
              />
              <label className="usa-checkbox__label" htmlFor={`doc-${d.id}`}>
                {d.filename} ({TYPE_LABELS[d.contentType] ?? d.contentType})
              </label>
            </div>
          ))}
          <div className="usa-form-group">
            <label className="usa-label" htmlFor="file">
              Upload a plan
            </label>
            <input
              className="usa-file-input"
              id="file"
              name="file"
              type="file"
              accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"
              aria-invalid={plansError ? true : undefined}
            />
          </div>
          {needs.asBuiltDrawings.required && (
            <TextField
              name="asBuiltSheets"
              label={LABELS.asBuiltSheets}
              hint={
                afterSubmission
                  ? "The deposit was computed from this when you submitted; it cannot change now."
                  : `The as-built deposit is charged per sheet and refunded when the record drawings are approved (${needs.asBuiltDrawings.section}).`
              }
              defaultValue={val("asBuiltSheets", p?.asBuiltSheets)}
              error={e.asBuiltSheets}
              inputMode="numeric"
              required
            />
          )}
        </fieldset>

        <section className="usa-summary-box margin-top-3" aria-labelledby="fees-heading">
          <div className="usa-summary-box__body">
            <h2 className="usa-summary-box__heading" id="fees-heading">
              {afterSubmission ? "Your fees" : "Fees"}
            </h2>
            <div className="usa-summary-box__text">
              {afterSubmission ? (
                <p>The fees were computed when you first submitted and stay as they were: you do not pay twice.</p>
              ) : (
                <>
                  {fees.length ? (
                    <>
                      <p>The district computes your fees when you submit, from its rulebook in force that day:</p>
                      <ul className="usa-list">
                        {fees.map((f) => (
                          <li key={f.key}>
                            {f.label}: {f.display} ({f.section})
                          </li>
                        ))}
                      </ul>
                    </>
                  ) : (
                    <p>
                      No fee: {data.district.name}'s law states none and its Town Board has set none ({FEE_SECTIONS(data)}). The owner bears the costs of the work.
                      The permit is issued without a payment step.
                    </p>
                  )}
                </>
              )}
            </div>
          </div>
        </section>

        <div className="margin-top-3">
          <button className="usa-button" type="submit" name="intent" value="submit" disabled={busy}>
            {afterSubmission ? "Submit the changes" : "Submit the application"}
          </button>
          <button className="usa-button usa-button--outline" type="submit" name="intent" value="save" disabled={busy}>
            Save as draft
          </button>
        </div>
      </Form>
      {id && (
        <p className="margin-top-3">
          <Link className="usa-link" to={`/permits/${id}`}>
            Back to the application's page
          </Link>
        </p>
      )}
    </>
  );
}

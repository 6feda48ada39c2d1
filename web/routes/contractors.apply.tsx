import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { clockOf, formatCalendarDate, formatDayOf } from "~/components/format";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, type GqlResult } from "~/graphql.server";
import { money, centsToDollars, dollarsToCents } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "Apply to be an approved contractor | Tapline" }];

type Requirement = { label: string; section: string; note: string | null; required: boolean; minimumCents: number | null };
type Requirements = {
  approvedListEnabled: boolean;
  list: Requirement;
  bond: Requirement;
  coverages: (Requirement & { coverage: string })[];
  cancellationNoticeBusinessDays: number | null;
  cancellationNotice: Requirement;
};
type District = { id: string; slug: string; name: string; timeZone: string };
type Doc = { id: string; filename: string; createdAt: string };
type Application = {
  id: string;
  status: string;
  organization: { id: string; name: string };
  district: { id: string; slug: string; name: string };
  bond: { amountCents: number; expiresOn: string; documentId: string };
  insurance: { coverage: string; insurer: string; policyNumber: string; limitCents: number | null; expiresOn: string; certificateDocumentId: string }[];
};
type Values = Record<string, string>;
type Data = {
  districts: District[];
  district: District;
  requirements: Requirements;
  firms: { id: string; name: string }[];
  documents: Doc[];
  maxSize: string;
  editing: Application | null;
  /** Filing a renewal of an approved contractor's bond and/or certificates (`?id=...&renew=1`). */
  renewing: boolean;
  defaults: Values;
};
type ActionData = { error: string; fields: Record<string, string>; values: Values };

const PATH = "/contractors/apply";
const COVERAGES = [
  "WORKERS_COMPENSATION",
  "PERSONAL_INJURY_PER_OCCURRENCE",
  "PERSONAL_INJURY_AGGREGATE",
  "PROPERTY_DAMAGE",
  "AUTO_BODILY_INJURY_PER_PERSON",
  "AUTO_BODILY_INJURY_PER_OCCURRENCE",
  "AUTO_PROPERTY_DAMAGE",
  "EXCESS_LIABILITY",
];
const INSURANCE_FIELDS = ["insurer", "policyNumber", "limit", "expiresOn", "documentId"] as const;
const TEXT_KEYS = ["organizationId", "districtId", "bondAmount", "bondExpiresOn", "bondDocumentId", ...COVERAGES.flatMap((c) => INSURANCE_FIELDS.map((f) => `${c}-${f}`))];

/**
 * The visible labels of the form's fields, and of the API's keys (fieldsForPage turns those into the
 * form's: a certificate's fields are named under their coverage's legend on the page).
 */
export const LABELS: Record<string, string> = {
  organizationId: "Contracting firm",
  districtId: "District",
  bondAmount: "Bond amount, in dollars",
  bondExpiresOn: "Bond expires on",
  bondDocumentId: "The bond",
  bondAmountCents: "Bond amount, in dollars",
  contractorId: "Contractor",
  insurance: "Certificates of insurance",
  "insurance.*.coverage": "Certificate {n}: Coverage",
  "insurance.*.insurer": "Certificate {n}: Insurance company",
  "insurance.*.policyNumber": "Certificate {n}: Policy number",
  "insurance.*.limitCents": "Certificate {n}: Limit, in dollars",
  "insurance.*.expiresOn": "Certificate {n}: Policy expires on",
  "insurance.*.certificateDocumentId": "Certificate {n}: Certificate of insurance",
};

const REQ = `label section note required minimumCents`;
const REQUIREMENTS = `query ContractorRequirements($slug: String!) {
  contractorRequirements(districtSlug: $slug) {
    approvedListEnabled list { ${REQ} } bond { ${REQ} } coverages { coverage ${REQ} } cancellationNoticeBusinessDays cancellationNotice { ${REQ} }
  }
}`;
const BASE = `query ContractorApplyPage {
  districts { id slug name timeZone }
  myOrganizations { role organization { id name kind } }
  myDocuments { id filename createdAt }
  documentUploadPolicy { maxSize }
  myContractorApplications {
    id status organization { id name } district { id slug name }
    bond { amountCents expiresOn documentId }
    insurance { coverage insurer policyNumber limitCents expiresOn certificateDocumentId }
  }
}`;

function defaultsFrom(a: Application | null, firms: { id: string }[]): Values {
  const v: Values = {};
  if (!a) {
    if (firms.length === 1) v.organizationId = firms[0].id;
    return v;
  }
  v.organizationId = a.organization.id;
  v.bondAmount = centsToDollars(a.bond.amountCents);
  v.bondExpiresOn = a.bond.expiresOn;
  v.bondDocumentId = a.bond.documentId;
  for (const i of a.insurance) {
    v[`${i.coverage}-insurer`] = i.insurer;
    v[`${i.coverage}-policyNumber`] = i.policyNumber;
    v[`${i.coverage}-limit`] = i.limitCents === null ? "" : centsToDollars(i.limitCents);
    v[`${i.coverage}-expiresOn`] = i.expiresOn;
    v[`${i.coverage}-documentId`] = i.certificateDocumentId;
  }
  return v;
}

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const base = await requireSignedIn<{
    districts: District[];
    myOrganizations: { role: string; organization: { id: string; name: string; kind: string } }[];
    myDocuments: Doc[];
    documentUploadPolicy: { maxSize: string };
    myContractorApplications: Application[];
  }>(args, BASE);
  const editId = url.searchParams.get("id");
  const editing = editId ? (base.myContractorApplications.find((a) => a.id === editId) ?? null) : null;
  if (editId && !editing) throw new Response("That application was not found.", { status: 404 });
  const renewing = !!editing && url.searchParams.get("renew") === "1";

  // The district: as asked, else the one being changed, else the first that keeps an approved list.
  const asked = url.searchParams.get("district") ?? editing?.district.slug ?? null;
  const candidates = asked ? base.districts.filter((d) => d.slug === asked) : base.districts;
  if (!candidates.length) throw new Response("That district was not found.", { status: 404 });
  let chosen: { district: District; requirements: Requirements } | null = null;
  for (const district of candidates) {
    const r = await requireSignedIn<{ contractorRequirements: Requirements }>(args, REQUIREMENTS, { slug: district.slug });
    chosen = { district, requirements: r.contractorRequirements };
    if (r.contractorRequirements.approvedListEnabled) break;
  }
  const firms = base.myOrganizations.filter((m) => m.organization.kind === "CONTRACTOR" && m.role === "OWNER").map((m) => m.organization);
  return {
    districts: base.districts,
    district: chosen!.district,
    requirements: chosen!.requirements,
    firms,
    documents: base.myDocuments,
    maxSize: base.documentUploadPolicy.maxSize,
    editing,
    renewing,
    // A renewal starts empty: only what is filed in it is renewed.
    defaults: renewing ? { organizationId: editing!.organization.id } : defaultsFrom(editing, firms),
  } satisfies Data;
}

/** The API's field names, as this form names them. */
function fieldsForPage(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const rename: Record<string, string> = { bondAmountCents: "bondAmount", limitCents: "limit", certificateDocumentId: "documentId" };
  for (const [k, v] of Object.entries(fields)) {
    const m = /^insurance\.([A-Z_]+)\.(\w+)$/.exec(k);
    if (m) out[`${m[1]}-${rename[m[2]] ?? (m[2] === "coverage" ? "insurer" : m[2])}`] = v;
    else out[rename[k] ?? k] = v;
  }
  return out;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Values = {};
  for (const k of TEXT_KEYS) values[k] = String(form.get(k) ?? "").trim();
  const renewId = String(form.get("renewContractorId") ?? "").trim();
  const fields: Record<string, string> = {};
  const results: GqlResult<unknown>[] = [];
  const signIn = () => redirect(`/sign-in?redirectTo=${encodeURIComponent(PATH)}`, { headers: cookieHeaders(...results) });
  const fail = (error: string, f: Record<string, string>) =>
    Response.json({ error, fields: f, values } satisfies ActionData, { status: 400, headers: cookieHeaders(...results) });

  // Files first: each uploaded file becomes a document of the firm and is then the one chosen, so it
  // is kept if something else on the form needs correcting.
  const policy = await gql<{ documentUploadPolicy: { maxBytes: number; maxSize: string } }>(context, request, `query { documentUploadPolicy { maxBytes maxSize } }`);
  results.push(policy);
  if (!policy.ok) {
    if (policy.error.code === "UNAUTHENTICATED") throw signIn();
    throw new Response(policy.error.message, { status: 500 });
  }
  const { maxBytes, maxSize } = policy.data.documentUploadPolicy;
  for (const [fileKey, docKey] of [["bondFile", "bondDocumentId"], ...COVERAGES.map((c) => [`${c}-file`, `${c}-documentId`])]) {
    const file = form.get(fileKey);
    // Duck-typed: the File class differs between Node's fetch and Remix's polyfill.
    if (!file || typeof file === "string" || (file.size === 0 && !file.name)) continue;
    if (file.size > maxBytes) {
      fields[docKey] = `The file is larger than the ${maxSize} limit. Upload a smaller file.`;
      continue;
    }
    const r = await gql<{ uploadDocument: { id: string } }>(
      context,
      request,
      `mutation UploadDocument($input: UploadDocumentInput!) { uploadDocument(input: $input) { id } }`,
      { input: { filename: file.name, contentBase64: Buffer.from(await file.arrayBuffer()).toString("base64"), organizationId: values.organizationId || null } },
    );
    results.push(r);
    if (!r.ok) {
      if (r.error.code === "UNAUTHENTICATED") throw signIn();
      fields[docKey] = r.error.fields.content ?? r.error.fields.organizationId ?? r.error.message;
      continue;
    }
    values[docKey] = r.data.uploadDocument.id;
  }

  // Dollars to cents here; the API checks everything else. A field the page refused (an amount it
  // cannot read, a file it could not store) still goes to the API, as a value the API refuses, so
  // every other field is checked in the same answer and nothing is filed.
  // A renewal may leave the bond out (only certificates renewed).
  const bondFiled = !renewId || !!(values.bondAmount || values.bondExpiresOn || values.bondDocumentId || fields.bondDocumentId);
  const bondAmountCents = dollarsToCents(values.bondAmount);
  if (bondFiled && (bondAmountCents === undefined || bondAmountCents === null)) fields.bondAmount = "Enter the bond amount in dollars and cents, like 5000.00.";
  if (bondFiled && !values.bondDocumentId && !fields.bondDocumentId) fields.bondDocumentId = "Upload the bond, or choose a document you uploaded.";
  const insurance = [];
  for (const c of COVERAGES) {
    const v = (f: string) => values[`${c}-${f}`];
    if (!INSURANCE_FIELDS.some((f) => v(f))) continue; // not filed
    const limitCents = dollarsToCents(v("limit"));
    if (limitCents === undefined) fields[`${c}-limit`] = "Enter the limit in dollars and cents, like 500000.00.";
    if (!v("documentId") && !fields[`${c}-documentId`]) fields[`${c}-documentId`] = "Upload the certificate of insurance, or choose a document you uploaded.";
    insurance.push({
      coverage: c,
      insurer: v("insurer"),
      policyNumber: v("policyNumber"),
      limitCents: fields[`${c}-limit`] ? -1 : (limitCents ?? null),
      expiresOn: v("expiresOn"),
      certificateDocumentId: fields[`${c}-documentId`] ? "" : v("documentId"),
    });
  }
  const bond = {
    bondAmountCents: fields.bondAmount ? -1 : bondAmountCents,
    bondExpiresOn: values.bondExpiresOn,
    bondDocumentId: fields.bondDocumentId ? "" : values.bondDocumentId,
  };
  /** The page's own findings over the API's, all in one answer. */
  const refused = (r: GqlResult<unknown>) => {
    if (!r.ok && r.error.code === "UNAUTHENTICATED") throw signIn();
    if (Object.keys(fields).length) return fail("Please correct the highlighted fields.", { ...(r.ok ? {} : fieldsForPage(r.error.fields)), ...fields });
    return r.ok ? null : fail(r.error.message, fieldsForPage(r.error.fields));
  };

  if (renewId) {
    const rr = await gql<{ renewContractor: { id: string } }>(
      context,
      request,
      `mutation RenewContractor($input: RenewContractorInput!) { renewContractor(input: $input) { id } }`,
      { input: { contractorId: renewId, ...(bondFiled ? bond : {}), insurance } },
    );
    results.push(rr);
    const no = refused(rr);
    if (no || !rr.ok) return no;
    return redirect(`/contractors/mine?done=renewed#contractor-${rr.data.renewContractor.id}`, { headers: cookieHeaders(...results) });
  }

  const r = await gql<{ applyAsContractor: { id: string } }>(
    context,
    request,
    `mutation ApplyAsContractor($input: ApplyAsContractorInput!) { applyAsContractor(input: $input) { id } }`,
    { input: { organizationId: values.organizationId, districtId: values.districtId, ...bond, insurance } },
  );
  results.push(r);
  const no = refused(r);
  if (no || !r.ok) return no;
  return redirect(`/contractors/mine?done=applied#contractor-${r.data.applyAsContractor.id}`, { headers: cookieHeaders(...results) });
}

function requirementText(r: Requirement, what: string): string {
  if (!r.required) return `Not required by this district's law (${r.section}).`;
  if (r.minimumCents === null) return `Required (${r.section}); the law sets no amount.`;
  return `${what} at least ${money(r.minimumCents)} (${r.section}).`;
}

/** Choose an uploaded document, or upload a file (which then becomes the chosen one). */
function DocumentPicker({ id, fileName, label, documents, value, error, maxSize, timeZone }: { id: string; fileName: string; label: string; documents: Doc[]; value?: string; error?: string; maxSize: string; timeZone: string }) {
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={id}>
        {label}
      </label>
      <div className="usa-hint" id={`${id}-hint`}>
        Choose a document you uploaded, or upload the file below (PDF, PNG or JPEG, up to {maxSize}).
      </div>
      {error && (
        <span className="usa-error-message" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
      <select
        className={`usa-select${error ? " usa-input--error" : ""}`}
        id={id}
        name={id}
        defaultValue={value ?? ""}
        aria-invalid={error ? true : undefined}
        aria-describedby={[`${id}-hint`, error ? `${id}-error` : null].filter(Boolean).join(" ")}
      >
        <option value="">Upload a new file</option>
        {value && !documents.some((d) => d.id === value) && <option value={value}>The document on file</option>}
        {documents.map((d) => (
          <option key={d.id} value={d.id}>
            {d.filename} (uploaded {formatDayOf(d.createdAt, timeZone)})
          </option>
        ))}
      </select>
      <label className="usa-label" htmlFor={fileName}>
        Upload a file<span className="usa-sr-only"> for {label.toLowerCase()}</span>
      </label>
      <input className="usa-file-input" id={fileName} name={fileName} type="file" accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg" />
    </div>
  );
}

export default function ApplyAsContractor() {
  const data = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const submitting = useNavigation().state === "submitting";
  const { district, requirements: req, firms, documents, editing, renewing, districts, maxSize } = data;
  const v = a?.values ?? data.defaults;
  const f = a?.fields ?? {};
  // Each field's visible label (a policy's fields under its coverage's legend), in the form's order.
  const labels: Record<string, string> = {
    organizationId: LABELS.organizationId,
    districtId: LABELS.districtId,
    bondAmount: LABELS.bondAmount,
    bondExpiresOn: LABELS.bondExpiresOn,
    bondDocumentId: LABELS.bondDocumentId,
  };
  for (const c of req.coverages) {
    labels[`${c.coverage}-insurer`] = `${c.label}: Insurance company`;
    labels[`${c.coverage}-policyNumber`] = `${c.label}: Policy number`;
    labels[`${c.coverage}-limit`] = `${c.label}: Limit, in dollars`;
    labels[`${c.coverage}-expiresOn`] = `${c.label}: Policy expires on`;
    labels[`${c.coverage}-documentId`] = `${c.label}: Certificate of insurance`;
  }
  Object.assign(labels, { ...LABELS, ...labels });
  const changeable = renewing ? editing!.status === "APPROVED" : !editing || editing.status === "APPLIED" || editing.status === "REJECTED";
  const onFile = (coverage: string) => editing?.insurance.find((i) => i.coverage === coverage);

  return (
    <>
      <p className="margin-top-0">
        <Link className="usa-link" to="/contractors/mine">
          My contractor applications
        </Link>
      </p>
      <h1>{renewing ? "Renew your bond or certificates" : editing ? "Change your contractor application" : "Apply to be an approved contractor"}</h1>
      {renewing ? (
        <p className="usa-intro">
          File the renewed bond and/or the renewed certificates. Until the Clerk accepts them, the ones on file stay in force and applicants can choose your
          firm until they expire; once accepted, the renewed ones replace them.
        </p>
      ) : (
        <p className="usa-intro">
          A district that keeps a list of approved contractors lists firms whose bond and insurance certificates the Town Clerk has checked. File them
          here; the Clerk checks them against the district's minimums and decides.
        </p>
      )}

      {!editing && districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="district" label="District" options={districts.map((d) => ({ value: d.slug, label: d.name }))} defaultValue={district.slug} />
          <button className="usa-button usa-button--outline" type="submit">
            Show this district's requirements
          </button>
        </Form>
      )}

      {!req.approvedListEnabled ? (
        <Notice type="warning">
          {district.name} keeps no list of approved contractors: {req.list.note ?? "its law does not provide one."} ({req.list.section}){" "}
          <Link className="usa-link" to={`/contractors/${district.slug}`}>
            More about contractors in {district.name}
          </Link>
          .
        </Notice>
      ) : firms.length === 0 ? (
        <Notice>
          Only the owner of a contracting firm can apply. <Link className="usa-link" to={`/account/organizations?returnTo=${encodeURIComponent(`${PATH}?district=${district.slug}`)}`}>Register your contracting firm</Link> first
          (or ask its owner to apply).
        </Notice>
      ) : !changeable ? (
        <Notice>
          {renewing
            ? `Only an approved contractor files a renewal; this one is ${editing!.status.toLowerCase()}.`
            : `This application is ${editing!.status.toLowerCase()} and can no longer be changed.`}{" "}
          {editing!.status === "APPROVED" && (
            <Link className="usa-link" to={`${PATH}?id=${editing!.id}&renew=1`}>
              Renew the bond or certificates
            </Link>
          )}
        </Notice>
      ) : (
        <>
          <ErrorSummary message={a?.error} fields={f} labels={labels} />
          <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="districtId" value={district.id} />
            {renewing && <input type="hidden" name="renewContractorId" value={editing!.id} />}
            <h2>
              {renewing ? "Renewing with" : "Applying to"} {district.name}
            </h2>
            {editing ? (
              <>
                <input type="hidden" name="organizationId" value={editing.organization.id} />
                <p>Firm: {editing.organization.name}</p>
              </>
            ) : (
              <SelectField
                name="organizationId"
                label="Contracting firm"
                options={[{ value: "", label: "- Choose your firm -" }, ...firms.map((o) => ({ value: o.id, label: o.name }))]}
                defaultValue={v.organizationId}
                error={f.organizationId}
                required
              />
            )}

            <fieldset className="usa-fieldset margin-top-4">
              <legend className="usa-legend usa-legend--large">Bond</legend>
              {renewing && (
                <p className="usa-hint">
                  On file: {money(editing!.bond.amountCents)}, in force until {formatCalendarDate(editing!.bond.expiresOn)}. Leave the bond empty if you renew only certificates.
                </p>
              )}
              <TextField
                name="bondAmount"
                label="Bond amount, in dollars"
                hint={requirementText(req.bond, "The bond must be")}
                inputMode="decimal"
                defaultValue={v.bondAmount}
                error={f.bondAmount}
                required={!renewing}
              />
              <TextField
                name="bondExpiresOn"
                label="Bond expires on"
                type="date"
                hint="The last day the bond is in force."
                defaultValue={v.bondExpiresOn}
                error={f.bondExpiresOn}
                required={!renewing}
              />
              <DocumentPicker id="bondDocumentId" fileName="bondFile" label="The bond" documents={documents} value={v.bondDocumentId} error={f.bondDocumentId} maxSize={maxSize} timeZone={clockOf(districts)} />
            </fieldset>

            <h2>Certificates of insurance</h2>
            <p>
              {renewing
                ? "Fill in each renewed policy; it replaces the one on file for that coverage. Leave the others empty: they stay as they are."
                : "Fill in each policy you file. Leave a policy empty to leave it out; the Clerk will see what is missing."}
              {req.cancellationNoticeBusinessDays !== null &&
                ` Every policy must give the Town ${req.cancellationNoticeBusinessDays} business days' notice before it is cancelled (${req.cancellationNotice.section}).`}
            </p>
            {req.coverages.map((c) => {
              const k = (x: string) => `${c.coverage}-${x}`;
              return (
                <fieldset key={c.coverage} className="usa-fieldset margin-top-4" aria-describedby={`${c.coverage}-requirement`}>
                  <legend className="usa-legend usa-legend--large">{c.label}</legend>
                  <p className="usa-hint" id={`${c.coverage}-requirement`}>
                    {requirementText(c, "The limit must be")}
                    {renewing && onFile(c.coverage) && ` On file: in force until ${formatCalendarDate(onFile(c.coverage)!.expiresOn)}.`}
                  </p>
                  <TextField name={k("insurer")} label="Insurance company" defaultValue={v[k("insurer")]} error={f[k("insurer")]} />
                  <TextField name={k("policyNumber")} label="Policy number" defaultValue={v[k("policyNumber")]} error={f[k("policyNumber")]} />
                  <TextField
                    name={k("limit")}
                    label="Limit, in dollars"
                    hint={c.minimumCents !== null ? `At least ${money(c.minimumCents)}, for example ${centsToDollars(c.minimumCents)}` : "Leave empty if the certificate states no amount."}
                    inputMode="decimal"
                    defaultValue={v[k("limit")]}
                    error={f[k("limit")]}
                  />
                  <TextField name={k("expiresOn")} label="Policy expires on" type="date" hint="The last day of cover." defaultValue={v[k("expiresOn")]} error={f[k("expiresOn")]} />
                  <DocumentPicker
                    id={k("documentId")}
                    fileName={k("file")}
                    label="Certificate of insurance"
                    documents={documents}
                    value={v[k("documentId")]}
                    error={f[k("documentId")]}
                    maxSize={maxSize}
                    timeZone={clockOf(districts)}
                  />
                </fieldset>
              );
            })}
            <button className="usa-button margin-top-4" type="submit" disabled={submitting}>
              {submitting ? "Sending…" : renewing ? "Send the renewal" : editing ? "Send the changed application" : "Send the application"}
            </button>
          </Form>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

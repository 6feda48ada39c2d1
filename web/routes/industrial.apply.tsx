import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, RadioGroup, SelectField } from "~/components/fields";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, type GqlResult } from "~/graphql.server";
import { DischargePrograms, PROGRAM_QUERY, dischargePrograms, type DischargeProgram } from "~/components/industrial-programs";

export const meta: MetaFunction = () => [{ title: "Apply for a wastewater discharge permit | Tapline" }];

/**
 * The discharge permit application (SUL 1004 A items 1-13): data as fields and rows, plans and the
 * certified lab's report as uploads. Works without JavaScript: each list has a fixed number of
 * rows (blank rows are ignored). Save as a draft, or submit.
 */

type Permit = {
  id: string;
  status: string;
  organizationId: string;
  districtId: string;
  districtName: string;
  organizationName: string;
  facilityName: string | null;
  street: string | null;
  city: string | null;
  zip: string | null;
  location: string | null;
  sicCodes: string[];
  constituents: { parameter: string; value: number; unit: string }[];
  dischargeSchedule: string | null;
  dischargeHoursPerDay: number | null;
  averageFlowGpd: number | null;
  peakFlowGpd: number | null;
  flowVariations: string | null;
  activities: string | null;
  products: { name: string; amount: number; unit: string; process: string | null }[];
  rawMaterials: { name: string; averagePerDay: number; maximumPerDay: number; unit: string }[];
  employees: number | null;
  employeeTypes: string | null;
  hoursOfOperation: string | null;
  pretreatmentHours: string | null;
  pollutants: { parameter: string; concentration: number; unit: string; standardMet: boolean }[];
  standardsMet: boolean | null;
  complianceSchedule: { milestone: string; dueOn: string }[];
  otherInfo: string | null;
  tradeSecretFields: string[];
  documents: { documentId: string; kind: string }[];
};
type Data = {
  permit: Permit | null;
  organizations: { id: string; name: string }[];
  /** The districts whose law has a permit program: the only ones an application can name. */
  districts: { id: string; name: string }[];
  programs: DischargeProgram[];
};
type Values = Record<string, string>;
type ActionData = { error: string; fields: Record<string, string>; values: Values; id: string | null };

const PERMIT_FIELDS = `id status organizationId districtId districtName organizationName facilityName street city zip location sicCodes
  constituents { parameter value unit } dischargeSchedule dischargeHoursPerDay averageFlowGpd peakFlowGpd flowVariations activities
  products { name amount unit process } rawMaterials { name averagePerDay maximumPerDay unit } employees employeeTypes hoursOfOperation pretreatmentHours
  pollutants { parameter concentration unit standardMet } standardsMet complianceSchedule { milestone dueOn } otherInfo tradeSecretFields documents { documentId kind }`;

const ROWS = { constituents: 6, products: 4, rawMaterials: 4, pollutants: 6, complianceSchedule: 6 };
const SECRET_CHOICES = [
  { value: "activities", label: "Activities and processes" },
  { value: "products", label: "Products and rates of production" },
  { value: "rawMaterials", label: "Raw materials" },
  { value: "employeeTypes", label: "Types of employees" },
  { value: "pretreatmentHours", label: "Hours of the pretreatment system" },
  { value: "otherInfo", label: "Other information" },
];

/** Each field's visible label, in the form's order: the form shows these, and the error summary names fields by them (a row's by its column and row, as screen readers hear it). */
export const LABELS: Record<string, string> = {
  organizationId: "Industrial user",
  districtId: "Sewer district",
  facilityName: "Facility name",
  street: "Street address",
  city: "City, town or village",
  zip: "ZIP code",
  location: "Location, if different from the address",
  sicCodes: "SIC codes",
  constituents: "Wastewater constituents",
  "constituents.*.parameter": "Constituent, row {n}",
  "constituents.*.value": "Value, row {n}",
  "constituents.*.unit": "Unit (mg/L, µg/L, s.u., °F), row {n}",
  labReport: "The laboratory's report (PDF, PNG or JPEG)",
  labReportDocumentIds: "The laboratory's report (PDF, PNG or JPEG)",
  dischargeSchedule: "Time and duration of discharge",
  dischargeHoursPerDay: "Hours of discharge a day",
  averageFlowGpd: "Average daily flow, gallons per day",
  peakFlowGpd: "Peak flow, gallons per day",
  flowVariations: "Daily, monthly and seasonal variations",
  plans: "Site, floor, mechanical and plumbing plans (PDF, PNG or JPEG)",
  planDocumentIds: "Site, floor, mechanical and plumbing plans (PDF, PNG or JPEG)",
  activities: "Activities and processes",
  products: "Products, rates of production and processes",
  "products.*.name": "Product, row {n}",
  "products.*.amount": "Rate, row {n}",
  "products.*.unit": "Unit (e.g. parts/day), row {n}",
  "products.*.process": "Process, row {n}",
  rawMaterials: "Raw materials processed",
  "rawMaterials.*.name": "Raw material, row {n}",
  "rawMaterials.*.averagePerDay": "Average a day, row {n}",
  "rawMaterials.*.maximumPerDay": "Maximum a day, row {n}",
  "rawMaterials.*.unit": "Unit (e.g. lb/day), row {n}",
  employees: "Number of employees",
  employeeTypes: "Types of employees",
  hoursOfOperation: "Hours of operation",
  pretreatmentHours: "Hours of operation of the pretreatment system",
  pollutants: "Pollutants limited by County, State or Federal standards",
  "pollutants.*.parameter": "Pollutant, row {n}",
  "pollutants.*.concentration": "Concentration, row {n}",
  "pollutants.*.unit": "Unit, row {n}",
  "pollutants.*.standardMet": "Standard met, row {n}",
  standardsMet: "Are the standards met on a consistent basis?",
  complianceSchedule: "Compliance schedule",
  "complianceSchedule.*.milestone": "Event (e.g. complete final plans), row {n}",
  "complianceSchedule.*.dueOn": "Date, row {n}",
  otherInfo: "Anything else the District Operator should know",
  tradeSecretFields: "Keep these from the public as trade secrets (Sewer Use Law 1014)",
};

export async function loader(args: LoaderFunctionArgs) {
  const id = new URL(args.request.url).searchParams.get("id");
  const base = await requireSignedIn<{ myOrganizations: { role: string; organization: { id: string; name: string; kind: string } }[]; districts: Parameters<typeof dischargePrograms>[0] }>(
    args,
    `query ApplyIndustrial { myOrganizations { role organization { id name kind } } ${PROGRAM_QUERY} }`,
  );
  // Only a district whose law has a permit program can be applied to (Huron's has none, III-2).
  const programs = dischargePrograms(base.districts);
  const organizations = base.myOrganizations
    .filter((m) => m.organization.kind === "INDUSTRIAL_USER" && (m.role === "OWNER" || m.role === "AUTHORIZED_REPRESENTATIVE"))
    .map((m) => ({ id: m.organization.id, name: m.organization.name }));
  let permit: Permit | null = null;
  if (id) {
    const r = await requireSignedIn<{ industrialPermit: Permit }>(args, `query Draft($id: ID!) { industrialPermit(id: $id) { ${PERMIT_FIELDS} } }`, { id });
    permit = r.industrialPermit;
    if (permit.status !== "DRAFT") throw redirect(`/industrial/${permit.id}`);
  }
  return { permit, organizations, districts: programs.filter((p) => p.enabled).map((p) => ({ id: p.id, name: p.name })), programs } satisfies Data;
}

const num = (s: string): number | null | typeof NaN => {
  const t = s.replace(/,/g, "").trim();
  if (!t) return null;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
};

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Values = {};
  for (const [k, v] of form.entries()) if (typeof v === "string" && k !== "csrf") values[k] = k === "tradeSecretFields" ? [values[k], v].filter(Boolean).join(",") : v;
  const id = String(form.get("id") ?? "") || null;
  const intent = String(form.get("intent") ?? "save");
  const results: GqlResult<any>[] = [];
  const here = id ? `/industrial/apply?id=${id}` : "/industrial/apply";
  const fail = (error: string, fields: Record<string, string>, permitId: string | null = id) =>
    Response.json({ error, fields, values, id: permitId } satisfies ActionData, { status: 400, headers: cookieHeaders(...results) });
  const signIn = () => redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(...results) });
  const local: Record<string, string> = {};
  const number = (k: string, label: string) => {
    const n = num(values[k] ?? "");
    if (Number.isNaN(n)) local[k] = `Enter the ${label} as a number.`;
    return Number.isNaN(n) ? null : n;
  };
  const rows = <T,>(key: keyof typeof ROWS, cols: string[], build: (g: (c: string) => string, i: number) => T | null): T[] => {
    const out: T[] = [];
    for (let i = 0; i < ROWS[key]; i++) {
      const g = (c: string) => String(form.get(`${key}.${i}.${c}`) ?? "").trim();
      if (cols.every((c) => !g(c))) continue;
      const r = build(g, i);
      if (r) out.push(r);
    }
    return out;
  };
  const rowNum = (key: string, i: number, g: (c: string) => string, c: string, label: string): number => {
    const n = num(g(c));
    if (n === null || Number.isNaN(n)) local[key] = `Row ${i + 1}: enter the ${label} as a number.`;
    return n ?? 0;
  };
  const input: Record<string, unknown> = {
    ...(id ? { id } : { organizationId: values.organizationId || null, districtId: values.districtId || null }),
    facilityName: values.facilityName ?? "",
    street: values.street ?? "",
    city: values.city ?? "",
    zip: values.zip ?? "",
    location: values.location ?? "",
    sicCodes: (values.sicCodes ?? "").split(/[,\s]+/).filter(Boolean),
    constituents: rows("constituents", ["parameter", "value", "unit"], (g, i) => ({ parameter: g("parameter"), value: rowNum("constituents", i, g, "value", "value"), unit: g("unit") })),
    dischargeSchedule: values.dischargeSchedule ?? "",
    dischargeHoursPerDay: number("dischargeHoursPerDay", "hours a day"),
    averageFlowGpd: number("averageFlowGpd", "average flow"),
    peakFlowGpd: number("peakFlowGpd", "peak flow"),
    flowVariations: values.flowVariations ?? "",
    activities: values.activities ?? "",
    products: rows("products", ["name", "amount", "unit", "process"], (g, i) => ({ name: g("name"), amount: rowNum("products", i, g, "amount", "rate"), unit: g("unit"), process: g("process") || null })),
    rawMaterials: rows("rawMaterials", ["name", "averagePerDay", "maximumPerDay", "unit"], (g, i) => ({
      name: g("name"),
      averagePerDay: rowNum("rawMaterials", i, g, "averagePerDay", "average a day"),
      maximumPerDay: rowNum("rawMaterials", i, g, "maximumPerDay", "maximum a day"),
      unit: g("unit"),
    })),
    employees: number("employees", "number of employees"),
    employeeTypes: values.employeeTypes ?? "",
    hoursOfOperation: values.hoursOfOperation ?? "",
    pretreatmentHours: values.pretreatmentHours ?? "",
    pollutants: rows("pollutants", ["parameter", "concentration", "unit"], (g, i) => ({
      parameter: g("parameter"),
      concentration: rowNum("pollutants", i, g, "concentration", "concentration"),
      unit: g("unit"),
      standardMet: g("standardMet") === "yes",
    })),
    standardsMet: values.standardsMet === "yes" ? true : values.standardsMet === "no" ? false : null,
    complianceSchedule: rows("complianceSchedule", ["milestone", "dueOn"], (g) => ({ milestone: g("milestone"), dueOn: g("dueOn") })),
    otherInfo: values.otherInfo ?? "",
    tradeSecretFields: form.getAll("tradeSecretFields").map(String),
  };
  if (Object.keys(local).length) return fail("Please correct the highlighted fields.", local);

  // Uploads: the plans (SUL 1004 A(6)) and the certified lab's report (A(3)); files already attached stay unless replaced.
  const planIds = form.getAll("planDocumentIds").map(String).filter(Boolean);
  const labIds = form.getAll("labReportDocumentIds").map(String).filter(Boolean);
  for (const [field, ids] of [["plans", planIds], ["labReport", labIds]] as const) {
    const file = form.get(field);
    if (!file || typeof file === "string" || file.size === 0) continue;
    const up = await gql<{ uploadDocument: { id: string } }>(context, request, `mutation Upload($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
      i: { filename: file.name, contentBase64: Buffer.from(await file.arrayBuffer()).toString("base64") },
    });
    results.push(up);
    if (!up.ok) return up.error.code === "UNAUTHENTICATED" ? signIn() : fail(up.error.message, { [field]: up.error.fields.contentBase64 ?? up.error.message });
    ids.splice(0, ids.length, up.data.uploadDocument.id);
  }
  input.planDocumentIds = planIds;
  input.labReportDocumentIds = labIds;

  const saved = await gql<{ saveIndustrialApplication: { id: string } }>(context, request, `mutation SaveIndustrial($i: IndustrialApplicationInput!) { saveIndustrialApplication(input: $i) { id } }`, {
    i: input,
  });
  results.push(saved);
  if (!saved.ok) return saved.error.code === "UNAUTHENTICATED" ? signIn() : fail(saved.error.message, saved.error.fields);
  const permitId = saved.data.saveIndustrialApplication.id;
  if (intent !== "submit") return redirect(`/industrial/apply?id=${permitId}&saved=1`, { headers: cookieHeaders(...results) });
  const submitted = await gql(context, request, `mutation SubmitIndustrial($id: ID!) { submitIndustrialApplication(id: $id) { id } }`, { id: permitId });
  results.push(submitted);
  if (!submitted.ok) {
    if (submitted.error.code === "UNAUTHENTICATED") return signIn();
    return fail(`Your draft is saved, but it cannot be submitted yet. ${submitted.error.message}`, submitted.error.fields, permitId);
  }
  return redirect(`/industrial/${permitId}?submitted=1`, { headers: cookieHeaders(...results) });
}

function TextArea({ name, label, hint, error, defaultValue }: { name: string; label: string; hint?: string; error?: string; defaultValue?: string | null }) {
  const describedBy = [hint ? `${name}-hint` : null, error ? `${name}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={name}>
        {label}
      </label>
      {hint && (
        <div className="usa-hint" id={`${name}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <span className="usa-error-message" id={`${name}-error`} role="alert">
          {error}
        </span>
      )}
      <textarea className={`usa-textarea${error ? " usa-input--error" : ""}`} id={name} name={name} defaultValue={defaultValue ?? ""} aria-describedby={describedBy} />
    </div>
  );
}

/** A table of rows of inputs; each input labelled (visually by its column) for screen readers. */
function RowTable({
  name,
  caption,
  columns,
  count,
  value,
  error,
}: {
  name: string;
  caption: string;
  columns: { key: string; label: string; kind?: "checkbox" | "date" }[];
  count: number;
  value: (i: number, col: string) => string;
  error?: string;
}) {
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      {error && (
        <span className="usa-error-message" role="alert">
          {error}
        </span>
      )}
      {/* The error summary links to the table, named by its caption. */}
      <table className="usa-table usa-table--borderless usa-table--compact width-full" id={name}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            {columns.map((c) => (
              <th scope="col" key={c.key}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: count }, (_, i) => (
            <tr key={i}>
              <th scope="row">{i + 1}</th>
              {columns.map((c) => (
                <td key={c.key}>
                  {c.kind === "checkbox" ? (
                    <input type="checkbox" name={`${name}.${i}.${c.key}`} value="yes" defaultChecked={value(i, c.key) === "yes"} aria-label={`${c.label}, row ${i + 1}`} />
                  ) : (
                    <input
                      className="usa-input"
                      type={c.kind === "date" ? "date" : "text"}
                      name={`${name}.${i}.${c.key}`}
                      defaultValue={value(i, c.key)}
                      aria-label={`${c.label}, row ${i + 1}`}
                    />
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function ApplyIndustrial() {
  const { permit: p, organizations, districts, programs } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const v = a?.values;
  const e = a?.fields ?? {};
  const val = (k: string, saved: unknown) => (v ? (v[k] ?? "") : saved === null || saved === undefined ? "" : String(saved));
  const rowVal = (key: string, list: any[] | undefined) => (i: number, col: string) => {
    if (v) return v[`${key}.${i}.${col}`] ?? "";
    const r = list?.[i];
    if (!r) return "";
    if (col === "standardMet") return r.standardMet ? "yes" : "";
    return r[col] === null || r[col] === undefined ? "" : String(r[col]);
  };
  const secrets = new Set(v ? (v.tradeSecretFields ?? "").split(",").filter(Boolean) : (p?.tradeSecretFields ?? []));
  const id = a?.id ?? p?.id ?? null;
  const docs = p?.documents ?? [];
  if (!p && !organizations.length)
    return (
      <>
        <h1>Apply for a wastewater discharge permit</h1>
        <p>
          Only the owner or the Authorized Representative of an organization registered as an industrial user applies.{" "}
          <Link className="usa-link" to="/account/organizations?returnTo=%2Findustrial%2Fapply">
            Register your organization
          </Link>{" "}
          first.
        </p>
        <DischargePrograms programs={programs} />
      </>
    );
  return (
    <>
      <h1>{p ? "Your discharge permit application (draft)" : "Apply for a wastewater discharge permit"}</h1>
      <p className="usa-intro">
        A significant industrial user may not discharge to the public sewer without a wastewater discharge permit (Sewer Use Law 1003). The application carries the
        information of Sewer Use Law 1004 A; you can save it as a draft and come back to it.
      </p>
      {!p && programs.some((d) => !d.enabled) && <DischargePrograms programs={programs} />}
      {params.get("saved") && !a && <SuccessAlert>Your draft is saved.</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={e} labels={LABELS} />
      <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large" noValidate>
        <AuthenticityTokenInput />
        {id && <input type="hidden" name="id" value={id} />}
        {docs.filter((d) => d.kind === "PLANS").map((d) => <input key={d.documentId} type="hidden" name="planDocumentIds" value={d.documentId} />)}
        {docs.filter((d) => d.kind === "LAB_REPORT").map((d) => <input key={d.documentId} type="hidden" name="labReportDocumentIds" value={d.documentId} />)}

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">Who applies, and where (1004 A(1))</legend>
          {p ? (
            <p>
              <strong>{p.organizationName}</strong>, {p.districtName}
            </p>
          ) : (
            <>
              <SelectField
                name="organizationId"
                label={LABELS.organizationId}
                options={[{ value: "", label: "Choose your organization" }, ...organizations.map((o) => ({ value: o.id, label: o.name }))]}
                defaultValue={val("organizationId", "")}
                error={e.organizationId}
                required
              />
              <SelectField
                name="districtId"
                label={LABELS.districtId}
                options={[{ value: "", label: "Choose the district" }, ...districts.map((d) => ({ value: d.id, label: d.name }))]}
                defaultValue={val("districtId", "")}
                error={e.districtId}
                required
              />
            </>
          )}
          <TextField name="facilityName" label={LABELS.facilityName} defaultValue={val("facilityName", p?.facilityName)} error={e.facilityName} required />
          <TextField name="street" label={LABELS.street} defaultValue={val("street", p?.street)} error={e.street} required />
          <TextField name="city" label={LABELS.city} defaultValue={val("city", p?.city)} error={e.city} required />
          <TextField name="zip" label={LABELS.zip} defaultValue={val("zip", p?.zip)} error={e.zip} inputMode="numeric" required />
          <TextField name="location" label={LABELS.location} defaultValue={val("location", p?.location)} error={e.location} />
          <TextField name="sicCodes" label={LABELS.sicCodes} hint="Of the industry and any categorical processes (1004 A(2)), separated by commas, e.g. 3471, 3479" defaultValue={val("sicCodes", p?.sicCodes.join(", "))} error={e.sicCodes} required />
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">The wastewater (1004 A(3)-(5))</legend>
          <p className="usa-hint">Constituents and characteristics as determined by a NYSDOH-approved laboratory. These are never confidential (Sewer Use Law 1014).</p>
          <RowTable
            name="constituents"
            caption="Wastewater constituents"
            columns={[
              { key: "parameter", label: "Constituent" },
              { key: "value", label: "Value" },
              { key: "unit", label: "Unit (mg/L, µg/L, s.u., °F)" },
            ]}
            count={ROWS.constituents}
            value={rowVal("constituents", p?.constituents)}
            error={e.constituents}
          />
          <div className={`usa-form-group${e.labReportDocumentIds || e.labReport ? " usa-form-group--error" : ""}`}>
            <label className="usa-label" htmlFor="labReport">
              The laboratory's report (PDF, PNG or JPEG)
            </label>
            {(e.labReportDocumentIds || e.labReport) && (
              <span className="usa-error-message" role="alert">
                {e.labReportDocumentIds ?? e.labReport}
              </span>
            )}
            {docs.some((d) => d.kind === "LAB_REPORT") && <div className="usa-hint">A report is attached; choose a file only to replace it.</div>}
            <input className="usa-file-input" id="labReport" name="labReport" type="file" accept="application/pdf,image/png,image/jpeg" />
          </div>
          <TextArea name="dischargeSchedule" label={LABELS.dischargeSchedule} defaultValue={val("dischargeSchedule", p?.dischargeSchedule)} error={e.dischargeSchedule} />
          <TextField name="dischargeHoursPerDay" label={LABELS.dischargeHoursPerDay} defaultValue={val("dischargeHoursPerDay", p?.dischargeHoursPerDay)} error={e.dischargeHoursPerDay} inputMode="decimal" />
          <TextField name="averageFlowGpd" label={LABELS.averageFlowGpd} defaultValue={val("averageFlowGpd", p?.averageFlowGpd)} error={e.averageFlowGpd} inputMode="decimal" required />
          <TextField name="peakFlowGpd" label={LABELS.peakFlowGpd} defaultValue={val("peakFlowGpd", p?.peakFlowGpd)} error={e.peakFlowGpd} inputMode="decimal" required />
          <TextArea name="flowVariations" label={LABELS.flowVariations} defaultValue={val("flowVariations", p?.flowVariations)} error={e.flowVariations} />
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">Plans (1004 A(6))</legend>
          <div className={`usa-form-group${e.planDocumentIds || e.plans ? " usa-form-group--error" : ""}`}>
            <label className="usa-label" htmlFor="plans">
              Site, floor, mechanical and plumbing plans (PDF, PNG or JPEG)
            </label>
            {(e.planDocumentIds || e.plans) && (
              <span className="usa-error-message" role="alert">
                {e.planDocumentIds ?? e.plans}
              </span>
            )}
            {docs.some((d) => d.kind === "PLANS") && <div className="usa-hint">Plans are attached; choose a file only to replace them.</div>}
            <input className="usa-file-input" id="plans" name="plans" type="file" accept="application/pdf,image/png,image/jpeg" />
          </div>
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">The plant (1004 A(7)-(10))</legend>
          <TextArea name="activities" label={LABELS.activities} hint="Activities, facilities and plant processes, with all materials that are or could be discharged" defaultValue={val("activities", p?.activities)} error={e.activities} />
          <RowTable
            name="products"
            caption="Products, rates of production and processes"
            columns={[
              { key: "name", label: "Product" },
              { key: "amount", label: "Rate" },
              { key: "unit", label: "Unit (e.g. parts/day)" },
              { key: "process", label: "Process" },
            ]}
            count={ROWS.products}
            value={rowVal("products", p?.products)}
            error={e.products}
          />
          <RowTable
            name="rawMaterials"
            caption="Raw materials processed"
            columns={[
              { key: "name", label: "Raw material" },
              { key: "averagePerDay", label: "Average a day" },
              { key: "maximumPerDay", label: "Maximum a day" },
              { key: "unit", label: "Unit (e.g. lb/day)" },
            ]}
            count={ROWS.rawMaterials}
            value={rowVal("rawMaterials", p?.rawMaterials)}
            error={e.rawMaterials}
          />
          <TextField name="employees" label={LABELS.employees} defaultValue={val("employees", p?.employees)} error={e.employees} inputMode="numeric" required />
          <TextField name="employeeTypes" label={LABELS.employeeTypes} defaultValue={val("employeeTypes", p?.employeeTypes)} error={e.employeeTypes} />
          <TextField name="hoursOfOperation" label={LABELS.hoursOfOperation} defaultValue={val("hoursOfOperation", p?.hoursOfOperation)} error={e.hoursOfOperation} required />
          <TextField name="pretreatmentHours" label={LABELS.pretreatmentHours} defaultValue={val("pretreatmentHours", p?.pretreatmentHours)} error={e.pretreatmentHours} />
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">Standards and compliance schedule (1004 A(11)-(12))</legend>
          <RowTable
            name="pollutants"
            caption="Pollutants limited by County, State or Federal standards"
            columns={[
              { key: "parameter", label: "Pollutant" },
              { key: "concentration", label: "Concentration" },
              { key: "unit", label: "Unit" },
              { key: "standardMet", label: "Standard met", kind: "checkbox" },
            ]}
            count={ROWS.pollutants}
            value={rowVal("pollutants", p?.pollutants)}
            error={e.pollutants}
          />
          <RadioGroup
            name="standardsMet"
            legend={LABELS.standardsMet}
            error={e.standardsMet}
            defaultValue={val("standardsMet", p?.standardsMet === null || p?.standardsMet === undefined ? "" : p.standardsMet ? "yes" : "no")}
            options={[
              { value: "yes", label: "Yes" },
              { value: "no", label: "No: additional pretreatment or O&M is needed (give the schedule below)" },
            ]}
          />
          <p className="usa-hint">
            The shortest schedule to meet the standards: each step at most 9 months after the one before, the whole at most 18 months (Sewer Use Law 1004 A(12)(b)). A
            progress report is due within 14 days after each date.
          </p>
          <RowTable
            name="complianceSchedule"
            caption="Compliance schedule"
            columns={[
              { key: "milestone", label: "Event (e.g. complete final plans)" },
              { key: "dueOn", label: "Date", kind: "date" },
            ]}
            count={ROWS.complianceSchedule}
            value={rowVal("complianceSchedule", p?.complianceSchedule)}
            error={e.complianceSchedule}
          />
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">Other information (1004 A(13)) and trade secrets</legend>
          <TextArea name="otherInfo" label={LABELS.otherInfo} defaultValue={val("otherInfo", p?.otherInfo)} error={e.otherInfo} />
          <fieldset className={`usa-fieldset${e.tradeSecretFields ? " usa-form-group--error" : ""}`} id="tradeSecretFields">
            <legend className="usa-legend">Keep these from the public as trade secrets (Sewer Use Law 1014)</legend>
            <div className="usa-hint">Shown only to the district's staff and your organization. Wastewater constituents and characteristics can never be confidential.</div>
            {e.tradeSecretFields && (
              <span className="usa-error-message" role="alert">
                {e.tradeSecretFields}
              </span>
            )}
            {SECRET_CHOICES.map((c) => (
              <div className="usa-checkbox" key={c.value}>
                <input className="usa-checkbox__input" id={`secret-${c.value}`} type="checkbox" name="tradeSecretFields" value={c.value} defaultChecked={secrets.has(c.value)} />
                <label className="usa-checkbox__label" htmlFor={`secret-${c.value}`}>
                  {c.label}
                </label>
              </div>
            ))}
          </fieldset>
        </fieldset>

        <Notice>When you submit, the application fee set in the district's rulebook (Sewer Use Law 1004 A) is charged; you can pay it online.</Notice>
        <button className="usa-button usa-button--outline" type="submit" name="intent" value="save" disabled={busy}>
          Save draft
        </button>
        <button className="usa-button" type="submit" name="intent" value="submit" disabled={busy}>
          Submit the application
        </button>
      </Form>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

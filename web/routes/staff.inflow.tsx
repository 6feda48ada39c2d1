import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { CalendarDate, DateTime, daysLeftText } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Inflow inspections | Staff | Tapline" }];

/** The forms' visible labels by the keys the API reports, in the page's order. */
export const LABELS: Record<string, string> = {
  districtId: "District",
  file: "Tax Assessor's sales file",
  fileName: "Tax Assessor's sales file",
  csv: "Tax Assessor's sales file",
  taxParcel: "Tax parcel",
  soldOn: "Sale date",
  buyerName: "Buyer",
  status: "Show",
  openParcel: "Tax parcel of the property to inspect",
};

type Row = { id: string; number: string; statusLabel: string; status: string; taxParcel: string; address: string; originLabel: string; dueOn: string | null; daysLeft: number | null; openedAt: string };
type Report = { id: string; fileName: string; rowsRead: number; rowsImported: number; inspectionsOpened: number; errors: { line: number; reason: string }[]; createdAt: string };
type Rules = { districtId: string; inspectsAtSale: boolean; saleSection: string; prohibitionSection: string; inspectorTitle: string };
type Data = {
  districts: { id: string; name: string }[];
  district: { id: string; name: string; timeZone: string; operator: boolean };
  rules: Rules;
  items: Row[];
  nextCursor: string | null;
  status: string;
  report: Report | null;
};
type ActionData = { form: string; error: string; fields: Record<string, string>; values: Record<string, string> };

const PATH = "/staff/inflow";
const STATUSES = [
  { value: "", label: "All" },
  { value: "OPEN", label: "To inspect" },
  { value: "ORDERED", label: "Disconnection ordered" },
  { value: "PASSED", label: "Passed" },
  { value: "VIOLATION", label: "Prohibited connection found" },
];

/** Staff: the district's inflow inspections with days left, and the District Operator's entry of the Tax Assessor's sales (SUL 703). */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const status = url.searchParams.get("status") ?? "";
  const reportId = url.searchParams.get("import");
  const d = await requireSignedIn<{ districtInflowInspections: { items: Row[]; nextCursor: string | null }; inflowRules: Rules[]; inflowSaleImport?: Report }>(
    args,
    `query StaffInflow($d: ID!, $s: String, $a: String${reportId ? ", $r: ID!" : ""}) {
      districtInflowInspections(districtId: $d, status: $s, after: $a) { items { id number status statusLabel taxParcel address originLabel dueOn daysLeft openedAt } nextCursor }
      inflowRules { districtId inspectsAtSale saleSection prohibitionSection inspectorTitle }
      ${reportId ? "inflowSaleImport(id: $r) { id fileName rowsRead rowsImported inspectionsOpened errors { line reason } createdAt }" : ""} }`,
    { d: district.id, s: status || null, a: url.searchParams.get("after"), ...(reportId ? { r: reportId } : {}) },
  );
  return {
    districts: info.districts.map((x) => ({ id: x.id, name: x.name })),
    district: { id: district.id, name: district.name, timeZone: district.timeZone, operator: district.roles.includes("OPERATOR") },
    rules: d.inflowRules.find((r) => r.districtId === district.id)!,
    ...d.districtInflowInspections,
    status,
    report: d.inflowSaleImport ?? null,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const form = s("form");
  const districtId = s("districtId");
  const values = Object.fromEntries([...f.entries()].filter(([, v]) => typeof v === "string").map(([k, v]) => [k, String(v)]));
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) => Response.json({ form, error, fields, values } satisfies ActionData, { status: 400, headers });
  if (form === "import") {
    const file = f.get("file");
    // Duck-typed: the File class differs between Node's fetch and Remix's polyfill.
    if (!file || typeof file === "string" || (file.size === 0 && !file.name)) return fail("Please correct the highlighted fields.", { file: "Choose the Tax Assessor's sales file (CSV) to import." });
    const r = await gql<{ importInflowSales: { id: string } }>(context, request, `mutation ImportSales($i: ImportInflowSalesInput!) { importInflowSales(input: $i) { id } }`, {
      i: { districtId, fileName: file.name || "sales.csv", csv: await file.text() },
    });
    if (!r.ok) {
      const { csv, ...fields } = r.error.fields ?? {};
      return fail(r.error.message, csv ? { ...fields, file: csv } : fields, cookieHeaders(r));
    }
    return redirect(`${PATH}?districtId=${districtId}&import=${r.data.importInflowSales.id}#report`, { headers: cookieHeaders(r) });
  }
  if (form === "sale") {
    const r = await gql<{ recordInflowSale: { inspectionId: string | null } }>(context, request, `mutation Sale($i: RecordInflowSaleInput!) { recordInflowSale(input: $i) { inspectionId } }`, {
      i: { districtId, taxParcel: s("taxParcel"), soldOn: s("soldOn"), buyerName: s("buyerName") },
    });
    if (!r.ok) return fail(r.error.message, r.error.fields, cookieHeaders(r));
    const id = r.data.recordInflowSale.inspectionId;
    return redirect(id ? `${PATH}/${id}?done=sale` : `${PATH}?districtId=${districtId}`, { headers: cookieHeaders(r) });
  }
  if (form === "open") {
    const r = await gql<{ openInflowInspection: { id: string } }>(context, request, `mutation Open($i: OpenInflowInspectionInput!) { openInflowInspection(input: $i) { id } }`, {
      i: { districtId, taxParcel: s("openParcel") },
    });
    if (!r.ok) {
      const { taxParcel, ...fields } = r.error.fields ?? {};
      return fail(r.error.message, taxParcel ? { ...fields, openParcel: taxParcel } : fields, cookieHeaders(r));
    }
    return redirect(`${PATH}/${r.data.openInflowInspection.id}?done=opened`, { headers: cookieHeaders(r) });
  }
  return fail("Choose what to do.", {});
}

const rows = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "row" : "rows"}`;

export default function StaffInflow() {
  const { districts, district, rules, items, nextCursor, status, report } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const err = (form: string) => (a?.form === form ? a : undefined);
  return (
    <>
      <h1>Inflow inspections</h1>
      <p className="usa-intro">
        {rules.inspectsAtSale
          ? `Upon the Tax Assessor's notice of a sale the ${rules.inspectorTitle} inspects the property for inflow connections to the sanitary sewer (${rules.saleSection}).`
          : `No sump pump, roof downspout, foundation or areaway drain may be connected to the sanitary sewer (${rules.prohibitionSection}). The law has no inspection at sale: a connection found is a violation served with a written notice.`}
      </p>
      <Form method="get" className="usa-form">
        {districts.length > 1 && <SelectField name="districtId" label={LABELS.districtId} options={districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={district.id} />}
        {districts.length === 1 && <input type="hidden" name="districtId" value={district.id} />}
        <SelectField name="status" label={LABELS.status} options={STATUSES} defaultValue={status} />
        <button className="usa-button usa-button--outline" type="submit">
          Show
        </button>
      </Form>
      {params.get("done") === "sale" && <SuccessAlert>The sale is recorded.</SuccessAlert>}
      {report && (
        <section id="report" aria-labelledby="report-heading">
          <h2 id="report-heading">Import of {report.fileName}</h2>
          <p>
            {rows(report.rowsRead)} read, {rows(report.rowsImported)} imported, {report.inspectionsOpened} {report.inspectionsOpened === 1 ? "inspection" : "inspections"} opened,{" "}
            {rows(report.errors.length)} not imported. Imported <DateTime iso={report.createdAt} timeZone={district.timeZone} />.
          </p>
          {report.errors.length > 0 && (
            <table className="usa-table usa-table--borderless">
              <caption>Rows not imported</caption>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {report.errors.map((e) => (
                  <tr key={e.line}>
                    <td>{e.line}</td>
                    <td>{e.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      <h2>Inspections</h2>
      {items.length === 0 ? (
        <p>No inflow inspections.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Inspection</th>
              <th scope="col">Property</th>
              <th scope="col">Opened by</th>
              <th scope="col">Status</th>
              <th scope="col">Due</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Inspection">
                  <Link className="usa-link" to={`${PATH}/${r.id}`}>
                    {r.number}
                  </Link>
                </th>
                <td data-label="Property">
                  {r.address} (tax parcel {r.taxParcel})
                </td>
                <td data-label="Opened by">{r.originLabel}</td>
                <td data-label="Status">{r.statusLabel}</td>
                <td data-label="Due">
                  {r.dueOn ? (
                    <>
                      <CalendarDate date={r.dueOn} /> ({daysLeftText(r.daysLeft)})
                    </>
                  ) : (
                    "No date"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {nextCursor && (
        <p>
          <Link className="usa-link" to={`?districtId=${district.id}&status=${status}&after=${encodeURIComponent(nextCursor)}`}>
            Older inspections
          </Link>
        </p>
      )}
      {district.operator && rules.inspectsAtSale && (
        <>
          <h2>The Tax Assessor's sales</h2>
          <h3>Import the assessor's file</h3>
          <p>A CSV file whose first line names the columns: the tax parcel, the sale date and the buyer. Each sale opens an inspection of the property; each row not imported is listed with its line.</p>
          <ErrorSummary message={err("import")?.error} fields={err("import")?.fields} labels={LABELS} />
          <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="form" value="import" />
            <input type="hidden" name="districtId" value={district.id} />
            <div className={`usa-form-group${err("import")?.fields?.file ? " usa-form-group--error" : ""}`}>
              <label className="usa-label" htmlFor="file">
                {LABELS.file}
              </label>
              {err("import")?.fields?.file && (
                <span className="usa-error-message" id="file-error" role="alert">
                  {err("import")!.fields.file}
                </span>
              )}
              <input className="usa-file-input" id="file" name="file" type="file" accept=".csv,text/csv" aria-invalid={err("import")?.fields?.file ? true : undefined} />
            </div>
            <button className="usa-button" type="submit">
              Import the sales
            </button>
          </Form>
          <h3>Enter one sale</h3>
          <ErrorSummary message={err("sale")?.error} fields={err("sale")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="form" value="sale" />
            <input type="hidden" name="districtId" value={district.id} />
            <TextField name="taxParcel" label={LABELS.taxParcel} defaultValue={err("sale")?.values.taxParcel} error={err("sale")?.fields?.taxParcel} required />
            <TextField name="soldOn" label={LABELS.soldOn} type="date" hint="As the Tax Assessor's notice of the sale gives it." defaultValue={err("sale")?.values.soldOn} error={err("sale")?.fields?.soldOn} required />
            <TextField name="buyerName" label={LABELS.buyerName} defaultValue={err("sale")?.values.buyerName} error={err("sale")?.fields?.buyerName} required />
            <button className="usa-button" type="submit">
              Record the sale
            </button>
          </Form>
        </>
      )}
      {district.operator && (
        <>
          <h2>Inspect a property without a sale</h2>
          <ErrorSummary message={err("open")?.error} fields={err("open")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="form" value="open" />
            <input type="hidden" name="districtId" value={district.id} />
            <TextField name="openParcel" label={LABELS.openParcel} defaultValue={err("open")?.values.openParcel} error={err("open")?.fields?.openParcel} required />
            <button className="usa-button usa-button--outline" type="submit">
              Open an inspection
            </button>
          </Form>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Meter readings | Staff | Tapline" }];

type Import = {
  id: string;
  fileName: string;
  rowsRead: number;
  rowsImported: number;
  rowsEstimated: number;
  rowsRejected: number;
  errors: { line: number; reason: string }[];
  enteredByName: string | null;
  createdAt: string;
};
type ActionData = { error: string; fields: Record<string, string> };

export const LABELS: Record<string, string> = { districtId: "District", file: "Reading file", fileName: "Reading file", csv: "Reading file" };

const PATH = "/staff/readings";
const IMPORT_FIELDS = `id fileName rowsRead rowsImported rowsEstimated rowsRejected enteredByName createdAt`;

/** Meter readings (SUL 1205): the Town Clerk's upload of a reading file, its report, and the district's imports. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const reportId = url.searchParams.get("import");
  const data = await requireSignedIn<{ meterReadingImports: { items: Import[]; nextCursor: string | null }; meterReadingImport?: Import }>(
    args,
    reportId
      ? `query ReadingImports($d: ID!, $a: String, $r: ID!) { meterReadingImports(districtId: $d, first: 20, after: $a) { nextCursor items { ${IMPORT_FIELDS} } }
           meterReadingImport(id: $r) { ${IMPORT_FIELDS} errors { line reason } } }`
      : `query ReadingImports($d: ID!, $a: String) { meterReadingImports(districtId: $d, first: 20, after: $a) { nextCursor items { ${IMPORT_FIELDS} } } }`,
    { d: district.id, a: url.searchParams.get("after") || null, ...(reportId ? { r: reportId } : {}) },
  );
  return {
    districts: info.districts.map((d) => ({ id: d.id, name: d.name })),
    district: { id: district.id, name: district.name, timeZone: district.timeZone, clerk: district.roles.includes("CLERK") },
    imports: data.meterReadingImports,
    report: data.meterReadingImport ?? null,
  };
}

/** The Town Clerk uploads a reading file; the good rows go in and the page shows the import's report. */
export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const districtId = String(form.get("districtId") ?? "");
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) => Response.json({ error, fields } satisfies ActionData, { status: 400, headers });
  const file = form.get("file");
  // Duck-typed: the File class differs between Node's fetch and Remix's polyfill.
  if (!file || typeof file === "string" || (file.size === 0 && !file.name)) return fail("Please correct the highlighted fields.", { file: "Choose the reading file (CSV) to import." });
  const r = await gql<{ importMeterReadings: { id: string } }>(
    context,
    request,
    `mutation ImportMeterReadings($i: ImportMeterReadingsInput!) { importMeterReadings(input: $i) { id } }`,
    { i: { districtId, fileName: file.name || "readings.csv", csv: await file.text() } },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(PATH)}`, { headers: cookieHeaders(r) });
    // What the API says of the file's text (csv) is shown on the file field it came from.
    const { csv, ...fields } = r.error.fields ?? {};
    return fail(r.error.message, csv ? { ...fields, file: csv } : fields, cookieHeaders(r));
  }
  return redirect(`${PATH}?districtId=${districtId}&import=${r.data.importMeterReadings.id}#report`, { headers: cookieHeaders(r) });
}

const rows = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "row" : "rows"}`;

export default function StaffReadings() {
  const d = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  const report = d.report;
  return (
    <>
      <h1>Meter readings</h1>
      <p className="usa-intro">
        The volume billed is the metered water as the meter readings show it (Sewer Use Law 1205). Import the reading file your handheld or drive-by reading
        system exports; the rows with a problem are listed with their line so you can correct them and import them again.
      </p>
      <p>
        <Link className="usa-link" to={`/staff/properties?districtId=${d.district.id}`}>
          Properties and accounts
        </Link>
      </p>
      {d.districts.length > 1 && (
        <Form method="get" className="usa-form" aria-label="Choose a district">
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.district.id} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}

      {report && (
        <section aria-labelledby="report">
          <h2 id="report">Import of {report.fileName}</h2>
          <div className={`usa-alert ${report.rowsRejected ? "usa-alert--warning" : "usa-alert--success"}`}>
            <div className="usa-alert__body">
              <p className="usa-alert__text">
                {rows(report.rowsImported)} of {report.rowsRead} imported
                {report.rowsEstimated ? `, ${report.rowsEstimated} of them estimated` : ""}.{" "}
                {report.rowsRejected ? `${rows(report.rowsRejected)} not imported: correct them and import them again.` : "Every row was imported."}
              </p>
            </div>
          </div>
          {report.errors.length > 0 && (
            <table className="usa-table usa-table--borderless width-full">
              <caption>Rows not imported</caption>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">What was wrong</th>
                </tr>
              </thead>
              <tbody>
                {report.errors.map((e) => (
                  <tr key={e.line}>
                    <th scope="row">{e.line}</th>
                    <td>{e.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}

      {d.district.clerk && (
        <>
          <h2 id="upload">Import a reading file</h2>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="districtId" value={d.district.id} />
            <div className={`usa-form-group${a?.fields.file ? " usa-form-group--error" : ""}`}>
              <label className={`usa-label${a?.fields.file ? " usa-label--error" : ""}`} htmlFor="file">
                {LABELS.file}
              </label>
              <span className="usa-hint" id="file-hint">
                A CSV file whose first line names the columns: meter (or account), date, reading, and optionally kind (A actual, E estimated). Leave a reading
                empty when the meter could not be read: it is estimated from the account's own use and trued up at the next actual read. For a meter change,
                add the columns new meter and new reading on the old meter's final read.
              </span>
              {a?.fields.file && (
                <span className="usa-error-message" id="file-error" role="alert">
                  {a.fields.file}
                </span>
              )}
              <input
                className={`usa-file-input${a?.fields.file ? " usa-input--error" : ""}`}
                id="file"
                name="file"
                type="file"
                accept=".csv,text/csv,text/plain"
                aria-describedby={`file-hint${a?.fields.file ? " file-error" : ""}`}
                aria-invalid={a?.fields.file ? true : undefined}
              />
            </div>
            <button className="usa-button" type="submit">
              Import the readings
            </button>
          </Form>
        </>
      )}

      <h2 id="history">Imports</h2>
      {d.imports.items.length === 0 ? (
        <p>{d.district.name} has imported no reading file yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>{d.district.name}: reading files imported, newest first</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Imported</th>
              <th scope="col">Rows imported</th>
              <th scope="col">Rows not imported</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {d.imports.items.map((i) => (
              <tr key={i.id}>
                <th scope="row" data-label="File">
                  <Link className="usa-link" to={`${PATH}?districtId=${d.district.id}&import=${i.id}#report`}>
                    {i.fileName}
                  </Link>
                </th>
                <td data-label="Imported">
                  <DateTime iso={i.createdAt} timeZone={d.district.timeZone} />
                </td>
                <td data-label="Rows imported">
                  {i.rowsImported}
                  {i.rowsEstimated ? ` (${i.rowsEstimated} estimated)` : ""}
                </td>
                <td data-label="Rows not imported">{i.rowsRejected}</td>
                <td data-label="By">{i.enteredByName ?? "Not recorded"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.imports.nextCursor && (
        <p>
          <Link className="usa-link" to={`${PATH}?districtId=${d.district.id}&after=${d.imports.nextCursor}`}>
            Older imports
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

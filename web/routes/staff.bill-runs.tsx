import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { CalendarDate } from "~/components/format";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Bill runs | Staff | Tapline" }];

type Run = { id: string; cycleLabel: string; periodStart: string; periodEnd: string; statusLabel: string; billCount: number; flaggedCount: number; issuedCount: number; totalCents: number };
type Runs = { runs: Run[]; cycles: { cycle: string; label: string; months: number; section: string }[]; tasks: { key: string; text: string }[] };
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

export const LABELS: Record<string, string> = {
  districtId: "District",
  cycle: "Billing cycle",
  periodStart: "First day of the period",
};

/** A district's bill runs (SUL 1203-1206; Huron VI-3): the runs so far, and the Clerk starts a period's preview. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const data = await requireSignedIn<{ billRuns: Runs }>(
    args,
    `query BillRuns($d: ID!) { billRuns(districtId: $d) { runs { id cycleLabel periodStart periodEnd statusLabel billCount flaggedCount issuedCount totalCents }
      cycles { cycle label months section } tasks { key text } } }`,
    { d: district.id },
  );
  return {
    districts: info.districts.map((d) => ({ id: d.id, name: d.name })),
    district: { id: district.id, name: district.name, slug: district.slug, clerk: district.roles.includes("CLERK") },
    ...data,
  };
}

/** The Town Clerk previews a period's bills (again, while not issued). */
export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const k of Object.keys(LABELS)) values[k] = String(form.get(k) ?? "").trim();
  const r = await gql<{ previewBillRun: { id: string } }>(context, request, `mutation PreviewBillRun($i: PreviewBillRunInput!) { previewBillRun(input: $i) { id } }`, { i: values });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/bill-runs/${r.data.previewBillRun.id}`, { headers: cookieHeaders(r) });
}

export default function StaffBillRuns() {
  const d = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  const v = (k: string) => a?.values[k];
  return (
    <>
      <h1>Bill runs</h1>
      <p className="usa-intro">
        Each period the Town Clerk previews the bills, looks at what is flagged, and issues them. An issued bill is never changed: a correction is an adjustment shown on the
        account's next bill.
      </p>
      {d.districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.district.id} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      <p>
        {d.district.name} bills{" "}
        {d.billRuns.cycles.map((c, i) => (
          <span key={c.cycle}>
            {i > 0 ? "; " : ""}
            {c.label.toLowerCase()} every {c.months === 1 ? "month" : `${c.months} months`} ({c.section})
          </span>
        ))}
        .
      </p>
      {d.billRuns.tasks.length > 0 && (
        <div className="usa-alert usa-alert--warning">
          <div className="usa-alert__body">
            <h2 className="usa-alert__heading">Figures the Town Board has not set</h2>
            <ul className="usa-list">
              {d.billRuns.tasks.map((t) => (
                <li key={t.key}>{t.text}</li>
              ))}
            </ul>
          </div>
        </div>
      )}
      {d.billRuns.runs.length === 0 ? (
        <p>No bills have been run for {d.district.name} yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>{d.district.name}: bill runs, newest period first</caption>
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col">Cycle</th>
              <th scope="col">Status</th>
              <th scope="col">Bills</th>
              <th scope="col">Flagged</th>
              <th scope="col">Total</th>
            </tr>
          </thead>
          <tbody>
            {d.billRuns.runs.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Period">
                  <Link className="usa-link" to={`/staff/bill-runs/${r.id}`}>
                    <CalendarDate date={r.periodStart} /> to <CalendarDate date={r.periodEnd} />
                  </Link>
                </th>
                <td data-label="Cycle">{r.cycleLabel}</td>
                <td data-label="Status">
                  {r.statusLabel}
                  {r.statusLabel !== "Issued" && r.issuedCount > 0 ? ` (${r.issuedCount} of ${r.billCount} issued)` : ""}
                </td>
                <td data-label="Bills">{r.billCount}</td>
                <td data-label="Flagged">{r.flaggedCount}</td>
                <td data-label="Total">{money(Math.max(0, r.totalCents))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.district.clerk && (
        <>
          <h2 id="preview">Preview a period's bills</h2>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="districtId" value={d.district.id} />
            <SelectField
              name="cycle"
              label={LABELS.cycle}
              options={d.billRuns.cycles.map((c) => ({ value: c.cycle, label: `${c.label} (every ${c.months === 1 ? "month" : `${c.months} months`})` }))}
              defaultValue={v("cycle") ?? d.billRuns.cycles[d.billRuns.cycles.length - 1]?.cycle}
              error={a?.fields.cycle}
            />
            <TextField name="periodStart" type="date" label={LABELS.periodStart} hint="The first day of a month; the period must be over" defaultValue={v("periodStart")} error={a?.fields.periodStart} required />
            <button className="usa-button" type="submit">
              Preview the bills
            </button>
          </Form>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

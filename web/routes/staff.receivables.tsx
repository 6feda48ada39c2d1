import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { TextField } from "~/components/forms";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Receivables | Staff | Tapline" }];

type Row = { accountId: string; kind: string; accountNumber: string; occupantName: string; ownerName: string; address: string; balanceCents: number; currentCents: number; days30Cents: number; days60Cents: number; days90Cents: number; over90Cents: number };
type Annual = { year: number; from: string; to: string; section: string; rows: { class: string; classLabel: string; billedCents: number; lateChargesCents: number; collectedCents: number; outstandingCents: number }[] };
type Data = { sewerReceivables: { asOf: string; rows: Row[]; totals: Row; annualReview: Annual | null } };

const ROW = `accountId kind accountNumber occupantName ownerName address balanceCents currentCents days30Cents days60Cents days90Cents over90Cents`;
const signed = (c: number) => (c < 0 ? `−${money(-c)}` : money(c));

/** The district's receivables (issue 14): each account's balance aged from its bills' due dates, the CSV exports, and SUL 1214's annual figures where the law asks for them. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const y = url.searchParams.get("year") ?? "";
  const year = /^\d{4}$/.test(y) ? Number(y) : null;
  const data = await requireSignedIn<Data>(
    args,
    `query Receivables($d: ID!, $y: Int) { sewerReceivables(districtId: $d, year: $y) { asOf rows { ${ROW} } totals { ${ROW} }
      annualReview { year from to section rows { class classLabel billedCents lateChargesCents collectedCents outstandingCents } } } }`,
    { d: district.id, y: year },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name })), district: { id: district.id, name: district.name }, ...data };
}

const BUCKETS: [keyof Row, string][] = [
  ["currentCents", "Not yet due"],
  ["days30Cents", "1-30 days past due"],
  ["days60Cents", "31-60 days"],
  ["days90Cents", "61-90 days"],
  ["over90Cents", "Over 90 days"],
];

export default function Receivables() {
  const d = useLoaderData<typeof loader>() as unknown as { districts: { id: string; name: string }[]; district: { id: string; name: string } } & Data;
  const r = d.sewerReceivables;
  const a = r.annualReview;
  return (
    <>
      <h1>Receivables: {d.district.name}</h1>
      {d.districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.district.id} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      <p>
        What the district's sewer accounts owe on <CalendarDate date={r.asOf} />, each unpaid bill aged from its due date (a late charge with its bill; a payment goes to the oldest bill first).
      </p>
      <ul className="usa-list">
        <li>
          <a className="usa-link" href={`/staff/receivables.csv?districtId=${d.district.id}&kind=receivables`}>
            Download the receivables (CSV)
          </a>
        </li>
        <li>
          <a className="usa-link" href={`/staff/receivables.csv?districtId=${d.district.id}&kind=payments`}>
            Download this year's payments (CSV)
          </a>
        </li>
      </ul>
      <table className="usa-table usa-table--stacked usa-table--borderless usa-table--compact width-full">
        <caption>Aging by account</caption>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Owner of record</th>
            <th scope="col">Balance</th>
            {BUCKETS.map(([k, label]) => (
              <th scope="col" key={k}>
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {r.rows.length === 0 && (
            <tr>
              <td colSpan={3 + BUCKETS.length}>No account owes anything or has a credit.</td>
            </tr>
          )}
          {r.rows.map((x) => (
            <tr key={x.accountId}>
              <th scope="row" data-label="Account">
                {/* Huron VI-2: an owner's excess row is the property's (no account). */}
                <Link className="usa-link" to={x.kind === "OWNER_EXCESS" ? `/staff/properties/${x.accountId}#excess` : `/staff/properties/accounts/${x.accountId}#money`}>
                  {x.accountNumber}
                </Link>{" "}
                {x.address}
              </th>
              <td data-label="Owner of record">{x.ownerName}</td>
              <td data-label="Balance">{signed(x.balanceCents)}</td>
              {BUCKETS.map(([k, label]) => (
                <td data-label={label} key={k}>
                  {signed(x[k] as number)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Totals
            </th>
            <td>{signed(r.totals.balanceCents)}</td>
            {BUCKETS.map(([k]) => (
              <td key={k}>{signed(r.totals[k] as number)}</td>
            ))}
          </tr>
        </tfoot>
      </table>
      {a && (
        <section aria-labelledby="annual-review">
          <h2 id="annual-review">Annual review of the sewer charge system, {a.year}</h2>
          <p>
            The fiscal year <CalendarDate date={a.from} /> to <CalendarDate date={a.to} /> ({a.section}): what was billed, what was collected and what is outstanding at its end, by class, for the annual
            review of whether the charges meet the coming year's expenditures.
          </p>
          <Form method="get" className="usa-form">
            <input type="hidden" name="districtId" value={d.district.id} />
            <TextField name="year" label="Fiscal year" inputMode="numeric" defaultValue={String(a.year)} />
            <button className="usa-button usa-button--outline" type="submit">
              Show the year
            </button>
          </Form>
          <table className="usa-table usa-table--borderless width-full">
            <caption>Sewer charges by class, fiscal year {a.year}</caption>
            <thead>
              <tr>
                <th scope="col">Class</th>
                <th scope="col">Billed</th>
                <th scope="col">Penalty and interest</th>
                <th scope="col">Collected</th>
                <th scope="col">Outstanding at year end</th>
              </tr>
            </thead>
            <tbody>
              {a.rows.map((x) => (
                <tr key={x.class}>
                  <th scope="row">{x.classLabel}</th>
                  <td>{signed(x.billedCents)}</td>
                  <td>{signed(x.lateChargesCents)}</td>
                  <td>{signed(x.collectedCents)}</td>
                  <td>{signed(x.outstandingCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <p>
        <Link className="usa-link" to={`/staff/properties?districtId=${d.district.id}`}>
          Back to the register
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

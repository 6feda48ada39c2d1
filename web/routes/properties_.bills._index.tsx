import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "My sewer bills | Tapline" }];

export const LABELS: Record<string, string> = {};

type Bill = { id: string; number: string; districtName: string; address: string; servedFrom: string; servedTo: string; totalCents: number; dueOn: string };

/** The signed-in person's issued sewer bills: the accounts they occupy, the properties they own, and the accounts they linked (newest first). */
export async function loader(args: LoaderFunctionArgs) {
  const data = await requireSignedIn<{ mySewerBills: Bill[]; myLinkedBills: Bill[] }>(
    args,
    `query MySewerBills { mySewerBills { id number districtName address servedFrom servedTo totalCents dueOn }
      myLinkedBills { id number districtName address servedFrom servedTo totalCents dueOn } }`,
  );
  const seen = new Set(data.mySewerBills.map((b) => b.id));
  const bills = [...data.mySewerBills, ...data.myLinkedBills.filter((b) => !seen.has(b.id))].sort((x, y) => (x.servedTo < y.servedTo ? 1 : x.servedTo > y.servedTo ? -1 : x.number < y.number ? 1 : -1));
  return { mySewerBills: bills };
}

export default function MySewerBills() {
  const { mySewerBills: bills } = useLoaderData<typeof loader>();
  return (
    <>
      <p>
        <Link className="usa-link" to="/properties">
          My properties and sewer accounts
        </Link>
      </p>
      <h1>My sewer bills</h1>
      {bills.length === 0 ? (
        <p>No sewer bill has been issued to you yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Sewer bills, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Bill</th>
              <th scope="col">Service address</th>
              <th scope="col">Period</th>
              <th scope="col">Amount</th>
              <th scope="col">Due</th>
            </tr>
          </thead>
          <tbody>
            {bills.map((b) => (
              <tr key={b.id}>
                <th scope="row" data-label="Bill">
                  <Link className="usa-link" to={`/properties/bills/${b.id}`}>
                    {b.number}
                  </Link>
                </th>
                <td data-label="Service address">
                  {b.address} ({b.districtName})
                </td>
                <td data-label="Period">
                  <CalendarDate date={b.servedFrom} /> to <CalendarDate date={b.servedTo} />
                </td>
                <td data-label="Amount">{b.totalCents < 0 ? `−${money(-b.totalCents)}` : money(b.totalCents)}</td>
                <td data-label="Due">
                  <CalendarDate date={b.dueOn} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

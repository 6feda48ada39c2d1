import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { date, daysText } from "~/components/enforcement";
import { NestedErrorBoundary } from "~/components/fields";
import { money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "My notices and orders | Tapline" }];

type Row = {
  id: string;
  number: string;
  kindLabel: string;
  statusLabel: string;
  final: boolean;
  respondentName: string;
  servedOn: string;
  petitionDueOn: string | null;
  petitionDaysLeft: number | null;
  answerDueOn: string | null;
  answerDaysLeft: number | null;
  respondedAt: string | null;
  fineTotalCents: number;
  district: { name: string };
};
type ChargeRow = { id: string; number: string; label: string; status: string; billedOn: string; respondentName: string; statement: { totalCents: number; delinquent: boolean } };
type Data = { myEnforcementActions: Row[]; myCharges: ChargeRow[] };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(
    args,
    `query MyEnforcement { myEnforcementActions { id number kindLabel statusLabel final respondentName servedOn petitionDueOn petitionDaysLeft answerDueOn answerDaysLeft respondedAt fineTotalCents district { name } }
      myCharges { id number label status billedOn respondentName statement { totalCents delinquent } } }`,
  );
}

const CHARGE_STATUS: Record<string, string> = { OPEN: "Unpaid", HELD: "On hold: petition before the Board", PAID: "Paid", CANCELLED: "Cancelled" };

export default function MyEnforcement() {
  const { myEnforcementActions: rows, myCharges: charges } = useLoaderData<typeof loader>() as Data;
  return (
    <>
      <h1>My notices and orders</h1>
      <p>Notices of violation, orders and fines served on you or on an organization you belong to, and the charges billed to you.</p>
      {rows.length === 0 ? (
        <p>Nothing has been served on you or your organizations.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">Served on</th>
              <th scope="col">Status</th>
              <th scope="col">By when</th>
              <th scope="col">Fine</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Action">
                  <Link className="usa-link" to={`/enforcement/${r.id}`}>
                    {r.kindLabel} {r.number}
                  </Link>
                  <span className="display-block text-base-dark">
                    {r.respondentName} · {r.district.name}
                  </span>
                </th>
                <td data-label="Served on">{date(r.servedOn)}</td>
                <td data-label="Status">{r.final ? "Final" : r.statusLabel}</td>
                <td data-label="By when">
                  {r.answerDueOn && !r.respondedAt && r.answerDaysLeft !== null && r.answerDaysLeft >= 0
                    ? `Answer by ${date(r.answerDueOn)} (${daysText(r.answerDaysLeft)} left)`
                    : r.petitionDueOn && r.petitionDaysLeft !== null && r.petitionDaysLeft >= 0 && !r.final
                      ? `Petition by ${date(r.petitionDueOn)} (${daysText(r.petitionDaysLeft)} left)`
                      : ""}
                </td>
                <td data-label="Fine">{r.fineTotalCents ? money(r.fineTotalCents) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Charges</h2>
      {charges.length === 0 ? (
        <p>No charges are billed to you.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Bills and fines, with what each costs today</caption>
          <thead>
            <tr>
              <th scope="col">Charge</th>
              <th scope="col">Billed</th>
              <th scope="col">Status</th>
              <th scope="col">Owed today</th>
            </tr>
          </thead>
          <tbody>
            {charges.map((c) => (
              <tr key={c.id}>
                <th scope="row" data-label="Charge">
                  <Link className="usa-link" to={`/enforcement/charges/${c.id}`}>
                    {c.label}
                  </Link>
                  <span className="display-block text-base-dark">{c.number}</span>
                </th>
                <td data-label="Billed">{date(c.billedOn)}</td>
                <td data-label="Status">
                  {CHARGE_STATUS[c.status]}
                  {c.status === "OPEN" && c.statement.delinquent ? ", delinquent" : ""}
                </td>
                <td data-label="Owed today">{c.status === "OPEN" ? money(c.statement.totalCents) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <Link className="usa-link" to="/petitions/flow">
          Ask for a deduction: metered water that does not reach the sewer (Sewer Use Law 1205)
        </Link>
      </p>
      <p>
        <Link className="usa-link" to="/enforcement/public">
          Public record: final enforcement actions against industrial users
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

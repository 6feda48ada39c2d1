import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate } from "~/components/format";

export const meta: MetaFunction = () => [{ title: "My properties and sewer accounts | Tapline" }];

type Account = {
  id: string;
  accountNumber: string;
  classLabel: string;
  occupantName: string;
  openedOn: string;
  closedOn: string | null;
  closeReasonLabel: string | null;
  meters: { id: string; meterNumber: string; removedOn: string | null }[];
  assessment: { basis: string; edus: string | null; effectiveOn: string; rows: { key: string; label: string; count: number; edus: string; section: string }[]; waterUsageEdus: string | null } | null;
};
type Property = { id: string; districtName: string; taxParcel: string; address: string; ownerName: string; owners: { fromDate: string }[]; accounts: Account[] };

/** An owner's properties (as owner of record) and an occupant's accounts, with how each is assessed: only their own. */
export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ myServiceProperties: Property[] }>(
    args,
    `query MyProperties { myServiceProperties { id districtName taxParcel address ownerName owners { fromDate }
      accounts { id accountNumber classLabel occupantName openedOn closedOn closeReasonLabel meters { id meterNumber removedOn }
        assessment { basis edus effectiveOn waterUsageEdus rows { key label count edus section } } } } }`,
  );
}

export default function MyProperties() {
  const { myServiceProperties: list } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>My properties and sewer accounts</h1>
      <p>
        <Link className="usa-link" to="/properties/bills">
          My sewer bills
        </Link>
      </p>
      {list.length === 0 ? (
        <p>
          No property or sewer account is linked to your sign-in. The Town Clerk links them when the property is connected under your lateral permit, or when you ask at the
          Clerk's office with the email you sign in with.
        </p>
      ) : (
        list.map((p) => (
          <section key={p.id} aria-labelledby={`p-${p.id}`}>
            <h2 id={`p-${p.id}`}>{p.address}</h2>
            <p>
              {p.districtName}, tax parcel {p.taxParcel}.{" "}
              {p.owners.length > 0 ? (
                <>
                  You are the owner of record since <CalendarDate date={p.owners[0].fromDate} />.
                </>
              ) : (
                <>Owner of record: {p.ownerName}.</>
              )}
            </p>
            {p.accounts.length === 0 ? (
              <p>No sewer account of yours at this property.</p>
            ) : (
              <table className="usa-table usa-table--stacked usa-table--borderless width-full">
                <caption>Sewer accounts at {p.address}</caption>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Occupant</th>
                    <th scope="col">Served</th>
                    <th scope="col">Assessed as</th>
                    <th scope="col">Meters</th>
                  </tr>
                </thead>
                <tbody>
                  {p.accounts.map((a) => (
                    <tr key={a.id}>
                      <th scope="row" data-label="Account">
                        {a.accountNumber}
                        <span className="display-block">{a.classLabel}</span>
                        {!a.closedOn && (
                          <Link className="usa-link display-block" to={`/properties/autopay/${a.id}`}>
                            Autopay
                          </Link>
                        )}
                      </th>
                      <td data-label="Occupant">{a.occupantName}</td>
                      <td data-label="Served">
                        From <CalendarDate date={a.openedOn} />
                        {a.closedOn ? (
                          <>
                            {" "}
                            to <CalendarDate date={a.closedOn} /> ({a.closeReasonLabel})
                          </>
                        ) : (
                          ", open"
                        )}
                      </td>
                      <td data-label="Assessed as">
                        {!a.assessment ? (
                          "Not assessed yet"
                        ) : a.assessment.basis === "EDU" ? (
                          <>
                            {a.assessment.edus} equivalent dwelling units from <CalendarDate date={a.assessment.effectiveOn} />
                            <ul className="usa-list">
                              {a.assessment.rows.map((r) => (
                                <li key={r.key}>
                                  {r.label}: {r.count} = {r.edus} EDUs ({r.section})
                                </li>
                              ))}
                              {a.assessment.waterUsageEdus && <li>Determined from water usage: {a.assessment.waterUsageEdus} EDUs</li>}
                            </ul>
                          </>
                        ) : (
                          "One user (the minimum charge applies to each user)"
                        )}
                      </td>
                      <td data-label="Meters">
                        {a.meters.filter((m) => !m.removedOn).map((m) => m.meterNumber).join(", ") || "None recorded"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

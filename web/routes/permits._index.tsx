import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { DateTime, daysLeftText, formatCalendarDate } from "~/components/format";

export const meta: MetaFunction = () => [{ title: "My lateral permits | Tapline" }];

type Row = {
  id: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  address: string;
  createdAt: string;
  district: { name: string; timeZone: string };
  nextStep: { text: string | null; dueDate: string | null; daysLeft: number | null };
};

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ myLateralPermits: Row[] }>(
    args,
    `query MyPermits { myLateralPermits { id status statusLabel permitNumber address createdAt district { name timeZone } nextStep { text dueDate daysLeft } } }`,
  );
}

export default function MyPermits() {
  const { myLateralPermits: rows } = useLoaderData<typeof loader>() as { myLateralPermits: Row[] };
  return (
    <>
      <h1>My lateral permits</h1>
      <p>
        <Link className="usa-button" to="/permits/new">
          Connect to the public sewer
        </Link>
      </p>
      {rows.length === 0 ? (
        <p>You have not applied for a building lateral permit yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Property</th>
              <th scope="col">Permit</th>
              <th scope="col">Status</th>
              <th scope="col">Next step</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Property">
                  <Link className="usa-link" to={r.status === "DRAFT" ? `/permits/${r.id}/edit` : `/permits/${r.id}`}>
                    {r.address}
                  </Link>
                  <span className="display-block text-base-dark">{r.district.name}</span>
                </th>
                <td data-label="Permit">{r.permitNumber ?? "Not issued"}</td>
                <td data-label="Status">{r.statusLabel}</td>
                <td data-label="Next step">
                  {r.nextStep.text ?? ""}
                  {r.nextStep.dueDate ? ` (by ${formatCalendarDate(r.nextStep.dueDate)}, ${daysLeftText(r.nextStep.daysLeft)})` : ""}
                </td>
                <td data-label="Started">
                  <DateTime iso={r.createdAt} timeZone={r.district.timeZone} />
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

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";

export const meta: MetaFunction = () => [{ title: "Sewer extensions | Tapline" }];

/** This page has no form. */
export const LABELS: Record<string, string> = {};

type Row = { id: string; name: string; organizationName: string; statusLabel: string; lots: number; testsPassed: boolean };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ mySewerExtensions: Row[] }>(args, `query MyExtensions { mySewerExtensions { id name organizationName statusLabel lots testsPassed } }`);
}

/** A developer's sewer extensions (Sewer Use Law Article 5). */
export default function MyExtensions() {
  const { mySewerExtensions: rows } = useLoaderData<typeof loader>() as { mySewerExtensions: Row[] };
  return (
    <>
      <h1>Sewer extensions</h1>
      <p className="usa-intro">
        A developer who subdivides land builds the street sewer at its own cost. The District Operator approves the plans where the receiving sewer and
        the treatment plant have capacity, and the sewer must pass its tests before any building lateral is connected (Sewer Use Law 501-505).
      </p>
      <p>
        <Link className="usa-button" to="/extensions/apply">
          Apply for a sewer extension
        </Link>
      </p>
      {rows.length === 0 ? (
        <p>Your organizations have no sewer extension applications.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Your organizations' applications, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Developer</th>
              <th scope="col">Lots</th>
              <th scope="col">Status</th>
              <th scope="col">Tests</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Project">
                  <Link className="usa-link" to={`/extensions/${r.id}`}>
                    {r.name}
                  </Link>
                </th>
                <td data-label="Developer">{r.organizationName}</td>
                <td data-label="Lots">{r.lots}</td>
                <td data-label="Status">{r.statusLabel}</td>
                <td data-label="Tests">{r.testsPassed ? "All sections passed" : "Not all passed yet"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

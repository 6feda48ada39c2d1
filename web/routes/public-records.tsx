import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Public records: discharge permits | Tapline" }];

type ExtensionDistrict = { slug: string; name: string; provided: boolean };
type Row = { id: string; statusLabel: string; permitNumber: string | null; facilityName: string | null; organizationName: string; districtName: string; effectiveOn: string | null; expiresOn: string | null };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const search = new URL(request.url).searchParams.get("q") ?? "";
  const r = await gql<{ publicIndustrialPermits: Row[]; sewerExtensionDistricts: ExtensionDistrict[] }>(
    context,
    request,
    `query PublicPermits($q: String) { publicIndustrialPermits(search: $q) { id statusLabel permitNumber facilityName organizationName districtName effectiveOn expiresOn }
      sewerExtensionDistricts { slug name provided } }`,
    { q: search },
  );
  if (!r.ok) throw new Response(r.error.message, { status: 500 });
  return { rows: r.data.publicIndustrialPermits, search, extensions: r.data.sewerExtensionDistricts.filter((d) => d.provided) };
}

/** Public records (SUL 1014): discharge permits, their limits and signed reports, open to anyone. */
export default function PublicRecords() {
  const { rows, search, extensions } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Public records: wastewater discharge permits</h1>
      <p className="usa-intro">
        Permits, their limits and the compliance reports filed under them are open to the public, except what a user shows to be a trade secret; wastewater
        constituents are never confidential (Sewer Use Law 1014). See also the{" "}
        <Link className="usa-link" to="/public-records/snc">
          published lists of users in significant non-compliance
        </Link>{" "}
        (Sewer Use Law 1122).
      </p>
      {extensions.length > 0 && (
        <p>
          New sewers built by developers: the procedure, the capacity the Town Board committed by resolution, the charges it set and the sewers the
          Town accepted (Sewer Use Law 1301-1303), for{" "}
          {extensions.map((d, i) => (
            <span key={d.slug}>
              {i > 0 && ", "}
              <Link className="usa-link" to={`/extensions/public/${d.slug}`}>
                {d.name}
              </Link>
            </span>
          ))}
          .
        </p>
      )}
      <Form method="get" role="search" className="usa-search usa-search--small margin-bottom-2">
        <label className="usa-sr-only" htmlFor="q">
          Search by facility, industrial user or permit number
        </label>
        <input className="usa-input" id="q" name="q" type="search" defaultValue={search} />
        <button className="usa-button" type="submit">
          <span className="usa-search__submit-text">Search</span>
        </button>
      </Form>
      {rows.length === 0 ? (
        <p>No permit matches.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption className="usa-sr-only">Discharge permits</caption>
          <thead>
            <tr>
              <th scope="col">Facility</th>
              <th scope="col">Permit</th>
              <th scope="col">Status</th>
              <th scope="col">In force</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Facility">
                  <Link className="usa-link" to={`/industrial/${r.id}`}>
                    {r.facilityName}
                  </Link>
                  <span className="display-block">
                    {r.organizationName}, {r.districtName}
                  </span>
                </th>
                <td data-label="Permit">{r.permitNumber ?? "Not issued yet"}</td>
                <td data-label="Status">{r.statusLabel}</td>
                <td data-label="In force">{r.effectiveOn ? `${formatCalendarDate(r.effectiveOn)} to ${formatCalendarDate(r.expiresOn!)}` : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

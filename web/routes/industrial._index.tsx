import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { formatCalendarDate, daysLeftText } from "~/components/format";
import { DischargePrograms, PROGRAM_QUERY, dischargePrograms } from "~/components/industrial-programs";

export const meta: MetaFunction = () => [{ title: "Industrial discharge permits | Tapline" }];

type Row = {
  id: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  facilityName: string | null;
  organizationName: string;
  districtName: string;
  nextReport: { id: string; dueOn: string; daysLeft: number } | null;
  openDuties: { id: string }[];
};

export async function loader(args: LoaderFunctionArgs) {
  const r = await requireSignedIn<{ myIndustrialPermits: Row[]; districts: Parameters<typeof dischargePrograms>[0] }>(
    args,
    `query MyIndustrial { myIndustrialPermits { id status statusLabel permitNumber facilityName organizationName districtName nextReport { id dueOn daysLeft } openDuties { id } } ${PROGRAM_QUERY} }`,
  );
  return { myIndustrialPermits: r.myIndustrialPermits, programs: dischargePrograms(r.districts) };
}

/** The wastewater discharge permits and applications of the organizations I belong to (SUL Article 10). */
export default function MyIndustrialPermits() {
  const { myIndustrialPermits: rows, programs } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Industrial discharge permits</h1>
      <p>
        {programs.some((p) => p.enabled) && (
          <Link className="usa-button" to="/industrial/apply">
            Apply for a wastewater discharge permit
          </Link>
        )}
        <Link className="usa-link margin-left-2" to="/notices">
          Public notices
        </Link>
      </p>
      {rows.length === 0 ? (
        <p>Your organizations hold no discharge permit and have no application.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Facility</th>
              <th scope="col">Permit</th>
              <th scope="col">Status</th>
              <th scope="col">Next report</th>
              <th scope="col">Open tasks</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Facility">
                  <Link className="usa-link" to={r.status === "DRAFT" ? `/industrial/apply?id=${r.id}` : `/industrial/${r.id}`}>
                    {r.facilityName ?? "(draft without a name)"}
                  </Link>
                  <span className="display-block text-base-dark">
                    {r.organizationName}, {r.districtName}
                  </span>
                </th>
                <td data-label="Permit">{r.permitNumber ?? "Not issued"}</td>
                <td data-label="Status">{r.statusLabel}</td>
                <td data-label="Next report">
                  {r.nextReport ? (
                    <Link className="usa-link" to={`/industrial/reports/${r.nextReport.id}`}>
                      Due {formatCalendarDate(r.nextReport.dueOn)} ({daysLeftText(r.nextReport.daysLeft)})
                    </Link>
                  ) : (
                    ""
                  )}
                </td>
                <td data-label="Open tasks">{r.openDuties.length || ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <DischargePrograms programs={programs} />
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

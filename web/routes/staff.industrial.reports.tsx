import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { DateTime, countOf, formatCalendarDate } from "~/components/format";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Compliance reports | Staff | Tapline" }];

type Report = { id: string; kind: string; kindLabel: string; periodStart: string; periodEnd: string; dueOn: string; daysLeft: number | null; signedAt: string | null; permit: { id: string; facilityName: string | null; permitNumber: string | null; organizationName: string } };
type Exceedance = {
  id: string;
  parameter: string;
  sampleType: string;
  sampledAt: string;
  message: string;
  report: { id: string; permit: { facilityName: string | null; permitNumber: string | null; organizationName: string } };
};
const VIEWS = [
  { value: "RECEIVED", label: "Received" },
  { value: "LATE", label: "Late" },
  { value: "EXCEEDANCES", label: "Exceedances" },
];

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const view = VIEWS.some((v) => v.value === url.searchParams.get("view")) ? url.searchParams.get("view")! : "RECEIVED";
  const after = url.searchParams.get("after") || null;
  const base = { districtId: district.id, districtName: district.name, timeZone: district.timeZone, view };
  if (view === "EXCEEDANCES") {
    const { industrialExceedances } = await requireSignedIn<{ industrialExceedances: { items: Exceedance[]; nextCursor: string | null } }>(
      args,
      `query Exceedances($d: ID!, $a: String) { industrialExceedances(districtId: $d, first: 50, after: $a) { nextCursor items {
        id parameter sampleType sampledAt message report { id permit { facilityName permitNumber organizationName } } } } }`,
      { d: district.id, a: after },
    );
    return { ...base, reports: [] as Report[], exceedances: industrialExceedances.items, nextCursor: industrialExceedances.nextCursor };
  }
  const { industrialReportInbox } = await requireSignedIn<{ industrialReportInbox: { items: Report[]; nextCursor: string | null } }>(
    args,
    `query Inbox($d: ID!, $v: String!, $a: String) { industrialReportInbox(districtId: $d, view: $v, first: 50, after: $a) { nextCursor items {
      id kind kindLabel periodStart periodEnd dueOn daysLeft signedAt permit { id facilityName permitNumber organizationName } } } }`,
    { d: district.id, v: view, a: after },
  );
  return { ...base, reports: industrialReportInbox.items, exceedances: [] as Exceedance[], nextCursor: industrialReportInbox.nextCursor };
}

/** The district's compliance reports (SUL 1005): received, late, and the results over a limit. */
export default function StaffReports() {
  const { districtId, districtName, timeZone, view, reports, exceedances, nextCursor } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Compliance reports</h1>
      <p className="usa-intro">{districtName}</p>
      <p>
        <Link className="usa-link" to={`/staff/industrial/snc?districtId=${districtId}`}>
          Significant non-compliance of every permit (Sewer Use Law 201)
        </Link>
        {" · "}
        <Link className="usa-link" to={`/staff/industrial/events?districtId=${districtId}`}>
          Violation notifications and accidental discharges
        </Link>
      </p>
      <nav aria-label="Report lists">
        <ul className="usa-button-group">
          {VIEWS.map((v) => (
            <li className="usa-button-group__item" key={v.value}>
              <Link className={`usa-button${v.value === view ? "" : " usa-button--outline"}`} to={`?districtId=${districtId}&view=${v.value}`} aria-current={v.value === view ? "page" : undefined}>
                {v.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {view === "EXCEEDANCES" ? (
        exceedances.length === 0 ? (
          <p>No result over a limit.</p>
        ) : (
          <table className="usa-table usa-table--stacked usa-table--borderless width-full">
            <caption>Results over a permit's limit, newest sample first</caption>
            <thead>
              <tr>
                <th scope="col">Facility</th>
                <th scope="col">Sample</th>
                <th scope="col">Evaluation</th>
              </tr>
            </thead>
            <tbody>
              {exceedances.map((x) => (
                <tr key={x.id}>
                  <th scope="row" data-label="Facility">
                    <Link className="usa-link" to={`/industrial/reports/${x.report.id}`}>
                      {x.report.permit.facilityName}
                    </Link>
                    <span className="display-block">
                      {x.report.permit.organizationName}, {x.report.permit.permitNumber}
                    </span>
                  </th>
                  <td data-label="Sample">
                    {x.parameter}, {x.sampleType.toLowerCase()}, <DateTime iso={x.sampledAt} timeZone={timeZone} />
                  </td>
                  <td data-label="Evaluation">{x.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : reports.length === 0 ? (
        <p>{view === "LATE" ? "No report is late." : "No report received yet."}</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>{view === "LATE" ? "Past due and not signed, most overdue first (more than 30 days late is significant non-compliance, Sewer Use Law 201)" : "Signed reports, newest first"}</caption>
          <thead>
            <tr>
              <th scope="col">Facility</th>
              <th scope="col">Period</th>
              <th scope="col">Due</th>
              <th scope="col">{view === "LATE" ? "Late by" : "Received"}</th>
            </tr>
          </thead>
          <tbody>
            {reports.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Facility">
                  <Link className="usa-link" to={`/industrial/reports/${r.id}`}>
                    {r.permit.facilityName}
                  </Link>
                  <span className="display-block">
                    {r.permit.organizationName}, {r.permit.permitNumber}
                  </span>
                </th>
                <td data-label="Period">
                  {formatCalendarDate(r.periodStart)} to {formatCalendarDate(r.periodEnd)}
                  {r.kind !== "PERIODIC" ? ` · ${r.kindLabel}` : ""}
                </td>
                <td data-label="Due">{formatCalendarDate(r.dueOn)}</td>
                <td data-label={view === "LATE" ? "Late by" : "Received"}>{view === "LATE" ? countOf(-(r.daysLeft ?? 0), "day") : <DateTime iso={r.signedAt} timeZone={timeZone} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {nextCursor && (
        <p>
          <Link className="usa-link" to={`?districtId=${districtId}&view=${view}&after=${nextCursor}`}>
            More
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { DateTime, formatCalendarDate } from "~/components/format";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Industrial discharge permits | Staff | Tapline" }];

type Item = {
  id: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  facilityName: string | null;
  organizationName: string;
  submittedAt: string;
  paidAt: string | null;
  noticePublishedOn: string | null;
  earliestIssueOn: string | null;
  nextReport: { dueOn: string; daysLeft: number } | null;
  openDuties: { id: string }[];
  previousRelation: string | null;
  reissuanceLate: boolean | null;
};

const STATUSES = [
  { value: "", label: "All but drafts" },
  { value: "SUBMITTED", label: "Submitted: review and publish the notice" },
  { value: "NOTICE_PUBLISHED", label: "Notice published: issue after the notice period" },
  { value: "ISSUED", label: "Issued" },
  { value: "REVOKED", label: "Revoked" },
  { value: "SUPERSEDED", label: "Ended: replaced after a change (Sewer Use Law 1004 F)" },
  { value: "WITHDRAWN", label: "Withdrawn" },
];

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const status = url.searchParams.get("status") ?? "";
  const after = url.searchParams.get("after") || null;
  const { industrialPermitQueue } = await requireSignedIn<{ industrialPermitQueue: { items: Item[]; nextCursor: string | null } }>(
    args,
    `query IndustrialQueue($d: ID!, $s: String, $a: String) { industrialPermitQueue(districtId: $d, status: $s, first: 25, after: $a) { nextCursor items {
      id status statusLabel permitNumber facilityName organizationName submittedAt paidAt noticePublishedOn earliestIssueOn nextReport { dueOn daysLeft } openDuties { id } previousRelation reissuanceLate } } }`,
    { d: district.id, s: status || null, a: after },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name })), districtId: district.id, timeZone: district.timeZone, status, ...industrialPermitQueue };
}

/** Applications, notices and permits of a district (SUL Article 10), newest first. */
export default function IndustrialQueue() {
  const { districts, districtId, timeZone, status, items, nextCursor } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Industrial discharge permits</h1>
      <p>
        <Link className="usa-link" to="/staff/industrial/reports">
          Compliance reports: received, late, exceedances
        </Link>{" "}
        ·{" "}
        <Link className="usa-link" to="/staff/industrial/snc">
          Significant non-compliance
        </Link>
      </p>
      <Form method="get" className="usa-form">
        {districts.length > 1 && <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />}
        <SelectField name="status" label="Show" options={STATUSES} defaultValue={status} />
        <button className="usa-button" type="submit">
          Show
        </button>
      </Form>
      {items.length === 0 ? (
        <p>Nothing here.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption className="usa-sr-only">Applications and permits</caption>
          <thead>
            <tr>
              <th scope="col">Facility</th>
              <th scope="col">Status</th>
              <th scope="col">Submitted</th>
              <th scope="col">Fee</th>
              <th scope="col">Notice and reports</th>
              <th scope="col">Open tasks</th>
            </tr>
          </thead>
          <tbody>
            {items.map((p) => (
              <tr key={p.id}>
                <th scope="row" data-label="Facility">
                  <Link className="usa-link" to={`/staff/industrial/${p.id}`}>
                    {p.facilityName}
                  </Link>
                  <span className="display-block">
                    {p.organizationName}
                    {p.permitNumber ? `, ${p.permitNumber}` : ""}
                  </span>
                  {p.previousRelation && (
                    <span className="display-block">
                      {p.previousRelation === "REISSUANCE" ? `Reissuance${p.reissuanceLate ? ", applied late (Sewer Use Law 1004 E)" : ""}` : "New permit after a change (Sewer Use Law 1004 F)"}
                    </span>
                  )}
                </th>
                <td data-label="Status">{p.statusLabel}</td>
                <td data-label="Submitted">
                  <DateTime iso={p.submittedAt} timeZone={timeZone} />
                </td>
                <td data-label="Fee">{p.paidAt ? "Paid" : "Not paid"}</td>
                <td data-label="Notice and reports">
                  {p.status === "NOTICE_PUBLISHED" && p.earliestIssueOn ? `May be issued from ${formatCalendarDate(p.earliestIssueOn)}` : ""}
                  {p.nextReport ? `Next report due ${formatCalendarDate(p.nextReport.dueOn)}` : ""}
                </td>
                <td data-label="Open tasks">{p.openDuties.length || ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {nextCursor && (
        <p>
          <Link className="usa-link" to={`/staff/industrial?districtId=${districtId}&status=${status}&after=${nextCursor}`}>
            Older
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

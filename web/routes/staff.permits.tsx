import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useOutlet } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { money } from "~/components/permit-view";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Lateral permits | Staff | Tapline" }];

type Item = {
  id: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  address: string;
  applicantName: string;
  submittedAt: string;
  daysWaiting: number;
  feeTotalCents: number;
  paidAt: string | null;
  contractor: { name: string; standing: { choosable: boolean } } | null;
  nextStep: { text: string | null };
};
type Data = null | {
  districts: { id: string; name: string }[];
  districtId: string;
  status: string;
  items: Item[];
  nextCursor: string | null;
};

const STATUSES = [
  { value: "", label: "Open (submitted, changes requested, issued, connected)" },
  { value: "SUBMITTED", label: "Submitted: waiting for review" },
  { value: "CHANGES_REQUESTED", label: "Changes requested" },
  { value: "APPROVED", label: "Permit issued: inspections" },
  { value: "CONNECTED", label: "Connected: record drawings" },
  { value: "CLOSED", label: "Closed" },
  { value: "WITHDRAWN", label: "Withdrawn" },
];

/** The queue of applications by status and age, oldest first. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  // /staff/permits/:id is a page of its own (rendered in place of the queue).
  if (url.pathname.replace(/\/$/, "") !== "/staff/permits") return null;
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const status = url.searchParams.get("status") ?? "";
  const after = url.searchParams.get("after") || null;
  const { lateralPermitQueue } = await requireSignedIn<{ lateralPermitQueue: { items: Item[]; nextCursor: string | null } }>(
    args,
    `query PermitQueue($d: ID!, $s: String, $a: String) { lateralPermitQueue(districtId: $d, status: $s, first: 25, after: $a) {
      nextCursor items { id status statusLabel permitNumber address applicantName submittedAt daysWaiting feeTotalCents paidAt
        contractor { name standing { choosable } } nextStep { text } } } }`,
    { d: district.id, s: status || null, a: after },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name })), districtId: district.id, status, ...lateralPermitQueue } satisfies Data;
}

export default function StaffPermits() {
  const outlet = useOutlet();
  if (outlet) return outlet;
  return <Queue />;
}

function Queue() {
  const d = useLoaderData<typeof loader>() as NonNullable<Data>;
  const district = d.districts.find((x) => x.id === d.districtId)!;
  return (
    <>
      <h1>Lateral permit applications</h1>
      <Form method="get" className="usa-form">
        {d.districts.length > 1 && <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.districtId} />}
        {d.districts.length === 1 && <input type="hidden" name="districtId" value={d.districtId} />}
        <SelectField name="status" label="Status" options={STATUSES} defaultValue={d.status} />
        <button className="usa-button" type="submit">
          Show
        </button>
      </Form>
      {d.items.length === 0 ? (
        <p>No application of {district.name} has this status.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>
            {district.name}: {STATUSES.find((s) => s.value === d.status)?.label ?? d.status}, oldest first
          </caption>
          <thead>
            <tr>
              <th scope="col">Property</th>
              <th scope="col">Applicant</th>
              <th scope="col">Status</th>
              <th scope="col">Waiting</th>
              <th scope="col">Fees</th>
              <th scope="col">Next step</th>
            </tr>
          </thead>
          <tbody>
            {d.items.map((i) => (
              <tr key={i.id}>
                <th scope="row" data-label="Property">
                  <Link className="usa-link" to={`/staff/permits/${i.id}`}>
                    {i.address}
                  </Link>
                  {i.permitNumber && <span className="display-block">{i.permitNumber}</span>}
                  {i.contractor && !i.contractor.standing.choosable && !["CLOSED", "WITHDRAWN"].includes(i.status) && (
                    <span className="display-block text-secondary-dark">Warning: {i.contractor.name} can no longer be chosen</span>
                  )}
                </th>
                <td data-label="Applicant">{i.applicantName}</td>
                <td data-label="Status">{i.statusLabel}</td>
                <td data-label="Waiting">
                  {i.daysWaiting} {i.daysWaiting === 1 ? "day" : "days"}
                </td>
                <td data-label="Fees">
                  {money(i.feeTotalCents)} {i.paidAt ? "paid" : "unpaid"}
                </td>
                <td data-label="Next step">{i.nextStep.text ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.nextCursor && (
        <p>
          <Link className="usa-link" to={`/staff/permits?districtId=${d.districtId}&status=${d.status}&after=${d.nextCursor}`}>
            Next page
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

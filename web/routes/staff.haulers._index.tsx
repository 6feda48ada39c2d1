import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { DateTime, formatCalendarDate } from "~/components/format";
import { SuccessAlert } from "~/components/forms";
import { BookingTask, HowDistrictsAdmitHaulers, type HaulerDistrict, type LoadBooking } from "~/components/hauler";
import { gql } from "~/graphql.server";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Septage haulers | Staff | Tapline" }];

type Lic = {
  id: string;
  organizationName: string;
  licenseNumber: string | null;
  previousLicenseId: string | null;
  submittedAt: string | null;
  paidAt: string | null;
  applicationFeeCents: number | null;
  validUntil: string | null;
  standing: { daysLeft: number | null; label: string };
  renewal: { id: string; status: string; statusLabel: string } | null;
  vehicles: { id: string }[];
};
type Perm = { id: string; organizationName: string; status: string; requestedPoint: string; requestedConditions: string | null; createdAt: string; standing: { label: string } };
type Refund = { load: { id: string; feeCents: number; refusalReason: string | null; paymentId: string }; organizationName: string; plate: string; receiptNumber: string | null };
type Data = {
  districts: { id: string; slug: string; name: string; timeZone: string }[];
  booking: LoadBooking;
  admits: HaulerDistrict | null;
  districtId: string;
  roles: string[];
  queue: Lic[];
  expiring: Lic[];
  permissions: Perm[];
  refunds: Refund[];
};

const LIC = `id organizationName licenseNumber previousLicenseId submittedAt paidAt applicationFeeCents validUntil standing { daysLeft label } renewal { id status statusLabel } vehicles { id }`;

/** Staff: licence applications and renewals waiting for the Town Board, licences expiring in 60 days, special permissions, refunds due. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const h = await gql<{ haulerDistricts: (HaulerDistrict & { booking: LoadBooking })[] }>(
    args.context,
    args.request,
    `query StaffHaulerDistricts { haulerDistricts { id name licensesHaulers grantsSpecialPermission section booking { ready reason section } } }`,
  );
  const admits = h.ok ? h.data.haulerDistricts : [];
  // Unless asked for, a district of the person's that licenses haulers comes first (never Huron's special permission by default).
  const district =
    info.districts.find((d) => d.id === new URL(args.request.url).searchParams.get("districtId")) ??
    info.districts.find((d) => admits.some((x) => x.id === d.id && x.licensesHaulers)) ??
    info.districts[0];
  const refundsToo = district.roles.includes("CLERK") || district.roles.includes("OPERATOR");
  const d = await requireSignedIn<{
    haulerLicenseQueue: Lic[];
    haulerLicensesExpiring: Lic[];
    haulerPermissionQueue: Perm[];
    haulerRefundsDue?: Refund[];
  }>(
    args,
    `query StaffHaulers($d: ID!) {
      haulerLicenseQueue(districtId: $d) { ${LIC} }
      haulerLicensesExpiring(districtId: $d, withinDays: 60) { ${LIC} }
      haulerPermissionQueue(districtId: $d) { id organizationName status requestedPoint requestedConditions createdAt standing { label } }
      ${refundsToo ? "haulerRefundsDue(districtId: $d) { load { id feeCents refusalReason paymentId } organizationName plate receiptNumber }" : ""} }`,
    { d: district.id },
  );
  return {
    districts: info.districts.map((x) => ({ id: x.id, slug: x.slug, name: x.name, timeZone: x.timeZone })),
    booking: admits.find((x) => x.id === district.id)?.booking ?? { ready: true, reason: null, section: null },
    admits: admits.find((x) => x.id === district.id) ?? null,
    districtId: district.id,
    roles: district.roles,
    queue: d.haulerLicenseQueue,
    expiring: d.haulerLicensesExpiring,
    permissions: d.haulerPermissionQueue,
    refunds: d.haulerRefundsDue ?? [],
  } satisfies Data;
}

export default function StaffHaulers() {
  const { districts, districtId, roles, queue, expiring, permissions, refunds, booking, admits } = useLoaderData<typeof loader>() as Data;
  const [params] = useSearchParams();
  const district = districts.find((d) => d.id === districtId)!;
  const operator = roles.includes("OPERATOR");
  return (
    <>
      <h1>Septage haulers</h1>
      <p className="usa-intro">
        Licences from the Town Board (Sewer Use Law 801-803), or in Huron the Superintendent's special permission (Huron IV-8). Loads are handled on the{" "}
        <Link className="usa-link" to={`/staff/station?districtId=${districtId}`}>
          station's day sheet
        </Link>
        .
      </p>
      {params.get("done") && <SuccessAlert>Done: {params.get("done")}.</SuccessAlert>}
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      <h2>{district.name}</h2>
      <BookingTask booking={booking} district={district} admin={roles.includes("ADMIN")} />
      {admits && !admits.licensesHaulers && <HowDistrictsAdmitHaulers districts={[admits]} />}

      {(admits?.licensesHaulers || queue.length > 0 || expiring.length > 0) && (
        <>
        <h3>Applications and renewals for the Town Board</h3>
        {queue.length === 0 ? (
          <p>None waiting.</p>
        ) : (
          <table className="usa-table usa-table--borderless usa-table--stacked">
            <caption>Submitted applications, paid ones first (the fee is paid before review)</caption>
            <thead>
              <tr>
                <th scope="col">Company</th>
                <th scope="col">Kind</th>
                <th scope="col">Vehicles</th>
                <th scope="col">Submitted</th>
                <th scope="col">Application fee</th>
              </tr>
            </thead>
            <tbody>
              {queue.map((l) => (
                <tr key={l.id}>
                  <th scope="row" data-label="Company">
                    <Link className="usa-link" to={`/staff/haulers/${l.id}`}>
                      {l.organizationName}
                    </Link>
                  </th>
                  <td data-label="Kind">{l.previousLicenseId ? "Renewal" : "New licence"}</td>
                  <td data-label="Vehicles">{l.vehicles.length}</td>
                  <td data-label="Submitted">
                    <DateTime iso={l.submittedAt} timeZone={district.timeZone} />
                  </td>
                  <td data-label="Application fee">
                    {money(l.applicationFeeCents ?? 0)} {l.paidAt ? "paid" : "not paid yet"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}

        <h3>Licences ending within 60 days</h3>
        {expiring.length === 0 ? (
          <p>None.</p>
        ) : (
          <table className="usa-table usa-table--borderless usa-table--stacked">
            <caption>Approved licences by last day, soonest first</caption>
            <thead>
              <tr>
                <th scope="col">Licence</th>
                <th scope="col">Company</th>
                <th scope="col">Last day</th>
                <th scope="col">Days left</th>
                <th scope="col">Renewal</th>
              </tr>
            </thead>
            <tbody>
              {expiring.map((l) => (
                <tr key={l.id}>
                  <th scope="row" data-label="Licence">
                    <Link className="usa-link" to={`/staff/haulers/${l.id}`}>
                      {l.licenseNumber}
                    </Link>
                  </th>
                  <td data-label="Company">{l.organizationName}</td>
                  <td data-label="Last day">{l.validUntil ? formatCalendarDate(l.validUntil) : ""}</td>
                  <td data-label="Days left">{l.standing.daysLeft}</td>
                  <td data-label="Renewal">{l.renewal ? l.renewal.statusLabel : "not started"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}

        </>
      )}

      {admits?.grantsSpecialPermission && permissions.length === 0 && (
        <>
          <h3>Special permissions ({admits.section})</h3>
          <p>None asked for yet.</p>
        </>
      )}
      {permissions.length > 0 && (
        <>
          <h3>Special permissions{admits ? ` (${admits.section})` : ""}</h3>
          <table className="usa-table usa-table--borderless usa-table--stacked">
            <caption>Requests and permissions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Company</th>
                <th scope="col">Point asked for</th>
                <th scope="col">Asked</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {permissions.map((p) => (
                <tr key={p.id}>
                  <th scope="row" data-label="Company">
                    {operator && p.status === "REQUESTED" ? (
                      <Link className="usa-link" to={`/staff/haulers/permissions/${p.id}`}>
                        {p.organizationName}
                      </Link>
                    ) : (
                      p.organizationName
                    )}
                  </th>
                  <td data-label="Point asked for">
                    {p.requestedPoint}
                    {p.requestedConditions ? ` (${p.requestedConditions})` : ""}
                  </td>
                  <td data-label="Asked">
                    <DateTime iso={p.createdAt} timeZone={district.timeZone} />
                  </td>
                  <td data-label="Status">{p.standing.label}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      {refunds.length > 0 && (
        <>
          <h3>Dumping fees to refund</h3>
          <p>Loads the District Operator refused; the Clerk refunds the dumping fee line from the payments ledger.</p>
          <ul className="usa-list">
            {refunds.map((r) => (
              <li key={r.load.id}>
                {r.organizationName}, {r.plate}: {money(r.load.feeCents)} of payment {r.receiptNumber} ({r.load.refusalReason}){" "}
                {roles.includes("CLERK") && (
                  <Link className="usa-link" to={`/staff/payments?districtId=${districtId}&status=PAID`}>
                    Refund it in the ledger<span className="usa-sr-only"> for {r.organizationName}</span>
                  </Link>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { formatCalendarDate, formatMonth, statusLabel, todayIn } from "~/components/format";
import { SuccessAlert } from "~/components/forms";
import {
  HAULER_DISTRICT_FIELDS,
  HowDistrictsAdmitHaulers,
  LICENSE_FIELDS,
  LOAD_FIELDS,
  LOAD_STATUS_LABELS,
  LicenseCard,
  atDistrict,
  bookable,
  gallons,
  type HaulerDistrict,
  type LicenseView,
  type LoadBooking,
  type LoadView,
} from "~/components/hauler";
import { money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "Septage hauling | Tapline" }];

type Org = { id: string; name: string; kind: string };
type Permission = {
  id: string;
  districtId: string;
  status: string;
  requestedPoint: string;
  point: string | null;
  conditions: string | null;
  validFrom: string | null;
  validUntil: string | null;
  schedule: string | null;
  decisionReason: string | null;
  standing: { label: string; inForce: boolean; reasons: string[] };
  loadBooking: LoadBooking;
};
type Data = {
  organizations: { role: string; organization: Org }[];
  org: Org | null;
  role: string | null;
  licenses: LicenseView[];
  permissions: Permission[];
  loads: LoadView[];
  districts: HaulerDistrict[];
};

/** A hauling company's licences (or Huron special permissions), recent loads and statements. */
export async function loader(args: LoaderFunctionArgs) {
  const { myOrganizations, haulerDistricts: districts } = await requireSignedIn<{ myOrganizations: { role: string; organization: Org }[]; haulerDistricts: HaulerDistrict[] }>(
    args,
    `query HaulerOrgs { myOrganizations { role organization { id name kind } } haulerDistricts { ${HAULER_DISTRICT_FIELDS} } }`,
  );
  const organizations = myOrganizations.filter((m) => m.organization.kind === "HAULER");
  const wanted = new URL(args.request.url).searchParams.get("organizationId");
  const chosen = organizations.find((m) => m.organization.id === wanted) ?? organizations[0] ?? null;
  if (!chosen) return { organizations, org: null, role: null, licenses: [], permissions: [], loads: [], districts } satisfies Data;
  const d = await requireSignedIn<{ haulerLicenses: LicenseView[]; haulerPermissions: Permission[]; haulerLoads: LoadView[] }>(
    args,
    `query Hauler($o: ID!) {
      haulerLicenses(organizationId: $o) { ${LICENSE_FIELDS} }
      haulerPermissions(organizationId: $o) { id districtId status requestedPoint point conditions validFrom validUntil schedule decisionReason standing { label inForce reasons } loadBooking { ready reason section } }
      haulerLoads(organizationId: $o, first: 25) { ${LOAD_FIELDS} } }`,
    { o: chosen.organization.id },
  );
  return {
    organizations,
    org: chosen.organization,
    role: chosen.role,
    licenses: d.haulerLicenses,
    permissions: d.haulerPermissions,
    loads: d.haulerLoads,
    districts,
  } satisfies Data;
}

export default function Haulers() {
  const { organizations, org, role, licenses, permissions, loads, districts } = useLoaderData<typeof loader>() as Data;
  const [params] = useSearchParams();
  if (!org)
    return (
      <>
        <h1>Septage hauling</h1>
        <p className="usa-intro">A septage hauling company needs a district's leave before it discharges at the district's receiving station:</p>
        <HowDistrictsAdmitHaulers districts={districts} />
        <p>
          The licence or permission goes to the company that owns the trucks. You do not belong to a hauling company yet:{" "}
          <Link className="usa-link" to={`/account/organizations?returnTo=${encodeURIComponent("/haulers")}`}>
            Set up your hauling company
          </Link>{" "}
          (kind: septage hauling company), then come back here to apply. If your company is set up already, ask its owner to invite you.
        </p>
      </>
    );
  const owner = role === "OWNER";
  const canBook = licenses.filter((l) => bookable(l) && l.loadBooking.ready);
  const months = [...new Set(loads.map((x) => `${x.districtId}|${todayIn(x.timeZone, new Date(x.plannedArrival)).slice(0, 7)}`))];
  return (
    <>
      <h1>Septage hauling: {org.name}</h1>
      {params.get("done") && <SuccessAlert>{params.get("done") === "requested" ? "Your request for special permission is sent." : "Done."}</SuccessAlert>}
      {organizations.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="organizationId" label="Hauling company" options={organizations.map((m) => ({ value: m.organization.id, label: m.organization.name }))} defaultValue={org.id} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}

      <h2>Licences</h2>
      {licenses.length === 0 && <p>{org.name} has no licence yet.</p>}
      {licenses.map((l) => (
        <div key={l.id}>
          <LicenseCard l={l} headingLevel={3} />
          <ul className="usa-button-group margin-bottom-3">
            {l.status === "DRAFT" && owner && (
              <li className="usa-button-group__item">
                <Link className="usa-button" to={`/haulers/licenses/${l.id}/edit`}>
                  Continue the application
                </Link>
              </li>
            )}
            {l.status === "SUBMITTED" && l.payment?.status === "PENDING" && (
              <li className="usa-button-group__item">
                <Link className="usa-button" to={`/payments/${l.payment.id}`}>
                  Pay the application fee of {money(l.payment.amountCents)}
                </Link>
              </li>
            )}
            {l.renewalOpen && !l.renewal && owner && (
              <li className="usa-button-group__item">
                <Link className="usa-button usa-button--outline" to={`/haulers/licenses/${l.id}/renew`}>
                  Renew licence {l.licenseNumber}
                </Link>
              </li>
            )}
            {bookable(l) && l.loadBooking.ready && (
              <li className="usa-button-group__item">
                <Link className="usa-button" to={`/haulers/loads/new?licenseId=${l.id}`}>
                  Book a load<span className="usa-sr-only"> under licence {l.licenseNumber}</span>
                </Link>
              </li>
            )}
          </ul>
        </div>
      ))}
      {owner && districts.some((d) => d.licensesHaulers) && (
        <p>
          <Link className="usa-button usa-button--outline" to={`/haulers/apply?organizationId=${org.id}`}>
            Apply for a licence
          </Link>{" "}
          to discharge at {districts.filter((d) => d.licensesHaulers).map((d) => d.name).join(" or ")}.
        </p>
      )}

      {(permissions.length > 0 || owner) && (
        <>
          <h2>Special permissions</h2>
          <HowDistrictsAdmitHaulers districts={districts.filter((d) => !d.licensesHaulers)} />
          {permissions.map((p) => (
            <div key={p.id} className="tapline-details">
              <h3 className="margin-top-1">
                {districts.find((d) => d.id === p.districtId)?.name}: {p.point ?? p.requestedPoint} <span className="usa-tag">{p.standing.label}</span>
              </h3>
              {p.conditions && <p>Conditions: {p.conditions}</p>}
              {p.validFrom && p.validUntil && (
                <p>
                  From {formatCalendarDate(p.validFrom)} to {formatCalendarDate(p.validUntil)}; {p.schedule}.
                </p>
              )}
              {p.decisionReason && <p>Superintendent: {p.decisionReason}</p>}
              {p.standing.inForce && !p.loadBooking.ready && <p>{p.loadBooking.reason}</p>}
              {p.standing.inForce && p.loadBooking.ready && (
                <p>
                  <Link className="usa-button" to={`/haulers/loads/new?permissionId=${p.id}`}>
                    Book a load<span className="usa-sr-only"> under the special permission</span>
                  </Link>
                </p>
              )}
            </div>
          ))}
          {owner && (
            <p>
              <Link className="usa-link" to={`/haulers/permission?organizationId=${org.id}`}>
                Ask for special permission
              </Link>
            </p>
          )}
        </>
      )}

      <h2>Loads</h2>
      {loads.length === 0 ? (
        <p>No loads booked yet.{canBook.length === 0 ? " A load is booked under a licence in force." : ""}</p>
      ) : (
        <table className="usa-table usa-table--borderless usa-table--stacked">
          <caption>Latest loads, newest arrival first</caption>
          <thead>
            <tr>
              <th scope="col">Arrival</th>
              <th scope="col">Truck</th>
              <th scope="col">Source</th>
              <th scope="col">Estimated</th>
              <th scope="col">Measured</th>
              <th scope="col">Fee</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {loads.map((x) => (
              <tr key={x.id}>
                <th scope="row" data-label="Arrival">
                  <Link className="usa-link" to={`/haulers/loads/${x.id}`}>
                    {atDistrict(x.plannedArrival, x.timeZone)}
                  </Link>
                </th>
                <td data-label="Truck">{x.vehicle?.plate}</td>
                <td data-label="Source">
                  {x.sourceKindLabel}, {x.sourceAddress}
                </td>
                <td data-label="Estimated">{gallons(x.estimatedGallons)}</td>
                <td data-label="Measured">{gallons(x.measuredGallons)}</td>
                <td data-label="Fee">
                  {x.feeCents ? money(x.feeCents) : "none"}
                  {x.payment?.status === "PENDING" ? " (not paid)" : ""}
                </td>
                <td data-label="Status">{statusLabel(x.status, LOAD_STATUS_LABELS)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {months.length > 0 && (
        <>
          <h2>Monthly statements</h2>
          <ul className="usa-list">
            {months.map((m) => {
              const [d, month] = m.split("|");
              return (
                <li key={m}>
                  <Link className="usa-link" to={`/haulers/statement?organizationId=${org.id}&districtId=${d}&month=${month}`}>
                    {formatMonth(month)}, {districts.find((x) => x.id === d)?.name}
                  </Link>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

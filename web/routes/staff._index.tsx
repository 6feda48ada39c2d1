import type { LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { STAFF_ROLE_LABELS } from "~/components/format";
import { BookingTask, type LoadBooking } from "~/components/hauler";
import type { StaffDistrict, StaffInfo } from "~/components/staff.server";
import { gql } from "~/graphql.server";

type BookingOf = { id: string; licensesHaulers: boolean; booking: LoadBooking };

/**
 * Tasks of a district that no one's queue shows: where the district licenses haulers and the Town
 * Board has set no dumping fee, no load can be booked (SUL 801, 1208) until the ADMIN enters it.
 * (haulerDistricts is public and cached; the parent route checks the staff role.)
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const r = await gql<{ haulerDistricts: BookingOf[] }>(context, request, `query StaffHomeTasks { haulerDistricts { id licensesHaulers booking { ready reason section } } }`);
  return { bookings: r.ok ? r.data.haulerDistricts.filter((d) => d.licensesHaulers && !d.booking.ready) : [] };
}

type Task = { to: (d: StaffDistrict) => string; label: string; text: string };

const AUDIT: Task = { to: (d) => `/staff/audit?districtId=${d.id}`, label: "Audit log", text: "Who did what, on which record, when and why." };
const OUTBOX: Task = {
  to: (d) => `/staff/outbox?districtId=${d.id}`,
  label: "Outgoing email",
  text: "Every email the district sent or holds for people to read in the portal.",
};
const RULEBOOK: Task = {
  to: (d) => `/staff/rulebook/${d.slug}`,
  label: "Change the rulebook",
  text: "Change fees, deadlines and other settings, from a date, with a reason.",
};

const CONTRACTORS: Task = {
  to: (d) => `/staff/contractors?districtId=${d.id}&status=APPLIED`,
  label: "Contractors",
  text: "Check bonds and insurance certificates against the minimums; approve or reject applications, suspend or reinstate contractors.",
};

const PAYMENTS: Task = {
  to: (d) => `/staff/payments?districtId=${d.id}`,
  label: "Payments",
  text: "The ledger of fees and deposits; record cash and check payments at the counter and return as-built deposits (Sewer Use Law 606 B).",
};

const PERMITS: Task = {
  to: (d) => `/staff/permits?districtId=${d.id}`,
  label: "Lateral permits",
  text: "Applications to connect to the public sewer by status and age: review with the checklist, issue permits, follow inspections.",
};

const INSPECTIONS: Task = {
  to: (d) => `/staff/inspections?districtId=${d.id}`,
  label: "Inspections this week",
  text: "Trench, connection and leakage test inspections scheduled this week, and the requests waiting for a date.",
};

const MORATORIA: Task = {
  to: (d) => `/staff/moratoria?districtId=${d.id}`,
  label: "Moratoria",
  text: "Stop new connections on an over-capacity sewer segment, and lift the moratorium when it is fixed.",
};

const HAULERS: Task = {
  to: (d) => `/staff/haulers?districtId=${d.id}`,
  label: "Septage haulers",
  text: "Hauler licence applications and renewals for the Town Board, licences ending within 60 days, suspensions (Sewer Use Law 801-803; Huron IV-8).",
};

const STATION: Task = {
  to: (d) => `/staff/station?districtId=${d.id}`,
  label: "Station day sheet",
  text: "Today's booked loads at the receiving station: approve or refuse, order a sample, record the gallons received (Sewer Use Law 804, 1208).",
};

const SNC: Task = {
  to: (d) => `/staff/industrial/snc?districtId=${d.id}`,
  label: "Significant non-compliance",
  text: "Every industrial permit's significant non-compliance over the half-year, and the list published each year (Sewer Use Law 201, 1122).",
};

const PEOPLE: Task = {
  to: (d) => `/staff/people?districtId=${d.id}`,
  label: "Staff and roles",
  text: "Who holds which role; give or remove roles, with a reason.",
};

const ENFORCEMENT: Task = {
  to: (d) => `/staff/enforcement?districtId=${d.id}`,
  label: "Enforcement",
  text: "Serve notices of violation, orders and fines (Sewer Use Law 1102-1108); each respondent's enforcement history.",
};
const DOCKET: Task = {
  to: (d) => `/staff/petitions?districtId=${d.id}`,
  label: "Petitions docket",
  text: "Open petitions against orders and fines: decide them or order a show-cause hearing (Sewer Use Law 1104-1109).",
};
const FLOW: Task = {
  to: (d) => `/staff/petitions/flow?districtId=${d.id}`,
  label: "Metered water not reaching the sewer",
  text: "Owners' requests under Sewer Use Law 1205: set the percentage charged, direct a flow meter, or reject (where the district's law provides for it).",
};
const RENTS: Task = {
  to: (d) => `/staff/properties?districtId=${d.id}`,
  label: "Sewer rents",
  text: "The register of properties and service accounts, meter readings and bill runs (Sewer Use Law Article 12; Huron Article VI).",
};
const EXTENSIONS: Task = {
  to: (d) => `/staff/extensions?districtId=${d.id}`,
  label: "Sewer extensions",
  text: "Developers' applications to extend the public sewer: review, capacity, tests before any lateral is connected (Sewer Use Law Article 5).",
};
const INFLOW: Task = { to: (d) => `/staff/inflow?districtId=${d.id}`, label: "Inflow inspections", text: "Sales the Tax Assessor reports, inspections for sump pumps, roof leaders and other inflow, disconnection orders and certificates (Sewer Use Law 701-705; Huron III-8)." };
const CARD_PAYMENTS: Task = {
  to: (d) => `/staff/stripe?districtId=${d.id}`,
  label: "Card payments",
  text: "Connect the district's own Stripe account, so card payments reach the Town's bank account.",
};
const HEARINGS: Task = { to: (d) => `/staff/hearings?districtId=${d.id}`, label: "Hearings", text: "Show-cause hearings from today on." };
const DELINQUENCY: Task = {
  to: (d) => `/staff/delinquency?districtId=${d.id}`,
  label: "Charges and delinquency",
  text: "Bill charges, read statements with penalty and interest (Sewer Use Law 1118), download the tax-levy report.",
};

const SEPTIC: Task = { to: (d) => `/staff/septic?districtId=${d.id}`, label: "Septic systems", text: "Pump-outs due and overdue, construction permits, notices to repair and connection orders when the sewer arrives (Sewer Use Law 401-408; Huron II-3, II-4)." };
/** What each role can do in the portal today; later features add their tasks here. */
const ROLES: Record<string, { what: string; tasks: Task[] }> = {
  CLERK: { what: "Receives applications, petitions and payments and keeps the district's records.", tasks: [PERMITS, PAYMENTS, RENTS, DELINQUENCY, CONTRACTORS, HAULERS, OUTBOX, AUDIT] },
  OPERATOR: { what: "Reviews and inspects work on the sewer system (District Operator or Superintendent).", tasks: [PERMITS, INSPECTIONS, STATION, HAULERS, ENFORCEMENT, FLOW, EXTENSIONS, SEPTIC, INFLOW, SNC, AUDIT] },
  BOARD: { what: "Decides petitions and hearings, licenses septage haulers and sets fees.", tasks: [DOCKET, HEARINGS, HAULERS, PERMITS, SNC, AUDIT] },
  ADMIN: { what: "Keeps the district's rulebook up to date, manages staff accounts and oversees the portal.", tasks: [RULEBOOK, MORATORIA, PERMITS, PEOPLE, PAYMENTS, CARD_PAYMENTS, EXTENSIONS, OUTBOX, AUDIT] },
};

export default function StaffHome() {
  const { districts } = useRouteLoaderData("routes/staff") as StaffInfo;
  const { bookings } = useLoaderData<typeof loader>() as { bookings: BookingOf[] };
  return (
    <>
      <h1>Staff</h1>
      <p className="usa-intro">What you can do for each district where you hold a staff role.</p>
      {districts.map((d) => (
        <section key={d.id} aria-labelledby={`district-${d.slug}`}>
          <h2 id={`district-${d.slug}`}>{d.name}</h2>
          {bookings
            .filter((b) => b.id === d.id)
            .map((b) => (
              <BookingTask key={b.id} booking={b.booking} district={d} admin={d.roles.includes("ADMIN")} headingLevel={3} />
            ))}
          <ul className="usa-card-group">
            {d.roles.map((role) => {
              const r = ROLES[role] ?? { what: "", tasks: [AUDIT] };
              return (
                <li key={role} className="usa-card tablet:grid-col-6 desktop:grid-col-4">
                  <div className="usa-card__container">
                    <div className="usa-card__header">
                      <h3 className="usa-card__heading">{STAFF_ROLE_LABELS[role] ?? role}</h3>
                    </div>
                    <div className="usa-card__body">
                      <p>{r.what}</p>
                      <ul className="usa-list usa-list--unstyled">
                        {r.tasks.map((t) => (
                          <li key={t.label} className="margin-bottom-2">
                            <Link className="usa-link text-bold" to={t.to(d)}>
                              {t.label}
                              <span className="usa-sr-only"> of {d.name}</span>
                            </Link>
                            <br />
                            {t.text}
                          </li>
                        ))}
                      </ul>
                    </div>
                  </div>
                </li>
              );
            })}
          </ul>
          <p>
            <Link className="usa-link" to={`/rules/${d.slug}`}>
              Public rules and fees of {d.name}
            </Link>
          </p>
        </section>
      ))}
    </>
  );
}

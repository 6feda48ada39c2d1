import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Staff | Tapline" }];

/** Staff only: everyone else gets a 403 page here, whichever staff page they open. */
export async function loader(args: LoaderFunctionArgs) {
  return requireStaff(args);
}

export default function StaffLayout() {
  const { districts } = useLoaderData<typeof loader>();
  const clerkOrAdmin = districts.some((d) => d.roles.includes("CLERK") || d.roles.includes("ADMIN"));
  const contractorStaff = districts.some((d) => ["CLERK", "OPERATOR", "ADMIN"].some((r) => d.roles.includes(r)));
  const operator = districts.some((d) => d.roles.includes("OPERATOR"));
  const admin = districts.some((d) => d.roles.includes("ADMIN"));
  const link = ({ isActive }: { isActive: boolean }) => `usa-link${isActive ? " tapline-subnav__current" : ""}`;
  return (
    <>
      <nav aria-label="Staff" className="tapline-subnav">
        <ul className="usa-list usa-list--unstyled">
          <li>
            <NavLink to="/staff" end className={link}>
              Staff home
            </NavLink>
          </li>
          <li>
            <NavLink to="/staff/permits" className={link}>
              Lateral permits
            </NavLink>
          </li>
          <li>
            <NavLink to="/staff/industrial" className={link}>
              Industrial permits
            </NavLink>
          </li>
          <li>
            <NavLink to="/staff/haulers" className={link}>
              Septage haulers
            </NavLink>
          </li>
          {(operator || districts.some((d) => d.roles.includes("CLERK"))) && (
            <li>
              <NavLink to="/staff/station" className={link}>
                Station day sheet
              </NavLink>
            </li>
          )}
          {operator && (
            <li>
              <NavLink to="/staff/inspections" className={link}>
                Inspections
              </NavLink>
            </li>
          )}
          <li>
            <NavLink to="/staff/extensions" className={link}>
              Sewer extensions
            </NavLink>
          </li>
          {admin && (
            <li>
              <NavLink to="/staff/moratoria" className={link}>
                Moratoria
              </NavLink>
            </li>
          )}
          <li>
            <NavLink to="/staff/enforcement" className={link}>
              Enforcement
            </NavLink>
          </li>
          {districts.some((d) => d.roles.includes("BOARD") || d.roles.includes("OPERATOR")) && (
            <li>
              <NavLink to="/staff/petitions" className={link}>
                Petitions docket
              </NavLink>
            </li>
          )}
          <li>
            <NavLink to="/staff/hearings" className={link}>
              Hearings
            </NavLink>
          </li>
          <li>
            <NavLink to="/staff/properties" className={link}>
              Properties and accounts
            </NavLink>
          </li>
          <li>
            <NavLink to="/staff/delinquency" className={link}>
              Charges and delinquency
            </NavLink>
          </li>
          <li>
            <NavLink to="/staff/audit" className={link}>
              Audit log
            </NavLink>
          </li>
          <li>
            <NavLink to="/staff/people" className={link}>
              Staff and roles
            </NavLink>
          </li>
          {contractorStaff && (
            <li>
              <NavLink to="/staff/contractors" className={link}>
                Contractors
              </NavLink>
            </li>
          )}
          {clerkOrAdmin && (
            <li>
              <NavLink to="/staff/payments" className={link}>
                Payments
              </NavLink>
            </li>
          )}
          {clerkOrAdmin && (
            <li>
              <NavLink to="/staff/outbox" className={link}>
                Outgoing email
              </NavLink>
            </li>
          )}
          {admin && (
            <li>
              <NavLink to="/staff/stripe" className={link}>
                Card payments
              </NavLink>
            </li>
          )}
          {districts
            .filter((d) => d.roles.includes("ADMIN"))
            .map((d) => (
              <li key={d.id}>
                <NavLink to={`/staff/rulebook/${d.slug}`} className={link}>
                  Rulebook{districts.length > 1 ? ` (${d.name})` : ""}
                </NavLink>
              </li>
            ))}
        </ul>
      </nav>
      <Outlet />
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

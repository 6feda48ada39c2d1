import { NavLink, Outlet } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";

const SECTIONS = [
  { to: "/account", label: "Profile and sessions", end: true },
  { to: "/account/password", label: "Password", end: false },
  { to: "/account/tokens", label: "API tokens", end: false },
  { to: "/account/emails", label: "Emails", end: false },
  { to: "/account/documents", label: "Documents", end: false },
  { to: "/account/payments", label: "My payments", end: false },
  { to: "/account/organizations", label: "Organizations", end: false },
];

/** The account pages: a side navigation and the page. Each page's loader checks the person is signed in. */
export default function AccountLayout() {
  return (
    <div className="grid-row grid-gap">
      <nav className="tablet:grid-col-3 margin-bottom-3" aria-label="Account">
        <ul className="usa-sidenav">
          {SECTIONS.map((s) => (
            <li className="usa-sidenav__item" key={s.to}>
              <NavLink to={s.to} end={s.end} className={({ isActive }) => (isActive ? "usa-current" : "")}>
                {s.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="tablet:grid-col-9">
        <Outlet />
      </div>
    </div>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

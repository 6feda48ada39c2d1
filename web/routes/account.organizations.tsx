import { Outlet } from "@remix-run/react";

/** /account/organizations: the list (index) and each organization ($id). */
export default function Organizations() {
  return <Outlet />;
}

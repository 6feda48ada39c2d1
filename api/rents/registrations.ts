import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { formatDate } from "../common/dates.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { addressOf } from "./common.js";
// The sewer account payable (payments toward a balance) registers itself when its module loads.
import "./ledger.js";
// And the owner's excess bills' payable (Huron VI-2: payments toward a property's excess bills).
import "./owners-excess.js";
// The hourly late charges (SUL 1118 via 1210; Huron VI-3) on both kinds of balance.
import "./late-charges.service.js";

/** The sewer-rent register on a person's dashboard (imported once, for its effects): their open accounts, as owner of record or occupant, lead to /properties. */

registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT a.id, a.account_number, a.opened_on::text AS opened_on, p.street_number, p.street, p.city, p.zip
       FROM service_account a JOIN sewer_property p ON p.id = a.property_id
      WHERE a.closed_on IS NULL AND (a.occupant_user_id = $1 OR p.owner_user_id = $1)
      ORDER BY a.opened_on DESC LIMIT 20`,
    [viewer.userId],
  );
  return rows.map((r) => ({
    kind: "ServiceAccount",
    id: r.id,
    title: `Sewer account ${r.account_number}: ${addressOf(r)}`,
    status: `Served since ${formatDate(r.opened_on)}`,
    nextStep: null,
    dueDate: null,
    daysLeft: null,
    href: "/properties",
  }));
});

import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { daysLeft } from "../common/dates.js";
import type { ContractorStatus } from "./common.js";

// Dashboard

const STATUS_TEXT: Record<ContractorStatus, string> = { APPLIED: "Waiting for a decision", APPROVED: "Approved", REJECTED: "Rejected", SUSPENDED: "Suspended" };

/** "My applications" items: one per application of a firm the viewer belongs to, in one query. */
export async function dashboardItems(ds: DataSource, viewer: Viewer) {
  const rows: { id: string; status: ContractorStatus; orgName: string; districtName: string; timeZone: string; nextExpiry: string }[] = await ds.query(
    `SELECT c.id, c.status, o.name AS "orgName", d.name AS "districtName", d.time_zone AS "timeZone",
            least(c.bond_expires_on, (SELECT min(i.expires_on) FROM contractor_insurance i WHERE i.contractor_id = c.id))::text AS "nextExpiry"
       FROM contractor c JOIN organization o ON o.id = c.organization_id JOIN district d ON d.id = c.district_id
      WHERE c.organization_id IN (SELECT organization_id FROM membership WHERE user_id = $1)`,
    [viewer.userId],
  );
  return rows.map((r) => {
    const approved = r.status === "APPROVED";
    const nextStep =
      r.status === "APPLIED"
        ? "The Clerk checks the bond and certificates"
        : r.status === "REJECTED"
          ? "Correct the application and submit it again"
          : r.status === "SUSPENDED"
            ? "Ask the district office about the suspension"
            : "Keep the bond and certificates in force";
    return {
      kind: "Contractor",
      id: r.id,
      title: `${r.orgName}: approved contractor in ${r.districtName}`,
      status: STATUS_TEXT[r.status],
      nextStep,
      dueDate: approved ? r.nextExpiry : null,
      daysLeft: approved ? daysLeft(r.nextExpiry, r.timeZone) : null,
      href: `/contractors/mine#contractor-${r.id}`,
    };
  });
}

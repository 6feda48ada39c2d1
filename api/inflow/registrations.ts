import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { daysLeft } from "../common/dates.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { registerDocumentAccess } from "../documents/documents.service.js";
import { STATUS_LABELS } from "./common.js";
import { dueOn, myInspections } from "./inspections.service.js";
import "./reminders.service.js";

/** Inflow plugs into documents here (imported once, for its effects). */

// An inspection's photos and its certificate are read by the district's staff, the property's owner of record and the inspection's parties.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.map((r) => r.districtId);
  const rows = await ds.query(
    `SELECT 1 FROM inflow_inspection i JOIN sewer_property p ON p.id = i.property_id
      WHERE (i.certificate_document_id = $1 OR i.id IN (SELECT v.inspection_id FROM inflow_visit_photo ph JOIN inflow_visit v ON v.id = ph.visit_id WHERE ph.document_id = $1))
        AND (i.district_id = ANY($2::uuid[]) OR p.owner_user_id = $3 OR EXISTS (SELECT 1 FROM inflow_party x WHERE x.inspection_id = i.id AND x.user_id = $3))
      LIMIT 1`,
    [doc.id, districts, viewer.userId],
  );
  return rows.length > 0;
});

// The inspections of a person's properties and those they asked for, on their dashboard (one query).
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows = await myInspections(ds, viewer);
  return rows
    .filter((i) => i.status === "OPEN" || i.status === "ORDERED" || i.certificateNumber)
    .slice(0, 20)
    .map((i) => {
      const due = dueOn(i);
      return {
        kind: "InflowInspection",
        id: i.id,
        title: `Inflow inspection ${i.number}: ${i.address}`,
        status: STATUS_LABELS[i.status],
        nextStep: i.status === "ORDERED" ? "Disconnect the inflow sources found; then the property is inspected again" : i.status === "OPEN" ? "The inspector visits the property" : null,
        dueDate: due,
        daysLeft: due ? daysLeft(due, i.timeZone) : null,
        href: `/inflow/${i.id}`,
      };
    });
});

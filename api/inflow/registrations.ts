import { registerDocumentAccess } from "../documents/documents.service.js";

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

import { registerDocumentAccess } from "../documents/documents.service.js";

/** Sewer extensions plug into documents here (imported once, for its effects). */

// The district's staff and the developer organization's members read the documents filed with an application.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.map((r) => r.districtId);
  const rows = await ds.query(
    `SELECT 1 FROM sewer_extension_document sd JOIN sewer_extension e ON e.id = sd.extension_id
      WHERE sd.document_id = $1 AND (e.district_id = ANY($2::uuid[]) OR e.organization_id IN (SELECT organization_id FROM membership WHERE user_id = $3)) LIMIT 1`,
    [doc.id, districts, viewer.userId],
  );
  return rows.length > 0;
});

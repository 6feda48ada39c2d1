import { registerDocumentAccess } from "../documents/documents.service.js";

// Documents: the district's Clerk, Operator and ADMINs read the bond and certificates filed with it,
// renewals included (the staff contractors page links them)

registerDocumentAccess(async (ds, viewer, doc) => {
  const districtIds = viewer.staffRoles.filter((r) => r.role === "CLERK" || r.role === "OPERATOR" || r.role === "ADMIN").map((r) => r.districtId);
  if (!districtIds.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM contractor c WHERE c.bond_document_id = $1 AND c.district_id = ANY($2::uuid[])
     UNION ALL
     SELECT 1 FROM contractor_insurance i JOIN contractor c ON c.id = i.contractor_id
      WHERE i.certificate_document_id = $1 AND c.district_id = ANY($2::uuid[])
     UNION ALL
     SELECT 1 FROM contractor_renewal r JOIN contractor c ON c.id = r.contractor_id
      WHERE c.district_id = ANY($2::uuid[])
        AND (r.bond_document_id = $1 OR r.insurance @> jsonb_build_array(jsonb_build_object('certificateDocumentId', $1::text)))
     LIMIT 1`,
    [doc.id, districtIds],
  );
  return rows.length > 0;
});


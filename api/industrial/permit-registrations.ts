import type { DataSource, EntityManager } from "typeorm";
import { isStaff } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { registerDocumentAccess } from "../documents/documents.service.js";
import { registerPayable, type Payment } from "../payments/payments.service.js";
import { PAYABLE_TYPE } from "./permit-common.js";

/** Discharge permits plug into payments and documents here (imported once, for its effects). */

// ---------------------------------------------------------------------------------------------
// Payments and documents

registerPayable(PAYABLE_TYPE, {
  async onPaid(tx: EntityManager, payment: Payment) {
    const [p] = await tx.query(`SELECT id, district_id, payment_id, paid_at FROM industrial_permit WHERE id = $1 FOR UPDATE`, [payment.payableId]);
    if (!p || p.payment_id !== payment.id || p.paid_at) return;
    await tx.query(`UPDATE industrial_permit SET paid_at = $2, updated_at = $3 WHERE id = $1`, [p.id, payment.paidAt ?? clock.now(), clock.now()]);
    await audit(tx, { userId: null }, { action: "industrial.fee_paid", entityType: "IndustrialPermit", entityId: p.id, districtId: p.district_id, details: { paymentId: payment.id } });
  },
  async title(payableId: string, db: DataSource | EntityManager) {
    const [p] = await db.query(`SELECT facility_name FROM industrial_permit WHERE id = $1`, [payableId]);
    return `Wastewater discharge permit application: ${p?.facility_name ?? payableId}`;
  },
  href: (payableId: string) => `/industrial/${payableId}`,
  async titles(ids: string[], db: DataSource | EntityManager) {
    const rows = await db.query(`SELECT id, facility_name FROM industrial_permit WHERE id = ANY($1::uuid[])`, [ids]);
    return new Map(rows.map((r: any) => [r.id, `Wastewater discharge permit application: ${r.facility_name}`]));
  },
});

/** Plans and lab reports filed with an application: the organization's members and the district's staff read them. */
registerDocumentAccess(async (ds, viewer, doc) => {
  const rows: { district_id: string; submitted_at: Date | null; member: boolean }[] = await ds.query(
    `SELECT p.district_id, p.submitted_at, EXISTS (SELECT 1 FROM membership m WHERE m.organization_id = p.organization_id AND m.user_id = $2) AS member
       FROM industrial_permit_document d JOIN industrial_permit p ON p.id = d.permit_id WHERE d.document_id = $1`,
    [doc.id, viewer.userId],
  );
  return rows.some((r) => r.member || (r.submitted_at !== null && isStaff(viewer, r.district_id)));
});

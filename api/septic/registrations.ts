import type { DataSource, EntityManager } from "typeorm";
import { audit } from "../audit/audit.service.js";
import { registerDocumentAccess, isUuid } from "../documents/documents.service.js";
import { registerPayable, type Payment } from "../payments/payments.service.js";
import { PERMIT_PAYABLE } from "./permits.service.js";
import "./reminders.service.js";

/** Septic systems plug into payments, documents and the jobs here (imported once, for its effects). */

// The Board's construction permit fee, where it has set one (SUL 403): paying it is recorded on the permit's audit trail; issuing checks isPaid.
registerPayable(PERMIT_PAYABLE, {
  async onPaid(tx: EntityManager, payment: Payment) {
    const [p] = await tx.query(`SELECT id, district_id FROM septic_permit WHERE id = $1 AND payment_id = $2`, [payment.payableId, payment.id]);
    if (!p) return;
    await audit(tx, { userId: null }, { action: "septic.permit_fee_paid", entityType: "SepticPermit", entityId: p.id, districtId: p.district_id, details: { paymentId: payment.id, amountCents: payment.amountCents } });
  },
  async title(payableId: string, db: DataSource | EntityManager) {
    return (await permitTitles(db, [payableId])).get(payableId) ?? "Septic system construction permit";
  },
  titles: (ids: string[], db: DataSource | EntityManager) => permitTitles(db, ids),
  href: () => `/septic`,
});

async function permitTitles(db: DataSource | EntityManager, ids: string[]): Promise<Map<string, string>> {
  const rows: { id: string; permit_number: string | null; address: string }[] = ids.length
    ? await db.query(
        `SELECT sp.id, sp.permit_number, trim(coalesce(p.street_number || ' ', '') || p.street) AS address FROM septic_permit sp JOIN sewer_property p ON p.id = sp.property_id WHERE sp.id = ANY($1::uuid[])`,
        [ids.filter(isUuid)],
      )
    : [];
  return new Map(rows.map((r) => [r.id, r.permit_number ? `Septic construction permit ${r.permit_number}, ${r.address}` : `Septic construction permit application, ${r.address}`]));
}

// The district's Operators and Clerks read the percolation tests, computations and plot plan filed with an application.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => r.role === "OPERATOR" || r.role === "CLERK").map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM septic_permit_document pd JOIN septic_permit sp ON sp.id = pd.permit_id WHERE pd.document_id = $1 AND sp.district_id = ANY($2::uuid[]) LIMIT 1`,
    [doc.id, districts],
  );
  return rows.length > 0;
});

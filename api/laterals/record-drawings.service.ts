import { clock } from "../common/clock.js";
import { type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { conflict } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { LateralPermit } from "./lateral-permit.entity.js";
import { FEE_CODES, applicationRequirements } from "./rules.js";
import { actorOf, addressOf, getPermit, loadDistrict, notify, permitRulebook, requireOperator, requireStatus } from "./common.js";

/** As-built (record) drawings and the refund of their deposit (SUL 606 B). */

// ---------------------------------------------------------------------------------------------
// Record drawings and the deposit (SUL 606 B)

export type DepositRefunder = (tx: EntityManager, p: LateralPermit, viewer: Viewer, meta: { requestId?: string }) => Promise<boolean>;

/**
 * The District Operator approves the as-built drawings of a connected lateral: the permit closes
 * and the as-built deposit is due back to the applicant. The Clerk refunds it from the payments
 * ledger (refunds are the Clerk's, SUL 201); the permit shows "deposit refund due" until then.
 */
export async function approveRecordDrawings(ds: DataSource, viewer: Viewer, id: string, meta: { requestId?: string; publicUrl: string }): Promise<LateralPermit> {
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, id, true);
    requireOperator(viewer, p.districtId);
    requireStatus(p, ["CONNECTED"], "Record drawings are approved once the connection is accepted");
    const district = await loadDistrict(tx, p.districtId);
    const needs = applicationRequirements(await permitRulebook(tx, p, district));
    if (!needs.asBuiltDrawings.required) throw conflict(`${district.name}'s law asks for no as-built drawings (${needs.asBuiltDrawings.section}): the accepted connection completes the permit.`);
    const deposit = p.feeLines.filter((l) => l.refundable).reduce((s, l) => s + l.amountCents, 0);
    p.status = "CLOSED";
    p.asBuiltApprovedAt = clock.now();
    p.asBuiltApprovedById = viewer.userId;
    p.closedAt = clock.now();
    p.depositRefundDueCents = deposit;
    p.updatedAt = clock.now();
    await tx.save(p);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "lateral.record_drawings_approved",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { depositRefundDueCents: p.depositRefundDueCents, paymentId: p.paymentId },
    });
    await notify(
      tx,
      p,
      district,
      "lateral.record_drawings_approved",
      `Record drawings approved: permit ${p.permitNumber}`,
      `The as-built drawings for permit ${p.permitNumber} (${addressOf(p)}) are approved and the permit is closed.` +
        (p.depositRefundDueCents ? ` The Town Clerk refunds your as-built deposit of ${formatCents(p.depositRefundDueCents)}; you get a refund receipt by email.` : ""),
      meta.publicUrl,
    );
    if (p.depositRefundDueCents && p.paymentId) {
      // Refunds are the Clerk's: tell the district's clerks the deposit is due back.
      const [{ receipt_number: paymentReceipt }] = await tx.query(`SELECT receipt_number FROM payment WHERE id = $1`, [p.paymentId]);
      const clerks: { id: string; email: string }[] = await tx.query(
        `SELECT u.id, u.email FROM staff_role r JOIN app_user u ON u.id = r.user_id WHERE r.district_id = $1 AND r.role = 'CLERK' ORDER BY u.email`,
        [p.districtId],
      );
      for (const c of clerks)
        await enqueueEmail(tx, {
          to: c.email,
          recipientId: c.id,
          districtId: p.districtId,
          kind: "lateral.deposit_refund_due",
          subject: `As-built deposit to refund: permit ${p.permitNumber}`,
          body: `The record drawings for permit ${p.permitNumber} (${addressOf(p)}) are approved. Refund the as-built deposit of ${formatCents(p.depositRefundDueCents)} (${FEE_CODES.deposit}) of payment ${paymentReceipt ?? p.paymentId} from the payments ledger:\n\n${meta.publicUrl}/staff/payments?districtId=${p.districtId}&status=PAID\n`,
        });
    }
    return p;
  });
}

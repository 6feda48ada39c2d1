import { clock } from "../common/clock.js";
import { type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { badInput, conflict } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { enqueueEmail, enqueueEmails } from "../outbox/outbox.service.js";
import { LateralPermit } from "./lateral-permit.entity.js";
import { FEE_CODES, applicationRequirements } from "./rules.js";
import type { Config } from "../config.js";
import { allOwnedBy, isUuid, storeDocumentsWith, type StoreDocumentInput } from "../documents/documents.service.js";
import { LateralPermitDocument } from "./lateral-permit.entity.js";
import { staffOf } from "../staff/staff-of.js";
import { actorOf, addressOf, getPermit, loadDistrict, notify, permitRulebook, requireApplicant, requireOperator, requireStatus } from "./common.js";

/** As-built (record) drawings and the refund of their deposit (SUL 606 B). */

const MAX_DRAWINGS = 20;

// ---------------------------------------------------------------------------------------------
// Record drawings and the deposit (SUL 606 B)

/**
 * The applicant files the as-built drawings of a connected lateral (SUL 606 B: the location of every
 * connection, with at least three tie lines; the copies the rulebook asks for go to the District
 * Operator). Filing again replaces what was filed; the Operator is told each time.
 */
export async function fileRecordDrawings(
  ds: DataSource,
  config: Config,
  viewer: Viewer,
  input: { permitId: string; documentIds?: string[] | null; newDrawings?: StoreDocumentInput[] | null },
  meta: { requestId?: string; publicUrl: string },
): Promise<LateralPermit> {
  const documentIds = [...new Set((input.documentIds ?? []).map((d) => d.trim()).filter(Boolean))];
  const uploads = input.newDrawings ?? [];
  if (documentIds.some((d) => !isUuid(d))) throw badInput({ documentIds: "Choose drawings from your uploaded documents." });
  if (!documentIds.length && !uploads.length) throw badInput({ drawings: "Attach the as-built drawings (PDF, PNG or JPEG)." });
  if (documentIds.length + uploads.length > MAX_DRAWINGS) throw badInput({ drawings: `Attach at most ${MAX_DRAWINGS} drawings.` });
  return storeDocumentsWith(
    ds,
    config,
    viewer,
    uploads,
    meta.requestId,
    async (tx, uploaded) => {
      const p = await getPermit(tx, viewer, input.permitId, true);
      requireApplicant(viewer, p, "file the as-built drawings");
      requireStatus(p, ["CONNECTED"], "As-built drawings are filed once the connection is accepted");
      const district = await loadDistrict(tx, p.districtId);
      const needs = applicationRequirements(await permitRulebook(tx, p, district));
      if (!needs.asBuiltDrawings.required) throw conflict(`${district.name}'s law asks for no as-built drawings (${needs.asBuiltDrawings.section}).`);
      if (documentIds.length) {
        if (!(await allOwnedBy(tx, documentIds, viewer.userId))) throw badInput({ documentIds: "Attach drawings from your own uploaded documents (PDF, PNG or JPEG)." });
        const plans: { n: number }[] = await tx.query(`SELECT count(*)::int AS n FROM lateral_permit_document WHERE permit_id = $1 AND kind = 'PLAN' AND document_id = ANY($2::uuid[])`, [p.id, documentIds]);
        if (plans[0].n) throw badInput({ documentIds: "A plan filed with the application is not an as-built drawing: upload the drawing of what was built." });
      }
      const filed = [...documentIds, ...uploaded.map((d) => d.id)];
      const again = p.asBuiltFiledAt !== null;
      await tx.delete(LateralPermitDocument, { permitId: p.id, kind: "AS_BUILT" });
      await tx.insert(LateralPermitDocument, filed.map((documentId, position) => ({ permitId: p.id, documentId, position, kind: "AS_BUILT" as const })));
      p.asBuiltFiledAt = clock.now();
      p.updatedAt = clock.now();
      await tx.save(p);
      await audit(tx, actorOf(viewer, meta.requestId), {
        action: again ? "lateral.record_drawings_refiled" : "lateral.record_drawings_filed",
        entityType: "LateralPermit",
        entityId: p.id,
        districtId: p.districtId,
        details: { documents: filed },
      });
      const operators = await staffOf(tx, p.districtId, "OPERATOR");
      await enqueueEmails(
        tx,
        operators.map((o) => ({
          to: o.email,
          recipientId: o.id,
          districtId: p.districtId,
          kind: "lateral.record_drawings_filed",
          subject: `As-built drawings filed: permit ${p.permitNumber}`,
          body: `The applicant filed ${filed.length === 1 ? "an as-built drawing" : `${filed.length} as-built drawings`} for permit ${p.permitNumber} (${addressOf(p)}) (${needs.asBuiltDrawings.section}). Review and approve them:\n\n${meta.publicUrl}/staff/permits/${p.id}\n`,
        })),
      );
      await notify(
        tx,
        p,
        district,
        "lateral.record_drawings_filed",
        `As-built drawings received: permit ${p.permitNumber}`,
        `We received your as-built drawings for permit ${p.permitNumber} (${addressOf(p)}). The District Operator reviews them` +
          (needs.asBuiltDrawings.copies ? `; remember to deliver ${needs.asBuiltDrawings.copies} paper copies to the District Operator (${needs.asBuiltDrawings.section})` : "") +
          `. The as-built deposit is refunded once they are approved.`,
        meta.publicUrl,
      );
      return p;
    },
    "drawings",
  );
}

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
      const clerks = await staffOf(tx, p.districtId, "CLERK");
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

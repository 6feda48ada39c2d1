import { clock } from "../common/clock.js";
import { In, type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { rulebookById, type Rulebook } from "../districts/districts.service.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { registerPayable, type Payment } from "../payments/payments.service.js";
import { LateralPermit, type PermitStatus } from "./lateral-permit.entity.js";
import { FEE_CODES, STATUS_LABELS, applicationRequirements, depositHeldCents, nextStep, requiredInspections, type NextStep } from "./rules.js";
import { PAYABLE_TYPE, addressOf } from "./common.js";

/** Lateral permits plug into payments, documents and the dashboard here (imported once, for its effects). */

// ---------------------------------------------------------------------------------------------
// Registrations: payments, documents, dashboard

registerPayable(PAYABLE_TYPE, {
  /** Called in the transaction that marks the payment paid: the permit records when its fees were paid. */
  async onPaid(tx: EntityManager, payment: Payment) {
    const p = await tx.getRepository(LateralPermit).createQueryBuilder("p").setLock("pessimistic_write").where("p.id = :id", { id: payment.payableId }).getOne();
    if (!p || p.paymentId !== payment.id || p.paidAt) return;
    await tx.update(LateralPermit, { id: p.id }, { paidAt: payment.paidAt ?? clock.now(), updatedAt: clock.now() });
    await audit(tx, { userId: null }, {
      action: "lateral.fees_paid",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { paymentId: payment.id, amountCents: payment.amountCents, receiptNumber: payment.receiptNumber },
    });
  },
  async title(payableId: string, db: DataSource | EntityManager) {
    return (await permitTitles(db, [payableId])).get(payableId) ?? "Building lateral permit application";
  },
  titles: (ids: string[], db: DataSource | EntityManager) => permitTitles(db, ids),
  href: (payableId: string) => `/permits/${payableId}`,
});

async function permitTitles(db: DataSource | EntityManager, ids: string[]): Promise<Map<string, string>> {
  const rows = ids.length ? await db.getRepository(LateralPermit).findBy({ id: In(ids.filter(isUuid)) }) : [];
  return new Map(rows.map((p) => [p.id, p.permitNumber ? `Building lateral permit ${p.permitNumber}, ${addressOf(p)}` : `Building lateral permit application, ${addressOf(p)}`]));
}

// The district's operators and clerks read the plans filed with a submitted application.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => r.role === "OPERATOR" || r.role === "CLERK").map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM lateral_permit_document pd JOIN lateral_permit p ON p.id = pd.permit_id
      WHERE pd.document_id = $1 AND p.submitted_at IS NOT NULL AND p.district_id = ANY($2::uuid[]) LIMIT 1`,
    [doc.id, districts],
  );
  return rows.length > 0;
});

/** "My applications": each of the viewer's permits with what is due next, in one query. */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT p.id, p.status, p.permit_number, p.street_number, p.street, p.city, p.zip, p.fee_total_cents, p.fee_lines, p.paid_at, p.payment_id, p.as_built_filed_at,
            CASE WHEN p.deposit_refund_due_cents > 0 AND NOT EXISTS (
                   SELECT 1 FROM refund r WHERE r.payment_id = p.payment_id AND r.line_codes ? '${FEE_CODES.deposit}')
                 THEN p.deposit_refund_due_cents ELSE 0 END AS deposit_refund_due_cents, d.time_zone, d.operator_title,
            coalesce((SELECT json_agg(json_build_object('kind', i.kind, 'status', i.status, 'scheduledFor', i.scheduled_for, 'requestedAt', i.requested_at))
                        FROM lateral_inspection i WHERE i.permit_id = p.id), '[]'::json) AS inspections,
            p.rulebook_version_id
       FROM lateral_permit p
       JOIN district d ON d.id = p.district_id
      WHERE p.applicant_id = $1 AND p.status <> 'WITHDRAWN'
      ORDER BY p.created_at DESC`,
    [viewer.userId],
  );
  // The rules of each rulebook version used, from the in-process cache (no query once warm).
  const versionIds = [...new Set(rows.map((r) => r.rulebook_version_id).filter(Boolean))] as string[];
  const rulebooks = new Map<string, Rulebook>();
  for (const id of versionIds) rulebooks.set(id, await rulebookById(ds, id));
  return rows.map((r) => {
    const rb = r.rulebook_version_id ? rulebooks.get(r.rulebook_version_id) : undefined;
    const inspections = (r.inspections as any[]).map((i) => ({ kind: i.kind, status: i.status, scheduledFor: i.scheduledFor ? new Date(i.scheduledFor) : null, requestedAt: new Date(i.requestedAt) }));
    const step = nextStep(
      {
        status: r.status,
        feeTotalCents: r.fee_total_cents,
        paid: r.paid_at !== null,
        depositRefundDueCents: r.deposit_refund_due_cents,
        asBuiltRequired: rb ? applicationRequirements(rb).asBuiltDrawings.required : false,
        asBuiltFiled: r.as_built_filed_at !== null,
        depositHeldCents: depositHeldCents(r.fee_lines),
      },
      r.operator_title,
      inspections,
      rb ? requiredInspections(rb).map((k) => k.kind) : [],
      r.time_zone,
    );
    const address = addressOf({ streetNumber: r.street_number, street: r.street, city: r.city, zip: r.zip });
    return {
      kind: PAYABLE_TYPE,
      id: r.id,
      title: r.permit_number ? `Lateral permit ${r.permit_number}, ${address}` : `Lateral permit application, ${address}`,
      status: STATUS_LABELS[r.status as PermitStatus],
      nextStep: step.text,
      dueDate: step.dueDate,
      daysLeft: step.daysLeft,
      href: r.status === "DRAFT" ? `/permits/${r.id}/edit` : `/permits/${r.id}`,
      nextStepHref: lateralActionHref(r, step),
    };
  });
});

/** Where the applicant does what is due next: the form, the payment, the inspection request, the drawings. */
function lateralActionHref(r: { id: string; status: PermitStatus; payment_id: string | null; paid_at: Date | null; fee_total_cents: number }, step: NextStep): string | null {
  if (!step.text) return null;
  if (r.status === "DRAFT" || r.status === "CHANGES_REQUESTED") return `/permits/${r.id}/edit`;
  if (r.status === "SUBMITTED" && r.fee_total_cents > 0 && !r.paid_at && r.payment_id) return `/payments/${r.payment_id}`;
  if (r.status === "APPROVED" && step.inspectionToRequest) return `/permits/${r.id}#request-inspection`;
  if (r.status === "CONNECTED") return `/permits/${r.id}#drawings-heading`;
  return `/permits/${r.id}`;
}

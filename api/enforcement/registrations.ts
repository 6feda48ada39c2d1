import { In, type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, daysBetween, daysLeft } from "../common/dates.js";
import { formatCents } from "../common/money.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { Payment, registerPayable } from "../payments/payments.service.js";
import { Charge, EnforcementAction, type ActionKind } from "./enforcement.entity.js";
import { ACTION_STATUS_LABELS, KINDS, PETITION_TO_LABELS, finality } from "./rules.js";
import { CHARGE_PAYABLE } from "./common.js";
import { formatDateTime } from "../common/format.js";

/** Enforcement plugs into payments, documents and the dashboard here (imported once, for its effects). */

// ---------------------------------------------------------------------------------------------
// Registrations: payments, documents, dashboard

registerPayable(CHARGE_PAYABLE, {
  async onPaid(tx: EntityManager, payment: Payment) {
    const c = await tx.createQueryBuilder(Charge, "c").setLock("pessimistic_write").where("c.id = :id", { id: payment.payableId }).getOne();
    if (!c || c.paymentId !== payment.id || c.status !== "OPEN") return;
    await tx.update(Charge, { id: c.id }, { status: "PAID", paidAt: payment.paidAt ?? clock.now(), paidCents: payment.amountCents, updatedAt: clock.now() });
    await audit(tx, { userId: null }, { action: "charge.paid", entityType: "Charge", entityId: c.id, districtId: c.districtId, details: { paymentId: payment.id, amountCents: payment.amountCents, receiptNumber: payment.receiptNumber } });
  },
  async title(id: string, db: DataSource | EntityManager) {
    return (await chargeTitles(db, [id])).get(id) ?? "Charge";
  },
  titles: (ids: string[], db: DataSource | EntityManager) => chargeTitles(db, ids),
  href: (id: string) => `/enforcement/charges/${id}`,
});

async function chargeTitles(db: DataSource | EntityManager, ids: string[]): Promise<Map<string, string>> {
  const rows = ids.length ? await db.getRepository(Charge).findBy({ id: In(ids.filter(isUuid)) }) : [];
  return new Map(rows.map((c) => [c.id, `${c.label} (${c.number})`]));
}

// The Board, the Operator and the Clerk of the district read the documents filed with a petition.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => r.role === "BOARD" || r.role === "OPERATOR" || r.role === "CLERK").map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM petition_document pd JOIN petition p ON p.id = pd.petition_id WHERE pd.document_id = $1 AND p.district_id = ANY($2::uuid[]) LIMIT 1`,
    [doc.id, districts],
  );
  return rows.length > 0;
});

/** The dashboard: actions served on me or my organizations that still ask something of me, in one query. */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT a.id, a.number, a.kind, a.status, a.served_on::text AS served_on, a.answer_due_on::text AS answer_due_on, a.petition_due_on::text AS petition_due_on,
            a.petition_to, a.final_on::text AS final_on, a.final_reason, a.responded_at, a.correct_by::text AS correct_by, d.time_zone,
            c.status AS charge_status, c.amount_cents AS charge_cents,
            (SELECT h.scheduled_for FROM show_cause_hearing h WHERE h.action_id = a.id AND h.outcome IS NULL ORDER BY h.scheduled_for DESC LIMIT 1) AS hearing_at,
            (SELECT p.judgment IS NULL FROM prosecution p WHERE p.action_id = a.id) AS before_court
       FROM enforcement_action a
       JOIN district d ON d.id = a.district_id
       LEFT JOIN charge c ON c.action_id = a.id
      WHERE (a.respondent_user_id = $1 OR a.respondent_organization_id IN (SELECT organization_id FROM membership WHERE user_id = $1))
        AND a.status NOT IN ('VACATED', 'SUSPENDED', 'RECONNECTED')
      ORDER BY a.served_on DESC LIMIT 100`,
    [viewer.userId],
  );
  const items: DashboardItem[] = [];
  for (const r of rows) {
    const today = dateIn(r.time_zone);
    const fin = finality({ status: r.status, kind: r.kind, petitionDueOn: r.petition_due_on, finalOn: r.final_on, finalReason: r.final_reason }, today);
    let nextStep: string | null = null;
    let due: string | null = null;
    if (r.hearing_at) nextStep = `Show-cause hearing on ${formatDateTime(new Date(r.hearing_at), r.time_zone, "full")}`;
    else if (r.kind === "NOTICE_OF_VIOLATION" && !r.responded_at && r.answer_due_on && today <= r.answer_due_on) {
      nextStep = "Send an explanation and a correction plan";
      due = r.answer_due_on;
    } else if (r.status === "SERVED" && r.petition_due_on && today <= r.petition_due_on) {
      nextStep = r.charge_status === "OPEN" ? `Pay the fine of ${formatCents(r.charge_cents)} or petition ${PETITION_TO_LABELS[r.petition_to as "TOWN_BOARD"]}` : `Comply, or petition ${PETITION_TO_LABELS[r.petition_to as "TOWN_BOARD"]}`;
      due = r.petition_due_on;
    } else if (r.status === "UNDER_PETITION") nextStep = "Your petition is before the Board";
    // Huron V-2: referred for prosecution, the case is before the court; nothing is payable unless it convicts.
    else if (r.before_court) nextStep = "Referred to the court: nothing to pay unless it convicts";
    else if (r.charge_status === "OPEN") nextStep = `Pay the fine of ${formatCents(r.charge_cents)}`;
    else if (r.correct_by && today <= r.correct_by) {
      nextStep = "Correct the violation";
      due = r.correct_by;
    }
    if (!nextStep) continue;
    items.push({
      kind: "EnforcementAction",
      id: r.id,
      title: `${KINDS[r.kind as ActionKind].label} ${r.number}`,
      status: fin.final ? "Final" : ACTION_STATUS_LABELS[r.status],
      nextStep,
      dueDate: due,
      daysLeft: due ? daysBetween(today, due) : null,
      href: `/enforcement/${r.id}`,
    });
  }
  return items;
});

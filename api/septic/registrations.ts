import type { DataSource, EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { registerDocumentAccess, isUuid } from "../documents/documents.service.js";
import { registerPayable, type Payment } from "../payments/payments.service.js";
import { PERMIT_PAYABLE } from "./permits.service.js";
import "./reminders.service.js";
import { PUMP_OUT_REMINDER_DAYS } from "./rules.js";

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

// The owner's recorded easement to the septic tank for septage removal (SUL 408's alternative), filed on a
// connection order by the District Operator: read by the district's staff and the property's owner of record.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.map((r) => r.districtId);
  const rows = await ds.query(
    `SELECT 1 FROM septic_connection_order o JOIN septic_system s ON s.id = o.system_id JOIN sewer_property p ON p.id = s.property_id
      WHERE o.easement_document_id = $1 AND (o.district_id = ANY($2::uuid[]) OR p.owner_user_id = $3) LIMIT 1`,
    [doc.id, districts, viewer.userId],
  );
  return rows.length > 0;
});

// "My applications": the owner's systems due within the reminder's days or overdue (SUL 407), open
// notices (405) with their days left, open connection orders (408), permits in progress (403-404). One query.
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: { kind: string; id: string; address: string; status: string; due: string | null; days: number | null; extra: string | null; paid: boolean | null }[] = await ds.query(
    `WITH today AS (SELECT d.id, ($2::timestamptz AT TIME ZONE d.time_zone)::date AS day FROM district d)
     SELECT 'SepticSystem' AS kind, s.id, trim(coalesce(p.street_number || ' ', '') || p.street) AS address, s.kind AS status,
            to_char(s.pump_due_on, 'YYYY-MM-DD') AS due, (s.pump_due_on - t.day) AS days, NULL AS extra, NULL::boolean AS paid
       FROM septic_system s JOIN sewer_property p ON p.id = s.property_id JOIN today t ON t.id = s.district_id
      WHERE p.owner_user_id = $1 AND s.status = 'IN_USE' AND s.pump_due_on IS NOT NULL AND s.pump_due_on <= t.day + $3::int
     UNION ALL
     SELECT 'SepticNuisanceNotice', n.id, trim(coalesce(p.street_number || ' ', '') || p.street), n.status, to_char(n.repair_by, 'YYYY-MM-DD'), (n.repair_by - t.day), NULL, NULL
       FROM septic_nuisance_notice n JOIN septic_system s ON s.id = n.system_id JOIN sewer_property p ON p.id = s.property_id JOIN today t ON t.id = n.district_id
      WHERE p.owner_user_id = $1 AND n.status = 'OPEN'
     UNION ALL
     SELECT 'SepticConnectionOrder', o.id, trim(coalesce(p.street_number || ' ', '') || p.street), o.status, NULL, NULL, o.path, NULL
       FROM septic_connection_order o JOIN septic_system s ON s.id = o.system_id JOIN sewer_property p ON p.id = s.property_id
      WHERE p.owner_user_id = $1 AND o.status = 'OPEN'
     UNION ALL
     SELECT 'SepticPermit', sp.id, trim(coalesce(p.street_number || ' ', '') || p.street), sp.status, NULL, NULL, sp.payment_id::text,
            (sp.payment_id IS NULL OR EXISTS (SELECT 1 FROM payment pay WHERE pay.id = sp.payment_id AND pay.status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')))
       FROM septic_permit sp JOIN sewer_property p ON p.id = sp.property_id
      WHERE sp.applicant_id = $1 AND sp.status IN ('SUBMITTED', 'ISSUED')
     LIMIT 50`,
    [viewer.userId, clock.now(), PUMP_OUT_REMINDER_DAYS],
  );
  return rows.map((r): DashboardItem => {
    const days = r.days === null ? null : Number(r.days);
    switch (r.kind) {
      case "SepticSystem":
        return {
          kind: r.kind, id: r.id, href: "/septic", nextStepHref: "/septic", dueDate: r.due, daysLeft: days,
          title: `${r.status === "CESSPOOL" ? "Cesspool" : "Septic tank"} at ${r.address}: pump-out`,
          status: days !== null && days < 0 ? "Overdue" : "Due soon",
          nextStep: "Have a licensed hauler pump it out; the load is recorded when the station receives it",
        };
      case "SepticNuisanceNotice":
        return {
          kind: r.kind, id: r.id, href: "/septic", nextStepHref: "/septic", dueDate: r.due, daysLeft: days,
          title: `Notice to repair the septic system at ${r.address}`, status: days !== null && days < 0 ? "Time passed" : "Open",
          nextStep: "Repair, rebuild or relocate the system",
        };
      case "SepticConnectionOrder":
        return {
          kind: r.kind, id: r.id, href: "/septic", nextStepHref: "/septic", dueDate: null, daysLeft: null,
          title: `Order to connect ${r.address} to the public sewer`, status: "Open",
          nextStep:
            r.extra === "EFFLUENT_TO_SEWER"
              ? "Apply for the lateral permit, have the tank's effluent piped or pumped to the sewer and record the easement for septage removal"
              : "Apply for the lateral permit and have the old system taken out of use",
        };
      default:
        return {
          kind: r.kind, id: r.id, href: "/septic", dueDate: null, daysLeft: null,
          title: `Septic construction permit, ${r.address}`,
          status: r.status === "ISSUED" ? "Permit issued" : "Under review",
          ...(r.status === "SUBMITTED" && !r.paid
            ? { nextStep: "Pay the permit fee", nextStepHref: `/payments/${r.extra}` }
            : r.status === "SUBMITTED"
              ? { nextStep: "Wait for the District Operator's decision", nextStepHref: "/septic" }
              : { nextStep: "Build the system; the District Operator may inspect at any stage", nextStepHref: "/septic" }),
        };
    }
  });
});

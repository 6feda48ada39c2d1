import { daysLeft, formatDate } from "../common/dates.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { STATUS_LABELS, type PermitStatus } from "./common.js";

/**
 * "My applications": the discharge permits of the organizations I belong to, with what is due
 * next: an open duty of an exceedance (SUL 1005(4)) first, else the next report (SUL 1005(3)).
 * One query.
 */
registerDashboardProvider(async (ds, viewer) => {
  const rows: {
    id: string;
    status: PermitStatus;
    facility_name: string | null;
    permit_number: string | null;
    payment_id: string | null;
    paid_at: Date | null;
    time_zone: string;
    next_report: { id: string; dueOn: string; periodStart: string; periodEnd: string } | null;
    duty: { kind: "NOTIFY" | "RESAMPLE"; text: string; section: string; dueOn: string } | null;
  }[] = await ds.query(
    `SELECT p.id, p.status, p.facility_name, p.permit_number, p.payment_id, p.paid_at, d.time_zone,
            (SELECT json_build_object('id', r.id, 'dueOn', r.due_on::text, 'periodStart', r.period_start::text, 'periodEnd', r.period_end::text)
               FROM industrial_report r WHERE r.permit_id = p.id AND r.status <> 'SIGNED' AND r.amends_id IS NULL ORDER BY r.due_on LIMIT 1) AS next_report,
            (SELECT json_build_object('kind', du.kind, 'text', du.text, 'section', du.section, 'dueOn', du.due_on::text)
               FROM industrial_duty du WHERE du.permit_id = p.id AND du.done_at IS NULL ORDER BY du.due_at LIMIT 1) AS duty
       FROM industrial_permit p
       JOIN membership m ON m.organization_id = p.organization_id AND m.user_id = $1
       JOIN district d ON d.id = p.district_id
      WHERE p.status IN ('DRAFT', 'SUBMITTED', 'NOTICE_PUBLISHED', 'ISSUED')
      ORDER BY p.created_at DESC LIMIT 50`,
    [viewer.userId],
  );
  return rows.map((p): DashboardItem => {
    const title = p.permit_number ? `Discharge permit ${p.permit_number}: ${p.facility_name}` : `Discharge permit application: ${p.facility_name ?? "draft"}`;
    const base = { kind: "DischargePermit", id: p.id, title, status: STATUS_LABELS[p.status], href: `/industrial/${p.id}`, dueDate: null, daysLeft: null };
    if (p.status === "DRAFT") return { ...base, nextStep: "Finish and submit the application (Sewer Use Law 1004 A)", href: `/industrial/apply?id=${p.id}`, nextStepHref: `/industrial/apply?id=${p.id}` };
    if (p.status === "SUBMITTED")
      return p.payment_id && !p.paid_at
        ? { ...base, nextStep: "Pay the application fee (Sewer Use Law 1004 A)", nextStepHref: `/payments/${p.payment_id}` }
        : { ...base, nextStep: "The District Operator reviews the application" };
    if (p.status === "NOTICE_PUBLISHED") return { ...base, nextStep: "The notice of intent is published; the permit is issued after the notice period (Sewer Use Law 1004 H)" };
    if (p.duty)
      return {
        ...base,
        nextStep: `${p.duty.text} (${p.duty.section})`,
        dueDate: p.duty.dueOn,
        daysLeft: daysLeft(p.duty.dueOn, p.time_zone),
        // The notification is recorded, and the repeat sampling started, on the permit's events page.
        nextStepHref: `/industrial/${p.id}/events#${p.duty.kind === "NOTIFY" ? "notify" : "resample"}`,
      };
    if (p.next_report)
      return {
        ...base,
        nextStep: `File the compliance report for ${formatDate(p.next_report.periodStart)} to ${formatDate(p.next_report.periodEnd)} (Sewer Use Law 1005(3))`,
        dueDate: p.next_report.dueOn,
        daysLeft: daysLeft(p.next_report.dueOn, p.time_zone),
        // The results are entered and the report signed on its page.
        nextStepHref: `/industrial/reports/${p.next_report.id}`,
      };
    return { ...base, nextStep: null };
  });
});

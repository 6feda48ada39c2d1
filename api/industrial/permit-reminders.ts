import { audit } from "../audit/audit.service.js";
import { formatDate } from "../common/dates.js";
import { registerJobHandler } from "../jobs/queue.js";
import { loadDistrict, loadPermit, permitRulebook } from "./common.js";
import { notifyOrganization } from "./permit-common.js";

/** Reminders from the job queue: the reissuance deadline (SUL 1004 E) and each report's due date. */

// ---------------------------------------------------------------------------------------------
// Reminders (job queue)

export const REISSUANCE_REMINDER_JOB = "industrial.reissuance-reminder";
export const REPORT_REMINDER_JOB = "industrial.report-reminder";

registerJobHandler(REISSUANCE_REMINDER_JOB, async (ds, payload: { permitId: string; deadline: string; expiresOn: string; publicUrl?: string }, _log, job) => {
  await ds.transaction(async (tx) => {
    await job.done(tx); // the reminder and the job's completion commit together: one email
    const p = await loadPermit(tx, payload.permitId);
    if (!p || p.status !== "ISSUED" || p.expiresOn !== payload.expiresOn) return;
    // already applied for (SUL 1004 E): no reminder
    const [applied] = await tx.query(`SELECT 1 FROM industrial_permit WHERE previous_permit_id = $1 AND previous_relation = 'REISSUANCE' AND submitted_at IS NOT NULL AND status <> 'WITHDRAWN'`, [p.id]);
    if (applied) return;
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const e = rb.entry("industrial.reissuanceApplicationDays");
    await notifyOrganization(
      tx,
      p,
      district,
      "industrial.reissuance_reminder",
      `Apply to reissue discharge permit ${p.permitNumber} by ${formatDate(payload.deadline)}`,
      `Your wastewater discharge permit ${p.permitNumber} expires on ${formatDate(p.expiresOn!)}. Apply for its reissuance at least ${e.value} days before, by ${formatDate(payload.deadline)} (${e.section}).`,
      payload.publicUrl ?? "",
    );
    await audit(tx, { userId: null }, { action: "industrial.reissuance_reminded", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, details: { deadline: payload.deadline } });
  });
});

registerJobHandler(REPORT_REMINDER_JOB, async (ds, payload: { reportId: string; publicUrl?: string }, _log, job) => {
  await ds.transaction(async (tx) => {
    await job.done(tx); // the reminder and the job's completion commit together: one email
    const [r] = await tx.query(`SELECT id, permit_id, status, due_on::text AS due_on, period_start::text AS s, period_end::text AS e FROM industrial_report WHERE id = $1`, [payload.reportId]);
    if (!r || r.status === "SIGNED") return;
    const p = await loadPermit(tx, r.permit_id);
    if (!p || p.status !== "ISSUED") return;
    const district = await loadDistrict(tx, p.districtId);
    await notifyOrganization(
      tx,
      p,
      district,
      "industrial.report_reminder",
      `Compliance report due ${formatDate(r.due_on)}: permit ${p.permitNumber}`,
      `The periodic compliance report for ${formatDate(r.s)} to ${formatDate(r.e)} is due by ${formatDate(r.due_on)} (Sewer Use Law 1005(3)). Enter the lab results and have the Authorized Representative sign it in the portal.`,
      payload.publicUrl ?? "",
    );
  });
});

import type { DataSource, EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, dateIn, daysBetween, formatDate, isCalendarDate, zonedWallTime, type CalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueJob, registerJobHandler, type JobRun } from "../jobs/queue.js";
import { STATUS_LABELS, actorOf, editablePermit, limitsOf, loadDistrict, loadPermit, permitRulebook, rowOf, type Db, type Milestone, type PermitRow } from "./common.js";
import type { Limit } from "./limits.js";
import {
  COLUMNS,
  JSON_COLUMNS,
  checkLimits,
  checkMonths,
  clean,
  createReports,
  insertLimits,
  monthNames,
  notifyOrganization,
  reportPeriods,
  requireStatus,
  scheduleProblems,
  scheduleProgressReminders,
  staffPermit,
  type LimitInput,
} from "./permits.service.js";

/**
 * The permit after issuance: modification by the District Operator for just cause on 30 days'
 * notice (SUL 1004 B, 1004 E), the reissuance application at least 180 days before expiry
 * (1004 E), and, since a permit is never transferred (1004 F), a reported change of owner, user,
 * premises or operation that starts an application for a new permit, which ends the old permit
 * when it is issued (permits.service `supersede`).
 */

/** SUL 1004 B's just causes, in the law's words; OTHER is 1004 E's "other just cause" with the Operator's text. */
export const MODIFICATION_CAUSES = {
  CATEGORICAL_STANDARD: { label: "Promulgation of an applicable National Categorical Pretreatment Standard", section: "Sewer Use Law 1004 B(1)" },
  CATEGORICAL_REVISION: { label: "Revision of or a grant of a variance from such categorical standards pursuant to 40 CFR 403.13", section: "Sewer Use Law 1004 B(2)" },
  LOCAL_LIMITS: { label: "Changes in general discharge prohibitions and local limits as per Section 903 of this law", section: "Sewer Use Law 1004 B(3)" },
  PROCESS_CHANGE: { label: "Changes in processes used by the permittee, or changes in discharge volume or character", section: "Sewer Use Law 1004 B(4)" },
  POTW_CHANGE: { label: "Changes in design or capability of any part of the POTW", section: "Sewer Use Law 1004 B(5)" },
  PASS_THROUGH: { label: "Discovery that the permitted discharge causes or contributes to pass through or interference", section: "Sewer Use Law 1004 B(6)" },
  SEWAGE_CHARACTER: { label: "Changes in the nature and character of the sewage in the POTW as a result of other permitted discharges", section: "Sewer Use Law 1004 B(7)" },
  OTHER: { label: "Other just cause", section: "Sewer Use Law 1004 B, 1004 E" },
} as const;
export type ModificationCause = keyof typeof MODIFICATION_CAUSES;

/** SUL 1004 F: the changes a permit does not survive. */
export const CHANGE_KINDS = {
  OWNER: "A new owner",
  USER: "A new user",
  PREMISES: "Different premises",
  OPERATION: "A new or changed operation",
} as const;
export type ChangeKind = keyof typeof CHANGE_KINDS;

export type ModificationRow = {
  id: string;
  permitId: string;
  cause: ModificationCause;
  causeText: string | null;
  explanation: string;
  limits: Limit[] | null;
  reportingMonths: number[] | null;
  conditions: string | null;
  complianceSchedule: Milestone[];
  noticeOn: string;
  effectiveOn: string;
  status: "PENDING" | "WITHDRAWN" | "EFFECTIVE";
  proposedById: string;
  proposedAt: Date;
  withdrawnAt: Date | null;
  withdrawalReason: string | null;
  appliedAt: Date | null;
  replaced: { limits?: Limit[]; reportingMonths?: number[]; conditions?: string | null; complianceSchedule?: Milestone[] } | null;
};

const modOf = (r: any): ModificationRow => {
  const m = rowOf<ModificationRow>(r);
  m.effectiveOn = String(r.effective_on instanceof Date ? r.effective_on.toISOString() : r.effective_on).slice(0, 10);
  return m;
};

export async function modificationsOf(db: Db, permitIds: readonly string[]): Promise<ModificationRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_permit_modification WHERE permit_id = ANY($1::uuid[]) ORDER BY permit_id, effective_on DESC, proposed_at DESC`, [permitIds]);
  return rows.map(modOf);
}

export const MODIFICATION_JOB = "industrial.modification-effective";

export type ModificationInput = {
  permitId: string;
  cause: string;
  causeText?: string | null;
  explanation: string;
  limits?: LimitInput[] | null;
  reportingMonths?: number[] | null;
  conditions?: string | null;
  effectiveOn: string;
  complianceSchedule?: Milestone[] | null;
};

/**
 * SUL 1004 B, E: the District Operator proposes a modification for a just cause; the permittee
 * is told at least the rulebook's days (30) before it takes effect. New limits go through the
 * same checks as setIndustrialPermitLimits, a compliance schedule through the application's
 * (1004 A(12)), counted from the notice.
 */
export async function proposeModification(ds: DataSource, viewer: Viewer, input: ModificationInput, meta: { requestId?: string; publicUrl: string }): Promise<ModificationRow> {
  const f: Record<string, string> = {};
  if (!(input.cause in MODIFICATION_CAUSES)) f.cause = "Choose one of the just causes of Sewer Use Law 1004 B, or other just cause.";
  const causeText = clean(input.causeText);
  if (input.cause === "OTHER" && !causeText) f.causeText = "Name the other just cause (Sewer Use Law 1004 E).";
  if (causeText && causeText.length > 500) f.causeText = "Use at most 500 characters.";
  const explanation = (input.explanation ?? "").trim();
  if (!explanation) f.explanation = "Explain the modification: the permittee reads it.";
  else if (explanation.length > 4000) f.explanation = "Use at most 4,000 characters.";
  const conditions = input.conditions == null ? null : input.conditions.trim() || null;
  if (conditions && conditions.length > 8000) f.conditions = "Use at most 8,000 characters.";
  if (!isCalendarDate(input.effectiveOn ?? "")) f.effectiveOn = "Give the date it takes effect, like 2027-01-15.";
  const steps = (input.complianceSchedule ?? []).map((s, i) => {
    const milestone = clean(s.milestone) ?? "";
    if (!milestone) f.complianceSchedule = `Step ${i + 1}: name the event.`;
    if (!isCalendarDate(s.dueOn ?? "")) f.complianceSchedule = `Step ${i + 1}: give its date like 2027-03-31.`;
    return { milestone, dueOn: s.dueOn };
  });
  if (steps.length > 50) f.complianceSchedule = "At most 50 steps.";
  let limits: Limit[] | null = null;
  if (input.limits) {
    try {
      limits = checkLimits(input.limits);
    } catch (e) {
      if (!(e instanceof AppError) || !e.fields) throw e;
      Object.assign(f, e.fields);
    }
  }
  if (!input.limits && !input.reportingMonths?.length && conditions === null && !f.conditions) f.limits = "Change at least the limits, the reporting months or the conditions.";
  if (Object.keys(f).length) throw badInput(f);
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, input.permitId);
    requireStatus(p, ["ISSUED"], "Only an issued permit is modified");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const today = dateIn(district.timeZone);
    const days = rb.require("industrial.modificationNoticeDays");
    const earliest = addCalendarDays(today, days.value);
    const months = input.reportingMonths?.length ? checkMonths(rb, input.reportingMonths, f) : null;
    if (input.effectiveOn < earliest)
      f.effectiveOn = `The permittee must be told at least ${days.value} days before a modification takes effect (${days.section}): notified today, it takes effect on ${formatDate(earliest)} at the earliest.`;
    else if (input.effectiveOn > p.expiresOn!) f.effectiveOn = `The permit expires on ${formatDate(p.expiresOn!)}; a modification must take effect by then.`;
    if (steps.length) {
      const problem = scheduleProblems(rb, today, steps);
      if (problem) f.complianceSchedule = problem.replace("after today", "after the notice").replace("the application", "the notice");
    }
    if (Object.keys(f).length) throw badInput(f);
    const now = clock.now();
    const [row] = await tx.query(
      `INSERT INTO industrial_permit_modification (permit_id, cause, cause_text, explanation, limits, reporting_months, conditions, compliance_schedule, notice_on, effective_on, status, proposed_by_id, proposed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'PENDING', $11, $12) RETURNING *`,
      [p.id, input.cause, causeText, explanation, limits ? JSON.stringify(limits) : null, months, conditions, JSON.stringify(steps), today, input.effectiveOn, viewer.userId, now],
    );
    const m = modOf(row);
    await enqueueJob(tx, {
      name: MODIFICATION_JOB,
      payload: { modificationId: m.id, publicUrl: meta.publicUrl },
      runAt: zonedWallTime(Date.parse(`${m.effectiveOn}T00:00:00Z`), district.timeZone),
      singletonKey: `industrial.modification:${m.id}`,
    });
    const cause = MODIFICATION_CAUSES[m.cause];
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.modification_proposed",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: explanation,
      details: { modificationId: m.id, cause: m.cause, causeText, effectiveOn: m.effectiveOn, noticeOn: today, limits, reportingMonths: months, conditions, complianceSchedule: steps },
    });
    await notifyOrganization(
      tx,
      p,
      district,
      "industrial.modification_proposed",
      `Modification of discharge permit ${p.permitNumber} takes effect ${formatDate(m.effectiveOn)}`,
      `The District Operator modifies your wastewater discharge permit ${p.permitNumber}, effective ${formatDate(m.effectiveOn)} (${daysBetween(today, m.effectiveOn)} days from this notice; ${days.section}).\n\n` +
        `Cause: ${cause.label}${causeText ? `: ${causeText}` : ""} (${cause.section}).\n\n${explanation}\n\nWhat changes:\n` +
        changeSummary(m) +
        (steps.length ? `\n\nCompliance schedule (Sewer Use Law 1004 A(12)):\n${steps.map((s) => `- ${formatDate(s.dueOn)}: ${s.milestone}`).join("\n")}` : ""),
      meta.publicUrl,
    );
    return m;
  });
}

function changeSummary(m: Pick<ModificationRow, "limits" | "reportingMonths" | "conditions">): string {
  const out: string[] = [];
  if (m.limits) out.push(`- Limits: ${m.limits.map((l) => `${l.parameter} ${[l.average != null ? `average ${l.average}` : "", l.maximum != null ? `maximum ${l.maximum}` : "", l.minimum != null ? `minimum ${l.minimum}` : ""].filter(Boolean).join(", ")} ${l.unit}`).join("; ")}`);
  if (m.reportingMonths) out.push(`- Periodic reports due in ${monthNames(m.reportingMonths)}`);
  if (m.conditions) out.push(`- Conditions: ${m.conditions}`);
  return out.join("\n");
}

/** The Operator withdraws a modification before it takes effect. */
export async function withdrawModification(ds: DataSource, viewer: Viewer, input: { id: string; reason: string }, meta: { requestId?: string; publicUrl: string }): Promise<ModificationRow> {
  const reason = (input.reason ?? "").trim();
  if (!reason) throw badInput({ reason: "Say why: the permittee reads it." });
  if (reason.length > 2000) throw badInput({ reason: "Use at most 2,000 characters." });
  if (!isUuid(input.id)) throw notFound("That modification");
  return ds.transaction(async (tx) => {
    const [r] = await tx.query(`SELECT * FROM industrial_permit_modification WHERE id = $1 FOR UPDATE`, [input.id]);
    if (!r) throw notFound("That modification");
    const p = await staffPermit(tx, viewer, r.permit_id);
    const m = modOf(r);
    if (m.status !== "PENDING") throw conflict(m.status === "EFFECTIVE" ? "The modification has taken effect; a new modification changes it." : "The modification is already withdrawn.");
    const now = clock.now();
    await tx.query(`UPDATE industrial_permit_modification SET status = 'WITHDRAWN', withdrawn_at = $2, withdrawn_by_id = $3, withdrawal_reason = $4 WHERE id = $1`, [m.id, now, viewer.userId, reason]);
    const [row] = await tx.query(`SELECT * FROM industrial_permit_modification WHERE id = $1`, [m.id]);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "industrial.modification_withdrawn", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, reason, details: { modificationId: m.id } });
    const district = await loadDistrict(tx, p.districtId);
    await notifyOrganization(
      tx,
      p,
      district,
      "industrial.modification_withdrawn",
      `Modification of discharge permit ${p.permitNumber} withdrawn`,
      `The modification of your permit ${p.permitNumber} that was to take effect on ${formatDate(m.effectiveOn)} is withdrawn: ${reason}\n\nThe permit stays as it is.`,
      meta.publicUrl,
    );
    return modOf(row);
  });
}

/**
 * Takes a pending modification into effect on its date (the job runs at local midnight; it does
 * nothing twice, nor before the date, nor for a withdrawn one). The permit's limits, months and
 * conditions change; what they were is kept on the modification (its history). If the months
 * change, report periods not yet begun or started are made again from the new months; reports
 * started or signed are never touched.
 */
export async function applyModification(ds: DataSource, id: string, publicUrl: string, job?: JobRun): Promise<boolean> {
  return ds.transaction(async (tx) => {
    await job?.done(tx);
    const [r] = await tx.query(`SELECT * FROM industrial_permit_modification WHERE id = $1 FOR UPDATE`, [id]);
    if (!r || r.status !== "PENDING") return false;
    const m = modOf(r);
    const p = (await loadPermit(tx, m.permitId, true))!;
    const district = await loadDistrict(tx, p.districtId);
    if (dateIn(district.timeZone) < m.effectiveOn) return false;
    if (p.status !== "ISSUED") {
      // revoked or ended before its date: nothing to modify
      const reason = `Permit ${STATUS_LABELS[p.status].toLowerCase()} before the modification's date; nothing changed.`;
      await tx.query(`UPDATE industrial_permit_modification SET status = 'WITHDRAWN', withdrawn_at = $2, withdrawal_reason = $3 WHERE id = $1`, [m.id, clock.now(), reason]);
      await audit(tx, { userId: null }, { action: "industrial.modification_withdrawn", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, reason, details: { modificationId: m.id } });
      return false;
    }
    const before = await limitsOf(tx, [p.id]);
    const replaced: ModificationRow["replaced"] = {};
    if (m.limits) {
      replaced.limits = before.map(({ id: _i, permitId: _p, position: _o, ...l }) => l);
      await insertLimits(tx, p.id, m.limits);
    }
    if (m.conditions !== null) {
      replaced.conditions = p.conditions;
      await tx.query(`UPDATE industrial_permit SET conditions = $2 WHERE id = $1`, [p.id, m.conditions]);
    }
    // The schedule for the new conditions (1004 B, 1004 A(12)(a)) joins the permit's own: its
    // milestones get progress reports, reminders and SNC (e) like the others (indices kept).
    if (m.complianceSchedule.length) {
      const schedule = [...((p.complianceSchedule ?? []) as Milestone[]), ...m.complianceSchedule];
      replaced.complianceSchedule = (p.complianceSchedule ?? []) as Milestone[];
      await tx.query(`UPDATE industrial_permit SET compliance_schedule = $2 WHERE id = $1`, [p.id, JSON.stringify(schedule)]);
      await scheduleProgressReminders(tx, p.id, schedule, replaced.complianceSchedule.length, await permitRulebook(tx, p, district), district, publicUrl);
    }
    let regenerated = 0;
    if (m.reportingMonths && m.reportingMonths.join() !== p.reportingMonths.join()) {
      replaced.reportingMonths = p.reportingMonths;
      await tx.query(`UPDATE industrial_permit SET reporting_months = $2 WHERE id = $1`, [p.id, m.reportingMonths]);
      regenerated = await regenerateReports(tx, p, m.reportingMonths, m.effectiveOn, district, publicUrl);
    }
    const now = clock.now();
    await tx.query(`UPDATE industrial_permit SET updated_at = $2 WHERE id = $1`, [p.id, now]);
    await tx.query(`UPDATE industrial_permit_modification SET status = 'EFFECTIVE', applied_at = $2, replaced = $3 WHERE id = $1`, [m.id, now, JSON.stringify(replaced)]);
    await audit(tx, { userId: null }, {
      action: "industrial.modified",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: `${MODIFICATION_CAUSES[m.cause].label} (${MODIFICATION_CAUSES[m.cause].section})`,
      details: { modificationId: m.id, effectiveOn: m.effectiveOn, before: replaced, after: { limits: m.limits, reportingMonths: m.reportingMonths, conditions: m.conditions, complianceSchedule: m.complianceSchedule }, reportsRegenerated: regenerated },
    });
    await notifyOrganization(
      tx,
      p,
      district,
      "industrial.modified",
      `Discharge permit ${p.permitNumber} modified from ${formatDate(m.effectiveOn)}`,
      `The modification of your wastewater discharge permit ${p.permitNumber} is in effect from ${formatDate(m.effectiveOn)}:\n${changeSummary(m)}\n\nResults entered from now on are judged against the permit as modified.`,
      publicUrl,
    );
    return true;
  });
}

async function regenerateReports(tx: EntityManager, p: PermitRow, months: number[], from: CalendarDate, district: Awaited<ReturnType<typeof loadDistrict>>, publicUrl: string): Promise<number> {
  const rows: { id: string; status: string; started_at: Date | null; s: string; e: string }[] = await tx.query(
    `SELECT id, status, started_at, period_start::text AS s, period_end::text AS e FROM industrial_report
      WHERE permit_id = $1 AND kind = 'PERIODIC' AND amends_id IS NULL ORDER BY period_start`,
    [p.id],
  );
  const touched = rows.filter((r) => r.status !== "DUE" || r.started_at).map((r) => r.e).sort().at(-1) ?? "";
  const drop = rows.filter((r) => r.status === "DUE" && !r.started_at && r.e >= from && r.s > touched);
  if (!drop.length) return 0;
  await tx.query(`DELETE FROM industrial_report WHERE id = ANY($1::uuid[]) AND status = 'DUE' AND started_at IS NULL`, [drop.map((r) => r.id)]);
  const kept = rows.filter((r) => !drop.includes(r)).map((r) => r.e).sort().at(-1);
  const start = kept ? addCalendarDays(kept, 1) : p.effectiveOn!;
  const periods = start <= p.expiresOn! ? reportPeriods(months, start, p.expiresOn!) : [];
  await createReports(tx, p.id, periods, district, publicUrl);
  return periods.length;
}

registerJobHandler(MODIFICATION_JOB, async (ds, payload: { modificationId: string; publicUrl?: string }, _log, job) => {
  await applyModification(ds, payload.modificationId, payload.publicUrl ?? "", job);
});

// ---------------------------------------------------------------------------------------------
// Reissuance (SUL 1004 E) and a change of owner, user, premises or operation (1004 F)

/** A new draft application copied from a permit: the same items of SUL 1004 A, linked to it. */
async function copyApplication(
  tx: EntityManager,
  viewer: Viewer,
  p: PermitRow,
  target: { organizationId: string; relation: "REISSUANCE" | "CHANGE"; reissuanceDueOn?: string | null; change?: { kind: string; on: string; description: string } },
): Promise<string> {
  const sameOrg = target.organizationId === p.organizationId;
  const keys = Object.keys(COLUMNS);
  // trade-secret text stays with its organization (SUL 1014): another organization starts without it
  const value = (k: string) => {
    const v = (p as any)[k];
    if (!sameOrg && p.tradeSecretFields.includes(k)) return JSON_COLUMNS.has(k) || k === "products" || k === "rawMaterials" ? "[]" : null;
    if (k === "tradeSecretFields") return sameOrg ? v : [];
    return JSON_COLUMNS.has(k) ? JSON.stringify(v) : v;
  };
  const now = clock.now();
  const base = [p.districtId, target.organizationId, viewer.userId, now, p.id, target.relation, target.reissuanceDueOn ?? null, target.change?.kind ?? null, target.change?.on ?? null, target.change?.description ?? null, p.conditions];
  const [row] = await tx.query(
    `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, created_at, updated_at, previous_permit_id, previous_relation, reissuance_due_on, change_kind, change_on, change_description, conditions, ${keys.map((k) => COLUMNS[k]).join(", ")})
     VALUES ($1, $2, $3, 'DRAFT', $4, $4, $5, $6, $7, $8, $9, $10, $11, ${keys.map((_, i) => `$${i + base.length + 1}`).join(", ")}) RETURNING id`,
    [...base, ...keys.map(value)],
  );
  // the plans and lab report go along only within the same organization (documents are its members')
  if (sameOrg) await tx.query(`INSERT INTO industrial_permit_document (permit_id, document_id, kind) SELECT $1, document_id, kind FROM industrial_permit_document WHERE permit_id = $2`, [row.id, p.id]);
  return row.id;
}

async function openFollower(tx: EntityManager, permitId: string, relation: "REISSUANCE" | "CHANGE"): Promise<{ id: string; status: string } | null> {
  const [r] = await tx.query(`SELECT id, status FROM industrial_permit WHERE previous_permit_id = $1 AND previous_relation = $2 AND status <> 'WITHDRAWN' ORDER BY created_at DESC LIMIT 1`, [
    permitId,
    relation,
  ]);
  return r ?? null;
}

/**
 * SUL 1004 E: the owner or Authorized Representative applies to reissue an issued permit. The new
 * application starts as a draft copied from the permit and goes through submission, fee, notice
 * and issuance like any other; one open reissuance per permit.
 */
export async function startReissuance(ds: DataSource, viewer: Viewer, permitId: string, requestId?: string): Promise<PermitRow> {
  return ds.transaction(async (tx) => {
    const { p } = await editablePermit(tx, viewer, permitId, "apply for the permit's reissuance");
    requireStatus(p, ["ISSUED"], "Only an issued permit is reissued");
    if (p.supersededById) throw conflict(`Permit ${p.permitNumber} ends on ${formatDate(p.supersededOn!)}: a new permit was issued for the change reported (Sewer Use Law 1004 F).`);
    const open = await openFollower(tx, p.id, "REISSUANCE");
    if (open) throw conflict(`A reissuance application for permit ${p.permitNumber} is already open (${open.status === "ISSUED" ? "issued" : open.status.toLowerCase().replace("_", " ")}); continue it instead.`);
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const days = rb.require("industrial.reissuanceApplicationDays");
    const dueOn = addCalendarDays(p.expiresOn!, -days.value);
    const id = await copyApplication(tx, viewer, p, { organizationId: p.organizationId, relation: "REISSUANCE", reissuanceDueOn: dueOn });
    await audit(tx, actorOf(viewer, requestId), {
      action: "industrial.reissuance_started",
      entityType: "IndustrialPermit",
      entityId: id,
      districtId: p.districtId,
      details: { previousPermitId: p.id, previousPermitNumber: p.permitNumber, dueOn, expiresOn: p.expiresOn },
    });
    return (await loadPermit(tx, id))!;
  });
}

export type ChangeInput = { permitId: string; kind: string; changeOn: string; description: string; organizationId?: string | null };

/**
 * SUL 1004 F: the permittee reports a change of owner, user, premises or operation. The permit is
 * not transferred: a new application starts as a draft for the organization that will hold the
 * new permit (its owner or Authorized Representative reports it; it may be the same organization
 * for new premises or a changed operation), copied from the permit and linked to it. When the new
 * permit is issued the old one ends (SUPERSEDED).
 */
export async function reportChange(ds: DataSource, viewer: Viewer, input: ChangeInput, requestId?: string): Promise<PermitRow> {
  const f: Record<string, string> = {};
  if (!(input.kind in CHANGE_KINDS)) f.kind = "Choose what changes: owner, user, premises or operation (Sewer Use Law 1004 F).";
  if (!isCalendarDate(input.changeOn ?? "")) f.changeOn = "Give the date of the change, like 2027-03-01.";
  const description = (input.description ?? "").trim();
  if (!description) f.description = "Describe the change: who or what is new.";
  else if (description.length > 4000) f.description = "Use at most 4,000 characters.";
  const orgId = clean(input.organizationId);
  if (orgId && !isUuid(orgId)) f.organizationId = "Choose the organization that will hold the new permit.";
  if (Object.keys(f).length) throw badInput(f);
  return ds.transaction(async (tx) => {
    const { p } = await editablePermit(tx, viewer, input.permitId, "report a change of the permit's owner, user, premises or operation");
    requireStatus(p, ["ISSUED"], "A change is reported for an issued permit");
    const target = orgId ?? p.organizationId;
    if (target !== p.organizationId) {
      const [m] = await tx.query(`SELECT m.role, o.kind FROM membership m JOIN organization o ON o.id = m.organization_id WHERE m.organization_id = $1 AND m.user_id = $2`, [target, viewer.userId]);
      if (!m) throw notFound("That organization");
      if (m.role === "MEMBER") throw forbidden("Only the owner or Authorized Representative of the organization that will hold the new permit can apply for it.");
      if (m.kind !== "INDUSTRIAL_USER") throw badInput({ organizationId: "Only an organization registered as an industrial user holds a discharge permit." });
    }
    const open = await openFollower(tx, p.id, "CHANGE");
    if (open) throw conflict(`A new-permit application for a change of permit ${p.permitNumber} is already open; continue it or withdraw it first.`);
    const id = await copyApplication(tx, viewer, p, { organizationId: target, relation: "CHANGE", change: { kind: input.kind, on: input.changeOn, description } });
    await audit(tx, actorOf(viewer, requestId), {
      action: "industrial.change_reported",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: description,
      details: { kind: input.kind, changeOn: input.changeOn, newApplicationId: id, organizationId: target },
    });
    return (await loadPermit(tx, id))!;
  });
}

/** Applications and permits that follow a permit (reissuance, change), for its organization and staff. */
export async function followersOf(db: Db, permitIds: readonly string[]): Promise<PermitRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_permit WHERE previous_permit_id = ANY($1::uuid[]) ORDER BY created_at`, [permitIds]);
  return rows.map((r: any) => rowOf<PermitRow>(r));
}


import type { DataSource } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { pageSize } from "../common/paging.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { claimsOf, type ClaimRow } from "./acceptance.service.js";
import { emailMembers } from "./charges.service.js";
import { actorOf, clean, getExtension, loadDistrict, requireOperator, requireStatus, type Db } from "./common.js";
import { num } from "./rules.js";

/**
 * The District Operator's plan of inspections (SUL 502 A) and the district's guarantees ending
 * (507). 502 A has the Operator told 30 days ahead "so that such inspection frequencies and
 * procedures as may be necessary or required, may be established", and the installation "subject
 * to periodic inspection by the District Operator, without prior notice": a plan is the staff's
 * own, never shown or sent to the developer (docs/decisions/extension-inspection-plans.md). The
 * inspection recorded with its findings closes it.
 */

const MAX_SCOPE = 1000;

export type PlanRow = {
  id: string;
  extensionId: string;
  extensionName: string;
  organizationName: string;
  plannedOn: string;
  scope: string;
  plannedByName: string;
  plannedAt: Date;
  inspectionId: string | null;
  inspectedOn: string | null;
  cancelledOn: string | null;
  cancellationReason: string | null;
  cancelledByName: string | null;
};

const PLAN_COLUMNS = `p.id, p.extension_id AS "extensionId", e.name AS "extensionName", o.name AS "organizationName", to_char(p.planned_on, 'YYYY-MM-DD') AS "plannedOn", p.scope,
  u.display_name AS "plannedByName", p.planned_at AS "plannedAt", p.inspection_id AS "inspectionId", to_char(i.inspected_on, 'YYYY-MM-DD') AS "inspectedOn",
  to_char(p.cancelled_on, 'YYYY-MM-DD') AS "cancelledOn", p.cancellation_reason AS "cancellationReason", cu.display_name AS "cancelledByName"`;
const PLAN_FROM = `extension_inspection_plan p JOIN sewer_extension e ON e.id = p.extension_id JOIN organization o ON o.id = e.organization_id
  JOIN app_user u ON u.id = p.planned_by_id LEFT JOIN extension_inspection i ON i.id = p.inspection_id
  LEFT JOIN app_user cu ON cu.id = p.cancelled_by_id`;

/** Every plan of these extensions (open and closed), by planned day (one query; index extension_inspection_plan_extension). */
export async function plansOf(db: Db, extensionIds: readonly string[]): Promise<PlanRow[]> {
  if (!extensionIds.length) return [];
  return db.query(`SELECT ${PLAN_COLUMNS} FROM ${PLAN_FROM} WHERE p.extension_id = ANY($1::uuid[]) ORDER BY p.extension_id, p.planned_on, p.planned_at`, [extensionIds]);
}

/** The district's open plans, earliest first (its staff; index extension_inspection_plan_open). */
export async function openPlans(ds: DataSource, viewer: Viewer, districtId: string, first?: number | null): Promise<PlanRow[]> {
  if (!isUuid(districtId) || !isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  return ds.query(`SELECT ${PLAN_COLUMNS} FROM ${PLAN_FROM} WHERE p.district_id = $1 AND p.inspection_id IS NULL AND p.cancelled_on IS NULL ORDER BY p.planned_on, p.id LIMIT $2`, [
    districtId,
    pageSize(first, 100, 200),
  ]);
}

/**
 * The District Operator plans an inspection of an approved extension under construction: the day
 * (today or later) and what to look at. Audited; nobody outside the district's staff is told.
 */
export async function planInspection(ds: DataSource, viewer: Viewer, input: { extensionId: string; plannedOn: string; scope: string }, requestId?: string): Promise<PlanRow> {
  const fields: Record<string, string> = {};
  if (!isCalendarDate(input.plannedOn ?? "")) fields.plannedOn = "Use a date like 2027-03-15.";
  const scope = clean(input.scope);
  if (!scope || scope.length > MAX_SCOPE) fields.scope = `Say what the inspection looks at (up to ${num(MAX_SCOPE)} characters), for example "Bedding and backfill, Aster Court".`;
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["APPROVED"], "Inspections are planned while the approved sewer is built, until it is accepted");
    const district = await loadDistrict(tx, e.districtId);
    if (!fields.plannedOn && input.plannedOn < dateIn(district.timeZone)) fields.plannedOn = "A planned inspection is today or later; record one already made with its findings.";
    if (Object.keys(fields).length) throw badInput(fields);
    const [{ id }] = await tx.query(
      `INSERT INTO extension_inspection_plan (extension_id, district_id, planned_on, scope, planned_by_id) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [e.id, e.districtId, input.plannedOn, scope, viewer.userId],
    );
    await audit(tx, actorOf(viewer, requestId), { action: "extension.inspection_planned", entityType: "SewerExtension", entityId: e.id, districtId: e.districtId, details: { planId: id, plannedOn: input.plannedOn } });
    return (await plansOf(tx, [e.id])).find((p) => p.id === id)!;
  });
}

/**
 * The open plan, locked, with its extension, for the District Operator of its district. The
 * extension is locked first, then the plan, as recording findings does (no deadlock between them).
 */
async function openPlanForChange(tx: Db, viewer: Viewer, planId: string) {
  const [found] = isUuid(planId ?? "") ? await tx.query(`SELECT extension_id AS "extensionId" FROM extension_inspection_plan WHERE id = $1`, [planId]) : [];
  if (!found) throw badInput({ planId: "Choose a planned inspection of this sewer extension." });
  const e = await getExtension(tx, viewer, found.extensionId, true);
  requireOperator(viewer, e.districtId);
  const [plan] = await tx.query(`SELECT id, to_char(planned_on, 'YYYY-MM-DD') AS "plannedOn", inspection_id, cancelled_on FROM extension_inspection_plan WHERE id = $1 FOR UPDATE`, [planId]);
  if (plan.inspection_id) throw conflict("That planned inspection is already closed by recorded findings.");
  if (plan.cancelled_on) throw conflict("That planned inspection is already cancelled.");
  return { plan: plan as { id: string; plannedOn: string }, e };
}

function reasonOf(input: { reason?: string | null }, fields: Record<string, string>): string {
  const reason = clean(input.reason) ?? "";
  if (!reason || reason.length > MAX_SCOPE) fields.reason = `Say why, for the record (up to ${num(MAX_SCOPE)} characters), for example "Rain: trench flooded".`;
  return reason;
}

/**
 * The District Operator moves a planned inspection to another day (today or later), with the reason.
 * Still the staff's own (502 A, without prior notice): the developer is not told. Audited with both days.
 */
export async function movePlan(ds: DataSource, viewer: Viewer, input: { planId: string; plannedOn: string; reason: string }, requestId?: string): Promise<PlanRow> {
  const fields: Record<string, string> = {};
  if (!isCalendarDate(input.plannedOn ?? "")) fields.plannedOn = "Use a date like 2027-03-15.";
  const reason = reasonOf(input, fields);
  return ds.transaction(async (tx) => {
    const { plan, e } = await openPlanForChange(tx, viewer, input.planId);
    requireStatus(e, ["APPROVED"], "Inspections are planned while the approved sewer is built, until it is accepted");
    const district = await loadDistrict(tx, e.districtId);
    if (!fields.plannedOn && input.plannedOn < dateIn(district.timeZone)) fields.plannedOn = "A planned inspection is today or later.";
    else if (!fields.plannedOn && input.plannedOn === plan.plannedOn) fields.plannedOn = `It is already planned for ${formatDate(plan.plannedOn)}: choose another day.`;
    if (Object.keys(fields).length) throw badInput(fields);
    await tx.query(`UPDATE extension_inspection_plan SET planned_on = $2 WHERE id = $1`, [plan.id, input.plannedOn]);
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.inspection_plan_moved",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { planId: plan.id, from: plan.plannedOn, to: input.plannedOn, reason },
    });
    return (await plansOf(tx, [e.id])).find((p) => p.id === plan.id)!;
  });
}

/**
 * The District Operator cancels a planned inspection, with the reason. It stays on the sewer's
 * record, marked cancelled, and leaves the open list; nobody outside the staff is told. Audited.
 */
export async function cancelPlan(ds: DataSource, viewer: Viewer, input: { planId: string; reason: string }, requestId?: string): Promise<PlanRow> {
  const fields: Record<string, string> = {};
  const reason = reasonOf(input, fields);
  return ds.transaction(async (tx) => {
    const { plan, e } = await openPlanForChange(tx, viewer, input.planId);
    if (Object.keys(fields).length) throw badInput(fields);
    const district = await loadDistrict(tx, e.districtId);
    const today = dateIn(district.timeZone);
    await tx.query(`UPDATE extension_inspection_plan SET cancelled_on = $2, cancellation_reason = $3, cancelled_by_id = $4 WHERE id = $1`, [plan.id, today, reason, viewer.userId]);
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.inspection_plan_cancelled",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { planId: plan.id, plannedOn: plan.plannedOn, reason },
    });
    return (await plansOf(tx, [e.id])).find((p) => p.id === plan.id)!;
  });
}

// ---------------------------------------------------------------------------------------------
// Guarantees ending (507)

export type ExpiringRow = { extensionId: string; name: string; organizationName: string; acceptedOn: string; guaranteeEndsOn: string; openClaims: number; daysLeft: number };

/**
 * The district's guarantees ending within its reminder days (`extension.guaranteeReminderDays`, the
 * last day included) and those already ended with a claim not yet remedied, by last day. One
 * statement over two index scans (sewer_extension_district_guarantee; guarantee_claim_open).
 */
export async function expiringGuarantees(ds: DataSource, viewer: Viewer, districtId: string, on?: CalendarDate): Promise<ExpiringRow[]> {
  if (!isUuid(districtId) || !isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  const district = await loadDistrict(ds, districtId);
  const today = on ?? dateIn(district.timeZone);
  const rb = await rulebookOn(ds, district, today);
  const lead = rb.has("extension.guaranteeReminderDays") ? rb.entry("extension.guaranteeReminderDays").value : null;
  const until = addCalendarDays(today, typeof lead === "number" ? lead : 0);
  const rows: Omit<ExpiringRow, "daysLeft">[] = await ds.query(
    `WITH picked AS (
       SELECT e.id FROM sewer_extension e WHERE e.district_id = $1 AND e.status = 'ACCEPTED' AND e.guarantee_ends_on >= $2 AND e.guarantee_ends_on <= $3
       UNION
       SELECT e.id FROM guarantee_claim c JOIN sewer_extension e ON e.id = c.extension_id
        WHERE c.remedied_on IS NULL AND e.district_id = $1 AND e.status = 'ACCEPTED' AND e.guarantee_ends_on < $2)
     SELECT e.id AS "extensionId", e.name, o.name AS "organizationName", to_char(e.accepted_on, 'YYYY-MM-DD') AS "acceptedOn",
            to_char(e.guarantee_ends_on, 'YYYY-MM-DD') AS "guaranteeEndsOn",
            (SELECT count(*)::int FROM guarantee_claim c WHERE c.extension_id = e.id AND c.remedied_on IS NULL) AS "openClaims"
       FROM picked JOIN sewer_extension e ON e.id = picked.id JOIN organization o ON o.id = e.organization_id
      ORDER BY e.guarantee_ends_on, e.id`,
    [districtId, today, until],
  );
  return rows.map((r) => ({ ...r, daysLeft: daysBetween(today, r.guaranteeEndsOn) }));
}

/** The District Operator records that a defect claimed under the guarantee was remedied; the developer is told. */
export async function remedyClaim(ds: DataSource, viewer: Viewer, input: { claimId: string; remediedOn: string; remedy: string }, requestId?: string): Promise<ClaimRow> {
  const fields: Record<string, string> = {};
  if (!isCalendarDate(input.remediedOn ?? "")) fields.remediedOn = "Use a date like 2027-03-15.";
  const remedy = (input.remedy ?? "").trim();
  if (!remedy || remedy.length > 4000) fields.remedy = "Say how the defect was remedied (up to 4,000 characters).";
  return ds.transaction(async (tx) => {
    const [claim] = isUuid(input.claimId)
      ? await tx.query(`SELECT id, extension_id AS "extensionId", to_char(noticed_on, 'YYYY-MM-DD') AS "noticedOn", remedied_on FROM guarantee_claim WHERE id = $1 FOR UPDATE`, [input.claimId])
      : [];
    if (!claim) throw badInput({ claimId: "Choose a claim of this sewer." });
    const e = await getExtension(tx, viewer, claim.extensionId);
    requireOperator(viewer, e.districtId);
    if (claim.remedied_on) throw conflict("That defect is already recorded as remedied.");
    const district = await loadDistrict(tx, e.districtId);
    if (!fields.remediedOn && input.remediedOn > dateIn(district.timeZone)) fields.remediedOn = "The day cannot be after today.";
    else if (!fields.remediedOn && input.remediedOn < claim.noticedOn) fields.remediedOn = `The defect was found on ${formatDate(claim.noticedOn)}: it is remedied that day or later.`;
    if (Object.keys(fields).length) throw badInput(fields);
    await tx.query(`UPDATE guarantee_claim SET remedied_on = $2, remedy = $3, remedied_by_id = $4 WHERE id = $1`, [claim.id, input.remediedOn, remedy, viewer.userId]);
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.guarantee_claim_remedied",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { claimId: claim.id, remediedOn: input.remediedOn },
    });
    await emailMembers(
      tx,
      e,
      "extension.guarantee_claim_remedied",
      `Defect remedied: ${e.name}`,
      `The ${district.operatorTitle} recorded the defect found on ${formatDate(claim.noticedOn)} in the sewer extension ${e.name} as remedied on ${formatDate(input.remediedOn)} (${district.citationPrefix} 507):\n\n${remedy}`,
    );
    return (await claimsOf(tx, [e.id])).find((c) => c.id === claim.id)!;
  });
}

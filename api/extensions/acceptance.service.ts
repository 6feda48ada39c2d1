import type { DataSource } from "typeorm";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import { districtsWhere, rulebookOn } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { staffOf } from "../staff/staff-of.js";
import { CHARGE_LABELS, chargesOf, emailMembers } from "./charges.service.js";
import { actorOf, clean, getExtension, lawProvidingExtensions, loadDistrict, requireOperator, requireStatus, type Db, type ExtensionRow } from "./common.js";
import { acceptanceProblems, asBuiltProblem, guaranteeLastDay, num } from "./rules.js";
import { isUuid } from "../documents/documents.service.js";
import { connectionProblem } from "./tests.service.js";

/**
 * Construction and acceptance of a sewer extension: the District Operator's periodic inspections
 * without prior notice, their findings reported to the Town Board (SUL 502 A); the as-built drawings
 * filed and approved, the Operator's final approval and acceptance, the Town Board's concurrence by
 * resolution, after which the sewer is the Town's and the applicant's one-year guarantee runs,
 * secured by a surety bond or other security the Board approves (507); claims under the guarantee;
 * the reminder before it ends.
 */

const MAX_TEXT = 4000;

// ---------------------------------------------------------------------------------------------
// Inspections (502 A)

export type InspectionRow = { id: string; extensionId: string; inspectedOn: string; conforms: boolean; findings: string; excavationRequired: boolean; inspectorName: string; recordedAt: Date };

/** The inspections of these extensions, oldest first (one query). */
export async function inspectionsOf(db: Db, extensionIds: readonly string[]): Promise<InspectionRow[]> {
  if (!extensionIds.length) return [];
  return db.query(
    `SELECT i.id, i.extension_id AS "extensionId", to_char(i.inspected_on, 'YYYY-MM-DD') AS "inspectedOn", i.conforms, i.findings, i.excavation_required AS "excavationRequired",
            u.display_name AS "inspectorName", i.recorded_at AS "recordedAt"
       FROM extension_inspection i JOIN app_user u ON u.id = i.inspector_id WHERE i.extension_id = ANY($1::uuid[]) ORDER BY i.extension_id, i.inspected_on, i.recorded_at`,
    [extensionIds],
  );
}

/** `planId`: the planned inspection (plans.service.ts) these findings close, if any. */
export type InspectionInput = { extensionId: string; inspectedOn: string; conforms: boolean; findings: string; excavationRequired?: boolean | null; planId?: string | null };

/**
 * The District Operator records an inspection made without prior notice (the developer is told of
 * its findings once recorded, never ahead) and whether the work is proceeding in accordance with the
 * approved plans and specifications; the findings go to the Town Board at once (502 A).
 */
export async function recordInspection(ds: DataSource, viewer: Viewer, input: InspectionInput, requestId?: string): Promise<InspectionRow> {
  const fields: Record<string, string> = {};
  if (!isCalendarDate(input.inspectedOn ?? "")) fields.inspectedOn = "Use a date like 2027-03-15.";
  const findings = (input.findings ?? "").trim();
  if (!findings || findings.length > MAX_TEXT) fields.findings = `Write the findings (up to ${num(MAX_TEXT)} characters): the Town Board reads them.`;
  if (typeof input.conforms !== "boolean") fields.conforms = "Say whether the work is proceeding in accordance with the approved plans and specifications.";
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["APPROVED"], "Construction is inspected once the extension is approved and until it is accepted");
    const district = await loadDistrict(tx, e.districtId);
    if (!fields.inspectedOn && input.inspectedOn > dateIn(district.timeZone)) fields.inspectedOn = "An inspection is recorded once made: the day cannot be after today.";
    if (input.planId) {
      const [plan] = isUuid(input.planId) ? await tx.query(`SELECT inspection_id, cancelled_on FROM extension_inspection_plan WHERE id = $1 AND extension_id = $2 FOR UPDATE`, [input.planId, e.id]) : [];
      if (!plan) fields.planId = "Choose a planned inspection of this sewer extension, or none.";
      else if (plan.inspection_id) fields.planId = "That planned inspection is already closed by recorded findings.";
      else if (plan.cancelled_on) fields.planId = "That planned inspection was cancelled: choose another, or none.";
    }
    if (Object.keys(fields).length) throw badInput(fields);
    const [{ id }] = await tx.query(
      `INSERT INTO extension_inspection (extension_id, inspected_on, conforms, findings, excavation_required, inspector_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [e.id, input.inspectedOn, input.conforms, findings, input.excavationRequired === true, viewer.userId],
    );
    if (input.planId) await tx.query(`UPDATE extension_inspection_plan SET inspection_id = $2 WHERE id = $1`, [input.planId, id]);
    const section = `${district.citationPrefix} 502 A`;
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.inspected",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { inspectionId: id, inspectedOn: input.inspectedOn, conforms: input.conforms, excavationRequired: input.excavationRequired === true, planId: input.planId || null },
    });
    const verdict = input.conforms ? "The work is proceeding in accordance with the approved plans and specifications." : "The work is NOT proceeding in accordance with the approved plans and specifications.";
    const excavation = input.excavationRequired ? `\nExcavation is required to inspect facilities covered before they were inspected (${section}).` : "";
    const board = await staffOf(tx, e.districtId, "BOARD");
    await enqueueEmails(
      tx,
      board.map((b) => ({
        to: b.email,
        recipientId: b.id,
        districtId: e.districtId,
        kind: "extension.inspection_report",
        subject: `Inspection findings, sewer extension ${e.name}`,
        body: `Hello ${b.display_name},\n\nThe ${district.operatorTitle} reports the findings of the inspection of ${formatDate(input.inspectedOn)} of the sewer extension ${e.name} (${e.organizationName}), as ${section} asks.\n\n${verdict}${excavation}\n\nFindings:\n${findings}\n\n${district.name}\n`,
      })),
    );
    await emailMembers(tx, e, "extension.inspection_findings", `Inspection findings: ${e.name}`, `The ${district.operatorTitle} inspected the sewer extension ${e.name} on ${formatDate(input.inspectedOn)} (${section}).\n\n${verdict}${excavation}\n\nFindings:\n${findings}`);
    return (await inspectionsOf(tx, [e.id])).find((i) => i.id === id)!;
  });
}

// ---------------------------------------------------------------------------------------------
// As-built drawings and the District Operator's final approval (507)

/** The Operator approves the as-built drawings filed in the portal, with the paper copies filed (four, 507). */
export async function approveAsBuilt(ds: DataSource, viewer: Viewer, input: { extensionId: string; copiesFiled: number }, requestId?: string): Promise<ExtensionRow> {
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["APPROVED"], "As-built drawings are approved before the sewer is accepted");
    if (e.asBuiltApprovedAt) throw conflict("The as-built drawings are already approved.");
    const district = await loadDistrict(tx, e.districtId);
    const rb = await lawProvidingExtensions(tx, district);
    if (!Number.isInteger(input.copiesFiled) || input.copiesFiled < 0 || input.copiesFiled > 100) throw badInput({ copiesFiled: "Enter how many paper copies were filed." });
    const problem = asBuiltProblem(rb, input.copiesFiled);
    if (problem) throw badInput({ copiesFiled: problem }, problem);
    const [doc] = await tx.query(`SELECT 1 FROM sewer_extension_document WHERE extension_id = $1 AND kind = 'AS_BUILT'`, [e.id]);
    if (!doc) throw conflict(`The developer has not filed the as-built drawings in the portal yet (${district.citationPrefix} 507).`);
    await tx.query(`UPDATE sewer_extension SET as_built_copies = $2, as_built_approved_at = now(), as_built_approved_by_id = $3 WHERE id = $1`, [e.id, input.copiesFiled, viewer.userId]);
    await audit(tx, actorOf(viewer, requestId), { action: "extension.as_built_approved", entityType: "SewerExtension", entityId: e.id, districtId: e.districtId, details: { copiesFiled: input.copiesFiled } });
    await emailMembers(tx, e, "extension.as_built_approved", `As-built drawings approved: ${e.name}`, `The ${district.operatorTitle} approved the as-built drawings of the sewer extension ${e.name} (${district.citationPrefix} 507).`);
    return getExtension(tx, viewer, e.id);
  });
}

/** What the Operator's final approval waits for, on the rows as they are now. */
export async function acceptanceStanding(db: Db, e: ExtensionRow, prefix: string): Promise<string[]> {
  const [testsProblem, inspections, charges] = await Promise.all([connectionProblem(db, e.id), inspectionsOf(db, [e.id]), chargesOf(db, [e.id])]);
  return acceptanceProblems(prefix, {
    testsProblem,
    asBuiltApproved: !!e.asBuiltApprovedAt,
    inspections,
    unpaidCharges: charges.filter((c) => !c.paidAt).map((c) => CHARGE_LABELS[c.kind].split(" of ")[0]),
  });
}

/**
 * The District Operator's final approval and acceptance (507): every section passed (502 A), the
 * as-built drawings approved, construction inspected with the latest inspection in accordance with
 * the plans (502 A: "No new sanitary sewers will be accepted ... until such construction inspections
 * have been made"), and the Board's charges paid. Then it waits for the Town Board's concurrence.
 */
export async function finalApprove(ds: DataSource, viewer: Viewer, input: { extensionId: string }, requestId?: string): Promise<ExtensionRow> {
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["APPROVED"], "Only an approved extension is accepted");
    if (e.finalApprovedAt) throw conflict("The District Operator has already given final approval; the Town Board's concurrence is awaited.");
    const district = await loadDistrict(tx, e.districtId);
    const problems = await acceptanceStanding(tx, e, district.citationPrefix);
    if (problems.length) throw conflict(`Not yet: ${problems.join(" ")}`);
    await tx.query(`UPDATE sewer_extension SET final_approved_at = now(), final_approved_by_id = $2 WHERE id = $1`, [e.id, viewer.userId]);
    await audit(tx, actorOf(viewer, requestId), { action: "extension.final_approved", entityType: "SewerExtension", entityId: e.id, districtId: e.districtId });
    const board = [...(await staffOf(tx, e.districtId, "BOARD")), ...(await staffOf(tx, e.districtId, "ADMIN"))];
    const seen = new Set<string>();
    await enqueueEmails(
      tx,
      board
        .filter((b) => !seen.has(b.id) && seen.add(b.id))
        .map((b) => ({
          to: b.email,
          recipientId: b.id,
          districtId: e.districtId,
          kind: "extension.awaiting_board",
          subject: `Sewer extension for the Town Board's acceptance: ${e.name}`,
          body: `Hello ${b.display_name},\n\nThe ${district.operatorTitle} gave final approval and acceptance of the sewer extension ${e.name} (${e.organizationName}): every section passed its tests, the as-built drawings are approved and construction was inspected. It becomes the Town's with the Town Board's concurrence (${district.citationPrefix} 507); the ADMIN enters the resolution with the guarantee's security in the portal.\n\n${district.name}\n`,
        })),
    );
    return getExtension(tx, viewer, e.id);
  });
}

// ---------------------------------------------------------------------------------------------
// The Town Board's concurrence and the guarantee (507)

export type AcceptanceInput = {
  extensionId: string;
  resolutionNumber: string;
  acceptedOn: string;
  securityKind: string;
  suretyName?: string | null;
  bondNumber?: string | null;
  amountCents?: number | null;
  expiresOn?: string | null;
  description?: string | null;
};

/**
 * The ADMIN enters the Town Board's concurrence by resolution: the sewer becomes the Town's on the
 * resolution's day, and the guarantee runs for the law's year from it, secured by a surety bond
 * (surety, bond number, amount, expiry) or other security the Board approved (described). The
 * security must last the whole guarantee.
 */
export async function recordAcceptance(ds: DataSource, viewer: Viewer, input: AcceptanceInput, requestId?: string): Promise<ExtensionRow> {
  const fields: Record<string, string> = {};
  const resolution = clean(input.resolutionNumber);
  if (!resolution || resolution.length > 60) fields.resolutionNumber = "Give the resolution's number (up to 60 characters).";
  if (!isCalendarDate(input.acceptedOn ?? "")) fields.acceptedOn = "Use a date like 2027-03-15.";
  const kind = input.securityKind;
  if (kind !== "SURETY_BOND" && kind !== "OTHER") fields.securityKind = "Choose a surety bond or other security the Town Board approved.";
  const surety = clean(input.suretyName);
  const bond = clean(input.bondNumber);
  const description = clean(input.description);
  const amount = input.amountCents ?? null;
  if (amount !== null && (!Number.isSafeInteger(amount) || amount <= 0 || amount > 99_999_999_999)) fields.amountCents = "Enter the security's amount in cents.";
  if (input.expiresOn && !isCalendarDate(input.expiresOn)) fields.expiresOn = "Use a date like 2028-03-15.";
  if (kind === "SURETY_BOND") {
    if (!surety || surety.length > 200) fields.suretyName = "Name the surety company (up to 200 characters).";
    if (!bond || bond.length > 100) fields.bondNumber = "Give the bond's number (up to 100 characters).";
    if (amount === null && !fields.amountCents) fields.amountCents = "Enter the bond's amount.";
    if (!input.expiresOn && !fields.expiresOn) fields.expiresOn = "Enter the bond's expiry date.";
  } else if (kind === "OTHER" && (!description || description.length > 1000)) fields.description = "Describe the security the Town Board approved (up to 1,000 characters).";
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    if (!hasRole(viewer, "ADMIN", e.districtId)) throw forbidden("Only the district's ADMIN enters the Town Board's resolutions.");
    requireStatus(e, ["APPROVED"], "The Town Board concurs in an approved extension");
    const district = await loadDistrict(tx, e.districtId);
    if (!e.finalApprovedAt) throw conflict(`The District Operator's final approval and acceptance comes first (${district.citationPrefix} 507).`);
    const today = dateIn(district.timeZone);
    if (!fields.acceptedOn && input.acceptedOn > today) fields.acceptedOn = "The resolution's date cannot be after today.";
    if (!fields.acceptedOn && input.acceptedOn < dateIn(district.timeZone, e.finalApprovedAt)) fields.acceptedOn = "The Board concurs after the District Operator's final approval.";
    if (Object.keys(fields).length) throw badInput(fields);
    const rb = await rulebookOn(tx, district, input.acceptedOn);
    const guarantee = guaranteeLastDay(rb, input.acceptedOn);
    if (input.expiresOn && input.expiresOn < guarantee.date)
      throw badInput({ expiresOn: `The security must last the whole guarantee, through ${formatDate(guarantee.date)} (${guarantee.section}).` });
    await tx.query(
      `UPDATE sewer_extension SET status = 'ACCEPTED', accepted_on = $2, acceptance_resolution_number = $3, accepted_recorded_by_id = $4, guarantee_ends_on = $5,
         security_kind = $6, surety_name = $7, bond_number = $8, security_amount_cents = $9, security_expires_on = $10, security_description = $11 WHERE id = $1`,
      [e.id, input.acceptedOn, resolution, viewer.userId, guarantee.date, kind, kind === "SURETY_BOND" ? surety : null, kind === "SURETY_BOND" ? bond : null, amount, input.expiresOn || null, description],
    );
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.accepted",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { resolutionNumber: resolution, acceptedOn: input.acceptedOn, guaranteeEndsOn: guarantee.date, securityKind: kind, amountCents: amount, expiresOn: input.expiresOn || null },
    });
    await emailMembers(
      tx,
      e,
      "extension.accepted",
      `Accepted by the Town: ${e.name}`,
      `The Town Board concurred in the acceptance of the sewer extension ${e.name} (resolution ${resolution} of ${formatDate(input.acceptedOn)}): it is the Town's from that day (${guarantee.section}).\n\n` +
        `Your guarantee against defects in materials or workmanship runs through ${formatDate(guarantee.date)}, secured by ` +
        (kind === "SURETY_BOND" ? `surety bond ${bond} of ${surety}${amount ? ` for ${formatCents(amount)}` : ""}.` : `${description}.`),
    );
    return getExtension(tx, viewer, e.id);
  });
}

// ---------------------------------------------------------------------------------------------
// Claims under the guarantee

export type ClaimRow = { id: string; extensionId: string; noticedOn: string; defect: string; recordedAt: Date; remediedOn: string | null; remedy: string | null };

export async function claimsOf(db: Db, extensionIds: readonly string[]): Promise<ClaimRow[]> {
  if (!extensionIds.length) return [];
  return db.query(
    `SELECT id, extension_id AS "extensionId", to_char(noticed_on, 'YYYY-MM-DD') AS "noticedOn", defect, recorded_at AS "recordedAt",
            to_char(remedied_on, 'YYYY-MM-DD') AS "remediedOn", remedy
       FROM guarantee_claim WHERE extension_id = ANY($1::uuid[]) ORDER BY extension_id, noticed_on, recorded_at`,
    [extensionIds],
  );
}

/** The District Operator records a defect found while the guarantee runs (its last day included); the developer is told. */
export async function recordClaim(ds: DataSource, viewer: Viewer, input: { extensionId: string; noticedOn: string; defect: string }, requestId?: string): Promise<ClaimRow> {
  const fields: Record<string, string> = {};
  if (!isCalendarDate(input.noticedOn ?? "")) fields.noticedOn = "Use a date like 2027-03-15.";
  const defect = (input.defect ?? "").trim();
  if (!defect || defect.length > MAX_TEXT) fields.defect = `Describe the defect in materials or workmanship (up to ${num(MAX_TEXT)} characters).`;
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["ACCEPTED"], "A claim is made under the guarantee of an accepted sewer");
    const district = await loadDistrict(tx, e.districtId);
    if (!fields.noticedOn) {
      if (input.noticedOn > dateIn(district.timeZone)) fields.noticedOn = "The day the defect was found cannot be after today.";
      else if (input.noticedOn < e.acceptedOn!) fields.noticedOn = `The guarantee runs from the Town's acceptance on ${formatDate(e.acceptedOn!)}.`;
      else if (input.noticedOn > e.guaranteeEndsOn!) fields.noticedOn = `The guarantee ended on ${formatDate(e.guaranteeEndsOn!)} (${district.citationPrefix} 507).`;
    }
    if (Object.keys(fields).length) throw badInput(fields);
    const [{ id }] = await tx.query(`INSERT INTO guarantee_claim (extension_id, noticed_on, defect, recorded_by_id) VALUES ($1, $2, $3, $4) RETURNING id`, [e.id, input.noticedOn, defect, viewer.userId]);
    await audit(tx, actorOf(viewer, requestId), { action: "extension.guarantee_claim", entityType: "SewerExtension", entityId: e.id, districtId: e.districtId, details: { claimId: id, noticedOn: input.noticedOn } });
    await emailMembers(
      tx,
      e,
      "extension.guarantee_claim",
      `Defect under your guarantee: ${e.name}`,
      `The ${district.operatorTitle} found a defect in the sewer extension ${e.name} on ${formatDate(input.noticedOn)}, within your guarantee, which runs through ${formatDate(e.guaranteeEndsOn!)} (${district.citationPrefix} 507):\n\n${defect}`,
    );
    return (await claimsOf(tx, [e.id])).find((c) => c.id === id)!;
  });
}

// ---------------------------------------------------------------------------------------------
// The reminder before the guarantee ends (a daily job)

export const GUARANTEE_REMINDER_JOB = "extensions.guarantee-reminders";

/**
 * For each accepted sewer whose guarantee ends within the district's reminder days of `today` (its
 * last day included), one email to the District Operators and the developer's members, so defects
 * are found and claimed while it runs. Idempotent: the end date reminded of is recorded with the
 * emails, in one transaction. Returns how many sewers were reminded of.
 */
export async function sendGuaranteeReminders(ds: DataSource, today?: CalendarDate): Promise<number> {
  const districts = await districtsWhere(ds, `EXISTS (SELECT 1 FROM sewer_extension e WHERE e.district_id = d.id AND e.status = 'ACCEPTED')`);
  let reminded = 0;
  for (const district of districts) {
    const day = today ?? dateIn(district.timeZone);
    const rb = await rulebookOn(ds, district, day);
    if (!rb.has("extension.guaranteeReminderDays")) continue;
    const lead = rb.entry("extension.guaranteeReminderDays");
    if (typeof lead.value !== "number") continue;
    reminded += await ds.transaction(async (tx) => {
      const rows: { id: string; name: string; organizationId: string; guaranteeEndsOn: string }[] = (
        await tx.query(
          `UPDATE sewer_extension e SET guarantee_reminder_sent_for = e.guarantee_ends_on
            WHERE e.district_id = $1 AND e.status = 'ACCEPTED' AND e.guarantee_ends_on >= $2 AND e.guarantee_ends_on <= $3
              AND e.guarantee_reminder_sent_for IS DISTINCT FROM e.guarantee_ends_on
            RETURNING e.id, e.name, e.organization_id AS "organizationId", to_char(e.guarantee_ends_on, 'YYYY-MM-DD') AS "guaranteeEndsOn"`,
          [district.id, day, addCalendarDays(day, lead.value as number)],
        )
      )[0];
      if (!rows.length) return 0;
      const operators = await staffOf(tx, district.id, "OPERATOR");
      for (const r of rows) {
        const left = daysBetween(day, r.guaranteeEndsOn);
        const when = left === 0 ? `ends today, ${formatDate(r.guaranteeEndsOn)}` : `ends on ${formatDate(r.guaranteeEndsOn)}, in ${left} day${left === 1 ? "" : "s"}`;
        const text = `The one-year guarantee of the sewer extension ${r.name} against defects in materials or workmanship ${when} (${district.citationPrefix} 507). A defect found by then is claimed under it.`;
        await enqueueEmails(
          tx,
          operators.map((o) => ({
            to: o.email,
            recipientId: o.id,
            districtId: district.id,
            kind: "extension.guarantee_reminder",
            subject: `Guarantee ends soon: ${r.name}`,
            body: `Hello ${o.display_name},\n\n${text} Inspect it before then and record any defect in the portal.\n\n${district.name}\n`,
          })),
        );
        await emailMembers(tx, { organizationId: r.organizationId, districtId: district.id }, "extension.guarantee_reminder", `Guarantee ends soon: ${r.name}`, text);
        await audit(tx, { userId: null }, { action: "extension.guarantee_reminder_sent", entityType: "SewerExtension", entityId: r.id, districtId: district.id, details: { guaranteeEndsOn: r.guaranteeEndsOn } });
      }
      return rows.length;
    });
  }
  return reminded;
}

registerJobHandler(GUARANTEE_REMINDER_JOB, async (ds) => {
  await sendGuaranteeReminders(ds);
});


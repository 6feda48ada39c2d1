import { clock } from "../common/clock.js";
import { type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, endOfDay, formatDate, isCalendarDate, zonedInstant } from "../common/dates.js";
import { badInput, conflict, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { INSPECTION_KINDS, LateralInspection, LateralPermit, type InspectionKind } from "./lateral-permit.entity.js";
import { serviceFromConnection } from "../rents/connection.js";
import { FEE_CODES, INSPECTION_LABELS, inspectionName, nextRequiredKind, requiredInspections } from "./rules.js";
import { actorOf, clean, permitRulebook, getPermit, requireApplicant, requireOperator, requireStatus, loadDistrict, addressOf, notify } from "./common.js";
import { formatDateTime } from "../common/format.js";
import { lateralConnectionProblem } from "../extensions/laterals.service.js";

/** Inspections of the work (SUL 612-613; Huron III-10): requested by the applicant, scheduled and recorded by the District Operator. */

// ---------------------------------------------------------------------------------------------
// Inspections (SUL 612-613)

export async function inspectionsOf(ds: DataSource | EntityManager, permitIds: string[]): Promise<LateralInspection[]> {
  if (!permitIds.length) return [];
  return ds
    .getRepository(LateralInspection)
    .createQueryBuilder("i")
    .where("i.permit_id = ANY(:ids::uuid[])", { ids: permitIds })
    .orderBy("i.requested_at", "ASC")
    .addOrderBy("i.id", "ASC")
    .getMany();
}

export async function requestInspection(
  ds: DataSource,
  viewer: Viewer,
  input: { permitId: string; kind?: string | null; preferredOn?: string | null; notes?: string | null },
  meta: { requestId?: string; publicUrl: string },
): Promise<LateralInspection> {
  const fields: Record<string, string> = {};
  const notes = clean(input.notes);
  if (notes && notes.length > 2000) fields.notes = "Use at most 2,000 characters.";
  const asked = clean(input.kind);
  if (asked && !INSPECTION_KINDS.includes(asked as InspectionKind)) fields.kind = "Choose the trench, connection or leakage test inspection.";
  const preferredOn = clean(input.preferredOn);
  if (preferredOn && !isCalendarDate(preferredOn)) fields.preferredOn = "Enter the day you would like, like 2026-12-07.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, input.permitId, true);
    requireApplicant(viewer, p, "ask for an inspection");
    requireStatus(p, ["APPROVED"], "Inspections can be asked for once the permit is issued and until the connection is accepted");
    const district = await loadDistrict(tx, p.districtId);
    if (preferredOn && preferredOn < dateIn(district.timeZone)) throw badInput({ preferredOn: "Choose a day from today on." });
    const rb = await permitRulebook(tx, p, district);
    const required = requiredInspections(rb);
    const existing = await inspectionsOf(tx, [p.id]);
    // The work is inspected in its order (trench before backfill, then the connection, then the test):
    // only the first inspection not yet passed can be asked for.
    const due = nextRequiredKind(required.map((r) => r.kind), existing);
    const kind = (asked as InspectionKind | null) ?? due;
    if (!kind) throw conflict("Every inspection the permit needs has passed or is already asked for.");
    if (!required.some((r) => r.kind === kind))
      throw badInput({ kind: `The district's rulebook does not require a ${inspectionName(kind)} inspection for this permit.` });
    if (existing.some((i) => i.kind === kind && i.status === "PASSED")) throw conflict(`The ${inspectionName(kind)} inspection has already passed.`);
    if (existing.some((i) => i.kind === kind && (i.status === "REQUESTED" || i.status === "SCHEDULED")))
      throw conflict(`The ${inspectionName(kind)} inspection is already requested.`);
    if (kind !== due) throw conflict(`Ask for the ${inspectionName(due!)} inspection first: the ${inspectionName(kind)} inspection comes after it has passed.`);
    const row = await tx.save(tx.create(LateralInspection, { permitId: p.id, kind, status: "REQUESTED", requestedById: viewer.userId, applicantNotes: notes, preferredOn }));
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "lateral.inspection_requested",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { inspectionId: row.id, kind, preferredOn },
    });
    await notify(
      tx,
      p,
      district,
      "lateral.inspection_requested",
      `${INSPECTION_LABELS[kind]} requested: permit ${p.permitNumber}`,
      `We received your request for the ${INSPECTION_LABELS[kind].toLowerCase()} on permit ${p.permitNumber} (${addressOf(p)})${preferredOn ? `, preferably on ${formatDate(preferredOn)}` : ""}. The ${district.operatorTitle} will schedule it and tell you the date and time.${kind === "TRENCH" ? "\nDo not backfill the trench before it is inspected and approved." : ""}`,
      meta.publicUrl,
    );
    return row;
  });
}

async function loadInspection(tx: EntityManager, viewer: Viewer, inspectionId: string): Promise<{ i: LateralInspection; p: LateralPermit; district: District }> {
  if (!isUuid(inspectionId)) throw notFound("That inspection");
  const i = await tx.getRepository(LateralInspection).createQueryBuilder("i").setLock("pessimistic_write").where("i.id = :id", { id: inspectionId }).getOne();
  if (!i) throw notFound("That inspection");
  const p = await getPermit(tx, viewer, i.permitId, true).catch(() => {
    throw notFound("That inspection");
  });
  requireOperator(viewer, p.districtId);
  return { i, p, district: await loadDistrict(tx, p.districtId) };
}

const when = (d: Date, tz: string) => formatDateTime(d, tz, "full");

export async function scheduleInspection(
  ds: DataSource,
  viewer: Viewer,
  input: { inspectionId: string; scheduledFor: string; inspectorId?: string | null },
  meta: { requestId?: string; publicUrl: string },
): Promise<LateralInspection> {
  return ds.transaction(async (tx) => {
    const { i, p, district } = await loadInspection(tx, viewer, input.inspectionId);
    // A date and time as the district's clock reads it (or an ISO instant).
    const scheduledFor = zonedInstant(input.scheduledFor, district.timeZone);
    if (!scheduledFor) throw badInput({ scheduledFor: "Enter a date and time, like 2026-12-07 09:30." });
    if (scheduledFor.getTime() < clock.now().getTime() - 60 * 60 * 1000) throw badInput({ scheduledFor: "Choose a date and time that has not passed." });
    requireStatus(p, ["APPROVED"], "Inspections are scheduled only on an issued permit whose connection is not yet accepted");
    if (i.status !== "REQUESTED" && i.status !== "SCHEDULED") throw conflict("This inspection already has its result; the applicant asks for a new one.");
    const inspectorId = clean(input.inspectorId) ?? viewer.userId;
    if (inspectorId !== viewer.userId) {
      const ok = isUuid(inspectorId) && (await tx.query(`SELECT 1 FROM staff_role WHERE user_id = $1 AND district_id = $2 AND role = 'OPERATOR'`, [inspectorId, p.districtId])).length;
      if (!ok) throw badInput({ inspectorId: "Choose an operator of this district." });
    }
    const rescheduled = i.status === "SCHEDULED";
    i.status = "SCHEDULED";
    i.scheduledFor = scheduledFor;
    i.scheduledById = viewer.userId;
    i.inspectorId = inspectorId;
    await tx.save(i);
    await tx.update(LateralPermit, { id: p.id }, { updatedAt: clock.now() });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: rescheduled ? "lateral.inspection_rescheduled" : "lateral.inspection_scheduled",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { inspectionId: i.id, kind: i.kind, scheduledFor: scheduledFor.toISOString(), inspectorId },
    });
    await notify(
      tx,
      p,
      district,
      "lateral.inspection_scheduled",
      `${INSPECTION_LABELS[i.kind]} ${rescheduled ? "moved to" : "scheduled for"} ${dateIn(district.timeZone, scheduledFor)}: permit ${p.permitNumber}`,
      `The ${INSPECTION_LABELS[i.kind].toLowerCase()} on permit ${p.permitNumber} (${addressOf(p)}) is ${rescheduled ? "moved to" : "scheduled for"} ${when(scheduledFor, district.timeZone)}.`,
      meta.publicUrl,
    );
    return i;
  });
}

/**
 * The District Operator records the result. A failed inspection is asked for and scheduled again;
 * once every inspection the rulebook requires has passed, the connection is accepted (CONNECTED).
 */
export async function recordInspectionResult(
  ds: DataSource,
  viewer: Viewer,
  input: { inspectionId: string; result: string; notes?: string | null; inspectedAt?: string | null },
  meta: { requestId?: string; publicUrl: string },
): Promise<{ inspection: LateralInspection; permit: LateralPermit }> {
  const notes = clean(input.notes);
  const fields: Record<string, string> = {};
  if (input.result !== "PASSED" && input.result !== "FAILED") fields.result = "Say whether the inspection passed or failed.";
  if (input.result === "FAILED" && !notes) fields.notes = "Say what failed, so the applicant can fix it.";
  if (notes && notes.length > 4000) fields.notes = "Use at most 4,000 characters.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const { i, p, district } = await loadInspection(tx, viewer, input.inspectionId);
    requireStatus(p, ["APPROVED"], "Results are recorded only on an issued permit whose connection is not yet accepted");
    if (i.status !== "SCHEDULED") throw conflict(i.status === "REQUESTED" ? "Schedule the inspection before recording its result." : "This inspection already has its result.");
    // A lateral on a new sewer is connected only once the sewer has passed its tests (SUL 502 A).
    if (i.kind === "CONNECTION" && input.result === "PASSED") {
      const waiting = await lateralConnectionProblem(tx, p.id);
      if (waiting) throw conflict(waiting);
    }
    // When the inspection took place, as the district's clock reads it: now unless said, never later.
    const now = clock.now();
    const inspectedAt = clean(input.inspectedAt) ? zonedInstant(input.inspectedAt, district.timeZone) : now;
    if (!inspectedAt) throw badInput({ inspectedAt: "Enter when the inspection took place, like 2026-12-07 09:30." });
    if (inspectedAt.getTime() > now.getTime()) throw badInput({ inspectedAt: "Enter when the inspection took place: a result is recorded after the inspection, not before." });
    if (p.approvedAt && inspectedAt.getTime() < p.approvedAt.getTime()) throw badInput({ inspectedAt: "The inspection cannot have taken place before the permit was issued." });
    i.status = input.result as "PASSED" | "FAILED";
    i.resultNotes = notes;
    i.inspectedAt = inspectedAt;
    i.recordedAt = now;
    i.recordedById = viewer.userId;
    await tx.save(i);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: i.status === "PASSED" ? "lateral.inspection_passed" : "lateral.inspection_failed",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: notes,
      details: { inspectionId: i.id, kind: i.kind, inspectedAt: inspectedAt.toISOString() },
    });
    const rb = await permitRulebook(tx, p, district);
    const required = requiredInspections(rb).map((r) => r.kind);
    const all = await inspectionsOf(tx, [p.id]);
    const passed = new Set(all.filter((x) => x.status === "PASSED").map((x) => x.kind));
    const label = INSPECTION_LABELS[i.kind];
    if (i.status === "FAILED") {
      await notify(tx, p, district, "lateral.inspection_failed", `${label} failed: permit ${p.permitNumber}`, `The ${label.toLowerCase()} on permit ${p.permitNumber} did not pass:\n\n${notes}\n\nFix the work and ask for the inspection again in the portal.`, meta.publicUrl);
    } else if (required.every((k) => passed.has(k))) {
      p.status = "CONNECTED";
      p.connectedAt = clock.now();
      p.updatedAt = clock.now();
      await tx.save(p);
      await audit(tx, actorOf(viewer, meta.requestId), { action: "lateral.connected", entityType: "LateralPermit", entityId: p.id, districtId: p.districtId, details: { passed: [...passed] } });
      // The property is served from this day: its sewer-rent account opens or is updated (api/rents/connection.ts).
      await serviceFromConnection(tx, viewer, p, dateIn(district.timeZone, p.connectedAt), actorOf(viewer, meta.requestId));
      const copies = rb.entry("lateral.asBuiltCopies");
      const deposit = p.feeLines.find((l) => l.code === FEE_CODES.deposit);
      await notify(
        tx,
        p,
        district,
        "lateral.connected",
        `Connection accepted: permit ${p.permitNumber}`,
        `Every required inspection on permit ${p.permitNumber} (${addressOf(p)}) has passed: the connection to the public sewer is accepted.` +
          (typeof copies.value === "number" ? `\n\nFile ${copies.value} copies of the as-built (record) drawing with the District Operator (${copies.section}).` : "") +
          (deposit ? ` The as-built deposit of ${formatCents(deposit.amountCents)} is refunded once the drawings are approved.` : ""),
        meta.publicUrl,
      );
    } else {
      const left = required.filter((k) => !passed.has(k)).map((k) => INSPECTION_LABELS[k].toLowerCase());
      await notify(tx, p, district, "lateral.inspection_passed", `${label} passed: permit ${p.permitNumber}`, `The ${label.toLowerCase()} on permit ${p.permitNumber} passed.\n\nStill to come: ${left.join("; ")}.`, meta.publicUrl);
    }
    return { inspection: i, permit: p };
  });
}

export type CalendarRow = LateralInspection & { permitNumber: string | null; address: string; applicantName: string };

/** The week (Monday to Sunday, in the district's zone) containing `weekOf`, and the requests not yet scheduled. */
export async function inspectionCalendar(ds: DataSource, viewer: Viewer, districtId: string, weekOf?: string | null) {
  requireOperator(viewer, districtId);
  const district = await loadDistrict(ds, districtId);
  const day = weekOf ?? dateIn(district.timeZone);
  if (!isCalendarDate(day)) throw badInput({ weekOf: "Use a date like 2026-12-07." });
  const dow = (new Date(`${day}T12:00:00Z`).getUTCDay() + 6) % 7; // Monday = 0
  const monday = addCalendarDays(day, -dow);
  const sunday = addCalendarDays(monday, 6);
  const from = endOfDay(addCalendarDays(monday, -1), district.timeZone);
  const to = endOfDay(sunday, district.timeZone);
  const rows: any[] = await ds.query(
    `SELECT i.id, i.permit_id, i.kind, i.status, i.requested_at, i.scheduled_for, i.inspector_id, i.result_notes, i.recorded_at, i.applicant_notes, i.preferred_on::text AS preferred_on,
            p.permit_number, p.street_number, p.street, p.city, p.zip, u.display_name AS applicant_name, ins.display_name AS inspector_name
       FROM lateral_inspection i
       JOIN lateral_permit p ON p.id = i.permit_id
       JOIN app_user u ON u.id = p.applicant_id
       LEFT JOIN app_user ins ON ins.id = i.inspector_id
      WHERE p.district_id = $1
        AND ((i.scheduled_for >= $2 AND i.scheduled_for < $3) OR (i.status = 'REQUESTED' AND p.status = 'APPROVED'))
      ORDER BY i.scheduled_for ASC NULLS LAST, i.requested_at ASC, i.id ASC`,
    [districtId, from, to],
  );
  const toEntry = (r: any) => ({
    id: r.id,
    permitId: r.permit_id,
    kind: r.kind,
    status: r.status,
    requestedAt: r.requested_at,
    scheduledFor: r.scheduled_for,
    inspectorId: r.inspector_id,
    inspectorName: r.inspector_name,
    resultNotes: r.result_notes,
    applicantNotes: r.applicant_notes,
    preferredOn: r.preferred_on,
    recordedAt: r.recorded_at,
    permitNumber: r.permit_number,
    address: addressOf({ streetNumber: r.street_number, street: r.street, city: r.city, zip: r.zip }),
    applicantName: r.applicant_name,
  });
  const days = Array.from({ length: 7 }, (_, k) => addCalendarDays(monday, k)).map((date) => ({
    date,
    inspections: rows.filter((r) => r.scheduled_for && dateIn(district.timeZone, new Date(r.scheduled_for)) === date).map(toEntry),
  }));
  return {
    weekStart: monday,
    weekEnd: sunday,
    previousWeek: addCalendarDays(monday, -7),
    nextWeek: addCalendarDays(monday, 7),
    timeZone: district.timeZone,
    days,
    unscheduled: rows.filter((r) => r.status === "REQUESTED").map(toEntry),
  };
}

import type { DataSource } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, daysBetween, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { rulebookById, rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { createAction } from "../enforcement/actions.service.js";
import { actorOf, clean, dateField, emailPeople, getSystem, link, loadDistrict, ownerOf, requireOperator, requireStaffOf, throwIfAny, type Db, type Meta } from "./common.js";
import { nuisanceDeadline, nuisanceLapsed, nuisanceNoticeUnavailable } from "./rules.js";

/**
 * SUL 405: when a system's effluent reaches a watercourse, ditch, storm sewer or water supply and
 * creates a hazardous, offensive or objectionable condition, the District Operator's written notice
 * gives the owner ninety days after receiving it to repair, rebuild or relocate the system. Past
 * that, the Operator opens an enforcement action (api/enforcement). Huron has no such notice: no
 * system may be kept there at all (II-3).
 */

export type NoticeRow = {
  id: string;
  districtId: string;
  systemId: string;
  address: string;
  ownerUserId: string | null;
  ownerName: string;
  condition: string;
  receivedOn: CalendarDate;
  repairBy: CalendarDate;
  status: "OPEN" | "CORRECTED" | "ESCALATED";
  correctedOn: CalendarDate | null;
  correctionNote: string | null;
  enforcementActionId: string | null;
  rulebookVersionId: string;
  servedAt: Date;
};

const NOTICE_COLUMNS = `n.id, n.district_id AS "districtId", n.system_id AS "systemId",
  trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '') || ' ' || p.zip) AS address,
  p.owner_user_id AS "ownerUserId", p.owner_name AS "ownerName", n.condition, to_char(n.received_on, 'YYYY-MM-DD') AS "receivedOn",
  to_char(n.repair_by, 'YYYY-MM-DD') AS "repairBy", n.status, to_char(n.corrected_on, 'YYYY-MM-DD') AS "correctedOn", n.correction_note AS "correctionNote",
  n.enforcement_action_id AS "enforcementActionId", n.rulebook_version_id AS "rulebookVersionId", n.served_at AS "servedAt"`;
const NOTICE_FROM = `septic_nuisance_notice n JOIN septic_system s ON s.id = n.system_id JOIN sewer_property p ON p.id = s.property_id`;

export async function getNotice(db: Db, viewer: Viewer, id: string, lock = false): Promise<NoticeRow> {
  if (!isUuid(id)) throw notFound("That notice");
  const [row] = await db.query(`SELECT ${NOTICE_COLUMNS} FROM ${NOTICE_FROM} WHERE n.id = $1${lock ? " FOR UPDATE OF n" : ""}`, [id]);
  if (!row || !(isStaff(viewer, row.districtId) || (row.ownerUserId && row.ownerUserId === viewer.userId))) throw notFound("That notice");
  return row;
}

/** The notices of these systems, newest first (one query). */
export async function noticesOf(db: Db, systemIds: readonly string[]): Promise<NoticeRow[]> {
  if (!systemIds.length) return [];
  return db.query(`SELECT ${NOTICE_COLUMNS} FROM ${NOTICE_FROM} WHERE n.system_id = ANY($1::uuid[]) ORDER BY n.received_on DESC, n.id DESC`, [systemIds]);
}

/** The district's open notices by their last day (one query, index septic_nuisance_open). */
export async function districtNotices(ds: DataSource, viewer: Viewer, districtId: string): Promise<NoticeRow[]> {
  requireStaffOf(viewer, districtId);
  return ds.query(`SELECT ${NOTICE_COLUMNS} FROM ${NOTICE_FROM} WHERE n.district_id = $1 AND n.status = 'OPEN' ORDER BY n.repair_by, n.id LIMIT 500`, [districtId]);
}

/**
 * The District Operator serves the written notice (SUL 405): what was found, and the day the owner
 * received it (today unless given; day 0). The ninety days run from it: the last day is the 90th.
 */
export async function serveNotice(ds: DataSource, viewer: Viewer, input: { systemId: string; condition: string; receivedOn?: string | null }, meta: Meta): Promise<NoticeRow> {
  return ds.transaction(async (tx) => {
    const s = await getSystem(tx, viewer, input.systemId, true);
    requireOperator(viewer, s.districtId, "serve a notice to repair a septic system");
    const district = await loadDistrict(tx, s.districtId);
    const rb = await rulebookOn(tx, district);
    const unavailable = nuisanceNoticeUnavailable(rb);
    if (unavailable) throw conflict(unavailable);
    if (s.status !== "IN_USE") throw conflict("That system is no longer in use.");
    const today = dateIn(district.timeZone);
    const fields: Record<string, string> = {};
    const condition = clean(input.condition);
    if (!condition || condition.length > 4000)
      fields.condition = `Describe the condition: where the effluent goes (a watercourse, ditch, storm sewer or water supply) and why it is hazardous, offensive or objectionable (${rb.entry("septic.nuisanceRepairDays").section}).`;
    const receivedOn = dateField(fields, "receivedOn", input.receivedOn, { max: today }) ?? today;
    throwIfAny(fields);
    const d = nuisanceDeadline(rb, receivedOn)!;
    const [{ id }] = await tx.query(
      `INSERT INTO septic_nuisance_notice (district_id, system_id, condition, received_on, repair_by, rulebook_version_id, served_by_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [s.districtId, s.id, condition, receivedOn, d.repairBy, rb.version.id, viewer.userId],
    );
    await audit(tx, actorOf(viewer, meta.requestId), { action: "septic.nuisance_notice_served", entityType: "SepticNuisanceNotice", entityId: id, districtId: s.districtId, details: { systemId: s.id, receivedOn, repairBy: d.repairBy } });
    await emailPeople(
      tx,
      await ownerOf(tx, s.ownerUserId),
      district,
      "septic.nuisance_notice",
      `Notice: repair your septic system at ${s.address} by ${formatDate(d.repairBy)}`,
      `The ${district.operatorTitle} found that the private wastewater disposal system at ${s.address} creates this condition: ${condition}\n\n` +
        `Within ${d.days} days after receiving this notice, by ${formatDate(d.repairBy)}, repair, rebuild or relocate the system to end it, at your expense and to the State Health Department's rules (${d.section}).` +
        `\n\nSee the notice: ${link(meta, "/septic")}`,
    );
    return getNotice(tx, viewer, id);
  });
}

/** The District Operator records the system repaired, rebuilt or relocated (on or before today). */
export async function recordCorrected(ds: DataSource, viewer: Viewer, input: { id: string; correctedOn?: string | null; note: string }, meta: Meta): Promise<NoticeRow> {
  return ds.transaction(async (tx) => {
    const n = await getNotice(tx, viewer, input.id, true);
    requireOperator(viewer, n.districtId, "record a septic system repaired");
    if (n.status !== "OPEN") throw conflict(n.status === "CORRECTED" ? "The notice is already recorded as met." : "The notice was escalated to an enforcement action; record the outcome there.");
    const district = await loadDistrict(tx, n.districtId);
    const today = dateIn(district.timeZone);
    const fields: Record<string, string> = {};
    const on = dateField(fields, "correctedOn", input.correctedOn, { max: today }) ?? today;
    if (on < n.receivedOn && !fields.correctedOn) fields.correctedOn = "The date cannot be before the notice was received.";
    const note = clean(input.note);
    if (!note || note.length > 2000) fields.note = "Say what was done: repaired, rebuilt or relocated, and what the inspection found.";
    throwIfAny(fields);
    await tx.query(`UPDATE septic_nuisance_notice SET status = 'CORRECTED', corrected_on = $2, correction_note = $3 WHERE id = $1`, [n.id, on, note]);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "septic.nuisance_corrected", entityType: "SepticNuisanceNotice", entityId: n.id, districtId: n.districtId, details: { correctedOn: on, inTime: on <= n.repairBy } });
    await emailPeople(tx, await ownerOf(tx, n.ownerUserId), district, "septic.nuisance_corrected", `Notice met: ${n.address}`, `The ${district.operatorTitle} recorded the septic system at ${n.address} as repaired on ${formatDate(on)}: ${note}`);
    return getNotice(tx, viewer, n.id);
  });
}

/**
 * From the day after the last day, the District Operator opens an enforcement action against the
 * owner (api/enforcement's createAction, in this transaction): a notice of violation by default.
 * The owner is the property's owner of record linked to the portal, or the person named by email.
 */
export async function escalateNotice(ds: DataSource, viewer: Viewer, input: { id: string; kind?: string | null; respondentEmail?: string | null; correctBy?: string | null }, meta: Meta): Promise<NoticeRow> {
  return ds.transaction(async (tx) => {
    const n = await getNotice(tx, viewer, input.id, true);
    requireOperator(viewer, n.districtId, "open an enforcement action");
    if (n.status !== "OPEN") throw conflict(n.status === "ESCALATED" ? "An enforcement action is already open for this notice." : "The notice was met.");
    const district = await loadDistrict(tx, n.districtId);
    const today = dateIn(district.timeZone);
    const rb = await rulebookById(tx, n.rulebookVersionId);
    const section = rb.entry("septic.nuisanceRepairDays").section;
    if (!nuisanceLapsed(n.repairBy, today))
      throw conflict(`The owner has until ${formatDate(n.repairBy)} to repair, rebuild or relocate the system (${section}); an enforcement action can be opened from the next day.`);
    const [owner] = n.ownerUserId ? await tx.query(`SELECT email FROM app_user WHERE id = $1`, [n.ownerUserId]) : [];
    const email = clean(input.respondentEmail) ?? owner?.email ?? null;
    if (!email) throw badInput({ respondentEmail: "The owner of record has no portal sign-in: give the email the owner uses in the portal." });
    const action = await createAction(
      tx as unknown as DataSource,
      viewer,
      {
        districtId: n.districtId,
        kind: clean(input.kind) ?? "NOTICE_OF_VIOLATION",
        respondentEmail: email,
        violation: `The septic system at ${n.address} was not repaired, rebuilt or relocated within ${daysBetween(n.receivedOn, n.repairBy)} days after the written notice received ${formatDate(n.receivedOn)}, by ${formatDate(n.repairBy)} (${section}): ${n.condition}`,
        requirements: "Repair, rebuild or relocate the private wastewater disposal system to end the condition.",
        correctBy: clean(input.correctBy),
        subjectType: "SepticNuisanceNotice",
        subjectId: n.id,
        subjectLabel: `Septic notice, ${n.address}`,
      },
      { requestId: meta.requestId, publicUrl: meta.publicUrl ?? "" },
    );
    await tx.query(`UPDATE septic_nuisance_notice SET status = 'ESCALATED', enforcement_action_id = $2 WHERE id = $1`, [n.id, action.id]);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "septic.nuisance_escalated", entityType: "SepticNuisanceNotice", entityId: n.id, districtId: n.districtId, details: { enforcementActionId: action.id, kind: action.kind, daysPast: daysBetween(n.repairBy, today) } });
    return getNotice(tx, viewer, n.id);
  });
}

/** The Operators' email once a 405 notice's days have passed (the daily job sends it once). */
export function lapsedNoticeEmail(n: Pick<NoticeRow, "address" | "repairBy" | "systemId">, section: string, publicUrl: string): { subject: string; text: string } {
  return {
    subject: `Septic notice past its 90 days: ${n.address}`,
    text: `The time to repair, rebuild or relocate the septic system at ${n.address} ended ${formatDate(n.repairBy)} (${section}) and no repair is recorded. Open an enforcement action from the system's page: ${publicUrl}/staff/septic/${n.systemId}`,
  };
}

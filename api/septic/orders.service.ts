import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import type { Config } from "../config.js";
import { isUuid, storeDocumentsWith, type StoreDocumentInput } from "../documents/documents.service.js";
import { actorOf, clean, dateField, emailPeople, link, loadDistrict, ownerOf, requireOperator, requireStaffOf, throwIfAny, type Db, type Meta } from "./common.js";
import {
  EFFLUENT_METHODS,
  EFFLUENT_METHOD_LABELS,
  ORDER_PATHS,
  ORDER_PATH_LABELS,
  ORDER_STEPS,
  TANK_DISPOSITIONS,
  closingTakesSystemOutOfUse,
  orderComplete,
  orderSteps,
  pathChangeProblem,
  stepDone,
  type EffluentMethod,
  type OrderPath,
  type OrderStep,
} from "./rules.js";

/**
 * When a public sewer reaches a property with a septic system (SUL 408; Huron II-3, II-4): the
 * District Operator's connection order, then each step recorded (the lateral permit, the pump-out
 * by a licensed hauler, the tank filled or removed, the old connection plugged; in Huron the
 * system out of use); the order closes when every step is recorded and the system is no longer in use.
 * Or, where the law has it, SUL 408's alternative, chosen by the Operator: the lateral permit, the
 * tank's effluent piped or pumped to the sewer and the owner's easement for septage removal; the order
 * then closes with the tank still in use (docs/decisions/septic-408-effluent-alternative.md).
 */

export type OrderRow = {
  id: string;
  districtId: string;
  systemId: string;
  address: string;
  ownerUserId: string | null;
  reason: string;
  issuedOn: CalendarDate;
  status: "OPEN" | "CLOSED";
  /** ABANDON (the system out of use) or EFFLUENT_TO_SEWER (SUL 408's alternative) */
  path: OrderPath;
  lateralPermitId: string | null;
  lateralPermitNumber: string | null;
  pumpOutId: string | null;
  pumpedOn: CalendarDate | null;
  tankDisposition: "FILLED" | "REMOVED" | null;
  tankDispositionOn: CalendarDate | null;
  fillMaterial: string | null;
  pluggedOn: CalendarDate | null;
  discontinuedOn: CalendarDate | null;
  effluentMethod: EffluentMethod | null;
  effluentOn: CalendarDate | null;
  easementDocumentId: string | null;
  easementFilename: string | null;
  easementRecordedOn: CalendarDate | null;
  closedOn: CalendarDate | null;
  rulebookVersionId: string;
  /** The accepted sewer extension that made the public sewer available (SUL 408, 507), when the order names one */
  extensionId: string | null;
  extensionName: string | null;
};

const ORDER_COLUMNS = `o.id, o.district_id AS "districtId", o.system_id AS "systemId",
  trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '') || ' ' || p.zip) AS address, p.owner_user_id AS "ownerUserId",
  o.reason, to_char(o.issued_on, 'YYYY-MM-DD') AS "issuedOn", o.status, o.lateral_permit_id AS "lateralPermitId", lp.permit_number AS "lateralPermitNumber",
  o.pump_out_id AS "pumpOutId", to_char(po.pumped_on, 'YYYY-MM-DD') AS "pumpedOn", o.tank_disposition AS "tankDisposition",
  to_char(o.tank_disposition_on, 'YYYY-MM-DD') AS "tankDispositionOn", o.fill_material AS "fillMaterial", to_char(o.plugged_on, 'YYYY-MM-DD') AS "pluggedOn",
  to_char(o.discontinued_on, 'YYYY-MM-DD') AS "discontinuedOn", to_char(o.closed_on, 'YYYY-MM-DD') AS "closedOn", o.rulebook_version_id AS "rulebookVersionId",
  o.extension_id AS "extensionId", ext.name AS "extensionName", o.path, o.effluent_method AS "effluentMethod", to_char(o.effluent_on, 'YYYY-MM-DD') AS "effluentOn",
  o.easement_document_id AS "easementDocumentId", ed.filename AS "easementFilename", to_char(o.easement_recorded_on, 'YYYY-MM-DD') AS "easementRecordedOn"`;
const ORDER_FROM = `septic_connection_order o JOIN septic_system s ON s.id = o.system_id JOIN sewer_property p ON p.id = s.property_id
  LEFT JOIN lateral_permit lp ON lp.id = o.lateral_permit_id LEFT JOIN septic_pump_out po ON po.id = o.pump_out_id
  LEFT JOIN sewer_extension ext ON ext.id = o.extension_id LEFT JOIN document ed ON ed.id = o.easement_document_id`;

export async function getOrder(db: Db, viewer: Viewer, id: string, lock = false): Promise<OrderRow> {
  if (!isUuid(id)) throw notFound("That connection order");
  const [row] = await db.query(`SELECT ${ORDER_COLUMNS} FROM ${ORDER_FROM} WHERE o.id = $1${lock ? " FOR UPDATE OF o" : ""}`, [id]);
  if (!row || !(isStaff(viewer, row.districtId) || (row.ownerUserId && row.ownerUserId === viewer.userId))) throw notFound("That connection order");
  return row;
}

/** The orders of these systems, newest first (one query). */
export async function ordersOf(db: Db, systemIds: readonly string[]): Promise<OrderRow[]> {
  if (!systemIds.length) return [];
  return db.query(`SELECT ${ORDER_COLUMNS} FROM ${ORDER_FROM} WHERE o.system_id = ANY($1::uuid[]) ORDER BY o.issued_on DESC, o.id DESC`, [systemIds]);
}

/** Lateral permit applications of the district for each order's tax parcel, submitted and not withdrawn, for the Operator to choose from (one query). */
export async function lateralCandidatesOf(db: Db, orderIds: readonly string[]): Promise<{ orderId: string; id: string; permitNumber: string | null; status: string }[]> {
  if (!orderIds.length) return [];
  return db.query(
    `SELECT o.id AS "orderId", lp.id, lp.permit_number AS "permitNumber", lp.status
       FROM septic_connection_order o JOIN septic_system s ON s.id = o.system_id JOIN sewer_property p ON p.id = s.property_id
       JOIN lateral_permit lp ON lp.district_id = o.district_id AND lower(lp.tax_parcel) = lower(p.tax_parcel)
      WHERE o.id = ANY($1::uuid[]) AND lp.status NOT IN ('DRAFT', 'WITHDRAWN') ORDER BY lp.created_at DESC`,
    [orderIds],
  );
}

/** The district's open orders, oldest first (one query, index septic_connection_order_district). */
export async function districtOrders(ds: DataSource, viewer: Viewer, districtId: string): Promise<OrderRow[]> {
  requireStaffOf(viewer, districtId);
  return ds.query(`SELECT ${ORDER_COLUMNS} FROM ${ORDER_FROM} WHERE o.district_id = $1 AND o.status = 'OPEN' ORDER BY o.issued_on, o.id LIMIT 500`, [districtId]);
}

/** The section of a lateral (building sewer) permit application in the district's law, for the step's citation. */
export const lateralSection = (rb: Rulebook) => rb.entry("lateral.plansRequired").section.split(",")[0];

export const stepsOf = (rb: Rulebook, o: OrderRow) => orderSteps(rb, lateralSection(rb), o.path).map((s) => ({ ...s, done: stepDone(s.step, o) }));

export type OrderExtensionRow = { id: string; name: string; location: string; acceptedOn: CalendarDate; resolutionNumber: string };

/**
 * The district's sewer extensions the Town Board has accepted, newest first: the public sewers a
 * connection order may name (SUL 408; an extension is the Town's from the Board's concurrence, 507).
 * Its staff; one query on sewer_extension_accepted (district, accepted_on DESC). Read here, not in
 * api/extensions: only what an order needs.
 */
export async function acceptedExtensions(db: Db, viewer: Viewer, districtId: string): Promise<OrderExtensionRow[]> {
  requireStaffOf(viewer, districtId);
  return db.query(
    `SELECT id, name, location, to_char(accepted_on, 'YYYY-MM-DD') AS "acceptedOn", acceptance_resolution_number AS "resolutionNumber"
       FROM sewer_extension WHERE district_id = $1 AND accepted_on IS NOT NULL ORDER BY accepted_on DESC, id DESC LIMIT 500`,
    [districtId],
  );
}

/** A note of the Operator's beside the extension's own words, so the reason stays within its 2,000 characters. */
const NOTE_WITH_EXTENSION_MAX = 1500;

/**
 * The District Operator orders the properties of these systems connected to the public sewer that
 * now reaches them (SUL 408; Huron II-4). One order per system in use without an open one; the
 * owner of record is emailed the steps. The order may name the accepted sewer extension that made
 * the public sewer available (same district, accepted by the Town Board, 507); the reason then says
 * which, with the Board's resolution and its date, and the Operator's words, if any, follow. Which
 * properties an extension reaches is the Operator's to say (the law sets no distance for 408;
 * docs/decisions/septic-order-from-extension.md).
 */
export async function issueOrders(ds: DataSource, viewer: Viewer, input: { systemIds: string[]; reason?: string | null; extensionId?: string | null }, meta: Meta): Promise<OrderRow[]> {
  const ids = [...new Set(input.systemIds ?? [])];
  const fields: Record<string, string> = {};
  const note = clean(input.reason);
  const extensionId = (input.extensionId ?? "").trim() || null;
  if (extensionId && !isUuid(extensionId)) fields.extensionId = "Choose a sewer extension of this district that the Town Board has accepted.";
  if (extensionId) {
    if (note && note.length > NOTE_WITH_EXTENSION_MAX) fields.reason = `Use at most ${NOTE_WITH_EXTENSION_MAX.toLocaleString("en-US")} characters beside the sewer extension.`;
  } else if (!note || note.length > 2000) fields.reason = "Say which public sewer now reaches the property (up to 2,000 characters), or choose the accepted sewer extension.";
  if (!ids.length || ids.length > 200 || !ids.every(isUuid)) fields.systemIds = "Choose the systems (up to 200) whose properties the public sewer now reaches.";
  throwIfAny(fields);
  return ds.transaction(async (tx) => {
    const systems: { id: string; district_id: string; status: string; open: boolean; connected: boolean }[] = await tx.query(
      `SELECT s.id, s.district_id, s.status, EXISTS (SELECT 1 FROM septic_connection_order o WHERE o.system_id = s.id AND o.status = 'OPEN') AS open,
              EXISTS (SELECT 1 FROM septic_connection_order o WHERE o.system_id = s.id AND o.status = 'CLOSED' AND o.path = 'EFFLUENT_TO_SEWER') AS connected
         FROM septic_system s WHERE s.id = ANY($1::uuid[]) ORDER BY s.id FOR UPDATE`,
      [ids],
    );
    const visible = systems.filter((s) => isStaff(viewer, s.district_id));
    if (visible.length !== ids.length) throw badInput({ systemIds: "Choose septic systems of the register." });
    const districtId = visible[0].district_id;
    if (visible.some((s) => s.district_id !== districtId)) throw badInput({ systemIds: "Choose systems of one district at a time." });
    requireOperator(viewer, districtId, "order a property connected to the public sewer");
    if (visible.some((s) => s.status !== "IN_USE")) throw conflict("A system no longer in use needs no order.", { systemIds: "A system no longer in use needs no order." });
    if (visible.some((s) => s.open)) throw conflict("A system already has an open connection order.", { systemIds: "A system already has an open connection order." });
    // A tank kept under SUL 408's alternative already sends its effluent to the public sewer: its order was met.
    if (visible.some((s) => s.connected))
      throw conflict("A system's order was already met by piping or pumping its tank's effluent to the sewer.", { systemIds: "A system's order was already met by piping or pumping its tank's effluent to the sewer." });
    const district = await loadDistrict(tx, districtId);
    const rb = await rulebookOn(tx, district);
    const connect = rb.entry("septic.connectionOnSewerRequired");
    if (!connect.value) throw conflict(`The district's law does not require a connection when a public sewer arrives (${connect.section}).`);
    let reason = note!;
    if (extensionId) {
      const ext = await acceptedExtensionFor(tx, rb, district, extensionId);
      // SUL 408's "becomes available": the Board's acceptance makes the extension a public sewer of the Town (507).
      reason =
        `The sewer extension ${ext.name}, accepted by the Town Board by resolution ${ext.resolutionNumber} of ${formatDate(ext.acceptedOn)} (${ext.section}), ` +
        `makes a public sewer available to the property (${connect.section}).` +
        (note ? ` ${note}` : "");
    }
    const today = dateIn(district.timeZone);
    const created: { id: string; system_id: string }[] = await tx.query(
      `INSERT INTO septic_connection_order (district_id, system_id, reason, issued_on, issued_by_id, rulebook_version_id, extension_id)
       SELECT $1, unnest($2::uuid[]), $3, $4, $5, $6, $7 RETURNING id, system_id`,
      [districtId, ids, reason, today, viewer.userId, rb.version.id, extensionId],
    );
    for (const c of created)
      await audit(tx, actorOf(viewer, meta.requestId), {
        action: "septic.connection_ordered",
        entityType: "SepticConnectionOrder",
        entityId: c.id,
        districtId,
        reason,
        details: { systemId: c.system_id, issuedOn: today, extensionId },
      });
    // A pump-out already recorded today counts for its order.
    const todays: { id: string; system_id: string }[] = await tx.query(`SELECT id, system_id FROM septic_pump_out WHERE system_id = ANY($1::uuid[]) AND pumped_on >= $2`, [ids, today]);
    await attachPumpOuts(tx, actorOf(viewer, meta.requestId), todays.map((p) => ({ systemId: p.system_id, pumpOutId: p.id, pumpedOn: today })));
    const orders = await ordersOf(tx, ids);
    const steps = orderSteps(rb, lateralSection(rb));
    for (const o of orders) {
      await emailPeople(
        tx,
        await ownerOf(tx, o.ownerUserId),
        district,
        "septic.connection_ordered",
        `Connect ${o.address} to the public sewer`,
        `A public sewer now reaches ${o.address}: ${reason}\n\nThe ${district.lawName} requires a direct connection to it (${connect.section}). What is to be done, each recorded by the ${district.operatorTitle}:\n` +
          steps.map((s, i) => `${i + 1}. ${s.label} (${s.section})`).join("\n") +
          `\n\nSee the order: ${link(meta, "/septic")}`,
      );
    }
    return orders;
  });
}

/**
 * The sewer extension an order names: one of the district's, accepted by the Town Board (507), in a
 * district whose law has extensions at all (Huron has no Article 5). BAD_USER_INPUT beside the field
 * otherwise; another district's extension is answered as one not found.
 */
async function acceptedExtensionFor(tx: EntityManager, rb: Rulebook, district: { id: string; name: string }, id: string) {
  const provided = rb.entry("extension.provided");
  if (!rb.enabled("extension.provided"))
    throw badInput({ extensionId: `${district.name}'s law has no sewer extensions built by developers (${provided.section}): say which public sewer now reaches the properties.` });
  const [e]: { district_id: string; status: string; name: string; accepted_on: CalendarDate | null; resolution: string | null }[] = await tx.query(
    `SELECT district_id, status, name, to_char(accepted_on, 'YYYY-MM-DD') AS accepted_on, acceptance_resolution_number AS resolution FROM sewer_extension WHERE id = $1`,
    [id],
  );
  if (!e || e.district_id !== district.id) throw badInput({ extensionId: "Choose a sewer extension of this district that the Town Board has accepted." });
  const section = rb.entry("extension.asBuiltCopies").section; // the rulebook's entry of 507, where acceptance is
  if (e.status !== "ACCEPTED" || !e.accepted_on || !e.resolution)
    throw badInput({ extensionId: `The Town Board has not accepted the sewer extension ${e.name}: it becomes a public sewer of the Town only then (${section}).` });
  return { name: e.name, acceptedOn: e.accepted_on, resolutionNumber: e.resolution, section };
}

/**
 * For the pump-out records: a pump-out on or after the day an open order was issued is its
 * "cleaned of septage by a licensed hauler" (SUL 408); the order closes if that was the last step.
 */
export async function attachPumpOuts(tx: EntityManager, actor: Actor, pumpOuts: { systemId: string; pumpOutId: string; pumpedOn: CalendarDate }[]): Promise<void> {
  if (!pumpOuts.length) return;
  const attached: { id: string }[] = await tx.query(
    `UPDATE septic_connection_order o SET pump_out_id = x.pump_out_id
       FROM unnest($1::uuid[], $2::uuid[], $3::date[]) AS x(system_id, pump_out_id, pumped_on)
      WHERE o.system_id = x.system_id AND o.status = 'OPEN' AND o.pump_out_id IS NULL AND o.issued_on <= x.pumped_on RETURNING o.id`,
    [pumpOuts.map((p) => p.systemId), pumpOuts.map((p) => p.pumpOutId), pumpOuts.map((p) => p.pumpedOn)],
  );
  for (const a of attached) await closeIfComplete(tx, actor, a.id, { step: "PUMPED" });
}

export type StepInput = {
  orderId: string;
  step: string;
  lateralPermitId?: string | null;
  disposition?: string | null;
  fillMaterial?: string | null;
  on?: string | null;
  effluentMethod?: string | null;
  easementDocument?: StoreDocumentInput | null;
  easementRecordedOn?: string | null;
};

/**
 * The District Operator records a step of the order (SUL 408; Huron II-3, II-4); the pump-out comes
 * from a licensed hauler's load (linkSepticPumpOut). Only the steps of the order's path: on SUL 408's
 * alternative, the effluent piped or pumped to the sewer and the owner's recorded easement (uploaded
 * with its step, stored in the step's transaction: a refused step leaves no document behind).
 */
export async function recordStep(ds: DataSource, config: Config, viewer: Viewer, input: StepInput, meta: Meta): Promise<OrderRow> {
  const upload = input.step === "EASEMENT" && input.easementDocument ? [{ filename: input.easementDocument.filename, contentBase64: input.easementDocument.contentBase64 }] : [];
  return storeDocumentsWith(
    ds,
    config,
    viewer,
    upload,
    meta.requestId,
    async (tx, docs) => {
      const o = await getOrder(tx, viewer, input.orderId, true);
      requireOperator(viewer, o.districtId, "record the steps of a connection order");
      if (o.status !== "OPEN") throw conflict("The order is closed.");
      const rb = await rulebookById(tx, o.rulebookVersionId);
      const district = await loadDistrict(tx, o.districtId);
      const today = dateIn(district.timeZone);
      const step = input.step as OrderStep;
      const steps = orderSteps(rb, lateralSection(rb), o.path);
      const fields: Record<string, string> = {};
      if (!ORDER_STEPS.includes(step) || !steps.some((s) => s.step === step)) {
        const alternative = step === "EFFLUENT_TO_SEWER" || step === "EASEMENT";
        const refused = alternative ? pathChangeProblem(rb, o, "EFFLUENT_TO_SEWER") : null;
        fields.step = alternative
          ? (refused ?? `The effluent and the easement are steps of the order met by ${ORDER_PATH_LABELS.EFFLUENT_TO_SEWER.toLowerCase()} (${rb.entry("septic.effluentToSewerAlternative").section}): choose that way for the order first.`)
          : `Choose a step of this order: ${steps.map((s) => s.label.toLowerCase()).join("; ")}.`;
        throwIfAny(fields);
      }
      if (step === "PUMPED")
        throw badInput({ step: `The pump-out is recorded from the licensed hauler's load (${steps.find((s) => s.step === "PUMPED")!.section}): it counts as soon as the load is received, or the ${district.operatorTitle} links the load on the system's page.` });
      if (stepDone(step, o)) throw conflict("That step is already recorded.");
      const section = steps.find((s) => s.step === step)!.section;
      let details: Record<string, unknown> = { step };
      if (step === "EASEMENT") {
        // The day the easement was recorded is the record's own; the order's day does not bound it.
        const recordedOn = dateField(fields, "easementRecordedOn", input.easementRecordedOn, { required: true, max: today });
        if (!docs.length) fields.easementDocument = `Upload the recorded easement to the septic tank for septage removal (PDF, PNG or JPEG; ${section}).`;
        throwIfAny(fields);
        await tx.query(`UPDATE septic_connection_order SET easement_document_id = $2, easement_recorded_on = $3 WHERE id = $1`, [o.id, docs[0].id, recordedOn]);
        details = { step, documentId: docs[0].id, filename: docs[0].filename, recordedOn };
      } else {
        const on = dateField(fields, "on", input.on, { max: today }) ?? today;
        if (on < o.issuedOn && !fields.on) fields.on = "The date cannot be before the order was issued.";
        details = { step, on };
        if (step === "LATERAL_PERMIT") {
          const [lp] = isUuid(input.lateralPermitId ?? "")
            ? await tx.query(
                `SELECT lp.id, lp.district_id, lp.status, lp.tax_parcel, sp.tax_parcel AS property_parcel
                   FROM lateral_permit lp, septic_system s JOIN sewer_property sp ON sp.id = s.property_id WHERE lp.id = $1 AND s.id = $2`,
                [input.lateralPermitId, o.systemId],
              )
            : [];
          if (!lp || lp.district_id !== o.districtId || ["DRAFT", "WITHDRAWN"].includes(lp.status)) fields.lateralPermitId = "Choose a lateral permit application of this district that was submitted.";
          else if ((lp.tax_parcel ?? "").trim().toLowerCase() !== String(lp.property_parcel).trim().toLowerCase()) fields.lateralPermitId = "That lateral permit is for another tax parcel.";
          throwIfAny(fields);
          await tx.query(`UPDATE septic_connection_order SET lateral_permit_id = $2 WHERE id = $1`, [o.id, lp.id]);
          details = { step, lateralPermitId: lp.id };
        } else if (step === "FILLED_OR_REMOVED") {
          const disposition = input.disposition as (typeof TANK_DISPOSITIONS)[number];
          if (!TANK_DISPOSITIONS.includes(disposition)) fields.disposition = "Say whether the tank was filled or removed.";
          const material = clean(input.fillMaterial);
          if (disposition === "FILLED" && !material) fields.fillMaterial = `Say what it was filled with: clean sand, bank-run gravel or dirt (${section}).`;
          if (material && material.length > 200) fields.fillMaterial = "Use at most 200 characters.";
          if (!o.pumpOutId) fields.disposition = `The tank is filled or removed once it has been cleaned of septage by a licensed hauler (${section}).`;
          throwIfAny(fields);
          await tx.query(`UPDATE septic_connection_order SET tank_disposition = $2, tank_disposition_on = $3, fill_material = $4 WHERE id = $1`, [o.id, disposition, on, disposition === "FILLED" ? material : null]);
          details = { step, disposition, on, fillMaterial: material };
        } else if (step === "EFFLUENT_TO_SEWER") {
          const method = input.effluentMethod as EffluentMethod;
          if (!EFFLUENT_METHODS.includes(method)) fields.effluentMethod = `Say whether the septic tank effluent is piped or pumped to the sewer (${section}).`;
          throwIfAny(fields);
          await tx.query(`UPDATE septic_connection_order SET effluent_method = $2, effluent_on = $3 WHERE id = $1`, [o.id, method, on]);
          details = { step, effluentMethod: method, on };
        } else if (step === "PLUGGED") {
          throwIfAny(fields);
          await tx.query(`UPDATE septic_connection_order SET plugged_on = $2 WHERE id = $1`, [o.id, on]);
        } else {
          throwIfAny(fields);
          await tx.query(`UPDATE septic_connection_order SET discontinued_on = $2 WHERE id = $1`, [o.id, on]);
        }
      }
      await audit(tx, actorOf(viewer, meta.requestId), { action: "septic.connection_step", entityType: "SepticConnectionOrder", entityId: o.id, districtId: o.districtId, details });
      await closeIfComplete(tx, actorOf(viewer, meta.requestId), o.id, { step }, meta);
      return getOrder(tx, viewer, o.id);
    },
    "easementDocument",
  );
}

/**
 * The District Operator records how the order is to be met (docs/decisions/septic-408-effluent-alternative.md):
 * the old system out of use (ABANDON, every order's way until then) or SUL 408's alternative, the tank
 * kept with its effluent piped or pumped to the sewer and an easement for septage removal
 * (EFFLUENT_TO_SEWER). Refused where the law has no alternative (Huron II-3, II-4) and once the tank is
 * recorded filled, removed or plugged. The lateral permit counts on either way; the other way's
 * records stay on the order and count for nothing. The owner hears the steps now asked.
 */
export async function choosePath(ds: DataSource, viewer: Viewer, input: { orderId: string; path: string }, meta: Meta): Promise<OrderRow> {
  return ds.transaction(async (tx) => {
    const o = await getOrder(tx, viewer, input.orderId, true);
    requireOperator(viewer, o.districtId, "record how a connection order is met");
    if (o.status !== "OPEN") throw conflict("The order is closed.");
    const path = input.path as OrderPath;
    if (!ORDER_PATHS.includes(path)) throw badInput({ path: "Choose how the order is met: the old system out of use, or the septic tank kept with its effluent piped or pumped to the sewer." });
    const rb = await rulebookById(tx, o.rulebookVersionId);
    const problem = pathChangeProblem(rb, o, path);
    if (problem) throw conflict(problem, { path: problem });
    await tx.query(`UPDATE septic_connection_order SET path = $2 WHERE id = $1`, [o.id, path]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "septic.connection_path_chosen",
      entityType: "SepticConnectionOrder",
      entityId: o.id,
      districtId: o.districtId,
      details: { path, previousPath: o.path, systemId: o.systemId },
    });
    const district = await loadDistrict(tx, o.districtId);
    const steps = orderSteps(rb, lateralSection(rb), path);
    await emailPeople(
      tx,
      await ownerOf(tx, o.ownerUserId),
      district,
      "septic.connection_path_chosen",
      `Connection order for ${o.address}: how it is met`,
      `The ${district.operatorTitle} records that the order to connect ${o.address} to the public sewer is met this way: ${ORDER_PATH_LABELS[path].toLowerCase()} (${rb.entry(path === "ABANDON" ? "septic.connectionOnSewerRequired" : "septic.effluentToSewerAlternative").section}). What is to be done, each recorded by the ${district.operatorTitle}:\n` +
        steps.map((s, n) => `${n + 1}. ${s.label} (${s.section})`).join("\n") +
        `\n\nSee the order: ${link(meta, "/septic")}`,
    );
    // The way's steps may all be on record already (back to the alternative after its steps were recorded).
    await closeIfComplete(tx, actorOf(viewer, meta.requestId), o.id, { step: "PATH" }, meta);
    return getOrder(tx, viewer, o.id);
  });
}

/**
 * Closes the order when every step of its path is recorded. The first way takes the system out of use
 * (its pump-out clock stops); on SUL 408's alternative the tank stays in use, on the register, and is
 * still pumped every three years (407): its clock keeps running.
 */
async function closeIfComplete(tx: EntityManager, actor: Actor, orderId: string, why: { step: OrderStep | "PATH" }, meta: Meta = {}) {
  const [o]: OrderRow[] = await tx.query(`SELECT ${ORDER_COLUMNS} FROM ${ORDER_FROM} WHERE o.id = $1`, [orderId]);
  if (!o || o.status !== "OPEN") return;
  const rb = await rulebookById(tx, o.rulebookVersionId);
  if (!orderComplete(rb, o)) return;
  const district = await loadDistrict(tx, o.districtId);
  const today = dateIn(district.timeZone);
  const outOfUse = closingTakesSystemOutOfUse(o.path);
  await tx.query(`UPDATE septic_connection_order SET status = 'CLOSED', closed_on = $2 WHERE id = $1`, [o.id, today]);
  if (outOfUse) await tx.query(`UPDATE septic_system SET status = 'ABANDONED', abandoned_on = $2, pump_due_on = NULL, updated_at = now() WHERE id = $1`, [o.systemId, today]);
  await audit(tx, actor, { action: "septic.connection_order_closed", entityType: "SepticConnectionOrder", entityId: o.id, districtId: o.districtId, details: { lastStep: why.step, closedOn: today, systemId: o.systemId, path: o.path } });
  const pumping = rb.entry("septic.pumpingIntervalYears");
  const text = outOfUse
    ? `Every step of the order to connect ${o.address} to the public sewer is recorded, and the old system is out of use as of ${formatDate(today)} (${rb.entry("septic.connectionOnSewerRequired").section}).`
    : `Every step of the order to connect ${o.address} to the public sewer is recorded as of ${formatDate(today)}: the septic tank's effluent is ${EFFLUENT_METHOD_LABELS[o.effluentMethod!].toLowerCase()}, and your easement to the septic tank for septage removal is recorded (${rb.entry("septic.effluentToSewerAlternative").section}). ` +
      `The tank stays in use: it is still pumped by a licensed hauler` + (typeof pumping.value === "number" ? ` at least every ${pumping.value} years (${pumping.section}).` : ".");
  await emailPeople(tx, await ownerOf(tx, o.ownerUserId), district, "septic.connection_order_closed", `Connection order closed: ${o.address}`, text + (meta.publicUrl ? `\n\nSee it: ${link(meta, "/septic")}` : ""));
}

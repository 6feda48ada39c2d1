import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { decodeCursor, encodeCursor, pageSize } from "../common/paging.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import {
  SYSTEM_COLUMNS,
  SYSTEM_FROM,
  actorOf,
  clean,
  dateField,
  emailPeople,
  getSystem,
  link,
  loadDistrict,
  ownerOf,
  requireOperator,
  requireStaffOf,
  throwIfAny,
  type Db,
  type Meta,
  type SystemRow,
} from "./common.js";
import { attachPumpOuts } from "./orders.service.js";
import {
  BUILDING_USES,
  PUMP_OUT_REMINDER_DAYS,
  SYSTEM_KINDS,
  SYSTEM_KIND_LABELS,
  addressKey,
  pumpDueOn,
  sharedTankProblem,
  type Building,
  type BuildingUse,
  type SystemKind,
} from "./rules.js";

/** The register of septic tanks and cesspools (SUL 401, 402) and their pump-outs by licensed haulers (407). */

export type BuildingInput = { name: string; use: string };
export type RegisterInput = {
  propertyId: string;
  kind: string;
  buildings: BuildingInput[];
  description?: string | null;
  installedOn?: string | null;
  reportedPumpedOn?: string | null;
};

const MAX_BUILDINGS = 20;

/** The buildings as entered, each checked; the 402 problem beside the list. */
export function buildingsField(rb: Rulebook, input: BuildingInput[] | null | undefined, fields: Record<string, string>, key = "buildings"): Building[] {
  const list = (input ?? []).map((b) => ({ name: clean(b.name) ?? "", use: b.use as BuildingUse }));
  if (!list.length) fields[key] = "List the buildings the system serves.";
  else if (list.length > MAX_BUILDINGS) fields[key] = `List at most ${MAX_BUILDINGS} buildings.`;
  else if (list.some((b) => !b.name || b.name.length > 200)) fields[key] = "Name each building (up to 200 characters), e.g. \"House\" or \"Garage\".";
  else if (list.some((b) => !BUILDING_USES.includes(b.use))) fields[key] = "Say what each building is used for: a family's home, a separate business, or accessory to another building.";
  else {
    const problem = sharedTankProblem(rb, list);
    if (problem) fields[key] = problem;
  }
  return list;
}

/** The street address hauler loads name: the property's number and street. */
const propertyKey = (p: { street_number: string | null; street: string }) => addressKey(`${p.street_number ?? ""} ${p.street}`);

/**
 * The District Operator registers a property's septic tank or cesspool (SUL 401: private systems
 * are "enforced by the District Operator"), with the buildings it serves (402 refuses two homes or
 * businesses on one tank), its installation and the last pumping known. In Huron a system is
 * registered only to be ordered out of use (II-3): it has no pump-out clock.
 */
export async function registerSystem(ds: DataSource, viewer: Viewer, input: RegisterInput, meta: Meta): Promise<SystemRow> {
  const [property] = isUuid(input.propertyId ?? "")
    ? await ds.query(`SELECT id, district_id, street_number, street, owner_user_id FROM sewer_property WHERE id = $1`, [input.propertyId])
    : [];
  if (!property || !isStaff(viewer, property.district_id)) throw badInput({ propertyId: "Choose a property of the district's register." });
  requireOperator(viewer, property.district_id, "register septic systems");
  const district = await loadDistrict(ds, property.district_id);
  const rb = await rulebookOn(ds, district);
  const today = dateIn(district.timeZone);
  const fields: Record<string, string> = {};
  if (!SYSTEM_KINDS.includes(input.kind as SystemKind)) fields.kind = "Choose a septic tank or a cesspool.";
  const buildings = buildingsField(rb, input.buildings, fields);
  const description = clean(input.description);
  if (description && description.length > 500) fields.description = "Use at most 500 characters.";
  const installedOn = dateField(fields, "installedOn", input.installedOn, { max: today });
  const reportedPumpedOn = dateField(fields, "reportedPumpedOn", input.reportedPumpedOn, { max: today });
  if (installedOn && reportedPumpedOn && reportedPumpedOn < installedOn) fields.reportedPumpedOn = "The last pumping cannot be before the installation.";
  throwIfAny(fields);
  return ds.transaction(async (tx) => {
    const due = pumpDueOn(rb, reportedPumpedOn, installedOn);
    const [{ id }] = await tx.query(
      `INSERT INTO septic_system (district_id, property_id, kind, buildings, description, address_key, installed_on, reported_pumped_on, last_pumped_on, pump_due_on, registered_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10) RETURNING id`,
      [district.id, property.id, input.kind, JSON.stringify(buildings), description, propertyKey(property), installedOn, reportedPumpedOn, due, viewer.userId],
    );
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "septic.system_registered",
      entityType: "SepticSystem",
      entityId: id,
      districtId: district.id,
      details: { propertyId: property.id, kind: input.kind, buildings, installedOn, reportedPumpedOn, pumpDueOn: due },
    });
    const s = await getSystem(tx, viewer, id);
    const interval = rb.entry("septic.pumpingIntervalYears");
    await emailPeople(
      tx,
      await ownerOf(tx, property.owner_user_id),
      district,
      "septic.system_registered",
      `Your ${SYSTEM_KIND_LABELS[s.kind].toLowerCase()} at ${s.address} is on the district's register`,
      `The ${district.operatorTitle} recorded your ${SYSTEM_KIND_LABELS[s.kind].toLowerCase()} at ${s.address}.` +
        (typeof interval.value === "number"
          ? ` It is pumped by a licensed hauler at least every ${interval.value} years (${interval.section}); a licensed hauler's load from this address counts as its pump-out.` +
            (due ? ` The next pump-out is due by ${formatDate(due)}.` : " No pump-out is on record: have it pumped now.")
          : ` ${rb.entry("septic.systemsAllowed").note ?? ""} (${rb.entry("septic.systemsAllowed").section}).`) +
        `\n\nSee it: ${link(meta, "/septic")}`,
    );
    return s;
  });
}

// ---------------------------------------------------------------------------------------------
// Pump-outs (407)

export type PumpOutRow = { id: string; systemId: string; haulerLoadId: string; pumpedOn: CalendarDate; matchedBy: "ADDRESS" | "OPERATOR"; haulerName: string; licenseNumber: string | null; gallons: number | null };

/** The pump-outs of these systems, newest first (one query). */
export async function pumpOutsOf(db: Db, systemIds: readonly string[]): Promise<PumpOutRow[]> {
  if (!systemIds.length) return [];
  return db.query(
    `SELECT po.id, po.system_id AS "systemId", po.hauler_load_id AS "haulerLoadId", to_char(po.pumped_on, 'YYYY-MM-DD') AS "pumpedOn", po.matched_by AS "matchedBy",
            o.name AS "haulerName", hl.license_number AS "licenseNumber", l.measured_gallons AS gallons
       FROM septic_pump_out po JOIN hauler_load l ON l.id = po.hauler_load_id JOIN organization o ON o.id = l.organization_id
       LEFT JOIN hauler_license hl ON hl.id = l.license_id
      WHERE po.system_id = ANY($1::uuid[]) ORDER BY po.pumped_on DESC, po.recorded_at DESC`,
    [systemIds],
  );
}

export type RecentLoad = { id: string; sourceAddress: string; receivedOn: CalendarDate; haulerName: string; gallons: number | null };
/**
 * For the Operator's page of a system: licensed loads received at the district's station in the last
 * 90 days that are not yet this system's pump-outs, newest first (one query, at most 50).
 */
export async function recentLoadsFor(db: Db, s: { id: string; districtId: string }, timeZone: string): Promise<RecentLoad[]> {
  const rows: { id: string; source_address: string; received_at: Date; name: string; measured_gallons: number | null }[] = await db.query(
    `SELECT l.id, l.source_address, l.received_at, o.name, l.measured_gallons FROM hauler_load l JOIN organization o ON o.id = l.organization_id
      WHERE l.district_id = $1 AND l.status = 'RECEIVED' AND l.license_id IS NOT NULL AND l.received_at > now() - interval '90 days'
        AND NOT EXISTS (SELECT 1 FROM septic_pump_out po WHERE po.system_id = $2 AND po.hauler_load_id = l.id)
      ORDER BY l.received_at DESC LIMIT 50`,
    [s.districtId, s.id],
  );
  return rows.map((r) => ({ id: r.id, sourceAddress: r.source_address, receivedOn: dateIn(timeZone, r.received_at), haulerName: r.name, gallons: r.measured_gallons }));
}

/** Source kinds of a load that can be a septic tank's or cesspool's septage (a cesspool is booked as OTHER). */
const SEPTIC_SOURCE_KINDS = ["RESIDENTIAL_SEPTIC_TANK", "OTHER"];

type LoadForPumpOut = { id: string; districtId: string; licenseId: string | null; sourceAddress: string; sourceKind: string; receivedAt: Date | null };

/**
 * For api/haulers, in the transaction that records a load received at the station: a load from a
 * registered system's address, hauled under a licence (SUL 407: "by a licensed hauler"), is that
 * system's pump-out on the day it was received, and restarts its three years. One query to find the
 * systems whatever their number, one to insert, one to update them.
 */
export async function pumpOutFromLoad(tx: EntityManager, load: LoadForPumpOut): Promise<void> {
  if (!load.licenseId || !SEPTIC_SOURCE_KINDS.includes(load.sourceKind) || !load.receivedAt) return;
  const systems: { id: string; district_id: string; time_zone: string }[] = await tx.query(
    `SELECT s.id, s.district_id, d.time_zone FROM septic_system s JOIN district d ON d.id = s.district_id
      WHERE s.district_id = $1 AND s.address_key = $2 AND s.status = 'IN_USE' FOR UPDATE OF s`,
    [load.districtId, addressKey(load.sourceAddress)],
  );
  if (!systems.length) return;
  const pumpedOn = dateIn(systems[0].time_zone, load.receivedAt);
  await recordPumpOuts(tx, { userId: null }, systems.map((s) => s.id), load.id, pumpedOn, "ADDRESS", {});
}

/** Inserts the pump-outs, works out each system's last pumping and next due day, attaches them to open connection orders, audits and tells the owners. */
async function recordPumpOuts(tx: EntityManager, actor: { userId: string | null; requestId?: string }, systemIds: string[], loadId: string, pumpedOn: CalendarDate, matchedBy: "ADDRESS" | "OPERATOR", meta: Meta) {
  const inserted: { id: string; system_id: string }[] = await tx.query(
    `INSERT INTO septic_pump_out (system_id, hauler_load_id, pumped_on, matched_by, recorded_by_id)
     SELECT unnest($1::uuid[]), $2, $3, $4, $5 ON CONFLICT (system_id, hauler_load_id) DO NOTHING RETURNING id, system_id`,
    [systemIds, loadId, pumpedOn, matchedBy, actor.userId],
  );
  if (!inserted.length) return;
  const ids = inserted.map((r) => r.system_id);
  await refreshPumping(tx, ids);
  await attachPumpOuts(tx, actor, inserted.map((r) => ({ systemId: r.system_id, pumpOutId: r.id, pumpedOn })));
  const rows: (SystemRow & { email: string | null; displayName: string | null })[] = await tx.query(
    `SELECT ${SYSTEM_COLUMNS}, u.email, u.display_name AS "displayName" FROM ${SYSTEM_FROM} LEFT JOIN app_user u ON u.id = p.owner_user_id WHERE s.id = ANY($1::uuid[])`,
    [ids],
  );
  const district = await loadDistrict(tx, rows[0].districtId);
  for (const s of rows) {
    await audit(tx, actor, { action: "septic.pumped_out", entityType: "SepticSystem", entityId: s.id, districtId: s.districtId, details: { haulerLoadId: loadId, pumpedOn, matchedBy, pumpDueOn: s.pumpDueOn } });
  }
  const owners = rows.filter((s) => s.email && s.ownerUserId);
  for (const s of owners)
    await emailPeople(
      tx,
      [{ id: s.ownerUserId!, email: s.email!, display_name: s.displayName ?? "" }],
      district,
      "septic.pumped_out",
      `Pump-out recorded: ${s.address}`,
      `A licensed hauler's load from ${s.address}, received at the district's station on ${formatDate(pumpedOn)}, is recorded as your ${SYSTEM_KIND_LABELS[s.kind].toLowerCase()}'s pump-out.` +
        (s.pumpDueOn ? ` The next one is due by ${formatDate(s.pumpDueOn)}.` : "") +
        (meta.publicUrl ? `\n\nSee it: ${link(meta, "/septic")}` : ""),
    );
}

/**
 * Each system's last pumping (the latest of its loads and the pumping reported at registration) and
 * the day its next one is due under the law in force today in its district (SUL 407). Two
 * statements and the district's rulebook, whatever the number of systems (all of one district).
 */
export async function refreshPumping(tx: EntityManager, systemIds: string[]): Promise<void> {
  if (!systemIds.length) return;
  const rows: { id: string; district_id: string; installed_on: string | null; last: string | null }[] = await tx.query(
    `SELECT s.id, s.district_id, to_char(s.installed_on, 'YYYY-MM-DD') AS installed_on,
            to_char(greatest(s.reported_pumped_on, (SELECT max(po.pumped_on) FROM septic_pump_out po WHERE po.system_id = s.id)), 'YYYY-MM-DD') AS last
       FROM septic_system s WHERE s.id = ANY($1::uuid[])`,
    [systemIds],
  );
  const rulebooks = new Map<string, Rulebook>();
  for (const r of rows) if (!rulebooks.has(r.district_id)) rulebooks.set(r.district_id, await rulebookOn(tx, await loadDistrict(tx, r.district_id)));
  await tx.query(
    `UPDATE septic_system s SET last_pumped_on = x.last, pump_due_on = x.due, updated_at = now()
       FROM unnest($1::uuid[], $2::date[], $3::date[]) AS x(id, last, due) WHERE s.id = x.id`,
    [rows.map((r) => r.id), rows.map((r) => r.last), rows.map((r) => pumpDueOn(rulebooks.get(r.district_id)!, r.last, r.installed_on))],
  );
}

/**
 * The District Operator records a licensed hauler's received load as a system's pump-out when the
 * address the hauler wrote did not match the register's (SUL 407). The load must be of the same
 * district, received, and under a licence.
 */
export async function linkPumpOut(ds: DataSource, viewer: Viewer, input: { systemId: string; haulerLoadId: string }, meta: Meta): Promise<SystemRow> {
  return ds.transaction(async (tx) => {
    const s = await getSystem(tx, viewer, input.systemId, true);
    requireOperator(viewer, s.districtId, "record pump-outs");
    if (s.status !== "IN_USE") throw conflict("That system is no longer in use.");
    const [load] = isUuid(input.haulerLoadId ?? "")
      ? await tx.query(`SELECT l.id, l.district_id, l.license_id, l.status, l.received_at, d.time_zone FROM hauler_load l JOIN district d ON d.id = l.district_id WHERE l.id = $1`, [input.haulerLoadId])
      : [];
    if (!load || load.district_id !== s.districtId) throw badInput({ haulerLoadId: "Choose a load received at this district's station." });
    if (load.status !== "RECEIVED") throw badInput({ haulerLoadId: "Only a load received at the station is a pump-out; record it received first." });
    const rb = await rulebookOn(tx, await loadDistrict(tx, s.districtId));
    if (!load.license_id) throw badInput({ haulerLoadId: `A pump-out is by a licensed hauler (${rb.entry("septic.pumpingIntervalYears").section}); this load came under no licence.` });
    const [dup] = await tx.query(`SELECT 1 FROM septic_pump_out WHERE system_id = $1 AND hauler_load_id = $2`, [s.id, load.id]);
    if (dup) throw conflict("That load is already recorded as this system's pump-out.");
    await recordPumpOuts(tx, actorOf(viewer, meta.requestId), [s.id], load.id, dateIn(load.time_zone, load.received_at), "OPERATOR", meta);
    return getSystem(tx, viewer, s.id);
  });
}

// ---------------------------------------------------------------------------------------------
// Lists

export const SYSTEM_FILTERS = ["ALL", "OVERDUE", "DUE_SOON"] as const;
export type SystemFilter = (typeof SYSTEM_FILTERS)[number];
const NONE_KEY = "0001-01-01";

/**
 * The district's systems for its staff: ALL (newest first), OVERDUE (in use, due before today or no
 * pump-out on record, the longest overdue first) or DUE_SOON (due within PUMP_OUT_REMINDER_DAYS).
 * One statement a page, keyset on the index of its order.
 */
export async function districtSystems(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; filter?: string | null; first?: number | null; after?: string | null },
): Promise<{ items: SystemRow[]; nextCursor: string | null }> {
  requireStaffOf(viewer, input.districtId);
  const filter = (input.filter ?? "ALL") as SystemFilter;
  if (!SYSTEM_FILTERS.includes(filter)) throw badInput({ filter: "Choose all, overdue or due soon." });
  const first = pageSize(input.first, 25, 100);
  const district = await loadDistrict(ds, input.districtId);
  const today = dateIn(district.timeZone);
  if (filter === "ALL") {
    const cursor = decodeCursor(input.after, (k) => !Number.isNaN(Date.parse(k)));
    const rows = await ds.query(
      `SELECT ${SYSTEM_COLUMNS}, to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorKey" FROM ${SYSTEM_FROM}
        WHERE s.district_id = $1 AND ($2::timestamptz IS NULL OR (s.created_at, s.id) < ($2::timestamptz, $3::uuid))
        ORDER BY s.created_at DESC, s.id DESC LIMIT $4`,
      [input.districtId, cursor?.key ?? null, cursor?.id ?? null, first + 1],
    );
    return page(rows, first);
  }
  const cursor = decodeCursor(input.after, isCalendarDate);
  const [from, to] = filter === "OVERDUE" ? [NONE_KEY, addCalendarDays(today, -1)] : [today, addCalendarDays(today, PUMP_OUT_REMINDER_DAYS)];
  const rows = await ds.query(
    `SELECT ${SYSTEM_COLUMNS}, to_char(coalesce(s.pump_due_on, DATE '${NONE_KEY}'), 'YYYY-MM-DD') AS "cursorKey" FROM ${SYSTEM_FROM}
      WHERE s.district_id = $1 AND s.status = 'IN_USE'
        AND coalesce(s.pump_due_on, DATE '${NONE_KEY}') BETWEEN $2::date AND $3::date
        AND ($4::date IS NULL OR (coalesce(s.pump_due_on, DATE '${NONE_KEY}'), s.id) > ($4::date, $5::uuid))
      ORDER BY coalesce(s.pump_due_on, DATE '${NONE_KEY}'), s.id LIMIT $6`,
    [input.districtId, from, to, cursor?.key ?? null, cursor?.id ?? null, first + 1],
  );
  return page(rows, first);
}

function page(rows: (SystemRow & { cursorKey: string })[], first: number) {
  const items = rows.slice(0, first);
  const last = rows.length > first ? items[items.length - 1] : null;
  return { items: items.map(({ cursorKey: _k, ...r }) => r as SystemRow), nextCursor: last ? encodeCursor(last.cursorKey, last.id) : null };
}

/** The systems on properties the viewer owns of record (one query). */
export async function mySystems(ds: DataSource, viewer: Viewer): Promise<SystemRow[]> {
  return ds.query(`SELECT ${SYSTEM_COLUMNS} FROM ${SYSTEM_FROM} WHERE p.owner_user_id = $1 ORDER BY s.status DESC, s.created_at`, [viewer.userId]);
}

/** The systems of a property, for its staff or owner (one query after the property's check). */
export async function systemsOfProperty(ds: DataSource, viewer: Viewer, propertyId: string): Promise<SystemRow[]> {
  const [p] = isUuid(propertyId) ? await ds.query(`SELECT district_id, owner_user_id FROM sewer_property WHERE id = $1`, [propertyId]) : [];
  if (!p || !(isStaff(viewer, p.district_id) || p.owner_user_id === viewer.userId)) throw notFound("That property");
  return ds.query(`SELECT ${SYSTEM_COLUMNS} FROM ${SYSTEM_FROM} WHERE s.property_id = $1 ORDER BY s.created_at`, [propertyId]);
}

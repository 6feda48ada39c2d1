import { type DataSource, type EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { type Actor } from "../audit/audit.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { roleIn } from "../organizations/organizations.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { HaulerLicense, HaulerLoad, HaulerPermission, HaulerVehicle, type LoadStatus } from "./hauler.entity.js";
import { dumpingFeeCents, hhmm, licenseStanding, minutesOf, type Standing } from "./rules.js";

/** What every use case of septage haulers shares: loading with access, who hears what, vehicles and schedules checked, a load row read. */

export const LICENSE_PAYABLE = "HaulerLicense";
export const LOAD_PAYABLE = "HaulerLoad";
export const REMINDER_JOB = "haulers.expiry-reminders";
export const MAX_VEHICLES = 30;
export type Db = DataSource | EntityManager;
export type Meta = { requestId?: string; publicUrl: string };
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};
export const longText = (s: string | null | undefined): string | null => {
  const t = (s ?? "").trim();
  return t ? t : null;
};
export const normalizeName = (s: string) =>
  s
    .toLowerCase()
    .replace(/[.,']/g, "")
    .replace(/\b(inc|llc|ltd|co|corp|corporation|company)\b/g, "")
    .replace(/\s+/g, " ")
    .trim();

// ---------------------------------------------------------------------------------------------
// Loading and access

export async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = isUuid(id) ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw notFound("That district");
  return d;
}


/** The viewer's HAULER organization; NOT_FOUND to non-members; only its owner applies (SUL 802: the owner of the trucks). */
export async function haulerOrganization(db: Db, viewer: Viewer, organizationId: string, owner: boolean): Promise<Organization> {
  const role = await roleIn(db, viewer.userId, organizationId);
  if (!role) throw notFound("That organization");
  const org = await db.getRepository(Organization).findOneByOrFail({ id: organizationId });
  if (org.kind !== "HAULER") throw badInput({ organizationId: "Choose a hauling company (an organization of kind hauler)." });
  if (owner && role !== "OWNER") throw forbidden("Only the owner of the hauling company applies: the licence goes to the owner of the trucks (SUL 802).");
  return org;
}

/**
 * One record by id, locked when asked, if the viewer may see it; otherwise NOT_FOUND (never
 * FORBIDDEN, so ids of others' records say nothing).
 */
async function findVisible<T extends { organizationId: string; districtId: string }>(
  db: Db,
  viewer: Viewer,
  entity: new () => T,
  id: string,
  lock: boolean,
  what: string,
  staffMay: (x: T) => boolean,
): Promise<T> {
  if (!isUuid(id)) throw notFound(what);
  const q = db.getRepository(entity).createQueryBuilder("x").where("x.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const x = await q.getOne();
  if (!x) throw notFound(what);
  if ((await roleIn(db, viewer.userId, x.organizationId)) !== null) return x;
  if (staffMay(x)) return x;
  throw notFound(what);
}

/** Members of the organization see its licences; the district's staff see submitted ones. Others: NOT_FOUND. */
export const getLicense = (db: Db, viewer: Viewer, id: string, lock = false): Promise<HaulerLicense> =>
  findVisible(db, viewer, HaulerLicense, id, lock, "That licence", (l) => !!l.submittedAt && isStaff(viewer, l.districtId));

export const getPermission = (db: Db, viewer: Viewer, id: string, lock = false): Promise<HaulerPermission> =>
  findVisible(db, viewer, HaulerPermission, id, lock, "That special permission", (p) => isStaff(viewer, p.districtId));

export const getLoad = (db: Db, viewer: Viewer, id: string, lock = false): Promise<HaulerLoad> =>
  findVisible(db, viewer, HaulerLoad, id, lock, "That load", (x) => isStaff(viewer, x.districtId));

export const ownsOrg = async (db: Db, viewer: Viewer, organizationId: string) => (await roleIn(db, viewer.userId, organizationId)) === "OWNER";

export function requireRole(viewer: Viewer, role: "BOARD" | "OPERATOR" | "CLERK", districtId: string, what: string) {
  if (!hasRole(viewer, role, districtId)) throw forbidden(`Only ${role === "BOARD" ? "the Town Board" : role === "OPERATOR" ? "the District Operator" : "the Town Clerk"} of this district can ${what}.`);
}

export async function vehiclesOf(db: Db, owner: { licenseIds?: string[]; permissionIds?: string[] }): Promise<HaulerVehicle[]> {
  const l = owner.licenseIds ?? [];
  const p = owner.permissionIds ?? [];
  if (!l.length && !p.length) return [];
  return db
    .getRepository(HaulerVehicle)
    .createQueryBuilder("v")
    .where("v.license_id = ANY(:l::uuid[]) OR v.permission_id = ANY(:p::uuid[])", { l, p })
    .orderBy("v.position", "ASC")
    .getMany();
}

/** Owners of the organization (they hear about the licence); members book loads and hear about their loads. */
export async function peopleOf(db: Db, organizationId: string, ownersOnly: boolean): Promise<{ id: string; email: string; display_name: string }[]> {
  return db.query(
    `SELECT u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id
      WHERE m.organization_id = $1 ${ownersOnly ? "AND m.role = 'OWNER'" : ""} ORDER BY u.email`,
    [organizationId],
  );
}

export async function tell(tx: EntityManager, to: { id: string; email: string; display_name: string }[], districtId: string, kind: string, subject: string, body: string, link: string, district: District) {
  for (const p of to)
    await enqueueEmail(tx, {
      to: p.email,
      recipientId: p.id,
      districtId,
      kind,
      subject,
      body: `Hello ${p.display_name},\n\n${body}\n\n${link}\n\n${district.name}\n`,
    });
}

// A district's holders of a role, shared with the other features.
export { staffOf } from "../staff/staff-of.js";

/** The licence rules a district uses; CONFLICT when its law has no licences (Huron: special permission). */
export function requireLicensing(rb: Rulebook) {
  if (!rb.enabled("hauler.licensingEnabled")) {
    const e = rb.entry("hauler.licensingEnabled");
    throw conflict(`This district does not license haulers (${e.section}).${e.note ? ` ${e.note}` : ""} Ask for special permission instead.`);
  }
}
export const part364Opts = (rb: Rulebook) => ({ part364Required: rb.enabled("hauler.part364PermitRequired"), section: rb.entry("hauler.licenseTermMonths").section });

export async function standingOf(db: Db, l: HaulerLicense, district: District, day?: CalendarDate): Promise<Standing> {
  const rb = await rulebookOn(db, district);
  return licenseStanding(l, day ?? dateIn(district.timeZone), part364Opts(rb));
}

// ---------------------------------------------------------------------------------------------
// Vehicles

export type VehicleInput = { make?: string | null; model?: string | null; tankCapacityGallons?: number | null; plate?: string | null; plateState?: string | null; colour?: string | null; registeredOwner?: string | null };

export function checkVehicles(list: VehicleInput[] | null | undefined, fields: Record<string, string>): Omit<HaulerVehicle, "id" | "licenseId" | "permissionId">[] {
  const vehicles = (list ?? []).filter((v) => Object.values(v ?? {}).some((x) => x !== null && x !== undefined && String(x).trim() !== ""));
  if (vehicles.length > MAX_VEHICLES) fields.vehicles = `List at most ${MAX_VEHICLES} vehicles.`;
  // Each problem under its row's key ("vehicles.0.make"); forms name the row and column ("Make of vehicle 1").
  return vehicles.map((v, i) => {
    const at = (k: string) => `vehicles.${i}.${k}`;
    const make = clean(v.make);
    const model = clean(v.model);
    const plate = clean(v.plate)?.toUpperCase() ?? null;
    const plateState = (clean(v.plateState) ?? "NY").toUpperCase();
    const colour = clean(v.colour);
    const registeredOwner = clean(v.registeredOwner);
    const cap = v.tankCapacityGallons ?? null;
    if (!make || make.length > 100) fields[at("make")] = "Enter the make.";
    if (!model || model.length > 100) fields[at("model")] = "Enter the model.";
    if (cap === null || !Number.isInteger(cap) || cap < 1 || cap > 20000) fields[at("tankCapacityGallons")] = "Enter the tank capacity in whole gallons (1 to 20,000).";
    if (!plate || plate.length > 20) fields[at("plate")] = "Enter the licence plate number.";
    if (!/^[A-Z]{2}$/.test(plateState)) fields[at("plateState")] = "Enter the plate's state as two letters, like NY.";
    if (!colour || colour.length > 50) fields[at("colour")] = "Enter the colour.";
    if (!registeredOwner || registeredOwner.length > 200) fields[at("registeredOwner")] = "Enter the registered owner.";
    return { position: i, make: make ?? "", model: model ?? "", tankCapacityGallons: cap ?? 0, plate: plate ?? "", plateState, colour: colour ?? "", registeredOwner: registeredOwner ?? "" };
  });
}


export type ScheduleInput = { dumpingDays?: number[] | null; dumpingFrom?: string | null; dumpingTo?: string | null };
export function checkSchedule(input: ScheduleInput, fields: Record<string, string>) {
  const days = [...new Set(input.dumpingDays ?? [])].sort((a, b) => a - b);
  if (!days.length || days.some((d) => !Number.isInteger(d) || d < 0 || d > 6)) fields.dumpingDays = "Choose the days of the week when dumping is allowed.";
  const from = minutesOf(input.dumpingFrom);
  const to = minutesOf(input.dumpingTo);
  if (from === null) fields.dumpingFrom = "Enter the opening time like 07:00.";
  if (to === null) fields.dumpingTo = "Enter the closing time like 15:00.";
  else if (from !== null && to <= from) fields.dumpingTo = "The closing time must be after the opening time.";
  return { dumpingDays: days, dumpingFrom: hhmm(input.dumpingFrom), dumpingTo: hhmm(input.dumpingTo) };
}

/** The fee for the measured gallons less the fee paid on the estimate: positive is billed, negative credited. */
export function adjustmentCents(load: Pick<HaulerLoad, "measuredGallons" | "ratePer1000Cents" | "minimumCents" | "feeCents" | "status">): number {
  if (load.status !== "RECEIVED" || load.measuredGallons === null || load.ratePer1000Cents === null) return 0;
  return dumpingFeeCents(load.measuredGallons, load.ratePer1000Cents, load.minimumCents ?? 0) - load.feeCents;
}

export function toLoad(r: any): Partial<HaulerLoad> {
  return {
    id: r.id,
    districtId: r.district_id,
    organizationId: r.organization_id,
    licenseId: r.license_id,
    permissionId: r.permission_id,
    vehicleId: r.vehicle_id,
    bookedById: r.booked_by_id,
    status: r.status as LoadStatus,
    sourceAddress: r.source_address,
    sourceKind: r.source_kind,
    sourceDescription: r.source_description,
    estimatedGallons: r.estimated_gallons,
    plannedArrival: new Date(r.planned_arrival),
    rulebookVersionId: r.rulebook_version_id,
    ratePer1000Cents: r.rate_per_1000_cents,
    minimumCents: r.minimum_cents,
    feeCents: r.fee_cents,
    paymentId: r.payment_id,
    paidAt: r.paid_at ? new Date(r.paid_at) : null,
    sampleRequired: r.sample_required,
    sampleCostCents: r.sample_cost_cents,
    sampleNotes: r.sample_notes,
    decidedAt: r.decided_at ? new Date(r.decided_at) : null,
    decidedById: r.decided_by_id,
    refusalReason: r.refusal_reason,
    refundDue: r.refund_due,
    measuredGallons: r.measured_gallons,
    receivedAt: r.received_at ? new Date(r.received_at) : null,
    receivedById: r.received_by_id,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

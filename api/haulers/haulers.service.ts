import { In, type DataSource, type EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, dateIn, daysBetween, formatDate, isCalendarDate, endOfDay, zonedInstant, type CalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { formatCents } from "../common/money.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { District } from "../districts/district.entity.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { Organization } from "../organizations/organization.entity.js";
import { roleIn } from "../organizations/organizations.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { cancelPendingPayments, createPayment, isPaid, registerPayable, type Payment } from "../payments/payments.service.js";
import {
  HaulerLicense,
  HaulerLoad,
  HaulerPermission,
  HaulerVehicle,
  SOURCE_KINDS,
  type LoadStatus,
  type SourceKind,
} from "./hauler.entity.js";
import {
  DAY_NAMES,
  SOURCE_KIND_LABELS,
  describeSchedule,
  dumpingFeeCents,
  hhmm,
  insideSchedule,
  licenseEnd,
  licenseNumber,
  licenseStanding,
  minutesOf,
  permissionStanding,
  reminderDue,
  renewalOpensOn,
  wallClock,
  type Standing,
} from "./rules.js";

/**
 * Septage haulers (SUL Article 8, 1208; Huron IV-8). A HAULER organization's owner applies for the
 * Town Board's annual licence, pays the application fee (at most the rulebook's cap, SUL 801)
 * before the Board reviews it; the Board approves (stating where, which days and what hours
 * dumping is allowed, SUL 803) or denies. Drivers book loads and pay the dumping fee before
 * dumping (SUL 801, 1208); the District Operator approves or refuses each load, may order a sample
 * at the licensee's cost (SUL 804) and records the gallons received. Whether a licence is in force
 * is worked out from its dates (SUL 802): no job flips a status when a date passes. In Huron there
 * are no licences: the Superintendent grants written special permission (Huron IV-8) in their place.
 *
 * Every change is one transaction with its audit entry and its emails.
 */

export const LICENSE_PAYABLE = "HaulerLicense";
export const LOAD_PAYABLE = "HaulerLoad";
export const REMINDER_JOB = "haulers.expiry-reminders";
const MAX_VEHICLES = 30;
type Db = DataSource | EntityManager;
type Meta = { requestId?: string; publicUrl: string };
const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};
const longText = (s: string | null | undefined): string | null => {
  const t = (s ?? "").trim();
  return t ? t : null;
};
const normalizeName = (s: string) =>
  s
    .toLowerCase()
    .replace(/[.,']/g, "")
    .replace(/\b(inc|llc|ltd|co|corp|corporation|company)\b/g, "")
    .replace(/\s+/g, " ")
    .trim();

// ---------------------------------------------------------------------------------------------
// Loading and access

async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = isUuid(id) ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw notFound("That district");
  return d;
}


/** The viewer's HAULER organization; NOT_FOUND to non-members; only its owner applies (SUL 802: the owner of the trucks). */
async function haulerOrganization(db: Db, viewer: Viewer, organizationId: string, owner: boolean): Promise<Organization> {
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

const ownsOrg = async (db: Db, viewer: Viewer, organizationId: string) => (await roleIn(db, viewer.userId, organizationId)) === "OWNER";

function requireRole(viewer: Viewer, role: "BOARD" | "OPERATOR" | "CLERK", districtId: string, what: string) {
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
async function peopleOf(db: Db, organizationId: string, ownersOnly: boolean): Promise<{ id: string; email: string; display_name: string }[]> {
  return db.query(
    `SELECT u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id
      WHERE m.organization_id = $1 ${ownersOnly ? "AND m.role = 'OWNER'" : ""} ORDER BY u.email`,
    [organizationId],
  );
}

async function tell(tx: EntityManager, to: { id: string; email: string; display_name: string }[], districtId: string, kind: string, subject: string, body: string, link: string, district: District) {
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

async function staffOf(db: Db, districtId: string, role: "BOARD" | "OPERATOR" | "CLERK") {
  return db.query(`SELECT u.id, u.email, u.display_name FROM staff_role s JOIN app_user u ON u.id = s.user_id WHERE s.district_id = $1 AND s.role = $2 ORDER BY u.email`, [
    districtId,
    role,
  ]) as Promise<{ id: string; email: string; display_name: string }[]>;
}

/** The licence rules a district uses; CONFLICT when its law has no licences (Huron: special permission). */
function requireLicensing(rb: Rulebook) {
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

function checkVehicles(list: VehicleInput[] | null | undefined, fields: Record<string, string>): Omit<HaulerVehicle, "id" | "licenseId" | "permissionId">[] {
  const vehicles = (list ?? []).filter((v) => Object.values(v ?? {}).some((x) => x !== null && x !== undefined && String(x).trim() !== ""));
  if (vehicles.length > MAX_VEHICLES) fields.vehicles = `List at most ${MAX_VEHICLES} vehicles.`;
  return vehicles.map((v, i) => {
    const at = (k: string) => `vehicles.${i}.${k}`;
    const make = clean(v.make);
    const model = clean(v.model);
    const plate = clean(v.plate)?.toUpperCase() ?? null;
    const plateState = (clean(v.plateState) ?? "NY").toUpperCase();
    const colour = clean(v.colour);
    const registeredOwner = clean(v.registeredOwner);
    const cap = v.tankCapacityGallons ?? null;
    if (!make || make.length > 100) fields[at("make")] = `Vehicle ${i + 1}: enter the make.`;
    if (!model || model.length > 100) fields[at("model")] = `Vehicle ${i + 1}: enter the model.`;
    if (cap === null || !Number.isInteger(cap) || cap < 1 || cap > 20000) fields[at("tankCapacityGallons")] = `Vehicle ${i + 1}: enter the tank capacity in whole gallons (1 to 20,000).`;
    if (!plate || plate.length > 20) fields[at("plate")] = `Vehicle ${i + 1}: enter the licence plate number.`;
    if (!/^[A-Z]{2}$/.test(plateState)) fields[at("plateState")] = `Vehicle ${i + 1}: enter the plate's state as two letters, like NY.`;
    if (!colour || colour.length > 50) fields[at("colour")] = `Vehicle ${i + 1}: enter the colour.`;
    if (!registeredOwner || registeredOwner.length > 200) fields[at("registeredOwner")] = `Vehicle ${i + 1}: enter the registered owner.`;
    return { position: i, make: make ?? "", model: model ?? "", tankCapacityGallons: cap ?? 0, plate: plate ?? "", plateState, colour: colour ?? "", registeredOwner: registeredOwner ?? "" };
  });
}

// ---------------------------------------------------------------------------------------------
// Licence applications (SUL 801-802)

export type LicenseDraftInput = {
  id?: string | null;
  organizationId?: string | null;
  districtId?: string | null;
  part364PermitNumber?: string | null;
  part364ExpiresOn?: string | null;
  part364DocumentId?: string | null;
  annualVolumeGallons?: number | null;
  serviceArea?: string | null;
  otherInformation?: string | null;
  vehicles?: VehicleInput[] | null;
};

/** Saves the application as a draft (new, or the owner's own draft). Completeness is checked on submission. */
export async function saveLicenseDraft(ds: DataSource, viewer: Viewer, input: LicenseDraftInput, requestId?: string): Promise<HaulerLicense> {
  const fields: Record<string, string> = {};
  const permitNumber = clean(input.part364PermitNumber);
  if (permitNumber && permitNumber.length > 50) fields.part364PermitNumber = "Use at most 50 characters.";
  const expires = clean(input.part364ExpiresOn);
  if (expires && !isCalendarDate(expires)) fields.part364ExpiresOn = "Enter the expiry date like 2027-06-30.";
  const docId = clean(input.part364DocumentId);
  if (docId && !isUuid(docId)) fields.part364DocumentId = "Choose the permit from your uploaded documents.";
  const volume = input.annualVolumeGallons ?? null;
  if (volume !== null && (!Number.isInteger(volume) || volume < 1 || volume > 100_000_000)) fields.annualVolumeGallons = "Enter the approximate annual volume in whole gallons (more than zero).";
  const serviceArea = longText(input.serviceArea);
  if (serviceArea && serviceArea.length > 1000) fields.serviceArea = "Use at most 1,000 characters.";
  const other = longText(input.otherInformation);
  if (other && other.length > 4000) fields.otherInformation = "Use at most 4,000 characters.";
  const vehicles = checkVehicles(input.vehicles, fields);
  if (Object.keys(fields).length) throw badInput(fields);

  return ds.transaction(async (tx) => {
    let l: HaulerLicense;
    const creating = !input.id;
    if (creating) {
      const org = await haulerOrganization(tx, viewer, clean(input.organizationId) ?? "", true);
      const district = await loadDistrict(tx, clean(input.districtId) ?? "").catch(() => {
        throw badInput({ districtId: "Choose the sewer district whose receiving station you will use." });
      });
      requireLicensing(await rulebookOn(tx, district));
      l = tx.create(HaulerLicense, { organizationId: org.id, districtId: district.id, applicantId: viewer.userId, status: "DRAFT", remindersSent: [] });
    } else {
      l = await getLicense(tx, viewer, input.id!, true);
      if (!(await ownsOrg(tx, viewer, l.organizationId))) throw forbidden("Only the owner of the hauling company changes the application.");
      if (l.status !== "DRAFT") throw conflict("Only a draft can be changed; this application is already submitted.");
    }
    if (docId) {
      const ok: unknown[] = await tx.query(`SELECT 1 FROM document WHERE id = $1 AND (owner_id = $2 OR organization_id = $3)`, [docId, viewer.userId, l.organizationId]);
      if (!ok.length) throw badInput({ part364DocumentId: "Attach the Part 364 permit from your own uploaded documents." });
    }
    Object.assign(l, {
      part364PermitNumber: permitNumber,
      part364ExpiresOn: expires,
      part364DocumentId: docId,
      annualVolumeGallons: volume,
      serviceArea,
      otherInformation: other,
      updatedAt: clock.now(),
    });
    l = await tx.save(l);
    await tx.delete(HaulerVehicle, { licenseId: l.id });
    if (vehicles.length) await tx.insert(HaulerVehicle, vehicles.map((v) => ({ ...v, licenseId: l.id, permissionId: null })));
    await audit(tx, actorOf(viewer, requestId), {
      action: creating ? "hauler.license_draft_created" : "hauler.license_draft_saved",
      entityType: "HaulerLicense",
      entityId: l.id,
      districtId: l.districtId,
      details: { vehicles: vehicles.length, renewalOf: l.previousLicenseId },
    });
    return l;
  });
}

/**
 * Checks the application (SUL 801-802): the vehicles, each owned by the applicant; the Part 364
 * permit, in force and uploaded; the annual volume and service area; the applicant's certification.
 * The fee comes from the rulebook and may not exceed its cap (SUL 801); the payment is opened and
 * the Board reviews once it is paid.
 */
export async function submitLicense(ds: DataSource, viewer: Viewer, input: { id: string; certify: boolean }, meta: Meta): Promise<HaulerLicense> {
  return ds.transaction(async (tx) => {
    const l = await getLicense(tx, viewer, input.id, true);
    if (!(await ownsOrg(tx, viewer, l.organizationId))) throw forbidden("Only the owner of the hauling company submits the application.");
    if (l.status !== "DRAFT") throw conflict("This application is already submitted.");
    const district = await loadDistrict(tx, l.districtId);
    const rb = await rulebookOn(tx, district);
    requireLicensing(rb);
    const today = dateIn(district.timeZone);
    const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
    const vehicles = await vehiclesOf(tx, { licenseIds: [l.id] });
    const s801 = rb.entry("hauler.applicationFee").section;
    const s802 = rb.entry("hauler.applicantMustOwnVehicles").section;

    const fields: Record<string, string> = {};
    if (!vehicles.length) fields.vehicles = `List each vehicle that will carry septage: make, model, tank capacity, plate and colour (${s801}).`;
    if (rb.enabled("hauler.applicantMustOwnVehicles")) {
      const owners = await peopleOf(tx, l.organizationId, true);
      const allowed = new Set([normalizeName(org.name), ...owners.map((o) => normalizeName(o.display_name))]);
      vehicles.forEach((v, i) => {
        if (!allowed.has(normalizeName(v.registeredOwner)))
          fields[`vehicles.${i}.registeredOwner`] =
            `Vehicle ${i + 1} (${v.plate}) is registered to ${v.registeredOwner}, not to ${org.name} or its owner: the applicant must own the vehicles (${s802}).`;
      });
    }
    if (rb.enabled("hauler.part364PermitRequired")) {
      const s = rb.entry("hauler.part364PermitRequired").section;
      if (!l.part364PermitNumber) fields.part364PermitNumber = `Enter the NYSDEC Part 364 waste transporter permit number (${s}).`;
      if (!l.part364ExpiresOn) fields.part364ExpiresOn = "Enter the Part 364 permit's expiry date.";
      else if (l.part364ExpiresOn < today) fields.part364ExpiresOn = `The Part 364 permit expired on ${formatDate(l.part364ExpiresOn)}; a licence needs a permit in force (${s}).`;
      if (!l.part364DocumentId) fields.part364DocumentId = "Upload the Part 364 permit (PDF, PNG or JPEG).";
    }
    if (!l.annualVolumeGallons) fields.annualVolumeGallons = `Enter the approximate annual septage volume in gallons (${s801}).`;
    if (!l.serviceArea) fields.serviceArea = `Describe the service area (${s801}).`;
    if (!input.certify) fields.certify = `Certify that the statements are true: a false or misleading statement voids the licence (${s802}).`;
    if (Object.keys(fields).length) throw badInput(fields);

    const fee = rb.require("hauler.applicationFee");
    const max = rb.entry("hauler.applicationFeeMax");
    if (typeof max.value === "number" && fee.value > max.value)
      throw conflict(`The district's application fee of ${formatCents(fee.value)} is over the ${formatCents(max.value)} the law allows (${max.section}); the ADMIN must correct the rulebook.`);
    l.applicationFeeCents = fee.value;
    l.rulebookVersionId = rb.version.id;
    l.certifiedAt = clock.now();
    l.certifiedById = viewer.userId;
    l.submittedAt = clock.now();
    l.status = "SUBMITTED";
    l.updatedAt = clock.now();
    await tx.save(l);
    if (fee.value > 0) {
      const payment = await createPayment(tx, actorOf(viewer, meta.requestId), {
        districtId: l.districtId,
        payerId: viewer.userId,
        payableType: LICENSE_PAYABLE,
        payableId: l.id,
        lines: [{ code: "application-fee", label: "Hauler licence application fee", section: fee.section, amountCents: fee.value }],
        rulebookVersionId: rb.version.id,
      });
      l.paymentId = payment.id;
      await tx.update(HaulerLicense, { id: l.id }, { paymentId: payment.id });
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: l.previousLicenseId ? "hauler.renewal_submitted" : "hauler.license_submitted",
      entityType: "HaulerLicense",
      entityId: l.id,
      districtId: l.districtId,
      details: { applicationFeeCents: fee.value, paymentId: l.paymentId, vehicles: vehicles.length, certified: true, renewalOf: l.previousLicenseId },
    });
    await tell(
      tx,
      await peopleOf(tx, l.organizationId, true),
      l.districtId,
      "hauler.license_submitted",
      `${l.previousLicenseId ? "Licence renewal" : "Hauler licence application"} received: ${org.name}`,
      `We received ${org.name}'s ${l.previousLicenseId ? "renewal of its" : "application for a"} septage hauler licence with ${vehicles.length} vehicle${vehicles.length === 1 ? "" : "s"}.\n\n` +
        (fee.value > 0
          ? `Application fee: ${formatCents(fee.value)} (${fee.section}). The Town Board reviews the application once it is paid:\n${meta.publicUrl}/payments/${l.paymentId}`
          : "The Town Board reviews the application."),
      `See the application: ${meta.publicUrl}/haulers/licenses/${l.id}`,
      district,
    );
    return l;
  });
}

async function nextLicenseNumber(tx: EntityManager, district: District): Promise<string> {
  const year = dateIn(district.timeZone).slice(0, 4);
  const [row] = await tx.query(
    `INSERT INTO hauler_license_counter (district_id, year, last) VALUES ($1, $2, 1)
     ON CONFLICT (district_id, year) DO UPDATE SET last = hauler_license_counter.last + 1 RETURNING last`,
    [district.id, Number(year)],
  );
  return licenseNumber(district.slug, year, row.last);
}

export type ScheduleInput = { dumpingDays?: number[] | null; dumpingFrom?: string | null; dumpingTo?: string | null };
function checkSchedule(input: ScheduleInput, fields: Record<string, string>) {
  const days = [...new Set(input.dumpingDays ?? [])].sort((a, b) => a - b);
  if (!days.length || days.some((d) => !Number.isInteger(d) || d < 0 || d > 6)) fields.dumpingDays = "Choose the days of the week when dumping is allowed.";
  const from = minutesOf(input.dumpingFrom);
  const to = minutesOf(input.dumpingTo);
  if (from === null) fields.dumpingFrom = "Enter the opening time like 07:00.";
  if (to === null) fields.dumpingTo = "Enter the closing time like 15:00.";
  else if (from !== null && to <= from) fields.dumpingTo = "The closing time must be after the opening time.";
  return { dumpingDays: days, dumpingFrom: hhmm(input.dumpingFrom), dumpingTo: hhmm(input.dumpingTo) };
}

/**
 * The Town Board decides (SUL 801): approve, stating the dumping location, days and hours (SUL 803),
 * or deny with reasons. Not before the application fee is paid. A licence runs one term (SUL 802)
 * from approval; a renewal approved before the old licence ends starts the day after it ends.
 */
export async function decideLicense(
  ds: DataSource,
  viewer: Viewer,
  input: { id: string; decision: string; reason?: string | null; dumpingLocation?: string | null } & ScheduleInput,
  meta: Meta,
): Promise<HaulerLicense> {
  const reason = longText(input.reason);
  const fields: Record<string, string> = {};
  if (input.decision !== "APPROVE" && input.decision !== "DENY") fields.decision = "Approve or deny.";
  if (reason && reason.length > 4000) fields.reason = "Use at most 4,000 characters.";
  if (input.decision === "DENY" && !reason) fields.reason = "Give the reasons for the denial; the hauler reads them.";
  const location = clean(input.dumpingLocation);
  let schedule = { dumpingDays: [] as number[], dumpingFrom: "", dumpingTo: "" };
  if (input.decision === "APPROVE") {
    if (!location || location.length > 500) fields.dumpingLocation = "State where dumping is allowed (SUL 803).";
    schedule = checkSchedule(input, fields);
  }
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const l = await getLicense(tx, viewer, input.id, true);
    requireRole(viewer, "BOARD", l.districtId, "decide hauler licences");
    if (l.status !== "SUBMITTED") throw conflict("Only a submitted application is decided.");
    if (l.paymentId && !(await isPaid(tx, LICENSE_PAYABLE, l.id)))
      throw new AppError("PAYMENT_REQUIRED", `The application fee of ${formatCents(l.applicationFeeCents ?? 0)} is not paid yet; the Board reviews the application once it is.`);
    const district = await loadDistrict(tx, l.districtId);
    const rb = await rulebookOn(tx, district);
    const today = dateIn(district.timeZone);
    const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
    const link = `See the licence: ${meta.publicUrl}/haulers/licenses/${l.id}`;
    if (input.decision === "DENY") {
      Object.assign(l, { status: "DENIED", decidedAt: clock.now(), decidedById: viewer.userId, decisionReason: reason, updatedAt: clock.now() });
      await tx.save(l);
      await audit(tx, actorOf(viewer, meta.requestId), { action: "hauler.license_denied", entityType: "HaulerLicense", entityId: l.id, districtId: l.districtId, reason });
      await tell(tx, await peopleOf(tx, l.organizationId, true), l.districtId, "hauler.license_denied", `Hauler licence denied: ${org.name}`, `The Town Board denied ${org.name}'s licence application (${rb.entry("hauler.licensingEnabled").section}):\n\n${reason}`, link, district);
      return l;
    }
    const term = rb.require("hauler.licenseTermMonths");
    let validFrom = today;
    if (l.previousLicenseId) {
      const prev = await tx.findOneBy(HaulerLicense, { id: l.previousLicenseId });
      // A renewal approved before the old licence ends starts the day after its last day.
      if (prev?.validUntil && prev.status === "APPROVED" && prev.validUntil >= today) validFrom = addCalendarDays(prev.validUntil, 1);
    }
    Object.assign(l, {
      status: "APPROVED",
      licenseNumber: await nextLicenseNumber(tx, district),
      decidedAt: clock.now(),
      decidedById: viewer.userId,
      decisionReason: reason,
      validFrom,
      // A full year from its own first day (SUL 802), 29 February included: a renewal starting the
      // day after the old last day continues the chain with no gap and no overlap.
      validUntil: licenseEnd(validFrom, term.value),
      dumpingLocation: location,
      ...schedule,
      updatedAt: clock.now(),
    });
    await tx.save(l);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "hauler.license_approved",
      entityType: "HaulerLicense",
      entityId: l.id,
      districtId: l.districtId,
      reason,
      details: { licenseNumber: l.licenseNumber, validFrom: l.validFrom, validUntil: l.validUntil, dumpingLocation: location, ...schedule, renewalOf: l.previousLicenseId },
    });
    await tell(
      tx,
      await peopleOf(tx, l.organizationId, true),
      l.districtId,
      "hauler.license_approved",
      `Hauler licence ${l.licenseNumber} approved: ${org.name}`,
      `The Town Board approved ${org.name}'s septage hauler licence ${l.licenseNumber} (${term.section}).\n\n` +
        `Valid from ${formatDate(l.validFrom!)} to ${formatDate(l.validUntil!)}.\n` +
        `Dumping allowed at: ${location}\nDays and hours: ${describeSchedule(l)} (${rb.entry("hauler.dumpingDays").section})\n\n` +
        `Book each load in the portal and pay its dumping fee before you come (${rb.entry("hauler.dumpingFeePaidBeforeDumping").section}).`,
      link,
      district,
    );
    return l;
  });
}

/** The owner starts the renewal once the window opens (hauler.renewalWindowDays before expiry): vehicles and answers are copied. */
export async function startRenewal(ds: DataSource, viewer: Viewer, licenseId: string, requestId?: string): Promise<HaulerLicense> {
  return ds.transaction(async (tx) => {
    const old = await getLicense(tx, viewer, licenseId, true);
    if (!(await ownsOrg(tx, viewer, old.organizationId))) throw forbidden("Only the owner of the hauling company renews the licence.");
    if (old.status !== "APPROVED" || !old.validUntil) throw conflict("Only an approved licence is renewed.");
    const district = await loadDistrict(tx, old.districtId);
    const rb = await rulebookOn(tx, district);
    const today = dateIn(district.timeZone);
    const window = rb.require("hauler.renewalWindowDays");
    const opens = renewalOpensOn(old.validUntil, window.value);
    if (today < opens) throw conflict(`Renewal opens on ${formatDate(opens)}, ${window.value} days before the licence ends (${window.section}).`);
    const existing = await tx.findOne(HaulerLicense, { where: { previousLicenseId: old.id, status: In(["DRAFT", "SUBMITTED", "APPROVED"]) } });
    if (existing) return existing;
    const l = await tx.save(
      tx.create(HaulerLicense, {
        organizationId: old.organizationId,
        districtId: old.districtId,
        applicantId: viewer.userId,
        previousLicenseId: old.id,
        status: "DRAFT",
        part364PermitNumber: old.part364PermitNumber,
        part364ExpiresOn: old.part364ExpiresOn,
        part364DocumentId: old.part364DocumentId,
        annualVolumeGallons: old.annualVolumeGallons,
        serviceArea: old.serviceArea,
        otherInformation: old.otherInformation,
        remindersSent: [],
      }),
    );
    const vehicles = await vehiclesOf(tx, { licenseIds: [old.id] });
    if (vehicles.length) await tx.insert(HaulerVehicle, vehicles.map(({ id: _id, ...v }) => ({ ...v, licenseId: l.id, permissionId: null })));
    await audit(tx, actorOf(viewer, requestId), { action: "hauler.renewal_started", entityType: "HaulerLicense", entityId: l.id, districtId: l.districtId, details: { renewalOf: old.id, vehicles: vehicles.length } });
    return l;
  });
}

/** The owner files a renewed Part 364 permit: a licence invalid for a lapsed or revoked permit is in force again (SUL 802). */
export async function updatePart364(
  ds: DataSource,
  viewer: Viewer,
  input: { licenseId: string; permitNumber: string; expiresOn: string; documentId: string },
  meta: Meta,
): Promise<HaulerLicense> {
  const fields: Record<string, string> = {};
  const number = clean(input.permitNumber);
  if (!number || number.length > 50) fields.permitNumber = "Enter the Part 364 permit number.";
  if (!isCalendarDate(input.expiresOn ?? "")) fields.expiresOn = "Enter the expiry date like 2027-06-30.";
  if (!isUuid(input.documentId ?? "")) fields.documentId = "Upload the renewed permit.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const l = await getLicense(tx, viewer, input.licenseId, true);
    if (!(await ownsOrg(tx, viewer, l.organizationId))) throw forbidden("Only the owner of the hauling company files the Part 364 permit.");
    if (l.status !== "APPROVED") throw conflict("Only an approved licence takes a renewed Part 364 permit.");
    const district = await loadDistrict(tx, l.districtId);
    if (input.expiresOn < dateIn(district.timeZone)) throw badInput({ expiresOn: "This permit has already expired; file one in force." });
    const ok: unknown[] = await tx.query(`SELECT 1 FROM document WHERE id = $1 AND (owner_id = $2 OR organization_id = $3)`, [input.documentId, viewer.userId, l.organizationId]);
    if (!ok.length) throw badInput({ documentId: "Attach the permit from your own uploaded documents." });
    const before = { number: l.part364PermitNumber, expiresOn: l.part364ExpiresOn, revoked: l.part364RevokedAt !== null };
    Object.assign(l, { part364PermitNumber: number, part364ExpiresOn: input.expiresOn, part364DocumentId: input.documentId, part364RevokedAt: null, updatedAt: clock.now() });
    await tx.save(l);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "hauler.part364_updated",
      entityType: "HaulerLicense",
      entityId: l.id,
      districtId: l.districtId,
      details: { before, after: { number, expiresOn: input.expiresOn } },
    });
    const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
    await tell(tx, await staffOf(tx, l.districtId, "OPERATOR"), l.districtId, "hauler.part364_updated", `Part 364 permit filed: ${org.name}, licence ${l.licenseNumber}`,
      `${org.name} filed Part 364 permit ${number}, expiring ${formatDate(input.expiresOn)}, on licence ${l.licenseNumber}.`, `See the licence: ${meta.publicUrl}/staff/haulers/${l.id}`, district);
    return l;
  });
}

/** The District Operator suspends, revokes or reinstates a licence for wilful or persistent violations, or records the Part 364 permit revoked (SUL 802). */
export async function actOnLicense(ds: DataSource, viewer: Viewer, input: { id: string; action: string; reason: string }, meta: Meta): Promise<HaulerLicense> {
  const reason = longText(input.reason);
  const ACTIONS = ["SUSPEND", "REVOKE", "REINSTATE", "PART364_REVOKED"];
  const fields: Record<string, string> = {};
  if (!ACTIONS.includes(input.action)) fields.action = "Suspend, revoke, reinstate, or record the Part 364 permit revoked.";
  if (!reason || reason.length > 4000) fields.reason = "Give the reason (up to 4,000 characters); the hauler reads it.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const l = await getLicense(tx, viewer, input.id, true);
    requireRole(viewer, "OPERATOR", l.districtId, "suspend or revoke a hauler licence");
    const district = await loadDistrict(tx, l.districtId);
    const rb = await rulebookOn(tx, district);
    const section = rb.entry("hauler.licenseTermMonths").section;
    const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
    let subject: string;
    let body: string;
    if (input.action === "SUSPEND" || input.action === "REVOKE") {
      if (l.status !== "APPROVED" && !(input.action === "REVOKE" && l.status === "SUSPENDED")) throw conflict("Only an approved (or, to revoke, a suspended) licence can be.");
      l.status = input.action === "SUSPEND" ? "SUSPENDED" : "REVOKED";
      subject = `Hauler licence ${l.licenseNumber} ${input.action === "SUSPEND" ? "suspended" : "revoked"}: ${org.name}`;
      body = `The District Operator ${input.action === "SUSPEND" ? "suspended" : "revoked"} ${org.name}'s septage hauler licence ${l.licenseNumber} for wilful or persistent violation (${section}):\n\n${reason}\n\nNo loads are accepted while the licence is ${input.action === "SUSPEND" ? "suspended" : "revoked"}.`;
    } else if (input.action === "REINSTATE") {
      if (l.status !== "SUSPENDED") throw conflict("Only a suspended licence is reinstated.");
      l.status = "APPROVED";
      subject = `Hauler licence ${l.licenseNumber} reinstated: ${org.name}`;
      body = `The District Operator lifted the suspension of licence ${l.licenseNumber} (${section}):\n\n${reason}`;
    } else {
      if (l.status !== "APPROVED") throw conflict("Only an approved licence has a Part 364 permit to record as revoked.");
      if (l.part364RevokedAt) throw conflict("The Part 364 permit is already recorded as revoked.");
      l.part364RevokedAt = clock.now();
      subject = `Hauler licence ${l.licenseNumber} invalid: Part 364 permit revoked`;
      body = `The District Operator recorded that ${org.name}'s NYSDEC Part 364 permit ${l.part364PermitNumber ?? ""} was revoked:\n\n${reason}\n\nThe licence is invalid from now on (${section}); loads are refused. Upload a valid Part 364 permit on the licence page to be reinstated.`;
    }
    Object.assign(l, { actionAt: clock.now(), actionById: viewer.userId, actionReason: reason, updatedAt: clock.now() });
    await tx.save(l);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: `hauler.license_${input.action.toLowerCase()}`,
      entityType: "HaulerLicense",
      entityId: l.id,
      districtId: l.districtId,
      reason,
      details: { licenseNumber: l.licenseNumber, status: l.status },
    });
    await tell(tx, await peopleOf(tx, l.organizationId, false), l.districtId, `hauler.license_${input.action.toLowerCase()}`, subject, body, `See the licence: ${meta.publicUrl}/haulers/licenses/${l.id}`, district);
    return l;
  });
}

// ---------------------------------------------------------------------------------------------
// Huron: the Superintendent's written special permission (Huron IV-8)

export async function requestPermission(
  ds: DataSource,
  viewer: Viewer,
  input: { organizationId: string; districtId: string; requestedPoint: string; requestedConditions?: string | null; vehicles?: VehicleInput[] | null },
  meta: Meta,
): Promise<HaulerPermission> {
  const fields: Record<string, string> = {};
  const point = clean(input.requestedPoint);
  const conditions = longText(input.requestedConditions);
  if (!point || point.length > 500) fields.requestedPoint = "Say at which point you ask to discharge (up to 500 characters).";
  if (conditions && conditions.length > 4000) fields.requestedConditions = "Use at most 4,000 characters.";
  const vehicles = checkVehicles(input.vehicles, fields);
  if (!vehicles.length && !fields.vehicles) fields.vehicles = "List the vehicles that will carry the pumpage.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const org = await haulerOrganization(tx, viewer, input.organizationId, true);
    const district = await loadDistrict(tx, input.districtId);
    const rb = await rulebookOn(tx, district);
    const e = rb.entry("hauler.specialPermissionEnabled");
    if (!rb.enabled("hauler.specialPermissionEnabled")) throw conflict(`This district licenses haulers instead of granting special permission (${e.section}). Apply for a licence.`);
    const p = await tx.save(tx.create(HaulerPermission, { organizationId: org.id, districtId: district.id, requestedById: viewer.userId, status: "REQUESTED", requestedPoint: point!, requestedConditions: conditions }));
    await tx.insert(HaulerVehicle, vehicles.map((v) => ({ ...v, licenseId: null, permissionId: p.id })));
    await audit(tx, actorOf(viewer, meta.requestId), { action: "hauler.permission_requested", entityType: "HaulerPermission", entityId: p.id, districtId: district.id, details: { point, vehicles: vehicles.length } });
    await tell(tx, await staffOf(tx, district.id, "OPERATOR"), district.id, "hauler.permission_requested", `Special permission requested: ${org.name}`,
      `${org.name} asks for written special permission to discharge septic tank pumpage at: ${point} (${e.section}).${conditions ? `\n\nProposed conditions: ${conditions}` : ""}`,
      `Decide it: ${meta.publicUrl}/staff/haulers?districtId=${district.id}`, district);
    await tell(tx, await peopleOf(tx, org.id, true), district.id, "hauler.permission_requested", `Special permission requested: ${district.name}`,
      `We received ${org.name}'s request for written special permission to discharge septic tank pumpage at ${point} (${e.section}). The Superintendent decides it and states the point and conditions.`,
      `See it: ${meta.publicUrl}/haulers?organizationId=${org.id}`, district);
    return p;
  });
}

export async function decidePermission(
  ds: DataSource,
  viewer: Viewer,
  input: { id: string; decision: string; reason?: string | null; point?: string | null; conditions?: string | null; validFrom?: string | null; validUntil?: string | null } & ScheduleInput,
  meta: Meta,
): Promise<HaulerPermission> {
  const fields: Record<string, string> = {};
  const reason = longText(input.reason);
  if (input.decision !== "GRANT" && input.decision !== "DENY") fields.decision = "Grant or deny.";
  if (input.decision === "DENY" && !reason) fields.reason = "Give the reason for the denial.";
  const point = clean(input.point);
  const conditions = longText(input.conditions);
  let schedule = { dumpingDays: [] as number[], dumpingFrom: "", dumpingTo: "" };
  if (input.decision === "GRANT") {
    if (!point || point.length > 500) fields.point = "State the point of discharge.";
    if (!conditions || conditions.length > 4000) fields.conditions = "State the conditions of the permission.";
    if (!isCalendarDate(input.validFrom ?? "")) fields.validFrom = "Enter the first day like 2026-12-01.";
    if (!isCalendarDate(input.validUntil ?? "")) fields.validUntil = "Enter the last day like 2027-11-30.";
    else if (isCalendarDate(input.validFrom ?? "") && input.validUntil! < input.validFrom!) fields.validUntil = "The last day must not be before the first.";
    schedule = checkSchedule(input, fields);
  }
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const p = await getPermission(tx, viewer, input.id, true);
    requireRole(viewer, "OPERATOR", p.districtId, "grant special permission");
    if (p.status !== "REQUESTED") throw conflict("This request is already decided.");
    const granted = input.decision === "GRANT";
    const district = await loadDistrict(tx, p.districtId);
    const rb = await rulebookOn(tx, district);
    const section = rb.entry("hauler.specialPermissionEnabled").section;
    const org = await tx.findOneByOrFail(Organization, { id: p.organizationId });
    if (granted)
      Object.assign(p, { status: "GRANTED", point, conditions, validFrom: input.validFrom, validUntil: input.validUntil, ...schedule });
    else p.status = "DENIED";
    Object.assign(p, { decidedAt: clock.now(), decidedById: viewer.userId, decisionReason: reason, updatedAt: clock.now() });
    await tx.save(p);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: granted ? "hauler.permission_granted" : "hauler.permission_denied",
      entityType: "HaulerPermission",
      entityId: p.id,
      districtId: p.districtId,
      reason,
      details: granted ? { point, conditions, validFrom: p.validFrom, validUntil: p.validUntil, ...schedule } : {},
    });
    await tell(
      tx,
      await peopleOf(tx, p.organizationId, true),
      p.districtId,
      granted ? "hauler.permission_granted" : "hauler.permission_denied",
      `Special permission ${granted ? "granted" : "denied"}: ${org.name}`,
      granted
        ? `The Superintendent grants ${org.name} written special permission to discharge septic tank pumpage (${section}).\n\nPoint: ${point}\nConditions: ${conditions}\nFrom ${formatDate(p.validFrom!)} to ${formatDate(p.validUntil!)}; ${describeSchedule(p)}.\n\nBook each load in the portal.`
        : `The Superintendent denied ${org.name}'s request for special permission (${section}):\n\n${reason}`,
      `See it: ${meta.publicUrl}/haulers?organizationId=${org.id}`,
      district,
    );
    return p;
  });
}

// ---------------------------------------------------------------------------------------------
// Loads (SUL 801, 803, 804, 1208)

export type BookLoadInput = {
  licenseId?: string | null;
  permissionId?: string | null;
  vehicleId: string;
  sourceAddress: string;
  sourceKind: string;
  sourceDescription?: string | null;
  estimatedGallons: number;
  plannedArrival: string;
};

/**
 * A member of the hauling company books a load: the vehicle (of the licence or permission), the
 * source, the estimated gallons (at most the tank's capacity) and the planned arrival, inside the
 * days and hours the licence allows (SUL 803) while the licence is in force (SUL 802). The dumping
 * fee (SUL 1208) is opened as a payment, paid before dumping (SUL 801).
 */
export async function bookLoad(ds: DataSource, viewer: Viewer, input: BookLoadInput, meta: Meta): Promise<HaulerLoad> {
  const fields: Record<string, string> = {};
  const address = clean(input.sourceAddress);
  if (!address || address.length > 300) fields.sourceAddress = "Enter the address the septage comes from.";
  if (!SOURCE_KINDS.includes(input.sourceKind as SourceKind)) fields.sourceKind = "Choose what the septage comes from.";
  const description = clean(input.sourceDescription);
  if (description && description.length > 500) fields.sourceDescription = "Use at most 500 characters.";
  if (input.sourceKind === "OTHER" && !description) fields.sourceDescription = "Describe the source.";
  const gallons = input.estimatedGallons;
  if (!Number.isInteger(gallons) || gallons < 1) fields.estimatedGallons = "Enter the estimated gallons as a whole number more than zero.";
  if (!input.vehicleId || !isUuid(input.vehicleId)) fields.vehicleId = "Choose the vehicle.";
  if (!!input.licenseId === !!input.permissionId) fields.licenseId = "Choose the licence (or special permission) the load comes under.";
  if (Object.keys(fields).length) throw badInput(fields);

  return ds.transaction(async (tx) => {
    const holder = input.licenseId ? await getLicense(tx, viewer, input.licenseId, false) : await getPermission(tx, viewer, input.permissionId!, false);
    // Booking is for the company's own people, not staff: another company's licence is not found.
    if ((await roleIn(tx, viewer.userId, holder.organizationId)) === null) throw notFound(input.licenseId ? "That licence" : "That special permission");
    const district = await loadDistrict(tx, holder.districtId);
    const rb = await rulebookOn(tx, district);
    const arrival = zonedInstant(input.plannedArrival ?? "", district.timeZone);
    if (!arrival) throw badInput({ plannedArrival: "Enter the planned arrival date and time, like 2026-12-07 09:30." });
    if (arrival.getTime() < clock.now().getTime() - 15 * 60 * 1000) throw badInput({ plannedArrival: "Choose an arrival that has not passed." });
    const today = dateIn(district.timeZone);
    const arrivalDay = wallClock(arrival, district.timeZone).date;
    const vehicle = await tx.findOneBy(HaulerVehicle, input.licenseId ? { id: input.vehicleId, licenseId: holder.id } : { id: input.vehicleId, permissionId: holder.id });
    if (!vehicle) throw badInput({ vehicleId: "Choose one of the vehicles on the licence." });

    let schedule: { dumpingDays: number[] | null; dumpingFrom: string | null; dumpingTo: string | null };
    let place: string;
    if (input.licenseId) {
      const l = holder as HaulerLicense;
      const opts = part364Opts(rb);
      // In force on the arrival day, and not invalid today (a renewal not yet started may take bookings for its term).
      for (const day of [today, arrivalDay]) {
        const s = licenseStanding(l, day, opts);
        if (!s.inForce && !(day === today && day !== arrivalDay && s.state === "NOT_YET_IN_FORCE"))
          throw new AppError("CONFLICT", `The load cannot be booked${day === today ? "" : ` for ${formatDate(day)}`}: ${s.reasons.join(" ")}`, { plannedArrival: s.reasons.join(" ") });
      }
      schedule = l;
      place = l.dumpingLocation ?? "";
    } else {
      const p = holder as HaulerPermission;
      const section = rb.entry("hauler.specialPermissionEnabled").section;
      for (const day of [today, arrivalDay]) {
        const s = permissionStanding(p, day, section);
        if (!s.inForce && !(day === today && day !== arrivalDay && s.state === "NOT_YET_IN_FORCE")) throw new AppError("CONFLICT", `The load cannot be booked: ${s.reasons.join(" ")}`, { plannedArrival: s.reasons.join(" ") });
      }
      schedule = p;
      place = p.point ?? "";
    }
    if (gallons > vehicle.tankCapacityGallons)
      throw badInput({ estimatedGallons: `The ${vehicle.make} ${vehicle.model} (${vehicle.plate}) holds ${vehicle.tankCapacityGallons.toLocaleString("en-US")} gallons; a load cannot be more than the tank's capacity.` });
    if (!insideSchedule(schedule, arrival, district.timeZone)) {
      const w = wallClock(arrival, district.timeZone);
      throw badInput({
        plannedArrival: `${DAY_NAMES[w.weekday]} at ${hhmm(`${Math.floor(w.minutes / 60)}:${String(w.minutes % 60).padStart(2, "0")}`)} is outside the allowed days and hours: ${describeSchedule(schedule)} (${rb.entry("hauler.dumpingHours").section}).`,
      });
    }

    // The dumping fee, as the Board set it (SUL 1208), paid before dumping (SUL 801).
    const rate = rb.entry("hauler.dumpingFeePer1000Gallons");
    const minimum = rb.entry("hauler.dumpingFeeMinimumPerLoad");
    const paidBefore = rb.enabled("hauler.dumpingFeePaidBeforeDumping");
    if (paidBefore && typeof rate.value !== "number")
      throw conflict(`The Town Board has not set the dumping fee in this district's rulebook yet (${rate.section}); loads can be booked once it has.`);
    const rateCents = typeof rate.value === "number" ? rate.value : null;
    const minCents = typeof minimum.value === "number" ? minimum.value : 0;
    const fee = rateCents === null ? 0 : dumpingFeeCents(gallons, rateCents, minCents);
    const autoApprove = !rb.enabled("hauler.loadApprovalRequired") && fee === 0;
    const load = await tx.save(
      tx.create(HaulerLoad, {
        districtId: district.id,
        organizationId: holder.organizationId,
        licenseId: input.licenseId ? holder.id : null,
        permissionId: input.permissionId ? holder.id : null,
        vehicleId: vehicle.id,
        bookedById: viewer.userId,
        status: autoApprove ? "APPROVED" : "BOOKED",
        decidedAt: autoApprove ? clock.now() : null,
        sourceAddress: address!,
        sourceKind: input.sourceKind as SourceKind,
        sourceDescription: description,
        estimatedGallons: gallons,
        plannedArrival: arrival,
        rulebookVersionId: rb.version.id,
        ratePer1000Cents: rateCents,
        minimumCents: rateCents === null ? null : minCents,
        feeCents: fee,
      }),
    );
    if (fee > 0) {
      const payment = await createPayment(tx, actorOf(viewer, meta.requestId), {
        districtId: district.id,
        payerId: viewer.userId,
        payableType: LOAD_PAYABLE,
        payableId: load.id,
        lines: [
          {
            code: "dumping-fee",
            label: `Dumping fee, ${gallons.toLocaleString("en-US")} gallons at ${formatCents(rateCents!)} per 1,000${minCents ? ` (minimum ${formatCents(minCents)})` : ""}`,
            section: rate.section,
            amountCents: fee,
            // Returned if the District Operator refuses the load (unless the refusal says otherwise).
            refundable: true,
          },
        ],
        rulebookVersionId: rb.version.id,
      });
      load.paymentId = payment.id;
      await tx.update(HaulerLoad, { id: load.id }, { paymentId: payment.id });
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "hauler.load_booked",
      entityType: "HaulerLoad",
      entityId: load.id,
      districtId: district.id,
      details: { vehicleId: vehicle.id, plate: vehicle.plate, estimatedGallons: gallons, plannedArrival: arrival.toISOString(), feeCents: fee, paymentId: load.paymentId, autoApproved: autoApprove },
    });
    const when = arrival.toLocaleString("en-US", { timeZone: district.timeZone, weekday: "long", month: "long", day: "numeric", hour: "numeric", minute: "2-digit" });
    await tell(
      tx,
      await peopleOf(tx, holder.organizationId, false).then((ps) => ps.filter((p) => p.id === viewer.userId)),
      district.id,
      "hauler.load_booked",
      `Load booked for ${when}: ${vehicle.plate}, ${gallons.toLocaleString("en-US")} gallons`,
      `Your load of about ${gallons.toLocaleString("en-US")} gallons (${SOURCE_KIND_LABELS[input.sourceKind as SourceKind].toLowerCase()}, ${address}) in ${vehicle.plate} is booked for ${when} at ${place}.` +
        (fee > 0 ? `\n\nDumping fee: ${formatCents(fee)} (${rate.section}). Pay it before you come (${rb.entry("hauler.dumpingFeePaidBeforeDumping").section}): ${meta.publicUrl}/payments/${load.paymentId}` : ""),
      `See the load: ${meta.publicUrl}/haulers/loads/${load.id}`,
      district,
    );
    return load;
  });
}

/** The current sample cost of a district: the rulebook's figure, else the actual cost the operator enters (SUL 804). */
function sampleCost(rb: Rulebook, given: number | null | undefined): number {
  const e = rb.entry("hauler.sampleCost");
  if (typeof e.value === "number") return e.value;
  if (given === null || given === undefined || !Number.isInteger(given) || given < 0)
    throw badInput({ sampleCostCents: `Enter the cost of the sample in dollars and cents; the licensee pays it at actual cost (${e.section}).` });
  return given;
}

/**
 * The District Operator approves or refuses a load (SUL 804). No unpaid load is approved (SUL 801);
 * a load whose licence is not in force today is refused with the reason. The operator may require
 * a sample at the licensee's cost. A refused paid load is refunded unless the refusal says otherwise.
 */
export async function decideLoad(
  ds: DataSource,
  viewer: Viewer,
  input: { id: string; decision: string; reason?: string | null; refund?: boolean | null; sampleRequired?: boolean | null; sampleCostCents?: number | null; sampleNotes?: string | null },
  meta: Meta,
): Promise<HaulerLoad> {
  const reason = longText(input.reason);
  const fields: Record<string, string> = {};
  if (input.decision !== "APPROVE" && input.decision !== "REFUSE") fields.decision = "Approve or refuse.";
  if (input.decision === "REFUSE" && !reason) fields.reason = "Say why the load is refused; the hauler reads it.";
  if (reason && reason.length > 2000) fields.reason = "Use at most 2,000 characters.";
  const notes = longText(input.sampleNotes);
  if (notes && notes.length > 2000) fields.sampleNotes = "Use at most 2,000 characters.";
  if (input.refund === false && input.decision === "REFUSE" && !reason) fields.reason = "Say in the reason why the fee is not refunded.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const load = await getLoad(tx, viewer, input.id, true);
    requireRole(viewer, "OPERATOR", load.districtId, "approve or refuse loads");
    if (load.status !== "BOOKED" && !(load.status === "APPROVED" && input.decision === "REFUSE")) throw conflict(`This load is already ${load.status.toLowerCase()}.`);
    const district = await loadDistrict(tx, load.districtId);
    const rb = await rulebookOn(tx, district);
    const paid = load.paymentId ? await isPaid(tx, LOAD_PAYABLE, load.id) : true;
    const vehicle = await tx.findOneByOrFail(HaulerVehicle, { id: load.vehicleId });
    const link = `See the load: ${meta.publicUrl}/haulers/loads/${load.id}`;
    const who = await peopleOf(tx, load.organizationId, false).then((ps) => ps.filter((p) => p.id === load.bookedById));
    if (input.decision === "APPROVE") {
      if (load.feeCents > 0 && !paid)
        throw new AppError("PAYMENT_REQUIRED", `The dumping fee of ${formatCents(load.feeCents)} is not paid; no load is approved before its fee is paid (${rb.entry("hauler.dumpingFeePaidBeforeDumping").section}).`);
      if (load.licenseId) {
        const l = await tx.findOneByOrFail(HaulerLicense, { id: load.licenseId });
        const s = licenseStanding(l, dateIn(district.timeZone), part364Opts(rb));
        if (!s.inForce) throw conflict(`The load must be refused: ${s.reasons.join(" ")}`);
      } else {
        const p = await tx.findOneByOrFail(HaulerPermission, { id: load.permissionId! });
        const s = permissionStanding(p, dateIn(district.timeZone), rb.entry("hauler.specialPermissionEnabled").section);
        if (!s.inForce) throw conflict(`The load must be refused: ${s.reasons.join(" ")}`);
      }
      if (input.sampleRequired) {
        load.sampleRequired = true;
        load.sampleCostCents = sampleCost(rb, input.sampleCostCents);
        load.sampleNotes = notes;
      }
      Object.assign(load, { status: "APPROVED", decidedAt: clock.now(), decidedById: viewer.userId, updatedAt: clock.now() });
      await tx.save(load);
      await audit(tx, actorOf(viewer, meta.requestId), {
        action: "hauler.load_approved",
        entityType: "HaulerLoad",
        entityId: load.id,
        districtId: load.districtId,
        reason,
        details: { sampleRequired: load.sampleRequired, sampleCostCents: load.sampleCostCents },
      });
      await tell(tx, who, load.districtId, "hauler.load_approved", `Load approved: ${vehicle.plate}`,
        `The District Operator approved your load in ${vehicle.plate} (${rb.entry("hauler.loadApprovalRequired").section}).` +
          (load.sampleRequired ? `\n\nThe load is sampled before dumping; the cost, ${formatCents(load.sampleCostCents!)}, is billed on the monthly statement (${rb.entry("hauler.sampleCost").section}).` : ""),
        link, district);
      return load;
    }
    const refundDue = load.feeCents > 0 && paid && input.refund !== false;
    Object.assign(load, { status: "REFUSED", refusalReason: reason, refundDue, decidedAt: clock.now(), decidedById: viewer.userId, updatedAt: clock.now() });
    await tx.save(load);
    // A refused load is not dumped: its dumping fee, if not paid yet, is no longer due.
    if (load.paymentId && !paid)
      await cancelPendingPayments(tx, actorOf(viewer, meta.requestId), { payableType: LOAD_PAYABLE, payableId: load.id, reason: `The District Operator refused the load: ${reason}` });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "hauler.load_refused",
      entityType: "HaulerLoad",
      entityId: load.id,
      districtId: load.districtId,
      reason,
      details: { refundDue, feeCents: load.feeCents, paymentId: load.paymentId },
    });
    await tell(tx, who, load.districtId, "hauler.load_refused", `Load refused: ${vehicle.plate}`,
      `The District Operator refused your load in ${vehicle.plate} (${rb.entry("hauler.loadApprovalRequired").section}):\n\n${reason}\n\n` +
        (refundDue ? `The dumping fee of ${formatCents(load.feeCents)} is refunded; the Town Clerk sends the refund receipt.` : load.feeCents > 0 && paid ? "The dumping fee is not refunded, as the reason says." : ""),
      link, district);
    if (refundDue)
      await tell(tx, await staffOf(tx, load.districtId, "CLERK"), load.districtId, "hauler.load_refund_due", `Dumping fee to refund: load refused, ${vehicle.plate}`,
        `The District Operator refused a load and its dumping fee of ${formatCents(load.feeCents)} is to be refunded (line "dumping-fee"). Reason: ${reason}`,
        `Refund it from the payments ledger: ${meta.publicUrl}/staff/payments?districtId=${load.districtId}&status=PAID`, district);
    return load;
  });
}

/**
 * A member of the hauling company cancels a booked load before the operator decides it and before
 * its planned arrival. A paid dumping fee is refunded (the Clerk sends it, as for a refused load).
 */
export async function cancelLoad(ds: DataSource, viewer: Viewer, input: { id: string; reason?: string | null }, meta: Meta): Promise<HaulerLoad> {
  const reason = longText(input.reason);
  if (reason && reason.length > 2000) throw badInput({ reason: "Use at most 2,000 characters." });
  return ds.transaction(async (tx) => {
    const load = await getLoad(tx, viewer, input.id, true);
    if ((await roleIn(tx, viewer.userId, load.organizationId)) === null) throw forbidden("Only the hauling company cancels its loads.");
    if (load.status !== "BOOKED") throw conflict(`This load is ${load.status.toLowerCase()}; only a load not yet decided can be cancelled.`);
    if (load.plannedArrival.getTime() <= clock.now().getTime()) throw conflict("The planned arrival has passed; ask the District Operator to refuse the load instead.");
    const district = await loadDistrict(tx, load.districtId);
    const paid = load.paymentId ? await isPaid(tx, LOAD_PAYABLE, load.id) : false;
    const refundDue = load.feeCents > 0 && paid;
    Object.assign(load, { status: "CANCELLED", refusalReason: reason ? `Cancelled by the hauler: ${reason}` : "Cancelled by the hauler.", refundDue, updatedAt: clock.now() });
    await tx.save(load);
    if (load.paymentId && !paid)
      await cancelPendingPayments(tx, actorOf(viewer, meta.requestId), {
        payableType: LOAD_PAYABLE,
        payableId: load.id,
        reason: `The hauling company cancelled the load${reason ? `: ${reason}` : "."}`,
      });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "hauler.load_cancelled",
      entityType: "HaulerLoad",
      entityId: load.id,
      districtId: load.districtId,
      reason,
      details: { refundDue, feeCents: load.feeCents, paymentId: load.paymentId },
    });
    if (refundDue) {
      const vehicle = await tx.findOneByOrFail(HaulerVehicle, { id: load.vehicleId });
      await tell(tx, await staffOf(tx, load.districtId, "CLERK"), load.districtId, "hauler.load_refund_due", `Dumping fee to refund: load cancelled, ${vehicle.plate}`,
        `The hauling company cancelled a booked load and its dumping fee of ${formatCents(load.feeCents)} is to be refunded (line "dumping-fee").${reason ? ` Reason: ${reason}` : ""}`,
        `Refund it from the payments ledger: ${meta.publicUrl}/staff/payments?districtId=${load.districtId}&status=PAID`, district);
    }
    return load;
  });
}

/** The District Operator records the gallons received (SUL 1208: the operator decides how volume is measured). */
export async function recordReceived(ds: DataSource, viewer: Viewer, input: { id: string; measuredGallons: number }, meta: Meta): Promise<HaulerLoad> {
  const g = input.measuredGallons;
  if (!Number.isInteger(g) || g < 0 || g > 50000) throw badInput({ measuredGallons: "Enter the gallons measured as a whole number." });
  return ds.transaction(async (tx) => {
    const load = await getLoad(tx, viewer, input.id, true);
    requireRole(viewer, "OPERATOR", load.districtId, "record the gallons received");
    if (load.status !== "APPROVED") throw conflict(load.status === "BOOKED" ? "Approve the load before recording what was received." : `This load is ${load.status.toLowerCase()}.`);
    const district = await loadDistrict(tx, load.districtId);
    Object.assign(load, { status: "RECEIVED", measuredGallons: g, receivedAt: clock.now(), receivedById: viewer.userId, updatedAt: clock.now() });
    await tx.save(load);
    const adj = adjustmentCents(load);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "hauler.load_received",
      entityType: "HaulerLoad",
      entityId: load.id,
      districtId: load.districtId,
      details: { estimatedGallons: load.estimatedGallons, measuredGallons: g, adjustmentCents: adj },
    });
    const vehicle = await tx.findOneByOrFail(HaulerVehicle, { id: load.vehicleId });
    const rb = await rulebookById(tx, load.rulebookVersionId);
    await tell(tx, await peopleOf(tx, load.organizationId, false).then((ps) => ps.filter((p) => p.id === load.bookedById)), load.districtId, "hauler.load_received",
      `Load received: ${vehicle.plate}, ${g.toLocaleString("en-US")} gallons`,
      `The station received ${g.toLocaleString("en-US")} gallons from ${vehicle.plate} (booked as ${load.estimatedGallons.toLocaleString("en-US")}).` +
        (adj !== 0 ? ` The difference, ${adj < 0 ? `a credit of ${formatCents(-adj)}` : `${formatCents(adj)} due`}, is on the monthly statement (${rb.entry("hauler.dumpingFeePer1000Gallons").section}).` : ""),
      `See the load: ${meta.publicUrl}/haulers/loads/${load.id}`, district);
    return load;
  });
}

/** The fee for the measured gallons less the fee paid on the estimate: positive is billed, negative credited. */
export function adjustmentCents(load: Pick<HaulerLoad, "measuredGallons" | "ratePer1000Cents" | "minimumCents" | "feeCents" | "status">): number {
  if (load.status !== "RECEIVED" || load.measuredGallons === null || load.ratePer1000Cents === null) return 0;
  return dumpingFeeCents(load.measuredGallons, load.ratePer1000Cents, load.minimumCents ?? 0) - load.feeCents;
}

// ---------------------------------------------------------------------------------------------
// Lists

export async function organizationLicenses(ds: DataSource, viewer: Viewer, organizationId: string): Promise<HaulerLicense[]> {
  if (!(await roleIn(ds, viewer.userId, organizationId))) throw notFound("That organization");
  return ds.getRepository(HaulerLicense).find({ where: { organizationId }, order: { createdAt: "DESC", id: "DESC" } });
}

export async function organizationPermissions(ds: DataSource, viewer: Viewer, organizationId: string): Promise<HaulerPermission[]> {
  if (!(await roleIn(ds, viewer.userId, organizationId))) throw notFound("That organization");
  return ds.getRepository(HaulerPermission).find({ where: { organizationId }, order: { createdAt: "DESC", id: "DESC" } });
}

export async function organizationLoads(ds: DataSource, viewer: Viewer, organizationId: string, first = 50): Promise<HaulerLoad[]> {
  if (!(await roleIn(ds, viewer.userId, organizationId))) throw notFound("That organization");
  return ds.getRepository(HaulerLoad).find({ where: { organizationId }, order: { plannedArrival: "DESC", id: "DESC" }, take: pageSize(first) });
}

/** The Board's queue: submitted licence applications and renewals, paid ones first (the fee is paid before review). */
export async function licenseQueue(ds: DataSource, viewer: Viewer, districtId: string): Promise<HaulerLicense[]> {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  return ds
    .getRepository(HaulerLicense)
    .createQueryBuilder("l")
    .where("l.district_id = :d AND l.status = 'SUBMITTED'", { d: districtId })
    .orderBy("l.paid_at IS NULL", "ASC")
    .addOrderBy("l.submitted_at", "ASC")
    .addOrderBy("l.id", "ASC")
    .limit(200)
    .getMany();
}

export async function permissionQueue(ds: DataSource, viewer: Viewer, districtId: string): Promise<HaulerPermission[]> {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  return ds.getRepository(HaulerPermission).find({ where: { districtId }, order: { createdAt: "DESC" }, take: 200 });
}

/** Approved licences whose last day is within `withinDays` (60 unless asked) of today, soonest first (index hauler_license_expiring). */
export async function expiringLicenses(ds: DataSource, viewer: Viewer, districtId: string, withinDays = 60): Promise<HaulerLicense[]> {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  if (!Number.isInteger(withinDays) || withinDays < 0 || withinDays > 366) throw badInput({ withinDays: "Ask for 0 to 366 days." });
  const district = await loadDistrict(ds, districtId);
  const today = dateIn(district.timeZone);
  return ds
    .getRepository(HaulerLicense)
    .createQueryBuilder("l")
    .where("l.district_id = :d AND l.status = 'APPROVED' AND l.valid_until >= :today AND l.valid_until <= :until", { d: districtId, today, until: addCalendarDays(today, withinDays) })
    .orderBy("l.valid_until", "ASC")
    .addOrderBy("l.id", "ASC")
    .getMany();
}

/** One load on the day sheet, with what the station needs beside it. */
export type DaySheetRow = {
  load: HaulerLoad;
  /** "09:00", the planned arrival on the district's clock */
  arrivalTime: string;
  /** the planned arrival as an ISO instant (a string: cheaper to send for 300 rows than a DateTime) */
  arrivalAt: string;
  organizationName: string;
  plate: string;
  vehicle: string;
  tankCapacityGallons: number;
  holderNumber: string | null;
  holderInForce: boolean;
  holderReasons: string[];
  paymentStatus: string | null;
};

/**
 * The station's day sheet: every load planned for `date` (the district's zone), by arrival, with
 * its company, vehicle, licence standing and payment. One SQL statement whatever the number of loads
 * (index hauler_load_day_sheet); the rulebook comes from the in-process cache.
 */
export async function daySheet(
  ds: DataSource,
  viewer: Viewer,
  districtId: string,
  date?: string | null,
  loaded?: District | null,
  page: { first?: number | null; after?: string | null } = {},
): Promise<{ date: CalendarDate; timeZone: string; rows: DaySheetRow[]; total: number; nextCursor: string | null }> {
  if (!hasRole(viewer, "OPERATOR", districtId) && !hasRole(viewer, "CLERK", districtId)) throw forbidden("Only the District Operator and the Clerk of this district see the station's day sheet.");
  const district = loaded ?? (await loadDistrict(ds, districtId));
  const day = date ?? dateIn(district.timeZone);
  if (!isCalendarDate(day)) throw badInput({ date: "Use a date like 2026-12-07." });
  const from = endOfDay(addCalendarDays(day, -1), district.timeZone);
  const to = endOfDay(day, district.timeZone);
  const first = page.first ?? 25;
  if (!Number.isInteger(first) || first < 1 || first > 100) throw badInput({ first: "Ask for 1 to 100 loads at a time." });
  let cursor: [string, string] | null = null;
  if (page.after) {
    const { key: at, id } = decodeCursor(page.after, isInstant)!;
    cursor = [at, id];
  }
  // One page of the day by arrival (index hauler_load_day_sheet), with the whole day's count in the same statement.
  const raw: any[] = await ds.query(
    `SELECT x.*, o.name AS org_name, v.plate, v.make, v.model, v.tank_capacity_gallons, p.status AS payment_status,
            to_char(x.planned_arrival AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at, d.day_total
       FROM (SELECT id, planned_arrival, count(*) OVER () AS day_total FROM hauler_load
              WHERE district_id = $1 AND planned_arrival >= $2 AND planned_arrival < $3 AND status <> 'CANCELLED') d
       JOIN hauler_load x ON x.id = d.id
       JOIN organization o ON o.id = x.organization_id
       JOIN hauler_vehicle v ON v.id = x.vehicle_id
       LEFT JOIN payment p ON p.id = x.payment_id
      WHERE $4::timestamptz IS NULL OR (d.planned_arrival, d.id) > ($4::timestamptz, $5::uuid)
      ORDER BY d.planned_arrival ASC, d.id ASC
      LIMIT $6`,
    [districtId, from, to, cursor?.[0] ?? null, cursor?.[1] ?? null, first + 1],
  );
  const more = raw.length > first;
  if (more) raw.length = first;
  const total = raw.length ? Number(raw[0].day_total) : 0;
  const last = raw[raw.length - 1];
  // The licences and permissions the day's loads come under, once each (a day has few haulers).
  const licenseIds = [...new Set(raw.map((r) => r.license_id).filter(Boolean))];
  const permissionIds = [...new Set(raw.map((r) => r.permission_id).filter(Boolean))];
  const holders: any[] = raw.length
    ? await ds.query(
        `SELECT 'L' AS kind, id, status, license_number AS number, valid_from::text AS valid_from, valid_until::text AS valid_until, part364_expires_on::text AS part364_expires_on,
                part364_revoked_at, part364_permit_number, action_reason AS reason
           FROM hauler_license WHERE id = ANY($1::uuid[])
         UNION ALL
         SELECT 'P', id, status, NULL, valid_from::text, valid_until::text, NULL, NULL, NULL, decision_reason
           FROM hauler_permission WHERE id = ANY($2::uuid[])`,
        [licenseIds, permissionIds],
      )
    : [];
  const rb = await rulebookOn(ds, district);
  const opts = part364Opts(rb);
  const permissionSection = rb.entry("hauler.specialPermissionEnabled").section;
  const today = dateIn(district.timeZone);
  const standings = new Map<string, { number: string | null; standing: Standing }>();
  for (const h of holders)
    standings.set(h.id, {
      number: h.kind === "L" ? h.number : "Special permission",
      standing:
        h.kind === "L"
          ? licenseStanding(
              {
                status: h.status,
                validFrom: h.valid_from,
                validUntil: h.valid_until,
                part364ExpiresOn: h.part364_expires_on,
                part364RevokedAt: h.part364_revoked_at,
                part364PermitNumber: h.part364_permit_number,
                actionReason: h.reason,
              } as HaulerLicense,
              today,
              opts,
            )
          : permissionStanding({ status: h.status, validFrom: h.valid_from, validUntil: h.valid_until, decisionReason: h.reason } as HaulerPermission, today, permissionSection),
    });
  const rows = raw.map((r) => {
    const holder = standings.get(r.license_id ?? r.permission_id);
    const load = toLoad(r) as HaulerLoad;
    const minutes = wallClock(load.plannedArrival, district.timeZone).minutes;
    return {
      load,
      arrivalTime: `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`,
      arrivalAt: load.plannedArrival.toISOString(),
      organizationName: r.org_name,
      plate: r.plate,
      vehicle: `${r.make} ${r.model}`,
      tankCapacityGallons: r.tank_capacity_gallons,
      holderNumber: holder?.number ?? null,
      holderInForce: holder?.standing.inForce ?? false,
      holderReasons: holder?.standing.reasons ?? [],
      paymentStatus: r.payment_status,
    };
  });
  return {
    date: day,
    timeZone: district.timeZone,
    rows,
    total,
    nextCursor: more && last ? encodeCursor(last.cursor_at, last.id) : null,
  };
}

function toLoad(r: any): Partial<HaulerLoad> {
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
export type StatementLine = { load: HaulerLoad; plate: string; feePaidCents: number; adjustmentCents: number; sampleCents: number; refunded: boolean };

/**
 * A month's statement for a hauling company in a district: its loads planned that month, the
 * dumping fees paid, the difference between the fee on the measured and on the estimated gallons
 * (billed or credited, SUL 1208), sample costs (SUL 804), and the balance.
 */
export async function statement(ds: DataSource, viewer: Viewer, input: { organizationId: string; districtId: string; month?: string | null }) {
  if (!(await roleIn(ds, viewer.userId, input.organizationId))) throw notFound("That organization");
  const district = await loadDistrict(ds, input.districtId);
  const month = input.month ?? dateIn(district.timeZone).slice(0, 7);
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw badInput({ month: "Use a month like 2026-12." });
  const first = `${month}-01`;
  const nextMonth = new Date(Date.UTC(+month.slice(0, 4), +month.slice(5, 7), 1)).toISOString().slice(0, 10);
  const from = endOfDay(addCalendarDays(first, -1), district.timeZone);
  const to = endOfDay(addCalendarDays(nextMonth, -1), district.timeZone);
  const raw: any[] = await ds.query(
    `SELECT x.*, v.plate, p.status AS payment_status,
            EXISTS (SELECT 1 FROM refund r WHERE r.payment_id = x.payment_id AND r.line_codes ? 'dumping-fee') AS refunded
       FROM hauler_load x JOIN hauler_vehicle v ON v.id = x.vehicle_id LEFT JOIN payment p ON p.id = x.payment_id
      WHERE x.organization_id = $1 AND x.district_id = $2 AND x.planned_arrival >= $3 AND x.planned_arrival < $4 AND x.status <> 'CANCELLED'
      ORDER BY x.planned_arrival ASC, x.id ASC`,
    [input.organizationId, district.id, from, to],
  );
  const lines: StatementLine[] = raw.map((r) => {
    const load = toLoad(r) as HaulerLoad;
    const paid = ["PAID", "PARTIALLY_REFUNDED", "REFUNDED"].includes(r.payment_status);
    return {
      load,
      plate: r.plate,
      feePaidCents: paid ? load.feeCents : 0,
      adjustmentCents: adjustmentCents(load),
      sampleCents: load.sampleRequired && load.status !== "REFUSED" ? load.sampleCostCents ?? 0 : 0,
      refunded: r.refunded,
    };
  });
  const sum = (f: (l: StatementLine) => number) => lines.reduce((s, l) => s + f(l), 0);
  const adjustments = sum((l) => l.adjustmentCents);
  const samples = sum((l) => l.sampleCents);
  const rb = await rulebookOn(ds, district);
  return {
    month,
    districtId: district.id,
    districtName: district.name,
    timeZone: district.timeZone,
    lines,
    feesPaidCents: sum((l) => l.feePaidCents),
    refundedCents: sum((l) => (l.refunded ? l.load.feeCents : 0)),
    adjustmentsCents: adjustments,
    samplesCents: samples,
    balanceCents: adjustments + samples,
    feeSection: rb.entry("hauler.dumpingFeePer1000Gallons").section,
    sampleSection: rb.entry("hauler.sampleCost").section,
  };
}

/** Refused loads whose dumping fee the Clerk is to refund, and whether it is refunded yet. */
export async function refundsDue(ds: DataSource, viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "CLERK", districtId) && !hasRole(viewer, "OPERATOR", districtId)) throw forbidden("Only the Clerk and the District Operator see the refunds due.");
  const raw: any[] = await ds.query(
    `SELECT x.*, o.name AS org_name, v.plate, p.receipt_number
       FROM hauler_load x JOIN organization o ON o.id = x.organization_id JOIN hauler_vehicle v ON v.id = x.vehicle_id
       JOIN payment p ON p.id = x.payment_id
      WHERE x.district_id = $1 AND x.refund_due
        AND NOT EXISTS (SELECT 1 FROM refund r WHERE r.payment_id = x.payment_id AND r.line_codes ? 'dumping-fee')
      ORDER BY x.decided_at ASC LIMIT 200`,
    [districtId],
  );
  return raw.map((r) => ({ load: toLoad(r) as HaulerLoad, organizationName: r.org_name, plate: r.plate, receiptNumber: r.receipt_number as string | null }));
}

// ---------------------------------------------------------------------------------------------
// Reminders (60, 30 and 7 days before expiry, rulebook hauler.reminderDays*) and Part 364 notices

/**
 * For each approved licence ending within the first reminder's days, one email to the company's
 * owners at each reminder tier (hauler.reminderDaysFirst/Second/Final), with the link to renew;
 * none once a renewal is submitted. And once per Part 364 expiry date, a notice that the licence
 * became invalid when the permit lapsed (SUL 802), saying what to upload. Idempotent: tiers sent
 * and the Part 364 date notified are recorded with the email in one transaction.
 */
export async function sendHaulerReminders(ds: DataSource, publicUrl: string): Promise<number> {
  const districts = await ds
    .getRepository(District)
    .createQueryBuilder("d")
    .where(`EXISTS (SELECT 1 FROM hauler_license l WHERE l.district_id = d.id AND l.status = 'APPROVED')`)
    .getMany();
  let sent = 0;
  for (const district of districts) {
    const day = dateIn(district.timeZone);
    const rb = await rulebookOn(ds, district, day);
    const tiers = (["hauler.reminderDaysFirst", "hauler.reminderDaysSecond", "hauler.reminderDaysFinal"] as const)
      .map((k) => rb.entry(k).value)
      .filter((v): v is number => typeof v === "number");
    const section = rb.entry("hauler.licenseTermMonths").section;
    sent += await ds.transaction(async (tx) => {
      let n = 0;
      const maxTier = Math.max(0, ...tiers);
      const expiring = await tx
        .getRepository(HaulerLicense)
        .createQueryBuilder("l")
        .setLock("pessimistic_write")
        .where("l.district_id = :d AND l.status = 'APPROVED' AND l.valid_until >= :day AND l.valid_until <= :until", { d: district.id, day, until: addCalendarDays(day, maxTier) })
        .andWhere(`NOT EXISTS (SELECT 1 FROM hauler_license r WHERE r.previous_license_id = l.id AND r.status IN ('SUBMITTED', 'APPROVED'))`)
        .getMany();
      for (const l of expiring) {
        const tier = tiers.length ? reminderDue(l.validUntil!, day, tiers, l.remindersSent) : null;
        if (tier === null) continue;
        const left = daysBetween(day, l.validUntil!);
        const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
        await tx.update(HaulerLicense, { id: l.id }, { remindersSent: [...l.remindersSent, tier] });
        await tell(tx, await peopleOf(tx, l.organizationId, true), district.id, "hauler.expiry_reminder",
          `${org.name}: hauler licence ${l.licenseNumber} ends in ${left} day${left === 1 ? "" : "s"}`,
          `${org.name}'s septage hauler licence ${l.licenseNumber} ends on ${formatDate(l.validUntil!)} (${section}: licences last one year).\n\n` +
            `Renew it now: your vehicles and answers are copied for you to confirm or change. A renewal approved before ${formatDate(l.validUntil!)} starts the next day.`,
          `Renew: ${publicUrl}/haulers/licenses/${l.id}/renew`, district);
        await audit(tx, { userId: null }, { action: "hauler.expiry_reminder_sent", entityType: "HaulerLicense", entityId: l.id, districtId: district.id, details: { tier, daysLeft: left, validUntil: l.validUntil } });
        n++;
      }
      if (rb.enabled("hauler.part364PermitRequired")) {
        const lapsed = await tx
          .getRepository(HaulerLicense)
          .createQueryBuilder("l")
          .setLock("pessimistic_write")
          .where("l.district_id = :d AND l.status = 'APPROVED' AND l.valid_until >= :day AND l.part364_expires_on < :day", { d: district.id, day })
          .andWhere("l.part364_notice_sent_for IS DISTINCT FROM l.part364_expires_on")
          .getMany();
        for (const l of lapsed) {
          const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
          await tx.update(HaulerLicense, { id: l.id }, { part364NoticeSentFor: l.part364ExpiresOn });
          await tell(tx, await peopleOf(tx, l.organizationId, false), district.id, "hauler.part364_lapsed",
            `${org.name}: licence ${l.licenseNumber} is invalid, the Part 364 permit expired`,
            `The NYSDEC Part 364 permit ${l.part364PermitNumber} on file expired on ${formatDate(l.part364ExpiresOn!)}. The licence ${l.licenseNumber} is invalid from then on (${section}) and loads are refused.\n\nUpload the renewed Part 364 permit with its new expiry date to be reinstated.`,
            `Upload it: ${publicUrl}/haulers/licenses/${l.id}`, district);
          await audit(tx, { userId: null }, { action: "hauler.part364_lapsed_notice_sent", entityType: "HaulerLicense", entityId: l.id, districtId: district.id, details: { expiresOn: l.part364ExpiresOn } });
          n++;
        }
      }
      return n;
    });
  }
  return sent;
}

registerJobHandler(REMINDER_JOB, async (ds, payload, log) => {
  const n = await sendHaulerReminders(ds, String(payload?.publicUrl ?? ""));
  if (n) log.info({ reminded: n }, "hauler licence reminders queued");
});

// ---------------------------------------------------------------------------------------------
// Registrations: payments, documents, dashboard

registerPayable(LICENSE_PAYABLE, {
  async onPaid(tx: EntityManager, payment: Payment) {
    const l = await tx.getRepository(HaulerLicense).createQueryBuilder("l").setLock("pessimistic_write").where("l.id = :id", { id: payment.payableId }).getOne();
    if (!l || l.paymentId !== payment.id || l.paidAt) return;
    await tx.update(HaulerLicense, { id: l.id }, { paidAt: payment.paidAt ?? clock.now(), updatedAt: clock.now() });
    await audit(tx, { userId: null }, { action: "hauler.application_fee_paid", entityType: "HaulerLicense", entityId: l.id, districtId: l.districtId, details: { paymentId: payment.id, receiptNumber: payment.receiptNumber } });
    const district = await tx.findOneByOrFail(District, { id: l.districtId });
    const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
    await tell(tx, await staffOf(tx, l.districtId, "BOARD"), l.districtId, "hauler.license_to_decide", `Hauler licence ${l.previousLicenseId ? "renewal" : "application"} to decide: ${org.name}`,
      `${org.name}'s ${l.previousLicenseId ? "renewal" : "application"} is paid and waits for the Town Board's decision.`, "Decide it in the portal: Staff, Haulers.", district);
  },
  async title(id, db) {
    return (await licenseTitles(db, [id])).get(id) ?? "Hauler licence application";
  },
  titles: (ids, db) => licenseTitles(db, ids),
  href: (id) => `/haulers/licenses/${id}`,
});

async function licenseTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows: any[] = ids.length
    ? await db.query(`SELECT l.id, l.license_number, l.previous_license_id, o.name FROM hauler_license l JOIN organization o ON o.id = l.organization_id WHERE l.id = ANY($1::uuid[])`, [ids.filter(isUuid)])
    : [];
  return new Map(rows.map((r) => [r.id, `${r.previous_license_id ? "Hauler licence renewal" : "Hauler licence application"}, ${r.name}`]));
}

registerPayable(LOAD_PAYABLE, {
  /** Paid: the load records it; where the district needs no approval of each load, it is approved by payment. */
  async onPaid(tx: EntityManager, payment: Payment) {
    const x = await tx.getRepository(HaulerLoad).createQueryBuilder("x").setLock("pessimistic_write").where("x.id = :id", { id: payment.payableId }).getOne();
    if (!x || x.paymentId !== payment.id || x.paidAt) return;
    const rb = await rulebookById(tx, x.rulebookVersionId);
    const auto = x.status === "BOOKED" && !rb.enabled("hauler.loadApprovalRequired");
    await tx.update(HaulerLoad, { id: x.id }, { paidAt: payment.paidAt ?? clock.now(), updatedAt: clock.now(), ...(auto ? { status: "APPROVED", decidedAt: clock.now() } : {}) });
    await audit(tx, { userId: null }, { action: "hauler.dumping_fee_paid", entityType: "HaulerLoad", entityId: x.id, districtId: x.districtId, details: { paymentId: payment.id, receiptNumber: payment.receiptNumber, autoApproved: auto } });
  },
  async title(id, db) {
    return (await loadTitles(db, [id])).get(id) ?? "Dumping fee";
  },
  titles: (ids, db) => loadTitles(db, ids),
  href: (id) => `/haulers/loads/${id}`,
});

async function loadTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows: any[] = ids.length
    ? await db.query(
        `SELECT x.id, x.estimated_gallons, v.plate, o.name FROM hauler_load x JOIN hauler_vehicle v ON v.id = x.vehicle_id JOIN organization o ON o.id = x.organization_id WHERE x.id = ANY($1::uuid[])`,
        [ids.filter(isUuid)],
      )
    : [];
  return new Map(rows.map((r) => [r.id, `Dumping fee, ${r.name}, ${r.plate}, ${Number(r.estimated_gallons).toLocaleString("en-US")} gallons`]));
}

// The district's Board, Operators and Clerks read the Part 364 permit filed with a submitted application.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => ["BOARD", "OPERATOR", "CLERK"].includes(r.role)).map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(`SELECT 1 FROM hauler_license WHERE part364_document_id = $1 AND submitted_at IS NOT NULL AND district_id = ANY($2::uuid[]) LIMIT 1`, [doc.id, districts]);
  return rows.length > 0;
});

/** "My hauler licences": each licence of the viewer's hauling companies with its days left, in one query. */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT l.id, l.status, l.license_number, l.valid_until::text AS valid_until, l.valid_from::text AS valid_from, o.name, d.time_zone, l.payment_id, l.paid_at
       FROM hauler_license l JOIN membership m ON m.organization_id = l.organization_id AND m.user_id = $1
       JOIN organization o ON o.id = l.organization_id JOIN district d ON d.id = l.district_id
      WHERE l.status IN ('DRAFT', 'SUBMITTED', 'APPROVED', 'SUSPENDED')
      ORDER BY l.created_at DESC LIMIT 20`,
    [viewer.userId],
  );
  return rows.map((r) => {
    const left = r.valid_until ? daysBetween(dateIn(r.time_zone), r.valid_until) : null;
    const next =
      r.status === "DRAFT"
        ? "Finish and submit the application."
        : r.status === "SUBMITTED"
          ? r.payment_id && !r.paid_at
            ? "Pay the application fee; the Town Board reviews it once paid."
            : "The Town Board reviews the application."
          : r.status === "SUSPENDED"
            ? "The licence is suspended."
            : left !== null && left < 0
              ? "The licence has expired."
              : null;
    return {
      kind: LICENSE_PAYABLE,
      id: r.id,
      title: r.license_number ? `Hauler licence ${r.license_number}, ${r.name}` : `Hauler licence application, ${r.name}`,
      status: r.status === "APPROVED" && left !== null && left < 0 ? "Expired" : r.status.charAt(0) + r.status.slice(1).toLowerCase(),
      nextStep: next,
      dueDate: r.status === "APPROVED" ? r.valid_until : null,
      daysLeft: r.status === "APPROVED" ? left : null,
      href: `/haulers/licenses/${r.id}`,
    };
  });
});

import { In, type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, dateIn, formatDate, isCalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { createPayment, isPaid } from "../payments/payments.service.js";
import { HaulerLicense, HaulerVehicle } from "./hauler.entity.js";
import { describeSchedule, licenseEnd, licenseNumber, renewalOpensOn } from "./rules.js";
import { LICENSE_PAYABLE, type Meta, type ScheduleInput, type VehicleInput, actorOf, checkSchedule, checkVehicles, clean, getLicense, haulerOrganization, loadDistrict, longText, normalizeName, ownsOrg, peopleOf, requireLicensing, requireRole, staffOf, tell, vehiclesOf } from "./common.js";

/** Licence applications, the Town Board's decision, renewal, the Part 364 permit and the Operator's suspension or revocation (SUL 801-803). */

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

type DraftValues = {
  part364PermitNumber: string | null;
  part364ExpiresOn: string | null;
  part364DocumentId: string | null;
  annualVolumeGallons: number | null;
  serviceArea: string | null;
  otherInformation: string | null;
};

/** The draft's answers as stored, and every problem of their form at once (nothing about completeness: a draft may be empty). */
function checkDraft(input: LicenseDraftInput, fields: Record<string, string>): { values: DraftValues; vehicles: ReturnType<typeof checkVehicles> } {
  const vehicles = checkVehicles(input.vehicles, fields);
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
  return { values: { part364PermitNumber: permitNumber, part364ExpiresOn: expires, part364DocumentId: docId, annualVolumeGallons: volume, serviceArea, otherInformation: other }, vehicles };
}

/** The Part 364 permit named in a draft must be the company's own upload. */
async function checkOwnDocument(tx: EntityManager, viewer: Viewer, l: HaulerLicense, docId: string | null, fields: Record<string, string>) {
  if (!docId || fields.part364DocumentId) return;
  const ok: unknown[] = await tx.query(`SELECT 1 FROM document WHERE id = $1 AND (owner_id = $2 OR organization_id = $3)`, [docId, viewer.userId, l.organizationId]);
  if (!ok.length) fields.part364DocumentId = "Attach the Part 364 permit from your own uploaded documents.";
}

/** Stores the draft's answers and replaces its vehicles. */
async function storeDraft(tx: EntityManager, l: HaulerLicense, values: DraftValues, vehicles: ReturnType<typeof checkVehicles>): Promise<HaulerLicense> {
  Object.assign(l, { ...values, updatedAt: clock.now() });
  l = await tx.save(l);
  await tx.delete(HaulerVehicle, { licenseId: l.id });
  if (vehicles.length) await tx.insert(HaulerVehicle, vehicles.map((v) => ({ ...v, licenseId: l.id, permissionId: null })));
  return l;
}

/** Saves the application as a draft (new, or the owner's own draft). Completeness is checked on submission. */
export async function saveLicenseDraft(ds: DataSource, viewer: Viewer, input: LicenseDraftInput, requestId?: string): Promise<HaulerLicense> {
  const fields: Record<string, string> = {};
  const { values, vehicles } = checkDraft(input, fields);
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
    await checkOwnDocument(tx, viewer, l, values.part364DocumentId, fields);
    if (Object.keys(fields).length) throw badInput(fields);
    l = await storeDraft(tx, l, values, vehicles);
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
 * the Board reviews once it is paid. With `draft`, the answers as the form holds them are saved and
 * submitted at once: every problem, of their form and of their completeness, is reported in one answer.
 */
export async function submitLicense(ds: DataSource, viewer: Viewer, input: { id: string; certify: boolean; draft?: LicenseDraftInput | null }, meta: Meta): Promise<HaulerLicense> {
  const fields: Record<string, string> = {};
  const given = input.draft ? checkDraft(input.draft, fields) : null;
  return ds.transaction(async (tx) => {
    let l = await getLicense(tx, viewer, input.id, true);
    if (!(await ownsOrg(tx, viewer, l.organizationId))) throw forbidden("Only the owner of the hauling company submits the application.");
    if (l.status !== "DRAFT") throw conflict("This application is already submitted.");
    const district = await loadDistrict(tx, l.districtId);
    const rb = await rulebookOn(tx, district);
    requireLicensing(rb);
    const today = dateIn(district.timeZone);
    const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
    if (given) {
      await checkOwnDocument(tx, viewer, l, given.values.part364DocumentId, fields);
      // Judged as the form holds it; stored only if the whole submission goes through.
      Object.assign(l, given.values);
    }
    const vehicles = given ? given.vehicles : await vehiclesOf(tx, { licenseIds: [l.id] });
    const s801 = rb.entry("hauler.applicationFee").section;
    const s802 = rb.entry("hauler.applicantMustOwnVehicles").section;
    // A problem of a field's form (said above) stands before one of its completeness.
    const problem = (key: string, message: string) => {
      fields[key] ??= message;
    };

    if (!vehicles.length) problem("vehicles", `List each vehicle that will carry septage: make, model, tank capacity, plate and colour (${s801}).`);
    if (rb.enabled("hauler.applicantMustOwnVehicles")) {
      const owners = await peopleOf(tx, l.organizationId, true);
      const allowed = new Set([normalizeName(org.name), ...owners.map((o) => normalizeName(o.display_name))]);
      vehicles.forEach((v, i) => {
        if (!allowed.has(normalizeName(v.registeredOwner)))
          problem(`vehicles.${i}.registeredOwner`, `${v.plate} is registered to ${v.registeredOwner}, not to ${org.name} or its owner: the applicant must own the vehicles (${s802}).`);
      });
    }
    if (rb.enabled("hauler.part364PermitRequired")) {
      const s = rb.entry("hauler.part364PermitRequired").section;
      if (!l.part364PermitNumber) problem("part364PermitNumber", `Enter the NYSDEC Part 364 waste transporter permit number (${s}).`);
      if (!l.part364ExpiresOn) problem("part364ExpiresOn", "Enter the Part 364 permit's expiry date.");
      else if (l.part364ExpiresOn < today) problem("part364ExpiresOn", `The Part 364 permit expired on ${formatDate(l.part364ExpiresOn)}; a licence needs a permit in force (${s}).`);
      if (!l.part364DocumentId) problem("part364DocumentId", "Upload the Part 364 permit (PDF, PNG or JPEG).");
    }
    if (!l.annualVolumeGallons) problem("annualVolumeGallons", `Enter the approximate annual septage volume in gallons (${s801}).`);
    if (!l.serviceArea) problem("serviceArea", `Describe the service area (${s801}).`);
    if (!input.certify) problem("certify", `Certify that the statements are true: a false or misleading statement voids the licence (${s802}).`);
    if (Object.keys(fields).length) throw badInput(fields);
    if (given) l = await storeDraft(tx, l, given.values, given.vehicles);

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

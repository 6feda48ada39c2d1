import { type DataSource } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, formatDate, zonedInstant } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { roleIn } from "../organizations/organizations.service.js";
import { cancelPendingPayments, createPayment, isPaid } from "../payments/payments.service.js";
import { HaulerLicense, HaulerLoad, HaulerPermission, HaulerVehicle, SOURCE_KINDS, type SourceKind } from "./hauler.entity.js";
import { DAY_NAMES, SOURCE_KIND_LABELS, describeSchedule, dumpingFeeCents, hhmm, insideSchedule, licenseStanding, loadBookingReadiness, permissionStanding, wallClock, type Standing } from "./rules.js";
import { LOAD_PAYABLE, type Meta, actorOf, adjustmentCents, clean, getLicense, getLoad, getPermission, loadDistrict, longText, part364Opts, peopleOf, requireRole, staffOf, tell } from "./common.js";
import { formatDateTime } from "../common/format.js";
import { pumpOutFromLoad } from "../septic/septic.service.js";

/** Loads: booking with the dumping fee, the Operator's approval or refusal, cancellation, the gallons received (SUL 801, 803, 804, 1208). */

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
  if (!!input.licenseId === !!input.permissionId) throw badInput({ licenseId: "Choose the licence (or special permission) the load comes under." });
  return ds.transaction(async (tx) => {
    const holder = input.licenseId ? await getLicense(tx, viewer, input.licenseId, false) : await getPermission(tx, viewer, input.permissionId!, false);
    // Booking is for the company's own people, not staff: another company's licence is not found.
    if ((await roleIn(tx, viewer.userId, holder.organizationId)) === null) throw notFound(input.licenseId ? "That licence" : "That special permission");
    const district = await loadDistrict(tx, holder.districtId);
    const rb = await rulebookOn(tx, district);
    // Said before anything typed is looked at (the booking page says it before its form): no load
    // is booked where the law has the fee paid first and the Board has not set it.
    const readiness = loadBookingReadiness(rb, district.name);
    if (!readiness.ready) throw conflict(readiness.reason!);
    const today = dateIn(district.timeZone);
    const standingOn = (day: string): Standing =>
      input.licenseId ? licenseStanding(holder as HaulerLicense, day, part364Opts(rb)) : permissionStanding(holder as HaulerPermission, day, rb.entry("hauler.specialPermissionEnabled").section);
    const now = standingOn(today);
    // Invalid today (a renewal not yet started may take bookings for days of its term).
    if (!now.inForce && now.state !== "NOT_YET_IN_FORCE") throw new AppError("CONFLICT", `The load cannot be booked: ${now.reasons.join(" ")}`, { plannedArrival: now.reasons.join(" ") });

    // Every field at once, in the form's order.
    const fields: Record<string, string> = {};
    const vehicle = isUuid(input.vehicleId ?? "")
      ? await tx.findOneBy(HaulerVehicle, input.licenseId ? { id: input.vehicleId, licenseId: holder.id } : { id: input.vehicleId, permissionId: holder.id })
      : null;
    if (!vehicle) fields.vehicleId = input.vehicleId ? `Choose one of the vehicles on the ${input.licenseId ? "licence" : "special permission"}.` : "Choose the vehicle.";
    const address = clean(input.sourceAddress);
    if (!address || address.length > 300) fields.sourceAddress = "Enter the address the septage comes from.";
    if (!SOURCE_KINDS.includes(input.sourceKind as SourceKind)) fields.sourceKind = "Choose what the septage comes from.";
    const description = clean(input.sourceDescription);
    if (description && description.length > 500) fields.sourceDescription = "Use at most 500 characters.";
    if (input.sourceKind === "OTHER" && !description) fields.sourceDescription = "Describe the source.";
    const gallons = input.estimatedGallons;
    if (!Number.isInteger(gallons) || gallons < 1) fields.estimatedGallons = "Enter the estimated gallons as a whole number more than zero.";
    else if (vehicle && gallons > vehicle.tankCapacityGallons)
      fields.estimatedGallons = `The ${vehicle.make} ${vehicle.model} (${vehicle.plate}) holds ${vehicle.tankCapacityGallons.toLocaleString("en-US")} gallons; a load cannot be more than the tank's capacity.`;
    const schedule: { dumpingDays: number[] | null; dumpingFrom: string | null; dumpingTo: string | null } = holder;
    const place = input.licenseId ? ((holder as HaulerLicense).dumpingLocation ?? "") : ((holder as HaulerPermission).point ?? "");
    const arrival = zonedInstant(input.plannedArrival ?? "", district.timeZone);
    let notInForce: string | null = null;
    if (!arrival) fields.plannedArrival = "Enter the planned arrival date and time, like 2026-12-07 09:30.";
    else if (arrival.getTime() < clock.now().getTime() - 15 * 60 * 1000) fields.plannedArrival = "Choose an arrival that has not passed.";
    else {
      const arrivalDay = wallClock(arrival, district.timeZone).date;
      const then = standingOn(arrivalDay);
      if (!then.inForce) {
        notInForce = `The load cannot be booked for ${formatDate(arrivalDay)}: ${then.reasons.join(" ")}`;
        fields.plannedArrival = then.reasons.join(" ");
      } else if (!insideSchedule(schedule, arrival, district.timeZone)) {
        const w = wallClock(arrival, district.timeZone);
        fields.plannedArrival = `${DAY_NAMES[w.weekday]} at ${hhmm(`${Math.floor(w.minutes / 60)}:${String(w.minutes % 60).padStart(2, "0")}`)} is outside the allowed days and hours: ${describeSchedule(schedule)} (${rb.entry("hauler.dumpingHours").section}).`;
      }
    }
    // The licence (or permission) not in force on the arrival day is a conflict with the record, said with the day.
    if (notInForce) throw new AppError("CONFLICT", notInForce, fields);
    if (Object.keys(fields).length || !vehicle || !arrival) throw badInput(fields);

    // The dumping fee, as the Board set it (SUL 1208), paid before dumping (SUL 801).
    const rate = rb.entry("hauler.dumpingFeePer1000Gallons");
    const minimum = rb.entry("hauler.dumpingFeeMinimumPerLoad");
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
            // A fee, not a deposit: the law makes nothing of it refundable (SUL 801, 1208). A refused or
            // cancelled load's fee is owed back all the same (registrations.ts, linesOwedBack).
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
    const when = formatDateTime(arrival, district.timeZone, "full");
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
    // A licensed load from a registered septic system's address is its pump-out (SUL 407; api/septic).
    await pumpOutFromLoad(tx, load);
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

import { type DataSource } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { formatDate, isCalendarDate } from "../common/dates.js";
import { badInput, conflict } from "../common/errors.js";
import { rulebookOn } from "../districts/districts.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { HaulerPermission, HaulerVehicle } from "./hauler.entity.js";
import { describeSchedule } from "./rules.js";
import { type Meta, type ScheduleInput, type VehicleInput, actorOf, checkSchedule, checkVehicles, clean, getPermission, haulerOrganization, loadDistrict, longText, peopleOf, requireRole, staffOf, tell } from "./common.js";

/** Huron: the Superintendent's written special permission in place of a licence (Huron IV-8). */

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

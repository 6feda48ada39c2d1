import { clock } from "../common/clock.js";
import { type DataSource, type EntityManager } from "typeorm";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { SewerMoratorium } from "./lateral-permit.entity.js";
import { normalizeStreet } from "./rules.js";
import { actorOf, clean, loadDistrict } from "./common.js";

/** Moratoria on new connections declared by the Town Board through its ADMIN (SUL 310). */

// ---------------------------------------------------------------------------------------------
// Moratoria (SUL 310)

export async function activeMoratoriumOn(tx: DataSource | EntityManager, districtId: string, street: string): Promise<SewerMoratorium | null> {
  return tx
    .getRepository(SewerMoratorium)
    .createQueryBuilder("m")
    .where("m.district_id = :d AND m.lifted_at IS NULL AND :s = ANY(m.streets)", { d: districtId, s: normalizeStreet(street) })
    .orderBy("m.declared_at", "ASC")
    .getOne();
}

export async function declareMoratorium(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; segmentName: string; streets: string[]; reason: string },
  requestId?: string,
): Promise<SewerMoratorium> {
  if (!hasRole(viewer, "ADMIN", input.districtId)) throw forbidden("Only this district's ADMIN declares moratoria.");
  const fields: Record<string, string> = {};
  const segmentName = clean(input.segmentName);
  const reason = (input.reason ?? "").trim();
  const streets = [...new Set((input.streets ?? []).map(normalizeStreet).filter(Boolean))];
  if (!segmentName || segmentName.length > 200) fields.segmentName = "Name the sewer segment (up to 200 characters).";
  if (!streets.length) fields.streets = "List at least one street the segment serves.";
  if (streets.length > 100 || streets.some((s) => s.length > 200)) fields.streets = "List at most 100 streets of up to 200 characters each.";
  if (!reason || reason.length > 2000) fields.reason = "Give the reason applicants will read (up to 2,000 characters).";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const district = await loadDistrict(tx, input.districtId);
    const rb = await rulebookOn(tx, district);
    const rule = rb.entry("lateral.moratoriumEnabled");
    if (!rb.enabled("lateral.moratoriumEnabled")) throw conflict(`This district's law provides no moratorium on new connections (${rule.section}).${rule.note ? ` ${rule.note}` : ""}`);
    const m = await tx.save(tx.create(SewerMoratorium, { districtId: district.id, segmentName: segmentName!, streets, reason, section: rule.section, declaredById: viewer.userId }));
    await audit(tx, actorOf(viewer, requestId), {
      action: "lateral.moratorium_declared",
      entityType: "SewerMoratorium",
      entityId: m.id,
      districtId: district.id,
      reason,
      details: { segmentName, streets, section: rule.section },
    });
    return m;
  });
}

export async function liftMoratorium(ds: DataSource, viewer: Viewer, input: { id: string; reason: string }, requestId?: string): Promise<SewerMoratorium> {
  const reason = (input.reason ?? "").trim();
  if (!reason || reason.length > 2000) throw badInput({ reason: "Say why the moratorium is lifted (up to 2,000 characters)." });
  return ds.transaction(async (tx) => {
    const m = isUuid(input.id) ? await tx.getRepository(SewerMoratorium).createQueryBuilder("m").setLock("pessimistic_write").where("m.id = :id", { id: input.id }).getOne() : null;
    if (!m) throw notFound("That moratorium");
    if (!hasRole(viewer, "ADMIN", m.districtId)) throw forbidden("Only this district's ADMIN lifts moratoria.");
    if (m.liftedAt) throw conflict("This moratorium is already lifted.");
    m.liftedAt = clock.now();
    m.liftedById = viewer.userId;
    m.liftReason = reason;
    await tx.save(m);
    await audit(tx, actorOf(viewer, requestId), { action: "lateral.moratorium_lifted", entityType: "SewerMoratorium", entityId: m.id, districtId: m.districtId, reason });
    return m;
  });
}

export async function listMoratoria(ds: DataSource, districtSlug: string, includeLifted = false): Promise<SewerMoratorium[]> {
  const q = ds
    .getRepository(SewerMoratorium)
    .createQueryBuilder("m")
    .innerJoin(District, "d", "d.id = m.district_id")
    .where("d.slug = :slug", { slug: districtSlug })
    .orderBy("m.declared_at", "DESC")
    .addOrderBy("m.id", "DESC");
  if (!includeLifted) q.andWhere("m.lifted_at IS NULL");
  return q.getMany();
}

import type { DataSource } from "typeorm";
import { badInput } from "../common/errors.js";
import { AuditEntry } from "./audit-entry.entity.js";

export type AuditQuery = {
  districtId: string;
  action?: string;
  entityType?: string;
  entityId?: string;
  actorId?: string;
  before?: string;
  first?: number;
};

/** Keyset pagination on (at, id): the index audit_entry_district_id serves it. */
export async function listAudit(ds: DataSource, f: AuditQuery) {
  const first = f.first ?? 50;
  const q = ds
    .getRepository(AuditEntry)
    .createQueryBuilder("a")
    .where("a.district_id = :d", { d: f.districtId })
    .orderBy("a.at", "DESC")
    .addOrderBy("a.id", "DESC")
    .take(first + 1);
  if (f.action) q.andWhere("a.action = :action", { action: f.action });
  if (f.entityType) q.andWhere("a.entity_type = :et", { et: f.entityType });
  if (f.entityId) q.andWhere("a.entity_id = :eid", { eid: f.entityId });
  if (f.actorId) q.andWhere("a.actor_id = :actor", { actor: f.actorId });
  if (f.before) {
    const [at, id] = Buffer.from(f.before, "base64url").toString().split("|");
    if (!at || !id || Number.isNaN(Date.parse(at))) throw badInput({ before: "Not a valid cursor." });
    q.andWhere("(a.at, a.id) < (:at, :id)", { at, id });
  }
  const rows = await q.getMany();
  const entries = rows.slice(0, first);
  const last = entries[entries.length - 1];
  return {
    entries,
    nextCursor: rows.length > first && last ? Buffer.from(`${last.at.toISOString()}|${last.id}`).toString("base64url") : null,
  };
}

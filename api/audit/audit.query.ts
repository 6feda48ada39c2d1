import type { DataSource } from "typeorm";
import { badInput } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant } from "../common/paging.js";
import { isUuid } from "../documents/documents.service.js";
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

/**
 * Keyset pagination on (at, id): the index audit_entry_district_id serves it. The cursor keeps
 * `at` to the microsecond: the entries of one transaction share its now(), and a cursor cut to
 * JavaScript's milliseconds would skip the rest of them when a page ends among them.
 */
export async function listAudit(ds: DataSource, f: AuditQuery) {
  const first = f.first ?? 50;
  const q = ds
    .getRepository(AuditEntry)
    .createQueryBuilder("a")
    .addSelect(`to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, "cursor_at")
    .where("a.district_id = :d", { d: f.districtId })
    .orderBy("a.at", "DESC")
    .addOrderBy("a.id", "DESC")
    .limit(first + 1);
  if (f.action) q.andWhere("a.action = :action", { action: f.action });
  if (f.entityType) q.andWhere("a.entity_type = :et", { et: f.entityType });
  if (f.entityId) q.andWhere("a.entity_id = :eid", { eid: f.entityId });
  if (f.actorId) {
    if (!isUuid(f.actorId)) throw badInput({ actorId: "Not a valid id." });
    q.andWhere("a.actor_id = :actor", { actor: f.actorId });
  }
  // Entries are numbered (bigint), not uuids.
  const cursor = decodeCursor(f.before, isInstant, "before", (id) => /^\d{1,19}$/.test(id));
  if (cursor) q.andWhere("(a.at, a.id) < (CAST(:at AS timestamptz), CAST(:id AS bigint))", { at: cursor.key, id: cursor.id });
  const { entities, raw } = await q.getRawAndEntities();
  const entries = entities.slice(0, first);
  const lastRaw = raw[entries.length - 1];
  return {
    entries,
    nextCursor: entities.length > first && lastRaw ? encodeCursor(lastRaw.cursor_at, entries[entries.length - 1].id) : null,
  };
}

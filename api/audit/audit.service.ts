import type { EntityManager } from "typeorm";
import { AuditEntry } from "./audit-entry.entity.js";

export type Actor = { userId: string | null; requestId?: string };
export type AuditInput = {
  action: string;
  entityType: string;
  entityId: string;
  districtId?: string | null;
  reason?: string | null;
  details?: Record<string, unknown>;
};

/** The row an entry writes. */
const rowOf = (actor: Actor, entry: AuditInput) => ({
  actorId: actor.userId,
  districtId: entry.districtId ?? null,
  action: entry.action,
  entityType: entry.entityType,
  entityId: entry.entityId,
  reason: entry.reason ?? null,
  details: (entry.details ?? {}) as any,
  requestId: actor.requestId ?? null,
});

/** Writes who, what, on which record, when and why, inside the caller's transaction. */
export async function audit(tx: EntityManager, actor: Actor, entry: AuditInput): Promise<void> {
  await tx.insert(AuditEntry, rowOf(actor, entry));
}

/** Several entries by one actor in one statement (a job's batch, each record keeping its own entry). */
export async function auditMany(tx: EntityManager, actor: Actor, entries: AuditInput[]): Promise<void> {
  if (entries.length) await tx.insert(AuditEntry, entries.map((entry) => rowOf(actor, entry)));
}

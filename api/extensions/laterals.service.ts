import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { badInput, conflict } from "../common/errors.js";
import { isUuid } from "../documents/documents.service.js";
import { actorOf, getExtension, requireOperator, requireStatus, type Db } from "./common.js";
import { connectionProblem } from "./tests.service.js";

/**
 * Building laterals on a sewer extension (SUL 502 A): the District Operator records which lateral
 * permits are on the extension, and their connection waits for the extension's tests.
 */

export type LinkedLateral = { lateralPermitId: string; extensionId: string; permitNumber: string | null; status: string };

/** The lateral permits recorded on these extensions (one query). */
export async function lateralsOf(db: Db, extensionIds: readonly string[]): Promise<LinkedLateral[]> {
  if (!extensionIds.length) return [];
  return db.query(
    `SELECT l.lateral_permit_id AS "lateralPermitId", l.extension_id AS "extensionId", p.permit_number AS "permitNumber", p.status
       FROM sewer_extension_lateral l JOIN lateral_permit p ON p.id = l.lateral_permit_id WHERE l.extension_id = ANY($1::uuid[]) ORDER BY l.linked_at`,
    [extensionIds],
  );
}

/** The Operator records that a lateral permit of the district connects to the extension's sewer (before its connection is accepted). */
export async function linkLateral(
  ds: DataSource,
  viewer: Viewer,
  input: { extensionId: string; lateralPermitId?: string | null; permitNumber?: string | null },
  requestId?: string,
): Promise<LinkedLateral[]> {
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["APPROVED"], "Laterals are recorded on an approved extension");
    // By id (API) or by the permit number the Operator reads off the permit (the portal's form).
    const number = (input.permitNumber ?? "").trim();
    const field = input.lateralPermitId ? "lateralPermitId" : "permitNumber";
    const [p] = input.lateralPermitId
      ? isUuid(input.lateralPermitId)
        ? await tx.query(`SELECT id, status, district_id AS "districtId" FROM lateral_permit WHERE id = $1 FOR UPDATE`, [input.lateralPermitId])
        : []
      : number && number.length <= 60
        ? await tx.query(`SELECT id, status, district_id AS "districtId" FROM lateral_permit WHERE district_id = $1 AND permit_number = $2 FOR UPDATE`, [e.districtId, number])
        : [];
    if (!p || p.districtId !== e.districtId || p.status === "DRAFT")
      throw badInput({ [field]: field === "permitNumber" ? "No issued lateral permit of this district has that number." : "Choose a lateral permit application of this district." });
    input = { ...input, lateralPermitId: p.id };
    if (p.status === "CONNECTED" || p.status === "CLOSED") throw conflict("That lateral's connection is already accepted.");
    const [taken] = await tx.query(`SELECT extension_id AS "extensionId" FROM sewer_extension_lateral WHERE lateral_permit_id = $1`, [input.lateralPermitId]);
    if (taken) throw conflict(taken.extensionId === e.id ? "That lateral is already recorded on this extension." : "That lateral is recorded on another extension.");
    await tx.query(`INSERT INTO sewer_extension_lateral (lateral_permit_id, extension_id, linked_by_id) VALUES ($1, $2, $3)`, [input.lateralPermitId, e.id, viewer.userId]);
    await audit(tx, actorOf(viewer, requestId), { action: "extension.lateral_linked", entityType: "SewerExtension", entityId: e.id, districtId: e.districtId, details: { lateralPermitId: input.lateralPermitId } });
    return lateralsOf(tx, [e.id]);
  });
}

/**
 * For api/laterals: why a lateral permit's connection cannot be accepted yet (SUL 502 A), or null.
 * Null for a permit on no extension.
 */
export async function lateralConnectionProblem(db: Db, lateralPermitId: string): Promise<string | null> {
  const [link] = await db.query(`SELECT extension_id AS "extensionId" FROM sewer_extension_lateral WHERE lateral_permit_id = $1`, [lateralPermitId]);
  return link ? connectionProblem(db, link.extensionId) : null;
}

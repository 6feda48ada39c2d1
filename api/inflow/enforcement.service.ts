import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { conflict, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { rulebookById } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { createAction } from "../enforcement/enforcement.service.js";
import { actorOf, clean, getInspection, loadDistrict, requireOperator, type Meta } from "./common.js";
import { SOURCE_KIND_LABELS, enforceable, type SourceKind, type SourceState } from "./rules.js";

/**
 * From a finding to an enforcement action. SUL 704: "It shall be a willful violation of this Law for
 * any person to reconnect any inflow source which has been disconnected pursuant to this Article";
 * Huron III-8 forbids the connection and Article V serves a written notice with a time to correct.
 * The action is served by the enforcement feature's own `createAction` (its notices, fines and
 * petitions), naming the source as its subject; this only writes the violation from the finding.
 */
export async function openEnforcement(
  ds: DataSource,
  viewer: Viewer,
  input: { sourceId: string; kind?: string | null; respondentEmail?: string | null; correctBy?: string | null; requirements?: string | null },
  meta: Meta,
): Promise<{ actionId: string; number: string }> {
  if (!isUuid(input.sourceId ?? "")) throw notFound("That finding");
  // One transaction, the finding's row locked: two presses open one action, and the action and its audit entry commit together.
  return ds.transaction(async (tx) => {
    await tx.query(`SELECT id FROM inflow_source WHERE id = $1 FOR UPDATE`, [input.sourceId]);
    const [s] = await tx.query(
      `SELECT s.id, s.kind, s.location, s.state, s.inspection_id, v.visited_on::text AS visited_on, v.rulebook_version_id, d.prior
       FROM inflow_source s JOIN inflow_visit v ON v.id = s.visit_id
       LEFT JOIN LATERAL (SELECT to_char(v2.visited_on, 'YYYY-MM-DD') AS prior FROM inflow_source s2 JOIN inflow_visit v2 ON v2.id = s2.visit_id WHERE s2.id = s.reconnects_source_id) d ON true
      WHERE s.id = $1`,
      [input.sourceId],
    );
    if (!s) throw notFound("That finding");
    const i = await getInspection(tx, viewer, s.inspection_id).catch(() => {
      throw notFound("That finding");
    });
    const district = await loadDistrict(tx, i.districtId);
    requireOperator(viewer, district);
    const rb = await rulebookById(tx, s.rulebook_version_id);
    const rule = enforceable(rb, s.state as SourceState);
    const label = SOURCE_KIND_LABELS[s.kind as SourceKind];
    if (!rule.ok)
      throw conflict(
        s.state === "DISCONNECTED"
          ? "That source was found disconnected: there is no violation to serve."
          : `Under ${rule.section} an enforcement action follows a source reconnected after its disconnection; a connection found is answered by the disconnection order.`,
      );
    const [existing] = await tx.query(`SELECT number FROM enforcement_action WHERE subject_type = 'InflowSource' AND subject_id = $1 LIMIT 1`, [s.id]);
    if (existing) throw conflict(`Enforcement action ${existing.number} was already opened from this finding.`);
    // The respondent: the one named, else the owner of record when in the portal.
    let email = clean(input.respondentEmail);
    if (!email && i.ownerUserId) [{ email }] = await tx.query(`SELECT email FROM app_user WHERE id = $1`, [i.ownerUserId]);
    const where = `${i.address} (tax parcel ${i.taxParcel})`;
    const what = `${label}${s.location ? ` (${s.location})` : ""}`;
    const violation =
      s.state === "RECONNECTED"
        ? `On ${formatDate(s.visited_on)} the ${district.operatorTitle} found the ${what.toLowerCase()} of ${where} reconnected to the sanitary sewer after its disconnection${
            s.prior ? ` recorded on ${formatDate(s.prior)}` : ""
          }: a wilful violation (${rule.section}). Inspection ${i.number}.`
        : `On ${formatDate(s.visited_on)} the ${district.operatorTitle} found the ${what.toLowerCase()} of ${where} connected to the sanitary sewer, which ${rule.section} forbids. Inspection ${
            i.number
          }.`;
    // createAction takes the caller's transaction as its data source (its own transaction nests in this one).
    const action = await createAction(
      tx as unknown as DataSource,
      viewer,
      {
        districtId: district.id,
        kind: clean(input.kind) ?? "NOTICE_OF_VIOLATION",
        respondentEmail: email,
        violation,
        requirements: clean(input.requirements) ?? `Disconnect the ${label.toLowerCase()} from the sanitary sewer in a fashion the ${district.operatorTitle} approves, and keep it disconnected.`,
        correctBy: clean(input.correctBy),
        subjectType: "InflowSource",
        subjectId: s.id,
        subjectLabel: `${i.number}: ${label}`,
        taxParcel: i.taxParcel,
        propertyAddress: i.address,
      },
      meta,
    );
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "inflow.enforcement_opened",
      entityType: "InflowInspection",
      entityId: i.id,
      districtId: district.id,
      details: { sourceId: s.id, enforcementActionId: action.id, number: action.number, section: rule.section },
    });
    return { actionId: action.id, number: action.number };
  });
}

import { In, type DataSource, type EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, isCalendarDate } from "../common/dates.js";
import { formatDate } from "../common/format.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { District as DistrictEntity, type District } from "../districts/district.entity.js";
import { rulebookById, type Rulebook } from "../districts/districts.service.js";
import { allOwnedBy, isUuid } from "../documents/documents.service.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { staffOf } from "../staff/staff-of.js";
import { capacityForApplications, type CapacityRow } from "./capacity.service.js";
import {
  DOCUMENT_KINDS,
  EXTENSION_COLUMNS,
  EXTENSION_FROM,
  EXTENSION_STATUSES,
  STATUS_LABELS,
  actorOf,
  clean,
  getExtension,
  lawProvidingExtensions,
  loadDistrict,
  requireMember,
  requireOperator,
  requireStatus,
  type Db,
  type ExtensionDocumentKind,
  type ExtensionRow,
  type ExtensionStatus,
} from "./common.js";
import { SEWER_TYPES, hasCapacity, materialsCriteria, minimumDiameter, noticeProblem, num, type SewerType } from "./rules.js";

/** Applying for a sewer extension, the District Operator's review and decision (SUL 501-503), the notice of construction (502 A). */

export type ExtensionDocumentInput = { documentId: string; kind: string };
export type ApplyInput = {
  districtId: string;
  organizationId: string;
  name: string;
  location: string;
  mapReference: string;
  lots: number;
  designFlowGpd: number;
  sewerType: string;
  pipeDiameterInches: number;
  pipePvc: boolean;
  designerName: string;
  designerLicense: string;
  receivingSegmentId: string;
  plantId: string;
  documents: ExtensionDocumentInput[];
};

/** Bounds of what an application can state (a typing error's guard, not the law's figures). */
const MAX_LOTS = 10_000;
const MAX_FLOW_GPD = 100_000_000;
const MAX_DOCUMENTS = 50;

function documentProblems(docs: ExtensionDocumentInput[], fields: Record<string, string>) {
  if (docs.length > MAX_DOCUMENTS) fields.documents = `Attach at most ${MAX_DOCUMENTS} documents.`;
  if (docs.some((d) => !DOCUMENT_KINDS.includes(d.kind as ExtensionDocumentKind) || !isUuid(d.documentId))) fields.documents = "Say what each document is: plans, specifications, calculations, the State's approval, pipe test results or the as-built drawings.";
}

/** A member of a developer organization applies for its sewer extension (SUL 501, 502 A and C, 503 A). */
export async function applyForExtension(ds: DataSource, viewer: Viewer, input: ApplyInput, requestId?: string): Promise<ExtensionRow> {
  const district = await loadDistrict(ds, input.districtId);
  const rb = await lawProvidingExtensions(ds, district);
  if (!isUuid(input.organizationId)) throw badInput({ organizationId: "Choose your developer organization." });
  const [org] = await ds.query(
    `SELECT o.kind FROM organization o JOIN membership m ON m.organization_id = o.id AND m.user_id = $2 WHERE o.id = $1`,
    [input.organizationId, viewer.userId],
  );
  if (!org) throw badInput({ organizationId: "Choose a developer organization you belong to." });
  if (org.kind !== "DEVELOPER") throw badInput({ organizationId: "Apply as a developer organization (a builder or developer: Account, Organizations)." });

  const fields: Record<string, string> = {};
  const text = (v: string, key: string, max: number, message: string) => {
    const t = clean(v);
    if (!t || t.length > max) fields[key] = message;
    return t;
  };
  const name = text(input.name, "name", 200, "Name the subdivision or project (up to 200 characters).");
  const location = text(input.location, "location", 500, "Say where the sewer will be: streets and the area served (up to 500 characters).");
  const mapReference = text(input.mapReference, "mapReference", 200, "Give the map reference: the subdivision map or tax map sheet (up to 200 characters).");
  const designerName = text(input.designerName, "designerName", 200, `Name the licensed design professional (${district.citationPrefix} 501).`);
  const designerLicense = text(input.designerLicense, "designerLicense", 100, "Give the design professional's State licence number.");
  if (!Number.isInteger(input.lots) || input.lots < 1 || input.lots > MAX_LOTS) fields.lots = `Enter the number of lots, 1 to ${MAX_LOTS.toLocaleString("en-US")}.`;
  if (!Number.isInteger(input.designFlowGpd) || input.designFlowGpd < 1 || input.designFlowGpd > MAX_FLOW_GPD) fields.designFlowGpd = "Enter the design flow in whole gallons per day.";
  if (!SEWER_TYPES.includes(input.sewerType as SewerType)) fields.sewerType = "Choose a gravity or a low-pressure sewer.";
  else if (!(input.pipeDiameterInches > 0) || input.pipeDiameterInches > 120) fields.pipeDiameterInches = "Enter the pipe's inside diameter in inches.";
  else {
    const min = minimumDiameter(rb, input.sewerType as SewerType);
    if (input.pipeDiameterInches < min.inches)
      fields.pipeDiameterInches = `A ${input.sewerType === "GRAVITY" ? "gravity" : "low-pressure"} sewer is at least ${num(min.inches)} inches across inside (${min.section}).`;
  }
  const docs = input.documents ?? [];
  documentProblems(docs, fields);
  if (!fields.documents) {
    if (!docs.some((d) => d.kind === "PLANS")) fields.documents = `Attach the plans (${district.citationPrefix} 501).`;
    else if (!docs.some((d) => d.kind === "SPECIFICATIONS")) fields.documents = `Attach the specifications (${district.citationPrefix} 501).`;
    else if (!(await allOwnedBy(ds, docs.map((d) => d.documentId), viewer.userId))) fields.documents = "Attach only documents you uploaded.";
  }
  const lines: { id: string; kind: string }[] =
    isUuid(input.receivingSegmentId) && isUuid(input.plantId)
      ? await ds.query(`SELECT id, kind FROM sewer_capacity WHERE district_id = $1 AND id = ANY($2::uuid[])`, [district.id, [input.receivingSegmentId, input.plantId]])
      : [];
  if (!lines.some((l) => l.id === input.receivingSegmentId && l.kind === "SEGMENT")) fields.receivingSegmentId = "Choose the sewer segment that will receive the flow.";
  if (!lines.some((l) => l.id === input.plantId && l.kind === "PLANT")) fields.plantId = "Choose the treatment plant.";
  if (Object.keys(fields).length) throw badInput(fields);

  return ds.transaction(async (tx) => {
    const [{ id }] = await tx.query(
      `INSERT INTO sewer_extension (district_id, organization_id, applicant_id, status, name, location, map_reference, lots, design_flow_gpd, sewer_type,
         pipe_diameter_inches, pipe_pvc, designer_name, designer_license, receiving_segment_id, plant_id, rulebook_version_id)
       VALUES ($1, $2, $3, 'SUBMITTED', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id`,
      [district.id, input.organizationId, viewer.userId, name, location, mapReference, input.lots, input.designFlowGpd, input.sewerType, input.pipeDiameterInches, input.pipePvc === true, designerName, designerLicense, input.receivingSegmentId, input.plantId, rb.version.id],
    );
    await insertDocuments(tx, id, docs, 0);
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.applied",
      entityType: "SewerExtension",
      entityId: id,
      districtId: district.id,
      details: { organizationId: input.organizationId, lots: input.lots, designFlowGpd: input.designFlowGpd, documents: docs.length },
    });
    await emailOperators(tx, district, "extension.applied", `Sewer extension to review: ${name}`, `A developer applied for a sewer extension: ${name}, ${input.lots} lots, ${num(input.designFlowGpd)} gallons per day (${district.citationPrefix} 501).`);
    return getExtension(tx, viewer, id);
  });
}

async function insertDocuments(tx: Db, extensionId: string, docs: ExtensionDocumentInput[], from: number) {
  if (!docs.length) return;
  await tx.query(
    `INSERT INTO sewer_extension_document (extension_id, document_id, kind, position)
     SELECT $1, d.document_id, d.kind, $4 + d.ord FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS d(document_id, kind, ord)
     ON CONFLICT (extension_id, document_id) DO NOTHING`,
    [extensionId, docs.map((d) => d.documentId), docs.map((d) => d.kind), from],
  );
}

/** The developer adds documents while the application is under review (the State's approval, pipe test results on request: 501, 502 C). */
export async function attachDocuments(ds: DataSource, viewer: Viewer, input: { id: string; documents: ExtensionDocumentInput[] }, requestId?: string): Promise<ExtensionRow> {
  const fields: Record<string, string> = {};
  documentProblems(input.documents ?? [], fields);
  if (!input.documents?.length) fields.documents = "Attach at least one document.";
  else if (!fields.documents && !(await allOwnedBy(ds, input.documents.map((d) => d.documentId), viewer.userId))) fields.documents = "Attach only documents you uploaded.";
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.id, true);
    await requireMember(tx, viewer, e, "add documents");
    requireStatus(e, ["SUBMITTED", "APPROVED"], "Documents are added to an application under review or approved");
    if (Object.keys(fields).length) throw badInput(fields);
    const [{ n }] = await tx.query(`SELECT count(*)::int AS n FROM sewer_extension_document WHERE extension_id = $1`, [e.id]);
    if (n + input.documents.length > MAX_DOCUMENTS) throw badInput({ documents: `An application holds at most ${MAX_DOCUMENTS} documents.` });
    await insertDocuments(tx, e.id, input.documents, n);
    await audit(tx, actorOf(viewer, requestId), { action: "extension.documents_added", entityType: "SewerExtension", entityId: e.id, districtId: e.districtId, details: { documents: input.documents.length } });
    return e;
  });
}

export type ExtensionDocumentRow = { extensionId: string; documentId: string; kind: ExtensionDocumentKind; filename: string };
/** The documents of these applications (one query). */
export async function documentsOf(db: Db, ids: readonly string[]): Promise<ExtensionDocumentRow[]> {
  if (!ids.length) return [];
  return db.query(
    `SELECT sd.extension_id AS "extensionId", sd.document_id AS "documentId", sd.kind, d.filename
       FROM sewer_extension_document sd JOIN document d ON d.id = sd.document_id WHERE sd.extension_id = ANY($1::uuid[]) ORDER BY sd.extension_id, sd.position`,
    [ids],
  );
}

// ---------------------------------------------------------------------------------------------
// Lists

/** The applications of every developer organization the viewer belongs to, newest first (one query, index sewer_extension_organization). */
export async function myExtensions(ds: DataSource, viewer: Viewer): Promise<ExtensionRow[]> {
  return ds.query(
    `SELECT ${EXTENSION_COLUMNS} FROM ${EXTENSION_FROM}
      WHERE e.organization_id IN (SELECT organization_id FROM membership WHERE user_id = $1) ORDER BY e.submitted_at DESC, e.id DESC`,
    [viewer.userId],
  );
}

/** The district's applications for its staff, newest first, keyset-paginated on (submitted_at, id) (index sewer_extension_district). */
export async function districtExtensions(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; status?: string | null; first?: number | null; after?: string | null },
): Promise<{ items: ExtensionRow[]; nextCursor: string | null }> {
  if (!isStaff(viewer, input.districtId)) throw forbidden("You are not staff of that district.");
  const first = pageSize(input.first, 25, 100);
  const status = clean(input.status);
  // AWAITING_BOARD: the Town Board's acceptance queue, approved with the District Operator's final approval given (SUL 507).
  const awaitingBoard = status === "AWAITING_BOARD";
  if (status && !awaitingBoard && !EXTENSION_STATUSES.includes(status as ExtensionStatus))
    throw badInput({ status: "Choose under review, approved, awaiting the Town Board, denied or accepted by the Town." });
  const cursor = decodeCursor(input.after, isInstant);
  const rows: (ExtensionRow & { cursorAt: string })[] = await ds.query(
    `SELECT ${EXTENSION_COLUMNS}, to_char(e.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
       FROM ${EXTENSION_FROM}
      WHERE e.district_id = $1 AND ($2::text IS NULL OR e.status = $2) AND (NOT $6::boolean OR e.final_approved_at IS NOT NULL)
        AND ($3::timestamptz IS NULL OR (e.submitted_at, e.id) < ($3::timestamptz, $4::uuid))
      ORDER BY e.submitted_at DESC, e.id DESC LIMIT $5`,
    [input.districtId, awaitingBoard ? "APPROVED" : status, cursor?.key ?? null, cursor?.id ?? null, first + 1, awaitingBoard],
  );
  const items = rows.slice(0, first);
  const last = rows.length > first ? items[items.length - 1] : null;
  return { items: items.map(({ cursorAt: _c, ...r }) => r as ExtensionRow), nextCursor: last ? encodeCursor(last.cursorAt, last.id) : null };
}

// ---------------------------------------------------------------------------------------------
// Review (SUL 501, 502 C, 503 A)

export type ChecklistItem = {
  key: string;
  label: string;
  section: string;
  /** CONFIRM: the Operator ticks it; COMPUTED: the portal judges it from the application and the ledger */
  kind: "CONFIRM" | "COMPUTED";
  met: boolean;
};

export type Review = { items: ChecklistItem[]; capacity: { segment: CapacityRow; plant: CapacityRow }; hasCapacity: boolean; capacityProblem: string | null; approvable: boolean };

const capacityText = (what: string, c: CapacityRow, flow: number) =>
  `${what} ${c.name}: design capacity ${num(c.designGpd)} gallons per day, present use ${num(c.presentUseGpd)}, committed by the Town Board ${num(c.committedGpd)}, ` +
  `${num(Math.max(0, c.leftGpd))} left${c.leftGpd < 0 ? ` (over by ${num(-c.leftGpd)})` : ""}; this extension ${num(flow)}`;

/** The review checklist with the capacity check, on the district's today: the same figures the decision uses. */
export async function reviewOf(db: Db, e: ExtensionRow, district: District, checklist = e.checklist): Promise<Review> {
  return (await reviewsOf(db, [{ ...e, checklist }], new Map([[district.id, district]])))[0];
}

/**
 * The reviews of many applications in a fixed number of queries whatever their number (the staff's
 * list): districts not given are read in one query, the ledger figures in one, the documents in one;
 * rulebook versions are cached by id.
 */
export async function reviewsOf(db: Db, rows: readonly ExtensionRow[], districts: Map<string, District> = new Map()): Promise<Review[]> {
  if (!rows.length) return [];
  const missing = [...new Set(rows.map((r) => r.districtId))].filter((id) => !districts.has(id));
  if (missing.length) for (const d of await db.getRepository(DistrictEntity).find({ where: { id: In(missing) } })) districts.set(d.id, d);
  const today = new Map([...districts.values()].map((d) => [d.id, dateIn(d.timeZone)]));
  const [cap, docs] = await Promise.all([
    capacityForApplications(db, rows.flatMap((e) => [e.receivingSegmentId, e.plantId].map((lineId) => ({ extensionId: e.id, lineId, day: today.get(e.districtId)! })))),
    documentsOf(db, rows.map((e) => e.id)),
  ]);
  const out: Review[] = [];
  for (const e of rows) {
    const rb = await rulebookById(db, e.rulebookVersionId);
    out.push(reviewFrom(e, districts.get(e.districtId)!, rb, cap.get(`${e.id}:${e.receivingSegmentId}`)!, cap.get(`${e.id}:${e.plantId}`)!, docs.filter((d) => d.extensionId === e.id)));
  }
  return out;
}

function reviewFrom(e: ExtensionRow, district: District, rb: Rulebook, segment: CapacityRow, plant: CapacityRow, docs: ExtensionDocumentRow[]): Review {
  const checklist = e.checklist;
  const has = (k: ExtensionDocumentKind) => docs.some((d) => d.kind === k);
  const s501 = `${district.citationPrefix} 501`;
  const [diameter, material] = materialsCriteria(rb, { sewerType: e.sewerType, diameterInches: e.pipeDiameterInches, pvc: e.pipePvc });
  const confirm = (key: string, label: string, section: string): ChecklistItem => ({ key, label, section, kind: "CONFIRM", met: checklist[key] === true });
  const items: ChecklistItem[] = [
    confirm("licensedDesigner", `Designed by ${e.designerName} (licence ${e.designerLicense}), licensed in the State, to the Ten State Standards and NYSDEC's requirements`, s501),
    confirm("futureFlows", "The design allows for flows from all possible future extensions or developments in the immediate drainage area", s501),
    { key: "plansFiled", label: "Plans and specifications filed", section: `${s501}, 502 C`, kind: "COMPUTED", met: has("PLANS") && has("SPECIFICATIONS") },
    { key: "stateApproval", label: "Written approval of the State Health Department (Watertown Office) and NYSDEC filed", section: s501, kind: "COMPUTED", met: has("STATE_APPROVAL") },
    { key: "diameter", label: diameter.text, section: diameter.section, kind: "COMPUTED", met: diameter.met },
    e.pipePvc
      ? { key: "material", label: material.text, section: material.section, kind: "COMPUTED", met: true }
      : confirm("otherMaterialApproved", "Pipe other than PVC: the District Operator has approved it in writing", material.section),
    { key: "segmentCapacity", label: capacityText("Receiving sewer", segment, e.designFlowGpd), section: s501, kind: "COMPUTED", met: hasCapacity(segment, e.designFlowGpd) },
    { key: "plantCapacity", label: capacityText("Treatment plant", plant, e.designFlowGpd), section: s501, kind: "COMPUTED", met: hasCapacity(plant, e.designFlowGpd) },
  ];
  const lacking = [segment, plant].filter((c) => !hasCapacity(c, e.designFlowGpd));
  const capacityProblem = lacking.length
    ? `Denied for lack of capacity (${s501}): ${lacking.map((c) => `${c.kind === "PLANT" ? "the treatment plant" : `the receiving sewer ${c.name}`} has ${num(Math.max(0, c.leftGpd))} gallons per day left after present use and the capacity the Town Board has committed, and the extension needs ${num(e.designFlowGpd)}`).join("; ")}.`
    : null;
  return { items, capacity: { segment, plant }, hasCapacity: !lacking.length, capacityProblem, approvable: items.every((i) => i.met) };
}

export const CONFIRM_KEYS = ["licensedDesigner", "futureFlows", "otherMaterialApproved"] as const;

/** The District Operator approves or denies (SUL 501). Approval needs every checklist item met; lack of capacity is a denial, its reason stated by the portal. */
export async function decideExtension(
  ds: DataSource,
  viewer: Viewer,
  input: { id: string; decision: string; confirmed: string[]; reason?: string | null; notes?: string | null },
  requestId?: string,
): Promise<ExtensionRow> {
  if (input.decision !== "APPROVE" && input.decision !== "DENY") throw badInput({ decision: "Choose approve or deny." });
  const confirmed = (input.confirmed ?? []).filter((k) => (CONFIRM_KEYS as readonly string[]).includes(k));
  const checklist = Object.fromEntries(CONFIRM_KEYS.map((k) => [k, confirmed.includes(k)]));
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.id, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["SUBMITTED"], "Only an application under review is decided");
    const district = await loadDistrict(tx, e.districtId);
    // Decisions on one district's ledger lines take turns, so two approvals cannot both count the same gallons.
    await tx.query(`SELECT id FROM sewer_capacity WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [[e.receivingSegmentId, e.plantId]]);
    const review = await reviewOf(tx, e, district, checklist);
    let reason = clean(input.reason);
    if (input.decision === "APPROVE") {
      if (!review.hasCapacity) throw conflict(`${review.capacityProblem} Deny the application.`, { decision: review.capacityProblem! });
      const open = review.items.filter((i) => !i.met);
      if (open.length)
        throw conflict(
          `Not every item of the review is met: ${open.map((i) => i.label).join("; ")}.`,
          open.some((i) => i.kind === "CONFIRM") ? { confirmed: "Confirm every item of the checklist before approving." } : undefined,
        );
    } else {
      reason = reason ?? review.capacityProblem;
      if (!reason) throw badInput({ reason: "Say why the application is denied (the developer reads it)." });
      if (reason.length > 2000) throw badInput({ reason: "Keep the reason to 2,000 characters." });
    }
    const status: ExtensionStatus = input.decision === "APPROVE" ? "APPROVED" : "DENIED";
    const notice = (await rulebookById(tx, e.rulebookVersionId)).require("extension.constructionNoticeDays");
    const snapshot = { segment: review.capacity.segment, plant: review.capacity.plant };
    await tx.query(
      `UPDATE sewer_extension SET status = $2, checklist = $3, review_notes = $4, decided_at = now(), decided_by_id = $5, decision_reason = $6, capacity_at_decision = $7 WHERE id = $1`,
      [e.id, status, JSON.stringify(checklist), clean(input.notes), viewer.userId, reason, JSON.stringify(snapshot)],
    );
    await audit(tx, actorOf(viewer, requestId), {
      action: status === "APPROVED" ? "extension.approved" : "extension.denied",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      reason,
      details: { checklist, capacity: snapshot },
    });
    const members: { id: string; email: string; display_name: string }[] = await tx.query(
      `SELECT u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY u.email`,
      [e.organizationId],
    );
    await enqueueEmails(
      tx,
      members.map((m) => ({
        to: m.email,
        recipientId: m.id,
        districtId: e.districtId,
        kind: status === "APPROVED" ? "extension.approved" : "extension.denied",
        subject: `Sewer extension ${STATUS_LABELS[status].toLowerCase()}: ${e.name}`,
        body:
          `Hello ${m.display_name},\n\nThe ${district.operatorTitle} ${status === "APPROVED" ? "approved" : "denied"} the sewer extension ${e.name}.` +
          (reason ? `\n\nWhy: ${reason}` : "") +
          (status === "APPROVED" ? `\n\nBefore construction starts, tell the ${district.operatorTitle} in the portal at least ${notice.value} days ahead (${notice.section}).` : "") +
          `\n\n${district.name}\n`,
      })),
    );
    return getExtension(tx, viewer, e.id);
  });
}

// ---------------------------------------------------------------------------------------------
// Notice of construction (502 A)

/**
 * The developer tells the District Operator when construction starts: at least the law's days
 * ahead (30, SUL 502 A), counted as calendar dates in the district's zone from the day the notice
 * is given. Refused before approval (501: approval before any construction). A new notice replaces
 * the last, under the same rule.
 */
export async function giveConstructionNotice(ds: DataSource, viewer: Viewer, input: { id: string; startsOn: string }, requestId?: string): Promise<ExtensionRow> {
  if (!isCalendarDate(input.startsOn ?? "")) throw badInput({ startsOn: "Use a date like 2027-03-15." });
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.id, true);
    await requireMember(tx, viewer, e, "give notice of construction");
    requireStatus(e, ["APPROVED"], "Construction may be announced only once the extension is approved");
    const district = await loadDistrict(tx, e.districtId);
    const rb = await lawProvidingExtensions(tx, district);
    const today = dateIn(district.timeZone);
    const problem = noticeProblem(rb, today, input.startsOn);
    if (problem) throw badInput({ startsOn: problem }, problem);
    await tx.query(`UPDATE sewer_extension SET notice_given_on = $2, notice_given_at = now(), notice_given_by_id = $3, construction_starts_on = $4 WHERE id = $1`, [
      e.id,
      today,
      viewer.userId,
      input.startsOn,
    ]);
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.construction_notice",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { givenOn: today, startsOn: input.startsOn, replaces: e.constructionStartsOn },
    });
    await emailOperators(
      tx,
      district,
      "extension.construction_notice",
      `Construction starts ${formatDate(input.startsOn)}: ${e.name}`,
      `${e.organizationName} gives notice that construction of the sewer extension ${e.name} starts on ${formatDate(input.startsOn)} (${rb.entry("extension.constructionNoticeDays").section}). Plan the inspections.`,
    );
    return getExtension(tx, viewer, e.id);
  });
}

/** An email to each of the district's District Operators, queued in the change's transaction. */
async function emailOperators(tx: EntityManager, district: { id: string; name: string }, kind: string, subject: string, text: string) {
  const operators = await staffOf(tx, district.id, "OPERATOR");
  await enqueueEmails(
    tx,
    operators.map((o) => ({ to: o.email, recipientId: o.id, districtId: district.id, kind, subject, body: `Hello ${o.display_name},\n\n${text}\n\n${district.name}\n` })),
  );
}

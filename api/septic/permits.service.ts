import type { DataSource } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import { districtCode } from "../districts/district-code.js";
import { rulebookById, rulebookOn } from "../districts/districts.service.js";
import { allOwnedBy, isUuid } from "../documents/documents.service.js";
import { createPayment, isPaid } from "../payments/payments.service.js";
import { actorOf, clean, dateField, emailOperators, emailPeople, link, loadDistrict, ownerOf, requireOperator, requireStaffOf, throwIfAny, type Db, type Meta } from "./common.js";
import { buildingsField, refreshPumping, type BuildingInput } from "./systems.service.js";
import { DESIGNER_CREDENTIALS, DESIGNER_CREDENTIAL_LABELS, SYSTEM_KINDS, addressKey, permitFee, permitsUnavailable, type Building, type DesignerCredential, type SystemKind } from "./rules.js";

/**
 * Construction permits for private wastewater disposal systems (SUL 403-404): the owner's
 * application with percolation test results, computations and a plot plan, designed by a
 * professional engineer, licensed surveyor or architect, with the Board's fee where it has set one;
 * the District Operator's written permit before construction; inspections at any stage. A final
 * satisfactory inspection completes the permit and registers the system (its pump-out clock starts).
 */

export const PERMIT_PAYABLE = "SepticPermit";

export const PERMIT_DOCUMENT_KINDS = ["PERCOLATION_TESTS", "COMPUTATIONS", "PLOT_PLAN", "OTHER"] as const;
export type PermitDocumentKind = (typeof PERMIT_DOCUMENT_KINDS)[number];
export const PERMIT_DOCUMENT_LABELS: Record<PermitDocumentKind, string> = {
  PERCOLATION_TESTS: "Percolation test results",
  COMPUTATIONS: "Computations",
  PLOT_PLAN: "Plot plan with the design and cross-section",
  OTHER: "Other",
};
export const INSPECTION_STAGES = ["SITE", "EXCAVATION", "TANK", "ABSORPTION_FIELD", "FINAL"] as const;
export const INSPECTION_STAGE_LABELS: Record<(typeof INSPECTION_STAGES)[number], string> = {
  SITE: "Site and percolation tests",
  EXCAVATION: "Excavation",
  TANK: "Tank set",
  ABSORPTION_FIELD: "Absorption field",
  FINAL: "Final: the system complete",
};

export type PermitRow = {
  id: string;
  districtId: string;
  propertyId: string;
  address: string;
  taxParcel: string;
  applicantId: string;
  applicantName: string;
  status: "SUBMITTED" | "ISSUED" | "DENIED" | "COMPLETED";
  permitNumber: string | null;
  systemKind: SystemKind;
  buildings: Building[];
  percolationSummary: string;
  designerName: string;
  designerCredential: DesignerCredential;
  designerLicense: string;
  feeCents: number;
  feeSection: string | null;
  paymentId: string | null;
  rulebookVersionId: string;
  submittedAt: Date;
  decidedAt: Date | null;
  decisionReason: string | null;
  issuedOn: CalendarDate | null;
  completedOn: CalendarDate | null;
  systemId: string | null;
};

const PERMIT_COLUMNS = `sp.id, sp.district_id AS "districtId", sp.property_id AS "propertyId",
  trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '') || ' ' || p.zip) AS address, p.tax_parcel AS "taxParcel",
  sp.applicant_id AS "applicantId", u.display_name AS "applicantName", sp.status, sp.permit_number AS "permitNumber", sp.system_kind AS "systemKind",
  sp.buildings, sp.percolation_summary AS "percolationSummary", sp.designer_name AS "designerName", sp.designer_credential AS "designerCredential",
  sp.designer_license AS "designerLicense", sp.fee_cents AS "feeCents", sp.fee_section AS "feeSection", sp.payment_id AS "paymentId",
  sp.rulebook_version_id AS "rulebookVersionId", sp.submitted_at AS "submittedAt", sp.decided_at AS "decidedAt", sp.decision_reason AS "decisionReason",
  to_char(sp.issued_on, 'YYYY-MM-DD') AS "issuedOn", to_char(sp.completed_on, 'YYYY-MM-DD') AS "completedOn",
  (SELECT s.id FROM septic_system s WHERE s.permit_id = sp.id LIMIT 1) AS "systemId"`;
const PERMIT_FROM = `septic_permit sp JOIN sewer_property p ON p.id = sp.property_id JOIN app_user u ON u.id = sp.applicant_id`;

/** The applicant and the district's staff see a permit; NOT_FOUND for anyone else. */
export async function getPermit(db: Db, viewer: Viewer, id: string, lock = false): Promise<PermitRow> {
  if (!isUuid(id)) throw notFound("That septic permit");
  const [row] = await db.query(`SELECT ${PERMIT_COLUMNS} FROM ${PERMIT_FROM} WHERE sp.id = $1${lock ? " FOR UPDATE OF sp" : ""}`, [id]);
  if (!row || !(isStaff(viewer, row.districtId) || row.applicantId === viewer.userId)) throw notFound("That septic permit");
  return row;
}

export type PermitInput = {
  propertyId: string;
  systemKind: string;
  buildings: BuildingInput[];
  percolationSummary: string;
  designerName: string;
  designerCredential: string;
  designerLicense: string;
  documents: { documentId: string; kind: string }[];
};

/**
 * The owner of record applies for the construction permit (SUL 403). Every problem is reported at
 * once beside its field. Refused where the law allows no system at all (Huron II-3). The Board's
 * fee, where it has set one, is a payment opened with the application; none, no payment step.
 */
export async function applyForPermit(ds: DataSource, viewer: Viewer, input: PermitInput, meta: Meta): Promise<PermitRow> {
  const [property] = isUuid(input.propertyId ?? "") ? await ds.query(`SELECT id, district_id, owner_user_id FROM sewer_property WHERE id = $1`, [input.propertyId]) : [];
  if (!property || property.owner_user_id !== viewer.userId) throw badInput({ propertyId: "Choose a property you own of record (the Town Clerk links your sign-in to it)." });
  const district = await loadDistrict(ds, property.district_id);
  const rb = await rulebookOn(ds, district);
  const unavailable = permitsUnavailable(rb);
  if (unavailable) throw conflict(unavailable, { propertyId: unavailable });
  const section = rb.entry("septic.constructionPermitRequired").section;
  const fields: Record<string, string> = {};
  if (!SYSTEM_KINDS.includes(input.systemKind as SystemKind)) fields.systemKind = "Choose a septic tank or a cesspool.";
  const buildings = buildingsField(rb, input.buildings, fields);
  const perc = clean(input.percolationSummary);
  if (!perc || perc.length > 2000) fields.percolationSummary = `Give the results of the percolation tests, e.g. "3 holes, 12 minutes per inch" (${section}).`;
  const designerName = clean(input.designerName);
  if (!designerName || designerName.length > 200) fields.designerName = "Name the designer.";
  if (rb.enabled("septic.designProfessionalRequired") && !DESIGNER_CREDENTIALS.includes(input.designerCredential as DesignerCredential))
    fields.designerCredential = `The system is designed by a professional engineer, a licensed surveyor or an architect (${rb.entry("septic.designProfessionalRequired").section}).`;
  const designerLicense = clean(input.designerLicense);
  if (!designerLicense || designerLicense.length > 100) fields.designerLicense = "Give the designer's State licence number.";
  const docs = input.documents ?? [];
  if (docs.length > 30 || docs.some((d) => !PERMIT_DOCUMENT_KINDS.includes(d.kind as PermitDocumentKind) || !isUuid(d.documentId)))
    fields.documents = "Say what each document is: percolation test results, computations, the plot plan or other (at most 30).";
  else {
    const missing = (["PERCOLATION_TESTS", "COMPUTATIONS", "PLOT_PLAN"] as const).filter((k) => !docs.some((d) => d.kind === k));
    if (missing.length) fields.documents = `Attach the ${missing.map((k) => PERMIT_DOCUMENT_LABELS[k].toLowerCase()).join(", ")} (${section}).`;
    else if (!(await allOwnedBy(ds, docs.map((d) => d.documentId), viewer.userId))) fields.documents = "Attach only documents you uploaded.";
  }
  throwIfAny(fields);
  const fee = permitFee(rb);
  return ds.transaction(async (tx) => {
    const [{ id }] = await tx.query(
      `INSERT INTO septic_permit (district_id, property_id, applicant_id, status, system_kind, buildings, percolation_summary, designer_name, designer_credential, designer_license, fee_cents, fee_section, rulebook_version_id)
       VALUES ($1, $2, $3, 'SUBMITTED', $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [district.id, property.id, viewer.userId, input.systemKind, JSON.stringify(buildings), perc, designerName, input.designerCredential, designerLicense, fee?.cents ?? 0, fee?.section ?? null, rb.version.id],
    );
    await tx.query(
      `INSERT INTO septic_permit_document (permit_id, document_id, kind, position)
       SELECT $1, d.document_id, d.kind, d.ord FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS d(document_id, kind, ord) ON CONFLICT DO NOTHING`,
      [id, docs.map((d) => d.documentId), docs.map((d) => d.kind)],
    );
    let paymentId: string | null = null;
    if (fee) {
      const payment = await createPayment(tx, actorOf(viewer, meta.requestId), {
        districtId: district.id,
        payerId: viewer.userId,
        payableType: PERMIT_PAYABLE,
        payableId: id,
        lines: [{ code: "septic-permit-fee", label: fee.label, section: fee.section, amountCents: fee.cents }],
        rulebookVersionId: rb.version.id,
      });
      paymentId = payment.id;
      await tx.query(`UPDATE septic_permit SET payment_id = $2 WHERE id = $1`, [id, paymentId]);
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "septic.permit_applied",
      entityType: "SepticPermit",
      entityId: id,
      districtId: district.id,
      details: { propertyId: property.id, systemKind: input.systemKind, buildings, designerCredential: input.designerCredential, documents: docs.length, feeCents: fee?.cents ?? 0, paymentId },
    });
    const p = await getPermit(tx, viewer, id);
    await emailOperators(tx, district, "septic.permit_applied", `Septic construction permit to review: ${p.address}`, `${p.applicantName} applied for a permit to build a ${input.systemKind === "CESSPOOL" ? "cesspool" : "septic system"} at ${p.address} (${section}).\n\nReview it: ${link(meta, `/staff/septic/permits/${id}`)}`);
    return p;
  });
}

/** The documents of these permits (one query). */
export async function permitDocumentsOf(db: Db, ids: readonly string[]): Promise<{ permitId: string; documentId: string; kind: PermitDocumentKind; filename: string }[]> {
  if (!ids.length) return [];
  return db.query(
    `SELECT pd.permit_id AS "permitId", pd.document_id AS "documentId", pd.kind, d.filename FROM septic_permit_document pd JOIN document d ON d.id = pd.document_id
      WHERE pd.permit_id = ANY($1::uuid[]) ORDER BY pd.permit_id, pd.position`,
    [ids],
  );
}

export type InspectionRow = { id: string; permitId: string; inspectedOn: CalendarDate; stage: (typeof INSPECTION_STAGES)[number]; result: "SATISFACTORY" | "DEFICIENT"; notes: string | null; recordedAt: Date };
/** The inspections of these permits, in the order they took place (one query). */
export async function inspectionsOf(db: Db, ids: readonly string[]): Promise<InspectionRow[]> {
  if (!ids.length) return [];
  return db.query(
    `SELECT id, permit_id AS "permitId", to_char(inspected_on, 'YYYY-MM-DD') AS "inspectedOn", stage, result, notes, recorded_at AS "recordedAt"
       FROM septic_inspection WHERE permit_id = ANY($1::uuid[]) ORDER BY permit_id, inspected_on, recorded_at`,
    [ids],
  );
}

/** The permits of the viewer, newest first (one query). */
export async function myPermits(ds: DataSource, viewer: Viewer): Promise<PermitRow[]> {
  return ds.query(`SELECT ${PERMIT_COLUMNS} FROM ${PERMIT_FROM} WHERE sp.applicant_id = $1 ORDER BY sp.submitted_at DESC, sp.id DESC`, [viewer.userId]);
}

/** The district's permits, those under review first, then newest (one query, at most 200). */
export async function districtPermits(ds: DataSource, viewer: Viewer, districtId: string): Promise<PermitRow[]> {
  requireStaffOf(viewer, districtId);
  return ds.query(
    `SELECT ${PERMIT_COLUMNS} FROM ${PERMIT_FROM} WHERE sp.district_id = $1 ORDER BY (sp.status = 'SUBMITTED') DESC, sp.submitted_at DESC, sp.id DESC LIMIT 200`,
    [districtId],
  );
}

/**
 * The District Operator issues the written permit (SUL 404), once the Board's fee is paid where it
 * set one, or denies it with reasons. The permit number is the district's code, SP, the year and a
 * sequence: LKV-SP-2026-0001.
 */
export async function decidePermit(ds: DataSource, viewer: Viewer, input: { id: string; decision: string; reason?: string | null }, meta: Meta): Promise<PermitRow> {
  if (input.decision !== "ISSUE" && input.decision !== "DENY") throw badInput({ decision: "Choose issue or deny." });
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, input.id, true);
    requireOperator(viewer, p.districtId, "issue septic construction permits");
    if (p.status !== "SUBMITTED") throw conflict("The permit is already decided.");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await rulebookById(tx, p.rulebookVersionId);
    const section = rb.entry("septic.constructionPermitRequired").section;
    const reason = clean(input.reason);
    const today = dateIn(district.timeZone);
    if (input.decision === "DENY") {
      if (!reason || reason.length > 2000) throw badInput({ reason: "Say why the permit is denied (the owner reads it)." });
      await tx.query(`UPDATE septic_permit SET status = 'DENIED', decided_at = now(), decided_by_id = $2, decision_reason = $3 WHERE id = $1`, [p.id, viewer.userId, reason]);
    } else {
      if (p.feeCents > 0 && !(await isPaid(tx, PERMIT_PAYABLE, p.id)))
        throw new AppError("PAYMENT_REQUIRED", `The permit fee of ${formatCents(p.feeCents)} (${p.feeSection}) is not paid yet.`);
      const [{ n }] = await tx.query(`SELECT nextval('septic_permit_number_seq')::int AS n`);
      const number = `${districtCode(district.slug)}-SP-${today.slice(0, 4)}-${String(n).padStart(4, "0")}`;
      await tx.query(`UPDATE septic_permit SET status = 'ISSUED', decided_at = now(), decided_by_id = $2, decision_reason = $3, issued_on = $4, permit_number = $5 WHERE id = $1`, [
        p.id,
        viewer.userId,
        reason,
        today,
        number,
      ]);
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: input.decision === "ISSUE" ? "septic.permit_issued" : "septic.permit_denied",
      entityType: "SepticPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason,
    });
    const after = await getPermit(tx, viewer, p.id);
    await emailPeople(
      tx,
      await ownerOf(tx, p.applicantId),
      district,
      input.decision === "ISSUE" ? "septic.permit_issued" : "septic.permit_denied",
      input.decision === "ISSUE" ? `Septic construction permit ${after.permitNumber} issued: ${p.address}` : `Septic construction permit denied: ${p.address}`,
      input.decision === "ISSUE"
        ? `The ${district.operatorTitle} issued the written construction permit ${after.permitNumber} for ${p.address} on ${formatDate(today)} (${section}). Construction may start; the ${district.operatorTitle} may inspect the work at any stage without notice.`
        : `The ${district.operatorTitle} denied the construction permit for ${p.address}.\n\nWhy: ${reason}`,
    );
    return after;
  });
}

/**
 * The District Operator records an inspection at any stage (SUL 404: "at any stage, without prior
 * notice"), after the permit is issued. A satisfactory final inspection completes the permit and
 * registers the system on the property, installed that day (its three years start, 407).
 */
export async function recordInspection(
  ds: DataSource,
  viewer: Viewer,
  input: { permitId: string; inspectedOn?: string | null; stage: string; result: string; notes?: string | null },
  meta: Meta,
): Promise<PermitRow> {
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, input.permitId, true);
    requireOperator(viewer, p.districtId, "record septic inspections");
    if (p.status !== "ISSUED") throw conflict(p.status === "SUBMITTED" ? "Issue the permit before construction is inspected (the written permit comes first)." : "The permit is closed.");
    const district = await loadDistrict(tx, p.districtId);
    const today = dateIn(district.timeZone);
    const fields: Record<string, string> = {};
    const on = dateField(fields, "inspectedOn", input.inspectedOn, { max: today }) ?? today;
    if (on < p.issuedOn! && !fields.inspectedOn) fields.inspectedOn = "The inspection cannot be before the permit was issued.";
    if (!INSPECTION_STAGES.includes(input.stage as (typeof INSPECTION_STAGES)[number])) fields.stage = "Choose the stage of the work inspected.";
    if (input.result !== "SATISFACTORY" && input.result !== "DEFICIENT") fields.result = "Choose satisfactory or deficient.";
    const notes = clean(input.notes);
    if (input.result === "DEFICIENT" && !notes) fields.notes = "Say what is deficient.";
    if (notes && notes.length > 4000) fields.notes = "Use at most 4,000 characters.";
    throwIfAny(fields);
    const [{ id }] = await tx.query(`INSERT INTO septic_inspection (permit_id, inspected_on, stage, result, notes, recorded_by_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, [
      p.id,
      on,
      input.stage,
      input.result,
      notes,
      viewer.userId,
    ]);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "septic.inspection_recorded", entityType: "SepticPermit", entityId: p.id, districtId: p.districtId, details: { inspectionId: id, inspectedOn: on, stage: input.stage, result: input.result } });
    if (input.stage === "FINAL" && input.result === "SATISFACTORY") {
      await tx.query(`UPDATE septic_permit SET status = 'COMPLETED', completed_on = $2 WHERE id = $1`, [p.id, on]);
      const [prop] = await tx.query(`SELECT street_number, street FROM sewer_property WHERE id = $1`, [p.propertyId]);
      const [{ id: systemId }] = await tx.query(
        `INSERT INTO septic_system (district_id, property_id, kind, buildings, address_key, installed_on, permit_id, registered_by_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
        [p.districtId, p.propertyId, p.systemKind, JSON.stringify(p.buildings), addressKey(`${prop.street_number ?? ""} ${prop.street}`), on, p.id, viewer.userId],
      );
      await refreshPumping(tx, [systemId]);
      await audit(tx, actorOf(viewer, meta.requestId), { action: "septic.system_registered", entityType: "SepticSystem", entityId: systemId, districtId: p.districtId, details: { permitId: p.id, installedOn: on } });
      await emailPeople(
        tx,
        await ownerOf(tx, p.applicantId),
        district,
        "septic.permit_completed",
        `Septic system complete: ${p.address}`,
        `The ${district.operatorTitle} found the septic system at ${p.address} complete on ${formatDate(on)} (permit ${p.permitNumber}). It is on the district's register; see when it is next to be pumped: ${link(meta, "/septic")}`,
      );
    }
    return getPermit(tx, viewer, p.id);
  });
}

export { DESIGNER_CREDENTIAL_LABELS };

import { clock } from "../common/clock.js";
import { In, type DataSource, type EntityManager } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, endOfDay, isCalendarDate, zonedInstant, type CalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant } from "../common/paging.js";
import { formatCents } from "../common/money.js";
import { isChoosable } from "../contractors/contractors.service.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { District } from "../districts/district.entity.js";
import { Rulebook, rulebookById, rulebookOn } from "../districts/districts.service.js";
import { RulebookVersion } from "../districts/rulebook-version.entity.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { createPayment, isPaid, registerPayable, type Payment } from "../payments/payments.service.js";
import {
  BUILDING_USES,
  INSPECTION_KINDS,
  LateralInspection,
  LateralPermit,
  LateralPermitDocument,
  PERMIT_CLASSES,
  PERMIT_STATUSES,
  SewerMoratorium,
  WORK_KINDS,
  type BuildingUse,
  type InspectionKind,
  type PermitClass,
  type PermitStatus,
  type WorkKind,
} from "./lateral-permit.entity.js";
import {
  FEE_CODES,
  INSPECTION_LABELS,
  STATUS_LABELS,
  computeFees,
  inspectionName,
  nextStep,
  normalizeStreet,
  permitNumber,
  requestableKinds,
  requiredInspections,
  requiredKindsFromValues,
  reviewChecklist,
} from "./rules.js";

/**
 * Building lateral permits (SUL Article 6, 1212; Huron Article III): the homeowner applies, pays,
 * the District Operator reviews and issues the permit, inspects the work and accepts the
 * connection; the as-built deposit is refunded when the record drawings are approved. Every
 * change is a transaction with an audit entry; every notice goes through the outbox.
 */

export const PAYABLE_TYPE = "LateralPermit";
const MAX_DOCUMENTS = 20;
const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};

// ---------------------------------------------------------------------------------------------
// Rulebook versions are immutable: cache them by id (the permit stores the one its fees used).

const versions = new Map<string, Rulebook>();
export async function rulebookOfVersion(ds: DataSource | EntityManager, versionId: string): Promise<Rulebook> {
  let rb = versions.get(versionId);
  if (!rb) {
    rb = new Rulebook(await ds.getRepository(RulebookVersion).findOneByOrFail({ id: versionId }));
    if (versions.size > 200) versions.delete(versions.keys().next().value!);
    versions.set(versionId, rb);
  }
  return rb;
}

/** The rulebook a permit is judged by: the version stored on submission, else today's. */
async function permitRulebook(ds: DataSource | EntityManager, p: LateralPermit, district: District): Promise<Rulebook> {
  return p.rulebookVersionId ? rulebookOfVersion(ds, p.rulebookVersionId) : rulebookOn(ds, district);
}

// ---------------------------------------------------------------------------------------------
// Who may see and do what

/** Drafts are the applicant's own; once submitted, the district's staff see the application too. */
export function mayView(viewer: Viewer, p: Pick<LateralPermit, "applicantId" | "districtId" | "submittedAt">): boolean {
  return p.applicantId === viewer.userId || (p.submittedAt !== null && isStaff(viewer, p.districtId));
}

/** A permit the viewer may see; NOT_FOUND otherwise, whether or not it exists. */
export async function getPermit(ds: DataSource | EntityManager, viewer: Viewer, id: string, lock = false): Promise<LateralPermit> {
  if (!isUuid(id)) throw notFound("That permit application");
  const q = ds.getRepository(LateralPermit).createQueryBuilder("p").where("p.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const p = await q.getOne();
  if (!p || !mayView(viewer, p)) throw notFound("That permit application");
  return p;
}

function requireApplicant(viewer: Viewer, p: LateralPermit, what: string) {
  if (p.applicantId !== viewer.userId) throw forbidden(`Only the applicant can ${what}.`);
}
function requireOperator(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "OPERATOR", districtId)) throw forbidden("Only the District Operator of this district can do that.");
}
function requireStatus(p: LateralPermit, allowed: PermitStatus[], message: string) {
  if (!allowed.includes(p.status)) throw conflict(`${message} (the application is ${STATUS_LABELS[p.status].toLowerCase()}).`);
}

async function loadDistrict(tx: DataSource | EntityManager, id: string): Promise<District> {
  const d = await tx.getRepository(District).findOneBy({ id });
  if (!d) throw notFound("That district");
  return d;
}

async function applicantOf(tx: EntityManager, p: LateralPermit): Promise<User> {
  return tx.findOneByOrFail(User, { id: p.applicantId });
}

export function addressOf(p: Pick<LateralPermit, "streetNumber" | "street" | "city" | "zip">): string {
  const line1 = [p.streetNumber, p.street].filter(Boolean).join(" ");
  const line2 = [p.city, p.zip].filter(Boolean).join(" ");
  return [line1, line2].filter(Boolean).join(", ") || "(no address yet)";
}

async function notify(tx: EntityManager, p: LateralPermit, district: District, kind: string, subject: string, body: string, publicUrl: string) {
  const applicant = await applicantOf(tx, p);
  await enqueueEmail(tx, {
    to: applicant.email,
    recipientId: applicant.id,
    districtId: district.id,
    kind,
    subject,
    body: `Hello ${applicant.displayName},\n\n${body}\n\nSee the application: ${publicUrl}/permits/${p.id}\n\n${district.name}\n`,
  });
}

// ---------------------------------------------------------------------------------------------
// Drafts

export type DraftInput = {
  id?: string | null;
  districtId?: string | null;
  permitClass?: string | null;
  buildingUse?: string | null;
  floorAreaSqft?: number | null;
  workKind?: string | null;
  streetNumber?: string | null;
  street?: string | null;
  city?: string | null;
  zip?: string | null;
  taxParcel?: string | null;
  ownerName?: string | null;
  agentName?: string | null;
  contractorId?: string | null;
  asBuiltSheets?: number | null;
  documentIds?: string[] | null;
};

const LIMITS: Record<string, number> = { streetNumber: 20, street: 200, city: 100, taxParcel: 50, ownerName: 200, agentName: 200 };
const FEE_FIELDS = ["buildingUse", "floorAreaSqft", "asBuiltSheets"] as const;

/**
 * Saves an application as a draft (creates it, or updates the applicant's own draft or an
 * application sent back for changes). Only what cannot be stored is refused here; completeness
 * is checked on submission.
 */
export async function saveDraft(ds: DataSource, viewer: Viewer, input: DraftInput, requestId?: string): Promise<LateralPermit> {
  const fields: Record<string, string> = {};
  const text: Record<string, string | null> = {};
  for (const k of Object.keys(LIMITS) as (keyof typeof LIMITS)[]) {
    const v = clean((input as any)[k]);
    if (v && v.length > LIMITS[k]) fields[k] = `Use at most ${LIMITS[k]} characters.`;
    text[k] = v;
  }
  const zip = clean(input.zip);
  if (zip && !/^\d{5}(-\d{4})?$/.test(zip)) fields.zip = "Enter a ZIP code like 13600 or 13600-1234.";
  const permitClass = clean(input.permitClass);
  if (permitClass && !PERMIT_CLASSES.includes(permitClass as PermitClass)) fields.permitClass = "Choose class 1 (residential, commercial, institutional) or class 2 (industrial).";
  const buildingUse = clean(input.buildingUse);
  if (buildingUse && !BUILDING_USES.includes(buildingUse as BuildingUse)) fields.buildingUse = "Choose residential, commercial, institutional or industrial.";
  const workKind = clean(input.workKind);
  if (workKind && !WORK_KINDS.includes(workKind as WorkKind)) fields.workKind = "Choose a new building or an existing lateral.";
  const floor = input.floorAreaSqft ?? null;
  if (floor !== null && (!Number.isInteger(floor) || floor <= 0 || floor > 10_000_000))
    fields.floorAreaSqft = floor !== null && Number.isFinite(floor) && floor <= 0 ? "The floor area must be more than zero square feet." : "Enter the floor area as a whole number of square feet.";
  const sheets = input.asBuiltSheets ?? null;
  if (sheets !== null && (!Number.isInteger(sheets) || sheets < 0 || sheets > 500)) fields.asBuiltSheets = "Enter the number of sheets as a whole number (1 or more).";
  const documentIds = [...new Set((input.documentIds ?? []).map((d) => d.trim()).filter(Boolean))];
  if (documentIds.length > MAX_DOCUMENTS) fields.documentIds = `Attach at most ${MAX_DOCUMENTS} documents.`;
  if (documentIds.some((d) => !isUuid(d))) fields.documentIds = "Choose plans from your uploaded documents.";
  const contractorId = clean(input.contractorId);
  if (contractorId && !isUuid(contractorId)) fields.contractorId = "Choose a contractor from the list of approved contractors.";
  if (Object.keys(fields).length) throw badInput(fields);

  return ds.transaction(async (tx) => {
    let p: LateralPermit;
    const creating = !input.id;
    if (creating) {
      const districtId = clean(input.districtId);
      if (!districtId || !isUuid(districtId)) throw badInput({ districtId: "Choose the sewer district of the property." });
      await loadDistrict(tx, districtId).catch(() => {
        throw badInput({ districtId: "Choose the sewer district of the property." });
      });
      p = tx.create(LateralPermit, { districtId, applicantId: viewer.userId, status: "DRAFT", feeLines: [], feeTotalCents: 0 });
    } else {
      p = await getPermit(tx, viewer, input.id!, true);
      requireApplicant(viewer, p, "change the application");
      requireStatus(p, ["DRAFT", "CHANGES_REQUESTED"], "Only a draft or an application sent back for changes can be edited");
      if (input.districtId && input.districtId !== p.districtId) throw badInput({ districtId: "The district of an application cannot change; start a new application." });
    }
    const next = {
      permitClass: permitClass as PermitClass | null,
      buildingUse: buildingUse as BuildingUse | null,
      floorAreaSqft: floor,
      workKind: workKind as WorkKind | null,
      streetNumber: text.streetNumber,
      street: text.street,
      city: text.city,
      zip,
      taxParcel: text.taxParcel,
      ownerName: text.ownerName,
      agentName: text.agentName,
      contractorId,
      asBuiltSheets: sheets,
    };
    // The fee was computed when the application was first submitted: what it rests on stays.
    if (p.submittedAt) {
      const locked: Record<string, string> = {};
      for (const k of FEE_FIELDS)
        if ((next as any)[k] !== (p as any)[k]) locked[k] = "The fee was computed from this when you submitted; to change it, withdraw the application and apply again.";
      if (Object.keys(locked).length) throw badInput(locked, "The building use, floor area and number of sheets set the fee and cannot change after submission.");
    }
    if (contractorId) {
      const found = await tx.query(`SELECT 1 FROM contractor WHERE id = $1 AND district_id = $2`, [contractorId, p.districtId]);
      if (!found.length) throw badInput({ contractorId: "Choose a contractor from the district's list of approved contractors." });
    }
    if (documentIds.length) {
      const owned: { id: string }[] = await tx.query(`SELECT id FROM document WHERE id = ANY($1::uuid[]) AND owner_id = $2`, [documentIds, viewer.userId]);
      if (owned.length !== documentIds.length) throw badInput({ documentIds: "Attach plans from your own uploaded documents." });
    }
    const before = creating ? null : { ...p };
    Object.assign(p, next, { updatedAt: clock.now() });
    p = await tx.save(p);
    await tx.delete(LateralPermitDocument, { permitId: p.id });
    if (documentIds.length) await tx.insert(LateralPermitDocument, documentIds.map((documentId, position) => ({ permitId: p.id, documentId, position })));
    const changed = before ? Object.keys(next).filter((k) => (before as any)[k] !== (next as any)[k]) : Object.keys(next).filter((k) => (next as any)[k] !== null);
    await audit(tx, actorOf(viewer, requestId), {
      action: creating ? "lateral.draft_created" : "lateral.draft_saved",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { changed, documents: documentIds.length },
    });
    return p;
  });
}

export async function documentIdsOf(ds: DataSource | EntityManager, permitId: string): Promise<string[]> {
  const rows = await ds.getRepository(LateralPermitDocument).find({ where: { permitId }, order: { position: "ASC" } });
  return rows.map((r) => r.documentId);
}

// ---------------------------------------------------------------------------------------------
// Submission

export async function activeMoratoriumOn(tx: DataSource | EntityManager, districtId: string, street: string): Promise<SewerMoratorium | null> {
  return tx
    .getRepository(SewerMoratorium)
    .createQueryBuilder("m")
    .where("m.district_id = :d AND m.lifted_at IS NULL AND :s = ANY(m.streets)", { d: districtId, s: normalizeStreet(street) })
    .orderBy("m.declared_at", "ASC")
    .getOne();
}

/**
 * Checks every part of the application (SUL 602, 604, 606 B), the contractor (SUL 601 A, 508) and
 * the moratoria (SUL 310); computes the fee from the rulebook in force today (SUL 1212, 606 B) and
 * opens the payment. A resubmission after changes keeps the fee and the payment: nobody pays twice.
 */
export async function submit(ds: DataSource, viewer: Viewer, id: string, meta: { requestId?: string; publicUrl: string }): Promise<LateralPermit> {
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, id, true);
    requireApplicant(viewer, p, "submit the application");
    requireStatus(p, ["DRAFT", "CHANGES_REQUESTED"], "Only a draft or an application sent back for changes can be submitted");
    const district = await loadDistrict(tx, p.districtId);
    const today = dateIn(district.timeZone);
    const documentIds = await documentIdsOf(tx, p.id);

    const fields: Record<string, string> = {};
    if (!p.permitClass) fields.permitClass = "Choose the class of permit.";
    if (!p.buildingUse) fields.buildingUse = "Choose what the building is used for.";
    if (p.permitClass && p.buildingUse && (p.permitClass === "INDUSTRIAL") !== (p.buildingUse === "INDUSTRIAL"))
      fields.permitClass =
        p.buildingUse === "INDUSTRIAL"
          ? "A building producing industrial wastes takes the industrial class (class 2)."
          : "Residential, commercial and institutional buildings take class 1; class 2 is for industrial wastes.";
    if (p.buildingUse && p.buildingUse !== "RESIDENTIAL" && p.floorAreaSqft === null)
      fields.floorAreaSqft = `Enter the floor area of the ${p.buildingUse.toLowerCase()} building: the fee is charged per square foot.`;
    if (!p.workKind) fields.workKind = "Say whether this is a new building or an existing lateral.";
    if (!p.streetNumber) fields.streetNumber = "Enter the house number.";
    if (!p.street) fields.street = "Enter the street.";
    if (!p.city) fields.city = "Enter the city, town or village.";
    if (!p.zip) fields.zip = "Enter the ZIP code.";
    if (!p.taxParcel) fields.taxParcel = "Enter the tax parcel (section-block-lot) number.";
    if (!p.ownerName) fields.ownerName = "Enter the owner's name.";
    if (p.asBuiltSheets === null || p.asBuiltSheets < 1) fields.asBuiltSheets = "Enter the number of sheets of plans showing lateral connections (1 or more).";
    if (!documentIds.length) fields.documentIds = "Attach the plans and specifications (PDF, PNG or JPEG).";
    else {
      const docs: { n: number }[] = await tx.query(
        `SELECT count(*)::int AS n FROM document WHERE id = ANY($1::uuid[]) AND owner_id = $2 AND content_type IN ('application/pdf', 'image/png', 'image/jpeg')`,
        [documentIds, p.applicantId],
      );
      if (docs[0].n !== documentIds.length) fields.documentIds = "Attach plans from your own uploaded documents (PDF, PNG or JPEG).";
    }
    if (!p.contractorId) fields.contractorId = "Choose the contractor who will do the work, from the district's list of approved contractors.";
    else {
      const standing = await isChoosable(tx, p.contractorId, p.districtId, today);
      if (!standing.choosable) fields.contractorId = `This contractor cannot be chosen: ${standing.reasons.join(" ")}`;
    }
    if (Object.keys(fields).length) throw badInput(fields);

    // New applications on a street under a moratorium are refused with its reason (SUL 310).
    if (!p.submittedAt) {
      const m = await activeMoratoriumOn(tx, p.districtId, p.street!);
      if (m)
        throw new AppError(
          "CONFLICT",
          `New connections on ${p.street} are refused: a moratorium on the ${m.segmentName} segment is in force (${m.section}). ${m.reason}`,
          { street: `Under a moratorium (${m.section}): ${m.reason}` },
        );
    }

    const first = !p.submittedAt;
    if (first) {
      const rb = await rulebookOn(tx, district, today);
      const lines = computeFees(rb, { buildingUse: p.buildingUse!, floorAreaSqft: p.floorAreaSqft, asBuiltSheets: p.asBuiltSheets! });
      const total = lines.reduce((s, l) => s + l.amountCents, 0);
      p.feeLines = lines;
      p.feeTotalCents = total;
      p.rulebookVersionId = rb.version.id;
      p.submittedAt = clock.now();
      const payment = await createPayment(tx, actorOf(viewer, meta.requestId), {
        districtId: p.districtId,
        payerId: p.applicantId,
        payableType: PAYABLE_TYPE,
        payableId: p.id,
        lines,
        rulebookVersionId: rb.version.id,
      });
      p.paymentId = payment.id;
    }
    p.status = "SUBMITTED";
    p.updatedAt = clock.now();
    await tx.save(p);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: first ? "lateral.submitted" : "lateral.resubmitted",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: first ? { feeTotalCents: p.feeTotalCents, feeLines: p.feeLines, rulebookVersionId: p.rulebookVersionId, paymentId: p.paymentId } : {},
    });
    const feeText = p.feeLines.map((l) => `  ${l.label}: ${formatCents(l.amountCents)} (${l.section})`).join("\n");
    await notify(
      tx,
      p,
      district,
      first ? "lateral.submitted" : "lateral.resubmitted",
      first ? `Lateral permit application received: ${addressOf(p)}` : `Lateral permit application resubmitted: ${addressOf(p)}`,
      first
        ? `We received your application for a building lateral permit at ${addressOf(p)}.\n\nFees:\n${feeText}\n  Total: ${formatCents(p.feeTotalCents)}\n\nPay online: ${meta.publicUrl}/payments/${p.paymentId}\nThe District Operator reviews the application; no permit is issued before the fees are paid.`
        : `We received the changes to your application for ${addressOf(p)}. The District Operator reviews it again. The fees stay as they were; you do not pay twice.`,
      meta.publicUrl,
    );
    return p;
  });
}

export async function withdraw(ds: DataSource, viewer: Viewer, id: string, reason: string | null, meta: { requestId?: string; publicUrl: string }) {
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, id, true);
    requireApplicant(viewer, p, "withdraw the application");
    requireStatus(p, ["DRAFT", "SUBMITTED", "CHANGES_REQUESTED"], "An application can be withdrawn only until the permit is issued");
    const wasSubmitted = p.submittedAt !== null;
    p.status = "WITHDRAWN";
    p.withdrawnAt = clock.now();
    p.updatedAt = clock.now();
    await tx.save(p);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "lateral.withdrawn",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: clean(reason),
    });
    if (wasSubmitted) {
      const district = await loadDistrict(tx, p.districtId);
      await notify(
        tx,
        p,
        district,
        "lateral.withdrawn",
        `Lateral permit application withdrawn: ${addressOf(p)}`,
        `Your application for ${addressOf(p)} is withdrawn. If you paid fees, the Town Clerk handles any refund.`,
        meta.publicUrl,
      );
    }
    return p;
  });
}

// ---------------------------------------------------------------------------------------------
// Review

export async function requestChanges(ds: DataSource, viewer: Viewer, id: string, notes: string, meta: { requestId?: string; publicUrl: string }) {
  const text = (notes ?? "").trim();
  if (!text) throw badInput({ notes: "Say what the applicant must change." });
  if (text.length > 4000) throw badInput({ notes: "Use at most 4,000 characters." });
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, id, true);
    requireOperator(viewer, p.districtId);
    requireStatus(p, ["SUBMITTED"], "Changes can be asked for only on a submitted application");
    p.status = "CHANGES_REQUESTED";
    p.reviewNotes = text;
    p.changesRequestedAt = clock.now();
    p.updatedAt = clock.now();
    await tx.save(p);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "lateral.changes_requested", entityType: "LateralPermit", entityId: p.id, districtId: p.districtId, reason: text });
    const district = await loadDistrict(tx, p.districtId);
    await notify(
      tx,
      p,
      district,
      "lateral.changes_requested",
      `Changes needed on your lateral permit application: ${addressOf(p)}`,
      `The District Operator asks for these changes before the permit can be issued:\n\n${text}\n\nEdit the application and submit it again; the fees stay as they were.`,
      meta.publicUrl,
    );
    return p;
  });
}

async function nextPermitNumber(tx: EntityManager, district: District): Promise<string> {
  const year = dateIn(district.timeZone).slice(0, 4);
  const [row] = await tx.query(
    `INSERT INTO lateral_permit_counter (district_id, year, last) VALUES ($1, $2, 1)
     ON CONFLICT (district_id, year) DO UPDATE SET last = lateral_permit_counter.last + 1 RETURNING last`,
    [district.id, Number(year)],
  );
  return permitNumber(district.slug, year, row.last);
}

/** The District Operator approves and issues the permit; refused while the fees are unpaid (SUL 1212). */
export async function approve(ds: DataSource, viewer: Viewer, id: string, meta: { requestId?: string; publicUrl: string }) {
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, id, true);
    requireOperator(viewer, p.districtId);
    requireStatus(p, ["SUBMITTED"], "Only a submitted application can be approved");
    if (!(await isPaid(tx, PAYABLE_TYPE, p.id)))
      throw new AppError("PAYMENT_REQUIRED", `The fees of ${formatCents(p.feeTotalCents)} are not paid yet; no permit is issued before they are.`);
    const district = await loadDistrict(tx, p.districtId);
    if (p.contractorId) {
      const standing = await isChoosable(tx, p.contractorId, p.districtId, dateIn(district.timeZone));
      if (!standing.choosable) throw conflict(`The contractor on this application can no longer be chosen: ${standing.reasons.join(" ")} Ask the applicant to choose another.`);
    }
    p.permitNumber = await nextPermitNumber(tx, district);
    p.status = "APPROVED";
    p.approvedAt = clock.now();
    p.approvedById = viewer.userId;
    p.updatedAt = clock.now();
    await tx.save(p);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "lateral.approved",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { permitNumber: p.permitNumber },
    });
    const rb = await permitRulebook(tx, p, district);
    const kinds = requiredInspections(rb).map((k) => `  ${k.label} (${k.section})`).join("\n");
    await notify(
      tx,
      p,
      district,
      "lateral.approved",
      `Lateral permit ${p.permitNumber} issued: ${addressOf(p)}`,
      `Your building lateral permit ${p.permitNumber} for ${addressOf(p)} is issued.\n\nPrint it: ${meta.publicUrl}/permits/${p.id}/permit.pdf\n\nAsk for each inspection through the portal when the work is ready:\n${kinds}`,
      meta.publicUrl,
    );
    return p;
  });
}

// ---------------------------------------------------------------------------------------------
// Inspections (SUL 612-613)

export async function inspectionsOf(ds: DataSource | EntityManager, permitIds: string[]): Promise<LateralInspection[]> {
  if (!permitIds.length) return [];
  return ds
    .getRepository(LateralInspection)
    .createQueryBuilder("i")
    .where("i.permit_id = ANY(:ids::uuid[])", { ids: permitIds })
    .orderBy("i.requested_at", "ASC")
    .addOrderBy("i.id", "ASC")
    .getMany();
}

export async function requestInspection(
  ds: DataSource,
  viewer: Viewer,
  input: { permitId: string; kind: string; notes?: string | null },
  meta: { requestId?: string; publicUrl: string },
): Promise<LateralInspection> {
  const notes = clean(input.notes);
  if (notes && notes.length > 2000) throw badInput({ notes: "Use at most 2,000 characters." });
  if (!INSPECTION_KINDS.includes(input.kind as InspectionKind)) throw badInput({ kind: "Choose the trench, connection or leakage test inspection." });
  const kind = input.kind as InspectionKind;
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, input.permitId, true);
    requireApplicant(viewer, p, "ask for an inspection");
    requireStatus(p, ["APPROVED"], "Inspections can be asked for once the permit is issued and until the connection is accepted");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const required = requiredInspections(rb);
    if (!required.some((r) => r.kind === kind))
      throw badInput({ kind: `The district's rulebook does not require a ${inspectionName(kind)} inspection for this permit.` });
    const existing = await inspectionsOf(tx, [p.id]);
    if (existing.some((i) => i.kind === kind && i.status === "PASSED")) throw conflict(`The ${inspectionName(kind)} inspection has already passed.`);
    if (existing.some((i) => i.kind === kind && (i.status === "REQUESTED" || i.status === "SCHEDULED")))
      throw conflict(`The ${inspectionName(kind)} inspection is already requested.`);
    const row = await tx.save(tx.create(LateralInspection, { permitId: p.id, kind, status: "REQUESTED", requestedById: viewer.userId, applicantNotes: notes }));
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "lateral.inspection_requested",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { inspectionId: row.id, kind },
    });
    await notify(
      tx,
      p,
      district,
      "lateral.inspection_requested",
      `${INSPECTION_LABELS[kind]} requested: permit ${p.permitNumber}`,
      `We received your request for the ${INSPECTION_LABELS[kind].toLowerCase()} on permit ${p.permitNumber} (${addressOf(p)}). The District Operator will schedule it and tell you the date and time.${kind === "TRENCH" ? "\nDo not backfill the trench before it is inspected and approved." : ""}`,
      meta.publicUrl,
    );
    return row;
  });
}

async function loadInspection(tx: EntityManager, viewer: Viewer, inspectionId: string): Promise<{ i: LateralInspection; p: LateralPermit; district: District }> {
  if (!isUuid(inspectionId)) throw notFound("That inspection");
  const i = await tx.getRepository(LateralInspection).createQueryBuilder("i").setLock("pessimistic_write").where("i.id = :id", { id: inspectionId }).getOne();
  if (!i) throw notFound("That inspection");
  const p = await getPermit(tx, viewer, i.permitId, true).catch(() => {
    throw notFound("That inspection");
  });
  requireOperator(viewer, p.districtId);
  return { i, p, district: await loadDistrict(tx, p.districtId) };
}

const when = (d: Date, tz: string) =>
  d.toLocaleString("en-US", { timeZone: tz, weekday: "long", year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short" });

export async function scheduleInspection(
  ds: DataSource,
  viewer: Viewer,
  input: { inspectionId: string; scheduledFor: string; inspectorId?: string | null },
  meta: { requestId?: string; publicUrl: string },
): Promise<LateralInspection> {
  return ds.transaction(async (tx) => {
    const { i, p, district } = await loadInspection(tx, viewer, input.inspectionId);
    // A date and time as the district's clock reads it (or an ISO instant).
    const scheduledFor = zonedInstant(input.scheduledFor, district.timeZone);
    if (!scheduledFor) throw badInput({ scheduledFor: "Enter a date and time, like 2026-12-07 09:30." });
    if (scheduledFor.getTime() < clock.now().getTime() - 60 * 60 * 1000) throw badInput({ scheduledFor: "Choose a date and time that has not passed." });
    requireStatus(p, ["APPROVED"], "Inspections are scheduled only on an issued permit whose connection is not yet accepted");
    if (i.status !== "REQUESTED" && i.status !== "SCHEDULED") throw conflict("This inspection already has its result; the applicant asks for a new one.");
    const inspectorId = clean(input.inspectorId) ?? viewer.userId;
    if (inspectorId !== viewer.userId) {
      const ok = isUuid(inspectorId) && (await tx.query(`SELECT 1 FROM staff_role WHERE user_id = $1 AND district_id = $2 AND role = 'OPERATOR'`, [inspectorId, p.districtId])).length;
      if (!ok) throw badInput({ inspectorId: "Choose an operator of this district." });
    }
    const rescheduled = i.status === "SCHEDULED";
    i.status = "SCHEDULED";
    i.scheduledFor = scheduledFor;
    i.scheduledById = viewer.userId;
    i.inspectorId = inspectorId;
    await tx.save(i);
    await tx.update(LateralPermit, { id: p.id }, { updatedAt: clock.now() });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: rescheduled ? "lateral.inspection_rescheduled" : "lateral.inspection_scheduled",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { inspectionId: i.id, kind: i.kind, scheduledFor: scheduledFor.toISOString(), inspectorId },
    });
    await notify(
      tx,
      p,
      district,
      "lateral.inspection_scheduled",
      `${INSPECTION_LABELS[i.kind]} ${rescheduled ? "moved to" : "scheduled for"} ${dateIn(district.timeZone, scheduledFor)}: permit ${p.permitNumber}`,
      `The ${INSPECTION_LABELS[i.kind].toLowerCase()} on permit ${p.permitNumber} (${addressOf(p)}) is ${rescheduled ? "moved to" : "scheduled for"} ${when(scheduledFor, district.timeZone)}.`,
      meta.publicUrl,
    );
    return i;
  });
}

/**
 * The District Operator records the result. A failed inspection is asked for and scheduled again;
 * once every inspection the rulebook requires has passed, the connection is accepted (CONNECTED).
 */
export async function recordInspectionResult(
  ds: DataSource,
  viewer: Viewer,
  input: { inspectionId: string; result: string; notes?: string | null },
  meta: { requestId?: string; publicUrl: string },
): Promise<{ inspection: LateralInspection; permit: LateralPermit }> {
  const notes = clean(input.notes);
  if (input.result !== "PASSED" && input.result !== "FAILED") throw badInput({ result: "Record PASSED or FAILED." });
  if (input.result === "FAILED" && !notes) throw badInput({ notes: "Say what failed, so the applicant can fix it." });
  if (notes && notes.length > 4000) throw badInput({ notes: "Use at most 4,000 characters." });
  return ds.transaction(async (tx) => {
    const { i, p, district } = await loadInspection(tx, viewer, input.inspectionId);
    requireStatus(p, ["APPROVED"], "Results are recorded only on an issued permit whose connection is not yet accepted");
    if (i.status !== "SCHEDULED") throw conflict(i.status === "REQUESTED" ? "Schedule the inspection before recording its result." : "This inspection already has its result.");
    i.status = input.result as "PASSED" | "FAILED";
    i.resultNotes = notes;
    i.recordedAt = clock.now();
    i.recordedById = viewer.userId;
    await tx.save(i);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: i.status === "PASSED" ? "lateral.inspection_passed" : "lateral.inspection_failed",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: notes,
      details: { inspectionId: i.id, kind: i.kind },
    });
    const rb = await permitRulebook(tx, p, district);
    const required = requiredInspections(rb).map((r) => r.kind);
    const all = await inspectionsOf(tx, [p.id]);
    const passed = new Set(all.filter((x) => x.status === "PASSED").map((x) => x.kind));
    const label = INSPECTION_LABELS[i.kind];
    if (i.status === "FAILED") {
      await notify(tx, p, district, "lateral.inspection_failed", `${label} failed: permit ${p.permitNumber}`, `The ${label.toLowerCase()} on permit ${p.permitNumber} did not pass:\n\n${notes}\n\nFix the work and ask for the inspection again in the portal.`, meta.publicUrl);
    } else if (required.every((k) => passed.has(k))) {
      p.status = "CONNECTED";
      p.connectedAt = clock.now();
      p.updatedAt = clock.now();
      await tx.save(p);
      await audit(tx, actorOf(viewer, meta.requestId), { action: "lateral.connected", entityType: "LateralPermit", entityId: p.id, districtId: p.districtId, details: { passed: [...passed] } });
      const copies = rb.entry("lateral.asBuiltCopies");
      const deposit = p.feeLines.find((l) => l.code === FEE_CODES.deposit);
      await notify(
        tx,
        p,
        district,
        "lateral.connected",
        `Connection accepted: permit ${p.permitNumber}`,
        `Every required inspection on permit ${p.permitNumber} (${addressOf(p)}) has passed: the connection to the public sewer is accepted.` +
          (typeof copies.value === "number" ? `\n\nFile ${copies.value} copies of the as-built (record) drawing with the District Operator (${copies.section}).` : "") +
          (deposit ? ` The as-built deposit of ${formatCents(deposit.amountCents)} is refunded once the drawings are approved.` : ""),
        meta.publicUrl,
      );
    } else {
      const left = required.filter((k) => !passed.has(k)).map((k) => INSPECTION_LABELS[k].toLowerCase());
      await notify(tx, p, district, "lateral.inspection_passed", `${label} passed: permit ${p.permitNumber}`, `The ${label.toLowerCase()} on permit ${p.permitNumber} passed.\n\nStill to come: ${left.join("; ")}.`, meta.publicUrl);
    }
    return { inspection: i, permit: p };
  });
}

// ---------------------------------------------------------------------------------------------
// Record drawings and the deposit (SUL 606 B)

export type DepositRefunder = (tx: EntityManager, p: LateralPermit, viewer: Viewer, meta: { requestId?: string }) => Promise<boolean>;

/**
 * The District Operator approves the as-built drawings of a connected lateral: the permit closes
 * and the as-built deposit is due back to the applicant. The Clerk refunds it from the payments
 * ledger (refunds are the Clerk's, SUL 201); the permit shows "deposit refund due" until then.
 */
export async function approveRecordDrawings(ds: DataSource, viewer: Viewer, id: string, meta: { requestId?: string; publicUrl: string }): Promise<LateralPermit> {
  return ds.transaction(async (tx) => {
    const p = await getPermit(tx, viewer, id, true);
    requireOperator(viewer, p.districtId);
    requireStatus(p, ["CONNECTED"], "Record drawings are approved once the connection is accepted");
    const district = await loadDistrict(tx, p.districtId);
    const deposit = p.feeLines.filter((l) => l.refundable).reduce((s, l) => s + l.amountCents, 0);
    p.status = "CLOSED";
    p.asBuiltApprovedAt = clock.now();
    p.asBuiltApprovedById = viewer.userId;
    p.closedAt = clock.now();
    p.depositRefundDueCents = deposit;
    p.updatedAt = clock.now();
    await tx.save(p);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "lateral.record_drawings_approved",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { depositRefundDueCents: p.depositRefundDueCents, paymentId: p.paymentId },
    });
    await notify(
      tx,
      p,
      district,
      "lateral.record_drawings_approved",
      `Record drawings approved: permit ${p.permitNumber}`,
      `The as-built drawings for permit ${p.permitNumber} (${addressOf(p)}) are approved and the permit is closed.` +
        (p.depositRefundDueCents ? ` The Town Clerk refunds your as-built deposit of ${formatCents(p.depositRefundDueCents)}; you get a refund receipt by email.` : ""),
      meta.publicUrl,
    );
    if (p.depositRefundDueCents && p.paymentId) {
      // Refunds are the Clerk's: tell the district's clerks the deposit is due back.
      const [{ receipt_number: paymentReceipt }] = await tx.query(`SELECT receipt_number FROM payment WHERE id = $1`, [p.paymentId]);
      const clerks: { id: string; email: string }[] = await tx.query(
        `SELECT u.id, u.email FROM staff_role r JOIN app_user u ON u.id = r.user_id WHERE r.district_id = $1 AND r.role = 'CLERK' ORDER BY u.email`,
        [p.districtId],
      );
      for (const c of clerks)
        await enqueueEmail(tx, {
          to: c.email,
          recipientId: c.id,
          districtId: p.districtId,
          kind: "lateral.deposit_refund_due",
          subject: `As-built deposit to refund: permit ${p.permitNumber}`,
          body: `The record drawings for permit ${p.permitNumber} (${addressOf(p)}) are approved. Refund the as-built deposit of ${formatCents(p.depositRefundDueCents)} (${FEE_CODES.deposit}) of payment ${paymentReceipt ?? p.paymentId} from the payments ledger:\n\n${meta.publicUrl}/staff/payments?districtId=${p.districtId}&status=PAID\n`,
        });
    }
    return p;
  });
}

// ---------------------------------------------------------------------------------------------
// Moratoria (SUL 310)

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

// ---------------------------------------------------------------------------------------------
// Lists

export async function myPermits(ds: DataSource, viewer: Viewer): Promise<LateralPermit[]> {
  return ds.getRepository(LateralPermit).find({ where: { applicantId: viewer.userId }, order: { createdAt: "DESC", id: "DESC" } });
}

export type QueueInput = { districtId: string; status?: string | null; first?: number | null; after?: string | null };
const OPEN_STATUSES: PermitStatus[] = ["SUBMITTED", "CHANGES_REQUESTED", "APPROVED", "CONNECTED"];

/**
 * The district's applications, oldest submission first, keyset-paginated on (submitted_at, id)
 * (index lateral_permit_queue). One statement; the page's related records come from loaders.
 */
export async function queue(ds: DataSource, viewer: Viewer, input: QueueInput): Promise<{ items: LateralPermit[]; nextCursor: string | null }> {
  if (!isStaff(viewer, input.districtId)) throw forbidden("You are not staff of that district.");
  const first = input.first ?? 25;
  if (!Number.isInteger(first) || first < 1 || first > 100) throw badInput({ first: "Ask for 1 to 100 applications at a time." });
  const status = clean(input.status);
  if (status && (!PERMIT_STATUSES.includes(status as PermitStatus) || status === "DRAFT")) throw badInput({ status: "Choose a status other than draft." });
  const q = ds
    .getRepository(LateralPermit)
    .createQueryBuilder("p")
    // The cursor keeps the microseconds PostgreSQL stores (a Date would round them to milliseconds).
    .addSelect(`to_char(p.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, "cursor_at")
    .where("p.district_id = :d", { d: input.districtId })
    .andWhere("p.submitted_at IS NOT NULL")
    .orderBy("p.submitted_at", "ASC")
    .addOrderBy("p.id", "ASC")
    .limit(first + 1);
  if (status) q.andWhere("p.status = :s", { s: status });
  else q.andWhere("p.status IN (:...open)", { open: OPEN_STATUSES });
  if (input.after) {
    const { key: at, id } = decodeCursor(input.after, isInstant)!;
    q.andWhere("(p.submitted_at, p.id) > (CAST(:at AS timestamptz), CAST(:id AS uuid))", { at, id });
  }
  const { entities, raw } = await q.getRawAndEntities();
  const items = entities.slice(0, first);
  const lastRaw = raw[items.length - 1];
  return {
    items,
    nextCursor: entities.length > first && lastRaw ? encodeCursor(lastRaw.cursor_at, items[items.length - 1].id) : null,
  };
}

export type CalendarRow = LateralInspection & { permitNumber: string | null; address: string; applicantName: string };

/** The week (Monday to Sunday, in the district's zone) containing `weekOf`, and the requests not yet scheduled. */
export async function inspectionCalendar(ds: DataSource, viewer: Viewer, districtId: string, weekOf?: string | null) {
  requireOperator(viewer, districtId);
  const district = await loadDistrict(ds, districtId);
  const day = weekOf ?? dateIn(district.timeZone);
  if (!isCalendarDate(day)) throw badInput({ weekOf: "Use a date like 2026-12-07." });
  const dow = (new Date(`${day}T12:00:00Z`).getUTCDay() + 6) % 7; // Monday = 0
  const monday = addCalendarDays(day, -dow);
  const sunday = addCalendarDays(monday, 6);
  const from = endOfDay(addCalendarDays(monday, -1), district.timeZone);
  const to = endOfDay(sunday, district.timeZone);
  const rows: any[] = await ds.query(
    `SELECT i.id, i.permit_id, i.kind, i.status, i.requested_at, i.scheduled_for, i.inspector_id, i.result_notes, i.recorded_at, i.applicant_notes,
            p.permit_number, p.street_number, p.street, p.city, p.zip, u.display_name AS applicant_name, ins.display_name AS inspector_name
       FROM lateral_inspection i
       JOIN lateral_permit p ON p.id = i.permit_id
       JOIN app_user u ON u.id = p.applicant_id
       LEFT JOIN app_user ins ON ins.id = i.inspector_id
      WHERE p.district_id = $1
        AND ((i.scheduled_for >= $2 AND i.scheduled_for < $3) OR (i.status = 'REQUESTED' AND p.status = 'APPROVED'))
      ORDER BY i.scheduled_for ASC NULLS LAST, i.requested_at ASC, i.id ASC`,
    [districtId, from, to],
  );
  const toEntry = (r: any) => ({
    id: r.id,
    permitId: r.permit_id,
    kind: r.kind,
    status: r.status,
    requestedAt: r.requested_at,
    scheduledFor: r.scheduled_for,
    inspectorId: r.inspector_id,
    inspectorName: r.inspector_name,
    resultNotes: r.result_notes,
    applicantNotes: r.applicant_notes,
    recordedAt: r.recorded_at,
    permitNumber: r.permit_number,
    address: addressOf({ streetNumber: r.street_number, street: r.street, city: r.city, zip: r.zip }),
    applicantName: r.applicant_name,
  });
  const days = Array.from({ length: 7 }, (_, k) => addCalendarDays(monday, k)).map((date) => ({
    date,
    inspections: rows.filter((r) => r.scheduled_for && dateIn(district.timeZone, new Date(r.scheduled_for)) === date).map(toEntry),
  }));
  return {
    weekStart: monday,
    weekEnd: sunday,
    previousWeek: addCalendarDays(monday, -7),
    nextWeek: addCalendarDays(monday, 7),
    timeZone: district.timeZone,
    days,
    unscheduled: rows.filter((r) => r.status === "REQUESTED").map(toEntry),
  };
}

export async function checklistFor(ds: DataSource | EntityManager, p: LateralPermit) {
  const district = await loadDistrict(ds, p.districtId);
  return reviewChecklist(await permitRulebook(ds, p, district));
}

export { requiredInspections, requestableKinds, nextStep, reviewChecklist };

// ---------------------------------------------------------------------------------------------
// Registrations: payments, documents, dashboard

registerPayable(PAYABLE_TYPE, {
  /** Called in the transaction that marks the payment paid: the permit records when its fees were paid. */
  async onPaid(tx: EntityManager, payment: Payment) {
    const p = await tx.getRepository(LateralPermit).createQueryBuilder("p").setLock("pessimistic_write").where("p.id = :id", { id: payment.payableId }).getOne();
    if (!p || p.paymentId !== payment.id || p.paidAt) return;
    await tx.update(LateralPermit, { id: p.id }, { paidAt: payment.paidAt ?? clock.now(), updatedAt: clock.now() });
    await audit(tx, { userId: null }, {
      action: "lateral.fees_paid",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { paymentId: payment.id, amountCents: payment.amountCents, receiptNumber: payment.receiptNumber },
    });
  },
  async title(payableId: string, db: DataSource | EntityManager) {
    return (await permitTitles(db, [payableId])).get(payableId) ?? "Building lateral permit application";
  },
  titles: (ids: string[], db: DataSource | EntityManager) => permitTitles(db, ids),
  href: (payableId: string) => `/permits/${payableId}`,
});

async function permitTitles(db: DataSource | EntityManager, ids: string[]): Promise<Map<string, string>> {
  const rows = ids.length ? await db.getRepository(LateralPermit).findBy({ id: In(ids.filter(isUuid)) }) : [];
  return new Map(rows.map((p) => [p.id, p.permitNumber ? `Building lateral permit ${p.permitNumber}, ${addressOf(p)}` : `Building lateral permit application, ${addressOf(p)}`]));
}

// The district's operators and clerks read the plans filed with a submitted application.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => r.role === "OPERATOR" || r.role === "CLERK").map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM lateral_permit_document pd JOIN lateral_permit p ON p.id = pd.permit_id
      WHERE pd.document_id = $1 AND p.submitted_at IS NOT NULL AND p.district_id = ANY($2::uuid[]) LIMIT 1`,
    [doc.id, districts],
  );
  return rows.length > 0;
});

/** "My applications": each of the viewer's permits with what is due next, in one query. */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT p.id, p.status, p.permit_number, p.street_number, p.street, p.city, p.zip, p.fee_total_cents, p.paid_at,
            CASE WHEN p.deposit_refund_due_cents > 0 AND NOT EXISTS (
                   SELECT 1 FROM refund r WHERE r.payment_id = p.payment_id AND r.line_codes ? '${FEE_CODES.deposit}')
                 THEN p.deposit_refund_due_cents ELSE 0 END AS deposit_refund_due_cents, d.time_zone,
            coalesce((SELECT json_agg(json_build_object('kind', i.kind, 'status', i.status, 'scheduledFor', i.scheduled_for, 'requestedAt', i.requested_at))
                        FROM lateral_inspection i WHERE i.permit_id = p.id), '[]'::json) AS inspections,
            p.rulebook_version_id
       FROM lateral_permit p
       JOIN district d ON d.id = p.district_id
      WHERE p.applicant_id = $1 AND p.status <> 'WITHDRAWN'
      ORDER BY p.created_at DESC`,
    [viewer.userId],
  );
  // The inspection rules of each rulebook version used, from the in-process cache (no query once warm).
  const versionIds = [...new Set(rows.map((r) => r.rulebook_version_id).filter(Boolean))] as string[];
  const rulesByVersion = new Map<string, Record<string, unknown>>();
  for (const id of versionIds) {
    const rb = await rulebookById(ds, id);
    rulesByVersion.set(
      id,
      Object.fromEntries(rb.entries.filter((e) => e.key.startsWith("lateral.")).map((e) => [e.key, e.value])),
    );
  }
  return rows.map((r) => {
    r.rules = r.rulebook_version_id ? rulesByVersion.get(r.rulebook_version_id) : {};
    const inspections = (r.inspections as any[]).map((i) => ({ kind: i.kind, status: i.status, scheduledFor: i.scheduledFor ? new Date(i.scheduledFor) : null, requestedAt: new Date(i.requestedAt) }));
    const step = nextStep(
      { status: r.status, feeTotalCents: r.fee_total_cents, paid: r.paid_at !== null, depositRefundDueCents: r.deposit_refund_due_cents },
      inspections,
      requiredKindsFromValues(r.rules ?? {}),
      r.time_zone,
    );
    const address = addressOf({ streetNumber: r.street_number, street: r.street, city: r.city, zip: r.zip });
    return {
      kind: PAYABLE_TYPE,
      id: r.id,
      title: r.permit_number ? `Lateral permit ${r.permit_number}, ${address}` : `Lateral permit application, ${address}`,
      status: STATUS_LABELS[r.status as PermitStatus],
      nextStep: step.text,
      dueDate: step.dueDate,
      daysLeft: step.daysLeft,
      href: r.status === "DRAFT" ? `/permits/${r.id}/edit` : `/permits/${r.id}`,
    };
  });
});

import { clock } from "../common/clock.js";
import { type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn } from "../common/dates.js";
import { AppError, badInput, conflict } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { isChoosable } from "../contractors/contractors.service.js";
import { District } from "../districts/district.entity.js";
import type { Config } from "../config.js";
import { allOwnedBy, isUuid, storeDocumentsWith, type StoreDocumentInput } from "../documents/documents.service.js";
import { cancelPendingPayments, createPayment, isPaid } from "../payments/payments.service.js";
import { BUILDING_USES, LateralPermit, LateralPermitDocument, PERMIT_CLASSES, WORK_KINDS, type BuildingUse, type PermitClass, type WorkKind } from "./lateral-permit.entity.js";
import { MAX_FLOOR_AREA_SQFT, MAX_SHEETS, applicationRequirements, computeFees, permitNumber, requiredInspections } from "./rules.js";
import { PAYABLE_TYPE, actorOf, clean, permitRulebook, getPermit, requireApplicant, requireOperator, requireStatus, loadDistrict, addressOf, notify } from "./common.js";
import { activeMoratoriumOn } from "./moratoria.service.js";

/** Applications for building lateral permits (SUL 601-602, 1212; Huron III-1 to III-3): drafts, submission with its fees, withdrawal, review and issuance. */

const MAX_DOCUMENTS = 20;

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
  workDoneBy?: string | null;
  asBuiltSheets?: number | null;
  documentIds?: string[] | null;
  /** Plans uploaded with the form: stored in the draft's transaction, so a refused form leaves none behind */
  newPlans?: StoreDocumentInput[] | null;
};

const LIMITS: Record<string, number> = { streetNumber: 20, street: 200, city: 100, taxParcel: 50, ownerName: 200, agentName: 200, workDoneBy: 200 };
const FEE_FIELDS = ["buildingUse", "floorAreaSqft", "asBuiltSheets"] as const;

/**
 * Saves an application as a draft (creates it, or updates the applicant's own draft or an
 * application sent back for changes). Only what cannot be stored is refused here; completeness
 * is checked on submission.
 */
export async function saveDraft(ds: DataSource, config: Config, viewer: Viewer, input: DraftInput, requestId?: string): Promise<LateralPermit> {
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
  if (floor !== null) {
    if (!Number.isInteger(floor)) fields.floorAreaSqft = "Enter the floor area as a whole number of square feet.";
    else if (floor <= 0) fields.floorAreaSqft = "The floor area must be more than zero square feet.";
    else if (floor > MAX_FLOOR_AREA_SQFT) fields.floorAreaSqft = `Enter a floor area of at most ${MAX_FLOOR_AREA_SQFT.toLocaleString("en-US")} square feet; for a larger building, ask the district office.`;
  }
  const sheets = input.asBuiltSheets ?? null;
  if (sheets !== null) {
    if (!Number.isInteger(sheets) || sheets < 0) fields.asBuiltSheets = "Enter the number of sheets as a whole number (1 or more).";
    else if (sheets > MAX_SHEETS) fields.asBuiltSheets = `Enter at most ${MAX_SHEETS} sheets; for a larger set of plans, ask the district office.`;
  }
  const documentIds = [...new Set((input.documentIds ?? []).map((d) => d.trim()).filter(Boolean))];
  const newPlans = input.newPlans ?? [];
  if (documentIds.length + newPlans.length > MAX_DOCUMENTS) fields.documentIds = `Attach at most ${MAX_DOCUMENTS} documents.`;
  if (documentIds.some((d) => !isUuid(d))) fields.documentIds = "Choose plans from your uploaded documents.";
  const contractorId = clean(input.contractorId);
  if (contractorId && !isUuid(contractorId)) fields.contractorId = "Choose a contractor from the list of approved contractors.";
  // Every problem is reported at once: the checks that need the district join these before anything is saved.

  return storeDocumentsWith(ds, config, viewer, newPlans, requestId, async (tx, uploaded) => {
    let p: LateralPermit;
    const creating = !input.id;
    if (creating) {
      const districtId = clean(input.districtId);
      if (!districtId || !isUuid(districtId)) throw badInput({ ...fields, districtId: "Choose the sewer district of the property." });
      await loadDistrict(tx, districtId).catch(() => {
        throw badInput({ ...fields, districtId: "Choose the sewer district of the property." });
      });
      p = tx.create(LateralPermit, { districtId, applicantId: viewer.userId, status: "DRAFT", feeLines: [], feeTotalCents: 0 });
    } else {
      p = await getPermit(tx, viewer, input.id!, true);
      requireApplicant(viewer, p, "change the application");
      requireStatus(p, ["DRAFT", "CHANGES_REQUESTED"], "Only a draft or an application sent back for changes can be edited");
      if (input.districtId && input.districtId !== p.districtId) fields.districtId = "The district of an application cannot change; start a new application.";
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
      workDoneBy: text.workDoneBy,
      asBuiltSheets: sheets,
    };
    // The fee was computed when the application was first submitted: what it rests on stays.
    let message: string | undefined;
    if (p.submittedAt) {
      for (const k of FEE_FIELDS)
        if ((next as any)[k] !== (p as any)[k] && !fields[k]) {
          fields[k] = "The fee was computed from this when you submitted; to change it, withdraw the application and apply again.";
          message = "The building use, floor area and number of sheets set the fee and cannot change after submission.";
        }
    }
    // What the application carries comes from the district's rulebook: the version its fees used once
    // submitted, else today's.
    const district = await loadDistrict(tx, p.districtId);
    const needs = applicationRequirements(await permitRulebook(tx, p, district));
    if (contractorId && !needs.contractor.fromApprovedList && !fields.contractorId)
      fields.contractorId = `${district.name} keeps no list of approved contractors (${needs.contractor.section}): name who will do the work instead.`;
    if (next.workDoneBy && needs.contractor.fromApprovedList && !fields.workDoneBy)
      fields.workDoneBy = `The work is done by a contractor from ${district.name}'s list of approved contractors (${needs.contractor.section}): choose one instead.`;
    if (sheets !== null && !needs.asBuiltDrawings.required && !fields.asBuiltSheets)
      fields.asBuiltSheets = `${district.name}'s law asks for no as-built drawings (${needs.asBuiltDrawings.section}), so sheets are not counted.`;
    if (contractorId && !fields.contractorId) {
      const found = await tx.query(`SELECT 1 FROM contractor WHERE id = $1 AND district_id = $2`, [contractorId, p.districtId]);
      if (!found.length) fields.contractorId = "Choose a contractor from the district's list of approved contractors.";
    }
    if (!fields.documentIds && !(await allOwnedBy(tx, documentIds, viewer.userId))) fields.documentIds = "Attach plans from your own uploaded documents.";
    if (Object.keys(fields).length) throw badInput(fields, message);
    const before = creating ? null : { ...p };
    Object.assign(p, next, { updatedAt: clock.now() });
    p = await tx.save(p);
    const attached = [...documentIds, ...uploaded.map((d) => d.id)];
    await tx.delete(LateralPermitDocument, { permitId: p.id, kind: "PLAN" });
    if (attached.length) await tx.insert(LateralPermitDocument, attached.map((documentId, position) => ({ permitId: p.id, documentId, position, kind: "PLAN" as const })));
    const changed = before ? Object.keys(next).filter((k) => (before as any)[k] !== (next as any)[k]) : Object.keys(next).filter((k) => (next as any)[k] !== null);
    await audit(tx, actorOf(viewer, requestId), {
      action: creating ? "lateral.draft_created" : "lateral.draft_saved",
      entityType: "LateralPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { changed, documents: attached.length, uploaded: uploaded.map((d) => d.id) },
    });
    return p;
  });
}

export async function documentIdsOf(ds: DataSource | EntityManager, permitId: string): Promise<string[]> {
  const rows = await ds.getRepository(LateralPermitDocument).find({ where: { permitId, kind: "PLAN" }, order: { position: "ASC" } });
  return rows.map((r) => r.documentId);
}

// ---------------------------------------------------------------------------------------------
// Submission

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
    // A first submission is judged by the rulebook in force today; a resubmission by the version its fees used.
    const rb = await permitRulebook(tx, p, district);
    const needs = applicationRequirements(rb);

    const fields: Record<string, string> = {};
    if (!p.permitClass) fields.permitClass = "Choose the class of permit.";
    if (!p.buildingUse) fields.buildingUse = "Choose what the building is used for.";
    if (p.permitClass && p.buildingUse && (p.permitClass === "INDUSTRIAL") !== (p.buildingUse === "INDUSTRIAL"))
      fields.permitClass =
        p.buildingUse === "INDUSTRIAL"
          ? "A building producing industrial wastes takes the industrial class (class 2)."
          : "Residential, commercial and institutional buildings take class 1; class 2 is for industrial wastes.";
    if (needs.floorAreaFee && p.buildingUse && p.buildingUse !== "RESIDENTIAL" && p.floorAreaSqft === null)
      fields.floorAreaSqft = `Enter the floor area of the ${p.buildingUse.toLowerCase()} building: the fee is charged per square foot.`;
    if (!p.workKind) fields.workKind = "Say whether this is a new building or an existing lateral.";
    if (!p.streetNumber) fields.streetNumber = "Enter the house number.";
    if (!p.street) fields.street = "Enter the street.";
    if (!p.city) fields.city = "Enter the city, town or village.";
    if (!p.zip) fields.zip = "Enter the ZIP code.";
    if (!p.taxParcel) fields.taxParcel = "Enter the tax parcel (section-block-lot) number.";
    if (!p.ownerName) fields.ownerName = "Enter the owner's name.";
    if (needs.asBuiltDrawings.required && (p.asBuiltSheets === null || p.asBuiltSheets < 1))
      fields.asBuiltSheets = `Enter the number of sheets of plans showing lateral connections (1 or more; ${needs.asBuiltDrawings.section}).`;
    if (!documentIds.length) {
      if (needs.plans.required) fields.documentIds = `Attach the plans and specifications (PDF, PNG or JPEG; ${needs.plans.section}).`;
    } else if (!(await allOwnedBy(tx, documentIds, p.applicantId))) fields.documentIds = "Attach plans from your own uploaded documents (PDF, PNG or JPEG).";
    if (!needs.contractor.fromApprovedList) {
      if (!p.workDoneBy) fields.workDoneBy = "Name who will do the work: the owner, or the plumber or contractor the owner hires.";
    } else if (!p.contractorId) fields.contractorId = `Choose the contractor who will do the work, from the district's list of approved contractors (${needs.contractor.section}).`;
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
      const lines = computeFees(rb, { buildingUse: p.buildingUse!, floorAreaSqft: p.floorAreaSqft, asBuiltSheets: p.asBuiltSheets });
      const total = lines.reduce((s, l) => s + l.amountCents, 0);
      p.feeLines = lines;
      p.feeTotalCents = total;
      p.rulebookVersionId = rb.version.id;
      p.submittedAt = clock.now();
      // No fee, no payment step (Huron III-3: the owner bears the costs of the work; no fee is stated).
      if (total > 0) {
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
    const feeText = p.feeTotalCents
      ? `Fees:\n${p.feeLines.map((l) => `  ${l.label}: ${formatCents(l.amountCents)} (${l.section})`).join("\n")}\n  Total: ${formatCents(p.feeTotalCents)}\n\nPay online: ${meta.publicUrl}/payments/${p.paymentId}\nThe ${district.operatorTitle} reviews the application; no permit is issued before the fees are paid.`
      : `${district.name} charges no fee for this permit. The ${district.operatorTitle} reviews the application and tells you when the permit is issued.`;
    await notify(
      tx,
      p,
      district,
      first ? "lateral.submitted" : "lateral.resubmitted",
      first ? `Lateral permit application received: ${addressOf(p)}` : `Lateral permit application resubmitted: ${addressOf(p)}`,
      first
        ? `We received your application for a building lateral permit at ${addressOf(p)}.\n\n${feeText}`
        : `We received the changes to your application for ${addressOf(p)}. The ${district.operatorTitle} reviews it again.${p.feeTotalCents ? " The fees stay as they were; you do not pay twice." : ""}`,
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
    // Fees not paid are no longer due: the payment is cancelled and its open checkout closed.
    const cancelled = await cancelPendingPayments(tx, actorOf(viewer, meta.requestId), { payableType: PAYABLE_TYPE, payableId: p.id, reason: "The application was withdrawn." });
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
        `Your application for ${addressOf(p)} is withdrawn.` +
          (cancelled.length ? " Its fees were not paid and are no longer due." : p.feeTotalCents > 0 ? " If you paid fees, the Town Clerk handles any refund." : ""),
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
      `The ${district.operatorTitle} asks for these changes before the permit can be issued:\n\n${text}\n\nEdit the application and submit it again${p.feeTotalCents ? "; the fees stay as they were" : ""}.`,
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
    if (p.feeTotalCents > 0 && !(await isPaid(tx, PAYABLE_TYPE, p.id)))
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

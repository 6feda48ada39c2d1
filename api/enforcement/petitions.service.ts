import { type DataSource, type EntityManager } from "typeorm";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { badInput, conflict, forbidden, AppError } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookById, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { cancelPendingPayments } from "../payments/payments.service.js";
import { Charge, EnforcementAction, Petition, PetitionDocument, RELIEFS, type Relief } from "./enforcement.entity.js";
import { ACTION_STATUS_LABELS, DECISION_LABELS, KINDS, PETITION_TO_LABELS, RELIEF_LABELS, aKind, fineLimits, petitionable, spreadOverDays } from "./rules.js";
import { CHARGE_PAYABLE, type Meta, actorOf, text, loadDistrict, todayIn, memberOrgIds, isRespondent, tell, getAction, getPetition } from "./common.js";
import { countOf, formatDate } from "../common/format.js";

/** Petitions to the Town Board (SUL 1104-1108; Huron Article V): filed, withdrawn, decided, with the decision's effect on the action and its charges. */

// ---------------------------------------------------------------------------------------------
// Petitions (SUL 1104-1108)

export async function filePetition(
  ds: DataSource,
  viewer: Viewer,
  input: { actionId: string; grounds: string; relief: string; documentIds?: string[] | null },
  meta: Meta,
): Promise<Petition> {
  const fields: Record<string, string> = {};
  const grounds = text(input.grounds, "grounds", 8000, "State the grounds of the petition.", fields);
  const documentIds = [...new Set((input.documentIds ?? []).map((d) => d.trim()).filter(Boolean))];
  if (documentIds.length > 20) fields.documentIds = "Attach at most 20 documents.";
  if (documentIds.some((d) => !isUuid(d))) fields.documentIds = "Choose documents from your uploaded documents.";
  return ds.transaction(async (tx) => {
    const a = await getAction(tx, viewer, input.actionId, true);
    if (!(await isRespondent(tx, viewer, a))) throw forbidden("Only the person or organization served can petition against it.");
    const district = await loadDistrict(tx, a.districtId);
    const rb = await rulebookById(tx, a.rulebookVersionId);
    if (!a.petitionDueOn || !a.petitionTo)
      throw conflict(
        petitionable(rb, a.kind) || KINDS[a.kind].petitionTo
          ? `${district.lawName} provides no petition against this action (${rb.entry("enforcement.petitionsEnabled").section}).`
          : `The law provides no petition against ${aKind(a.kind)}.`,
      );
    const today = todayIn(district);
    if (today > a.petitionDueOn)
      throw new AppError(
        "DEADLINE_PASSED",
        `The time to petition closed on ${a.petitionDueOn} (${rb.entry("enforcement.petitionDays").value} calendar days from the mailing on ${a.servedOn}, ${rb.entry("enforcement.petitionDays").section}). The action is final and the right to contest it is waived (Sewer Use Law 1110).`,
        { grounds: `The time to petition closed on ${formatDate(a.petitionDueOn!)}.` },
      );
    if (a.status !== "SERVED") throw conflict(a.status === "UNDER_PETITION" ? "A petition against this action is already open." : `The action is ${ACTION_STATUS_LABELS[a.status].toLowerCase()}.`);
    const relief = input.relief as Relief;
    if (!RELIEFS.includes(relief) || !KINDS[a.kind].reliefs.includes(relief))
      fields.relief = `Ask for: ${KINDS[a.kind].reliefs.map((r) => RELIEF_LABELS[r].toLowerCase()).join(" or ")}.`;
    if (documentIds.length) {
      const mine = await tx.query(`SELECT id FROM document WHERE id = ANY($1::uuid[]) AND (owner_id = $2 OR organization_id = ANY($3::uuid[]))`, [
        documentIds,
        viewer.userId,
        await memberOrgIds(tx, viewer.userId),
      ]);
      if (mine.length !== documentIds.length) fields.documentIds = "Choose documents from your uploaded documents.";
    }
    if (Object.keys(fields).length) throw badInput(fields);
    const p = await tx.save(
      tx.create(Petition, { actionId: a.id, districtId: a.districtId, addressedTo: a.petitionTo, relief, grounds: grounds!, status: "FILED", filedById: viewer.userId, filedAt: clock.now(), filedOn: today }),
    );
    for (const [i, documentId] of documentIds.entries()) await tx.insert(PetitionDocument, { petitionId: p.id, documentId, position: i });
    await tx.update(EnforcementAction, { id: a.id }, { status: "UNDER_PETITION", updatedAt: clock.now() });
    // The fine is not collected while the petition is decided: hold its charge, cancel a checkout not yet paid.
    const charge = await tx.findOneBy(Charge, { actionId: a.id });
    if (charge?.status === "OPEN") {
      await cancelPendingPayment(tx, viewer, charge, "A petition against the fine was filed; nothing is due until it is decided.", meta.requestId);
      await tx.update(Charge, { id: charge.id }, { status: "HELD", paymentId: null, updatedAt: clock.now() });
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "enforcement.petition_filed",
      entityType: "Petition",
      entityId: p.id,
      districtId: a.districtId,
      details: { actionId: a.id, relief, filedOn: today, petitionDueOn: a.petitionDueOn, documents: documentIds.length },
    });
    await tell(
      tx,
      a,
      district,
      "enforcement.petition_filed",
      `Petition received: ${a.number}`,
      `Your petition to ${PETITION_TO_LABELS[a.petitionTo]} against ${KINDS[a.kind].label.toLowerCase()} ${a.number} was filed on ${formatDate(today)}, within the time allowed (until ${formatDate(a.petitionDueOn!)}). You will be told of every step.`,
      `${meta.publicUrl}/enforcement/${a.id}`,
    );
    return p;
  });
}

export async function withdrawPetition(ds: DataSource, viewer: Viewer, petitionId: string, meta: Meta): Promise<Petition> {
  return ds.transaction(async (tx) => {
    const { petition: p, action: a } = await getPetition(tx, viewer, petitionId, true);
    if (!(await isRespondent(tx, viewer, a))) throw forbidden("Only the petitioner can withdraw the petition.");
    if (p.status !== "FILED" && p.status !== "HEARING_ORDERED") throw conflict("Only a petition not yet decided can be withdrawn.");
    await tx.update(Petition, { id: p.id }, { status: "WITHDRAWN", withdrawnAt: clock.now(), withdrawnById: viewer.userId });
    await tx.update(EnforcementAction, { id: a.id }, { status: "SERVED", updatedAt: clock.now() });
    const charge = await tx.findOneBy(Charge, { actionId: a.id });
    if (charge?.status === "HELD") await tx.update(Charge, { id: charge.id }, { status: "OPEN", updatedAt: clock.now() });
    const district = await loadDistrict(tx, a.districtId);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "enforcement.petition_withdrawn", entityType: "Petition", entityId: p.id, districtId: a.districtId, details: { actionId: a.id } });
    const closed = todayIn(district) > a.petitionDueOn!;
    await tell(
      tx,
      a,
      district,
      "enforcement.petition_withdrawn",
      `Petition withdrawn: ${a.number}`,
      `Your petition against ${a.number} is withdrawn.${closed ? ` The time to petition closed on ${a.petitionDueOn}: the action is final and the right to contest it is waived (Sewer Use Law 1110).` : ` You may petition again until ${a.petitionDueOn}.`}`,
      `${meta.publicUrl}/enforcement/${a.id}`,
    );
    return tx.findOneByOrFail(Petition, { id: p.id });
  });
}

/** Who decides a petition: the Board (BOARD role in the district), or the District Operator for a water severance (SUL 1108). */
export function requireDecider(viewer: Viewer, p: Petition) {
  if (p.addressedTo === "TOWN_BOARD" && !hasRole(viewer, "BOARD", p.districtId)) throw forbidden("Only a member of the Town Board (BOARD role in this district) decides this petition.");
  if (p.addressedTo === "DISTRICT_OPERATOR" && !hasRole(viewer, "OPERATOR", p.districtId)) throw forbidden("Only the District Operator decides a petition about a water severance (Sewer Use Law 1108).");
}

/** Cancels the charge's payment not yet paid (payments closes its card checkout and audits it). */
export async function cancelPendingPayment(tx: EntityManager, viewer: Viewer | null, charge: Charge, reason: string, requestId?: string) {
  await cancelPendingPayments(tx, { userId: viewer?.userId ?? null, requestId }, { payableType: CHARGE_PAYABLE, payableId: charge.id, reason });
}

/**
 * Applies a modification, suspension or vacation to the action and its fine. A modified fine is
 * billed anew on the decision date at the new amount; a suspended or vacated one is cancelled.
 */
export async function applyOutcome(
  tx: EntityManager,
  viewer: Viewer,
  a: EnforcementAction,
  district: District,
  outcome: "FINAL" | "MODIFIED" | "SUSPENDED" | "VACATED" | "RECONNECTED",
  change: { newAmountCents?: number | null; newTerms?: string | null },
  reason: string,
  requestId?: string,
) {
  const today = todayIn(district);
  const charge = await tx.createQueryBuilder(Charge, "c").setLock("pessimistic_write").where("c.action_id = :id", { id: a.id }).getOne();
  const patch: Partial<EnforcementAction> = { updatedAt: clock.now() };
  if (outcome === "FINAL" || outcome === "MODIFIED") {
    patch.status = "FINAL";
    patch.finalOn = today;
    patch.finalReason = reason;
  } else patch.status = outcome === "SUSPENDED" ? "SUSPENDED" : outcome === "VACATED" ? "VACATED" : "RECONNECTED";
  if (outcome === "MODIFIED") {
    if (change.newTerms) patch.requirements = change.newTerms;
    if (a.kind === "FINE" && change.newAmountCents) {
      patch.fineDays = spreadOverDays(
        a.fineDays.map((d) => d.date),
        change.newAmountCents,
      );
      patch.fineTotalCents = change.newAmountCents;
    }
  }
  await tx.update(EnforcementAction, { id: a.id }, patch as any);
  if (charge && charge.status !== "PAID" && charge.status !== "CANCELLED") {
    const billedAnew = outcome === "FINAL" || outcome === "MODIFIED";
    await cancelPendingPayment(
      tx,
      viewer,
      charge,
      billedAnew
        ? "The decision on the petition bills the charge anew; a new payment replaces this one."
        : outcome === "RECONNECTED"
          ? "The decision on the petition ended the charge; nothing is due."
          : `The fine was ${outcome.toLowerCase()} on petition; nothing is due.`,
      requestId,
    );
    if (billedAnew)
      await tx.update(Charge, { id: charge.id }, { status: "OPEN", amountCents: patch.fineTotalCents ?? charge.amountCents, billedOn: today, paymentId: null, updatedAt: clock.now() });
    else await tx.update(Charge, { id: charge.id }, { status: "CANCELLED", paymentId: null, updatedAt: clock.now() });
  }
}

export function validateModification(a: EnforcementAction, rb: Rulebook, input: { newAmountCents?: number | null; newTerms?: string | null }, fields: Record<string, string>) {
  const terms = text(input.newTerms, "newTerms", 4000, null, fields);
  if (a.kind === "FINE") {
    const amount = input.newAmountCents;
    const limits = fineLimits(rb);
    const days = a.fineDays.length;
    if (amount === null || amount === undefined || !Number.isSafeInteger(amount)) fields.newAmountCents = "Enter the modified fine in dollars and cents.";
    else if (amount < limits.minCents * days || amount > limits.maxCents * days)
      fields.newAmountCents = `For ${countOf(days, "day")} of violation the fine must be between ${formatCents(limits.minCents * days)} and ${formatCents(limits.maxCents * days)} (${formatCents(limits.minCents)} to ${formatCents(limits.maxCents)} a day, ${limits.section}).`;
    else if (amount === a.fineTotalCents) fields.newAmountCents = `The fine is already ${formatCents(amount)}; uphold it instead.`;
  } else if (!terms) fields.newTerms = "State the modified terms.";
  return terms;
}

export type DecidePetitionInput = { petitionId: string; decision: string; reasons: string; newAmountCents?: number | null; newTerms?: string | null };

/** The Board's (or, for a water severance, the Operator's) decision on a petition without a hearing (SUL 1104-1108). */
export async function decidePetition(ds: DataSource, viewer: Viewer, input: DecidePetitionInput, meta: Meta): Promise<Petition> {
  return ds.transaction(async (tx) => {
    const { petition: p, action: a } = await getPetition(tx, viewer, input.petitionId, true);
    requireDecider(viewer, p);
    if (p.status !== "FILED") throw conflict(p.status === "HEARING_ORDERED" ? "A show-cause hearing is ordered: the Board decides after it." : "The petition is already decided or withdrawn.");
    const district = await loadDistrict(tx, a.districtId);
    const rb = await rulebookById(tx, a.rulebookVersionId);
    const fields: Record<string, string> = {};
    const decision = input.decision as "REJECT" | "MODIFY" | "SUSPEND" | "RECONNECT";
    if (!(KINDS[a.kind].decisions as string[]).includes(decision)) fields.decision = `Choose one of: ${KINDS[a.kind].decisions.map((x) => DECISION_LABELS[x].toLowerCase()).join(", ")}; or order a show-cause hearing.`;
    const reasons = text(input.reasons, "reasons", 8000, "Give the written reasons for the decision.", fields);
    let terms: string | null = null;
    if (decision === "MODIFY") terms = validateModification(a, rb, input, fields);
    if (Object.keys(fields).length) throw badInput(fields);
    const status = { REJECT: "REJECTED", MODIFY: "MODIFIED", SUSPEND: "SUSPENDED", RECONNECT: "RECONNECTED" }[decision] as Petition["status"];
    await tx.update(Petition, { id: p.id }, {
      status,
      decidedById: viewer.userId,
      decidedAt: clock.now(),
      decisionReasons: reasons,
      newTerms: terms,
      newAmountCents: decision === "MODIFY" && a.kind === "FINE" ? input.newAmountCents! : null,
    });
    const outcome = decision === "REJECT" ? "FINAL" : decision === "MODIFY" ? "MODIFIED" : decision === "SUSPEND" ? "SUSPENDED" : "RECONNECTED";
    await applyOutcome(tx, viewer, a, district, outcome, { newAmountCents: input.newAmountCents, newTerms: terms }, reasons!, meta.requestId);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "enforcement.petition_decided",
      entityType: "Petition",
      entityId: p.id,
      districtId: a.districtId,
      reason: reasons,
      details: { decision, actionId: a.id, newAmountCents: input.newAmountCents ?? null },
    });
    const what =
      decision === "REJECT"
        ? `was rejected as frivolous. The ${KINDS[a.kind].label.toLowerCase()} stands and is final.`
        : decision === "MODIFY"
          ? a.kind === "FINE"
            ? `was granted: the fine is modified to ${formatCents(input.newAmountCents!)}, due from today.`
            : `was granted: the order is modified. New terms: ${terms}`
          : decision === "SUSPEND"
            ? "was granted: the order or fine is suspended."
            : "was granted: the water supply is to be reconnected.";
    await tell(tx, a, district, "enforcement.petition_decided", `Decision on your petition: ${a.number}`, `Your petition against ${a.number} ${what}\n\nReasons: ${reasons}`, `${meta.publicUrl}/enforcement/${a.id}`);
    return tx.findOneByOrFail(Petition, { id: p.id });
  });
}

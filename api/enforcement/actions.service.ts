import { type DataSource } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { isCalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { ACTION_KINDS, Charge, EnforcementAction, type ActionKind } from "./enforcement.entity.js";
import { KINDS, PETITION_TO_LABELS, aKind, deadlinesFor, fineLimits, kindProvided, sectionFor } from "./rules.js";
import { type Meta, actorOf, type Db, text, loadDistrict, todayIn, type Respondent, isRespondent, tell, nextNumber, getAction } from "./common.js";
import { countOf, formatDate } from "../common/format.js";

/** Notices, orders and fines served by the District Operator (SUL 1102-1105, 1117; Huron V-1, V-2), and the respondent's answer to a notice. */

// ---------------------------------------------------------------------------------------------
// Serving an action (District Operator)

export type CreateActionInput = {
  districtId: string;
  kind: string;
  respondentEmail?: string | null;
  respondentOrganizationName?: string | null;
  respondentOrganizationId?: string | null;
  violation: string;
  requirements?: string | null;
  correctBy?: string | null;
  servedOn?: string | null;
  escalatesId?: string | null;
  subjectType?: string | null;
  subjectId?: string | null;
  subjectLabel?: string | null;
  fineDays?: { date: string; amountCents: number }[] | null;
  taxParcel?: string | null;
  propertyAddress?: string | null;
};

export async function findRespondent(
  db: Db,
  input: { respondentEmail?: string | null; respondentOrganizationName?: string | null; respondentOrganizationId?: string | null },
  fields: Record<string, string>,
): Promise<(Respondent & { name: string; orgKind: string | null }) | null> {
  const email = (input.respondentEmail ?? "").trim().toLowerCase();
  const orgName = (input.respondentOrganizationName ?? "").trim();
  const orgId = (input.respondentOrganizationId ?? "").trim();
  const given = [email, orgName, orgId].filter(Boolean).length;
  if (given !== 1) {
    fields.respondentEmail = "Give the email of the person served, or the name of the organization served (one of the two).";
    return null;
  }
  if (email) {
    const u = await db.getRepository(User).createQueryBuilder("u").where("lower(u.email) = :e", { e: email }).getOne();
    if (!u) {
      fields.respondentEmail = "No account has that email address. The person must have a portal account to be served here.";
      return null;
    }
    return { respondentUserId: u.id, respondentOrganizationId: null, name: u.displayName, orgKind: null };
  }
  const orgs = orgId
    ? isUuid(orgId)
      ? await db.getRepository(Organization).findBy({ id: orgId })
      : []
    : await db.getRepository(Organization).createQueryBuilder("o").where("lower(o.name) = lower(:n)", { n: orgName }).getMany();
  const field = orgId ? "respondentOrganizationId" : "respondentOrganizationName";
  if (orgs.length === 0) {
    fields[field] = "No organization has that name.";
    return null;
  }
  if (orgs.length > 1) {
    fields[field] = "More than one organization has that name; serve it from the organization's enforcement history instead.";
    return null;
  }
  return { respondentUserId: null, respondentOrganizationId: orgs[0].id, name: orgs[0].name, orgKind: orgs[0].kind };
}

export async function createAction(ds: DataSource, viewer: Viewer, input: CreateActionInput, meta: Meta): Promise<EnforcementAction> {
  const district = await loadDistrict(ds, input.districtId);
  if (!hasRole(viewer, "OPERATOR", district.id)) throw forbidden("Only the District Operator of this district serves notices, orders and fines.");
  const rb = await rulebookOn(ds, district);
  const today = todayIn(district);
  const fields: Record<string, string> = {};
  const kind = input.kind as ActionKind;
  if (!ACTION_KINDS.includes(kind)) fields.kind = "Choose the kind of action.";
  else if (kind === "FINE" && !kindProvided(rb, kind))
    fields.kind = `In ${district.name} a fine is imposed by a court on conviction, not served by the District Operator (${rb.entry("enforcement.finesOnConviction").section}): once the notice's time to correct has passed, refer the violation for prosecution from the notice's page.`;
  else if (!kindProvided(rb, kind))
    fields.kind = `The ${district.lawName} provides no ${KINDS[kind].label.toLowerCase()}: serve a notice of violation (${rb.entry("enforcement.ordersEnabled").section}).`;
  const violation = text(input.violation, "violation", 4000, "Describe the violation found.", fields);
  const requirements = text(input.requirements, "requirements", 4000, null, fields);
  const servedOn = (input.servedOn ?? "").trim() || today;
  if (!isCalendarDate(servedOn)) fields.servedOn = "Enter the date of mailing like 2026-11-30.";
  else if (servedOn > today) fields.servedOn = `The date of mailing cannot be after today (${formatDate(today)}).`;
  const correctBy = (input.correctBy ?? "").trim() || null;
  if (correctBy && !isCalendarDate(correctBy)) fields.correctBy = "Enter a date like 2026-12-31.";
  else if (correctBy && isCalendarDate(servedOn) && correctBy <= servedOn) fields.correctBy = "The date to correct by must be after the date of mailing.";
  if (!correctBy && ["CONSENT_ORDER", "COMPLIANCE_ORDER"].includes(kind))
    fields.correctBy = kind === "COMPLIANCE_ORDER" ? "Give the date by which service is cut unless the violation is corrected (Sewer Use Law 1104)." : "Give the date by which the agreed actions are done (Sewer Use Law 1103).";
  if (!correctBy && kind === "NOTICE_OF_VIOLATION" && typeof rb.entry("enforcement.noticeOfViolationAnswerDays").value !== "number")
    fields.correctBy = `Give a reasonable time to correct the violation (${rb.entry("enforcement.noticeOfViolationAnswerDays").section}).`;
  if (["CONSENT_ORDER", "COMPLIANCE_ORDER", "CEASE_AND_DESIST"].includes(kind) && !requirements) fields.requirements = "Say what the order requires.";
  const subjectType = text(input.subjectType, "subjectType", 60, null, fields);
  const subjectLabel = text(input.subjectLabel, "subjectLabel", 200, null, fields);
  const subjectId = (input.subjectId ?? "").trim() || null;
  if (subjectId && !isUuid(subjectId)) fields.subjectId = "The record behind the action is named by its id.";
  if ((subjectType === null) !== (subjectLabel === null)) fields.subjectLabel = "Name the record behind the action with both its kind and a label (e.g. LateralPermit, LKV-LP-2026-0001).";
  const taxParcel = text(input.taxParcel, "taxParcel", 50, null, fields);
  const propertyAddress = text(input.propertyAddress, "propertyAddress", 200, null, fields);
  let escalates: EnforcementAction | null = null;
  const escalatesId = (input.escalatesId ?? "").trim() || null;
  if (escalatesId) {
    escalates = isUuid(escalatesId) ? await ds.getRepository(EnforcementAction).findOneBy({ id: escalatesId }) : null;
    if (!escalates || escalates.districtId !== district.id) fields.escalatesId = "Choose an earlier action of this district.";
  }
  // A follow-up action is served on the same respondent unless another is named.
  const named = [input.respondentEmail, input.respondentOrganizationName, input.respondentOrganizationId].some((x) => (x ?? "").trim());
  const respondent =
    escalates && !named
      ? { respondentUserId: escalates.respondentUserId, respondentOrganizationId: escalates.respondentOrganizationId, name: escalates.respondentName, orgKind: null }
      : await findRespondent(ds, input, fields);
  if (escalates && respondent && (escalates.respondentUserId !== respondent.respondentUserId || escalates.respondentOrganizationId !== respondent.respondentOrganizationId))
    fields.escalatesId = "The earlier action was served on someone else.";

  // A fine: each day a separate violation, each within the rulebook's range.
  let fineDays: { date: string; amountCents: number }[] = [];
  if (kind === "FINE") {
    const limits = fineLimits(rb);
    const days = input.fineDays ?? [];
    if (!days.length) fields.fineDays = "List each day of violation with its fine.";
    if (days.length > 366) fields.fineDays = "A fine covers at most 366 days; serve another for later days.";
    const seen = new Set<string>();
    for (const d of days) {
      if (!isCalendarDate(d.date)) {
        fields.fineDays = `"${d.date}" is not a date like 2026-11-02.`;
        break;
      }
      if (d.date > servedOn) {
        fields.fineDays = `Each day fined must be a day of violation on or before the date of mailing (${d.date}).`;
        break;
      }
      if (seen.has(d.date)) {
        fields.fineDays = `${d.date} is listed twice; each day is one violation.`;
        break;
      }
      seen.add(d.date);
      if (!Number.isSafeInteger(d.amountCents) || d.amountCents < limits.minCents || d.amountCents > limits.maxCents) {
        const min = rb.entry("enforcement.fineMinPerDay");
        fields.fineDays =
          typeof min.value === "number"
            ? `The fine for each day must be at least ${formatCents(limits.minCents)} and at most ${formatCents(limits.maxCents)} (${limits.section}); ${d.date} is ${Number.isSafeInteger(d.amountCents) ? formatCents(d.amountCents) : "not a whole number of cents"}.`
            : `The fine for each day can be at most ${formatCents(limits.maxCents)} (${limits.section}); ${d.date} is ${Number.isSafeInteger(d.amountCents) ? formatCents(d.amountCents) : "not a whole number of cents"}.`;
        break;
      }
    }
    fineDays = [...days].map((d) => ({ date: d.date, amountCents: d.amountCents })).sort((a, b) => a.date.localeCompare(b.date));
    // Huron V-1, V-2, V-4: only a violation continuing past a written notice's time to correct is fined.
    if (rb.enabled("enforcement.fineRequiresPriorNotice") && !fields.fineDays) {
      const section = rb.entry("enforcement.fineRequiresPriorNotice").section;
      if (!escalates || escalates.kind !== "NOTICE_OF_VIOLATION" || !escalates.correctBy)
        fields.escalatesId = `A fine follows a written notice of the violation with a time to correct it (${section}): serve the fine as a follow-up of that notice, from the notice's page.`;
      else if (fineDays.some((d) => d.date <= escalates!.correctBy!))
        fields.fineDays = `Only days after the time to correct in the notice (${escalates.correctBy}) can be fined (${section}).`;
    }
  } else if (input.fineDays?.length) fields.fineDays = "Only a fine lists days of violation.";
  if (Object.keys(fields).length) throw badInput(fields);

  const deadlines = deadlinesFor(rb, kind, servedOn);
  const fineTotal = fineDays.reduce((s, d) => s + d.amountCents, 0);
  // Kinds with no petition (and every kind where the law has none) are final when served.
  const finalNow = !deadlines.petitionDueOn && kind !== "NOTICE_OF_VIOLATION";

  return ds.transaction(async (tx) => {
    const number = await nextNumber(tx, district, "enforcement_action", "EA", today);
    const a = await tx.save(
      tx.create(EnforcementAction, {
        districtId: district.id,
        number,
        kind,
        status: finalNow ? "FINAL" : "SERVED",
        respondentUserId: respondent!.respondentUserId,
        respondentOrganizationId: respondent!.respondentOrganizationId,
        respondentName: respondent!.name,
        violation: violation!,
        requirements,
        section: sectionFor(rb, kind),
        correctBy,
        servedOn,
        // Only a law that asks for an answer has a date for it (SUL 1102); Huron's notice asks only that the violation cease by its date (V-1).
        answerDueOn: deadlines.answerDueOn,
        petitionDueOn: deadlines.petitionDueOn,
        petitionTo: deadlines.petitionTo,
        hearingDueOn: deadlines.hearingDueOn,
        finalOn: finalNow ? servedOn : null,
        finalReason: finalNow
          ? KINDS[kind].petitionTo
            ? `The ${district.lawName} provides no petition against ${aKind(kind)} (${rb.entry("enforcement.petitionsEnabled").section}): it takes effect when served.`
            : `The law provides no petition against ${aKind(kind)}: it takes effect when served.`
          : null,
        escalatesId: escalates?.id ?? null,
        subjectType,
        subjectId,
        subjectLabel,
        fineDays,
        fineTotalCents: fineTotal,
        originalFineTotalCents: fineTotal,
        rulebookVersionId: rb.version.id,
        createdById: viewer.userId,
      }),
    );
    if (kind === "FINE") {
      const chargeNumber = await nextNumber(tx, district, "charge", "CH", today);
      await tx.save(
        tx.create(Charge, {
          districtId: district.id,
          number: chargeNumber,
          respondentUserId: a.respondentUserId,
          respondentOrganizationId: a.respondentOrganizationId,
          respondentName: a.respondentName,
          label: `Fine ${a.number}, ${fineDays.length} day${fineDays.length === 1 ? "" : "s"} of violation`,
          section: a.section,
          amountCents: fineTotal,
          billedOn: servedOn,
          status: "OPEN",
          actionId: a.id,
          taxParcel,
          propertyAddress,
          rulebookVersionId: rb.version.id,
          createdById: viewer.userId,
        }),
      );
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "enforcement.served",
      entityType: "EnforcementAction",
      entityId: a.id,
      districtId: district.id,
      details: { number, kind, respondent: a.respondentName, servedOn, fineTotalCents: fineTotal, escalatesId: a.escalatesId, subject: subjectType ? { subjectType, subjectId, subjectLabel } : null },
    });
    const lines = [`${KINDS[kind].label} ${number} (${a.section}), mailed ${formatDate(servedOn)}.`, "", `Violation: ${a.violation}`];
    if (requirements) lines.push(`Required: ${requirements}`);
    if (correctBy) lines.push(`${kind === "COMPLIANCE_ORDER" ? "Service is cut unless corrected by" : "Correct by"}: ${formatDate(correctBy)}`);
    if (a.answerDueOn) lines.push(`Send the District Operator an explanation and a correction plan by ${formatDate(a.answerDueOn)}.`);
    if (kind === "FINE") lines.push(`Fine: ${countOf(fineDays.length, "day")}, total ${formatCents(fineTotal)}.`);
    if (a.petitionDueOn) lines.push(`You may petition ${PETITION_TO_LABELS[a.petitionTo!]} to modify or suspend it until ${formatDate(a.petitionDueOn)}. Without a petition by then, it becomes final and the right to contest it is waived (${rb.entry("enforcement.petitionDays").section}, Sewer Use Law 1110).`);
    await tell(tx, a, district, "enforcement.served", `${KINDS[kind].label} ${number}`, lines.join("\n"), `${meta.publicUrl}/enforcement/${a.id}`);
    return a;
  });
}

// ---------------------------------------------------------------------------------------------
// The respondent answers a notice of violation (SUL 1102)

export async function respondToNotice(ds: DataSource, viewer: Viewer, input: { actionId: string; explanation: string; correctionPlan: string }, meta: Meta) {
  const fields: Record<string, string> = {};
  const explanation = text(input.explanation, "explanation", 8000, "Explain the violation.", fields);
  const plan = text(input.correctionPlan, "correctionPlan", 8000, "Describe how you will correct it and prevent it from happening again.", fields);
  return ds.transaction(async (tx) => {
    const a = await getAction(tx, viewer, input.actionId, true);
    if (!(await isRespondent(tx, viewer, a))) throw forbidden("Only the person or organization served can answer the notice.");
    if (a.kind !== "NOTICE_OF_VIOLATION") throw conflict("Only a notice of violation is answered this way.");
    if (a.respondedAt) throw conflict("The notice was already answered.");
    if (Object.keys(fields).length) throw badInput(fields);
    await tx.update(EnforcementAction, { id: a.id }, { response: explanation, responsePlan: plan, respondedAt: clock.now(), respondedById: viewer.userId, updatedAt: clock.now() });
    const district = await loadDistrict(tx, a.districtId);
    const late = a.answerDueOn && todayIn(district) > a.answerDueOn;
    await audit(tx, actorOf(viewer, meta.requestId), { action: "enforcement.notice_answered", entityType: "EnforcementAction", entityId: a.id, districtId: a.districtId, details: { late: !!late } });
    await tell(tx, a, district, "enforcement.notice_answered", `Answer received: ${a.number}`, `Your answer to notice ${a.number} was received${late ? ` after the date it was due (${formatDate(a.answerDueOn!)})` : ""}.`, `${meta.publicUrl}/enforcement/${a.id}`);
    return tx.findOneByOrFail(EnforcementAction, { id: a.id });
  });
}

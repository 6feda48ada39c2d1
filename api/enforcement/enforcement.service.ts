import { In, type DataSource, type EntityManager } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, dateIn, daysBetween, daysLeft, isCalendarDate, zonedWallTime, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound, AppError } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { formatCents } from "../common/money.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { District } from "../districts/district.entity.js";
import { districtCode } from "../districts/district-code.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { Payment, cancelPendingPayments, createPayment, registerPayable } from "../payments/payments.service.js";
import {
  ACTION_KINDS,
  Charge,
  EnforcementAction,
  HEARING_OUTCOMES,
  OPEN_PETITION,
  Petition,
  PetitionDocument,
  RELIEFS,
  ShowCauseHearing,
  type ActionKind,
  type HearingOutcome,
  type Relief,
} from "./enforcement.entity.js";
import {
  ACTION_STATUS_LABELS,
  KINDS,
  PETITION_TO_LABELS,
  RELIEF_LABELS,
  csvCell,
  dateInYear,
  deadlinesFor,
  fineLimits,
  finality,
  onTaxLevy,
  petitionable,
  sectionFor,
  spreadOverDays,
  statementFor,
  type Statement,
} from "./rules.js";

/**
 * Enforcement (SUL Article 11; Huron Article V) and delinquent charges (SUL 1118; Huron VI-3, VI-4).
 * The District Operator serves notices, orders and fines; the respondent (a person, or an
 * organization whose members see it) answers, pays or petitions; the Town Board decides petitions
 * and holds show-cause hearings. Every change is one transaction with an audit entry, and the
 * people concerned hear of it through the outbox. Figures come from the rulebook version stored on
 * the action or charge; dates are calendar dates in the district's zone, from the rules' clock.
 */

export const CHARGE_PAYABLE = "Charge";
type Meta = { requestId?: string; publicUrl: string };
const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
type Db = DataSource | EntityManager;

function text(v: string | null | undefined, field: string, max: number, required: string | null, fields: Record<string, string>): string | null {
  const t = (v ?? "").replace(/\r\n/g, "\n").trim();
  if (!t) {
    if (required) fields[field] = required;
    return null;
  }
  if (t.length > max) fields[field] = `Use at most ${max.toLocaleString("en-US")} characters.`;
  return t;
}

async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = isUuid(id) ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw notFound("That district");
  return d;
}

const todayIn = (d: District) => dateIn(d.timeZone);

async function memberOrgIds(db: Db, userId: string): Promise<string[]> {
  const rows: { organization_id: string }[] = await db.query(`SELECT organization_id FROM membership WHERE user_id = $1`, [userId]);
  return rows.map((r) => r.organization_id);
}

type Respondent = { respondentUserId: string | null; respondentOrganizationId: string | null };
async function isRespondent(db: Db, viewer: Viewer, r: Respondent): Promise<boolean> {
  if (r.respondentUserId) return r.respondentUserId === viewer.userId;
  return (await memberOrgIds(db, viewer.userId)).includes(r.respondentOrganizationId!);
}

/** People to tell: the respondent, or every member of the respondent organization. */
async function recipientsOf(tx: EntityManager, r: Respondent): Promise<{ id: string; email: string; display_name: string }[]> {
  if (r.respondentUserId) return tx.query(`SELECT id, email, display_name FROM app_user WHERE id = $1`, [r.respondentUserId]);
  return tx.query(`SELECT u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY u.email`, [r.respondentOrganizationId]);
}

async function tell(tx: EntityManager, r: Respondent, district: District, kind: string, subject: string, body: string, link: string) {
  for (const u of await recipientsOf(tx, r))
    await enqueueEmail(tx, {
      to: u.email,
      recipientId: u.id,
      districtId: district.id,
      kind,
      subject,
      body: `Hello ${u.display_name},\n\n${body}\n\nSee it in the portal: ${link}\n\n${district.name}\n`,
    });
}

async function nextNumber(tx: EntityManager, district: District, table: "enforcement_action" | "charge", infix: string, today: CalendarDate): Promise<string> {
  // One number at a time per district: lock the district row for the rest of the transaction.
  await tx.query(`SELECT id FROM district WHERE id = $1 FOR UPDATE`, [district.id]);
  const prefix = `${districtCode(district.slug)}-${infix}-${today.slice(0, 4)}-`;
  const [row] = await tx.query(`SELECT count(*)::int AS n FROM ${table} WHERE district_id = $1 AND number LIKE $2`, [district.id, `${prefix}%`]);
  return `${prefix}${String(row.n + 1).padStart(4, "0")}`;
}

// ---------------------------------------------------------------------------------------------
// Reading one action, one petition, one charge

/** An action the viewer may see (its respondent, or staff of its district); NOT_FOUND otherwise. */
export async function getAction(db: Db, viewer: Viewer, id: string, lock = false): Promise<EnforcementAction> {
  if (!isUuid(id)) throw notFound("That enforcement action");
  const q = db.getRepository(EnforcementAction).createQueryBuilder("a").where("a.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const a = await q.getOne();
  if (!a || !(isStaff(viewer, a.districtId) || (await isRespondent(db, viewer, a)))) throw notFound("That enforcement action");
  return a;
}

export async function getPetition(db: Db, viewer: Viewer, id: string, lock = false): Promise<{ petition: Petition; action: EnforcementAction }> {
  if (!isUuid(id)) throw notFound("That petition");
  const q = db.getRepository(Petition).createQueryBuilder("p").where("p.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const petition = await q.getOne();
  if (!petition) throw notFound("That petition");
  try {
    return { petition, action: await getAction(db, viewer, petition.actionId, lock) };
  } catch (e) {
    if (e instanceof AppError && e.code === "NOT_FOUND") throw notFound("That petition");
    throw e;
  }
}

export async function getCharge(db: Db, viewer: Viewer, id: string, lock = false): Promise<Charge> {
  if (!isUuid(id)) throw notFound("That charge");
  const q = db.getRepository(Charge).createQueryBuilder("c").where("c.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const c = await q.getOne();
  if (!c || !(isStaff(viewer, c.districtId) || (await isRespondent(db, viewer, c)))) throw notFound("That charge");
  return c;
}

export async function petitionsOf(db: Db, actionIds: readonly string[]): Promise<Petition[]> {
  if (!actionIds.length) return [];
  return db.getRepository(Petition).find({ where: { actionId: In([...actionIds]) }, order: { filedAt: "ASC" } });
}
export async function hearingsOfPetitions(db: Db, petitionIds: readonly string[]): Promise<ShowCauseHearing[]> {
  if (!petitionIds.length) return [];
  return db.getRepository(ShowCauseHearing).findBy({ petitionId: In([...petitionIds]) });
}
export async function chargesOfActions(db: Db, actionIds: readonly string[]): Promise<Charge[]> {
  if (!actionIds.length) return [];
  return db.getRepository(Charge).findBy({ actionId: In([...actionIds]) });
}
export async function documentsOfPetitions(db: Db, petitionIds: readonly string[]): Promise<{ petitionId: string; documentId: string; filename: string }[]> {
  if (!petitionIds.length) return [];
  const rows = await db.query(
    `SELECT pd.petition_id, d.id, d.filename FROM petition_document pd JOIN document d ON d.id = pd.document_id WHERE pd.petition_id = ANY($1::uuid[]) ORDER BY pd.position`,
    [[...petitionIds]],
  );
  return rows.map((r: any) => ({ petitionId: r.petition_id, documentId: r.id, filename: r.filename }));
}

/** A charge's statement today (in its district's zone), by the rulebook version it was billed under. */
export async function statementOf(db: Db, c: Charge, district: District, asOf?: CalendarDate): Promise<Statement> {
  return statementFor(await rulebookById(db, c.rulebookVersionId), c, asOf ?? todayIn(district));
}

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

async function findRespondent(
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
  const violation = text(input.violation, "violation", 4000, "Describe the violation found.", fields);
  const requirements = text(input.requirements, "requirements", 4000, null, fields);
  const servedOn = (input.servedOn ?? "").trim() || today;
  if (!isCalendarDate(servedOn)) fields.servedOn = "Enter the date of mailing like 2026-11-30.";
  else if (servedOn > today) fields.servedOn = `The date of mailing cannot be after today (${today}).`;
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
        fields.escalatesId = `A fine follows a written notice of the violation with a time to correct it (${section}): choose that notice.`;
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
        answerDueOn: deadlines.answerDueOn ?? (kind === "NOTICE_OF_VIOLATION" ? correctBy : null),
        petitionDueOn: deadlines.petitionDueOn,
        petitionTo: deadlines.petitionTo,
        hearingDueOn: deadlines.hearingDueOn,
        finalOn: finalNow ? servedOn : null,
        finalReason: finalNow ? "The law provides no petition against this action: it takes effect when served." : null,
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
    const lines = [`${KINDS[kind].label} ${number} (${a.section}), mailed ${servedOn}.`, "", `Violation: ${a.violation}`];
    if (requirements) lines.push(`Required: ${requirements}`);
    if (correctBy) lines.push(`${kind === "COMPLIANCE_ORDER" ? "Service is cut unless corrected by" : "Correct by"}: ${correctBy}`);
    if (a.answerDueOn) lines.push(`Send the District Operator an explanation and a correction plan by ${a.answerDueOn}.`);
    if (kind === "FINE") lines.push(`Fine: ${fineDays.length} day(s), total ${formatCents(fineTotal)}.`);
    if (a.petitionDueOn) lines.push(`You may petition ${PETITION_TO_LABELS[a.petitionTo!]} to modify or suspend it until ${a.petitionDueOn}. Without a petition by then, it becomes final and the right to contest it is waived (${rb.entry("enforcement.petitionDays").section}, Sewer Use Law 1110).`);
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
    await tell(tx, a, district, "enforcement.notice_answered", `Answer received: ${a.number}`, `Your answer to notice ${a.number} was received${late ? ` after the date it was due (${a.answerDueOn})` : ""}.`, `${meta.publicUrl}/enforcement/${a.id}`);
    return tx.findOneByOrFail(EnforcementAction, { id: a.id });
  });
}

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
          : `The law provides no petition against a ${KINDS[a.kind].label.toLowerCase()}.`,
      );
    const today = todayIn(district);
    if (today > a.petitionDueOn)
      throw new AppError(
        "DEADLINE_PASSED",
        `The time to petition closed on ${a.petitionDueOn} (${rb.entry("enforcement.petitionDays").value} calendar days from the mailing on ${a.servedOn}, ${rb.entry("enforcement.petitionDays").section}). The action is final and the right to contest it is waived (Sewer Use Law 1110).`,
        { grounds: `The time to petition closed on ${a.petitionDueOn}.` },
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
      `Your petition to ${PETITION_TO_LABELS[a.petitionTo]} against ${KINDS[a.kind].label.toLowerCase()} ${a.number} was filed on ${today}, within the time allowed (until ${a.petitionDueOn}). You will be told of every step.`,
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
function requireDecider(viewer: Viewer, p: Petition) {
  if (p.addressedTo === "TOWN_BOARD" && !hasRole(viewer, "BOARD", p.districtId)) throw forbidden("Only a member of the Town Board (BOARD role in this district) decides this petition.");
  if (p.addressedTo === "DISTRICT_OPERATOR" && !hasRole(viewer, "OPERATOR", p.districtId)) throw forbidden("Only the District Operator decides a petition about a water severance (Sewer Use Law 1108).");
}

/** Cancels the charge's payment not yet paid (payments closes its card checkout and audits it). */
async function cancelPendingPayment(tx: EntityManager, viewer: Viewer | null, charge: Charge, reason: string, requestId?: string) {
  await cancelPendingPayments(tx, { userId: viewer?.userId ?? null, requestId }, { payableType: CHARGE_PAYABLE, payableId: charge.id, reason });
}

/**
 * Applies a modification, suspension or vacation to the action and its fine. A modified fine is
 * billed anew on the decision date at the new amount; a suspended or vacated one is cancelled.
 */
async function applyOutcome(
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

function validateModification(a: EnforcementAction, rb: Rulebook, input: { newAmountCents?: number | null; newTerms?: string | null }, fields: Record<string, string>) {
  const terms = text(input.newTerms, "newTerms", 4000, null, fields);
  if (a.kind === "FINE") {
    const amount = input.newAmountCents;
    const limits = fineLimits(rb);
    const days = a.fineDays.length;
    if (amount === null || amount === undefined || !Number.isSafeInteger(amount)) fields.newAmountCents = "Enter the modified fine in dollars and cents.";
    else if (amount < limits.minCents * days || amount > limits.maxCents * days)
      fields.newAmountCents = `For ${days} day(s) of violation the fine must be between ${formatCents(limits.minCents * days)} and ${formatCents(limits.maxCents * days)} (${formatCents(limits.minCents)} to ${formatCents(limits.maxCents)} a day, ${limits.section}).`;
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
    if (!(KINDS[a.kind].decisions as string[]).includes(decision)) fields.decision = `Choose one of: ${KINDS[a.kind].decisions.join(", ")}, or order a show-cause hearing.`;
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

// ---------------------------------------------------------------------------------------------
// Show-cause hearings (SUL 1109)

export type OrderHearingInput = { petitionId: string; scheduledFor: string; place: string; reasons: string; proposedAction: string; informationRequested?: string | null };

export async function orderHearing(ds: DataSource, viewer: Viewer, input: OrderHearingInput, meta: Meta): Promise<ShowCauseHearing> {
  return ds.transaction(async (tx) => {
    const { petition: p, action: a } = await getPetition(tx, viewer, input.petitionId, true);
    requireDecider(viewer, p);
    if (p.status !== "FILED") throw conflict(p.status === "HEARING_ORDERED" ? "A show-cause hearing is already ordered." : "The petition is already decided or withdrawn.");
    const district = await loadDistrict(tx, a.districtId);
    const rb = await rulebookById(tx, a.rulebookVersionId);
    const fields: Record<string, string> = {};
    const place = text(input.place, "place", 300, "Say where the hearing is held.", fields);
    const reasons = text(input.reasons, "reasons", 8000, "Give the reasons why the action is to be taken.", fields);
    const proposed = text(input.proposedAction, "proposedAction", 4000, "State the proposed enforcement action.", fields);
    const info = text(input.informationRequested, "informationRequested", 4000, null, fields);
    const today = todayIn(district);
    const minDays = rb.require("enforcement.showCauseNoticeMinDays");
    const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})$/.exec((input.scheduledFor ?? "").trim());
    let at: Date | null = null;
    if (!m || !isCalendarDate(m[1]) || +m[2] > 23 || +m[3] > 59) fields.scheduledFor = "Enter the date and time of the hearing, like 2026-12-14T19:00.";
    else if (daysBetween(today, m[1]) < minDays.value)
      fields.scheduledFor = `The hearing notice must be served at least ${minDays.value} calendar days before the hearing (${minDays.section}): with notice served today (${today}), the earliest hearing date is ${addCalendarDays(today, minDays.value)}.`;
    else at = zonedWallTime(Date.UTC(+m[1].slice(0, 4), +m[1].slice(5, 7) - 1, +m[1].slice(8, 10), +m[2], +m[3]), district.timeZone);
    if (Object.keys(fields).length) throw badInput(fields);
    const h = await tx.save(
      tx.create(ShowCauseHearing, {
        petitionId: p.id,
        actionId: a.id,
        districtId: a.districtId,
        scheduledFor: at!,
        hearingDate: m![1],
        place: place!,
        reasons: reasons!,
        proposedAction: proposed!,
        informationRequested: info,
        noticeServedOn: today,
        orderedById: viewer.userId,
      }),
    );
    await tx.update(Petition, { id: p.id }, { status: "HEARING_ORDERED" });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "enforcement.hearing_ordered",
      entityType: "ShowCauseHearing",
      entityId: h.id,
      districtId: a.districtId,
      details: { petitionId: p.id, actionId: a.id, scheduledFor: at!.toISOString(), noticeServedOn: today },
    });
    const when = at!.toLocaleString("en-US", { timeZone: district.timeZone, dateStyle: "full", timeStyle: "short" });
    await tell(
      tx,
      a,
      district,
      "enforcement.hearing_ordered",
      `Notice of show-cause hearing: ${a.number}`,
      [
        `The Town Board orders you to show cause why the proposed enforcement action should not be taken (${minDays.section}).`,
        "",
        `Time: ${when}`,
        `Place: ${place}`,
        `Violation: ${a.violation}`,
        `Reasons: ${reasons}`,
        `Proposed action: ${proposed}`,
        ...(info ? [`Please bring or send: ${info}`] : []),
        "",
        `This notice is served on ${today}, at least ${minDays.value} calendar days before the hearing.`,
      ].join("\n"),
      `${meta.publicUrl}/enforcement/${a.id}`,
    );
    return h;
  });
}

export type DecideHearingInput = { hearingId: string; outcome: string; reasons: string; newAmountCents?: number | null; newTerms?: string | null };

/** After the hearing the Board upholds, modifies or vacates the order or fine, with written reasons (SUL 1109). */
export async function decideHearing(ds: DataSource, viewer: Viewer, input: DecideHearingInput, meta: Meta): Promise<ShowCauseHearing> {
  if (!isUuid(input.hearingId)) throw notFound("That hearing");
  return ds.transaction(async (tx) => {
    const h = await tx.createQueryBuilder(ShowCauseHearing, "h").setLock("pessimistic_write").where("h.id = :id", { id: input.hearingId }).getOne();
    if (!h || !isStaff(viewer, h.districtId)) throw notFound("That hearing");
    if (!hasRole(viewer, "BOARD", h.districtId)) throw forbidden("Only a member of the Town Board (BOARD role in this district) decides after a show-cause hearing.");
    if (h.outcome) throw conflict("The Board has already decided after this hearing.");
    const a = (await tx.createQueryBuilder(EnforcementAction, "a").setLock("pessimistic_write").where("a.id = :id", { id: h.actionId }).getOne())!;
    const district = await loadDistrict(tx, a.districtId);
    const rb = await rulebookById(tx, a.rulebookVersionId);
    if (clock.now() < h.scheduledFor) throw conflict(`The hearing is set for ${h.scheduledFor.toLocaleString("en-US", { timeZone: district.timeZone, dateStyle: "long", timeStyle: "short" })}; decide after it is held.`);
    const fields: Record<string, string> = {};
    const outcome = input.outcome as HearingOutcome;
    if (!HEARING_OUTCOMES.includes(outcome)) fields.outcome = "Choose uphold, modify or vacate.";
    const reasons = text(input.reasons, "reasons", 8000, "Give the written reasons for the decision.", fields);
    let terms: string | null = null;
    if (outcome === "MODIFIED") terms = validateModification(a, rb, input, fields);
    if (Object.keys(fields).length) throw badInput(fields);
    const newAmount = outcome === "MODIFIED" && a.kind === "FINE" ? input.newAmountCents! : null;
    await tx.update(ShowCauseHearing, { id: h.id }, { outcome, outcomeReasons: reasons, newAmountCents: newAmount, newTerms: terms, decidedById: viewer.userId, decidedAt: clock.now() });
    await tx.update(Petition, { id: h.petitionId }, { status: outcome, decidedById: viewer.userId, decidedAt: clock.now(), decisionReasons: reasons, newAmountCents: newAmount, newTerms: terms });
    await applyOutcome(tx, viewer, a, district, outcome === "UPHELD" ? "FINAL" : outcome, { newAmountCents: newAmount, newTerms: terms }, reasons!, meta.requestId);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "enforcement.hearing_decided",
      entityType: "ShowCauseHearing",
      entityId: h.id,
      districtId: a.districtId,
      reason: reasons,
      details: { outcome, actionId: a.id, newAmountCents: newAmount },
    });
    const what =
      outcome === "UPHELD"
        ? `upholds the ${KINDS[a.kind].label.toLowerCase()}; it is final.`
        : outcome === "VACATED"
          ? `vacates the ${KINDS[a.kind].label.toLowerCase()}; nothing is owed under it.`
          : newAmount
            ? `modifies the fine to ${formatCents(newAmount)}, due from today. Pay it online from the portal.`
            : `modifies the order. New terms: ${terms}`;
    await tell(tx, a, district, "enforcement.hearing_decided", `Decision after the hearing: ${a.number}`, `After the show-cause hearing the Town Board ${what}\n\nReasons: ${reasons}`, `${meta.publicUrl}/enforcement/${a.id}`);
    return tx.findOneByOrFail(ShowCauseHearing, { id: h.id });
  });
}

// ---------------------------------------------------------------------------------------------
// Charges: billing by hand, paying, statements, the tax levy (SUL 1118; Huron VI-3, VI-4)

export type BillChargeInput = {
  districtId: string;
  respondentEmail?: string | null;
  respondentOrganizationName?: string | null;
  label: string;
  amountCents: number;
  billedOn?: string | null;
  taxParcel?: string | null;
  propertyAddress?: string | null;
};

export async function billCharge(ds: DataSource, viewer: Viewer, input: BillChargeInput, meta: Meta): Promise<Charge> {
  const district = await loadDistrict(ds, input.districtId);
  if (!hasRole(viewer, "CLERK", district.id) && !hasRole(viewer, "ADMIN", district.id)) throw forbidden("Only the Town Clerk or an ADMIN of this district bills charges.");
  const rb = await rulebookOn(ds, district);
  const today = todayIn(district);
  const fields: Record<string, string> = {};
  const label = text(input.label, "label", 200, "Say what the charge is for (e.g. Sewer rent, third quarter 2026).", fields);
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0 || input.amountCents > 99_999_999) fields.amountCents = "Enter an amount between $0.01 and $999,999.99.";
  const billedOn = (input.billedOn ?? "").trim() || today;
  if (!isCalendarDate(billedOn)) fields.billedOn = "Enter the billing (mailing) date like 2026-11-30.";
  else if (billedOn > today) fields.billedOn = `The billing date cannot be after today (${today}).`;
  const taxParcel = text(input.taxParcel, "taxParcel", 50, null, fields);
  const propertyAddress = text(input.propertyAddress, "propertyAddress", 200, null, fields);
  const respondent = await findRespondent(ds, input, fields);
  if (Object.keys(fields).length) throw badInput(fields);
  const section = rb.entry("billing.lateAfterDays").section;
  return ds.transaction(async (tx) => {
    const number = await nextNumber(tx, district, "charge", "CH", today);
    const c = await tx.save(
      tx.create(Charge, {
        districtId: district.id,
        number,
        respondentUserId: respondent!.respondentUserId,
        respondentOrganizationId: respondent!.respondentOrganizationId,
        respondentName: respondent!.name,
        label: label!,
        section,
        amountCents: input.amountCents,
        billedOn,
        status: "OPEN",
        taxParcel,
        propertyAddress,
        rulebookVersionId: rb.version.id,
        createdById: viewer.userId,
      }),
    );
    await audit(tx, actorOf(viewer, meta.requestId), { action: "charge.billed", entityType: "Charge", entityId: c.id, districtId: district.id, details: { number, amountCents: c.amountCents, billedOn } });
    const s = statementFor(rb, c, today);
    await tell(tx, c, district, "charge.billed", `Bill ${number}: ${formatCents(c.amountCents)}`, `${label}: ${formatCents(c.amountCents)}, billed ${billedOn}.\n${s.explanation}`, `${meta.publicUrl}/enforcement/charges/${c.id}`);
    return c;
  });
}

/**
 * Makes (or reuses) the payment for what a charge costs today: the bill, and any penalty and
 * interest on today's statement. The payer is the viewer when served (or a member of the
 * organization served); the Clerk may prepare it for payment at the counter.
 */
export async function payCharge(ds: DataSource, viewer: Viewer, chargeId: string, meta: Meta): Promise<Payment> {
  return ds.transaction(async (tx) => {
    const c = await getCharge(tx, viewer, chargeId, true);
    const respondent = await isRespondent(tx, viewer, c);
    const clerk = hasRole(viewer, "CLERK", c.districtId);
    if (!respondent && !clerk) throw forbidden("Only the person or organization billed, or the Town Clerk, can pay a charge.");
    if (c.status === "PAID") throw conflict("This charge is already paid.");
    if (c.status === "CANCELLED") throw conflict("This charge was cancelled; nothing is due.");
    if (c.status === "HELD") throw conflict("A petition against this fine is before the Board; nothing is due until it is decided.");
    const district = await loadDistrict(tx, c.districtId);
    const s = await statementOf(tx, c, district);
    let payerId = viewer.userId;
    if (!respondent) {
      if (c.respondentUserId) payerId = c.respondentUserId;
      else [{ created_by_id: payerId }] = await tx.query(`SELECT created_by_id FROM organization WHERE id = $1`, [c.respondentOrganizationId]);
    }
    if (c.paymentId) {
      const existing = await tx.findOneBy(Payment, { id: c.paymentId });
      if (existing?.status === "PENDING" && existing.amountCents === s.totalCents && existing.payerId === payerId) return existing;
      const why = existing && existing.amountCents !== s.totalCents ? "The amount due changed (penalty and interest to date)" : "The charge is to be paid by another person";
      await cancelPendingPayment(tx, viewer, c, `${why}; a new payment replaces this one.`, meta.requestId);
    }
    const payment = await createPayment(tx, actorOf(viewer, meta.requestId), {
      districtId: c.districtId,
      payerId,
      payableType: CHARGE_PAYABLE,
      payableId: c.id,
      lines: s.lines.map((l) => ({ code: l.code, label: l.label.slice(0, 200), section: l.section, amountCents: l.amountCents, refundable: false })),
      rulebookVersionId: c.rulebookVersionId,
    });
    await tx.update(Charge, { id: c.id }, { paymentId: payment.id, updatedAt: clock.now() });
    return payment;
  });
}

export type ChargeRow = { charge: Charge; statement: Statement };

async function withStatements(db: Db, rows: Charge[], asOf?: CalendarDate): Promise<ChargeRow[]> {
  const zones = new Map<string, string>();
  const districtIds = [...new Set(rows.map((r) => r.districtId))];
  if (districtIds.length) for (const d of await db.getRepository(District).findBy({ id: In(districtIds) })) zones.set(d.id, d.timeZone);
  const out: ChargeRow[] = [];
  for (const c of rows) out.push({ charge: c, statement: statementFor(await rulebookById(db, c.rulebookVersionId), c, asOf ?? dateIn(zones.get(c.districtId)!)) });
  return out;
}

export async function myCharges(ds: DataSource, viewer: Viewer): Promise<ChargeRow[]> {
  const rows = await ds
    .getRepository(Charge)
    .createQueryBuilder("c")
    .where("c.respondent_user_id = :u OR c.respondent_organization_id IN (SELECT organization_id FROM membership WHERE user_id = :u)", { u: viewer.userId })
    .orderBy("c.billed_on", "DESC")
    .addOrderBy("c.id", "DESC")
    .limit(200)
    .getMany();
  return withStatements(ds, rows);
}

export async function districtCharges(ds: DataSource, viewer: Viewer, f: { districtId: string; status?: string | null; first?: number | null; after?: string | null }) {
  const district = await loadDistrict(ds, f.districtId);
  if (!isStaff(viewer, district.id)) throw forbidden("You are not staff of that district.");
  const first = pageSize(f.first);
  const q = ds.getRepository(Charge).createQueryBuilder("c").where("c.district_id = :d", { d: district.id }).orderBy("c.billed_on", "ASC").addOrderBy("c.id", "ASC").limit(first + 1);
  if (f.status) {
    if (!["OPEN", "HELD", "PAID", "CANCELLED"].includes(f.status)) throw badInput({ status: "Use OPEN, HELD, PAID or CANCELLED." });
    q.andWhere("c.status = :s", { s: f.status });
  }
  if (f.after) {
    const { key: on, id } = decodeCursor(f.after, isCalendarDate)!;
    q.andWhere("(c.billed_on, c.id) > (CAST(:on AS date), CAST(:id AS uuid))", { on, id });
  }
  const rows = await q.getMany();
  const page = rows.slice(0, first);
  const last = page[page.length - 1];
  return { items: await withStatements(ds, page), nextCursor: rows.length > first && last ? encodeCursor(last.billedOn, last.id) : null };
}

/**
 * The tax-levy report (SUL 1118: charges delinquent at least 60 days as of October 1, reported by
 * November 1; Huron VI-4: unpaid rents and penalties may go on the levy). As of the most recent
 * rulebook date on or before today, or a date the Clerk chooses.
 */
export async function taxLevyReport(ds: DataSource, viewer: Viewer, input: { districtId: string; asOf?: string | null }) {
  const district = await loadDistrict(ds, input.districtId);
  if (!hasRole(viewer, "CLERK", district.id) && !hasRole(viewer, "ADMIN", district.id)) throw forbidden("Only the Town Clerk or an ADMIN of this district reads the tax-levy report.");
  const rb = await rulebookOn(ds, district);
  const today = todayIn(district);
  let asOf = (input.asOf ?? "").trim();
  if (asOf && !isCalendarDate(asOf)) throw badInput({ asOf: "Enter a date like 2026-10-01." });
  if (!asOf) {
    const y = +today.slice(0, 4);
    const thisYear = dateInYear(rb.entry("billing.taxLevyAsOfDate").value, y);
    asOf = thisYear ? (thisYear <= today ? thisYear : dateInYear(rb.entry("billing.taxLevyAsOfDate").value, y - 1)!) : today;
  }
  const rows = await ds.getRepository(Charge).createQueryBuilder("c").where("c.district_id = :d AND c.status = 'OPEN' AND c.billed_on <= :asOf", { d: district.id, asOf }).orderBy("c.respondent_name").addOrderBy("c.billed_on").getMany();
  const items = (await withStatements(ds, rows, asOf)).filter((r) => onTaxLevy(rb, r.statement));
  const header = ["Charge", "Billed on", "Owner or user", "Tax parcel", "Property", "Description", "Original bill", "Penalty", "Interest", "Total", "Days delinquent", "Section"];
  const money = (n: number) => (n / 100).toFixed(2);
  const part = (s: Statement, code: string) => s.lines.find((l) => l.code === code)?.amountCents ?? 0;
  const csv = [
    header.map(csvCell).join(","),
    ...items.map(({ charge: c, statement: s }) =>
      [c.number, c.billedOn, c.respondentName, c.taxParcel, c.propertyAddress, c.label, money(c.amountCents), money(part(s, "penalty")), money(part(s, "interest")), money(s.totalCents), s.daysDelinquent, rb.entry("billing.taxLevyEnabled").section]
        .map(csvCell)
        .join(","),
    ),
  ].join("\r\n");
  const due = rb.entry("billing.taxLevyReportDue").value;
  return {
    asOf,
    enabled: rb.enabled("billing.taxLevyEnabled"),
    minDaysDelinquent: rb.entry("billing.taxLevyDelinquentDays").value as number | null,
    reportDue: typeof due === "string" ? dateInYear(due, +asOf.slice(0, 4)) : null,
    section: rb.entry("billing.taxLevyEnabled").section,
    items,
    csv: `${csv}\r\n`,
  };
}

// ---------------------------------------------------------------------------------------------
// Lists

export async function myActions(ds: DataSource, viewer: Viewer): Promise<EnforcementAction[]> {
  return ds
    .getRepository(EnforcementAction)
    .createQueryBuilder("a")
    .where("a.respondent_user_id = :u OR a.respondent_organization_id IN (SELECT organization_id FROM membership WHERE user_id = :u)", { u: viewer.userId })
    .orderBy("a.served_on", "DESC")
    .addOrderBy("a.id", "DESC")
    .limit(200)
    .getMany();
}

/** The district's actions for its staff, newest first; optionally one respondent's history. */
export async function districtActions(
  ds: DataSource,
  viewer: Viewer,
  f: { districtId: string; respondentUserId?: string | null; respondentOrganizationId?: string | null; first?: number | null; after?: string | null },
) {
  const district = await loadDistrict(ds, f.districtId);
  if (!isStaff(viewer, district.id)) throw forbidden("You are not staff of that district.");
  const first = pageSize(f.first);
  const q = ds.getRepository(EnforcementAction).createQueryBuilder("a").where("a.district_id = :d", { d: district.id }).orderBy("a.served_on", "DESC").addOrderBy("a.id", "DESC").limit(first + 1);
  if (f.respondentUserId) {
    if (!isUuid(f.respondentUserId)) throw badInput({ respondentUserId: "Not a valid id." });
    q.andWhere("a.respondent_user_id = :ru", { ru: f.respondentUserId });
  }
  if (f.respondentOrganizationId) {
    if (!isUuid(f.respondentOrganizationId)) throw badInput({ respondentOrganizationId: "Not a valid id." });
    q.andWhere("a.respondent_organization_id = :ro", { ro: f.respondentOrganizationId });
  }
  if (f.after) {
    const { key: on, id } = decodeCursor(f.after, isCalendarDate)!;
    q.andWhere("(a.served_on, a.id) < (CAST(:on AS date), CAST(:id AS uuid))", { on, id });
  }
  const rows = await q.getMany();
  const items = rows.slice(0, first);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > first && last ? encodeCursor(last.servedOn, last.id) : null };
}

export type DocketItem = {
  petitionId: string;
  status: string;
  relief: string;
  grounds: string;
  filedOn: string;
  filedAt: Date;
  filedByName: string;
  addressedTo: string;
  actionId: string;
  actionNumber: string;
  actionKind: ActionKind;
  respondentName: string;
  servedOn: string;
  petitionDueOn: string | null;
  fineTotalCents: number;
  hearingId: string | null;
  hearingAt: Date | null;
  hearingPlace: string | null;
  documentCount: number;
};

/**
 * The docket: open petitions of the district, oldest first, in one statement (petition, action,
 * petitioner, hearing, document count). The Board sees petitions to the Town Board; the District
 * Operator those about a water severance.
 */
export async function docket(ds: DataSource, viewer: Viewer, f: { districtId: string; first?: number | null; after?: string | null }): Promise<{ items: DocketItem[]; nextCursor: string | null }> {
  if (!isUuid(f.districtId)) throw notFound("That district");
  const to: string[] = [];
  if (hasRole(viewer, "BOARD", f.districtId)) to.push("TOWN_BOARD");
  if (hasRole(viewer, "OPERATOR", f.districtId)) to.push("DISTRICT_OPERATOR");
  if (!to.length) throw forbidden("The docket is for the Town Board (and the District Operator for water severances) of this district.");
  const first = pageSize(f.first);
  const params: unknown[] = [f.districtId, to, first + 1];
  let after = "";
  if (f.after) {
    const { key: at, id } = decodeCursor(f.after, isInstant)!;
    params.push(at, id);
    after = `AND (p.filed_at, p.id) > ($4::timestamptz, $5::uuid)`;
  }
  const rows: any[] = await ds.query(
    `SELECT p.id, p.status, p.relief, p.grounds, p.filed_on::text AS filed_on, p.filed_at, p.addressed_to,
            to_char(p.filed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at,
            u.display_name AS filed_by_name, a.id AS action_id, a.number, a.kind, a.respondent_name, a.served_on::text AS served_on,
            a.petition_due_on::text AS petition_due_on, a.fine_total_cents, h.id AS hearing_id, h.scheduled_for, h.place,
            (SELECT count(*)::int FROM petition_document pd WHERE pd.petition_id = p.id) AS document_count
       FROM petition p
       JOIN enforcement_action a ON a.id = p.action_id
       JOIN app_user u ON u.id = p.filed_by_id
       LEFT JOIN show_cause_hearing h ON h.petition_id = p.id
      WHERE p.district_id = $1 AND p.status IN ('FILED', 'HEARING_ORDERED') AND p.addressed_to = ANY($2::text[]) ${after}
      ORDER BY p.filed_at, p.id
      LIMIT $3`,
    params,
  );
  const items = rows.slice(0, first).map((r) => ({
    petitionId: r.id,
    status: r.status,
    relief: r.relief,
    grounds: r.grounds,
    filedOn: r.filed_on,
    filedAt: new Date(r.filed_at),
    filedByName: r.filed_by_name,
    addressedTo: r.addressed_to,
    actionId: r.action_id,
    actionNumber: r.number,
    actionKind: r.kind,
    respondentName: r.respondent_name,
    servedOn: r.served_on,
    petitionDueOn: r.petition_due_on,
    fineTotalCents: r.fine_total_cents,
    hearingId: r.hearing_id,
    hearingAt: r.scheduled_for ? new Date(r.scheduled_for) : null,
    hearingPlace: r.place,
    documentCount: r.document_count,
  }));
  const last = rows[first - 1];
  return { items, nextCursor: rows.length > first && last ? encodeCursor(last.cursor_at, last.id) : null };
}

/** Hearings of the district from a date on (default: today), in order, for its staff. */
export async function hearingCalendar(ds: DataSource, viewer: Viewer, f: { districtId: string; from?: string | null }) {
  const district = await loadDistrict(ds, f.districtId);
  if (!isStaff(viewer, district.id)) throw forbidden("You are not staff of that district.");
  const from = (f.from ?? "").trim() || todayIn(district);
  if (!isCalendarDate(from)) throw badInput({ from: "Enter a date like 2026-12-01." });
  const rows: any[] = await ds.query(
    `SELECT h.*, a.number, a.respondent_name, a.kind FROM show_cause_hearing h JOIN enforcement_action a ON a.id = h.action_id
      WHERE h.district_id = $1 AND h.hearing_date >= $2 ORDER BY h.scheduled_for LIMIT 200`,
    [district.id, from],
  );
  return rows.map((r) => ({
    id: r.id,
    petitionId: r.petition_id,
    actionId: r.action_id,
    actionNumber: r.number,
    actionKind: r.kind,
    respondentName: r.respondent_name,
    scheduledFor: new Date(r.scheduled_for),
    place: r.place,
    outcome: r.outcome,
  }));
}

/**
 * Public records (SUL 1014, 1122): final enforcement actions against industrial users. Notices
 * of violation and anything served on a person (a homeowner) are never listed.
 */
export async function publicActions(ds: DataSource, districtSlug: string) {
  const [district] = await ds.getRepository(District).findBy({ slug: districtSlug });
  if (!district) throw notFound("That district");
  const today = todayIn(district);
  const rows = await ds
    .getRepository(EnforcementAction)
    .createQueryBuilder("a")
    .innerJoin(Organization, "o", "o.id = a.respondent_organization_id AND o.kind = 'INDUSTRIAL_USER'")
    .where("a.district_id = :d AND a.kind <> 'NOTICE_OF_VIOLATION'", { d: district.id })
    .andWhere("((a.status = 'FINAL' AND a.final_on <= :today) OR (a.status = 'SERVED' AND a.petition_due_on < :today))", { today })
    .orderBy("a.served_on", "DESC")
    .addOrderBy("a.id", "DESC")
    .limit(500)
    .getMany();
  return rows.map((a) => ({ action: a, finality: finality(a, today) }));
}

export { finality, daysLeft, todayIn, loadDistrict, isRespondent, OPEN_PETITION };

// ---------------------------------------------------------------------------------------------
// Registrations: payments, documents, dashboard

registerPayable(CHARGE_PAYABLE, {
  async onPaid(tx: EntityManager, payment: Payment) {
    const c = await tx.createQueryBuilder(Charge, "c").setLock("pessimistic_write").where("c.id = :id", { id: payment.payableId }).getOne();
    if (!c || c.paymentId !== payment.id || c.status !== "OPEN") return;
    await tx.update(Charge, { id: c.id }, { status: "PAID", paidAt: payment.paidAt ?? clock.now(), paidCents: payment.amountCents, updatedAt: clock.now() });
    await audit(tx, { userId: null }, { action: "charge.paid", entityType: "Charge", entityId: c.id, districtId: c.districtId, details: { paymentId: payment.id, amountCents: payment.amountCents, receiptNumber: payment.receiptNumber } });
  },
  async title(id: string, db: DataSource | EntityManager) {
    return (await chargeTitles(db, [id])).get(id) ?? "Charge";
  },
  titles: (ids: string[], db: DataSource | EntityManager) => chargeTitles(db, ids),
  href: (id: string) => `/enforcement/charges/${id}`,
});

async function chargeTitles(db: DataSource | EntityManager, ids: string[]): Promise<Map<string, string>> {
  const rows = ids.length ? await db.getRepository(Charge).findBy({ id: In(ids.filter(isUuid)) }) : [];
  return new Map(rows.map((c) => [c.id, `${c.label} (${c.number})`]));
}

// The Board, the Operator and the Clerk of the district read the documents filed with a petition.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => r.role === "BOARD" || r.role === "OPERATOR" || r.role === "CLERK").map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM petition_document pd JOIN petition p ON p.id = pd.petition_id WHERE pd.document_id = $1 AND p.district_id = ANY($2::uuid[]) LIMIT 1`,
    [doc.id, districts],
  );
  return rows.length > 0;
});

/** The dashboard: actions served on me or my organizations that still ask something of me, in one query. */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT a.id, a.number, a.kind, a.status, a.served_on::text AS served_on, a.answer_due_on::text AS answer_due_on, a.petition_due_on::text AS petition_due_on,
            a.petition_to, a.final_on::text AS final_on, a.final_reason, a.responded_at, a.correct_by::text AS correct_by, d.time_zone,
            c.status AS charge_status, c.amount_cents AS charge_cents,
            (SELECT h.scheduled_for FROM show_cause_hearing h WHERE h.action_id = a.id AND h.outcome IS NULL ORDER BY h.scheduled_for DESC LIMIT 1) AS hearing_at
       FROM enforcement_action a
       JOIN district d ON d.id = a.district_id
       LEFT JOIN charge c ON c.action_id = a.id
      WHERE (a.respondent_user_id = $1 OR a.respondent_organization_id IN (SELECT organization_id FROM membership WHERE user_id = $1))
        AND a.status NOT IN ('VACATED', 'SUSPENDED', 'RECONNECTED')
      ORDER BY a.served_on DESC LIMIT 100`,
    [viewer.userId],
  );
  const items: DashboardItem[] = [];
  for (const r of rows) {
    const today = dateIn(r.time_zone);
    const fin = finality({ status: r.status, kind: r.kind, petitionDueOn: r.petition_due_on, finalOn: r.final_on, finalReason: r.final_reason }, today);
    let nextStep: string | null = null;
    let due: string | null = null;
    if (r.hearing_at) nextStep = `Show-cause hearing on ${new Date(r.hearing_at).toLocaleString("en-US", { timeZone: r.time_zone, dateStyle: "long", timeStyle: "short" })}`;
    else if (r.kind === "NOTICE_OF_VIOLATION" && !r.responded_at && r.answer_due_on && today <= r.answer_due_on) {
      nextStep = "Send an explanation and a correction plan";
      due = r.answer_due_on;
    } else if (r.status === "SERVED" && r.petition_due_on && today <= r.petition_due_on) {
      nextStep = r.charge_status === "OPEN" ? `Pay the fine of ${formatCents(r.charge_cents)} or petition ${PETITION_TO_LABELS[r.petition_to as "TOWN_BOARD"]}` : `Comply, or petition ${PETITION_TO_LABELS[r.petition_to as "TOWN_BOARD"]}`;
      due = r.petition_due_on;
    } else if (r.status === "UNDER_PETITION") nextStep = "Your petition is before the Board";
    else if (r.charge_status === "OPEN") nextStep = `Pay the fine of ${formatCents(r.charge_cents)}`;
    else if (r.correct_by && today <= r.correct_by) {
      nextStep = "Correct the violation";
      due = r.correct_by;
    }
    if (!nextStep) continue;
    items.push({
      kind: "EnforcementAction",
      id: r.id,
      title: `${KINDS[r.kind as ActionKind].label} ${r.number}`,
      status: fin.final ? "Final" : ACTION_STATUS_LABELS[r.status],
      nextStep,
      dueDate: due,
      daysLeft: due ? daysBetween(today, due) : null,
      href: `/enforcement/${r.id}`,
    });
  }
  return items;
});

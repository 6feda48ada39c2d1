import { In, type DataSource } from "typeorm";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { isCalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { countOf, formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { Charge, EnforcementAction, JUDGMENTS, Prosecution, type Judgment } from "./enforcement.entity.js";
import { fineLimits } from "./rules.js";
import { type Db, type Meta, actorOf, getAction, loadDistrict, nextNumber, tell, text, todayIn } from "./common.js";

/**
 * Huron V-2: "Any person who shall continue any violation beyond the time limit provided shall be
 * guilty of a violation and, on conviction thereof, shall be fined ..." The Superintendent does not
 * fine: once a written notice's time to correct has passed (V-1, V-4) the Superintendent records the
 * days the violation continued and refers it for prosecution; the Town Clerk records the court's
 * judgment, and only a conviction makes a fine charge. Where the district's fines are
 * administrative (SUL 1105) none of this applies (rulebook `enforcement.finesOnConviction`).
 */

export const JUDGMENT_LABELS: Record<Judgment, string> = { CONVICTED: "Convicted", ACQUITTED: "Acquitted", DISMISSED: "Dismissed" };

export const finesOnConviction = (rb: Rulebook) => rb.enabled("enforcement.finesOnConviction");

/** Why a notice cannot be referred today (null: it can), for the Operator's page and the mutation. */
export function referralBlocked(rb: Rulebook, a: EnforcementAction, existing: Prosecution | null, today: string): string | null {
  const section = rb.entry("enforcement.finesOnConviction").section;
  if (!finesOnConviction(rb)) return `Fines here are administrative (${section}): serve a fine as a follow-up of the notice.`;
  if (a.kind !== "NOTICE_OF_VIOLATION" || !a.correctBy) return `Only a written notice with a time to correct is referred for prosecution (${rb.entry("enforcement.fineRequiresPriorNotice").section}).`;
  if (existing) return "This notice's violation was already referred for prosecution.";
  if (today <= a.correctBy) return `The time to correct in the notice runs until ${formatDate(a.correctBy)}; only a violation continuing beyond it is referred (${section}).`;
  return null;
}

/** What the law says of a referral, in the law's words and the rulebook's figure (Huron V-2), for the person's page and email. */
export function convictionLaw(rb: Rulebook): string {
  const section = rb.entry("enforcement.finesOnConviction").section;
  return `Under ${section}, a person who continues a violation beyond the time limit in the notice "shall be guilty of a violation and, on conviction thereof, shall be fined in an amount not exceeding ${formatCents(fineLimits(rb).maxCents)} for each violation"; each day the violation continues is a separate offense. Only the court can impose a fine: nothing is payable unless it convicts.`;
}

export type ReferInput = { actionId: string; continuedDays: string[] };

export async function referForProsecution(ds: DataSource, viewer: Viewer, input: ReferInput, meta: Meta): Promise<Prosecution> {
  return ds.transaction(async (tx) => {
    const a = await getAction(tx, viewer, input.actionId, true);
    if (!hasRole(viewer, "OPERATOR", a.districtId)) throw forbidden("Only the District Operator (Superintendent) of this district refers a violation for prosecution.");
    const district = await loadDistrict(tx, a.districtId);
    const rb = await rulebookOn(tx, district);
    const today = todayIn(district);
    const existing = await tx.findOneBy(Prosecution, { actionId: a.id });
    const blocked = referralBlocked(rb, a, existing, today);
    if (blocked) throw conflict(blocked);
    const section = rb.entry("enforcement.finesOnConviction").section;
    const days = [...new Set((input.continuedDays ?? []).map((d) => d.trim()))].sort();
    const fields: Record<string, string> = {};
    if (!days.length) fields.continuedDays = "List each day the violation continued after the time to correct.";
    else if (days.length > 366) fields.continuedDays = "Refer at most 366 days at once.";
    else if (days.length !== (input.continuedDays ?? []).length) fields.continuedDays = "A day is listed twice; each day is one offense.";
    else {
      const bad = days.find((d) => !isCalendarDate(d));
      if (bad) fields.continuedDays = `"${bad}" is not a date like 2026-11-02.`;
      else if (days[0] <= a.correctBy!) fields.continuedDays = `Only days after the time to correct in the notice (${formatDate(a.correctBy!)}) are offenses (${section}).`;
      else if (days[days.length - 1] > today) fields.continuedDays = `A day referred cannot be after today (${formatDate(today)}).`;
    }
    if (Object.keys(fields).length) throw badInput(fields);
    const p = await tx.save(tx.create(Prosecution, { actionId: a.id, districtId: a.districtId, continuedDays: days, referredOn: today, referredById: viewer.userId }));
    await tx.update(EnforcementAction, { id: a.id }, { updatedAt: clock.now() });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "enforcement.referred_for_prosecution",
      entityType: "EnforcementAction",
      entityId: a.id,
      districtId: a.districtId,
      details: { prosecutionId: p.id, days: days.length, from: days[0], through: days[days.length - 1], correctBy: a.correctBy },
    });
    await tell(
      tx,
      a,
      district,
      "enforcement.referred_for_prosecution",
      `Referred to the court: ${a.number}`,
      `The violation in notice ${a.number} continued after the time to correct it (${formatDate(a.correctBy!)}) on ${countOf(days.length, "day")}, from ${formatDate(days[0])} to ${formatDate(days[days.length - 1])}. It has been referred to the court for prosecution.\n\n${convictionLaw(rb)}`,
      `${meta.publicUrl}/enforcement/${a.id}`,
    );
    return p;
  });
}

export type JudgmentInput = {
  actionId: string;
  judgment: string;
  court?: string | null;
  docketNumber?: string | null;
  judgmentOn?: string | null;
  /** On conviction: each offense (day) convicted of, with the fine the court imposed for it. */
  offenseDays?: { date: string; amountCents: number }[] | null;
};

export async function recordJudgment(ds: DataSource, viewer: Viewer, input: JudgmentInput, meta: Meta): Promise<Prosecution> {
  return ds.transaction(async (tx) => {
    const a = await getAction(tx, viewer, input.actionId, true);
    if (!hasRole(viewer, "CLERK", a.districtId)) throw forbidden("Only the Town Clerk of this district records a court's judgment.");
    const district = await loadDistrict(tx, a.districtId);
    const rb = await rulebookOn(tx, district);
    const today = todayIn(district);
    const p = await tx.createQueryBuilder(Prosecution, "p").setLock("pessimistic_write").where("p.action_id = :id", { id: a.id }).getOne();
    if (!p) throw conflict("This notice's violation has not been referred for prosecution.");
    if (p.judgment) throw conflict(`The court's judgment was already recorded (${JUDGMENT_LABELS[p.judgment].toLowerCase()}, ${formatDate(p.judgmentOn!)}).`);
    const fields: Record<string, string> = {};
    const judgment = input.judgment as Judgment;
    if (!JUDGMENTS.includes(judgment)) fields.judgment = "Choose the court's judgment: convicted, acquitted or dismissed.";
    const court = text(input.court, "court", 200, "Name the court (e.g. Town of Huron Justice Court).", fields);
    const docketNumber = text(input.docketNumber, "docketNumber", 100, "Give the court's docket or case number.", fields);
    const judgmentOn = (input.judgmentOn ?? "").trim();
    if (!isCalendarDate(judgmentOn)) fields.judgmentOn = "Enter the date of the judgment like 2026-11-30.";
    else if (judgmentOn > today) fields.judgmentOn = `The date of the judgment cannot be after today (${formatDate(today)}).`;
    else if (judgmentOn < p.referredOn) fields.judgmentOn = `The judgment cannot be before the referral (${formatDate(p.referredOn)}).`;
    const limits = fineLimits(rb);
    const offenses = (input.offenseDays ?? []).map((d) => ({ date: d.date.trim(), amountCents: d.amountCents })).sort((x, y) => x.date.localeCompare(y.date));
    if (judgment === "CONVICTED") {
      const referred = new Set(p.continuedDays);
      const seen = new Set<string>();
      if (!offenses.length) fields.offenseDays = "List each day (offense) the court convicted of, with its fine.";
      for (const d of offenses) {
        if (!referred.has(d.date)) {
          fields.offenseDays = `${d.date} was not among the days referred (${formatDate(p.continuedDays[0])} to ${formatDate(p.continuedDays[p.continuedDays.length - 1])}).`;
          break;
        }
        if (seen.has(d.date)) {
          fields.offenseDays = `${d.date} is listed twice; each day is one offense.`;
          break;
        }
        seen.add(d.date);
        if (!Number.isSafeInteger(d.amountCents) || d.amountCents < limits.minCents || d.amountCents > limits.maxCents) {
          fields.offenseDays = `The fine for each day can be at most ${formatCents(limits.maxCents)} (${limits.section}); ${d.date} is ${Number.isSafeInteger(d.amountCents) ? formatCents(d.amountCents) : "not a whole number of cents"}.`;
          break;
        }
      }
    } else if (offenses.length) fields.offenseDays = "Only a conviction has offenses and a fine.";
    if (Object.keys(fields).length) throw badInput(fields);

    const total = judgment === "CONVICTED" ? offenses.reduce((s, d) => s + d.amountCents, 0) : 0;
    await tx.update(Prosecution, { id: p.id }, { judgment, court, docketNumber, judgmentOn, offenseDays: judgment === "CONVICTED" ? offenses : [], fineTotalCents: total, recordedById: viewer.userId, recordedAt: clock.now() });
    let chargeNumber: string | null = null;
    if (judgment === "CONVICTED") {
      chargeNumber = await nextNumber(tx, district, "charge", "CH", today);
      await tx.save(
        tx.create(Charge, {
          districtId: district.id,
          number: chargeNumber,
          respondentUserId: a.respondentUserId,
          respondentOrganizationId: a.respondentOrganizationId,
          respondentName: a.respondentName,
          label: `Fine on conviction, ${court} docket ${docketNumber}, ${countOf(offenses.length, "day")} of violation (notice ${a.number})`,
          section: limits.section,
          amountCents: total,
          // Billed when the Clerk records it: the bill is mailed from then on.
          billedOn: today,
          status: "OPEN",
          actionId: a.id,
          rulebookVersionId: rb.version.id,
          createdById: viewer.userId,
        }),
      );
    }
    await tx.update(EnforcementAction, { id: a.id }, { updatedAt: clock.now() });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "enforcement.judgment_recorded",
      entityType: "EnforcementAction",
      entityId: a.id,
      districtId: a.districtId,
      details: { prosecutionId: p.id, judgment, court, docketNumber, judgmentOn, offenses: offenses.length, fineTotalCents: total, chargeNumber },
    });
    const body =
      judgment === "CONVICTED"
        ? `On ${formatDate(judgmentOn)} the ${court} (docket ${docketNumber}) convicted you of ${countOf(offenses.length, "offense")} (${limits.section}, each day a separate offense) and fined you ${formatCents(total)}. The fine is billed as charge ${chargeNumber}; pay it online or at the Town Clerk's counter.`
        : `On ${formatDate(judgmentOn)} the ${court} (docket ${docketNumber}) ${judgment === "ACQUITTED" ? "acquitted you" : "dismissed the case"}. The matter is closed: no fine is owed.`;
    await tell(tx, a, district, "enforcement.judgment_recorded", `Court judgment: ${a.number}`, body, `${meta.publicUrl}/enforcement/${a.id}`);
    return tx.findOneByOrFail(Prosecution, { id: p.id });
  });
}

export async function prosecutionsOf(db: Db, actionIds: readonly string[]): Promise<Prosecution[]> {
  if (!actionIds.length) return [];
  return db.getRepository(Prosecution).findBy({ actionId: In([...actionIds]) });
}

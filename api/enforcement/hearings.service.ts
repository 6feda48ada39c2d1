import { type DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, daysBetween, isCalendarDate, zonedWallTime } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { rulebookById } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { EnforcementAction, HEARING_OUTCOMES, Petition, ShowCauseHearing, type HearingOutcome } from "./enforcement.entity.js";
import { KINDS } from "./rules.js";
import { type Meta, actorOf, text, loadDistrict, todayIn, tell, getPetition } from "./common.js";
import { requireDecider, applyOutcome, validateModification } from "./petitions.service.js";
import { formatDate, formatDateTime } from "../common/format.js";

/** Show-cause hearings ordered by the Town Board (SUL 1109-1110) and their outcome. */

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
    const when = formatDateTime(at!, district.timeZone, "full");
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
        `This notice is served on ${formatDate(today)}, at least ${minDays.value} calendar days before the hearing.`,
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
    if (clock.now() < h.scheduledFor) throw conflict(`The hearing is set for ${formatDateTime(h.scheduledFor, district.timeZone, "full")}; decide after it is held.`);
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

import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, dateIn, daysBetween, formatDate, isCalendarDate, termLastDay, zonedWallTime, type CalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import type { District } from "../districts/district.entity.js";
import { type Rulebook } from "../districts/districts.service.js";
import { districtCode } from "../districts/district-code.js";
import { enqueueJob, registerJobHandler } from "../jobs/queue.js";
import { isPaid } from "../payments/payments.service.js";
import { REVOCATION_REASONS, actorOf, addressOf, limitsOf, loadDistrict, loadPermit, permitRulebook, requireOperator, type Milestone, type PermitRow, type RevocationReason } from "./common.js";
import { limitProblems, LIMIT_KINDS, parseUnit, UNIT_LABELS, type Limit, type LimitKind, type Unit } from "./limits.js";
import { PAYABLE_TYPE, MONTH_NAMES, notifyOrganization, requireStatus } from "./permit-common.js";
import { insertLimits } from "./applications.service.js";
import { notices } from "./permit-lists.service.js";
import { REISSUANCE_REMINDER_JOB, REPORT_REMINDER_JOB } from "./permit-reminders.js";

/** The District Operator's side (SUL 1004 B, D, G, H): the notice of intent, limits, issuance with the report periods, a successor superseding its predecessor, revocation. */

// ---------------------------------------------------------------------------------------------
// Staff: notice, limits, issuance, revocation

export async function staffPermit(tx: EntityManager, viewer: Viewer, id: string): Promise<PermitRow> {
  const p = await loadPermit(tx, id, true);
  if (!p || !p.submittedAt || !isStaff(viewer, p.districtId)) throw notFound("That permit");
  requireOperator(viewer, p.districtId);
  return p;
}

/** The notice of intent's text, published `on` a day: who, what, where, and the first day of issuance (SUL 1004 H). */
export function noticeOfIntent(
  district: District,
  organizationName: string,
  p: Pick<PermitRow, "facilityName" | "street" | "city" | "zip" | "sicCodes" | "averageFlowGpd">,
  on: CalendarDate,
  days: { value: number; section: string },
): string {
  return (
    `${district.name} intends to issue a wastewater discharge permit to ${organizationName} for ${p.facilityName}, ${addressOf(p)} ` +
    `(SIC ${p.sicCodes.join(", ")}; average flow ${Number(p.averageFlowGpd).toLocaleString("en-US")} gallons a day). ` +
    `The permit will not be issued before ${formatDate(addCalendarDays(on, days.value))} (${days.section}).`
  );
}

/** SUL 1004 H: the notice of intent, on the portal's public notices page. */
export async function publishNotice(ds: DataSource, viewer: Viewer, input: { id: string; text?: string | null }, meta: { requestId?: string; publicUrl: string }): Promise<PermitRow> {
  const extra = (input.text ?? "").trim();
  if (extra.length > 4000) throw badInput({ text: "Use at most 4,000 characters." });
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, input.id);
    requireStatus(p, ["SUBMITTED"], "The notice of intent is published for a submitted application");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const days = rb.require("industrial.publicNoticeDays");
    const today = dateIn(district.timeZone);
    const [org] = await tx.query(`SELECT name FROM organization WHERE id = $1`, [p.organizationId]);
    const text = noticeOfIntent(district, org.name, p, today, days) + (extra ? `\n\n${extra}` : "");
    await tx.query(
      `UPDATE industrial_permit SET status = 'NOTICE_PUBLISHED', notice_published_on = $2, notice_published_at = $3, notice_published_by_id = $4, notice_text = $5, updated_at = $3 WHERE id = $1`,
      [p.id, today, clock.now(), viewer.userId, text],
    );
    await audit(tx, actorOf(viewer, meta.requestId), { action: "industrial.notice_published", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, details: { on: today } });
    const next = (await loadPermit(tx, p.id))!;
    await notifyOrganization(
      tx,
      next,
      district,
      "industrial.notice_published",
      `Notice of intent published: ${p.facilityName}`,
      `The notice of intent to issue your wastewater discharge permit was published on ${formatDate(today)}. The permit can be issued from ${formatDate(addCalendarDays(today, days.value))} (${days.section}).\n\nNotice: ${meta.publicUrl}/notices`,
      meta.publicUrl,
    );
    return next;
  });
}

export type LimitInput = { parameter: string; kind: string; unit: string; average?: number | null; maximum?: number | null; minimum?: number | null; section?: string | null };

/** The District Operator sets the permit's limits (SUL 904, 1004 C(2)) until the permit is issued. */
export async function setLimits(ds: DataSource, viewer: Viewer, id: string, input: LimitInput[], requestId?: string): Promise<PermitRow> {
  const limits = checkLimits(input);
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, id);
    requireStatus(p, ["SUBMITTED", "NOTICE_PUBLISHED"], "Limits are set before the permit is issued; an issued permit is modified on 30 days' notice (SUL 1004 B)");
    const before = await limitsOf(tx, [p.id]);
    await insertLimits(tx, p.id, limits);
    await audit(tx, actorOf(viewer, requestId), {
      action: "industrial.limits_set",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { before: before.map(({ id: _i, permitId: _p, position: _o, ...l }) => l), after: limits },
    });
    return (await loadPermit(tx, p.id))!;
  });
}

/** Checks a permit's limits (units against the kind, no parameter twice per kind); errors as `limits.N`. */
export function checkLimits(input: LimitInput[]): Limit[] {
  if (input.length > 200) throw badInput({ limits: "At most 200 limits." });
  const fields: Record<string, string> = {};
  const limits: Limit[] = input.map((l, i) => {
    const unit = parseUnit(l.unit ?? "");
    const row: Limit = {
      parameter: (l.parameter ?? "").trim(),
      kind: l.kind as LimitKind,
      unit: (unit ?? l.unit) as Unit,
      average: l.average ?? null,
      maximum: l.maximum ?? null,
      minimum: l.minimum ?? null,
      section: (l.section ?? "").trim() || "Permit condition (Sewer Use Law 904)",
    };
    const problems = unit ? limitProblems(row) : [`Unknown unit "${l.unit}"; use ${Object.values(UNIT_LABELS).join(", ")}.`];
    if (!LIMIT_KINDS.includes(row.kind)) problems.push("Choose concentration, mass, pH or temperature.");
    if (problems.length) fields[`limits.${i}`] = `${row.parameter || `Row ${i + 1}`}: ${problems.join(" ")}`;
    return row;
  });
  const seen = new Set<string>();
  for (const [i, l] of limits.entries()) {
    const k = `${l.parameter.toLowerCase()}|${l.kind}`;
    if (seen.has(k)) fields[`limits.${i}`] = `${l.parameter}: listed twice as a ${l.kind.toLowerCase()} limit.`;
    seen.add(k);
  }
  if (Object.keys(fields).length) throw badInput(fields);
  return limits;
}

export async function nextPermitNumber(tx: EntityManager, district: District): Promise<string> {
  const year = dateIn(district.timeZone).slice(0, 4);
  const [row] = await tx.query(
    `INSERT INTO industrial_permit_counter (district_id, year, last) VALUES ($1, $2, 1)
     ON CONFLICT (district_id, year) DO UPDATE SET last = industrial_permit_counter.last + 1 RETURNING last`,
    [district.id, Number(year)],
  );
  return `${districtCode(district.slug)}-IU-${year}-${String(row.last).padStart(4, "0")}`;
}

/** The months the rulebook has periodic reports due in (SUL 1005(3)(a)); June and December when it names none. */
export const rulebookReportingMonths = (rb: Rulebook): number[] => parseMonths(String(rb.entry("industrial.periodicReportMonths").value ?? "")) ?? [6, 12];

/** "June, December" → [6, 12]; null when a name is not a month. */
export function parseMonths(text: string): number[] | null {
  const out: number[] = [];
  for (const part of text.split(/[,;\s]+(?:and\s+)?/i).map((s) => s.trim()).filter(Boolean)) {
    if (/^and$/i.test(part)) continue;
    const i = MONTH_NAMES.findIndex((m) => m.toLowerCase() === part.toLowerCase() || m.slice(0, 3).toLowerCase() === part.toLowerCase());
    if (i < 0) return null;
    out.push(i + 1);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}
export const monthNames = (months: number[]) => months.map((m) => MONTH_NAMES[m - 1]).join(" and ");

const lastDayOf = (year: number, month: number): CalendarDate => new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
const firstDayOf = (year: number, month: number): CalendarDate => new Date(Date.UTC(year, month - 1, 1)).toISOString().slice(0, 10);

/**
 * The periodic report periods of a permit (SUL 1005(3)(a)): the report filed in a reporting month
 * covers the months from the previous reporting month to the end of the month before its own, and
 * is due by the end of its month. With June and December: the June report covers December to May,
 * the December report June to November. Periods are clipped to the permit's term.
 */
export function reportPeriods(months: number[], effectiveOn: CalendarDate, expiresOn: CalendarDate): { periodStart: CalendarDate; periodEnd: CalendarDate; dueOn: CalendarDate }[] {
  const sorted = [...months].sort((a, b) => a - b);
  const out: { periodStart: CalendarDate; periodEnd: CalendarDate; dueOn: CalendarDate }[] = [];
  const y0 = Number(effectiveOn.slice(0, 4));
  const y1 = Number(expiresOn.slice(0, 4)) + 1;
  for (let y = y0; y <= y1; y++)
    for (const [i, m] of sorted.entries()) {
      // the period runs from the first day of the previous reporting month to the end of the month before this one
      const prev = i > 0 ? { y, m: sorted[i - 1] } : { y: y - 1, m: sorted[sorted.length - 1] };
      const endMonth = m === 1 ? { y: y - 1, m: 12 } : { y, m: m - 1 };
      let start = firstDayOf(prev.y, prev.m);
      let end = lastDayOf(endMonth.y, endMonth.m);
      if (end < effectiveOn || start > expiresOn) continue;
      if (start < effectiveOn) start = effectiveOn;
      if (end > expiresOn) end = expiresOn;
      if (start > end) continue;
      out.push({ periodStart: start, periodEnd: end, dueOn: lastDayOf(y, m) });
    }
  return out;
}

/** Inserts periodic report rows and queues a reminder 14 days before each due date. */
export async function createReports(tx: EntityManager, permitId: string, periods: ReturnType<typeof reportPeriods>, district: District, publicUrl: string) {
  if (!periods.length) return;
  const created: { id: string; due_on: string }[] = await tx.query(
    `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status)
     SELECT $1, 'PERIODIC', x.s, x.e, x.d, 'DUE' FROM jsonb_to_recordset($2::jsonb) AS x(s date, e date, d date) RETURNING id, due_on::text`,
    [permitId, JSON.stringify(periods.map((r) => ({ s: r.periodStart, e: r.periodEnd, d: r.dueOn })))],
  );
  for (const r of created) {
    const remindOn = addCalendarDays(r.due_on, -14);
    await enqueueJob(tx, {
      name: REPORT_REMINDER_JOB,
      payload: { reportId: r.id, publicUrl },
      runAt: zonedWallTime(Date.parse(`${remindOn}T09:00:00Z`), district.timeZone),
      singletonKey: `industrial.report-reminder:${r.id}`,
    });
  }
}

/** Reporting months as the Operator gives them (SUL 1005(3)(a)): checked against the rulebook's minimum a year. */
export function checkMonths(rb: Rulebook, months: number[], f: Record<string, string>, key = "reportingMonths"): number[] {
  const sorted = [...new Set(months)].sort((a, b) => a - b);
  const minPerYear = rb.require("industrial.periodicReportsMinPerYear");
  if (sorted.some((m) => !Number.isInteger(m) || m < 1 || m > 12)) f[key] = "Choose months from January to December.";
  else if (sorted.length < minPerYear.value) f[key] = `At least ${minPerYear.value} reports a year (${minPerYear.section}).`;
  return sorted;
}

export type IssueInput = { id: string; effectiveOn?: string | null; expiresOn: string; reportingMonths?: number[] | null };

/**
 * The District Operator issues the permit: never before the notice has run its days (SUL 1004 H),
 * never for longer than the rulebook's term (1004 D), never before the fee is paid (1004 A). The
 * reporting months (1005(3)(a)) make the report periods; reminders are queued for each report and
 * for the reissuance deadline (1004 E).
 */
export async function issuePermit(ds: DataSource, viewer: Viewer, input: IssueInput, meta: { requestId?: string; publicUrl: string }): Promise<PermitRow> {
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, input.id);
    requireStatus(p, ["NOTICE_PUBLISHED"], "A permit is issued after its notice of intent is published");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const today = dateIn(district.timeZone);
    const noticeDays = rb.require("industrial.publicNoticeDays");
    const earliest = addCalendarDays(p.noticePublishedOn!, noticeDays.value);
    if (today < earliest)
      throw new AppError(
        "CONFLICT",
        `The notice of intent was published on ${formatDate(p.noticePublishedOn!)}, ${daysBetween(p.noticePublishedOn!, today)} days ago; the permit can be issued from ${formatDate(earliest)}, ${noticeDays.value} days after it (${noticeDays.section}).`,
      );
    if (p.feeCents && !(await isPaid(tx, PAYABLE_TYPE, p.id)))
      throw new AppError("PAYMENT_REQUIRED", `The application fee of ${formatCents(p.feeCents)} is not paid yet; no permit is issued before it is.`);
    const f: Record<string, string> = {};
    // SUL 1004 E: a reissued permit follows the permit it replaces; issued early, it starts the day after the old one expires.
    const previous = p.previousPermitId ? await loadPermit(tx, p.previousPermitId, true) : null;
    const follows = p.previousRelation === "REISSUANCE" && previous?.status === "ISSUED" && previous.expiresOn! >= today ? addCalendarDays(previous.expiresOn!, 1) : null;
    const effectiveOn = input.effectiveOn || follows || today;
    if (!isCalendarDate(effectiveOn)) f.effectiveOn = "Use a date like 2026-12-01.";
    else if (effectiveOn < today) f.effectiveOn = "A permit cannot take effect before the day it is issued.";
    else if (follows && effectiveOn < follows)
      f.effectiveOn = `Permit ${previous!.permitNumber} is in force until ${formatDate(previous!.expiresOn!)}: the reissued permit takes effect from ${formatDate(follows)} (Sewer Use Law 1004 E).`;
    if (!isCalendarDate(input.expiresOn)) f.expiresOn = "Use a date like 2031-11-30.";
    const term = rb.require("industrial.permitMaxTermYears");
    if (!f.effectiveOn && !f.expiresOn) {
      if (input.expiresOn <= effectiveOn) f.expiresOn = "The permit must expire after it takes effect.";
      // "not to exceed five (5) years": in force from its first day through the day before the same date
      // five years on (docs/decisions/industrial-permit-term.md).
      else if (input.expiresOn > termLastDay(effectiveOn, term.value * 12))
        f.expiresOn = `A permit lasts at most ${term.value} years (${term.section}): its last day is ${formatDate(termLastDay(effectiveOn, term.value * 12))} at the latest.`;
    }
    const defaults = rulebookReportingMonths(rb);
    const months = checkMonths(rb, input.reportingMonths?.length ? input.reportingMonths : defaults, f);
    if (Object.keys(f).length) throw badInput(f);
    const limits = await limitsOf(tx, [p.id]);
    if (!limits.length) throw conflict("Set the permit's limits before issuing it.");

    const number = await nextPermitNumber(tx, district);
    const now = clock.now();
    await tx.query(
      `UPDATE industrial_permit SET status = 'ISSUED', permit_number = $2, issued_at = $3, issued_by_id = $4, effective_on = $5, expires_on = $6, reporting_months = $7, updated_at = $3 WHERE id = $1`,
      [p.id, number, now, viewer.userId, effectiveOn, input.expiresOn, months],
    );
    const periods = reportPeriods(months, effectiveOn, input.expiresOn);
    await createReports(tx, p.id, periods, district, meta.publicUrl);
    await scheduleProgressReminders(tx, p.id, (p.complianceSchedule ?? []) as Milestone[], 0, rb, district, meta.publicUrl);
    // SUL 1004 E: apply for reissuance at least 180 days before expiry; remind 30 days before that deadline and on it.
    const reissue = rb.entry("industrial.reissuanceApplicationDays");
    if (typeof reissue.value === "number") {
      const deadline = addCalendarDays(input.expiresOn, -reissue.value);
      for (const before of [30, 0]) {
        const on = addCalendarDays(deadline, -before);
        if (on <= today) continue;
        await enqueueJob(tx, {
          name: REISSUANCE_REMINDER_JOB,
          payload: { permitId: p.id, deadline, expiresOn: input.expiresOn, publicUrl: meta.publicUrl },
          runAt: zonedWallTime(Date.parse(`${on}T09:00:00Z`), district.timeZone),
          singletonKey: `industrial.reissuance:${p.id}:${input.expiresOn}:${before}`,
        });
      }
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.issued",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { permitNumber: number, effectiveOn, expiresOn: input.expiresOn, reportingMonths: months, reports: periods.length, previousPermitId: p.previousPermitId },
    });
    if (p.previousRelation === "CHANGE" && previous?.status === "ISSUED") await supersede(tx, viewer, previous, { ...p, permitNumber: number, effectiveOn }, district, meta);
    const next = (await loadPermit(tx, p.id))!;
    await notifyOrganization(
      tx,
      next,
      district,
      "industrial.issued",
      `Wastewater discharge permit ${number} issued`,
      `Your wastewater discharge permit ${number} for ${p.facilityName} is issued, effective ${formatDate(effectiveOn)} until ${formatDate(input.expiresOn)}.\n\n` +
        `Periodic compliance reports are due in ${monthNames(months)} (${rb.entry("industrial.periodicReportMonths").section})` +
        (periods[0] ? `; the first covers ${formatDate(periods[0].periodStart)} to ${formatDate(periods[0].periodEnd)} and is due by ${formatDate(periods[0].dueOn)}.` : ".") +
        (typeof reissue.value === "number" ? `\nApply for reissuance by ${formatDate(addCalendarDays(input.expiresOn, -reissue.value))} (${reissue.section}).` : ""),
      meta.publicUrl,
    );
    return next;
  });
}

/**
 * SUL 1004 F: the permit of the old owner, user, premises or operation ends when the new permit
 * is issued, from the change date or the new permit's effective date, whichever is later: its
 * status turns SUPERSEDED that day (now, or by a job at the district's midnight), so reports of
 * the days it was in force can still be filed until then. Report periods starting from that day,
 * not started, are removed.
 */
async function supersede(tx: EntityManager, viewer: Viewer, old: PermitRow, next: PermitRow, district: District, meta: { requestId?: string; publicUrl: string }) {
  const endsOn = [next.changeOn!, next.effectiveOn!].sort().at(-1)!;
  await tx.query(`UPDATE industrial_permit SET superseded_on = $2, superseded_by_id = $3, updated_at = $4 WHERE id = $1`, [old.id, endsOn, next.id, clock.now()]);
  await tx.query(`DELETE FROM industrial_report WHERE permit_id = $1 AND kind = 'PERIODIC' AND status = 'DUE' AND started_at IS NULL AND amends_id IS NULL AND period_start >= $2`, [old.id, endsOn]);
  await tx.query(`UPDATE industrial_report SET period_end = $2 WHERE permit_id = $1 AND kind = 'PERIODIC' AND status = 'DUE' AND started_at IS NULL AND period_end >= $2`, [old.id, addCalendarDays(endsOn, -1)]);
  await audit(tx, actorOf(viewer, meta.requestId), {
    action: "industrial.supersession_set",
    entityType: "IndustrialPermit",
    entityId: old.id,
    districtId: old.districtId,
    reason: "Sewer Use Law 1004 F: a permit is not transferred to a new owner, user, premises or operation",
    details: { endsOn, newPermitId: next.id, newPermitNumber: next.permitNumber, changeKind: next.changeKind, changeOn: next.changeOn },
  });
  await notifyOrganization(
    tx,
    old,
    district,
    "industrial.superseded",
    `Wastewater discharge permit ${old.permitNumber} ends on ${formatDate(endsOn)}`,
    `Permit ${next.permitNumber} was issued for the change you reported (${(next.changeDescription ?? "").slice(0, 200)}). ` +
      `A permit cannot be transferred to a new owner, user, premises or operation (Sewer Use Law 1004 F), so permit ${old.permitNumber} ends on ${formatDate(endsOn)}, when permit ${next.permitNumber} takes over. ` +
      `File the reports of the days before under permit ${old.permitNumber}.`,
    meta.publicUrl,
  );
  if (endsOn <= dateIn(district.timeZone)) await endSuperseded(tx, old.id);
  else
    await enqueueJob(tx, {
      name: SUPERSEDE_JOB,
      payload: { permitId: old.id },
      runAt: zonedWallTime(Date.parse(`${endsOn}T00:00:00Z`), district.timeZone),
      singletonKey: `industrial.supersede:${old.id}`,
    });
}

/** The old permit's status turns SUPERSEDED (once; only an issued permit whose day has come). */
async function endSuperseded(tx: EntityManager, permitId: string): Promise<void> {
  const p = await loadPermit(tx, permitId, true);
  if (!p || p.status !== "ISSUED" || !p.supersededOn) return;
  const district = await loadDistrict(tx, p.districtId);
  if (dateIn(district.timeZone) < p.supersededOn) return;
  await tx.query(`UPDATE industrial_permit SET status = 'SUPERSEDED', superseded_at = $2, updated_at = $2 WHERE id = $1`, [p.id, clock.now()]);
  await audit(tx, { userId: null }, {
    action: "industrial.superseded",
    entityType: "IndustrialPermit",
    entityId: p.id,
    districtId: p.districtId,
    reason: "Sewer Use Law 1004 F: a permit is not transferred to a new owner, user, premises or operation",
    details: { endsOn: p.supersededOn, newPermitId: p.supersededById },
  });
}

export const SUPERSEDE_JOB = "industrial.supersede";
export const PROGRESS_REMINDER_JOB = "industrial.progress-reminder";

/**
 * SUL 1004 A(12)(c): a progress report at most the rulebook's days after each milestone of a
 * compliance schedule; reminded on the milestone's date (events.service.ts sends it). For the
 * permit's schedule at issuance, and for the steps a modification adds (from `fromIndex`).
 */
export async function scheduleProgressReminders(tx: EntityManager, permitId: string, schedule: Milestone[], fromIndex: number, rb: Rulebook, district: District, publicUrl: string) {
  if (fromIndex >= schedule.length) return;
  const progressDays = rb.require("industrial.progressReportDays").value;
  const today = dateIn(district.timeZone);
  for (let milestoneIndex = fromIndex; milestoneIndex < schedule.length; milestoneIndex++) {
    const m = schedule[milestoneIndex];
    if (m.dueOn <= today) continue;
    await enqueueJob(tx, {
      name: PROGRESS_REMINDER_JOB,
      payload: { permitId, milestoneIndex, progressDueOn: addCalendarDays(m.dueOn, progressDays), publicUrl },
      runAt: zonedWallTime(Date.parse(`${m.dueOn}T09:00:00Z`), district.timeZone),
      singletonKey: `${PROGRESS_REMINDER_JOB}:${permitId}:${milestoneIndex}`,
    });
  }
}
registerJobHandler(SUPERSEDE_JOB, async (ds, payload: { permitId: string }, _log, job) => {
  await ds.transaction(async (tx) => {
    await job.done(tx);
    await endSuperseded(tx, payload.permitId);
  });
});

/** SUL 1004 G: revocation for one of the law's reasons, with the Operator's explanation. */
export async function revokePermit(ds: DataSource, viewer: Viewer, input: { id: string; reason: string; notes: string }, meta: { requestId?: string; publicUrl: string }): Promise<PermitRow> {
  const f: Record<string, string> = {};
  if (!(input.reason in REVOCATION_REASONS)) f.reason = "Choose one of the reasons of Sewer Use Law 1004 G.";
  const notes = (input.notes ?? "").trim();
  if (!notes) f.notes = "Say what happened: the permittee reads it.";
  else if (notes.length > 4000) f.notes = "Use at most 4,000 characters.";
  if (Object.keys(f).length) throw badInput(f);
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, input.id);
    requireStatus(p, ["ISSUED"], "Only an issued permit can be revoked");
    const now = clock.now();
    await tx.query(`UPDATE industrial_permit SET status = 'REVOKED', revoked_at = $2, revoked_by_id = $3, revocation_reason = $4, revocation_notes = $5, updated_at = $2 WHERE id = $1`, [
      p.id,
      now,
      viewer.userId,
      input.reason,
      notes,
    ]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.revoked",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: notes,
      details: { reason: input.reason },
    });
    const district = await loadDistrict(tx, p.districtId);
    const next = (await loadPermit(tx, p.id))!;
    await notifyOrganization(
      tx,
      next,
      district,
      "industrial.revoked",
      `Wastewater discharge permit ${p.permitNumber} revoked`,
      `Your wastewater discharge permit ${p.permitNumber} is revoked: ${REVOCATION_REASONS[input.reason as RevocationReason]} (Sewer Use Law 1004 G).\n\n${notes}`,
      meta.publicUrl,
    );
    return next;
  });
}

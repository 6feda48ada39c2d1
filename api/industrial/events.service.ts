import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { staffOf } from "../staff/staff-of.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, dateIn, daysLeft, formatDate, formatDateTime, isCalendarDate, zonedInstant, zonedWallTime } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueJob, registerJobHandler } from "../jobs/queue.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { actorOf, loadDistrict, loadPermit, mayView, relationTo, requireOperator, roleIn, rowOf, type Db, type Milestone, type PermitRow, permitRulebook } from "./common.js";
import { notifyMembers, PROGRESS_REMINDER_JOB } from "./permits.service.js";
import { loadReport, NOTIFY_REMINDER_JOB, REPORT_TITLES, RESAMPLE_REMINDER_JOB, reportKindHooks, resultsOf, type DutyRow, type ReportRow } from "./reports.service.js";

/**
 * The reports besides the periodic one (SUL 1005, 1011, 1004 A(12)):
 * - the notification of a violation (1005(4)), which completes the NOTIFY duty, on time or late;
 * - the repeat sampling report (1005(4)), a report of kind RESAMPLE started from its duty, entered
 *   and signed like any report; signing completes the duty;
 * - accidental or slug discharges (1011): the immediate notification, public once recorded
 *   (1014), and the written report (kind SLUG) due in 5 days, analyses appended within 45;
 * - the 90-day compliance and baseline monitoring reports (1005(2), 1005(1)), whose dates the
 *   Operator sets; the 90-day report's statement and the qualified professional;
 * - progress reports on compliance-schedule milestones (1004 A(12)(c)).
 */

/** Reminders of the 90-day, baseline and slug written reports (the periodic ones have their own). */
const REMINDER_JOB = "industrial.dated-report-reminder";

export type NoticeRow = {
  id: string;
  dutyId: string;
  permitId: string;
  notifiedWhom: string;
  method: string;
  notifiedAt: Date;
  text: string;
  onTime: boolean;
  filedById: string;
  filedAt: Date;
};

export type SlugRow = {
  id: string;
  permitId: string;
  reportId: string;
  occurredAt: Date;
  notifiedAt: Date;
  notifiedWhom: string;
  substance: string;
  estimatedVolumeGallons: number;
  description: string;
  causes: string | null;
  measures: string | null;
  writtenDueOn: string;
  analysesDueOn: string;
  filedById: string;
  filedAt: Date;
};

export type StatementRow = { reportId: string; standardsMet: boolean; measures: string | null; professionalName: string; professionalCredential: string };

export type ProgressRow = {
  id: string;
  permitId: string;
  milestoneIndex: number;
  milestone: string;
  milestoneDueOn: string;
  met: boolean;
  metOn: string | null;
  reason: string | null;
  expectedOn: string | null;
  filedById: string;
  filedAt: Date;
};

export const NOTICE_METHODS = ["PHONE", "EMAIL", "IN_PERSON", "LETTER"] as const;
export const NOTICE_METHOD_LABELS: Record<string, string> = { PHONE: "By telephone", EMAIL: "By email", IN_PERSON: "In person", LETTER: "By letter" };

/** TypeORM answers an UPDATE ... RETURNING with [rows, count]; an INSERT with rows. */
const firstRow = (res: any): any => (Array.isArray(res?.[0]) ? res[0][0] : res?.[0]);
const day = (v: unknown): string | null => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10));
const slugOf = (r: any): SlugRow => {
  const s = rowOf<SlugRow>(r);
  return { ...s, estimatedVolumeGallons: Number(s.estimatedVolumeGallons), writtenDueOn: day(r.written_due_on)!, analysesDueOn: day(r.analyses_due_on)! };
};
const progressOf = (r: any): ProgressRow => ({ ...rowOf<ProgressRow>(r), milestoneDueOn: day(r.milestone_due_on)!, metOn: day(r.met_on), expectedOn: day(r.expected_on) });
export const basisOnOf = (r: ReportRow) => day((r as any).basisOn);
export const dutyIdOf = (r: ReportRow) => ((r as any).dutyId as string | null) ?? null;

function text(e: Record<string, string>, field: string, v: string | null | undefined, what: string, max = 4000): string {
  const t = (v ?? "").trim();
  if (!t) e[field] = what;
  else if (t.length > max) e[field] = `Use at most ${max} characters.`;
  return t;
}

/** A member of the permit's organization (any role); NOT_FOUND for anyone else. The permit must be issued. */
async function memberOfIssued(tx: Db, viewer: Viewer, permitId: string): Promise<PermitRow> {
  const p = await loadPermit(tx, permitId, true);
  if (!p || !(await roleIn(tx, viewer, p.organizationId))) throw notFound("That permit");
  if (p.status !== "ISSUED") throw conflict("Reports are filed under an issued permit.");
  return p;
}

async function lockDuty(tx: EntityManager, viewer: Viewer, dutyId: string): Promise<{ d: DutyRow; p: PermitRow }> {
  if (!isUuid(dutyId)) throw notFound("That task");
  const [row] = await tx.query(`SELECT * FROM industrial_duty WHERE id = $1 FOR UPDATE`, [dutyId]);
  if (!row) throw notFound("That task");
  const d = rowOf<DutyRow>(row);
  d.dueOn = day(row.due_on)!;
  const p = (await loadPermit(tx, d.permitId))!;
  if (!(await roleIn(tx, viewer, p.organizationId))) throw notFound("That task");
  return { d, p };
}

// ---------------------------------------------------------------------------------------------
// Violation notification and repeat sampling (SUL 1005(4))

export type NoticeInput = { dutyId: string; notifiedWhom: string; method: string; notifiedAt: string; text: string };

/**
 * The user records the notification it made of a violation: who was told, how, when and what.
 * It completes the NOTIFY duty; made after the rulebook's hours it is recorded as late (the law
 * asks for it all the same).
 */
export async function fileViolationNotice(ds: DataSource, viewer: Viewer, input: NoticeInput, requestId?: string): Promise<NoticeRow> {
  return ds.transaction(async (tx) => {
    const { d, p } = await lockDuty(tx, viewer, input.dutyId);
    if (d.kind !== "NOTIFY") throw conflict("This task is the repeat sampling: start the repeat sampling report instead.");
    const [existing] = await tx.query(`SELECT id FROM industrial_violation_notice WHERE duty_id = $1`, [d.id]);
    if (existing || d.doneAt) throw conflict("The notification of this violation is already recorded.");
    const district = await loadDistrict(tx, p.districtId);
    const e: Record<string, string> = {};
    const whom = text(e, "notifiedWhom", input.notifiedWhom, "Name the person at the district you told (SUL 1005(4)).", 200);
    const method = String(input.method ?? "").trim().toUpperCase();
    if (!(NOTICE_METHODS as readonly string[]).includes(method)) e.method = "Say how you told the district: by telephone, email, in person or by letter.";
    const at = zonedInstant(input.notifiedAt, district.timeZone);
    if (!at) e.notifiedAt = "Give the date and time you told the district, like 2026-12-04T09:30.";
    else if (at.getTime() > clock.now().getTime()) e.notifiedAt = "That time is in the future.";
    const body = text(e, "text", input.text, "Write what you told the district: the parameter, the result and what you are doing about it.");
    if (Object.keys(e).length) throw badInput(e);
    const onTime = at!.getTime() <= d.dueAt.getTime();
    const now = clock.now();
    const [row] = await tx.query(
      `INSERT INTO industrial_violation_notice (duty_id, permit_id, notified_whom, method, notified_at, text, on_time, filed_by_id, filed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [d.id, p.id, whom, method, at, body, onTime, viewer.userId, now],
    );
    await tx.query(`UPDATE industrial_duty SET done_at = $2, done_by_id = $3 WHERE id = $1`, [d.id, now, viewer.userId]);
    await audit(tx, actorOf(viewer, requestId), {
      action: "industrial.violation_notified",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { dutyId: d.id, noticeId: row.id, notifiedAt: at!.toISOString(), onTime },
    });
    return rowOf<NoticeRow>(row);
  });
}

/**
 * Starts the repeat sampling report from a RESAMPLE duty (one per duty). Its period runs from the
 * day the violation was learned to the duty's due date (or, started late, the rulebook's days
 * from today), so the repeat samples fall in it.
 */
export async function startResampleReport(ds: DataSource, viewer: Viewer, dutyId: string, requestId?: string): Promise<ReportRow> {
  return ds.transaction(async (tx) => {
    const { d, p } = await lockDuty(tx, viewer, dutyId);
    if (d.kind !== "RESAMPLE") throw conflict("This task is the notification: record the notification instead.");
    // A permit superseded after a change (SUL 1004 F) still owes the repeat sampling of a violation found while it was in force.
    if (p.status !== "ISSUED" && p.status !== "SUPERSEDED") throw conflict("Reports are filed under an issued permit.");
    const [existing] = await tx.query(`SELECT id FROM industrial_report WHERE duty_id = $1 AND amends_id IS NULL`, [d.id]);
    if (existing) throw conflict("The repeat sampling report of this violation is already started; continue it.", { reportId: existing.id });
    if (d.doneAt) throw conflict("This task is already done.");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p);
    const today = dateIn(district.timeZone);
    const learned = dateIn(district.timeZone, d.createdAt);
    const end = d.dueOn >= today ? d.dueOn : addCalendarDays(today, rb.require("industrial.resampleDays").value);
    const now = clock.now();
    const [row] = await tx.query(
      `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status, duty_id, created_at, updated_at)
       VALUES ($1, 'RESAMPLE', $2, $3, $4, 'DUE', $5, $6, $6) RETURNING *`,
      [p.id, learned, end, d.dueOn, d.id, now],
    );
    await audit(tx, actorOf(viewer, requestId), { action: "industrial.resample_report_started", entityType: "IndustrialReport", entityId: row.id, districtId: p.districtId, details: { dutyId: d.id } });
    return rowOf<ReportRow>(row);
  });
}

async function dutyParameter(db: Db, dutyId: string): Promise<string | null> {
  const [x] = await db.query(`SELECT r.parameter FROM industrial_duty d JOIN industrial_result r ON r.id = d.result_id WHERE d.id = $1`, [dutyId]);
  return x?.parameter ?? null;
}

// ---------------------------------------------------------------------------------------------
// Accidental or slug discharge (SUL 1011)

export type SlugInput = {
  permitId: string;
  occurredAt: string;
  notifiedAt: string;
  notifiedWhom: string;
  substance: string;
  estimatedVolumeGallons: number | null;
  description?: string | null;
};


/**
 * Records the immediate notification of an accidental or slug discharge (SUL 1011) and opens its
 * written report (a report of kind SLUG): due the rulebook's days after the occurrence, analyses
 * within its other figure. The district's Operators are emailed at once. Public once recorded:
 * accidental discharge reports are never confidential (SUL 1014).
 */
export async function reportSlugDischarge(ds: DataSource, viewer: Viewer, input: SlugInput, meta: { requestId?: string; publicUrl: string }): Promise<SlugRow> {
  return ds.transaction(async (tx) => {
    if (!isUuid(input.permitId)) throw notFound("That permit");
    const p = await memberOfIssued(tx, viewer, input.permitId);
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p);
    const written = rb.require("industrial.slugWrittenReportDays");
    const analyses = rb.require("industrial.slugAnalysesDays");
    const e: Record<string, string> = {};
    const now = clock.now();
    const occurredAt = zonedInstant(input.occurredAt, district.timeZone);
    if (!occurredAt) e.occurredAt = "Give the date and time of the discharge, like 2026-12-04T09:30.";
    else if (occurredAt.getTime() > now.getTime()) e.occurredAt = "That time is in the future.";
    const notifiedAt = zonedInstant(input.notifiedAt, district.timeZone);
    if (!notifiedAt) e.notifiedAt = "Give the date and time you told the district, like 2026-12-04T10:00.";
    else if (notifiedAt.getTime() > now.getTime()) e.notifiedAt = "That time is in the future.";
    else if (occurredAt && notifiedAt.getTime() < occurredAt.getTime()) e.notifiedAt = "The notification cannot come before the discharge.";
    const whom = text(e, "notifiedWhom", input.notifiedWhom, "Name the person at the district you told (SUL 1011).", 200);
    const substance = text(e, "substance", input.substance, "Say what was discharged (SUL 1011).", 500);
    const volume = input.estimatedVolumeGallons;
    if (volume === null || volume === undefined || !Number.isFinite(volume) || volume < 0) e.estimatedVolumeGallons = "Estimate the volume discharged, in gallons.";
    const description = (input.description ?? "").trim();
    if (description.length > 4000) e.description = "Use at most 4000 characters.";
    if (Object.keys(e).length) throw badInput(e);
    const occurredOn = dateIn(district.timeZone, occurredAt!);
    const writtenDueOn = addCalendarDays(occurredOn, written.value);
    const analysesDueOn = addCalendarDays(occurredOn, analyses.value);
    const [r] = await tx.query(
      `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status, created_at, updated_at)
       VALUES ($1, 'SLUG', $2, $3, $4, 'DUE', $5, $5) RETURNING id`,
      [p.id, occurredOn, analysesDueOn > writtenDueOn ? analysesDueOn : writtenDueOn, writtenDueOn, now],
    );
    const [row] = await tx.query(
      `INSERT INTO industrial_slug_discharge (permit_id, report_id, occurred_at, notified_at, notified_whom, substance, estimated_volume_gallons, description,
                                              written_due_on, analyses_due_on, filed_by_id, filed_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING *`,
      [p.id, r.id, occurredAt, notifiedAt, whom, substance, volume, description, writtenDueOn, analysesDueOn, viewer.userId, now],
    );
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.slug_reported",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { slugId: row.id, reportId: r.id, occurredAt: occurredAt!.toISOString(), substance, estimatedVolumeGallons: volume },
    });
    // A reminder the day before the written report is due.
    const remindOn = addCalendarDays(writtenDueOn, -1);
    if (remindOn > dateIn(district.timeZone))
      await enqueueJob(tx, {
        name: REMINDER_JOB,
        payload: { reportId: r.id, dueOn: writtenDueOn, publicUrl: meta.publicUrl },
        runAt: zonedWallTime(Date.parse(`${remindOn}T09:00:00Z`), district.timeZone),
        singletonKey: `industrial.dated-report-reminder:${r.id}:${writtenDueOn}`,
      });
    const [org] = await tx.query(`SELECT name FROM organization WHERE id = $1`, [p.organizationId]);
    for (const op of await staffOf(tx, p.districtId, "OPERATOR"))
      await enqueueEmail(tx, {
        to: op.email,
        recipientId: op.id,
        districtId: p.districtId,
        kind: "industrial.slug_reported",
        subject: `Accidental discharge reported: ${org.name}, permit ${p.permitNumber}`,
        body:
          `Hello ${op.display_name},\n\n${org.name} (${p.facilityName}, permit ${p.permitNumber}) reported an accidental or slug discharge (Sewer Use Law 1011).\n\n` +
          `Occurred: ${formatDateTime(occurredAt!, district.timeZone)}\nDistrict told: ${formatDateTime(notifiedAt!, district.timeZone)}, ${whom}\nDischarged: ${substance}\nEstimated volume: ${volume} gallons\n` +
          (description ? `Description: ${description}\n` : "") +
          `\nThe written report is due by ${formatDate(writtenDueOn)} (${written.section}); analyses by ${formatDate(analysesDueOn)}.\n\nSee it: ${meta.publicUrl}/industrial/slug/${row.id}\n\n${district.name}\n`,
      });
    return slugOf(row);
  });
}

/** The written report's text: the causes and the measures taken to prevent recurrence (SUL 1011); until it is signed. */
export async function saveSlugWrittenReport(ds: DataSource, viewer: Viewer, input: { slugId: string; causes: string; measures: string }, requestId?: string): Promise<SlugRow> {
  if (!isUuid(input.slugId)) throw notFound("That discharge report");
  return ds.transaction(async (tx) => {
    const [s] = await tx.query(`SELECT * FROM industrial_slug_discharge WHERE id = $1 FOR UPDATE`, [input.slugId]);
    if (!s) throw notFound("That discharge report");
    const p = (await loadPermit(tx, s.permit_id))!;
    if (!(await roleIn(tx, viewer, p.organizationId))) throw notFound("That discharge report");
    const r = (await loadReport(tx, s.report_id, true))!;
    if (r.status === "SIGNED") throw conflict("The written report is signed and cannot be changed. To correct it, start an amended report.");
    const e: Record<string, string> = {};
    const causes = text(e, "causes", input.causes, "Describe the causes of the discharge (SUL 1011).");
    const measures = text(e, "measures", input.measures, "Describe the measures taken to prevent it happening again (SUL 1011).");
    if (Object.keys(e).length) throw badInput(e);
    const now = clock.now();
    const row = firstRow(await tx.query(`UPDATE industrial_slug_discharge SET causes = $2, measures = $3, updated_at = $4 WHERE id = $1 RETURNING *`, [s.id, causes, measures, now]));
    await tx.query(`UPDATE industrial_report SET status = CASE WHEN status = 'DUE' THEN 'DRAFT' ELSE status END, started_at = COALESCE(started_at, $2), updated_at = $2 WHERE id = $1`, [r.id, now]);
    await audit(tx, actorOf(viewer, requestId), { action: "industrial.slug_written_saved", entityType: "IndustrialReport", entityId: r.id, districtId: p.districtId, details: { slugId: s.id } });
    return slugOf(row);
  });
}

/** One slug discharge: anyone who may see the permit (SUL 1014: never confidential); NOT_FOUND otherwise. */
export async function viewableSlug(db: Db, viewer: Viewer | null, id: string): Promise<{ s: SlugRow; member: boolean; staff: boolean }> {
  if (!isUuid(id)) throw notFound("That discharge report");
  const [row] = await db.query(`SELECT * FROM industrial_slug_discharge WHERE id = $1`, [id]);
  if (!row) throw notFound("That discharge report");
  const p = (await loadPermit(db, row.permit_id))!;
  const rel = await relationTo(db, viewer, p);
  if (!mayView(rel, p)) throw notFound("That discharge report");
  return { s: slugOf(row), member: rel.role !== null, staff: rel.staff };
}

export async function slugsOfPermits(db: Db, permitIds: readonly string[]): Promise<SlugRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_slug_discharge WHERE permit_id = ANY($1::uuid[]) ORDER BY permit_id, occurred_at DESC, id`, [permitIds]);
  return rows.map(slugOf);
}

export async function slugsOfReports(db: Db, reportIds: readonly string[]): Promise<SlugRow[]> {
  if (!reportIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_slug_discharge WHERE report_id = ANY($1::uuid[])`, [reportIds]);
  return rows.map(slugOf);
}

/** Staff: the district's slug discharges, newest first, a page at a time (`after`: the last page's nextCursor). */
export async function districtSlugs(ds: DataSource, viewer: Viewer, districtId: string, first = 50, after: string | null = null): Promise<{ items: SlugRow[]; nextCursor: string | null }> {
  if (!isUuid(districtId) || !isStaff(viewer, districtId)) throw forbidden("Only this district's staff see its reports.");
  const c = decodeCursor(after, isInstant);
  const size = pageSize(first);
  const rows = await ds.query(
    `SELECT s.* FROM industrial_slug_discharge s JOIN industrial_permit p ON p.id = s.permit_id
      WHERE p.district_id = $1 AND ($3::timestamptz IS NULL OR (s.occurred_at, s.id) < ($3::timestamptz, $4::uuid))
      ORDER BY s.occurred_at DESC, s.id DESC LIMIT $2`,
    [districtId, size + 1, c?.key ?? null, c?.id ?? null],
  );
  const items: SlugRow[] = rows.slice(0, size).map(slugOf);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > size && last ? encodeCursor(last.occurredAt.toISOString(), last.id) : null };
}

/** Staff: the district's violation notifications, newest first, a page at a time (`after`: the last page's nextCursor). */
export async function districtNotices(ds: DataSource, viewer: Viewer, districtId: string, first = 50, after: string | null = null): Promise<{ items: NoticeRow[]; nextCursor: string | null }> {
  if (!isUuid(districtId) || !isStaff(viewer, districtId)) throw forbidden("Only this district's staff see its reports.");
  const c = decodeCursor(after, isInstant);
  const size = pageSize(first);
  const rows = await ds.query(
    `SELECT n.* FROM industrial_violation_notice n JOIN industrial_permit p ON p.id = n.permit_id
      WHERE p.district_id = $1 AND ($3::timestamptz IS NULL OR (n.filed_at, n.id) < ($3::timestamptz, $4::uuid))
      ORDER BY n.filed_at DESC, n.id DESC LIMIT $2`,
    [districtId, size + 1, c?.key ?? null, c?.id ?? null],
  );
  const items = rows.slice(0, size).map((r: any) => rowOf<NoticeRow>(r));
  const last = items.at(-1);
  return { items, nextCursor: rows.length > size && last ? encodeCursor(last.filedAt.toISOString(), last.id) : null };
}

export async function noticesOfDuties(db: Db, dutyIds: readonly string[]): Promise<NoticeRow[]> {
  if (!dutyIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_violation_notice WHERE duty_id = ANY($1::uuid[])`, [dutyIds]);
  return rows.map((r: any) => rowOf<NoticeRow>(r));
}

export async function resampleReportsOfDuties(db: Db, dutyIds: readonly string[]): Promise<ReportRow[]> {
  if (!dutyIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_report WHERE duty_id = ANY($1::uuid[]) AND amends_id IS NULL`, [dutyIds]);
  return rows.map((r: any) => rowOf<ReportRow>(r));
}

export async function dutiesOfPermits(db: Db, permitIds: readonly string[]): Promise<DutyRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_duty WHERE permit_id = ANY($1::uuid[]) ORDER BY permit_id, created_at DESC, kind, id`, [permitIds]);
  return rows.map((r: any) => ({ ...rowOf<DutyRow>(r), dueOn: day(r.due_on)! }));
}

/** Whether a done duty was done in time: the notification's time for NOTIFY, the signing day for RESAMPLE; null while open. */
export function dutyOnTime(d: DutyRow, notice: NoticeRow | undefined, timeZone: string): boolean | null {
  if (d.kind === "NOTIFY") return notice ? notice.onTime : d.doneAt ? d.doneAt.getTime() <= d.dueAt.getTime() : null;
  return d.doneAt ? dateIn(timeZone, d.doneAt) <= d.dueOn : null;
}

// ---------------------------------------------------------------------------------------------
// 90-day compliance report and baseline monitoring report (SUL 1005(1), (2))

export const DATED_KINDS = ["NINETY_DAY", "BASELINE"] as const;

/**
 * The Operator sets the date a 90-day report (final compliance date or start of discharge,
 * 1005(2)) or a baseline report (promulgation of the categorical standard, 1005(1)) counts from;
 * this makes the report with its due date and a reminder 14 days before. While nothing is
 * entered the date can be corrected; once the report is started it stays.
 */
export async function setDatedReport(
  ds: DataSource,
  viewer: Viewer,
  input: { permitId: string; kind: string; basisOn: string },
  meta: { requestId?: string; publicUrl: string },
): Promise<ReportRow> {
  return ds.transaction(async (tx) => {
    if (!isUuid(input.permitId)) throw notFound("That permit");
    const p = await loadPermit(tx, input.permitId, true);
    if (!p || !isStaff(viewer, p.districtId) || !p.submittedAt) throw notFound("That permit");
    requireOperator(viewer, p.districtId);
    if (p.status !== "ISSUED") throw conflict("The report dates are set on an issued permit.");
    const kind = String(input.kind ?? "").toUpperCase();
    if (!(DATED_KINDS as readonly string[]).includes(kind)) throw badInput({ kind: "Choose NINETY_DAY or BASELINE." });
    if (!isCalendarDate(input.basisOn ?? "")) throw badInput({ basisOn: "Give the date like 2027-03-01." });
    const rb = await permitRulebook(tx, p);
    const days = rb.require(kind === "NINETY_DAY" ? "industrial.complianceReportDays" : "industrial.baselineReportDays");
    const dueOn = addCalendarDays(input.basisOn, days.value);
    const periodStart = kind === "NINETY_DAY" || !p.effectiveOn || input.basisOn < p.effectiveOn ? input.basisOn : p.effectiveOn;
    const now = clock.now();
    const [existing] = await tx.query(`SELECT * FROM industrial_report WHERE permit_id = $1 AND kind = $2 AND amends_id IS NULL FOR UPDATE`, [p.id, kind]);
    let row: any;
    if (existing) {
      if (existing.status !== "DUE") throw conflict("This report is already started; its date can no longer change.");
      row = firstRow(await tx.query(`UPDATE industrial_report SET basis_on = $2, period_start = $3, period_end = $4, due_on = $4, updated_at = $5 WHERE id = $1 RETURNING *`, [
        existing.id,
        input.basisOn,
        periodStart,
        dueOn,
        now,
      ]));
    } else {
      [row] = await tx.query(
        `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status, basis_on, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $4, 'DUE', $5, $6, $6) RETURNING *`,
        [p.id, kind, periodStart, dueOn, input.basisOn, now],
      );
    }
    const district = await loadDistrict(tx, p.districtId);
    const remindOn = addCalendarDays(dueOn, -14);
    if (remindOn > dateIn(district.timeZone))
      await enqueueJob(tx, {
        name: REMINDER_JOB,
        payload: { reportId: row.id, dueOn, publicUrl: meta.publicUrl },
        runAt: zonedWallTime(Date.parse(`${remindOn}T09:00:00Z`), district.timeZone),
        singletonKey: `industrial.dated-report-reminder:${row.id}:${dueOn}`,
      });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.report_date_set",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { reportId: row.id, kind, basisOn: input.basisOn, dueOn },
    });
    return rowOf<ReportRow>(row);
  });
}

registerJobHandler(REMINDER_JOB, async (ds, payload: { reportId: string; dueOn: string; publicUrl?: string }, _log, job) => {
  await ds.transaction(async (tx) => {
    await job.done(tx); // the reminder and the job's completion commit together: one email
    const r = await loadReport(tx, payload.reportId);
    if (!r || r.status === "SIGNED" || r.dueOn !== payload.dueOn) return;
    const p = await loadPermit(tx, r.permitId);
    if (!p || p.status !== "ISSUED") return;
    const district = await loadDistrict(tx, p.districtId);
    const title = REPORT_TITLES[r.kind] ?? REPORT_TITLES.PERIODIC;
    const what = title[0].toLowerCase() + title.slice(1);
    await notifyMembers(
      tx,
      p.organizationId,
      district,
      "industrial.report_reminder",
      `${title.replace(/ \(.*$/, "")} due ${formatDate(r.dueOn)}: permit ${p.permitNumber}`,
      `The ${what} of permit ${p.permitNumber} is due by ${formatDate(r.dueOn)}. Enter it and have the Authorized Representative sign it in the portal.\n\nSee it: ${payload.publicUrl ?? ""}/industrial/reports/${r.id}`,
    );
  });
});

export type StatementInput = { reportId: string; standardsMet: boolean; measures?: string | null; professionalName: string; professionalCredential: string };

/**
 * The 90-day report's statement (SUL 1005(2)): whether the standards are met consistently and,
 * if not, the additional O&M or pretreatment needed; reviewed and certified by a qualified
 * professional (name and credential).
 */
export async function saveNinetyDayStatement(ds: DataSource, viewer: Viewer, input: StatementInput, requestId?: string): Promise<StatementRow> {
  return ds.transaction(async (tx) => {
    const r = await loadReport(tx, input.reportId, true);
    if (!r) throw notFound("That report");
    const p = (await loadPermit(tx, r.permitId))!;
    if (!(await roleIn(tx, viewer, p.organizationId))) throw notFound("That report");
    if (r.kind !== "NINETY_DAY") throw conflict("Only a 90-day compliance report has this statement.");
    if (r.status === "SIGNED") throw conflict("This report is signed and cannot be changed. To correct it, start an amended report.");
    const e: Record<string, string> = {};
    if (typeof input.standardsMet !== "boolean") e.standardsMet = "Say whether the standards are met consistently.";
    const measures = (input.measures ?? "").trim();
    if (input.standardsMet === false && !measures) e.measures = "Describe the additional operation and maintenance or pretreatment needed to meet the standards (SUL 1005(2)).";
    const name = text(e, "professionalName", input.professionalName, "Name the qualified professional who reviewed the report.", 200);
    const credential = text(e, "professionalCredential", input.professionalCredential, "Give the professional's credential, e.g. P.E. licence number.", 200);
    if (Object.keys(e).length) throw badInput(e);
    const now = clock.now();
    const [row] = await tx.query(
      `INSERT INTO industrial_report_statement (report_id, standards_met, measures, professional_name, professional_credential, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (report_id) DO UPDATE SET standards_met = EXCLUDED.standards_met, measures = EXCLUDED.measures, professional_name = EXCLUDED.professional_name,
         professional_credential = EXCLUDED.professional_credential, updated_at = EXCLUDED.updated_at RETURNING *`,
      [r.id, input.standardsMet, measures || null, name, credential, now],
    );
    await tx.query(`UPDATE industrial_report SET updated_at = $2 WHERE id = $1`, [r.id, now]);
    await audit(tx, actorOf(viewer, requestId), { action: "industrial.statement_saved", entityType: "IndustrialReport", entityId: r.id, districtId: p.districtId, details: { standardsMet: input.standardsMet } });
    return rowOf<StatementRow>(row);
  });
}

export async function statementsOf(db: Db, reportIds: readonly string[]): Promise<StatementRow[]> {
  if (!reportIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_report_statement WHERE report_id = ANY($1::uuid[])`, [reportIds]);
  return rows.map((r: any) => rowOf<StatementRow>(r));
}

// ---------------------------------------------------------------------------------------------
// Progress reports on compliance-schedule milestones (SUL 1004 A(12)(c))

export type ProgressInput = { permitId: string; milestoneIndex: number; met: boolean; metOn?: string | null; reason?: string | null; expectedOn?: string | null };

/**
 * A progress report on one milestone of the permit's compliance schedule, due at most the
 * rulebook's days (14) after the milestone's date: met on a date, or not met with the reason and
 * the date expected. A later report on the same milestone supersedes the earlier one.
 */
export async function fileProgressReport(ds: DataSource, viewer: Viewer, input: ProgressInput, requestId?: string): Promise<ProgressRow> {
  return ds.transaction(async (tx) => {
    if (!isUuid(input.permitId)) throw notFound("That permit");
    const p = await memberOfIssued(tx, viewer, input.permitId);
    const schedule = (p.complianceSchedule ?? []) as Milestone[];
    const m = Number.isInteger(input.milestoneIndex) ? schedule[input.milestoneIndex] : undefined;
    if (!m) throw badInput({ milestoneIndex: "Choose a milestone of the permit's compliance schedule." });
    const district = await loadDistrict(tx, p.districtId);
    const today = dateIn(district.timeZone);
    const e: Record<string, string> = {};
    let metOn: string | null = null;
    let reason: string | null = null;
    let expectedOn: string | null = null;
    if (input.met === true) {
      if (!isCalendarDate(input.metOn ?? "")) e.metOn = "Give the date the milestone was met, like 2027-06-01.";
      else if (input.metOn! > today) e.metOn = "That date is in the future.";
      else metOn = input.metOn!;
    } else if (input.met === false) {
      reason = text(e, "reason", input.reason, "Give the reason for the delay (SUL 1004 A(12)(c)).");
      if (!isCalendarDate(input.expectedOn ?? "")) e.expectedOn = "Give the date you expect to meet it, like 2027-08-01.";
      else if (input.expectedOn! < today) e.expectedOn = "The expected date cannot be in the past.";
      else expectedOn = input.expectedOn!;
    } else e.met = "Say whether the milestone was met.";
    if (Object.keys(e).length) throw badInput(e);
    const now = clock.now();
    const [row] = await tx.query(
      `INSERT INTO industrial_progress_report (permit_id, milestone_index, milestone, milestone_due_on, met, met_on, reason, expected_on, filed_by_id, filed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
      [p.id, input.milestoneIndex, m.milestone, m.dueOn, input.met, metOn, reason, expectedOn, viewer.userId, now],
    );
    await audit(tx, actorOf(viewer, requestId), {
      action: "industrial.progress_reported",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { milestoneIndex: input.milestoneIndex, met: input.met, metOn, expectedOn },
    });
    return progressOf(row);
  });
}

export async function progressOfPermits(db: Db, permitIds: readonly string[]): Promise<ProgressRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_progress_report WHERE permit_id = ANY($1::uuid[]) ORDER BY permit_id, milestone_index, filed_at, id`, [permitIds]);
  return rows.map(progressOf);
}

export type MilestoneView = {
  index: number;
  milestone: string;
  dueOn: string;
  progressDueOn: string;
  progressDaysLeft: number | null;
  latest: ProgressRow | null;
  /** Met on a date, or null. */
  metOn: string | null;
};

/** The schedule's milestones with their latest progress report and when the report is due. */
export function milestonesOf(p: PermitRow, progress: ProgressRow[], progressDays: number, timeZone: string): MilestoneView[] {
  const schedule = (p.complianceSchedule ?? []) as Milestone[];
  return schedule.map((m, index) => {
    const mine = progress.filter((x) => x.permitId === p.id && x.milestoneIndex === index);
    const latest = mine.at(-1) ?? null;
    const progressDueOn = addCalendarDays(m.dueOn, progressDays);
    return { index, milestone: m.milestone, dueOn: m.dueOn, progressDueOn, progressDaysLeft: mine.length ? null : daysLeft(progressDueOn, timeZone), latest, metOn: mine.filter((x) => x.met).map((x) => x.metOn!).sort()[0] ?? null };
  });
}

// ---------------------------------------------------------------------------------------------
// What the other kinds add to signing

reportKindHooks.content = async (db, r) => {
  if (r.kind === "RESAMPLE") {
    const dutyId = dutyIdOf(r);
    return dutyId ? { resampleOf: { dutyId, parameter: await dutyParameter(db, dutyId) } } : null;
  }
  if (r.kind === "SLUG") {
    const root = await rootReport(db, r);
    const [s] = await slugsOfReports(db, [root.id]);
    if (!s) return null;
    return {
      slugDischarge: {
        occurredAt: s.occurredAt.toISOString(),
        notifiedAt: s.notifiedAt.toISOString(),
        notifiedWhom: s.notifiedWhom,
        substance: s.substance,
        estimatedVolumeGallons: s.estimatedVolumeGallons,
        description: s.description,
        causes: s.causes,
        measures: s.measures,
        writtenDueOn: s.writtenDueOn,
        analysesDueOn: s.analysesDueOn,
      },
    };
  }
  if (r.kind === "NINETY_DAY" || r.kind === "BASELINE") {
    const [st] = r.kind === "NINETY_DAY" ? await statementsOf(db, [r.id]) : [];
    return {
      basisOn: basisOnOf(r),
      ...(st ? { statement: { standardsMet: st.standardsMet, measures: st.measures, professionalName: st.professionalName, professionalCredential: st.professionalCredential } } : {}),
    };
  }
  return null;
};

/** An amendment's first report (the one the slug record points to), found in one query however long the chain. */
export async function rootReport(db: Db, r: ReportRow): Promise<ReportRow> {
  if (!r.amendsId) return r;
  const [root] = await db.query(
    `WITH RECURSIVE chain AS (
       SELECT id, amends_id, 1 AS depth FROM industrial_report WHERE id = $1
       UNION ALL
       SELECT x.id, x.amends_id, c.depth + 1 FROM industrial_report x JOIN chain c ON x.id = c.amends_id WHERE c.depth < 50)
     SELECT r.* FROM chain c JOIN industrial_report r ON r.id = c.id ORDER BY c.depth DESC LIMIT 1`,
    [r.amendsId],
  );
  return root ? rowOf<ReportRow>(root) : r;
}

reportKindHooks.beforeSign = async (tx, r) => {
  if (r.kind === "RESAMPLE") {
    const dutyId = dutyIdOf(r);
    const parameter = dutyId ? await dutyParameter(tx, dutyId) : null;
    if (parameter) {
      const results = await resultsOf(tx, [r.id]);
      if (!results.some((x) => x.parameter === parameter)) throw conflict(`The repeat sampling must include ${parameter}, the parameter that exceeded its limit (Sewer Use Law 1005(4)).`);
    }
  }
  if (r.kind === "SLUG") {
    const [s] = await slugsOfReports(tx, [(await rootReport(tx, r)).id]);
    if (!s?.causes || !s?.measures) throw badInput({ causes: "Describe the causes and the measures taken before signing (SUL 1011)." });
  }
  if (r.kind === "NINETY_DAY") {
    const [st] = await statementsOf(tx, [r.id]);
    if (!st) throw badInput({ statement: "Complete the statement and the qualified professional's certification before signing (SUL 1005(2))." });
  }
};

reportKindHooks.signed = async (tx, viewer, r, p) => {
  if (r.kind !== "RESAMPLE") return;
  const dutyId = dutyIdOf(r);
  if (!dutyId) return;
  // Signing the repeat sampling meets the duty it was started from (SUL 1005(4)).
  await tx.query(`UPDATE industrial_duty SET done_at = $2, done_by_id = $3 WHERE id = $1 AND done_at IS NULL`, [dutyId, clock.now(), viewer.userId]);
  await audit(tx, actorOf(viewer), { action: "industrial.duty_done", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, details: { dutyId, kind: "RESAMPLE", reportId: r.id } });
};


/**
 * What a reminder of a save's duties (SUL 1005(4)) is about: the parameters whose duty of the
 * kind and due time is still open, with the report, permit and district; null when none is.
 */
async function openDuties(tx: EntityManager, reportId: string, kind: "NOTIFY" | "RESAMPLE", due: { at: string } | { on: string }) {
  const open: { parameter: string; section: string }[] = await tx.query(
    `SELECT x.parameter, min(d.section) AS section FROM industrial_duty d JOIN industrial_result x ON x.id = d.result_id
      WHERE d.report_id = $1 AND d.kind = $2 AND d.done_at IS NULL AND ${"at" in due ? "d.due_at = $3::timestamptz" : "d.due_on = $3::date"}
      GROUP BY x.parameter ORDER BY x.parameter`,
    [reportId, kind, "at" in due ? due.at : due.on],
  );
  if (!open.length) return null;
  const r = await loadReport(tx, reportId);
  const p = r && (await loadPermit(tx, r.permitId));
  if (!r || !p) return null;
  return { r, p, district: await loadDistrict(tx, p.districtId), parameters: open.map((o) => o.parameter), section: open[0].section };
}

/**
 * SUL 1005(4): the repeat sampling's results are due within the rulebook's days of learning of a
 * violation. A week before, the organization is reminded of each repeat sampling still owed
 * (one job per save that opened such duties; see insertResults).
 */
registerJobHandler(RESAMPLE_REMINDER_JOB, async (ds, payload: { reportId: string; dueOn: string; publicUrl?: string }, _log, job) => {
  await ds.transaction(async (tx) => {
    await job.done(tx); // the reminder and the job's completion commit together: one email
    const o = await openDuties(tx, payload.reportId, "RESAMPLE", { on: payload.dueOn });
    if (!o) return;
    const parameters = o.parameters.join(", ");
    await notifyMembers(
      tx,
      o.p.organizationId,
      o.district,
      "industrial.resample_reminder",
      `Repeat sampling due ${formatDate(payload.dueOn)}: ${parameters}, permit ${o.p.permitNumber}`,
      `The results of the repeat sampling for ${parameters} under permit ${o.p.permitNumber} are due by ${formatDate(payload.dueOn)} (${o.section}). ` +
        `Start the repeat sampling report from the violation's task, enter the results and have the Authorized Representative sign it.\n\nSee the permit's violations: ${payload.publicUrl ?? ""}/industrial/${o.p.id}/events`,
    );
    await audit(tx, { userId: null }, { action: "industrial.resample_reminded", entityType: "IndustrialReport", entityId: o.r.id, districtId: o.p.districtId, details: { dueOn: payload.dueOn, parameters: o.parameters } });
  });
});

/**
 * SUL 1005(4): the District Operator is to be told of a violation within the rulebook's hours of
 * learning of it. Before that time runs out (see insertResults), the organization is reminded of
 * each notification still owed.
 */
registerJobHandler(NOTIFY_REMINDER_JOB, async (ds, payload: { reportId: string; dueAt: string; publicUrl?: string }, _log, job) => {
  await ds.transaction(async (tx) => {
    await job.done(tx); // the reminder and the job's completion commit together: one email
    const o = await openDuties(tx, payload.reportId, "NOTIFY", { at: payload.dueAt });
    if (!o) return;
    const parameters = o.parameters.join(", ");
    const by = formatDateTime(new Date(payload.dueAt), o.district.timeZone);
    await notifyMembers(
      tx,
      o.p.organizationId,
      o.district,
      "industrial.notify_reminder",
      `Notify the District Operator by ${by}: ${parameters} violation, permit ${o.p.permitNumber}`,
      `The District Operator has not yet been told of the ${parameters} violation under permit ${o.p.permitNumber}: the law requires it by ${by} (${o.section}). ` +
        `Telephone, email or tell the Operator in person, then record who was told, how and when on the violation's task; a notification made later is recorded as late.\n\nSee the permit's violations: ${payload.publicUrl ?? ""}/industrial/${o.p.id}/events`,
    );
    await audit(tx, { userId: null }, { action: "industrial.notify_reminded", entityType: "IndustrialReport", entityId: o.r.id, districtId: o.p.districtId, details: { dueAt: payload.dueAt, parameters: o.parameters } });
  });
});

/** On a milestone's date, unless a progress report on it is already filed (SUL 1004 A(12)(c)). */
registerJobHandler(PROGRESS_REMINDER_JOB, async (ds, payload: { permitId: string; milestoneIndex: number; progressDueOn: string; publicUrl?: string }, _log, job) => {
  await ds.transaction(async (tx) => {
    await job.done(tx); // the reminder and the job's completion commit together: one email
    const p = await loadPermit(tx, payload.permitId);
    const m = ((p?.complianceSchedule ?? []) as Milestone[])[payload.milestoneIndex];
    if (!p || p.status !== "ISSUED" || !m) return;
    const [filed] = await tx.query(`SELECT 1 FROM industrial_progress_report WHERE permit_id = $1 AND milestone_index = $2 LIMIT 1`, [p.id, payload.milestoneIndex]);
    if (filed) return;
    const district = await loadDistrict(tx, p.districtId);
    const snc = (await permitRulebook(tx, p)).entry("industrial.sncMilestoneDays");
    await notifyMembers(
      tx,
      p.organizationId,
      district,
      "industrial.progress_reminder",
      `Progress report due ${formatDate(payload.progressDueOn)}: "${m.milestone}", permit ${p.permitNumber}`,
      `The compliance schedule of permit ${p.permitNumber} has the milestone "${m.milestone}" on ${formatDate(m.dueOn)}. ` +
        `Say whether it was met, or why not and when it will be, in a progress report by ${formatDate(payload.progressDueOn)} (Sewer Use Law 1004 A(12)(c)). ` +
        (typeof snc.value === "number" ? `A milestone missed by ${snc.value} days or more is significant non-compliance (${snc.section}).` : "") +
        `\n\nFile it: ${payload.publicUrl ?? ""}/industrial/${p.id}/events`,
    );
    await audit(tx, { userId: null }, { action: "industrial.progress_reminded", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, details: { milestoneIndex: payload.milestoneIndex } });
  });
});

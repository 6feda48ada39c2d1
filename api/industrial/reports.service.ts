import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, isCalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { isUuid } from "../documents/documents.service.js";
import { actorOf, loadDistrict, loadPermit, mayView, relationTo, roleIn, rowOf, type Db, type PermitRow } from "./common.js";
import { type Evaluation, type SampleType, type Unit } from "./limits.js";

/**
 * Compliance reports (SUL 1005, 1011): the permit's schedule made one report per period; members
 * of the industrial user enter or upload lab results, each judged against the permit's limits as
 * it is saved; an exceedance opens the duties of SUL 1005(4). Only the organization's Authorized
 * Representative signs, re-entering the password, after reviewing the copy and the certification
 * (EPA CROMERR, 40 CFR Part 3); the server keeps a copy of record with its SHA-256 that nothing
 * can change. A signed report is never edited: an amendment is a new report.
 */

export type ReportRow = {
  id: string;
  permitId: string;
  kind: string;
  periodStart: string;
  periodEnd: string;
  dueOn: string;
  status: "DUE" | "DRAFT" | "SIGNED";
  amendsId: string | null;
  startedAt: Date | null;
  signedAt: Date | null;
  signerId: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export type ResultRow = {
  id: string;
  reportId: string;
  permitId: string;
  parameter: string;
  sampleType: SampleType;
  sampledAt: Date;
  value: number | null;
  unit: Unit;
  belowDetection: boolean;
  detectionLimit: number | null;
  flowMgd: number | null;
  lab: string;
  method: string;
  status: Evaluation["status"];
  basis: string | null;
  limitValue: number | null;
  limitUnit: string | null;
  comparedValue: number | null;
  ratio: number | null;
  section: string | null;
  message: string;
  conversion: string | null;
  createdById: string;
  createdAt: Date;
};

export type DutyRow = {
  id: string;
  permitId: string;
  reportId: string;
  resultId: string;
  kind: "NOTIFY" | "RESAMPLE";
  text: string;
  section: string;
  dueAt: Date;
  dueOn: string;
  doneAt: Date | null;
  doneById: string | null;
  createdAt: Date;
};

export type CopyOfRecordRow = {
  id: string;
  reportId: string;
  document: string;
  sha256: string;
  signerId: string;
  signerName: string;
  signerEmail: string;
  certification: string;
  receivedAt: Date;
};

/** What each kind of report is called in its copy of record and emails. */
export const REPORT_TITLES: Record<string, string> = {
  PERIODIC: "Periodic compliance report (Sewer Use Law 1005(3))",
  RESAMPLE: "Repeat sampling report after a violation (Sewer Use Law 1005(4))",
  NINETY_DAY: "90-day compliance report (Sewer Use Law 1005(2))",
  BASELINE: "Baseline monitoring report (Sewer Use Law 1005(1))",
  SLUG: "Written report of an accidental or slug discharge (Sewer Use Law 1011)",
};

/**
 * What the other report kinds add (events.service.ts fills it in): content signed with the
 * report, a check before signing, and what signing completes (e.g. the RESAMPLE duty).
 */
export const reportKindHooks: {
  content?: (db: Db, r: ReportRow) => Promise<Record<string, unknown> | null>;
  beforeSign?: (tx: EntityManager, r: ReportRow) => Promise<void>;
  signed?: (tx: EntityManager, viewer: Viewer, r: ReportRow, p: PermitRow, receivedAt: Date) => Promise<void>;
} = {};

export async function loadReport(db: Db, id: string, lock = false): Promise<ReportRow | null> {
  if (!isUuid(id)) return null;
  const rows = await db.query(`SELECT * FROM industrial_report WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
  return rows[0] ? rowOf<ReportRow>(rows[0]) : null;
}

export async function reportsOf(db: Db, permitIds: readonly string[]): Promise<ReportRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_report WHERE permit_id = ANY($1::uuid[]) ORDER BY permit_id, due_on, created_at, id`, [permitIds]);
  return rows.map((r: any) => rowOf<ReportRow>(r));
}

export async function resultsOf(db: Db, reportIds: readonly string[]): Promise<ResultRow[]> {
  if (!reportIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_result WHERE report_id = ANY($1::uuid[]) ORDER BY report_id, sampled_at, created_at, id`, [reportIds]);
  return rows.map((r: any) => rowOf<ResultRow>(r));
}

export async function dutiesOfReports(db: Db, reportIds: readonly string[]): Promise<DutyRow[]> {
  if (!reportIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_duty WHERE report_id = ANY($1::uuid[]) ORDER BY report_id, due_at, kind, id`, [reportIds]);
  return rows.map((r: any) => rowOf<DutyRow>(r));
}

export async function openDutiesOfPermits(db: Db, permitIds: readonly string[]): Promise<DutyRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_duty WHERE permit_id = ANY($1::uuid[]) AND done_at IS NULL ORDER BY permit_id, due_at, kind, id`, [permitIds]);
  return rows.map((r: any) => rowOf<DutyRow>(r));
}

export async function copyOfRecord(db: Db, reportId: string): Promise<CopyOfRecordRow | null> {
  const rows = await db.query(`SELECT * FROM industrial_copy_of_record WHERE report_id = $1`, [reportId]);
  return rows[0] ? rowOf<CopyOfRecordRow>(rows[0]) : null;
}

/**
 * A report the viewer may see: members and staff always; anyone once it is signed and its permit
 * public (SUL 1014: reports and their values are public records). NOT_FOUND otherwise.
 */
export async function viewableReport(db: Db, viewer: Viewer | null, id: string, lock = false): Promise<{ r: ReportRow; p: PermitRow; member: boolean; staff: boolean }> {
  const r = await loadReport(db, id, lock);
  if (!r) throw notFound("That report");
  const p = (await loadPermit(db, r.permitId))!;
  const rel = await relationTo(db, viewer, p);
  const member = rel.role !== null;
  const staff = rel.staff && p.submittedAt !== null;
  if (!member && !staff && !(r.status === "SIGNED" && mayView(rel, p))) throw notFound("That report");
  return { r, p, member, staff };
}

/** A report one of the organization's members may change: not signed, permit issued. */
export async function editableReport(tx: EntityManager, viewer: Viewer, id: string): Promise<{ r: ReportRow; p: PermitRow }> {
  const r = await loadReport(tx, id, true);
  if (!r) throw notFound("That report");
  const p = (await loadPermit(tx, r.permitId))!;
  if (!(await roleIn(tx, viewer, p.organizationId))) throw notFound("That report");
  if (r.status === "SIGNED") throw conflict("This report is signed and cannot be changed. To correct it, start an amended report.");
  // A permit superseded after a change (SUL 1004 F) still owes the reports of the days it was in force.
  const owedAfterEnd = p.status === "SUPERSEDED" && p.supersededOn !== null && r.periodStart < p.supersededOn;
  if (p.status !== "ISSUED" && !owedAfterEnd) throw conflict("Reports are filed under an issued permit.");
  return { r, p };
}

/** Who saved or signed, for the emails and the copy of record's links. */
export type Meta = { requestId?: string; publicUrl: string };
export const RESAMPLE_REMINDER_JOB = "industrial.resample-reminder";
export const NOTIFY_REMINDER_JOB = "industrial.notify-reminder";

/** An amendment (SUL 1005): a new draft report for the same period, starting from the signed one's results. */
export async function amendReport(ds: DataSource, viewer: Viewer, reportId: string, requestId?: string): Promise<ReportRow> {
  return ds.transaction(async (tx) => {
    const r = await loadReport(tx, reportId, true);
    if (!r) throw notFound("That report");
    const p = (await loadPermit(tx, r.permitId))!;
    const role = await roleIn(tx, viewer, p.organizationId);
    if (!role) throw notFound("That report");
    if (r.status !== "SIGNED") throw conflict("Only a signed report is amended; a draft can still be edited.");
    const [existing] = await tx.query(`SELECT id FROM industrial_report WHERE amends_id = $1`, [r.id]);
    if (existing) throw conflict("This report already has an amendment; continue that one.", { amendmentId: existing.id });
    const now = clock.now();
    const [row] = await tx.query(
      `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status, amends_id, started_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'DRAFT', $6, $7, $7, $7) RETURNING *`,
      [p.id, r.kind, r.periodStart, r.periodEnd, r.dueOn, r.id, now],
    );
    await tx.query(
      `INSERT INTO industrial_result (report_id, permit_id, parameter, sample_type, sampled_at, value, unit, below_detection, detection_limit, flow_mgd, lab, method,
                                      status, basis, limit_value, limit_unit, compared_value, ratio, section, message, conversion, created_by_id, created_at)
       SELECT $2, permit_id, parameter, sample_type, sampled_at, value, unit, below_detection, detection_limit, flow_mgd, lab, method,
              status, basis, limit_value, limit_unit, compared_value, ratio, section, message, conversion, $3, $4
         FROM industrial_result WHERE report_id = $1 ORDER BY sampled_at, created_at, id`,
      [r.id, row.id, viewer.userId, now],
    );
    await tx.query(
      `INSERT INTO industrial_daily_flow (report_id, permit_id, day, flow_gpd, entered_value, entered_unit, average_gpd, above_average, created_by_id, created_at)
       SELECT $2, permit_id, day, flow_gpd, entered_value, entered_unit, average_gpd, above_average, $3, $4 FROM industrial_daily_flow WHERE report_id = $1`,
      [r.id, row.id, viewer.userId, now],
    );
    await audit(tx, actorOf(viewer, requestId), { action: "industrial.report_amendment_started", entityType: "IndustrialReport", entityId: row.id, districtId: p.districtId, details: { amends: r.id } });
    return rowOf<ReportRow>(row);
  });
}

/** The user records that a duty is done (the notification made, the resample results sent). */
export async function completeDuty(ds: DataSource, viewer: Viewer, dutyId: string, requestId?: string): Promise<DutyRow> {
  if (!isUuid(dutyId)) throw notFound("That task");
  return ds.transaction(async (tx) => {
    const [d] = await tx.query(`SELECT * FROM industrial_duty WHERE id = $1 FOR UPDATE`, [dutyId]);
    if (!d) throw notFound("That task");
    const p = (await loadPermit(tx, d.permit_id))!;
    const role = await roleIn(tx, viewer, p.organizationId);
    if (!role && !isStaff(viewer, p.districtId)) throw notFound("That task");
    if (d.done_at) throw conflict("This task is already done.");
    // SUL 1005(4): the repeat sampling is met by signing its report (events.service.ts), not by a click.
    if (d.kind === "RESAMPLE") throw conflict("The repeat sampling is done when its report is signed: start the repeat sampling report from this task.");
    await tx.query(`UPDATE industrial_duty SET done_at = $2, done_by_id = $3 WHERE id = $1`, [dutyId, clock.now(), viewer.userId]);
    const [row] = await tx.query(`SELECT * FROM industrial_duty WHERE id = $1`, [dutyId]);
    await audit(tx, actorOf(viewer, requestId), { action: "industrial.duty_done", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, details: { dutyId, kind: d.kind } });
    return rowOf<DutyRow>(row);
  });
}

// ---------------------------------------------------------------------------------------------
// Staff: the district's report inbox (received, late) and its exceedances

export const INBOX_VIEWS = ["RECEIVED", "LATE"] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];

/**
 * RECEIVED: signed reports, newest first. LATE: reports of issued permits past their due date and
 * not signed (amendments aside), the most overdue first (SUL 1005(3); more than 30 days late is
 * significant non-compliance, SUL 201).
 */
export async function reportInbox(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; view: string; first?: number | null; after?: string | null },
): Promise<{ items: ReportRow[]; nextCursor: string | null }> {
  if (!isUuid(input.districtId) || !isStaff(viewer, input.districtId)) throw forbidden("Only this district's staff see its reports.");
  if (!(INBOX_VIEWS as readonly string[]).includes(input.view)) throw badInput({ view: "Choose RECEIVED or LATE." });
  const first = pageSize(input.first);
  const cursor = decodeCursor(input.after, input.view === "RECEIVED" ? isInstant : isCalendarDate);
  const district = await loadDistrict(ds, input.districtId);
  let rows: any[];
  if (input.view === "RECEIVED") {
    rows = await ds.query(
      `SELECT r.* FROM industrial_report r JOIN industrial_permit p ON p.id = r.permit_id
        WHERE p.district_id = $1 AND r.status = 'SIGNED' AND ($2::timestamptz IS NULL OR (r.signed_at, r.id) < ($2::timestamptz, $3::uuid))
        ORDER BY r.signed_at DESC, r.id DESC LIMIT $4`,
      [district.id, cursor?.key ?? null, cursor?.id ?? null, first + 1],
    );
  } else {
    rows = await ds.query(
      `SELECT r.* FROM industrial_report r JOIN industrial_permit p ON p.id = r.permit_id
        WHERE p.district_id = $1 AND p.status = 'ISSUED' AND r.status <> 'SIGNED' AND r.amends_id IS NULL AND r.due_on < $2::date
          AND ($3::date IS NULL OR (r.due_on, r.id) > ($3::date, $4::uuid))
        ORDER BY r.due_on, r.id LIMIT $5`,
      [district.id, dateIn(district.timeZone), cursor?.key ?? null, cursor?.id ?? null, first + 1],
    );
  }
  const items = rows.slice(0, first).map((x) => rowOf<ReportRow>(x));
  const last = items.at(-1);
  const nextCursor = rows.length > first && last ? encodeCursor(input.view === "RECEIVED" ? last.signedAt!.toISOString() : last.dueOn, last.id) : null;
  return { items, nextCursor };
}

/** Results over a limit in the district, newest first, with the report they belong to. */
export async function exceedances(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; first?: number | null; after?: string | null },
): Promise<{ items: ResultRow[]; nextCursor: string | null }> {
  if (!isUuid(input.districtId) || !isStaff(viewer, input.districtId)) throw forbidden("Only this district's staff see its exceedances.");
  const first = pageSize(input.first);
  const cursor = decodeCursor(input.after, isInstant);
  const rows = await ds.query(
    `SELECT x.* FROM industrial_result x JOIN industrial_permit p ON p.id = x.permit_id
      WHERE p.district_id = $1 AND x.status = 'EXCEEDS' AND ($2::timestamptz IS NULL OR (x.sampled_at, x.id) < ($2::timestamptz, $3::uuid))
        AND NOT EXISTS (SELECT 1 FROM industrial_report a WHERE a.amends_id = x.report_id)
      ORDER BY x.sampled_at DESC, x.id DESC LIMIT $4`,
    [input.districtId, cursor?.key ?? null, cursor?.id ?? null, first + 1],
  );
  const items = rows.slice(0, first).map((x: any) => rowOf<ResultRow>(x));
  const last = items.at(-1);
  return { items, nextCursor: rows.length > first && last ? encodeCursor(last.sampledAt.toISOString(), last.id) : null };
}

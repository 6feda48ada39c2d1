import { createHash } from "node:crypto";
import type { District } from "../districts/district.entity.js";
import type { DataSource, EntityManager } from "typeorm";
import { verifyPassword } from "../accounts/passwords.js";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { uuid7 } from "../common/uuid7.js";
import { addCalendarDays, dateIn, formatDate, formatDateTime, isCalendarDate, zonedInstant, zonedWallTime } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueJob } from "../jobs/queue.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { actorOf, limitsOf, loadDistrict, loadPermit, mayView, relationTo, roleIn, rowOf, type Db, type PermitRow, permitRulebook } from "./common.js";
import { dutiesFor, evaluate, parseUnit, SAMPLE_TYPES, UnitError, UNIT_LABELS, type Evaluation, type Limit, type SampleType, type Unit } from "./limits.js";

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

/** 40 CFR 403.6(a)(2)(ii), the certification the Authorized Representative signs; SUL 1115 on false statements. */
export const CERTIFICATION =
  "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision in accordance with a system designed to assure that qualified personnel properly gather and evaluate the information submitted. Based on my inquiry of the person or persons who manage the system, or those persons directly responsible for gathering the information, the information submitted is, to the best of my knowledge and belief, true, accurate, and complete. I am aware that there are significant penalties for submitting false information, including the possibility of fine and imprisonment for knowing violations (Sewer Use Law 1005(a)-(c); a false statement is a Class A misdemeanor, Sewer Use Law 1115).";

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

// ---------------------------------------------------------------------------------------------
// Lab results

export type ResultInput = {
  parameter: string;
  sampleType: string;
  /** "YYYY-MM-DDTHH:MM" in the district's zone, or an ISO instant */
  sampledAt: string;
  value?: number | null;
  unit: string;
  belowDetection?: boolean | null;
  detectionLimit?: number | null;
  flowMgd?: number | null;
  lab: string;
  method: string;
};

type Checked = {
  input: ResultInput;
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
  evaluation: Evaluation;
};


/** A permit's limits by parameter (case aside), made once for all the results of a save. */
type LimitIndex = { names: string[]; byParameter: Map<string, Limit[]> };
function indexLimits(limits: Limit[]): LimitIndex {
  const byParameter = new Map<string, Limit[]>();
  for (const l of limits) {
    const k = l.parameter.trim().toLowerCase();
    (byParameter.get(k) ?? byParameter.set(k, []).get(k)!).push(l);
  }
  return { names: [...new Set(limits.map((l) => l.parameter))], byParameter };
}

/** Checks one result and judges it against the permit's limits; returns field messages instead of throwing. */
function checkResult(input: ResultInput, index: LimitIndex, r: ReportRow, timeZone: string, nowMs: number): { ok: Checked } | { errors: Record<string, string> } {
  const e: Record<string, string> = {};
  const parameter = (input.parameter ?? "").trim();
  const limits = index.byParameter.get(parameter.toLowerCase()) ?? [];
  const match = limits[0]?.parameter;
  if (!parameter) e.parameter = "Choose the parameter.";
  else if (!match) e.parameter = `"${parameter}" is not a parameter of this permit; use one of: ${index.names.join(", ")}.`;
  const sampleType = String(input.sampleType ?? "").trim().toUpperCase() as SampleType;
  if (!SAMPLE_TYPES.includes(sampleType)) e.sampleType = "Say whether the sample was composite or grab.";
  const sampledAt = zonedInstant(input.sampledAt, timeZone);
  if (!sampledAt) e.sampledAt = "Give the sample's date and time like 2026-11-10T08:30.";
  else {
    const day = dateIn(timeZone, sampledAt);
    if (day < r.periodStart || day > r.periodEnd) e.sampledAt = `The sample must be taken within the report's period, ${formatDate(r.periodStart)} to ${formatDate(r.periodEnd)}.`;
    else if (sampledAt.getTime() > nowMs) e.sampledAt = "The sample date is in the future.";
  }
  const unit = parseUnit(input.unit ?? "");
  if (!unit) e.unit = `Unknown unit "${input.unit ?? ""}"; use ${Object.values(UNIT_LABELS).join(", ")}.`;
  const below = input.belowDetection === true;
  const value = below ? null : (input.value ?? null);
  const detectionLimit = input.detectionLimit ?? null;
  if (below) {
    if (detectionLimit === null || !Number.isFinite(detectionLimit) || detectionLimit < 0) e.detectionLimit = "A result below the detection limit needs the method's detection limit.";
  } else if (value === null || !Number.isFinite(value)) e.value = "Enter the measured value, or mark the result below the detection limit.";
  else if (value < 0 && unit !== "degC" && unit !== "degF") e.value = "The value cannot be negative.";
  const flowMgd = input.flowMgd ?? null;
  if (flowMgd !== null && (!Number.isFinite(flowMgd) || flowMgd <= 0)) e.flowMgd = "Enter the day's flow in MGD (more than zero).";
  const lab = (input.lab ?? "").trim();
  const method = (input.method ?? "").trim();
  if (!lab) e.lab = "Name the NYSDOH-certified laboratory (SUL 1005(3)(b)).";
  else if (lab.length > 200) e.lab = "Use at most 200 characters.";
  if (!method) e.method = "Give the analytical method (Standard Methods, SUL 1005(3)(b)).";
  else if (method.length > 200) e.method = "Use at most 200 characters.";
  if (Object.keys(e).length) return { errors: e };
  const res = { parameter: match!, sampleType, value, unit: unit!, belowDetection: below, detectionLimit: below ? detectionLimit : null, flowMgd };
  try {
    const evaluation = evaluate(res, limits);
    return { ok: { input, ...res, sampledAt: sampledAt!, lab, method, evaluation } };
  } catch (err) {
    if (err instanceof UnitError) return { errors: { unit: err.message } };
    throw err;
  }
}

/** A result just saved, with the duties its exceedance opened (returned as is: no copy per result). */
export type SavedResult = ResultRow & { duties: DutyRow[] };
export const RESAMPLE_REMINDER_JOB = "industrial.resample-reminder";
export const NOTIFY_REMINDER_JOB = "industrial.notify-reminder";
type Meta = { requestId?: string; publicUrl: string };

/** Writes checked results with their evaluations and the duties of their exceedances (SUL 1005(4)). */
async function insertResults(tx: EntityManager, viewer: Viewer, r: ReportRow, p: PermitRow, district: District, checked: Checked[], meta: Meta): Promise<SavedResult[]> {
  if (!checked.length) return [];
  const rb = await permitRulebook(tx, p, district);
  const now = clock.now();
  // Ids are made here (time-ordered, see uuid7) and nothing is read back: every other column is
  // what was just judged.
  const results: SavedResult[] = checked.map((c) => ({
    id: uuid7(now.getTime()),
    reportId: r.id,
    permitId: p.id,
    parameter: c.parameter,
    sampleType: c.sampleType,
    sampledAt: c.sampledAt,
    value: c.value,
    unit: c.unit,
    belowDetection: c.belowDetection,
    detectionLimit: c.detectionLimit,
    flowMgd: c.flowMgd,
    lab: c.lab,
    method: c.method,
    status: c.evaluation.status,
    basis: c.evaluation.basis,
    limitValue: c.evaluation.limitValue,
    limitUnit: c.evaluation.limitUnit,
    comparedValue: c.evaluation.comparedValue,
    ratio: c.evaluation.ratio,
    section: c.evaluation.section,
    message: c.evaluation.message,
    conversion: c.evaluation.conversion,
    createdById: viewer.userId,
    createdAt: now,
    duties: NO_DUTIES,
  }));
  // Sent as one compact JSON document: each row an array, its repeated texts (parameter, unit,
  // lab, method, status, section...) numbered once in `w`. A report of 500 results is a quarter
  // of a megabyte as objects; this halves what is built, sent and parsed.
  const words = new Map<string, number>();
  const w = (t: string | null) => (t === null ? null : (words.get(t) ?? words.set(t, words.size).get(t)!));
  const rows = results.map((x) => [
    x.id,
    x.sampledAt.toISOString(),
    x.value,
    x.detectionLimit,
    x.flowMgd,
    x.limitValue,
    x.comparedValue,
    x.ratio,
    x.belowDetection,
    w(x.parameter),
    w(x.sampleType),
    w(x.unit),
    w(x.lab),
    w(x.method),
    w(x.status),
    w(x.basis),
    w(x.limitUnit),
    w(x.section),
    x.message,
    x.conversion,
  ]);
  await tx.query(
    `INSERT INTO industrial_result (id, report_id, permit_id, sampled_at, value, detection_limit, flow_mgd, limit_value, compared_value, ratio, below_detection,
                                    parameter, sample_type, unit, lab, method, status, basis, limit_unit, section, message, conversion, created_by_id, created_at)
     SELECT (e->>0)::uuid, $1, $2, (e->>1)::timestamptz, (e->>2)::numeric, (e->>3)::numeric, (e->>4)::numeric, (e->>5)::numeric, (e->>6)::numeric, (e->>7)::numeric,
            (e->>8)::boolean, w->>((e->>9)::int), w->>((e->>10)::int), w->>((e->>11)::int), w->>((e->>12)::int), w->>((e->>13)::int), w->>((e->>14)::int),
            w->>((e->>15)::int), w->>((e->>16)::int), w->>((e->>17)::int), e->>18, e->>19, $3, $4
       FROM (SELECT $5::jsonb AS d) d CROSS JOIN LATERAL (SELECT d.d->'w' AS w) words CROSS JOIN LATERAL jsonb_array_elements(d.d->'r') e`,
    [r.id, p.id, viewer.userId, now, JSON.stringify({ w: [...words.keys()], r: rows })],
  );
  // Each exceedance opens the duties of SUL 1005(4); they depend only on the parameter, so they
  // are worked out once per parameter, and written with ids made here (nothing read back).
  const dutiesOf = new Map<string, ReturnType<typeof dutiesFor>>();
  const dutyRows: DutyRow[] = [];
  for (const res of results)
    if (res.status === "EXCEEDS") {
      let ds = dutiesOf.get(res.parameter);
      if (!ds) dutiesOf.set(res.parameter, (ds = dutiesFor(rb, now, district.timeZone, res.parameter)));
      for (const d of ds)
        dutyRows.push({ id: uuid7(now.getTime()), permitId: p.id, reportId: r.id, resultId: res.id, kind: d.kind, text: d.text, section: d.section, dueAt: d.dueAt, dueOn: d.dueOn, doneAt: null, doneById: null, createdAt: now });
    }
  if (dutyRows.length)
    await tx.query(
      `INSERT INTO industrial_duty (id, permit_id, report_id, result_id, kind, text, section, due_at, due_on, created_at)
       SELECT x.id, $1, $2, x.result_id, x.kind, x.text, x.section, x.due_at, x.due_on, $3
         FROM jsonb_to_recordset($4::jsonb) AS x(id uuid, result_id uuid, kind text, text text, section text, due_at timestamptz, due_on date)`,
      [p.id, r.id, now, JSON.stringify(dutyRows.map((d) => ({ id: d.id, result_id: d.resultId, kind: d.kind, text: d.text, section: d.section, due_at: d.dueAt.toISOString(), due_on: d.dueOn })))],
    );
  // A week before the repeat sampling is due, a reminder (events.service.ts); one job for the save.
  const resampleDue = dutyRows.find((d) => d.kind === "RESAMPLE")?.dueOn;
  if (resampleDue)
    await enqueueJob(tx, {
      name: RESAMPLE_REMINDER_JOB,
      payload: { reportId: r.id, dueOn: resampleDue, publicUrl: meta.publicUrl },
      runAt: zonedWallTime(Date.parse(`${addCalendarDays(resampleDue, -7)}T09:00:00Z`), district.timeZone),
      singletonKey: `${RESAMPLE_REMINDER_JOB}:${r.id}:${resampleDue}`,
    });
  // And before the notification is due (24 hours under SUL 1005(4)), a reminder unless it is
  // made: 6 hours before, or halfway through a window shorter than 12 hours.
  const notifyDue = dutyRows.find((d) => d.kind === "NOTIFY")?.dueAt;
  if (notifyDue) {
    const window = notifyDue.getTime() - now.getTime();
    await enqueueJob(tx, {
      name: NOTIFY_REMINDER_JOB,
      payload: { reportId: r.id, dueAt: notifyDue.toISOString(), publicUrl: meta.publicUrl },
      runAt: new Date(notifyDue.getTime() - Math.min(6 * 3_600_000, window / 2)),
      singletonKey: `${NOTIFY_REMINDER_JOB}:${r.id}:${notifyDue.toISOString()}`,
    });
  }
  if (r.status === "DUE") await tx.query(`UPDATE industrial_report SET status = 'DRAFT', started_at = $2, updated_at = $2 WHERE id = $1`, [r.id, now]);
  else await tx.query(`UPDATE industrial_report SET updated_at = $2 WHERE id = $1`, [r.id, now]);
  const exceeded = results.filter((x) => x.status === "EXCEEDS");
  await audit(tx, actorOf(viewer, meta.requestId), {
    action: "industrial.results_saved",
    entityType: "IndustrialReport",
    entityId: r.id,
    districtId: p.districtId,
    details: { count: results.length, exceedances: exceeded.map((x) => ({ id: x.id, parameter: x.parameter, value: x.comparedValue, limit: x.limitValue })) },
  });
  if (exceeded.length) {
    const list = exceeded.map((x) => `  ${x.parameter}: ${x.message}`).join("\n");
    const todo = dutyRows
      .filter((d, i, a) => a.findIndex((o) => o.kind === d.kind) === i)
      .map((d) => `  ${d.kind === "NOTIFY" ? `By ${formatDateTime(d.dueAt, district.timeZone)}` : `By ${formatDate(d.dueOn)}`}: ${d.text} (${d.section})`)
      .join("\n");
    await enqueueEmail(tx, {
      to: viewer.email,
      recipientId: viewer.userId,
      districtId: p.districtId,
      kind: "industrial.exceedance",
      subject: `Limit exceeded under permit ${p.permitNumber}: ${exceeded.map((x) => x.parameter).join(", ")}`,
      body: `Hello ${viewer.displayName},\n\nThe results you entered exceed the permit's limits:\n${list}\n\nWhat the law requires now:\n${todo}\n\nSee the report: ${meta.publicUrl}/industrial/reports/${r.id}\n`,
    });
  }
  if (dutyRows.length) {
    const byId = new Map(results.map((x) => [x.id, x]));
    for (const d of dutyRows) {
      const x = byId.get(d.resultId)!;
      if (x.duties === NO_DUTIES) x.duties = [];
      x.duties.push(d);
    }
  }
  return results;
}

// The duties of a result with none: one empty list shared by them all, never pushed to.
const NO_DUTIES: DutyRow[] = Object.freeze([]) as unknown as DutyRow[];

const MAX_RESULTS_PER_CALL = 2000;

/** Saves lab results entered by hand; each comes back judged against the permit's limits. All or nothing. */
export async function addResults(ds: DataSource, viewer: Viewer, reportId: string, inputs: ResultInput[], meta: Meta): Promise<SavedResult[]> {
  if (!inputs.length) throw badInput({ results: "Enter at least one result." });
  if (inputs.length > MAX_RESULTS_PER_CALL) throw badInput({ results: `At most ${MAX_RESULTS_PER_CALL} results at once.` });
  return ds.transaction(async (tx) => {
    const { r, p } = await editableReport(tx, viewer, reportId);
    const district = await loadDistrict(tx, p.districtId);
    const limits = indexLimits(await limitsOf(tx, [p.id]));
    const checked: Checked[] = [];
    const errors: Record<string, string> = {};
    const nowMs = clock.now().getTime();
    for (const [i, input] of inputs.entries()) {
      const c = checkResult(input, limits, r, district.timeZone, nowMs);
      if ("errors" in c) for (const [k, v] of Object.entries(c.errors)) errors[inputs.length === 1 ? k : `results.${i}.${k}`] = v;
      else checked.push(c.ok);
    }
    if (Object.keys(errors).length) throw badInput(errors);
    return insertResults(tx, viewer, r, p, district, checked, meta);
  });
}

export async function deleteResult(ds: DataSource, viewer: Viewer, resultId: string, requestId?: string): Promise<ReportRow> {
  if (!isUuid(resultId)) throw notFound("That result");
  return ds.transaction(async (tx) => {
    const [row] = await tx.query(`SELECT report_id, parameter FROM industrial_result WHERE id = $1`, [resultId]);
    if (!row) throw notFound("That result");
    const { r, p } = await editableReport(tx, viewer, row.report_id);
    await tx.query(`DELETE FROM industrial_result WHERE id = $1`, [resultId]);
    await audit(tx, actorOf(viewer, requestId), { action: "industrial.result_deleted", entityType: "IndustrialReport", entityId: r.id, districtId: p.districtId, details: { resultId, parameter: row.parameter } });
    return (await loadReport(tx, r.id))!;
  });
}

// ---------------------------------------------------------------------------------------------
// CSV upload

export const CSV_COLUMNS = ["sampled_at", "sample_type", "parameter", "value", "unit", "below_detection", "detection_limit", "flow_mgd", "lab", "method"] as const;
const REQUIRED_COLUMNS = ["sampled_at", "sample_type", "parameter", "value", "unit", "lab", "method"];
const MAX_CSV_BYTES = 2_000_000;

/** RFC 4180 fields: commas, quotes doubled inside quotes, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/**
 * Uploads lab results as CSV (header: sampled_at, sample_type, parameter, value, unit,
 * below_detection, detection_limit, flow_mgd, lab, method). Every line is checked first; a file
 * with any bad line is refused with each line's errors, and nothing from it is saved.
 */
export async function uploadCsv(ds: DataSource, viewer: Viewer, reportId: string, csv: string, meta: Meta): Promise<SavedResult[]> {
  if (Buffer.byteLength(csv ?? "", "utf8") > MAX_CSV_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "The file is larger than 2 MB; split it into several uploads.");
  const rows = parseCsv((csv ?? "").replace(/^\uFEFF/, "")).filter((r) => r.some((c) => c.trim() !== ""));
  if (rows.length < 2) throw badInput({ csv: `The file needs a header line (${CSV_COLUMNS.join(",")}) and at least one result.` });
  const header = rows[0].map((h) => h.trim().toLowerCase().replace(/\s+/g, "_"));
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) throw badInput({ csv: `Line 1: the header lacks ${missing.join(", ")}. Use: ${CSV_COLUMNS.join(",")}.` });
  const unknown = header.filter((h) => !(CSV_COLUMNS as readonly string[]).includes(h));
  if (unknown.length) throw badInput({ csv: `Line 1: unknown columns ${unknown.join(", ")}. Use: ${CSV_COLUMNS.join(",")}.` });
  if (rows.length - 1 > MAX_RESULTS_PER_CALL) throw badInput({ csv: `At most ${MAX_RESULTS_PER_CALL} results in one file.` });
  return ds.transaction(async (tx) => {
    const { r, p } = await editableReport(tx, viewer, reportId);
    const district = await loadDistrict(tx, p.districtId);
    const limits = indexLimits(await limitsOf(tx, [p.id]));
    const errors: Record<string, string> = {};
    const checked: Checked[] = [];
    const nowMs = clock.now().getTime();
    const num = (s: string | undefined) => {
      const t = (s ?? "").trim();
      return t === "" ? null : /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t) ? Number(t) : NaN;
    };
    for (let i = 1; i < rows.length; i++) {
      const line = i + 1;
      const cells = rows[i];
      if (cells.length !== header.length) {
        errors[`line ${line}`] = `Line ${line}: ${cells.length} fields, the header has ${header.length}.`;
        continue;
      }
      const get = (k: string) => cells[header.indexOf(k)]?.trim();
      const rawValue = get("value") ?? "";
      const belowFlag = /^(y|yes|true|1)$/i.test(get("below_detection") ?? "") || rawValue.startsWith("<");
      const input: ResultInput = {
        sampledAt: get("sampled_at") ?? "",
        sampleType: get("sample_type") ?? "",
        parameter: get("parameter") ?? "",
        value: belowFlag ? null : num(rawValue),
        unit: get("unit") ?? "",
        belowDetection: belowFlag,
        detectionLimit: belowFlag ? (num(get("detection_limit")) ?? num(rawValue.replace(/^</, ""))) : null,
        flowMgd: num(get("flow_mgd")),
        lab: get("lab") ?? "",
        method: get("method") ?? "",
      };
      const c = checkResult(input, limits, r, district.timeZone, nowMs);
      if ("errors" in c) errors[`line ${line}`] = `Line ${line}: ${Object.values(c.errors).join(" ")}`;
      else checked.push(c.ok);
    }
    if (Object.keys(errors).length) {
      const n = Object.keys(errors).length;
      throw badInput({ csv: `${n} ${n === 1 ? "line has" : "lines have"} errors; nothing from the file was saved. Correct ${n === 1 ? "it" : "them"} and upload the file again.`, ...errors }, "The file has errors; nothing from it was saved.");
    }
    return insertResults(tx, viewer, r, p, district, checked, meta);
  });
}

// ---------------------------------------------------------------------------------------------
// The copy of record and signing (CROMERR)

const sortKeys = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sortKeys) : v && typeof v === "object" && !(v instanceof Date) ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, sortKeys((v as any)[k])])) : v;

/** Canonical JSON: keys sorted at every level, no spaces; the same content always gives the same text. */
export const canonicalJson = (v: unknown) => JSON.stringify(sortKeys(v));
export const sha256Hex = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** What the signer reviews and signs: the report's content (without the signature). */
export async function reportContent(db: Db, r: ReportRow, p: PermitRow): Promise<Record<string, unknown>> {
  const [org] = await db.query(`SELECT name FROM organization WHERE id = $1`, [p.organizationId]);
  const district = await loadDistrict(db, p.districtId);
  const results = await resultsOf(db, [r.id]);
  const duties = await dutiesOfReports(db, [r.id]);
  const amends = r.amendsId ? await loadReport(db, r.amendsId) : null;
  // SUL 1005(3)(a): the period's daily flows against the application's average (flows.service.ts);
  // named only when there are some, so documents signed before flows were recorded stay as they were.
  const flows = await db.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, flow_gpd::float8 AS "flowGpd", average_gpd::float8 AS "averageGpd", above_average AS "aboveAverage"
       FROM industrial_daily_flow WHERE report_id = $1 ORDER BY day`,
    [r.id],
  );
  const extra = reportKindHooks.content ? await reportKindHooks.content(db, r) : null;
  return {
    ...(flows.length ? { dailyFlows: flows } : {}),
    ...(extra ? { details: extra } : {}),
    document: REPORT_TITLES[r.kind] ?? REPORT_TITLES.PERIODIC,
    district: district.name,
    permit: { number: p.permitNumber, facility: p.facilityName, address: [p.street, p.city, p.zip].filter(Boolean).join(", "), organization: org.name },
    report: { id: r.id, kind: r.kind, periodStart: r.periodStart, periodEnd: r.periodEnd, dueOn: r.dueOn, amends: amends ? amends.id : null },
    results: results.map((x) => ({
      id: x.id,
      parameter: x.parameter,
      sampleType: x.sampleType,
      sampledAt: x.sampledAt.toISOString(),
      value: x.value,
      unit: x.unit,
      belowDetection: x.belowDetection,
      detectionLimit: x.detectionLimit,
      flowMgd: x.flowMgd,
      lab: x.lab,
      method: x.method,
      evaluation: { status: x.status, basis: x.basis, limitValue: x.limitValue, limitUnit: x.limitUnit, comparedValue: x.comparedValue, section: x.section, message: x.message },
    })),
    duties: duties.map((d) => ({ kind: d.kind, text: d.text, section: d.section, dueAt: d.dueAt.toISOString(), dueOn: d.dueOn })),
    certification: CERTIFICATION,
  };
}

export async function contentHash(db: Db, r: ReportRow, p: PermitRow): Promise<string> {
  return sha256Hex(canonicalJson(await reportContent(db, r, p)));
}

/**
 * Signs a report: only the organization's Authorized Representative (SUL 201, 1005), who has
 * reviewed the copy (whose hash the page sends back), checks the certification and re-enters the
 * password. Stores the copy of record (canonical document, signer, time of receipt, SHA-256),
 * locks the report and emails an acknowledgment naming document, signer and time.
 */
export async function signReport(
  ds: DataSource,
  viewer: Viewer,
  input: { reportId: string; password: string; certify: boolean; reviewedHash: string },
  meta: { requestId?: string; publicUrl: string },
): Promise<CopyOfRecordRow> {
  return ds.transaction(async (tx) => {
    const r = await loadReport(tx, input.reportId, true);
    if (!r) throw notFound("That report");
    const p = (await loadPermit(tx, r.permitId))!;
    const role = await roleIn(tx, viewer, p.organizationId);
    if (!role) throw notFound("That report");
    if (role !== "AUTHORIZED_REPRESENTATIVE")
      throw forbidden("Only the organization's Authorized Representative can sign its compliance reports (Sewer Use Law 201, 1005).");
    if (r.status === "SIGNED") throw conflict("This report is already signed. To correct it, start an amended report.");
    if (r.status === "DUE") throw conflict("Enter the lab results before signing the report.");
    if (reportKindHooks.beforeSign) await reportKindHooks.beforeSign(tx, r);
    const f: Record<string, string> = {};
    if (input.certify !== true) f.certify = "Check the box to make the certification.";
    if (!input.password) f.password = "Enter your password to sign.";
    if (Object.keys(f).length) throw badInput(f);
    const [u] = await tx.query(`SELECT id, email, display_name, password_hash FROM app_user WHERE id = $1`, [viewer.userId]);
    if (!u?.password_hash || !(await verifyPassword(u.password_hash, input.password))) throw badInput({ password: "That password is not right. Enter the password you sign in with." });
    const content = await reportContent(tx, r, p);
    const hashOfContent = sha256Hex(canonicalJson(content));
    if (input.reviewedHash !== hashOfContent) throw conflict("The report changed after you reviewed it. Review the copy again before signing.");
    const receivedAt = clock.now();
    const document = canonicalJson({ ...content, signature: { signerId: u.id, signerName: u.display_name, signerEmail: u.email, receivedAt: receivedAt.toISOString() } });
    const hash = sha256Hex(document);
    const [row] = await tx.query(
      `INSERT INTO industrial_copy_of_record (report_id, document, sha256, signer_id, signer_name, signer_email, certification, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [r.id, document, hash, u.id, u.display_name, u.email, CERTIFICATION, receivedAt],
    );
    await tx.query(`UPDATE industrial_report SET status = 'SIGNED', signed_at = $2, signer_id = $3, updated_at = $2 WHERE id = $1`, [r.id, receivedAt, u.id]);
    if (reportKindHooks.signed) await reportKindHooks.signed(tx, viewer, r, p, receivedAt);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.report_signed",
      entityType: "IndustrialReport",
      entityId: r.id,
      districtId: p.districtId,
      details: { sha256: hash, copyOfRecordId: row.id, amends: r.amendsId },
    });
    const district = await loadDistrict(tx, p.districtId);
    await enqueueEmail(tx, {
      to: u.email,
      recipientId: u.id,
      districtId: p.districtId,
      kind: "industrial.report_acknowledgment",
      subject: `Received: ${r.kind === "PERIODIC" ? "compliance report" : (REPORT_TITLES[r.kind] ?? "report").replace(/ \(.*$/, "").toLowerCase()} ${formatDate(r.periodStart)} to ${formatDate(r.periodEnd)}, permit ${p.permitNumber}`,
      body:
        `Hello ${u.display_name},\n\n${district.name} received the signed ${r.kind === "PERIODIC" ? "periodic compliance report" : (REPORT_TITLES[r.kind] ?? "report").replace(/ \(.*$/, "").toLowerCase()} of permit ${p.permitNumber} (${p.facilityName}) ` +
        `for ${formatDate(r.periodStart)} to ${formatDate(r.periodEnd)}.\n\nDocument: report ${r.id}\nSigned by: ${u.display_name} <${u.email}>\nReceived: ${formatDateTime(receivedAt, district.timeZone)}\n` +
        `SHA-256 of the copy of record: ${hash}\n\nIf you did not sign this report, tell the District Operator at once.\n\nThe copy of record: ${meta.publicUrl}/industrial/reports/${r.id}\n`,
    });
    return rowOf<CopyOfRecordRow>(row);
  });
}

/**
 * Verifies a copy of record: its SHA-256 recomputed from the stored document, the signer and time
 * inside it against the stored ones, and its content against the report's results as stored now.
 */
export async function verifyCopyOfRecord(ds: DataSource, viewer: Viewer | null, reportId: string): Promise<{ valid: boolean; storedSha256: string; computedSha256: string; matchesReport: boolean; problems: string[] }> {
  const { r, p } = await viewableReport(ds, viewer, reportId);
  const c = await copyOfRecord(ds, r.id);
  if (!c) throw notFound("A copy of record of that report (it is not signed)");
  const computed = sha256Hex(c.document);
  const problems: string[] = [];
  if (computed !== c.sha256) problems.push("The stored document does not match its SHA-256.");
  let doc: any = null;
  try {
    doc = JSON.parse(c.document);
  } catch {
    problems.push("The stored document is not valid JSON.");
  }
  if (doc) {
    if (canonicalJson(doc) !== c.document) problems.push("The stored document is not in canonical form.");
    if (doc.signature?.signerId !== c.signerId || doc.signature?.receivedAt !== c.receivedAt.toISOString()) problems.push("The signer or time of receipt differ from the document's.");
  }
  // The signed figures against the report as stored now: its period and its results (names of the
  // organization or district may change later without touching what was certified).
  const now = await reportContent(ds, r, p);
  const signed = (d: any) => canonicalJson([d.report, d.results, d.duties, d.dailyFlows ?? []]);
  const matchesReport = doc ? signed(doc) === signed(now) : false;
  if (!matchesReport) problems.push("The report's stored results differ from the copy of record.");
  return { valid: problems.length === 0, storedSha256: c.sha256, computedSha256: computed, matchesReport, problems };
}

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

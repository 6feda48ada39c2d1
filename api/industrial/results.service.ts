import { parse } from "csv-parse/sync";
import type { District } from "../districts/district.entity.js";
import type { DataSource, EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { uuid7 } from "../common/uuid7.js";
import { addCalendarDays, dateIn, formatDate, formatDateTime, zonedInstant, zonedWallTime } from "../common/dates.js";
import { AppError, badInput, notFound } from "../common/errors.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueJob } from "../jobs/queue.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { actorOf, limitsOf, loadDistrict, type PermitRow, permitRulebook } from "./common.js";
import { dutiesFor, evaluate, parseUnit, SAMPLE_TYPES, UnitError, UNIT_LABELS, type Evaluation, type Limit, type SampleType, type Unit } from "./limits.js";
import { editableReport, loadReport, NOTIFY_REMINDER_JOB, RESAMPLE_REMINDER_JOB, type DutyRow, type Meta, type ReportRow, type ResultRow } from "./reports.service.js";

/**
 * Lab results of a compliance report (SUL 1005): entered by hand or uploaded as CSV, each judged
 * against the permit's limits as it is saved; an exceedance opens the duties of SUL 1005(4).
 */

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

/** A result checked and judged, not yet written: the stored row's measured fields. */
type Checked = Pick<ResultRow, "parameter" | "sampleType" | "sampledAt" | "value" | "unit" | "belowDetection" | "detectionLimit" | "flowMgd" | "lab" | "method"> & {
  input: ResultInput;
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

/** The file's records (RFC 4180, as csv-parse reads it), each with the line of the file it ends on. */
function readCsv(text: string): { line: number; cells: string[] }[] {
  try {
    const records = parse(text, { bom: true, relax_column_count: true, on_record: (cells: any, c: { lines: number }) => ({ line: c.lines, cells }) as any }) as unknown as { line: number; cells: string[] }[];
    return records.filter((r) => r.cells.some((c) => c.trim() !== ""));
  } catch (e: any) {
    throw badInput({ csv: `The file is not a CSV file we can read${e?.lines ? ` (line ${e.lines})` : ""}: ${String(e?.message ?? e).replace(/^Invalid Record Length: |^CSV_[A-Z_]+: /, "")}` });
  }
}

/**
 * Uploads lab results as CSV (header: sampled_at, sample_type, parameter, value, unit,
 * below_detection, detection_limit, flow_mgd, lab, method). Every line is checked first; a file
 * with any bad line is refused with each line's errors, and nothing from it is saved.
 */
export async function uploadCsv(ds: DataSource, viewer: Viewer, reportId: string, csv: string, meta: Meta): Promise<SavedResult[]> {
  if (Buffer.byteLength(csv ?? "", "utf8") > MAX_CSV_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "The file is larger than 2 MB; split it into several uploads.");
  const rows = readCsv(csv ?? "");
  if (rows.length < 2) throw badInput({ csv: `The file needs a header line (${CSV_COLUMNS.join(",")}) and at least one result.` });
  const header = rows[0].cells.map((h) => h.trim().toLowerCase().replace(/\s+/g, "_"));
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) throw badInput({ csv: `Line ${rows[0].line}: the header lacks ${missing.join(", ")}. Use: ${CSV_COLUMNS.join(",")}.` });
  const unknown = header.filter((h) => !(CSV_COLUMNS as readonly string[]).includes(h));
  if (unknown.length) throw badInput({ csv: `Line ${rows[0].line}: unknown columns ${unknown.join(", ")}. Use: ${CSV_COLUMNS.join(",")}.` });
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
    for (const { line, cells } of rows.slice(1)) {
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


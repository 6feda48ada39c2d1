import { createHash } from "node:crypto";
import type { District } from "../districts/district.entity.js";
import type { DataSource } from "typeorm";
import { verifyPassword } from "../accounts/passwords.js";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { formatDate, formatDateTime } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { actorOf, loadDistrict, loadPermit, roleIn, rowOf, type Db, type PermitRow } from "./common.js";
import { evaluate } from "./limits.js";
import { copyOfRecord, dutiesOfReports, editableReport, loadReport, REPORT_TITLES, reportKindHooks, resultsOf, viewableReport, type CopyOfRecordRow, type Meta, type ReportRow } from "./reports.service.js";

/**
 * Signing a compliance report and its copy of record (EPA CROMERR, 40 CFR Part 3): only the
 * organization's Authorized Representative signs, re-entering the password, after reviewing the
 * copy and the certification; the server keeps the copy with its SHA-256, which nothing can change.
 */

/** 40 CFR 403.6(a)(2)(ii), the certification the Authorized Representative signs; SUL 1115 on false statements. */
export const CERTIFICATION =
  "I certify under penalty of law that this document and all attachments were prepared under my direction or supervision in accordance with a system designed to assure that qualified personnel properly gather and evaluate the information submitted. Based on my inquiry of the person or persons who manage the system, or those persons directly responsible for gathering the information, the information submitted is, to the best of my knowledge and belief, true, accurate, and complete. I am aware that there are significant penalties for submitting false information, including the possibility of fine and imprisonment for knowing violations (Sewer Use Law 1005(a)-(c); a false statement is a Class A misdemeanor, Sewer Use Law 1115).";


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


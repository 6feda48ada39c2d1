import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, isCalendarDate } from "../common/dates.js";
import { badInput, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { actorOf, clean, getExtension, loadDistrict, requireOperator, requireStatus, type Db } from "./common.js";
import { LEAKAGE_KINDS, TEST_KINDS, TEST_KIND_LABELS, entryProblems, judgeTest, type Criterion, type TestEntry, type TestKind, type TestOutcome } from "./rules.js";

/**
 * Test sections and their tests (SUL 505 A-G, 506 B): the District Operator names each section and
 * enters each attempt's figures; the portal judges it by the law in force on the day of the test. A
 * failed section is repaired and retested (505 B, G): every attempt is kept, numbered per section and kind.
 */

export type SectionRow = { id: string; extensionId: string; name: string; createdAt: Date };
export type AttemptRow = {
  id: string;
  sectionId: string;
  extensionId: string;
  kind: TestKind;
  attempt: number;
  entry: TestEntry;
  outcome: TestOutcome;
  criteria: Criterion[];
  reason: string | null;
  testedOn: string;
  notes: string | null;
  recordedAt: Date;
};

const ATTEMPT_COLUMNS = `a.id, a.section_id AS "sectionId", a.extension_id AS "extensionId", a.kind, a.attempt, a.entry, a.outcome, a.criteria, a.reason,
  to_char(a.tested_on, 'YYYY-MM-DD') AS "testedOn", a.notes, a.recorded_at AS "recordedAt"`;

/** The sections of these applications (one query). */
export async function sectionsOf(db: Db, extensionIds: readonly string[]): Promise<SectionRow[]> {
  if (!extensionIds.length) return [];
  return db.query(`SELECT id, extension_id AS "extensionId", name, created_at AS "createdAt" FROM extension_test_section WHERE extension_id = ANY($1::uuid[]) ORDER BY extension_id, created_at, name`, [extensionIds]);
}
/** Every attempt of these applications, oldest first (one query, index extension_test_attempt_extension). */
export async function attemptsOf(db: Db, extensionIds: readonly string[]): Promise<AttemptRow[]> {
  if (!extensionIds.length) return [];
  return db.query(`SELECT ${ATTEMPT_COLUMNS} FROM extension_test_attempt a WHERE a.extension_id = ANY($1::uuid[]) ORDER BY a.extension_id, a.recorded_at, a.attempt`, [extensionIds]);
}

/** The Operator names a test section (a run of sewer between manholes, at most 1,000 ft when tested; or a manhole). */
export async function addTestSection(ds: DataSource, viewer: Viewer, input: { extensionId: string; name: string }, requestId?: string): Promise<SectionRow> {
  const name = clean(input.name);
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["APPROVED"], "Sections are tested once the extension is approved");
    if (!name || name.length > 120) throw badInput({ name: "Name the section, like MH-1 to MH-2 (up to 120 characters)." });
    const dup = await tx.query(`SELECT 1 FROM extension_test_section WHERE extension_id = $1 AND name = $2`, [e.id, name]);
    if (dup.length) throw badInput({ name: "This extension already has a section of that name." });
    const [row] = await tx.query(
      `INSERT INTO extension_test_section (extension_id, name, created_by_id) VALUES ($1, $2, $3) RETURNING id, extension_id AS "extensionId", name, created_at AS "createdAt"`,
      [e.id, name, viewer.userId],
    );
    await audit(tx, actorOf(viewer, requestId), { action: "extension.section_added", entityType: "SewerExtension", entityId: e.id, districtId: e.districtId, details: { sectionId: row.id, name } });
    return row;
  });
}

export type RecordTestInput = TestEntry & { sectionId: string; testedOn: string; notes?: string | null };

/** The Operator enters a test's figures; the attempt is judged and kept, whatever its outcome. */
export async function recordTest(ds: DataSource, viewer: Viewer, input: RecordTestInput, requestId?: string): Promise<AttemptRow> {
  if (!isUuid(input.sectionId)) throw notFound("That test section");
  const [section] = await ds.query(`SELECT extension_id AS "extensionId" FROM extension_test_section WHERE id = $1`, [input.sectionId]);
  if (!section) throw notFound("That test section");
  const fields: Record<string, string> = {};
  if (!TEST_KINDS.includes(input.kind)) fields.kind = "Choose the kind of test.";
  const { sectionId, testedOn, notes, ...rest } = input;
  const entry = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined)) as TestEntry;
  if (!fields.kind) Object.assign(fields, entryProblems(entry));
  const note = clean(notes);
  if (note && note.length > 2000) fields.notes = "Keep the notes to 2,000 characters.";
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, section.extensionId, true);
    requireOperator(viewer, e.districtId);
    requireStatus(e, ["APPROVED"], "Tests are entered once the extension is approved");
    const district = await loadDistrict(tx, e.districtId);
    const today = dateIn(district.timeZone);
    if (!isCalendarDate(testedOn ?? "")) fields.testedOn = "Use a date like 2027-04-02.";
    else if (testedOn > today) fields.testedOn = `A test is entered once done: give a day no later than today (${formatDate(today)}).`;
    if (Object.keys(fields).length) throw badInput(fields);
    // The law in force on the day of the test judges it.
    const rb = await rulebookOn(tx, district, testedOn);
    const judgement = judgeTest(rb, entry);
    const [{ n }] = await tx.query(`SELECT coalesce(max(attempt), 0)::int AS n FROM extension_test_attempt WHERE section_id = $1 AND kind = $2`, [sectionId, entry.kind]);
    const [{ id }] = await tx.query(
      `INSERT INTO extension_test_attempt (section_id, extension_id, kind, attempt, entry, outcome, criteria, reason, rulebook_version_id, tested_on, notes, recorded_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [sectionId, e.id, entry.kind, n + 1, JSON.stringify(entry), judgement.outcome, JSON.stringify(judgement.criteria), judgement.reason, rb.version.id, testedOn, note, viewer.userId],
    );
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.test_recorded",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { sectionId, attemptId: id, kind: entry.kind, attempt: n + 1, outcome: judgement.outcome },
    });
    const [row] = await tx.query(`SELECT ${ATTEMPT_COLUMNS} FROM extension_test_attempt a WHERE a.id = $1`, [id]);
    return row;
  });
}

/**
 * Where each section stands: the latest attempt of each kind tried on it. A section has passed when
 * no kind's latest attempt failed and a leakage test passed (infiltration, exfiltration, or air or
 * vacuum in lieu of them, 505 A, F, G) or, for a manhole tested alone, its vacuum test.
 */
export function sectionStanding(attempts: readonly AttemptRow[]): { passed: boolean; latest: AttemptRow[] } {
  const latest = new Map<TestKind, AttemptRow>();
  for (const a of attempts) if ((latest.get(a.kind)?.attempt ?? 0) < a.attempt) latest.set(a.kind, a);
  const list = [...latest.values()];
  // A test not judged (no Uni-Bell table) neither fails nor passes the section; another kind may pass it.
  const passed = !list.some((a) => a.outcome === "FAILED") && list.some((a) => a.outcome === "PASSED" && (LEAKAGE_KINDS.includes(a.kind) || a.kind === "MANHOLE_VACUUM"));
  return { passed, latest: list };
}

/**
 * SUL 502 A: "The sewer, as constructed, must pass the infiltration test ... before any building
 * lateral is connected thereto." Null when every section of the extension has passed; otherwise
 * what is still missing, in words. For the lateral permit's connection (api/laterals).
 */
export async function connectionProblem(db: Db, extensionId: string): Promise<string | null> {
  const [{ prefix }] = await db.query(`SELECT d.citation_prefix AS prefix FROM sewer_extension e JOIN district d ON d.id = e.district_id WHERE e.id = $1`, [extensionId]);
  const section = `${prefix} 502 A`;
  const sections = await sectionsOf(db, [extensionId]);
  if (!sections.length) return `No section of the sewer extension has been tested yet (${section}).`;
  const attempts = await attemptsOf(db, [extensionId]);
  const open = sections.filter((s) => !sectionStanding(attempts.filter((a) => a.sectionId === s.id)).passed);
  return open.length ? `These sections of the sewer extension have not passed their tests: ${open.map((s) => s.name).join(", ")} (${section}).` : null;
}

export const testKindLabel = (k: TestKind) => TEST_KIND_LABELS[k];

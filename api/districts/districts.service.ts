import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { DataSource, EntityManager } from "typeorm";
import { audit, type Actor } from "../audit/audit.service.js";
import { dateIn, formatDate, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, notFound } from "../common/errors.js";
import { announceInvalidation, onInvalidation } from "../common/invalidation.js";
import { sha256 } from "../common/tokens.js";
import { BOARD_TABLES, readBoardTable } from "./board-tables.js";
import { District } from "./district.entity.js";
import { RULEBOOK_KEYS, type RulebookKey } from "./rulebook-keys.js";
import { planBoardChange, planLawVersion, versionInForce, type PlannedVersion, type VersionRow } from "./rulebook-merge.js";
import { crossEntryProblems, districtFile, resolution, ruleEntry, type DistrictFile, type RuleEntry } from "./rulebook-schema.js";
import { RulebookVersion } from "./rulebook-version.entity.js";

const DATA_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "data");

export function shippedDistrictFiles(): DistrictFile[] {
  return fs
    .readdirSync(DATA_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const parsed = districtFile.safeParse(JSON.parse(fs.readFileSync(path.join(DATA_DIR, f), "utf8")));
      if (!parsed.success) throw new Error(`api/districts/data/${f} is not a valid district file: ${parsed.error.message}`);
      const problems = crossEntryProblems(parsed.data.rulebook.entries);
      if (Object.keys(problems).length) throw new Error(`api/districts/data/${f}: ${Object.values(problems).join(" ")}`);
      return parsed.data;
    });
}

/**
 * Loads the shipped districts and rulebooks (run on migrate; `files` for tests). Idempotent: a
 * shipped rulebook whose content is already stored is not stored again. A changed one is a new
 * law version: it keeps the Town Board's figures in force on its date, and is carried into the
 * versions already effective after it (rulebook-merge.ts), so neither the law's new figures and
 * keys nor the Board's figures are lost.
 */
export async function loadShippedDistricts(ds: DataSource, files: DistrictFile[] = shippedDistrictFiles()): Promise<void> {
  await ds.transaction(async (tx) => {
    for (const file of files) {
      const d = file.district;
      let district = await tx.findOne(District, { where: { slug: d.slug } });
      if (!district) {
        district = await tx.save(
          tx.create(District, {
            slug: d.slug,
            name: d.name,
            lawName: d.lawName,
            citationPrefix: d.citationPrefix,
            operatorTitle: d.operatorTitle,
            timeZone: d.timeZone,
            address: d.address,
            contacts: d.contacts,
            publicNotice: d.publicNotice,
          }),
        );
        await audit(tx, { userId: null }, { action: "district.loaded", entityType: "District", entityId: district.id, districtId: district.id });
      } else if (district.operatorTitle !== d.operatorTitle) {
        // The law's name for the official follows the shipped file (set once by the migration that added it).
        await tx.update(District, { id: district.id }, { operatorTitle: d.operatorTitle, updatedAt: new Date() });
      }
      const hash = sha256(JSON.stringify(file.rulebook));
      const seen = await tx.findOne(RulebookVersion, { where: { districtId: district.id, source: "shipped", sourceHash: hash } });
      if (seen) continue;
      const plan = planLawVersion(await versionRows(tx, district.id), { effectiveDate: file.rulebook.effectiveDate, entries: file.rulebook.entries });
      const written = await writePlan(tx, district.id, plan, (p, first) =>
        p.carriedInto === null
          ? { label: file.rulebook.label, source: "shipped", sourceHash: hash, reason: "Loaded from the shipped rulebook" }
          : {
              label: `${file.rulebook.label}, with the Town Board's figures of version ${p.carriedInto}`,
              source: "shipped",
              sourceHash: null,
              reason: `The law loaded as version ${first} also applies from this date; the Town Board's figures of version ${p.carriedInto} are kept.`,
            },
      );
      await audit(tx, { userId: null }, {
        action: "rulebook.loaded",
        entityType: "District",
        entityId: district.id,
        districtId: district.id,
        details: { version: written[0].version, ...carriedDetails(plan, written) },
      });
    }
  });
}

/** The district's versions as the planners read them; a law version is a shipped row with its file's hash (a carried row has none). */
async function versionRows(tx: EntityManager, districtId: string): Promise<VersionRow[]> {
  const rows = await tx.getRepository(RulebookVersion).find({ where: { districtId }, select: { version: true, effectiveDate: true, source: true, sourceHash: true, entries: true } });
  return rows.map((r) => ({ version: r.version, effectiveDate: r.effectiveDate, law: r.source === "shipped" && r.sourceHash !== null, entries: r.entries }));
}

type RowMeta = Pick<RulebookVersion, "label" | "source" | "sourceHash" | "reason"> & { createdById?: string | null };

/** Inserts the planned rows in order, numbering them; `meta` gets each plan and the first row's version number. */
async function writePlan(tx: EntityManager, districtId: string, plan: PlannedVersion[], meta: (p: PlannedVersion, first: number) => RowMeta): Promise<RulebookVersion[]> {
  const out: RulebookVersion[] = [];
  for (const p of plan) {
    const version = await nextVersion(tx, districtId);
    const row = tx.create(RulebookVersion, { districtId, version, effectiveDate: p.effectiveDate, entries: p.entries, ...meta(p, out[0]?.version ?? version) });
    out.push(await tx.save(row));
  }
  return out;
}

/** For the audit entry: the versions a change was carried into, and figures the law's bounds kept out. */
function carriedDetails(plan: PlannedVersion[], written: RulebookVersion[]) {
  const carried = plan.slice(1).map((p, i) => ({ version: written[i + 1].version, effectiveDate: p.effectiveDate, carriedInto: p.carriedInto }));
  const refused = plan.flatMap((p) => p.refused.map((key) => ({ key, effectiveDate: p.effectiveDate })));
  return { ...(carried.length ? { carried } : {}), ...(refused.length ? { refusedByBounds: refused } : {}) };
}

async function nextVersion(tx: EntityManager, districtId: string): Promise<number> {
  // Serialise version numbering per district.
  await tx.query(`SELECT id FROM district WHERE id = $1 FOR UPDATE`, [districtId]);
  const [{ max }] = await tx.query(`SELECT coalesce(max(version), 0)::int AS max FROM rulebook_version WHERE district_id = $1`, [districtId]);
  return max + 1;
}

export async function listDistricts(ds: DataSource): Promise<District[]> {
  return ds.getRepository(District).find({ order: { name: "ASC" } });
}

export async function getDistrict(ds: DataSource, by: { id?: string; slug?: string }): Promise<District> {
  const key = by.id ? `id:${by.id}` : `slug:${by.slug}`;
  const kept = districtCache.get(key);
  if (kept && kept.until > Date.now()) return kept.district;
  const d = await ds.getRepository(District).findOne({ where: by.id ? { id: by.id } : { slug: by.slug } });
  if (!d) throw notFound("That district");
  if (districtCache.size >= 1000) districtCache.clear();
  districtCache.set(key, { district: Object.freeze(d), until: Date.now() + DISTRICT_CACHE_MS });
  return d;
}

/**
 * The districts where a daily job has work: those for which `exists` (SQL over the district as `d`,
 * an EXISTS on the job's own table by its district index) holds. One statement.
 */
export function districtsWhere(ds: DataSource, exists: string): Promise<District[]> {
  return ds.getRepository(District).createQueryBuilder("d").where(exists).getMany();
}

// A district's row changes only when the shipped law data is loaded, which drops the public answers
// on every instance: kept as long as those (a public page asks for its district on every request).
const DISTRICT_CACHE_MS = 60_000;
const districtCache = new Map<string, { district: District; until: number }>();
onInvalidation("public", () => districtCache.clear());

/** A read-only view of one rulebook version with typed accessors; features read figures only through this. */
export class Rulebook {
  private byKey: Map<string, RuleEntry>;
  constructor(readonly version: RulebookVersion) {
    this.byKey = new Map(version.entries.map((e) => [e.key, e]));
  }
  entry(key: RulebookKey): RuleEntry {
    const e = this.byKey.get(key);
    if (!e) throw new Error(`rulebook v${this.version.version} has no entry ${key}`);
    return e;
  }
  /** A figure the feature cannot work without: throws a clear error when the district has not set it. */
  require(key: RulebookKey): { value: number; section: string; label: string } {
    const e = this.entry(key);
    if (typeof e.value !== "number") throw badInput({}, `${e.label} is not set in this district's rulebook (${e.section}).`);
    return { value: e.value, section: e.section, label: e.label };
  }
  /** Whether this version has the entry (versions written before a key was added to the law's data lack it). */
  has(key: RulebookKey): boolean {
    return this.byKey.has(key);
  }
  enabled(key: RulebookKey): boolean {
    const e = this.entry(key);
    return e.kind === "boolean" ? e.value : e.value !== null;
  }
  get entries(): RuleEntry[] {
    return this.version.entries;
  }
}

// Rulebook versions never change once written (a change is a new version), so they are cached by
// id, each with its entries by key (a Rulebook), not rebuilt on every read.
const rulebookCache = new Map<string, Rulebook>();
const VERSION_CACHE_MAX = 200;
// Dropped with the public answers too: a process that serves one fresh database after another (the
// tests, file after file) starts clean.
onInvalidation("public", () => rulebookCache.clear());

/** A rulebook version by id (e.g. the one a decision recorded); cached, since versions never change. */
export async function rulebookById(ds: DataSource | EntityManager, id: string): Promise<Rulebook> {
  let r = rulebookCache.get(id);
  if (!r) {
    r = new Rulebook(await ds.getRepository(RulebookVersion).findOneOrFail({ where: { id } }));
    if (rulebookCache.size >= VERSION_CACHE_MAX) rulebookCache.delete(rulebookCache.keys().next().value!);
    rulebookCache.set(id, r);
  }
  return r;
}

/** The rulebook version in force on a calendar date (in the district's zone; today when omitted). */
export async function rulebookOn(ds: DataSource | EntityManager, district: District, on?: CalendarDate): Promise<Rulebook> {
  const date = on ?? dateIn(district.timeZone);
  if (!isCalendarDate(date)) throw badInput({ on: "Use a date like 2026-11-30." });
  const rows: { id: string }[] = await ds.query(
    `SELECT id FROM rulebook_version WHERE district_id = $1 AND effective_date <= $2 ORDER BY effective_date DESC, version DESC LIMIT 1`,
    [district.id, date],
  );
  if (!rows[0]) throw notFound(`A rulebook in force on ${date}`);
  return rulebookById(ds, rows[0].id);
}

export async function listRulebookVersions(ds: DataSource, districtId: string): Promise<RulebookVersion[]> {
  return ds.getRepository(RulebookVersion).find({ where: { districtId }, order: { version: "DESC" } });
}

export type RuleChange = { key: string; value: unknown };

export type ChangeRulebookInput = {
  changes: RuleChange[];
  effectiveDate: CalendarDate;
  reason: string;
  /** the Town Board resolution that sets the board figures changed: required when any is */
  resolutionNumber?: string | null;
  /** YYYY-MM-DD, the day the Board adopted it: not after today, not after effectiveDate */
  resolutionAdoptedOn?: CalendarDate | null;
};

/**
 * ADMIN edits the Town Board's figures: every change makes a new rulebook version, effective on
 * the given date, citing the Board's resolution, with the reason, and an audit entry listing old
 * and new values. Figures the law sets (statute entries) are refused: they change only with a new
 * version of the law's shipped file. A figure outside the bounds the law sets is refused. The
 * change is carried into versions already effective after its date (rulebook-merge.ts).
 */
export async function changeRulebook(ds: DataSource, actor: Actor, districtId: string, input: ChangeRulebookInput): Promise<RulebookVersion> {
  const fields: Record<string, string> = {};
  if (!isCalendarDate(input.effectiveDate)) fields.effectiveDate = "Use a date like 2026-12-01.";
  if (!input.reason.trim()) fields.reason = "Say why the rule changes (the audit log keeps it).";
  if (!input.changes.length) fields.changes = "Change at least one setting.";
  if (Object.keys(fields).length) throw badInput(fields);

  return ds.transaction(async (tx) => {
    const district = await tx.findOne(District, { where: { id: districtId } });
    if (!district) throw notFound("That district");
    // Numbers versions, and serialises changes to this district's rulebook.
    await nextVersion(tx, districtId);
    const rows = await versionRows(tx, districtId);
    const base = versionInForce(rows, input.effectiveDate);
    if (!base) throw badInput({ effectiveDate: `No rulebook is in force on ${formatDate(input.effectiveDate)}; choose a later date.` });
    const entries = base.entries.map((e) => ({ ...e }));
    const diff: { key: string; from: unknown; to: unknown }[] = [];
    let boardChanges = 0;
    for (const c of input.changes) {
      const i = entries.findIndex((e) => e.key === c.key);
      if (i < 0 || !(c.key in RULEBOOK_KEYS)) {
        fields[c.key] = "This setting does not exist.";
        continue;
      }
      const e = entries[i];
      if (e.source !== "board") {
        fields[c.key] = `${e.label} is set by the law (${e.section}); it changes only when the law is amended, not here.`;
        continue;
      }
      boardChanges++;
      // A board table the portal edits (the Uni-Bell tables): its rows read and checked by their spec (board-tables.ts).
      const spec = e.kind === "table" ? BOARD_TABLES[c.key] : undefined;
      const table = spec ? readBoardTable(spec, c.value) : null;
      if (table && "problem" in table) {
        fields[c.key] = `${e.label}: ${table.problem}`;
        continue;
      }
      const next = ruleEntry.safeParse({ ...e, value: table ? table.rows : c.value });
      if (!next.success) {
        fields[c.key] = `Not a valid value for ${e.label}.`;
        continue;
      }
      if (JSON.stringify(e.value) !== JSON.stringify(next.data.value)) diff.push({ key: c.key, from: e.value, to: next.data.value });
      entries[i] = next.data;
    }
    const adopted = boardChanges ? resolutionOf(input, dateIn(district.timeZone), fields) : null;
    if (Object.keys(fields).length) throw badInput(fields);
    Object.assign(fields, crossEntryProblems(entries));
    if (Object.keys(fields).length) throw badInput(fields);
    if (!diff.length) throw badInput({ changes: "Nothing changed: every value is the same as in force." });

    const changed = diff.map((d) => ({ ...entries.find((e) => e.key === d.key)!, resolution: adopted! }) as RuleEntry);
    const plan = planBoardChange(rows, { effectiveDate: input.effectiveDate, changes: changed });
    const reason = input.reason.trim();
    const written = await writePlan(tx, districtId, plan, (p, first) => ({
      label: p.carriedInto === null ? `Version ${first}: ${reason.slice(0, 120)}` : `Version ${first}'s change, carried over version ${p.carriedInto}: ${reason.slice(0, 100)}`,
      source: "admin",
      sourceHash: null,
      reason: p.carriedInto === null ? reason : `The change of version ${first} also applies from this date, over version ${p.carriedInto}: ${reason}`,
      createdById: actor.userId,
    }));
    await audit(tx, actor, {
      action: "rulebook.changed",
      entityType: "District",
      entityId: districtId,
      districtId,
      reason,
      details: { version: written[0].version, effectiveDate: input.effectiveDate, resolution: adopted, changes: diff, ...carriedDetails(plan, written) },
    });
    // Every instance drops its public answers (the rulebook pages) when this commits.
    await announceInvalidation(tx, { cache: "public" });
    return written[0];
  });
}

/** The resolution cited for a change of board figures, or field errors: it must be named, and adopted by today and by the effective date. */
function resolutionOf(input: ChangeRulebookInput, today: CalendarDate, fields: Record<string, string>): { number: string; adoptedOn: CalendarDate } | null {
  const number = (input.resolutionNumber ?? "").trim();
  const adoptedOn = (input.resolutionAdoptedOn ?? "").trim();
  if (!number) fields.resolutionNumber = "Give the number of the Town Board resolution that sets these figures, like 2026-14.";
  else if (!resolution.shape.number.safeParse(number).success) fields.resolutionNumber = "A resolution number is at most 60 characters.";
  if (!adoptedOn) fields.resolutionAdoptedOn = "Give the day the Town Board adopted the resolution.";
  else if (!isCalendarDate(adoptedOn)) fields.resolutionAdoptedOn = "Use a date like 2026-11-03.";
  else if (adoptedOn > today) fields.resolutionAdoptedOn = `The resolution must already be adopted: give a day no later than today (${formatDate(today)}).`;
  else if (isCalendarDate(input.effectiveDate) && input.effectiveDate < adoptedOn)
    fields.effectiveDate = `The change cannot come into force before the resolution was adopted (${formatDate(adoptedOn)}).`;
  return fields.resolutionNumber || fields.resolutionAdoptedOn || fields.effectiveDate ? null : { number, adoptedOn };
}

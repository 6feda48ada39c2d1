import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { DataSource, EntityManager } from "typeorm";
import { audit, type Actor } from "../audit/audit.service.js";
import { dateIn, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, notFound } from "../common/errors.js";
import { sha256 } from "../common/tokens.js";
import { District } from "./district.entity.js";
import { RULEBOOK_KEYS, type RulebookKey } from "./rulebook-keys.js";
import { crossEntryProblems, districtFile, ruleEntry, type DistrictFile, type RuleEntry } from "./rulebook-schema.js";
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
 * Loads the shipped districts and rulebooks (run on migrate). Idempotent: a shipped rulebook whose
 * content is already stored is not stored again; a changed one becomes a new version.
 */
export async function loadShippedDistricts(ds: DataSource): Promise<void> {
  const files = shippedDistrictFiles();
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
            timeZone: d.timeZone,
            address: d.address,
            contacts: d.contacts,
            publicNotice: d.publicNotice,
          }),
        );
        await audit(tx, { userId: null }, { action: "district.loaded", entityType: "District", entityId: district.id, districtId: district.id });
      }
      const hash = sha256(JSON.stringify(file.rulebook));
      const seen = await tx.findOne(RulebookVersion, { where: { districtId: district.id, source: "shipped", sourceHash: hash } });
      if (seen) continue;
      const version = await nextVersion(tx, district.id);
      await tx.insert(RulebookVersion, {
        districtId: district.id,
        version,
        label: file.rulebook.label,
        effectiveDate: file.rulebook.effectiveDate,
        entries: file.rulebook.entries,
        source: "shipped",
        sourceHash: hash,
        reason: "Loaded from the shipped rulebook",
      });
      await audit(tx, { userId: null }, { action: "rulebook.loaded", entityType: "District", entityId: district.id, districtId: district.id, details: { version } });
    }
  });
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
  const d = await ds.getRepository(District).findOne({ where: by.id ? { id: by.id } : { slug: by.slug } });
  if (!d) throw notFound("That district");
  return d;
}

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
  enabled(key: RulebookKey): boolean {
    const e = this.entry(key);
    return e.kind === "boolean" ? e.value : e.value !== null;
  }
  get entries(): RuleEntry[] {
    return this.version.entries;
  }
}

// Rulebook versions never change once written (a change is a new version), so rows are cached by id.
const versionCache = new Map<string, RulebookVersion>();
const VERSION_CACHE_MAX = 200;

/** A rulebook version by id (e.g. the one a decision recorded); cached, since versions never change. */
export async function rulebookById(ds: DataSource | EntityManager, id: string): Promise<Rulebook> {
  return new Rulebook(await versionById(ds, id));
}

async function versionById(ds: DataSource | EntityManager, id: string): Promise<RulebookVersion> {
  let v = versionCache.get(id);
  if (!v) {
    v = await ds.getRepository(RulebookVersion).findOneOrFail({ where: { id } });
    if (versionCache.size >= VERSION_CACHE_MAX) versionCache.delete(versionCache.keys().next().value!);
    versionCache.set(id, v);
  }
  return v;
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
  return new Rulebook(await versionById(ds, rows[0].id));
}

export async function listRulebookVersions(ds: DataSource, districtId: string): Promise<RulebookVersion[]> {
  return ds.getRepository(RulebookVersion).find({ where: { districtId }, order: { version: "DESC" } });
}

export type RuleChange = { key: string; value: unknown };

/**
 * ADMIN edits settings: every change makes a new rulebook version, effective on the given date,
 * with the reason, and an audit entry listing old and new values.
 */
export async function changeRulebook(
  ds: DataSource,
  actor: Actor,
  districtId: string,
  input: { changes: RuleChange[]; effectiveDate: CalendarDate; reason: string },
): Promise<RulebookVersion> {
  const fields: Record<string, string> = {};
  if (!isCalendarDate(input.effectiveDate)) fields.effectiveDate = "Use a date like 2026-12-01.";
  if (!input.reason.trim()) fields.reason = "Say why the rule changes (the audit log keeps it).";
  if (!input.changes.length) fields.changes = "Change at least one setting.";
  if (Object.keys(fields).length) throw badInput(fields);

  return ds.transaction(async (tx) => {
    const district = await tx.findOne(District, { where: { id: districtId } });
    if (!district) throw notFound("That district");
    const version = await nextVersion(tx, districtId);
    const current = await rulebookOn(tx, district, input.effectiveDate).catch(() => null);
    const base = current ?? (await rulebookOn(tx, district));
    const entries = base.entries.map((e) => ({ ...e }));
    const diff: { key: string; from: unknown; to: unknown }[] = [];
    for (const c of input.changes) {
      const i = entries.findIndex((e) => e.key === c.key);
      if (i < 0 || !(c.key in RULEBOOK_KEYS)) {
        fields[c.key] = "This setting does not exist.";
        continue;
      }
      const next = ruleEntry.safeParse({ ...entries[i], value: c.value });
      if (!next.success) {
        fields[c.key] = `Not a valid value for ${entries[i].label}.`;
        continue;
      }
      if (JSON.stringify(entries[i].value) !== JSON.stringify(next.data.value)) diff.push({ key: c.key, from: entries[i].value, to: next.data.value });
      entries[i] = next.data;
    }
    if (Object.keys(fields).length) throw badInput(fields);
    Object.assign(fields, crossEntryProblems(entries));
    if (Object.keys(fields).length) throw badInput(fields);
    if (!diff.length) throw badInput({ changes: "Nothing changed: every value is the same as in force." });
    const row = tx.create(RulebookVersion, {
      districtId,
      version,
      label: `Version ${version}: ${input.reason.trim().slice(0, 120)}`,
      effectiveDate: input.effectiveDate,
      entries,
      source: "admin",
      sourceHash: null,
      reason: input.reason.trim(),
      createdById: actor.userId,
    });
    await tx.save(row);
    await audit(tx, actor, {
      action: "rulebook.changed",
      entityType: "District",
      entityId: districtId,
      districtId,
      reason: input.reason.trim(),
      details: { version, effectiveDate: input.effectiveDate, changes: diff },
    });
    return row;
  });
}

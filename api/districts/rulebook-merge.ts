import { crossEntryProblems, type RuleEntry } from "./rulebook-schema.js";

/**
 * How a law amendment and the Town Board's figures compose into rulebook versions
 * (docs/decisions/law-amendments-keep-board-figures.md). Pure: the callers read the district's
 * versions, call a planner, and insert the rows it returns.
 *
 * A version row always holds every entry. rulebookOn picks, for a date, the row with the latest
 * effective date on or before it and, among rows of that date, the highest version number. So a
 * change effective on a date E is written as (1) a row effective E: the rulebook in force on E
 * with the change, and (2) for every later effective date D that already has rows, a "carried"
 * row effective D: the row in force on D with the change carried into it. Being newer, each
 * carried row wins on its date, while the rows it supersedes stay as they were (decisions that
 * recorded them keep them).
 *
 * - A law version (the shipped file) sets the statute entries and the wording of every entry;
 *   its board entries keep the figure (and resolution) in force, unless the law's own bounds now
 *   refuse it, or the key is new. It is carried up to the next law version's date.
 * - A Board change sets the board entries it names; at a later date it is carried only into rows
 *   whose figure is still the one it replaced (a later resolution keeps its own figure), and
 *   never past a bound the law in force on that date sets.
 */

/** What the planners need of a stored version. `law`: a row loaded from a shipped law file itself (not one carried). */
export type VersionRow = { version: number; effectiveDate: string; law: boolean; entries: RuleEntry[] };

/** A row to insert: effective on `effectiveDate`; `carriedInto` is the version it supersedes on that date (null for the change's own row). */
export type PlannedVersion = {
  effectiveDate: string;
  entries: RuleEntry[];
  carriedInto: number | null;
  /** board entries whose figure could not be kept or carried because the law's bounds refuse it (the law's figure stays) */
  refused: string[];
};

/** The row rulebookOn picks for a date (YYYY-MM-DD): latest effective date on or before it, then the highest version. */
export function versionInForce<T extends { version: number; effectiveDate: string }>(rows: readonly T[], date: string): T | null {
  let best: T | null = null;
  for (const r of rows)
    if (r.effectiveDate <= date && (!best || r.effectiveDate > best.effectiveDate || (r.effectiveDate === best.effectiveDate && r.version > best.version))) best = r;
  return best;
}

/** Effective dates after `date` that have rows, earliest first. */
function laterDates(rows: readonly VersionRow[], date: string): string[] {
  return [...new Set(rows.filter((r) => r.effectiveDate > date).map((r) => r.effectiveDate))].sort();
}

/** Same figure from the same resolution. */
export function sameFigure(a: RuleEntry | undefined, b: RuleEntry | undefined): boolean {
  return JSON.stringify(a?.value ?? null) === JSON.stringify(b?.value ?? null) && JSON.stringify(a?.resolution ?? null) === JSON.stringify(b?.resolution ?? null);
}

const sameEntries = (a: RuleEntry[], b: RuleEntry[]) => JSON.stringify(a) === JSON.stringify(b);

/** The entry `wording` with the figure and resolution of `figure`. */
function withFigure(wording: RuleEntry, figure: RuleEntry): RuleEntry {
  const { resolution: _drop, ...rest } = wording;
  return { ...rest, value: figure.value, ...(figure.resolution ? { resolution: figure.resolution } : {}) } as RuleEntry;
}

/**
 * Puts `fallback`'s entry back for every changed key whose figure now breaks a bound, until none
 * does (a restored figure is the one that was valid in that rulebook). Returns the keys put back.
 */
function restoreOutOfBounds(entries: RuleEntry[], fallback: ReadonlyMap<string, RuleEntry>, changed: ReadonlySet<string>): string[] {
  const refused: string[] = [];
  for (;;) {
    const bad = Object.keys(crossEntryProblems(entries)).filter((k) => changed.has(k) && !refused.includes(k));
    if (!bad.length) return refused;
    for (const k of bad) {
      const i = entries.findIndex((e) => e.key === k);
      const back = fallback.get(k);
      if (i >= 0 && back) entries[i] = back;
      refused.push(k);
    }
  }
}

/**
 * A law version's entries composed over the rulebook in force (`inForce`, null when there is none):
 * every statute entry, and the wording of every entry, from the law; a board entry keeps the
 * figure and resolution in force when the key was there as a figure of the same kind that the
 * previous law did not itself fix (rows written before entries had a source count as kept), and
 * the law's bounds allow it. New keys, and figures the law newly leaves to the Board, start from
 * the law's file.
 */
export function composeLaw(law: readonly RuleEntry[], inForce: readonly RuleEntry[] | null): { entries: RuleEntry[]; refused: string[] } {
  const prev = new Map((inForce ?? []).map((e) => [e.key, e]));
  const kept = new Set<string>();
  const entries = law.map((e) => {
    const p = prev.get(e.key);
    if (e.source !== "board" || !p || p.kind !== e.kind || (p as { source?: string }).source === "statute") return e;
    if (sameFigure(p, e)) return e;
    kept.add(e.key);
    return withFigure(e, p);
  });
  const refused = restoreOutOfBounds(entries, new Map(law.map((e) => [e.key, e])), kept);
  return { entries, refused };
}

/**
 * The rows to write when a law file effective `law.effectiveDate` is loaded over `rows` (the
 * district's versions): the law's own row, then one carried row for each later date up to the
 * next law version, each keeping the Board's figures of the row it supersedes.
 */
export function planLawVersion(rows: readonly VersionRow[], law: { effectiveDate: string; entries: readonly RuleEntry[] }): PlannedVersion[] {
  const own = composeLaw(law.entries, versionInForce(rows, law.effectiveDate)?.entries ?? null);
  const out: PlannedVersion[] = [{ effectiveDate: law.effectiveDate, entries: own.entries, carriedInto: null, refused: own.refused }];
  for (const date of laterDates(rows, law.effectiveDate)) {
    // From a later law version's date on, that law governs.
    if (rows.some((r) => r.law && r.effectiveDate > law.effectiveDate && r.effectiveDate <= date)) break;
    const top = versionInForce(rows, date)!;
    const carried = composeLaw(own.entries, top.entries);
    if (!sameEntries(carried.entries, top.entries)) out.push({ effectiveDate: date, entries: carried.entries, carriedInto: top.version, refused: carried.refused });
  }
  return out;
}

/**
 * The rows to write for a Board change effective `effectiveDate`: `changes` are the board entries
 * it sets, with their new figures and resolution (already checked against the rulebook in force
 * on that date). Later dates get a carried row where their figure is still the one the change
 * replaced and the law in force there allows the new one. Throws when no rulebook is in force on
 * the date (the caller checks first).
 */
export function planBoardChange(rows: readonly VersionRow[], change: { effectiveDate: string; changes: readonly RuleEntry[] }): PlannedVersion[] {
  const base = versionInForce(rows, change.effectiveDate);
  if (!base) throw new Error(`no rulebook in force on ${change.effectiveDate}`);
  const byKey = new Map(change.changes.map((e) => [e.key, e]));
  const replaced = new Map(base.entries.filter((e) => byKey.has(e.key)).map((e) => [e.key, e]));
  const out: PlannedVersion[] = [
    { effectiveDate: change.effectiveDate, entries: base.entries.map((e) => (byKey.has(e.key) ? withFigure(e, byKey.get(e.key)!) : e)), carriedInto: null, refused: [] },
  ];
  for (const date of laterDates(rows, change.effectiveDate)) {
    const top = versionInForce(rows, date)!;
    const touched = new Set<string>();
    const entries = top.entries.map((e) => {
      const c = byKey.get(e.key);
      if (!c || (e as { source?: string }).source === "statute" || e.kind !== c.kind || !sameFigure(e, replaced.get(e.key))) return e;
      touched.add(e.key);
      return withFigure(e, c);
    });
    if (!touched.size) continue;
    const refused = restoreOutOfBounds(entries, new Map(top.entries.map((e) => [e.key, e])), touched);
    if (!sameEntries(entries, top.entries)) out.push({ effectiveDate: date, entries, carriedInto: top.version, refused });
  }
  return out;
}

import type { OperationDefinitionNode } from "graphql";
import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import { announceCommitted, onInvalidation } from "../common/invalidation.js";

/**
 * A short-lived cache for hot signed-in lists (the dashboard, the staff queue, the SNC dashboard).
 * Any mutation (but those declared list-neutral: changesNoList) or Stripe webhook clears it on every instance (`listsChanged`: here at once, on the
 * others by a NOTIFY sent once the change has committed; see the plugin in api/server.ts), so a
 * change made on one instance is on the lists of all of them at once. A change of someone's
 * sessions or roles, or of public data (api/common/invalidation.ts), clears it on every instance
 * too. Changes made by jobs show within MICRO_CACHE_MS plus one computation.
 *
 * One computation per key at a time (callers share the promise). Once an answer is older than
 * MICRO_CACHE_MS it is still served while a fresh one is computed in the background, so nobody
 * waits for the recomputation of a costly list (stale-while-revalidate); past MAX_STALE_MS, or
 * after a clear, callers wait for the fresh answer.
 */
export const MICRO_CACHE_MS = 2_000;
const MAX_STALE_MS = 10 * MICRO_CACHE_MS;
type Entry = { at: number; value: Promise<unknown>; settled: boolean; refreshing: boolean };
const entries = new Map<string, Entry>();
const MAX_ENTRIES = 5_000;

function compute<T>(key: string, fn: () => Promise<T>, now: number): Entry {
  const entry: Entry = { at: now, value: fn(), settled: false, refreshing: false };
  entry.value.then(
    () => (entry.settled = true),
    () => entries.get(key) === entry && entries.delete(key), // errors are never cached
  );
  return entry;
}

export function microCached<T>(key: string, fn: () => Promise<T>, now = Date.now()): Promise<T> {
  const hit = entries.get(key);
  if (hit) {
    const age = now - hit.at;
    if (age < MICRO_CACHE_MS || !hit.settled) return hit.value as Promise<T>;
    if (age < MAX_STALE_MS) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        const next = compute(key, fn, now);
        next.value.then(
          () => entries.get(key) === hit && entries.set(key, next),
          () => (hit.refreshing = false),
        );
      }
      return hit.value as Promise<T>;
    }
  }
  if (entries.size >= MAX_ENTRIES) entries.clear();
  const entry = compute(key, fn, now);
  entries.set(key, entry);
  return entry.value as Promise<T>;
}

export function clearMicroCache(): void {
  entries.clear();
}
onInvalidation("viewers", clearMicroCache);
onInvalidation("public", clearMicroCache);
onInvalidation("lists", clearMicroCache);

const listNeutral = new Set<string>();

/** Mutations that change nothing a cached list shows (quick pay's lookup records only its attempt): they clear no list here or elsewhere. */
export function changesNoList(...fields: string[]): void {
  for (const f of fields) listNeutral.add(f);
}

/** Whether a mutation may change what a cached list shows: any root field not declared list-neutral (or a fragment) may. */
export const mayChangeLists = (operation: OperationDefinitionNode): boolean =>
  operation.selectionSet.selections.some((s) => s.kind !== "Field" || !listNeutral.has(s.name.value));

/**
 * A change has committed that a cached list may show: dropped here, and on every other instance.
 * Awaited before the answer goes out, so the NOTIFY has reached PostgreSQL (which hands it to every
 * listener) before the person can ask another instance. Never rejects: a failure is logged.
 */
export async function listsChanged(ds: DataSource, log: Logger): Promise<void> {
  clearMicroCache();
  await announceCommitted(ds, { cache: "lists" }).catch((err) => log.warn({ err }, "could not tell the other instances to drop their lists"));
}

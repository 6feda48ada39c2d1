import { onInvalidation } from "../common/invalidation.js";

/**
 * A short-lived cache for hot signed-in lists (the dashboard, the staff queue, the SNC dashboard).
 * Any mutation on this instance clears it (see the plugin in api/server.ts), so a person always
 * sees their own change at once; other people's changes made on another instance show within
 * MICRO_CACHE_MS plus one computation. A change of someone's sessions or roles, or of public data
 * (api/common/invalidation.ts), clears it on every instance.
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

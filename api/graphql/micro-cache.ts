/**
 * A short-lived cache for hot signed-in lists (the dashboard, the staff queue). Any mutation on
 * this instance clears it (see the plugin in api/server.ts), so a person always sees their own
 * change at once; changes made on another instance show within MICRO_CACHE_MS.
 */
export const MICRO_CACHE_MS = 2_000;
const entries = new Map<string, { at: number; value: Promise<unknown> }>();
const MAX_ENTRIES = 5_000;

export function microCached<T>(key: string, fn: () => Promise<T>, now = Date.now()): Promise<T> {
  const hit = entries.get(key);
  if (hit && now - hit.at < MICRO_CACHE_MS) return hit.value as Promise<T>;
  if (entries.size >= MAX_ENTRIES) entries.clear();
  const value = fn();
  entries.set(key, { at: now, value });
  value.catch(() => entries.delete(key)); // errors are never cached
  return value;
}

export function clearMicroCache(): void {
  entries.clear();
}

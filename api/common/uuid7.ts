import { randomUUID } from "node:crypto";

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Rows written in
 * bulk (a report's lab results) get keys that grow with time, so the primary key's index takes
 * them at its right edge instead of at random pages all over an index of millions of rows.
 * The random part comes from randomUUID, which draws from a pooled buffer (no system call each).
 */
export function uuid7(now = Date.now()): string {
  const ms = now.toString(16).padStart(12, "0").slice(-12);
  const r = randomUUID(); // xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${r.slice(15)}`;
}

import { randomFillSync } from "node:crypto";

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Rows written in
 * bulk (a report's lab results) get keys that grow with time, so the primary key's index takes
 * them at its right edge instead of at random pages all over an index of millions of rows.
 */
export function uuid7(now = Date.now()): string {
  const b = randomFillSync(new Uint8Array(16));
  b[0] = (now / 2 ** 40) & 0xff;
  b[1] = (now / 2 ** 32) & 0xff;
  b[2] = (now >>> 24) & 0xff;
  b[3] = (now >>> 16) & 0xff;
  b[4] = (now >>> 8) & 0xff;
  b[5] = now & 0xff;
  b[6] = 0x70 | (b[6] & 0x0f); // version 7
  b[8] = 0x80 | (b[8] & 0x3f); // variant 10
  const h = Buffer.from(b).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

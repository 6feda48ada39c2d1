import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A random secret token for a link or cookie; only its SHA-256 is stored. */
export function newToken(prefix = ""): string {
  return prefix + randomBytes(32).toString("base64url");
}
export function sha256(s: string | Buffer): string {
  return createHash("sha256").update(s).digest("hex");
}
export function sign(value: string, secret: string): string {
  return `${value}.${createHmac("sha256", secret).update(value).digest("base64url")}`;
}
/** Returns the value when the signature matches, null when the cookie was tampered with. */
export function unsign(signed: string, secret: string): string | null {
  const i = signed.lastIndexOf(".");
  if (i <= 0) return null;
  const value = signed.slice(0, i);
  const expected = Buffer.from(sign(value, secret).slice(i + 1));
  const actual = Buffer.from(signed.slice(i + 1));
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? value : null;
}

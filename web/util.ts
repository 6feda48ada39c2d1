const LOCAL = "http://tapline.invalid";

/**
 * What a browser would make of `s` as a redirect target is a path on this site: it strips tabs,
 * newlines and other control characters (and leading spaces), reads a backslash as a slash, and
 * takes `//host` as another site; dot segments can turn `/.//host` into `//host`.
 */
function isLocalPath(s: string): boolean {
  const t = s.replace(/[\u0000-\u001f\u007f]/g, "").replace(/^[\s\u00a0\ufeff]+/, "");
  if (!t.startsWith("/") || t.startsWith("//") || t.includes("\\")) return false;
  let url: URL;
  try {
    url = new URL(t, LOCAL);
  } catch {
    return false;
  }
  return url.origin === LOCAL && !url.pathname.startsWith("//");
}

/**
 * Only same-site paths, so a sign-in link cannot send anyone elsewhere: `to` and every decoding of
 * it (a later step might decode it again) must be a path on this site once control characters are
 * stripped; anything else gives `fallback`. The answer is the path as the URL standard writes it
 * (controls gone or escaped), so it is always safe in a Location header; its query and fragment
 * are kept.
 */
export function safeRedirect(to: string | null | undefined, fallback = "/"): string {
  if (typeof to !== "string" || !to || to.length > 2048) return fallback;
  let s = to;
  for (let i = 0; ; i++) {
    if (!isLocalPath(s)) return fallback;
    let next: string;
    try {
      next = decodeURIComponent(s);
    } catch {
      break; // a stray "%": no one can decode it further
    }
    if (next === s) break;
    if (i === 4) return fallback; // still encoded after five decodings: no real link is
    s = next;
  }
  let url: URL;
  try {
    url = new URL(to, LOCAL);
  } catch {
    return fallback;
  }
  const out = url.pathname + url.search + url.hash;
  return url.origin === LOCAL && isLocalPath(out) ? out : fallback;
}

/** A posted form's text fields by name, without the CSRF token (and `omit`), to send on and to show back on error. */
export function formValues(form: FormData, ...omit: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (typeof v === "string" && k !== "csrf" && !omit.includes(k)) values[k] = v;
  return values;
}

import { createHash, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import type express from "express";
import { isPublicPage, isTokenPage } from "../web/public-pages.js";
import { onInvalidation } from "./common/invalidation.js";
import { encodingFor, sendPage } from "./compression.js";
import { PUBLIC_MAX_AGE } from "./graphql/cache.js";
import { carriesCredentials } from "./security-headers.js";

/**
 * Whole pages for signed-out visitors (issue 20, docs/decisions/public-page-cache.md): the home and
 * rules pages (web/public-pages.ts) are the same for everyone not signed in, so the bytes a render
 * made are kept, with their brotli and gzip copies made once, and sent again to the next signed-out
 * visitor of the same address: no render, no compression.
 *
 * Kept only: a 200 text/html answer that sets no cookie, to a GET or HEAD without the session cookie
 * or an Authorization header, asking for HTML. Such a render has no CSRF token (root.tsx leaves it
 * out on these pages) and no flash. Sent only to a request that would have been kept the same way;
 * a signed-in request is rendered as ever.
 *
 * The page's inline scripts were written with the render's CSP nonce. A kept page is sent to many,
 * so its copy has no nonce: its Content-Security-Policy names each of its inline scripts by
 * `'sha256-…'` instead (hashed once, when kept), and nothing else inline runs. Every other header
 * is set for each response as for a rendered page (api/security-headers.ts).
 *
 * Dropped: all at once when public data changes (the same `public` invalidation as the API's
 * public answers, from this instance after the change's commit and from the others by
 * LISTEN/NOTIFY, api/common/invalidation.ts), and each after the public answers' minute (what
 * changes unannounced, such as the date a rulebook version comes into force, shows within it). A
 * render that began before a change is not kept after it.
 *
 * Pages with a form token (web/public-pages.ts: the sign-in page) are the same for every signed-out
 * visitor but for the visitor's CSRF token and the response's nonce. Such a page is kept only for
 * a visitor whose browser already has the CSRF cookie (a first visit, which sets it, is rendered),
 * with the token and the nonce its render wrote taken out; each visitor is sent it with their own
 * token (read from their cookie, as the root loader reads it) and this response's nonce put back,
 * compressed for them (api/compression.ts sendPage: never compressed for a cross-site request with
 * credentials). Nothing of one visitor's goes to another: the render's token and nonce must be gone
 * from the kept copy, or it is not kept.
 */

/** Pages kept: each district's rules page (a few dates each), the home page, the list of districts. */
const MAX_PAGES = 200;
const MAX_BYTES = 48 * 1024 * 1024;
const TTL_MS = PUBLIC_MAX_AGE * 1000;
/**
 * Brotli's quality for a kept page: made once a minute for many requests, so better than the
 * dynamic quality 4 (api/compression.ts) while still a few milliseconds for the rules page.
 */
const KEPT_BROTLI_QUALITY = 6;

type Kept = {
  html: Buffer;
  /** A page with a form token: its text with TOKEN_MARK and NONCE_MARK where the render's token and nonce were. */
  template?: string;
  headers: [string, string][];
  /** `'sha256-…'` of each inline script, for the CSP. */
  scriptHashes: string[];
  br?: Promise<Buffer>;
  gzip?: Promise<Buffer>;
  bytes: number;
  expires: number;
};

const pages = new Map<string, Kept>();
let bytes = 0;
/** Counts the clears: a render that began under an older generation is not kept. */
let generation = 0;

/** Drops every kept page (public data changed). */
export function clearPageCache(): void {
  generation++;
  pages.clear();
  bytes = 0;
}
onInvalidation("public", clearPageCache);

/** Where a kept page with a form token had its render's token and nonce (random, so no page holds them). */
const TOKEN_MARK = `tapline-token-${randomBytes(12).toString("hex")}`;
const NONCE_MARK = `tapline-nonce-${randomBytes(12).toString("hex")}`;
/** The CSRF cookie's name (web/csrf.server.ts). */
const CSRF_COOKIE = /(?:^|;)\s*tapline_csrf=/;

/**
 * The key of a request whose page may be kept and served kept, or null. A page with a form token
 * has its own keys ("token " and the address), and only for a request carrying the CSRF cookie.
 */
export function pageCacheKey(req: express.Request): string | null {
  if (req.method !== "GET" && req.method !== "HEAD") return null;
  const token = isTokenPage(req.path);
  if (!(token || isPublicPage(req.path)) || carriesCredentials(req)) return null;
  // A Remix data request, or anything but a browser's page request, is rendered as ever (the rules
  // page puts its lists in its data when the request does not ask for HTML).
  if (!(req.headers.accept ?? "").includes("text/html")) return null;
  const address = `${req.protocol}://${req.get("host") ?? ""}${req.originalUrl}`;
  if (!token) return address;
  return CSRF_COOKIE.test(req.headers.cookie ?? "") ? `token ${address}` : null;
}

/** The keys of the pages kept now (for tests). */
export const keptPageKeys = (): string[] => [...pages.keys()];

/** Whether a key is a page with a form token's (rendered with the visitor's token, kept without it). */
export const hasFormToken = (key: string): boolean => key.startsWith("token ");

/** A request rendering a page that may be kept (see `keepPage`); `done` once it has answered. */
export type PageTicket = { key: string; generation: number; done(): void };

/** The renders under way of pages not kept, by key. */
const rendering = new Map<string, Promise<void>>();

/**
 * For a request whose page is not kept: when another request is rendering it already, waits for
 * that render (then the page is usually kept) and answers null, so that the ten requests arriving
 * when a page's minute is up make one render, not ten; otherwise a ticket to render it.
 */
export async function ticketFor(key: string): Promise<PageTicket | null> {
  const under = rendering.get(key);
  if (under) {
    await under;
    return null;
  }
  let done!: () => void;
  const p = new Promise<void>((resolve) => (done = resolve));
  rendering.set(key, p);
  return {
    key,
    generation,
    done() {
      if (rendering.get(key) === p) rendering.delete(key);
      done();
    },
  };
}

/**
 * Sends the kept page for this request, if there is one: true when sent. The response's CSP (set by
 * the security headers with this request's nonce) names the page's scripts by hash instead; a page
 * with a form token gets this visitor's token (`tokenOf`: null when the request's CSRF cookie gives
 * none, and the page is rendered) and keeps the nonce.
 */
export async function sendKeptPage(req: express.Request, res: express.Response, key: string, tokenOf: (req: express.Request) => Promise<string | null>): Promise<boolean> {
  const kept = pages.get(key);
  if (!kept) return false;
  if (kept.expires <= Date.now()) {
    dropPage(key, kept);
    return false;
  }
  const csp = res.getHeader("Content-Security-Policy");
  const nonceSource = `'nonce-${res.locals.cspNonce}'`;
  if (typeof csp !== "string" || !csp.includes(nonceSource)) return false;
  if (kept.template !== undefined) {
    const token = await tokenOf(req);
    if (!token) return false;
    pages.delete(key);
    pages.set(key, kept);
    res.status(200);
    for (const [name, value] of kept.headers) res.append(name, value);
    await sendPage(req, res, Buffer.from(kept.template.replaceAll(TOKEN_MARK, token).replaceAll(NONCE_MARK, res.locals.cspNonce), "utf8"));
    return true;
  }
  // Most recently used last.
  pages.delete(key);
  pages.set(key, kept);

  const coding = req.method === "HEAD" ? null : encodingFor(req.headers["accept-encoding"]);
  const body = coding === "br" ? await (kept.br ??= compress(kept.html, "br")) : coding === "gzip" ? await (kept.gzip ??= compress(kept.html, "gzip")) : kept.html;
  res.status(200);
  // As the portal handler sets a rendered page's (Express adds the charset to its Content-Type).
  for (const [name, value] of kept.headers) res.append(name, value);
  res.setHeader("Content-Security-Policy", csp.replace(nonceSource, kept.scriptHashes.join(" ")).replace(/script-src 'self' +;/, "script-src 'self';"));
  res.vary("Accept-Encoding");
  if (coding) res.setHeader("Content-Encoding", coding);
  res.setHeader("Content-Length", body.length);
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}

/**
 * Keeps a page Remix rendered for a ticketed request, when it may be kept: 200, HTML, no cookie set,
 * and no public data changed while it was rendered. `nonce` is the render's; `token` the CSRF token
 * a page with a form token was rendered with (web/root.tsx tells it; unknown, the page is not kept).
 */
export function keepPage(ticket: PageTicket, response: Response, html: Buffer, nonce: string, token?: string): void {
  if (ticket.generation !== generation) return;
  if (response.status !== 200 || !/^text\/html\b/i.test(response.headers.get("Content-Type") ?? "")) return;
  if (response.headers.has("Set-Cookie") || response.headers.getSetCookie().length > 0) return;
  const headers: [string, string][] = [];
  for (const [name, value] of response.headers.entries())
    if (!/^(content-length|content-encoding|set-cookie|content-security-policy)$/i.test(name)) headers.push([name, value]);
  let kept: Kept;
  if (hasFormToken(ticket.key)) {
    const rendered = html.toString("utf8");
    if (!token || !nonce || !rendered.includes(token) || rendered.includes(TOKEN_MARK) || rendered.includes(NONCE_MARK)) return;
    const template = rendered.replaceAll(token, TOKEN_MARK).replaceAll(` nonce="${nonce}"`, ` nonce="${NONCE_MARK}"`);
    // The render's token and nonce must be gone entirely (they were this visitor's and this response's).
    if (template.includes(token) || template.includes(nonce)) return;
    kept = { html: Buffer.alloc(0), template, headers, scriptHashes: [], bytes: template.length * 2, expires: Date.now() + TTL_MS };
  } else {
    const text = html.toString("utf8").replaceAll(` nonce="${nonce}"`, "");
    // The nonce must be gone entirely (it was this render's only).
    if (text.includes(nonce)) return;
    const page = Buffer.from(text, "utf8");
    kept = { html: page, headers, scriptHashes: inlineScriptHashes(text), bytes: page.length * 2, expires: Date.now() + TTL_MS };
  }
  const old = pages.get(ticket.key);
  if (old) dropPage(ticket.key, old);
  pages.set(ticket.key, kept);
  bytes += kept.bytes;
  for (const [key, p] of pages) {
    if (pages.size <= MAX_PAGES && bytes <= MAX_BYTES) break;
    dropPage(key, p);
  }
}

function dropPage(key: string, kept: Kept): void {
  if (pages.get(key) !== kept) return;
  pages.delete(key);
  bytes -= kept.bytes;
}

/**
 * `'sha256-…'` of each inline script of a page, as CSP hashes them: the text between `<script …>`
 * and `</script>` (an HTML parser ends a script's text at the first `</script`).
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script/gi)) {
    if (/\ssrc\s*=/i.test(m[1])) continue;
    // The browser reads the page's line ends as LF before it hashes.
    hashes.add(`'sha256-${createHash("sha256").update(m[2].replace(/\r\n?/g, "\n"), "utf8").digest("base64")}'`);
  }
  return [...hashes];
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

function compress(html: Buffer, coding: "br" | "gzip"): Promise<Buffer> {
  return coding === "br"
    ? brotli(html, { params: { [zlib.BROTLI_PARAM_QUALITY]: KEPT_BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: html.length } })
    : gzipped(html, { level: 6 });
}

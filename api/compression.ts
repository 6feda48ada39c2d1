import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants as zlib, gzip, gzipSync } from "node:zlib";
import compression from "compression";
import type express from "express";
import { carriesCredentials } from "./security-headers.js";

/** Below this a response goes out as it is: compressing would save next to nothing. */
const THRESHOLD = 1024;

/**
 * Brotli's quality for what the server makes on request: 4, the middleware's default, which
 * servers use for dynamic content (a higher one costs more CPU per request than it saves bytes).
 */
const DYNAMIC_BROTLI_QUALITY = 4;

/**
 * Brotli's quality for a rendered page: 2. On a 22 KB dashboard, quality 4 took 0.13 ms and sent
 * 3,234 bytes, quality 2 0.06 ms and 3,524 (a tenth of a millisecond more on slow 4G); under load
 * the compression was a tenth of the page's CPU (issue 20, docs/benchmarks.md, 2026-12-07 night).
 */
const PAGE_BROTLI_QUALITY = 2;

/**
 * Compresses what the server makes on request (/graphql's JSON; CSV, calendars, error pages) with
 * brotli or gzip, as the browser accepts, above 1 KB; brotli at quality 4. Portal pages are
 * compressed whole by `sendPage` below, and build files were compressed once at build and are
 * served as such (api/web.ts): their Content-Encoding makes this pass them by, as it does PDFs and
 * images.
 *
 * Not compressed: a response to a request another site started (`Sec-Fetch-Site: cross-site` or
 * `same-site`) that carries the session cookie or a token, so a page's private text (the signed-in
 * person's data, the form token) never goes out compressed next to what another site put in the
 * address (BREACH). Such a request gets the page uncompressed; the site's own requests do not.
 */
export function compressResponses(): express.RequestHandler {
  return compression({
    filter(req, res) {
      return mayCompress(req) && compression.filter(req, res);
    },
    brotli: { params: { [zlib.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY } },
  });
}

/** The BREACH rule above. */
function mayCompress(req: express.Request): boolean {
  const site = req.headers["sec-fetch-site"];
  return !((site === "cross-site" || site === "same-site") && carriesCredentials(req));
}

/**
 * The coding a request's Accept-Encoding allows, brotli first at equal weight (as the middleware
 * chooses): null for none (identity).
 */
export function encodingFor(acceptEncoding: string | undefined): "br" | "gzip" | null {
  if (!acceptEncoding) return null;
  const weight = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    weight.set(name.trim().toLowerCase(), q ? Number(q.slice(2)) || 0 : 1);
  }
  const of = (coding: string) => weight.get(coding) ?? weight.get("*") ?? 0;
  const br = of("br");
  const gz = of("gzip");
  if (br > 0 && br >= gz) return "br";
  return gz > 0 ? "gzip" : null;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Pages up to this size are compressed on the request's own thread (synchronously), larger ones on
 * libuv's thread pool. For a page of a few dozen KB the pool's round trip cost far more CPU than the
 * compression: a 7.6 KB dashboard took 1.3-1.4 ms of CPU through the pool and 0.13-0.14 ms inline,
 * with the same bytes out (docs/benchmarks.md, 2026-12-07 evening; issue 20). Inline, such a page
 * holds the event loop for about as long as its compression takes, a fraction of its render.
 */
const INLINE_MAX = 64 * 1024;

/**
 * Sends a rendered page whole: compressed in one pass, with its Content-Length. A page compressed
 * as a stream was flushed chunk by chunk (Remix flushes after each), and each brotli flush cost
 * more CPU than rendering the page (issue 20, docs/benchmarks.md); in one piece brotli also gets
 * the page's size as a hint and sizes its tables to it. Same rules as the middleware: above 1 KB,
 * as the browser accepts, never for a cross-site request with credentials.
 */
export async function sendPage(req: express.Request, res: express.Response, body: Buffer): Promise<void> {
  res.vary("Accept-Encoding");
  const coding = body.length >= THRESHOLD && req.method !== "HEAD" && mayCompress(req) ? encodingFor(req.headers["accept-encoding"]) : null;
  let sent = body;
  const inline = body.length <= INLINE_MAX;
  if (coding === "br") {
    const options = { params: { [zlib.BROTLI_PARAM_QUALITY]: PAGE_BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } };
    sent = inline ? brotliCompressSync(body, options) : await brotli(body, options);
  } else if (coding === "gzip") sent = inline ? gzipSync(body, { level: 6 }) : await gzipped(body, { level: 6 });
  if (coding) res.setHeader("Content-Encoding", coding);
  res.setHeader("Content-Length", sent.length);
  res.end(req.method === "HEAD" ? undefined : sent);
}

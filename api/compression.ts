import compression from "compression";
import type express from "express";
import { carriesCredentials } from "./security-headers.js";

/**
 * Compresses what the server makes on request (portal pages, streamed as they render: Remix
 * flushes each chunk; /graphql's JSON; CSV, calendars, error pages) with brotli or gzip, as the
 * browser accepts, above 1 KB; brotli at the middleware's quality 4, since a higher one costs more
 * CPU per request than it saves bytes. Build files are compressed once at build and served as
 * such (api/web.ts): their Content-Encoding makes this pass them by, as it does PDFs and images.
 *
 * Not compressed: a response to a request another site started (`Sec-Fetch-Site: cross-site` or
 * `same-site`) that carries the session cookie or a token, so a page's private text (the signed-in
 * person's data, the form token) never goes out compressed next to what another site put in the
 * address (BREACH). Such a request gets the page uncompressed; the site's own requests do not.
 */
export function compressResponses(): express.RequestHandler {
  return compression({
    filter(req, res) {
      const site = req.headers["sec-fetch-site"];
      if ((site === "cross-site" || site === "same-site") && carriesCredentials(req)) return false;
      return compression.filter(req, res);
    },
  });
}

import type express from "express";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import { AppError } from "../common/errors.js";
import type { Config } from "../config.js";
import { httpViewer, refuseHttp } from "../graphql/request-context.js";
import { readDocument } from "./documents.service.js";

/**
 * `Content-Disposition: attachment` with an ASCII fallback name and, when the name is not plain
 * ASCII, its UTF-8 form (RFC 6266 / RFC 5987 `filename*`).
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const header = `attachment; filename="${fallback}"`;
  if (fallback === filename) return header;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${header}; filename*=UTF-8''${encoded}`;
}

const refuse = refuseHttp;

/**
 * GET /documents/:id downloads a document for whoever may read it, signed in with the session
 * cookie or a bearer token. Missing and not-allowed look the same (404); signed out is 401.
 */
export function registerDocumentDownload(app: express.Express, opts: { ds: DataSource; config: Config; log: Logger }) {
  const { ds, config, log } = opts;
  app.get("/documents/:id", async (req, res) => {
    const requestId = String((req as any).id ?? "");
    const viewer = await httpViewer(req, res, opts, "document");
    if (!viewer) return;

    let found: Awaited<ReturnType<typeof readDocument>>;
    try {
      found = await readDocument(ds, config, viewer, req.params.id);
    } catch (e) {
      if (e instanceof AppError && e.code === "NOT_FOUND") return refuse(res, 404, e.message);
      log.error({ err: e, requestId, documentId: req.params.id }, "document download failed");
      return refuse(res, 500, "Something went wrong on our side. Please try again.");
    }

    const { document, stream } = found;
    res.status(200).set({
      "Content-Type": document.contentType,
      "Content-Length": String(document.sizeBytes),
      "Content-Disposition": contentDisposition(document.filename),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    });
    try {
      await pipeline(stream, res);
    } catch (err: any) {
      // A client that stops reading is not an error; anything else is, and the response is cut short.
      if (err?.code !== "ERR_STREAM_PREMATURE_CLOSE") log.error({ err, requestId, documentId: document.id }, "document download interrupted");
      stream.destroy();
      res.destroy();
    }
  });
}

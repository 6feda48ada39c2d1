import path from "node:path";
import { pathToFileURL } from "node:url";
import express from "express";
import expressStaticGzip from "express-static-gzip";
import { createReadableStreamFromReadable, createRequestHandler as createRemixHandler, writeReadableStreamToWritable, type ServerBuild } from "@remix-run/node";
import { sendPage } from "./compression.js";
import type { Config } from "./config.js";
import { csrfFor } from "../web/csrf.server.js";
import { hasFormToken, keepPage, pageCacheKey, sendKeptPage, ticketFor } from "./page-cache.js";
import { refuseForeignOriginForms } from "./portal-origin.js";
import { markStaticFile } from "./security-headers.js";
import type { GraphQLExecutor } from "./server.js";

/** What every portal loader and action gets: the API, reached only through GraphQL. */
export type PortalLoadContext = {
  graphql: (request: Request, query: string, variables?: Record<string, unknown>) => ReturnType<GraphQLExecutor>;
  demo: boolean;
  stripeEnabled: boolean;
  sessionSecret: string;
  production: boolean;
  /** This request's Content-Security-Policy nonce, for Remix's inline scripts (web/entry.server.tsx). */
  cspNonce: string;
  /**
   * A signed-out request for a page the same for everyone (web/public-pages.ts), whose render may be
   * kept and sent to others (api/page-cache.ts): its loaders put nothing of the visitor's in it (the
   * root leaves the CSRF token out).
   */
  publicPage: boolean;
  /**
   * The root loader tells the CSRF token it put in the page, for a page kept with the token taken
   * out and each visitor's own put back (the sign-in page, api/page-cache.ts).
   */
  csrfTokenShown?: (token: string) => void;
  /**
   * The page web/entry.server.tsx rendered, handed over as the string it is (its Response has no
   * body), so the page is not put into a body stream and read back out (issue 20). Present, as
   * undefined, in every context this server makes: it tells the entry to hand the page over so.
   */
  renderedHtml?: string;
};

/**
 * Mounts the Remix portal on every path the API does not take: the build, or Vite's dev server
 * ("dev": with HMR, for `npm run dev`; "vite": without, for tests that render pages without a build).
 */
export async function mountPortal(app: express.Express, config: Config, execute: GraphQLExecutor, mode: "build" | "dev" | "vite"): Promise<() => Promise<void>> {
  // Portal forms are read whole (CSRF check, then the action): refuse bodies larger than an upload
  // form can be before anything reads them.
  const maxBody = config.uploadMaxBytes + 1024 * 1024;
  app.use((req, res, next) => {
    const length = Number(req.headers["content-length"] ?? 0);
    if (req.method !== "GET" && req.method !== "HEAD" && length > maxBody)
      return res
        .status(413)
        .type("text/plain")
        .send(`The form is larger than ${Math.round(config.uploadMaxBytes / (1024 * 1024))} MB. Go back and attach a smaller file.`);
    next();
  });
  // A form from another origin (or `Origin: null`) is a 403 here rather than Remix's 500.
  app.use(refuseForeignOriginForms);
  const getLoadContext = (req: express.Request, res: express.Response): PortalLoadContext => ({
    graphql: (request, query, variables) => execute(request, query, variables, req.ip ?? "unknown"),
    demo: config.demo,
    stripeEnabled: !!config.stripe,
    sessionSecret: config.sessionSecret,
    production: config.production,
    cspNonce: res.locals.cspNonce,
    publicPage: res.locals.pageTicket !== undefined && !hasFormToken(res.locals.pageTicket.key),
    csrfTokenShown: (token) => void (res.locals.csrfToken = token),
    renderedHtml: undefined,
  });
  // A visitor's CSRF token as the root loader reads it from their cookie (web/csrf.server.ts); null
  // when the cookie gives none (the loader would make one and set the cookie).
  const csrf = csrfFor({ sessionSecret: config.sessionSecret, production: config.production } as unknown as Parameters<typeof csrfFor>[0]);
  const csrfTokenOf = async (req: express.Request): Promise<string | null> => {
    const [token, cookie] = await csrf.commitToken(new Headers({ cookie: req.headers.cookie ?? "" }));
    return cookie ? null : token;
  };
  if (mode !== "build") {
    const vite = mode === "dev" ? await devServer() : await testViteServer();
    const server = vite.server;
    app.use(server.middlewares);
    // With HMR (`npm run dev`) the code changes under the pages: none is kept.
    app.all("*", portalHandler(() => server.ssrLoadModule("virtual:remix/server-build") as Promise<ServerBuild>, getLoadContext, mode === "vite", csrfTokenOf));
    return () => vite.close();
  }
  const buildDir = path.resolve("build");
  serveBuildFiles(app, path.join(buildDir, "client"));
  const build = await import(pathToFileURL(path.join(buildDir, "server/index.js")).href);
  app.all("*", portalHandler(build, getLoadContext, true, csrfTokenOf));
  return async () => {};
}

/**
 * @remix-run/express's handler, but a page (HTML, which web/entry.server.tsx renders whole) is sent
 * in one piece, compressed in one pass (api/compression.ts sendPage); anything else (single-fetch
 * data, resource routes' CSV and calendars) streams as before, through the compression middleware.
 * A signed-out visitor's public page is sent as kept when it is (api/page-cache.ts), and kept when
 * rendered.
 */
function portalHandler(
  build: ServerBuild | (() => Promise<ServerBuild>),
  getLoadContext: (req: express.Request, res: express.Response) => PortalLoadContext,
  keepPages: boolean,
  csrfTokenOf: (req: express.Request) => Promise<string | null>,
): express.RequestHandler {
  const handle = createRemixHandler(build, process.env.NODE_ENV);
  return async (req, res, next) => {
    try {
      const key = keepPages ? pageCacheKey(req) : null;
      if (key !== null) {
        if (await sendKeptPage(req, res, key, csrfTokenOf)) return;
        const ticket = await ticketFor(key);
        if (ticket) {
          res.locals.pageTicket = ticket;
          res.once("close", ticket.done);
        } else if (await sendKeptPage(req, res, key, csrfTokenOf)) return; // another request's render, now kept
        // (else it was not kept, a 404 say: rendered for this request as ever)
      }
      const context = getLoadContext(req, res);
      const response = await handle(remixRequest(req, res), context as any);
      res.statusMessage = response.statusText;
      res.status(response.status);
      for (const [key, value] of response.headers.entries()) res.append(key, value);
      const isPage = /^text\/html\b/i.test(response.headers.get("Content-Type") ?? "");
      if (!response.body && !(isPage && context.renderedHtml !== undefined)) res.end();
      else if (isPage) {
        const html = context.renderedHtml !== undefined ? Buffer.from(context.renderedHtml) : Buffer.from(await response.arrayBuffer());
        if (res.locals.pageTicket) {
          keepPage(res.locals.pageTicket, response, html, res.locals.cspNonce, res.locals.csrfToken);
          res.locals.pageTicket.done();
        }
        await sendPage(req, res, html);
      } else {
        if (/text\/event-stream/i.test(response.headers.get("Content-Type") ?? "")) res.flushHeaders();
        await writeReadableStreamToWritable(response.body!, res);
      }
    } catch (error) {
      next(error);
    }
  };
}

/** The Fetch API request Remix reads, as @remix-run/express makes it (createRemixRequest). */
function remixRequest(req: express.Request, res: express.Response): Request {
  // req.hostname respects "trust proxy" but has no port: take it from X-Forwarded-Host or Host.
  const portOf = (host: string | undefined) => Number.parseInt(host?.split(":")[1] ?? "", 10);
  const port = [portOf(req.get("X-Forwarded-Host")), portOf(req.get("host"))].find(Number.isSafeInteger);
  const url = `${req.protocol}://${req.hostname}${port ? `:${port}` : ""}${req.originalUrl}`;
  let controller: AbortController | null = new AbortController();
  const headers = new Headers();
  for (const [key, values] of Object.entries(req.headers)) {
    if (!values) continue;
    if (Array.isArray(values)) for (const value of values) headers.append(key, value);
    else headers.set(key, values);
  }
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers, signal: controller.signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = createReadableStreamFromReadable(req);
    init.duplex = "half";
  }
  // Loaders and actions are aborted when the response can no longer be written (closed unfinished).
  res.on("finish", () => (controller = null));
  res.on("close", () => controller?.abort());
  return new Request(url, init);
}

/**
 * The client build's files. Public files keep their caching for everyone (api/security-headers.ts):
 * fingerprinted assets immutable for a year, the rest an hour. Text files go out as the brotli or
 * gzip copy the build wrote next to them (vite.config.ts), with Content-Encoding and
 * `Vary: Accept-Encoding`.
 */
export function serveBuildFiles(app: express.Express, clientDir: string): void {
  const precompressed = (serveStatic: expressStaticGzip.ExpressStaticGzipOptions["serveStatic"]): expressStaticGzip.ExpressStaticGzipOptions => ({ enableBrotli: true, orderPreference: ["br", "gzip"], index: false, serveStatic });
  app.use("/assets", expressStaticGzip(path.join(clientDir, "assets"), precompressed({ immutable: true, maxAge: "1y", setHeaders: markStaticFile })));
  // Build files outside /assets are named with an extension (favicon.svg); a page's path (no dot in
  // its last segment) goes straight to Remix, without a look for a file first.
  const rootFiles = expressStaticGzip(clientDir, precompressed({ maxAge: "1h", setHeaders: markStaticFile }));
  app.use((req, res, next) => (/\.[^/]*$/.test(req.path) ? rootFiles(req, res, next) : next()));
}

type Vite = { server: import("vite").ViteDevServer; close(): Promise<void> };

async function devServer(): Promise<Vite> {
  const server = await (await import("vite")).createServer({ server: { middlewareMode: true } });
  return { server, close: () => server.close() };
}

/**
 * Tests render pages with Vite (no build, no HMR, no websocket); the servers of one test file
 * share one Vite, which transforms the portal once, closed with the last of them.
 */
let testVite: { server: Promise<import("vite").ViteDevServer>; users: number } | undefined;
async function testViteServer(): Promise<Vite> {
  testVite ??= {
    server: import("vite").then((vite) => vite.createServer({ server: { middlewareMode: true, hmr: false, ws: false }, logLevel: "warn" })),
    users: 0,
  };
  const shared = testVite;
  shared.users++;
  const server = await shared.server;
  return {
    server,
    async close() {
      if (--shared.users > 0) return;
      if (testVite === shared) testVite = undefined;
      await server.close();
    },
  };
}

import type { IncomingHttpHeaders } from "node:http";
import { randomUUID } from "node:crypto";
import { parse as parseCookie, serialize as serializeCookie } from "cookie";
import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import { API_TOKEN_PREFIX, SESSION_MAX_MS, viewerFromApiToken, viewerFromSession } from "../accounts/accounts.service.js";
import type { Config } from "../config.js";
import { sign, unsign } from "../common/tokens.js";
import { AppError } from "../common/errors.js";
import type { Context } from "./context.js";
import { createLoaders, type Loaders } from "./loaders.js";

export const SESSION_COOKIE = "tapline_session";

export function sessionCookie(config: Config, token: string | null): string {
  return serializeCookie(SESSION_COOKIE, token ? sign(token, config.sessionSecret) : "", {
    httpOnly: true,
    sameSite: "lax",
    secure: config.production,
    path: "/",
    maxAge: token ? Math.floor(SESSION_MAX_MS / 1000) : 0,
  });
}

/**
 * Builds the per-request context the same way for HTTP API calls and for the portal's in-process
 * calls: who is calling (session cookie or bearer token), loaders, and a collector of Set-Cookie
 * headers for the response.
 */
export async function buildContext(args: {
  ds: DataSource;
  config: Config;
  log: Logger;
  headers: IncomingHttpHeaders | Headers;
  ip: string;
  requestId?: string;
}): Promise<{ ctx: Context; setCookies: string[] }> {
  const get = (name: string): string | undefined =>
    args.headers instanceof Headers ? (args.headers.get(name) ?? undefined) : (args.headers[name] as string | undefined);
  const setCookies: string[] = [];
  const requestId = args.requestId ?? randomUUID();
  // The loaders and the request's child logger are made on first use: most requests need neither.
  let loaders: Loaders | undefined;
  let log: Logger | undefined;
  const ctx: Context = {
    ds: args.ds,
    config: args.config,
    requestId,
    viewer: null,
    ip: args.ip,
    userAgent: get("user-agent") ?? null,
    get loaders() {
      return (loaders ??= createLoaders(args.ds));
    },
    get log() {
      return (log ??= args.log.child({ requestId }));
    },
    setSessionCookie(token) {
      setCookies.push(sessionCookie(args.config, token));
    },
  };

  const auth = get("authorization");
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m || !m[1].startsWith(API_TOKEN_PREFIX))
      throw new AppError("UNAUTHENTICATED", "The Authorization header must be `Bearer tap_...` with a personal API token.");
    ctx.viewer = await viewerFromApiToken(args.ds, m[1]);
    if (!ctx.viewer) throw new AppError("UNAUTHENTICATED", "That API token is not valid or was revoked.");
    return { ctx, setCookies };
  }

  const raw = parseCookie(get("cookie") ?? "")[SESSION_COOKIE];
  if (raw) {
    const token = unsign(raw, args.config.sessionSecret);
    if (!token) {
      ctx.sessionProblem = "TAMPERED";
      ctx.setSessionCookie(null);
    } else {
      ctx.sessionToken = token;
      const r = await viewerFromSession(args.ds, token);
      ctx.viewer = r.viewer;
      if (r.problem) {
        ctx.sessionProblem = r.problem;
        ctx.setSessionCookie(null);
      }
    }
  }
  return { ctx, setCookies };
}

/** A plain-text refusal for the non-GraphQL routes (downloads, PDFs). */
export function refuseHttp(res: import("express").Response, status: number, message: string): void {
  res.status(status).set({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" }).send(message);
}

/**
 * Who calls a non-GraphQL route (session cookie or bearer token), as GraphQL resolves it. Answers
 * 401 (signed out, bad token) or 500 itself and returns null then; `what` names the thing asked for.
 */
export async function httpViewer(
  req: import("express").Request,
  res: import("express").Response,
  opts: { ds: DataSource; config: Config; log: Logger },
  what: string,
): Promise<import("../accounts/viewer.js").Viewer | null> {
  const requestId = String((req as any).id ?? "");
  let built: Awaited<ReturnType<typeof buildContext>>;
  try {
    built = await buildContext({ ...opts, headers: req.headers, ip: req.ip ?? "unknown", requestId: requestId || undefined });
  } catch (e) {
    if (e instanceof AppError) {
      refuseHttp(res.set("WWW-Authenticate", 'Bearer realm="Tapline"'), 401, e.message);
      return null;
    }
    opts.log.error({ err: e, requestId }, `${what}: could not resolve the caller`);
    refuseHttp(res, 500, "Something went wrong on our side. Please try again.");
    return null;
  }
  if (built.setCookies.length) res.setHeader("Set-Cookie", built.setCookies);
  if (!built.ctx.viewer) refuseHttp(res.set("WWW-Authenticate", 'Bearer realm="Tapline"'), 401, `Please sign in to download this ${what}.`);
  return built.ctx.viewer;
}

/**
 * A signed-in file route (a PDF, a CSV) around `serve`: the caller resolved as above; NOT_FOUND
 * answered 404 (missing and not allowed look the same); anything else logged and answered 500, or
 * the response cut short once it has begun.
 */
export function signedInFile(
  opts: { ds: DataSource; config: Config; log: Logger },
  what: string,
  serve: (viewer: import("../accounts/viewer.js").Viewer, req: import("express").Request, res: import("express").Response) => Promise<void>,
) {
  return async (req: import("express").Request, res: import("express").Response): Promise<void> => {
    const viewer = await httpViewer(req, res, opts, what);
    if (!viewer) return;
    try {
      await serve(viewer, req, res);
    } catch (e) {
      if (e instanceof AppError && e.code === "NOT_FOUND" && !res.headersSent) return refuseHttp(res, 404, e.message);
      opts.log.error({ err: e, requestId: String((req as any).id ?? ""), params: req.params }, `${what} failed`);
      if (!res.headersSent) return refuseHttp(res, 500, "Something went wrong on our side. Please try again.");
      res.destroy();
    }
  };
}

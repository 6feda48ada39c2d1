import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import type { SessionProblem } from "../accounts/accounts.service.js";
import type { Viewer } from "../accounts/viewer.js";
import type { Config } from "../config.js";
import type { Loaders } from "./loaders.js";

export type Context = {
  ds: DataSource;
  config: Config;
  requestId: string;
  viewer: Viewer | null;
  /** why a presented session cookie did not sign anyone in */
  sessionProblem?: SessionProblem;
  /** the raw session token the request carried, if its signature was good */
  sessionToken?: string;
  ip: string;
  userAgent: string | null;
  /** sets (token) or clears (null) the session cookie on the response */
  setSessionCookie(token: string | null): void;
  loaders: Loaders;
  log: Logger;
};

export const metaOf = (ctx: Context) => ({
  ip: ctx.ip,
  userAgent: ctx.userAgent,
  requestId: ctx.requestId,
  publicUrl: ctx.config.publicUrl,
});
export const actorOf = (ctx: Context) => ({ userId: ctx.viewer?.userId ?? null, requestId: ctx.requestId });

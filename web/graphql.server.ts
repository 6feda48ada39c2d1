import type { AppLoadContext } from "@remix-run/node";
import type { PortalLoadContext } from "../api/web.js";

export type FieldErrors = Record<string, string>;
export type GqlFailure = { code: string; message: string; fields: FieldErrors };
export type GqlResult<T> = { ok: true; data: T; setCookies: string[] } | { ok: false; error: GqlFailure; setCookies: string[] };

/** The portal reaches the API only through GraphQL, in-process, with the browser's cookies. */
export async function gql<T = any>(context: AppLoadContext, request: Request, query: string, variables?: Record<string, unknown>): Promise<GqlResult<T>> {
  const ctx = context as unknown as PortalLoadContext;
  const res = await ctx.graphql(request, query, variables);
  if (res.errors?.length) {
    const e = res.errors[0];
    return {
      ok: false,
      setCookies: res.setCookies,
      error: { code: String(e.extensions?.code ?? "INTERNAL_SERVER_ERROR"), message: e.message, fields: (e.extensions?.fields as FieldErrors) ?? {} },
    };
  }
  return { ok: true, data: res.data as T, setCookies: res.setCookies };
}

/**
 * Whether the request carries anything that could sign someone in: the session cookie (named as
 * api/graphql/request-context.ts names it) or an API token. Without either the viewer is no one,
 * and a page need not ask the API who it is.
 */
export function mayBeSignedIn(request: Request): boolean {
  return request.headers.has("authorization") || /(?:^|;)\s*tapline_session=/.test(request.headers.get("cookie") ?? "");
}

/** Headers carrying the API's Set-Cookie lines (session set or cleared) to the browser. */
export function cookieHeaders(...results: { setCookies: string[] }[]): Headers {
  const h = new Headers();
  for (const r of results) for (const c of r.setCookies) h.append("Set-Cookie", c);
  return h;
}

export const portalContext = (context: AppLoadContext) => context as unknown as PortalLoadContext;

/**
 * The HTTP status a page answers when its GraphQL read fails: a refused input (a NUL in an address's
 * id, say) is the asker's error, not the server's; only what is unexpected is a 500.
 */
export function statusOf(code: string): number {
  return code === "NOT_FOUND" ? 404 : code === "FORBIDDEN" ? 403 : code === "BAD_USER_INPUT" ? 400 : 500;
}

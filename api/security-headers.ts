import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseCookies } from "cookie";
import type express from "express";
import helmet from "helmet";
import onHeaders from "on-headers";
import type { Config } from "./config.js";
import { SESSION_COOKIE } from "./graphql/request-context.js";

/** Where the browser may be sent after a form POST (`form-action` applies to its redirects in Chromium): here, and Stripe's checkout. */
export function formActionSources(config: Pick<Config, "stripe">): string[] {
  const sources = ["'self'"];
  if (config.stripe) {
    sources.push("https://checkout.stripe.com");
    // A district's ADMIN is sent to Stripe's onboarding of the district's own account (Stripe Connect).
    sources.push("https://connect.stripe.com");
    // Tests point the Stripe client at a local stand-in, which also hosts the checkout page.
    const api = config.stripe.api;
    if (api) sources.push(`${api.protocol}://${api.host}:${api.port}`);
  }
  return sources;
}

/**
 * The one Content-Security-Policy of every response. Scripts: this origin's files and the inline
 * scripts Remix writes with this request's nonce. Styles: this origin's stylesheets; `style`
 * attributes are allowed (a few pages set them; an attribute holds no selectors). With Vite's HMR
 * (`npm run dev`) its websocket and the inline styles it injects are allowed too.
 */
export function contentSecurityPolicyDirectives(config: Pick<Config, "production" | "stripe">, opts: { viteHmr?: boolean } = {}) {
  const nonce = (_req: IncomingMessage, res: ServerResponse) => `'nonce-${(res as express.Response).locals.cspNonce}'`;
  const dev = !!opts.viteHmr;
  return {
    "default-src": ["'self'"],
    "script-src": ["'self'", nonce],
    "script-src-attr": ["'none'"],
    "style-src": ["'self'", ...(dev ? ["'unsafe-inline'"] : [])],
    "style-src-attr": ["'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'", ...(dev ? ["ws:", "wss:"] : [])],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": formActionSources(config),
    "frame-ancestors": ["'none'"],
    ...(config.production ? { "upgrade-insecure-requests": [] } : {}),
  };
}

/** Whether the request carries the session cookie or an Authorization header (valid or not). */
export function carriesCredentials(req: IncomingMessage): boolean {
  if (req.headers.authorization) return true;
  const cookie = req.headers.cookie;
  return !!cookie && cookie.includes(SESSION_COOKIE) && parseCookies(cookie)[SESSION_COOKIE] !== undefined;
}

function setsSessionCookie(res: ServerResponse): boolean {
  const set = res.getHeader("set-cookie");
  const list = Array.isArray(set) ? set : set === undefined ? [] : [String(set)];
  return list.some((c) => c.trimStart().startsWith(`${SESSION_COOKIE}=`));
}

/** Marks a response as a public static file (fingerprinted assets, the favicon): it keeps its own caching. */
export function markStaticFile(res: ServerResponse): void {
  (res as express.Response).locals.staticFile = true;
}

/**
 * Security headers, set once for every response (first middleware): helmet's set with our CSP,
 * X-Frame-Options DENY, Referrer-Policy strict-origin-when-cross-origin, Cross-Origin-Opener-Policy
 * same-origin, nosniff, and HSTS in production. Routes that need a stricter CSP (documents, permit
 * PDFs) set their own afterwards, which replaces this one.
 *
 * Caching: a response to a request carrying the session cookie or an Authorization header, or one
 * that sets the session cookie, is `Cache-Control: private, no-store`, whatever the route said
 * (public GraphQL answers keep their max-age for anonymous callers only); static files keep theirs.
 */
export function securityHeaders(config: Pick<Config, "production" | "stripe">, opts: { viteHmr?: boolean } = {}): express.RequestHandler {
  const base = helmet({
    contentSecurityPolicy: false,
    strictTransportSecurity: config.production ? { maxAge: 365 * 24 * 60 * 60, includeSubDomains: true } : false,
    xFrameOptions: { action: "deny" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    crossOriginOpenerPolicy: { policy: "same-origin" },
  });
  const csp = helmet.contentSecurityPolicy({ useDefaults: false, directives: contentSecurityPolicyDirectives(config, opts) });
  // Apollo's Sandbox (GET /graphql from a browser, outside production) brings its own CSP in a
  // <meta> tag, with its own nonce and CDN: the header adds only what a meta tag cannot say.
  const landingPageCsp = helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: { "default-src": helmet.contentSecurityPolicy.dangerouslyDisableDefaultSrc, "frame-ancestors": ["'none'"], "object-src": ["'none'"], "base-uri": ["'self'"] },
  });
  const sandbox = (req: express.Request) =>
    !config.production &&
    req.method === "GET" &&
    req.path === "/graphql" &&
    req.accepts(["application/json", "application/graphql-response+json", "multipart/mixed", "text/html"]) === "text/html";

  return (req, res, next) => {
    res.locals.cspNonce = randomBytes(16).toString("base64");
    const credentials = carriesCredentials(req);
    onHeaders(res, () => {
      if (res.locals.staticFile) return;
      if (credentials || setsSessionCookie(res)) res.setHeader("Cache-Control", "private, no-store");
    });
    base(req, res, (err?: unknown) => {
      if (err) return next(err);
      (sandbox(req) ? landingPageCsp : csp)(req, res, next);
    });
  };
}

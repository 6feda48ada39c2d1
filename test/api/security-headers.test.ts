import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config.js";
import { SESSION_COOKIE } from "../../api/graphql/request-context.js";
import { formActionSources, markStaticFile, securityHeaders } from "../../api/security-headers.js";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";

/**
 * Every response carries the security headers (api/security-headers.ts), in production and in
 * test mode: every portal route (each file in web/routes, signed out and signed in), /graphql,
 * /healthz, errors and documents; and whatever a signed-in person gets is `private, no-store`.
 * The portal is rendered by Vite without HMR (no build needed); its CSP is the production one.
 */

const ROUTES_DIR = path.resolve("web/routes");
const SAMPLE_ID = "00000000-0000-4000-8000-000000000000";
/** A sample value for each route parameter; a route with a new parameter fails until it has one here. */
const PARAMS: Record<string, string> = { id: SAMPLE_ID, slug: "lakeview", sessionId: "cs_test_sample" };

/** The address of a route file under Remix's flat-routes naming, its parameters filled with samples. */
export function routeUrl(file: string): string {
  const name = file.replace(/\.tsx?$/, "").replace(/\[\.\]/g, "\0");
  const parts: string[] = [];
  for (const segment of name.split(".")) {
    if (segment === "_index" || segment.startsWith("_")) continue; // index route, pathless layout
    const s = segment.replace(/_$/, ""); // "$id_" / "public-records_": not nested in the parent's layout
    const dynamic = /^\$(\w*)([\0\w-]*)$/.exec(s); // "$id", or "$id[.]ics": a parameter, then text
    if (dynamic) {
      const [, param, rest] = dynamic;
      if (!(param in PARAMS)) throw new Error(`${file}: no sample value for $${param || "(splat)"}: add one to PARAMS in this test`);
      parts.push(PARAMS[param] + rest.replace(/\0/g, "."));
    } else if (/^[\w\0-]+$/.test(s)) parts.push(s.replace(/\0/g, "."));
    else throw new Error(`${file}: segment "${segment}" is not understood: teach routeUrl() in this test`);
  }
  return `/${parts.join("/")}`;
}

const routeFiles = fs.readdirSync(ROUTES_DIR).filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".test.ts")).sort();

type Mode = { name: string; production: boolean; srv?: TestServer; signedIn?: Client };
const MODES: Mode[] = [
  { name: "production", production: true },
  { name: "test", production: false },
];

function directives(csp: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const d of (csp ?? "").split(";")) {
    const [k, ...v] = d.trim().split(/\s+/);
    if (k) map.set(k.toLowerCase(), v);
  }
  return map;
}

/** The headers every response carries, and the portal's CSP with this response's nonce. */
async function expectSecured(res: Response, mode: Mode, what: string, opts: { csp?: "portal" | "none"; kept?: boolean } = {}): Promise<string> {
  const h = res.headers;
  const at = `${mode.name}: ${what} (${res.status})`;
  expect(h.get("x-content-type-options"), at).toBe("nosniff");
  expect(h.get("x-frame-options"), at).toBe("DENY");
  expect(h.get("referrer-policy"), at).toBe("strict-origin-when-cross-origin");
  expect(h.get("cross-origin-opener-policy"), at).toBe("same-origin");
  expect(h.get("x-powered-by"), at).toBeNull();
  if (mode.production) expect(h.get("strict-transport-security"), at).toBe("max-age=31536000; includeSubDomains");
  else expect(h.get("strict-transport-security"), at).toBeNull();
  const body = await res.text();
  if (opts.csp === "none") return body;

  const csp = directives(h.get("content-security-policy"));
  expect(csp.get("frame-ancestors"), at).toEqual(["'none'"]);
  expect(csp.get("default-src"), at).toEqual(["'self'"]);
  expect(csp.get("object-src"), at).toEqual(["'none'"]);
  expect(csp.get("base-uri"), at).toEqual(["'self'"]);
  expect(csp.get("form-action"), at).toEqual(["'self'"]);
  expect(csp.get("style-src"), at).toEqual(["'self'"]);
  expect(csp.get("connect-src"), at).toEqual(["'self'"]);
  expect(csp.has("upgrade-insecure-requests"), at).toBe(mode.production);
  const scripts = csp.get("script-src") ?? [];
  expect(scripts[0], at).toBe("'self'");
  if (opts.kept) {
    // A public page kept for the signed out (api/page-cache.ts): no nonce; each inline script of
    // the page by its hash, and nothing else.
    expect(h.get("content-type"), at).toMatch(/^text\/html/);
    expect(body, at).not.toMatch(/\snonce=/);
    const inline = [...body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script/g)].filter((m) => !/\ssrc=/.test(m[1]));
    expect(inline.length, at).toBeGreaterThan(0);
    const hashes = inline.map((m) => `'sha256-${createHash("sha256").update(m[2]).digest("base64")}'`);
    expect(new Set(scripts.slice(1)), at).toEqual(new Set(hashes));
    expect(body, `${at}: a <style> element the CSP refuses`).not.toMatch(/<style\b/i);
    return body;
  }
  expect(scripts.length, at).toBe(2);
  const nonce = /^'nonce-([A-Za-z0-9+/=]{22,})'$/.exec(scripts[1])?.[1];
  expect(nonce, `${at}: script-src ${scripts.join(" ")}`).toBeTruthy();

  if (h.get("content-type")?.startsWith("text/html")) {
    // Every script carries this response's nonce; no <style> element (only stylesheets from here).
    const tags = body.match(/<script\b[^>]*>/g) ?? [];
    for (const tag of tags) expect(tag, `${at}: a script without the nonce`).toContain(` nonce="${nonce}"`);
    expect(body, `${at}: a <style> element the CSP refuses`).not.toMatch(/<style\b/i);
  }
  return body;
}

const PRIVATE = "private, no-store";
const PUBLIC_QUERY = `query PublicDistricts { districts { slug name } }`;

/** The session cookie of a signed-in person (the production server has no demo accounts). */
async function signedIn(mode: Mode): Promise<Client> {
  const c = new Client(mode.srv!.url);
  if (mode.production) await c.signUp(`headers-${Date.now()}@example.org`);
  else await c.signIn(DEMO.lakeviewAdmin);
  expect(c.cookies.has(SESSION_COOKIE)).toBe(true);
  return c;
}

/** Runs fn over items, a few at a time. */
async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

beforeAll(async () => {
  await Promise.all(
    MODES.map(async (m) => {
      m.srv = await startTestServer({ portal: "vite", env: m.production ? { NODE_ENV: "production", PUBLIC_URL: "https://tapline.test" } : {} });
      m.signedIn = await signedIn(m);
      // The first page makes Vite transform the portal (shared by both servers): here, not in a test.
      expect((await fetch(`${m.srv.url}/`)).status).toBe(200);
    }),
  );
});
afterAll(async () => {
  await Promise.all(MODES.map((m) => m.srv?.close()));
});

describe("every portal route has a sample address", () => {
  it("maps each file in web/routes to a URL", () => {
    expect(routeFiles.length).toBeGreaterThan(50);
    const urls = routeFiles.map(routeUrl);
    expect(urls).toContain("/");
    expect(routeUrl("staff.delinquency_.tax-levy[.]csv.tsx")).toBe("/staff/delinquency/tax-levy.csv");
    expect(routeUrl("enforcement.hearings.$id[.]ics.tsx")).toBe(`/enforcement/hearings/${SAMPLE_ID}.ics`);
    expect(routeUrl("industrial.$id_.change.tsx")).toBe(`/industrial/${SAMPLE_ID}/change`);
    expect(() => routeUrl("files.$.tsx")).toThrow(/no sample value/);
  });
});

describe.each(MODES)("security headers ($name)", (mode) => {
  it("on every portal route, signed out and signed in; signed-in pages are private, no-store", async () => {
    const { srv, signedIn: person } = mode;
    const requests = routeFiles.flatMap((file) => [
      { file, url: routeUrl(file), cookie: undefined as string | undefined },
      { file, url: routeUrl(file), cookie: person!.cookieHeader },
    ]);
    await inBatches(requests, 8, async ({ file, url, cookie }) => {
      const res = await fetch(`${srv!.url}${url}`, { redirect: "manual", headers: cookie ? { cookie } : {} });
      const what = `${file} → GET ${url}${cookie ? " signed in" : ""}`;
      expect(res.status, what).toBeLessThan(500);
      if (cookie) expect(res.headers.get("cache-control"), what).toBe(PRIVATE);
      await expectSecured(res, mode, what);
    });
  }, 60_000);

  it("on the public pages kept whole for the signed out, as on the pages rendered for each request", async () => {
    const { srv, signedIn: person } = mode;
    for (const url of ["/", "/rules", "/rules/lakeview"]) {
      const asBrowser = { accept: "text/html,application/xhtml+xml", "accept-encoding": "gzip, deflate, br" };
      // Rendered (with this response's nonce) unless an earlier request left it kept; then kept.
      const first = await fetch(`${srv!.url}${url}`, { headers: asBrowser });
      await expectSecured(first, mode, `GET ${url} as a browser`, { kept: !/'nonce-/.test(first.headers.get("content-security-policy")!) });
      const kept = await fetch(`${srv!.url}${url}`, { headers: asBrowser });
      expect(kept.headers.get("content-security-policy"), url).not.toMatch(/'nonce-/);
      await expectSecured(kept, mode, `GET ${url} as a browser, kept`, { kept: true });
      const signedIn = await fetch(`${srv!.url}${url}`, { headers: { ...asBrowser, cookie: person!.cookieHeader } });
      expect(signedIn.headers.get("cache-control"), url).toBe(PRIVATE);
      await expectSecured(signedIn, mode, `GET ${url} as a browser, signed in`);
    }
  });

  it("on /graphql (POST and GET), /healthz and errors; public GraphQL answers are shared only with the signed out", async () => {
    const { srv, signedIn: person } = mode;
    const url = srv!.url;
    const post = (headers: Record<string, string> = {}, body: string = JSON.stringify({ query: PUBLIC_QUERY })) =>
      fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    const get = (headers: Record<string, string> = {}) =>
      fetch(`${url}/graphql?query=${encodeURIComponent(PUBLIC_QUERY)}`, { headers: { "apollo-require-preflight": "true", ...headers } });
    const cookie = { cookie: person!.cookieHeader };

    for (const [what, res, cache] of [
      ["POST /graphql signed out", await post(), /^max-age=60, public$/],
      ["POST /graphql again (from the response cache)", await post(), /^max-age=60, public$/],
      ["POST /graphql signed in", await post(cookie), PRIVATE],
      ["POST /graphql with a bearer token", await post({ authorization: "Bearer tap_not_a_token" }), PRIVATE],
      ["GET /graphql signed out", await get(), /^max-age=60, public$/],
      ["GET /graphql signed in", await get(cookie), PRIVATE],
      ["POST /graphql bad JSON", await post({}, "{"), null],
      ["POST /graphql bad JSON signed in", await post(cookie, "{"), PRIVATE],
      ["GET /healthz", await fetch(`${url}/healthz`), null],
      ["GET /healthz signed in", await fetch(`${url}/healthz`, { headers: cookie }), PRIVATE],
      ["GET a page that does not exist", await fetch(`${url}/no-such-page`), null],
      ["GET a document signed out", await fetch(`${url}/documents/${SAMPLE_ID}`), null],
    ] as const) {
      if (cache instanceof RegExp) expect(res.headers.get("cache-control"), what).toMatch(cache);
      else if (cache) expect(res.headers.get("cache-control"), what).toBe(cache);
      await expectSecured(res, mode, what);
    }

    // A browser asking /graphql for HTML: Apollo's Sandbox outside production, with its own CSP in a
    // <meta> tag (its nonce, its CDN); the header keeps framing, plugins and <base> shut.
    const landing = await fetch(`${url}/graphql`, { headers: { accept: "text/html" } });
    if (mode.production) await expectSecured(landing, mode, "GET /graphql as HTML");
    else {
      expect(landing.headers.get("content-security-policy")).toBe("frame-ancestors 'none';object-src 'none';base-uri 'self'");
      expect(await expectSecured(landing, mode, "GET /graphql as HTML (Sandbox)", { csp: "none" })).toContain('http-equiv="Content-Security-Policy"');
    }
  });

  it("keeps the documents' own sandbox CSP", async () => {
    const owner = mode.signedIn!;
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1");
    const doc = await owner.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { downloadUrl } }`, {
      i: { filename: "plan.pdf", contentBase64: pdf.toString("base64") },
    });
    const res = await fetch(`${mode.srv!.url}${doc.uploadDocument.downloadUrl}`, { headers: { cookie: owner.cookieHeader } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("cache-control")).toBe(PRIVATE);
    await expectSecured(res, mode, "GET /documents/:id", { csp: "none" });
  });

  it("the no-JavaScript token form answers private, no-store, and so does the API for that token", async () => {
    const { srv, signedIn: person } = mode;
    const page = await fetch(`${srv!.url}/account/tokens`, { headers: { cookie: person!.cookieHeader } });
    const html = await page.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    expect(csrf).toBeTruthy();
    const csrfCookies = page.headers.getSetCookie().map((c) => c.split(";")[0]);
    const res = await fetch(`${srv!.url}/account/tokens`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: [person!.cookieHeader, ...csrfCookies].join("; "), origin: srv!.url },
      body: new URLSearchParams({ csrf: csrf!, intent: "create", name: "headers test" }).toString(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe(PRIVATE);
    const body = await expectSecured(res, mode, "POST /account/tokens (no JavaScript)");
    const token = /tap_[A-Za-z0-9_-]+/.exec(body)?.[0];
    expect(token, "the new token is on the page").toBeTruthy();

    const api = await fetch(`${srv!.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: PUBLIC_QUERY }),
    });
    expect(api.status).toBe(200);
    expect(api.headers.get("cache-control")).toBe(PRIVATE);
    await expectSecured(api, mode, "POST /graphql with a valid bearer token");
  });
});

describe("static files and policy details", () => {
  it("fingerprinted assets keep their immutable caching, even with a session cookie; each request has its own nonce", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-assets-"));
    fs.writeFileSync(path.join(dir, "app-abc123.js"), "export {};\n");
    const config = loadConfig({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(32), PUBLIC_URL: "https://tapline.test" });
    const app = express();
    app.use(securityHeaders(config));
    app.use("/assets", express.static(dir, { immutable: true, maxAge: "1y", setHeaders: markStaticFile }));
    app.get("/page", (_req, res) => res.set("Cache-Control", "public, max-age=300").send("hello"));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const cookie = { cookie: `${SESSION_COOKIE}=abc` };
      const asset = await fetch(`${base}/assets/app-abc123.js`, { headers: cookie });
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
      expect((await fetch(`${base}/page`)).headers.get("cache-control")).toBe("public, max-age=300");
      expect((await fetch(`${base}/page`, { headers: cookie })).headers.get("cache-control")).toBe(PRIVATE);
      expect((await fetch(`${base}/page`, { headers: { authorization: "Bearer x" } })).headers.get("cache-control")).toBe(PRIVATE);
      const nonces = await Promise.all([1, 2].map(async () => /'nonce-([^']+)'/.exec((await fetch(`${base}/page`)).headers.get("content-security-policy")!)![1]));
      expect(nonces[0]).not.toBe(nonces[1]);
    } finally {
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets a form be sent on to Stripe's checkout only when Stripe is configured", () => {
    const base = { NODE_ENV: "production", SESSION_SECRET: "x".repeat(32), PUBLIC_URL: "https://tapline.test" };
    expect(formActionSources(loadConfig(base))).toEqual(["'self'"]);
    expect(formActionSources(loadConfig({ ...base, STRIPE_SECRET_KEY: "sk_live_x", STRIPE_WEBHOOK_SECRET: "whsec_x" }))).toEqual(["'self'", "https://checkout.stripe.com", "https://connect.stripe.com"]);
  });
});

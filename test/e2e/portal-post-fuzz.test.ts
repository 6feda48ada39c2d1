import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";
import { routeSegments } from "./route-files.js";

/**
 * Every portal route with an action, POSTed to as a careless client or an attacker would: no body,
 * bodies that are not forms, forms without the CSRF token or with a wrong one, from `Origin: null` or
 * another site, signed out and signed in; as Remix's single-fetch `.data` request and as a page.
 * None may be a 5xx, and none of the bad ones may get through (a 4xx).
 *
 * To stay within a few seconds, each bad request goes to a route once, signed out or signed in in
 * turn (so every route gets both, and every kind of request reaches every route and both kinds of
 * visitor); the empty but valid form goes to every route both ways, since it runs the action. The
 * variants that differ only inside the shared checks (no CSRF cookie, multipart without a boundary,
 * an Origin that is not a URL) are in web/csrf.server.test.ts and api/portal-origin.test.ts.
 *
 * No browser: plain HTTP against the built portal, which is why this is in the e2e project (run
 * after `npm run test:e2e` has built it). The GraphQL side has its own in test/api/bad-input.test.ts.
 */

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ portal: true });
});
afterAll(() => srv?.close());

const ROUTES = path.resolve("web/routes");

/** The route files that export an action. */
const actionRoutes = fs
  .readdirSync(ROUTES)
  .filter((f) => /\.tsx?$/.test(f) && /export\s+(async\s+)?(function|const)\s+action\b/.test(fs.readFileSync(path.join(ROUTES, f), "utf8")))
  .sort();

/** A flat-routes file name as a URL: `staff.petitions_.$id.tsx` → /staff/petitions/<id>; an index route takes `?index`. */
function urlOf(file: string): { pathname: string; index: boolean } {
  const { segments, index } = routeSegments(file);
  const parts = segments.map((s) => (s.startsWith("$") ? (s === "$slug" ? "lakeview" : s === "$sessionId" ? "cs_test_fuzz" : ID) : s));
  return { pathname: `/${parts.join("/")}`, index };
}
const ID = randomUUID();

type Who = { name: string; cookie: string; csrfCookie: string; token: string };

/** A visitor's cookies (session, if signed in, and CSRF) and the token the portal's forms carry. */
async function visitor(name: string, email?: string): Promise<Who> {
  const api = new Client(srv.url);
  if (email) await api.signIn(email);
  const res = await fetch(`${srv.url}/sign-in`, { headers: api.cookies.size ? { cookie: api.cookieHeader } : {} });
  const html = await res.text();
  const token = /name="csrf"[^>]*value="([^"]+)"/.exec(html)?.[1];
  const csrfCookie = res.headers.getSetCookie().find((c) => c.startsWith("tapline_csrf="))?.split(";")[0];
  if (!token || !csrfCookie) throw new Error(`no CSRF token for ${name} (status ${res.status})`);
  return { name, cookie: api.cookieHeader, csrfCookie, token: token.replace(/&amp;/g, "&") };
}

/** Each case goes to the action's single-fetch URL (`/x.data`), and those marked `page` to the page (its error page is rendered). */
type Case = { name: string; headers?: Record<string, string>; body?: string; valid?: boolean; page?: boolean };

function cases(w: Who, origin: string): Case[] {
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const good = `csrf=${encodeURIComponent(w.token)}&intent=save`;
  const multipart = `--right\r\ncontent-disposition: form-data; name="csrf"\r\n\r\n${w.token}\r\n--right--\r\n`;
  return [
    { name: "no body", page: true },
    { name: "text/plain", headers: { "content-type": "text/plain" }, body: good },
    { name: "application/json", headers: { "content-type": "application/json" }, body: JSON.stringify({ csrf: w.token }) },
    { name: "multipart, wrong boundary", headers: { "content-type": "multipart/form-data; boundary=wrong" }, body: multipart },
    { name: "form without the token", headers: form, body: "intent=save" },
    { name: "form with a wrong token", headers: form, body: "csrf=wrong&intent=save" },
    { name: "Origin: null", headers: { ...form, origin: "null" }, body: good, page: true },
    { name: "foreign Origin", headers: { ...form, origin: "https://evil.example" }, body: good },
    // Not an attack: the action itself, given an empty form, must answer 4xx (or a redirect), not fail.
    { name: "the right token and origin, empty form", headers: { ...form, origin }, body: good, valid: true },
  ];
}

type Outcome = { who: string; name: string; url: string; status: number; valid: boolean };

async function send(w: Who, url: string, c: Case): Promise<Outcome> {
  const cookie = [w.cookie, w.csrfCookie].filter(Boolean).join("; ");
  const res = await fetch(`${srv.url}${url}`, { method: "POST", redirect: "manual", headers: { ...(cookie ? { cookie } : {}), ...c.headers }, body: c.body });
  await res.arrayBuffer();
  return { who: w.name, name: c.name, url, status: res.status, valid: !!c.valid };
}

/** At most `n` at a time. */
async function pool<T>(jobs: (() => Promise<T>)[], n = 12): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

describe("POSTs to every portal action", () => {
  it("finds the routes with actions", () => {
    expect(actionRoutes.length).toBeGreaterThan(40);
    expect(actionRoutes).toContain("sign-in.tsx");
    expect(urlOf("staff.petitions_.$id.tsx")).toEqual({ pathname: `/staff/petitions/${ID}`, index: false });
    expect(urlOf("account._index.tsx")).toEqual({ pathname: "/account", index: true });
  });

  it("never answer 5xx, and a bad request never gets through", async () => {
    const who = [await visitor("signed out"), await visitor("signed in", DEMO.applicant)];
    // Signing out ends the session the other requests use: sign-out goes last.
    const last = (f: string) => (f === "sign-out.tsx" ? 1 : 0);
    const outcomes: Outcome[] = [];
    let pages = 0;
    for (const round of [0, 1]) {
      const jobs: (() => Promise<Outcome>)[] = [];
      actionRoutes.forEach((f, r) => {
        if (last(f) !== round) return;
        const { pathname, index } = urlOf(f);
        const q = index ? "?index" : "";
        cases(who[0], srv.url).forEach((_, k) => {
          for (const [i, w] of who.entries()) {
            const c = cases(w, srv.url)[k];
            if (!c.valid && (r + k) % 2 !== i) continue; // bad requests: one visitor per route, in turn
            jobs.push(() => send(w, `${pathname}.data${q}`, c));
            if (c.page && (r + k + 1) % 2 === i) {
              pages++;
              jobs.push(() => send(w, `${pathname}${q}`, c));
            }
          }
        });
      });
      outcomes.push(...(await pool(jobs)));
    }
    const show = (list: Outcome[]) => list.map((o) => `${o.who} | ${o.name} | POST ${o.url} → ${o.status}`);
    expect(show(outcomes.filter((o) => o.status >= 500))).toEqual([]);
    // A bad request is refused (4xx), never carried out (2xx) nor sent on (3xx).
    expect(show(outcomes.filter((o) => !o.valid && o.status < 400))).toEqual([]);
    // Every kind of request reached every route, and both visitors.
    const n = cases(who[0], srv.url).length;
    expect(outcomes.length).toBe(actionRoutes.length * (n + 1) + pages);
    for (const c of cases(who[0], srv.url)) for (const w of who) expect(outcomes.some((o) => o.name === c.name && o.who === w.name)).toBe(true);
    for (const f of actionRoutes) {
      const p = urlOf(f).pathname;
      for (const w of who) expect(outcomes.some((o) => o.url.startsWith(`${p}.data`) && o.who === w.name && !o.valid)).toBe(true);
    }
  });
});

describe("an address holding a NUL or a lone surrogate where an id goes", () => {
  it("is a 4xx on every page with a parameter, signed out and signed in, never a 5xx", async () => {
    const signedIn = await visitor("signed in", DEMO.applicant);
    const pages = fs
      .readdirSync(ROUTES)
      .filter((f) => /\.tsx?$/.test(f) && f.includes("$"))
      .sort();
    const outcomes: { url: string; who: string; status: number }[] = [];
    for (const f of pages)
      for (const bad of ["%00", "%ED%A0%80", "a%00b"])
        for (const w of [null, signedIn]) {
          // Every parameter of the route gets the bad value.
          const url = urlOf(f).pathname.split("/").map((seg, i, all) => (seg === ID || seg === "lakeview" || seg === "cs_test_fuzz" ? bad : all[i])).join("/");
          const res = await fetch(`${srv.url}${url}`, { redirect: "manual", headers: w ? { cookie: w.cookie } : {} });
          await res.arrayBuffer();
          outcomes.push({ url, who: w ? w.name : "signed out", status: res.status });
        }
    expect(outcomes.filter((o) => o.status >= 500).map((o) => `${o.who} GET ${o.url} → ${o.status}`)).toEqual([]);
    expect(outcomes.length).toBe(pages.length * 6);
  });
});

import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetHere } from "../../api/common/invalidation.js";
import { clearPageCache, keptPageKeys } from "../../api/page-cache.js";
import { Client, DEMO, signedInAs, startTestServer, type TestServer } from "../harness.js";

/**
 * A public page's data (the districts, a rulebook) is kept in-process as long as the API's response
 * cache keeps it (api/graphql/cache.ts), so under load a public page asks nothing of the database;
 * an ADMIN's change to a rulebook shows on the page at once, as it does in the API.
 */
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  // The first page makes Vite transform the portal: here, under the hook's longer time limit.
  expect((await fetch(`${srv.url}/`)).status).toBe(200);
});
afterAll(() => srv?.close());

/** The page's HTML, and the SQL statements its request took (their text in `sql`). */
async function page(path: string, cookie?: string, status = 200): Promise<{ html: string; statements: number; sql: string[]; res: Response }> {
  const logger = srv.running.ds.logger as any;
  const original = logger.logQuery;
  const sql: string[] = [];
  logger.logQuery = function (...args: unknown[]) {
    sql.push(String(args[0]));
    return original.apply(this, args);
  };
  try {
    const res = await fetch(`${srv.url}${path}`, { headers: { accept: "text/html", ...(cookie ? { cookie } : {}) }, redirect: "manual" });
    expect(res.status, path).toBe(status);
    return { html: await res.text(), statements: sql.length, sql, res };
  } finally {
    logger.logQuery = original;
  }
}

describe("public pages' data, cached in-process", () => {
  it("asks the database nothing for a public page seen within the minute, signed out", async () => {
    for (const path of ["/", "/rules/lakeview", "/rules/huron"]) {
      await page(path);
      const again = await page(path);
      expect(again.statements, path).toBe(0);
    }
  });

  it("shows an ADMIN's change to the rules at once, on the page as in the API", async () => {
    const path = "/rules/lakeview?on=2027-01-01";
    const before = await page(path);
    expect(before.html).not.toContain("$175.00");
    const kept = await page(path);
    expect(kept.statements).toBe(0); // cached
    expect(keptCsp(kept.res).hashes.length, "the whole page was kept").toBeGreaterThan(0);

    const admin = new Client(srv.url);
    await admin.signIn(DEMO.lakeviewAdmin);
    const { district } = await admin.ok(`{ district(slug: "lakeview") { id } }`);
    await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: {
        districtId: district.id,
        effectiveDate: "2027-01-01",
        reason: "Board resolution 2026-41 sets an impact fee",
        resolutionNumber: "2026-41",
        resolutionAdoptedOn: "2026-11-03",
        changes: [{ key: "lateral.impactFee", value: 17500 }],
      },
    });
    const after = await page(path);
    expect(after.html).toContain("$175.00");
    expect(after.html).toContain("resolution 2026-41");
    // Rendered anew (its render's nonce), then kept again with the change.
    expect(after.res.headers.get("content-security-policy")).toMatch(/'nonce-/);
    expect((await page(path)).html).toContain("$175.00");
  });
});

/** A kept page's script-src: 'self' and hashes, no nonce; and the other directives. */
function keptCsp(res: Response): { hashes: string[]; directives: string } {
  const csp = res.headers.get("content-security-policy") ?? "";
  const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1].trim().split(/\s+/) ?? [];
  return { hashes: scriptSrc.filter((s) => s.startsWith("'sha256-")), directives: csp.replace(/(?:^|;)\s*script-src [^;]*/, "") };
}

/** Whether the page was sent as kept (its CSP names its scripts by hash, not by a nonce). */
const isKept = (p: { res: Response }) => !/'nonce-/.test(p.res.headers.get("content-security-policy")!) && keptCsp(p.res).hashes.length > 0;

const inlineScripts = (html: string) => [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script/g)].filter((m) => !/\ssrc=/.test(m[1]));
const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

describe("whole public pages kept for signed-out visitors (api/page-cache.ts)", () => {
  it("sends a kept page whose CSP allows only its own inline scripts, by hash, with the other security headers as rendered", async () => {
    clearPageCache();
    const rendered = await page("/rules/huron");
    const renderedCsp = rendered.res.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(renderedCsp)![1];
    // Rendered for no one in particular: no CSRF token, no cookie set.
    expect(rendered.res.headers.getSetCookie()).toEqual([]);
    expect(rendered.html).toContain('\\"csrf\\",\\"\\",'); // the root's data: \"csrf\",\"\", (in a script's string)

    for (const encoding of ["br", "gzip", "identity"]) {
      const kept = await fetch(`${srv.url}/rules/huron`, { headers: { accept: "text/html", "accept-encoding": encoding } });
      expect(kept.status).toBe(200);
      const html = await kept.text();
      expect(kept.headers.get("content-encoding") ?? "identity", encoding).toBe(encoding);
      expect(html).toBe(rendered.html.replaceAll(` nonce="${nonce}"`, ""));
      const csp = keptCsp(kept);
      const scriptSrc = /(?:^|;)script-src ([^;]*)/.exec(kept.headers.get("content-security-policy")!)![1];
      expect(scriptSrc).toMatch(/^'self' 'sha256-/);
      expect(scriptSrc).not.toMatch(/nonce|unsafe|strict-dynamic|\*/);
      // Exactly its inline scripts (Remix's context and data, the module entry, scroll restoration).
      const scripts = inlineScripts(html);
      expect(scripts.length).toBeGreaterThanOrEqual(3);
      expect(new Set(csp.hashes)).toEqual(new Set(scripts.map((m) => sha256(m[2]))));
      expect(csp.directives).toBe(keptCsp(rendered.res).directives);
      for (const h of ["x-frame-options", "x-content-type-options", "referrer-policy", "cross-origin-opener-policy", "content-type"])
        expect(kept.headers.get(h), h).toBe(rendered.res.headers.get(h));
      expect(kept.headers.get("vary")).toMatch(/Accept-Encoding/i);
      expect(kept.headers.getSetCookie()).toEqual([]);
    }
    // Another visitor's CSRF cookie changes nothing: the kept page has no token to give away.
    const withCsrfCookie = await page("/rules/huron", "tapline_csrf=someone-else");
    expect(keptCsp(withCsrfCookie.res).hashes.length).toBeGreaterThan(0);
  });

  it("never sends the kept bytes to a signed-in request, and keeps nothing of one", async () => {
    await page("/rules/lakeview");
    expect(isKept(await page("/rules/lakeview"))).toBe(true);
    const applicant = await signedInAs(srv.url, DEMO.applicant);
    const signedIn = await page("/rules/lakeview", applicant.cookieHeader);
    const csp = signedIn.res.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce, "rendered for this request").toBeTruthy();
    expect(csp).not.toContain("sha256");
    expect(signedIn.html).toContain("Sign out");
    expect(signedIn.html).toContain(` nonce="${nonce}"`);
    expect(signedIn.res.headers.get("cache-control")).toBe("private, no-store");
    // An Authorization header is someone too; a page that posts (sign-in) is never kept whole (below).
    const bearer = await fetch(`${srv.url}/rules/lakeview`, { headers: { accept: "text/html", authorization: "Bearer not-a-token" } });
    expect(bearer.headers.get("content-security-policy")).toMatch(/'nonce-/);
    await page("/sign-in");
    expect(isKept(await page("/sign-in"))).toBe(false);
    // A Remix data request for the page is not a page.
    const data = await fetch(`${srv.url}/rules/lakeview.data`);
    expect(data.headers.get("content-security-policy")).toMatch(/'nonce-/);
    // What was rendered for the signed-in was not kept: the next signed-out visitor of a dropped
    // page gets a render of its own.
    clearPageCache();
    await page("/rules/lakeview", applicant.cookieHeader);
    expect(isKept(await page("/rules/lakeview"))).toBe(false);
  });

  it("keeps the sign-in page without the visitor's form token: each visitor is sent their own token and this response's nonce", async () => {
    clearPageCache();
    const visit = (cookie?: string) => fetch(`${srv.url}/sign-in`, { headers: { accept: "text/html", ...(cookie ? { cookie } : {}) } });
    const csrfCookie = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]).find((c) => c.startsWith("tapline_csrf="))!;
    const tokenIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1];
    const kept = () => keptPageKeys().filter((k) => k.endsWith("/sign-in"));
    // A first visit sets the CSRF cookie: rendered, not kept.
    const firstA = await visit();
    const cookieA = csrfCookie(firstA);
    const tokenA = tokenIn(await firstA.text());
    expect(cookieA).toBeTruthy();
    expect(kept()).toEqual([]);
    // With the cookie: rendered once and kept, then sent kept.
    await visit(cookieA);
    expect(kept()).toHaveLength(1);
    const cookieB = csrfCookie(await visit());
    for (const [cookie, token, other] of [
      [cookieA, tokenA, undefined],
      [cookieB, undefined, tokenA],
    ] as const) {
      const res = await visit(cookie);
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie()).toEqual([]);
      // The visitor's own token, in the form and in the page's data, and no one else's.
      const shown = tokenIn(html);
      if (token) expect(shown).toBe(token);
      if (other) expect(shown).not.toBe(other), expect(html).not.toContain(other);
      expect(html.split(shown).length - 1).toBeGreaterThanOrEqual(2);
      // This response's nonce on every inline script, as the CSP says.
      const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy")!)![1];
      const scripts = inlineScripts(html);
      expect(scripts.length).toBeGreaterThanOrEqual(3);
      for (const m of scripts) expect(m[1]).toContain(` nonce="${nonce}"`);
      expect(html).not.toMatch(/tapline-(token|nonce)-/);
    }
    expect(kept()).toHaveLength(1);
    // The form a kept page carries works: the visitor's own token is accepted (a wrong password,
    // 400), another's is refused (403).
    const post = (cookie: string, csrf: string) =>
      fetch(`${srv.url}/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: srv.url },
        body: new URLSearchParams({ csrf, email: DEMO.applicant, password: "not the password" }).toString(),
      });
    const tokenB = tokenIn(await (await visit(cookieB)).text());
    expect((await post(cookieB, tokenB)).status).toBe(400);
    expect((await post(cookieB, tokenA)).status).toBe(403);
    // Byte for byte what a render for that visitor is, but for the nonce: a render kept, then sent kept.
    clearPageCache();
    const nonceOf = (res: Response) => /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy")!)![1];
    const rendered = await visit(cookieB);
    const renderedHtml = await rendered.text();
    expect(kept()).toHaveLength(1);
    const sentKept = await visit(cookieB);
    expect((await sentKept.text()).replaceAll(nonceOf(sentKept), nonceOf(rendered))).toBe(renderedHtml);
    // A cookie that is not Tapline's gives no token: the page is rendered for it, with a new cookie.
    const forged = await visit("tapline_csrf=someone-else");
    expect(csrfCookie(forged)).toBeTruthy();
  });

  it("drops every kept page on the public invalidation another instance's change sends (LISTEN/NOTIFY)", async () => {
    await page("/");
    expect(isKept(await page("/"))).toBe(true);
    await forgetHere({ cache: "public" }); // what the listener does with the NOTIFY
    expect(isKept(await page("/"))).toBe(false);
  });

  it("keeps no answer but a whole page: not a 404", async () => {
    await page("/rules/nowhere", undefined, 404);
    expect(isKept(await page("/rules/nowhere", undefined, 404))).toBe(false);
  });
});

describe("the lateral permit form: its public part cached, the applicant's read fresh", () => {
  it("asks the database only for the applicant's part once the district's part is cached, and sends the page only the fees of the rulebook", async () => {
    const applicant = await signedInAs(srv.url, DEMO.applicant);
    const path = "/permits/new?district=lakeview";
    const first = await page(path, applicant.cookieHeader);
    const again = await page(path, applicant.cookieHeader);
    expect(again.html).toContain("Connect to the public sewer");
    expect(again.html).toContain("Sewer Use Law 1212"); // the fees' section, shown with the fees
    // The district, its rulebook and what an application carries came from the public answers.
    expect(again.statements).toBeLessThan(first.statements);
    expect(again.sql.filter((q) => /rulebook_version/.test(q))).toEqual([]);
    // Of the rulebook, only the fee entries reach the page (the rules page shows the rest).
    expect(again.html).not.toContain("lateral.roadRestorationIncludedInFee");
    expect(again.html).toContain("lateral.fee.residential");
  });

  it("still sends someone signed out to sign in, and answers an unknown district with 404", async () => {
    const signedOut = await page("/permits/new?district=lakeview", undefined, 302);
    expect(signedOut.res.headers.get("location")).toBe(`/sign-in?redirectTo=${encodeURIComponent("/permits/new?district=lakeview")}`);
    const applicant = await signedInAs(srv.url, DEMO.applicant);
    await page("/permits/new?district=nowhere", applicant.cookieHeader, 404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, signedInAs, startTestServer, type TestServer } from "../harness.js";

/**
 * A public page's data (the districts, a rulebook) is kept in-process as long as the API's response
 * cache keeps it (api/graphql/cache.ts), so under load a public page asks nothing of the database;
 * an ADMIN's change to a rulebook shows on the page at once, as it does in the API.
 */
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
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
    expect((await page(path)).statements).toBe(0); // cached

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

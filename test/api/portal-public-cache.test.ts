import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";

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

/** The page's HTML, and the SQL statements its request took. */
async function page(path: string, cookie?: string): Promise<{ html: string; statements: number }> {
  const logger = srv.running.ds.logger as any;
  const original = logger.logQuery;
  let statements = 0;
  logger.logQuery = function (...args: unknown[]) {
    statements++;
    return original.apply(this, args);
  };
  try {
    const res = await fetch(`${srv.url}${path}`, { headers: { accept: "text/html", ...(cookie ? { cookie } : {}) } });
    expect(res.status, path).toBe(200);
    return { html: await res.text(), statements };
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

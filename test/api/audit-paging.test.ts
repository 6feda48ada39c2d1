import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

/** The staff's audit log pages by (at, id); a transaction's entries share one now(), to the microsecond. */

let srv: TestServer;
let clerk: Client;
beforeAll(async () => {
  srv = await startTestServer();
  clerk = new Client(srv.url);
  await clerk.signIn(DEMO.lakeviewClerk);
});
afterAll(() => srv?.close());

const LOG = `query($f: AuditFilter!) { auditLog(filter: $f) { nextCursor entries { entityId } } }`;

describe("the audit log's pages", () => {
  it("miss no entry when a page ends among entries written at the same microsecond", async () => {
    const [{ id: districtId }] = await srv.running.ds.query(`SELECT id FROM district WHERE slug = 'lakeview'`);
    // Three entries of one transaction (one now()), a fourth a millisecond earlier, with microseconds a
    // JavaScript Date would drop.
    for (const [entity, at] of [["a", "2026-11-30 12:00:00.123456+00"], ["b", "2026-11-30 12:00:00.123456+00"], ["c", "2026-11-30 12:00:00.123456+00"], ["d", "2026-11-30 12:00:00.122999+00"]])
      await srv.running.ds.query(`INSERT INTO audit_entry (at, district_id, action, entity_type, entity_id) VALUES ($1, $2, 'test.paging', 'PagingTest', $3)`, [at, districtId, entity]);
    const seen: string[] = [];
    let before: string | null = null;
    for (let page = 0; page < 10; page++) {
      const { auditLog }: { auditLog: { nextCursor: string | null; entries: { entityId: string }[] } } = await clerk.ok(LOG, { f: { districtId, entityType: "PagingTest", first: 1, before } });
      seen.push(...auditLog.entries.map((e) => e.entityId));
      before = auditLog.nextCursor;
      if (!before) break;
    }
    expect(seen).toEqual(["c", "b", "a", "d"]); // newest first; one now() ordered by id
  });

  it("refuse an altered page link and an actor that is not an id", async () => {
    const [{ id: districtId }] = await srv.running.ds.query(`SELECT id FROM district WHERE slug = 'lakeview'`);
    const bad = await clerk.gql(LOG, { f: { districtId, before: Buffer.from("2026-11-30T12:00:00Z|not-a-number").toString("base64url") } });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(bad)).toContain("start from the first page");
    expect(errorCode(await clerk.gql(LOG, { f: { districtId, actorId: "someone" } }))).toBe("BAD_USER_INPUT");
  });
});

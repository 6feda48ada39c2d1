import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

describe("cached dashboards still show a person's own change at once", () => {
  it("a mutation clears the cache: the new organization is on the dashboard right away", async () => {
    const c = new Client(srv.url);
    await c.signIn(DEMO.applicant);
    const Q = `{ myDashboard { organizations { organization { name } } } }`;
    const before = (await c.ok(Q)).myDashboard.organizations.length;
    await c.ok(`mutation { createOrganization(input: { name: "Fresh Hauling", kind: "HAULER" }) { id } }`);
    const after = (await c.ok(Q)).myDashboard.organizations;
    expect(after.length).toBe(before + 1);
    expect(after.map((o: any) => o.organization.name)).toContain("Fresh Hauling");
  });
});

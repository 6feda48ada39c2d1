import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_CONTRACTOR } from "../../api/db/demo-scene-contractors.js";
import { DEMO_INDUSTRY, loadDemoScenes } from "../../api/db/demo-scenes.js";
import { Client, startTestServer, type TestServer } from "../harness.js";

/** `npm start`'s demo scene: the demo industrial user's permit, issued four months ago, with a report open for results. */

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
  await loadDemoScenes(srv.running.ds, srv.url, srv.config);
  await loadDemoScenes(srv.running.ds, srv.url, srv.config); // a second start adds nothing
});
afterAll(() => srv?.close());

const PERMITS = `{ myIndustrialPermits { id status permitNumber effectiveOn expiresOn limits { parameter } nextReport { id periodStart periodEnd dueOn daysLeft } } }`;

describe("the demo industrial user", () => {
  it("holds one issued permit with the district's limits, under the notice and term rules, and can enter results in the open report", async () => {
    const industry = new Client(srv.url);
    await industry.signIn(DEMO_INDUSTRY.email);
    const { myIndustrialPermits } = await industry.ok(PERMITS);
    expect(myIndustrialPermits).toHaveLength(1);
    const p = myIndustrialPermits[0];
    expect(p).toMatchObject({ status: "ISSUED", permitNumber: expect.stringMatching(/^LKV-IU-\d{4}-0001$/) });
    expect(p.limits.map((l: { parameter: string }) => l.parameter)).toEqual(expect.arrayContaining(["Zinc", "pH"]));
    const [row] = await srv.running.ds.query(
      `SELECT notice_published_on::text AS notice, effective_on::text AS effective, expires_on::text AS expires FROM industrial_permit WHERE id = $1`,
      [p.id],
    );
    expect(row.effective > row.notice).toBe(true);
    expect(Date.parse(row.effective) - Date.parse(row.notice)).toBe(14 * 86_400_000); // SUL 1004 H
    expect(Date.parse(row.expires) - Date.parse(row.effective)).toBeLessThan(5 * 366 * 86_400_000); // 1004 D
    // The current period's report takes results sampled in it.
    const r = p.nextReport;
    expect(r.daysLeft).toBeGreaterThan(0);
    const saved = await industry.ok(`mutation($r: ID!, $x: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $x) { status } }`, {
      r: r.id,
      x: [{ parameter: "Zinc", sampleType: "COMPOSITE", sampledAt: `${r.periodStart}T09:00`, value: 0.8, unit: "mg/L", lab: "Upstate Analytical", method: "EPA 200.7" }],
    });
    expect(saved.addIndustrialResults).toEqual([{ status: "OK" }]);
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM organization WHERE name = $1`, [DEMO_INDUSTRY.organization]);
    expect(n).toBe(1);
  });
});

describe("the demo contractor", () => {
  it("is on Lakeview's list of approved contractors, chosen from the permit form; Huron keeps none", async () => {
    const anyone = new Client(srv.url);
    const { lakeview, huron } = await anyone.ok(`{ lakeview: approvedContractors(districtSlug: "lakeview") { id name } huron: approvedContractors(districtSlug: "huron") { id } }`);
    expect(lakeview.map((c: { name: string }) => c.name)).toEqual([DEMO_CONTRACTOR.organization]);
    expect(huron).toEqual([]);
    // Its bond and certificates are a real file the Clerk can open.
    const clerk = new Client(srv.url);
    await clerk.signIn("clerk@lakeview.demo.tapline.local");
    const [doc] = await srv.running.ds.query(`SELECT c.bond_document_id AS id FROM contractor c WHERE c.id = $1`, [lakeview[0].id]);
    expect((await fetch(`${srv.url}/documents/${doc.id}`, { headers: { cookie: clerk.cookieHeader } })).status).toBe(200);
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM organization WHERE name = $1`, [DEMO_CONTRACTOR.organization]);
    expect(n).toBe(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { clearMicroCache } from "../../api/graphql/micro-cache.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

/**
 * A permit superseded after a change of owner or premises (SUL 1004 F) still owes the reports of
 * the days it was in force, and is judged for significant non-compliance over them (SUL 201).
 */

let srv: TestServer;
let owner: Client;
let operator: Client;
const db = () => srv.running.ds;
const ADD = `mutation($r: ID!, $x: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $x) { id status } }`;
const zinc = (sampledAt: string, value: number) => ({ parameter: "Zinc", sampleType: "COMPOSITE", sampledAt, value, unit: "mg/L", lab: "Upstate Analytical", method: "EPA 200.7" });

beforeAll(async () => {
  srv = await startTestServer();
  owner = new Client(srv.url);
  await owner.signIn(DEMO.applicant);
  operator = new Client(srv.url);
  await operator.signIn(DEMO.lakeviewOperator);
  travelTo(new Date("2026-11-20T15:00:00Z"));
});
afterAll(async () => {
  resetClock();
  await srv?.close();
});

describe("a superseded permit's last reports (SUL 1004 F)", () => {
  it("takes results and repeat sampling for the days it was in force, none after, and stays on the SNC dashboard for that half-year", async () => {
    const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
    const [{ id: districtId }] = await db().query(`SELECT id FROM district WHERE slug = 'lakeview'`);
    const [{ id: orgId }] = await db().query(`INSERT INTO organization (name, kind, created_by_id) VALUES ('Sold Plating Co', 'INDUSTRIAL_USER', $1) RETURNING id`, [userId]);
    await db().query(`INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, 'OWNER')`, [orgId, userId]);
    const [{ id: permitId }] = await db().query(
      `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at, effective_on, expires_on,
                                      reporting_months, superseded_on, superseded_at)
       VALUES ($1, $2, $3, 'SUPERSEDED', 'Sold plant', '2025-01-01', '2025-01-02', 'LKV-IU-2025-0999', '2025-01-20', '2025-01-20', '2030-01-19', '{6,12}', '2026-10-15', '2026-10-15T04:00:00Z')
       RETURNING id`,
      [districtId, orgId, userId],
    );
    await db().query(`INSERT INTO industrial_limit (permit_id, position, parameter, kind, unit, average, maximum, section) VALUES ($1, 0, 'Zinc', 'CONCENTRATION', 'mg/L', 1.2, 2.4, 'Sewer Use Law 903')`, [permitId]);
    const report = async (start: string, end: string) =>
      (
        await db().query(`INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status) VALUES ($1, 'PERIODIC', $2, $3, '2026-12-31', 'DUE') RETURNING id`, [
          permitId,
          start,
          end,
        ])
      )[0].id as string;
    const last = await report("2026-06-01", "2026-10-14");
    const saved = (await owner.ok(ADD, { r: last, x: [zinc("2026-10-01T09:00", 1.3), zinc("2026-10-02T09:00", 1.3), zinc("2026-10-03T09:00", 1.3)] })).addIndustrialResults;
    expect(saved.map((x: { status: string }) => x.status)).toEqual(["EXCEEDS", "EXCEEDS", "EXCEEDS"]);
    // the repeat sampling of a violation found while it was in force is still owed (SUL 1005(4))
    const [{ id: dutyId }] = await db().query(`SELECT id FROM industrial_duty WHERE report_id = $1 AND kind = 'RESAMPLE' LIMIT 1`, [last]);
    expect((await owner.ok(`mutation($id: ID!) { startResampleReport(dutyId: $id) { id kind } }`, { id: dutyId })).startResampleReport.kind).toBe("RESAMPLE");
    const after = await report("2026-10-15", "2026-11-30");
    const refused = await owner.gql(ADD, { r: after, x: [zinc("2026-11-02T09:00", 0.5)] });
    expect(errorCode(refused)).toBe("CONFLICT");

    clearMicroCache();
    const DASH = `query($d: ID!) { industrialSncDashboard(districtId: $d, periodStart: "2026-07-01") { permits { permitNumber inSnc criteria } } }`;
    const row = (await operator.ok(DASH, { d: districtId })).industrialSncDashboard.permits.find((p: { permitNumber: string }) => p.permitNumber === "LKV-IU-2025-0999");
    expect(row).toMatchObject({ inSnc: true, criteria: ["CHRONIC"] }); // 3 of 3 over 1.2 mg/L; 1.3 is under 1.2 x 1.2, so not TRC
  });
});

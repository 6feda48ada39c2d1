import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

/**
 * Daily flows in the periodic compliance report (SUL 1005(3)(a)): the days above the average daily
 * flow given in the application (1004 A(4)) are flagged, gpd and MGD are converted, a bad line is
 * refused with nothing saved, the flows are part of the signed copy of record and frozen with it,
 * and another organization cannot touch them.
 */

let srv: TestServer;
let owner: Client;
let stranger: Client;
const db = () => srv.running.ds;
const SET = `mutation($r: ID!, $f: [IndustrialDailyFlowInput!]!) { setIndustrialDailyFlows(reportId: $r, flows: $f) { day flowGpd enteredValue enteredUnit averageGpd aboveAverage finding } }`;
const READ = `query($id: ID!) { industrialReport(id: $id) { id status dailyFlows { day flowGpd aboveAverage finding } } }`;

/** An issued Lakeview permit whose application gave 12,000 gpd on average, with its December report (June-November 2026). */
let seq = 0;
async function seedPermit(kind = "PERIODIC"): Promise<{ permitId: string; reportId: string }> {
  const k = ++seq;
  const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const [{ id: districtId }] = await db().query(`SELECT id FROM district WHERE slug = 'lakeview'`);
  const [{ id: orgId }] = await db().query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($2, 'INDUSTRIAL_USER', $1) RETURNING id`, [userId, `Flow Works ${k}`]);
  await db().query(`INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, 'OWNER')`, [orgId, userId]);
  const [{ id: permitId }] = await db().query(
    `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at, effective_on, expires_on, reporting_months, average_flow_gpd)
     VALUES ($1, $2, $3, 'ISSUED', 'Flow plant', '2026-01-01', '2026-01-02', $4, '2026-01-20', '2026-01-20', '2031-01-19', '{6,12}', 12000) RETURNING id`,
    [districtId, orgId, userId, `LKV-IU-2026-07${String(k).padStart(2, "0")}`],
  );
  const [{ id: reportId }] = await db().query(
    `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status) VALUES ($1, $2, '2026-06-01', '2026-11-30', '2026-12-31', 'DUE') RETURNING id`,
    [permitId, kind],
  );
  return { permitId, reportId };
}

beforeAll(async () => {
  srv = await startTestServer();
  owner = new Client(srv.url);
  await owner.signIn(DEMO.applicant);
  stranger = new Client(srv.url);
  await stranger.signUp("stranger@flows.example", "Stranger", "correct horse battery staple");
  travelTo(new Date("2026-11-20T15:00:00Z"));
});
afterAll(async () => {
  resetClock();
  await srv?.close();
});

describe("daily flows of the periodic report (SUL 1005(3)(a))", () => {
  it("flags the days above the application's average, in gpd whatever the unit entered", async () => {
    const { reportId } = await seedPermit();
    const flows = (
      await owner.ok(SET, {
        r: reportId,
        f: [
          { day: "2026-11-02", flow: 11000, unit: "gpd" },
          { day: "2026-11-03", flow: 12000, unit: "gpd" },
          { day: "2026-11-04", flow: 0.0125, unit: "MGD" },
        ],
      })
    ).setIndustrialDailyFlows;
    expect(flows.map((f: { day: string; flowGpd: number; aboveAverage: boolean }) => [f.day, f.flowGpd, f.aboveAverage])).toEqual([
      ["2026-11-02", 11000, false],
      ["2026-11-03", 12000, false], // at the average is not above it
      ["2026-11-04", 12500, true],
    ]);
    expect(flows[2]).toMatchObject({ enteredValue: 0.0125, enteredUnit: "MGD", averageGpd: 12000 });
    expect(flows[2].finding).toBe("Above the average daily flow of 12,000 gpd in the application: reported under Sewer Use Law 1005(3)(a).");
    const r = (await owner.ok(READ, { id: reportId })).industrialReport;
    expect(r.status).toBe("DRAFT");
    expect(r.dailyFlows).toHaveLength(3);
    const [a] = await db().query(`SELECT details FROM audit_entry WHERE action = 'industrial.daily_flows_saved' AND entity_id = $1`, [reportId]);
    expect(a.details).toMatchObject({ days: 3, aboveAverage: [{ day: "2026-11-04", flowGpd: 12500 }] });
  });

  it("refuses a bad list line by line and keeps what was there", async () => {
    const { reportId } = await seedPermit();
    await owner.ok(SET, { r: reportId, f: [{ day: "2026-10-01", flow: 9000, unit: "gpd" }] });
    const bad = await owner.gql(SET, {
      r: reportId,
      f: [
        { day: "2026-10-02", flow: 9000, unit: "gpd" },
        { day: "2026-05-31", flow: 9000, unit: "gpd" }, // before the period
        { day: "2026-11-25", flow: 9000, unit: "gpd" }, // after today
        { day: "2026-10-02", flow: 9500, unit: "gpd" }, // twice
        { day: "2026-10-05", flow: -1, unit: "gpd" },
        { day: "2026-10-06", flow: 9000, unit: "mg/L" },
      ],
    });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    const fields = bad.errors![0].extensions!.fields as Record<string, string>;
    expect(Object.keys(fields).sort()).toEqual(["flows.1", "flows.2", "flows.3", "flows.4", "flows.5"]);
    expect(fields["flows.1"]).toMatch(/within the report's period, June 1, 2026 to November 30, 2026/);
    expect(fields["flows.2"]).toMatch(/future/);
    expect(fields["flows.3"]).toMatch(/twice \(also on line 1\)/);
    expect(fields["flows.5"]).toMatch(/gpd or MGD/);
    expect((await owner.ok(READ, { id: reportId })).industrialReport.dailyFlows).toEqual([expect.objectContaining({ day: "2026-10-01", flowGpd: 9000 })]);
  });

  it("belong to the periodic report only, and to its organization", async () => {
    const { reportId } = await seedPermit();
    expect(errorCode(await stranger.gql(SET, { r: reportId, f: [] }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.gql(READ, { id: reportId }))).toBe("NOT_FOUND");
    const baseline = await seedPermit("BASELINE");
    expect(errorCode(await owner.gql(SET, { r: baseline.reportId, f: [] }))).toBe("CONFLICT");
  });

  it("are part of the signed copy of record and cannot change after signing", async () => {
    const { reportId } = await seedPermit();
    const HASH = `query($id: ID!) { industrialReport(id: $id) { contentHash } }`;
    await owner.ok(SET, { r: reportId, f: [{ day: "2026-09-09", flow: 14000, unit: "gpd" }] });
    const before = (await owner.ok(HASH, { id: reportId })).industrialReport.contentHash;
    await owner.ok(SET, { r: reportId, f: [{ day: "2026-09-09", flow: 15000, unit: "gpd" }] });
    const after = (await owner.ok(HASH, { id: reportId })).industrialReport.contentHash;
    expect(after).not.toBe(before); // the signer reviews, and signs, the flows with the results
    const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
    await db().query(`UPDATE industrial_report SET status = 'SIGNED', signed_at = now(), signer_id = $2 WHERE id = $1`, [reportId, userId]);
    expect(errorCode(await owner.gql(SET, { r: reportId, f: [] }))).toBe("CONFLICT");
    await expect(db().query(`UPDATE industrial_daily_flow SET flow_gpd = 1 WHERE report_id = $1`, [reportId])).rejects.toThrow(/signed/);
    await expect(db().query(`DELETE FROM industrial_daily_flow WHERE report_id = $1`, [reportId])).rejects.toThrow(/signed/);
  });
});

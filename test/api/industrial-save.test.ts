import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, countStatements, startTestServer, type TestServer } from "../harness.js";

/**
 * Saving a report's lab results in bulk (issue 5's benchmark: 500 results a report): a fixed
 * number of SQL statements whatever the number of results, time-ordered ids, and the database's
 * own guards on what the service writes (a signed report takes no more results; a result names
 * its report's permit).
 */

let srv: TestServer;
let member: Client;
const db = () => srv.running.ds;
const ADD = `mutation($r: ID!, $results: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $results) { id status limitValue duties { kind } } }`;

let seq = 0;
/** An issued Lakeview permit of an organization the demo applicant owns, with a zinc limit and an open report of November 2026. */
async function seedPermit(): Promise<{ permitId: string; reportId: string }> {
  const k = ++seq;
  const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const [{ id: districtId }] = await db().query(`SELECT id FROM district WHERE slug = 'lakeview'`);
  const [{ id: orgId }] = await db().query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'INDUSTRIAL_USER', $2) RETURNING id`, [`Bulk Works ${k}`, userId]);
  await db().query(`INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, 'OWNER')`, [orgId, userId]);
  const [{ id: permitId }] = await db().query(
    `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at, effective_on, expires_on, reporting_months)
     VALUES ($1, $2, $3, 'ISSUED', 'Bulk plant', '2026-01-01', '2026-01-02', $4, '2026-01-20', '2026-01-20', '2031-01-19', '{6,12}') RETURNING id`,
    [districtId, orgId, userId, `LKV-IU-2026-9${String(k).padStart(3, "0")}`],
  );
  await db().query(
    `INSERT INTO industrial_limit (permit_id, position, parameter, kind, unit, average, maximum, section) VALUES ($1, 0, 'Zinc', 'CONCENTRATION', 'mg/L', 1.2, 2.4, 'Sewer Use Law 903')`,
    [permitId],
  );
  const [{ id: reportId }] = await db().query(
    `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status) VALUES ($1, 'PERIODIC', '2026-06-01', '2026-11-30', '2026-12-31', 'DUE') RETURNING id`,
    [permitId],
  );
  return { permitId, reportId };
}

/** n zinc composites in November 2026, one in ten over the 1.2 mg/L average. */
const results = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    parameter: "Zinc",
    sampleType: "COMPOSITE",
    sampledAt: `2026-11-${String(1 + (i % 20)).padStart(2, "0")}T${String(6 + (i % 12)).padStart(2, "0")}:00`,
    value: i % 10 === 0 ? 1.3 : 0.8,
    unit: "mg/L",
    lab: "Upstate Analytical (NYSDOH 11234)",
    method: "EPA 200.7",
  }));

beforeAll(async () => {
  srv = await startTestServer();
  member = new Client(srv.url);
  await member.signIn(DEMO.applicant);
});
afterAll(async () => {
  resetClock();
  await srv?.close();
});

describe("saving lab results in bulk", () => {
  it("takes the same SQL statements for 10 results as for 300", async () => {
    const a = await seedPermit();
    const b = await seedPermit();
    await member.ok(ADD, { r: a.reportId, results: results(10) }); // warm: the viewer and rulebook caches
    const ten = await countStatements(db(), () => member.ok(ADD, { r: a.reportId, results: results(10) }));
    const three = await countStatements(db(), async () => {
      const saved = (await member.ok(ADD, { r: b.reportId, results: results(300) })).addIndustrialResults;
      expect(saved).toHaveLength(300);
      expect(saved.filter((x: { status: string }) => x.status === "EXCEEDS")).toHaveLength(30);
    });
    expect(three).toBe(ten);
    expect(ten).toBeLessThanOrEqual(16);
  });

  it("stores what it sends back, under time-ordered ids", async () => {
    const { reportId } = await seedPermit();
    const saved = (await member.ok(ADD, { r: reportId, results: results(3) })).addIndustrialResults;
    for (const x of saved) expect(x.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const rows = await db().query(`SELECT id, status, limit_value::float AS limit, value::float AS value FROM industrial_result WHERE report_id = $1 ORDER BY sampled_at`, [reportId]);
    expect(rows.map((r: { id: string }) => r.id).sort()).toEqual(saved.map((x: { id: string }) => x.id).sort());
    expect(rows[0]).toMatchObject({ status: "EXCEEDS", limit: 1.2, value: 1.3 });
    expect(saved.find((x: { id: string }) => x.id === rows[0].id)).toMatchObject({ status: "EXCEEDS", limitValue: 1.2, duties: [{ kind: "NOTIFY" }, { kind: "RESAMPLE" }] });
  });

  it("refuses, in the database too, results added to a signed report or naming another permit", async () => {
    const { permitId, reportId } = await seedPermit();
    const other = await seedPermit();
    await member.ok(ADD, { r: reportId, results: results(2) });
    const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
    const insert = (report: string, permit: string) =>
      db().query(
        `INSERT INTO industrial_result (report_id, permit_id, parameter, sample_type, sampled_at, value, unit, lab, method, status, message, created_by_id)
         VALUES ($1, $2, 'Zinc', 'COMPOSITE', '2026-11-02T12:00:00Z', 0.5, 'mg/L', 'Lab', 'EPA 200.7', 'OK', 'ok', $3)`,
        [report, permit, userId],
      );
    await expect(insert(reportId, other.permitId)).rejects.toThrow(/foreign key/);
    await db().query(`UPDATE industrial_report SET status = 'SIGNED', signed_at = now(), signer_id = $2 WHERE id = $1`, [reportId, userId]);
    await expect(insert(reportId, permitId)).rejects.toThrow(/signed/);
    await expect(db().query(`DELETE FROM industrial_result WHERE report_id = $1`, [reportId])).rejects.toThrow(/signed/);
    await insert(other.reportId, other.permitId); // an open report still takes them
  });

  it("reminds the organization a week before the repeat sampling is due (SUL 1005(4))", async () => {
    travelTo(new Date("2026-11-30T15:00:00Z"));
    const { reportId } = await seedPermit();
    await member.ok(ADD, { r: reportId, results: results(10) }); // one zinc result over the limit: resample due December 30
    const log = pino({ level: "silent" });
    travelTo(new Date("2026-12-22T15:00:00Z"));
    while ((await runDueJobs(db(), log)) > 0); // the other saves' notification reminders too
    const permitLink = (await db().query(`SELECT permit_id FROM industrial_report WHERE id = $1`, [reportId]))[0].permit_id;
    const sent = () => db().query(`SELECT subject FROM outbox_email WHERE kind = 'industrial.resample_reminder' AND to_address = $1 AND body_text LIKE $2`, [DEMO.applicant, `%${permitLink}%`]);
    expect(await sent()).toHaveLength(0);
    travelTo(new Date("2026-12-23T15:00:00Z"));
    while ((await runDueJobs(db(), log)) > 0);
    expect((await sent()).map((m: { subject: string }) => m.subject)).toEqual([expect.stringMatching(/^Repeat sampling due December 30, 2026: Zinc, permit LKV-IU-2026-9/)]);
    resetClock();
  });
});

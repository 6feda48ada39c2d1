import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

/** The staff's district lists of accidental or slug discharges (SUL 1011), newest first, a page at a time. */

let srv: TestServer;
let clerk: Client;
const db = () => srv.running.ds;
const LIST = `query($d: ID!, $a: String) { industrialSlugDischarges(districtId: $d, first: 2, after: $a) { nextCursor items { id occurredAt substance } } }`;

beforeAll(async () => {
  srv = await startTestServer();
  clerk = new Client(srv.url);
  await clerk.signIn(DEMO.lakeviewClerk);
});
afterAll(async () => srv?.close());

describe("the district's slug discharges (SUL 1011)", () => {
  it("pages newest first from the cursor the API gave, with no cursor after the last page and a bad one refused", async () => {
    const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
    const [{ id: districtId }] = await db().query(`SELECT id FROM district WHERE slug = 'lakeview'`);
    const [{ id: orgId }] = await db().query(`INSERT INTO organization (name, kind, created_by_id) VALUES ('Spill Co', 'INDUSTRIAL_USER', $1) RETURNING id`, [userId]);
    const [{ id: permitId }] = await db().query(
      `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at, effective_on, expires_on, reporting_months)
       VALUES ($1, $2, $3, 'ISSUED', 'Spill plant', '2026-01-01', '2026-01-02', 'LKV-IU-2026-0555', '2026-01-20', '2026-01-20', '2031-01-19', '{6,12}') RETURNING id`,
      [districtId, orgId, userId],
    );
    for (const [day, substance] of [["2026-03-01", "caustic"], ["2026-04-01", "acid"], ["2026-05-01", "oil"]]) {
      const [{ id: reportId }] = await db().query(
        `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status) VALUES ($1, 'SLUG', $2, $2, $2::date + 5, 'DUE') RETURNING id`,
        [permitId, day],
      );
      await db().query(
        `INSERT INTO industrial_slug_discharge (permit_id, report_id, occurred_at, notified_at, notified_whom, substance, estimated_volume_gallons, written_due_on, analyses_due_on, filed_by_id)
         VALUES ($1, $2, $3::timestamptz, $3::timestamptz, 'Operator', $4, 100, $3::date + 5, $3::date + 45, $5)`,
        [permitId, reportId, `${day}T14:00:00Z`, substance, userId],
      );
    }
    const first = (await clerk.ok(LIST, { d: districtId })).industrialSlugDischarges;
    expect(first.items.map((s: { substance: string }) => s.substance)).toEqual(["oil", "acid"]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = (await clerk.ok(LIST, { d: districtId, a: first.nextCursor })).industrialSlugDischarges;
    expect(next.items.map((s: { substance: string }) => s.substance)).toEqual(["caustic"]);
    expect(next.nextCursor).toBeNull();
    // A cursor written by hand (the old "time|id" form) or altered is refused with the list's message.
    const bad = await clerk.gql(LIST, { d: districtId, a: `${first.items[1].occurredAt}|${first.items[1].id}` });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(bad)).toContain("start from the first page");
  });
});

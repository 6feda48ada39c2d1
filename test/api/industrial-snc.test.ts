import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { clearMicroCache } from "../../api/graphql/micro-cache.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer, isSessionBookkeeping, signedInAs } from "../harness.js";

/**
 * The district's significant non-compliance dashboard (SUL 201) and the published list (SUL 1122):
 * who may see and publish, the criteria at the law's boundaries across several permits (66 %, 33 %
 * at 1.4 and 1.2 times, a report 30 and 31 days late), agreement with the per-permit SNC, a
 * publication read back by anyone, and a fixed number of SQL statements for 2 or 20 permits.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let operator: Client;
let clerk: Client;
let board: Client;
let anon: Client;
const db = () => srv.running.ds;
const HURON_OPERATOR = "operator@huron.demo.tapline.local";

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

type Batch = { parameter: string; count: number; value: number; limit: number; status: "OK" | "EXCEEDS"; basis?: string };
let seq = 0;
/**
 * An issued permit of Lakeview with one periodic report for December 2025 - May 2026 (due June
 * 30, 2026) holding the given results, sampled in March 2026; signed on June 20 unless `late`.
 */
async function seedPermit(name: string, batches: Batch[], opts: { late?: boolean; amendWith?: Batch[] } = {}): Promise<{ id: string; number: string; orgId: string }> {
  const k = ++seq;
  const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const [{ id: rb }] = await db().query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY effective_date DESC, version DESC LIMIT 1`, [lakeview.id]);
  const [{ id: orgId }] = await db().query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'INDUSTRIAL_USER', $2) RETURNING id`, [name, userId]);
  const number = `LKV-IU-2025-${String(k).padStart(4, "0")}`;
  const [{ id }] = await db().query(
    `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at,
                                    effective_on, expires_on, reporting_months, rulebook_version_id, trade_secret_fields, activities)
     VALUES ($1, $2, $3, 'ISSUED', $4 || ' plant', '2025-10-01', '2025-10-02', $5, '2025-10-20', '2025-10-20', '2030-10-19', '{6,12}', $6, '{activities}', 'Secret brightener recipe')
     RETURNING id`,
    [lakeview.id, orgId, userId, name, number, rb],
  );
  const report = async (amendsId: string | null, rows: Batch[], signed: boolean) => {
    const [{ id: reportId }] = await db().query(
      `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status, amends_id) VALUES ($1, 'PERIODIC', '2025-12-01', '2026-05-31', '2026-06-30', 'DRAFT', $2) RETURNING id`,
      [id, amendsId],
    );
    for (const b of rows)
      await db().query(
        `INSERT INTO industrial_result (report_id, permit_id, parameter, sample_type, sampled_at, value, unit, lab, method, status, basis, limit_value, limit_unit, compared_value, message, created_by_id)
         SELECT $1, $2, $3, 'COMPOSITE', '2026-03-01T12:00:00Z'::timestamptz + make_interval(hours => g), $4, 'mg/L', 'Upstate Analytical', 'EPA 200.7', $5, $6, $7, 'mg/L', $4, 'seeded', $8
           FROM generate_series(1, $9::int) g`,
        [reportId, id, b.parameter, b.value, b.status, b.basis ?? "AVERAGE", b.limit, userId, b.count],
      );
    if (signed) await db().query(`UPDATE industrial_report SET status = 'SIGNED', signed_at = '2026-06-20T15:00:00Z', signer_id = $2 WHERE id = $1`, [reportId, userId]);
    return reportId;
  };
  const first = await report(null, batches, !opts.late);
  if (opts.amendWith) await report(first, opts.amendWith, false);
  clearMicroCache(); // rows written here, not by a mutation (which clears the 2-second cache)
  return { id, number, orgId };
}

const DASH = `query($d: ID!, $s: String) { industrialSncDashboard(districtId: $d, periodStart: $s, first: 50) {
  periodStart periodEnd periods inSncCount notJudged canPublish publicationEnabled publishableFrom publication { publishedOn publishedByName }
  permits { permitId permitNumber organizationName inSnc criteria reportsDue findings { criterion parameter text section } parameters { parameter total exceeded atOrAboveTrc trcFactor chronic trc } } } }`;
const PERMIT_SNC = `query($id: ID!, $s: String) { industrialPermitSnc(permitId: $id, periodStart: $s) { inSnc findings { criterion parameter } } }`;
const PUBLISH = `mutation($d: ID!, $s: String!) { publishSncList(districtId: $d, periodStart: $s) { id periodStart periodEnd publishedOn publishedByName section } }`;
const PUBLIC = `query($slug: String) { publishedSncLists(districtSlug: $slug) { districtName periodStart periodEnd publishedOn section listings { organizationName permitNumbers criteria findings } } }`;

beforeAll(async () => {
  travelTo("2026-07-30T15:00:00Z");
  srv = await startTestServer();
  anon = new Client(srv.url);
  ({ lakeview, huron } = await anon.ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [operator, clerk, board] = await Promise.all([DEMO.lakeviewOperator, DEMO.lakeviewClerk, DEMO.lakeviewBoard].map(signedIn));
});
afterAll(async () => {
  resetClock();
  await srv?.close();
});

let chronic66: { id: string; number: string };
let chronic64: { id: string; number: string };
let trc33: { id: string; number: string };
let trc32: { id: string; number: string };
let trcOther: { id: string; number: string };
let amended: { id: string; number: string };
let late: { id: string; number: string; orgId: string };

const zinc = (count: number, value: number, status: "OK" | "EXCEEDS"): Batch => ({ parameter: "Zinc", count, value, limit: 1.2, status });
const bod = (count: number, value: number, status: "OK" | "EXCEEDS"): Batch => ({ parameter: "BOD", count, value, limit: 300, status });

describe("the district's SNC dashboard (SUL 201)", () => {
  it("takes the same SQL statements for 2 permits as for 20", async () => {
    await seedPermit("Count One", [zinc(5, 1.0, "OK")]);
    await seedPermit("Count Two", [zinc(5, 1.0, "OK")]);
    const logger = db().logger as any;
    const original = logger.logQuery;
    let count = 0;
    logger.logQuery = function (...args: unknown[]) {
      if (!isSessionBookkeeping(args[0])) count++;
      return original.apply(this, args);
    };
    const statements = async (permits: number) => {
      clearMicroCache();
      count = 0;
      const d = (await clerk.ok(DASH, { d: lakeview.id, s: "2026-01-01" })).industrialSncDashboard;
      expect(d.permits).toHaveLength(permits);
      return count;
    };
    try {
      await statements(2); // warm: the viewer and rulebook caches
      const two = await statements(2);
      for (let i = 3; i <= 20; i++) {
        logger.logQuery = original;
        await seedPermit(`Count ${i}`, [zinc(3, 1.0, "OK")]);
        logger.logQuery = function (...args: unknown[]) {
          if (!isSessionBookkeeping(args[0])) count++;
          return original.apply(this, args);
        };
      }
      const twenty = await statements(20);
      expect(twenty).toBe(two);
      expect(two).toBeLessThanOrEqual(10);
    } finally {
      logger.logQuery = original;
    }
    // Pages of the whole period's list: the counts cover every permit.
    const P = `query($d: ID!, $a: String) { industrialSncDashboard(districtId: $d, periodStart: "2026-01-01", first: 8, after: $a) { totalPermits nextCursor permits { permitNumber } } }`;
    const p1 = (await clerk.ok(P, { d: lakeview.id })).industrialSncDashboard;
    expect(p1).toMatchObject({ totalPermits: 20, nextCursor: "8" });
    const p3 = (await clerk.ok(P, { d: lakeview.id, a: "16" })).industrialSncDashboard;
    expect(p3).toMatchObject({ totalPermits: 20, nextCursor: null });
    expect(p3.permits).toHaveLength(4);
    expect(errorCode(await clerk.gql(P, { d: lakeview.id, a: "x" }))).toBe("BAD_USER_INPUT");
  });

  it("is for the district's staff: an applicant is FORBIDDEN, another district's staff too, an unknown district too", async () => {
    const applicant = await signedIn(DEMO.applicant);
    expect(errorCode(await applicant.gql(DASH, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedIn(DEMO.huronClerk)).gql(DASH, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await anon.gql(DASH, { d: lakeview.id }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await clerk.gql(DASH, { d: "00000000-0000-0000-0000-000000000000" }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(DASH, { d: lakeview.id, s: "2026-03-01" }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await clerk.gql(DASH, { d: lakeview.id, s: "2027-01-01" }))).toBe("BAD_USER_INPUT");
    // Huron's law has no discharge permits: its staff are told so
    const h = await (await signedIn(DEMO.huronClerk)).gql(DASH, { d: huron.id });
    expect(errorCode(h)).toBe("CONFLICT");
    expect(h.errors![0].message).toMatch(/no period for significant non-compliance \(Huron III-2\): Huron's law has no industrial wastewater discharge permits/);
    // the board reads it; the current period by default, and earlier ones to choose from
    const d = (await board.ok(DASH, { d: lakeview.id })).industrialSncDashboard;
    expect(d).toMatchObject({ periodStart: "2026-07-01", periodEnd: "2026-12-31", canPublish: false });
    expect(d.periods.slice(0, 3)).toEqual(["2026-07-01", "2026-01-01", "2025-07-01"]);
  });

  it("judges chronic at exactly 66% and TRC at exactly 33% (1.4 x for BOD, 1.2 x for zinc) across several permits, as the per-permit SNC does", async () => {
    chronic66 = await seedPermit("Chronic Sixty-Six Inc", [zinc(33, 1.3, "EXCEEDS"), zinc(17, 1.0, "OK")]); // 33 of 50 = 66 %
    chronic64 = await seedPermit("Chronic Sixty-Four Inc", [zinc(32, 1.3, "EXCEEDS"), zinc(18, 1.0, "OK")]); // 32 of 50 = 64 %
    trc33 = await seedPermit("Brewery Thirty-Three", [bod(33, 420, "EXCEEDS"), bod(67, 200, "OK")]); // 33 of 100 at 1.4 x 300
    trc32 = await seedPermit("Brewery Thirty-Two", [bod(32, 420, "EXCEEDS"), bod(1, 419.99, "EXCEEDS"), bod(67, 200, "OK")]); // 32 at 1.4 x; 419.99 is not
    trcOther = await seedPermit("Copper Works", [
      { parameter: "Copper", count: 1, value: 1.2, limit: 1.0, status: "EXCEEDS" }, // exactly 1.2 x: at the other pollutants' level
      { parameter: "Copper", count: 2, value: 0.9, limit: 1.0, status: "OK" },
      // 1.2 x the BOD limit is over it but below its 1.4 level
      { parameter: "BOD", count: 1, value: 360, limit: 300, status: "EXCEEDS" },
      { parameter: "BOD", count: 2, value: 200, limit: 300, status: "OK" },
    ]);
    amended = await seedPermit("Amended Alloys", [zinc(3, 2.0, "EXCEEDS")], { amendWith: [zinc(3, 1.0, "OK")] });

    const d = (await operator.ok(DASH, { d: lakeview.id, s: "2026-01-01" })).industrialSncDashboard;
    expect(d).toMatchObject({ periodStart: "2026-01-01", periodEnd: "2026-06-30" });
    const by = (p: { number: string }) => d.permits.find((x: any) => x.permitNumber === p.number);
    expect(by(chronic66)).toMatchObject({ inSnc: true, criteria: ["CHRONIC"], parameters: [{ parameter: "Zinc", total: 50, exceeded: 33, chronic: true, trc: false, trcFactor: 1.2 }] });
    expect(by(chronic66).findings[0].text).toMatch(/33 of 50 Zinc measurements \(66%\) exceed the limit; 66% or more is significant non-compliance/);
    expect(by(chronic64)).toMatchObject({ inSnc: false, criteria: [], parameters: [{ exceeded: 32, chronic: false }] });
    expect(by(trc33)).toMatchObject({ inSnc: true, criteria: ["TRC"], parameters: [{ parameter: "BOD", total: 100, atOrAboveTrc: 33, trcFactor: 1.4, trc: true, chronic: false }] });
    expect(by(trc32)).toMatchObject({ inSnc: false, parameters: [{ atOrAboveTrc: 32, exceeded: 33, trc: false }] });
    const copper = by(trcOther);
    expect(copper.criteria).toEqual(["TRC"]);
    expect(copper.parameters).toEqual([
      expect.objectContaining({ parameter: "BOD", atOrAboveTrc: 0, trcFactor: 1.4, trc: false }),
      expect.objectContaining({ parameter: "Copper", total: 3, atOrAboveTrc: 1, trcFactor: 1.2, trc: true }),
    ]);
    expect(by(amended)).toMatchObject({ inSnc: false, parameters: [{ total: 3, exceeded: 0 }] }); // the amendment's results stand
    // in SNC first
    const flags = d.permits.map((p: any) => p.inSnc);
    expect(flags).toEqual([...flags].sort((a: boolean, b: boolean) => Number(b) - Number(a)));
    // the same verdict as each permit's own SNC, which shows the measurements
    for (const p of [chronic66, chronic64, trc33, trc32, trcOther, amended]) {
      const one = (await operator.ok(PERMIT_SNC, { id: p.id, s: "2026-01-01" })).industrialPermitSnc;
      expect([p.number, one.inSnc, one.findings.map((f: any) => f.criterion)]).toEqual([p.number, by(p).inSnc, by(p).findings.map((f: any) => f.criterion)]);
    }
    // another period holds none of these results
    const later = (await operator.ok(DASH, { d: lakeview.id, s: "2026-07-01" })).industrialSncDashboard;
    expect(later.permits.find((x: any) => x.permitNumber === chronic66.number)).toMatchObject({ inSnc: false, parameters: [] });
  });

  it("a report due June 30 still missing is not SNC on day 30 and is on day 31", async () => {
    late = await seedPermit("Tardy Tanning", [zinc(3, 1.0, "OK")], { late: true });
    const day30 = (await clerk.ok(DASH, { d: lakeview.id, s: "2026-01-01" })).industrialSncDashboard;
    expect(day30.permits.find((x: any) => x.permitNumber === late.number)).toMatchObject({ inSnc: false, reportsDue: 1 });
    travelTo("2026-07-31T15:00:00Z");
    const day31 = (await clerk.ok(DASH, { d: lakeview.id, s: "2026-01-01" })).industrialSncDashboard;
    const row = day31.permits.find((x: any) => x.permitNumber === late.number);
    expect(row).toMatchObject({ inSnc: true, criteria: ["LATE_REPORT"] });
    expect(row.findings[0].text).toMatch(/due June 30, 2026, is 31 days late and not received; more than 30 days/);
    expect(day31.inSncCount).toBe(4);
  });
});

describe("the published list (SUL 1122)", () => {
  it("only the Operator or an administrator publishes, once the period has ended, once; anyone reads it, without trade-secret text", async () => {
    expect(errorCode(await clerk.gql(PUBLISH, { d: lakeview.id, s: "2026-01-01" }))).toBe("FORBIDDEN");
    expect(errorCode(await board.gql(PUBLISH, { d: lakeview.id, s: "2026-01-01" }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedIn(DEMO.applicant)).gql(PUBLISH, { d: lakeview.id, s: "2026-01-01" }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedIn(HURON_OPERATOR)).gql(PUBLISH, { d: lakeview.id, s: "2026-01-01" }))).toBe("FORBIDDEN");
    // Huron's law publishes no list
    expect(errorCode(await (await signedIn(HURON_OPERATOR)).gql(PUBLISH, { d: huron.id, s: "2026-01-01" }))).toBe("CONFLICT");
    // the current period has not ended
    const open = await operator.gql(PUBLISH, { d: lakeview.id, s: "2026-07-01" });
    expect(errorCode(open)).toBe("CONFLICT");
    expect(open.errors![0].message).toMatch(/can be published from January 1, 2027/);

    expect((await operator.ok(DASH, { d: lakeview.id, s: "2026-01-01" })).industrialSncDashboard.canPublish).toBe(true);
    // the owner of one listed organization hears of it from the district
    await db().query(
      `INSERT INTO membership (organization_id, user_id, role) SELECT o.id, u.id, 'OWNER' FROM organization o, app_user u WHERE o.name = 'Tardy Tanning' AND u.email = $1`,
      [DEMO.applicant],
    );
    // ... and another's Authorized Representative hears of its own listing only; a plain member is not written to
    await db().query(
      `INSERT INTO membership (organization_id, user_id, role) SELECT o.id, u.id, r.role FROM organization o, app_user u, (VALUES ($2, 'Copper Works'), ($3, 'Brewery Thirty-Three')) r(role, org)
        WHERE o.name = r.org AND u.email = $1`,
      [DEMO.huronClerk, "AUTHORIZED_REPRESENTATIVE", "MEMBER"],
    );
    const { publishSncList: p } = await operator.ok(PUBLISH, { d: lakeview.id, s: "2026-01-01" });
    const mail = await db().query(`SELECT subject, body_text FROM outbox_email WHERE kind = 'industrial.snc_listed' AND to_address = $1`, [DEMO.applicant]);
    expect(mail).toHaveLength(1);
    const other = await db().query(`SELECT subject FROM outbox_email WHERE kind = 'industrial.snc_listed' AND to_address = $1`, [DEMO.huronClerk]);
    expect(other.map((m: { subject: string }) => m.subject.split(" is on ")[0])).toEqual(["Copper Works"]);
    expect(mail[0].subject).toMatch(/^Tardy Tanning is on .*'s published list of significant non-compliance, January 1, 2026 to June 30, 2026$/);
    expect(mail[0].body_text).toMatch(/Sewer Use Law 201, 1122/);
    expect(mail[0].body_text).toMatch(/\/public-records\/snc/);
    expect(p).toMatchObject({ periodStart: "2026-01-01", periodEnd: "2026-06-30", publishedOn: "2026-07-31", section: "Sewer Use Law 1122" });
    expect(errorCode(await operator.gql(PUBLISH, { d: lakeview.id, s: "2026-01-01" }))).toBe("CONFLICT");
    const after = (await clerk.ok(DASH, { d: lakeview.id, s: "2026-01-01" })).industrialSncDashboard;
    expect(after).toMatchObject({ canPublish: false, publication: { publishedOn: "2026-07-31" } });
    const [audit] = await db().query(`SELECT actor_id, details FROM audit_entry WHERE action = 'industrial.snc_list_published'`);
    expect(audit.details.organizations).toEqual(["Brewery Thirty-Three", "Chronic Sixty-Six Inc", "Copper Works", "Tardy Tanning"]);

    // Anyone, signed out, reads it
    const { publishedSncLists } = await anon.ok(PUBLIC, { slug: "lakeview" });
    expect(publishedSncLists).toHaveLength(1);
    const list = publishedSncLists[0];
    expect(list).toMatchObject({ districtName: expect.any(String), periodStart: "2026-01-01", periodEnd: "2026-06-30", publishedOn: "2026-07-31" });
    expect(list.listings.map((l: any) => [l.organizationName, l.criteria])).toEqual([
      ["Brewery Thirty-Three", ["TRC"]],
      ["Chronic Sixty-Six Inc", ["CHRONIC"]],
      ["Copper Works", ["TRC"]],
      ["Tardy Tanning", ["LATE_REPORT"]],
    ]);
    expect(list.listings[0].permitNumbers).toEqual([trc33.number]);
    expect(JSON.stringify(publishedSncLists)).not.toMatch(/brightener/i);
    expect((await anon.ok(PUBLIC, { slug: "huron" })).publishedSncLists).toEqual([]);

    // Frozen: later data does not change it, and nothing can edit it
    await seedPermit("Latecomer Chrome", [zinc(3, 2.0, "EXCEEDS")]);
    expect((await anon.ok(PUBLIC, { slug: "lakeview" })).publishedSncLists[0].listings).toHaveLength(4);
    await expect(db().query(`UPDATE industrial_snc_listing SET organization_name = 'x'`)).rejects.toThrow(/cannot be changed/);
    await expect(db().query(`DELETE FROM industrial_snc_publication`)).rejects.toThrow(/cannot be changed/);
  });
});

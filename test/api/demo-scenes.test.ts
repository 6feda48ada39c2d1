import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { DEMO_CONTRACTOR } from "../../api/db/demo-scene-contractors.js";
import { DEMO_ENFORCEMENT } from "../../api/db/demo-scene-enforcement.js";
import { DEMO_RENTS, quarterStart } from "../../api/db/demo-scene-rents.js";
import { DEMO_INDUSTRY, loadDemoScenes } from "../../api/db/demo-scenes.js";
import { Client, startTestServer, type TestServer } from "../harness.js";

/** `npm start`'s demo scenes: the demo industrial user's permit, issued four months ago, with a report open for results; the demo contractor; the demo applicant's fines. */

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

describe("the demo applicant's fines", () => {
  const ACTIONS = `{ myEnforcementActions { id kind number status section servedOn correctBy answerDueOn petitionDueOn petitionDaysLeft petitionTo final canPetition finalExplanation
    fineTotalCents fineDays { date amountCents } escalatesId district { slug timeZone } charge { status amountCents } prosecution { continuedDays referredOn judgment law } } }`;
  it("has a fine in Lakeview with the petition window open (SUL 1105, 1104-1108) and, in Huron, a notice whose time to correct has passed, referred to the court with nothing to pay (Huron V-1, V-2)", async () => {
    const applicant = new Client(srv.url);
    await applicant.signIn(DEMO_ENFORCEMENT.respondent);
    const { myEnforcementActions: actions } = await applicant.ok(ACTIONS);
    expect(actions).toHaveLength(3); // a second start added none
    const of = (slug: string, kind: string) => actions.filter((a: any) => a.district.slug === slug && a.kind === kind);
    const today = (a: any) => dateIn(a.district.timeZone);

    const [lvNotice] = of("lakeview", "NOTICE_OF_VIOLATION");
    const [lvFine] = of("lakeview", "FINE");
    expect(lvNotice.servedOn).toBe(addCalendarDays(today(lvNotice), -12));
    expect(lvNotice.answerDueOn).toBe(addCalendarDays(lvNotice.servedOn, 10)); // SUL 1102
    expect(lvFine).toMatchObject({ status: "SERVED", section: "Sewer Use Law 1105", escalatesId: lvNotice.id, petitionTo: "TOWN_BOARD", final: false, canPetition: true, fineTotalCents: 75_000, charge: { status: "OPEN", amountCents: 75_000 } });
    expect(lvFine.servedOn).toBe(addCalendarDays(today(lvFine), -3));
    expect(lvFine.petitionDueOn).toBe(addCalendarDays(lvFine.servedOn, 15));
    expect(lvFine.petitionDaysLeft).toBe(12);
    expect(lvFine.fineDays.every((d: any) => d.date <= lvFine.servedOn && d.amountCents === 25_000)).toBe(true); // the SUL's minimum a day

    const [hNotice] = of("huron", "NOTICE_OF_VIOLATION");
    expect(of("huron", "FINE")).toEqual([]); // Huron V-2: only a court fines, on conviction
    expect(hNotice.correctBy).toBe(addCalendarDays(hNotice.servedOn, 7));
    expect(hNotice.answerDueOn).toBeNull(); // Huron V-1 asks for no answer
    expect(hNotice.charge).toBeNull();
    expect(hNotice.prosecution).toMatchObject({ referredOn: today(hNotice), judgment: null, continuedDays: [1, 2, 3].map((i) => addCalendarDays(hNotice.correctBy, i)) });
    expect(hNotice.prosecution.law).toContain('"shall be guilty of a violation and, on conviction thereof, shall be fined in an amount not exceeding $200.00 for each violation"');

    // Both fines are on the dashboard, each task linking to its action.
    const { myDashboard } = await applicant.ok(`{ myDashboard { items { kind id nextStep nextStepHref daysLeft } } }`);
    const tasks = myDashboard.items.filter((i: any) => i.kind === "EnforcementAction");
    expect(tasks.find((i: any) => i.id === lvFine.id)).toMatchObject({ nextStep: "Pay the fine of $750.00 or petition the Town Board", nextStepHref: `/enforcement/${lvFine.id}`, daysLeft: 12 });
    expect(tasks.some((i: any) => /^Pay/.test(i.nextStep) && i.id === hNotice.id)).toBe(false); // nothing to pay in Huron before a conviction

    // Filed within the window, the Lakeview petition is accepted.
    const filed = await applicant.ok(`mutation($i: FilePetitionInput!) { filePetition(input: $i) { status } }`, { i: { actionId: lvFine.id, grounds: "The leaders were disconnected the day after the notice.", relief: "MODIFY" } });
    expect(filed.filePetition.status).toBe("FILED");
  });
});

describe("the demo sewer rents", () => {
  it("each district's Board schedule, a few properties and the last quarter's bills issued; the applicant's own bill in each, with its use; a second start added nothing", async () => {
    const applicant = new Client(srv.url);
    await applicant.signIn(DEMO_RENTS.homeowner);
    const { myServiceProperties: mine, mySewerBills: bills } = await applicant.ok(`{ myServiceProperties { districtName address accounts { id } } mySewerBills { id number districtName address totalCents dueOn } }`);
    expect(mine.map((p: any) => p.address).sort()).toEqual([expect.stringMatching(/^14 Maple Street, Lakeview/), expect.stringMatching(/^8 Lakeshore Drive, Huron/)]);
    expect(bills).toHaveLength(2);
    for (const [slug, scene] of [["lakeview", DEMO_RENTS.lakeview], ["huron", DEMO_RENTS.huron]] as const) {
      const [d] = await srv.running.ds.query(`SELECT id, time_zone FROM district WHERE slug = $1`, [slug]);
      const today = dateIn(d.time_zone);
      const [{ n: properties }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM sewer_property WHERE district_id = $1`, [d.id]);
      expect(properties).toBe(scene.properties.length);
      const [{ n: reads }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM meter_reading WHERE district_id = $1`, [d.id]);
      expect(reads).toBe(3 * scene.properties.length); // a baseline and two quarters, once
      const runs = await srv.running.ds.query(`SELECT status, period_start::text, mailed_on::text, bill_count FROM bill_run WHERE district_id = $1`, [d.id]);
      expect(runs).toEqual([{ status: "ISSUED", period_start: quarterStart(today, 1), mailed_on: today, bill_count: expect.any(Number) }]);
    }
    // Lakeview (SUL 1203): the fixed part and the metered water; due 20 days after billing (1118).
    const lv = bills.find((b: any) => b.address.startsWith("14 Maple Street"));
    const { sewerBill: bill } = await applicant.ok(`query($id: ID!) { sewerBill(id: $id) { mailedOn dueOn gallons lines { kind section } usage { gallons } } }`, { id: lv.id });
    expect(bill.lines.map((l: any) => [l.kind, l.section])).toEqual([["FIXED", "Sewer Use Law 1203"], ["VOLUME", "Sewer Use Law 1203"]]);
    expect(bill.gallons).toBe(DEMO_RENTS.lakeview.properties[0].gallons[1]);
    expect(bill.dueOn).toBe(addCalendarDays(bill.mailedOn, 20));
    // Huron (VI-2, VII): two users behind one meter each pay the minimum and the owner the excess; due 15 days after mailing (VI-3).
    const hu = bills.find((b: any) => b.address.startsWith("8 Lakeshore Drive"));
    const { sewerBill: hb } = await applicant.ok(`query($id: ID!) { sewerBill(id: $id) { mailedOn dueOn lines { kind amountCents } } }`, { id: hu.id });
    expect(hb.lines[0]).toEqual({ kind: "MINIMUM", amountCents: 4_500 });
    expect(hb.dueOn).toBe(addCalendarDays(hb.mailedOn, 15));
    const [{ n: excess }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM bill WHERE kind = 'OWNER_EXCESS' AND status <> 'PREVIEW'`);
    expect(excess).toBe(1);
    // The run page's flagged bill: the Lakeview account whose use is far from its own history.
    const [{ flags }] = await srv.running.ds.query(
      `SELECT b.flags FROM bill b JOIN service_account_meter sam ON sam.account_id = b.account_id JOIN service_meter m ON m.id = sam.meter_id WHERE m.meter_number = 'LV-31020'`,
    );
    expect(flags.map((f: { code: string }) => f.code)).toEqual(["FAR_FROM_HISTORY"]);
  });
});

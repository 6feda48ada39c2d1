import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { clearMicroCache } from "../../api/graphql/micro-cache.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer, isSessionBookkeeping, signedInAs } from "../harness.js";

/**
 * Enforcement over HTTP (SUL Article 11; Huron Article V) and delinquent charges (SUL 1118;
 * Huron VI-3, VI-4), with the rules' clock moved to the days the law counts.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let operator: Client;
let board: Client;
let clerk: Client;
let huronOperator: Client;
let huronClerk: Client;
let huronBoard: Client;

const NY_NOON = (date: string) => `${date}T17:00:00Z`; // noon in New York (EST), 13:00 in summer

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [operator, board, clerk, huronOperator, huronClerk, huronBoard] = await Promise.all(
    [DEMO.lakeviewOperator, DEMO.lakeviewBoard, DEMO.lakeviewClerk, "operator@huron.demo.tapline.local", DEMO.huronClerk, "board@huron.demo.tapline.local"].map(signedIn),
  );
});
afterAll(() => srv?.close());
afterEach(() => resetClock());

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

let n = 0;
async function person(): Promise<{ c: Client; email: string }> {
  const c = new Client(srv.url);
  const email = `respondent${++n}@example.org`;
  await c.signUp(email, `Respondent ${n}`);
  return { c, email };
}
async function industrialUser(): Promise<{ c: Client; email: string; orgName: string; orgId: string }> {
  const p = await person();
  const orgName = `Acme Plating ${n}`;
  const { createOrganization } = await p.c.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: orgName, kind: "INDUSTRIAL_USER" } });
  return { ...p, orgName, orgId: createOrganization.id };
}

const A = `id number kind kindLabel status statusLabel respondentName violation requirements section correctBy servedOn answerDueOn answerDaysLeft
  petitionDueOn petitionDaysLeft petitionTo final finalByDefault finalOn finalExplanation canPetition escalatesId fineTotalCents originalFineTotalCents
  fineDays { date amountCents } reliefOptions { value } decisionOptions { value }
  petitions { id status relief grounds filedOn decidedByName decisionReasons newAmountCents canWithdraw canDecide documents { id filename }
    hearing { id scheduledFor hearingDate place noticeServedOn outcome outcomeReasons newAmountCents orderedByName decidedByName } }
  charge { id number amountCents billedOn status paymentId statement { totalCents delinquent lines { code amountCents } } }`;
const CREATE = `mutation($i: CreateEnforcementActionInput!) { createEnforcementAction(input: $i) { ${A} } }`;
const GET = `query($id: ID!) { enforcementAction(id: $id) { ${A} } }`;
const PETITION = `mutation($i: FilePetitionInput!) { filePetition(input: $i) { id status filedOn } }`;
const DECIDE = `mutation($i: DecidePetitionInput!) { decidePetition(input: $i) { id status decidedByName decisionReasons } }`;
const HEARING = `mutation($i: OrderShowCauseHearingInput!) { orderShowCauseHearing(input: $i) { id hearingDate noticeServedOn scheduledFor orderedByName } }`;
const DECIDE_HEARING = `mutation($i: DecideHearingInput!) { decideShowCauseHearing(input: $i) { id outcome newAmountCents decidedByName } }`;
const STATEMENT = `query($id: ID!) { charge(id: $id) { id status amountCents billedOn statement { asOf dueOn lastDayWithoutPenalty daysSinceBilling delinquent daysDelinquent interestMonths totalCents violationSince lines { code label section amountCents } } } }`;

const days = (first: string, count: number, cents: number) =>
  Array.from({ length: count }, (_, i) => ({ date: new Date(Date.parse(`${first}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10), amountCents: cents }));

async function fine(respondent: { orgName?: string; email?: string }, servedOn: string, perDay = 50000, count = 3, c = operator, districtId = lakeview.id, extra: Record<string, unknown> = {}) {
  const i = {
    districtId,
    kind: "FINE",
    ...(respondent.orgName ? { respondentOrganizationName: respondent.orgName } : { respondentEmail: respondent.email }),
    violation: "Chromium above the daily maximum on three days",
    fineDays: days(addDays(servedOn, -count), count, perDay),
    ...extra,
  };
  return c.gql(CREATE, { i });
}
function addDays(date: string, d: number) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + d * 86_400_000).toISOString().slice(0, 10);
}

describe("serving actions", () => {
  it("computes a fine by day within $250-$1,000 a day (SUL 1105) and refuses anything outside", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await industrialUser();
    const ok = await fine(u, "2026-11-02", 50000, 3);
    expect(ok.errors).toBeUndefined();
    const a = ok.data.createEnforcementAction;
    expect(a.fineTotalCents).toBe(150000);
    expect(a.fineDays).toEqual(days("2026-10-30", 3, 50000));
    expect(a.section).toBe("Sewer Use Law 1105");
    expect(a.number).toMatch(/^LKV-EA-2026-\d{4}$/);
    expect(a.charge).toMatchObject({ amountCents: 150000, billedOn: "2026-11-02", status: "OPEN" });
    expect(a.petitionTo).toBe("TOWN_BOARD");

    const under = await fine(u, "2026-11-02", 24999, 1);
    expect(errorCode(under)).toBe("BAD_USER_INPUT");
    expect(under.errors![0].extensions!.fields!.fineDays).toContain("at least $250.00 and at most $1,000.00 (Sewer Use Law 1105)");
    const over = await fine(u, "2026-11-02", 100001, 1);
    expect(errorCode(over)).toBe("BAD_USER_INPUT");
    expect(over.errors![0].extensions!.fields!.fineDays).toContain("$1,000.01");
    expect((await fine(u, "2026-11-02", 25000, 1)).errors).toBeUndefined();
    expect((await fine(u, "2026-11-02", 100000, 1)).errors).toBeUndefined();
    // The same day twice is one violation, not two.
    const twice = await operator.gql(CREATE, { i: { districtId: lakeview.id, kind: "FINE", respondentOrganizationName: u.orgName, violation: "x", fineDays: [...days("2026-10-01", 1, 30000), ...days("2026-10-01", 1, 30000)] } });
    expect(twice.errors![0].extensions!.fields!.fineDays).toContain("listed twice");
  });

  it("is the District Operator's alone, in the operator's own district", async () => {
    const u = await person();
    expect(errorCode(await fine(u, "2026-11-02", 50000, 1, board))).toBe("FORBIDDEN");
    expect(errorCode(await fine(u, "2026-11-02", 50000, 1, clerk))).toBe("FORBIDDEN");
    expect(errorCode(await fine(u, "2026-11-02", 50000, 1, huronOperator))).toBe("FORBIDDEN");
    expect(errorCode(await fine(u, "2026-11-02", 50000, 1, u.c))).toBe("FORBIDDEN");
    const noone = await operator.gql(CREATE, { i: { districtId: lakeview.id, kind: "FINE", respondentEmail: "nobody@example.org", violation: "x", fineDays: days("2026-10-01", 1, 30000) } });
    expect(noone.errors![0].extensions!.fields!.respondentEmail).toContain("No account");
  });

  it("Huron: the Superintendent serves the written notice only; a fine is the court's, on conviction (Huron V-1, V-2)", async () => {
    travelTo(NY_NOON("2026-09-01"));
    const u = await person();
    // Huron V-2: "on conviction thereof, shall be fined": no administrative fine, refused beside the kind.
    const direct = await fine(u, "2026-09-01", 20000, 1, huronOperator, huron.id);
    expect(errorCode(direct)).toBe("BAD_USER_INPUT");
    expect(direct.errors![0].extensions!.fields!.kind).toBe(
      "In Town of Huron Sewer District No. 1 a fine is imposed by a court on conviction, not served by the District Operator (Huron V-2): once the notice's time to correct has passed, refer the violation for prosecution from the notice's page.",
    );
    // Huron's law has only the written notice (V-1, V-4): no order of the SUL's kinds.
    const order = await huronOperator.gql(CREATE, { i: { districtId: huron.id, kind: "CONSENT_ORDER", respondentEmail: u.email, violation: "x", requirements: "y", correctBy: "2026-10-01" } });
    expect(order.errors![0].extensions!.fields!.kind).toBe("The Town of Huron Sewer Law for Sewer District No. 1 provides no consent order: serve a notice of violation (Huron Article V).");
    const kinds = async (d: string) => (await huronOperator.ok(`query($d: ID!) { enforcementRules(districtId: $d) { kinds { kind } } }`, { d })).enforcementRules.kinds.map((k: any) => k.kind);
    expect(await kinds(huron.id)).toEqual(["NOTICE_OF_VIOLATION"]);
    expect(await kinds(lakeview.id)).toHaveLength(8);
    // The notice gives a reasonable time to correct (Huron has no fixed number of days).
    const noTime = await huronOperator.gql(CREATE, { i: { districtId: huron.id, kind: "NOTICE_OF_VIOLATION", respondentEmail: u.email, violation: "Roof leader connected to the sewer" } });
    expect(noTime.errors![0].extensions!.fields!.correctBy).toContain("Huron V-1");
    const notice = (
      await huronOperator.ok(CREATE, { i: { districtId: huron.id, kind: "NOTICE_OF_VIOLATION", respondentEmail: u.email, violation: "Roof leader connected to the sewer", correctBy: "2026-09-15" } })
    ).createEnforcementAction;
    // Huron's notice asks that the violation cease by its date (V-1), not for an explanation and a plan (SUL 1102).
    expect(notice).toMatchObject({ section: "Huron V-1", correctBy: "2026-09-15", answerDueOn: null, petitionDueOn: null });
    // Even as a follow-up of the notice, no fine is served in Huron (test/api/enforcement-prosecution.test.ts has the referral and the court's judgment).
    travelTo(NY_NOON("2026-09-20"));
    const followUp = await fine(u, "2026-09-20", 20000, 3, huronOperator, huron.id, { escalatesId: notice.id });
    expect(followUp.errors![0].extensions!.fields!.kind).toContain("(Huron V-2)");
  });
});

describe("deadlines are calendar dates in the district's zone (SUL 1111: given on mailing)", () => {
  const cases: [string, string, string][] = [
    ["across a month end", "2026-01-25", "2026-02-09"],
    ["across the year end", "2026-12-20", "2027-01-04"],
    ["through a leap day", "2028-02-20", "2028-03-06"],
    ["from a leap day", "2028-02-29", "2028-03-15"],
    ["in a common year's February", "2027-02-20", "2027-03-07"],
    ["across the end of daylight-saving time", "2026-10-25", "2026-11-09"],
    ["across the start of daylight-saving time", "2027-03-05", "2027-03-20"],
  ];
  for (const [what, served, due] of cases)
    it(`petition window ${what}: served ${served}, last day ${due}`, async () => {
      travelTo(NY_NOON(served));
      const u = await person();
      const a = (await fine(u, served, 30000, 1)).data.createEnforcementAction;
      expect(a.servedOn).toBe(served);
      expect(a.petitionDueOn).toBe(due);
      expect(a.petitionDaysLeft).toBe(15);
    });

  it("counts days left by the New York calendar, not UTC, on both sides of the DST change", async () => {
    travelTo(NY_NOON("2026-10-25"));
    const u = await person();
    const a = (await fine(u, "2026-10-25", 30000, 1)).data.createEnforcementAction;
    // 23:30 on November 8 in New York (EST, UTC-5) is already November 9 in UTC: one day left.
    travelTo("2026-11-09T04:30:00Z");
    expect((await u.c.ok(GET, { id: a.id })).enforcementAction.petitionDaysLeft).toBe(1);
    travelTo("2026-11-09T05:30:00Z");
    expect((await u.c.ok(GET, { id: a.id })).enforcementAction.petitionDaysLeft).toBe(0);
    // Served late in the evening in New York: still that day, though UTC has moved on.
    travelTo("2026-10-26T03:30:00Z"); // 23:30 EDT on October 25
    const late = (await fine(u, "2026-10-25", 30000, 1)).data.createEnforcementAction;
    expect(late.servedOn).toBe("2026-10-25");
  });

  it("a notice of violation is answered within 10 calendar days of mailing (SUL 1102)", async () => {
    travelTo(NY_NOON("2026-11-25"));
    const u = await person();
    const a = (await operator.ok(CREATE, { i: { districtId: lakeview.id, kind: "NOTICE_OF_VIOLATION", respondentEmail: u.email, violation: "Sump pump discharging to the sewer" } })).createEnforcementAction;
    expect(a).toMatchObject({ answerDueOn: "2026-12-05", answerDaysLeft: 10, petitionDueOn: null, final: false });
    const R = `mutation($i: RespondToNoticeInput!) { respondToNotice(input: $i) { respondedAt } }`;
    expect(errorCode(await u.c.gql(R, { i: { actionId: a.id, explanation: "", correctionPlan: "" } }))).toBe("BAD_USER_INPUT");
    expect((await u.c.ok(R, { i: { actionId: a.id, explanation: "The plumber connected it in 2019.", correctionPlan: "Reroute to the yard by December 1." } })).respondToNotice.respondedAt).toBeTruthy();
    expect(errorCode(await u.c.gql(R, { i: { actionId: a.id, explanation: "again", correctionPlan: "again" } }))).toBe("CONFLICT");
  });
});

describe("petitions (SUL 1104-1108) and default (SUL 1110)", () => {
  it("accepts a petition on day 15 and refuses one on day 16 with the date the window closed", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await industrialUser();
    const a = (await fine(u, "2026-11-02")).data.createEnforcementAction;
    const b = (await fine(u, "2026-11-02")).data.createEnforcementAction;
    travelTo(NY_NOON("2026-11-17")); // day 15
    const p = await u.c.ok(PETITION, { i: { actionId: a.id, grounds: "The meter was miscalibrated.", relief: "MODIFY" } });
    expect(p.filePetition).toMatchObject({ status: "FILED", filedOn: "2026-11-17" });
    const after = (await u.c.ok(GET, { id: a.id })).enforcementAction;
    expect(after).toMatchObject({ status: "UNDER_PETITION", final: false, canPetition: false });
    expect(after.charge.status).toBe("HELD");
    // One open petition per action.
    expect(errorCode(await u.c.gql(PETITION, { i: { actionId: a.id, grounds: "again", relief: "MODIFY" } }))).toBe("CONFLICT");

    travelTo("2026-11-18T05:01:00Z"); // 00:01 on November 18 in New York: day 16
    const late = await u.c.gql(PETITION, { i: { actionId: b.id, grounds: "Too late", relief: "MODIFY" } });
    expect(errorCode(late)).toBe("DEADLINE_PASSED");
    expect(late.errors![0].message).toContain("closed on 2026-11-17");
  });

  it("makes the action final by default once the window closes without a petition, and says so", async () => {
    travelTo(NY_NOON("2026-03-01"));
    const u = await industrialUser();
    const home = await person();
    const a = (await fine(u, "2026-03-01")).data.createEnforcementAction;
    const h = (await fine(home, "2026-03-01")).data.createEnforcementAction;
    travelTo(NY_NOON("2026-03-16"));
    expect((await u.c.ok(GET, { id: a.id })).enforcementAction).toMatchObject({ final: false, canPetition: true, petitionDaysLeft: 0 });
    const PUBLIC = `query($s: String!) { publicEnforcementActions(districtSlug: $s) { number respondentName finalOn fineTotalCents } }`;
    const anon = new Client(srv.url);
    expect((await anon.ok(PUBLIC, { s: "lakeview" })).publicEnforcementActions.map((x: any) => x.number)).not.toContain(a.number);
    travelTo(NY_NOON("2026-03-17"));
    const fin = (await u.c.ok(GET, { id: a.id })).enforcementAction;
    expect(fin).toMatchObject({ final: true, finalByDefault: true, finalOn: "2026-03-17", canPetition: false, statusLabel: "Served" });
    expect(fin.finalExplanation).toContain("right to contest is waived");
    // Public record for the industrial user; the homeowner's fine is not.
    const listed = (await anon.ok(PUBLIC, { s: "lakeview" })).publicEnforcementActions.map((x: any) => x.number);
    expect(listed).toContain(a.number);
    expect(listed).not.toContain(h.number);
  });

  it("a petition about someone else's fine is NOT_FOUND, and so is reading it", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await industrialUser();
    const a = (await fine(u, "2026-11-02")).data.createEnforcementAction;
    const stranger = await person();
    expect(errorCode(await stranger.c.gql(PETITION, { i: { actionId: a.id, grounds: "Not mine", relief: "MODIFY" } }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.c.gql(GET, { id: a.id }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.c.gql(`mutation($id: ID!) { payCharge(id: $id) { id } }`, { id: a.charge.id }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.c.gql(STATEMENT, { id: a.charge.id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(GET, { id: a.id }))).toBe("NOT_FOUND");
    expect(await stranger.c.ok(`{ myEnforcementActions { id } }`)).toEqual({ myEnforcementActions: [] });
    // Organization members see what was served on the organization.
    expect((await u.c.ok(`{ myEnforcementActions { id } }`)).myEnforcementActions.map((x: any) => x.id)).toContain(a.id);
    const p = (await u.c.ok(PETITION, { i: { actionId: a.id, grounds: "Mine", relief: "SUSPEND" } })).filePetition;
    expect(errorCode(await stranger.c.gql(`query($id: ID!) { petition(id: $id) { id } }`, { id: p.id }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.c.gql(`mutation($id: ID!) { withdrawPetition(id: $id) { id } }`, { id: p.id }))).toBe("NOT_FOUND");
    // Withdrawal puts the fine back as it was.
    const w = (await u.c.ok(`mutation($id: ID!) { withdrawPetition(id: $id) { id status } }`, { id: p.id })).withdrawPetition;
    expect(w.status).toBe("WITHDRAWN");
    expect((await u.c.ok(GET, { id: a.id })).enforcementAction).toMatchObject({ status: "SERVED", canPetition: true, charge: { status: "OPEN", billedOn: "2026-11-02" } });
  });

  it("decisions need the BOARD role of the district, and record the member", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await industrialUser();
    const a = (await fine(u, "2026-11-02")).data.createEnforcementAction;
    const p = (await u.c.ok(PETITION, { i: { actionId: a.id, grounds: "First offence", relief: "MODIFY" } })).filePetition;
    const i = { petitionId: p.id, decision: "MODIFY", reasons: "First offence", newAmountCents: 75000 };
    expect(errorCode(await operator.gql(DECIDE, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(DECIDE, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await u.c.gql(DECIDE, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await huronBoard.gql(DECIDE, { i }))).toBe("NOT_FOUND");
    const hi = { petitionId: p.id, scheduledFor: "2026-12-20T19:00", place: "Town Hall", reasons: "x", proposedAction: "x" };
    expect(errorCode(await operator.gql(HEARING, { i: hi }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(HEARING, { i: hi }))).toBe("FORBIDDEN");
    // A modified fine stays within the law: 3 days at $250-$1,000 a day.
    const low = await board.gql(DECIDE, { i: { ...i, newAmountCents: 74999 } });
    expect(low.errors![0].extensions!.fields!.newAmountCents).toContain("between $750.00 and $3,000.00");
    expect(errorCode(await board.gql(DECIDE, { i: { ...i, reasons: " " } }))).toBe("BAD_USER_INPUT");
    // No decision chosen and no reasons: both at once, the choices in words, never their codes.
    const none = (await board.gql(DECIDE, { i: { petitionId: p.id, decision: "", reasons: "" } })).errors![0].extensions!.fields!;
    expect(none).toEqual({ decision: "Choose one of: reject as frivolous, modify, suspend; or order a show-cause hearing.", reasons: "Give the written reasons for the decision." });
    travelTo(NY_NOON("2026-11-20"));
    const d = (await board.ok(DECIDE, { i })).decidePetition;
    expect(d).toMatchObject({ status: "MODIFIED", decidedByName: "Bea Board (Lakeview)", decisionReasons: "First offence" });
    const after = (await u.c.ok(GET, { id: a.id })).enforcementAction;
    expect(after).toMatchObject({ status: "FINAL", final: true, fineTotalCents: 75000, originalFineTotalCents: 150000 });
    expect(after.fineDays.map((x: any) => x.amountCents)).toEqual([25000, 25000, 25000]);
    expect(after.charge).toMatchObject({ amountCents: 75000, billedOn: "2026-11-20", status: "OPEN" });
    expect(errorCode(await board.gql(DECIDE, { i }))).toBe("CONFLICT");
  });
});

describe("show-cause hearings (SUL 1109)", () => {
  it("needs 10 calendar days' notice, decides only after the hearing, and a modified fine is paid online at the new amount", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await industrialUser();
    const a = (await fine(u, "2026-11-02")).data.createEnforcementAction;
    travelTo(NY_NOON("2026-11-17"));
    const p = (await u.c.ok(PETITION, { i: { actionId: a.id, grounds: "We fixed the rinse tank on day one.", relief: "MODIFY" } })).filePetition;
    travelTo(NY_NOON("2026-11-18"));
    const base = { petitionId: p.id, place: "Lakeview Town Hall, 210 Harbor Road", reasons: "Three days above the chromium limit", proposedAction: "Fine of $1,500.00", informationRequested: "Sampling records" };
    const nine = await board.gql(HEARING, { i: { ...base, scheduledFor: "2026-11-27T19:00" } });
    expect(errorCode(nine)).toBe("BAD_USER_INPUT");
    expect(nine.errors![0].extensions!.fields!.scheduledFor).toContain("at least 10 calendar days before the hearing (Sewer Use Law 1109)");
    expect(nine.errors![0].extensions!.fields!.scheduledFor).toContain("2026-11-28");
    const h = (await board.ok(HEARING, { i: { ...base, scheduledFor: "2026-11-28T19:00" } })).orderShowCauseHearing;
    expect(h).toMatchObject({ hearingDate: "2026-11-28", noticeServedOn: "2026-11-18", orderedByName: "Bea Board (Lakeview)" });
    expect(h.scheduledFor).toBe("2026-11-29T00:00:00.000Z"); // 19:00 EST
    expect(errorCode(await board.gql(DECIDE, { i: { petitionId: p.id, decision: "REJECT", reasons: "x" } }))).toBe("CONFLICT");

    // The respondent sees the notice and gets it as a calendar file.
    const seen = (await u.c.ok(GET, { id: a.id })).enforcementAction;
    expect(seen.petitions[0]).toMatchObject({ status: "HEARING_ORDERED", hearing: { place: base.place, outcome: null } });
    const ics = (await u.c.ok(`query($id: ID!) { hearingIcs(id: $id) }`, { id: h.id })).hearingIcs;
    expect(ics).toContain("BEGIN:VEVENT");
    expect(ics).toContain("DTSTART:20261129T000000Z");
    expect(ics).toContain("LOCATION:Lakeview Town Hall\\, 210 Harbor Road");
    expect(errorCode(await (await person()).c.gql(`query($id: ID!) { hearingIcs(id: $id) }`, { id: h.id }))).toBe("NOT_FOUND");
    const cal = (await clerk.ok(`query($d: ID!, $f: String) { hearingCalendar(districtId: $d, from: $f) { id actionNumber } }`, { d: lakeview.id, f: "2026-11-01" })).hearingCalendar;
    expect(cal.map((x: any) => x.id)).toContain(h.id);

    const DH = { hearingId: h.id, outcome: "MODIFIED", reasons: "Prompt correction; first offence.", newAmountCents: 75000 };
    expect(errorCode(await board.gql(DECIDE_HEARING, { i: DH }))).toBe("CONFLICT"); // before the hearing
    travelTo("2026-11-29T02:00:00Z");
    expect(errorCode(await operator.gql(DECIDE_HEARING, { i: DH }))).toBe("FORBIDDEN");
    const d = (await board.ok(DECIDE_HEARING, { i: DH })).decideShowCauseHearing;
    expect(d).toMatchObject({ outcome: "MODIFIED", newAmountCents: 75000, decidedByName: "Bea Board (Lakeview)" });
    const fin = (await u.c.ok(GET, { id: a.id })).enforcementAction;
    expect(fin).toMatchObject({ status: "FINAL", fineTotalCents: 75000, charge: { amountCents: 75000, billedOn: "2026-11-28", status: "OPEN" } });
    expect(fin.petitions[0]).toMatchObject({ status: "MODIFIED", decidedByName: "Bea Board (Lakeview)", hearing: { outcome: "MODIFIED", outcomeReasons: DH.reasons } });

    // Pay the new amount online (the test checkout).
    const pay = (await u.c.ok(`mutation($id: ID!) { payCharge(id: $id) { id amountCents status } }`, { id: fin.charge.id })).payCharge;
    expect(pay).toMatchObject({ amountCents: 75000, status: "PENDING" });
    // Asking again returns the same payment.
    expect((await u.c.ok(`mutation($id: ID!) { payCharge(id: $id) { id } }`, { id: fin.charge.id })).payCharge.id).toBe(pay.id);
    const { startCheckout } = await u.c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: pay.id });
    const done = await u.c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { status } }`, { s: startCheckout.url.split("/").pop() });
    expect(done.completeTestCheckout.status).toBe("PAID");
    expect((await u.c.ok(STATEMENT, { id: fin.charge.id })).charge.status).toBe("PAID");
    expect(errorCode(await u.c.gql(`mutation($id: ID!) { payCharge(id: $id) { id } }`, { id: fin.charge.id }))).toBe("CONFLICT");
  });
});

describe("delinquent charges", () => {
  const BILL = `mutation($i: BillChargeInput!) { billCharge(input: $i) { id number billedOn amountCents } }`;
  async function bill(c: Client, districtId: string, email: string, billedOn: string, amountCents = 10000, extra: Record<string, unknown> = {}) {
    return (await c.ok(BILL, { i: { districtId, respondentEmail: email, label: "Sewer rent, third quarter", amountCents, billedOn, ...extra } })).billCharge;
  }
  const statementOn = async (c: Client, id: string, date: string) => {
    travelTo(NY_NOON(date));
    return (await c.ok(STATEMENT, { id })).charge.statement;
  };

  it("SUL 1118: on time on day 20; day 21 adds 20% penalty and 2% a month back to the billing date; after three months", async () => {
    travelTo(NY_NOON("2026-01-15"));
    const u = await person();
    const ch = await bill(clerk, lakeview.id, u.email, "2026-01-15", 10000);
    const day20 = await statementOn(u.c, ch.id, "2026-02-04");
    expect(day20).toMatchObject({ daysSinceBilling: 20, delinquent: false, totalCents: 10000, lastDayWithoutPenalty: "2026-02-04", interestMonths: 0 });
    const day21 = await statementOn(u.c, ch.id, "2026-02-05");
    expect(day21).toMatchObject({ daysSinceBilling: 21, delinquent: true, daysDelinquent: 1, interestMonths: 1, totalCents: 12200 });
    expect(day21.lines).toEqual([
      { code: "charge", label: "Sewer rent, third quarter", section: "Sewer Use Law 1118", amountCents: 10000 },
      { code: "penalty", label: "Penalty, 20% of the original bill", section: "Sewer Use Law 1118", amountCents: 2000 },
      { code: "interest", label: "Interest, 2% a month for 1 month since January 15, 2026", section: "Sewer Use Law 1118", amountCents: 200 },
    ]);
    const three = await statementOn(u.c, ch.id, "2026-04-15");
    expect(three).toMatchObject({ interestMonths: 3, totalCents: 10000 + 2000 + 600 });
    const threeAndADay = await statementOn(u.c, ch.id, "2026-04-16");
    expect(threeAndADay).toMatchObject({ interestMonths: 4, totalCents: 10000 + 2000 + 800 });
    expect(three.violationSince).toBeNull();
    // Paying on a delinquent day charges what the statement says.
    const pay = (await u.c.ok(`mutation($id: ID!) { payCharge(id: $id) { amountCents lines { code amountCents } } }`, { id: ch.id })).payCharge;
    expect(pay.amountCents).toBe(12800);
  });

  it("SUL 1118 across a month end and a leap day: a bill of January 31 reaches months by the month's last day", async () => {
    travelTo(NY_NOON("2028-01-31"));
    const u = await person();
    const ch = await bill(clerk, lakeview.id, u.email, "2028-01-31", 12345);
    expect(await statementOn(u.c, ch.id, "2028-02-20")).toMatchObject({ delinquent: false, totalCents: 12345 });
    expect(await statementOn(u.c, ch.id, "2028-02-21")).toMatchObject({ delinquent: true, interestMonths: 1, totalCents: 12345 + 2469 + 247 });
    expect(await statementOn(u.c, ch.id, "2028-02-29")).toMatchObject({ interestMonths: 1 });
    expect(await statementOn(u.c, ch.id, "2028-03-01")).toMatchObject({ interestMonths: 2 });
  });

  it("Huron VI-3: due 15 days after mailing, 10% after 30 days in arrears, no interest, a violation after 60", async () => {
    travelTo(NY_NOON("2026-01-15"));
    const u = await person();
    const ch = await bill(huronClerk, huron.id, u.email, "2026-01-15", 10000);
    const day20 = await statementOn(u.c, ch.id, "2026-02-04");
    expect(day20).toMatchObject({ delinquent: false, totalCents: 10000, dueOn: "2026-01-30", lastDayWithoutPenalty: "2026-03-01" });
    expect(await statementOn(u.c, ch.id, "2026-02-05")).toMatchObject({ delinquent: false, totalCents: 10000 });
    expect(await statementOn(u.c, ch.id, "2026-03-01")).toMatchObject({ delinquent: false, totalCents: 10000 });
    const day46 = await statementOn(u.c, ch.id, "2026-03-02");
    expect(day46).toMatchObject({ delinquent: true, totalCents: 11000, interestMonths: 0, violationSince: null });
    expect(day46.lines[1]).toEqual({ code: "penalty", label: "Penalty, 10% of the original bill", section: "Huron VI-3", amountCents: 1000 });
    const three = await statementOn(u.c, ch.id, "2026-04-15");
    expect(three).toMatchObject({ delinquent: true, totalCents: 11000, interestMonths: 0, violationSince: "2026-04-01" });
    expect(three.lines.map((l: any) => l.code)).toEqual(["charge", "penalty"]);
  });

  it("the tax-levy report lists charges delinquent 60 days as of October 1 (SUL 1118), as CSV for the Clerk", async () => {
    travelTo(NY_NOON("2026-07-01"));
    const u = await person();
    const old = await bill(clerk, lakeview.id, u.email, "2026-07-01", 10000, { taxParcel: "101.12-1-7", propertyAddress: "12 Lake St" });
    travelTo(NY_NOON("2026-07-20"));
    const recent = await bill(clerk, lakeview.id, u.email, "2026-07-20", 10000);
    travelTo(NY_NOON("2026-10-15"));
    const Q = `query($d: ID!, $a: String) { taxLevyReport(districtId: $d, asOf: $a) { asOf reportDue minDaysDelinquent items { number statement { daysDelinquent totalCents } } csv } }`;
    const r = (await clerk.ok(Q, { d: lakeview.id })).taxLevyReport;
    expect(r).toMatchObject({ asOf: "2026-10-01", reportDue: "2026-11-01", minDaysDelinquent: 60 });
    const numbers = r.items.map((i: any) => i.number);
    expect(numbers).toContain(old.number); // last day without penalty July 21: 72 days delinquent on October 1
    expect(numbers).not.toContain(recent.number); // last day August 9: 53 days
    const line = r.csv.split("\r\n").find((l: string) => l.includes(old.number));
    expect(line).toContain('"101.12-1-7","12 Lake St","Sewer rent, third quarter","100.00","20.00","6.00","126.00","72"');
    expect(r.csv.startsWith('"Charge","Billed on"')).toBe(true);
    expect(errorCode(await operator.gql(Q, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await huronClerk.gql(Q, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await u.c.gql(Q, { d: lakeview.id }))).toBe("FORBIDDEN");
  });
});

describe("the Board's docket", () => {
  it("lists open petitions oldest first for the Board only, in the same SQL statements for 5 or 50 rows", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await industrialUser();
    for (let i = 0; i < 3; i++) {
      const a = (await fine(u, "2026-11-02")).data.createEnforcementAction;
      await u.c.ok(PETITION, { i: { actionId: a.id, grounds: `Ground ${i}`, relief: "MODIFY" } });
    }
    // Sixty more, as the service stores them.
    await srv.running.ds.query(
      `WITH g AS (SELECT generate_series(1, 60) AS k),
            src AS (SELECT * FROM enforcement_action WHERE district_id = $1 AND respondent_organization_id = $2 LIMIT 1),
            acts AS (INSERT INTO enforcement_action (district_id, number, kind, status, respondent_organization_id, respondent_name, violation, section, served_on, petition_due_on, petition_to, fine_days, fine_total_cents, original_fine_total_cents, rulebook_version_id, created_by_id)
                     SELECT s.district_id, 'BULK-' || g.k, 'FINE', 'UNDER_PETITION', s.respondent_organization_id, s.respondent_name, s.violation, s.section, s.served_on, s.petition_due_on, s.petition_to, s.fine_days, s.fine_total_cents, s.fine_total_cents, s.rulebook_version_id, s.created_by_id
                       FROM src s, g RETURNING id, created_by_id)
       INSERT INTO petition (action_id, district_id, addressed_to, relief, grounds, status, filed_by_id, filed_on, filed_at)
       SELECT acts.id, $1, 'TOWN_BOARD', 'MODIFY', 'Bulk', 'FILED', acts.created_by_id, '2026-11-03', now() + interval '1 minute'
         FROM acts`,
      [lakeview.id, u.orgId],
    );
    const Q = `query($d: ID!, $f: Int, $a: String) { petitionDocket(districtId: $d, first: $f, after: $a) { nextCursor items { petitionId statusLabel actionNumber actionKindLabel respondentName filedOn filedByName petitionDueOn fineTotalCents hearingAt documentCount } } }`;
    expect(errorCode(await clerk.gql(Q, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await huronBoard.gql(Q, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await u.c.gql(Q, { d: lakeview.id }))).toBe("FORBIDDEN");
    const ds = srv.running.ds;
    const logger = ds.logger as any;
    const original = logger.logQuery;
    let count = 0;
    logger.logQuery = function (...args: unknown[]) {
      if (!isSessionBookkeeping(args[0])) count++;
      return original.apply(this, args);
    };
    const statements = async (first: number) => {
      clearMicroCache();
      count = 0;
      const page = (await board.ok(Q, { d: lakeview.id, f: first })).petitionDocket;
      expect(page.items).toHaveLength(first);
      return count;
    };
    try {
      await statements(5);
      const five = await statements(5);
      const fifty = await statements(50);
      expect(fifty).toBe(five);
      expect(five).toBeLessThanOrEqual(2);
    } finally {
      logger.logQuery = original;
    }
    const p1 = (await board.ok(Q, { d: lakeview.id, f: 10 })).petitionDocket;
    const p2 = (await board.ok(Q, { d: lakeview.id, f: 10, a: p1.nextCursor })).petitionDocket;
    expect(new Set([...p1.items, ...p2.items].map((i: any) => i.petitionId)).size).toBe(20);
    expect(errorCode(await board.gql(Q, { d: lakeview.id, a: "garbage" }))).toBe("BAD_USER_INPUT");
  });
});

describe("other kinds, outcomes and notices", () => {
  it("a water severance is petitioned to the District Operator (SUL 1108), who reconnects; the Board cannot decide it", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await person();
    const a = (await operator.ok(CREATE, { i: { districtId: lakeview.id, kind: "WATER_SEVERANCE", respondentEmail: u.email, violation: "Discharge continued after the cease and desist order" } }))
      .createEnforcementAction;
    expect(a).toMatchObject({ petitionTo: "DISTRICT_OPERATOR", petitionDueOn: "2026-11-17", section: "Sewer Use Law 1108" });
    expect(a.reliefOptions.map((r: any) => r.value)).toEqual(["RECONNECT"]);
    expect(errorCode(await u.c.gql(PETITION, { i: { actionId: a.id, grounds: "x", relief: "MODIFY" } }))).toBe("BAD_USER_INPUT");
    const p = (await u.c.ok(PETITION, { i: { actionId: a.id, grounds: "The discharge stopped on November 1.", relief: "RECONNECT" } })).filePetition;
    const Q = `query($d: ID!) { petitionDocket(districtId: $d, first: 200) { items { petitionId addressedTo } } }`;
    expect((await operator.ok(Q, { d: lakeview.id })).petitionDocket.items.map((i: any) => i.petitionId)).toContain(p.id);
    expect((await board.ok(Q, { d: lakeview.id })).petitionDocket.items.map((i: any) => i.petitionId)).not.toContain(p.id);
    expect(errorCode(await board.gql(DECIDE, { i: { petitionId: p.id, decision: "RECONNECT", reasons: "x" } }))).toBe("FORBIDDEN");
    expect(errorCode(await operator.gql(DECIDE, { i: { petitionId: p.id, decision: "MODIFY", reasons: "x" } }))).toBe("BAD_USER_INPUT");
    const d = (await operator.ok(DECIDE, { i: { petitionId: p.id, decision: "RECONNECT", reasons: "Compliance shown by three clean samples." } })).decidePetition;
    expect(d).toMatchObject({ status: "RECONNECTED", decidedByName: "Oren Operator (Lakeview)" });
    expect((await u.c.ok(GET, { id: a.id })).enforcementAction).toMatchObject({ status: "RECONNECTED", final: false });
  });

  it("a fine vacated after the hearing is cancelled; every step reaches the respondent's mailbox and dashboard", async () => {
    travelTo(NY_NOON("2026-11-02"));
    const u = await industrialUser();
    const a = (await fine(u, "2026-11-02")).data.createEnforcementAction;
    const DASH = `{ myDashboard { items { kind id title nextStep dueDate daysLeft href } } }`;
    clearMicroCache();
    const item = (await u.c.ok(DASH)).myDashboard.items.find((i: any) => i.id === a.id);
    expect(item).toMatchObject({ kind: "EnforcementAction", dueDate: "2026-11-17", daysLeft: 15, href: `/enforcement/${a.id}` });
    expect(item.nextStep).toContain("Pay the fine of $1,500.00 or petition the Town Board");
    const p = (await u.c.ok(PETITION, { i: { actionId: a.id, grounds: "Wrong outfall sampled", relief: "SUSPEND" } })).filePetition;
    const h = (await board.ok(HEARING, { i: { petitionId: p.id, scheduledFor: "2026-11-12T10:00", place: "Town Hall", reasons: "x", proposedAction: "Fine as served" } })).orderShowCauseHearing;
    clearMicroCache();
    expect((await u.c.ok(DASH)).myDashboard.items.find((i: any) => i.id === a.id).nextStep).toContain("Show-cause hearing on Thursday, November 12, 2026 at 10:00 AM EST");
    travelTo("2026-11-12T16:00:00Z");
    const d = (await board.ok(DECIDE_HEARING, { i: { hearingId: h.id, outcome: "VACATED", reasons: "The samples came from the neighbour's outfall." } })).decideShowCauseHearing;
    expect(d.outcome).toBe("VACATED");
    const after = (await u.c.ok(GET, { id: a.id })).enforcementAction;
    expect(after).toMatchObject({ status: "VACATED", final: false, charge: { status: "CANCELLED" } });
    expect(errorCode(await u.c.gql(`mutation($id: ID!) { payCharge(id: $id) { id } }`, { id: after.charge.id }))).toBe("CONFLICT");
    const subjects = (await u.c.ok(`{ myEmails(first: 50) { subject bodyText } }`)).myEmails.map((m: any) => m.subject);
    for (const s of [`Administrative fine ${a.number}`, `Petition received: ${a.number}`, `Notice of show-cause hearing: ${a.number}`, `Decision after the hearing: ${a.number}`]) expect(subjects).toContain(s);
    // Vacated actions are not public records of final actions.
    const listed = (await new Client(srv.url).ok(`{ publicEnforcementActions(districtSlug: "lakeview") { number } }`)).publicEnforcementActions.map((x: any) => x.number);
    expect(listed).not.toContain(a.number);
  });
});

describe("metered water that does not reach the sewer (SUL 1205)", () => {
  const FILE = `mutation($i: FileFlowDeductionInput!) { fileFlowDeductionRequest(input: $i) { id status statusLabel } }`;
  const DECIDE_FLOW = `mutation($i: DecideFlowDeductionInput!) { decideFlowDeductionRequest(input: $i) { id status sewerPercent decidedByName decisionReasons } }`;
  it("is filed with evidence, decided by the District Operator with a percentage, and refused where the law has no such rule", async () => {
    const u = await person();
    const i = { districtId: lakeview.id, propertyAddress: "14 Orchard Lane", evidence: "About 40% of the water irrigates the orchard (separate sub-meter readings attached)." };
    expect(errorCode(await u.c.gql(FILE, { i: { ...i, evidence: " " } }))).toBe("BAD_USER_INPUT");
    const r = (await u.c.ok(FILE, { i })).fileFlowDeductionRequest;
    expect(r.status).toBe("FILED");
    const huronTry = await u.c.gql(FILE, { i: { ...i, districtId: huron.id } });
    expect(errorCode(huronTry)).toBe("CONFLICT");
    expect(huronTry.errors![0].message).toContain("Huron VII");
    const stranger = await person();
    expect(errorCode(await stranger.c.gql(`mutation($id: ID!) { withdrawFlowDeductionRequest(id: $id) { id } }`, { id: r.id }))).toBe("NOT_FOUND");
    expect(errorCode(await board.gql(DECIDE_FLOW, { i: { id: r.id, decision: "PERCENTAGE", sewerPercent: 60, reasons: "x" } }))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(DECIDE_FLOW, { i: { id: r.id, decision: "PERCENTAGE", sewerPercent: 60, reasons: "x" } }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(DECIDE_FLOW, { i: { id: r.id, decision: "PERCENTAGE", reasons: "x" } }))).toBe("BAD_USER_INPUT");
    const d = (await operator.ok(DECIDE_FLOW, { i: { id: r.id, decision: "PERCENTAGE", sewerPercent: 60, reasons: "The sub-meter shows 40% goes to irrigation." } })).decideFlowDeductionRequest;
    expect(d).toMatchObject({ status: "PERCENTAGE_SET", sewerPercent: 60, decidedByName: "Oren Operator (Lakeview)" });
    expect((await u.c.ok(`{ myFlowDeductionRequests { id status sewerPercent } }`)).myFlowDeductionRequests).toEqual([{ id: r.id, status: "PERCENTAGE_SET", sewerPercent: 60 }]);
  });
});

import { addCalendarDays } from "../../api/common/dates.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer, signedInAs } from "../harness.js";

/**
 * Huron V-2 over HTTP: a violation continuing past the written notice's time to correct (V-1, V-4)
 * is referred for prosecution by the Superintendent, and fined only by a court on conviction, as
 * the Town Clerk records the judgment (docs/decisions/huron-fines-on-conviction.md).
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let huronOperator: Client;
let huronClerk: Client;
let lakeviewClerk: Client;
let lakeviewOperator: Client;

const NY_NOON = (date: string) => `${date}T17:00:00Z`;

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [huronOperator, huronClerk, lakeviewClerk, lakeviewOperator] = await Promise.all(["operator@huron.demo.tapline.local", DEMO.huronClerk, DEMO.lakeviewClerk, DEMO.lakeviewOperator].map(signedIn));
});
afterAll(() => srv?.close());
afterEach(() => resetClock());

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);
let n = 0;
async function person(): Promise<{ c: Client; email: string }> {
  const c = new Client(srv.url);
  const email = `prosecuted${++n}@example.org`;
  await c.signUp(email, `Owner ${n}`);
  return { c, email };
}
const range = (first: string, count: number) => Array.from({ length: count }, (_, i) => addCalendarDays(first, i));

const A = `id number kind status section correctBy fineTotalCents referralBlockedReason canRecordJudgment
  prosecution { continuedDays referredOn judgment court docketNumber judgmentOn offenseDays { date amountCents } fineTotalCents }
  charge { id number amountCents billedOn status section label statement { totalCents } }`;
const CREATE = `mutation($i: CreateEnforcementActionInput!) { createEnforcementAction(input: $i) { id } }`;
const GET = `query($id: ID!) { enforcementAction(id: $id) { ${A} } }`;
const REFER = `mutation($i: ReferForProsecutionInput!) { referForProsecution(input: $i) { ${A} } }`;
const JUDGE = `mutation($i: RecordCourtJudgmentInput!) { recordCourtJudgment(input: $i) { ${A} } }`;

/** A Huron notice mailed 2026-09-01 with a time to correct until 2026-09-15. */
async function notice(email: string): Promise<string> {
  travelTo(NY_NOON("2026-09-01"));
  const { createEnforcementAction } = await huronOperator.ok(CREATE, {
    i: { districtId: huron.id, kind: "NOTICE_OF_VIOLATION", respondentEmail: email, violation: "Sump pump discharging into the building sewer", correctBy: "2026-09-15" },
  });
  return createEnforcementAction.id;
}
const audits = async (entityId: string) =>
  (await srv.running.ds.query(`SELECT action, details FROM audit_entry WHERE entity_id = $1 ORDER BY at`, [entityId])) as { action: string; details: any }[];

describe("Huron V-2: referral for prosecution", () => {
  it("comes only after the notice's time to correct, from the Superintendent, for days after it; the person sees it and owes nothing", async () => {
    const u = await person();
    const id = await notice(u.email);
    // On the last day to correct, the violation has not yet continued beyond the time limit.
    travelTo(NY_NOON("2026-09-15"));
    const early = await huronOperator.gql(REFER, { i: { actionId: id, continuedDays: ["2026-09-15"] } });
    expect(errorCode(early)).toBe("CONFLICT");
    expect(early.errors![0].message).toBe("The time to correct in the notice runs until September 15, 2026; only a violation continuing beyond it is referred (Huron V-2).");
    travelTo(NY_NOON("2026-09-20"));
    expect((await huronOperator.ok(GET, { id })).enforcementAction.referralBlockedReason).toBeNull();
    // Only days after the time to correct, and none after today.
    const onLimit = await huronOperator.gql(REFER, { i: { actionId: id, continuedDays: range("2026-09-15", 2) } });
    expect(onLimit.errors![0].extensions!.fields!.continuedDays).toContain("Only days after the time to correct in the notice (September 15, 2026)");
    const future = await huronOperator.gql(REFER, { i: { actionId: id, continuedDays: range("2026-09-20", 2) } });
    expect(future.errors![0].extensions!.fields!.continuedDays).toContain("cannot be after today");
    // Only the Superintendent (District Operator), and only of Huron.
    expect(errorCode(await huronClerk.gql(REFER, { i: { actionId: id, continuedDays: range("2026-09-16", 4) } }))).toBe("FORBIDDEN");
    expect(errorCode(await lakeviewOperator.gql(REFER, { i: { actionId: id, continuedDays: range("2026-09-16", 4) } }))).toBe("NOT_FOUND");
    expect(errorCode(await u.c.gql(REFER, { i: { actionId: id, continuedDays: range("2026-09-16", 4) } }))).toBe("FORBIDDEN");

    const referred = (await huronOperator.ok(REFER, { i: { actionId: id, continuedDays: range("2026-09-16", 4) } })).referForProsecution;
    expect(referred.prosecution).toMatchObject({ continuedDays: range("2026-09-16", 4), referredOn: "2026-09-20", judgment: null, fineTotalCents: 0 });
    expect(referred.charge).toBeNull();
    expect(referred.referralBlockedReason).toBe("This notice's violation was already referred for prosecution.");
    const [entry] = (await audits(id)).filter((x) => x.action === "enforcement.referred_for_prosecution");
    expect(entry.details).toMatchObject({ days: 4, from: "2026-09-16", through: "2026-09-19", correctBy: "2026-09-15" });

    // The person sees the referral on their own notice, with nothing to pay.
    const mine = (await u.c.ok(GET, { id })).enforcementAction;
    expect(mine.prosecution.continuedDays).toHaveLength(4);
    expect(mine.charge).toBeNull();
    expect((await u.c.ok(`{ myCharges { id } }`)).myCharges).toEqual([]);
    const [mail] = await srv.running.ds.query(`SELECT subject, body_text AS body FROM outbox_email WHERE to_address = $1 AND kind = 'enforcement.referred_for_prosecution'`, [u.email]);
    expect(mail.subject).toMatch(/^Referred to the court: [A-Z]+-EA-2026-\d{4}$/);
    expect(mail.body).toContain("on conviction thereof, shall be fined in an amount not exceeding $200.00 for each violation");
    expect(mail.body).toContain("Only the court can impose a fine: nothing is payable unless it convicts.");
    // Another person does not see it.
    expect(errorCode(await (await person()).c.gql(GET, { id }))).toBe("NOT_FOUND");
  });

  it("is not how Lakeview fines: its fines are administrative (SUL 1105)", async () => {
    const u = await person();
    travelTo(NY_NOON("2026-09-01"));
    const { createEnforcementAction: n1 } = await lakeviewOperator.ok(CREATE, { i: { districtId: lakeview.id, kind: "NOTICE_OF_VIOLATION", respondentEmail: u.email, violation: "x", correctBy: "2026-09-05" } });
    travelTo(NY_NOON("2026-09-20"));
    const r = await lakeviewOperator.gql(REFER, { i: { actionId: n1.id, continuedDays: ["2026-09-10"] } });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toBe("Fines here are administrative (Sewer Use Law 1105): serve a fine as a follow-up of the notice.");
  });
});

describe("Huron V-2: the court's judgment, recorded by the Town Clerk", () => {
  async function referredNotice() {
    const u = await person();
    const id = await notice(u.email);
    travelTo(NY_NOON("2026-09-20"));
    await huronOperator.ok(REFER, { i: { actionId: id, continuedDays: range("2026-09-16", 4) } });
    travelTo(NY_NOON("2026-10-14"));
    return { u, id };
  }
  const conviction = (id: string, perDay: number, count = 3) => ({
    actionId: id,
    judgment: "CONVICTED",
    court: "Town of Huron Justice Court",
    docketNumber: "CR-2026-0117",
    judgmentOn: "2026-10-13",
    offenseDays: range("2026-09-16", count).map((date) => ({ date, amountCents: perDay })),
  });

  it("a conviction at the cap ($200 a day) makes the fine charge; $200.01 is refused", async () => {
    const { u, id } = await referredNotice();
    // Only the Clerk of Huron: not the Superintendent, not the person, not Lakeview's Clerk.
    expect(errorCode(await huronOperator.gql(JUDGE, { i: conviction(id, 20000) }))).toBe("FORBIDDEN");
    expect(errorCode(await u.c.gql(JUDGE, { i: conviction(id, 20000) }))).toBe("FORBIDDEN");
    expect(errorCode(await lakeviewClerk.gql(JUDGE, { i: conviction(id, 20000) }))).toBe("NOT_FOUND");
    expect((await huronClerk.ok(GET, { id })).enforcementAction.canRecordJudgment).toBe(true);
    expect((await u.c.ok(GET, { id })).enforcementAction.canRecordJudgment).toBe(false);

    const past = await huronClerk.gql(JUDGE, { i: conviction(id, 20001) });
    expect(errorCode(past)).toBe("BAD_USER_INPUT");
    expect(past.errors![0].extensions!.fields!.offenseDays).toBe("The fine for each day can be at most $200.00 (Huron V-2); 2026-09-16 is $200.01.");
    const notReferred = await huronClerk.gql(JUDGE, { i: { ...conviction(id, 100), offenseDays: [{ date: "2026-09-25", amountCents: 100 }] } });
    expect(notReferred.errors![0].extensions!.fields!.offenseDays).toContain("was not among the days referred");
    const missing = await huronClerk.gql(JUDGE, { i: { ...conviction(id, 100), court: " ", docketNumber: "", judgmentOn: "2026-09-19" } });
    expect(Object.keys(missing.errors![0].extensions!.fields!).sort()).toEqual(["court", "docketNumber", "judgmentOn"]);

    const done = (await huronClerk.ok(JUDGE, { i: conviction(id, 20000) })).recordCourtJudgment;
    expect(done.prosecution).toMatchObject({ judgment: "CONVICTED", court: "Town of Huron Justice Court", docketNumber: "CR-2026-0117", judgmentOn: "2026-10-13", fineTotalCents: 60000 });
    expect(done.charge).toMatchObject({ amountCents: 60000, billedOn: "2026-10-14", status: "OPEN", section: "Huron V-2" });
    expect(done.charge.label).toBe(`Fine on conviction, Town of Huron Justice Court docket CR-2026-0117, 3 days of violation (notice ${done.number})`);
    expect(done.canRecordJudgment).toBe(false);
    const [entry] = (await audits(id)).filter((x) => x.action === "enforcement.judgment_recorded");
    expect(entry.details).toMatchObject({ judgment: "CONVICTED", offenses: 3, fineTotalCents: 60000, docketNumber: "CR-2026-0117" });
    // Recorded once.
    expect(errorCode(await huronClerk.gql(JUDGE, { i: conviction(id, 100) }))).toBe("CONFLICT");

    // The person owes it now and pays it as any charge.
    const { myCharges } = await u.c.ok(`{ myCharges { id amountCents status } }`);
    expect(myCharges).toEqual([{ id: done.charge.id, amountCents: 60000, status: "OPEN" }]);
    const pay = await u.c.ok(`mutation($id: ID!) { payCharge(id: $id) { id amountCents } }`, { id: done.charge.id });
    expect(pay.payCharge.amountCents).toBe(60000);
  });

  it("an acquittal or dismissal closes the matter with no charge", async () => {
    for (const judgment of ["ACQUITTED", "DISMISSED"]) {
      const { u, id } = await referredNotice();
      const withFine = await huronClerk.gql(JUDGE, { i: { ...conviction(id, 100), judgment } });
      expect(withFine.errors![0].extensions!.fields!.offenseDays).toBe("Only a conviction has offenses and a fine.");
      const done = (await huronClerk.ok(JUDGE, { i: { ...conviction(id, 100), judgment, offenseDays: [] } })).recordCourtJudgment;
      expect(done.prosecution).toMatchObject({ judgment, fineTotalCents: 0, offenseDays: [] });
      expect(done.charge).toBeNull();
      expect((await u.c.ok(`{ myCharges { id } }`)).myCharges).toEqual([]);
    }
  });
});

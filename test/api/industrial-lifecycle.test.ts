import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { applyModification } from "../../api/industrial/lifecycle.service.js";
import { runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, errorCode, startTestServer, type GqlResponse, type TestServer } from "../harness.js";
import { application as sharedApplication, firm as sharedFirm, signedIn as sharedSignedIn, type Firm } from "./industrial-helpers.js";

/**
 * The permit after issuance (SUL 1004 B, E, F) with the law's figures: a modification on 30 days'
 * notice (day 29 refused, day 30 accepted) taking effect by the job, results judged against the
 * new limits, report periods made again; the reissuance application 180 days before expiry (on
 * time, late), one open at a time, issued early it starts after the old expiry; a change of
 * owner starts a new permit, which ends the old one (SUPERSEDED); no transfer through the API.
 */

let srv: TestServer;
let lakeview: { id: string };
let operator: Client;
let clerk: Client;
let anon: Client;
const db = () => srv.running.ds;
const log = pino({ level: "silent" });
const fields = (r: GqlResponse) => r.errors?.[0]?.extensions?.fields ?? {};
const signedIn = (email: string) => sharedSignedIn(srv, email);
const firm = (name: string) => sharedFirm(srv, name, "lifecycle.example");
const application = (f: Firm, extra: Record<string, unknown> = {}) =>
  sharedApplication(f, lakeview.id, { activities: "Zinc electroplating; proprietary brightener sequence", tradeSecretFields: ["activities"], ...extra });

const P = `id status organizationId facilityName street activities permitNumber effectiveOn expiresOn reportingMonths conditions
  previousPermitId previousRelation previousPermitNumber reissuanceDueOn reissuanceLate changeKind changeKindLabel changeOn changeDescription supersededOn supersededById
  limits { parameter kind unit average maximum }
  reports { id periodStart periodEnd dueOn status }
  reissuance { deadline daysLeft section applicationId }
  followingPermits { id relation status permitNumber late }
  modifications { id status cause causeLabel causeSection causeText effectiveOn noticeOn daysLeft reportingMonths conditions
    limits { parameter kind average maximum } replacedLimits { parameter kind average maximum } replacedReportingMonths complianceSchedule { milestone dueOn } }`;
const GET = `query($id: ID!) { industrialPermit(id: $id) { ${P} } }`;
const SAVE = `mutation($i: IndustrialApplicationInput!) { saveIndustrialApplication(input: $i) { ${P} } }`;
const SUBMIT = `mutation($id: ID!) { submitIndustrialApplication(id: $id) { id status paymentId reissuanceLate } }`;
const PUBLISH = `mutation($id: ID!) { publishIndustrialNotice(id: $id) { id } }`;
const ISSUE = `mutation($i: IssueIndustrialPermitInput!) { issueIndustrialPermit(input: $i) { ${P} } }`;
const PROPOSE = `mutation($i: ProposeIndustrialModificationInput!) { proposeIndustrialPermitModification(input: $i) { id status effectiveOn noticeOn daysLeft causeLabel causeSection } }`;
const WITHDRAW = `mutation($id: ID!, $r: String!) { withdrawIndustrialPermitModification(id: $id, reason: $r) { id status withdrawalReason } }`;
const REISSUE = `mutation($id: ID!) { startIndustrialReissuance(permitId: $id) { ${P} } }`;
const CHANGE = `mutation($i: ReportIndustrialPermitChangeInput!) { reportIndustrialPermitChange(input: $i) { ${P} } }`;
const ADD = `mutation($r: ID!, $x: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $x) { id status limitValue } }`;

async function pay(c: Client, paymentId: string) {
  const { startCheckout } = await c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: paymentId });
  await c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { status } }`, { s: startCheckout.url.split("/").pop() });
}
async function emails(to: string, kind: string): Promise<{ subject: string; body_text: string }[]> {
  return db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = $1 AND kind = $2 ORDER BY created_at`, [to, kind]);
}
async function runJobs() {
  while ((await runDueJobs(db(), log)) > 0);
}
/** Saves (if not yet) and submits an application, pays the fee and publishes its notice. */
async function toNotice(c: Client, id: string) {
  const { submitIndustrialApplication: s } = await c.ok(SUBMIT, { id });
  if (s.paymentId) await pay(c, s.paymentId);
  await operator.ok(PUBLISH, { id });
  return s;
}

let f: Firm; // modification
let g: Firm; // reissuance on time
let h: Firm; // reissuance late
let j: Firm; // change of owner
let other: Firm;
const permit: Record<string, string> = {};

beforeAll(async () => {
  travelTo("2026-09-01T14:00:00Z");
  srv = await startTestServer();
  anon = new Client(srv.url);
  ({ lakeview } = await anon.ok(`{ lakeview: district(slug: "lakeview") { id } }`));
  [operator, clerk] = await Promise.all([DEMO.lakeviewOperator, DEMO.lakeviewClerk].map(signedIn));
  const admin = await signedIn(DEMO.lakeviewAdmin);
  await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: { districtId: lakeview.id, changes: [{ key: "industrial.applicationFee", value: 50000 }], effectiveDate: "2026-09-01", reason: "Town Board resolution sets the fee", resolutionNumber: "2026-41", resolutionAdoptedOn: "2026-08-18" },
  });
  [f, g, h, j, other] = [await firm("Modified Metals"), await firm("Reissue On Time Inc"), await firm("Reissue Late Inc"), await firm("Seller Plating"), await firm("Other Co")];
  for (const [k, x] of Object.entries({ f, g, h, j })) {
    const { saveIndustrialApplication: d } = await x.owner.ok(SAVE, { i: application(x, { facilityName: `Plant ${k}` }) });
    permit[k] = d.id;
    await toNotice(x.owner, d.id);
  }
  travelTo("2026-09-15T14:00:00Z");
  for (const [k, expiresOn] of [["f", "2031-09-14"], ["g", "2027-09-14"], ["h", "2027-09-14"], ["j", "2031-09-14"]])
    await operator.ok(ISSUE, { i: { id: permit[k], expiresOn } });
});
afterAll(async () => {
  resetClock();
  await srv?.close();
});

describe("modification on 30 days' notice (SUL 1004 B, E)", () => {
  const zincAt = (average: number, maximum: number) => async () => {
    const { industrialPermit } = await operator.ok(GET, { id: permit.f });
    return industrialPermit.limits.map(({ parameter, kind, unit, average: a, maximum: m }: any) => (parameter === "Zinc" && kind === "CONCENTRATION" ? { parameter, kind, unit, average, maximum } : { parameter, kind, unit, average: a, maximum: m }));
  };
  let modId: string;
  let firstReport: string;

  it("only the District Operator proposes; clerk, permittee and others are refused", async () => {
    travelTo("2026-10-01T14:00:00Z");
    const i = { permitId: permit.f, cause: "LOCAL_LIMITS", explanation: "Local limits revised", conditions: "x", effectiveOn: "2026-11-15" };
    expect(errorCode(await clerk.gql(PROPOSE, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await f.owner.gql(PROPOSE, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await anon.gql(PROPOSE, { i }))).toBe("UNAUTHENTICATED");
  });

  it("is checked: a just cause (other needs its text), the same limit checks, the compliance schedule's increments", async () => {
    const limits = await zincAt(0.8, 1.0)();
    const base = { permitId: permit.f, cause: "LOCAL_LIMITS", explanation: "x", effectiveOn: "2026-11-15" };
    expect(fields(await operator.gql(PROPOSE, { i: { ...base, cause: "BECAUSE" , conditions: "x" } })).cause).toMatch(/1004 B/);
    expect(fields(await operator.gql(PROPOSE, { i: { ...base, cause: "OTHER", conditions: "x" } })).causeText).toMatch(/other just cause \(Sewer Use Law 1004 E\)/);
    const bad = await operator.gql(PROPOSE, { i: { ...base, limits: [...limits, { parameter: "Zinc", kind: "MASS", unit: "mg/L", average: 0.1 }] } });
    expect(Object.values(fields(bad))[0]).toMatch(/A mass limit cannot be in mg\/L/);
    const sched = await operator.gql(PROPOSE, { i: { ...base, limits, complianceSchedule: [{ milestone: "Install a polishing filter", dueOn: "2027-08-15" }] } });
    expect(fields(sched).complianceSchedule).toMatch(/more than 9 months after the notice.*Sewer Use Law 1004 A\(12\)\(b\)/);
    expect(fields(await operator.gql(PROPOSE, { i: base })).limits).toMatch(/Change at least/);
  });

  it("29 days after the notice is refused with the earliest date; 30 days is accepted and the permittee is told", async () => {
    const limits = await zincAt(0.8, 1.0)();
    const i = {
      permitId: permit.f,
      cause: "LOCAL_LIMITS",
      explanation: "Sewer Use Law 903 zinc limit lowered by the Town Board.",
      limits,
      reportingMonths: [3, 6, 9, 12],
      effectiveOn: "2026-10-30",
      complianceSchedule: [{ milestone: "Install a zinc polishing filter", dueOn: "2027-06-30" }],
    };
    const early = await operator.gql(PROPOSE, { i });
    expect(errorCode(early)).toBe("BAD_USER_INPUT");
    expect(fields(early).effectiveOn).toMatch(/at least 30 days before .*\(Sewer Use Law 1004 B\).*October 31, 2026 at the earliest/);
    const { proposeIndustrialPermitModification: m } = await operator.ok(PROPOSE, { i: { ...i, effectiveOn: "2026-10-31" } });
    expect(m).toMatchObject({ status: "PENDING", noticeOn: "2026-10-01", effectiveOn: "2026-10-31", daysLeft: 30, causeSection: "Sewer Use Law 1004 B(3)" });
    expect(m.causeLabel).toBe("Changes in general discharge prohibitions and local limits as per Section 903 of this law");
    modId = m.id;
    const [mail] = await emails(f.ownerEmail, "industrial.modification_proposed");
    expect(mail.subject).toMatch(/takes effect October 31, 2026/);
    expect(mail.body_text).toMatch(/30 days from this notice; Sewer Use Law 1004 B/);
    expect(mail.body_text).toMatch(/Zinc average 0.8, maximum 1 mg\/L/);
    expect(mail.body_text).toMatch(/June 30, 2027: Install a zinc polishing filter/);
  });

  it("the permittee sees the pending modification with days left; another organization sees none of it", async () => {
    const { industrialPermit: p } = await f.member.ok(GET, { id: permit.f });
    expect(p.modifications).toHaveLength(1);
    expect(p.modifications[0]).toMatchObject({ status: "PENDING", daysLeft: 30, reportingMonths: [3, 6, 9, 12], complianceSchedule: [{ dueOn: "2027-06-30" }] });
    expect(p.limits.find((l: any) => l.parameter === "Zinc" && l.kind === "CONCENTRATION").average).toBe(1.2);
    expect((await other.owner.ok(GET, { id: permit.f })).industrialPermit.modifications).toEqual([]);
    expect((await anon.ok(GET, { id: permit.f })).industrialPermit.modifications).toEqual([]);
  });

  it("the Operator withdraws a modification before it takes effect; a clerk may not", async () => {
    const { proposeIndustrialPermitModification: m } = await operator.ok(PROPOSE, {
      i: { permitId: permit.f, cause: "OTHER", causeText: "Operator's inspection found a second outfall", explanation: "Sample both outfalls", conditions: "Sample outfalls 001 and 002", effectiveOn: "2026-12-01" },
    });
    expect(m.causeSection).toBe("Sewer Use Law 1004 B, 1004 E");
    expect(errorCode(await clerk.gql(WITHDRAW, { id: m.id, r: "x" }))).toBe("FORBIDDEN");
    const { withdrawIndustrialPermitModification: w } = await operator.ok(WITHDRAW, { id: m.id, r: "Second outfall was a storm drain" });
    expect(w).toMatchObject({ status: "WITHDRAWN", withdrawalReason: "Second outfall was a storm drain" });
    expect(errorCode(await operator.gql(WITHDRAW, { id: m.id, r: "again" }))).toBe("CONFLICT");
    expect((await emails(f.ownerEmail, "industrial.modification_withdrawn"))[0].body_text).toMatch(/storm drain/);
  });

  it("before the date the permit is unchanged; a report is started under the old limits", async () => {
    travelTo("2026-10-20T14:00:00Z");
    const { industrialPermit: p } = await f.member.ok(GET, { id: permit.f });
    firstReport = p.reports[0].id;
    const { addIndustrialResults: [r] } = await f.member.ok(ADD, {
      r: firstReport,
      x: [{ parameter: "Zinc", sampleType: "COMPOSITE", sampledAt: "2026-10-19T08:30", value: 1.0, unit: "mg/L", lab: "Upstate Analytical", method: "EPA 200.7" }],
    });
    expect(r).toMatchObject({ status: "OK", limitValue: 1.2 });
    travelTo("2026-10-30T14:00:00Z");
    await runJobs();
    expect((await f.member.ok(GET, { id: permit.f })).industrialPermit.modifications.find((m: any) => m.id === modId)).toMatchObject({ status: "PENDING", daysLeft: 1 });
  });

  it("on its date the job puts it into effect: limits, months, future report periods; the history keeps what it replaced", async () => {
    travelTo("2026-10-31T05:00:00Z"); // just after midnight in Lakeview
    await runJobs();
    const { industrialPermit: p } = await f.member.ok(GET, { id: permit.f });
    expect(p.reportingMonths).toEqual([3, 6, 9, 12]);
    expect(p.limits.find((l: any) => l.parameter === "Zinc" && l.kind === "CONCENTRATION")).toMatchObject({ average: 0.8, maximum: 1.0 });
    const mod = p.modifications.find((m: any) => m.id === modId);
    expect(mod).toMatchObject({ status: "EFFECTIVE", daysLeft: null, replacedReportingMonths: [6, 12] });
    expect(mod.replacedLimits.find((l: any) => l.parameter === "Zinc" && l.kind === "CONCENTRATION")).toMatchObject({ average: 1.2, maximum: 1.6 });
    // the started report is kept; the periods after it follow the new months (SUL 1005(3)(a))
    expect(p.reports[0]).toMatchObject({ id: firstReport, periodStart: "2026-09-15", periodEnd: "2026-11-30", status: "DRAFT" });
    expect(p.reports[1]).toMatchObject({ periodStart: "2026-12-01", periodEnd: "2027-02-28", dueOn: "2027-03-31", status: "DUE" });
    expect(p.reports[2]).toMatchObject({ periodStart: "2027-03-01", periodEnd: "2027-05-31", dueOn: "2027-06-30" });
    const [audit] = await db().query(`SELECT details FROM audit_entry WHERE action = 'industrial.modified' AND entity_id = $1`, [permit.f]);
    expect(audit.details).toMatchObject({ modificationId: modId, effectiveOn: "2026-10-31" });
    expect((await emails(f.ownerEmail, "industrial.modified"))[0].subject).toMatch(/modified from October 31, 2026/);
    // the schedule for the new conditions joins the permit's: progress reports, a reminder on its date, SNC (e)
    const [{ compliance_schedule: schedule }] = await db().query(`SELECT compliance_schedule FROM industrial_permit WHERE id = $1`, [permit.f]);
    expect(schedule.at(-1)).toEqual({ milestone: "Install a zinc polishing filter", dueOn: "2027-06-30" });
    const reminders = await db().query(`SELECT run_at, payload FROM job WHERE name = 'industrial.progress-reminder' AND payload->>'permitId' = $1`, [permit.f]);
    expect(reminders.map((j: any) => [j.payload.milestoneIndex, j.payload.progressDueOn])).toEqual([[schedule.length - 1, "2027-07-14"]]);
    // idempotent: the job again changes nothing
    expect(await applyModification(db(), modId, "")).toBe(false);
    expect((await f.member.ok(GET, { id: permit.f })).industrialPermit.reports.length).toBe(p.reports.length);
  });

  it("results saved after the effective date are judged against the new limits", async () => {
    travelTo("2026-10-31T14:00:00Z");
    const { addIndustrialResults: [r] } = await f.member.ok(ADD, {
      r: firstReport,
      x: [{ parameter: "Zinc", sampleType: "COMPOSITE", sampledAt: "2026-10-31T08:30", value: 1.0, unit: "mg/L", lab: "Upstate Analytical", method: "EPA 200.7" }],
    });
    expect(r).toMatchObject({ status: "EXCEEDS", limitValue: 0.8 });
  });

  it("a modification cannot take effect after the permit expires, nor be made to a permit not issued", async () => {
    const r = await operator.gql(PROPOSE, { i: { permitId: permit.f, cause: "POTW_CHANGE", explanation: "x", conditions: "y", effectiveOn: "2031-10-01" } });
    expect(fields(r).effectiveOn).toMatch(/expires on September 14, 2031/);
  });
});

describe("reissuance (SUL 1004 E)", () => {
  let onTime: string;

  it("the permit shows the deadline, 180 days before expiry, with days left", async () => {
    travelTo("2027-03-17T14:00:00Z");
    const { industrialPermit: p } = await g.member.ok(GET, { id: permit.g });
    expect(p.reissuance).toEqual({ deadline: "2027-03-18", daysLeft: 1, section: "Sewer Use Law 1004 E", applicationId: null });
    expect((await anon.ok(GET, { id: permit.g })).industrialPermit.reissuance).toBeNull();
  });

  it("the owner or AR starts it: a draft copied from the permit; a plain member is refused, another organization NOT_FOUND; one open at a time", async () => {
    travelTo("2027-03-18T14:00:00Z");
    expect(errorCode(await g.member.gql(REISSUE, { id: permit.g }))).toBe("FORBIDDEN");
    expect(errorCode(await other.owner.gql(REISSUE, { id: permit.g }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(REISSUE, { id: permit.g }))).toBe("NOT_FOUND");
    const { startIndustrialReissuance: d } = await g.ar.ok(REISSUE, { id: permit.g });
    expect(d).toMatchObject({ status: "DRAFT", facilityName: "Plant g", activities: expect.stringMatching(/proprietary/), previousPermitId: permit.g, previousRelation: "REISSUANCE", reissuanceDueOn: "2027-03-18" });
    expect(d.previousPermitNumber).toMatch(/-IU-2026-/);
    onTime = d.id;
    expect(errorCode(await g.owner.gql(REISSUE, { id: permit.g }))).toBe("CONFLICT");
    const { industrialPermit: old } = await g.owner.ok(GET, { id: permit.g });
    expect(old.reissuance.applicationId).toBe(onTime);
    expect(old.followingPermits).toEqual([{ id: onTime, relation: "REISSUANCE", status: "DRAFT", permitNumber: null, late: null }]);
  });

  it("submitted on the 180th day before expiry it is on time; the day after it is accepted, marked late with the date it was due", async () => {
    const s = await toNotice(g.ar, onTime);
    expect(s.reissuanceLate).toBe(false);
    travelTo("2027-03-19T14:00:00Z");
    const { startIndustrialReissuance: late } = await h.owner.ok(REISSUE, { id: permit.h });
    const s2 = await toNotice(h.owner, late.id);
    expect(s2.reissuanceLate).toBe(true);
    const { industrialPermit: staffView } = await clerk.ok(GET, { id: late.id });
    expect(staffView).toMatchObject({ reissuanceLate: true, reissuanceDueOn: "2027-03-18", previousPermitId: permit.h });
    const mails = await db().query(`SELECT body_text FROM outbox_email WHERE to_address = $1 AND kind = 'industrial.submitted' ORDER BY created_at DESC LIMIT 1`, [h.ownerEmail]);
    expect(mails[0].body_text).toMatch(/late: it was due by March 18, 2027, 180 days before the permit expires \(Sewer Use Law 1004 E\)/);
  });

  it("issued early, the reissued permit takes effect the day after the old one expires", async () => {
    travelTo("2027-04-02T14:00:00Z");
    const early = await operator.gql(ISSUE, { i: { id: onTime, effectiveOn: "2027-09-01", expiresOn: "2032-09-14" } });
    expect(fields(early).effectiveOn).toMatch(/in force until September 14, 2027: the reissued permit takes effect from September 15, 2027 \(Sewer Use Law 1004 E\)/);
    const { issueIndustrialPermit: p } = await operator.ok(ISSUE, { i: { id: onTime, expiresOn: "2032-09-14" } });
    expect(p).toMatchObject({ status: "ISSUED", effectiveOn: "2027-09-15", expiresOn: "2032-09-14", previousPermitId: permit.g });
    expect(p.reports[0].periodStart).toBe("2027-09-15");
    const { industrialPermit: old } = await g.owner.ok(GET, { id: permit.g });
    expect(old.status).toBe("ISSUED"); // in force until it expires
    expect(old.followingPermits[0]).toMatchObject({ status: "ISSUED", permitNumber: p.permitNumber });
    expect(errorCode(await g.owner.gql(REISSUE, { id: permit.g }))).toBe("CONFLICT");
  });
});

describe("no transfer: a change of owner, user, premises or operation (SUL 1004 F)", () => {
  let buyerOrg: string;
  let next: string;

  it("the API refuses to move an issued permit to another organization or premises, citing 1004 F", async () => {
    travelTo("2027-04-15T14:00:00Z");
    for (const extra of [{ organizationId: other.orgId }, { street: "99 New Road" }]) {
      const r = await j.owner.gql(SAVE, { i: { id: permit.j, ...extra } });
      expect(errorCode(r)).toBe("CONFLICT");
      expect(r.errors![0].message).toMatch(/cannot be reassigned, transferred or sold .*\(Sewer Use Law 1004 F\)/);
    }
  });

  it("reporting a change: plain member FORBIDDEN, another organization NOT_FOUND, an organization the user does not run NOT_FOUND", async () => {
    const i = { permitId: permit.j, kind: "OWNER", changeOn: "2027-05-01", description: "Sold to Buyer Plating LLC" };
    expect(errorCode(await j.member.gql(CHANGE, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await other.owner.gql(CHANGE, { i }))).toBe("NOT_FOUND");
    expect(errorCode(await j.owner.gql(CHANGE, { i: { ...i, organizationId: other.orgId } }))).toBe("NOT_FOUND");
    expect(fields(await j.owner.gql(CHANGE, { i: { ...i, kind: "SALE", changeOn: "soon" } }))).toMatchObject({ kind: expect.stringMatching(/1004 F/), changeOn: expect.any(String) });
  });

  it("starts a new-permit application for the new holder, linked to the old permit, trade secrets left behind", async () => {
    const { createOrganization } = await j.owner.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: "Buyer Plating LLC", kind: "INDUSTRIAL_USER" } });
    buyerOrg = createOrganization.id;
    const { reportIndustrialPermitChange: d } = await j.owner.ok(CHANGE, {
      i: { permitId: permit.j, kind: "OWNER", changeOn: "2027-05-01", description: "Sold to Buyer Plating LLC", organizationId: buyerOrg },
    });
    expect(d).toMatchObject({ status: "DRAFT", organizationId: buyerOrg, facilityName: "Plant j", activities: null, previousPermitId: permit.j, previousRelation: "CHANGE", changeKind: "OWNER", changeOn: "2027-05-01" });
    next = d.id;
    expect(errorCode(await j.owner.gql(CHANGE, { i: { permitId: permit.j, kind: "OWNER", changeOn: "2027-05-01", description: "again" } }))).toBe("CONFLICT");
    // the new holder completes the application (its own plans and lab report) and it goes the usual way
    await j.owner.ok(SAVE, { i: { ...application({ ...j, orgId: buyerOrg }), id: next, facilityName: "Plant j" } });
    await toNotice(j.owner, next);
  });

  it("when the new permit is issued the old one ends (SUPERSEDED, by the job) on the later of the change date and the new permit's start", async () => {
    travelTo("2027-04-29T14:00:00Z");
    const { issueIndustrialPermit: p } = await operator.ok(ISSUE, { i: { id: next, expiresOn: "2032-04-28" } });
    expect(p).toMatchObject({ status: "ISSUED", effectiveOn: "2027-04-29", organizationId: buyerOrg });
    // in force until the change date: its last reports can still be filed
    const { industrialPermit: before } = await j.member.ok(GET, { id: permit.j });
    expect(before).toMatchObject({ status: "ISSUED", supersededOn: "2027-05-01", supersededById: next });
    expect(before.reports.at(-1)).toMatchObject({ periodStart: "2026-12-01", periodEnd: "2027-04-30", dueOn: "2027-06-30" });
    const [mail] = await emails(j.ownerEmail, "industrial.superseded");
    expect(mail.body_text).toMatch(/ends on May 1, 2027/);
    expect(mail.body_text).toMatch(/Sewer Use Law 1004 F/);
    expect(errorCode(await j.owner.gql(REISSUE, { id: permit.j }))).toBe("CONFLICT");
    travelTo("2027-04-30T14:00:00Z");
    await runJobs();
    expect((await j.member.ok(GET, { id: permit.j })).industrialPermit.status).toBe("ISSUED");
    travelTo("2027-05-01T05:00:00Z");
    await runJobs();
    const { industrialPermit: old } = await j.member.ok(GET, { id: permit.j });
    expect(old).toMatchObject({ status: "SUPERSEDED", supersededOn: "2027-05-01", supersededById: next });
    const [audit] = await db().query(`SELECT reason, details FROM audit_entry WHERE action = 'industrial.superseded' AND entity_id = $1`, [permit.j]);
    expect(audit.reason).toMatch(/1004 F/);
    expect(errorCode(await j.owner.gql(CHANGE, { i: { permitId: permit.j, kind: "USER", changeOn: "2027-06-01", description: "x" } }))).toBe("CONFLICT");
    expect(errorCode(await operator.gql(PROPOSE, { i: { permitId: permit.j, cause: "POTW_CHANGE", explanation: "x", conditions: "y", effectiveOn: "2027-07-01" } }))).toBe("CONFLICT");
  });
});

describe("a pending modification of a permit revoked before its date", () => {
  it("does not take effect: the job records it as withdrawn", async () => {
    travelTo("2027-05-03T14:00:00Z");
    const { proposeIndustrialPermitModification: m } = await operator.ok(PROPOSE, {
      i: { permitId: permit.h, cause: "PASS_THROUGH", explanation: "Pass through at the plant", conditions: "Batch discharges only at night", effectiveOn: "2027-06-02" },
    });
    await operator.ok(`mutation($i: RevokeIndustrialPermitInput!) { revokeIndustrialPermit(input: $i) { id } }`, { i: { id: permit.h, reason: "TAMPERING", notes: "Sampler disconnected" } });
    travelTo("2027-06-02T14:00:00Z");
    await runJobs();
    const { industrialPermit: p } = await h.owner.ok(GET, { id: permit.h });
    expect(p).toMatchObject({ status: "REVOKED", conditions: null });
    expect(p.modifications.find((x: any) => x.id === m.id)).toMatchObject({ status: "WITHDRAWN", daysLeft: null });
  });
});

import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, advanceClock, resetClock, travelTo } from "../../api/common/clock.js";
import { runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, errorCode, startTestServer, type GqlResponse, type TestServer, isSessionBookkeeping } from "../harness.js";
import { PASSWORD, application as sharedApplication, firm as sharedFirm, signedIn as sharedSignedIn, type Firm } from "./industrial-helpers.js";

/**
 * Industrial discharge permits over HTTP (SUL Article 10, 1005, 1014): the application and its
 * checks, the notice of intent and the 14 days (1004 H), issuance and its report periods, lab
 * results judged as they are saved, the CSV upload, signing by the Authorized Representative
 * with the copy of record (CROMERR), and who may see and do what, operation by operation.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let operator: Client;
let clerk: Client;
let anon: Client;
const db = () => srv.running.ds;
const log = pino({ level: "silent" });
const signedIn = (email: string) => sharedSignedIn(srv, email);
const firm = (name: string) => sharedFirm(srv, name, "plating.example");
const application = (f: Firm, extra: Record<string, unknown> = {}) =>
  sharedApplication(f, lakeview.id, {
    constituents: [
      { parameter: "Zinc", value: 0.9, unit: "mg/L" },
      { parameter: "pH", value: 7.2, unit: "s.u." },
    ],
    dischargeSchedule: "Weekdays 7:00-15:00, batch rinse discharges of about 20 minutes each hour",
    flowVariations: "Lower in August (plant shutdown)",
    activities: "Zinc electroplating of fasteners; proprietary brightener bath sequence",
    employeeTypes: "Platers, maintenance, office",
    tradeSecretFields: ["activities"],
    ...extra,
  });

const P = `id status statusLabel facilityName activities tradeSecretFields withheldFields feeCents paymentId paidAt noticePublishedOn noticeText earliestIssueOn
  permitNumber effectiveOn expiresOn reportingMonths organizationName viewerRole viewerIsStaff revocationReason revocationReasonLabel
  limits { parameter kind unit average maximum minimum section }
  reports { id periodStart periodEnd dueOn status }
  nextReport { id dueOn daysLeft }
  openDuties { kind dueOn }`;
const SAVE = `mutation($i: IndustrialApplicationInput!) { saveIndustrialApplication(input: $i) { ${P} } }`;
const SUBMIT = `mutation($id: ID!) { submitIndustrialApplication(id: $id) { ${P} } }`;
const PUBLISH = `mutation($id: ID!) { publishIndustrialNotice(id: $id) { ${P} } }`;
const ISSUE = `mutation($i: IssueIndustrialPermitInput!) { issueIndustrialPermit(input: $i) { ${P} } }`;
const GET = `query($id: ID!) { industrialPermit(id: $id) { ${P} } }`;
const R = `id status periodStart periodEnd dueOn daysLeft contentHash certification amendsId amendedById
  results { id parameter sampleType value unit status basis limitValue comparedValue message conversion duties { kind dueOn dueAt section text } }
  duties { kind dueOn }
  copyOfRecord { id sha256 signerName signerEmail receivedAt document }`;
const REPORT = `query($id: ID!) { industrialReport(id: $id) { ${R} } }`;
const ADD = `mutation($r: ID!, $x: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $x) { id parameter status basis limitValue comparedValue message conversion duties { kind dueOn dueAt section text } } }`;
const CSV = `mutation($r: ID!, $csv: String!) { uploadIndustrialResultsCsv(reportId: $r, csv: $csv) { id parameter status } }`;
const SIGN = `mutation($i: SignIndustrialReportInput!) { signIndustrialReport(input: $i) { id sha256 signerName signerEmail receivedAt document } }`;
const VERIFY = `query($id: ID!) { verifyCopyOfRecord(reportId: $id) { valid storedSha256 computedSha256 matchesReport problems } }`;

const fields = (r: GqlResponse) => r.errors?.[0]?.extensions?.fields ?? {};

async function pay(c: Client, paymentId: string) {
  const { startCheckout } = await c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`, { id: paymentId });
  const sessionId = startCheckout.url.split("/").pop();
  const done = await c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { status } }`, { s: sessionId });
  expect(done.completeTestCheckout.status).toBe("PAID");
}

async function emails(to: string, kind: string): Promise<{ subject: string; body_text: string }[]> {
  return db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = $1 AND kind = $2 ORDER BY created_at`, [to, kind]);
}

beforeAll(async () => {
  travelTo("2026-09-01T14:00:00Z");
  srv = await startTestServer();
  anon = new Client(srv.url);
  ({ lakeview, huron } = await anon.ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [operator, clerk] = await Promise.all([DEMO.lakeviewOperator, DEMO.lakeviewClerk].map(signedIn));
});
afterAll(async () => {
  resetClock();
  await srv?.close();
});

describe("the application (SUL 1004 A)", () => {
  let f: Firm;
  let other: Firm;
  beforeAll(async () => {
    [f, other] = [await firm("Harbor Plating Works LLC"), await firm("Other Industries Inc")];
  });

  it("is refused while the Town Board has not set the fee (Lakeview's rulebook leaves it blank)", async () => {
    const { saveIndustrialApplication: d } = await f.owner.ok(SAVE, { i: application(f) });
    const r = await f.owner.gql(SUBMIT, { id: d.id });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toMatch(/has not set the discharge permit application fee .*Sewer Use Law 1004 A/);
  });

  it("Huron's law has no discharge permit program: an application there is refused", async () => {
    const r = await f.owner.gql(SAVE, { i: application(f, { districtId: huron.id }) });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toMatch(/no wastewater discharge permit program \(Huron III-2\)/);
  });

  it("the fee set, the owner applies; a plain member may not, another organization gets NOT_FOUND", async () => {
    const admin = await signedIn(DEMO.lakeviewAdmin);
    await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: { districtId: lakeview.id, changes: [{ key: "industrial.applicationFee", value: 50000 }], effectiveDate: "2026-09-01", reason: "Town Board resolution 2026-41 sets the fee", resolutionNumber: "2026-41", resolutionAdoptedOn: "2026-08-18" },
    });
    expect(errorCode(await f.member.gql(SAVE, { i: application(f) }))).toBe("FORBIDDEN");
    const { saveIndustrialApplication: d } = await f.owner.ok(SAVE, { i: application(f) });
    expect(d).toMatchObject({ status: "DRAFT", viewerRole: "OWNER", tradeSecretFields: ["activities"] });
    for (const op of [
      other.owner.gql(SAVE, { i: { ...application(other), id: d.id } }),
      other.owner.gql(SUBMIT, { id: d.id }),
      other.owner.gql(`mutation($id: ID!) { withdrawIndustrialApplication(id: $id) { id } }`, { id: d.id }),
      other.owner.gql(GET, { id: d.id }),
      anon.gql(GET, { id: d.id }),
      clerk.gql(GET, { id: d.id }), // staff see applications once submitted, not drafts
    ])
      expect(errorCode(await op)).toBe("NOT_FOUND");
  });

  it("wastewater constituents can never be marked as trade secrets (SUL 1014)", async () => {
    const r = await f.owner.gql(SAVE, { i: application(f, { tradeSecretFields: ["pollutants"] }) });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(fields(r).tradeSecretFields).toMatch(/never be kept confidential \(SUL 1014\)/);
    expect(fields(await f.owner.gql(SAVE, { i: application(f, { tradeSecretFields: ["constituents"] }) })).tradeSecretFields).toMatch(/never/);
  });

  it("checks every item on submission, and the compliance schedule: increments at most 9 months, the whole at most 18", async () => {
    const { saveIndustrialApplication: empty } = await f.owner.ok(SAVE, { i: { organizationId: f.orgId, districtId: lakeview.id } });
    const r = await f.owner.gql(SUBMIT, { id: empty.id });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(Object.keys(fields(r)).sort()).toEqual(
      ["activities", "averageFlowGpd", "city", "constituents", "dischargeSchedule", "employees", "facilityName", "hoursOfOperation", "labReportDocumentIds", "peakFlowGpd", "planDocumentIds", "products", "rawMaterials", "sicCodes", "standardsMet", "street", "zip"].sort(),
    );
    const noSchedule = await f.owner.ok(SAVE, { i: { ...application(f, { standardsMet: false }), id: empty.id } });
    expect(fields(await f.owner.gql(SUBMIT, { id: noSchedule.saveIndustrialApplication.id })).complianceSchedule).toMatch(/SUL 1004 A\(12\)/);
    const tenMonths = [{ milestone: "Hire an engineer", dueOn: "2027-07-02" }];
    await f.owner.ok(SAVE, { i: { ...application(f, { standardsMet: false, complianceSchedule: tenMonths }), id: empty.id } });
    expect(fields(await f.owner.gql(SUBMIT, { id: empty.id })).complianceSchedule).toMatch(/more than 9 months .*Sewer Use Law 1004 A\(12\)\(b\)/);
    const nineteen = [
      { milestone: "Complete final plans", dueOn: "2027-06-01" },
      { milestone: "Complete construction", dueOn: "2028-03-01" },
      { milestone: "Begin routine operation", dueOn: "2028-04-01" },
    ];
    await f.owner.ok(SAVE, { i: { ...application(f, { standardsMet: false, complianceSchedule: nineteen }), id: empty.id } });
    expect(fields(await f.owner.gql(SUBMIT, { id: empty.id })).complianceSchedule).toMatch(/past 18 months/);
    const good = [
      { milestone: "Complete final plans", dueOn: "2027-06-01" },
      { milestone: "Begin routine operation", dueOn: "2028-03-01" },
    ];
    await f.owner.ok(SAVE, { i: { ...application(f, { standardsMet: false, complianceSchedule: good }), id: empty.id } });
    const { submitIndustrialApplication: s } = await f.owner.ok(SUBMIT, { id: empty.id });
    expect(s.status).toBe("SUBMITTED");
    await f.owner.ok(`mutation($id: ID!) { withdrawIndustrialApplication(id: $id) { status } }`, { id: empty.id });
  });
});

describe("from application to permit, report, signature and copy of record", () => {
  let f: Firm;
  let other: Firm;
  let permitId: string;
  let reportId: string;

  beforeAll(async () => {
    [f, other] = [await firm("Lakeside Anodizing Co"), await firm("Rival Metals Corp")];
    const { saveIndustrialApplication: d } = await f.owner.ok(SAVE, { i: application(f) });
    permitId = d.id;
  });

  it("submission takes the fee from the rulebook, opens the payment and copies the district's limits (SUL 903)", async () => {
    await f.owner.ok(SAVE, { i: { ...application(f), id: permitId } });
    const { submitIndustrialApplication: s } = await f.owner.ok(SUBMIT, { id: permitId });
    expect(s).toMatchObject({ status: "SUBMITTED", feeCents: 50000, paidAt: null });
    expect(s.limits.find((l: any) => l.parameter === "Zinc")).toMatchObject({ kind: "CONCENTRATION", unit: "mg/L", average: 1.2, maximum: 1.6, section: "Sewer Use Law 903" });
    expect(s.limits.find((l: any) => l.parameter === "pH")).toMatchObject({ minimum: 5, maximum: 10 });
    const [mail] = await emails(f.ownerEmail, "industrial.submitted");
    expect(mail.body_text).toMatch(/Fee: \$500\.00 \(Sewer Use Law 1004 A\)/);
    await pay(f.owner, s.paymentId);
    expect((await f.owner.ok(GET, { id: permitId })).industrialPermit.paidAt).not.toBeNull();
    // staff see it now; the public does not until the notice
    expect((await clerk.ok(GET, { id: permitId })).industrialPermit.activities).toMatch(/proprietary/);
    expect(errorCode(await anon.gql(GET, { id: permitId }))).toBe("NOT_FOUND");
  });

  it("only the District Operator publishes the notice; it is on the public notices page, trade secrets withheld", async () => {
    expect(errorCode(await clerk.gql(PUBLISH, { id: permitId }))).toBe("FORBIDDEN");
    expect(errorCode(await f.owner.gql(PUBLISH, { id: permitId }))).toBe("FORBIDDEN");
    const { publishIndustrialNotice: p } = await operator.ok(PUBLISH, { id: permitId });
    expect(p).toMatchObject({ status: "NOTICE_PUBLISHED", noticePublishedOn: "2026-09-01", earliestIssueOn: "2026-09-15" });
    expect(p.noticeText).toMatch(/will not be issued before September 15, 2026 \(Sewer Use Law 1004 H\)/);
    const { industrialNotices } = await anon.ok(`{ industrialNotices(districtSlug: "lakeview") { id facilityName activities withheldFields noticeText } }`);
    expect(industrialNotices.find((x: any) => x.id === permitId)).toMatchObject({ activities: null, withheldFields: ["activities"] });
    const pub = (await anon.ok(GET, { id: permitId })).industrialPermit;
    expect(pub).toMatchObject({ activities: null, withheldFields: ["activities"], viewerRole: null });
    expect(pub.limits.length).toBeGreaterThan(10); // limits are public
    expect((await other.owner.ok(GET, { id: permitId })).industrialPermit.activities).toBeNull();
    expect((await f.member.ok(GET, { id: permitId })).industrialPermit.activities).toMatch(/proprietary/);
    expect((await operator.ok(GET, { id: permitId })).industrialPermit.activities).toMatch(/proprietary/);
    const { publicIndustrialPermits } = await anon.ok(`{ publicIndustrialPermits(search: "anodizing") { id permitNumber } }`);
    expect(publicIndustrialPermits.map((x: any) => x.id)).toContain(permitId);
    // public, but another organization still cannot edit it
    expect(errorCode(await other.owner.gql(`mutation($id: ID!) { withdrawIndustrialApplication(id: $id) { id } }`, { id: permitId }))).toBe("NOT_FOUND");
  });

  it("the Operator edits the limits per permit, including a mass limit; units are checked", async () => {
    const { industrialPermit } = await operator.ok(GET, { id: permitId });
    const limits = industrialPermit.limits.map(({ parameter, kind, unit, average, maximum, minimum, section }: any) => ({ parameter, kind, unit, average, maximum, minimum, section }));
    const bad = await operator.gql(`mutation($id: ID!, $l: [IndustrialLimitInput!]!) { setIndustrialPermitLimits(id: $id, limits: $l) { id } }`, {
      id: permitId,
      l: [...limits, { parameter: "Zinc", kind: "MASS", unit: "mg/L", average: 0.1 }],
    });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(Object.values(fields(bad))[0]).toMatch(/A mass limit cannot be in mg\/L/);
    const { setIndustrialPermitLimits: s } = await operator.ok(
      `mutation($id: ID!, $l: [IndustrialLimitInput!]!) { setIndustrialPermitLimits(id: $id, limits: $l) { limits { parameter kind unit average section } } }`,
      { id: permitId, l: [...limits, { parameter: "Zinc", kind: "MASS", unit: "lb/day", average: 0.5 }] },
    );
    expect(s.limits.at(-1)).toEqual({ parameter: "Zinc", kind: "MASS", unit: "lb/day", average: 0.5, section: "Permit condition (Sewer Use Law 904)" });
    expect(errorCode(await other.owner.gql(`mutation($id: ID!, $l: [IndustrialLimitInput!]!) { setIndustrialPermitLimits(id: $id, limits: $l) { id } }`, { id: permitId, l: limits }))).toBe("FORBIDDEN");
  });

  it("issuance on day 13 after the notice is refused; on day 14 it works; the term is at most 5 years (SUL 1004 D, H)", async () => {
    travelTo("2026-09-14T14:00:00Z");
    const early = await operator.gql(ISSUE, { i: { id: permitId, expiresOn: "2031-09-13" } });
    expect(errorCode(early)).toBe("CONFLICT");
    expect(early.errors![0].message).toMatch(/published on September 1, 2026, 13 days ago; the permit can be issued from September 15, 2026, 14 days after it \(Sewer Use Law 1004 H\)/);
    advanceClock(DAY_MS);
    // Five years from 15 September 2026 end on 14 September 2031: a day more is refused (at the limit and just past it).
    const long = await operator.gql(ISSUE, { i: { id: permitId, expiresOn: "2031-09-15" } });
    expect(fields(long).expiresOn).toBe("A permit lasts at most 5 years (Sewer Use Law 1004 D): its last day is September 14, 2031 at the latest.");
    expect(errorCode(await f.owner.gql(ISSUE, { i: { id: permitId, expiresOn: "2031-09-14" } }))).toBe("FORBIDDEN");
    const { issueIndustrialPermit: p } = await operator.ok(ISSUE, { i: { id: permitId, expiresOn: "2031-09-14" } });
    expect(p).toMatchObject({ status: "ISSUED", effectiveOn: "2026-09-15", expiresOn: "2031-09-14", reportingMonths: [6, 12] });
    expect(p.permitNumber).toMatch(/^[A-Z]+-IU-2026-0001$/);
    expect(p.reports[0]).toMatchObject({ periodStart: "2026-09-15", periodEnd: "2026-11-30", dueOn: "2026-12-31", status: "DUE" });
    expect(p.reports[1]).toMatchObject({ periodStart: "2026-12-01", periodEnd: "2027-05-31", dueOn: "2027-06-30" });
    expect(p.reports.at(-1)).toMatchObject({ periodEnd: "2031-09-14", dueOn: "2031-12-31" });
    expect(p.nextReport).toMatchObject({ id: p.reports[0].id, dueOn: "2026-12-31", daysLeft: 107 });
    reportId = p.reports[0].id;
    // The next report is the dashboard's task, in words, linked to the report where it is filed.
    const { myDashboard } = await f.ar.ok(`{ myDashboard { items { kind nextStep nextStepHref href } } }`);
    expect(myDashboard.items.find((i: any) => i.kind === "DischargePermit")).toMatchObject({
      nextStep: expect.stringMatching(/^File the compliance report for [A-Z][a-z]+ \d{1,2}, 2026 to November 30, 2026 \(Sewer Use Law 1005\(3\)\)$/),
      nextStepHref: `/industrial/reports/${reportId}`,
      href: `/industrial/${permitId}`,
    });
    const [mail] = await emails(f.arEmail, "industrial.issued");
    expect(mail.body_text).toMatch(/Apply for reissuance by March 18, 2031 \(Sewer Use Law 1004 E\)/);
  });

  it("reminders come from the job queue: before each report and before the reissuance deadline (SUL 1004 E)", async () => {
    travelTo("2026-12-17T15:00:00Z");
    while ((await runDueJobs(db(), log)) > 0);
    expect((await emails(f.arEmail, "industrial.report_reminder")).map((m) => m.subject)).toEqual([expect.stringMatching(/due December 31, 2026/)]);
    travelTo("2031-03-20T15:00:00Z");
    while ((await runDueJobs(db(), log)) > 0);
    const reissue = await emails(f.ownerEmail, "industrial.reissuance_reminder");
    expect(reissue).toHaveLength(2);
    expect(reissue[0].body_text).toMatch(/at least 180 days before, by March 18, 2031 \(Sewer Use Law 1004 E\)/);
    expect(reissue[0].body_text).toContain(`See the permit: http://tapline.test/industrial/${permitId}`);
    travelTo("2026-12-03T15:00:00Z");
  });

  it("results are judged as they are saved: zinc 1.30 mg/L on a composite exceeds 1.20 and opens the 24-hour and 30-day duties", async () => {
    const zinc = { parameter: "Zinc", sampleType: "COMPOSITE", sampledAt: "2026-11-10T08:30", value: 1.3, unit: "mg/L", lab: "Upstate Analytical (NYSDOH 11234)", method: "EPA 200.7" };
    const { addIndustrialResults: [r] } = await f.member.ok(ADD, { r: reportId, x: [zinc] });
    expect(r).toMatchObject({ status: "EXCEEDS", basis: "AVERAGE", limitValue: 1.2, comparedValue: 1.3 });
    expect(r.message).toBe("1.3 mg/L exceeds the average daily limit (composite sample) of 1.2 mg/L (Sewer Use Law 903).");
    expect(r.duties).toEqual([
      expect.objectContaining({ kind: "NOTIFY", dueAt: expect.stringMatching(/^2026-12-04T15:00:0/), section: "Sewer Use Law 1005(4)" }),
      expect.objectContaining({ kind: "RESAMPLE", dueOn: "2027-01-02", section: "Sewer Use Law 1005(4)" }),
    ]);
    const [mail] = await emails(f.memberEmail, "industrial.exceedance");
    expect(mail.body_text).toMatch(/Repeat the Zinc sampling and analysis and send the results within 30 days \(Sewer Use Law 1005\(4\)\)/);
    expect(mail.body_text).toContain(`See the report: http://tapline.test/industrial/reports/${reportId}`);
    // the open duty is what is due next on the organization's dashboard
    const { myDashboard } = await f.ar.ok(`{ myDashboard { items { kind title nextStep nextStepHref dueDate href } } }`);
    expect(myDashboard.items.find((i: any) => i.kind === "DischargePermit")).toMatchObject({
      nextStep: "Notify the District Operator of the Zinc violation within 24 hours of learning of it (Sewer Use Law 1005(4))",
      dueDate: "2026-12-04",
      href: `/industrial/${permitId}`,
      // the task links to where the notification is recorded
      nextStepHref: `/industrial/${permitId}/events#notify`,
    });
    // every task on the dashboard links to its action
    expect(myDashboard.items.filter((i: any) => i.nextStep && !i.nextStepHref)).toEqual([]);
    const grab = await f.member.ok(ADD, { r: reportId, x: [{ ...zinc, sampleType: "GRAB" }] });
    expect(grab.addIndustrialResults[0]).toMatchObject({ status: "OK", basis: "MAXIMUM", limitValue: 1.6 });
    const ug = await f.member.ok(ADD, { r: reportId, x: [{ ...zinc, value: 1100, unit: "µg/L" }] });
    expect(ug.addIndustrialResults[0]).toMatchObject({ status: "OK", comparedValue: 1.1, conversion: "1,100 µg/L = 1.1 mg/L" });
    const mass = await f.member.ok(ADD, { r: reportId, x: [{ ...zinc, value: 0.6, unit: "lb/day" }] });
    expect(mass.addIndustrialResults[0]).toMatchObject({ status: "EXCEEDS", limitValue: 0.5 });
    // refused: not a parameter of the permit, outside the period, incompatible unit
    const bad = await f.member.gql(ADD, { r: reportId, x: [{ ...zinc, parameter: "Zink" }] });
    expect(fields(bad).parameter).toMatch(/"Zink" is not a parameter of this permit/);
    expect(fields(await f.member.gql(ADD, { r: reportId, x: [{ ...zinc, sampledAt: "2026-12-01T08:00" }] })).sampledAt).toMatch(/within the report's period/);
    expect(fields(await f.member.gql(ADD, { r: reportId, x: [{ ...zinc, parameter: "pH", unit: "mg/L" }] })).unit).toMatch(/cannot be compared/);
    // another organization cannot see or add to the report
    expect(errorCode(await other.owner.gql(ADD, { r: reportId, x: [zinc] }))).toBe("NOT_FOUND");
    expect(errorCode(await other.owner.gql(REPORT, { id: reportId }))).toBe("NOT_FOUND");
    expect(errorCode(await anon.gql(REPORT, { id: reportId }))).toBe("NOT_FOUND");
    const { industrialReport } = await f.owner.ok(REPORT, { id: reportId });
    expect(industrialReport.status).toBe("DRAFT");
    expect(industrialReport.duties.map((d: any) => d.kind)).toEqual(["NOTIFY", "NOTIFY", "RESAMPLE", "RESAMPLE"]);
    const { industrialPermit } = await f.owner.ok(GET, { id: permitId });
    expect(industrialPermit.openDuties.filter((d: any) => d.kind === "RESAMPLE")).toHaveLength(2);
  });

  it("a CSV with a bad row is refused line by line and nothing from it is saved; a good one is saved", async () => {
    const before = (await f.owner.ok(REPORT, { id: reportId })).industrialReport.results.length;
    const header = "sampled_at,sample_type,parameter,value,unit,below_detection,detection_limit,flow_mgd,lab,method";
    const csv = [
      header,
      "2026-11-12T09:00,composite,Copper,0.5,mg/L,,,,Upstate Analytical,EPA 200.7",
      "2026-11-12T09:00,grab,pH,banana,s.u.,,,,Upstate Analytical,SM 4500-H+ B",
      "2026-11-12T09:00,composite,Cadmium,,mg/L,yes,0.01,,Upstate Analytical,EPA 200.7",
      "2026-11-12T09:00,composite,Unobtainium,1,mg/L,,,,Upstate Analytical,EPA 200.7",
      "2026-11-31T09:00,composite,Copper,0.5,mg/L,,,,Upstate Analytical,EPA 200.7",
      "2026-11-12T09:60,composite,Copper,0.5,mg/L,,,,Upstate Analytical,EPA 200.7",
      "2026-11-12T24:00,composite,Copper,0.5,mg/L,,,,Upstate Analytical,EPA 200.7",
    ].join("\n");
    const r = await f.member.gql(CSV, { r: reportId, csv });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(fields(r)).toMatchObject({
      csv: expect.stringMatching(/5 lines have errors; nothing from the file was saved/),
      "line 3": expect.stringMatching(/^Line 3: Enter the measured value/),
      "line 5": expect.stringMatching(/^Line 5: "Unobtainium" is not a parameter/),
      // 31 November, minute 60 and hour 24 are no times at all
      "line 6": expect.stringMatching(/^Line 6: Give the sample's date and time/),
      "line 7": expect.stringMatching(/^Line 7: Give the sample's date and time/),
      "line 8": expect.stringMatching(/^Line 8: Give the sample's date and time/),
    });
    expect((await f.owner.ok(REPORT, { id: reportId })).industrialReport.results).toHaveLength(before);
    const good = [header, "2026-11-12T09:00,composite,Copper,0.5,mg/L,,,,Upstate Analytical,EPA 200.7", `2026-11-12T09:00,grab,Cadmium,<0.01,mg/L,,,,"Upstate Analytical, Albany",EPA 200.7`].join("\r\n");
    const ok = await f.member.ok(CSV, { r: reportId, csv: good });
    expect(ok.uploadIndustrialResultsCsv.map((x: any) => [x.parameter, x.status])).toEqual([
      ["Copper", "OK"],
      ["Cadmium", "OK"],
    ]);
  });

  it("a CSV's errors name the file's own lines (a BOM, an empty line, a quoted field over two lines); a broken quote is refused plainly", async () => {
    const header = "sampled_at,sample_type,parameter,value,unit,below_detection,detection_limit,flow_mgd,lab,method";
    const csv = ["\uFEFF" + header, "", `2026-11-12T09:00,composite,Copper,0.5,mg/L,,,,"Upstate`, `Analytical",EPA 200.7`, "2026-11-12T09:00,grab,pH,banana,s.u.,,,,Upstate Analytical,SM 4500-H+ B"].join("\n");
    const r = await f.member.gql(CSV, { r: reportId, csv });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(Object.keys(fields(r)).filter((k) => k.startsWith("line"))).toEqual(["line 5"]);
    expect(fields(r)["line 5"]).toMatch(/^Line 5: Enter the measured value/);
    const broken = await f.member.gql(CSV, { r: reportId, csv: [header, `2026-11-12T09:00,composite,Copper,0.5,mg/L,,,,Upstate "Analytical,EPA 200.7`].join("\n") });
    expect(errorCode(broken)).toBe("BAD_USER_INPUT");
    expect(fields(broken).csv).toMatch(/^The file is not a CSV file we can read \(line 2\)/);
  });

  it("only the Authorized Representative signs, re-entering the password, for the copy reviewed", async () => {
    const { industrialReport: before } = await f.ar.ok(REPORT, { id: reportId });
    const input = { reportId, password: PASSWORD, certify: true, reviewedHash: before.contentHash };
    expect(before.certification).toMatch(/^I certify under penalty of law/);
    expect(errorCode(await f.owner.gql(SIGN, { i: input }))).toBe("FORBIDDEN"); // the owner is not the AR
    expect(errorCode(await f.member.gql(SIGN, { i: input }))).toBe("FORBIDDEN");
    expect(errorCode(await other.ar.gql(SIGN, { i: input }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(SIGN, { i: input }))).toBe("NOT_FOUND");
    expect(fields(await f.ar.gql(SIGN, { i: { ...input, password: "not my password at all" } })).password).toMatch(/not right/);
    expect(fields(await f.ar.gql(SIGN, { i: { ...input, certify: false } })).certify).toMatch(/certification/);
    expect(errorCode(await f.ar.gql(SIGN, { i: { ...input, reviewedHash: "0".repeat(64) } }))).toBe("CONFLICT");

    const { signIndustrialReport: c } = await f.ar.ok(SIGN, { i: input });
    expect(c).toMatchObject({ signerEmail: f.arEmail, receivedAt: expect.stringMatching(/^2026-12-03T15:0/) });
    expect(c.sha256).toMatch(/^[0-9a-f]{64}$/);
    const doc = JSON.parse(c.document);
    expect(doc.signature).toMatchObject({ signerEmail: f.arEmail, receivedAt: c.receivedAt });
    expect(doc.results.find((x: any) => x.parameter === "Zinc" && x.value === 1.3).evaluation.status).toBe("EXCEEDS");
    const [ack] = await emails(f.arEmail, "industrial.report_acknowledgment");
    expect(ack.body_text).toContain(`Document: report ${reportId}`);
    expect(ack.body_text).toContain(`Signed by: Avery Rep`);
    // on the district's clock, in words, not an ISO instant
    expect(ack.body_text).toMatch(/Received: Dec 3, 2026, 10:0\d AM EST\n/);
    expect(ack.body_text).toContain(c.sha256);
  });

  it("the copy of record verifies, for anyone (a signed report is a public record, SUL 1014); nothing can change it", async () => {
    const { verifyCopyOfRecord: v } = await anon.ok(VERIFY, { id: reportId });
    expect(v).toMatchObject({ valid: true, matchesReport: true, problems: [] });
    expect(v.computedSha256).toBe(v.storedSha256);
    const pub = (await anon.ok(REPORT, { id: reportId })).industrialReport;
    expect(pub).toMatchObject({ status: "SIGNED", contentHash: null, duties: [] });
    // renaming the organization later does not unsettle what was certified
    await db().query(`UPDATE organization SET name = 'Lakeside Anodizing Company' WHERE id = $1`, [f.orgId]);
    expect((await anon.ok(VERIFY, { id: reportId })).verifyCopyOfRecord.valid).toBe(true);
    await expect(db().query(`UPDATE industrial_copy_of_record SET document = 'x' WHERE report_id = $1`, [reportId])).rejects.toThrow(/cannot be changed/);
    await expect(db().query(`DELETE FROM industrial_copy_of_record WHERE report_id = $1`, [reportId])).rejects.toThrow(/cannot be changed/);
    await expect(db().query(`UPDATE industrial_result SET value = 0.1 WHERE report_id = $1`, [reportId])).rejects.toThrow(/signed/);
    // were the results changed behind the triggers' back, verification would say so
    await db().query(`ALTER TABLE industrial_result DISABLE TRIGGER industrial_result_locked`);
    try {
      await db().query(`UPDATE industrial_result SET value = value / 2 WHERE report_id = $1 AND parameter = 'Zinc' AND value = 1.3`, [reportId]);
      const { verifyCopyOfRecord: bad } = await anon.ok(VERIFY, { id: reportId });
      expect(bad).toMatchObject({ valid: false, matchesReport: false, problems: ["The report's stored results differ from the copy of record."] });
      expect(bad.computedSha256).toBe(bad.storedSha256);
      await db().query(`UPDATE industrial_result SET value = 1.3 WHERE report_id = $1 AND parameter = 'Zinc' AND value = 0.65`, [reportId]);
    } finally {
      await db().query(`ALTER TABLE industrial_result ENABLE TRIGGER industrial_result_locked`);
    }
    expect((await anon.ok(VERIFY, { id: reportId })).verifyCopyOfRecord.valid).toBe(true);
  });

  it("a signed report cannot be edited; an amendment is a new report starting from its results", async () => {
    const zinc = { parameter: "Zinc", sampleType: "COMPOSITE", sampledAt: "2026-11-11T08:30", value: 1.0, unit: "mg/L", lab: "Upstate Analytical", method: "EPA 200.7" };
    const add = await f.ar.gql(ADD, { r: reportId, x: [zinc] });
    expect(errorCode(add)).toBe("CONFLICT");
    expect(add.errors![0].message).toMatch(/signed and cannot be changed/);
    const { industrialReport: signed } = await f.ar.ok(REPORT, { id: reportId });
    expect(errorCode(await f.ar.gql(`mutation($id: ID!) { deleteIndustrialResult(id: $id) { id } }`, { id: signed.results[0].id }))).toBe("CONFLICT");
    expect(errorCode(await f.ar.gql(SIGN, { i: { reportId, password: PASSWORD, certify: true, reviewedHash: "x" } }))).toBe("CONFLICT");
    expect(errorCode(await other.owner.gql(`mutation($id: ID!) { amendIndustrialReport(id: $id) { id } }`, { id: reportId }))).toBe("NOT_FOUND");
    const { amendIndustrialReport: a } = await f.owner.ok(`mutation($id: ID!) { amendIndustrialReport(id: $id) { id status amendsId } }`, { id: reportId });
    expect(a).toMatchObject({ status: "DRAFT", amendsId: reportId });
    const { industrialReport: amended } = await f.owner.ok(REPORT, { id: a.id });
    expect(amended.results).toHaveLength(signed.results.length);
    expect((await f.owner.ok(REPORT, { id: reportId })).industrialReport.amendedById).toBe(a.id);
    await f.owner.ok(`mutation($id: ID!) { deleteIndustrialResult(id: $id) { id } }`, { id: amended.results.find((x: any) => x.parameter === "Copper").id });
    // the original's copy of record still verifies
    expect((await anon.ok(VERIFY, { id: reportId })).verifyCopyOfRecord.valid).toBe(true);
  });

  it("staff see the district's received and late reports and its exceedances", async () => {
    const INBOX = `query($d: ID!, $v: String!) { industrialReportInbox(districtId: $d, view: $v) { nextCursor items { id status dueOn daysLeft permit { facilityName organizationName } } } }`;
    const received = (await clerk.ok(INBOX, { d: lakeview.id, v: "RECEIVED" })).industrialReportInbox.items;
    expect(received.find((r: any) => r.id === reportId)).toMatchObject({ status: "SIGNED", permit: { facilityName: "Harbor Plating Works" } });
    expect((await clerk.ok(INBOX, { d: lakeview.id, v: "LATE" })).industrialReportInbox.items).toEqual([]);
    travelTo("2027-07-05T15:00:00Z");
    const late = (await clerk.ok(INBOX, { d: lakeview.id, v: "LATE" })).industrialReportInbox.items;
    expect(late).toEqual([expect.objectContaining({ dueOn: "2027-06-30", status: "DUE", daysLeft: -5 })]);
    travelTo("2026-12-03T16:00:00Z");
    const EXC = `query($d: ID!) { industrialExceedances(districtId: $d) { items { parameter status comparedValue limitValue report { id permit { permitNumber } } } } }`;
    const exc = (await operator.ok(EXC, { d: lakeview.id })).industrialExceedances.items;
    expect(exc.length).toBeGreaterThan(0);
    expect(exc.every((x: any) => x.status === "EXCEEDS" && x.report.id !== reportId)).toBe(true); // the amended report's results stand in for the signed one's
    expect(exc.some((x: any) => x.parameter === "Zinc" && x.comparedValue === 1.3 && x.limitValue === 1.2)).toBe(true);
    expect(errorCode(await clerk.gql(INBOX, { d: huron.id, v: "LATE" }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(INBOX, { d: lakeview.id, v: "SOMETIME" }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await f.owner.gql(EXC, { d: lakeview.id }))).toBe("FORBIDDEN");
  });

  it("significant non-compliance over a six-month period (SUL 201): TRC at exactly 1.2 times the limit; a report 31 days late but not 30", async () => {
    const SNC = `query($id: ID!, $s: String) { industrialPermitSnc(permitId: $id, periodStart: $s) { periodStart periodEnd inSnc notJudged
      findings { criterion parameter reportId text section } parameters { parameter total exceeded atOrAboveTrc trcFactor chronic trc measurements { value limit exceeds atOrAboveTrc } } } }`;
    // The amendment's zinc results stand for the signed report's: composite 1.3 (average 1.2, over), grab 1.3 (maximum 1.6),
    // 1,100 µg/L composite, 0.6 lb/day (mass limit 0.5, over, at exactly 1.2 times). Add a grab at exactly 1.2 x 1.6 = 1.92.
    const amendment = (await f.owner.ok(REPORT, { id: reportId })).industrialReport.amendedById;
    const zincAt = (sampleType: string, value: number) => ({ parameter: "Zinc", sampleType, sampledAt: "2026-11-20T08:30", value, unit: "mg/L", lab: "Upstate Analytical", method: "EPA 200.7" });
    await f.member.ok(ADD, { r: amendment, x: [zincAt("GRAB", 1.92)] });
    const { industrialPermitSnc: s } = await operator.ok(SNC, { id: permitId, s: "2026-07-01" });
    expect(s).toMatchObject({ periodStart: "2026-07-01", periodEnd: "2026-12-31" });
    let zinc = s.parameters.find((x: any) => x.parameter === "Zinc");
    // 3 of 5 over (60 %: not chronic); 2 of 5 at or above 1.2 x (40 %: TRC)
    expect(zinc).toMatchObject({ total: 5, exceeded: 3, atOrAboveTrc: 2, trcFactor: 1.2, chronic: false, trc: true });
    expect(zinc.measurements.filter((m: any) => m.atOrAboveTrc).map((m: any) => [m.value, m.limit])).toEqual([
      [0.6, 0.5],
      [1.92, 1.6],
    ]);
    expect(s.findings).toEqual([
      expect.objectContaining({ criterion: "TRC", parameter: "Zinc", section: "Sewer Use Law 201 (Significant Non-Compliance)", text: expect.stringMatching(/2 of 5 Zinc measurements \(40%\) are at or above 1.2 times the limit/) }),
    ]);
    // One more composite over the average: 4 of 6 (66.7 %) is chronic.
    await f.member.ok(ADD, { r: amendment, x: [zincAt("COMPOSITE", 1.25)] });
    const again = (await operator.ok(SNC, { id: permitId, s: "2026-07-01" })).industrialPermitSnc;
    zinc = again.parameters.find((x: any) => x.parameter === "Zinc");
    expect(zinc).toMatchObject({ total: 6, exceeded: 4, chronic: true, trc: true });
    expect(again.findings.map((x: any) => x.criterion)).toEqual(["CHRONIC", "TRC"]);
    expect(again.findings[0].text).toMatch(/4 of 6 Zinc measurements \(66.7%\) exceed the limit; 66% or more/);
    expect(s.inSnc).toBe(true);
    expect(s.notJudged[0]).toMatch(/milestones missed by 90 days/);
    // The June 2027 report: 30 days late is not SNC, 31 days is.
    travelTo("2027-07-30T15:00:00Z");
    const day30 = (await operator.ok(SNC, { id: permitId, s: "2027-01-01" })).industrialPermitSnc;
    expect(day30.findings.filter((x: any) => x.criterion === "LATE_REPORT")).toEqual([]);
    travelTo("2027-07-31T15:00:00Z");
    const day31 = (await operator.ok(SNC, { id: permitId, s: "2027-01-01" })).industrialPermitSnc;
    expect(day31.findings).toEqual([expect.objectContaining({ criterion: "LATE_REPORT", text: expect.stringMatching(/due June 30, 2027, is 31 days late and not received; more than 30 days/) })]);
    travelTo("2026-12-03T16:30:00Z");
    expect(errorCode(await f.owner.gql(SNC, { id: permitId }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedIn(DEMO.huronClerk)).gql(SNC, { id: permitId }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(SNC, { id: permitId, s: "2026-07-15" }))).toBe("BAD_USER_INPUT");
  });

  it("a duty is marked done by the organization; others get NOT_FOUND", async () => {
    const { industrialPermit } = await f.owner.ok(`query($id: ID!) { industrialPermit(id: $id) { openDuties { id kind } } }`, { id: permitId });
    const duty = industrialPermit.openDuties[0];
    expect(errorCode(await other.owner.gql(`mutation($id: ID!) { completeIndustrialDuty(id: $id) { id } }`, { id: duty.id }))).toBe("NOT_FOUND");
    const done = await f.owner.ok(`mutation($id: ID!) { completeIndustrialDuty(id: $id) { doneAt } }`, { id: duty.id });
    expect(done.completeIndustrialDuty.doneAt).not.toBeNull();
  });

  it("revocation names a reason of SUL 1004 G", async () => {
    const REVOKE = `mutation($i: RevokeIndustrialPermitInput!) { revokeIndustrialPermit(input: $i) { status revocationReason revocationReasonLabel } }`;
    expect(fields(await operator.gql(REVOKE, { i: { id: permitId, reason: "BAD_VIBES", notes: "x" } })).reason).toMatch(/1004 G/);
    expect(errorCode(await f.owner.gql(REVOKE, { i: { id: permitId, reason: "TAMPERING", notes: "x" } }))).toBe("FORBIDDEN");
    const { revokeIndustrialPermit: r } = await operator.ok(REVOKE, { i: { id: permitId, reason: "TAMPERING", notes: "The composite sampler's intake was found disconnected on December 2." } });
    expect(r).toEqual({ status: "REVOKED", revocationReason: "TAMPERING", revocationReasonLabel: "Tampering with monitoring equipment" });
    const [mail] = await emails(f.ownerEmail, "industrial.revoked");
    expect(mail.body_text).toMatch(/Tampering with monitoring equipment \(Sewer Use Law 1004 G\)/);
  });

  it("the staff queue lists submitted permits of the district only", async () => {
    const { industrialPermitQueue } = await clerk.ok(`query($d: ID!) { industrialPermitQueue(districtId: $d) { items { id status } } }`, { d: lakeview.id });
    expect(industrialPermitQueue.items.map((p: any) => p.id)).toContain(permitId);
    expect(industrialPermitQueue.items.every((p: any) => p.status !== "DRAFT")).toBe(true);
    expect(errorCode(await clerk.gql(`query($d: ID!) { industrialPermitQueue(districtId: $d) { nextCursor } }`, { d: huron.id }))).toBe("FORBIDDEN");
    expect(errorCode(await f.owner.gql(`query($d: ID!) { industrialPermitQueue(districtId: $d) { nextCursor } }`, { d: lakeview.id }))).toBe("FORBIDDEN");
  });

  it("the staff queue costs the same SQL statements for 5 or 40 permits, and pages by submission", async () => {
    await db().query(
      `WITH src AS (SELECT * FROM industrial_permit WHERE id = $1),
            g AS (SELECT generate_series(1, 45) AS k),
            p AS (
              INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, street, city, zip, sic_codes, submitted_at,
                                             notice_published_on, issued_at, effective_on, expires_on, reporting_months, rulebook_version_id, fee_cents)
              SELECT s.district_id, s.organization_id, s.applicant_id, 'ISSUED', 'Bulk plant ' || g.k, s.street, s.city, s.zip, s.sic_codes, now() - make_interval(days => g.k),
                     s.notice_published_on, now(), s.effective_on, s.expires_on, s.reporting_months, s.rulebook_version_id, s.fee_cents
                FROM src s, g RETURNING id)
       INSERT INTO industrial_limit (permit_id, position, parameter, kind, unit, average, maximum, section)
       SELECT p.id, 0, 'Zinc', 'CONCENTRATION', 'mg/L', 1.2, 1.6, 'Sewer Use Law 903' FROM p`,
      [permitId],
    );
    await db().query(
      `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status)
       SELECT id, 'PERIODIC', '2026-12-01', '2027-05-31', '2027-06-30', 'DUE' FROM industrial_permit WHERE facility_name LIKE 'Bulk plant %'`,
    );
    const Q = `query($d: ID!, $f: Int, $a: String) { industrialPermitQueue(districtId: $d, first: $f, after: $a) { nextCursor items {
      id facilityName organizationName districtName statusLabel nextReport { dueOn daysLeft } openDuties { id } limits { parameter } reports { id daysLeft } } } }`;
    const logger = db().logger as any;
    const original = logger.logQuery;
    let count = 0;
    logger.logQuery = function (...args: unknown[]) {
      if (!isSessionBookkeeping(args[0])) count++;
      return original.apply(this, args);
    };
    const statements = async (first: number) => {
      count = 0;
      const page = (await clerk.ok(Q, { d: lakeview.id, f: first })).industrialPermitQueue;
      expect(page.items).toHaveLength(first);
      return count;
    };
    try {
      await statements(5);
      const five = await statements(5);
      const forty = await statements(40);
      expect(forty).toBe(five);
      expect(five).toBeLessThanOrEqual(12);
    } finally {
      logger.logQuery = original;
    }
    const p1 = (await clerk.ok(Q, { d: lakeview.id, f: 20 })).industrialPermitQueue;
    const p2 = (await clerk.ok(Q, { d: lakeview.id, f: 20, a: p1.nextCursor })).industrialPermitQueue;
    expect(new Set([...p1.items, ...p2.items].map((i: any) => i.id)).size).toBe(40);
    expect(errorCode(await clerk.gql(Q, { d: lakeview.id, f: 5, a: "bogus" }))).toBe("BAD_USER_INPUT");
  });
});

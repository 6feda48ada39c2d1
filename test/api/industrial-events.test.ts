import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, errorCode, startTestServer, type GqlResponse, type TestServer } from "../harness.js";
import { applyAndNotice, firm, issue, setFee, sign, signedIn, type Firm } from "./industrial-helpers.js";

/**
 * The reports besides the periodic one, over HTTP: the violation notification within 24 hours and
 * the repeat sampling report within 30 days (SUL 1005(4)), accidental or slug discharges with the
 * written report in 5 days and analyses in 45 (1011), the 90-day and baseline reports (1005(1),
 * (2)), and progress reports on compliance-schedule milestones (1004 A(12)(c)).
 */

let srv: TestServer;
let lakeviewId: string;
let operator: Client;
let clerk: Client;
let anon: Client;
let f: Firm;
let other: Firm;
let permitId: string;
let periodicId: string;
const db = () => srv.running.ds;
const log = pino({ level: "silent" });
const fields = (r: GqlResponse) => r.errors?.[0]?.extensions?.fields ?? {};
const emails = (to: string, kind: string): Promise<{ subject: string; body_text: string }[]> =>
  db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = $1 AND kind = $2 ORDER BY created_at`, [to, kind]);

const ADD = `mutation($r: ID!, $x: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $x) { id status duties { id kind dueAt dueOn } } }`;
const DUTIES = `query($id: ID!) { industrialPermit(id: $id) { duties { id kind dueAt dueOn doneAt onTime daysLeft minutesLeft resampleReportId notification { notifiedWhom method methodLabel notifiedAt text onTime } } } }`;
const NOTIFY = `mutation($i: IndustrialViolationNoticeInput!) { fileViolationNotice(input: $i) { id onTime notifiedAt method } }`;
const START = `mutation($id: ID!) { startResampleReport(dutyId: $id) { id kind kindLabel status periodStart periodEnd dueOn dutyId } }`;
const SLUG = `mutation($i: IndustrialSlugDischargeInput!) { reportSlugDischarge(input: $i) { id reportId writtenDueOn analysesDueOn writtenDaysLeft analysesDaysLeft writtenLate writtenStatus } }`;
const GET_SLUG = `query($id: ID!) { industrialSlugDischarge(id: $id) { id substance estimatedVolumeGallons causes measures writtenDueOn writtenDaysLeft writtenLate writtenStatus analysesDaysLeft permitNumber } }`;
const WRITTEN = `mutation($i: IndustrialSlugWrittenReportInput!) { saveSlugWrittenReport(input: $i) { id writtenStatus } }`;
const zinc = (sampledAt: string, value: number) => ({ parameter: "Zinc", sampleType: "COMPOSITE", sampledAt, value, unit: "mg/L", lab: "Upstate Analytical (NYSDOH 11234)", method: "EPA 200.7" });

beforeAll(async () => {
  travelTo("2026-09-01T14:00:00Z");
  srv = await startTestServer();
  anon = new Client(srv.url);
  ({ lakeview: { id: lakeviewId } } = await anon.ok(`{ lakeview: district(slug: "lakeview") { id } }`));
  [operator, clerk] = await Promise.all([DEMO.lakeviewOperator, DEMO.lakeviewClerk].map((e) => signedIn(srv, e)));
  await setFee(srv, lakeviewId);
  [f, other] = [await firm(srv, "Lakeside Anodizing Co"), await firm(srv, "Rival Metals Corp")];
  permitId = await applyAndNotice(f, operator, lakeviewId, {
    standardsMet: false,
    complianceSchedule: [
      { milestone: "Complete final plans", dueOn: "2027-03-01" },
      { milestone: "Begin routine operation", dueOn: "2027-06-01" },
    ],
  });
  travelTo("2026-09-15T14:00:00Z");
  const p = await issue(operator, permitId, "2031-09-14");
  periodicId = p.reports[0].id;
});
afterAll(async () => {
  resetClock();
  await srv?.close();
});

describe("violation report (SUL 1005(4))", () => {
  let notify: any[];
  let resample: any[];

  it("an exceedance opens the duties; the notification is recorded with who, how, when, what: at 24 hours on time, a minute later late", async () => {
    travelTo("2026-12-03T15:00:00Z");
    const { addIndustrialResults } = await f.member.ok(ADD, { r: periodicId, x: [zinc("2026-11-10T08:30", 1.3), zinc("2026-11-12T08:30", 1.4)] });
    expect(addIndustrialResults.map((x: any) => x.status)).toEqual(["EXCEEDS", "EXCEEDS"]);
    const duties = (await f.owner.ok(DUTIES, { id: permitId })).industrialPermit.duties;
    notify = duties.filter((d: any) => d.kind === "NOTIFY");
    resample = duties.filter((d: any) => d.kind === "RESAMPLE");
    expect(notify).toHaveLength(2);
    expect(notify[0]).toMatchObject({ dueAt: expect.stringMatching(/^2026-12-04T15:00/), doneAt: null, onTime: null, notification: null });
    expect(notify[0].minutesLeft).toBeGreaterThanOrEqual(24 * 60 - 1); // the clock runs on a few milliseconds
    expect(resample[0]).toMatchObject({ dueOn: "2027-01-02", daysLeft: 30, resampleReportId: null });

    const input = { dutyId: notify[0].id, notifiedWhom: "Dana Ortiz, District Operator", method: "PHONE", notifiedAt: "2026-12-04T10:00", text: "Zinc 1.3 mg/L on November 10 over the 1.2 limit; rinse tank valve replaced." };
    expect(errorCode(await other.owner.gql(NOTIFY, { i: input }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(NOTIFY, { i: input }))).toBe("NOT_FOUND");
    const bad = await f.member.gql(NOTIFY, { i: { ...input, notifiedWhom: " ", method: "PIGEON", notifiedAt: "2026-12-31T10:00", text: "" } });
    expect(Object.keys(fields(bad)).sort()).toEqual(["method", "notifiedAt", "notifiedWhom", "text"]);
    expect(errorCode(await f.member.gql(NOTIFY, { i: { ...input, dutyId: resample[0].id } }))).toBe("CONFLICT");

    // six hours before the 24 hours are up, the owner and the AR are reminded of the notification owed
    travelTo("2026-12-04T08:59:00Z");
    while ((await runDueJobs(db(), log)) > 0);
    expect(await emails(f.arEmail, "industrial.notify_reminder")).toEqual([]);
    travelTo("2026-12-04T09:01:00Z");
    while ((await runDueJobs(db(), log)) > 0);
    for (const to of [f.arEmail, f.ownerEmail]) {
      const reminders = await emails(to, "industrial.notify_reminder");
      expect(reminders.map((m) => m.subject)).toEqual([expect.stringMatching(/^Notify the District Operator by Dec 4, 2026, 10:00 AM EST: Zinc violation, permit LKV-/)]);
      expect(reminders[0].body_text).toMatch(/by Dec 4, 2026, 10:00 AM EST \(Sewer Use Law 1005\(4\)\)/);
    }
    expect(await emails(f.memberEmail, "industrial.notify_reminder")).toEqual([]);
    const left = (await f.owner.ok(DUTIES, { id: permitId })).industrialPermit.duties.find((d: any) => d.id === notify[0].id).minutesLeft;
    expect([5 * 60 + 58, 5 * 60 + 59]).toContain(left); // 5 hours 59 minutes, less the milliseconds the clock ran on
    // the portal states the duties in the permit's rulebook's figures, each with its section
    const rules = (await f.owner.ok(`query($id: ID!) { industrialPermit(id: $id) { eventRules { notifyHours { value section } resampleDays { value section } slugWrittenReportDays { value section } } } }`, { id: permitId }))
      .industrialPermit.eventRules;
    expect(rules).toEqual({
      notifyHours: { value: 24, section: "Sewer Use Law 1005(4)" },
      resampleDays: { value: 30, section: "Sewer Use Law 1005(4)" },
      slugWrittenReportDays: { value: 5, section: "Sewer Use Law 1011" },
    });
    // the exceedance email gave the same time on the district's clock
    const [exceedance] = await emails(f.memberEmail, "industrial.exceedance");
    expect(exceedance.body_text).toMatch(/By Dec 4, 2026, 10:00 AM EST: Notify the District Operator of the Zinc violation within 24 hours/);

    travelTo("2026-12-05T15:00:00Z");
    // 10:00 in Lakeview on December 4 is exactly 24 hours after the result was entered: on time
    const onTime = await f.member.ok(NOTIFY, { i: input });
    expect(onTime.fileViolationNotice).toMatchObject({ onTime: true, notifiedAt: "2026-12-04T15:00:00.000Z", method: "PHONE" });
    expect(errorCode(await f.member.gql(NOTIFY, { i: input }))).toBe("CONFLICT");
    const late = await f.member.ok(NOTIFY, { i: { ...input, dutyId: notify[1].id, notifiedAt: "2026-12-04T10:01" } });
    expect(late.fileViolationNotice.onTime).toBe(false); // recorded all the same: late is shown, not refused

    // staff see both, on the permit and in the district's list
    const seen = (await operator.ok(DUTIES, { id: permitId })).industrialPermit.duties.filter((d: any) => d.kind === "NOTIFY");
    expect(seen.map((d: any) => d.onTime).sort()).toEqual([false, true]);
    expect(seen.find((d: any) => d.id === notify[0].id).notification).toMatchObject({ notifiedWhom: "Dana Ortiz, District Operator", methodLabel: "By telephone", onTime: true });
    const { industrialViolationNotices } = await clerk.ok(`query($d: ID!) { industrialViolationNotices(districtId: $d) { nextCursor items { dutyId onTime dueAt } } }`, { d: lakeviewId });
    expect(industrialViolationNotices.items).toHaveLength(2);
    // each with the time it was due (the page's "Due by"), 24 hours after the exceedance was entered
    expect(industrialViolationNotices.items.find((n: any) => n.dutyId === notify[0].id)).toMatchObject({ onTime: true, dueAt: expect.stringMatching(/^2026-12-04T15:00:00\.\d{3}Z$/) }); // less the milliseconds the clock ran on
    expect(industrialViolationNotices.nextCursor).toBeNull();
    expect(errorCode(await f.owner.gql(`query($d: ID!) { industrialViolationNotices(districtId: $d) { items { id } } }`, { d: lakeviewId }))).toBe("FORBIDDEN");
    // the public never sees duties
    expect((await anon.ok(DUTIES, { id: permitId })).industrialPermit.duties).toEqual([]);
  });

  it("the repeat sampling report starts from its duty; signed on day 30 the duty is met on time", async () => {
    expect(errorCode(await other.owner.gql(START, { id: resample[0].id }))).toBe("NOT_FOUND");
    expect(errorCode(await f.member.gql(START, { id: notify[0].id }))).toBe("CONFLICT");
    const { startResampleReport: r } = await f.member.ok(START, { id: resample[0].id });
    expect(r).toMatchObject({ kind: "RESAMPLE", status: "DUE", periodStart: "2026-12-03", periodEnd: "2027-01-02", dueOn: "2027-01-02", dutyId: resample[0].id });
    expect(r.kindLabel).toMatch(/Sewer Use Law 1005\(4\)/);
    expect(errorCode(await f.member.gql(START, { id: resample[0].id }))).toBe("CONFLICT");
    // not met by a bare "done": only by signing the report
    expect(errorCode(await f.owner.gql(`mutation($id: ID!) { completeIndustrialDuty(id: $id) { id } }`, { id: resample[0].id }))).toBe("CONFLICT");
    travelTo("2026-12-21T15:00:00Z");
    // entered like any report: the same evaluation
    const { addIndustrialResults } = await f.member.ok(ADD, { r: r.id, x: [zinc("2026-12-20T08:30", 0.8)] });
    expect(addIndustrialResults[0].status).toBe("OK");
    expect((await f.owner.ok(DUTIES, { id: permitId })).industrialPermit.duties.find((d: any) => d.id === resample[0].id).resampleReportId).toBe(r.id);
    expect(errorCode(await sign(f.member, r.id))).toBe("FORBIDDEN");
    travelTo("2027-01-02T20:00:00Z"); // day 30
    const signed = await sign(f.ar, r.id);
    expect(signed.errors).toBeUndefined();
    const doc = JSON.parse(signed.data!.signIndustrialReport.document);
    expect(doc.document).toMatch(/Repeat sampling report/);
    expect(doc.details.resampleOf).toEqual({ dutyId: resample[0].id, parameter: "Zinc" });
    const d = (await operator.ok(DUTIES, { id: permitId })).industrialPermit.duties.find((x: any) => x.id === resample[0].id);
    expect(d).toMatchObject({ onTime: true, daysLeft: null });
    expect(d.doneAt).not.toBeNull();
    const [ack] = await emails(f.arEmail, "industrial.report_acknowledgment");
    expect(ack.subject).toMatch(/^Received: repeat sampling report after a violation/);
  });

  it("signed on day 31 the duty is met late; the repeat sampling must include the parameter", async () => {
    const { startResampleReport: r } = await f.member.ok(START, { id: resample[1].id });
    await f.member.ok(ADD, { r: r.id, x: [{ ...zinc("2026-12-28T08:30", 7.1), parameter: "pH", unit: "s.u." }] });
    const missing = await sign(f.ar, r.id);
    expect(errorCode(missing)).toBe("CONFLICT");
    expect(missing.errors![0].message).toMatch(/must include Zinc/);
    await f.member.ok(ADD, { r: r.id, x: [zinc("2026-12-28T08:30", 0.9)] });
    travelTo("2027-01-03T15:00:00Z"); // day 31
    expect((await sign(f.ar, r.id)).errors).toBeUndefined();
    const d = (await f.owner.ok(DUTIES, { id: permitId })).industrialPermit.duties.find((x: any) => x.id === resample[1].id);
    expect(d.onTime).toBe(false);
  });
});

describe("accidental or slug discharge (SUL 1011)", () => {
  let slug: any;

  it("the immediate notification is recorded; the Operator is emailed; written report due in 5 days, analyses in 45", async () => {
    travelTo("2027-01-10T15:00:00Z");
    const input = { permitId, occurredAt: "2027-01-10T08:00", notifiedAt: "2027-01-10T08:20", notifiedWhom: "Dana Ortiz, District Operator", substance: "Chromic acid rinse", estimatedVolumeGallons: 300, description: "Tank overflow" };
    expect(errorCode(await other.owner.gql(SLUG, { i: input }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(SLUG, { i: input }))).toBe("NOT_FOUND");
    const bad = await f.member.gql(SLUG, { i: { ...input, notifiedAt: "2027-01-10T07:00", substance: "", estimatedVolumeGallons: null } });
    expect(Object.keys(fields(bad)).sort()).toEqual(["estimatedVolumeGallons", "notifiedAt", "substance"]);
    ({ reportSlugDischarge: slug } = await f.member.ok(SLUG, { i: input }));
    expect(slug).toMatchObject({ writtenDueOn: "2027-01-15", analysesDueOn: "2027-02-24", writtenDaysLeft: 5, analysesDaysLeft: 45, writtenLate: false, writtenStatus: "DUE" });
    const [mail] = await emails(DEMO.lakeviewOperator, "industrial.slug_reported");
    expect(mail.subject).toMatch(/Accidental discharge reported: Lakeside Anodizing Co/);
    expect(mail.body_text).toMatch(/Chromic acid rinse/);
    expect(mail.body_text).toMatch(/due by January 15, 2027 \(Sewer Use Law 1011\)/);
    expect(await emails(DEMO.lakeviewClerk, "industrial.slug_reported")).toEqual([]);
  });

  it("is public once recorded (SUL 1014); the written report's text once signed", async () => {
    const pub = (await anon.ok(GET_SLUG, { id: slug.id })).industrialSlugDischarge;
    expect(pub).toMatchObject({ substance: "Chromic acid rinse", estimatedVolumeGallons: 300, causes: null });
    expect((await other.owner.ok(GET_SLUG, { id: slug.id })).industrialSlugDischarge.substance).toBe("Chromic acid rinse");
    const { industrialSlugDischarges } = await clerk.ok(`query($d: ID!) { industrialSlugDischarges(districtId: $d) { items { id } } }`, { d: lakeviewId });
    expect(industrialSlugDischarges.items.map((x: any) => x.id)).toContain(slug.id);
    expect(errorCode(await other.owner.gql(WRITTEN, { i: { slugId: slug.id, causes: "x", measures: "y" } }))).toBe("NOT_FOUND");
  });

  it("day 5 is on time, day 6 late (shown, not refused); the AR signs the written report; analyses until day 45", async () => {
    expect(errorCode(await sign(f.ar, slug.reportId))).toBe("CONFLICT"); // nothing written yet
    expect(Object.keys(fields(await f.member.gql(WRITTEN, { i: { slugId: slug.id, causes: " ", measures: "" } }))).sort()).toEqual(["causes", "measures"]);
    const w = await f.member.ok(WRITTEN, { i: { slugId: slug.id, causes: "Float switch failed on rinse tank 3", measures: "Replaced the switch; high-level alarm added; weekly check" } });
    expect(w.saveSlugWrittenReport.writtenStatus).toBe("DRAFT");
    travelTo("2027-01-14T15:00:00Z"); // day 4: a reminder
    while ((await runDueJobs(db(), log)) > 0);
    expect((await emails(f.arEmail, "industrial.report_reminder")).map((m) => m.subject)).toContainEqual(
      expect.stringMatching(/^Written report of an accidental or slug discharge due January 15, 2027/),
    );
    travelTo("2027-01-15T15:00:00Z"); // day 5
    expect((await f.owner.ok(GET_SLUG, { id: slug.id })).industrialSlugDischarge).toMatchObject({ writtenDaysLeft: 0, writtenLate: false });
    travelTo("2027-01-16T15:00:00Z"); // day 6
    expect((await f.owner.ok(GET_SLUG, { id: slug.id })).industrialSlugDischarge).toMatchObject({ writtenDaysLeft: -1, writtenLate: true });
    expect(errorCode(await sign(f.member, slug.reportId))).toBe("FORBIDDEN");
    const signed = await sign(f.ar, slug.reportId);
    expect(signed.errors).toBeUndefined();
    const doc = JSON.parse(signed.data!.signIndustrialReport.document);
    expect(doc.details.slugDischarge).toMatchObject({ substance: "Chromic acid rinse", causes: "Float switch failed on rinse tank 3", writtenDueOn: "2027-01-15" });
    const pub = (await anon.ok(GET_SLUG, { id: slug.id })).industrialSlugDischarge;
    expect(pub).toMatchObject({ causes: "Float switch failed on rinse tank 3", writtenStatus: "SIGNED", writtenLate: true, writtenDaysLeft: null });
    // analyses are appended by an amendment of the signed written report, within 45 days
    const { amendIndustrialReport: a } = await f.member.ok(`mutation($id: ID!) { amendIndustrialReport(id: $id) { id kind } }`, { id: slug.reportId });
    expect(a.kind).toBe("SLUG");
    await f.member.ok(ADD, { r: a.id, x: [zinc("2027-01-10T09:00", 0.5)] });
    // an amendment of the amendment still leads back to the discharge
    expect((await sign(f.ar, a.id)).errors).toBeUndefined();
    const { amendIndustrialReport: b } = await f.member.ok(`mutation($id: ID!) { amendIndustrialReport(id: $id) { id } }`, { id: a.id });
    for (const id of [a.id, b.id]) expect((await f.owner.ok(`query($id: ID!) { industrialReport(id: $id) { slugDischarge { id } } }`, { id })).industrialReport.slugDischarge.id).toBe(slug.id);
    travelTo("2027-02-24T15:00:00Z"); // day 45
    expect((await f.owner.ok(GET_SLUG, { id: slug.id })).industrialSlugDischarge.analysesDaysLeft).toBe(0);
    travelTo("2027-02-25T15:00:00Z"); // day 46
    expect((await f.owner.ok(GET_SLUG, { id: slug.id })).industrialSlugDischarge.analysesDaysLeft).toBe(-1);
  });
});

describe("90-day compliance report and baseline monitoring report (SUL 1005(1), (2))", () => {
  const SET = `mutation($i: IndustrialReportDateInput!) { setIndustrialReportDate(input: $i) { id kind basisOn periodStart dueOn status } }`;
  const STATEMENT = `mutation($i: IndustrialNinetyDayStatementInput!) { saveNinetyDayStatement(input: $i) { standardsMet measures professionalName } }`;
  let ninety: any;

  it("the Operator sets the dates: the 90-day report is due 90 days after, the baseline report 180 days after", async () => {
    travelTo("2027-03-01T15:00:00Z");
    expect(errorCode(await clerk.gql(SET, { i: { permitId, kind: "NINETY_DAY", basisOn: "2027-03-01" } }))).toBe("FORBIDDEN");
    expect(errorCode(await f.owner.gql(SET, { i: { permitId, kind: "NINETY_DAY", basisOn: "2027-03-01" } }))).toBe("FORBIDDEN");
    expect(fields(await operator.gql(SET, { i: { permitId, kind: "MONTHLY", basisOn: "2027-03-01" } })).kind).toBeTruthy();
    ({ setIndustrialReportDate: ninety } = await operator.ok(SET, { i: { permitId, kind: "NINETY_DAY", basisOn: "2027-02-28" } }));
    // corrected while nothing is entered
    ({ setIndustrialReportDate: ninety } = await operator.ok(SET, { i: { permitId, kind: "NINETY_DAY", basisOn: "2027-03-01" } }));
    expect(ninety).toMatchObject({ kind: "NINETY_DAY", basisOn: "2027-03-01", periodStart: "2027-03-01", dueOn: "2027-05-30", status: "DUE" });
    const { setIndustrialReportDate: baseline } = await operator.ok(SET, { i: { permitId, kind: "BASELINE", basisOn: "2027-03-01" } });
    expect(baseline).toMatchObject({ kind: "BASELINE", dueOn: "2027-08-28" });
    const { industrialPermit } = await f.owner.ok(`query($id: ID!) { industrialPermit(id: $id) { reports { id kind } } }`, { id: permitId });
    expect(industrialPermit.reports.filter((r: any) => r.kind === "NINETY_DAY" || r.kind === "BASELINE")).toHaveLength(2);
    // a reminder 14 days before, like the periodic reports
    travelTo("2027-05-16T15:00:00Z");
    while ((await runDueJobs(db(), log)) > 0);
    const reminders = await emails(f.arEmail, "industrial.report_reminder");
    expect(reminders.map((m) => m.subject)).toContainEqual(expect.stringMatching(/^90-day compliance report due May 30, 2027/));
  });

  it("the 90-day report needs the statement and the qualified professional; signed by the AR", async () => {
    travelTo("2027-05-20T15:00:00Z");
    await f.member.ok(ADD, { r: ninety.id, x: [zinc("2027-03-10T08:30", 0.7)] });
    const no = await sign(f.ar, ninety.id);
    expect(errorCode(no)).toBe("BAD_USER_INPUT");
    expect(fields(no).statement).toMatch(/qualified professional/);
    expect(errorCode(await other.owner.gql(STATEMENT, { i: { reportId: ninety.id, standardsMet: true, professionalName: "x", professionalCredential: "y" } }))).toBe("NOT_FOUND");
    expect(fields(await f.member.gql(STATEMENT, { i: { reportId: ninety.id, standardsMet: false, professionalName: "Pat Lee", professionalCredential: "P.E. NY 081234" } })).measures).toMatch(/1005\(2\)/);
    await f.member.ok(STATEMENT, { i: { reportId: ninety.id, standardsMet: false, measures: "Add a second clarifier stage", professionalName: "Pat Lee", professionalCredential: "P.E. NY 081234" } });
    expect(errorCode(await sign(f.member, ninety.id))).toBe("FORBIDDEN");
    const ok = await sign(f.ar, ninety.id);
    expect(ok.errors).toBeUndefined();
    const doc = JSON.parse(ok.data!.signIndustrialReport.document);
    expect(doc.document).toMatch(/90-day compliance report/);
    expect(doc.details).toMatchObject({ basisOn: "2027-03-01", statement: { standardsMet: false, measures: "Add a second clarifier stage", professionalCredential: "P.E. NY 081234" } });
    expect(errorCode(await operator.gql(SET, { i: { permitId, kind: "NINETY_DAY", basisOn: "2027-04-01" } }))).toBe("CONFLICT");
  });
});

describe("progress reports on compliance-schedule milestones (SUL 1004 A(12)(c))", () => {
  const PROGRESS = `mutation($i: IndustrialMilestoneProgressInput!) { fileMilestoneProgress(input: $i) { id met metOn reason expectedOn } }`;
  const MILESTONES = `query($id: ID!) { industrialPermit(id: $id) { milestones { index milestone dueOn progressDueOn progressDaysLeft metOn latest { met expectedOn reason } } } }`;

  it("each milestone's progress report is due 14 days after it; met on a date, or not met with reason and expected date", async () => {
    travelTo("2027-03-05T15:00:00Z");
    // reminded on the milestone's date, while no progress report is filed (the next milestone's date has not come)
    while ((await runDueJobs(srv.running.ds, pino({ level: "silent" }))) > 0);
    const reminders = await srv.running.ds.query(`SELECT subject FROM outbox_email WHERE kind = 'industrial.progress_reminder' AND to_address = $1`, [f.ownerEmail]);
    expect(reminders.map((r: { subject: string }) => r.subject)).toEqual([expect.stringMatching(/^Progress report due March 15, 2027: "Complete final plans", permit /)]);
    const { industrialPermit } = await f.owner.ok(MILESTONES, { id: permitId });
    expect(industrialPermit.milestones[0]).toMatchObject({ milestone: "Complete final plans", dueOn: "2027-03-01", progressDueOn: "2027-03-15", progressDaysLeft: 10, latest: null });
    expect(errorCode(await other.owner.gql(PROGRESS, { i: { permitId, milestoneIndex: 0, met: true, metOn: "2027-03-01" } }))).toBe("NOT_FOUND");
    expect(fields(await f.member.gql(PROGRESS, { i: { permitId, milestoneIndex: 5, met: true, metOn: "2027-03-01" } })).milestoneIndex).toBeTruthy();
    expect(Object.keys(fields(await f.member.gql(PROGRESS, { i: { permitId, milestoneIndex: 0, met: false } }))).sort()).toEqual(["expectedOn", "reason"]);
    await f.member.ok(PROGRESS, { i: { permitId, milestoneIndex: 0, met: false, reason: "Engineer's drawings delayed", expectedOn: "2027-04-15" } });
    await f.member.ok(PROGRESS, { i: { permitId, milestoneIndex: 0, met: true, metOn: "2027-03-04" } });
    const seen = (await operator.ok(MILESTONES, { id: permitId })).industrialPermit.milestones[0];
    expect(seen).toMatchObject({ metOn: "2027-03-04", progressDaysLeft: null, latest: { met: true } });
    expect((await anon.ok(MILESTONES, { id: permitId })).industrialPermit.milestones).toEqual([]);
  });

  it("SNC (e): a milestone 89 days late is not significant non-compliance, at 90 days it is, on the permit, the dashboard and the published list", async () => {
    const SNC = `query($id: ID!, $s: String) { industrialPermitSnc(permitId: $id, periodStart: $s) { inSnc notJudged findings { criterion text section } } }`;
    const BOARD = `query($d: ID!, $s: String) { industrialSncDashboard(districtId: $d, periodStart: $s) { notJudged permits { permitId criteria findings { criterion text } } } }`;
    const milestones = (x: any) => x.findings.filter((f: any) => f.criterion === "MILESTONE");
    travelTo("2027-08-29T15:00:00Z"); // "Begin routine operation", due June 1, is 89 days late
    await f.member.ok(PROGRESS, { i: { permitId, milestoneIndex: 1, met: false, reason: "Clarifier delivery delayed", expectedOn: "2027-09-15" } });
    const day89 = (await operator.ok(SNC, { id: permitId, s: "2027-07-01" })).industrialPermitSnc;
    expect(milestones(day89)).toEqual([]);
    expect(day89.notJudged[0]).toMatch(/milestones missed by 90 days or more \(.*\) are judged from the progress reports/);
    const board89 = (await operator.ok(BOARD, { d: lakeviewId, s: "2027-07-01" })).industrialSncDashboard.permits.find((p: any) => p.permitId === permitId);
    expect(board89.criteria).not.toContain("MILESTONE");
    travelTo("2027-08-30T15:00:00Z"); // 90 days
    const day90 = (await operator.ok(SNC, { id: permitId, s: "2027-07-01" })).industrialPermitSnc;
    expect(milestones(day90)).toEqual([expect.objectContaining({ text: expect.stringMatching(/"Begin routine operation", due June 1, 2027, is 90 days late and not reported met; 90 days or more/) })]);
    expect(day90.inSnc).toBe(true);
    const board90 = (await operator.ok(BOARD, { d: lakeviewId, s: "2027-07-01" })).industrialSncDashboard.permits.find((p: any) => p.permitId === permitId);
    expect(board90.criteria).toContain("MILESTONE");
    expect(board90.findings.find((x: any) => x.criterion === "MILESTONE").text).toBe(milestones(day90)[0].text);
    // the first milestone, met 3 days late in March, is no finding; met later, this one still counts for the period
    await f.member.ok(PROGRESS, { i: { permitId, milestoneIndex: 1, met: true, metOn: "2027-08-30" } });
    expect(milestones((await operator.ok(SNC, { id: permitId, s: "2027-07-01" })).industrialPermitSnc)[0].text).toMatch(/was met on August 30, 2027, 90 days late/);
    expect(milestones((await operator.ok(SNC, { id: permitId, s: "2027-01-01" })).industrialPermitSnc)).toEqual([]);
    travelTo("2028-01-02T15:00:00Z");
    await operator.ok(`mutation($d: ID!, $s: String!) { publishSncList(districtId: $d, periodStart: $s) { id } }`, { d: lakeviewId, s: "2027-07-01" });
    const { publishedSncLists } = await anon.ok(`{ publishedSncLists(districtSlug: "lakeview") { periodStart listings { organizationName criteria findings } } }`);
    const listing = publishedSncLists.find((l: any) => l.periodStart === "2027-07-01").listings.find((x: any) => x.organizationName === "Lakeside Anodizing Co");
    expect(listing.criteria).toContain("MILESTONE");
  });
});

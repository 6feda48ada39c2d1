import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { EXPIRY_REMINDER_JOB, isChoosable, sendExpiryReminders } from "../../api/contractors/contractors.service.js";
import { clearMicroCache } from "../../api/graphql/micro-cache.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer, signedInAs } from "../harness.js";

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
});
afterAll(() => srv?.close());

const TZ = "America/New_York"; // both shipped districts
const today = () => dateIn(TZ);
const inDays = (n: number) => addCalendarDays(today(), n);

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");

/** The minimums of the Lakeview rulebook (Sewer Use Law 508), in cents; workers' compensation states no limit. */
const MINIMUMS: Record<string, number | null> = {
  WORKERS_COMPENSATION: null,
  PERSONAL_INJURY_PER_OCCURRENCE: 500_000_00,
  PERSONAL_INJURY_AGGREGATE: 500_000_00,
  PROPERTY_DAMAGE: 500_000_00,
  AUTO_BODILY_INJURY_PER_PERSON: 300_000_00,
  AUTO_BODILY_INJURY_PER_OCCURRENCE: 500_000_00,
  AUTO_PROPERTY_DAMAGE: 500_000_00,
  EXCESS_LIABILITY: 2_000_000_00,
};

const FIELDS = `id status organization { id name } district { id name }
  bond { amountCents expiresOn documentId downloadUrl }
  insurance { coverage label insurer policyNumber limitCents expiresOn certificateDocumentId downloadUrl }
  findings { item message section } standing { choosable reasons } decisionReason decidedAt asOf`;
const APPLY = `mutation($i: ApplyAsContractorInput!) { applyAsContractor(input: $i) { ${FIELDS} } }`;
const DECIDE = `mutation($i: DecideContractorInput!) { decideContractor(input: $i) { ${FIELDS} } }`;
const SUSPEND = `mutation($i: SuspendContractorInput!) { suspendContractor(input: $i) { ${FIELDS} } }`;
const REINSTATE = `mutation($i: ReinstateContractorInput!) { reinstateContractor(input: $i) { ${FIELDS} } }`;
const CONTRACTOR = `query($id: ID!) { contractor(id: $id) { ${FIELDS} } }`;
const RENEWAL_FIELDS = `renewal { id status bond { amountCents expiresOn documentId downloadUrl } insurance { coverage limitCents expiresOn certificateDocumentId } findings { item message section } decisionReason decidedAt filedAt }`;
const RENEW = `mutation($i: RenewContractorInput!) { renewContractor(input: $i) { ${FIELDS} ${RENEWAL_FIELDS} } }`;
const DECIDE_RENEWAL = `mutation($i: DecideContractorRenewalInput!) { decideContractorRenewal(input: $i) { ${FIELDS} ${RENEWAL_FIELDS} } }`;
const PUBLIC_LIST = `query($s: String!) { approvedContractors(districtSlug: $s) { id name approvedSince } }`;
const UPLOAD = `mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`;

type Firm = { owner: Client; orgId: string; docId: string; name: string };

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

/** A new account that owns a new contracting firm, with a PDF uploaded for the firm. */
async function firm(name: string): Promise<Firm> {
  const owner = new Client(srv.url);
  const slug = name.toLowerCase().replace(/[^a-z]+/g, "-");
  await owner.signUp(`owner@${slug}.example.com`, `Owner of ${name}`);
  const { createOrganization } = await owner.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, {
    i: { name, kind: "CONTRACTOR" },
  });
  const { uploadDocument } = await owner.ok(UPLOAD, { i: { filename: "bond-and-certificates.pdf", contentBase64: PDF, organizationId: createOrganization.id } });
  return { owner, orgId: createOrganization.id, docId: uploadDocument.id, name };
}

/** An application at exactly the Lakeview minimums, in force for a year, with changes. */
function application(
  f: Firm,
  o: { districtId?: string; bondAmountCents?: number; bondExpiresOn?: string; limits?: Record<string, number | null>; expires?: Record<string, string>; omit?: string[] } = {},
) {
  return {
    organizationId: f.orgId,
    districtId: o.districtId ?? lakeview.id,
    bondAmountCents: o.bondAmountCents ?? 5_000_00,
    bondExpiresOn: o.bondExpiresOn ?? inDays(365),
    bondDocumentId: f.docId,
    insurance: Object.keys(MINIMUMS)
      .filter((c) => !o.omit?.includes(c))
      .map((coverage) => ({
        coverage,
        insurer: "Mohawk Mutual",
        policyNumber: `MM-${coverage.slice(0, 6)}-1`,
        limitCents: o.limits && coverage in o.limits ? o.limits[coverage] : MINIMUMS[coverage],
        expiresOn: o.expires?.[coverage] ?? inDays(365),
        certificateDocumentId: f.docId,
      })),
  };
}

async function approvedFirm(name: string, o: Parameters<typeof application>[1] = {}): Promise<{ firm: Firm; id: string }> {
  const f = await firm(name);
  const { applyAsContractor } = await f.owner.ok(APPLY, { i: application(f, o) });
  expect(applyAsContractor.findings).toEqual([]);
  const clerk = await signedIn(DEMO.lakeviewClerk);
  await clerk.ok(DECIDE, { i: { contractorId: applyAsContractor.id, decision: "APPROVE", reason: "Bond and certificates checked" } });
  return { firm: f, id: applyAsContractor.id };
}

const publicNames = async (slug = "lakeview") => (await new Client(srv.url).ok(PUBLIC_LIST, { s: slug })).approvedContractors.map((c: any) => c.name);
const emailsOf = async (c: Client, kind: string) => (await c.ok(`{ myEmails(first: 100) { kind subject bodyText } }`)).myEmails.filter((e: any) => e.kind === kind);
const download = (id: string, c: Client) => fetch(`${srv.url}/documents/${id}`, { headers: { cookie: c.cookieHeader } });

describe("approved contractors (SUL 601 A, 508)", () => {
  it("a firm filing the $5,000.00 bond and every insurance minimum has no findings; the Clerk approves it and it is listed", async () => {
    const f = await firm("Ace Pipe and Drain");
    const applied = (await f.owner.ok(APPLY, { i: application(f) })).applyAsContractor;
    expect(applied).toMatchObject({
      status: "APPLIED",
      organization: { id: f.orgId, name: "Ace Pipe and Drain" },
      district: { id: lakeview.id },
      bond: { amountCents: 500000, documentId: f.docId, downloadUrl: `/documents/${f.docId}` },
      findings: [],
      standing: { choosable: false },
    });
    expect(applied.insurance).toHaveLength(8);
    expect(applied.insurance.find((i: any) => i.coverage === "EXCESS_LIABILITY").limitCents).toBe(200000000);
    expect(await publicNames()).not.toContain("Ace Pipe and Drain");

    // The Clerk sees it in the queue with its findings, and may read the bond and certificates.
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const queue = (await clerk.ok(`query($d: ID!, $s: String) { districtContractors(districtId: $d, status: $s) { id findings { item } organization { name } } }`, { d: lakeview.id, s: "APPLIED" })).districtContractors;
    expect(queue.find((c: any) => c.id === applied.id)).toEqual({ id: applied.id, findings: [], organization: { name: "Ace Pipe and Drain" } });
    expect((await download(f.docId, clerk)).status).toBe(200);
    expect((await download(f.docId, await signedIn(DEMO.huronClerk))).status).toBe(404);
    expect((await download(f.docId, await signedIn(DEMO.applicant))).status).toBe(404);

    const approved = (await clerk.ok(DECIDE, { i: { contractorId: applied.id, decision: "APPROVE", reason: "Bond and certificates checked" } })).decideContractor;
    expect(approved).toMatchObject({ status: "APPROVED", decisionReason: "Bond and certificates checked", findings: [], standing: { choosable: true, reasons: [] } });
    expect(approved.decidedAt).toBeTruthy();
    expect(errorCode(await clerk.gql(DECIDE, { i: { contractorId: applied.id, decision: "REJECT", reason: "again" } }))).toBe("CONFLICT");

    const list = (await new Client(srv.url).ok(PUBLIC_LIST, { s: "lakeview" })).approvedContractors;
    expect(list).toContainEqual({ id: applied.id, name: "Ace Pipe and Drain", approvedSince: today() });
    expect(await isChoosable(srv.running.ds, applied.id, lakeview.id)).toEqual({ choosable: true, reasons: [] });
    expect((await isChoosable(srv.running.ds, applied.id, huron.id)).choosable).toBe(false);

    const [email] = await emailsOf(f.owner, "contractor.decided");
    expect(email.subject).toMatch(/Ace Pipe and Drain is an approved contractor/);
    const mine = (await f.owner.ok(`{ myContractorApplications { id status } }`)).myContractorApplications;
    expect(mine).toEqual([{ id: applied.id, status: "APPROVED" }]);
    const log = await clerk.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action } } }`, { f: { districtId: lakeview.id, entityId: applied.id } });
    expect(log.auditLog.entries.map((e: any) => e.action)).toEqual(["contractor.approved", "contractor.applied"]);

    // Once approved, the application cannot be changed.
    expect(errorCode(await f.owner.gql(APPLY, { i: application(f) }))).toBe("CONFLICT");
  });

  it("finds a bond or a limit below the minimum, or a missing coverage, names the section, and refuses approval", async () => {
    const f = await firm("Borderline Excavating");
    const clerk = await signedIn(DEMO.lakeviewClerk);

    const lowBond = (await f.owner.ok(APPLY, { i: application(f, { bondAmountCents: 4_999_99 }) })).applyAsContractor;
    expect(lowBond.findings).toEqual([{ item: "bond", section: "Sewer Use Law 508(1)", message: expect.stringMatching(/\$4,999\.99.*\$5,000\.00/) }]);
    const refused = await clerk.gql(DECIDE, { i: { contractorId: lowBond.id, decision: "APPROVE" } });
    expect(errorCode(refused)).toBe("CONFLICT");
    expect(refused.errors![0].message).toMatch(/Sewer Use Law 508\(1\)/);

    // Resubmitted while waiting: the same application, changed.
    const lowLimit = (await f.owner.ok(APPLY, { i: application(f, { limits: { PERSONAL_INJURY_PER_OCCURRENCE: 499_999_99 } }) })).applyAsContractor;
    expect(lowLimit.id).toBe(lowBond.id);
    expect(lowLimit.findings).toEqual([
      { item: "PERSONAL_INJURY_PER_OCCURRENCE", section: "Sewer Use Law 508(2)(b)", message: expect.stringMatching(/\$499,999\.99.*\$500,000\.00/) },
    ]);
    expect(errorCode(await clerk.gql(DECIDE, { i: { contractorId: lowBond.id, decision: "APPROVE" } }))).toBe("CONFLICT");

    const noComp = (await f.owner.ok(APPLY, { i: application(f, { omit: ["WORKERS_COMPENSATION"] }) })).applyAsContractor;
    expect(noComp.findings).toEqual([{ item: "WORKERS_COMPENSATION", section: "Sewer Use Law 508(2)(a)", message: expect.stringMatching(/workers' compensation/i) }]);
    expect(errorCode(await clerk.gql(DECIDE, { i: { contractorId: lowBond.id, decision: "APPROVE" } }))).toBe("CONFLICT");

    const expired = (await f.owner.ok(APPLY, { i: application(f, { expires: { PROPERTY_DAMAGE: inDays(-1) } }) })).applyAsContractor;
    expect(expired.findings).toEqual([{ item: "PROPERTY_DAMAGE", section: "Sewer Use Law 508(2)(c)", message: expect.stringMatching(/expired/) }]);

    // A rejection needs a reason; after it the firm may correct and submit again.
    expect(errorCode(await clerk.gql(DECIDE, { i: { contractorId: lowBond.id, decision: "REJECT", reason: " " } }))).toBe("BAD_USER_INPUT");
    const rejected = (await clerk.ok(DECIDE, { i: { contractorId: lowBond.id, decision: "REJECT", reason: "Property damage certificate has expired" } })).decideContractor;
    expect(rejected).toMatchObject({ status: "REJECTED", decisionReason: "Property damage certificate has expired" });
    expect((await emailsOf(f.owner, "contractor.decided"))[0].bodyText).toMatch(/Property damage certificate has expired/);
    const again = (await f.owner.ok(APPLY, { i: application(f) })).applyAsContractor;
    expect(again).toMatchObject({ id: lowBond.id, status: "APPLIED", findings: [], decisionReason: null });
    expect(await publicNames()).not.toContain("Borderline Excavating");
  });

  it("checks the input: dates are calendar dates, limits are cents, documents are the firm's", async () => {
    const f = await firm("Careful Contracting");
    const other = await firm("Other Outfit");
    const bad = application(f, { bondExpiresOn: "2027-02-30", limits: { PROPERTY_DAMAGE: 12.5 } });
    bad.insurance[0].certificateDocumentId = other.docId;
    const r = await f.owner.gql(APPLY, { i: bad });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(Object.keys(r.errors![0].extensions!.fields!).sort()).toEqual(["bondExpiresOn", "insurance.PROPERTY_DAMAGE.limitCents"]);
    const notOurs = application(f);
    notOurs.insurance[0].certificateDocumentId = other.docId;
    const r2 = await f.owner.gql(APPLY, { i: notOurs });
    expect(r2.errors![0].extensions!.fields).toEqual({ "insurance.WORKERS_COMPENSATION.certificateDocumentId": expect.any(String) });
    // A hauling company is not a contracting firm.
    const { createOrganization } = await f.owner.ok(`mutation { createOrganization(input: { name: "Careful Hauling", kind: "HAULER" }) { id } }`);
    const r3 = await f.owner.gql(APPLY, { i: { ...application(f), organizationId: createOrganization.id } });
    expect(r3.errors![0].extensions!.fields).toHaveProperty("organizationId");
  });

  it("Huron refuses applications: its law keeps no approved list", async () => {
    const f = await firm("Huron Hopeful");
    const r = await f.owner.gql(APPLY, { i: application(f, { districtId: huron.id }) });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(r.errors![0].message).toMatch(/Huron Article III/);
    expect(r.errors![0].extensions!.fields).toHaveProperty("districtId");
    expect(await publicNames("huron")).toEqual([]);
    const req = (await new Client(srv.url).ok(`{ contractorRequirements(districtSlug: "huron") { approvedListEnabled list { section note } bond { required } } }`)).contractorRequirements;
    expect(req).toMatchObject({ approvedListEnabled: false, list: { section: "Huron Article III" }, bond: { required: false } });
  });

  it("only the Clerk of the contractor's district decides; only owners apply; only members and the district's staff read", async () => {
    const f = await firm("Dutiful Drainage");
    const { id } = (await f.owner.ok(APPLY, { i: application(f) })).applyAsContractor;

    const huronClerk = await signedIn(DEMO.huronClerk);
    expect(errorCode(await huronClerk.gql(DECIDE, { i: { contractorId: id, decision: "APPROVE" } }))).toBe("FORBIDDEN");
    expect(errorCode(await huronClerk.gql(`query($d: ID!) { districtContractors(districtId: $d) { id } }`, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await huronClerk.gql(CONTRACTOR, { id }))).toBe("NOT_FOUND");
    const applicant = await signedIn(DEMO.applicant);
    expect(errorCode(await applicant.gql(DECIDE, { i: { contractorId: id, decision: "APPROVE" } }))).toBe("FORBIDDEN");
    expect(errorCode(await f.owner.gql(DECIDE, { i: { contractorId: id, decision: "APPROVE" } }))).toBe("FORBIDDEN");
    const operator = await signedIn(DEMO.lakeviewOperator);
    expect(errorCode(await operator.gql(DECIDE, { i: { contractorId: id, decision: "APPROVE" } }))).toBe("FORBIDDEN");
    expect((await operator.ok(CONTRACTOR, { id })).contractor.id).toBe(id);

    // Another account cannot read it or learn that it exists.
    const stranger = new Client(srv.url);
    await stranger.signUp("stranger@example.org");
    expect(errorCode(await stranger.gql(CONTRACTOR, { id }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.gql(CONTRACTOR, { id: "00000000-0000-0000-0000-000000000000" }))).toBe("NOT_FOUND");
    expect((await stranger.ok(`{ myContractorApplications { id } }`)).myContractorApplications).toEqual([]);

    // A member who is not an owner reads the application but cannot apply for the firm.
    await f.owner.ok(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { id } }`, { i: { organizationId: f.orgId, email: "crew@dutiful.example.com", role: "MEMBER" } });
    const member = new Client(srv.url);
    await member.signUp("crew@dutiful.example.com", "Crew Member");
    const [invite] = await emailsOf(member, "organization.invitation");
    const token = /token=([A-Za-z0-9_-]+)/.exec(invite.bodyText)![1];
    await member.ok(`mutation($t: String!) { acceptInvitation(token: $t) { id } }`, { t: token });
    expect((await member.ok(CONTRACTOR, { id })).contractor.id).toBe(id);
    expect(errorCode(await member.gql(APPLY, { i: application(f) }))).toBe("FORBIDDEN");
    expect(errorCode(await stranger.gql(APPLY, { i: application(f) }))).toBe("NOT_FOUND");
  });

  it("an expired certificate makes an approved contractor not choosable and drops it from the public list", async () => {
    const { id } = await approvedFirm("Expiring Excavators");
    expect(await publicNames()).toContain("Expiring Excavators");
    // Time passes: the property damage policy ended yesterday.
    await srv.running.ds.query(`UPDATE contractor_insurance SET expires_on = $2 WHERE contractor_id = $1 AND coverage = 'PROPERTY_DAMAGE'`, [id, inDays(-1)]);
    // The public list is kept a moment (api/graphql/micro-cache.ts) and no mutation ran: as a day
    // passing would, the next read is fresh.
    clearMicroCache();
    expect(await publicNames()).not.toContain("Expiring Excavators");
    const standing = await isChoosable(srv.running.ds, id, lakeview.id);
    expect(standing.choosable).toBe(false);
    expect(standing.reasons.join(" ")).toMatch(/Property damage liability: the certificate expired/);
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const c = (await clerk.ok(CONTRACTOR, { id })).contractor;
    expect(c).toMatchObject({ status: "APPROVED", standing: { choosable: false } });
    expect(c.findings.map((x: any) => x.item)).toEqual(["PROPERTY_DAMAGE"]);
    // Expiring on today still counts as in force.
    await srv.running.ds.query(`UPDATE contractor SET bond_expires_on = $2 WHERE id = $1`, [id, today()]);
    await srv.running.ds.query(`UPDATE contractor_insurance SET expires_on = $2 WHERE contractor_id = $1`, [id, today()]);
    expect((await isChoosable(srv.running.ds, id, lakeview.id)).choosable).toBe(true);
  });

  it("a suspended contractor is not choosable until reinstated", async () => {
    const { firm: f, id } = await approvedFirm("Suspect Sewer Services");
    const operator = await signedIn(DEMO.lakeviewOperator);
    expect(errorCode(await operator.gql(SUSPEND, { i: { contractorId: id, reason: "" } }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await f.owner.gql(SUSPEND, { i: { contractorId: id, reason: "self" } }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedIn(DEMO.huronClerk)).gql(SUSPEND, { i: { contractorId: id, reason: "x" } }))).toBe("FORBIDDEN");
    const suspended = (await operator.ok(SUSPEND, { i: { contractorId: id, reason: "Trench left open overnight on Main St" } })).suspendContractor;
    expect(suspended).toMatchObject({ status: "SUSPENDED", standing: { choosable: false } });
    expect(suspended.standing.reasons[0]).toMatch(/suspended: Trench left open/);
    expect(await isChoosable(srv.running.ds, id, lakeview.id)).toMatchObject({ choosable: false });
    expect(await publicNames()).not.toContain("Suspect Sewer Services");
    expect(errorCode(await operator.gql(SUSPEND, { i: { contractorId: id, reason: "again" } }))).toBe("CONFLICT");
    expect((await emailsOf(f.owner, "contractor.suspended"))[0].bodyText).toMatch(/Trench left open/);

    const clerk = await signedIn(DEMO.lakeviewClerk);
    const back = (await clerk.ok(REINSTATE, { i: { contractorId: id, reason: "Site inspected and restored" } })).reinstateContractor;
    expect(back).toMatchObject({ status: "APPROVED", standing: { choosable: true } });
    expect(await publicNames()).toContain("Suspect Sewer Services");
    expect(await emailsOf(f.owner, "contractor.reinstated")).toHaveLength(1);
  });

  it("reminds the owner once per item expiring within 30 days, however often the job runs", async () => {
    const { firm: f, id } = await approvedFirm("Punctual Plumbing", {
      bondExpiresOn: inDays(30),
      expires: { PROPERTY_DAMAGE: inDays(30), EXCESS_LIABILITY: inDays(31) },
    });
    expect(await emailsOf(f.owner, "contractor.expiry_reminder")).toHaveLength(0);
    // The day before the window opens: nothing.
    await sendExpiryReminders(srv.running.ds, inDays(-1));
    expect(await emailsOf(f.owner, "contractor.expiry_reminder")).toHaveLength(0);

    expect(await sendExpiryReminders(srv.running.ds, today())).toBeGreaterThanOrEqual(2);
    const reminders = await emailsOf(f.owner, "contractor.expiry_reminder");
    expect(reminders).toHaveLength(2);
    expect(reminders.map((e: any) => e.subject).sort()).toEqual([
      expect.stringMatching(/Punctual Plumbing: the bond filed with .* expires soon/),
      expect.stringMatching(/Punctual Plumbing: the certificate of property damage liability insurance filed with .* expires soon/),
    ]);
    expect(reminders[0].bodyText).toMatch(/in 30 days/);

    // Again, directly and through the queued job: nothing more.
    await sendExpiryReminders(srv.running.ds, today());
    await enqueueJob(srv.running.ds, { name: EXPIRY_REMINDER_JOB, singletonKey: `test:${EXPIRY_REMINDER_JOB}` });
    await runDueJobs(srv.running.ds, pino({ level: "silent" }));
    const [job] = await srv.running.ds.query(`SELECT status FROM job WHERE singleton_key = $1`, [`test:${EXPIRY_REMINDER_JOB}`]);
    expect(job.status).toBe("done");
    expect(await emailsOf(f.owner, "contractor.expiry_reminder")).toHaveLength(2);

    // The next day the excess liability policy enters the window: one more.
    await sendExpiryReminders(srv.running.ds, inDays(1));
    expect(await emailsOf(f.owner, "contractor.expiry_reminder")).toHaveLength(3);
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const log = await clerk.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action } } }`, { f: { districtId: lakeview.id, entityId: id } });
    expect(log.auditLog.entries.filter((e: any) => e.action === "contractor.expiry_reminder_sent")).toHaveLength(3);
  });

  it("an approved contractor files a renewal; it stays choosable throughout and the accepted figures replace the old", async () => {
    const { firm: f, id } = await approvedFirm("Renewing Rooter", { bondExpiresOn: inDays(10), expires: { PROPERTY_DAMAGE: inDays(10) } });
    const { uploadDocument: newDoc } = await f.owner.ok(UPLOAD, { i: { filename: "renewed-bond.pdf", contentBase64: PDF, organizationId: f.orgId } });
    const renewed = application(f).insurance.find((i) => i.coverage === "PROPERTY_DAMAGE")!;
    const input = {
      contractorId: id,
      bondAmountCents: 6_000_00,
      bondExpiresOn: inDays(400),
      bondDocumentId: newDoc.id,
      insurance: [{ ...renewed, expiresOn: inDays(400), certificateDocumentId: newDoc.id }],
    };
    // Only an owner files it; nothing to renew is refused.
    expect(errorCode(await (await signedIn(DEMO.applicant)).gql(RENEW, { i: input }))).toBe("NOT_FOUND");
    expect(errorCode(await f.owner.gql(RENEW, { i: { contractorId: id, insurance: [] } }))).toBe("BAD_USER_INPUT");

    const filed = (await f.owner.ok(RENEW, { i: input })).renewContractor;
    expect(filed).toMatchObject({
      status: "APPROVED",
      bond: { amountCents: 5_000_00, expiresOn: inDays(10) },
      standing: { choosable: true },
      renewal: { status: "PENDING", bond: { amountCents: 6_000_00, expiresOn: inDays(400), documentId: newDoc.id }, findings: [] },
    });
    expect(await publicNames()).toContain("Renewing Rooter");
    expect((await isChoosable(srv.running.ds, id, lakeview.id)).choosable).toBe(true);

    // The Clerk sees it and reads the renewed bond; the owner can file again (the waiting one is replaced).
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const listed = (await clerk.ok(`query($d: ID!) { districtContractors(districtId: $d, status: "APPROVED") { id renewal { id status findings { item } } } }`, { d: lakeview.id })).districtContractors;
    expect(listed.find((c: any) => c.id === id).renewal).toEqual({ id: filed.renewal.id, status: "PENDING", findings: [] });
    expect((await download(newDoc.id, clerk)).status).toBe(200);
    const refiled = (await f.owner.ok(RENEW, { i: input })).renewContractor;
    expect(refiled.renewal.id).not.toBe(filed.renewal.id);
    expect(errorCode(await clerk.gql(DECIDE_RENEWAL, { i: { renewalId: filed.renewal.id, decision: "ACCEPT" } }))).toBe("NOT_FOUND");
    expect(errorCode(await f.owner.gql(DECIDE_RENEWAL, { i: { renewalId: refiled.renewal.id, decision: "ACCEPT" } }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedIn(DEMO.huronClerk)).gql(DECIDE_RENEWAL, { i: { renewalId: refiled.renewal.id, decision: "ACCEPT" } }))).toBe("FORBIDDEN");

    const accepted = (await clerk.ok(DECIDE_RENEWAL, { i: { renewalId: refiled.renewal.id, decision: "ACCEPT" } })).decideContractorRenewal;
    expect(accepted).toMatchObject({
      status: "APPROVED",
      bond: { amountCents: 6_000_00, expiresOn: inDays(400), documentId: newDoc.id },
      standing: { choosable: true },
      findings: [],
      renewal: { id: refiled.renewal.id, status: "ACCEPTED" },
    });
    expect(accepted.insurance.find((i: any) => i.coverage === "PROPERTY_DAMAGE")).toMatchObject({ expiresOn: inDays(400), certificateDocumentId: newDoc.id });
    expect(accepted.insurance.find((i: any) => i.coverage === "EXCESS_LIABILITY").expiresOn).toBe(inDays(365));
    expect(errorCode(await clerk.gql(DECIDE_RENEWAL, { i: { renewalId: refiled.renewal.id, decision: "REJECT", reason: "again" } }))).toBe("CONFLICT");
    // The day after the old bond would have run out, the firm is still choosable.
    expect((await isChoosable(srv.running.ds, id, lakeview.id, inDays(11))).choosable).toBe(true);
    expect(await publicNames()).toContain("Renewing Rooter");
    expect((await emailsOf(f.owner, "contractor.renewal_decided"))[0].subject).toMatch(/accepted Renewing Rooter's renewed bond/);
    const log = await clerk.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action } } }`, { f: { districtId: lakeview.id, entityId: id } });
    expect(log.auditLog.entries.map((e: any) => e.action).slice(0, 3)).toEqual(["contractor.renewal_accepted", "contractor.renewal_filed", "contractor.renewal_filed"]);

    // A renewal is only for an approved contractor.
    const other = await firm("Not Yet Renewable");
    const { applyAsContractor } = await other.owner.ok(APPLY, { i: application(other) });
    expect(errorCode(await other.owner.gql(RENEW, { i: { contractorId: applyAsContractor.id, insurance: application(other).insurance.slice(0, 1) } }))).toBe("CONFLICT");
  });

  it("a renewal below the minimums shows findings, cannot be accepted, and a rejection leaves the filing on record", async () => {
    const { firm: f, id } = await approvedFirm("Shortfall Sewers");
    const lowBond = { contractorId: id, bondAmountCents: 4_000_00, bondExpiresOn: inDays(400), bondDocumentId: f.docId };
    const filed = (await f.owner.ok(RENEW, { i: lowBond })).renewContractor;
    expect(filed.renewal.findings).toEqual([{ item: "bond", section: "Sewer Use Law 508(1)", message: expect.stringMatching(/\$4,000\.00.*\$5,000\.00/) }]);
    expect(filed.findings).toEqual([]);
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const refused = await clerk.gql(DECIDE_RENEWAL, { i: { renewalId: filed.renewal.id, decision: "ACCEPT" } });
    expect(errorCode(refused)).toBe("CONFLICT");
    expect(refused.errors![0].message).toMatch(/Sewer Use Law 508\(1\)/);
    expect(errorCode(await clerk.gql(DECIDE_RENEWAL, { i: { renewalId: filed.renewal.id, decision: "REJECT", reason: "" } }))).toBe("BAD_USER_INPUT");
    const rejected = (await clerk.ok(DECIDE_RENEWAL, { i: { renewalId: filed.renewal.id, decision: "REJECT", reason: "The bond is below $5,000" } })).decideContractorRenewal;
    expect(rejected).toMatchObject({ status: "APPROVED", bond: { amountCents: 5_000_00 }, renewal: { status: "REJECTED", decisionReason: "The bond is below $5,000" } });
    expect((await emailsOf(f.owner, "contractor.renewal_decided"))[0].bodyText).toMatch(/The bond is below \$5,000/);

    // A certificate below its minimum is found too.
    const cert = application(f, { limits: { EXCESS_LIABILITY: 1_000_000_00 } }).insurance.filter((i) => i.coverage === "EXCESS_LIABILITY");
    const low = (await f.owner.ok(RENEW, { i: { contractorId: id, insurance: cert } })).renewContractor;
    expect(low.renewal.findings.map((x: any) => x.item)).toEqual(["EXCESS_LIABILITY"]);
    expect(errorCode(await clerk.gql(DECIDE_RENEWAL, { i: { renewalId: low.renewal.id, decision: "ACCEPT" } }))).toBe("CONFLICT");
  });

  it("sends one notice, not a countdown, once an item has expired", async () => {
    const { firm: f, id } = await approvedFirm("Lapsed Laterals", { bondExpiresOn: inDays(10) });
    await sendExpiryReminders(srv.running.ds, today());
    expect(await emailsOf(f.owner, "contractor.expiry_reminder")).toHaveLength(1);
    expect(await emailsOf(f.owner, "contractor.expired_notice")).toHaveLength(0);
    // The last day of cover is still in force: nothing new.
    await sendExpiryReminders(srv.running.ds, inDays(10));
    expect(await emailsOf(f.owner, "contractor.expired_notice")).toHaveLength(0);

    await sendExpiryReminders(srv.running.ds, inDays(11));
    await sendExpiryReminders(srv.running.ds, inDays(12));
    const notices = await emailsOf(f.owner, "contractor.expired_notice");
    expect(notices).toHaveLength(1);
    expect(notices[0].subject).toMatch(/Lapsed Laterals: the bond filed with .* has expired/);
    expect(notices[0].bodyText).toMatch(/can no longer choose Lapsed Laterals until it files a renewed bond/);
    expect(notices[0].bodyText).not.toMatch(/in -?\d+ days?|expires/);
    expect(await emailsOf(f.owner, "contractor.expiry_reminder")).toHaveLength(1);

    // An item already expired when the job first sees it gets the notice only.
    await srv.running.ds.query(`UPDATE contractor_insurance SET expires_on = $2 WHERE contractor_id = $1 AND coverage = 'PROPERTY_DAMAGE'`, [id, inDays(-3)]);
    await sendExpiryReminders(srv.running.ds, today());
    await sendExpiryReminders(srv.running.ds, today());
    expect((await emailsOf(f.owner, "contractor.expired_notice")).map((e: any) => e.subject)).toContainEqual(expect.stringMatching(/property damage liability insurance .* has expired/));
    expect(await emailsOf(f.owner, "contractor.expired_notice")).toHaveLength(2);
    expect(await emailsOf(f.owner, "contractor.expiry_reminder")).toHaveLength(1);
  });

  it("an ADMIN of the district downloads the bond and certificates its staff page links", async () => {
    const { firm: f } = await approvedFirm("Admin Audited Pipes");
    expect((await download(f.docId, await signedIn(DEMO.lakeviewAdmin))).status).toBe(200);
    expect((await download(f.docId, await signedIn(DEMO.huronAdmin))).status).toBe(404);
  });

  it("shows the district's requirements with their sections", async () => {
    const req = (await new Client(srv.url).ok(`{ contractorRequirements(districtSlug: "lakeview") {
      approvedListEnabled list { section } bond { minimumCents section } coverages { coverage required minimumCents section }
      cancellationNoticeBusinessDays expiryReminderDays } }`)).contractorRequirements;
    expect(req).toMatchObject({ approvedListEnabled: true, list: { section: "Sewer Use Law 601 A" }, bond: { minimumCents: 500000, section: "Sewer Use Law 508(1)" } });
    expect(req.cancellationNoticeBusinessDays).toBe(5);
    expect(req.expiryReminderDays).toBe(30);
    expect(Object.fromEntries(req.coverages.map((c: any) => [c.coverage, c.minimumCents]))).toEqual(MINIMUMS);
    expect(req.coverages.every((c: any) => c.required)).toBe(true);
  });
});

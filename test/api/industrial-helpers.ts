import { expect } from "vitest";
import { Client, DEMO, type TestServer } from "../harness.js";

/** The industrial tests' helpers: an industrial user with owner, AR and member, its permit application, and a permit taken to issuance. */

export const PASSWORD = "correct horse battery staple";
export const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");

export type Firm = { owner: Client; ar: Client; member: Client; orgId: string; arEmail: string; ownerEmail: string; memberEmail: string; planId: string; labId: string };

export async function signedIn(srv: TestServer, email: string): Promise<Client> {
  const c = new Client(srv.url);
  await c.signIn(email);
  return c;
}

let n = 0;
export async function firm(srv: TestServer, name: string, domain = "events.example"): Promise<Firm> {
  const k = `${Date.now() % 100000}x${++n}`;
  const owner = new Client(srv.url);
  const ownerEmail = `owner${k}@${domain}`;
  await owner.signUp(ownerEmail, `Owner ${k}`, PASSWORD);
  const { createOrganization } = await owner.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name, kind: "INDUSTRIAL_USER" } });
  const ar = new Client(srv.url);
  const arEmail = `ar${k}@${domain}`;
  const arId = await ar.signUp(arEmail, `Avery Rep ${k}`, PASSWORD);
  const member = new Client(srv.url);
  const memberEmail = `member${k}@${domain}`;
  const memberId = await member.signUp(memberEmail, `Member ${k}`, PASSWORD);
  await srv.running.ds.query(`INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, 'AUTHORIZED_REPRESENTATIVE'), ($1, $3, 'MEMBER')`, [createOrganization.id, arId, memberId]);
  const up = (filename: string) => owner.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename, contentBase64: PDF } });
  const plan = await up("site-plan.pdf");
  const lab = await up("lab-report.pdf");
  return { owner, ar, member, orgId: createOrganization.id, arEmail, ownerEmail, memberEmail, planId: plan.uploadDocument.id, labId: lab.uploadDocument.id };
}

export function application(f: Firm, districtId: string, extra: Record<string, unknown> = {}) {
  return {
    organizationId: f.orgId,
    districtId,
    facilityName: "Harbor Plating Works",
    street: "12 Foundry Lane",
    city: "Lakeview",
    zip: "13600",
    sicCodes: ["3471"],
    constituents: [{ parameter: "Zinc", value: 0.9, unit: "mg/L" }],
    dischargeSchedule: "Weekdays 7:00-15:00",
    dischargeHoursPerDay: 8,
    averageFlowGpd: 12000,
    peakFlowGpd: 20000,
    flowVariations: "Lower in August",
    activities: "Zinc electroplating of fasteners",
    products: [{ name: "Zinc-plated fasteners", amount: 40000, unit: "parts/day", process: "Barrel plating" }],
    rawMaterials: [{ name: "Zinc chloride", averagePerDay: 50, maximumPerDay: 80, unit: "lb/day" }],
    employees: 42,
    employeeTypes: "Platers",
    hoursOfOperation: "Mon-Fri 6:00-16:00",
    pretreatmentHours: "Mon-Fri 6:00-16:00",
    pollutants: [{ parameter: "Zinc", concentration: 0.9, unit: "mg/L", standardMet: true }],
    standardsMet: true,
    complianceSchedule: [],
    otherInfo: null,
    tradeSecretFields: [],
    planDocumentIds: [f.planId],
    labReportDocumentIds: [f.labId],
    ...extra,
  };
}

/** Sets Lakeview's application fee (the shipped rulebook leaves it blank), once per server. */
export async function setFee(srv: TestServer, districtId: string) {
  const admin = await signedIn(srv, DEMO.lakeviewAdmin);
  const r = await admin.gql(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: { districtId, changes: [{ key: "industrial.applicationFee", value: 50000 }], effectiveDate: "2026-09-01", reason: "Town Board resolution 2026-41 sets the fee", resolutionNumber: "2026-41", resolutionAdoptedOn: "2026-08-18" },
  });
  return r;
}

async function pay(c: Client, paymentId: string) {
  const { startCheckout } = await c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`, { id: paymentId });
  const sessionId = startCheckout.url.split("/").pop();
  const done = await c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { status } }`, { s: sessionId });
  expect(done.completeTestCheckout.status).toBe("PAID");
}

/**
 * Applies, pays, publishes the notice and issues (the caller moves the clock: notice now, issue
 * `issue()` once 14 days have passed).
 */
export async function applyAndNotice(f: Firm, operator: Client, districtId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { saveIndustrialApplication: d } = await f.owner.ok(`mutation($i: IndustrialApplicationInput!) { saveIndustrialApplication(input: $i) { id } }`, { i: application(f, districtId, extra) });
  const { submitIndustrialApplication: s } = await f.owner.ok(`mutation($id: ID!) { submitIndustrialApplication(id: $id) { paymentId } }`, { id: d.id });
  await pay(f.owner, s.paymentId);
  await operator.ok(`mutation($id: ID!) { publishIndustrialNotice(id: $id) { id } }`, { id: d.id });
  return d.id;
}

export async function issue(operator: Client, id: string, expiresOn: string): Promise<{ reports: { id: string; dueOn: string }[] }> {
  const { issueIndustrialPermit } = await operator.ok(`mutation($i: IssueIndustrialPermitInput!) { issueIndustrialPermit(input: $i) { reports { id dueOn } } }`, { i: { id, expiresOn } });
  return issueIndustrialPermit;
}

/** The AR signs a report as reviewed now. */
export async function sign(c: Client, reportId: string) {
  const { industrialReport } = await c.ok(`query($id: ID!) { industrialReport(id: $id) { contentHash } }`, { id: reportId });
  return c.gql(`mutation($i: SignIndustrialReportInput!) { signIndustrialReport(input: $i) { id sha256 document } }`, {
    i: { reportId, password: PASSWORD, certify: true, reviewedHash: industrialReport.contentHash },
  });
}

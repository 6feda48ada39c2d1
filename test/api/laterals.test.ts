import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearMicroCache } from "../../api/graphql/micro-cache.js";
import { addCalendarDays, dateIn, formatDate } from "../../api/common/dates.js";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { Client, DEMO, errorCode, startTestServer, type GqlResponse, type TestServer, isSessionBookkeeping, signedInAs } from "../harness.js";

/**
 * Building lateral permits over HTTP: the application and its fees from the rulebook (SUL 1212,
 * 606 B), payment before issue, review, inspections (SUL 612-613), record drawings and the
 * deposit refund, moratoria (SUL 310), and who may see and do what.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let operator: Client;
let clerk: Client;
let admin: Client;
let board: Client;
const TZ = "America/New_York";

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [operator, clerk, admin, board] = await Promise.all([DEMO.lakeviewOperator, DEMO.lakeviewClerk, DEMO.lakeviewAdmin, DEMO.lakeviewBoard].map(signedIn));
});
afterAll(() => srv?.close());

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");
const db = () => srv.running.ds;

/** An approved (or other status) contractor on a district's list, as the contractors feature stores one. */
async function contractor(districtId: string, name: string, status = "APPROVED", bondExpiresOn = addCalendarDays(dateIn(TZ), 365)): Promise<string> {
  const [clerkUser] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.lakeviewClerk]);
  const [org] = await db().query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'CONTRACTOR', $2) RETURNING id`, [name, clerkUser.id]);
  const [doc] = await db().query(
    `INSERT INTO document (owner_id, filename, content_type, size_bytes, sha256, storage_key) VALUES ($1, 'bond.pdf', 'application/pdf', 10, repeat('a', 64), 'ab/' || gen_random_uuid()) RETURNING id`,
    [clerkUser.id],
  );
  const [rv] = await db().query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [districtId]);
  const decided = status === "APPLIED" ? null : new Date();
  const [c] = await db().query(
    `INSERT INTO contractor (organization_id, district_id, status, bond_amount_cents, bond_expires_on, bond_document_id, rulebook_version_id, applied_by_id, decided_by_id, decided_at, suspended_reason)
     VALUES ($1, $2, $3, 500000, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    [org.id, districtId, status, bondExpiresOn, doc.id, rv.id, clerkUser.id, decided ? clerkUser.id : null, decided, status === "SUSPENDED" ? "Worked without a permit on Lake Street" : null],
  );
  return c.id;
}

let goodContractor: string;
beforeAll(async () => {
  goodContractor = await contractor(lakeview.id, "Lakeview Excavating LLC");
});

type Applicant = { c: Client; planId: string; email: string };
let n = 0;
async function applicant(): Promise<Applicant> {
  const c = new Client(srv.url);
  const email = `homeowner${++n}@example.org`;
  await c.signUp(email, `Homeowner ${n}`);
  const { uploadDocument } = await c.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename: "site-plan.pdf", contentBase64: PDF } });
  return { c, planId: uploadDocument.id, email };
}

const P = `id status statusLabel permitClass buildingUse floorAreaSqft workKind streetNumber street city zip address taxParcel ownerName agentName
  asBuiltSheets rulebookVersionId feeTotalCents paymentId paidAt permitNumber submittedAt reviewNotes approvedAt connectedAt closedAt pdfUrl
  feeLines { code label section amountCents refundable }
  payment { id status amountCents receiptNumber }
  contractor { id name standing { choosable reasons } }
  documents { id filename }
  recordDrawings { id filename }
  inspections { id kind status scheduledFor resultNotes inspectorName }
  requiredInspections { kind label section status requestable }
  checklist { key requirement section }
  nextStep { text dueDate daysLeft }
  depositRefund { amountCents refunded receiptNumber }`;
const SAVE = `mutation($i: LateralPermitDraftInput!) { saveLateralPermitDraft(input: $i) { ${P} } }`;
const SUBMIT = `mutation($id: ID!) { submitLateralPermit(id: $id) { ${P} } }`;
const GET = `query($id: ID!) { lateralPermit(id: $id) { ${P} } }`;
const APPROVE = `mutation($id: ID!) { approveLateralPermit(id: $id) { ${P} } }`;
const CHANGES = `mutation($id: ID!, $n: String!) { requestLateralPermitChanges(id: $id, notes: $n) { ${P} } }`;
const WITHDRAW = `mutation($id: ID!) { withdrawLateralPermit(id: $id, reason: "Changed my mind") { id status } }`;
const REQUEST = `mutation($id: ID!, $k: String!) { requestInspection(permitId: $id, kind: $k) { id kind status } }`;
const SCHEDULE = `mutation($i: ScheduleInspectionInput!) { scheduleInspection(input: $i) { id status scheduledFor inspectorName } }`;
const RECORD = `mutation($i: RecordInspectionResultInput!) { recordInspectionResult(input: $i) { id status inspectedAt permit { id status connectedAt } } }`;
const DRAWINGS = `mutation($id: ID!) { approveRecordDrawings(id: $id) { ${P} } }`;
const PREFER = `mutation($id: ID!, $d: String) { requestInspection(permitId: $id, preferredOn: $d, notes: "Mornings are best.") { id kind status preferredOn } }`;
const FILE_DRAWINGS = `mutation($i: FileRecordDrawingsInput!) { fileRecordDrawings(input: $i) { ${P} } }`;

function residential(a: Applicant, over: Record<string, unknown> = {}) {
  return {
    districtId: lakeview.id,
    permitClass: "RESIDENTIAL_COMMERCIAL_INSTITUTIONAL",
    buildingUse: "RESIDENTIAL",
    workKind: "NEW_BUILDING",
    streetNumber: "12",
    street: "Orchard Lane",
    city: "Lakeview",
    zip: "13600",
    taxParcel: "101.2-3-4",
    ownerName: "Pat Homeowner",
    contractorId: goodContractor,
    asBuiltSheets: 3,
    documentIds: [a.planId],
    ...over,
  };
}

async function draft(a: Applicant, over: Record<string, unknown> = {}): Promise<any> {
  return (await a.c.ok(SAVE, { i: residential(a, over) })).saveLateralPermitDraft;
}

/** Pays the permit's payment through the payments feature's built-in test checkout. */
async function pay(a: Applicant, paymentId: string) {
  const { startCheckout } = await a.c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`, { id: paymentId });
  expect(startCheckout.provider).toBe("test");
  const sessionId = startCheckout.url.split("/").pop();
  const done = await a.c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id status receiptNumber } }`, { s: sessionId });
  expect(done.completeTestCheckout.status).toBe("PAID");
  return done.completeTestCheckout;
}

/** A residential application submitted, paid and issued. */
async function issued(over: Record<string, unknown> = {}): Promise<{ a: Applicant; permit: any; receipt: string }> {
  const a = await applicant();
  const d = await draft(a, over);
  const s = (await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit;
  const paid = await pay(a, s.paymentId);
  const permit = (await operator.ok(APPROVE, { id: d.id })).approveLateralPermit;
  return { a, permit, receipt: paid.receiptNumber };
}

const fields = (r: GqlResponse) => r.errors?.[0]?.extensions?.fields ?? {};
const emails = async (email: string, kind: string) =>
  (await db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = $1 AND kind = $2 ORDER BY created_at`, [email, kind])) as { subject: string; body_text: string }[];
const nextWeekday = (hour: number) => {
  // A weekday morning a few days ahead, as the district's clock reads it.
  let d = addCalendarDays(dateIn(TZ), 3);
  while ([0, 6].includes(new Date(`${d}T12:00:00Z`).getUTCDay())) d = addCalendarDays(d, 1);
  return `${d}T${String(hour).padStart(2, "0")}:00`;
};

describe("applying for a residential lateral permit (Lakeview, Sewer Use Law)", () => {
  it("saves a draft, resumes it, and on submission computes the fee from the rulebook: $150.00 plus 3 sheets × $100.00 refundable", async () => {
    const a = await applicant();
    const first = (await a.c.ok(SAVE, { i: { districtId: lakeview.id, street: "Orchard Lane", streetNumber: "12" } })).saveLateralPermitDraft;
    expect(first).toMatchObject({ status: "DRAFT", street: "Orchard Lane", feeLines: [], feeTotalCents: 0, paymentId: null, permitNumber: null });

    // Resumed later: the draft is there as saved, on the list and on the dashboard.
    const resumed = (await a.c.ok(GET, { id: first.id })).lateralPermit;
    expect(resumed).toMatchObject({ id: first.id, status: "DRAFT", street: "Orchard Lane", streetNumber: "12", city: null });
    expect((await a.c.ok(`{ myLateralPermits { id status } }`)).myLateralPermits).toEqual([{ id: first.id, status: "DRAFT" }]);
    const dash = (await a.c.ok(`{ myDashboard { items { kind id status nextStep href } } }`)).myDashboard.items;
    expect(dash).toContainEqual({ kind: "LateralPermit", id: first.id, status: "Draft", nextStep: "Finish the application and submit it", href: `/permits/${first.id}/edit` });

    // Submitting an incomplete draft names every missing part.
    const incomplete = await a.c.gql(SUBMIT, { id: first.id });
    expect(errorCode(incomplete)).toBe("BAD_USER_INPUT");
    expect(Object.keys(fields(incomplete)).sort()).toEqual(
      ["asBuiltSheets", "buildingUse", "city", "contractorId", "documentIds", "ownerName", "permitClass", "taxParcel", "workKind", "zip"].sort(),
    );

    await a.c.ok(SAVE, { i: { id: first.id, ...residential(a), districtId: undefined } });
    const s = (await a.c.ok(SUBMIT, { id: first.id })).submitLateralPermit;
    expect(s.status).toBe("SUBMITTED");
    expect(s.feeLines).toEqual([
      { code: "LATERAL_FEE_RESIDENTIAL", label: "Inspection and administration fee, residential", section: "Sewer Use Law 1212", amountCents: 15000, refundable: false },
      { code: "AS_BUILT_DEPOSIT", label: "As-built drawing deposit, 3 sheets × $100.00 (refundable)", section: "Sewer Use Law 606 B", amountCents: 30000, refundable: true },
    ]);
    expect(s.feeTotalCents).toBe(45000);
    expect(s.payment).toMatchObject({ id: s.paymentId, status: "PENDING", amountCents: 45000, receiptNumber: null });
    const [current] = await db().query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY effective_date DESC, version DESC LIMIT 1`, [lakeview.id]);
    expect(s.rulebookVersionId).toBe(current.id);
    expect(s.nextStep.text).toBe("Pay the fees of $450.00; the permit is issued only once they are paid");
    expect(s.checklist.map((c: any) => [c.requirement, c.section])).toEqual([
      ["Inside diameter at least 4 inches", "Sewer Use Law 605"],
      ["Slope at least 1/4 inch per foot", "Sewer Use Law 605"],
      ["Earth cover at least 4 feet (2 feet if insulated as the District Operator approves)", "Sewer Use Law 609"],
      ["Cast iron soil pipe within 5 feet of a water main or water service", "Sewer Use Law 605"],
      ["Cleanouts to grade at most 75 feet apart", "Sewer Use Law 607"],
      ["A cleanout at every change of direction of 90 degrees or more", "Sewer Use Law 607"],
      ["Enters the basement at least 12 inches above the floor", "Sewer Use Law 607"],
      ["No lateral under a basement, and no building over an existing lateral, without written approval", "Sewer Use Law 603 A"],
      ["A potable water meter the District Operator accepts on the newly connected building", "Sewer Use Law 616"],
    ]);
    const [mail] = await emails(a.email, "lateral.submitted");
    expect(mail.body_text).toContain("Inspection and administration fee, residential: $150.00 (Sewer Use Law 1212)");
    expect(mail.body_text).toContain(`/payments/${s.paymentId}`);
  });

  it("takes no amount from the browser: the input has no fee fields", async () => {
    const a = await applicant();
    const r = await a.c.gql(SAVE, { i: { ...residential(a), feeTotalCents: 1 } });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
  });

  it("a commercial building of 2,400 sq ft pays $1,200.00 (50 cents a square foot, Sewer Use Law 1212)", async () => {
    const a = await applicant();
    const d = await draft(a, { buildingUse: "COMMERCIAL", floorAreaSqft: 2400, asBuiltSheets: 1 });
    const s = (await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit;
    expect(s.feeLines).toEqual([
      { code: "LATERAL_FEE_FLOOR_AREA", label: "Inspection and administration fee, commercial: 2,400 sq ft × $0.50", section: "Sewer Use Law 1212", amountCents: 120000, refundable: false },
      { code: "AS_BUILT_DEPOSIT", label: "As-built drawing deposit, 1 sheet × $100.00 (refundable)", section: "Sewer Use Law 606 B", amountCents: 10000, refundable: true },
    ]);
    expect(s.feeTotalCents).toBe(130000);
  });

  it("adds the impact fee the Board sets, from the date it takes effect", async () => {
    const { changeRulebook } = await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { id version } }`, {
      i: { districtId: lakeview.id, changes: [{ key: "lateral.impactFee", value: 75000 }], effectiveDate: addCalendarDays(dateIn(TZ), 1), reason: "Board resolution 2026-12: impact fee", resolutionNumber: "2026-12", resolutionAdoptedOn: dateIn(TZ) },
    });
    const a = await applicant();
    const today = (await a.c.ok(SUBMIT, { id: (await draft(a)).id })).submitLateralPermit;
    expect(today.feeLines.map((l: any) => l.code)).toEqual(["LATERAL_FEE_RESIDENTIAL", "AS_BUILT_DEPOSIT"]);
    // From tomorrow the new version applies; make it apply today to see the line.
    await db().query(`UPDATE rulebook_version SET effective_date = $2 WHERE id = $1`, [changeRulebook.id, dateIn(TZ)]);
    const b = await applicant();
    const withImpact = (await b.c.ok(SUBMIT, { id: (await draft(b)).id })).submitLateralPermit;
    expect(withImpact.feeLines.map((l: any) => [l.code, l.label, l.section, l.amountCents])).toContainEqual(["LATERAL_IMPACT_FEE", "Impact fee for new development", "Sewer Use Law 1212", 75000]);
    expect(withImpact.feeTotalCents).toBe(15000 + 75000 + 30000);
    expect(withImpact.rulebookVersionId).toBe(changeRulebook.id);
    // The earlier application keeps the fee and the version it was submitted under.
    expect((await a.c.ok(GET, { id: today.id })).lateralPermit.feeTotalCents).toBe(45000);
    await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { id } }`, {
      i: { districtId: lakeview.id, changes: [{ key: "lateral.impactFee", value: null }], effectiveDate: dateIn(TZ), reason: "Board rescinded the impact fee", resolutionNumber: "2026-13", resolutionAdoptedOn: dateIn(TZ) },
    });
  });

  it("refuses an approval while unpaid (PAYMENT_REQUIRED), then issues the permit once paid, with a number and a printable PDF", async () => {
    const a = await applicant();
    const d = await draft(a);
    const s = (await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit;
    const unpaid = await operator.gql(APPROVE, { id: d.id });
    expect(errorCode(unpaid)).toBe("PAYMENT_REQUIRED");
    expect(unpaid.errors![0].message).toContain("$450.00");

    const paid = await pay(a, s.paymentId);
    const after = (await a.c.ok(GET, { id: d.id })).lateralPermit;
    expect(after.paidAt).not.toBeNull();
    expect(after.payment).toMatchObject({ status: "PAID", receiptNumber: paid.receiptNumber });
    expect(after.nextStep.text).toBe("The District Operator reviews the application");

    // Only the district's Operator issues permits.
    expect(errorCode(await clerk.gql(APPROVE, { id: d.id }))).toBe("FORBIDDEN");
    const ok = (await operator.ok(APPROVE, { id: d.id })).approveLateralPermit;
    expect(ok.status).toBe("APPROVED");
    expect(ok.permitNumber).toMatch(new RegExp(`^LKV-LP-${dateIn(TZ).slice(0, 4)}-\\d{4}$`));
    expect(ok.pdfUrl).toBe(`/permits/${d.id}/permit.pdf`);
    const [mail] = await emails(a.email, "lateral.approved");
    expect(mail.subject).toContain(ok.permitNumber);
    expect(errorCode(await operator.gql(APPROVE, { id: d.id }))).toBe("CONFLICT");

    // The printable permit: the applicant and the district's staff; nobody else.
    const get = (c?: Client) => fetch(`${srv.url}${ok.pdfUrl}`, { headers: c ? { cookie: c.cookieHeader } : {} });
    const mine = await get(a.c);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-type")).toBe("application/pdf");
    const bytes = Buffer.from(await mine.arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect((await get(operator)).status).toBe(200);
    expect((await get(board)).status).toBe(200);
    expect((await get((await applicant()).c)).status).toBe(404);
    expect((await get(await signedIn(DEMO.huronAdmin))).status).toBe(404);
    expect((await get()).status).toBe(401);

    // Withdrawal is possible only until the permit is issued.
    expect(errorCode(await a.c.gql(WITHDRAW, { id: d.id }))).toBe("CONFLICT");
  });

  it("the Operator asks for changes; the applicant edits and resubmits without paying twice", async () => {
    const a = await applicant();
    const d = await draft(a);
    const s = (await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit;
    expect(errorCode(await operator.gql(CHANGES, { id: d.id, n: " " }))).toBe("BAD_USER_INPUT");
    const back = (await operator.ok(CHANGES, { id: d.id, n: "Show the cleanout at the 90-degree bend on sheet 2." })).requestLateralPermitChanges;
    expect(back).toMatchObject({ status: "CHANGES_REQUESTED", reviewNotes: "Show the cleanout at the 90-degree bend on sheet 2." });
    expect((await emails(a.email, "lateral.changes_requested"))[0].body_text).toContain("cleanout at the 90-degree bend");

    // What sets the fee cannot change after submission; the rest can.
    const locked = await a.c.gql(SAVE, { i: { ...residential(a), id: d.id, districtId: undefined, asBuiltSheets: 1 } });
    expect(errorCode(locked)).toBe("BAD_USER_INPUT");
    expect(Object.keys(fields(locked))).toEqual(["asBuiltSheets"]);
    await a.c.ok(SAVE, { i: { ...residential(a), id: d.id, districtId: undefined, agentName: "Sam Architect" } });
    const again = (await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit;
    expect(again).toMatchObject({ status: "SUBMITTED", agentName: "Sam Architect", paymentId: s.paymentId, feeTotalCents: 45000 });
    const payments = await db().query(`SELECT id FROM payment WHERE payable_type = 'LateralPermit' AND payable_id = $1`, [d.id]);
    expect(payments).toEqual([{ id: s.paymentId }]);

    // Withdrawn before approval: allowed.
    expect((await a.c.ok(WITHDRAW, { id: d.id })).withdrawLateralPermit.status).toBe("WITHDRAWN");
    expect(errorCode(await a.c.gql(SUBMIT, { id: d.id }))).toBe("CONFLICT");

    const log = await operator.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action } } }`, { f: { districtId: lakeview.id, entityId: d.id } });
    expect(log.auditLog.entries.map((e: any) => e.action).reverse()).toEqual([
      "lateral.draft_created",
      "lateral.submitted",
      "lateral.changes_requested",
      "lateral.draft_saved",
      "lateral.resubmitted",
      "lateral.withdrawn",
    ]);
  });
});

describe("bad inputs", () => {
  it("refuses a zero, negative or fractional floor area, and a commercial building without one", async () => {
    const a = await applicant();
    for (const floorAreaSqft of [0, -5]) {
      const r = await a.c.gql(SAVE, { i: residential(a, { buildingUse: "COMMERCIAL", floorAreaSqft }) });
      expect(errorCode(r)).toBe("BAD_USER_INPUT");
      expect(fields(r).floorAreaSqft).toBe("The floor area must be more than zero square feet.");
    }
    expect(errorCode(await a.c.gql(SAVE, { i: residential(a, { buildingUse: "COMMERCIAL", floorAreaSqft: 12.5 }) }))).toBe("BAD_USER_INPUT");
    const d = await draft(a, { buildingUse: "COMMERCIAL", floorAreaSqft: null });
    const r = await a.c.gql(SUBMIT, { id: d.id });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(fields(r)).toEqual({ floorAreaSqft: "Enter the floor area of the commercial building: the fee is charged per square foot." });
  });

  it("withdrawing an unpaid application cancels its payment: nothing is due, and it can no longer be paid", async () => {
    const a = await applicant();
    const s = (await a.c.ok(SUBMIT, { id: (await draft(a)).id })).submitLateralPermit;
    expect((await a.c.ok(WITHDRAW, { id: s.id })).withdrawLateralPermit.status).toBe("WITHDRAWN");
    const [pay] = await db().query(`SELECT status, cancel_reason FROM payment WHERE id = $1`, [s.paymentId]);
    expect(pay).toEqual({ status: "CANCELLED", cancel_reason: "The application was withdrawn." });
    const r = await a.c.gql(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: s.paymentId });
    expect(errorCode(r)).toBe("CONFLICT");
    const [mail] = await emails(a.email, "lateral.withdrawn");
    expect(mail.body_text).toContain("Its fees were not paid and are no longer due.");
  });

  it("says what the limit is when a floor area or a count of sheets is too large, and accepts the limit itself", async () => {
    const a = await applicant();
    const big = fields(await a.c.gql(SAVE, { i: residential(a, { buildingUse: "COMMERCIAL", floorAreaSqft: 10_000_001, asBuiltSheets: 501 }) }));
    expect(big.floorAreaSqft).toBe("Enter a floor area of at most 10,000,000 square feet; for a larger building, ask the district office.");
    expect(big.asBuiltSheets).toBe("Enter at most 500 sheets; for a larger set of plans, ask the district office.");
    const atLimit = await draft(a, { buildingUse: "COMMERCIAL", floorAreaSqft: 10_000_000, asBuiltSheets: 500 });
    expect(atLimit).toMatchObject({ floorAreaSqft: 10_000_000, asBuiltSheets: 500 });
  });

  it("a plan uploaded with a form that is refused is not kept; with a form that is saved it is attached in the same step", async () => {
    const a = await applicant();
    const docs = async () => (await db().query(`SELECT count(*)::int AS n FROM document d JOIN app_user u ON u.id = d.owner_id WHERE u.email = $1`, [a.email]))[0].n;
    const before = await docs();
    const refused = await a.c.gql(SAVE, { i: residential(a, { zip: "1360", documentIds: [], newPlans: [{ filename: "plan.pdf", contentBase64: PDF }] }) });
    expect(fields(refused)).toEqual({ zip: "Enter a ZIP code like 13600 or 13600-1234." });
    // Refused inside the transaction too (another district's contractor is checked there): nothing kept.
    const refusedLater = await a.c.gql(SAVE, { i: residential(a, { contractorId: "00000000-0000-4000-8000-000000000000", documentIds: [], newPlans: [{ filename: "plan.pdf", contentBase64: PDF }] }) });
    expect(errorCode(refusedLater)).toBe("BAD_USER_INPUT");
    expect(await docs()).toBe(before);
    const notAFile = fields(await a.c.gql(SAVE, { i: residential(a, { documentIds: [], newPlans: [{ filename: "plan.pdf", contentBase64: Buffer.from("hello").toString("base64") }] }) }));
    expect(notAFile).toEqual({ content: "Upload a PDF, PNG or JPEG file." });
    const saved = await draft(a, { documentIds: [a.planId], newPlans: [{ filename: "second-sheet.pdf", contentBase64: PDF }] });
    expect(saved.documents.map((d: any) => d.filename)).toEqual(["site-plan.pdf", "second-sheet.pdf"]);
    expect(await docs()).toBe(before + 1);
  });

  it("refuses the wrong class for the building, no plans, another person's plans, zero sheets, a bad ZIP", async () => {
    const a = await applicant();
    const other = await applicant();
    const mismatch = await a.c.gql(SUBMIT, { id: (await draft(a, { permitClass: "INDUSTRIAL" })).id });
    expect(Object.keys(fields(mismatch))).toEqual(["permitClass"]);
    const noPlans = await a.c.gql(SUBMIT, { id: (await draft(a, { documentIds: [] })).id });
    expect(fields(noPlans)).toEqual({ documentIds: "Attach the plans and specifications (PDF, PNG or JPEG; Sewer Use Law 602, 606 B)." });
    expect(fields(await a.c.gql(SAVE, { i: residential(a, { documentIds: [other.planId] }) }))).toEqual({ documentIds: "Attach plans from your own uploaded documents." });
    expect(Object.keys(fields(await a.c.gql(SUBMIT, { id: (await draft(a, { asBuiltSheets: 0 })).id })))).toEqual(["asBuiltSheets"]);
    expect(Object.keys(fields(await a.c.gql(SAVE, { i: residential(a, { zip: "1360" }) })))).toEqual(["zip"]);
    // Every problem of a draft at once (issue 19): a bad ZIP with another person's plans and a contractor
    // the district does not list, not the ZIP first and the rest after.
    const all = await a.c.gql(SAVE, { i: residential(a, { zip: "1360", documentIds: [other.planId], contractorId: randomUUID(), workDoneBy: "Me" }) });
    expect(Object.keys(fields(all)).sort()).toEqual(["contractorId", "documentIds", "workDoneBy", "zip"]);
  });

  it("refuses a suspended, an unapproved, an expired or another district's contractor, with the reasons", async () => {
    const a = await applicant();
    const suspended = await contractor(lakeview.id, "Shortcut Trenching Inc", "SUSPENDED");
    const applied = await contractor(lakeview.id, "New Pipe Co", "APPLIED");
    const expired = await contractor(lakeview.id, "Lapsed Bond Sewer Co", "APPROVED", addCalendarDays(dateIn(TZ), -1));
    const r1 = await a.c.gql(SUBMIT, { id: (await draft(a, { contractorId: suspended })).id });
    expect(errorCode(r1)).toBe("BAD_USER_INPUT");
    expect(fields(r1).contractorId).toBe("This contractor cannot be chosen: The contractor is suspended: Worked without a permit on Lake Street");
    expect(fields(await a.c.gql(SUBMIT, { id: (await draft(a, { contractorId: applied })).id })).contractorId).toContain("waiting for the Clerk's decision");
    expect(fields(await a.c.gql(SUBMIT, { id: (await draft(a, { contractorId: expired })).id })).contractorId).toContain("The bond expired on");
    const unknownFirm = "00000000-0000-4000-8000-000000000000";
    expect(fields(await a.c.gql(SAVE, { i: residential(a, { contractorId: unknownFirm }) })).contractorId).toContain("district's list");

    // Suspended between submission and approval: the permit is not issued naming it.
    const lapsing = await contractor(lakeview.id, "Lapsing Diggers");
    const c = await applicant();
    const s = (await c.c.ok(SUBMIT, { id: (await draft(c, { contractorId: lapsing })).id })).submitLateralPermit;
    await pay(c, s.paymentId);
    await db().query(`UPDATE contractor SET status = 'SUSPENDED', suspended_reason = 'Bond cancelled' WHERE id = $1`, [lapsing]);
    const refused = await operator.gql(APPROVE, { id: s.id });
    expect(errorCode(refused)).toBe("CONFLICT");
    expect(refused.errors![0].message).toContain("Bond cancelled");

    // A contractor suspended after the permit was issued: the open permit shows the warning.
    const later = await contractor(lakeview.id, "Soon Suspended Ltd");
    const { a: b, permit } = await issued({ contractorId: later });
    await db().query(`UPDATE contractor SET status = 'SUSPENDED', suspended_reason = 'Insurance cancelled' WHERE id = $1`, [later]);
    const seen = (await b.c.ok(GET, { id: permit.id })).lateralPermit;
    expect(seen.contractor).toEqual({ id: later, name: "Soon Suspended Ltd", standing: { choosable: false, reasons: ["The contractor is suspended: Insurance cancelled"] } });
  });

  it("answers NOT_FOUND for another applicant's permit, and for ids that are not ids", async () => {
    const a = await applicant();
    const d = await draft(a);
    const other = await applicant();
    expect(errorCode(await other.c.gql(GET, { id: d.id }))).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(SAVE, { i: { id: d.id, street: "Mine Now" } }))).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(SUBMIT, { id: d.id }))).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(WITHDRAW, { id: d.id }))).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(GET, { id: "not-a-uuid" }))).toBe("NOT_FOUND");
    // A draft is the applicant's own: staff see an application once it is submitted.
    expect(errorCode(await operator.gql(GET, { id: d.id }))).toBe("NOT_FOUND");
    await a.c.ok(SUBMIT, { id: d.id });
    expect((await clerk.ok(GET, { id: d.id })).lateralPermit.status).toBe("SUBMITTED");
    expect(errorCode(await (await signedIn(DEMO.huronAdmin)).gql(GET, { id: d.id }))).toBe("NOT_FOUND");
    // The district's Operator reads the plans; a Board member does not.
    const plans = (await operator.ok(GET, { id: d.id })).lateralPermit.documents;
    expect(plans).toEqual([{ id: a.planId, filename: "site-plan.pdf" }]);
    expect((await fetch(`${srv.url}/documents/${a.planId}`, { headers: { cookie: operator.cookieHeader } })).status).toBe(200);
    expect((await fetch(`${srv.url}/documents/${a.planId}`, { headers: { cookie: board.cookieHeader } })).status).toBe(404);
    expect((await board.ok(GET, { id: d.id })).lateralPermit.documents).toEqual([]);
  });
});

describe("Huron's homeowner (Huron III-1 to III-11): no fee, no contractor list, no as-built drawings", () => {
  const huronHome = (over: Record<string, unknown> = {}) => ({
    districtId: huron.id,
    permitClass: "RESIDENTIAL_COMMERCIAL_INSTITUTIONAL",
    buildingUse: "RESIDENTIAL",
    workKind: "NEW_BUILDING",
    streetNumber: "8",
    street: "Bay Shore Road",
    city: "Huron",
    zip: "14500",
    taxParcel: "55.1-2-3",
    ownerName: "Robin Owner",
    workDoneBy: "The owner, with Bay Shore Plumbing",
    ...over,
  });

  it("states what an application carries in each district, from the rulebook", async () => {
    const Q = `query($s: String!) { lateralApplicationRequirements(districtSlug: $s) { plans { required section } approvedContractor { required section } asBuiltDrawings { required section copies depositPerSheetCents } floorArea } }`;
    const anyone = new Client(srv.url);
    expect((await anyone.ok(Q, { s: "huron" })).lateralApplicationRequirements).toEqual({
      plans: { required: false, section: "Huron III-2" },
      approvedContractor: { required: false, section: "Huron Article III" },
      asBuiltDrawings: { required: false, section: "Huron Article III", copies: null, depositPerSheetCents: null },
      floorArea: false,
    });
    expect((await anyone.ok(Q, { s: "lakeview" })).lateralApplicationRequirements).toEqual({
      plans: { required: true, section: "Sewer Use Law 602, 606 B" },
      approvedContractor: { required: true, section: "Sewer Use Law 601 A" },
      asBuiltDrawings: { required: true, section: "Sewer Use Law 606 B", copies: 4, depositPerSheetCents: 10000 },
      floorArea: true,
    });
  });

  it("applies with no plans, no contractor from a list and no sheets; the permit is issued with no payment step; the connection under supervision ends it", async () => {
    const a = await applicant();
    const huronOperator = await signedIn(DEMO.huronOperator);
    // What Huron's law does not ask for is refused, with the section, rather than silently kept.
    const wrong = fields(await a.c.gql(SAVE, { i: huronHome({ contractorId: goodContractor, asBuiltSheets: 2 }) }));
    expect(wrong.contractorId).toBe("Town of Huron Sewer District No. 1 keeps no list of approved contractors (Huron Article III): name who will do the work instead.");
    expect(wrong.asBuiltSheets).toBe("Town of Huron Sewer District No. 1's law asks for no as-built drawings (Huron Article III), so sheets are not counted.");
    // Who does the work is named by the owner or the owner's agent.
    const unnamed = (await a.c.ok(SAVE, { i: huronHome({ workDoneBy: null }) })).saveLateralPermitDraft;
    expect(fields(await a.c.gql(SUBMIT, { id: unnamed.id }))).toEqual({ workDoneBy: "Name who will do the work: the owner, or the plumber or contractor the owner hires." });

    const d = (await a.c.ok(SAVE, { i: huronHome() })).saveLateralPermitDraft;
    const s = (await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit;
    expect(s).toMatchObject({ status: "SUBMITTED", feeLines: [], feeTotalCents: 0, paymentId: null, payment: null, documents: [], asBuiltSheets: null });
    expect(s.nextStep.text).toBe("The Superintendent reviews the application");
    const [mail] = await emails(a.email, "lateral.submitted");
    expect(mail.body_text).toContain("Town of Huron Sewer District No. 1 charges no fee for this permit. The Superintendent reviews the application");
    expect(mail.body_text).not.toContain("Pay online");
    expect(await db().query(`SELECT 1 FROM payment WHERE payable_id = $1`, [d.id])).toEqual([]);

    const issuedPermit = (await huronOperator.ok(APPROVE, { id: d.id })).approveLateralPermit;
    expect(issuedPermit.status).toBe("APPROVED");
    expect(issuedPermit.permitNumber).toMatch(/^HRN-LP-\d{4}-\d{4}$/);
    expect(issuedPermit.requiredInspections.map((r: any) => [r.kind, r.section, r.requestable])).toEqual([["CONNECTION", "Huron III-10", true]]);
    expect(issuedPermit.checklist.map((c: any) => [c.requirement, c.section])).toEqual([
      ["Inside diameter at least 4 inches", "Huron III-6"],
      ["Slope at least 1/4 inch per foot", "Huron III-6"],
      ["Cast iron soil pipe through the building wall and for at least 5 feet out", "Huron III-9"],
    ]);
    expect(errorCode(await a.c.gql(REQUEST, { id: d.id, k: "TRENCH" }))).toBe("BAD_USER_INPUT");

    // The applicant tells the Superintendent the building sewer is ready; the connection is made under supervision (Huron III-10).
    const asked = (await a.c.ok(REQUEST, { id: d.id, k: "CONNECTION" })).requestInspection;
    await huronOperator.ok(SCHEDULE, { i: { inspectionId: asked.id, scheduledFor: nextWeekday(10) } });
    const done = (await huronOperator.ok(RECORD, { i: { inspectionId: asked.id, result: "PASSED" } })).recordInspectionResult;
    expect(done.permit.status).toBe("CONNECTED");
    const connected = (await a.c.ok(GET, { id: d.id })).lateralPermit;
    expect(connected.nextStep.text).toBeNull();
    const [accepted] = await emails(a.email, "lateral.connected");
    expect(accepted.body_text).not.toContain("as-built");
    const drawings = await huronOperator.gql(DRAWINGS, { id: d.id });
    expect(errorCode(drawings)).toBe("CONFLICT");
    expect(drawings.errors![0].message).toContain("asks for no as-built drawings (Huron Article III)");
  });

  it("a commercial building states no floor area where no fee is charged per square foot", async () => {
    const a = await applicant();
    const d = (await a.c.ok(SAVE, { i: huronHome({ buildingUse: "COMMERCIAL", floorAreaSqft: null }) })).saveLateralPermitDraft;
    expect((await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit).toMatchObject({ feeTotalCents: 0, paymentId: null });
  });

  it("once the Board sets a fee, applications submitted from its effective date pay it; one submitted the day before does not", async () => {
    const huronAdmin = await signedIn(DEMO.huronAdmin);
    const today = dateIn(TZ);
    const from = addCalendarDays(today, 10);
    await huronAdmin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { id } }`, {
      i: { districtId: huron.id, changes: [{ key: "lateral.fee.residential", value: 10000 }], effectiveDate: from, reason: "Town Board resolution 2026-7 sets the permit fee", resolutionNumber: "2026-7", resolutionAdoptedOn: today },
    });
    const noon = (day: string) => new Date(`${day}T17:00:00Z`); // noon in New York, standard or daylight time
    try {
      const before = await applicant();
      travelTo(noon(addCalendarDays(from, -1)));
      const dayBefore = (await before.c.ok(SUBMIT, { id: (await before.c.ok(SAVE, { i: huronHome() })).saveLateralPermitDraft.id })).submitLateralPermit;
      expect(dayBefore).toMatchObject({ feeTotalCents: 0, paymentId: null });

      travelTo(noon(from));
      const after = await applicant();
      const onTheDay = (await after.c.ok(SUBMIT, { id: (await after.c.ok(SAVE, { i: huronHome() })).saveLateralPermitDraft.id })).submitLateralPermit;
      expect(onTheDay.feeLines).toEqual([{ code: "LATERAL_FEE_RESIDENTIAL", label: "Inspection and administration fee, residential", section: "Huron III-2", amountCents: 10000, refundable: false }]);
      expect(onTheDay.payment).toMatchObject({ status: "PENDING", amountCents: 10000 });
      expect(onTheDay.nextStep.text).toBe("Pay the fees of $100.00; the permit is issued only once they are paid");
      // Still no as-built deposit: Huron's law asks for no drawings.
      expect(errorCode(await (await signedIn(DEMO.huronOperator)).gql(APPROVE, { id: onTheDay.id }))).toBe("PAYMENT_REQUIRED");
      await pay(after, onTheDay.paymentId);
      expect((await (await signedIn(DEMO.huronOperator)).ok(APPROVE, { id: onTheDay.id })).approveLateralPermit.status).toBe("APPROVED");

      // The application submitted before the fee stays without one, even when sent back and resubmitted.
      const huronOperator = await signedIn(DEMO.huronOperator);
      await huronOperator.ok(CHANGES, { id: dayBefore.id, n: "Show where the building sewer meets the street sewer." });
      expect((await before.c.ok(SUBMIT, { id: dayBefore.id })).submitLateralPermit).toMatchObject({ feeTotalCents: 0, paymentId: null });
    } finally {
      resetClock();
    }
  });
});

describe("moratoria (Sewer Use Law 310)", () => {
  it("the ADMIN declares one; applications on its streets are refused with the reason; once lifted they go through", async () => {
    const declare = `mutation($i: DeclareMoratoriumInput!) { declareMoratorium(input: $i) { id segmentName streets reason section liftedAt } }`;
    const input = { districtId: lakeview.id, segmentName: "Harbor Road pump station", streets: ["Harbor Road", "Pier St."], reason: "The Harbor Road pump station is over capacity until the new pumps are installed." };
    expect(errorCode(await operator.gql(declare, { i: input }))).toBe("FORBIDDEN");
    const huronAdmin = await signedIn(DEMO.huronAdmin);
    const noLaw = await huronAdmin.gql(declare, { i: { ...input, districtId: huron.id } });
    expect(errorCode(noLaw)).toBe("CONFLICT");
    expect(noLaw.errors![0].message).toContain("(Huron Article III)");
    expect(errorCode(await admin.gql(declare, { i: { ...input, streets: [" "] } }))).toBe("BAD_USER_INPUT");

    const m = (await admin.ok(declare, { i: input })).declareMoratorium;
    expect(m).toMatchObject({ segmentName: "Harbor Road pump station", streets: ["harbor rd", "pier st"], section: "Sewer Use Law 310", liftedAt: null });
    expect((await new Client(srv.url).ok(`{ moratoria(districtSlug: "lakeview") { id reason } }`)).moratoria).toEqual([{ id: m.id, reason: input.reason }]);

    const a = await applicant();
    const d = await draft(a, { street: "HARBOR RD." });
    const r = await a.c.gql(SUBMIT, { id: d.id });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toBe(
      "New connections on HARBOR RD. are refused: a moratorium on the Harbor Road pump station segment is in force (Sewer Use Law 310). The Harbor Road pump station is over capacity until the new pumps are installed.",
    );
    expect(fields(r).street).toContain("Sewer Use Law 310");
    // Other streets are not affected.
    const b = await applicant();
    expect((await b.c.ok(SUBMIT, { id: (await draft(b, { street: "Harbor View Drive" })).id })).submitLateralPermit.status).toBe("SUBMITTED");

    const lift = `mutation($id: ID!) { liftMoratorium(id: $id, reason: "New pumps in service") { id liftedAt } }`;
    expect((await admin.ok(lift, { id: m.id })).liftMoratorium.liftedAt).not.toBeNull();
    expect(errorCode(await admin.gql(lift, { id: m.id }))).toBe("CONFLICT");
    expect((await a.c.ok(SUBMIT, { id: d.id })).submitLateralPermit.status).toBe("SUBMITTED");
    expect((await new Client(srv.url).ok(`{ moratoria(districtSlug: "lakeview") { id } }`)).moratoria).toEqual([]);
  });
});

describe("inspections, connection and record drawings", () => {
  it("a failed trench inspection is requested and scheduled again; the connection is accepted only when all three passed; the deposit is refunded", async () => {
    const { a, permit } = await issued();
    const id = permit.id;
    // Only the next inspection the work needs can be asked for: the trench before the connection before the test.
    expect(permit.requiredInspections.map((r: any) => [r.kind, r.section, r.status, r.requestable])).toEqual([
      ["TRENCH", "Sewer Use Law 613 B", "NOT_REQUESTED", true],
      ["CONNECTION", "Sewer Use Law 613 A", "NOT_REQUESTED", false],
      ["LEAKAGE_TEST", "Sewer Use Law 612", "NOT_REQUESTED", false],
    ]);
    expect(errorCode(await a.c.gql(REQUEST, { id, k: "SEPTIC" }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await operator.gql(REQUEST, { id, k: "TRENCH" }))).toBe("FORBIDDEN");
    const early = await a.c.gql(REQUEST, { id, k: "CONNECTION" });
    expect(errorCode(early)).toBe("CONFLICT");
    expect(early.errors![0].message).toBe("Ask for the trench inspection first: the connection inspection comes after it has passed.");
    const yesterday = addCalendarDays(dateIn(TZ), -1);
    expect(fields(await a.c.gql(PREFER, { id, d: yesterday }))).toEqual({ preferredOn: "Choose a day from today on." });

    // With no kind named, the request is for the next one; the applicant's preferred day goes with it.
    const preferred = nextWeekday(9).slice(0, 10);
    const trench = (await a.c.ok(PREFER, { id, d: preferred })).requestInspection;
    expect(trench).toMatchObject({ kind: "TRENCH", status: "REQUESTED", preferredOn: preferred });
    expect(errorCode(await a.c.gql(REQUEST, { id, k: "TRENCH" }))).toBe("CONFLICT");
    expect(errorCode(await operator.gql(RECORD, { i: { inspectionId: trench.id, result: "PASSED" } }))).toBe("CONFLICT"); // not scheduled
    expect(errorCode(await a.c.gql(SCHEDULE, { i: { inspectionId: trench.id, scheduledFor: nextWeekday(9) } }))).toBe("FORBIDDEN");
    expect(errorCode(await operator.gql(SCHEDULE, { i: { inspectionId: trench.id, scheduledFor: "next tuesday" } }))).toBe("BAD_USER_INPUT");

    const when = nextWeekday(9);
    const sched = (await operator.ok(SCHEDULE, { i: { inspectionId: trench.id, scheduledFor: when } })).scheduleInspection;
    expect(sched).toMatchObject({ status: "SCHEDULED", inspectorName: "Oren Operator (Lakeview)" });
    expect(dateIn(TZ, new Date(sched.scheduledFor))).toBe(when.slice(0, 10));
    expect(new Date(sched.scheduledFor).toLocaleString("en-US", { timeZone: TZ, hour: "2-digit", hourCycle: "h23" })).toBe("09");
    const seen = (await a.c.ok(GET, { id })).lateralPermit;
    expect(seen.nextStep).toMatchObject({ text: `Trench inspection (before backfill) on ${formatDate(when.slice(0, 10))}`, dueDate: when.slice(0, 10) });
    expect(seen.nextStep.daysLeft).toBeGreaterThanOrEqual(3);
    expect((await emails(a.email, "lateral.inspection_scheduled"))[0].body_text).toContain("9:00 AM");

    // The operator's calendar for that week shows it.
    const cal = (await operator.ok(`query($d: ID!, $w: String) { inspectionCalendar(districtId: $d, weekOf: $w) { weekStart days { date inspections { id kind address } } unscheduled { id } } }`, { d: lakeview.id, w: when.slice(0, 10) })).inspectionCalendar;
    expect(cal.days.find((x: any) => x.date === when.slice(0, 10)).inspections).toContainEqual({ id: trench.id, kind: "TRENCH", address: "12 Orchard Lane, Lakeview 13600" });
    expect(errorCode(await clerk.gql(`query($d: ID!) { inspectionCalendar(districtId: $d) { weekStart } }`, { d: lakeview.id }))).toBe("FORBIDDEN");

    expect(errorCode(await operator.gql(RECORD, { i: { inspectionId: trench.id, result: "FAILED" } }))).toBe("BAD_USER_INPUT");
    // A result says when the inspection took place: never in the future, never before the permit was issued.
    const soon = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    expect(fields(await operator.gql(RECORD, { i: { inspectionId: trench.id, result: "PASSED", inspectedAt: soon } }))).toEqual({
      inspectedAt: "Enter when the inspection took place: a result is recorded after the inspection, not before.",
    });
    expect(fields(await operator.gql(RECORD, { i: { inspectionId: trench.id, result: "PASSED", inspectedAt: "2020-01-02T09:00" } })).inspectedAt).toBe("The inspection cannot have taken place before the permit was issued.");
    const tookPlace = new Date(new Date(permit.approvedAt).getTime() + 1); // just after the permit was issued
    const failed = (await operator.ok(RECORD, { i: { inspectionId: trench.id, result: "FAILED", notes: "Bedding stone missing under the pipe.", inspectedAt: tookPlace.toISOString() } })).recordInspectionResult;
    expect(Math.abs(new Date(failed.inspectedAt).getTime() - tookPlace.getTime())).toBeLessThan(1000);
    expect(failed).toMatchObject({ status: "FAILED", permit: { status: "APPROVED" } });
    expect((await emails(a.email, "lateral.inspection_failed"))[0].body_text).toContain("Bedding stone missing");
    expect((await a.c.ok(GET, { id })).lateralPermit.nextStep.text).toBe("Fix what failed and request the trench inspection again");

    // Asked for again, scheduled again, passed.
    const trench2 = (await a.c.ok(REQUEST, { id, k: "TRENCH" })).requestInspection;
    await operator.ok(SCHEDULE, { i: { inspectionId: trench2.id, scheduledFor: nextWeekday(10) } });
    expect((await operator.ok(RECORD, { i: { inspectionId: trench2.id, result: "PASSED" } })).recordInspectionResult.permit.status).toBe("APPROVED");
    expect(errorCode(await a.c.gql(REQUEST, { id, k: "TRENCH" }))).toBe("CONFLICT"); // passed already

    for (const kind of ["CONNECTION", "LEAKAGE_TEST"]) {
      const i = (await a.c.ok(REQUEST, { id, k: kind })).requestInspection;
      await operator.ok(SCHEDULE, { i: { inspectionId: i.id, scheduledFor: nextWeekday(11) } });
      const r = (await operator.ok(RECORD, { i: { inspectionId: i.id, result: "PASSED", notes: "Good." } })).recordInspectionResult;
      expect(r.permit.status).toBe(kind === "LEAKAGE_TEST" ? "CONNECTED" : "APPROVED");
    }
    const connected = (await a.c.ok(GET, { id })).lateralPermit;
    expect(connected).toMatchObject({ status: "CONNECTED", statusLabel: "Connected" });
    expect(connected.inspections.map((i: any) => [i.kind, i.status])).toEqual([
      ["TRENCH", "FAILED"],
      ["TRENCH", "PASSED"],
      ["CONNECTION", "PASSED"],
      ["LEAKAGE_TEST", "PASSED"],
    ]);
    expect((await emails(a.email, "lateral.connected"))[0].subject).toContain("Connection accepted");
    const dash = (await a.c.ok(`{ myDashboard { items { id status nextStep nextStepHref } } }`)).myDashboard.items.find((x: any) => x.id === id);
    expect(dash).toEqual({ id, status: "Connected", nextStep: "File the as-built (record) drawings; the deposit is refunded once they are approved", nextStepHref: `/permits/${id}#drawings-heading` });

    // The applicant files the as-built drawings (SUL 606 B); the Operator is told.
    expect(fields(await a.c.gql(FILE_DRAWINGS, { i: { permitId: id } }))).toEqual({ drawings: "Attach the as-built drawings (PDF, PNG or JPEG)." });
    expect(fields(await a.c.gql(FILE_DRAWINGS, { i: { permitId: id, documentIds: [a.planId] } }))).toEqual({
      documentIds: "A plan filed with the application is not an as-built drawing: upload the drawing of what was built.",
    });
    expect(errorCode(await operator.gql(FILE_DRAWINGS, { i: { permitId: id, newDrawings: [{ filename: "as-built.pdf", contentBase64: PDF }] } }))).toBe("FORBIDDEN");
    const filed = (await a.c.ok(FILE_DRAWINGS, { i: { permitId: id, newDrawings: [{ filename: "as-built.pdf", contentBase64: PDF }] } })).fileRecordDrawings;
    expect(filed.recordDrawings.map((d: any) => d.filename)).toEqual(["as-built.pdf"]);
    expect(filed.documents.map((d: any) => d.filename)).toEqual(["site-plan.pdf"]);
    expect(filed.nextStep.text).toBe("The District Operator reviews the as-built drawings you filed");
    expect((await emails(DEMO.lakeviewOperator, "lateral.record_drawings_filed"))[0].subject).toBe(`As-built drawings filed: permit ${permit.permitNumber}`);
    expect((await operator.ok(GET, { id })).lateralPermit.recordDrawings.map((d: any) => d.filename)).toEqual(["as-built.pdf"]);

    // Record drawings approved: the permit closes, the deposit is due back; the Clerk refunds it.
    expect(errorCode(await clerk.gql(DRAWINGS, { id }))).toBe("FORBIDDEN");
    const closed = (await operator.ok(DRAWINGS, { id })).approveRecordDrawings;
    expect(closed).toMatchObject({ status: "CLOSED", depositRefund: { amountCents: 30000, refunded: false, receiptNumber: null } });
    expect(closed.nextStep.text).toBe("The Town Clerk refunds the as-built deposit of $300.00");
    expect((await emails(DEMO.lakeviewClerk, "lateral.deposit_refund_due")).some((e) => e.body_text.includes(permit.permitNumber))).toBe(true);
    const refund = await clerk.ok(`mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { amountCents receiptNumber } }`, {
      i: { paymentId: permit.paymentId, lineCodes: ["AS_BUILT_DEPOSIT"], reason: "Record drawings approved (Sewer Use Law 606 B)" },
    });
    expect(refund.refundPayment.amountCents).toBe(30000);
    const done = (await a.c.ok(GET, { id })).lateralPermit;
    expect(done.depositRefund).toEqual({ amountCents: 30000, refunded: true, receiptNumber: refund.refundPayment.receiptNumber });
    expect(done.payment.status).toBe("PARTIALLY_REFUNDED");
    expect(done.nextStep.text).toBeNull();
    expect((await a.c.ok(`{ myDashboard { items { id nextStep } } }`)).myDashboard.items.find((x: any) => x.id === id).nextStep).toBeNull();

    const log = await operator.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action } } }`, { f: { districtId: lakeview.id, entityId: id, first: 50 } });
    expect(log.auditLog.entries.map((e: any) => e.action).reverse()).toEqual([
      "lateral.draft_created",
      "lateral.submitted",
      "lateral.fees_paid",
      "lateral.approved",
      "lateral.inspection_requested",
      "lateral.inspection_scheduled",
      "lateral.inspection_failed",
      "lateral.inspection_requested",
      "lateral.inspection_scheduled",
      "lateral.inspection_passed",
      "lateral.inspection_requested",
      "lateral.inspection_scheduled",
      "lateral.inspection_passed",
      "lateral.inspection_requested",
      "lateral.inspection_scheduled",
      "lateral.inspection_passed",
      "lateral.connected",
      "lateral.record_drawings_filed",
      "lateral.record_drawings_approved",
    ]);
  });
});

describe("the staff queue", () => {
  const QUEUE = `query($d: ID!, $s: String, $f: Int, $a: String) { lateralPermitQueue(districtId: $d, status: $s, first: $f, after: $a) {
    nextCursor items { id status permitNumber address applicantName submittedAt daysWaiting feeTotalCents paidAt
      contractor { name standing { choosable } } payment { status receiptNumber } inspections { kind status } nextStep { text } } } }`;

  it("is for the district's staff only, pages by submission age, and costs the same SQL statements for 5 or 50 rows", async () => {
    expect(errorCode(await (await applicant()).c.gql(QUEUE, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedIn(DEMO.huronClerk)).gql(QUEUE, { d: lakeview.id }))).toBe("FORBIDDEN");
    // Sixty more applications, each with its own applicant, contractor, payment and an inspection.
    const a = await applicant();
    const base = (await a.c.ok(SUBMIT, { id: (await draft(a)).id })).submitLateralPermit;
    await db().query(
      `WITH src AS (SELECT * FROM lateral_permit WHERE id = $1), g AS (SELECT generate_series(1, 60) AS k),
            users AS (INSERT INTO app_user (email, display_name, password_hash) SELECT 'bulk' || k || '@example.org', 'Bulk ' || k, 'x' FROM g RETURNING id, email)
       INSERT INTO lateral_permit (district_id, applicant_id, status, permit_class, building_use, work_kind, street_number, street, city, zip, tax_parcel, owner_name,
                                   contractor_id, as_built_sheets, rulebook_version_id, fee_lines, fee_total_cents, payment_id, submitted_at)
       SELECT s.district_id, u.id, 'SUBMITTED', s.permit_class, s.building_use, s.work_kind, g.k::text, s.street, s.city, s.zip, s.tax_parcel, s.owner_name,
              s.contractor_id, s.as_built_sheets, s.rulebook_version_id, s.fee_lines, s.fee_total_cents, s.payment_id, now() - make_interval(days => g.k)
         FROM src s, g JOIN users u ON u.email = 'bulk' || g.k || '@example.org'`,
      [base.id],
    );

    const ds = db();
    const logger = ds.logger as any;
    const original = logger.logQuery;
    let count = 0;
    logger.logQuery = function (...args: unknown[]) {
      if (!isSessionBookkeeping(args[0])) count++;
      return original.apply(this, args);
    };
    const statements = async (first: number) => {
      clearMicroCache(); // measure the cold cost, not the 2-second cache
      count = 0;
      const page = (await clerk.ok(QUEUE, { d: lakeview.id, f: first })).lateralPermitQueue;
      expect(page.items).toHaveLength(first);
      return count;
    };
    try {
      await statements(5); // warm: the viewer and rulebook caches
      const five = await statements(5);
      const fifty = await statements(50);
      expect(fifty).toBe(five);
      // The page, then one statement each for applicants, contractors and their standing, payments and inspections.
      expect(five).toBeGreaterThanOrEqual(6);
      expect(five).toBeLessThanOrEqual(10);
    } finally {
      logger.logQuery = original;
    }

    // Oldest first, and the cursor continues where the page ended.
    const p1 = (await clerk.ok(QUEUE, { d: lakeview.id, f: 10 })).lateralPermitQueue;
    const days = p1.items.map((i: any) => i.daysWaiting);
    expect(days).toEqual([...days].sort((x: number, y: number) => y - x));
    const p2 = (await clerk.ok(QUEUE, { d: lakeview.id, f: 10, a: p1.nextCursor })).lateralPermitQueue;
    expect(new Set([...p1.items, ...p2.items].map((i: any) => i.id)).size).toBe(20);
    expect(Date.parse(p2.items[0].submittedAt)).toBeGreaterThanOrEqual(Date.parse(p1.items[9].submittedAt));
    const submitted = (await clerk.ok(QUEUE, { d: lakeview.id, s: "APPROVED", f: 100 })).lateralPermitQueue.items;
    expect(submitted.every((i: any) => i.status === "APPROVED")).toBe(true);
    expect(errorCode(await clerk.gql(QUEUE, { d: lakeview.id, s: "DRAFT" }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await clerk.gql(QUEUE, { d: lakeview.id, a: "garbage" }))).toBe("BAD_USER_INPUT");
  });
});

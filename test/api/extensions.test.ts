import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn, formatDate, termLastDay } from "../../api/common/dates.js";
import { sendGuaranteeReminders } from "../../api/extensions/acceptance.service.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";

// Issue 16: sewer extensions built by developers (SUL Article 5): application, capacity (501), the
// Operator's decision, the 30 days' notice (502 A), tests with every attempt kept (505), access, Huron.

const TZ = "America/New_York";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");
const NONE = "00000000-0000-0000-0000-000000000000";

const EXT = `id status statusLabel name lots designFlowGpd decisionReason noticeGivenOn constructionStartsOn testsPassed
  documents { kind kindLabel filename }
  sections { id name passed attempts { attempt kind outcome outcomeLabel reason criteria { text section met } } }`;
const REVIEW = `review { hasCapacity capacityProblem approvable items { key kind met label section } }`;
const APPLY = `mutation($i: ApplyForSewerExtensionInput!) { applyForSewerExtension(input: $i) { ${EXT} } }`;
const DECIDE = `mutation($i: DecideSewerExtensionInput!) { decideSewerExtension(input: $i) { ${EXT} } }`;
const NOTICE = `mutation($i: ConstructionNoticeInput!) { giveConstructionNotice(input: $i) { ${EXT} } }`;
const GET = `query($id: ID!) { sewerExtension(id: $id) { ${EXT} ${REVIEW} } }`;
const CAPACITY = `mutation($i: RecordSewerCapacityInput!) { recordSewerCapacity(input: $i) { id name designGpd presentUseGpd committedGpd leftGpd } }`;
const COMMIT = `mutation($i: CommitSewerCapacityInput!) { commitSewerCapacity(input: $i) { id flowGpd inForce } }`;
const LEDGER = `query($d: ID!) { sewerCapacityLedger(districtId: $d) { id kind name committedGpd leftGpd commitments { committedTo flowGpd resolutionNumber inForce } } }`;
const SECTION = `mutation($i: AddExtensionTestSectionInput!) { addExtensionTestSection(input: $i) { id name } }`;
const TEST = `mutation($i: RecordExtensionTestInput!) { recordExtensionTest(input: $i) { attempt kind outcome reason criteria { text section met } } }`;

let srv: TestServer;
let lakeview: string;
let huron: string;
let operator: Client;
let admin: Client;
let clerk: Client;
let huronOperator: Client;
let developer: Client;
let outsider: Client;
let orgId: string;
let docs: { documentId: string; kind: string }[];
let segmentId: string;
let plantId: string;
const today = () => dateIn(TZ);

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  const d = await new Client(srv.url).ok(`{ l: district(slug: "lakeview") { id } h: district(slug: "huron") { id } }`);
  [lakeview, huron] = [d.l.id, d.h.id];
  [operator, admin, clerk, huronOperator] = await Promise.all([DEMO.lakeviewOperator, DEMO.lakeviewAdmin, DEMO.lakeviewClerk, DEMO.huronOperator].map((e) => signedInAs(srv.url, e)));
  developer = new Client(srv.url);
  await developer.signUp("dev@meadowbrook.example.com", "Dana Developer");
  outsider = new Client(srv.url);
  await outsider.signUp("other@elsewhere.example.com", "Otto Outsider");
  orgId = (await developer.ok(`mutation { createOrganization(input: { name: "Meadowbrook Homes LLC", kind: "DEVELOPER" }) { id } }`)).createOrganization.id;
  docs = [];
  for (const [kind, filename] of [["PLANS", "plans.pdf"], ["SPECIFICATIONS", "specs.pdf"], ["STATE_APPROVAL", "nysdoh-approval.pdf"]]) {
    const { uploadDocument } = await developer.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename, contentBase64: PDF } });
    docs.push({ documentId: uploadDocument.id, kind });
  }
  // The ledger: a segment of 100,000 gallons a day with 60,000 in use, and the plant.
  segmentId = (await operator.ok(CAPACITY, { i: { districtId: lakeview, kind: "SEGMENT", name: "Harbor Road trunk", designGpd: 100_000, presentUseGpd: 60_000 } })).recordSewerCapacity.id;
  plantId = (await operator.ok(CAPACITY, { i: { districtId: lakeview, kind: "PLANT", name: "Lakeview treatment plant", designGpd: 1_000_000, presentUseGpd: 500_000 } })).recordSewerCapacity.id;
});
afterAll(() => srv?.close());

const application = (o: Record<string, unknown> = {}) => ({
  districtId: lakeview,
  organizationId: orgId,
  name: "Meadowbrook Estates, section 1",
  location: "Meadowbrook Lane and Aster Court, off Harbor Road",
  mapReference: "Subdivision map 2026-118, tax map sheet 42",
  lots: 12,
  designFlowGpd: 4_800,
  sewerType: "GRAVITY",
  pipeDiameterInches: 8,
  pipePvc: true,
  designerName: "Riley Engineer, P.E.",
  designerLicense: "NY PE 091234",
  receivingSegmentId: segmentId,
  plantId,
  documents: docs,
  ...o,
});

let approvedId: string;

describe("application and the capacity of SUL 501", () => {
  it("a 12-lot application: submitted with its documents; the Operator hears of it", async () => {
    const { applyForSewerExtension: e } = await developer.ok(APPLY, { i: application() });
    approvedId = e.id;
    expect(e).toMatchObject({ status: "SUBMITTED", statusLabel: "Under review", lots: 12, designFlowGpd: 4800, testsPassed: false, sections: [] });
    expect(e.documents.map((d: { kind: string }) => d.kind)).toEqual(["PLANS", "SPECIFICATIONS", "STATE_APPROVAL"]);
    const [mail] = await srv.running.ds.query(`SELECT subject FROM outbox_email WHERE kind = 'extension.applied' ORDER BY created_at DESC LIMIT 1`);
    expect(mail.subject).toBe("Sewer extension to review: Meadowbrook Estates, section 1");
  });

  it("refuses a gravity sewer under 8 inches (503 A) and an application without specifications", async () => {
    const r = await developer.gql(APPLY, { i: application({ pipeDiameterInches: 6, documents: docs.filter((d) => d.kind !== "SPECIFICATIONS") }) });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(r.errors![0].extensions!.fields).toEqual({
      pipeDiameterInches: "A gravity sewer is at least 8 inches across inside (Sewer Use Law 503 A(2)).",
      documents: "Attach the specifications (Sewer Use Law 501).",
    });
  });

  it("a denial for lack of capacity counts the capacity the Town Board committed", async () => {
    // 35,000 gallons a day committed by resolution: 100,000 - 60,000 - 35,000 leaves 5,000.
    const { commitSewerCapacity } = await admin.ok(COMMIT, {
      i: { capacityId: segmentId, flowGpd: 35_000, committedTo: "Harbor Heights subdivision", resolutionNumber: "2026-41", resolutionAdoptedOn: today() },
    });
    expect(commitSewerCapacity).toMatchObject({ flowGpd: 35000, inForce: true });
    const { applyForSewerExtension: big } = await developer.ok(APPLY, { i: application({ name: "Meadowbrook Estates, section 2", lots: 15, designFlowGpd: 6_000 }) });
    const { sewerExtension } = await operator.ok(GET, { id: big.id });
    expect(sewerExtension.review).toMatchObject({ hasCapacity: false, approvable: false });
    expect(sewerExtension.review.items.find((i: { key: string }) => i.key === "segmentCapacity")).toMatchObject({
      met: false,
      label:
        "Receiving sewer Harbor Road trunk: design capacity 100,000 gallons per day, present use 60,000, committed by the Town Board 35,000, 5,000 left; this extension 6,000",
    });
    const refused = await operator.gql(DECIDE, { i: { id: big.id, decision: "APPROVE", confirmed: ["licensedDesigner", "futureFlows"] } });
    expect(errorCode(refused)).toBe("CONFLICT");
    const { decideSewerExtension: denied } = await operator.ok(DECIDE, { i: { id: big.id, decision: "DENY", confirmed: [] } });
    expect(denied.status).toBe("DENIED");
    expect(denied.decisionReason).toBe(
      "Denied for lack of capacity (Sewer Use Law 501): the receiving sewer Harbor Road trunk has 5,000 gallons per day left after present use and the capacity the Town Board has committed, and the extension needs 6,000.",
    );
    // The same flow would fit without the commitment: it is the commitment that counts.
    const { sewerCapacityLedger } = await clerk.ok(LEDGER, { d: lakeview });
    expect(sewerCapacityLedger.find((l: { kind: string }) => l.kind === "SEGMENT")).toMatchObject({ committedGpd: 35000, leftGpd: 5000, commitments: [{ resolutionNumber: "2026-41", inForce: true }] });
  });

  it("approval: refused until the Operator confirms the checklist, then approved", async () => {
    const open = await operator.gql(DECIDE, { i: { id: approvedId, decision: "APPROVE", confirmed: ["licensedDesigner"] } });
    expect(errorCode(open)).toBe("CONFLICT");
    expect(open.errors![0].message).toContain("all possible future extensions");
    const { decideSewerExtension: e } = await operator.ok(DECIDE, { i: { id: approvedId, decision: "APPROVE", confirmed: ["licensedDesigner", "futureFlows"] } });
    expect(e).toMatchObject({ status: "APPROVED", decisionReason: null });
    const again = await operator.gql(DECIDE, { i: { id: approvedId, decision: "DENY", confirmed: [], reason: "Changed my mind" } });
    expect(errorCode(again)).toBe("CONFLICT");
  });
});

describe("notice of construction (502 A)", () => {
  it("refused less than 30 days ahead, counted in the district's calendar days; accepted at 30", async () => {
    const early = await developer.gql(NOTICE, { i: { id: approvedId, startsOn: addCalendarDays(today(), 29) } });
    expect(errorCode(early)).toBe("BAD_USER_INPUT");
    expect(early.errors![0].extensions!.fields!.startsOn).toMatch(/^The District Operator must be told 30 days before construction starts \(Sewer Use Law 502 A\)/);
    const { giveConstructionNotice: e } = await developer.ok(NOTICE, { i: { id: approvedId, startsOn: addCalendarDays(today(), 30) } });
    expect(e).toMatchObject({ noticeGivenOn: today(), constructionStartsOn: addCalendarDays(today(), 30) });
  });
});

describe("tests of the sections (505)", () => {
  it("a failed infiltration test is retested and passes; both attempts are kept", async () => {
    const { addExtensionTestSection: s } = await operator.ok(SECTION, { i: { extensionId: approvedId, name: "MH-1 to MH-2" } });
    // 400 ft of 8-inch pipe and 2 manholes: 25 × 8 × 400/5280 + 2 × 1.1 = 17.35 gallons per 24 hours.
    const infiltration = (gallons: number) => ({ sectionId: s.id, kind: "INFILTRATION", testedOn: today(), lengthFeet: 400, nominalDiameterInches: 8, manholes: 2, periodMinutes: 120, gallons });
    const { recordExtensionTest: failed } = await operator.ok(TEST, { i: infiltration(2) });
    expect(failed).toMatchObject({ attempt: 1, outcome: "FAILED" });
    expect(failed.criteria[2]).toMatchObject({ met: false, text: expect.stringContaining("Leakage 24 gallons per 24 hours, at most 17.35") });
    expect((await developer.ok(GET, { id: approvedId })).sewerExtension.testsPassed).toBe(false);
    const { recordExtensionTest: passed } = await operator.ok(TEST, { i: infiltration(1.4) });
    expect(passed).toMatchObject({ attempt: 2, outcome: "PASSED" });
    const { sewerExtension } = await developer.ok(GET, { id: approvedId });
    expect(sewerExtension.sections).toEqual([
      expect.objectContaining({ name: "MH-1 to MH-2", passed: true, attempts: [expect.objectContaining({ attempt: 1, outcome: "FAILED" }), expect.objectContaining({ attempt: 2, outcome: "PASSED" })] }),
    ]);
    expect(sewerExtension.testsPassed).toBe(true);
  });

  it("a manhole vacuum test by its band; an air test is not judged until the district enters the Uni-Bell table", async () => {
    const { addExtensionTestSection: mh } = await operator.ok(SECTION, { i: { extensionId: approvedId, name: "MH-3" } });
    const { recordExtensionTest: vac } = await operator.ok(TEST, { i: { sectionId: mh.id, kind: "MANHOLE_VACUUM", testedOn: today(), depthFeet: 12, manholeDiameterFeet: 5, seconds: 180 } });
    expect(vac).toMatchObject({ outcome: "PASSED", criteria: [{ section: "Sewer Use Law 505 G", met: true }] });
    const { addExtensionTestSection: run } = await operator.ok(SECTION, { i: { extensionId: approvedId, name: "MH-3 to MH-4" } });
    const { recordExtensionTest: air } = await operator.ok(TEST, { i: { sectionId: run.id, kind: "AIR", testedOn: today(), lengthFeet: 300, nominalDiameterInches: 8, testPressurePsi: 4, seconds: 400 } });
    expect(air).toMatchObject({ outcome: "NOT_JUDGED", reason: "The district has not entered the Uni-Bell table the law judges this test by (Sewer Use Law 505 F)." });
    // A section not yet passed holds the whole extension back (502 A).
    expect((await developer.ok(GET, { id: approvedId })).sewerExtension.testsPassed).toBe(false);
    const missing = await operator.gql(TEST, { i: { sectionId: run.id, kind: "INFILTRATION", testedOn: today(), lengthFeet: 300 } });
    expect(errorCode(missing)).toBe("BAD_USER_INPUT");
    expect(Object.keys(missing.errors![0].extensions!.fields!)).toEqual(["nominalDiameterInches", "manholes", "periodMinutes", "gallons"]);
  });
});

describe("no lateral connected before the sewer passes its tests (502 A)", () => {
  it("a lateral permit on the extension is refused its connection until every section has passed, then accepted", async () => {
    const ds = srv.running.ds;
    const { me } = await developer.ok(`{ me { id } }`);
    const [{ id: version }] = await ds.query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY effective_date DESC, version DESC LIMIT 1`, [lakeview]);
    // An issued permit whose connection inspection is scheduled (the lateral's own steps are tested in laterals.test.ts).
    const [{ id: permitId }] = await ds.query(
      `INSERT INTO lateral_permit (district_id, applicant_id, status, permit_class, building_use, work_kind, street_number, street, city, zip, tax_parcel, owner_name,
         as_built_sheets, work_done_by, rulebook_version_id, submitted_at, approved_at, permit_number)
       VALUES ($1, $2, 'APPROVED', 'RESIDENTIAL_COMMERCIAL_INSTITUTIONAL', 'RESIDENTIAL', 'NEW_BUILDING', '4', 'Meadowbrook Lane', 'Lakeview', '13600', '42.1-1-4',
         'Meadowbrook Homes LLC', 1, 'Meadowbrook Homes LLC', $3, now() - interval '2 days', now() - interval '1 day', 'LKV-LP-EXT-0001') RETURNING id`,
      [lakeview, me.id, version],
    );
    const [{ id: inspectionId }] = await ds.query(
      `INSERT INTO lateral_inspection (permit_id, kind, status, requested_by_id, scheduled_for) VALUES ($1, 'CONNECTION', 'SCHEDULED', $2, now() - interval '1 hour') RETURNING id`,
      [permitId, me.id],
    );
    const LINK = `mutation($i: LinkLateralToSewerExtensionInput!) { linkLateralToSewerExtension(input: $i) { laterals { permitNumber status } } }`;
    expect(errorCode(await developer.gql(LINK, { i: { extensionId: approvedId, lateralPermitId: permitId } }))).toBe("FORBIDDEN");
    const { linkLateralToSewerExtension } = await operator.ok(LINK, { i: { extensionId: approvedId, lateralPermitId: permitId } });
    expect(linkLateralToSewerExtension.laterals).toEqual([{ permitNumber: "LKV-LP-EXT-0001", status: "APPROVED" }]);
    const RESULT = `mutation($i: RecordInspectionResultInput!) { recordInspectionResult(input: $i) { status } }`;
    const refused = await operator.gql(RESULT, { i: { inspectionId, result: "PASSED" } });
    expect(errorCode(refused)).toBe("CONFLICT");
    expect(refused.errors![0].message).toBe("These sections of the sewer extension have not passed their tests: MH-3 to MH-4 (Sewer Use Law 502 A).");
    // The section whose air test could not be judged passes an infiltration test instead.
    const { sewerExtension } = await operator.ok(GET, { id: approvedId });
    const run = sewerExtension.sections.find((s: { name: string }) => s.name === "MH-3 to MH-4");
    await operator.ok(TEST, { i: { sectionId: run.id, kind: "INFILTRATION", testedOn: today(), lengthFeet: 300, nominalDiameterInches: 8, manholes: 2, periodMinutes: 180, gallons: 1 } });
    expect((await operator.ok(GET, { id: approvedId })).sewerExtension.testsPassed).toBe(true);
    expect(errorCode(await operator.gql(RESULT, { i: { inspectionId, result: "PASSED" } }))).toBeUndefined();
  });
});

describe("access, operation by operation", () => {
  it("someone outside the developer sees nothing and changes nothing", async () => {
    expect(errorCode(await outsider.gql(GET, { id: approvedId }))).toBe("NOT_FOUND");
    expect((await outsider.ok(`{ mySewerExtensions { id } }`)).mySewerExtensions).toEqual([]);
    expect(errorCode(await outsider.gql(NOTICE, { i: { id: approvedId, startsOn: addCalendarDays(today(), 40) } }))).toBe("NOT_FOUND");
    expect(errorCode(await outsider.gql(`mutation($i: AttachSewerExtensionDocumentsInput!) { attachSewerExtensionDocuments(input: $i) { id } }`, { i: { id: approvedId, documents: docs.slice(0, 1) } }))).toBe("NOT_FOUND");
    expect(errorCode(await outsider.gql(APPLY, { i: application() }))).toBe("BAD_USER_INPUT");
  });

  it("the developer sees its own, without the staff's review, and may not decide, test or keep the ledger", async () => {
    const { mySewerExtensions } = await developer.ok(`{ mySewerExtensions { id status } }`);
    expect(mySewerExtensions.map((e: { status: string }) => e.status)).toEqual(["DENIED", "APPROVED"]);
    expect((await developer.ok(GET, { id: approvedId })).sewerExtension.review).toBeNull();
    for (const [q, v] of [
      [DECIDE, { i: { id: approvedId, decision: "APPROVE", confirmed: [] } }],
      [SECTION, { i: { extensionId: approvedId, name: "X" } }],
      [TEST, { i: { sectionId: NONE, kind: "INFILTRATION", testedOn: today() } }],
      [CAPACITY, { i: { districtId: lakeview, kind: "PLANT", name: "X", designGpd: 1, presentUseGpd: 0 } }],
      [COMMIT, { i: { capacityId: segmentId, flowGpd: 1, committedTo: "X", resolutionNumber: "1", resolutionAdoptedOn: today() } }],
      [LEDGER, { d: lakeview }],
      [`query($d: ID!) { districtSewerExtensions(districtId: $d) { items { id } } }`, { d: lakeview }],
    ] as const)
      expect([q.slice(0, 40), errorCode(await developer.gql(q, v))]).toEqual([q.slice(0, 40), "FORBIDDEN"]);
  });

  it("the district's staff see its applications; only the Operator decides and tests, only the ADMIN enters the Board's commitments", async () => {
    const { districtSewerExtensions } = await clerk.ok(`query($d: ID!) { districtSewerExtensions(districtId: $d, first: 1) { items { name } nextCursor } }`, { d: lakeview });
    expect(districtSewerExtensions.items).toHaveLength(1);
    const next = await clerk.ok(`query($d: ID!, $a: String) { districtSewerExtensions(districtId: $d, first: 1, after: $a) { items { name } nextCursor } }`, { d: lakeview, a: districtSewerExtensions.nextCursor });
    expect(next.districtSewerExtensions).toEqual({ items: [{ name: "Meadowbrook Estates, section 1" }], nextCursor: null });
    expect((await clerk.ok(GET, { id: approvedId })).sewerExtension.review.items.length).toBeGreaterThan(5);
    expect(errorCode(await clerk.gql(DECIDE, { i: { id: approvedId, decision: "APPROVE", confirmed: [] } }))).toBe("FORBIDDEN");
    expect(errorCode(await operator.gql(COMMIT, { i: { capacityId: segmentId, flowGpd: 1, committedTo: "X", resolutionNumber: "1", resolutionAdoptedOn: today() } }))).toBe("FORBIDDEN");
  });

  it("another district's staff see nothing of it", async () => {
    expect(errorCode(await huronOperator.gql(GET, { id: approvedId }))).toBe("NOT_FOUND");
    expect(errorCode(await huronOperator.gql(DECIDE, { i: { id: approvedId, decision: "DENY", confirmed: [], reason: "x" } }))).toBe("NOT_FOUND");
    expect(errorCode(await huronOperator.gql(LEDGER, { d: lakeview }))).toBe("NOT_FOUND");
    expect(errorCode(await huronOperator.gql(`query($d: ID!) { districtSewerExtensions(districtId: $d) { items { id } } }`, { d: lakeview }))).toBe("FORBIDDEN");
    const sections = (await operator.ok(GET, { id: approvedId })).sewerExtension.sections;
    expect(errorCode(await huronOperator.gql(TEST, { i: { sectionId: sections[0].id, kind: "MANHOLE_VACUUM", testedOn: today(), depthFeet: 8, manholeDiameterFeet: 4, seconds: 200 } }))).toBe("NOT_FOUND");
  });
});

describe("Huron", () => {
  it("has no sewer extensions: its law says nothing of them, so nothing is borrowed", async () => {
    const r = await developer.gql(APPLY, { i: application({ districtId: huron }) });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toBe("Town of Huron Sewer District No. 1's law has no procedure for new sewers or sewer extensions built by developers (Huron Article III).");
    expect(errorCode(await huronOperator.gql(CAPACITY, { i: { districtId: huron, kind: "PLANT", name: "Huron plant", designGpd: 1000, presentUseGpd: 0 } }))).toBe("CONFLICT");
  });
});

// ---------------------------------------------------------------------------------------------
// Issue 16, second slice: the Board's charges (502 A), inspections (502 A), as-built drawings,
// acceptance and the guarantee (507), the public record (1301-1303), batched lists.

const WORKS = `id status acceptedOn acceptanceResolutionNumber guaranteeEndsOn securityKind suretyName bondNumber securityAmountCents securityExpiresOn asBuiltCopies
  finalApprovedAt constructionProblems acceptanceProblems charges { kind label amount amountCents resolutionNumber paid paymentId paymentStatus }
  inspections { inspectedOn conforms findings excavationRequired } guaranteeClaims { noticedOn defect }`;
const WORKS_GET = `query($id: ID!) { sewerExtension(id: $id) { ${WORKS} } }`;
const CHARGE = `mutation($i: SetSewerExtensionChargeInput!) { setSewerExtensionCharge(input: $i) { kind amount paid paymentId paymentStatus } }`;
const INSPECT = `mutation($i: RecordExtensionInspectionInput!) { recordExtensionInspection(input: $i) { inspectedOn conforms findings } }`;
const AS_BUILT = `mutation($i: ApproveAsBuiltDrawingsInput!) { approveAsBuiltDrawings(input: $i) { asBuiltCopies } }`;
const FINAL = `mutation($id: ID!) { giveSewerExtensionFinalApproval(extensionId: $id) { finalApprovedAt } }`;
const ACCEPT = `mutation($i: RecordTownBoardAcceptanceInput!) { recordTownBoardAcceptance(input: $i) { ${WORKS} } }`;
const CLAIM = `mutation($i: RecordGuaranteeClaimInput!) { recordGuaranteeClaim(input: $i) { noticedOn defect } }`;
const PUBLIC = `query($s: String!) { sewerExtensionPublicRecord(districtSlug: $s) { districtName provided section procedure { text section }
  committedByLine { lineName lineKind committedGpd } commitments { lineName committedTo flowGpd resolutionNumber inForce }
  charges { extensionName kind amount resolutionNumber } accepted { name developer acceptedOn resolutionNumber guaranteeEndsOn } } }`;

describe("the Town Board's charges (502 A)", () => {
  it("none until the Board sets them: no line, nothing to pay, construction waits for no fee", async () => {
    const { sewerExtension: e } = await developer.ok(WORKS_GET, { id: approvedId });
    expect(e.charges).toEqual([]);
    expect(e.constructionProblems).toEqual([]);
    expect(e.acceptanceProblems.join(" ")).not.toMatch(/not paid/);
  });

  it("only the ADMIN enters the Board's resolution; the developer's payment opens with the section cited; once per kind", async () => {
    const i = { extensionId: approvedId, kind: "INSPECTION_FEES", amountCents: 120_000, resolutionNumber: "2026-77", resolutionAdoptedOn: today() };
    for (const c of [developer, operator, clerk]) expect(errorCode(await c.gql(CHARGE, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(CHARGE, { i }))).toBe("FORBIDDEN");
    const future = await admin.gql(CHARGE, { i: { ...i, resolutionAdoptedOn: addCalendarDays(today(), 1) } });
    expect(future.errors![0].extensions!.fields).toEqual({ resolutionAdoptedOn: "The resolution's date cannot be after today." });
    const { setSewerExtensionCharge: c } = await admin.ok(CHARGE, { i });
    expect(c).toMatchObject({ kind: "INSPECTION_FEES", amount: "$1,200.00", paid: false, paymentStatus: "PENDING" });
    const { payment } = await developer.ok(`query($id: ID!) { payment(id: $id) { amountCents lines { code label section amountCents } } }`, { id: c.paymentId });
    expect(payment).toMatchObject({ amountCents: 120000, lines: [{ code: "inspection-fees", label: "Inspection fees, Town Board resolution 2026-77", section: "Sewer Use Law 502 A", amountCents: 120000 }] });
    expect(errorCode(await admin.gql(CHARGE, { i }))).toBe("CONFLICT");
    const { sewerExtension: e } = await developer.ok(WORKS_GET, { id: approvedId });
    expect(e.constructionProblems).toEqual(["The inspection fees are paid before construction starts (Sewer Use Law 502 A)."]);
    const [mail] = await srv.running.ds.query(`SELECT subject FROM outbox_email WHERE kind = 'extension.charge_set' ORDER BY created_at DESC LIMIT 1`);
    expect(mail.subject).toBe("Inspection fees to pay: Meadowbrook Estates, section 1");
  });
});

describe("periodic inspections without notice (502 A)", () => {
  it("the Operator records findings; the Town Board gets them; only the Operator, only of its district", async () => {
    const i = { extensionId: approvedId, inspectedOn: today(), conforms: false, findings: "Bedding at MH-2 not per detail 4; backfilled before inspection.", excavationRequired: true };
    for (const c of [developer, clerk, admin]) expect(errorCode(await c.gql(INSPECT, { i }))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(INSPECT, { i }))).toBe("NOT_FOUND");
    expect((await operator.gql(INSPECT, { i: { ...i, inspectedOn: addCalendarDays(today(), 1) } })).errors![0].extensions!.fields).toEqual({
      inspectedOn: "An inspection is recorded once made: the day cannot be after today.",
    });
    await operator.ok(INSPECT, { i });
    const [board] = await srv.running.ds.query(`SELECT subject, body_text AS body FROM outbox_email WHERE kind = 'extension.inspection_report' ORDER BY created_at DESC LIMIT 1`);
    expect(board.subject).toBe("Inspection findings, sewer extension Meadowbrook Estates, section 1");
    expect(board.body).toContain("NOT proceeding in accordance with the approved plans and specifications");
    expect(board.body).toContain("Excavation is required");
    const { sewerExtension: e } = await developer.ok(WORKS_GET, { id: approvedId });
    expect(e.inspections).toEqual([expect.objectContaining({ conforms: false, excavationRequired: true })]);
    expect(e.acceptanceProblems).toContain("The latest inspection found work not in accordance with the approved plans and specifications (Sewer Use Law 502 A).");
    await operator.ok(INSPECT, { i: { ...i, conforms: true, findings: "Bedding corrected and re-inspected.", excavationRequired: false } });
  });
});

describe("as-built drawings, acceptance and the guarantee (507)", () => {
  it("the as-built drawings: filed by the developer, approved with 4 copies (3 refused)", async () => {
    expect(errorCode(await operator.gql(AS_BUILT, { i: { extensionId: approvedId, copiesFiled: 4 } }))).toBe("CONFLICT");
    const { uploadDocument } = await developer.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename: "as-built.pdf", contentBase64: PDF } });
    await developer.ok(`mutation($i: AttachSewerExtensionDocumentsInput!) { attachSewerExtensionDocuments(input: $i) { id } }`, { i: { id: approvedId, documents: [{ documentId: uploadDocument.id, kind: "AS_BUILT" }] } });
    const three = await operator.gql(AS_BUILT, { i: { extensionId: approvedId, copiesFiled: 3 } });
    expect(three.errors![0].extensions!.fields).toEqual({ copiesFiled: "4 copies of the as-built drawings are filed with the District Operator before the sewer is accepted (Sewer Use Law 507); 3 filed." });
    expect(errorCode(await developer.gql(AS_BUILT, { i: { extensionId: approvedId, copiesFiled: 4 } }))).toBe("FORBIDDEN");
    expect((await operator.ok(AS_BUILT, { i: { extensionId: approvedId, copiesFiled: 4 } })).approveAsBuiltDrawings.asBuiltCopies).toBe(4);
  });

  it("final approval waits for the Board's charges to be paid, then goes to the Board", async () => {
    const refused = await operator.gql(FINAL, { id: approvedId });
    expect(errorCode(refused)).toBe("CONFLICT");
    expect(refused.errors![0].message).toBe("Not yet: Inspection fees set by the Town Board are not paid (Sewer Use Law 502 A).");
    const { sewerExtension: e } = await operator.ok(WORKS_GET, { id: approvedId });
    await clerk.ok(`mutation($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { status } }`, { i: { paymentId: e.charges[0].paymentId, method: "cash" } });
    const { sewerExtension: paid } = await developer.ok(WORKS_GET, { id: approvedId });
    expect(paid.charges[0]).toMatchObject({ paid: true, paymentStatus: "PAID" });
    expect(paid.constructionProblems).toEqual([]);
    expect(paid.acceptanceProblems).toEqual([]);
    expect(errorCode(await admin.gql(FINAL, { id: approvedId }))).toBe("FORBIDDEN");
    expect((await operator.ok(FINAL, { id: approvedId })).giveSewerExtensionFinalApproval.finalApprovedAt).toBeTruthy();
    const [mail] = await srv.running.ds.query(`SELECT subject FROM outbox_email WHERE kind = 'extension.awaiting_board' ORDER BY created_at DESC LIMIT 1`);
    expect(mail.subject).toBe("Sewer extension for the Town Board's acceptance: Meadowbrook Estates, section 1");
  });

  it("the Board's concurrence: a bond ending a day before the guarantee's last day is refused; on that day accepted; the sewer is the Town's", async () => {
    const lastDay = termLastDay(today(), 12);
    const i = { extensionId: approvedId, resolutionNumber: "2026-90", acceptedOn: today(), securityKind: "SURETY_BOND", suretyName: "Hudson Surety Co.", bondNumber: "HS-55120", amountCents: 5_000_000 };
    expect(errorCode(await operator.gql(ACCEPT, { i: { ...i, expiresOn: lastDay } }))).toBe("FORBIDDEN");
    const short = await admin.gql(ACCEPT, { i: { ...i, expiresOn: addCalendarDays(lastDay, -1) } });
    expect(short.errors![0].extensions!.fields).toEqual({ expiresOn: `The security must last the whole guarantee, through ${formatDate(lastDay)} (Sewer Use Law 507).` });
    const missing = await admin.gql(ACCEPT, { i: { ...i, suretyName: "", bondNumber: null } });
    expect(Object.keys(missing.errors![0].extensions!.fields!)).toEqual(["suretyName", "bondNumber", "expiresOn"]);
    const { recordTownBoardAcceptance: e } = await admin.ok(ACCEPT, { i: { ...i, expiresOn: lastDay } });
    expect(e).toMatchObject({ status: "ACCEPTED", acceptedOn: today(), guaranteeEndsOn: lastDay, securityKind: "SURETY_BOND", bondNumber: "HS-55120", securityAmountCents: 5000000, securityExpiresOn: lastDay });
    expect(errorCode(await admin.gql(ACCEPT, { i: { ...i, expiresOn: lastDay } }))).toBe("CONFLICT");
    const [mail] = await srv.running.ds.query(`SELECT body_text AS body FROM outbox_email WHERE kind = 'extension.accepted' ORDER BY created_at DESC LIMIT 1`);
    expect(mail.body).toContain(`runs through ${formatDate(lastDay)}`);
  });

  it("a claim while the guarantee runs, its last day included; the day after refused", async () => {
    const defect = "Joint leaking at MH-2, infiltration visible.";
    expect(errorCode(await developer.gql(CLAIM, { i: { extensionId: approvedId, noticedOn: today(), defect } }))).toBe("FORBIDDEN");
    expect((await operator.gql(CLAIM, { i: { extensionId: approvedId, noticedOn: addCalendarDays(today(), -1), defect } })).errors![0].extensions!.fields!.noticedOn).toMatch(/^The guarantee runs from the Town's acceptance/);
    await operator.ok(CLAIM, { i: { extensionId: approvedId, noticedOn: today(), defect } });
    // As if a year had passed: the guarantee's last day was yesterday.
    const ds = srv.running.ds;
    const yesterday = addCalendarDays(today(), -1);
    const saved = (await ds.query(`SELECT to_char(accepted_on, 'YYYY-MM-DD') AS a, to_char(guarantee_ends_on, 'YYYY-MM-DD') AS g FROM sewer_extension WHERE id = $1`, [approvedId]))[0];
    await ds.query(`UPDATE sewer_extension SET accepted_on = $2, guarantee_ends_on = $3 WHERE id = $1`, [approvedId, addCalendarDays(yesterday, -365), yesterday]);
    await operator.ok(CLAIM, { i: { extensionId: approvedId, noticedOn: yesterday, defect } });
    const late = await operator.gql(CLAIM, { i: { extensionId: approvedId, noticedOn: today(), defect } });
    expect(late.errors![0].extensions!.fields).toEqual({ noticedOn: `The guarantee ended on ${formatDate(yesterday)} (Sewer Use Law 507).` });
    await ds.query(`UPDATE sewer_extension SET accepted_on = $2, guarantee_ends_on = $3 WHERE id = $1`, [approvedId, saved.a, saved.g]);
    expect((await developer.ok(WORKS_GET, { id: approvedId })).sewerExtension.guaranteeClaims).toHaveLength(2);
  });

  it("the reminder comes 30 days before the guarantee ends, not 31, and once", async () => {
    const ds = srv.running.ds;
    const [{ g }] = await ds.query(`SELECT to_char(guarantee_ends_on, 'YYYY-MM-DD') AS g FROM sewer_extension WHERE id = $1`, [approvedId]);
    expect(await sendGuaranteeReminders(ds, addCalendarDays(g, -31))).toBe(0);
    expect(await sendGuaranteeReminders(ds, addCalendarDays(g, -30))).toBe(1);
    expect(await sendGuaranteeReminders(ds, addCalendarDays(g, -29))).toBe(0);
    const mails = await ds.query(`SELECT to_address AS "to", body_text AS body FROM outbox_email WHERE kind = 'extension.guarantee_reminder' ORDER BY to_address`);
    expect(mails.map((m: { to: string }) => m.to)).toContain("dev@meadowbrook.example.com");
    expect(mails[0].body).toContain(`ends on ${formatDate(g)}, in 30 days (Sewer Use Law 507)`);
  });
});

describe("what the public sees (1301-1303)", () => {
  it("signed out: the procedure with the law's figures, the Board's commitments, charges and acceptances; not the applications under review", async () => {
    const { sewerExtensionPublicRecord: r } = await new Client(srv.url).ok(PUBLIC, { s: "lakeview" });
    expect(r.provided).toBe(true);
    expect(r.procedure.map((p: { text: string }) => p.text).join(" ")).toContain("told 30 days before construction starts");
    expect(r.procedure.map((p: { text: string }) => p.text).join(" ")).toContain("4 copies of the as-built drawings");
    expect(r.committedByLine).toEqual([{ lineName: "Harbor Road trunk", lineKind: "SEGMENT", committedGpd: 35000 }]);
    expect(r.commitments).toEqual([{ lineName: "Harbor Road trunk", committedTo: "Harbor Heights subdivision", flowGpd: 35000, resolutionNumber: "2026-41", inForce: true }]);
    expect(r.charges).toEqual([{ extensionName: "Meadowbrook Estates, section 1", kind: "INSPECTION_FEES", amount: "$1,200.00", resolutionNumber: "2026-77" }]);
    expect(r.accepted).toEqual([{ name: "Meadowbrook Estates, section 1", developer: "Meadowbrook Homes LLC", acceptedOn: today(), resolutionNumber: "2026-90", guaranteeEndsOn: termLastDay(today(), 12) }]);
    expect(JSON.stringify(r)).not.toContain("section 2");
    const { sewerExtensionPublicRecord: h } = await new Client(srv.url).ok(PUBLIC, { s: "huron" });
    expect(h).toMatchObject({ provided: false, section: "Huron Article III", procedure: [], accepted: [] });
  });
});

describe("forms' API and lists", () => {
  it("a lateral is linked by its permit number; an unknown number is refused at its field", async () => {
    const LINK = `mutation($i: LinkLateralToSewerExtensionInput!) { linkLateralToSewerExtension(input: $i) { id } }`;
    const { applyForSewerExtension: x } = await developer.ok(APPLY, { i: application({ name: "Meadowbrook Estates, section 3", designFlowGpd: 100 }) });
    await operator.ok(DECIDE, { i: { id: x.id, decision: "APPROVE", confirmed: ["licensedDesigner", "futureFlows"] } });
    const r = await operator.gql(LINK, { i: { extensionId: x.id, permitNumber: "LKV-LP-NOPE" } });
    expect(r.errors![0].extensions!.fields).toEqual({ permitNumber: "No issued lateral permit of this district has that number." });
    const taken = await operator.gql(LINK, { i: { extensionId: x.id, permitNumber: "LKV-LP-EXT-0001" } });
    expect(taken.errors![0].message).toBe("That lateral is recorded on another extension.");
  });

  it("the staff's list with reviews, starts, charges and inspections: the same statements for 2 applications as for 4", async () => {
    const LIST = `query($d: ID!) { districtSewerExtensions(districtId: $d, first: 50) { items { id earliestConstructionStart constructionProblems acceptanceProblems
      review { hasCapacity items { key met } } charges { amount } inspections { findings } plannedInspections { scope } guaranteeClaims { defect } sections { passed } laterals { status } documents { kind } } } }`;
    const ds = srv.running.ds;
    const before = await clerk.ok(LIST, { d: lakeview });
    const n1 = await countStatements(ds, () => clerk.ok(LIST, { d: lakeview }));
    for (const name of ["section 4", "section 5"]) await developer.ok(APPLY, { i: application({ name: `Meadowbrook Estates, ${name}`, designFlowGpd: 100 }) });
    const after = await clerk.ok(LIST, { d: lakeview });
    expect(after.districtSewerExtensions.items.length).toBe(before.districtSewerExtensions.items.length + 2);
    expect(await countStatements(ds, () => clerk.ok(LIST, { d: lakeview }))).toBe(n1);
  });
});

const pages = portal(() => srv.url);

describe("planned inspections and guarantees ending (502 A, 507)", () => {
  const PLAN = `mutation($i: PlanExtensionInspectionInput!) { planExtensionInspection(input: $i) { id plannedOn scope inspectionId } }`;
  const PLANS = `query($d: ID!) { plannedSewerExtensionInspections(districtId: $d) { id extensionId scope plannedOn } }`;
  const MINE = `query($id: ID!) { sewerExtension(id: $id) { plannedInspections { id scope inspectionId inspectedOn } } }`;
  const INSPECT = `mutation($i: RecordExtensionInspectionInput!) { recordExtensionInspection(input: $i) { id } }`;
  const EXPIRING = `query($d: ID!) { expiringSewerGuarantees(districtId: $d) { extensionId guaranteeEndsOn daysLeft openClaims } }`;

  it("the Operator plans an inspection the developer never sees; the findings recorded close it", async () => {
    const { applyForSewerExtension: x } = await developer.ok(APPLY, { i: application({ name: "Meadowbrook Estates, section 6", designFlowGpd: 100 }) });
    await operator.ok(DECIDE, { i: { id: x.id, decision: "APPROVE", confirmed: ["licensedDesigner", "futureFlows"] } });
    const past = await operator.gql(PLAN, { i: { extensionId: x.id, plannedOn: addCalendarDays(today(), -1), scope: "Bedding" } });
    expect(past.errors![0].extensions!.fields).toEqual({ plannedOn: "A planned inspection is today or later; record one already made with its findings." });
    expect(errorCode(await developer.gql(PLAN, { i: { extensionId: x.id, plannedOn: today(), scope: "Bedding" } }))).toBe("FORBIDDEN");
    const before = (await srv.running.ds.query(`SELECT count(*)::int AS n FROM outbox_email`))[0].n;
    const { planExtensionInspection: plan } = await operator.ok(PLAN, { i: { extensionId: x.id, plannedOn: addCalendarDays(today(), 3), scope: "Bedding and backfill, Aster Court" } });
    expect(plan).toMatchObject({ plannedOn: addCalendarDays(today(), 3), inspectionId: null });
    // Without prior notice: nobody is emailed, the developer's members read no plan.
    expect((await srv.running.ds.query(`SELECT count(*)::int AS n FROM outbox_email`))[0].n).toBe(before);
    expect((await developer.ok(MINE, { id: x.id })).sewerExtension.plannedInspections).toBeNull();
    expect((await clerk.ok(MINE, { id: x.id })).sewerExtension.plannedInspections).toEqual([{ id: plan.id, scope: "Bedding and backfill, Aster Court", inspectionId: null, inspectedOn: null }]);
    expect((await clerk.ok(PLANS, { d: lakeview })).plannedSewerExtensionInspections).toEqual([{ id: plan.id, extensionId: x.id, scope: "Bedding and backfill, Aster Court", plannedOn: addCalendarDays(today(), 3) }]);
    expect(errorCode(await huronOperator.gql(PLANS, { d: lakeview }))).toBe("FORBIDDEN");
    // The staff's pages show it; the developer's does not.
    expect(pageText((await pages.get(clerk, "/staff/extensions")).html)).toContain("Bedding and backfill, Aster Court");
    expect(pageText((await pages.get(operator, `/staff/extensions/${x.id}/works`)).html)).toContain("Bedding and backfill, Aster Court (planned by");
    expect(pageText((await pages.get(developer, `/extensions/${x.id}`)).html)).not.toContain("Bedding and backfill");
    // Findings recorded on the works page close it (a day before the plan's: the visit came early, unannounced).
    const posted = await pages.post(operator, `/staff/extensions/${x.id}/works`, { intent: "inspection", planId: plan.id, inspectedOn: today(), conforms: "yes", findings: "Bedding as specified.", excavationRequired: "no" });
    expect(posted.status).toBe(302);
    expect((await clerk.ok(MINE, { id: x.id })).sewerExtension.plannedInspections).toEqual([{ id: plan.id, scope: "Bedding and backfill, Aster Court", inspectionId: expect.any(String), inspectedOn: today() }]);
    expect((await clerk.ok(PLANS, { d: lakeview })).plannedSewerExtensionInspections).toEqual([]);
    const again = await operator.gql(INSPECT, { i: { extensionId: x.id, planId: plan.id, inspectedOn: today(), conforms: true, findings: "Again." } });
    expect(again.errors![0].extensions!.fields).toEqual({ planId: "That planned inspection is already closed by recorded findings." });
  });

  it("the Operator moves a planned inspection (today or later, another day, with the reason) and cancels one, which stays on the record; both audited", async () => {
    const MOVE = `mutation($i: MoveExtensionInspectionPlanInput!) { moveExtensionInspectionPlan(input: $i) { id plannedOn cancelledOn } }`;
    const CANCEL = `mutation($i: CancelExtensionInspectionPlanInput!) { cancelExtensionInspectionPlan(input: $i) { id plannedOn cancelledOn cancellationReason cancelledByName } }`;
    const [{ id: x }] = await srv.running.ds.query(`SELECT id FROM sewer_extension WHERE name = 'Meadowbrook Estates, section 6'`);
    const { planExtensionInspection: plan } = await operator.ok(PLAN, { i: { extensionId: x, plannedOn: addCalendarDays(today(), 2), scope: "Manhole 4 before it is covered" } });
    const fieldsOf = (r: any) => r.errors![0].extensions!.fields;
    expect(fieldsOf(await operator.gql(MOVE, { i: { planId: plan.id, plannedOn: addCalendarDays(today(), -1), reason: "Rain" } }))).toEqual({ plannedOn: "A planned inspection is today or later." });
    expect(fieldsOf(await operator.gql(MOVE, { i: { planId: plan.id, plannedOn: addCalendarDays(today(), 2), reason: "Rain" } })).plannedOn).toMatch(/^It is already planned for .*: choose another day\.$/);
    expect(Object.keys(fieldsOf(await operator.gql(MOVE, { i: { planId: plan.id, plannedOn: today(), reason: "  " } })))).toEqual(["reason"]);
    expect(errorCode(await developer.gql(MOVE, { i: { planId: plan.id, plannedOn: today(), reason: "Rain" } }))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(CANCEL, { i: { planId: plan.id, reason: "Not ours" } }))).toBe("NOT_FOUND");
    expect(errorCode(await clerk.gql(CANCEL, { i: { planId: plan.id, reason: "Clerk" } }))).toBe("FORBIDDEN");
    // Today is the limit: moved to today.
    expect((await operator.ok(MOVE, { i: { planId: plan.id, plannedOn: today(), reason: "Trench open a day early" } })).moveExtensionInspectionPlan).toEqual({ id: plan.id, plannedOn: today(), cancelledOn: null });
    // Cancelled on the works page, without JavaScript: the reason missing is shown at the plan, then given.
    const missing = await pages.post(operator, `/staff/extensions/${x}/works`, { intent: "cancelPlan", planId: plan.id, reason: "" });
    expect(missing.status).toBe(400);
    expect(pageText(missing.html)).toContain("Why it is cancelled");
    expect(missing.html).toContain(`id="cancelPlan-reason-${plan.id}"`);
    const cancelled = await pages.post(operator, `/staff/extensions/${x}/works`, { intent: "cancelPlan", planId: plan.id, reason: "Covered before the visit; inspected by camera instead" });
    expect(cancelled.status).toBe(302);
    const mine = (await clerk.ok(`query($id: ID!) { sewerExtension(id: $id) { plannedInspections { id cancelledOn cancellationReason cancelledByName } } }`, { id: x })).sewerExtension.plannedInspections;
    expect(mine.find((p: any) => p.id === plan.id)).toEqual({ id: plan.id, cancelledOn: today(), cancellationReason: "Covered before the visit; inspected by camera instead", cancelledByName: expect.any(String) });
    expect((await clerk.ok(PLANS, { d: lakeview })).plannedSewerExtensionInspections.map((p: any) => p.id)).not.toContain(plan.id);
    expect(pageText((await pages.get(operator, `/staff/extensions/${x}/works`)).html)).toMatch(/Manhole 4 before it is covered \(planned by .*; cancelled on .*: Covered before the visit; inspected by camera instead\)/);
    expect((await operator.gql(CANCEL, { i: { planId: plan.id, reason: "Again" } })).errors![0].message).toBe("That planned inspection is already cancelled.");
    expect((await operator.gql(MOVE, { i: { planId: plan.id, plannedOn: addCalendarDays(today(), 5), reason: "Again" } })).errors![0].message).toBe("That planned inspection is already cancelled.");
    const findings = await operator.gql(INSPECT, { i: { extensionId: x, planId: plan.id, inspectedOn: today(), conforms: true, findings: "Camera run." } });
    expect(findings.errors![0].extensions!.fields).toEqual({ planId: "That planned inspection was cancelled: choose another, or none." });
    const audits = await srv.running.ds.query(`SELECT action, details->>'reason' AS reason FROM audit_entry WHERE entity_id = $1 AND action IN ('extension.inspection_plan_moved', 'extension.inspection_plan_cancelled') ORDER BY id`, [x]);
    expect(audits).toEqual([
      { action: "extension.inspection_plan_moved", reason: "Trench open a day early" },
      { action: "extension.inspection_plan_cancelled", reason: "Covered before the visit; inspected by camera instead" },
    ]);
  });

  it("guarantees ending within the reminder days (30, not 31) or ended with a claim open, with days left; a remedied claim drops an ended one", async () => {
    const ds = srv.running.ds;
    const saved = (await ds.query(`SELECT to_char(guarantee_ends_on, 'YYYY-MM-DD') AS g FROM sewer_extension WHERE id = $1`, [approvedId]))[0].g;
    const endsOn = async (d: string) => ds.query(`UPDATE sewer_extension SET guarantee_ends_on = $2 WHERE id = $1`, [approvedId, d]);
    const list = async () => (await clerk.ok(EXPIRING, { d: lakeview })).expiringSewerGuarantees;
    const claims: { id: string }[] = (await operator.ok(`query($id: ID!) { sewerExtension(id: $id) { guaranteeClaims { id remediedOn } } }`, { id: approvedId })).sewerExtension.guaranteeClaims;
    try {
      await endsOn(addCalendarDays(today(), 31));
      expect(await list()).toEqual([]);
      await endsOn(addCalendarDays(today(), 30));
      expect(await list()).toEqual([{ extensionId: approvedId, guaranteeEndsOn: addCalendarDays(today(), 30), daysLeft: 30, openClaims: claims.length }]);
      expect(pageText((await pages.get(clerk, "/staff/extensions")).html)).toMatch(/Guarantees ending .*Meadowbrook Estates, section 1 .* 30 days left/);
      await endsOn(addCalendarDays(today(), -1));
      expect(await list()).toEqual([{ extensionId: approvedId, guaranteeEndsOn: addCalendarDays(today(), -1), daysLeft: -1, openClaims: claims.length }]);
      expect(pageText((await pages.get(clerk, "/staff/extensions")).html)).toContain("Ended 1 day ago");
      const REMEDY = `mutation($i: RecordGuaranteeClaimRemediedInput!) { recordGuaranteeClaimRemedied(input: $i) { remediedOn remedy } }`;
      expect(errorCode(await developer.gql(REMEDY, { i: { claimId: claims[0].id, remediedOn: today(), remedy: "Relined." } }))).toBe("FORBIDDEN");
      for (const c of claims) await operator.ok(REMEDY, { i: { claimId: c.id, remediedOn: today(), remedy: "Joint resealed." } });
      expect((await operator.gql(REMEDY, { i: { claimId: claims[0].id, remediedOn: today(), remedy: "Again." } })).errors![0].message).toBe("That defect is already recorded as remedied.");
      expect(await list()).toEqual([]);
      expect(errorCode(await huronOperator.gql(EXPIRING, { d: lakeview }))).toBe("FORBIDDEN");
    } finally {
      await endsOn(saved);
    }
  });

  it("the Town Board's acceptance queue: approved extensions with the Operator's final approval (507)", async () => {
    const Q = `query($d: ID!, $s: String) { districtSewerExtensions(districtId: $d, status: $s) { items { id } } }`;
    const ds = srv.running.ds;
    const [{ id }] = await ds.query(`SELECT id FROM sewer_extension WHERE name = 'Meadowbrook Estates, section 6'`);
    expect((await clerk.ok(Q, { d: lakeview, s: "AWAITING_BOARD" })).districtSewerExtensions.items).toEqual([]);
    await ds.query(`UPDATE sewer_extension SET as_built_approved_at = now(), final_approved_at = now() WHERE id = $1`, [id]);
    try {
      expect((await clerk.ok(Q, { d: lakeview, s: "AWAITING_BOARD" })).districtSewerExtensions.items).toEqual([{ id }]);
      expect(pageText((await pages.get(clerk, "/staff/extensions")).html)).toMatch(/For the Town Board's acceptance .*Meadowbrook Estates, section 6 \(Meadowbrook Homes LLC, 12 lots\) Planned inspections/);
    } finally {
      await ds.query(`UPDATE sewer_extension SET final_approved_at = NULL, as_built_approved_at = NULL WHERE id = $1`, [id]);
    }
  });

  it("after the Town's acceptance, the works page links the septic systems the sewer reaches (408)", async () => {
    const html = (await pages.get(operator, `/staff/extensions/${approvedId}/works`)).html;
    expect(html).toContain(`href="/staff/septic?extension=${approvedId}"`);
    expect(pageText(html)).toContain("Septic systems this sewer reaches (Sewer Use Law 408)");
  });
});

describe("the Uni-Bell table entered on the ADMIN's rulebook page judges air tests (505 F)", () => {
  const T = "extension.airTestTable";
  const form = (rows: Record<string, string>, extra: Record<string, string> = {}) => ({
    [`${T}.rows`]: "3",
    [`${T}.existing`]: "0",
    ...rows,
    resolutionNumber: "2026-88",
    resolutionAdoptedOn: today(),
    effectiveDate: today(),
    reason: "Uni-Bell air test table",
    ...extra,
  });
  const air = async (sectionId: string, seconds: number) =>
    (await operator.ok(TEST, { i: { sectionId, kind: "AIR", testedOn: today(), lengthFeet: 400, nominalDiameterInches: 8, testPressurePsi: 4, seconds } })).recordExtensionTest;

  it("not judged before the table is set; at the limit passed, just under it failed after; not judged again once its row is removed", async () => {
    const { applyForSewerExtension: x } = await developer.ok(APPLY, { i: application({ name: "Meadowbrook Estates, section 8", designFlowGpd: 100 }) });
    await operator.ok(DECIDE, { i: { id: x.id, decision: "APPROVE", confirmed: ["licensedDesigner", "futureFlows"] } });
    const { addExtensionTestSection: section } = await operator.ok(SECTION, { i: { extensionId: x.id, name: "MH-8 to MH-9" } });
    expect((await air(section.id, 304)).outcome).toBe("NOT_JUDGED");

    // The page: blank rows to fill; the limits tables stay read-only.
    const page = await pages.get(admin, "/staff/rulebook/lakeview");
    expect(page.html).toContain(`name="${T}.0.parameter"`);
    expect(page.html).not.toContain(`name="limits.table.0.parameter"`);
    // Refused with each problem at its cell; nothing typed is lost.
    const bad = await pages.post(admin, "/staff/rulebook/lakeview", form({ [`${T}.0.parameter`]: "8", [`${T}.0.minimum`]: "227", [`${T}.0.average`]: "0.76", [`${T}.1.parameter`]: "8", [`${T}.1.minimum`]: "0", [`${T}.1.average`]: "" }));
    expect(bad.status).toBe(400);
    const text = pageText(bad.html);
    expect(text).toContain("Low-pressure air test: time for a 1.0 psig drop (Uni-Bell table), row 2: Nominal pipe diameter (inches): This is already in row 1: give each once.");
    expect(text).toContain("row 2: Minimum time (seconds): Enter a number greater than 0, like 227.");
    expect(text).toContain("row 2: Time for a longer length (seconds per foot): Enter the time for a longer length (seconds per foot), or tick Remove to drop the row.");
    expect(bad.html).toMatch(/id="extension\.airTestTable\.0\.average"[^>]*value="0\.76"/);
    expect(bad.html).toMatch(/id="extension\.airTestTable\.1\.minimum"[^>]*value="0"/);
    // Saved with the resolution: the row as stored, and the air test judged at the limit (the greater of 227 s and 0.76 s a foot x 400 ft = 304 s).
    const ok = await pages.post(admin, "/staff/rulebook/lakeview", form({ [`${T}.0.parameter`]: "8", [`${T}.0.minimum`]: "227", [`${T}.0.average`]: "0.76" }));
    expect(ok.status).toBe(302);
    const { district } = await new Client(srv.url).ok(`{ district(slug: "lakeview") { rulebook { entries { key rows { parameter unit minimum average maximum } resolution { number } } } } }`);
    expect(district.rulebook.entries.find((e: { key: string }) => e.key === T)).toMatchObject({ rows: [{ parameter: "8", unit: "seconds", minimum: 227, average: 0.76, maximum: null }], resolution: { number: "2026-88" } });
    expect(await air(section.id, 304)).toMatchObject({ outcome: "PASSED", criteria: expect.arrayContaining([expect.objectContaining({ section: "Sewer Use Law 505 F", met: true })]) });
    expect((await air(section.id, 303.9)).outcome).toBe("FAILED");
    // The public rules page shows the table under its own columns, not the limits tables' headings.
    const rules = await pages.get(new Client(srv.url), "/rules/lakeview");
    expect(rules.html).toContain("Nominal pipe diameter (inches)</th>");
    expect(rules.html).toContain("Time for a longer length (seconds per foot)</th>");
    // Removed on the page (ticked), the table is empty again: not judged.
    const removed = await pages.post(admin, "/staff/rulebook/lakeview", form({ [`${T}.existing`]: "1", [`${T}.rows`]: "4", [`${T}.0.parameter`]: "8", [`${T}.0.minimum`]: "227", [`${T}.0.average`]: "0.76", [`${T}.0.remove`]: "on" }, { resolutionNumber: "2026-89" }));
    expect(removed.status).toBe(302);
    expect((await air(section.id, 304)).outcome).toBe("NOT_JUDGED");
  });
});

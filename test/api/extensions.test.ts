import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { Client, DEMO, errorCode, signedInAs, startTestServer, type TestServer } from "../harness.js";

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
  srv = await startTestServer();
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

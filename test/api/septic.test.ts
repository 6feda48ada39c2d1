import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, addMonths, dateIn } from "../../api/common/dates.js";
import { DEMO_HAULER, loadDemoHaulerScene } from "../../api/db/demo-scene-haulers.js";
import { sendSepticReminders } from "../../api/septic/reminders.service.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type GqlResponse, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";

// Issue 17, septic systems (SUL 401-408; Huron II-3, II-4): the register (402), pump-outs from
// licensed haulers' loads and their three years (407), construction permits (403-404), the 90-day
// notice (405), connection orders when the sewer arrives (408), Huron, and access operation by operation.

const TZ = "America/New_York";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");
const NONE = "00000000-0000-0000-0000-000000000000";
const today = () => dateIn(TZ);

const SYSTEM = `id propertyId status statusLabel kind kindLabel address taxParcel installedOn reportedPumpedOn lastPumpedOn forbiddenReason
  buildings { name use useLabel } pumpStanding { state dueOn daysLeft text section }
  pumpOuts { haulerLoadId pumpedOn matchedBy haulerName gallons }
  nuisanceNotices { id status repairBy daysLeft lapsed enforcementActionId }
  connectionOrders { id status pumpedOn closedOn steps { step done section } }`;
const REGISTER = `mutation($i: RegisterSepticSystemInput!) { registerSepticSystem(input: $i) { ${SYSTEM} } }`;
const GET = `query($id: ID!) { septicSystem(id: $id) { ${SYSTEM} } }`;
const MINE = `{ mySepticSystems { id address pumpStanding { state dueOn } } }`;
const LIST = `query($d: ID!, $f: String, $after: String, $first: Int) { districtSepticSystems(districtId: $d, filter: $f, after: $after, first: $first) { items { id address pumpStanding { state } } nextCursor } }`;
const LINK = `mutation($s: ID!, $l: ID!) { linkSepticPumpOut(systemId: $s, haulerLoadId: $l) { id lastPumpedOn } }`;
const PERMIT = `id status statusLabel permitNumber feeCents feeSection paymentId systemId issuedOn completedOn designerCredentialLabel
  documents { kind } inspections { stage result }`;
const APPLY = `mutation($i: ApplyForSepticPermitInput!) { applyForSepticPermit(input: $i) { ${PERMIT} } }`;
const DECIDE = `mutation($i: DecideSepticPermitInput!) { decideSepticPermit(input: $i) { ${PERMIT} } }`;
const INSPECT = `mutation($i: RecordSepticInspectionInput!) { recordSepticInspection(input: $i) { ${PERMIT} } }`;
const GET_PERMIT = `query($id: ID!) { septicPermit(id: $id) { ${PERMIT} } }`;
const NOTICE = `id status repairBy receivedOn daysLeft lapsed section enforcementActionId`;
const SERVE = `mutation($i: ServeSepticNuisanceNoticeInput!) { serveSepticNuisanceNotice(input: $i) { ${NOTICE} } }`;
const ESCALATE = `mutation($i: EscalateSepticNuisanceNoticeInput!) { escalateSepticNuisanceNotice(input: $i) { ${NOTICE} } }`;
const CORRECTED = `mutation($i: RecordSepticNuisanceCorrectedInput!) { recordSepticNuisanceCorrected(input: $i) { ${NOTICE} } }`;
const NOTICES = `query($d: ID!) { districtSepticNotices(districtId: $d) { id } }`;
const ORDER = `id status reason issuedOn lateralPermitId pumpedOn tankDisposition fillMaterial pluggedOn discontinuedOn closedOn steps { step label section done }`;
const ISSUE = `mutation($i: IssueSepticConnectionOrdersInput!) { issueSepticConnectionOrders(input: $i) { ${ORDER} } }`;
const STEP = `mutation($i: RecordSepticConnectionStepInput!) { recordSepticConnectionStep(input: $i) { ${ORDER} } }`;
const ORDERS = `query($d: ID!) { districtSepticConnectionOrders(districtId: $d) { id } }`;
const PERMITS = `query($d: ID!) { districtSepticPermits(districtId: $d) { id } }`;

let srv: TestServer;
let lakeview: string;
let huron: string;
let operator: Client;
let clerk: Client;
let admin: Client;
let huronOperator: Client;
let huronClerk: Client;
let owner: Client;
let stranger: Client;
let hauler: Client;
let licence: { id: string; vehicleId: string };
let parcel = 0;

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  await loadDemoHaulerScene(srv.running.ds, srv.config);
  const d = await new Client(srv.url).ok(`{ l: district(slug: "lakeview") { id } h: district(slug: "huron") { id } }`);
  [lakeview, huron] = [d.l.id, d.h.id];
  [operator, clerk, admin, huronOperator, huronClerk] = await Promise.all(
    [DEMO.lakeviewOperator, DEMO.lakeviewClerk, DEMO.lakeviewAdmin, DEMO.huronOperator, DEMO.huronClerk].map((e) => signedInAs(srv.url, e)),
  );
  owner = new Client(srv.url);
  await owner.signUp("septic-owner@example.org", "Sally Septic");
  stranger = new Client(srv.url);
  await stranger.signUp("septic-stranger@example.org", "Stan Stranger");
  hauler = new Client(srv.url);
  await hauler.signIn(DEMO_HAULER.email);
  const { myOrganizations } = await hauler.ok(`{ myOrganizations { organization { id } } }`);
  const { haulerLicenses } = await hauler.ok(`query($o: ID!) { haulerLicenses(organizationId: $o) { id vehicles { id } } }`, { o: myOrganizations[0].organization.id });
  licence = { id: haulerLicenses[0].id, vehicleId: haulerLicenses[0].vehicles[0].id };
}, 120_000);
afterAll(() => srv?.close());

async function property(c: Client, districtId: string, streetNumber: string, street: string, ownerEmail: string | null = "septic-owner@example.org"): Promise<string> {
  const { addSewerProperty } = await c.ok(`mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`, {
    i: { districtId, taxParcel: `SEP-${++parcel}`, streetNumber, street, city: "Lakeview", zip: "13600", ownerName: "Sally Septic", ownerEmail },
  });
  return addSewerProperty.id;
}

const HOUSE = [{ name: "House", use: "DWELLING" }, { name: "Garage", use: "ACCESSORY" }];

async function register(propertyId: string, o: Record<string, unknown> = {}, c = operator) {
  return (await c.ok(REGISTER, { i: { propertyId, kind: "SEPTIC_TANK", buildings: HOUSE, ...o } })).registerSepticSystem;
}

/** The demo hauler books a load from the address, pays, and the Operator approves and receives it. */
async function haulFrom(sourceAddress: string, sourceKind = "RESIDENTIAL_SEPTIC_TANK"): Promise<string> {
  let day = addCalendarDays(today(), 2);
  while ([0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay())) day = addCalendarDays(day, 1);
  const { bookHaulerLoad: load } = await hauler.ok(`mutation($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { id paymentId } }`, {
    i: { licenseId: licence.id, vehicleId: licence.vehicleId, sourceAddress, sourceKind, sourceDescription: sourceKind === "OTHER" ? "Cesspool" : null, estimatedGallons: 1000, plannedArrival: `${day}T09:00` },
  });
  const { startCheckout } = await hauler.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: load.paymentId });
  await hauler.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
  await operator.ok(`mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id } }`, { i: { id: load.id, decision: "APPROVE" } });
  await operator.ok(`mutation($id: ID!) { recordHaulerLoadReceived(id: $id, measuredGallons: 950) { status } }`, { id: load.id });
  return load.id;
}

const emails = (kind: string, to?: string) =>
  srv.running.ds.query(`SELECT subject, body_text AS body, to_address AS "to" FROM outbox_email WHERE kind = $1 ${to ? "AND to_address = $2" : ""} ORDER BY created_at`, to ? [kind, to] : [kind]);

describe("the register (SUL 401, 402)", () => {
  it("refuses two homes on one tank (402), every problem at once", async () => {
    const p = await property(clerk, lakeview, "2", "Birch Lane");
    const r = await operator.gql(REGISTER, {
      i: { propertyId: p, kind: "POND", buildings: [{ name: "House", use: "DWELLING" }, { name: "Cottage", use: "DWELLING" }], installedOn: addCalendarDays(today(), 1) },
    });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(r.errors![0].extensions!.fields).toEqual({
      kind: "Choose a septic tank or a cesspool.",
      buildings: "No two separate buildings, each a family's home or a separate business, may be connected to the same septic tank (Sewer Use Law 402): House and Cottage need a system each.",
      installedOn: "The date cannot be after today.",
    });
    // A home with its garage is one building's system.
    const s = await register(p);
    expect(s.buildings).toEqual([
      { name: "House", use: "DWELLING", useLabel: "A family's home" },
      { name: "Garage", use: "ACCESSORY", useLabel: "Accessory to another building (garage, shed, workshop)" },
    ]);
    expect(s.pumpStanding).toMatchObject({ state: "NO_RECORD", dueOn: null });
    const [mail] = await emails("septic.system_registered");
    expect(mail.body).toContain("at least every 3 years (Sewer Use Law 407)");
  });
});

describe("pump-outs (SUL 407)", () => {
  let onTheDay: any;
  let dayAfter: any;
  let lake: any;

  it("three years from the last pumping: in time on the day, overdue the day after", async () => {
    const t = today();
    onTheDay = await register(await property(clerk, lakeview, "14", "Lake Street"), { reportedPumpedOn: addMonths(t, -36) });
    dayAfter = await register(await property(clerk, lakeview, "16", "Lake Street"), { reportedPumpedOn: addCalendarDays(addMonths(t, -36), -1) });
    expect(onTheDay.pumpStanding).toMatchObject({ state: "DUE_SOON", dueOn: t, daysLeft: 0, section: "Sewer Use Law 407" });
    expect(dayAfter.pumpStanding).toMatchObject({ state: "OVERDUE", dueOn: addCalendarDays(t, -1), daysLeft: -1 });
    const overdue = (await operator.ok(LIST, { d: lakeview, f: "OVERDUE" })).districtSepticSystems.items.map((s: any) => s.id);
    expect(overdue).toContain(dayAfter.id);
    expect(overdue).not.toContain(onTheDay.id);
    const soon = (await clerk.ok(LIST, { d: lakeview, f: "DUE_SOON" })).districtSepticSystems.items.map((s: any) => s.id);
    expect(soon).toContain(onTheDay.id);
  });

  it("the daily job reminds the owner once per due date", async () => {
    const before = (await emails("septic.pump_out_reminder")).length;
    await sendSepticReminders(srv.running.ds, "http://tapline.test");
    const after = await emails("septic.pump_out_reminder", "septic-owner@example.org");
    const mine = after.slice(before);
    expect(mine.map((m: any) => m.subject)).toEqual(expect.arrayContaining([`Septic pump-out due by ${formatWords(today())}: 14 Lake Street, Lakeview 13600`, "Septic pump-out overdue: 16 Lake Street, Lakeview 13600"]));
    expect(mine[0].body).toContain("at least every 3 years (Sewer Use Law 407)");
    await sendSepticReminders(srv.running.ds, "http://tapline.test");
    expect((await emails("septic.pump_out_reminder")).length).toBe(after.length);
  });

  it("the daily job takes the same SQL statements for one owner to remind as for three", async () => {
    const ds = srv.running.ds;
    const overdue = { reportedPumpedOn: addMonths(today(), -40) };
    await register(await property(clerk, lakeview, "1", "Count Lane"), overdue);
    const one = await countStatements(ds, () => sendSepticReminders(ds, "http://tapline.test"));
    for (const n of ["3", "5", "7"]) await register(await property(clerk, lakeview, n, "Count Lane"), overdue);
    const before = (await emails("septic.pump_out_reminder")).length;
    const three = await countStatements(ds, () => sendSepticReminders(ds, "http://tapline.test"));
    expect((await emails("septic.pump_out_reminder")).length).toBe(before + 3);
    expect(three).toBe(one);
  });

  it("a licensed hauler's load from the address, once received, is the pump-out and restarts the three years", async () => {
    const loadId = await haulFrom("14 Lake St., Lakeview");
    lake = (await owner.ok(GET, { id: onTheDay.id })).septicSystem;
    expect(lake.lastPumpedOn).toBe(today());
    expect(lake.pumpStanding).toMatchObject({ state: "IN_TIME", dueOn: addMonths(today(), 36) });
    expect(lake.pumpOuts).toEqual([{ haulerLoadId: loadId, pumpedOn: today(), matchedBy: "ADDRESS", haulerName: DEMO_HAULER.organization, gallons: 950 }]);
    // The neighbour at 16 is untouched; the owner heard; the audit has it.
    expect((await owner.ok(GET, { id: dayAfter.id })).septicSystem.pumpOuts).toEqual([]);
    expect((await emails("septic.pumped_out", "septic-owner@example.org")).at(-1).subject).toBe("Pump-out recorded: 14 Lake Street, Lakeview 13600");
    const [a] = await srv.running.ds.query(`SELECT actor_id, details FROM audit_entry WHERE action = 'septic.pumped_out' AND entity_id = $1`, [onTheDay.id]);
    expect(a).toMatchObject({ actor_id: null, details: { haulerLoadId: loadId, matchedBy: "ADDRESS" } });
    const overdue = (await operator.ok(LIST, { d: lakeview, f: "OVERDUE" })).districtSepticSystems.items.map((s: any) => s.id);
    expect(overdue).not.toContain(onTheDay.id);
  });

  it("a load whose address did not match is linked by the Operator; a holding tank's load is not a pump-out", async () => {
    const loadId = await haulFrom("Rear of 16 Lake Strt");
    expect((await operator.ok(GET, { id: dayAfter.id })).septicSystem.pumpOuts).toEqual([]);
    const linked = (await operator.ok(LINK, { s: dayAfter.id, l: loadId })).linkSepticPumpOut;
    expect(linked.lastPumpedOn).toBe(today());
    expect(errorCode(await operator.gql(LINK, { s: dayAfter.id, l: loadId }))).toBe("CONFLICT");
    const holding = await haulFrom("2 Birch Lane", "HOLDING_TANK");
    const birch = (await operator.ok(LIST, { d: lakeview, f: "OVERDUE" })).districtSepticSystems.items.find((s: any) => s.address.startsWith("2 Birch"));
    expect((await operator.ok(GET, { id: birch.id })).septicSystem.pumpOuts).toEqual([]);
    expect(holding).toBeTruthy();
  });

  it("the district's list costs the same statements whatever the number of systems, with their pump-outs, notices and orders", async () => {
    const FULL = `query($d: ID!) { districtSepticSystems(districtId: $d, filter: "ALL") { items { id address forbiddenReason pumpStanding { state daysLeft } pumpOuts { pumpedOn haulerName } nuisanceNotices { id daysLeft lapsed } connectionOrders { id steps { done } } } nextCursor } }`;
    const before = (await operator.ok(FULL, { d: lakeview })).districtSepticSystems.items.length;
    const n1 = await countStatements(srv.running.ds, () => operator.ok(FULL, { d: lakeview }));
    for (const n of ["31", "33"]) await register(await property(clerk, lakeview, n, "Count Street"), { reportedPumpedOn: addCalendarDays(today(), -10) });
    expect((await operator.ok(FULL, { d: lakeview })).districtSepticSystems.items.length).toBe(before + 2);
    expect(await countStatements(srv.running.ds, () => operator.ok(FULL, { d: lakeview }))).toBe(n1);
  });

  it("the overdue list pages by keyset", async () => {
    const first = (await operator.ok(LIST, { d: lakeview, f: "ALL", first: 1 })).districtSepticSystems;
    expect(first.items).toHaveLength(1);
    const next = (await operator.ok(LIST, { d: lakeview, f: "ALL", first: 1, after: first.nextCursor })).districtSepticSystems;
    expect(next.items[0].id).not.toBe(first.items[0].id);
    expect(errorCode(await operator.gql(LIST, { d: lakeview, f: "SOMETIMES" }))).toBe("BAD_USER_INPUT");
  });
});

describe("construction permits (SUL 403-404)", () => {
  let docs: { documentId: string; kind: string }[];
  let propertyId: string;
  const application = (o: Record<string, unknown> = {}) => ({
    propertyId,
    systemKind: "SEPTIC_TANK",
    buildings: [{ name: "House", use: "DWELLING" }],
    percolationSummary: "Three test holes, 12 minutes per inch",
    designerName: "Riley Engineer",
    designerCredential: "PROFESSIONAL_ENGINEER",
    designerLicense: "NY PE 091234",
    documents: docs,
    ...o,
  });

  beforeAll(async () => {
    propertyId = await property(clerk, lakeview, "40", "Hill Road");
    docs = [];
    for (const kind of ["PERCOLATION_TESTS", "COMPUTATIONS", "PLOT_PLAN"]) {
      const { uploadDocument } = await owner.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename: `${kind.toLowerCase()}.pdf`, contentBase64: PDF } });
      docs.push({ documentId: uploadDocument.id, kind });
    }
  });

  it("refuses an application without the plot plan, a designer of no listed profession, and two homes on one tank, at once", async () => {
    const r = await owner.gql(APPLY, {
      i: application({ documents: docs.filter((d) => d.kind !== "PLOT_PLAN"), designerCredential: "CONTRACTOR", buildings: [{ name: "House", use: "DWELLING" }, { name: "Store", use: "BUSINESS" }] }),
    });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(r.errors![0].extensions!.fields).toEqual({
      buildings: "No two separate buildings, each a family's home or a separate business, may be connected to the same septic tank (Sewer Use Law 402): House and Store need a system each.",
      designerCredential: "The system is designed by a professional engineer, a licensed surveyor or an architect (Sewer Use Law 403).",
      documents: "Attach the plot plan with the design and cross-section (Sewer Use Law 403, 404).",
    });
    // Someone else's property is not theirs to apply for.
    expect(errorCode(await stranger.gql(APPLY, { i: application({ documents: [] }) }))).toBe("BAD_USER_INPUT");
  });

  it("no fee set by the Board: no payment step; the Operator issues the written permit; inspections at any stage; the final one registers the system", async () => {
    const p = (await owner.ok(APPLY, { i: application() })).applyForSepticPermit;
    expect(p).toMatchObject({ status: "SUBMITTED", feeCents: 0, paymentId: null, designerCredentialLabel: "Professional engineer", documents: [{ kind: "PERCOLATION_TESTS" }, { kind: "COMPUTATIONS" }, { kind: "PLOT_PLAN" }] });
    expect((await emails("septic.permit_applied")).at(-1).subject).toBe("Septic construction permit to review: 40 Hill Road, Lakeview 13600");
    // Construction is not inspected before the written permit (404).
    expect(errorCode(await operator.gql(INSPECT, { i: { permitId: p.id, stage: "EXCAVATION", result: "SATISFACTORY" } }))).toBe("CONFLICT");
    const issued = (await operator.ok(DECIDE, { i: { id: p.id, decision: "ISSUE" } })).decideSepticPermit;
    expect(issued).toMatchObject({ status: "ISSUED", issuedOn: today(), permitNumber: expect.stringMatching(/^LKV-SP-\d{4}-0001$/) });
    const deficient = await operator.gql(INSPECT, { i: { permitId: p.id, stage: "TANK", result: "DEFICIENT" } });
    expect(deficient.errors![0].extensions!.fields).toEqual({ notes: "Say what is deficient." });
    await operator.ok(INSPECT, { i: { permitId: p.id, stage: "TANK", result: "DEFICIENT", notes: "Baffle missing" } });
    const done = (await operator.ok(INSPECT, { i: { permitId: p.id, stage: "FINAL", result: "SATISFACTORY" } })).recordSepticInspection;
    expect(done).toMatchObject({ status: "COMPLETED", completedOn: today(), inspections: [{ stage: "TANK", result: "DEFICIENT" }, { stage: "FINAL", result: "SATISFACTORY" }] });
    const s = (await owner.ok(GET, { id: done.systemId })).septicSystem;
    expect(s).toMatchObject({ installedOn: today(), pumpStanding: { state: "IN_TIME", dueOn: addMonths(today(), 36) } });
  });

  it("once the Board sets a fee, the application opens its payment and the permit waits for it", async () => {
    const { changeRulebook } = await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { id } }`, {
      i: { districtId: lakeview, changes: [{ key: "septic.constructionPermitFee", value: 7500 }], effectiveDate: addCalendarDays(today(), 1), reason: "Board resolution 2026-50: septic permit fee", resolutionNumber: "2026-50", resolutionAdoptedOn: today() },
    });
    await srv.running.ds.query(`UPDATE rulebook_version SET effective_date = $2 WHERE id = $1`, [changeRulebook.id, today()]);
    const p = (await owner.ok(APPLY, { i: application() })).applyForSepticPermit;
    expect(p).toMatchObject({ feeCents: 7500, feeSection: "Sewer Use Law 403", paymentId: expect.any(String) });
    expect(errorCode(await operator.gql(DECIDE, { i: { id: p.id, decision: "ISSUE" } }))).toBe("PAYMENT_REQUIRED");
    const { startCheckout } = await owner.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: p.paymentId });
    await owner.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
    expect((await operator.ok(DECIDE, { i: { id: p.id, decision: "ISSUE" } })).decideSepticPermit.status).toBe("ISSUED");
    // Put the Board's figure back to none for the rest of the file.
    await srv.running.ds.query(`UPDATE rulebook_version SET effective_date = $2 WHERE id = $1`, [changeRulebook.id, addCalendarDays(today(), 3650)]);
  });

  it("a denial needs its reason", async () => {
    const p = (await owner.ok(APPLY, { i: application() })).applyForSepticPermit;
    expect((await operator.gql(DECIDE, { i: { id: p.id, decision: "DENY" } })).errors![0].extensions!.fields).toEqual({ reason: "Say why the permit is denied (the owner reads it)." });
    expect((await operator.ok(DECIDE, { i: { id: p.id, decision: "DENY", reason: "The plot plan puts the field 20 feet from the well." } })).decideSepticPermit.status).toBe("DENIED");
  });
});

describe("a nuisance: 90 days from the written notice (SUL 405)", () => {
  let system: any;
  let onDay: any;
  let past: any;
  beforeAll(async () => {
    system = await register(await property(clerk, lakeview, "8", "Creek Road"), { reportedPumpedOn: addCalendarDays(today(), -100) });
  });

  it("received 90 days ago: today is the last day, no enforcement yet; received 91 days ago: lapsed", async () => {
    const condition = "Effluent surfaces and runs into the roadside ditch to Mill Creek.";
    onDay = (await operator.ok(SERVE, { i: { systemId: system.id, condition, receivedOn: addCalendarDays(today(), -90) } })).serveSepticNuisanceNotice;
    expect(onDay).toMatchObject({ status: "OPEN", repairBy: today(), daysLeft: 0, lapsed: false, section: "Sewer Use Law 405" });
    expect(errorCode(await operator.gql(ESCALATE, { i: { id: onDay.id } }))).toBe("CONFLICT");
    past = (await operator.ok(SERVE, { i: { systemId: system.id, condition, receivedOn: addCalendarDays(today(), -91) } })).serveSepticNuisanceNotice;
    expect(past).toMatchObject({ repairBy: addCalendarDays(today(), -1), daysLeft: -1, lapsed: true });
    expect((await emails("septic.nuisance_notice", "septic-owner@example.org")).at(-1).body).toContain("Within 90 days after receiving this notice");
  });

  it("the daily job reminds the owner before the last day and tells the Operator once it has passed, each once", async () => {
    await sendSepticReminders(srv.running.ds, "http://tapline.test");
    await sendSepticReminders(srv.running.ds, "http://tapline.test");
    expect((await emails("septic.nuisance_reminder", "septic-owner@example.org")).map((m: any) => m.subject)).toEqual(["0 days left to repair your septic system: 8 Creek Road, Lakeview 13600"]);
    expect((await emails("septic.nuisance_lapsed", DEMO.lakeviewOperator)).map((m: any) => m.subject)).toEqual(["Septic notice past its 90 days: 8 Creek Road, Lakeview 13600"]);
  });

  it("the owner's dashboard lists both notices with their days left, leading to /septic", async () => {
    const { myDashboard } = await owner.ok(`{ myDashboard { items { kind id title status daysLeft dueDate nextStep nextStepHref } } }`);
    const notices = myDashboard.items.filter((i: any) => i.kind === "SepticNuisanceNotice");
    expect(notices).toEqual(
      expect.arrayContaining([
        { kind: "SepticNuisanceNotice", id: onDay.id, title: "Notice to repair the septic system at 8 Creek Road", status: "Open", daysLeft: 0, dueDate: today(), nextStep: "Repair, rebuild or relocate the system", nextStepHref: "/septic" },
        expect.objectContaining({ id: past.id, status: "Time passed", daysLeft: -1 }),
      ]),
    );
    expect(myDashboard.items.find((i: any) => i.kind === "SepticPermit" && i.status === "Permit issued")).toBeTruthy();
  });

  it("past its day the Operator opens an enforcement action against the owner, from the notice", async () => {
    const n = (await operator.ok(ESCALATE, { i: { id: past.id } })).escalateSepticNuisanceNotice;
    expect(n).toMatchObject({ status: "ESCALATED", enforcementActionId: expect.any(String) });
    const { enforcementAction } = await owner.ok(`query($id: ID!) { enforcementAction(id: $id) { kind violation subjectType } }`, { id: n.enforcementActionId });
    expect(enforcementAction).toMatchObject({ kind: "NOTICE_OF_VIOLATION", subjectType: "SepticNuisanceNotice" });
    expect(enforcementAction.violation).toContain("within 90 days after the written notice");
    // The other is met on its last day.
    const met = (await operator.ok(CORRECTED, { i: { id: onDay.id, note: "Absorption field rebuilt; inspected." } })).recordSepticNuisanceCorrected;
    expect(met.status).toBe("CORRECTED");
  });
});

describe("when the sewer arrives (SUL 408)", () => {
  let system: any;
  let order: any;
  let lateralId: string;
  beforeAll(async () => {
    const p = await property(clerk, lakeview, "21", "Harbor Road");
    system = await register(p, { reportedPumpedOn: addCalendarDays(today(), -400) });
    const [{ tax_parcel }] = await srv.running.ds.query(`SELECT tax_parcel FROM sewer_property WHERE id = $1`, [p]);
    const [u] = await srv.running.ds.query(`SELECT id FROM app_user WHERE email = 'septic-owner@example.org'`);
    // A submitted lateral permit application for the parcel (laterals are tested in their own file).
    [{ id: lateralId }] = await srv.running.ds.query(`INSERT INTO lateral_permit (district_id, applicant_id, status, tax_parcel) VALUES ($1, $2, 'SUBMITTED', $3) RETURNING id`, [lakeview, u.id, tax_parcel]);
  });

  it("the Operator's order lists the law's steps; the owner hears", async () => {
    [order] = (await operator.ok(ISSUE, { i: { systemIds: [system.id], reason: "The Harbor Road sewer extension now passes the property." } })).issueSepticConnectionOrders;
    expect(order.status).toBe("OPEN");
    expect(order.steps.map((s: any) => [s.step, s.done, s.section])).toEqual([
      ["LATERAL_PERMIT", false, "Sewer Use Law 408, Sewer Use Law 602"],
      ["PUMPED", false, "Sewer Use Law 408"],
      ["FILLED_OR_REMOVED", false, "Sewer Use Law 408"],
      ["PLUGGED", false, "Sewer Use Law 408"],
    ]);
    expect((await emails("septic.connection_ordered", "septic-owner@example.org")).at(-1).subject).toBe("Connect 21 Harbor Road, Lakeview 13600 to the public sewer");
    expect(errorCode(await operator.gql(ISSUE, { i: { systemIds: [system.id], reason: "Again" } }))).toBe("CONFLICT");
  });

  it("each step recorded: the lateral permit, the licensed pump-out from the load, filled, plugged; then the order closes", async () => {
    expect((await operator.gql(STEP, { i: { orderId: order.id, step: "LATERAL_PERMIT", lateralPermitId: NONE } })).errors![0].extensions!.fields).toEqual({
      lateralPermitId: "Choose a lateral permit application of this district that was submitted.",
    });
    await operator.ok(STEP, { i: { orderId: order.id, step: "LATERAL_PERMIT", lateralPermitId: lateralId } });
    // Not filled before it is cleaned of septage.
    const early = await operator.gql(STEP, { i: { orderId: order.id, step: "FILLED_OR_REMOVED", disposition: "FILLED", fillMaterial: "Clean sand" } });
    expect(early.errors![0].extensions!.fields!.disposition).toBe("The tank is filled or removed once it has been cleaned of septage by a licensed hauler (Sewer Use Law 408).");
    await haulFrom("21 Harbor Rd");
    const filledNoMaterial = await operator.gql(STEP, { i: { orderId: order.id, step: "FILLED_OR_REMOVED", disposition: "FILLED" } });
    expect(filledNoMaterial.errors![0].extensions!.fields!.fillMaterial).toContain("clean sand, bank-run gravel or dirt");
    const filled = (await operator.ok(STEP, { i: { orderId: order.id, step: "FILLED_OR_REMOVED", disposition: "FILLED", fillMaterial: "Clean sand" } })).recordSepticConnectionStep;
    expect(filled).toMatchObject({ status: "OPEN", pumpedOn: today(), tankDisposition: "FILLED" });
    const closed = (await operator.ok(STEP, { i: { orderId: order.id, step: "PLUGGED" } })).recordSepticConnectionStep;
    expect(closed).toMatchObject({ status: "CLOSED", closedOn: today(), pluggedOn: today() });
    expect(closed.steps.every((s: any) => s.done)).toBe(true);
    const s = (await owner.ok(GET, { id: system.id })).septicSystem;
    expect(s).toMatchObject({ status: "ABANDONED", statusLabel: "Out of use", pumpStanding: { state: "NOT_REQUIRED" } });
    const audits = await srv.running.ds.query(`SELECT action, count(*)::int AS n FROM audit_entry WHERE entity_id = $1 GROUP BY action ORDER BY action`, [order.id]);
    expect(audits).toEqual([
      { action: "septic.connection_order_closed", n: 1 },
      { action: "septic.connection_ordered", n: 1 },
      { action: "septic.connection_step", n: 3 },
    ]);
  });
});

describe("SUL 408's alternative: the septic tank effluent piped or pumped to the sewer, with an easement", () => {
  const ALT = `id status path pathLabel effluentMethod effluentOn easementDocumentId easementFilename easementRecordedOn closedOn effluentAlternativeRefusal steps { step label section done }`;
  const PATH = `mutation($i: ChooseSepticConnectionPathInput!) { chooseSepticConnectionPath(input: $i) { ${ALT} } }`;
  const ALT_STEP = `mutation($i: RecordSepticConnectionStepInput!) { recordSepticConnectionStep(input: $i) { ${ALT} } }`;
  const { get, post } = portal(() => srv.url);
  let system: any;
  let order: any;
  let lateralId: string;
  let systemPath: string;
  const reported = addCalendarDays(today(), -400);

  /** A system in use on a new parcel with a submitted lateral permit application, and its open order. */
  async function ordered(districtId: string, streetNumber: string, street: string, c = operator, staff = clerk) {
    const p = await property(staff, districtId, streetNumber, street);
    const s = await register(p, districtId === lakeview ? { reportedPumpedOn: reported } : {}, c);
    const [{ tax_parcel }] = await srv.running.ds.query(`SELECT tax_parcel FROM sewer_property WHERE id = $1`, [p]);
    const [u] = await srv.running.ds.query(`SELECT id FROM app_user WHERE email = 'septic-owner@example.org'`);
    const [{ id }] = await srv.running.ds.query(`INSERT INTO lateral_permit (district_id, applicant_id, status, tax_parcel) VALUES ($1, $2, 'SUBMITTED', $3) RETURNING id`, [districtId, u.id, tax_parcel]);
    const [o] = (await c.ok(ISSUE, { i: { systemIds: [s.id], reason: `The ${street} sewer now passes the property.` } })).issueSepticConnectionOrders;
    return { system: s, order: o, lateralId: id as string };
  }
  /** The staff page's step form posted as a browser without JavaScript does: multipart, the easement as a file. */
  async function postStep(fields: Record<string, string>, file?: { name: string; bytes: Buffer; type: string }) {
    const page = await get(operator, systemPath);
    const body = new FormData();
    body.append("csrf", /name="csrf" value="([^"]+)"/.exec(page.html)![1]);
    for (const [k, v] of Object.entries(fields)) body.append(k, v);
    body.append("easementDocument", file ? new Blob([file.bytes], { type: file.type }) : new Blob([], { type: "application/octet-stream" }), file?.name ?? "");
    const res = await fetch(`${srv.url}${systemPath}`, { method: "POST", redirect: "manual", headers: { cookie: [operator.cookieHeader, ...page.cookies].join("; "), origin: srv.url }, body });
    return { status: res.status, html: await res.text() };
  }

  beforeAll(async () => {
    ({ system, order, lateralId } = await ordered(lakeview, "30", "Willow Way"));
    systemPath = `/staff/septic/${system.id}`;
  });

  it("the Operator records, on the staff page without JavaScript, that the order is met by the alternative: its steps cite 408, the owner hears, audited", async () => {
    // Its steps are not the order's until the Operator says so.
    const early = await operator.gql(ALT_STEP, { i: { orderId: order.id, step: "EFFLUENT_TO_SEWER", effluentMethod: "PIPED" } });
    expect(early.errors![0].extensions!.fields).toEqual({
      step: "The effluent and the easement are steps of the order met by the septic tank kept, its effluent piped or pumped to the sewer, with an easement for septage removal (Sewer Use Law 408): choose that way for the order first.",
    });
    const page = await get(operator, systemPath);
    expect(pageText(page.html)).toContain("How the order is met");
    const chosen = await post(operator, systemPath, { intent: "path", orderId: order.id, path: "EFFLUENT_TO_SEWER" });
    expect(chosen.status).toBe(302);
    const o = (await operator.ok(GET, { id: system.id })).septicSystem.connectionOrders[0];
    expect(o.steps.map((st: any) => [st.step, st.done, st.section])).toEqual([
      ["LATERAL_PERMIT", false, "Sewer Use Law 408, Sewer Use Law 602"],
      ["EFFLUENT_TO_SEWER", false, "Sewer Use Law 408"],
      ["EASEMENT", false, "Sewer Use Law 408"],
    ]);
    const [mail] = (await emails("septic.connection_path_chosen", "septic-owner@example.org")).slice(-1);
    expect(mail.subject).toBe("Connection order for 30 Willow Way, Lakeview 13600: how it is met");
    expect(mail.body).toContain("2. Septic tank effluent piped or pumped to the sewer (Sewer Use Law 408)\n3. Easement to the septic tank for septage removal provided by the owner (Sewer Use Law 408)");
    const audits = await srv.running.ds.query(`SELECT actor_id, details FROM audit_entry WHERE entity_id = $1 AND action = 'septic.connection_path_chosen'`, [order.id]);
    expect(audits).toEqual([{ actor_id: expect.any(String), details: { path: "EFFLUENT_TO_SEWER", previousPath: "ABANDON", systemId: system.id } }]);
    const again = await operator.gql(PATH, { i: { orderId: order.id, path: "EFFLUENT_TO_SEWER" } });
    expect(errorCode(again)).toBe("CONFLICT");
    expect(errorCode(await operator.gql(PATH, { i: { orderId: order.id, path: "SOMETIMES" } }))).toBe("BAD_USER_INPUT");
  });

  it("each step refused beside its fields, a refused upload leaving no document; complete only with all three; the tank stays in use and its clock runs", async () => {
    expect((await operator.gql(ALT_STEP, { i: { orderId: order.id, step: "EFFLUENT_TO_SEWER" } })).errors![0].extensions!.fields).toEqual({
      effluentMethod: "Say whether the septic tank effluent is piped or pumped to the sewer (Sewer Use Law 408).",
    });
    expect(errorCode(await operator.gql(ALT_STEP, { i: { orderId: order.id, step: "FILLED_OR_REMOVED", disposition: "FILLED", fillMaterial: "Sand" } }))).toBe("BAD_USER_INPUT");
    const [{ n: docsBefore }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM document`);
    const bare = await operator.gql(ALT_STEP, { i: { orderId: order.id, step: "EASEMENT" } });
    expect(bare.errors![0].extensions!.fields).toEqual({
      easementRecordedOn: "Enter a date like 2026-12-01.",
      easementDocument: "Upload the recorded easement to the septic tank for septage removal (PDF, PNG or JPEG; Sewer Use Law 408).",
    });
    const notPdf = await operator.gql(ALT_STEP, { i: { orderId: order.id, step: "EASEMENT", easementRecordedOn: today(), easementDocument: { filename: "easement.txt", contentBase64: Buffer.from("hello").toString("base64") } } });
    expect(notPdf.errors![0].extensions!.fields).toEqual({ easementDocument: "Upload a PDF, PNG or JPEG file." });
    const late = await operator.gql(ALT_STEP, { i: { orderId: order.id, step: "EASEMENT", easementRecordedOn: addCalendarDays(today(), 1), easementDocument: { filename: "easement.pdf", contentBase64: PDF } } });
    expect(late.errors![0].extensions!.fields).toEqual({ easementRecordedOn: "The date cannot be after today." });
    expect((await srv.running.ds.query(`SELECT count(*)::int AS n FROM document`))[0].n).toBe(docsBefore);

    expect((await operator.ok(ALT_STEP, { i: { orderId: order.id, step: "LATERAL_PERMIT", lateralPermitId: lateralId } })).recordSepticConnectionStep.status).toBe("OPEN");
    const piped = (await operator.ok(ALT_STEP, { i: { orderId: order.id, step: "EFFLUENT_TO_SEWER", effluentMethod: "PUMPED", on: addCalendarDays(today(), 0) } })).recordSepticConnectionStep;
    expect(piped).toMatchObject({ status: "OPEN", effluentMethod: "PUMPED", effluentOn: today() });

    // The easement from the staff page's form, without JavaScript: refused beside its field without a file, then recorded.
    const noFile = await postStep({ intent: "step", orderId: order.id, step: "EASEMENT", easementRecordedOn: addCalendarDays(today(), -3) });
    expect(noFile.status).toBe(400);
    expect(pageText(noFile.html)).toContain("Recorded easement: Upload the recorded easement to the septic tank for septage removal");
    const recorded = await postStep(
      { intent: "step", orderId: order.id, step: "EASEMENT", easementRecordedOn: addCalendarDays(today(), -3) },
      { name: "willow-way-easement.pdf", bytes: Buffer.from(PDF, "base64"), type: "application/pdf" },
    );
    expect(recorded.status).toBe(302);

    const s = (await owner.ok(GET, { id: system.id })).septicSystem;
    const closed = (await operator.ok(`query($id: ID!) { septicSystem(id: $id) { connectionOrders { ${ALT} } } }`, { id: system.id })).septicSystem.connectionOrders[0];
    expect(closed).toMatchObject({ status: "CLOSED", closedOn: today(), path: "EFFLUENT_TO_SEWER", easementFilename: "willow-way-easement.pdf", easementRecordedOn: addCalendarDays(today(), -3) });
    expect(closed.steps.every((st: any) => st.done)).toBe(true);
    // The tank stays in use: on the register, its pump-out due as before (SUL 407).
    expect(s).toMatchObject({ status: "IN_USE", statusLabel: "In use", pumpStanding: { state: "IN_TIME", dueOn: addMonths(reported, 36) } });
    const all = (await operator.ok(LIST, { d: lakeview, f: "ALL", first: 100 })).districtSepticSystems.items.map((x: any) => x.id);
    expect(all).toContain(system.id);
    expect((await emails("septic.connection_order_closed", "septic-owner@example.org")).at(-1).body).toContain(
      "The tank stays in use: it is still pumped by a licensed hauler at least every 3 years (Sewer Use Law 407).",
    );

    // Audited, each change in its one transaction: the last step's entry, the order's closing and the upload share their transaction's time and request.
    const audits = await srv.running.ds.query(`SELECT action, count(*)::int AS n FROM audit_entry WHERE entity_id = $1 GROUP BY action ORDER BY action`, [order.id]);
    expect(audits).toEqual([
      { action: "septic.connection_order_closed", n: 1 },
      { action: "septic.connection_ordered", n: 1 },
      { action: "septic.connection_path_chosen", n: 1 },
      { action: "septic.connection_step", n: 3 },
    ]);
    const last = await srv.running.ds.query(
      `SELECT action, at, request_id FROM audit_entry WHERE (entity_id = $1 AND action IN ('septic.connection_order_closed', 'septic.connection_step') AND details->>'step' IS DISTINCT FROM 'LATERAL_PERMIT' AND details->>'step' IS DISTINCT FROM 'EFFLUENT_TO_SEWER')
          OR (action = 'document.uploaded' AND entity_id = $2) ORDER BY action`,
      [order.id, closed.easementDocumentId],
    );
    expect(last.map((a: any) => a.action)).toEqual(["document.uploaded", "septic.connection_order_closed", "septic.connection_step"]);
    expect(new Set(last.map((a: any) => new Date(a.at).toISOString())).size).toBe(1);
    expect(new Set(last.map((a: any) => a.request_id)).size).toBe(1);

    // A licensed hauler's load from the tank afterwards is its pump-out: the three years start again.
    await haulFrom("30 Willow Way");
    expect((await owner.ok(GET, { id: system.id })).septicSystem.pumpStanding).toMatchObject({ state: "IN_TIME", dueOn: addMonths(today(), 36) });
    // Its order was met: no new one.
    const reorder = await operator.gql(ISSUE, { i: { systemIds: [system.id], reason: "Again" } });
    expect(errorCode(reorder)).toBe("CONFLICT");
    expect(reorder.errors![0].extensions!.fields).toEqual({ systemIds: "A system's order was already met by piping or pumping its tank's effluent to the sewer." });
  });

  it("the owner reads it on /septic in plain words citing 408 and downloads the easement; others cannot", async () => {
    const mine = pageText((await get(owner, "/septic")).html);
    expect(mine).toContain("Your septic tank stays: instead of taking it out of use, the liquid that leaves it (its effluent) is piped or pumped into the public sewer");
    expect(mine).toContain("pumped out (Sewer Use Law 408)");
    expect(mine).toContain(`Effluent pumped to the sewer from ${formatWords(today())} .`);
    expect(mine).toContain(`Your easement to the septic tank for pumping it out, recorded ${formatWords(addCalendarDays(today(), -3))} : willow-way-easement.pdf`);
    const [o] = (await owner.ok(`query($id: ID!) { septicSystem(id: $id) { connectionOrders { easementDocumentId } } }`, { id: system.id })).septicSystem.connectionOrders;
    const download = (c: Client) => fetch(`${srv.url}/documents/${o.easementDocumentId}`, { headers: { cookie: c.cookieHeader } });
    expect((await download(owner)).status).toBe(200);
    expect((await download(clerk)).status).toBe(200);
    for (const c of [stranger, huronOperator]) expect((await download(c)).status).toBe(404);
  });

  it("another district's staff cannot choose the path or record a step; the Clerk cannot either", async () => {
    const other = await ordered(lakeview, "32", "Willow Way");
    for (const [c, code] of [[huronOperator, "NOT_FOUND"], [clerk, "FORBIDDEN"], [owner, "FORBIDDEN"]] as const) {
      expect(errorCode(await c.gql(PATH, { i: { orderId: other.order.id, path: "EFFLUENT_TO_SEWER" } }))).toBe(code);
      expect(errorCode(await c.gql(ALT_STEP, { i: { orderId: other.order.id, step: "EFFLUENT_TO_SEWER", effluentMethod: "PIPED" } }))).toBe(code);
    }
    const [o] = (await operator.ok(GET, { id: other.system.id })).septicSystem.connectionOrders;
    expect(o.steps.map((st: any) => st.step)).toEqual(["LATERAL_PERMIT", "PUMPED", "FILLED_OR_REMOVED", "PLUGGED"]);
    expect(await srv.running.ds.query(`SELECT action FROM audit_entry WHERE entity_id = $1 AND action <> 'septic.connection_ordered'`, [other.order.id])).toEqual([]);
  });

  it("a step of the other path: refused once the connection is plugged; back to the first way keeps the lateral permit, the effluent's record counting for nothing", async () => {
    const a = await ordered(lakeview, "34", "Willow Way");
    await operator.ok(ALT_STEP, { i: { orderId: a.order.id, step: "LATERAL_PERMIT", lateralPermitId: a.lateralId } });
    await operator.ok(PATH, { i: { orderId: a.order.id, path: "EFFLUENT_TO_SEWER" } });
    await operator.ok(ALT_STEP, { i: { orderId: a.order.id, step: "EFFLUENT_TO_SEWER", effluentMethod: "PIPED" } });
    const back = (await operator.ok(PATH, { i: { orderId: a.order.id, path: "ABANDON" } })).chooseSepticConnectionPath;
    expect(back).toMatchObject({ status: "OPEN", path: "ABANDON", effluentMethod: "PIPED" });
    expect(back.steps.map((st: any) => [st.step, st.done])).toEqual([["LATERAL_PERMIT", true], ["PUMPED", false], ["FILLED_OR_REMOVED", false], ["PLUGGED", false]]);
    await operator.ok(ALT_STEP, { i: { orderId: a.order.id, step: "PLUGGED" } });
    const refused = await operator.gql(PATH, { i: { orderId: a.order.id, path: "EFFLUENT_TO_SEWER" } });
    expect(errorCode(refused)).toBe("CONFLICT");
    expect(refused.errors![0].extensions!.fields).toEqual({
      path: "The connection to the old system is already recorded broken and plugged: no septic tank effluent reaches the sewer that way (Sewer Use Law 408).",
    });
    const page = await post(operator, `/staff/septic/${a.system.id}`, { intent: "path", orderId: a.order.id, path: "EFFLUENT_TO_SEWER" });
    expect(page.status).toBe(400);
    expect(pageText(page.html)).toContain("How the order is met: The connection to the old system is already recorded broken and plugged");
  });

  it("Huron: no septic tank may be kept in the district (II-3, II-4): the alternative is refused citing them", async () => {
    const h = await ordered(huron, "11", "Main Street", huronOperator, huronClerk);
    const refusal = "The district's law has no alternative of keeping the septic tank with its effluent piped or pumped to the sewer: the system is taken out of use (Huron II-3, II-4).";
    const r = await huronOperator.gql(PATH, { i: { orderId: h.order.id, path: "EFFLUENT_TO_SEWER" } });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toBe(refusal);
    expect(r.errors![0].extensions!.fields).toEqual({ path: refusal });
    const step = await huronOperator.gql(ALT_STEP, { i: { orderId: h.order.id, step: "EFFLUENT_TO_SEWER", effluentMethod: "PIPED" } });
    expect(step.errors![0].extensions!.fields).toEqual({ step: refusal });
    const [o] = (await huronOperator.ok(`query($id: ID!) { septicSystem(id: $id) { connectionOrders { ${ALT} } } }`, { id: h.system.id })).septicSystem.connectionOrders;
    expect(o).toMatchObject({ path: "ABANDON", effluentAlternativeRefusal: refusal });
    expect(o.steps.map((st: any) => st.step)).toEqual(["LATERAL_PERMIT", "DISCONTINUED"]);
    // The staff page says why, with no form for it.
    const page = pageText((await get(huronOperator, `/staff/septic/${h.system.id}`)).html);
    expect(page).toContain(refusal);
    expect(page).not.toContain("How the order is met");
  });
});

/**
 * A sewer extension written to the database, accepted by the Town Board or only approved (the
 * extensions' own tests walk the journey; test/e2e/fixtures.ts acceptedSewerExtension for the browser).
 */
async function sewerExtension(districtId: string, name: string, o: { accepted?: boolean; acceptedOn?: string; resolution?: string } = {}): Promise<string> {
  const ds = srv.running.ds;
  const [u] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.lakeviewOperator]);
  const [rb] = await ds.query(`SELECT id FROM rulebook_version WHERE district_id = $1 AND effective_date <= current_date ORDER BY effective_date DESC, version DESC LIMIT 1`, [districtId]);
  const [org] = await ds.query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'DEVELOPER', $2) RETURNING id`, [`Builders of ${name}`, u.id]);
  const cap = (kind: string) => ds.query(`INSERT INTO sewer_capacity (district_id, kind, name, design_capacity_gpd, present_use_gpd, updated_by_id) VALUES ($1, $2, $3, 100000, 1000, $4) RETURNING id`, [districtId, kind, `${kind} for ${name}`, u.id]);
  const [[seg], [plant]] = [await cap("SEGMENT"), await cap("PLANT")];
  const accepted = o.accepted ?? true;
  const on = o.acceptedOn ?? today();
  const [e] = await ds.query(
    `INSERT INTO sewer_extension (district_id, organization_id, applicant_id, status, name, location, map_reference, lots, design_flow_gpd, sewer_type, pipe_diameter_inches, pipe_pvc,
       designer_name, designer_license, receiving_segment_id, plant_id, rulebook_version_id, decided_at, decided_by_id, as_built_copies, as_built_approved_at, final_approved_at,
       accepted_on, acceptance_resolution_number, guarantee_ends_on, security_kind, security_description)
     VALUES ($1, $2, $3, $4, $5, $6, 'Map 1', 4, 1600, 'GRAVITY', 8, true, 'Riley Engineer, P.E.', 'NY PE 1', $7, $8, $9, now(), $3, $10, $11, $11, $12, $13, $14, $15, $16) RETURNING id`,
    [districtId, org.id, u.id, accepted ? "ACCEPTED" : "APPROVED", name, `${name} off Harbor Road`, seg.id, plant.id, rb.id, accepted ? 4 : null, accepted ? new Date() : null,
      accepted ? on : null, accepted ? (o.resolution ?? "2026-90") : null, accepted ? addCalendarDays(on, 364) : null, accepted ? "OTHER" : null, accepted ? "Letter of credit" : null],
  );
  return e.id;
}

describe("an order from an accepted sewer extension (SUL 408, 507)", () => {
  const EXTENSIONS = `query($d: ID!) { septicOrderExtensions(districtId: $d) { id name location acceptedOn resolutionNumber } }`;
  const OWNED = `query($id: ID!) { septicSystem(id: $id) { connectionOrders { id reason extensionId extensionName } } }`;
  let older: string;
  let newer: string;
  let approvedOnly: string;
  let huronExtension: string;
  let system: any;
  beforeAll(async () => {
    older = await sewerExtension(lakeview, "Meadowbrook Estates, section 1", { acceptedOn: addCalendarDays(today(), -30), resolution: "2026-71" });
    newer = await sewerExtension(lakeview, "Aster Court sewer", { acceptedOn: addCalendarDays(today(), -2), resolution: "2026-88" });
    approvedOnly = await sewerExtension(lakeview, "Harbor Heights, under construction", { accepted: false });
    huronExtension = await sewerExtension(huron, "A Huron sewer");
    system = await register(await property(clerk, lakeview, "4", "Aster Court"));
  });

  it("the district's accepted extensions, newest first, for its staff only", async () => {
    const list = (await clerk.ok(EXTENSIONS, { d: lakeview })).septicOrderExtensions;
    expect(list.map((x: any) => [x.id, x.resolutionNumber])).toEqual([[newer, "2026-88"], [older, "2026-71"]]);
    expect(list[0]).toMatchObject({ name: "Aster Court sewer", location: "Aster Court sewer off Harbor Road", acceptedOn: addCalendarDays(today(), -2) });
    expect(errorCode(await huronOperator.gql(EXTENSIONS, { d: lakeview }))).toBe("FORBIDDEN");
    expect(errorCode(await owner.gql(EXTENSIONS, { d: lakeview }))).toBe("FORBIDDEN");
  });

  it("refuses an extension the Board has not accepted, another district's, and any in Huron, beside the field", async () => {
    const unaccepted = await operator.gql(ISSUE, { i: { systemIds: [system.id], extensionId: approvedOnly } });
    expect(errorCode(unaccepted)).toBe("BAD_USER_INPUT");
    expect(unaccepted.errors![0].extensions!.fields).toEqual({
      extensionId: "The Town Board has not accepted the sewer extension Harbor Heights, under construction: it becomes a public sewer of the Town only then (Sewer Use Law 507).",
    });
    for (const id of [huronExtension, NONE, "not-an-id"]) {
      const r = await operator.gql(ISSUE, { i: { systemIds: [system.id], extensionId: id } });
      expect(r.errors![0].extensions!.fields).toEqual({ extensionId: "Choose a sewer extension of this district that the Town Board has accepted." });
    }
    const huronSystem = await register(await property(huronClerk, huron, "9", "Main Street"), {}, huronOperator);
    const r = await huronOperator.gql(ISSUE, { i: { systemIds: [huronSystem.id], extensionId: huronExtension } });
    expect(r.errors![0].extensions!.fields).toEqual({ extensionId: "Town of Huron Sewer District No. 1's law has no sewer extensions built by developers (Huron Article III): say which public sewer now reaches the properties." });
    // No order was made by any of these.
    expect((await operator.ok(GET, { id: system.id })).septicSystem.connectionOrders).toEqual([]);
  });

  it("naming the accepted extension: the reason says which, with the Board's resolution and date, citing 408; the owner reads its name, others get NOT_FOUND", async () => {
    const [o] = (await operator.ok(ISSUE, { i: { systemIds: [system.id], extensionId: older, reason: "Stub at lot 3." } })).issueSepticConnectionOrders;
    const reason = `The sewer extension Meadowbrook Estates, section 1, accepted by the Town Board by resolution 2026-71 of ${formatWords(addCalendarDays(today(), -30))} (Sewer Use Law 507), makes a public sewer available to the property (Sewer Use Law 408). Stub at lot 3.`;
    expect(o).toMatchObject({ status: "OPEN", reason });
    const [mail] = (await emails("septic.connection_ordered", "septic-owner@example.org")).slice(-1);
    expect(mail.body).toContain(reason);
    const [audit] = await srv.running.ds.query(`SELECT details FROM audit_entry WHERE entity_id = $1 AND action = 'septic.connection_ordered'`, [o.id]);
    expect(audit.details.extensionId).toBe(older);
    const seen = (await owner.ok(OWNED, { id: system.id })).septicSystem.connectionOrders;
    expect(seen).toEqual([{ id: o.id, reason, extensionId: older, extensionName: "Meadowbrook Estates, section 1" }]);
    for (const c of [stranger, huronOperator]) expect(errorCode(await c.gql(OWNED, { id: system.id }))).toBe("NOT_FOUND");
    const mine = pageText((await portal(() => srv.url).get(owner, "/septic")).html);
    expect(mine).toContain("The public sewer that reaches your property: the sewer extension Meadowbrook Estates, section 1.");
  }, 120_000); // the file's first portal page: Vite compiles it

  it("opened for an extension, the staff page shows it preselected with its location, lists every system, and issues the order from the form", async () => {
    const { get, post } = portal(() => srv.url);
    const other = await register(await property(clerk, lakeview, "6", "Aster Court"));
    const page = await get(operator, `/staff/septic?extension=${newer}`);
    expect(page.status).toBe(200);
    const text = pageText(page.html);
    expect(text).toContain("Sewer extension Aster Court sewer Aster Court sewer off Harbor Road. Accepted by the Town Board by resolution 2026-88");
    expect(text).toContain("6 Aster Court, Lakeview 13600");
    expect(page.html).toMatch(new RegExp(`<option value="${newer}" selected="">`));
    const issued = await post(operator, `/staff/septic?extension=${newer}`, { districtId: lakeview, intent: "order", systemIds: other.id, extensionId: newer, reason: "" });
    expect(issued.status).toBe(302);
    const staff = pageText((await get(operator, `/staff/septic/${other.id}`)).html);
    expect(staff).toContain("Public sewer: sewer extension Aster Court sewer");
    expect(staff).toContain("resolution 2026-88");
  }, 120_000);
});

describe("Huron: no septic system may be kept in the district (II-3, II-4)", () => {
  let system: any;
  let propertyId: string;
  beforeAll(async () => {
    propertyId = await property(huronClerk, huron, "5", "Main Street");
    system = await register(propertyId, {}, huronOperator);
  });

  it("a system found there is on the register only to be ordered out of use: no pump-out clock, no 90-day notice, no permit", async () => {
    expect(system.forbiddenReason).toBe("No septic tank, cesspool or other private sewage disposal may be built or kept within the district (Huron II-3).");
    expect(system.pumpStanding).toMatchObject({ state: "NOT_REQUIRED", section: "Huron II-3" });
    const notice = await huronOperator.gql(SERVE, { i: { systemId: system.id, condition: "Odour" } });
    expect(errorCode(notice)).toBe("CONFLICT");
    expect(notice.errors![0].message).toBe("The district's law has no notice to repair a septic system: none may be kept at all (Huron II-3). Order the property connected to the public sewer instead.");
    const apply = await owner.gql(APPLY, {
      i: { propertyId, systemKind: "SEPTIC_TANK", buildings: HOUSE, percolationSummary: "x", designerName: "x", designerCredential: "ARCHITECT", designerLicense: "x", documents: [] },
    });
    expect(errorCode(apply)).toBe("CONFLICT");
    expect(apply.errors![0].message).toBe("No septic tank, cesspool or other private sewage disposal may be built or kept within the district (Huron II-3).");
  });

  it("the connection order asks for the building sewer permit and the system out of use, nothing borrowed from the other law", async () => {
    const [o] = (await huronOperator.ok(ISSUE, { i: { systemIds: [system.id], reason: "Main Street sewer" } })).issueSepticConnectionOrders;
    expect(o.steps.map((s: any) => [s.step, s.section])).toEqual([
      ["LATERAL_PERMIT", "Huron II-4, Huron III-2"],
      ["DISCONTINUED", "Huron II-3"],
    ]);
    expect(errorCode(await huronOperator.gql(STEP, { i: { orderId: o.id, step: "PLUGGED" } }))).toBe("BAD_USER_INPUT");
    const [{ tax_parcel }] = await srv.running.ds.query(`SELECT tax_parcel FROM sewer_property WHERE id = $1`, [propertyId]);
    const [u] = await srv.running.ds.query(`SELECT id FROM app_user WHERE email = 'septic-owner@example.org'`);
    const [{ id: lp }] = await srv.running.ds.query(`INSERT INTO lateral_permit (district_id, applicant_id, status, tax_parcel) VALUES ($1, $2, 'SUBMITTED', $3) RETURNING id`, [huron, u.id, tax_parcel]);
    await huronOperator.ok(STEP, { i: { orderId: o.id, step: "LATERAL_PERMIT", lateralPermitId: lp } });
    const closed = (await huronOperator.ok(STEP, { i: { orderId: o.id, step: "DISCONTINUED" } })).recordSepticConnectionStep;
    expect(closed.status).toBe("CLOSED");
  });
});

describe("who may see and do what, operation by operation", () => {
  let system: any;
  let notice: any;
  let order: any;
  let permitId: string;
  beforeAll(async () => {
    const p = await property(clerk, lakeview, "99", "Access Way");
    system = await register(p);
    notice = (await operator.ok(SERVE, { i: { systemId: system.id, condition: "Effluent in the ditch" } })).serveSepticNuisanceNotice;
    [order] = (await operator.ok(ISSUE, { i: { systemIds: [system.id], reason: "Sewer" } })).issueSepticConnectionOrders;
    [{ id: permitId }] = await srv.running.ds.query(`SELECT id FROM septic_permit ORDER BY submitted_at LIMIT 1`);
  });

  type Op = { name: string; run: (c: Client) => Promise<GqlResponse> };
  const ops = (): Op[] => [
    { name: "mySepticSystems", run: (c) => c.gql(MINE) },
    { name: "septicSystem", run: (c) => c.gql(GET, { id: system.id }) },
    { name: "districtSepticSystems", run: (c) => c.gql(LIST, { d: lakeview }) },
    { name: "septicOrderExtensions", run: (c) => c.gql(`query($d: ID!) { septicOrderExtensions(districtId: $d) { id } }`, { d: lakeview }) },
    { name: "districtSepticNotices", run: (c) => c.gql(NOTICES, { d: lakeview }) },
    { name: "districtSepticConnectionOrders", run: (c) => c.gql(ORDERS, { d: lakeview }) },
    { name: "districtSepticPermits", run: (c) => c.gql(PERMITS, { d: lakeview }) },
    { name: "septicPermit", run: (c) => c.gql(GET_PERMIT, { id: permitId }) },
    { name: "registerSepticSystem", run: (c) => c.gql(REGISTER, { i: { propertyId: system.propertyId ?? NONE, kind: "SEPTIC_TANK", buildings: [] } }) },
    { name: "linkSepticPumpOut", run: (c) => c.gql(LINK, { s: system.id, l: NONE }) },
    { name: "serveSepticNuisanceNotice", run: (c) => c.gql(SERVE, { i: { systemId: system.id, condition: "" } }) },
    { name: "escalateSepticNuisanceNotice", run: (c) => c.gql(ESCALATE, { i: { id: notice.id } }) },
    { name: "issueSepticConnectionOrders", run: (c) => c.gql(ISSUE, { i: { systemIds: [system.id], reason: "Sewer" } }) },
    { name: "recordSepticConnectionStep", run: (c) => c.gql(STEP, { i: { orderId: order.id, step: "PLUGGED", on: "2000-01-01" } }) },
    { name: "chooseSepticConnectionPath", run: (c) => c.gql(`mutation($i: ChooseSepticConnectionPathInput!) { chooseSepticConnectionPath(input: $i) { id } }`, { i: { orderId: order.id, path: "SOMETIMES" } }) },
    { name: "decideSepticPermit", run: (c) => c.gql(DECIDE, { i: { id: permitId, decision: "DENY", reason: "x" } }) },
  ];
  const staffOnly = { septicOrderExtensions: "FORBIDDEN", districtSepticSystems: "FORBIDDEN", districtSepticNotices: "FORBIDDEN", districtSepticConnectionOrders: "FORBIDDEN", districtSepticPermits: "FORBIDDEN" };
  const operatorOps = (code: string) => ({
    registerSepticSystem: code === "NOT_FOUND" ? "BAD_USER_INPUT" : code,
    linkSepticPumpOut: code,
    serveSepticNuisanceNotice: code,
    escalateSepticNuisanceNotice: code,
    issueSepticConnectionOrders: code === "NOT_FOUND" ? "BAD_USER_INPUT" : code,
    recordSepticConnectionStep: code,
    chooseSepticConnectionPath: code,
    decideSepticPermit: code,
  });
  const expected: Record<string, Record<string, string>> = {
    signedOut: Object.fromEntries(ops().map((o) => [o.name, "UNAUTHENTICATED"])),
    stranger: { mySepticSystems: "OK", septicSystem: "NOT_FOUND", ...staffOnly, septicPermit: "NOT_FOUND", ...operatorOps("FORBIDDEN") },
    owner: { mySepticSystems: "OK", septicSystem: "OK", ...staffOnly, septicPermit: "OK", ...operatorOps("FORBIDDEN") },
    huronOperator: { mySepticSystems: "OK", septicSystem: "NOT_FOUND", ...staffOnly, septicPermit: "NOT_FOUND", ...operatorOps("NOT_FOUND") },
    lakeviewClerk: {
      mySepticSystems: "OK", septicSystem: "OK", septicOrderExtensions: "OK", districtSepticSystems: "OK", districtSepticNotices: "OK", districtSepticConnectionOrders: "OK", districtSepticPermits: "OK", septicPermit: "OK",
      ...operatorOps("FORBIDDEN"),
    },
    lakeviewOperator: {
      mySepticSystems: "OK", septicSystem: "OK", septicOrderExtensions: "OK", districtSepticSystems: "OK", districtSepticNotices: "OK", districtSepticConnectionOrders: "OK", districtSepticPermits: "OK", septicPermit: "OK",
      registerSepticSystem: "BAD_USER_INPUT", linkSepticPumpOut: "BAD_USER_INPUT", serveSepticNuisanceNotice: "BAD_USER_INPUT", escalateSepticNuisanceNotice: "CONFLICT",
      issueSepticConnectionOrders: "CONFLICT", recordSepticConnectionStep: "BAD_USER_INPUT", chooseSepticConnectionPath: "BAD_USER_INPUT", decideSepticPermit: "CONFLICT",
    },
  };

  it.each(Object.keys(expected))("%s", async (who) => {
    const c = { signedOut: new Client(srv.url), stranger, owner, huronOperator, lakeviewClerk: clerk, lakeviewOperator: operator }[who]!;
    const got: Record<string, string> = {};
    for (const o of ops()) {
      const r = await o.run(c);
      got[o.name] = r.errors?.length ? (errorCode(r) ?? "ERROR") : "OK";
    }
    expect(got).toEqual(expected[who]);
  });
});

describe("the pages, without JavaScript", () => {
  const { get, post } = portal(() => srv.url);
  const text = pageText;

  it("the Operator registers a system by its tax parcel, refused beside the field for two homes, and serves a notice; the owner reads the days left", async () => {
    const propertyId = await property(clerk, lakeview, "77", "Page Street");
    const [{ tax_parcel }] = await srv.running.ds.query(`SELECT tax_parcel FROM sewer_property WHERE id = $1`, [propertyId]);
    const refused = await post(operator, `/staff/septic?districtId=${lakeview}`, {
      districtId: lakeview, intent: "register", taxParcel: tax_parcel, kind: "SEPTIC_TANK", "building-0-name": "House", "building-0-use": "DWELLING", "building-1-name": "Cottage", "building-1-use": "DWELLING",
    });
    expect(refused.status).toBe(400);
    expect(text(refused.html)).toContain("Building 1: No two separate buildings, each a family's home or a separate business, may be connected to the same septic tank (Sewer Use Law 402)");
    const ok = await post(operator, `/staff/septic?districtId=${lakeview}`, {
      districtId: lakeview, intent: "register", taxParcel: tax_parcel, kind: "SEPTIC_TANK", "building-0-name": "House", "building-0-use": "DWELLING", "building-1-name": "", reportedPumpedOn: addMonths(today(), -30),
    });
    expect(ok.status).toBe(302);
    const systemPath = ok.location!.split("?")[0];
    const page = await get(operator, systemPath);
    expect(text(page.html)).toContain(`the next pump-out is due by ${formatWords(addMonths(today(), 6))}`);
    const served = await post(operator, systemPath, { intent: "serve", condition: "Effluent reaches the storm sewer on Page Street.", receivedOn: addCalendarDays(today(), -80) });
    expect(served.status).toBe(302);
    const mine = text((await get(owner, "/septic")).html);
    expect(mine).toContain("Septic tank at 77 Page Street");
    expect(mine).toContain("10 days left.");
    expect(text((await get(stranger, systemPath)).html)).not.toContain("77 Page Street");
  }, 120_000);

  it("the staff list shows the overdue, and the Operator ticks properties to order them connected", async () => {
    const list = await get(operator, `/staff/septic?districtId=${lakeview}&filter=OVERDUE`);
    expect(list.status).toBe(200);
    expect(text(list.html)).toContain("2 Birch Lane, Lakeview 13600 Tax parcel SEP-1 Sally Septic Septic tank, in use No pump-out on record");
    const empty = await post(operator, `/staff/septic?districtId=${lakeview}`, { districtId: lakeview, intent: "order", reason: "" });
    expect(empty.status).toBe(400);
    expect(text(empty.html)).toContain("Which public sewer now reaches them: Say which public sewer now reaches the property");
  });

  it("the owner's permit form reports each problem beside its field", async () => {
    const r = await post(owner, "/septic/apply", { propertyId: "", systemKind: "", "building-0-name": "", percolationSummary: "", designerName: "", designerLicense: "" });
    expect(r.status).toBe(400);
    expect(text(r.html)).toContain("Property: Choose a property you own of record");
  });
});

/** "December 1, 2026", as the emails write dates. */
function formatWords(d: string): string {
  return new Date(`${d}T12:00:00Z`).toLocaleDateString("en-US", { month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { sendInflowOrderReminders } from "../../api/inflow/reminders.service.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";

// Issue 17, inflow (SUL 701-705; Huron III-8): the Tax Assessor's sales open inspections (703),
// requests ahead of closing, findings with the 100 feet of 702, the disconnection order, the
// re-inspection and the certificate anyone can verify, the 704 enforcement action, access.

const TZ = "America/New_York";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const NONE = "00000000-0000-0000-0000-000000000000";
const today = () => dateIn(TZ);

const INSPECTION = `id number origin status statusLabel taxParcel address soldOn closingOn orderDeadline dueOn daysLeft certificateNumber certificateIssuedOn certificateBasis certificateDocumentId ownerName buyerName canInspect
  parties { name role closingOn }
  visits { visitNumber visitedOn stormSewerFeet naturalDrainageAdequate disconnectionRequired outcome orderDeadline photos { documentId filename }
    sources { id kind kindLabel state enforceable enforcementActionId enforcementNumber } }`;
const GET = `query($id: ID!) { inflowInspection(id: $id) { ${INSPECTION} } }`;
const LIST = `query($d: ID!, $s: String) { districtInflowInspections(districtId: $d, status: $s) { items { id number status taxParcel dueOn daysLeft } nextCursor } }`;
const IMPORT = `mutation($i: ImportInflowSalesInput!) { importInflowSales(input: $i) { id rowsRead rowsImported inspectionsOpened errors { line reason } } }`;
const SALE = `mutation($i: RecordInflowSaleInput!) { recordInflowSale(input: $i) { saleId inspectionId } }`;
const REQUEST = `mutation($i: RequestInflowInspectionInput!) { requestInflowInspection(input: $i) { ${INSPECTION} } }`;
const OPEN = `mutation($i: OpenInflowInspectionInput!) { openInflowInspection(input: $i) { id number status } }`;
const VISIT = `mutation($i: RecordInflowVisitInput!) { recordInflowVisit(input: $i) { ${INSPECTION} } }`;
const ENFORCE = `mutation($i: OpenInflowEnforcementInput!) { openInflowEnforcement(input: $i) { actionId number } }`;
const VERIFY = `query($n: String!) { inflowCertificate(number: $n) { number districtName address taxParcel issuedOn inspectedOn result section laterFindingOn } }`;
const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;

let srv: TestServer;
let lakeview: string;
let huron: string;
let operator: Client;
let clerk: Client;
let board: Client;
let admin: Client;
let huronOperator: Client;
let owner: Client;
let attorney: Client;
let stranger: Client;
const anon = () => new Client(srv.url);

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  const d = await new Client(srv.url).ok(`{ l: district(slug: "lakeview") { id } h: district(slug: "huron") { id } }`);
  [lakeview, huron] = [d.l.id, d.h.id];
  [operator, clerk, board, admin, huronOperator] = await Promise.all(
    [DEMO.lakeviewOperator, DEMO.lakeviewClerk, DEMO.lakeviewBoard, DEMO.lakeviewAdmin, DEMO.huronOperator].map((e) => signedInAs(srv.url, e)),
  );
  owner = new Client(srv.url);
  await owner.signUp("owner@maple.example.com", "Olive Owner");
  attorney = new Client(srv.url);
  await attorney.signUp("counsel@closings.example.com", "Ada Attorney");
  stranger = new Client(srv.url);
  await stranger.signUp("stranger@elsewhere.example.com", "Sam Stranger");
  const hclerk = await signedInAs(srv.url, DEMO.huronClerk);
  const add = (c: Client, districtId: string, taxParcel: string, street: string, ownerEmail?: string) =>
    c.ok(ADD, { i: { districtId, taxParcel, streetNumber: "12", street, zip: "13600", ownerName: "Olive Owner", ...(ownerEmail ? { ownerEmail } : {}) } });
  await add(clerk, lakeview, "101.1-1-1", "Maple Street", "owner@maple.example.com");
  await add(clerk, lakeview, "101.1-1-2", "Maple Street");
  await add(clerk, lakeview, "101.1-1-3", "Birch Lane");
  await add(clerk, lakeview, "101.1-1-4", "Cedar Court");
  await add(clerk, lakeview, "101.1-1-5", "Dogwood Drive");
  await add(hclerk, huron, "7.2-3-4", "Bay Shore Road");
});
afterAll(() => srv?.close());

let maple: string; // the inspection the assessor's file opened on 101.1-1-1
let certificate: string;
let sumpSourceId: string;
let importId: string;

describe("the Tax Assessor's sales (SUL 703)", () => {
  it("a CSV of sales: good rows open inspections, each bad row is reported with its line (unknown parcel, bad date, future, no buyer, duplicate)", async () => {
    const csv = [
      "Parcel,Sale Date,Buyer",
      "101.1-1-1,11/20/2026,Bea Buyer",
      "999.9-9-9,11/21/2026,Nobody Known",
      "101.1-1-2,2026-02-30,Carl Buyer",
      `101.1-1-2,${addCalendarDays(today(), 1)},Carl Buyer`,
      "101.1-1-3,2026-11-22,",
      "101.1-1-2,2026-11-23,Dee Buyer",
      "101.1-1-2,2026-11-23,Dee Buyer",
    ].join("\n");
    const r = (await operator.ok(IMPORT, { i: { districtId: lakeview, fileName: "assessor-november.csv", csv } })).importInflowSales;
    expect(r).toMatchObject({ rowsRead: 7, rowsImported: 2, inspectionsOpened: 2 });
    importId = r.id;
    expect(r.errors.map((e: any) => e.line)).toEqual([3, 4, 5, 6, 8]);
    expect(r.errors[0].reason).toMatch(/Unknown parcel "999.9-9-9"/);
    expect(r.errors[1].reason).toMatch(/not a date/);
    expect(r.errors[2].reason).toMatch(/in the future/);
    expect(r.errors[3].reason).toMatch(/buyer is missing/);
    expect(r.errors[4].reason).toMatch(/already on line 7/);
    // The same file again opens nothing twice.
    const again = (await operator.ok(IMPORT, { i: { districtId: lakeview, fileName: "again.csv", csv: csv.split("\n").slice(0, 2).join("\n") } })).importInflowSales;
    expect(again).toMatchObject({ rowsImported: 0, inspectionsOpened: 0 });
    expect(again.errors[0].reason).toMatch(/already recorded/);
    const list = (await operator.ok(LIST, { d: lakeview })).districtInflowInspections.items;
    expect(list.map((i: any) => i.taxParcel).sort()).toEqual(["101.1-1-1", "101.1-1-2"]);
    maple = list.find((i: any) => i.taxParcel === "101.1-1-1").id;
    const got = (await operator.ok(GET, { id: maple })).inflowInspection;
    expect(got).toMatchObject({ origin: "SALE", status: "OPEN", soldOn: "2026-11-20", buyerName: "Bea Buyer", ownerName: "Olive Owner" });
    // The owner of record, in the portal, is told.
    const mail = (await owner.ok(`{ myEmails { subject bodyText } }`)).myEmails;
    expect(mail.map((m: any) => m.subject)).toContain("Inflow inspection of 12 Maple Street");
  });

  it("a file that cannot be read, and a header without the columns, are refused on the file", async () => {
    const r = await operator.gql(IMPORT, { i: { districtId: lakeview, fileName: "x.csv", csv: "Owner,Town\nX,Y" } });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(r.errors![0].extensions!.fields).toMatchObject({ file: expect.stringMatching(/tax parcel, the sale date and the buyer/) });
  });

  it("one sale by hand: unknown parcel is refused on the parcel field", async () => {
    const r = await operator.gql(SALE, { i: { districtId: lakeview, taxParcel: "nope", soldOn: "2026-02-30", buyerName: " " } });
    expect(r.errors![0].extensions!.fields).toEqual({ taxParcel: expect.stringMatching(/Unknown parcel/), soldOn: expect.stringMatching(/like/), buyerName: "Name the buyer." });
    const twice = await operator.gql(SALE, { i: { districtId: lakeview, taxParcel: "101.1-1-1", soldOn: "11/20/2026", buyerName: "Bea Buyer" } });
    expect(twice.errors![0].extensions!.fields).toEqual({ soldOn: expect.stringMatching(/already recorded/) });
    const ok = (await operator.ok(SALE, { i: { districtId: lakeview, taxParcel: "101.1-1-4", soldOn: "2026-11-05", buyerName: "Eve Buyer" } })).recordInflowSale;
    expect(ok.inspectionId).toBeTruthy();
  });

  it("Huron's law has no inspection at sale: the sale, the import and a request are refused naming III-8", async () => {
    const r = await huronOperator.gql(SALE, { i: { districtId: huron, taxParcel: "7.2-3-4", soldOn: "2026-11-01", buyerName: "X" } });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toMatch(/no inspection when a property is sold.*Huron III-8/);
    const imp = await huronOperator.gql(IMPORT, { i: { districtId: huron, fileName: "x.csv", csv: "parcel,sale date,buyer\n7.2-3-4,2026-11-01,X" } });
    expect(errorCode(imp)).toBe("CONFLICT");
    const req = await attorney.gql(REQUEST, { i: { districtId: huron, taxParcel: "7.2-3-4", role: "ATTORNEY" } });
    expect(errorCode(req)).toBe("CONFLICT");
  });
});

describe("requests ahead of closing", () => {
  it("an attorney asks: no fee, no payment; it joins the inspection under way and the attorney follows it", async () => {
    const closing = addCalendarDays(today(), 20);
    const r = (await attorney.ok(REQUEST, { i: { districtId: lakeview, taxParcel: "101.1-1-1", role: "ATTORNEY", closingOn: closing } })).requestInflowInspection;
    expect(r.id).toBe(maple);
    expect(r).toMatchObject({ closingOn: closing, dueOn: closing, daysLeft: 20, parties: [], ownerName: null, buyerName: null, canInspect: false });
    const staffView = (await operator.ok(GET, { id: maple })).inflowInspection;
    expect(staffView.parties).toEqual([{ name: "Ada Attorney", role: "ATTORNEY", closingOn: closing }]);
    const mine = await attorney.ok(`{ myInflowInspections { id } }`);
    expect(mine.myInflowInspections.map((i: any) => i.id)).toContain(maple);
  });
  it("two requests at once on a property with none under way open one inspection, which both follow", async () => {
    const [a, b] = await Promise.all([
      attorney.ok(REQUEST, { i: { districtId: lakeview, taxParcel: "101.1-1-5", role: "ATTORNEY" } }),
      owner.ok(REQUEST, { i: { districtId: lakeview, taxParcel: "101.1-1-5", role: "SELLER" } }),
    ]);
    expect(a.requestInflowInspection.id).toBe(b.requestInflowInspection.id);
    expect((await operator.ok(GET, { id: a.requestInflowInspection.id })).inflowInspection.parties).toHaveLength(2);
  });
  it("an unknown parcel and a role not given are refused at their fields", async () => {
    const r = await attorney.gql(REQUEST, { i: { districtId: lakeview, taxParcel: "zzz", role: "NEIGHBOUR" } });
    expect(r.errors![0].extensions!.fields).toMatchObject({ taxParcel: expect.stringMatching(/No property/), role: expect.any(String) });
  });
  it("the rules say the request is free and name the figures", async () => {
    const r = (await anon().ok(`{ inflowRules { districtName inspectsAtSale stormSewerWithinFeet surchargeFactor surchargeMaxFactor requestFree saleSection } }`)).inflowRules;
    const l = r.find((x: any) => x.districtName.includes("Lakeview"));
    expect(l).toMatchObject({ inspectsAtSale: true, stormSewerWithinFeet: 100, surchargeFactor: null, surchargeMaxFactor: 5, requestFree: true, saleSection: "Sewer Use Law 703" });
    expect(r.find((x: any) => x.districtName.includes("Huron"))).toMatchObject({ inspectsAtSale: false, stormSewerWithinFeet: null, surchargeMaxFactor: null });
  });
});

describe("findings, the order, the re-inspection, the certificate and the public check", () => {
  it("a sump pump connected with a storm sewer at 100 feet: a disconnection order with the Operator's date; without the date it is refused at the field", async () => {
    const base = { inspectionId: maple, visitedOn: today(), stormSewerFeet: 100, naturalDrainageAdequate: false, sources: [{ kind: "SUMP_PUMP", location: "basement", state: "CONNECTED" }] };
    const missing = await operator.gql(VISIT, { i: base });
    expect(missing.errors![0].extensions!.fields).toMatchObject({ orderDeadline: expect.stringMatching(/you set it/) });
    const by = addCalendarDays(today(), 30);
    const r = (await operator.ok(VISIT, { i: { ...base, orderDeadline: by, photos: [{ filename: "sump.png", contentBase64: PNG }] } })).recordInflowVisit;
    expect(r).toMatchObject({ status: "ORDERED", orderDeadline: by, dueOn: by, daysLeft: 30, certificateNumber: null });
    expect(r.visits[0]).toMatchObject({ outcome: "ORDERED", disconnectionRequired: true, stormSewerFeet: 100 });
    expect(r.visits[0].sources[0]).toMatchObject({ kind: "SUMP_PUMP", state: "CONNECTED", enforceable: false });
    // The photo is a document the owner and the attorney can read, and a stranger cannot.
    const photo = r.visits[0].photos[0].documentId;
    expect((await fetch(`${srv.url}/documents/${photo}`, { headers: { cookie: owner.cookieHeader } })).status).toBe(200);
    expect((await fetch(`${srv.url}/documents/${photo}`, { headers: { cookie: attorney.cookieHeader } })).status).toBe(200);
    expect((await fetch(`${srv.url}/documents/${photo}`, { headers: { cookie: stranger.cookieHeader } })).status).toBe(404);
  });

  it("the daily job reminds the owner 14 days before the order's date (not 15) and tells the Operators the day after it, each once", async () => {
    const sent = async (kind: string, to: string) =>
      (await srv.running.ds.query(`SELECT subject FROM outbox_email WHERE kind = $1 AND to_address = $2 ORDER BY created_at`, [kind, to])).map((m: { subject: string }) => m.subject);
    const on = async (days: number) => {
      travelTo(new Date(Date.now() + days * 86_400_000));
      await sendInflowOrderReminders(srv.running.ds, "http://tapline.test");
      await sendInflowOrderReminders(srv.running.ds, "http://tapline.test");
    };
    try {
      await on(15); // the date is 30 days after the visit: 15 days left
      expect(await sent("inflow.order_reminder", "owner@maple.example.com")).toEqual([]);
      await on(16); // 14 days left
      expect(await sent("inflow.order_reminder", "owner@maple.example.com")).toEqual(["14 days left to disconnect inflow: 12 Maple Street 13600"]);
      await on(30); // the date itself: reminded already, not yet past
      expect(await sent("inflow.order_lapsed", DEMO.lakeviewOperator)).toEqual([]);
      await on(31);
      expect(await sent("inflow.order_lapsed", DEMO.lakeviewOperator)).toEqual(["Disconnection order past its date: 12 Maple Street 13600"]);
      expect(await sent("inflow.order_reminder", "owner@maple.example.com")).toHaveLength(1);
    } finally {
      resetClock();
    }
  });

  it("at 101 feet with no natural drainage a connected source does not stop the pass (702 does not require it)", async () => {
    const [other] = (await operator.ok(LIST, { d: lakeview, s: "OPEN" })).districtInflowInspections.items.filter((i: any) => i.taxParcel === "101.1-1-2");
    const r = (await operator.ok(VISIT, { i: { inspectionId: other.id, visitedOn: today(), stormSewerFeet: 101, naturalDrainageAdequate: false, sources: [{ kind: "ROOF_LEADER", state: "CONNECTED" }] } })).recordInflowVisit;
    expect(r.status).toBe("PASSED");
    expect(r.certificateBasis).toMatch(/not required/);
    expect(r.certificateNumber).toMatch(/^LKV-IC-\d{4}-\d{5}$/);
  });

  it("the re-inspection finds it disconnected: passes, the certificate is issued (PDF), anyone verifies it by number", async () => {
    const r = (await operator.ok(VISIT, { i: { inspectionId: maple, visitedOn: today(), stormSewerFeet: 100, naturalDrainageAdequate: false, sources: [{ kind: "SUMP_PUMP", location: "basement", state: "DISCONNECTED" }] } })).recordInflowVisit;
    expect(r).toMatchObject({ status: "PASSED", certificateIssuedOn: today() });
    expect(r.visits.map((v: any) => v.outcome)).toEqual(["ORDERED", "PASSED"]);
    certificate = r.certificateNumber;
    const pdf = await fetch(`${srv.url}/documents/${r.certificateDocumentId}`, { headers: { cookie: owner.cookieHeader } });
    expect(pdf.status).toBe(200);
    expect((await pdf.arrayBuffer()).byteLength).toBeGreaterThan(500);
    const check = (await anon().ok(VERIFY, { n: certificate.toLowerCase() })).inflowCertificate;
    expect(check).toMatchObject({ number: certificate, taxParcel: "101.1-1-1", issuedOn: today(), inspectedOn: today(), section: "Sewer Use Law 703", laterFindingOn: null });
    expect(check.address).toMatch(/12 Maple Street/);
    expect(JSON.stringify(check)).not.toMatch(/Olive|Bea Buyer|Ada/);
    expect((await anon().ok(VERIFY, { n: "LKV-IC-1999-99999" })).inflowCertificate).toBeNull();
    // The certificate is no one else's to read.
    expect((await fetch(`${srv.url}/documents/${r.certificateDocumentId}`, { headers: { cookie: stranger.cookieHeader } })).status).toBe(404);
    // A passed inspection takes no more findings.
    const more = await operator.gql(VISIT, { i: { inspectionId: maple, visitedOn: today(), naturalDrainageAdequate: false, sources: [] } });
    expect(errorCode(more)).toBe("CONFLICT");
  });

  it("704: a later inspection finds the sump pump reconnected; the Operator opens an enforcement action from the finding, once", async () => {
    // Reconnected only where a disconnection was recorded: another property has none.
    const cedar = (await operator.ok(OPEN, { i: { districtId: lakeview, taxParcel: "101.1-1-3" } })).openInflowInspection;
    const refused = await operator.gql(VISIT, { i: { inspectionId: cedar.id, visitedOn: today(), naturalDrainageAdequate: false, sources: [{ kind: "SUMP_PUMP", state: "RECONNECTED" }] } });
    expect(refused.errors![0].extensions!.fields).toMatchObject({ "sources.0.state": expect.stringMatching(/No earlier inspection/) });

    const later = (await operator.ok(OPEN, { i: { districtId: lakeview, taxParcel: "101.1-1-1" } })).openInflowInspection;
    const r = (
      await operator.ok(VISIT, {
        i: { inspectionId: later.id, visitedOn: today(), stormSewerFeet: 100, naturalDrainageAdequate: false, sources: [{ kind: "SUMP_PUMP", state: "RECONNECTED" }], orderDeadline: addCalendarDays(today(), 14) },
      })
    ).recordInflowVisit;
    expect(r.status).toBe("ORDERED");
    const src = r.visits[0].sources[0];
    expect(src).toMatchObject({ state: "RECONNECTED", enforceable: true });
    sumpSourceId = src.id;
    // Not the Clerk, not another district's Operator.
    expect(errorCode(await clerk.gql(ENFORCE, { i: { sourceId: sumpSourceId } }))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(ENFORCE, { i: { sourceId: sumpSourceId } }))).toBe("NOT_FOUND");
    const a = (await operator.ok(ENFORCE, { i: { sourceId: sumpSourceId } })).openInflowEnforcement;
    expect(a.number).toMatch(/^LKV-EA-/);
    const action = (await owner.ok(`query($id: ID!) { enforcementAction(id: $id) { kind violation subjectLabel } }`, { id: a.actionId })).enforcementAction;
    expect(action.kind).toBe("NOTICE_OF_VIOLATION");
    expect(action.violation).toMatch(/reconnected .* wilful violation \(Sewer Use Law 704\)/);
    const again = await operator.gql(ENFORCE, { i: { sourceId: sumpSourceId } });
    expect(errorCode(again)).toBe("CONFLICT");
    const shown = (await operator.ok(GET, { id: later.id })).inflowInspection.visits[0].sources[0];
    expect(shown).toMatchObject({ enforcementNumber: a.number, enforceable: false });
    // For the bill (705): the property is found discharging inflow in a period reaching today; not in one ended before the first finding.
    const DISCHARGING = `query($d: ID!, $f: String!, $t: String!) { propertiesDischargingInflow(districtId: $d, from: $f, to: $t) { taxParcel foundOn } }`;
    const now = (await clerk.ok(DISCHARGING, { d: lakeview, f: addCalendarDays(today(), -30), t: today() })).propertiesDischargingInflow;
    expect(now).toEqual([{ taxParcel: "101.1-1-1", foundOn: today() }]);
    expect((await clerk.ok(DISCHARGING, { d: lakeview, f: addCalendarDays(today(), -60), t: addCalendarDays(today(), -1) })).propertiesDischargingInflow).toEqual([]);
    expect(errorCode(await huronOperator.gql(DISCHARGING, { d: lakeview, f: today(), t: today() }))).toBe("FORBIDDEN");
    // The certificate's public check says a later inspection found inflow connected.
    expect((await anon().ok(VERIFY, { n: certificate })).inflowCertificate.laterFindingOn).toBe(today());
    // A connected (not reconnected) source is answered by the order, not enforcement, under the SUL.
    const plain = (await operator.ok(VISIT, { i: { inspectionId: cedar.id, visitedOn: today(), stormSewerFeet: 10, naturalDrainageAdequate: false, sources: [{ kind: "CATCH_BASIN", state: "CONNECTED" }], orderDeadline: addCalendarDays(today(), 10) } })).recordInflowVisit;
    expect(errorCode(await operator.gql(ENFORCE, { i: { sourceId: plain.visits[0].sources[0].id } }))).toBe("CONFLICT");
  });

  it("Huron: the Superintendent's finding of a connection is a violation of III-8, no certificate; the written notice is served from it", async () => {
    const i = (await huronOperator.ok(OPEN, { i: { districtId: huron, taxParcel: "7.2-3-4" } })).openInflowInspection;
    const r = (await huronOperator.ok(VISIT, { i: { inspectionId: i.id, visitedOn: today(), naturalDrainageAdequate: false, sources: [{ kind: "ROOF_LEADER", location: "front", state: "CONNECTED" }] } })).recordInflowVisit;
    expect(r).toMatchObject({ status: "VIOLATION", certificateNumber: null });
    expect(r.visits[0].sources[0].enforceable).toBe(true);
    const a = await huronOperator.gql(ENFORCE, { i: { sourceId: r.visits[0].sources[0].id, respondentEmail: "owner@maple.example.com", correctBy: addCalendarDays(today(), 30) } });
    expect(a.errors).toBeUndefined();
    const action = (await owner.ok(`query($id: ID!) { enforcementAction(id: $id) { kind violation } }`, { id: a.data.openInflowEnforcement.actionId })).enforcementAction;
    expect(action.violation).toMatch(/Huron III-8/);
  });
});

describe("SUL 705: the inflow determined, billed on the property's sewer bill once", () => {
  const DETERMINE = `mutation($i: RecordInflowDeterminationInput!) { recordInflowDetermination(input: $i) { id propertyId determinations { id periodFrom periodTo gallons method methodLabel note controlManholeBy determinedBy billId billNumber } } }`;
  const DETERMINATIONS = `query($id: ID!) { inflowInspection(id: $id) { determinations { id gallons billId billNumber } } }`;
  const CHANGE = `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`;
  const OPEN_ACCOUNT = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id } }`;
  const PREVIEW = `mutation($i: PreviewBillRunInput!) { previewBillRun(input: $i) { id billCount flaggedCount tasks { key text } } }`;
  const ISSUE = `mutation($i: IssueBillRunInput!) { issueBillRun(input: $i) { id status } }`;
  const BILLS = `query($r: ID!) { billRunBills(runId: $r, first: 50) { items { id accountId totalCents flags { code text } lines { kind kindLabel description quantity rate amountCents section } } } }`;
  const BILL = `query($id: ID!) { sewerBill(id: $id) { number status lines { kind description quantity rate amountCents section } } }`;
  const board = (changes: { key: string; value: number }[], districtId = lakeview) => ({
    i: { districtId, effectiveDate: "2026-01-01", reason: "Sewer rent schedule 2026", resolutionNumber: "2025-88", resolutionAdoptedOn: "2025-12-15", changes },
  });
  let later: string; // 101.1-1-1's inspection that found the sump pump reconnected (ORDERED)
  let ownersAccount: string;
  let tenantsAccount: string;
  let determinationId: string;

  it("the Board's surcharge is refused past five times in the rulebook editor (5.01), allowed at five", async () => {
    const past = await admin.gql(CHANGE, board([{ key: "billing.inflowSurchargeFactor", value: 5.01 }]));
    expect(errorCode(past)).toBe("BAD_USER_INPUT");
    expect(past.errors![0].extensions!.fields).toEqual({ "billing.inflowSurchargeFactor": expect.stringMatching(/may not be over 5 .*\(Sewer Use Law 705\)/) });
    await admin.ok(CHANGE, board([{ key: "billing.volumeChargePer1000Gallons", value: 650 }, { key: "billing.inflowSurchargeFactor", value: 5 }]));
  });

  it("the District Operator records the amount on an inspection that found a source connected; refused without a finding, overlapping, in Huron, and by others", async () => {
    const items = (await operator.ok(LIST, { d: lakeview, s: "ORDERED" })).districtInflowInspections.items;
    later = items.find((i: any) => i.taxParcel === "101.1-1-1").id;
    const base = { inspectionId: later, periodFrom: "2026-04-01", periodTo: "2026-06-20", gallons: 12_000, method: "PUMP_RUN_TIME", note: "Sump pump ran 40 hours at 5 gallons a minute (hour meter)" };
    // Field by field.
    const bad = await operator.gql(DETERMINE, { i: { ...base, periodTo: addCalendarDays(today(), 1), gallons: 0, method: "GUESS", note: " ", controlManholeBy: today() } });
    expect(Object.keys(bad.errors![0].extensions!.fields!).sort()).toEqual(["controlManholeBy", "gallons", "method", "note", "periodTo"]);
    // Only the district's District Operator.
    expect(errorCode(await clerk.gql(DETERMINE, { i: base }))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(DETERMINE, { i: base }))).toBe("NOT_FOUND");
    expect(errorCode(await owner.gql(DETERMINE, { i: base }))).toBe("FORBIDDEN");
    // An inspection that found nothing connected has no inflow to determine.
    const open = (await operator.ok(LIST, { d: lakeview, s: "OPEN" })).districtInflowInspections.items.find((i: any) => i.taxParcel === "101.1-1-4");
    const none = await operator.gql(DETERMINE, { i: { ...base, inspectionId: open.id } });
    expect(errorCode(none)).toBe("CONFLICT");
    expect(none.errors![0].message).toMatch(/found none/);
    // Huron's law has no such determination or charge (III-8).
    const [huronInspection] = (await huronOperator.ok(LIST, { d: huron })).districtInflowInspections.items;
    const h = await huronOperator.gql(DETERMINE, { i: { ...base, inspectionId: huronInspection.id } });
    expect(errorCode(h)).toBe("CONFLICT");
    expect(h.errors![0].message).toMatch(/no determination of inflow and no charge for it \(Huron III-8\)/);

    const manhole = addCalendarDays(today(), 60);
    const r = (await operator.ok(DETERMINE, { i: { ...base, controlManholeBy: manhole } })).recordInflowDetermination;
    expect(r.determinations).toEqual([
      { id: expect.any(String), periodFrom: "2026-04-01", periodTo: "2026-06-20", gallons: 12_000, method: "PUMP_RUN_TIME", methodLabel: "Measured sump pump run time", note: base.note, controlManholeBy: manhole, determinedBy: expect.any(String), billId: null, billNumber: null },
    ]);
    determinationId = r.determinations[0].id;
    // A day is determined once.
    const overlap = await operator.gql(DETERMINE, { i: { ...base, periodFrom: "2026-06-20", periodTo: "2026-06-25" } });
    expect(overlap.errors![0].extensions!.fields).toEqual({ periodFrom: expect.stringMatching(/already determined/) });
    // The owner of record reads it, and is told by email with the control manhole's date.
    expect((await owner.ok(DETERMINATIONS, { id: later })).inflowInspection.determinations).toEqual([{ id: determinationId, gallons: 12_000, billId: null, billNumber: null }]);
    const mail = (await owner.ok(`{ myEmails { subject bodyText } }`)).myEmails.find((m: any) => m.subject === "Inflow determined: 12 Maple Street");
    expect(mail.bodyText).toMatch(/12,000 gallons of inflow .* Sewer Use Law 705 .*control manhole is required on the property by/s);

    // The property's accounts: a tenant's, opened first, and the owner's own, which bears the charge.
    const property = r.propertyId;
    tenantsAccount = (await clerk.ok(OPEN_ACCOUNT, { i: { propertyId: property, class: "RESIDENTIAL", occupantName: "Tom Tenant", openedOn: "2024-01-01" } })).openServiceAccount.id;
    ownersAccount = (await clerk.ok(OPEN_ACCOUNT, { i: { propertyId: property, class: "RESIDENTIAL", occupantName: "Olive Owner", occupantEmail: "owner@maple.example.com", openedOn: "2025-01-01" } })).openServiceAccount.id;
  });

  it("the quarter holding its last day bills it on the owner's account: 12,000 gallons × $6.50 = $78.00 and five times that, $390.00; flagged; previewed again, still once", async () => {
    const q2 = { i: { districtId: lakeview, cycle: "OTHER", periodStart: "2026-04-01" } };
    let run = (await clerk.ok(PREVIEW, q2)).previewBillRun;
    run = (await clerk.ok(PREVIEW, q2)).previewBillRun;
    const bills = (await clerk.ok(BILLS, { r: run.id })).billRunBills.items;
    const mine = bills.find((b: any) => b.accountId === ownersAccount);
    const inflowLines = mine.lines.filter((l: any) => l.kind.startsWith("INFLOW"));
    expect(inflowLines).toEqual([
      {
        kind: "INFLOW",
        kindLabel: "Inflow",
        description: "Inflow, Sewer Use Law 705: determined by the District Operator for April 1, 2026 to June 20, 2026 (measured sump pump run time), billed according to Article 12",
        quantity: "12,000 gallons of inflow",
        rate: "$6.50 per 1,000 gallons, the normal sewage volume charge (Sewer Use Law 1203)",
        amountCents: 7800,
        section: "Sewer Use Law 705",
      },
      {
        kind: "INFLOW_SURCHARGE",
        kindLabel: "Inflow surcharge",
        description: "Inflow surcharge, Sewer Use Law 705: set by the Town Board, resolution 2025-88 of December 15, 2025",
        quantity: "$78.00 inflow volume charge",
        rate: "5 times the normal sewage volume charge (at most 5, Sewer Use Law 705)",
        amountCents: 39_000,
        section: "Sewer Use Law 705",
      },
    ]);
    expect(mine.flags.map((f: any) => f.code)).toContain("INFLOW_BILLED");
    expect(mine.flags.find((f: any) => f.code === "INFLOW_BILLED").text).toBe("Inflow billed (Sewer Use Law 705): 12,000 gallons determined for April 1, 2026 to June 20, 2026");
    expect(bills.find((b: any) => b.accountId === tenantsAccount).lines.map((l: any) => l.kind)).not.toContain("INFLOW");
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM bill_line WHERE inflow_determination_id = $1 AND kind = 'INFLOW'`, [determinationId]);
    expect(n).toBe(1);

    await clerk.ok(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true } });
    const d = (await owner.ok(DETERMINATIONS, { id: later })).inflowInspection.determinations[0];
    expect(d.billNumber).toMatch(/^LKV-202604-\d{7}$/);
    const issued = (await owner.ok(BILL, { id: d.billId })).sewerBill;
    expect(issued).toMatchObject({ status: "ISSUED", number: d.billNumber });
    expect(issued.lines.filter((l: any) => l.kind.startsWith("INFLOW")).map((l: any) => l.amountCents)).toEqual([7800, 39_000]);
    const pdf = await fetch(`${srv.url}/bills/${d.billId}/bill.pdf`, { headers: { cookie: owner.cookieHeader } });
    expect(pdf.status).toBe(200);
  });

  it("the next quarter does not bill it again", async () => {
    const run = (await clerk.ok(PREVIEW, { i: { districtId: lakeview, cycle: "OTHER", periodStart: "2026-07-01" } })).previewBillRun;
    const bills = (await clerk.ok(BILLS, { r: run.id })).billRunBills.items;
    const mine = bills.find((b: any) => b.accountId === ownersAccount);
    expect(mine.lines.map((l: any) => l.kind)).not.toContain("INFLOW");
    expect(mine.flags.map((f: any) => f.code)).not.toContain("INFLOW_BILLED");
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM bill_line WHERE inflow_determination_id = $1`, [determinationId]);
    expect(n).toBe(2);
  });

  it("the pages, without JavaScript: the Operator records one on the staff page; the owner reads both and the bill on /inflow/:id", async () => {
    const { get, post } = portal(() => srv.url);
    const bad = await post(operator, `/staff/inflow/${later}`, { form: "determine", periodFrom: "2026-07-01", periodTo: "2026-08-31", gallons: "", method: "ESTIMATE", note: "x" });
    expect(bad.status).toBe(400);
    expect(pageText(bad.html)).toContain("Enter the gallons as a whole number");
    const r = await post(operator, `/staff/inflow/${later}`, { form: "determine", periodFrom: "2026-07-01", periodTo: "2026-08-31", gallons: "3,000", method: "ESTIMATE", note: "Pump capacity and the rainfall of the period", controlManholeBy: "" });
    expect([r.status, r.location]).toEqual([302, `/staff/inflow/${later}?done=determined`]);
    const staff = pageText((await get(operator, `/staff/inflow/${later}?done=determined`)).html);
    expect(staff).toContain("The inflow determined is recorded");
    expect(staff).toContain("Determine the amount of inflow");
    const page = pageText((await get(owner, `/inflow/${later}`)).html);
    expect(page).toContain("Inflow determined (Sewer Use Law 705)");
    expect(page).toMatch(/April 1, 2026 to June 20, 2026 12,000 Measured sump pump run time: .* LKV-202604-\d{7}/);
    expect(page).toMatch(/July 1, 2026 to August 31, 2026 3,000 Estimate: Pump capacity and the rainfall of the period .* Not billed yet/);
    expect(page).not.toContain("Determine the amount of inflow");
  }, 120_000); // the file's first portal pages: Vite compiles them

  it("Huron: no inflow line on its bills, even with a determination written into the database (its law sets no charge)", async () => {
    const huronAdmin = await signedInAs(srv.url, DEMO.huronAdmin);
    const hclerk = await signedInAs(srv.url, DEMO.huronClerk);
    await huronAdmin.ok(CHANGE, board([{ key: "billing.minimumCharge", value: 4500 }, { key: "billing.volumeChargePer1000Gallons", value: 500 }], huron));
    const [hi] = (await huronOperator.ok(LIST, { d: huron })).districtInflowInspections.items;
    const got = (await huronOperator.ok(`query($id: ID!) { inflowInspection(id: $id) { propertyId } }`, { id: hi.id })).inflowInspection;
    const account = (await hclerk.ok(OPEN_ACCOUNT, { i: { propertyId: got.propertyId, class: "RESIDENTIAL", occupantName: "Olive Owner", openedOn: "2024-01-01" } })).openServiceAccount.id;
    const ds = srv.running.ds;
    const [{ id: userId }] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.huronOperator]);
    const [{ id: versionId }] = await ds.query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [huron]);
    await ds.query(
      `INSERT INTO inflow_determination (district_id, property_id, inspection_id, period_from, period_to, gallons, method, note, determined_by_id, rulebook_version_id)
       VALUES ($1, $2, $3, '2026-04-01', '2026-06-20', 12000, 'ESTIMATE', 'written by the test', $4, $5)`,
      [huron, got.propertyId, hi.id, userId, versionId],
    );
    const run = (await hclerk.ok(PREVIEW, { i: { districtId: huron, cycle: "ALL", periodStart: "2026-04-01" } })).previewBillRun;
    const b = (await hclerk.ok(BILLS, { r: run.id })).billRunBills.items.find((x: any) => x.accountId === account);
    expect(b.lines.map((l: any) => l.kind)).toEqual(["MINIMUM"]);
    expect(b.flags.map((f: any) => f.code)).not.toContain("INFLOW_BILLED");
  });
});

describe("access, operation by operation", () => {
  it("signed out: every operation but the rules and the certificate check asks to sign in", async () => {
    const c = anon();
    expect(errorCode(await c.gql(GET, { id: maple }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await c.gql(`{ myInflowInspections { id } }`))).toBe("UNAUTHENTICATED");
    expect(errorCode(await c.gql(LIST, { d: lakeview }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await c.gql(REQUEST, { i: { districtId: lakeview, taxParcel: "101.1-1-1", role: "BUYER" } }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await c.gql(IMPORT, { i: { districtId: lakeview, fileName: "x", csv: "x" } }))).toBe("UNAUTHENTICATED");
  });
  it("a stranger: NOT_FOUND on the record, FORBIDDEN on staff operations, an empty list of their own", async () => {
    expect(errorCode(await stranger.gql(GET, { id: maple }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.gql(GET, { id: NONE }))).toBe("NOT_FOUND");
    expect((await stranger.ok(`{ myInflowInspections { id } }`)).myInflowInspections).toEqual([]);
    expect(errorCode(await stranger.gql(LIST, { d: lakeview }))).toBe("FORBIDDEN");
    expect(errorCode(await stranger.gql(SALE, { i: { districtId: lakeview, taxParcel: "101.1-1-1", soldOn: "2026-11-01", buyerName: "X" } }))).toBe("FORBIDDEN");
    expect(errorCode(await stranger.gql(VISIT, { i: { inspectionId: maple, visitedOn: today(), naturalDrainageAdequate: false, sources: [] } }))).toBe("FORBIDDEN");
    expect(errorCode(await stranger.gql(ENFORCE, { i: { sourceId: sumpSourceId } }))).toBe("FORBIDDEN");
  });
  it("the owner of record reads the inspection of their property, without the staff's fields, and cannot record", async () => {
    const r = (await owner.ok(GET, { id: maple })).inflowInspection;
    expect(r).toMatchObject({ number: expect.any(String), ownerName: null, parties: [], canInspect: false });
    expect((await owner.ok(`{ myInflowInspections { id } }`)).myInflowInspections.length).toBeGreaterThanOrEqual(2);
  });
  it("another district's staff: FORBIDDEN on the list, NOT_FOUND on the record and the import; its Operator cannot record here", async () => {
    expect(errorCode(await huronOperator.gql(LIST, { d: lakeview }))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(GET, { id: maple }))).toBe("NOT_FOUND");
    expect(errorCode(await huronOperator.gql(SALE, { i: { districtId: lakeview, taxParcel: "101.1-1-1", soldOn: "2026-11-01", buyerName: "X" } }))).toBe("FORBIDDEN");
    const REPORT = `query($id: ID!) { inflowSaleImport(id: $id) { rowsImported errors { line } } }`;
    expect(errorCode(await huronOperator.gql(REPORT, { id: importId }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.gql(REPORT, { id: importId }))).toBe("FORBIDDEN");
    expect((await clerk.ok(REPORT, { id: importId })).inflowSaleImport.errors).toHaveLength(5);
  });
  it("the district's Clerk, Board and ADMIN read the list and records; only the District Operator enters sales and findings", async () => {
    for (const c of [clerk, board, admin]) {
      expect((await c.ok(LIST, { d: lakeview })).districtInflowInspections.items.length).toBeGreaterThan(0);
      expect((await c.ok(GET, { id: maple })).inflowInspection.canInspect).toBe(false);
      expect(errorCode(await c.gql(SALE, { i: { districtId: lakeview, taxParcel: "101.1-1-1", soldOn: "2026-10-01", buyerName: "X" } }))).toBe("FORBIDDEN");
      expect(errorCode(await c.gql(OPEN, { i: { districtId: lakeview, taxParcel: "101.1-1-4" } }))).toBe("FORBIDDEN");
    }
    expect((await operator.ok(GET, { id: maple })).inflowInspection.canInspect).toBe(true);
  });
  it("every change is audited", async () => {
    const a = await admin.ok(`query($d: ID!) { auditLog(filter: { districtId: $d, first: 200 }) { entries { action } } }`, { d: lakeview });
    const actions = new Set(a.auditLog.entries.map((x: any) => x.action));
    for (const k of ["inflow.sales_imported", "inflow.sale_recorded", "inflow.inspection_joined", "inflow.visit_ordered", "inflow.visit_passed", "inflow.inspection_opened", "inflow.enforcement_opened", "inflow.inflow_determined"]) expect(actions).toContain(k);
  });
});

describe("speed", () => {
  it("an import and the staff's list take the same statements for 2 sales as for 6", async () => {
    const ds = srv.running.ds;
    for (let n = 1; n <= 9; n++) await clerk.ok(ADD, { i: { districtId: lakeview, taxParcel: `900.0-0-${n}`, streetNumber: String(n), street: "Speed Street", zip: "13600", ownerName: "Owner", ownerEmail: "owner@maple.example.com" } });
    const file = (from: number, to: number) => ["parcel,sale date,buyer", ...Array.from({ length: to - from + 1 }, (_, k) => `900.0-0-${from + k},2026-11-10,Buyer ${from + k}`), "nope,2026-11-10,X"].join("\n");
    const LIST_ALL = `query($d: ID!) { districtInflowInspections(districtId: $d, first: 30) { items { id number dueOn daysLeft ownerName visits { outcome sources { kind enforceable } } parties { name } } } }`;
    const list1 = await countStatements(ds, () => operator.ok(LIST_ALL, { d: lakeview }));
    // One import first, so what the process caches once (the rulebook version) is not counted in either.
    await operator.ok(IMPORT, { i: { districtId: lakeview, fileName: "one.csv", csv: file(9, 9) } });
    const two = await countStatements(ds, () => operator.ok(IMPORT, { i: { districtId: lakeview, fileName: "two.csv", csv: file(1, 2) } }));
    const six = await countStatements(ds, () => operator.ok(IMPORT, { i: { districtId: lakeview, fileName: "six.csv", csv: file(3, 8) } }));
    expect(six).toBe(two);
    expect(await countStatements(ds, () => operator.ok(LIST_ALL, { d: lakeview }))).toBe(list1);
  });
});

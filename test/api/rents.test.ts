import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { Rulebook, shippedDistrictFiles } from "../../api/districts/districts.service.js";
import type { RulebookVersion } from "../../api/districts/rulebook-version.entity.js";
import { MAX_COUNT, assessEdus, assessmentBasis, boardTasks, eduTable, formatEdus, parseEdus, waterUsageRow } from "../../api/rents/rules.js";
import { Client, DEMO, countStatements, errorCode, startTestServer, type GqlResponse, type TestServer, signedInAs } from "../harness.js";

/**
 * The sewer-rent register (issue 14, first slice): properties, accounts, meters and assessments
 * under SUL 1203-1206 and Huron VI-2, VI-5, VII; the connection hook; sales; who may see what.
 */

const TZ = "America/New_York";
let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let clerk: Client;
let operator: Client;
let admin: Client;
let huronClerk: Client;
const db = () => srv.running.ds;
const today = () => dateIn(TZ);
const fields = (r: GqlResponse) => (r.errors?.[0]?.extensions?.fields ?? {}) as Record<string, string>;

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [clerk, operator, admin, huronClerk] = await Promise.all([DEMO.lakeviewClerk, DEMO.lakeviewOperator, DEMO.lakeviewAdmin, DEMO.huronClerk].map(signedIn));
});
afterAll(() => srv?.close());

const shipped = (slug: string) => {
  const f = shippedDistrictFiles().find((x) => x.district.slug === slug)!;
  return new Rulebook({ id: slug, version: 1, entries: f.rulebook.entries } as unknown as RulebookVersion);
};

const A = `id accountNumber class classLabel occupantName openedOn closedOn closeReason closeReasonLabel occupancy occupancyLabel sharedMeterAgreement sourcePermitId
  finalBill { lastDay forwardingAddress finalReading finalReadOn meterNumber }
  meters { id meterNumber installedOn removedOn sharedWith }
  assessment { basis effectiveOn edus waterUsageEdus waterUsageBasis rulebookVersion rows { key label section count perUnit edus } }`;
const P = `id districtId taxParcel address segment ownerName ownerMailingAddress openAccounts owners { ownerName fromDate toDate } accounts { ${A} }`;
const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { ${P} } }`;
const UPDATE = `mutation($id: ID!, $i: SewerPropertyInput!) { updateSewerProperty(id: $id, input: $i) { ${P} } }`;
const GET = `query($id: ID!) { sewerProperty(id: $id) { ${P} } }`;
const LIST = `query($d: ID!, $s: String, $f: Int, $a: String) { sewerProperties(districtId: $d, search: $s, first: $f, after: $a) { nextCursor items { id taxParcel address ownerName openAccounts } } }`;
const REGISTER = `query($d: ID!) { sewerRentRegister(districtId: $d) { basis basisSection openAccounts totalEdus unassessedAccounts tasks { key label section text } } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { ${A} } }`;
const CLOSE = `mutation($i: CloseServiceAccountInput!) { closeServiceAccount(input: $i) { ${A} } }`;
const ASSESS = `mutation($i: AssessServiceAccountInput!) { assessServiceAccount(input: $i) { ${A} } }`;
const WORKSHEET = `query($id: ID!) { assessmentWorksheet(accountId: $id) { basis section rows { key label countOf perUnit count edus } waterUsage { uses section edus basis } total occupancy periodMonths periodSection tasks { key } } }`;
const METER = `mutation($i: AddServiceMeterInput!) { addServiceMeter(input: $i) { ${A} } }`;
const UNMETER = `mutation($i: RemoveServiceMeterInput!) { removeServiceMeter(input: $i) { ${A} } }`;
const SALE = `mutation($i: RecordPropertySaleInput!) { recordPropertySale(input: $i) { ${P} } }`;
const ACCOUNT = `query($id: ID!) { serviceAccount(id: $id) { ${A} } }`;
const MINE = `{ myServiceProperties { ${P} } }`;

let parcel = 0;
async function property(c: Client, districtId: string, over: Record<string, unknown> = {}) {
  const n = ++parcel;
  return (
    await c.ok(ADD, {
      i: { districtId, taxParcel: `90.${n}-1-${n}`, streetNumber: String(10 + n), street: "Harbor Road", city: "Lakeview", zip: "13600", ownerName: `Owner ${n}`, ownerSince: "2020-01-01", ...over },
    })
  ).addSewerProperty;
}
async function account(c: Client, propertyId: string, over: Record<string, unknown> = {}) {
  return (await c.ok(OPEN, { i: { propertyId, class: "RESIDENTIAL", occupantName: "Occupant", openedOn: "2024-01-01", ...over } })).openServiceAccount;
}

// ---------------------------------------------------------------------------------------------

describe("SUL 1203's EDU table, row by row, against the law's text", () => {
  const rb = shipped("lakeview");
  // Each row of the table in Sewer Use Law 1203 as the law prints it, a count, and the EDUs it makes.
  const LAW: [string, number, number, string][] = [
    ["billing.edu.singleFamilyHome", 1, 1, "1"],
    ["billing.edu.apartmentOneBedroom", 0.5, 4, "2"],
    ["billing.edu.apartmentTwoBedroom", 0.75, 3, "2.25"],
    ["billing.edu.apartmentThreeBedroom", 1, 2, "2"],
    ["billing.edu.boardingHousePerRoom", 0.2, 7, "1.4"],
    ["billing.edu.bowlingAlleyPerLane", 0.2, 12, "2.4"],
    ["billing.edu.campgroundSeweredSite", 0.25, 40, "10"],
    ["billing.edu.campgroundUnseweredSite", 0.2, 15, "3"],
    ["billing.edu.church", 1, 1, "1"],
    ["billing.edu.restaurantPerSeat", 0.1, 64, "6.4"],
    ["billing.edu.tavernPerSeat", 0.05, 33, "1.65"],
    ["billing.edu.hairdresserBarber", 1, 1, "1"],
    ["billing.edu.hotelPerRoom", 0.3, 48, "14.4"],
    ["billing.edu.laundromatPerMachine", 1.5, 22, "33"],
    ["billing.edu.mobileHomeOneBedroom", 0.5, 9, "4.5"],
    ["billing.edu.mobileHomeTwoBedroom", 0.75, 14, "10.5"],
    ["billing.edu.mobileHomeThreeBedroom", 1, 3, "3"],
    ["billing.edu.motelPerUnit", 0.25, 18, "4.5"],
    ["billing.edu.motelPerUnitWithKitchen", 0.4, 6, "2.4"],
    ["billing.edu.officePerSquareFoot", 0.001, 12_345, "12.345"],
    ["billing.edu.dentistPerDentist", 1, 3, "3"],
    ["billing.edu.serviceStationPerToilet", 1, 2, "2"],
    ["billing.edu.shoppingCenterPerSquareFoot", 0.001, 85_250, "85.25"],
  ];

  it("lists every row of the table with its figure and section, in the law's order, and nothing else", () => {
    expect(eduTable(rb).map((r) => [r.key, r.perUnit, r.section])).toEqual(LAW.map(([k, per]) => [k, per, "Sewer Use Law 1203"]));
  });

  it.each(LAW)("%s: %d EDU a unit × %d = %s EDUs", (key, _per, count, edus) => {
    const r = assessEdus(rb, { counts: [{ key, count }] });
    expect(r.fields).toEqual({});
    expect(formatEdus(r.totalThousandths)).toBe(edus);
  });

  it("adds the rows an account has (a restaurant with a tavern and an apartment upstairs) exactly, with no rounding", () => {
    const r = assessEdus(rb, {
      counts: [
        { key: "billing.edu.restaurantPerSeat", count: 45 },
        { key: "billing.edu.tavernPerSeat", count: 13 },
        { key: "billing.edu.apartmentTwoBedroom", count: 1 },
        { key: "billing.edu.officePerSquareFoot", count: 1 },
      ],
    });
    // 4.5 + 0.65 + 0.75 + 0.001
    expect(formatEdus(r.totalThousandths)).toBe("5.901");
    expect(r.rows.map((x) => x.key)).toEqual(["billing.edu.apartmentTwoBedroom", "billing.edu.restaurantPerSeat", "billing.edu.tavernPerSeat", "billing.edu.officePerSquareFoot"]);
  });

  it('takes EDUs "as determined by water usage" to the thousandth, with what they rest on, and refuses a fourth decimal', () => {
    expect(waterUsageRow(rb)?.uses).toBe("Car washes, factories, mini-marts, schools, and uses not listed");
    expect(assessEdus(rb, { counts: [], waterUsageEdus: "3.125", waterUsageBasis: "1,140,000 gallons a year" })).toMatchObject({ totalThousandths: 3125, fields: {} });
    expect(assessEdus(rb, { counts: [], waterUsageEdus: "3.1255", waterUsageBasis: "x" }).fields).toEqual({ waterUsageEdus: "Enter EDUs like 2.5 (at most three decimals)." });
    expect(assessEdus(rb, { counts: [], waterUsageEdus: "2" }).fields.waterUsageBasis).toContain("Say what the EDUs rest on");
    expect(parseEdus("0.001")).toBe(1);
    expect(parseEdus("-1")).toBeNull();
  });

  it("refuses a count below 0 or above the largest, a row not in the table, a row twice, and a worksheet with nothing", () => {
    const home = "billing.edu.singleFamilyHome";
    expect(assessEdus(rb, { counts: [{ key: "billing.edu.officePerSquareFoot", count: MAX_COUNT }] }).fields).toEqual({});
    expect(Object.keys(assessEdus(rb, { counts: [{ key: "billing.edu.officePerSquareFoot", count: MAX_COUNT + 1 }] }).fields)).toEqual(["count.billing.edu.officePerSquareFoot"]);
    expect(Object.keys(assessEdus(rb, { counts: [{ key: home, count: -1 }] }).fields)).toEqual([`count.${home}`]);
    expect(assessEdus(rb, { counts: [{ key: "billing.edu.spaceport", count: 1 }] }).fields).toEqual({ "count.billing.edu.spaceport": "This row is not in the district's EDU table." });
    expect(assessEdus(rb, { counts: [{ key: home, count: 1 }, { key: home, count: 1 }] }).fields).toEqual({ [`count.${home}`]: "Enter each row once." });
    expect(assessEdus(rb, { counts: [{ key: home, count: 0 }] }).fields).toEqual({ counts: "Enter a count for at least one row, or the EDUs determined from water usage." });
  });

  it("Huron's law assesses each user, with no EDU table; the Board figures each district's bills need are named", () => {
    const h = shipped("huron");
    expect(assessmentBasis(h)).toMatchObject({ basis: "USER", section: "Huron VI-2" });
    expect(eduTable(h)).toEqual([]);
    expect(waterUsageRow(h)).toBeNull();
    expect(boardTasks(h).map((t) => [t.key, t.section])).toEqual([["billing.minimumCharge", "Huron VII"]]);
    expect(assessmentBasis(rb)).toMatchObject({ basis: "EDU", section: "Sewer Use Law 1203" });
    expect(boardTasks(rb).map((t) => [t.key, t.section])).toEqual([
      ["billing.fixedCostsPerYear", "Sewer Use Law 1203"],
      ["billing.volumeChargePer1000Gallons", "Sewer Use Law 1203"],
    ]);
  });
});

describe("the Clerk's register (Lakeview)", () => {
  it("adds a property, refuses the same parcel twice, opens an account, assesses it on the worksheet, and keeps every assessment", async () => {
    const bad = await clerk.gql(ADD, { i: { districtId: lakeview.id, street: "", zip: "136" } });
    expect(fields(bad)).toEqual({
      street: "Enter the street.",
      zip: "Enter a ZIP code like 13600.",
      taxParcel: "Enter the tax parcel (section-block-lot) number.",
      ownerName: "Enter the owner of record.",
    });
    const p = await property(clerk, lakeview.id, { taxParcel: "101.5-1-1", segment: "Harbor pump station" });
    expect(p).toMatchObject({ taxParcel: "101.5-1-1", segment: "Harbor pump station", openAccounts: 0, owners: [{ fromDate: "2020-01-01", toDate: null }], accounts: [] });
    expect(errorCode(await clerk.gql(ADD, { i: { districtId: lakeview.id, taxParcel: "101.5-1-1", street: "Elm", zip: "13600", ownerName: "X" } }))).toBe("CONFLICT");

    const a = await account(clerk, p.id, { class: "COMMERCIAL", occupantName: "Harbor Diner LLC" });
    expect(a).toMatchObject({ class: "COMMERCIAL", classLabel: "Commercial", openedOn: "2024-01-01", closedOn: null, assessment: null });
    expect(a.accountNumber).toMatch(/^LKV-\d{6}$/);

    const ws = (await clerk.ok(WORKSHEET, { id: a.id })).assessmentWorksheet;
    expect(ws).toMatchObject({ basis: "EDU", section: "Sewer Use Law 1203", total: null, periodMonths: 3, periodSection: "Sewer Use Law 1206" });
    expect(ws.rows).toHaveLength(23);
    expect(ws.rows.find((r: any) => r.key === "billing.edu.restaurantPerSeat")).toEqual({ key: "billing.edu.restaurantPerSeat", label: "Restaurant, per seat", countOf: "seat", perUnit: 0.1, count: 0, edus: "0" });
    expect(ws.waterUsage).toMatchObject({ section: "Sewer Use Law 1203", edus: null });

    // Not before the account opened, not after today.
    const early = await clerk.gql(ASSESS, { i: { accountId: a.id, effectiveOn: "2023-12-31", counts: [{ key: "billing.edu.restaurantPerSeat", count: 40 }] } });
    expect(fields(early).effectiveOn).toBe("The assessment cannot apply before the account opened (2024-01-01).");
    const late = await clerk.gql(ASSESS, { i: { accountId: a.id, effectiveOn: addCalendarDays(today(), 1), counts: [{ key: "billing.edu.restaurantPerSeat", count: 40 }] } });
    expect(fields(late).effectiveOn).toContain("no later than today");

    const first = (await clerk.ok(ASSESS, { i: { accountId: a.id, effectiveOn: "2024-01-01", counts: [{ key: "billing.edu.restaurantPerSeat", count: 40 }] } })).assessServiceAccount;
    expect(first.assessment).toMatchObject({ basis: "EDU", edus: "4", rows: [{ key: "billing.edu.restaurantPerSeat", count: 40, perUnit: 0.1, edus: "4", section: "Sewer Use Law 1203" }] });
    const second = (
      await clerk.ok(ASSESS, {
        i: { accountId: a.id, effectiveOn: today(), counts: [{ key: "billing.edu.restaurantPerSeat", count: 52 }, { key: "billing.edu.apartmentOneBedroom", count: 1 }] },
      })
    ).assessServiceAccount;
    expect(second.assessment).toMatchObject({ edus: "5.7", effectiveOn: today() });
    expect((await clerk.ok(WORKSHEET, { id: a.id })).assessmentWorksheet).toMatchObject({ total: "5.7" });
    const kept = await db().query(`SELECT edu_thousandths FROM service_assessment WHERE account_id = $1 ORDER BY effective_on`, [a.id]);
    expect(kept.map((r: any) => r.edu_thousandths)).toEqual([4000, 5700]);
    const audits = await db().query(`SELECT action FROM audit_entry WHERE entity_id = $1 ORDER BY id`, [a.id]);
    expect(audits.map((r: any) => r.action)).toEqual(["rents.account_opened", "rents.account_assessed", "rents.account_assessed"]);

    // The segment is corrected; the owner is not changed here (only by a sale).
    const moved = (await clerk.ok(UPDATE, { id: p.id, i: { streetNumber: "14", street: "Harbor Road", zip: "13600", segment: "Lake pump station" } })).updateSewerProperty;
    expect(moved).toMatchObject({ segment: "Lake pump station", ownerName: p.ownerName });
  });

  it("meters: one serving an account, shared by a second account of the property, never one in service at another property; taken out of service", async () => {
    const p = await property(clerk, lakeview.id);
    const a = await account(clerk, p.id);
    const b = await account(clerk, p.id, { occupantName: "Upstairs tenant" });
    const m = (await clerk.ok(METER, { i: { accountId: a.id, meterNumber: "WM-7781", installedOn: "2024-01-01" } })).addServiceMeter;
    expect(m.meters).toMatchObject([{ meterNumber: "WM-7781", sharedWith: 1 }]);
    const shared = (await clerk.ok(METER, { i: { accountId: b.id, meterNumber: "wm-7781", installedOn: "2024-01-01" } })).addServiceMeter;
    expect(shared.meters).toMatchObject([{ meterNumber: "WM-7781", sharedWith: 2 }]);
    expect(errorCode(await clerk.gql(METER, { i: { accountId: b.id, meterNumber: "WM-7781", installedOn: "2024-01-01" } }))).toBe("CONFLICT");
    const other = await account(clerk, (await property(clerk, lakeview.id)).id);
    expect(fields(await clerk.gql(METER, { i: { accountId: other.id, meterNumber: "WM-7781", installedOn: "2024-01-01" } }))).toEqual({ meterNumber: "That meter is in service at another property." });
    const out = (await clerk.ok(UNMETER, { i: { accountId: a.id, meterId: m.meters[0].id, removedOn: "2025-06-30" } })).removeServiceMeter;
    expect(out.meters[0].removedOn).toBe("2025-06-30");
    // Out of service, its number is free for another property.
    expect((await clerk.ok(METER, { i: { accountId: other.id, meterNumber: "WM-7781", installedOn: "2025-07-01" } })).addServiceMeter.meters).toHaveLength(1);
  });

  it("lists the register by parcel, a page at a time, and searches by parcel, address, street, owner or account number", async () => {
    const mk = (n: string, street: string, owner: string, num: string) =>
      property(clerk, lakeview.id, { taxParcel: `77.${n}`, streetNumber: num, street, ownerName: owner });
    const [x] = await Promise.all([mk("1-1", "Willow Court", "Quentin Zebulon", "5"), mk("1-2", "Willow Court", "Ada Zebulon", "7"), mk("1-3", "Aspen Way", "Ruth Zed", "9")]);
    const acct = await account(clerk, x.id);
    const search = async (s: string) => (await clerk.ok(LIST, { d: lakeview.id, s })).sewerProperties.items.map((i: any) => i.taxParcel);
    expect(await search("77.1")).toEqual(["77.1-1", "77.1-2", "77.1-3"]);
    expect(await search("willow")).toEqual(["77.1-1", "77.1-2"]);
    expect(await search("7 Willow")).toEqual(["77.1-2"]);
    expect(await search("Ruth")).toEqual(["77.1-3"]);
    expect(await search(acct.accountNumber)).toEqual(["77.1-1"]);
    expect(await search("%")).toEqual([]);
    const p1 = (await clerk.ok(LIST, { d: lakeview.id, s: "77.", f: 2 })).sewerProperties;
    expect(p1.items.map((i: any) => i.taxParcel)).toEqual(["77.1-1", "77.1-2"]);
    const p2 = (await clerk.ok(LIST, { d: lakeview.id, s: "77.", f: 2, a: p1.nextCursor })).sewerProperties;
    expect(p2).toMatchObject({ items: [{ taxParcel: "77.1-3" }], nextCursor: null });
    expect(errorCode(await clerk.gql(LIST, { d: lakeview.id, a: "bogus" }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await clerk.gql(LIST, { d: lakeview.id, f: 201 }))).toBe("BAD_USER_INPUT");
  });

  it("tells the Clerk which Board figures the bills lack, until the ADMIN enters them with the resolution; counts open accounts and their EDUs", async () => {
    const before = (await clerk.ok(REGISTER, { d: lakeview.id })).sewerRentRegister;
    expect(before.basis).toBe("EDU");
    expect(before.tasks.map((t: any) => t.key)).toEqual(["billing.fixedCostsPerYear", "billing.volumeChargePer1000Gallons"]);
    expect(before.tasks[0].text).toBe(
      "The Town Board has not set the fixed costs of the sewer system for the fiscal year (Sewer Use Law 1203). Bills cannot be run until the ADMIN enters it in the rulebook with the Board's resolution.",
    );
    const [{ edus, open, none }] = await db().query(
      `SELECT coalesce(sum(s.edu_thousandths), 0)::int AS edus, count(*)::int AS open, count(*) FILTER (WHERE s.id IS NULL)::int AS none FROM service_account a
        LEFT JOIN LATERAL (SELECT * FROM service_assessment x WHERE x.account_id = a.id ORDER BY effective_on DESC, entered_at DESC LIMIT 1) s ON true
        WHERE a.district_id = $1 AND a.closed_on IS NULL`,
      [lakeview.id],
    );
    expect(before).toMatchObject({ openAccounts: open, totalEdus: formatEdus(edus), unassessedAccounts: none });
    await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: {
        districtId: lakeview.id,
        effectiveDate: today(),
        reason: "Sewer rents for the fiscal year",
        resolutionNumber: "2026-41",
        resolutionAdoptedOn: today(),
        changes: [{ key: "billing.fixedCostsPerYear", value: 41_250_000 }, { key: "billing.volumeChargePer1000Gallons", value: 525 }],
      },
    });
    expect((await clerk.ok(REGISTER, { d: lakeview.id })).sewerRentRegister.tasks).toEqual([]);
    // The figures are the Board's: the law's EDU switch is not the ADMIN's to change.
    const refused = await admin.gql(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: { districtId: lakeview.id, effectiveDate: today(), reason: "x", resolutionNumber: "2026-42", resolutionAdoptedOn: today(), changes: [{ key: "billing.eduAssessment", value: false }] },
    });
    expect(fields(refused)["billing.eduAssessment"]).toContain("is set by the law (Sewer Use Law 1203)");
  });
});

describe("statements per request", () => {
  it("a property's page, the register's page and an owner's list take the same SQL statements for 1 account as for 12", async () => {
    const small = await property(clerk, lakeview.id, { taxParcel: "SQL-1" });
    const large = await property(clerk, lakeview.id, { taxParcel: "SQL-2" });
    await account(clerk, small.id);
    for (let i = 0; i < 12; i++) {
      const a = await account(clerk, large.id, { occupantName: `Unit ${i + 1}` });
      await clerk.ok(METER, { i: { accountId: a.id, meterNumber: `SQL-M-${i}`, installedOn: "2024-01-01" } });
      await clerk.ok(ASSESS, { i: { accountId: a.id, effectiveOn: "2024-01-01", counts: [{ key: "billing.edu.apartmentTwoBedroom", count: 1 }] } });
    }
    await clerk.ok(GET, { id: small.id }); // warm: the viewer and rulebook caches
    const one = await countStatements(db(), () => clerk.ok(GET, { id: small.id }));
    const twelve = await countStatements(db(), async () => expect((await clerk.ok(GET, { id: large.id })).sewerProperty.accounts).toHaveLength(12));
    expect(twelve).toBe(one);
    const page = (first: number) => countStatements(db(), () => clerk.ok(LIST, { d: lakeview.id, f: first }));
    expect(await page(20)).toBe(await page(1));
  });
});

describe("owners and occupants change without losing history", () => {
  it("a sale: the seller's account closes on their last day with what the final bill needs, the buyer is owner from the transfer and moves in; each sees only their own", async () => {
    const seller = new Client(srv.url);
    await seller.signUp("seller@example.org", "Sam Seller");
    const buyer = new Client(srv.url);
    await buyer.signUp("buyer@example.org", "Bea Buyer");
    const p = await property(clerk, lakeview.id, { ownerName: "Sam Seller", ownerEmail: "Seller@Example.org" });
    const a = await account(clerk, p.id, { occupantName: "Sam Seller", occupantEmail: "seller@example.org" });
    await clerk.ok(METER, { i: { accountId: a.id, meterNumber: "WM-SALE-1", installedOn: "2024-01-01" } });
    expect((await seller.ok(MINE)).myServiceProperties.map((x: any) => x.id)).toEqual([p.id]);
    expect((await buyer.ok(MINE)).myServiceProperties).toEqual([]);

    const tooEarly = await clerk.gql(SALE, { i: { propertyId: p.id, transferOn: "2019-12-31", buyerName: "Bea Buyer" } });
    expect(fields(tooEarly).transferOn).toBe("The sale must come after the present owner became owner (2020-01-01).");
    const sold = (
      await clerk.ok(SALE, {
        i: { propertyId: p.id, transferOn: "2025-07-01", buyerName: "Bea Buyer", buyerEmail: "buyer@example.org", buyerMailingAddress: "PO Box 7, Lakeview NY 13600", closeAccountIds: [a.id], forwardingAddress: "40 Pine St, Watertown NY 13601", buyerMovesIn: true, buyerAccountClass: "RESIDENTIAL" },
      })
    ).recordPropertySale;
    expect(sold.ownerName).toBe("Bea Buyer");
    expect(sold.owners).toEqual([
      { ownerName: "Bea Buyer", fromDate: "2025-07-01", toDate: null },
      { ownerName: "Sam Seller", fromDate: "2020-01-01", toDate: "2025-06-30" },
    ]);
    const [closed, opened] = sold.accounts;
    expect(closed).toMatchObject({
      id: a.id,
      closedOn: "2025-06-30",
      closeReason: "SALE",
      closeReasonLabel: "Property sold",
      finalBill: { lastDay: "2025-06-30", forwardingAddress: "40 Pine St, Watertown NY 13601", finalReading: null, meterNumber: "WM-SALE-1" },
    });
    expect(opened).toMatchObject({ occupantName: "Bea Buyer", openedOn: "2025-07-01", closedOn: null });

    // The buyer sees the property, the present owner only, and their own account, not the seller's.
    const [mine] = (await buyer.ok(MINE)).myServiceProperties;
    expect(mine.ownerMailingAddress).toBe("PO Box 7, Lakeview NY 13600");
    expect(mine.owners).toEqual([{ ownerName: "Bea Buyer", fromDate: "2025-07-01", toDate: null }]);
    expect(mine.accounts.map((x: any) => x.id)).toEqual([opened.id]);
    expect(errorCode(await buyer.gql(ACCOUNT, { id: a.id }))).toBe("NOT_FOUND");
    expect((await buyer.ok(GET, { id: p.id })).sewerProperty.accounts.map((x: any) => x.id)).toEqual([opened.id]);
    // The seller keeps their own closed account (and its final bill), not the property's page.
    const [theirs] = (await seller.ok(MINE)).myServiceProperties;
    expect(theirs.accounts.map((x: any) => [x.id, x.closedOn])).toEqual([[a.id, "2025-06-30"]]);
    expect(theirs.owners).toEqual([]);
    expect(theirs.ownerMailingAddress).toBeNull();
    expect(errorCode(await seller.gql(GET, { id: p.id }))).toBe("NOT_FOUND");
    expect((await seller.ok(ACCOUNT, { id: a.id })).serviceAccount.finalBill.lastDay).toBe("2025-06-30");

    const audits = await db().query(`SELECT action FROM audit_entry WHERE entity_id = ANY($1::text[]) ORDER BY id`, [[p.id, a.id, opened.id]]);
    expect(audits.map((r: any) => r.action)).toEqual(["rents.property_added", "rents.account_opened", "rents.meter_added", "rents.property_sold", "rents.account_closed", "rents.account_opened"]);
  });

  it("a move-out closes on the last day, not before the account opened, and only once; a final reading needs its date", async () => {
    const p = await property(clerk, lakeview.id);
    const a = await account(clerk, p.id, { openedOn: "2024-03-01" });
    // A final reading is read off a meter in service (it is written as the meter's read).
    expect(fields(await clerk.gql(CLOSE, { i: { accountId: a.id, lastDay: "2024-03-01", reason: "MOVE_OUT", finalReading: 1234, finalReadOn: "2024-03-01" } })).finalReading).toBe("The account has no meter in service to read.");
    await clerk.ok(METER, { i: { accountId: a.id, meterNumber: `WM-${p.id.slice(0, 8)}`, installedOn: "2024-03-01", startReading: 1200 } });
    expect(fields(await clerk.gql(CLOSE, { i: { accountId: a.id, lastDay: "2024-02-29", reason: "MOVE_OUT" } })).lastDay).toBe("The last day cannot come before the account opened (2024-03-01).");
    expect(fields(await clerk.gql(CLOSE, { i: { accountId: a.id, lastDay: "2024-03-01", reason: "MOVE_OUT", finalReading: 1234 } })).finalReadOn).toBe("Enter a date like 2026-12-01.");
    expect(fields(await clerk.gql(CLOSE, { i: { accountId: a.id, lastDay: "2024-03-01", reason: "GONE" } })).reason).toBeTruthy();
    // Its first day may be its last.
    const c = (await clerk.ok(CLOSE, { i: { accountId: a.id, lastDay: "2024-03-01", reason: "MOVE_OUT", finalReading: 1234, finalReadOn: "2024-03-01" } })).closeServiceAccount;
    expect(c).toMatchObject({ closedOn: "2024-03-01", closeReasonLabel: "Moved out", finalBill: { finalReading: 1234, finalReadOn: "2024-03-01" } });
    expect(errorCode(await clerk.gql(CLOSE, { i: { accountId: a.id, lastDay: "2024-04-01", reason: "MOVE_OUT" } }))).toBe("CONFLICT");
    // The next occupant moves in.
    const next = await account(clerk, p.id, { openedOn: "2024-03-02", occupantName: "Next tenant" });
    expect((await clerk.ok(GET, { id: p.id })).sewerProperty.accounts.map((x: any) => [x.occupantName, x.openedOn, x.closedOn])).toEqual([
      ["Occupant", "2024-03-01", "2024-03-01"],
      ["Next tenant", "2024-03-02", null],
    ]);
    expect(next.closedOn).toBeNull();
  });
});

describe("Huron: each user pays, under its own law (Huron VI-2, VI-5, VII)", () => {
  it("an account is one user from its first day, with no EDU rows; the worksheet records occupancy and the shared meter's agreement", async () => {
    const p = await property(huronClerk, huron.id, { city: "Huron", zip: "14500" });
    const a = await account(huronClerk, p.id, { occupantName: "Lower apartment" });
    expect(a.assessment).toMatchObject({ basis: "USER", edus: null, rows: [] });
    // Huron's law has no segments (SUL 1204 is Lakeview's).
    expect(fields(await huronClerk.gql(UPDATE, { id: p.id, i: { street: "Harbor Road", zip: "14500", segment: "North pump station" } })).segment).toBe(
      "Town of Huron Sewer District No. 1's law does not divide the district into segments (Huron Article VI); leave it empty.",
    );
    const ws = (await huronClerk.ok(WORKSHEET, { id: a.id })).assessmentWorksheet;
    expect(ws).toMatchObject({ basis: "USER", section: "Huron VI-2", rows: [], waterUsage: null, total: null, periodMonths: 3, periodSection: "Huron VI-3", tasks: [{ key: "billing.minimumCharge" }] });
    const eduTry = await huronClerk.gql(ASSESS, { i: { accountId: a.id, effectiveOn: today(), counts: [{ key: "billing.edu.singleFamilyHome", count: 1 }] } });
    expect(fields(eduTry).counts).toBe("Town of Huron Sewer District No. 1 assesses each user (Huron VI-2), not equivalent dwelling units.");
    const seasonal = (
      await huronClerk.ok(ASSESS, { i: { accountId: a.id, effectiveOn: today(), occupancy: "SEASONAL", sharedMeterAgreement: "Both tenants split the excess equally (notified 2026-05-02)." } })
    ).assessServiceAccount;
    expect(seasonal).toMatchObject({ occupancy: "SEASONAL", occupancyLabel: "Seasonal", sharedMeterAgreement: "Both tenants split the excess equally (notified 2026-05-02)." });
    expect((await huronClerk.ok(REGISTER, { d: huron.id })).sewerRentRegister).toMatchObject({ basis: "USER", basisSection: "Huron VI-2", totalEdus: "0", tasks: [{ key: "billing.minimumCharge" }] });
  });
});

describe("a lateral reaching Connected opens the property's account from that day", () => {
  it("adds the property and its account in the inspection's transaction, with the audit entries; the applicant owner sees it", async () => {
    const a = new Client(srv.url);
    await a.signUp("connected@example.org", "Robin Owner");
    const huronOperator = await signedIn(DEMO.huronOperator);
    const i = {
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
    };
    const d = (await a.ok(`mutation($i: LateralPermitDraftInput!) { saveLateralPermitDraft(input: $i) { id } }`, { i })).saveLateralPermitDraft;
    await a.ok(`mutation($id: ID!) { submitLateralPermit(id: $id) { id } }`, { id: d.id });
    await huronOperator.ok(`mutation($id: ID!) { approveLateralPermit(id: $id) { id } }`, { id: d.id });
    const asked = (await a.ok(`mutation($id: ID!) { requestInspection(permitId: $id, kind: "CONNECTION") { id } }`, { id: d.id })).requestInspection;
    let day = addCalendarDays(today(), 3);
    while ([0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay())) day = addCalendarDays(day, 1);
    await huronOperator.ok(`mutation($i: ScheduleInspectionInput!) { scheduleInspection(input: $i) { id } }`, { i: { inspectionId: asked.id, scheduledFor: `${day}T10:00` } });
    const done = (await huronOperator.ok(`mutation($i: RecordInspectionResultInput!) { recordInspectionResult(input: $i) { permit { status } } }`, { i: { inspectionId: asked.id, result: "PASSED" } }))
      .recordInspectionResult;
    expect(done.permit.status).toBe("CONNECTED");

    const [mine] = (await a.ok(MINE)).myServiceProperties;
    expect(mine).toMatchObject({ taxParcel: "55.1-2-3", address: "8 Bay Shore Road, Huron 14500", ownerName: "Robin Owner", districtId: huron.id });
    expect(mine.accounts).toMatchObject([{ class: "RESIDENTIAL", occupantName: "Robin Owner", openedOn: today(), sourcePermitId: d.id, assessment: { basis: "USER" } }]);
    const audits = await db().query(`SELECT action FROM audit_entry WHERE entity_id = ANY($1::text[]) ORDER BY action`, [[mine.id, mine.accounts[0].id]]);
    expect(audits.map((r: any) => r.action)).toEqual(["rents.account_opened_on_connection", "rents.property_added"]);
    // The owner's dashboard leads to it.
    const dash = (await a.ok(`{ myDashboard { items { kind id title nextStep href } } }`)).myDashboard.items;
    expect(dash).toContainEqual({ kind: "ServiceAccount", id: mine.accounts[0].id, title: expect.stringMatching(/^Sewer account HRN-\d{6}: 8 Bay Shore Road, Huron 14500$/), nextStep: null, href: "/properties" });
    // The Clerk finds it in the register.
    expect((await huronClerk.ok(LIST, { d: huron.id, s: "55.1-2-3" })).sewerProperties.items).toMatchObject([{ id: mine.id, openAccounts: 1 }]);
  });
});

describe("who may see and change what, operation by operation", () => {
  let p: any;
  let a: any;
  let owner: Client;
  let stranger: Client;
  beforeAll(async () => {
    owner = new Client(srv.url);
    await owner.signUp("access-owner@example.org", "Olive Owner");
    stranger = new Client(srv.url);
    await stranger.signUp("stranger@example.org", "Stan Stranger");
    p = await property(clerk, lakeview.id, { ownerEmail: "access-owner@example.org" });
    a = await account(clerk, p.id);
  });

  type Op = { name: string; run: (c: Client) => Promise<GqlResponse> };
  const ops = (): Op[] => [
    { name: "sewerProperties", run: (c) => c.gql(LIST, { d: lakeview.id }) },
    { name: "sewerRentRegister", run: (c) => c.gql(REGISTER, { d: lakeview.id }) },
    { name: "sewerProperty", run: (c) => c.gql(GET, { id: p.id }) },
    { name: "serviceAccount", run: (c) => c.gql(ACCOUNT, { id: a.id }) },
    { name: "assessmentWorksheet", run: (c) => c.gql(WORKSHEET, { id: a.id }) },
    { name: "myServiceProperties", run: (c) => c.gql(MINE) },
    { name: "addSewerProperty", run: (c) => c.gql(ADD, { i: { districtId: lakeview.id, taxParcel: `AC-${++parcel}`, street: "Elm", zip: "13600", ownerName: "X" } }) },
    { name: "updateSewerProperty", run: (c) => c.gql(UPDATE, { id: p.id, i: { street: "Harbor Road", zip: "13600" } }) },
    { name: "recordPropertySale", run: (c) => c.gql(SALE, { i: { propertyId: p.id, transferOn: "2019-01-01", buyerName: "B" } }) },
    { name: "openServiceAccount", run: (c) => c.gql(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: "T", openedOn: "2024-01-01" } }) },
    { name: "closeServiceAccount", run: (c) => c.gql(CLOSE, { i: { accountId: a.id, lastDay: "2023-01-01", reason: "MOVE_OUT" } }) },
    { name: "assessServiceAccount", run: (c) => c.gql(ASSESS, { i: { accountId: a.id, effectiveOn: "2023-01-01" } }) },
    { name: "addServiceMeter", run: (c) => c.gql(METER, { i: { accountId: a.id, meterNumber: "", installedOn: "2024-01-01" } }) },
    { name: "removeServiceMeter", run: (c) => c.gql(UNMETER, { i: { accountId: a.id, meterId: "00000000-0000-0000-0000-000000000000", removedOn: "2024-01-01" } }) },
  ];
  // What each caller gets: OK, or the error's code. The Clerk's refused inputs (dates before the account) answer BAD_USER_INPUT, past every access check.
  const expected: Record<string, Record<string, string>> = {
    signedOut: Object.fromEntries(ops().map((o) => [o.name, "UNAUTHENTICATED"])),
    stranger: {
      sewerProperties: "FORBIDDEN", sewerRentRegister: "FORBIDDEN", sewerProperty: "NOT_FOUND", serviceAccount: "NOT_FOUND", assessmentWorksheet: "FORBIDDEN", myServiceProperties: "OK",
      addSewerProperty: "FORBIDDEN", updateSewerProperty: "FORBIDDEN", recordPropertySale: "FORBIDDEN", openServiceAccount: "FORBIDDEN", closeServiceAccount: "FORBIDDEN",
      assessServiceAccount: "FORBIDDEN", addServiceMeter: "FORBIDDEN", removeServiceMeter: "FORBIDDEN",
    },
    owner: {
      sewerProperties: "FORBIDDEN", sewerRentRegister: "FORBIDDEN", sewerProperty: "OK", serviceAccount: "OK", assessmentWorksheet: "FORBIDDEN", myServiceProperties: "OK",
      addSewerProperty: "FORBIDDEN", updateSewerProperty: "FORBIDDEN", recordPropertySale: "FORBIDDEN", openServiceAccount: "FORBIDDEN", closeServiceAccount: "FORBIDDEN",
      assessServiceAccount: "FORBIDDEN", addServiceMeter: "FORBIDDEN", removeServiceMeter: "FORBIDDEN",
    },
    huronClerk: {
      sewerProperties: "FORBIDDEN", sewerRentRegister: "FORBIDDEN", sewerProperty: "NOT_FOUND", serviceAccount: "NOT_FOUND", assessmentWorksheet: "NOT_FOUND", myServiceProperties: "OK",
      addSewerProperty: "FORBIDDEN", updateSewerProperty: "NOT_FOUND", recordPropertySale: "NOT_FOUND", openServiceAccount: "NOT_FOUND", closeServiceAccount: "NOT_FOUND",
      assessServiceAccount: "NOT_FOUND", addServiceMeter: "NOT_FOUND", removeServiceMeter: "NOT_FOUND",
    },
    lakeviewOperator: {
      sewerProperties: "OK", sewerRentRegister: "OK", sewerProperty: "OK", serviceAccount: "OK", assessmentWorksheet: "OK", myServiceProperties: "OK",
      addSewerProperty: "FORBIDDEN", updateSewerProperty: "FORBIDDEN", recordPropertySale: "FORBIDDEN", openServiceAccount: "FORBIDDEN", closeServiceAccount: "FORBIDDEN",
      assessServiceAccount: "FORBIDDEN", addServiceMeter: "FORBIDDEN", removeServiceMeter: "FORBIDDEN",
    },
    lakeviewClerk: {
      sewerProperties: "OK", sewerRentRegister: "OK", sewerProperty: "OK", serviceAccount: "OK", assessmentWorksheet: "OK", myServiceProperties: "OK",
      addSewerProperty: "OK", updateSewerProperty: "OK", recordPropertySale: "BAD_USER_INPUT", openServiceAccount: "OK", closeServiceAccount: "BAD_USER_INPUT",
      assessServiceAccount: "BAD_USER_INPUT", addServiceMeter: "BAD_USER_INPUT", removeServiceMeter: "NOT_FOUND",
    },
  };

  it.each(Object.keys(expected))("%s", async (who) => {
    const c = who === "signedOut" ? new Client(srv.url) : who === "stranger" ? stranger : who === "owner" ? owner : who === "huronClerk" ? huronClerk : who === "lakeviewOperator" ? operator : clerk;
    const got: Record<string, string> = {};
    for (const o of ops()) {
      const r = await o.run(c);
      got[o.name] = r.errors?.length ? (errorCode(r) ?? "ERROR") : "OK";
    }
    expect(got).toEqual(expected[who]);
  });

  it("a stranger's own list holds nothing of others; the owner's holds only their property", async () => {
    expect((await stranger.ok(MINE)).myServiceProperties).toEqual([]);
    expect((await owner.ok(MINE)).myServiceProperties.map((x: any) => x.id)).toEqual([p.id]);
  });
});

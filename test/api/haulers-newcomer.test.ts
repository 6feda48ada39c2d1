import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { addCalendarDays, dateIn, formatDate, zonedWallTime } from "../../api/common/dates.js";
import { clearMicroCache } from "../../api/graphql/micro-cache.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer, signedInAs } from "../harness.js";
import { setDumpingFee as setLakeviewDumpingFee } from "./hauler-helpers.js";
import { DumpingFeeIsAFee1765800000000 } from "../../migrations/1765800000000-DumpingFeeIsAFee.js";

/**
 * A newcomer hauler's path (issue 19): which districts license haulers (the form's default is one
 * that does); no dumping fee set by the Town Board is said before the booking form (and to staff
 * as a task), not after the form's other errors; the dumping fee is a fee, not a refundable
 * deposit, and is owed back only when the load is refused or cancelled; the licence says what to
 * do next and warns when its Part 364 permit lapses first; the booked load is on the dashboard.
 * This file's database starts as shipped: Lakeview's Board has set no dumping fee yet.
 */

let srv: TestServer;
let lakeview: { id: string; slug: string };
let huron: { id: string };
let board: Client;
let operator: Client;
let clerk: Client;
let admin: Client;
const TZ = "America/New_York";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id slug } huron: district(slug: "huron") { id } }`));
  [board, operator, clerk, admin] = await Promise.all([DEMO.lakeviewBoard, DEMO.lakeviewOperator, DEMO.lakeviewClerk, DEMO.lakeviewAdmin].map(signedIn));
});
afterAll(() => srv?.close());
afterEach(() => resetClock());

const L = `id status licenseNumber validFrom validUntil renewalOpensOn renewalOpen part364ExpiresOn part364Warning
  standing { state inForce } loadBooking { ready reason section } nextStep { text dueDate action } vehicles { id plate } renewal { id status }`;
const BOOK = `mutation($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { id status feeCents paymentId } }`;
const PAYMENT = `query($id: ID!) { payment(id: $id) { id status lines { code label section amountCents refundable refunded owedBack } } }`;
const DASHBOARD = `{ myDashboard { items { kind id title status nextStep dueDate daysLeft href } } }`;
const DISTRICTS = `{ haulerDistricts { id name slug licensesHaulers grantsSpecialPermission section booking { ready reason section } } }`;
const WEEKDAYS = { dumpingLocation: "Lakeview WWTP septage receiving station, 12 Plant Road", dumpingDays: [1, 2, 3, 4, 5], dumpingFrom: "07:00", dumpingTo: "15:00" };

let n = 0;
/** A hauling company with an approved Lakeview licence (two trucks), its fee paid; `part364ExpiresOn` as asked. */
async function licensed(part364Days = 500): Promise<{ c: Client; orgId: string; license: any }> {
  const c = new Client(srv.url);
  const owner = `Robin Owner ${++n}`;
  const company = `Newcomer Septic ${n} LLC`;
  await c.signUp(`newcomer${n}@haulers.example.com`, owner);
  const { createOrganization: org } = await c.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: company, kind: "HAULER" } });
  const { uploadDocument: doc } = await c.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
    i: { filename: "part-364.pdf", contentBase64: PDF, organizationId: org.id },
  });
  const truck = (plate: string, cap: number) => ({ make: "International", model: "HV607", tankCapacityGallons: cap, plate, plateState: "NY", colour: "White", registeredOwner: company });
  const { saveHaulerLicenseDraft: draft } = await c.ok(`mutation($i: HaulerLicenseDraftInput!) { saveHaulerLicenseDraft(input: $i) { id } }`, {
    i: {
      organizationId: org.id,
      districtId: lakeview.id,
      part364PermitNumber: "9-4412-00187",
      part364ExpiresOn: addCalendarDays(dateIn(TZ), part364Days),
      part364DocumentId: doc.id,
      annualVolumeGallons: 250000,
      serviceArea: "Towns of Lakeview and Harbor",
      vehicles: [truck(`NEW${n}A`, 3000), truck(`NEW${n}B`, 2500)],
    },
  });
  const { submitHaulerLicense: sub } = await c.ok(`mutation($id: ID!) { submitHaulerLicense(id: $id, certify: true) { paymentId } }`, { id: draft.id });
  await pay(c, sub.paymentId);
  await board.ok(`mutation($i: DecideHaulerLicenseInput!) { decideHaulerLicense(input: $i) { id } }`, { i: { id: draft.id, decision: "APPROVE", ...WEEKDAYS } });
  return { c, orgId: org.id, license: (await c.ok(`query($id: ID!) { haulerLicense(id: $id) { ${L} } }`, { id: draft.id })).haulerLicense };
}

async function pay(c: Client, paymentId: string) {
  const { startCheckout } = await c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: paymentId });
  await c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
}

/** "2026-12-07T09:00": the next weekday at least `days` ahead, on Lakeview's clock. */
function weekday(hour: number, days = 2): string {
  let d = addCalendarDays(dateIn(TZ), days);
  while ([0, 6].includes(new Date(`${d}T12:00:00Z`).getUTCDay())) d = addCalendarDays(d, 1);
  return `${d}T${String(hour).padStart(2, "0")}:00`;
}

const load = (license: any, over: Record<string, unknown> = {}) => ({
  licenseId: license.id,
  vehicleId: license.vehicles[0].id,
  sourceAddress: "14 Lake Street, Lakeview",
  sourceKind: "RESIDENTIAL_SEPTIC_TANK",
  estimatedGallons: 2500,
  plannedArrival: weekday(9),
  ...over,
});

async function dashboard(c: Client) {
  clearMicroCache();
  return (await c.ok(DASHBOARD)).myDashboard.items as any[];
}

async function setDumpingFee() {
  await setLakeviewDumpingFee(admin, lakeview.id, dateIn(TZ));
  clearMicroCache();
}

describe("before the Town Board sets the dumping fee (SUL 801, 1208)", () => {
  it("lists the districts that license haulers, each with whether loads can be booked; Huron grants special permission instead", async () => {
    const { haulerDistricts } = await new Client(srv.url).ok(DISTRICTS); // public, like the rules
    const lkv = haulerDistricts.find((d: any) => d.id === lakeview.id);
    const hur = haulerDistricts.find((d: any) => d.id === huron.id);
    expect(lkv).toMatchObject({ licensesHaulers: true, grantsSpecialPermission: false, section: "Sewer Use Law 801" });
    expect(hur).toMatchObject({ licensesHaulers: false, grantsSpecialPermission: true, section: "Huron IV-8" });
    // The licence form offers only the districts that license haulers: Huron, first by name, is not among them.
    expect(haulerDistricts[0].id).toBe(huron.id);
    expect(haulerDistricts.filter((d: any) => d.licensesHaulers).map((d: any) => d.id)).toEqual([lakeview.id]);
    expect(lkv.booking).toEqual({
      ready: false,
      reason: expect.stringMatching(/^Loads cannot be booked at Town of Lakeview Sewer District yet: the Town Board has not set the dumping fee \(Sewer Use Law 1208\), and each load's fee is paid before dumping \(Sewer Use Law 801\)\./),
      section: "Sewer Use Law 1208",
    });
    // Huron's law sets no dumping fee and none is paid first: loads are booked under a permission at once.
    expect(hur.booking).toEqual({ ready: true, reason: null, section: null });
  });

  it("says so on the licence, before any form, as its next step; booking is refused with that reason before the form's other errors; staff read it as a task", async () => {
    const { c, license } = await licensed();
    expect(license.standing).toMatchObject({ state: "IN_FORCE", inForce: true });
    expect(license.loadBooking.ready).toBe(false);
    expect(license.nextStep).toEqual({ text: license.loadBooking.reason, dueDate: null, action: "NONE" });
    // Every field wrong as well: the answer is the fee, not the fields.
    const r = await c.gql(BOOK, { i: load(license, { sourceAddress: "", estimatedGallons: 0, plannedArrival: "tomorrow" }) });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toBe(license.loadBooking.reason);
    expect(r.errors![0].extensions!.fields ?? {}).toEqual({});
    // The staff pages read the same (the Clerk, the Operator and the ADMIN who enters the figure).
    for (const staff of [clerk, operator, admin]) {
      const d = (await staff.ok(DISTRICTS)).haulerDistricts.find((x: any) => x.id === lakeview.id);
      expect(d.booking.ready).toBe(false);
    }

    await setDumpingFee();
    const after = (await c.ok(`query($id: ID!) { haulerLicense(id: $id) { ${L} } }`, { id: license.id })).haulerLicense;
    expect(after.loadBooking).toEqual({ ready: true, reason: null, section: null });
    expect(after.nextStep).toMatchObject({ action: "BOOK", text: expect.stringContaining("Book each load and pay its dumping fee before you come.") });
    expect((await new Client(srv.url).ok(DISTRICTS)).haulerDistricts.find((x: any) => x.id === lakeview.id).booking.ready).toBe(true);
    // Now every field is told at once, in the form's order.
    const all = await c.gql(BOOK, { i: load(after, { sourceAddress: "", estimatedGallons: 0, plannedArrival: "tomorrow" }) });
    expect(errorCode(all)).toBe("BAD_USER_INPUT");
    expect(Object.keys(all.errors![0].extensions!.fields as object)).toEqual(["sourceAddress", "estimatedGallons", "plannedArrival"]);
  });
});

describe("once the dumping fee is set", () => {
  beforeAll(async () => {
    const { haulerDistricts } = await new Client(srv.url).ok(DISTRICTS);
    if (!haulerDistricts.find((x: any) => x.id === lakeview.id).booking.ready) await setDumpingFee();
  });

  it("the dumping fee is a fee, not a refundable deposit; a refused load's fee is owed back and the Clerk refunds it, a received load's is not", async () => {
    const { c, license } = await licensed();
    const booked = (await c.ok(BOOK, { i: load(license) })).bookHaulerLoad;
    const p = (await c.ok(PAYMENT, { id: booked.paymentId })).payment;
    expect(p.lines).toEqual([
      {
        code: "dumping-fee",
        label: "Dumping fee, 2,500 gallons at $60.00 per 1,000 (minimum $50.00)",
        section: "Sewer Use Law 1208",
        amountCents: 15000,
        refundable: false,
        refunded: false,
        owedBack: false,
      },
    ]);
    await pay(c, booked.paymentId);
    // The receipt email says what was paid for, and calls nothing a deposit.
    const [receipt] = await srv.running.ds.query(`SELECT body_text FROM outbox_email WHERE kind = 'payment.receipt' AND body_text LIKE '%Dumping fee, 2,500 gallons%'`);
    expect(receipt.body_text).not.toMatch(/deposit/i);
    // Not owed back while the load goes ahead: the Clerk cannot refund it.
    const REFUND = `mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id amountCents } }`;
    const no = await clerk.gql(REFUND, { i: { paymentId: booked.paymentId, lineCodes: ["dumping-fee"], reason: "By mistake" } });
    expect(errorCode(no)).toBe("BAD_USER_INPUT");
    expect((no.errors![0].extensions!.fields as any).lineCodes).toContain("is not refundable");
    // Refused at the station: owed back, and the Clerk refunds it.
    await operator.ok(`mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id } }`, { i: { id: booked.id, decision: "REFUSE", reason: "Grease in the load." } });
    expect((await c.ok(PAYMENT, { id: booked.paymentId })).payment.lines[0]).toMatchObject({ refundable: false, owedBack: true, refunded: false });
    expect((await clerk.ok(REFUND, { i: { paymentId: booked.paymentId, lineCodes: ["dumping-fee"], reason: "Load refused at the station" } })).refundPayment.amountCents).toBe(15000);
    expect((await c.ok(PAYMENT, { id: booked.paymentId })).payment.lines[0]).toMatchObject({ refundable: false, owedBack: false, refunded: true });

    // A received load's fee is kept.
    const kept = (await c.ok(BOOK, { i: load(license, { plannedArrival: weekday(10) }) })).bookHaulerLoad;
    await pay(c, kept.paymentId);
    await operator.ok(`mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id } }`, { i: { id: kept.id, decision: "APPROVE" } });
    await operator.ok(`mutation($id: ID!) { recordHaulerLoadReceived(id: $id, measuredGallons: 2500) { id } }`, { id: kept.id });
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: kept.paymentId, lineCodes: ["dumping-fee"], reason: "By mistake" } }))).toBe("BAD_USER_INPUT");
  });

  it("corrects dumping-fee lines written before as refundable deposits (migration DumpingFeeIsAFee), leaving other lines alone", async () => {
    const { c, license } = await licensed();
    const booked = (await c.ok(BOOK, { i: load(license) })).bookHaulerLoad;
    const ds = srv.running.ds;
    // As the portal wrote it before: the fee marked refundable, beside a line of another kind.
    await ds.query(
      `UPDATE payment SET lines = jsonb_build_array(lines->0 || '{"refundable": true}', '{"code": "other", "label": "Other", "section": "x", "amountCents": 1, "refundable": true}'::jsonb) WHERE id = $1`,
      [booked.paymentId],
    );
    const q = ds.createQueryRunner();
    try {
      await new DumpingFeeIsAFee1765800000000().up(q);
    } finally {
      await q.release();
    }
    const [row] = await ds.query(`SELECT lines FROM payment WHERE id = $1`, [booked.paymentId]);
    expect(row.lines.map((l: any) => [l.code, l.refundable])).toEqual([
      ["dumping-fee", false],
      ["other", true],
    ]);
  });

  it("puts the booked load on the hauler's dashboard with its next step, from paying to the day it comes, and off once received", async () => {
    const { c, license } = await licensed();
    const booked = (await c.ok(BOOK, { i: load(license) })).bookHaulerLoad;
    const item = async () => (await dashboard(c)).find((i) => i.kind === "HaulerLoad" && i.id === booked.id);
    const arrivalDay = weekday(9).slice(0, 10);
    expect(await item()).toEqual({
      kind: "HaulerLoad",
      id: booked.id,
      // The arrival as the portal's one formatter writes it (api/common/format.ts), on the district's clock.
      title: expect.stringMatching(new RegExp(`^Load in ${license.vehicles[0].plate}, 2,500 gallons, .*9:00`)),
      status: "Booked",
      nextStep: "Pay the dumping fee of $150.00 before you come (Sewer Use Law 801).",
      dueDate: arrivalDay,
      daysLeft: expect.any(Number),
      href: `/payments/${booked.paymentId}`,
    });
    await pay(c, booked.paymentId);
    expect(await item()).toMatchObject({ status: "Booked", nextStep: "The District Operator approves or refuses the load before you come (Sewer Use Law 804).", href: `/haulers/loads/${booked.id}` });
    await operator.ok(`mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id } }`, { i: { id: booked.id, decision: "APPROVE" } });
    expect(await item()).toMatchObject({
      status: "Approved",
      nextStep: expect.stringMatching(/^Come to Lakeview WWTP septage receiving station, 12 Plant Road on .*9:00/),
    });
    await operator.ok(`mutation($id: ID!) { recordHaulerLoadReceived(id: $id, measuredGallons: 2400) { id } }`, { id: booked.id });
    expect(await item()).toBeUndefined();
    // The licence's own item says the same next step as its card.
    const lic = (await dashboard(c)).find((i) => i.kind === "HaulerLicense" && i.id === license.id);
    expect(lic).toMatchObject({ status: "In force", nextStep: expect.stringContaining("Book each load"), href: `/haulers/loads/new?licenseId=${license.id}` });
  });

  it("warns when the Part 364 permit lapses before renewal opens, or before the licence ends, and makes filing it the next step", async () => {
    // A year's licence from today; renewal opens 60 days before its last day. The permit ends in 100 days.
    const early = (await licensed(100)).license;
    const ends = addCalendarDays(dateIn(TZ), 100);
    expect(early.renewalOpensOn > ends).toBe(true);
    expect(early.part364Warning).toBe(
      `Your NYSDEC Part 364 permit 9-4412-00187 expires on ${formatDate(ends)}, before renewal opens on ${formatDate(early.renewalOpensOn)}. ` +
        `From ${formatDate(addCalendarDays(ends, 1))} the licence is invalid and loads are refused (Sewer Use Law 802) until you file the renewed permit on the licence page.`,
    );
    expect(early.nextStep).toEqual({ text: `File the renewed Part 364 permit before ${formatDate(ends)}, when the one on file expires.`, dueDate: ends, action: "PART364" });
    // Ending after renewal opens but before the licence does.
    const late = (await licensed(330)).license;
    expect(late.part364Warning).toContain(`before the licence ends on ${formatDate(late.validUntil)}`);
    // Ending after the licence: no warning.
    const fine = (await licensed(500)).license;
    expect(fine.part364Warning).toBeNull();
  });

  it("makes renewal the next step once its window opens, then finishing it; the dashboard links to where each is done", async () => {
    const { c, license } = await licensed(800);
    expect(license.nextStep.text).toContain(`Renewal opens on ${formatDate(license.renewalOpensOn)}.`);
    travelTo(zonedWallTime(Date.parse(`${addCalendarDays(license.validUntil, -30)}T12:00:00Z`), TZ));
    const get = async () => (await c.ok(`query($id: ID!) { haulerLicense(id: $id) { ${L} } }`, { id: license.id })).haulerLicense;
    expect((await get()).nextStep).toEqual({ text: `Renew the licence before it ends on ${formatDate(license.validUntil)}.`, dueDate: license.validUntil, action: "RENEW" });
    expect((await dashboard(c)).find((i) => i.id === license.id)).toMatchObject({ href: `/haulers/licenses/${license.id}/renew`, dueDate: license.validUntil, daysLeft: 30 });
    const { startHaulerLicenseRenewal: renewal } = await c.ok(`mutation($id: ID!) { startHaulerLicenseRenewal(id: $id) { id } }`, { id: license.id });
    expect((await get()).nextStep).toMatchObject({ text: "Finish the renewal and submit it.", action: "RENEWAL" });
    expect((await dashboard(c)).find((i) => i.id === license.id)).toMatchObject({ href: `/haulers/licenses/${renewal.id}` });
    expect((await dashboard(c)).find((i) => i.id === renewal.id)).toMatchObject({ status: "Draft", nextStep: "Finish the application and submit it.", href: `/haulers/licenses/${renewal.id}/edit` });
  });
});

describe("the licence application tells every problem at once (issue 19)", () => {
  /** A new company's empty draft at Lakeview, and an upload of its Part 364 permit. */
  async function draftOf(): Promise<{ c: Client; id: string; company: string; docId: string }> {
    const c = new Client(srv.url);
    const company = `All At Once Septic ${++n} LLC`;
    await c.signUp(`allatonce${n}@haulers.example.com`, `Pat Owner ${n}`);
    const { createOrganization: org } = await c.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: company, kind: "HAULER" } });
    const { uploadDocument: doc } = await c.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
      i: { filename: "part-364.pdf", contentBase64: PDF, organizationId: org.id },
    });
    const { saveHaulerLicenseDraft: d } = await c.ok(`mutation($i: HaulerLicenseDraftInput!) { saveHaulerLicenseDraft(input: $i) { id } }`, { i: { organizationId: org.id, districtId: lakeview.id } });
    return { c, id: d.id, company, docId: doc.id };
  }
  const SUBMIT = `mutation($id: ID!, $c: Boolean!, $d: HaulerLicenseDraftInput) { submitHaulerLicense(id: $id, certify: $c, draft: $d) { id status paymentId part364PermitNumber vehicles { plate registeredOwner } } }`;
  const truck = (over: Record<string, unknown> = {}) => ({ make: "Peterbilt", model: "348", tankCapacityGallons: 3500, plate: "AAO1", plateState: "NY", colour: "Red", registeredOwner: "", ...over });

  it("reports the form's problems and what is missing in one answer, each under its field, and saves nothing", async () => {
    const { c, id, company } = await draftOf();
    const r = await c.gql(SUBMIT, {
      id,
      c: false,
      d: {
        // Vehicle 1: no capacity (the form's "3,5OO"); vehicle 2: registered to someone else; a date that is not one.
        vehicles: [truck({ tankCapacityGallons: null, registeredOwner: company }), truck({ plate: "AAO2", registeredOwner: "Rent-A-Truck Inc." })],
        part364ExpiresOn: "2027-02-30",
        annualVolumeGallons: 0,
      },
    });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    const fields = r.errors![0].extensions!.fields as Record<string, string>;
    expect(fields).toEqual({
      "vehicles.0.tankCapacityGallons": "Enter the tank capacity in whole gallons (1 to 20,000).",
      "vehicles.1.registeredOwner": expect.stringMatching(/^AAO2 is registered to Rent-A-Truck Inc\., not to .* the applicant must own the vehicles \(Sewer Use Law 802\)\.$/),
      part364ExpiresOn: "Enter the expiry date like 2027-06-30.",
      annualVolumeGallons: "Enter the approximate annual volume in whole gallons (more than zero).",
      part364PermitNumber: expect.stringContaining("(Sewer Use Law 802)"),
      part364DocumentId: "Upload the Part 364 permit (PDF, PNG or JPEG).",
      serviceArea: "Describe the service area (Sewer Use Law 801).",
      certify: expect.stringContaining("a false or misleading statement voids the licence (Sewer Use Law 802)"),
    });
    // No message names a key: the forms name the field by its label.
    for (const m of Object.values(fields)) expect(m).not.toMatch(/vehicles\.|Vehicle \d:|[a-z][A-Z]/);
    const { haulerLicense } = await c.ok(`query($id: ID!) { haulerLicense(id: $id) { status vehicles { id } part364ExpiresOn } }`, { id });
    expect(haulerLicense).toEqual({ status: "DRAFT", vehicles: [], part364ExpiresOn: null });
  });

  it("saves and submits the answers as the form holds them in one step, opening the fee", async () => {
    const { c, id, company, docId } = await draftOf();
    const { submitHaulerLicense: s } = await c.ok(SUBMIT, {
      id,
      c: true,
      d: {
        vehicles: [truck({ registeredOwner: company })],
        part364PermitNumber: "7-3030-00412",
        part364ExpiresOn: addCalendarDays(dateIn(TZ), 400),
        part364DocumentId: docId,
        annualVolumeGallons: 180000,
        serviceArea: "Towns of Lakeview and Harbor",
      },
    });
    expect(s).toMatchObject({ id, status: "SUBMITTED", paymentId: expect.any(String), part364PermitNumber: "7-3030-00412", vehicles: [{ plate: "AAO1", registeredOwner: company }] });
    // Without a draft, what was saved is judged as before.
    const again = await draftOf();
    const bare = await again.c.gql(`mutation($id: ID!) { submitHaulerLicense(id: $id, certify: true) { id } }`, { id: again.id });
    expect(Object.keys(bare.errors![0].extensions!.fields as object)).toEqual(["vehicles", "part364PermitNumber", "part364ExpiresOn", "part364DocumentId", "annualVolumeGallons", "serviceArea"]);
  });
});

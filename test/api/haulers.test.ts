import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, advanceClock, resetClock, travelTo } from "../../api/common/clock.js";
import { addCalendarDays, dateIn, zonedWallTime } from "../../api/common/dates.js";
import { clearMicroCache } from "../../api/graphql/micro-cache.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, errorCode, startTestServer, type GqlResponse, type TestServer, isSessionBookkeeping, signedInAs } from "../harness.js";
import { setDumpingFee } from "./hauler-helpers.js";

/**
 * Septage hauler licences and loads over HTTP (SUL Article 8, 1208; Huron IV-8), with the law's
 * figures from the rulebook and time moved on the rules' clock for expiries and reminders.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let board: Client;
let operator: Client;
let clerk: Client;
let admin: Client;
const TZ = "America/New_York";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");
const db = () => srv.running.ds;
const log = pino({ level: "silent" });

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [board, operator, clerk, admin] = await Promise.all([DEMO.lakeviewBoard, DEMO.lakeviewOperator, DEMO.lakeviewClerk, DEMO.lakeviewAdmin].map(signedIn));
  // The Town Board sets the dumping fee (SUL 1208): $60.00 per 1,000 gallons, at least $50.00 a load; a sample costs $75.00 (SUL 804).
  await setDumpingFee(admin, lakeview.id, dateIn(TZ), [{ key: "hauler.sampleCost", value: 7500 }]);
});
afterAll(() => srv?.close());
afterEach(() => resetClock());

// ---------------------------------------------------------------------------------------------
// Helpers

type Hauler = { c: Client; orgId: string; name: string; owner: string; docId: string; email: string };
let n = 0;
async function hauler(name = `Septic Pros ${++n} LLC`): Promise<Hauler> {
  const c = new Client(srv.url);
  const email = `owner${++n}@haulers.example.com`;
  const owner = `Dana Owner ${n}`;
  await c.signUp(email, owner);
  const { createOrganization } = await c.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name, kind: "HAULER" } });
  const { uploadDocument } = await c.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
    i: { filename: "part-364-permit.pdf", contentBase64: PDF, organizationId: createOrganization.id },
  });
  return { c, orgId: createOrganization.id, name, owner, docId: uploadDocument.id, email };
}

const truck = (owner: string, over: Record<string, unknown> = {}) => ({
  make: "International",
  model: "HV607",
  tankCapacityGallons: 3000,
  plate: `SEP${++n}`,
  plateState: "NY",
  colour: "White",
  registeredOwner: owner,
  ...over,
});

const L = `id status statusLabel licenseNumber organizationName validFrom validUntil dumpingLocation dumpingDays schedule paymentId paidAt
  applicationFeeCents previousLicenseId renewalOpensOn part364ExpiresOn
  standing { state inForce reasons daysLeft } vehicles { id plate tankCapacityGallons registeredOwner } payment { id status amountCents }
  renewal { id status validFrom validUntil }`;
const SAVE = `mutation($i: HaulerLicenseDraftInput!) { saveHaulerLicenseDraft(input: $i) { ${L} } }`;
const SUBMIT = `mutation($id: ID!, $c: Boolean!) { submitHaulerLicense(id: $id, certify: $c) { ${L} } }`;
const DECIDE = `mutation($i: DecideHaulerLicenseInput!) { decideHaulerLicense(input: $i) { ${L} } }`;
const GET = `query($id: ID!) { haulerLicense(id: $id) { ${L} } }`;
const X = `id status feeCents paymentId paidAt estimatedGallons measuredGallons adjustmentCents refundDue refusalReason sampleRequired sampleCostCents
  licenseNumber vehicle { plate } payment { id status amountCents }`;
const BOOK = `mutation($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { ${X} } }`;
const DECIDE_LOAD = `mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { ${X} } }`;
const RECEIVED = `mutation($id: ID!, $g: Int!) { recordHaulerLoadReceived(id: $id, measuredGallons: $g) { ${X} } }`;

function application(h: Hauler, over: Record<string, unknown> = {}) {
  return {
    organizationId: h.orgId,
    districtId: lakeview.id,
    part364PermitNumber: "9A-123",
    part364ExpiresOn: addCalendarDays(dateIn(TZ), 300),
    part364DocumentId: h.docId,
    annualVolumeGallons: 250000,
    serviceArea: "Towns of Lakeview and Harbor, Oswego County",
    vehicles: [truck(h.name), truck(h.owner, { make: "Freightliner", model: "M2", tankCapacityGallons: 2500 })],
    ...over,
  };
}

async function pay(c: Client, paymentId: string) {
  const { startCheckout } = await c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`, { id: paymentId });
  const sessionId = startCheckout.url.split("/").pop();
  const done = await c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id status receiptNumber } }`, { s: sessionId });
  expect(done.completeTestCheckout.status).toBe("PAID");
  return done.completeTestCheckout;
}

const WEEKDAYS = { dumpingLocation: "Lakeview WWTP septage receiving station, 12 Plant Road", dumpingDays: [1, 2, 3, 4, 5], dumpingFrom: "07:00", dumpingTo: "15:00" };

/** A hauler applies, pays the application fee, and the Board approves (weekdays 07:00-15:00). */
async function licensed(over: Record<string, unknown> = {}): Promise<{ h: Hauler; license: any }> {
  const h = await hauler();
  const draft = (await h.c.ok(SAVE, { i: application(h, over) })).saveHaulerLicenseDraft;
  const submitted = (await h.c.ok(SUBMIT, { id: draft.id, c: true })).submitHaulerLicense;
  await pay(h.c, submitted.paymentId);
  const license = (await board.ok(DECIDE, { i: { id: draft.id, decision: "APPROVE", ...WEEKDAYS } })).decideHaulerLicense;
  return { h, license };
}

/** "2026-12-07T09:00": the next weekday at least `days` ahead, as Lakeview's clock reads it. */
function weekday(hour: number, days = 2, minute = 0): string {
  let d = addCalendarDays(dateIn(TZ), days);
  while ([0, 6].includes(new Date(`${d}T12:00:00Z`).getUTCDay())) d = addCalendarDays(d, 1);
  return `${d}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
}

function book(license: any, over: Record<string, unknown> = {}) {
  return {
    licenseId: license.id,
    vehicleId: license.vehicles[0].id,
    sourceAddress: "14 Lake Street, Lakeview",
    sourceKind: "RESIDENTIAL_SEPTIC_TANK",
    estimatedGallons: 2500,
    plannedArrival: weekday(9),
    ...over,
  };
}

const field = (r: GqlResponse, name: string) => r.errors?.[0]?.extensions?.fields?.[name];
/** Noon on a calendar date in Lakeview, as an instant. */
const noonOn = (d: string) => zonedWallTime(Date.parse(`${d}T12:00:00Z`), TZ);

// ---------------------------------------------------------------------------------------------

describe("the rulebook", () => {
  it("refuses an application fee above the $100 the law allows (SUL 801) as a setting", async () => {
    const r = await admin.gql(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: { districtId: lakeview.id, effectiveDate: dateIn(TZ), reason: "Raise the fee", resolutionNumber: "2026-31", resolutionAdoptedOn: dateIn(TZ), changes: [{ key: "hauler.applicationFee", value: 10001 }] },
    });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(field(r, "hauler.applicationFee")).toContain("$100.00");
    expect(field(r, "hauler.applicationFee")).toContain("Sewer Use Law 801");
    // $75.00 is within the cap.
    await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: { districtId: lakeview.id, effectiveDate: dateIn(TZ), reason: "Board sets $75", resolutionNumber: "2026-32", resolutionAdoptedOn: dateIn(TZ), changes: [{ key: "hauler.applicationFee", value: 7500 }] },
    });
    await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: { districtId: lakeview.id, effectiveDate: dateIn(TZ), reason: "Back to $100", resolutionNumber: "2026-33", resolutionAdoptedOn: dateIn(TZ), changes: [{ key: "hauler.applicationFee", value: 10000 }] },
    });
  });
});

describe("licence applications (SUL 801-802)", () => {
  it("a hauler with two trucks applies and pays; the Board approves only once paid; the licence states where and when; audit and emails", async () => {
    const h = await hauler();
    const draft = (await h.c.ok(SAVE, { i: application(h) })).saveHaulerLicenseDraft;
    expect(draft.status).toBe("DRAFT");
    expect(draft.vehicles).toHaveLength(2);
    // Certification is required.
    const uncertified = await h.c.gql(SUBMIT, { id: draft.id, c: false });
    expect(errorCode(uncertified)).toBe("BAD_USER_INPUT");
    expect(field(uncertified, "certify")).toContain("voids the licence");
    const s = (await h.c.ok(SUBMIT, { id: draft.id, c: true })).submitHaulerLicense;
    expect(s.status).toBe("SUBMITTED");
    expect(s.applicationFeeCents).toBe(10000);
    expect(s.payment).toMatchObject({ status: "PENDING", amountCents: 10000 });

    // In the Board's queue; not decided before the fee is paid, and not by the operator.
    const queue = (await board.ok(`query($d: ID!) { haulerLicenseQueue(districtId: $d) { id } }`, { d: lakeview.id })).haulerLicenseQueue;
    expect(queue.map((q: any) => q.id)).toContain(draft.id);
    expect(errorCode(await board.gql(DECIDE, { i: { id: draft.id, decision: "APPROVE", ...WEEKDAYS } }))).toBe("PAYMENT_REQUIRED");
    expect(errorCode(await operator.gql(DECIDE, { i: { id: draft.id, decision: "APPROVE", ...WEEKDAYS } }))).toBe("FORBIDDEN");
    await pay(h.c, s.paymentId);
    // Approval states location, days and hours.
    const noHours = await board.gql(DECIDE, { i: { id: draft.id, decision: "APPROVE", dumpingLocation: "Plant", dumpingDays: [1], dumpingFrom: "15:00", dumpingTo: "07:00" } });
    expect(field(noHours, "dumpingTo")).toBeTruthy();
    const a = (await board.ok(DECIDE, { i: { id: draft.id, decision: "APPROVE", ...WEEKDAYS } })).decideHaulerLicense;
    expect(a.status).toBe("APPROVED");
    expect(a.licenseNumber).toMatch(/^LKV-HL-\d{4}-\d{4}$/);
    expect(a.validFrom).toBe(dateIn(TZ));
    // One year from approval.
    const y = +a.validFrom.slice(0, 4);
    expect(a.validUntil).toBe(addCalendarDays(`${y + 1}${a.validFrom.slice(4)}`, -1));
    expect(a.schedule).toBe("Monday to Friday, 07:00 to 15:00");
    expect(a.standing).toMatchObject({ state: "IN_FORCE", inForce: true });

    const audit = await db().query(`SELECT action FROM audit_entry WHERE entity_id = $1 ORDER BY at, id`, [draft.id]);
    expect(audit.map((r: any) => r.action)).toEqual(
      expect.arrayContaining(["hauler.license_draft_created", "hauler.license_submitted", "hauler.application_fee_paid", "hauler.license_approved"]),
    );
    const emails = await db().query(`SELECT kind, subject FROM outbox_email WHERE to_address = $1 ORDER BY created_at`, [h.email]);
    expect(emails.map((e: any) => e.kind)).toEqual(expect.arrayContaining(["hauler.license_submitted", "hauler.license_approved"]));
    expect(emails.find((e: any) => e.kind === "hauler.license_approved").subject).toContain(a.licenseNumber);
    const boardMail = await db().query(`SELECT count(*)::int AS n FROM outbox_email WHERE to_address = $1 AND kind = 'hauler.license_to_decide'`, [DEMO.lakeviewBoard]);
    expect(boardMail[0].n).toBeGreaterThan(0);
  });

  it("refuses a vehicle owned by someone else (SUL 802), naming the vehicle", async () => {
    const h = await hauler();
    const draft = (await h.c.ok(SAVE, { i: application(h, { vehicles: [truck(h.name), truck("Rent-A-Truck Inc.")] }) })).saveHaulerLicenseDraft;
    const r = await h.c.gql(SUBMIT, { id: draft.id, c: true });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(field(r, "vehicles.0.registeredOwner")).toBeUndefined();
    expect(field(r, "vehicles.1.registeredOwner")).toContain("registered to Rent-A-Truck Inc.");
    expect(field(r, "vehicles.1.registeredOwner")).toContain("Sewer Use Law 802");
  });

  it("asks for the Part 364 permit, in force and uploaded, and the annual volume and service area (SUL 801-802)", async () => {
    const h = await hauler();
    const draft = (await h.c.ok(SAVE, {
      i: application(h, { part364ExpiresOn: addCalendarDays(dateIn(TZ), -1), part364DocumentId: null, annualVolumeGallons: null, serviceArea: null, vehicles: [] }),
    })).saveHaulerLicenseDraft;
    const r = await h.c.gql(SUBMIT, { id: draft.id, c: true });
    expect(Object.keys(r.errors![0].extensions!.fields!).sort()).toEqual(["annualVolumeGallons", "part364DocumentId", "part364ExpiresOn", "serviceArea", "vehicles"]);
  });

  it("only the owner applies; members of other companies see nothing", async () => {
    const h = await hauler();
    const other = await hauler();
    const r = await other.c.gql(SAVE, { i: application(h) });
    expect(errorCode(r)).toBe("NOT_FOUND");
    const draft = (await h.c.ok(SAVE, { i: application(h) })).saveHaulerLicenseDraft;
    expect(errorCode(await other.c.gql(GET, { id: draft.id }))).toBe("NOT_FOUND");
    // Staff do not see a draft.
    expect(errorCode(await board.gql(GET, { id: draft.id }))).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(`query($o: ID!) { haulerLicenses(organizationId: $o) { id } }`, { o: h.orgId }))).toBe("NOT_FOUND");
  });

  it("the Board denies with reasons", async () => {
    const h = await hauler();
    const draft = (await h.c.ok(SAVE, { i: application(h) })).saveHaulerLicenseDraft;
    const s = (await h.c.ok(SUBMIT, { id: draft.id, c: true })).submitHaulerLicense;
    await pay(h.c, s.paymentId);
    expect(field(await board.gql(DECIDE, { i: { id: draft.id, decision: "DENY" } }), "reason")).toBeTruthy();
    const d = (await board.ok(DECIDE, { i: { id: draft.id, decision: "DENY", reason: "Three violations at the station last year." } })).decideHaulerLicense;
    expect(d.status).toBe("DENIED");
    expect(d.standing.inForce).toBe(false);
  });

  it("Huron licenses no haulers (Huron IV-8)", async () => {
    const h = await hauler();
    const r = await h.c.gql(SAVE, { i: application(h, { districtId: huron.id }) });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toContain("Huron IV-8");
  });
});

describe("loads (SUL 801, 803, 804, 1208)", () => {
  it("books a 2,500-gallon load in the allowed hours, pays, the operator approves only once paid, records 2,400 gallons; the statement credits the difference", async () => {
    const { h, license } = await licensed();
    const load = (await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad;
    // $60.00 per 1,000 gallons x 2,500 = $150.00.
    expect(load).toMatchObject({ status: "BOOKED", feeCents: 15000, estimatedGallons: 2500 });
    expect(load.payment).toMatchObject({ status: "PENDING", amountCents: 15000 });
    // No unpaid load is approved (SUL 801).
    const unpaid = await operator.gql(DECIDE_LOAD, { i: { id: load.id, decision: "APPROVE" } });
    expect(errorCode(unpaid)).toBe("PAYMENT_REQUIRED");
    expect(unpaid.errors![0].message).toContain("$150.00");
    await pay(h.c, load.paymentId);
    // The hauler cannot approve its own load.
    expect(errorCode(await h.c.gql(DECIDE_LOAD, { i: { id: load.id, decision: "APPROVE" } }))).toBe("FORBIDDEN");
    const approved = (await operator.ok(DECIDE_LOAD, { i: { id: load.id, decision: "APPROVE", sampleRequired: true, sampleNotes: "Grab sample for pH" } })).decideHaulerLoad;
    expect(approved).toMatchObject({ status: "APPROVED", sampleRequired: true, sampleCostCents: 7500 });
    const received = (await operator.ok(RECEIVED, { id: load.id, g: 2400 })).recordHaulerLoadReceived;
    // 2,400 gallons cost $144.00: $6.00 credited.
    expect(received).toMatchObject({ status: "RECEIVED", measuredGallons: 2400, adjustmentCents: -600 });

    const month = weekday(9).slice(0, 7);
    const st = (
      await h.c.ok(`query($o: ID!, $d: ID!, $m: String) { haulerStatement(organizationId: $o, districtId: $d, month: $m) {
        month feesPaidCents adjustmentsCents samplesCents balanceCents feeSection lines { plate feePaidCents adjustmentCents sampleCents load { id measuredGallons } } } }`, {
        o: h.orgId,
        d: lakeview.id,
        m: month,
      })
    ).haulerStatement;
    expect(st.lines).toHaveLength(1);
    expect(st).toMatchObject({ feesPaidCents: 15000, adjustmentsCents: -600, samplesCents: 7500, balanceCents: 6900, feeSection: "Sewer Use Law 1208" });
    const actions = (await db().query(`SELECT action FROM audit_entry WHERE entity_id = $1`, [load.id])).map((r: any) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["hauler.load_booked", "hauler.dumping_fee_paid", "hauler.load_approved", "hauler.load_received"]));
  });

  it("charges the minimum for a small load", async () => {
    const { h, license } = await licensed();
    const load = (await h.c.ok(BOOK, { i: book(license, { estimatedGallons: 500 }) })).bookHaulerLoad;
    expect(load.feeCents).toBe(5000);
  });

  it("refuses a load outside the licence's days or hours (SUL 803)", async () => {
    const { h, license } = await licensed();
    let sat = addCalendarDays(dateIn(TZ), 2);
    while (new Date(`${sat}T12:00:00Z`).getUTCDay() !== 6) sat = addCalendarDays(sat, 1);
    const weekend = await h.c.gql(BOOK, { i: book(license, { plannedArrival: `${sat}T09:00` }) });
    expect(errorCode(weekend)).toBe("BAD_USER_INPUT");
    expect(field(weekend, "plannedArrival")).toContain("Saturday at 09:00 is outside the allowed days and hours: Monday to Friday, 07:00 to 15:00");
    const late = await h.c.gql(BOOK, { i: book(license, { plannedArrival: weekday(15) }) });
    expect(field(late, "plannedArrival")).toContain("at 15:00 is outside");
    const early = await h.c.gql(BOOK, { i: book(license, { plannedArrival: weekday(6, 2, 59) }) });
    expect(field(early, "plannedArrival")).toContain("at 06:59 is outside");
    expect((await h.c.ok(BOOK, { i: book(license, { plannedArrival: weekday(14, 2, 59) }) })).bookHaulerLoad.status).toBe("BOOKED");
  });

  it("refuses a load over the vehicle's tank capacity", async () => {
    const { h, license } = await licensed();
    const small = license.vehicles.find((v: any) => v.tankCapacityGallons === 2500);
    const r = await h.c.gql(BOOK, { i: book(license, { vehicleId: small.id, estimatedGallons: 2501 }) });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(field(r, "estimatedGallons")).toContain("holds 2,500 gallons");
    expect((await h.c.ok(BOOK, { i: book(license, { vehicleId: small.id, estimatedGallons: 2500 }) })).bookHaulerLoad.status).toBe("BOOKED");
  });

  it("refuses booking once the Part 364 permit has expired, with no one acting, says what to upload, and reinstates on a renewed permit (SUL 802)", async () => {
    const permitEnds = addCalendarDays(dateIn(TZ), 20);
    const { h, license } = await licensed({ part364ExpiresOn: permitEnds });
    const booked = (await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad;
    await pay(h.c, booked.paymentId);
    // The day after the permit's expiry: the licence is invalid.
    travelTo(noonOn(addCalendarDays(permitEnds, 1)));
    const l = (await h.c.ok(GET, { id: license.id })).haulerLicense;
    expect(l.standing.state).toBe("PART364_LAPSED");
    expect(l.standing.reasons[0]).toContain("Upload the renewed Part 364 permit");
    const r = await h.c.gql(BOOK, { i: book(license, { plannedArrival: weekday(9) }) });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toContain("Part 364");
    // A load booked earlier is refused at the station, not approved.
    const op = await operator.gql(DECIDE_LOAD, { i: { id: booked.id, decision: "APPROVE" } });
    expect(errorCode(op)).toBe("CONFLICT");
    expect(op.errors![0].message).toContain("must be refused");
    // The daily job tells the hauler once.
    await enqueueJob(db(), { name: "haulers.expiry-reminders", payload: { publicUrl: "http://tapline.test" }, singletonKey: `hr-${license.id}` });
    await runDueJobs(db(), log);
    await enqueueJob(db(), { name: "haulers.expiry-reminders", payload: { publicUrl: "http://tapline.test" }, singletonKey: `hr2-${license.id}` });
    await runDueJobs(db(), log);
    const notices = await db().query(`SELECT body_text FROM outbox_email WHERE to_address = $1 AND kind = 'hauler.part364_lapsed'`, [h.email]);
    expect(notices).toHaveLength(1);
    expect(notices[0].body_text).toContain(`http://tapline.test/haulers/licenses/${license.id}`);
    // The owner files the renewed permit: in force again.
    const { uploadDocument } = await h.c.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename: "part-364-2027.pdf", contentBase64: PDF, organizationId: h.orgId } });
    const re = (await h.c.ok(`mutation($i: UpdateHaulerPart364Input!) { updateHaulerPart364(input: $i) { ${L} } }`, {
      i: { licenseId: license.id, permitNumber: "9A-123", expiresOn: addCalendarDays(permitEnds, 365), documentId: uploadDocument.id },
    })).updateHaulerPart364;
    expect(re.standing.state).toBe("IN_FORCE");
    expect((await h.c.ok(BOOK, { i: book(license, { plannedArrival: weekday(9) }) })).bookHaulerLoad.status).toBe("BOOKED");
  });

  it("a suspended licence books no loads and its loads are not approved; the operator's reason is audited and sent", async () => {
    const { h, license } = await licensed();
    const booked = (await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad;
    await pay(h.c, booked.paymentId);
    const ACT = `mutation($i: ActOnHaulerLicenseInput!) { actOnHaulerLicense(input: $i) { ${L} } }`;
    expect(errorCode(await board.gql(ACT, { i: { id: license.id, action: "SUSPEND", reason: "x" } }))).toBe("FORBIDDEN");
    const s = (await operator.ok(ACT, { i: { id: license.id, action: "SUSPEND", reason: "Dumped outside the allowed hours three times in November." } })).actOnHaulerLicense;
    expect(s.standing).toMatchObject({ state: "SUSPENDED", inForce: false });
    const r = await h.c.gql(BOOK, { i: book(license) });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toContain("suspended");
    expect(errorCode(await operator.gql(DECIDE_LOAD, { i: { id: booked.id, decision: "APPROVE" } }))).toBe("CONFLICT");
    // The operator refuses it; the fee is refunded unless the reason says otherwise.
    const refused = (await operator.ok(DECIDE_LOAD, { i: { id: booked.id, decision: "REFUSE", reason: "The licence is suspended." } })).decideHaulerLoad;
    expect(refused).toMatchObject({ status: "REFUSED", refundDue: true });
    const due = (await clerk.ok(`query($d: ID!) { haulerRefundsDue(districtId: $d) { load { id } receiptNumber } }`, { d: lakeview.id })).haulerRefundsDue;
    expect(due.map((x: any) => x.load.id)).toContain(booked.id);
    // The Clerk refunds the dumping fee through the payments ledger.
    await clerk.ok(`mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id } }`, { i: { paymentId: booked.paymentId, lineCodes: ["dumping-fee"], reason: "Load refused at the station" } });
    const after = (await clerk.ok(`query($d: ID!) { haulerRefundsDue(districtId: $d) { load { id } } }`, { d: lakeview.id })).haulerRefundsDue;
    expect(after.map((x: any) => x.load.id)).not.toContain(booked.id);
    const audit = await db().query(`SELECT action, reason FROM audit_entry WHERE entity_id = $1 AND action = 'hauler.license_suspend'`, [license.id]);
    expect(audit[0].reason).toContain("three times");
    const mail = await db().query(`SELECT count(*)::int AS n FROM outbox_email WHERE to_address = $1 AND kind = 'hauler.license_suspend'`, [h.email]);
    expect(mail[0].n).toBe(1);
    // Reinstated: loads again.
    await operator.ok(ACT, { i: { id: license.id, action: "REINSTATE", reason: "Hearing held; hours understood." } });
    expect((await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad.status).toBe("BOOKED");
  });

  it("a Part 364 permit recorded as revoked invalidates the licence at once until a valid one is filed (SUL 802)", async () => {
    const { h, license } = await licensed();
    const ACT = `mutation($i: ActOnHaulerLicenseInput!) { actOnHaulerLicense(input: $i) { ${L} } }`;
    const r = (await operator.ok(ACT, { i: { id: license.id, action: "PART364_REVOKED", reason: "NYSDEC letter of revocation received." } })).actOnHaulerLicense;
    expect(r.standing).toMatchObject({ state: "PART364_REVOKED", inForce: false });
    expect(r.standing.reasons[0]).toContain("Upload a valid Part 364 permit");
    expect(errorCode(await h.c.gql(BOOK, { i: book(license) }))).toBe("CONFLICT");
    const mail = await db().query(`SELECT body_text FROM outbox_email WHERE to_address = $1 AND kind = 'hauler.license_part364_revoked'`, [h.email]);
    expect(mail[0].body_text).toContain("NYSDEC letter of revocation received.");
    const { uploadDocument } = await h.c.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename: "new-364.pdf", contentBase64: PDF, organizationId: h.orgId } });
    const back = (await h.c.ok(`mutation($i: UpdateHaulerPart364Input!) { updateHaulerPart364(input: $i) { ${L} } }`, {
      i: { licenseId: license.id, permitNumber: "9A-999", expiresOn: addCalendarDays(dateIn(TZ), 400), documentId: uploadDocument.id },
    })).updateHaulerPart364;
    expect(back.standing.state).toBe("IN_FORCE");
    // The Board reads the permit filed with the application; another hauler does not.
    const [doc] = await db().query(`SELECT part364_document_id AS id FROM hauler_license WHERE id = $1`, [license.id]);
    expect((await board.ok(`query($id: ID!) { document(id: $id) { id } }`, { id: doc.id })).document.id).toBe(doc.id);
    expect(errorCode(await (await hauler()).c.gql(`query($id: ID!) { document(id: $id) { id } }`, { id: doc.id }))).toBe("NOT_FOUND");
  });

  it("a refusal whose reason says so keeps the fee", async () => {
    const { h, license } = await licensed();
    const booked = (await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad;
    await pay(h.c, booked.paymentId);
    const refused = (await operator.ok(DECIDE_LOAD, { i: { id: booked.id, decision: "REFUSE", refund: false, reason: "Load contained grease trap waste, not septage; the fee is kept for the inspection." } })).decideHaulerLoad;
    expect(refused.refundDue).toBe(false);
  });

  it("the hauler cancels a load not yet decided; a paid fee is marked for refund; another company cannot cancel it", async () => {
    const { h, license } = await licensed();
    const CANCEL = `mutation($id: ID!, $r: String) { cancelHaulerLoad(id: $id, reason: $r) { id status refundDue } }`;
    const booked = (await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad;
    await pay(h.c, booked.paymentId);
    const other = await hauler();
    expect(errorCode(await other.c.gql(CANCEL, { id: booked.id }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(CANCEL, { id: booked.id }))).toBe("FORBIDDEN");
    expect((await h.c.ok(CANCEL, { id: booked.id, r: "Truck broke down" })).cancelHaulerLoad).toMatchObject({ status: "CANCELLED", refundDue: true });
    expect(errorCode(await h.c.gql(CANCEL, { id: booked.id }))).toBe("CONFLICT");
    expect(errorCode(await operator.gql(DECIDE_LOAD, { i: { id: booked.id, decision: "APPROVE" } }))).toBe("CONFLICT");
    const [row] = await db().query(`SELECT count(*)::int AS n FROM audit_entry WHERE entity_id = $1 AND action = 'hauler.load_cancelled'`, [booked.id]);
    expect(row.n).toBe(1);
    // An unpaid load cancels with nothing to refund.
    const unpaid = (await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad;
    expect((await h.c.ok(CANCEL, { id: unpaid.id })).cancelHaulerLoad).toMatchObject({ status: "CANCELLED", refundDue: false });
  });

  it("another hauler's member cannot book on the licence nor see the load", async () => {
    const { h, license } = await licensed();
    const load = (await h.c.ok(BOOK, { i: book(license) })).bookHaulerLoad;
    const other = await hauler();
    const r = await other.c.gql(BOOK, { i: book(license) });
    expect(errorCode(r)).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(`query($id: ID!) { haulerLoad(id: $id) { id } }`, { id: load.id }))).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(`query($o: ID!) { haulerLoads(organizationId: $o) { id } }`, { o: h.orgId }))).toBe("NOT_FOUND");
    expect(errorCode(await other.c.gql(`query($o: ID!, $d: ID!) { haulerStatement(organizationId: $o, districtId: $d) { month } }`, { o: h.orgId, d: lakeview.id }))).toBe("NOT_FOUND");
    // Staff may read it but do not book.
    expect((await operator.ok(`query($id: ID!) { haulerLoad(id: $id) { id } }`, { id: load.id })).haulerLoad.id).toBe(load.id);
    expect(errorCode(await operator.gql(BOOK, { i: book(license) }))).toBe("NOT_FOUND");
    // A driver invited to the company books loads.
    const driverEmail = `driver${++n}@haulers.example.com`;
    await h.c.ok(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { id } }`, { i: { organizationId: h.orgId, email: driverEmail, role: "MEMBER" } });
    const [inv] = await db().query(`SELECT body_text FROM outbox_email WHERE to_address = $1 AND kind = 'organization.invitation'`, [driverEmail]);
    const token = /token=([A-Za-z0-9_-]+)/.exec(inv.body_text)![1];
    const driver = new Client(srv.url);
    await driver.signUp(driverEmail, "Sam Driver");
    await driver.ok(`mutation($t: String!) { acceptInvitation(token: $t) { id } }`, { t: token });
    expect((await driver.ok(BOOK, { i: book(license) })).bookHaulerLoad.status).toBe("BOOKED");
    // ...but does not apply or renew.
    expect(errorCode(await driver.gql(SAVE, { i: application(h) }))).toBe("FORBIDDEN");
  });
});

describe("expiry, reminders and renewal (SUL 802)", () => {
  it("reminds 60, 30 and 7 days before expiry by moving the clock; renewal copies the vehicles; approved early it starts the day the old licence ends", async () => {
    const { h, license } = await licensed();
    const run = async (key: string) => {
      await enqueueJob(db(), { name: "haulers.expiry-reminders", payload: { publicUrl: "http://tapline.test" }, singletonKey: `${key}-${license.id}` });
      await runDueJobs(db(), log);
    };
    const reminders = async () => db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = $1 AND kind = 'hauler.expiry_reminder' ORDER BY created_at`, [h.email]);

    // Renewal is not open yet.
    expect(errorCode(await h.c.gql(`mutation($id: ID!) { startHaulerLicenseRenewal(id: $id) { id } }`, { id: license.id }))).toBe("CONFLICT");
    travelTo(noonOn(addCalendarDays(license.validUntil, -61)));
    await run("a");
    expect(await reminders()).toHaveLength(0);
    travelTo(noonOn(addCalendarDays(license.validUntil, -60)));
    await run("b");
    await run("b2");
    let sent = await reminders();
    expect(sent).toHaveLength(1);
    expect(sent[0].subject).toContain("ends in 60 days");
    expect(sent[0].body_text).toContain(`http://tapline.test/haulers/licenses/${license.id}/renew`);
    travelTo(noonOn(addCalendarDays(license.validUntil, -30)));
    await run("c");
    travelTo(noonOn(addCalendarDays(license.validUntil, -7)));
    await run("d");
    sent = await reminders();
    expect(sent.map((s: any) => s.subject.match(/ends in (\d+) days/)![1])).toEqual(["60", "30", "7"]);

    // Staff see it among the licences expiring within 60 days.
    const expiring = (await board.ok(`query($d: ID!) { haulerLicensesExpiring(districtId: $d) { id standing { daysLeft } } }`, { d: lakeview.id })).haulerLicensesExpiring;
    expect(expiring.find((x: any) => x.id === license.id).standing.daysLeft).toBe(7);

    // Renewal: the vehicles and answers are copied.
    const r = (await h.c.ok(`mutation($id: ID!) { startHaulerLicenseRenewal(id: $id) { ${L} } }`, { id: license.id })).startHaulerLicenseRenewal;
    expect(r).toMatchObject({ status: "DRAFT", previousLicenseId: license.id });
    expect(r.vehicles.map((v: any) => v.plate)).toEqual(license.vehicles.map((v: any) => v.plate));
    // The hauler changes the answer on volume and submits.
    const changed = (await h.c.ok(SAVE, { i: { ...application(h, { annualVolumeGallons: 300000 }), id: r.id, organizationId: undefined, districtId: undefined, vehicles: r.vehicles.map(({ id: _id, ...v }: any) => ({ ...v, make: "International", model: "HV607", colour: "White", plateState: "NY" })) } })).saveHaulerLicenseDraft;
    expect(changed.vehicles).toHaveLength(2);
    const s = (await h.c.ok(SUBMIT, { id: r.id, c: true })).submitHaulerLicense;
    await pay(h.c, s.paymentId);
    const a = (await board.ok(DECIDE, { i: { id: r.id, decision: "APPROVE", ...WEEKDAYS } })).decideHaulerLicense;
    expect(a.validFrom).toBe(addCalendarDays(license.validUntil, 1));
    expect(a.standing.state).toBe("NOT_YET_IN_FORCE");
    // Loads for days of the renewal's term are booked under it already; one before it starts is not.
    const early = await h.c.gql(BOOK, { i: book(a, { plannedArrival: weekday(9, 2) }) });
    expect(errorCode(early)).toBe("CONFLICT");
    expect(early.errors![0].message).toContain("The licence starts on");
    expect((await h.c.ok(BOOK, { i: book(a, { plannedArrival: weekday(9, 9) }) })).bookHaulerLoad.licenseNumber).toBe(a.licenseNumber);
    // No reminders once the renewal is in.
    travelTo(noonOn(addCalendarDays(license.validUntil, -1)));
    await run("e");
    expect(await reminders()).toHaveLength(3);
    // After the old licence's last day: it reads expired, the renewal is in force.
    travelTo(noonOn(addCalendarDays(license.validUntil, 1)));
    expect((await h.c.ok(GET, { id: license.id })).haulerLicense.standing.state).toBe("EXPIRED");
    expect((await h.c.ok(GET, { id: r.id })).haulerLicense.standing.state).toBe("IN_FORCE");
    const old = await h.c.gql(BOOK, { i: book(license, { plannedArrival: weekday(9) }) });
    expect(errorCode(old)).toBe("CONFLICT");
    expect(old.errors![0].message).toContain("expired");
    const fresh = (await h.c.ok(GET, { id: r.id })).haulerLicense;
    expect((await h.c.ok(BOOK, { i: book(fresh, { plannedArrival: weekday(9) }) })).bookHaulerLoad.licenseNumber).toBe(a.licenseNumber);
  });

  it("a renewal approved after the old licence ended starts on approval", async () => {
    const { h, license } = await licensed();
    travelTo(noonOn(addCalendarDays(license.validUntil, -10)));
    const r = (await h.c.ok(`mutation($id: ID!) { startHaulerLicenseRenewal(id: $id) { id } }`, { id: license.id })).startHaulerLicenseRenewal;
    // The Part 364 permit on file ends before then; the renewal carries a new one.
    await h.c.ok(SAVE, { i: { ...application(h, { part364ExpiresOn: addCalendarDays(license.validUntil, 300) }), id: r.id, organizationId: undefined, districtId: undefined } });
    const s = (await h.c.ok(SUBMIT, { id: r.id, c: true })).submitHaulerLicense;
    await pay(h.c, s.paymentId);
    advanceClock(20 * DAY_MS);
    const a = (await board.ok(DECIDE, { i: { id: r.id, decision: "APPROVE", ...WEEKDAYS } })).decideHaulerLicense;
    expect(a.validFrom).toBe(addCalendarDays(license.validUntil, 10));
  });

  it("a licence approved on 29 February 2028 is in force through 28 February 2029, a full year; its renewal runs on from 1 March with no gap (SUL 802)", async () => {
    travelTo(noonOn("2028-02-29"));
    const { h, license } = await licensed({ part364ExpiresOn: "2030-06-30" });
    expect(license).toMatchObject({ validFrom: "2028-02-29", validUntil: "2029-02-28" });
    const standing = async (id: string) => (await h.c.ok(GET, { id })).haulerLicense.standing.state;
    // Renewed in the window, approved before the old licence ends: it starts the day after.
    travelTo(noonOn("2029-01-15"));
    const r = (await h.c.ok(`mutation($id: ID!) { startHaulerLicenseRenewal(id: $id) { id } }`, { id: license.id })).startHaulerLicenseRenewal;
    await pay(h.c, (await h.c.ok(SUBMIT, { id: r.id, c: true })).submitHaulerLicense.paymentId);
    const a = (await board.ok(DECIDE, { i: { id: r.id, decision: "APPROVE", ...WEEKDAYS } })).decideHaulerLicense;
    expect(a).toMatchObject({ validFrom: "2029-03-01", validUntil: "2030-02-28" });
    travelTo(noonOn("2029-02-28"));
    expect([await standing(license.id), await standing(r.id)]).toEqual(["IN_FORCE", "NOT_YET_IN_FORCE"]);
    travelTo(noonOn("2029-03-01"));
    expect([await standing(license.id), await standing(r.id)]).toEqual(["EXPIRED", "IN_FORCE"]);
  });
});

describe("Huron: special permission (Huron IV-8)", () => {
  it("the hauler asks, the Superintendent grants a point and conditions, and loads are booked under it", async () => {
    const huronOperator = new Client(srv.url);
    await huronOperator.signIn("operator@huron.demo.tapline.local");
    const h = await hauler();
    const REQ = `mutation($i: RequestHaulerPermissionInput!) { requestHaulerPermission(input: $i) { id status vehicles { id } standing { inForce } } }`;
    const lakeviewTry = await h.c.gql(REQ, { i: { organizationId: h.orgId, districtId: lakeview.id, requestedPoint: "Manhole 4", vehicles: [truck(h.name)] } });
    expect(errorCode(lakeviewTry)).toBe("CONFLICT");
    const p = (await h.c.ok(REQ, { i: { organizationId: h.orgId, districtId: huron.id, requestedPoint: "Huron WWTP headworks manhole", requestedConditions: "Weekday mornings", vehicles: [truck(h.name)] } })).requestHaulerPermission;
    expect(p).toMatchObject({ status: "REQUESTED", standing: { inForce: false } });
    const DEC = `mutation($i: DecideHaulerPermissionInput!) { decideHaulerPermission(input: $i) { id status point conditions schedule standing { inForce } } }`;
    const today = dateIn(TZ);
    const grant = { point: "Headworks manhole H-2", conditions: "Residential septic pumpage only", validFrom: today, validUntil: addCalendarDays(today, 90), dumpingDays: WEEKDAYS.dumpingDays, dumpingFrom: "07:00", dumpingTo: "15:00" };
    // Lakeview's operator is not Huron's Superintendent: the request is not found for them.
    expect(errorCode(await operator.gql(DEC, { i: { id: p.id, decision: "GRANT", ...grant } }))).toBe("NOT_FOUND");
    expect(errorCode(await huronOperator.gql(DEC, { i: { id: p.id, decision: "GRANT" } }))).toBe("BAD_USER_INPUT");
    const g = (await huronOperator.ok(DEC, {
      i: { id: p.id, decision: "GRANT", point: "Headworks manhole H-2", conditions: "Residential septic pumpage only; 3,000 gallons a load at most.", validFrom: today, validUntil: addCalendarDays(today, 90), dumpingDays: WEEKDAYS.dumpingDays, dumpingFrom: "07:00", dumpingTo: "15:00" },
    })).decideHaulerPermission;
    expect(g).toMatchObject({ status: "GRANTED", standing: { inForce: true }, schedule: "Monday to Friday, 07:00 to 15:00" });
    const load = (await h.c.ok(BOOK, { i: { permissionId: p.id, vehicleId: p.vehicles[0].id, sourceAddress: "3 Mill Road, Huron", sourceKind: "RESIDENTIAL_SEPTIC_TANK", estimatedGallons: 2000, plannedArrival: weekday(10) } })).bookHaulerLoad;
    // Huron's rulebook sets no dumping fee and no per-load approval: the permission is the approval.
    expect(load).toMatchObject({ status: "APPROVED", feeCents: 0, paymentId: null, licenseNumber: null });
    const outside = await h.c.gql(BOOK, { i: { permissionId: p.id, vehicleId: p.vehicles[0].id, sourceAddress: "3 Mill Road", sourceKind: "HOLDING_TANK", estimatedGallons: 2000, plannedArrival: weekday(16) } });
    expect(errorCode(outside)).toBe("BAD_USER_INPUT");
    const rec = (await huronOperator.ok(RECEIVED, { id: load.id, g: 1900 })).recordHaulerLoadReceived;
    expect(rec).toMatchObject({ status: "RECEIVED", adjustmentCents: 0 });
    // The Lakeview operator sees nothing of Huron's loads.
    expect(errorCode(await operator.gql(`query($d: ID!) { stationDaySheet(districtId: $d) { date } }`, { d: huron.id }))).toBe("FORBIDDEN");
  });
});

describe("the station's day sheet", () => {
  it("lists the day's loads for the operator, a page at a time, with the same SQL statements for 3 or 63 loads", async () => {
    const { h, license } = await licensed();
    const day = weekday(9, 4);
    const SHEET = `query($d: ID!, $day: String, $f: Int, $a: String) { stationDaySheet(districtId: $d, date: $day, first: $f, after: $a) { date total nextCursor rows { arrivalTime organizationName plate vehicle holderNumber holderInForce paymentStatus
      load { id status estimatedGallons sourceAddress sourceKind feeCents sampleRequired measuredGallons } } } }`;
    expect(errorCode(await h.c.gql(SHEET, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await board.gql(SHEET, { d: lakeview.id }))).toBe("FORBIDDEN");
    for (let i = 0; i < 3; i++) await h.c.ok(BOOK, { i: book(license, { plannedArrival: `${day.slice(0, 10)}T${String(8 + i).padStart(2, "0")}:00` }) });
    const logger = db().logger as any;
    const original = logger.logQuery;
    let count = 0;
    logger.logQuery = function (...args: unknown[]) {
      if (!isSessionBookkeeping(args[0])) count++;
      return original.apply(this, args);
    };
    const statements = async (f = 100) => {
      clearMicroCache();
      count = 0;
      const sheet = (await operator.ok(SHEET, { d: lakeview.id, day: day.slice(0, 10), f })).stationDaySheet;
      return { count, rows: sheet.rows, total: sheet.total };
    };
    try {
      await statements();
      const three = await statements();
      expect(three.rows.length).toBeGreaterThanOrEqual(3);
      // Sixty more, cloned in SQL.
      await db().query(
        `INSERT INTO hauler_load (district_id, organization_id, license_id, vehicle_id, booked_by_id, status, source_address, source_kind, estimated_gallons, planned_arrival, rulebook_version_id, fee_cents)
         SELECT district_id, organization_id, license_id, vehicle_id, booked_by_id, status, source_address || ' #' || g, source_kind, estimated_gallons, planned_arrival + make_interval(secs => g), rulebook_version_id, fee_cents
           FROM hauler_load, generate_series(1, 60) g WHERE id = $1`,
        [three.rows[0].load.id],
      );
      const sixty = await statements();
      expect(sixty.rows.length).toBe(three.rows.length + 60);
      expect(sixty.total).toBe(three.rows.length + 60);
      expect((await statements(25)).count).toBe(three.count);
      expect(three.rows.map((r: any) => r.arrivalTime)).toEqual(["08:00", "09:00", "10:00"]);
      expect(sixty.count).toBe(three.count);
      expect(three.count).toBeLessThanOrEqual(4);
    } finally {
      logger.logQuery = original;
    }
    // A page at a time, by arrival, the cursor going on where the page ended.
    const p1 = (await operator.ok(SHEET, { d: lakeview.id, day: day.slice(0, 10), f: 25 })).stationDaySheet;
    const p2 = (await operator.ok(SHEET, { d: lakeview.id, day: day.slice(0, 10), f: 25, a: p1.nextCursor })).stationDaySheet;
    expect(p1.rows).toHaveLength(25);
    expect(p2.total).toBe(p1.total);
    expect(new Set([...p1.rows, ...p2.rows].map((r: any) => r.load.id)).size).toBe(50);
    expect(errorCode(await operator.gql(SHEET, { d: lakeview.id, f: 101 }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await operator.gql(SHEET, { d: lakeview.id, a: "garbage" }))).toBe("BAD_USER_INPUT");
  });
});

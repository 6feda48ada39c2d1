import { pino } from "pino";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { dateIn } from "../../api/common/dates.js";
import { District } from "../../api/districts/district.entity.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { accountBalances } from "../../api/rents/ledger.js";
import { LATE_CHARGES_JOB, postExcessLateCharges } from "../../api/rents/late-charges.service.js";
import { excessBalances } from "../../api/rents/owners-excess.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type GqlResponse, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";
import { issueTestBill } from "../rents-fixtures.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * A Huron owner's excess bill paid and enforced (issue 14; Huron VI-2, VI-3, VI-4;
 * docs/decisions/huron-owners-excess-bill-paying.md): the excess bills of a property (a shared
 * meter's, no account) are a balance of their own, paid online by the owner of record (Stripe
 * Checkout on Huron's connected account, the stand-in) and at the counter by the Town Clerk,
 * credited to the oldest bill first; VI-3's 10% on the unpaid part on the 31st day after the due
 * date (not the 30th) by the hourly job; on VI-4's levy list and in the receivables; never on an
 * account's balance; who may do what, operation by operation; statement counts.
 */

const PLATFORM_SECRET = "whsec_platform";
const CONNECT_SECRET = "whsec_connect";
const signer = new Stripe("sk_test_x");
const log = pino({ level: "silent" });
let srv: TestServer;
let stripe: StandIn;
let huronAccount: string;
let lakeview: { id: string };
let huron: { id: string };
let huronClerk: Client;
let huronOperator: Client;
let lakeviewClerk: Client;
let owner: Client;
let otherOwner: Client;
let stranger: Client;
let signedOut: Client;
const db = () => srv.running.ds;
const fields = (r: GqlResponse) => (r.errors?.[0]?.extensions?.fields ?? {}) as Record<string, string>;
/** Noon in New York (EDT) on a calendar day. */
const noonOn = (d: string) => travelTo(`${d}T16:00:00Z`);

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const EXCESS = `query($p: ID!) { ownersExcessBalance(propertyId: $p) { propertyId title ownerName asOf balanceCents pastDueCents canPay canRecordPayment
  lines { on kind description section amountCents balanceCents billId paymentId } openBills { number unpaidCents lateChargesUnpaidCents pastDue } } }`;
const PAY = `mutation($i: PayOwnersExcessInput!) { payOwnersExcess(input: $i) { id status amountCents payableType payableId lines { label section amountCents } } }`;
const PAYMENTS_CSV = `query($d: ID!, $f: String, $t: String) { sewerPaymentsCsv(districtId: $d, from: $f, to: $t) { csv } }`;
const COUNTER = `mutation($i: OwnersExcessCounterPaymentInput!) { recordOwnersExcessCounterPayment(input: $i) { id status amountCents receiptNumber method checkNumber } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`;
const LEVY = `query($d: ID!, $a: String) { taxLevyReport(districtId: $d, asOf: $a) { csv sewerBills { number accountNumber ownerName taxParcel originalCents penaltyCents interestCents totalCents } } }`;
const RECEIVABLES = `query($d: ID!) { sewerReceivables(districtId: $d, year: null) { rows { accountId kind accountNumber ownerName balanceCents currentCents days30Cents days60Cents days90Cents over90Cents } totals { balanceCents } } }`;

let parcel = 0;
let meterSeq = 0;
/** A Huron property with a shared meter and one account (its occupant's own bills); its owner's sign-in linked when given. */
async function property(o: { ownerEmail?: string; ownerName?: string } = {}) {
  const n = ++parcel;
  const taxParcel = `88.${n}-2-${n}`;
  const p = (await huronClerk.ok(ADD, { i: { districtId: huron.id, taxParcel, streetNumber: String(n), street: "Excess Row", zip: "14489", ownerName: o.ownerName ?? `Owner ${n}`, ownerSince: "2020-01-01", ownerEmail: o.ownerEmail ?? null } }))
    .addSewerProperty;
  const a = (await huronClerk.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: `Tenant ${n}`, openedOn: "2024-01-01" } })).openServiceAccount;
  const [m] = await db().query(`INSERT INTO service_meter (district_id, property_id, meter_number, installed_on) VALUES ($1, $2, $3, '2020-01-01') RETURNING id`, [huron.id, p.id, `XS-${++meterSeq}`]);
  return { n, propertyId: p.id as string, taxParcel, meterId: m.id as string, account: { id: a.id as string, accountNumber: a.accountNumber as string, propertyId: p.id as string, districtId: huron.id } };
}

let billSeq = 0;
/** An issued owner's excess bill (Huron VI-2) of the meter, as a bill run leaves it (bill runs are tested in rents-bills.test.ts). */
async function excessBill(prop: { propertyId: string; meterId: string }, o: { periodStart: string; periodEnd: string; mailedOn: string; dueOn: string; totalCents: number }) {
  const [{ id: versionId }] = await db().query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [huron.id]);
  const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.huronClerk]);
  const [run] = await db().query(
    `INSERT INTO bill_run (district_id, cycle, period_start, period_end, status, rulebook_version_id, mailed_on, due_on, previewed_by_id)
     VALUES ($1, 'ALL', $2, $3, 'ISSUED', $4, $5, $6, $7)
     ON CONFLICT (district_id, cycle, period_start) DO UPDATE SET bill_count = bill_run.bill_count + 1 RETURNING id`,
    [huron.id, o.periodStart, o.periodEnd, versionId, o.mailedOn, o.dueOn, userId],
  );
  const number = `XS-${o.periodStart.slice(0, 7).replace("-", "")}-${String(++billSeq).padStart(7, "0")}`;
  const [b] = await db().query(
    `INSERT INTO bill (run_id, district_id, cycle, kind, meter_id, property_id, bill_to, period_start, period_end, served_from, served_to, total_cents, status, number, mailed_on, due_on, rulebook_version_id, issued_at)
     VALUES ($1, $2, 'ALL', 'OWNER_EXCESS', $3, $4, 'Owner', $5, $6, $5, $6, $7, 'ISSUED', $8, $9, $10, $11, clock_timestamp()) RETURNING id`,
    [run.id, huron.id, prop.meterId, prop.propertyId, o.periodStart, o.periodEnd, o.totalCents, number, o.mailedOn, o.dueOn, versionId],
  );
  await db().query(`INSERT INTO bill_line (bill_id, position, kind, description, amount_cents, section) VALUES ($1, 1, 'OWNER_EXCESS', 'Owner''s excess', $2, 'Huron VI-2')`, [b.id, o.totalCents]);
  return { id: b.id as string, number };
}

let jobRun = 0;
/** The hourly job, as the worker queues it. */
async function runLateChargesJob() {
  await enqueueJob(db(), { name: LATE_CHARGES_JOB, payload: { publicUrl: "http://tapline.test" }, singletonKey: `excess-late-${++jobRun}` });
  await runDueJobs(db(), log);
}
async function deliver(event: unknown): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: CONNECT_SECRET });
  return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}
const balanceOf = async (accountId: string) => (await accountBalances(db(), [accountId])).get(accountId)!.balanceCents;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  srv = await startTestServer({ portal: "vite", env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: PLATFORM_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET, STRIPE_API_BASE: stripe.url } });
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [huronClerk, huronOperator, lakeviewClerk] = await Promise.all([DEMO.huronClerk, DEMO.huronOperator, DEMO.lakeviewClerk].map((e) => signedInAs(srv.url, e)));
  owner = new Client(srv.url);
  await owner.signUp("excess-owner@example.com", "Edna Excess");
  otherOwner = new Client(srv.url);
  await otherOwner.signUp("excess-other@example.com", "Otto Other");
  stranger = new Client(srv.url);
  await stranger.signUp("excess-stranger@example.com", "Sam Stranger");
  signedOut = new Client(srv.url);
  huronAccount = await connectDistrictAccount(stripe, srv, "huron");
}, 120_000);
afterEach(() => resetClock());
afterAll(async () => {
  resetClock();
  await srv?.close();
  await stripe?.close();
});

describe("Huron VI-2, VI-3, VI-4: an owner's excess bill paid online and at the counter, its penalty, the levy", () => {
  let home: Awaited<ReturnType<typeof property>>;
  let bill: { id: string; number: string };
  let paymentId: string;

  it("the excess bill is a balance of its own: the owner of record reads it; the account's balance does not hold it", async () => {
    home = await property({ ownerEmail: "excess-owner@example.com", ownerName: "Edna Excess" });
    bill = await excessBill(home, { periodStart: "2026-01-01", periodEnd: "2026-03-31", mailedOn: "2026-04-01", dueOn: "2026-04-16", totalCents: 6_500 });
    await issueTestBill(db(), home.account, { cycle: "ALL", periodStart: "2026-01-01", periodEnd: "2026-03-31", mailedOn: "2026-04-01", dueOn: "2026-04-16", totalCents: 4_500 }, "XA");
    noonOn("2026-04-16");
    const x = (await owner.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance;
    expect(x).toMatchObject({ balanceCents: 6_500, pastDueCents: 0, canPay: true, canRecordPayment: false, ownerName: "Edna Excess", asOf: "2026-04-16" });
    expect(x.title).toBe(`Owner's excess bills, ${home.n} Excess Row 14489 (tax parcel ${home.taxParcel})`);
    expect(x.openBills).toEqual([{ number: bill.number, unpaidCents: 6_500, lateChargesUnpaidCents: 0, pastDue: false }]);
    expect(x.lines.map((l: any) => [l.on, l.kind, l.amountCents, l.balanceCents])).toEqual([["2026-04-01", "BILL", 6_500, 6_500]]);
    expect(await balanceOf(home.account.id)).toBe(4_500);
    noonOn("2026-04-17");
    expect((await owner.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance.pastDueCents).toBe(6_500);
  });

  it("the owner pays $25.00 of it online: Stripe Checkout on Huron's own account; the credit lands on the excess balance only", async () => {
    noonOn("2026-04-20");
    const p = (await owner.ok(PAY, { i: { propertyId: home.propertyId, amountCents: 2_500 } })).payOwnersExcess;
    expect(p).toMatchObject({ status: "PENDING", amountCents: 2_500, payableType: "SewerOwnersExcess", payableId: home.propertyId });
    expect(p.lines).toEqual([{ label: `Payment toward the owner's excess bills, ${home.n} Excess Row 14489 (tax parcel ${home.taxParcel})`, section: "Huron VI-2", amountCents: 2_500 }]);
    // A second Pay of the same amount is the same payment (a double click makes one).
    expect((await owner.ok(PAY, { i: { propertyId: home.propertyId, amountCents: 2_500 } })).payOwnersExcess.id).toBe(p.id);
    paymentId = p.id;
    const { startCheckout } = await owner.ok(START, { id: p.id });
    const sid = startCheckout.url.split("/").pop()!;
    const create = stripe.requests.find((r) => r.path === "/v1/checkout/sessions" && r.params.client_reference_id === p.id)!;
    expect(create.account).toBe(huronAccount);
    const session = stripe.complete(sid);
    expect((await deliver(stripe.event("checkout.session.completed", session))).status).toBe(200);
    const [row] = await db().query(`SELECT status FROM payment WHERE id = $1`, [p.id]);
    expect(row.status).toBe("PAID");
    // Delivered again: posted once.
    expect((await deliver(stripe.event("checkout.session.completed", session))).status).toBe(200);
    const x = (await owner.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance;
    expect(x.balanceCents).toBe(4_000);
    expect(x.openBills).toEqual([{ number: bill.number, unpaidCents: 4_000, lateChargesUnpaidCents: 0, pastDue: true }]);
    expect(x.lines.filter((l: any) => l.kind === "PAYMENT").map((l: any) => [l.on, l.amountCents, l.paymentId])).toEqual([["2026-04-20", -2_500, p.id]]);
    expect(await balanceOf(home.account.id)).toBe(4_500);
    const entries = await db().query(`SELECT account_id, excess_property_id FROM account_ledger_entry WHERE payment_id = $1`, [p.id]);
    expect(entries).toEqual([{ account_id: null, excess_property_id: home.propertyId }]);
    const audit = await db().query(`SELECT action FROM audit_entry WHERE entity_id = $1 AND action = 'rents.owners_excess_payment_posted'`, [home.propertyId]);
    expect(audit).toHaveLength(1);
  });

  it("VI-3: on the 30th day after the due date nothing is added; on the 31st, 10% of what is unpaid, once, and the owner is emailed", async () => {
    noonOn("2026-05-16");
    await runLateChargesJob();
    expect((await owner.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance.balanceCents).toBe(4_000);
    noonOn("2026-05-17");
    await runLateChargesJob();
    await runLateChargesJob();
    const x = (await owner.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance;
    expect(x.balanceCents).toBe(4_400);
    expect(x.lines.filter((l: any) => l.kind === "PENALTY").map((l: any) => [l.on, l.amountCents, l.section])).toEqual([["2026-05-17", 400, "Huron VI-3"]]);
    expect(x.openBills).toEqual([{ number: bill.number, unpaidCents: 4_000, lateChargesUnpaidCents: 400, pastDue: true }]);
    const mails = await db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = 'excess-owner@example.com' AND kind = 'rents.late_charges' AND subject LIKE 'Owner''s excess%'`);
    expect(mails.map((m: any) => m.subject)).toEqual([`Owner's excess bills, ${home.n} Excess Row 14489: $4.00 added for late payment`]);
    expect(mails[0].body_text).toContain("Balance now: $44.00, of which $44.00 is past due.");
    // The account's own bill (due the same day, unpaid) has its own penalty; neither took the other's.
    expect(await balanceOf(home.account.id)).toBe(4_500 + 450);
  });

  it("the Town Clerk records a check at the counter: the check number asked for, a receipt to the owner; it pays the bill before its penalty", async () => {
    noonOn("2026-05-18");
    const bad = await huronClerk.gql(COUNTER, { i: { propertyId: home.propertyId, amountCents: 1_000, method: "check" } });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(fields(bad).checkNumber).toBe("Enter the check number.");
    const paid = (await huronClerk.ok(COUNTER, { i: { propertyId: home.propertyId, amountCents: 1_000, method: "check", checkNumber: "0771" } })).recordOwnersExcessCounterPayment;
    expect(paid).toMatchObject({ status: "PAID", amountCents: 1_000, method: "check", checkNumber: "0771" });
    const x = (await huronClerk.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance;
    expect(x).toMatchObject({ balanceCents: 3_400, canRecordPayment: true, canPay: false });
    expect(x.openBills).toEqual([{ number: bill.number, unpaidCents: 3_000, lateChargesUnpaidCents: 400, pastDue: true }]);
    const [receipt] = await db().query(`SELECT subject FROM outbox_email WHERE to_address = 'excess-owner@example.com' AND kind = 'payment.receipt' AND subject LIKE $1`, [`%${paid.receiptNumber}%`]);
    expect(receipt).toBeTruthy();
    expect(await balanceOf(home.account.id)).toBe(4_950);
    // The payments export names it as the owner's excess, the owner of record and the property.
    const csv: string = (await huronClerk.ok(PAYMENTS_CSV, { d: huron.id, f: "2026-05-18", t: "2026-05-18" })).sewerPaymentsCsv.csv;
    expect(csv).toContain(`"2026-05-18","${paid.receiptNumber}","Owner's excess (Huron VI-2)","Edna Excess",`);
    expect(csv).toMatch(/"check","0771","10\.00"\r\n/);
  });

  it("VI-4: the levy lists the excess bill in arrears with its penalty; the receivables age it as the property's", async () => {
    noonOn("2026-06-01");
    const levy = (await huronClerk.ok(LEVY, { d: huron.id, a: null })).taxLevyReport;
    expect(levy.sewerBills.filter((b: any) => b.number === bill.number)).toEqual([
      { number: bill.number, accountNumber: "", ownerName: "Edna Excess", taxParcel: home.taxParcel, originalCents: 3_000, penaltyCents: 400, interestCents: 0, totalCents: 3_400 },
    ]);
    expect(levy.csv).toContain(`"Sewer rent, owner's excess on a shared meter (Huron VI-2)","30.00","4.00","0.00","34.00"`);
    const r = (await huronClerk.ok(RECEIVABLES, { d: huron.id })).sewerReceivables;
    const mine = r.rows.filter((x: any) => x.accountId === home.propertyId);
    expect(mine).toEqual([
      { accountId: home.propertyId, kind: "OWNER_EXCESS", accountNumber: `Owner's excess, parcel ${home.taxParcel}`, ownerName: "Edna Excess", balanceCents: 3_400, currentCents: 0, days30Cents: 0, days60Cents: 3_400, days90Cents: 0, over90Cents: 0 },
    ]);
    expect(r.rows.find((x: any) => x.accountId === home.account.id)).toMatchObject({ kind: "ACCOUNT", balanceCents: 4_950 });
    expect(r.totals.balanceCents).toBe(r.rows.reduce((s: number, x: any) => s + x.balanceCents, 0));
  });

  it("paying the rest and more leaves a credit the next excess bill uses first", async () => {
    noonOn("2026-06-02");
    await huronClerk.ok(COUNTER, { i: { propertyId: home.propertyId, amountCents: 4_000, method: "cash" } });
    expect((await owner.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance).toMatchObject({ balanceCents: -600, pastDueCents: 0, openBills: [] });
    const next = await excessBill(home, { periodStart: "2026-04-01", periodEnd: "2026-06-30", mailedOn: "2026-07-01", dueOn: "2026-07-16", totalCents: 1_000 });
    noonOn("2026-07-01");
    expect((await owner.ok(EXCESS, { p: home.propertyId })).ownersExcessBalance.openBills).toEqual([{ number: next.number, unpaidCents: 400, lateChargesUnpaidCents: 0, pastDue: false }]);
    expect(paymentId).toBeTruthy();
  });
});

describe("who may see and do what, operation by operation", () => {
  let home: Awaited<ReturnType<typeof property>>;
  let bare: Awaited<ReturnType<typeof property>>;
  beforeAll(async () => {
    home = await property({ ownerEmail: "excess-owner@example.com" });
    await excessBill(home, { periodStart: "2026-07-01", periodEnd: "2026-09-30", mailedOn: "2026-10-01", dueOn: "2026-10-16", totalCents: 2_000 });
    bare = await property({ ownerEmail: "excess-owner@example.com" });
  });
  const code = async (c: Client, q: string, v: Record<string, unknown>) => errorCode(await c.gql(q, v)) ?? "OK";

  it("the balance: the owner of record and the district's staff; another owner, a stranger, another district's staff NOT_FOUND", async () => {
    const v = { p: home.propertyId };
    expect(await code(signedOut, EXCESS, v)).toBe("UNAUTHENTICATED");
    expect(await code(stranger, EXCESS, v)).toBe("NOT_FOUND");
    expect(await code(otherOwner, EXCESS, v)).toBe("NOT_FOUND");
    expect(await code(lakeviewClerk, EXCESS, v)).toBe("NOT_FOUND");
    expect(await code(owner, EXCESS, v)).toBe("OK");
    expect(await code(huronOperator, EXCESS, v)).toBe("OK");
    expect(await code(huronClerk, EXCESS, v)).toBe("OK");
    expect(await code(owner, EXCESS, { p: "not-an-id" })).toBe("NOT_FOUND");
  });

  it("paying online: the owner of record only (staff FORBIDDEN); nothing to pay on a property without an excess bill", async () => {
    const v = { i: { propertyId: home.propertyId, amountCents: 500 } };
    expect(await code(signedOut, PAY, v)).toBe("UNAUTHENTICATED");
    expect(await code(stranger, PAY, v)).toBe("NOT_FOUND");
    expect(await code(otherOwner, PAY, v)).toBe("NOT_FOUND");
    expect(await code(lakeviewClerk, PAY, v)).toBe("NOT_FOUND");
    expect(await code(huronClerk, PAY, v)).toBe("FORBIDDEN");
    expect(await code(huronOperator, PAY, v)).toBe("FORBIDDEN");
    expect(await code(owner, PAY, v)).toBe("OK");
    expect(await code(owner, PAY, { i: { propertyId: bare.propertyId, amountCents: 500 } })).toBe("CONFLICT");
    expect(fields(await owner.gql(PAY, { i: { propertyId: home.propertyId, amountCents: 0 } })).amountCents).toContain("$0.01");
  });

  it("the counter: the district's Town Clerk only (its Operator FORBIDDEN; Lakeview's Clerk NOT_FOUND; the owner FORBIDDEN)", async () => {
    const v = { i: { propertyId: home.propertyId, amountCents: 100, method: "cash" } };
    expect(await code(signedOut, COUNTER, v)).toBe("UNAUTHENTICATED");
    expect(await code(owner, COUNTER, v)).toBe("FORBIDDEN");
    expect(await code(huronOperator, COUNTER, v)).toBe("FORBIDDEN");
    expect(await code(lakeviewClerk, COUNTER, v)).toBe("NOT_FOUND");
    expect(await code(huronClerk, COUNTER, v)).toBe("OK");
    expect(await code(huronClerk, COUNTER, { i: { propertyId: bare.propertyId, amountCents: 100, method: "cash" } })).toBe("CONFLICT");
    // Nothing landed on the accounts of either property.
    expect(await balanceOf(home.account.id)).toBe(0);
    expect(await balanceOf(bare.account.id)).toBe(0);
  });
});

describe("statement counts", () => {
  it("balances of many properties take the statements of one; the late-charges batch of three properties those of one", async () => {
    const ids: string[] = (await db().query(`SELECT DISTINCT property_id FROM bill WHERE kind = 'OWNER_EXCESS' AND district_id = $1`, [huron.id])).map((r: any) => r.property_id);
    expect(ids.length).toBeGreaterThan(1);
    expect(await countStatements(db(), () => excessBalances(db(), ids))).toBe(await countStatements(db(), () => excessBalances(db(), ids.slice(0, 1))));
    const district = await db().getRepository(District).findOneByOrFail({ id: huron.id });
    const due = async (n: number, periodStart: string, mailedOn: string, dueOn: string) => {
      for (let i = 0; i < n; i++) await excessBill(await property({ ownerEmail: "excess-other@example.com" }), { periodStart, periodEnd: periodStart.replace(/-01$/, "-28"), mailedOn, dueOn, totalCents: 1_000 });
    };
    // Each round's bills fall due alone: the earlier rounds' were charged by the round before.
    await due(1, "2027-01-01", "2027-03-01", "2027-03-16");
    noonOn("2027-04-16");
    await postExcessLateCharges(db(), district, dateIn(district.timeZone), "http://tapline.test");
    noonOn("2027-05-20");
    await postExcessLateCharges(db(), district, dateIn(district.timeZone), "http://tapline.test");
    await due(1, "2027-02-01", "2027-06-01", "2027-06-16");
    noonOn("2027-07-17");
    const one = await countStatements(db(), () => postExcessLateCharges(db(), district, dateIn(district.timeZone), "http://tapline.test"));
    await due(3, "2027-03-01", "2027-08-01", "2027-08-16");
    noonOn("2027-09-16");
    const three = await countStatements(db(), () => postExcessLateCharges(db(), district, dateIn(district.timeZone), "http://tapline.test"));
    expect(one).toBeGreaterThan(5);
    expect(three).toBe(one);
  });
});

/** The first render of each page compiles it in Vite: 120 s each on a busy machine. */
describe("the pages, without JavaScript", () => {
  const { get, post } = portal(() => srv.url);
  const text = pageText;
  let home: Awaited<ReturnType<typeof property>>;
  let bill: { id: string; number: string };
  beforeAll(async () => {
    home = await property({ ownerEmail: "excess-owner@example.com", ownerName: "Edna Excess" });
    bill = await excessBill(home, { periodStart: "2026-10-01", periodEnd: "2026-12-31", mailedOn: "2027-01-04", dueOn: "2027-01-19", totalCents: 3_250 });
  });

  it("the owner's excess bill page shows its balance and Pay, which leads to the payment page", async () => {
    noonOn("2027-01-05");
    const page = await get(owner, `/properties/bills/${bill.id}`);
    expect(page.status).toBe(200);
    expect(text(page.html)).toContain("The owner's excess bills of this property: balance and payments");
    expect(text(page.html)).toContain("$32.50 owed");
    const bad = await post(owner, `/properties/bills/${bill.id}`, { propertyId: home.propertyId, amount: "thirty" });
    expect(bad.status).toBe(400);
    expect(text(bad.html)).toContain("Enter the amount in dollars, like 125.00.");
    const ok = await post(owner, `/properties/bills/${bill.id}`, { propertyId: home.propertyId, amount: "12.50" });
    expect(ok.status).toBe(302);
    expect(ok.location).toMatch(/^\/payments\/[0-9a-f-]{36}$/);
    const [p] = await db().query(`SELECT payable_type, payable_id, amount_cents FROM payment WHERE id = $1`, [ok.location!.split("/").pop()]);
    expect(p).toEqual({ payable_type: "SewerOwnersExcess", payable_id: home.propertyId, amount_cents: 1_250 });
  }, 120_000);

  it("the Clerk's property page records a counter payment toward the excess bills, the check number asked for at its field", async () => {
    noonOn("2027-01-05");
    const path = `/staff/properties/${home.propertyId}`;
    const page = text((await get(huronClerk, path)).html);
    expect(page).toContain("Owner's excess bills on a shared meter");
    expect(page).toContain("Record a payment at the counter toward the owner's excess bills");
    const bad = await post(huronClerk, path, { intent: "excess", amount: "10.00", method: "check", checkNumber: "" });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/id="checkNumber-error"[^>]*>Enter the check number\./);
    const ok = await post(huronClerk, path, { intent: "excess", amount: "10.00", method: "check", checkNumber: "3003" });
    expect(ok.status).toBe(302);
    expect(ok.location).toContain("done=excess");
    const after = text((await get(huronClerk, path)).html);
    expect(after).toContain("$22.50 owed");
    expect(after).toContain("check no. 3003");
    // The Operator reads it but has no counter.
    expect(text((await get(huronOperator, path)).html)).not.toContain("Record a payment at the counter toward");
  }, 120_000);
});

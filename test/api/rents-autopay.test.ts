import { pino } from "pino";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { addCalendarDays, dateIn, zonedInstant } from "../../api/common/dates.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { accountBalances } from "../../api/rents/ledger.js";
import { AUTOPAY_RETRY_DAYS, AUTOPAY_UNANSWERED_HOURS } from "../../api/rents/autopay.service.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * Autopay (issue 14, "Paying"; issue 15: on the district's own Stripe account): the person billed
 * saves a card (Checkout in setup mode on the district's connected account), each bill is charged
 * on its due date once by the job, a decline is retried once and then left for the owner to
 * pay, each outcome is emailed, a job run again or a late webhook never charges twice, another
 * account's event changes nothing, and who may do what, operation by operation.
 */

const TZ = "America/New_York";
const PLATFORM_SECRET = "whsec_platform";
const CONNECT_SECRET = "whsec_connect";
const log = pino({ level: "silent" });
const signer = new Stripe("sk_test_x");
let srv: TestServer;
let stripe: StandIn;
let lakeview: { id: string };
let huron: { id: string };
let acct: string;
let clerk: Client;
let huronClerk: Client;
let owner: Client;
let stranger: Client;
let ownerId: string;
let home: { propertyId: string; accountId: string };
const db = () => srv.running.ds;

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const AP = `accountId accountNumber offered notOfferedReason canManage provider setupPending enabled enabledOn retryDays
  card { brand last4 expMonth expYear test label } charges { billId billNumber dueOn amountCents status statusText attempts nextAttemptOn paymentId receiptNumber }`;
const GET = `query($a: ID!) { serviceAccountAutopay(accountId: $a) { ${AP} } }`;
const START = `mutation($a: ID!) { startAutopaySetup(accountId: $a) { url } }`;
const FINISH = `mutation($a: ID!) { finishAutopaySetup(accountId: $a) { ${AP} } }`;
const SET = `mutation($i: SetAutopayInput!) { setAutopay(input: $i) { ${AP} } }`;
const REMOVE = `mutation($a: ID!) { removeAutopayCard(accountId: $a) { ${AP} } }`;
const TEST_CARD = `mutation($i: SaveTestAutopayCardInput!) { saveTestAutopayCard(input: $i) { ${AP} } }`;

let n = 0;
async function property(c: Client, districtId: string, ownerEmail: string | null) {
  n++;
  const p = (await c.ok(ADD, { i: { districtId, taxParcel: `77.${n}-1-${n}`, streetNumber: String(n), street: "Autopay Lane", zip: "13600", ownerName: `Owner ${n}`, ownerSince: "2020-01-01", ownerEmail } })).addSewerProperty;
  const a = (await c.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: `Occupant ${n}`, openedOn: "2024-01-01" } })).openServiceAccount;
  return { propertyId: p.id, accountId: a.id, accountNumber: a.accountNumber };
}

let period = 0;
/** An issued bill of the account, due on `dueOn` (written as a bill run leaves it). */
async function issueBill(districtId: string, a: { propertyId: string; accountId: string }, dueOn: string, totalCents: number): Promise<{ id: string; number: string }> {
  const start = addCalendarDays("2020-01-01", 92 * period++).slice(0, 8) + "01";
  const end = addCalendarDays(start, 27);
  const [{ id: versionId }] = await db().query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [districtId]);
  const [{ id: clerkId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.lakeviewClerk]);
  const mailedOn = addCalendarDays(dueOn, -20);
  const [run] = await db().query(
    `INSERT INTO bill_run (district_id, cycle, period_start, period_end, status, rulebook_version_id, mailed_on, due_on, previewed_by_id, bill_count, issued_count, total_cents)
     VALUES ($1, 'OTHER', $2, $3, 'ISSUED', $4, $5, $6, $7, 1, 1, $8) RETURNING id`,
    [districtId, start, end, versionId, mailedOn, dueOn, clerkId, totalCents],
  );
  const number = `AUT-${start.slice(0, 7).replace("-", "")}-${String(n).padStart(4, "0")}`;
  const [bill] = await db().query(
    `INSERT INTO bill (run_id, district_id, cycle, kind, account_id, property_id, bill_to, period_start, period_end, served_from, served_to, total_cents, status, number, mailed_on, due_on, rulebook_version_id, issued_at)
     VALUES ($1, $2, 'OTHER', 'ACCOUNT', $3, $4, 'Occupant', $5, $6, $5, $6, $7, 'ISSUED', $8, $9, $10, $11, now()) RETURNING id, number`,
    [run.id, districtId, a.accountId, a.propertyId, start, end, totalCents, number, mailedOn, dueOn, versionId],
  );
  return bill;
}

let jobs = 0;
/** The autopay job, run on `day` at `time` in New York (noon unless told). */
async function runJobOn(day: string, time = "12:00") {
  travelTo(zonedInstant(`${day}T${time}`, TZ)!);
  await enqueueJob(db(), { name: "rents.autopay", payload: { publicUrl: "http://tapline.test" }, singletonKey: `autopay-test-${++jobs}` });
  await runDueJobs(db(), log, 20);
}

const intents = (billId?: string) => stripe.requests.filter((r) => r.method === "POST" && r.path === "/v1/payment_intents" && (!billId || r.params.metadata?.autopayBillId === billId));
const emails = async (kind: string) => (await db().query(`SELECT subject, body_text FROM outbox_email WHERE kind = $1 AND recipient_id = $2 ORDER BY created_at`, [kind, ownerId])) as { subject: string; body_text: string }[];
const chargeRow = async (billId: string) => (await db().query(`SELECT * FROM autopay_charge WHERE bill_id = $1`, [billId]))[0];
const paymentsOf = async (accountId: string) => db().query(`SELECT * FROM payment WHERE payable_type = 'SewerAccount' AND payable_id = $1 ORDER BY created_at`, [accountId]);
const balance = async (accountId: string) => (await accountBalances(db(), [accountId])).get(accountId)!.balanceCents;

async function deliver(event: unknown, secret = CONNECT_SECRET): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret });
  return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}

beforeAll(async () => {
  stripe = await startStripeStandIn();
  srv = await startTestServer({ portal: "vite", env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: PLATFORM_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET, STRIPE_API_BASE: stripe.url } });
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [clerk, huronClerk] = await Promise.all([DEMO.lakeviewClerk, DEMO.huronClerk].map((e) => signedInAs(srv.url, e)));
  owner = new Client(srv.url);
  ownerId = await owner.signUp("autopay-owner@example.com", "Ada Owner");
  stranger = new Client(srv.url);
  await stranger.signUp("autopay-stranger@example.com", "Sam Stranger");
  acct = await connectDistrictAccount(stripe, srv, "lakeview");
  home = await property(clerk, lakeview.id, "autopay-owner@example.com");
}, 120_000);
afterAll(async () => {
  resetClock();
  await srv?.close();
  await stripe?.close();
});

describe("a district with no connected account able to charge", () => {
  it("offers no autopay and says so; nothing is asked of Stripe", async () => {
    const h = await property(huronClerk, huron.id, "autopay-owner@example.com");
    const ap = (await owner.ok(GET, { a: h.accountId })).serviceAccountAutopay;
    expect(ap).toMatchObject({ offered: false, canManage: true, card: null, enabled: false });
    expect(ap.notOfferedReason).toMatch(/^Town of Huron Sewer District No. 1 offers no autopay: it takes payments at the district office only \(cash or check\)/);
    const before = stripe.requests.length;
    const r = await owner.gql(START, { a: h.accountId });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toBe(ap.notOfferedReason);
    expect(stripe.requests.length).toBe(before);
  });
});

describe("saving a card on the district's own Stripe account", () => {
  it("a Customer and a setup-mode Checkout Session on the district's account; back from Stripe the card is kept and autopay is on", async () => {
    const ap0 = (await owner.ok(GET, { a: home.accountId })).serviceAccountAutopay;
    expect(ap0).toMatchObject({ offered: true, notOfferedReason: null, provider: "stripe", card: null, enabled: false, retryDays: AUTOPAY_RETRY_DAYS });
    const { url } = (await owner.ok(START, { a: home.accountId })).startAutopaySetup;
    const customer = stripe.requests.find((r) => r.path === "/v1/customers")!;
    expect(customer.account).toBe(acct);
    const setup = stripe.requests.find((r) => r.path === "/v1/checkout/sessions" && r.params.mode === "setup")!;
    expect(setup).toMatchObject({ account: acct, params: { customer: expect.stringMatching(/^cus_/), client_reference_id: home.accountId } });
    expect(setup.params.success_url).toBe(`http://tapline.test/properties/autopay/${home.accountId}?setup=done`);
    expect((await owner.ok(GET, { a: home.accountId })).serviceAccountAutopay.setupPending).toBe(true);

    stripe.complete(url.split("/").pop()!, { brand: "mastercard", last4: "4444", expMonth: 8, expYear: 2031 });
    const ap = (await owner.ok(FINISH, { a: home.accountId })).finishAutopaySetup;
    expect(ap).toMatchObject({ enabled: true, setupPending: false, card: { brand: "mastercard", last4: "4444", expMonth: 8, expYear: 2031, test: false, label: "Mastercard ending 4444" } });
    expect(ap.enabledOn).toBe(dateIn(TZ));
    // Back again (a reload), and the webhook of the same session: kept once.
    await owner.ok(FINISH, { a: home.accountId });
    const session = stripe.sessions.get(url.split("/").pop()!);
    expect((await deliver(stripe.event("checkout.session.completed", session))).status).toBe(200);
    expect(await db().query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'rents.autopay_card_saved' AND entity_id = $1`, [home.accountId])).toEqual([{ n: 1 }]);
    expect((await emails("rents.autopay_on"))[0].subject).toMatch(/^Autopay is on for sewer account LKV-/);
  });
});

describe("charging each bill on its due date", () => {
  const DUE = "2027-01-20";
  let bill: { id: string; number: string };

  it("the last minute before the due date charges nothing; in its first minute the balance is charged once, as a payment settled with its receipt", async () => {
    bill = await issueBill(lakeview.id, home, DUE, 12_345);
    expect(await balance(home.accountId)).toBe(12_345);
    // The last minute of the day before (New York), then the first of the due date.
    await runJobOn(addCalendarDays(DUE, -1), "23:59");
    expect(intents()).toHaveLength(0);
    expect(await chargeRow(bill.id)).toBeUndefined();

    await runJobOn(DUE, "00:01");
    const sent = intents(bill.id);
    expect(sent).toHaveLength(1);
    const [{ payment_method_id, customer_id }] = await db().query(`SELECT payment_method_id, customer_id FROM autopay WHERE account_id = $1`, [home.accountId]);
    expect(sent[0]).toMatchObject({
      account: acct,
      idempotencyKey: `autopay-${bill.id}-a1`,
      params: { amount: "12345", currency: "usd", off_session: "true", confirm: "true", customer: customer_id, payment_method: payment_method_id },
    });
    const [p] = await paymentsOf(home.accountId);
    expect(p).toMatchObject({ status: "PAID", payer_id: ownerId, amount_cents: 12_345, provider: "stripe", method: "card", stripe_account_id: acct });
    expect(stripe.accountOf.get(p.provider_payment_intent)).toBe(acct);
    expect(await balance(home.accountId)).toBe(0);
    expect(await chargeRow(bill.id)).toMatchObject({ status: "SUCCEEDED", attempts: 1, amount_cents: 12_345, payment_id: p.id });
    const [charged] = await emails("rents.autopay_charged");
    expect(charged.subject).toBe(`Autopay charged $123.45 for sewer bill ${bill.number}`);
    expect(charged.body_text).toContain(`Mastercard ending 4444`);
    expect(charged.body_text).toContain(`Receipt ${p.receipt_number}`);
    const ap = (await owner.ok(GET, { a: home.accountId })).serviceAccountAutopay;
    expect(ap.charges[0]).toMatchObject({ billId: bill.id, status: "SUCCEEDED", statusText: "Charged", amountCents: 12_345, receiptNumber: p.receipt_number });
  });

  it("a second run, and Stripe's webhook of the same charge, charge and record nothing more", async () => {
    await runJobOn(DUE);
    await runJobOn(addCalendarDays(DUE, 1));
    expect(intents(bill.id)).toHaveLength(1);
    const pi = stripe.paymentIntents.get((await paymentsOf(home.accountId))[0].provider_payment_intent);
    const event = stripe.event("payment_intent.succeeded", pi);
    expect(event.account).toBe(acct);
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver(event)).status).toBe(200);
    expect(await paymentsOf(home.accountId)).toHaveLength(1);
    expect(await emails("rents.autopay_charged")).toHaveLength(1);
  });

  it("another connected account's event about this charge changes nothing", async () => {
    const other = await connectDistrictAccount(stripe, srv, "huron");
    const b = await issueBill(lakeview.id, home, "2027-02-20", 500);
    await db().query(
      `INSERT INTO autopay_charge (bill_id, account_id, district_id, user_id, due_on, status, attempts, amount_cents, provider, stripe_account_id) VALUES ($1, $2, $3, $4, '2027-02-20', 'CHARGING', 1, 500, 'stripe', $5)`,
      [b.id, home.accountId, lakeview.id, ownerId, acct],
    );
    const forged = { id: "pi_forged", object: "payment_intent", amount: 500, amount_received: 500, currency: "usd", status: "succeeded", metadata: { autopayBillId: b.id, autopayAttempt: "1" } };
    const r = await deliver(stripe.event("payment_intent.succeeded", forged, { account: other }));
    expect(r.status).toBe(200);
    expect(await chargeRow(b.id)).toMatchObject({ status: "CHARGING", payment_id: null });
    expect(await paymentsOf(home.accountId)).toHaveLength(1);
    // An account no district owns: refused.
    expect((await deliver(stripe.event("payment_intent.succeeded", forged, { account: "acct_nobody" }))).status).toBe(400);
    await db().query(`UPDATE autopay_charge SET status = 'SKIPPED', outcome = 'test' WHERE bill_id = $1`, [b.id]);
  });

  it("a job that died after Stripe charged sends the same key again: one charge, settled once", async () => {
    const due = "2027-03-20";
    const b = await issueBill(lakeview.id, home, due, 4_200);
    const [card] = await db().query(`SELECT * FROM autopay WHERE account_id = $1`, [home.accountId]);
    // The run that died: the attempt stored, Stripe called, nothing recorded after.
    await db().query(
      `INSERT INTO autopay_charge (bill_id, account_id, district_id, user_id, due_on, status, attempts, amount_cents, provider, stripe_account_id, customer_id, payment_method_id, card_label)
       VALUES ($1, $2, $3, $4, $5, 'CHARGING', 1, 4200, 'stripe', $6, $7, $8, 'Mastercard ending 4444')`,
      [b.id, home.accountId, lakeview.id, ownerId, due, acct, card.customer_id, card.payment_method_id],
    );
    const body = new URLSearchParams({ amount: "4200", currency: "usd", customer: card.customer_id, payment_method: card.payment_method_id, off_session: "true", confirm: "true", "metadata[autopayBillId]": b.id, "metadata[autopayAttempt]": "1" });
    await fetch(`${stripe.url}/v1/payment_intents`, { method: "POST", headers: { authorization: "Bearer sk_test_x", "idempotency-key": `autopay-${b.id}-a1`, "stripe-account": acct, "content-type": "application/x-www-form-urlencoded" }, body });
    await runJobOn(due);
    const made = [...stripe.paymentIntents.values()].filter((pi) => pi.metadata.autopayBillId === b.id);
    expect(made).toHaveLength(1);
    expect(await chargeRow(b.id)).toMatchObject({ status: "SUCCEEDED", payment_intent_id: made[0].id });
    expect((await paymentsOf(home.accountId)).filter((p: any) => p.provider_payment_intent === made[0].id)).toHaveLength(1);
    expect(await balance(home.accountId)).toBe(500); // the February bill left aside above
  });

  it("a declined charge is tried once more three days later, then left for the owner to pay, with an email each time", async () => {
    const due = "2027-04-20";
    const [card] = await db().query(`SELECT payment_method_id FROM autopay WHERE account_id = $1`, [home.accountId]);
    stripe.declineCard(card.payment_method_id, "insufficient_funds");
    const b = await issueBill(lakeview.id, home, due, 9_900);
    await runJobOn(due);
    expect(intents(b.id)).toHaveLength(1);
    const retryOn = addCalendarDays(due, AUTOPAY_RETRY_DAYS);
    expect(await chargeRow(b.id)).toMatchObject({ status: "RETRY", attempts: 1, amount_cents: 10_400, payment_id: null });
    expect((await db().query(`SELECT next_attempt_on::text AS d FROM autopay_charge WHERE bill_id = $1`, [b.id]))[0].d).toBe(retryOn);
    const [declined] = await emails("rents.autopay_declined");
    expect(declined.subject).toBe(`Autopay was declined for sewer bill ${b.number}; we will try again on April 23, 2027`);
    expect(declined.body_text).toContain("your card has insufficient funds");
    expect((await owner.ok(GET, { a: home.accountId })).serviceAccountAutopay.charges[0]).toMatchObject({ status: "RETRY", nextAttemptOn: retryOn, statusText: "Declined; tried again on April 23, 2027" });

    await runJobOn(addCalendarDays(retryOn, -1));
    expect(intents(b.id)).toHaveLength(1);
    await runJobOn(retryOn);
    const both = intents(b.id);
    expect(both.map((r) => r.idempotencyKey)).toEqual([`autopay-${b.id}-a1`, `autopay-${b.id}-a2`]);
    expect(await chargeRow(b.id)).toMatchObject({ status: "LEFT_TO_PAY", attempts: 2, next_attempt_on: null });
    const [left] = await emails("rents.autopay_left_to_pay");
    expect(left.subject).toBe(`Autopay was declined again: sewer bill ${b.number} is left for you to pay`);
    expect(left.body_text).toContain(`http://tapline.test/properties/bills/${b.id}`);
    await runJobOn(addCalendarDays(retryOn, 7));
    expect(intents(b.id)).toHaveLength(2);
    expect(await balance(home.accountId)).toBe(10_400);
    expect((await owner.ok(GET, { a: home.accountId })).serviceAccountAutopay).toMatchObject({ enabled: true });
    stripe.declineCard(card.payment_method_id, null);
  });

  it("nothing is charged when nothing is due, or after autopay is turned off", async () => {
    // The owner pays the balance at the counter.
    const [{ id: paymentId }] = await db().transaction(async (tx) => {
      const { createAccountPayment } = await import("../../api/rents/ledger.js");
      return [await createAccountPayment(tx, { userId: null }, { accountId: home.accountId, payerId: ownerId, amountCents: 10_400 })];
    });
    await clerk.ok(`mutation($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { status } }`, { i: { paymentId, method: "cash" } });
    const paid = await issueBill(lakeview.id, home, "2027-05-20", 0);
    await runJobOn("2027-05-20");
    expect(await chargeRow(paid.id)).toMatchObject({ status: "SKIPPED", outcome: "nothing was due: the account's balance is paid" });
    expect(intents(paid.id)).toHaveLength(0);

    const off = (await owner.ok(SET, { i: { accountId: home.accountId, enabled: false } })).setAutopay;
    expect(off).toMatchObject({ enabled: false, enabledOn: null, card: { last4: "4444" } });
    const b = await issueBill(lakeview.id, home, "2027-06-20", 3_000);
    await runJobOn("2027-06-20");
    expect(await chargeRow(b.id)).toBeUndefined();
    // On again the next day: a bill due before that day is not charged after the fact.
    travelTo("2027-06-21T17:00:00Z");
    const on = (await owner.ok(SET, { i: { accountId: home.accountId, enabled: true } })).setAutopay;
    expect(on).toMatchObject({ enabled: true, enabledOn: "2027-06-21" });
    await runJobOn("2027-06-21");
    expect(await chargeRow(b.id)).toBeUndefined();
  });

  it("the owner removes the card: detached on the district's account, autopay off", async () => {
    const [card] = await db().query(`SELECT payment_method_id FROM autopay WHERE account_id = $1`, [home.accountId]);
    const ap = (await owner.ok(REMOVE, { a: home.accountId })).removeAutopayCard;
    expect(ap).toMatchObject({ card: null, enabled: false });
    const detach = stripe.requests.find((r) => r.path === `/v1/payment_methods/${card.payment_method_id}/detach`)!;
    expect(detach.account).toBe(acct);
    expect(stripe.paymentMethods.get(card.payment_method_id).customer).toBeNull();
    expect(errorCode(await owner.gql(SET, { i: { accountId: home.accountId, enabled: true } }))).toBe("CONFLICT");
    expect(errorCode(await owner.gql(REMOVE, { a: home.accountId }))).toBe("CONFLICT");
    // A run that died before the card was removed comes back to its attempt: Stripe refuses the detached card, which
    // counts as a failed attempt (not a charge tried again every hour).
    const b = await issueBill(lakeview.id, home, "2027-07-20", 800);
    await db().query(
      `INSERT INTO autopay_charge (bill_id, account_id, district_id, user_id, due_on, status, attempts, amount_cents, provider, stripe_account_id, customer_id, payment_method_id, card_label)
       SELECT $1, account_id, district_id, user_id, '2027-07-20', 'CHARGING', 1, 800, 'stripe', stripe_account_id, customer_id, $2, 'Mastercard ending 4444' FROM autopay WHERE account_id = $3`,
      [b.id, card.payment_method_id, home.accountId],
    );
    await runJobOn("2027-07-20");
    expect(await chargeRow(b.id)).toMatchObject({ status: "RETRY", attempts: 1 });
    expect((await chargeRow(b.id)).outcome).toMatch(/^the card could not be charged \(/);
    await db().query(`UPDATE autopay_charge SET status = 'SKIPPED', next_attempt_on = NULL WHERE bill_id = $1`, [b.id]);
  });
});

describe("an attempt Stripe never answers, and a card that expires before a bill's due date", () => {
  let other: { propertyId: string; accountId: string; accountNumber: string };
  beforeAll(async () => {
    other = await property(clerk, lakeview.id, "autopay-owner@example.com");
    // A card saved as the setup leaves it (not at Stripe: Stripe does not answer, or is not asked).
    await db().query(
      `INSERT INTO autopay (account_id, district_id, user_id, provider, stripe_account_id, customer_id, payment_method_id, card_brand, card_last4, card_exp_month, card_exp_year, enabled, enabled_on)
       VALUES ($1, $2, $3, 'stripe', $4, 'cus_unanswered', 'pm_unanswered', 'visa', '4242', 1, 2028, true, '2027-08-01')`,
      [other.accountId, lakeview.id, ownerId, acct],
    );
  });

  it(`no answer is tried each hour with the same key for ${AUTOPAY_UNANSWERED_HOURS} hours; just past them the bill is left to pay, with the email`, async () => {
    const due = "2027-09-20";
    const b = await issueBill(lakeview.id, other, due, 5_000);
    stripe.outage(["/v1/payment_intents"]);
    try {
      await runJobOn(due, "00:30");
      const first = await chargeRow(b.id);
      expect(first).toMatchObject({ status: "CHARGING", attempts: 1 });
      expect(first.unanswered_since).not.toBeNull();
      // At the limit (a minute before it): still tried, with the same key.
      await runJobOn(addCalendarDays(due, 1), "00:29");
      expect(await chargeRow(b.id)).toMatchObject({ status: "CHARGING", attempts: 1 });
      expect(new Set(intents(b.id).map((r) => r.idempotencyKey))).toEqual(new Set([`autopay-${b.id}-a1`]));
      // Just past it: left to pay, like a last decline.
      await runJobOn(addCalendarDays(due, 1), "00:31");
      expect(await chargeRow(b.id)).toMatchObject({ status: "LEFT_TO_PAY", attempts: 1, outcome: `the card processor did not answer for ${AUTOPAY_UNANSWERED_HOURS} hours` });
      const left = (await emails("rents.autopay_left_to_pay")).filter((m) => m.subject.includes(b.number));
      expect(left.map((m) => m.subject)).toEqual([`Autopay could not charge sewer bill ${b.number}: it is left for you to pay`]);
      expect(left[0].body_text).toContain(`http://tapline.test/properties/bills/${b.id}`);
      const audits = await db().query(`SELECT details FROM audit_entry WHERE action = 'rents.autopay_declined' AND entity_id = $1`, [other.accountId]);
      expect(audits.map((a: any) => [a.details.leftToPay, a.details.unanswered])).toEqual([[true, true]]);
      const sent = intents(b.id).length;
      await runJobOn(addCalendarDays(due, 2), "00:30");
      expect(intents(b.id)).toHaveLength(sent);
    } finally {
      stripe.outage(null);
    }
  });

  it("a card good through January 2028: no warning for a bill due January 31; one warning, once, for a bill due February 1", async () => {
    const expiring = async () => (await emails("rents.autopay_card_expiring")).filter((m) => m.subject.includes(other.accountNumber));
    await issueBill(lakeview.id, other, "2028-01-31", 4_000);
    await runJobOn("2028-01-10");
    expect(await expiring()).toEqual([]);
    await issueBill(lakeview.id, other, "2028-02-01", 4_100);
    await runJobOn("2028-01-11");
    const [warned, ...more] = await expiring();
    expect(more).toEqual([]);
    expect(warned.subject).toBe(`Autopay: your card expires before sewer account ${other.accountNumber}'s next bill is due`);
    expect(warned.body_text).toContain("Visa ending 4242 that autopay charges");
    expect(warned.body_text).toContain("expires at the end of 01/2028, before the next bill is due on February 1, 2028");
    expect(warned.body_text).toContain(`http://tapline.test/properties/autopay/${other.accountId}`);
    await runJobOn("2028-01-12");
    expect(await expiring()).toHaveLength(1);
    expect((await db().query(`SELECT expiry_warned_for FROM autopay WHERE account_id = $1`, [other.accountId]))[0].expiry_warned_for).toBe("2028-01");
    // Off, so the later tests' runs charge nothing here.
    await db().query(`UPDATE autopay SET enabled = false, enabled_on = NULL WHERE account_id = $1`, [other.accountId]);
  });
});

describe("the job's statements", () => {
  it("do not grow with the bills a run looks at", async () => {
    const accounts = async (k: number, due: string) => {
      for (let i = 0; i < k; i++) {
        const p = await property(clerk, lakeview.id, "autopay-owner@example.com");
        await db().query(
          `INSERT INTO autopay (account_id, district_id, user_id, provider, stripe_account_id, customer_id, payment_method_id, card_brand, card_last4, enabled, enabled_on)
           VALUES ($1, $2, $3, 'stripe', $4, 'cus_x', 'pm_x', 'visa', '4242', true, '2027-01-01')`,
          [p.accountId, lakeview.id, ownerId, acct],
        );
        await issueBill(lakeview.id, p, due, 0); // nothing due: each is looked at and skipped, with no call to Stripe
      }
    };
    await accounts(1, "2027-08-20");
    const one = await countStatements(db(), () => runJobOn("2027-08-20"));
    await accounts(4, "2027-09-20");
    const four = await countStatements(db(), () => runJobOn("2027-09-20"));
    expect(four).toBe(one);
    expect(await db().query(`SELECT count(*)::int AS n FROM autopay_charge WHERE due_on IN ('2027-08-20', '2027-09-20') AND status = 'SKIPPED'`)).toEqual([{ n: 5 }]);
    await db().query(`UPDATE autopay SET enabled = false, enabled_on = NULL WHERE customer_id = 'cus_x'`);
  });
});

describe("who may see and change autopay, operation by operation", () => {
  it("signed out, a stranger, another district's Clerk, the district's Clerk, the owner", async () => {
    const a = home.accountId;
    const ops: [string, Record<string, unknown>][] = [
      [GET, { a }],
      [START, { a }],
      [FINISH, { a }],
      [SET, { i: { accountId: a, enabled: false } }],
      [REMOVE, { a }],
      [TEST_CARD, { i: { accountId: a } }],
    ];
    for (const [q, v] of ops) expect(errorCode(await new Client(srv.url).gql(q, v))).toBe("UNAUTHENTICATED");
    for (const c of [stranger, huronClerk]) for (const [q, v] of ops) expect(errorCode(await c.gql(q, v)), q.slice(0, 40)).toBe(q === TEST_CARD ? "FORBIDDEN" : "NOT_FOUND");
    // The district's staff read it, and change nothing.
    const operator = await signedInAs(srv.url, DEMO.lakeviewOperator);
    for (const c of [clerk, operator]) {
      expect((await c.ok(GET, { a })).serviceAccountAutopay).toMatchObject({ canManage: false, accountId: a });
      for (const [q, v] of ops.slice(1)) expect(errorCode(await c.gql(q, v))).toBe("FORBIDDEN");
    }
    // The owner: the test card is refused while the portal has Stripe keys.
    expect((await owner.ok(GET, { a })).serviceAccountAutopay.canManage).toBe(true);
    expect(errorCode(await owner.gql(TEST_CARD, { i: { accountId: a } }))).toBe("FORBIDDEN");
    expect(errorCode(await owner.gql(GET, { a: "not-a-uuid" }))).toBe("NOT_FOUND");
  });
});

const { get, post } = portal(() => srv.url);
/** Presses a button of the page at `path` as a browser without JavaScript would (its CSRF token and cookie). */
const press = (c: Client, path: string, intent: string) => post(c, path, { intent });
const text = pageText;

describe("the person billed manages autopay", () => {
  it("Lakeview: the occupant with a sign-in, not the owner (SUL 1201); Huron: the owner of record (VI-3), not the occupant", async () => {
    const occupied = async (c: Client, districtId: string) => {
      n++;
      const p = (await c.ok(ADD, { i: { districtId, taxParcel: `78.${n}-1-${n}`, streetNumber: String(n), street: "Tenant Row", zip: "13600", ownerName: "Ada Owner", ownerSince: "2020-01-01", ownerEmail: "autopay-owner@example.com" } })).addSewerProperty;
      return (await c.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: "Sam Stranger", occupantEmail: "autopay-stranger@example.com", openedOn: "2024-01-01" } })).openServiceAccount.id;
    };
    const lkv = await occupied(clerk, lakeview.id);
    expect((await stranger.ok(GET, { a: lkv })).serviceAccountAutopay.canManage).toBe(true);
    expect(errorCode(await owner.gql(GET, { a: lkv }))).toBe("NOT_FOUND");
    expect(errorCode(await owner.gql(START, { a: lkv }))).toBe("NOT_FOUND");
    const hur = await occupied(huronClerk, huron.id);
    expect((await owner.ok(GET, { a: hur })).serviceAccountAutopay.canManage).toBe(true);
    expect(errorCode(await stranger.gql(GET, { a: hur }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.gql(SET, { i: { accountId: hur, enabled: true } }))).toBe("NOT_FOUND");
  });
});

describe("the autopay page, without JavaScript", () => {
  it("the owner saves a card on Stripe's page and comes back to it on; turns it off; staff read it; a district without an account says so", async () => {
    resetClock();
    const p = await property(clerk, lakeview.id, "autopay-owner@example.com");
    const path = `/properties/autopay/${p.accountId}`;
    expect(text((await get(owner, "/properties")).html)).toContain("Autopay");
    expect((await get(owner, "/properties")).html).toContain(`href="${path}"`);
    const first = await get(owner, path);
    expect(first.status).toBe(200);
    expect(text(first.html)).toContain(`Autopay for sewer account ${p.accountNumber}`);
    expect(text(first.html)).toContain("No card is saved for this account.");
    const go = await press(owner, path, "setup");
    expect(go.status).toBe(302);
    expect(go.location).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    stripe.complete(go.location!.split("/").pop()!);
    const back = text((await get(owner, `${path}?setup=done`)).html);
    expect(back).toContain("Visa ending 4242, expires 12/2030. Autopay is on");
    const off = await press(owner, path, "off");
    expect(off.status).toBe(200);
    expect(text(off.html)).toContain("Autopay is off. Your card stays saved.");
    expect(text((await get(owner, path)).html)).toContain("Turn autopay on");
    // The district's Clerk reads it; a stranger gets a 404.
    expect(text((await get(clerk, path)).html)).toContain("Only the person billed for this account manages its autopay.");
    expect((await get(stranger, path)).status).toBe(404);
    // Huron has connected an account above; a district with none says so (the account's page, no button).
    await db().query(`UPDATE district_stripe_account SET charges_enabled = false WHERE district_id = $1`, [huron.id]);
    const h = await property(huronClerk, huron.id, "autopay-owner@example.com");
    const page = text((await get(owner, `/properties/autopay/${h.accountId}`)).html);
    expect(page).toContain("Town of Huron Sewer District No. 1 offers no autopay");
    expect(page).not.toContain("Save a card for autopay");
  }, 120_000); // Vite renders the pages on first request
});

describe("without Stripe keys (test mode): the labelled test card", () => {
  let stripeServer: TestServer;
  beforeAll(async () => {
    resetClock();
    stripeServer = srv;
    srv = await startTestServer();
    ({ lakeview } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } }`));
    clerk = await signedInAs(srv.url, DEMO.lakeviewClerk);
    owner = new Client(srv.url);
    ownerId = await owner.signUp("autopay-owner@example.com", "Ada Owner");
  }, 120_000);
  afterAll(async () => {
    await srv.close();
    srv = stripeServer;
  });

  it("autopay is offered with a test card, labelled; its charges are test payments; a declining test card shows the retry", async () => {
    const p = await property(clerk, lakeview.id, "autopay-owner@example.com");
    const a = p.accountId;
    expect((await owner.ok(GET, { a })).serviceAccountAutopay).toMatchObject({ offered: true, provider: "test", card: null });
    expect(errorCode(await owner.gql(START, { a }))).toBe("CONFLICT");
    const saved = (await owner.ok(TEST_CARD, { i: { accountId: a } })).saveTestAutopayCard;
    expect(saved).toMatchObject({ enabled: true, card: { test: true, last4: "4242", label: "Test card ending 4242 (no real card: no money moves)" } });
    const before = stripe.requests.length;
    const bill = await issueBill(lakeview.id, p, "2027-01-20", 7_500);
    await runJobOn("2027-01-20");
    const [pay] = await paymentsOf(a);
    expect(pay).toMatchObject({ status: "PAID", provider: "test", method: "card", amount_cents: 7_500, payer_id: ownerId, stripe_account_id: null });
    expect(await chargeRow(bill.id)).toMatchObject({ status: "SUCCEEDED", payment_id: pay.id });
    const [receipt] = (await db().query(`SELECT body_text FROM outbox_email WHERE kind = 'payment.receipt' AND recipient_id = $1`, [ownerId])) as any[];
    expect(receipt.body_text).toContain("Paid by card in the test checkout (no real money moved)");
    expect((await emails("rents.autopay_charged"))[0].body_text).toContain("Test card ending 4242 (no real card: no money moves)");

    await owner.ok(TEST_CARD, { i: { accountId: a, declines: true } });
    const next = await issueBill(lakeview.id, p, "2027-02-20", 7_500);
    await runJobOn("2027-02-20");
    expect(await chargeRow(next.id)).toMatchObject({ status: "RETRY", attempts: 1, outcome: "the test card declines (as a real card may)" });
    await runJobOn(addCalendarDays("2027-02-20", AUTOPAY_RETRY_DAYS));
    expect(await chargeRow(next.id)).toMatchObject({ status: "LEFT_TO_PAY", attempts: 2 });
    expect(await emails("rents.autopay_left_to_pay")).toHaveLength(1);
    expect(stripe.requests.length).toBe(before);
  });
});

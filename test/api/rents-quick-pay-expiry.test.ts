import { pino } from "pino";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { ABANDONED_REASON, QUICK_PAY_CHECKOUT_HOURS, QUICK_PAY_EXPIRY_JOB, expireAbandonedQuickPayments } from "../../api/rents/quick-pay.js";
import { Client, DEMO, countStatements, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { issueTestBill } from "../rents-fixtures.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * Abandoned quick-pay payments (issue 14): a payment without a payer whose Checkout Session expired
 * (Stripe: 24 hours; asked of Stripe on the district's account) is cancelled by the hourly job with
 * its audit entry; an open or completed session, a paid payment and a signed-in payer's payment are
 * never touched; the test checkout lapses after the same 24 hours; a second run changes nothing; at
 * the limit and just past it; a fixed number of statements whatever the number cancelled.
 */

const CONNECT_SECRET = "whsec_connect";
const HOUR = 3_600_000;
const signer = new Stripe("sk_test_x");
const log = pino({ level: "silent" });
let srv: TestServer;
let stripe: StandIn;
let lakeview: { id: string };
let stripeAccount: string;
let clerk: Client;
let owner: Client;
let acct: { id: string; accountNumber: string; propertyId: string; districtId: string };
const db = () => srv.running.ds;

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const QUICK = `mutation($i: StartQuickPayInput!) { startQuickPay(input: $i) { url paymentId } }`;
const PAY = `mutation($i: PayServiceAccountInput!) { payServiceAccount(input: $i) { id } }`;

/** A quick-pay payment started without signing in (only failed lookups count against the limits); its session id. */
async function quickPay(amountCents: number): Promise<{ id: string; session: string }> {
  const r = (await new Client(srv.url).ok(QUICK, { i: { accountNumber: acct.accountNumber, zip: "13600", amountCents } })).startQuickPay;
  return { id: r.paymentId, session: r.url.split("/").pop()! };
}
const row = async (id: string) => (await db().query(`SELECT status, cancel_reason, created_at, provider_session_id FROM payment WHERE id = $1`, [id]))[0];
const cancelAudits = async (id: string) => db().query(`SELECT reason, details FROM audit_entry WHERE action = 'payment.cancelled' AND entity_id = $1`, [id]);
async function deliver(event: unknown): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: CONNECT_SECRET });
  return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}
let runs = 0;
/** The hourly job, as the worker queues it, at `at`. */
async function runJobAt(at: Date) {
  travelTo(at);
  await enqueueJob(db(), { name: QUICK_PAY_EXPIRY_JOB, payload: { publicUrl: "http://tapline.test" }, singletonKey: `qp-expiry-test-${++runs}` });
  await runDueJobs(db(), log);
}
const afterHours = (created: Date, hours: number, ms = 0) => new Date(new Date(created).getTime() + hours * HOUR + ms);

beforeAll(async () => {
  stripe = await startStripeStandIn();
  srv = await startTestServer({ env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_platform", STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET, STRIPE_API_BASE: stripe.url } });
  ({ lakeview } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } }`));
  stripeAccount = await connectDistrictAccount(stripe, srv, "lakeview");
  clerk = await signedInAs(srv.url, DEMO.lakeviewClerk);
  owner = new Client(srv.url);
  await owner.signUp("qp-expiry-owner@example.com", "Quinn Owner");
  const p = (await clerk.ok(ADD, { i: { districtId: lakeview.id, taxParcel: "79.1-1-1", streetNumber: "1", street: "Lapse Lane", zip: "13600", ownerName: "Quinn Owner", ownerSince: "2020-01-01", ownerEmail: "qp-expiry-owner@example.com" } })).addSewerProperty;
  const a = (await clerk.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: "Quinn Occupant", openedOn: "2024-01-01" } })).openServiceAccount;
  acct = { id: a.id, accountNumber: a.accountNumber, propertyId: p.id, districtId: lakeview.id };
  await issueTestBill(db(), acct, { cycle: "OTHER", periodStart: "2026-07-01", periodEnd: "2026-09-30", mailedOn: "2026-10-01", dueOn: "2026-10-21", totalCents: 5_000 }, "QX");
}, 120_000);
afterEach(() => resetClock());
afterAll(async () => {
  await srv?.close();
  await stripe?.close();
});

describe("the hourly job cancels quick-pay payments whose checkout expired", () => {
  it(`at ${QUICK_PAY_CHECKOUT_HOURS} hours nothing is cancelled; just past it, only an expired session's payment, after asking Stripe on the district's account`, async () => {
    const expired = await quickPay(1_000);
    const open = await quickPay(1_100);
    const paidLate = await quickPay(1_200);
    const mine = (await owner.ok(PAY, { i: { accountId: acct.id, amountCents: 1_300 } })).payServiceAccount;
    stripe.sessions.get(expired.session)!.status = "expired";
    // Paid at Stripe, the webhook not yet in: the session is complete, the payment still pending.
    const complete = stripe.complete(paidLate.session);
    const created = (await row(paidLate.id)).created_at;

    // The rules' clock runs on from where it is put: "at the limit" is a few seconds before it.
    await runJobAt(afterHours((await row(expired.id)).created_at, QUICK_PAY_CHECKOUT_HOURS, -5_000));
    expect((await row(expired.id)).status).toBe("PENDING");

    const asked = stripe.requests.length;
    await runJobAt(afterHours(created, QUICK_PAY_CHECKOUT_HOURS, 1_000));
    const got = stripe.requests.slice(asked).filter((r) => r.method === "GET" && r.path.startsWith("/v1/checkout/sessions/"));
    expect(got.map((r) => r.path).sort()).toEqual([expired.session, open.session, paidLate.session].map((s) => `/v1/checkout/sessions/${s}`).sort());
    expect(got.every((r) => r.account === stripeAccount)).toBe(true);
    expect(await row(expired.id)).toMatchObject({ status: "CANCELLED", cancel_reason: ABANDONED_REASON });
    expect((await cancelAudits(expired.id)).map((a: any) => [a.reason, a.details.abandoned, a.details.quickPay])).toEqual([[ABANDONED_REASON, "session expired", true]]);
    // An open session, one paid at Stripe, and a signed-in payer's payment are left alone.
    for (const id of [open.id, paidLate.id, mine.id]) expect((await row(id)).status).toBe("PENDING");
    // The late webhook still records the money.
    expect((await deliver(stripe.event("checkout.session.completed", complete))).status).toBe(200);
    expect((await row(paidLate.id)).status).toBe("PAID");

    // A second run changes nothing, and never touches the paid one.
    await runJobAt(afterHours(created, QUICK_PAY_CHECKOUT_HOURS + 1));
    expect(await cancelAudits(expired.id)).toHaveLength(1);
    expect((await row(paidLate.id)).status).toBe("PAID");
    expect((await row(open.id)).status).toBe("PENDING");

    // Stripe's expired event made the payment forget its session: it is cancelled too (nothing to ask).
    stripe.sessions.get(open.session)!.status = "expired";
    expect((await deliver(stripe.event("checkout.session.expired", stripe.sessions.get(open.session)))).status).toBe(200);
    expect((await row(open.id)).provider_session_id).toBeNull();
    await runJobAt(afterHours(created, QUICK_PAY_CHECKOUT_HOURS + 2));
    expect(await row(open.id)).toMatchObject({ status: "CANCELLED" });
    expect((await cancelAudits(open.id))[0].details.abandoned).toBe("session expired and forgotten");
    expect((await row(mine.id)).status).toBe("PENDING");
  });

  it("the labelled test checkout lapses after the same 24 hours, without asking Stripe; the statements are the same for one as for three", async () => {
    const made = [await quickPay(2_001), await quickPay(2_002), await quickPay(2_003), await quickPay(2_004)];
    // As the test checkout leaves them (a portal without Stripe keys when they were made).
    for (const [i, p] of made.entries()) await db().query(`UPDATE payment SET provider = 'test', provider_session_id = $2, stripe_account_id = NULL WHERE id = $1`, [p.id, `test_cs_expiry_${i}`]);
    const created = (await row(made[0].id)).created_at;
    travelTo(afterHours(created, QUICK_PAY_CHECKOUT_HOURS, -5_000));
    expect(await expireAbandonedQuickPayments(db(), srv.config, log)).toBe(0);
    // One lapsed: pull the others' making forward so only the first is past its 24 hours.
    await db().query(`UPDATE payment SET created_at = created_at + interval '2 hours' WHERE id = ANY($1::uuid[])`, [made.slice(1).map((p) => p.id)]);
    travelTo(afterHours(created, QUICK_PAY_CHECKOUT_HOURS, 1_000));
    const asked = stripe.requests.length;
    let n = 0;
    const one = await countStatements(db(), async () => (n = await expireAbandonedQuickPayments(db(), srv.config, log)));
    expect(n).toBe(1);
    travelTo(afterHours(created, QUICK_PAY_CHECKOUT_HOURS + 3));
    const three = await countStatements(db(), async () => (n = await expireAbandonedQuickPayments(db(), srv.config, log)));
    expect(n).toBe(3);
    expect(three).toBe(one);
    expect(stripe.requests.length).toBe(asked);
    for (const p of made) expect((await cancelAudits(p.id))[0].details.abandoned).toBe("test checkout past 24 hours");
    expect(await expireAbandonedQuickPayments(db(), srv.config, log)).toBe(0);
  });
});

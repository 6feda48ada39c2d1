import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { District } from "../../api/districts/district.entity.js";
import { rulebookOn } from "../../api/districts/districts.service.js";
import { createPayment, registerPayable, type PaymentLine } from "../../api/payments/payments.service.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer, signedInAs } from "../harness.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * Payments through Stripe, against a local stand-in of Stripe's API (STRIPE_API_BASE) and with
 * webhooks signed by the stripe package's own test helper.
 */

const WEBHOOK_SECRET = "whsec_test";
let srv: TestServer;
let stripe: StandIn;
const onPaidCalls: string[] = [];
const signer = new Stripe("sk_test_x");

beforeAll(async () => {
  registerPayable("TestFee", {
    async onPaid(_tx, payment) {
      onPaidCalls.push(payment.id);
    },
    async title(id) {
      return `Test fee ${id.slice(0, 8)}`;
    },
    href: (id) => `/test-fees/${id}`,
  });
  stripe = await startStripeStandIn();
  srv = await startTestServer({ env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url } });
  await connectDistrictAccount(stripe, srv, "lakeview"); // card payments run on the district's own account
});
afterAll(async () => {
  await srv?.close();
  await stripe?.close();
});

const PAYMENT = `query($id: ID!) { payment(id: $id) { id status amountCents refundedCents receiptNumber method provider paidAt refunds { amountCents method receiptNumber } } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`;
const COUNTER = `mutation($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { id status receiptNumber method } }`;
const REFUND = `mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id amountCents lineCodes method receiptNumber } }`;

async function newPayment(): Promise<{ id: string; payableId: string; lines: PaymentLine[] }> {
  const ds = srv.running.ds;
  const district = await ds.getRepository(District).findOneByOrFail({ slug: "lakeview" });
  const book = await rulebookOn(ds, district);
  const fee = book.require("lateral.fee.residential");
  const deposit = book.require("lateral.asBuiltDepositPerSheet");
  const lines: PaymentLine[] = [
    { code: "inspection-fee", label: fee.label, section: fee.section, amountCents: fee.value },
    { code: "as-built-deposit", label: `${deposit.label} (1 sheet)`, section: deposit.section, amountCents: deposit.value, refundable: true },
  ];
  const [payer] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const payableId = randomUUID();
  const p = await ds.transaction((tx) =>
    createPayment(tx, { userId: null }, { districtId: district.id, payerId: payer.id, payableType: "TestFee", payableId, lines, rulebookVersionId: book.version.id }),
  );
  return { id: p.id, payableId, lines };
}

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

/** Delivers an event to the webhook as Stripe does: the raw JSON, signed. */
async function deliver(event: unknown, secret = WEBHOOK_SECRET, signature?: string): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signature ?? signer.webhooks.generateTestHeaderString({ payload, secret });
  return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}

const sessionOf = (url: string) => url.split("/").pop()!;
const row = async (id: string) => (await srv.running.ds.query(`SELECT * FROM payment WHERE id = $1`, [id]))[0];
const count = async (sql: string, params: unknown[]) => (await srv.running.ds.query(sql, params))[0].n as number;

describe("checkout through Stripe", () => {
  it("a double-clicked Pay makes one Checkout Session and sends both clicks to it", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    expect((await alex.ok(`{ paymentProviderMode }`)).paymentProviderMode).toBe("stripe");
    const sessionsBefore = stripe.sessions.size;
    const [a, b] = await Promise.all([alex.ok(START, { id }), alex.ok(START, { id })]);
    expect(a.startCheckout.provider).toBe("stripe");
    expect(a.startCheckout.url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    expect(b.startCheckout.url).toBe(a.startCheckout.url);
    expect(stripe.sessions.size - sessionsBefore).toBe(1);
    // A third click later: the stored session is looked up, not made again.
    expect((await alex.ok(START, { id })).startCheckout.url).toBe(a.startCheckout.url);
    expect(stripe.sessions.size - sessionsBefore).toBe(1);

    const creates = stripe.requests.filter((r) => r.method === "POST" && r.path === "/v1/checkout/sessions" && r.params.client_reference_id === id);
    expect(creates.length).toBeGreaterThanOrEqual(1);
    expect(new Set(creates.map((r) => r.idempotencyKey))).toEqual(new Set([`checkout-${id}`]));
    const sent = creates[0].params;
    expect(sent).toMatchObject({
      mode: "payment",
      client_reference_id: id,
      metadata: { paymentId: id },
      success_url: `http://tapline.test/payments/${id}/done`,
      cancel_url: `http://tapline.test/payments/${id}`,
    });
    expect(sent.line_items).toEqual([
      { quantity: "1", price_data: { currency: "usd", unit_amount: "15000", product_data: { name: "Inspection and administration fee, residential (Sewer Use Law 1212)" } } },
      { quantity: "1", price_data: { currency: "usd", unit_amount: "10000", product_data: { name: "As-built drawing deposit, per sheet of plans (1 sheet) (Sewer Use Law 606 B)" } } },
    ]);
    const p = await row(id);
    expect(p.idempotency_key).toBe(`checkout-${id}`);
    expect(p.provider_session_id).toBe(sessionOf(a.startCheckout.url));
    expect(p.status).toBe("PENDING");
  });

  it("replaces an expired Checkout Session with a new one under a new key", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    const first = sessionOf((await alex.ok(START, { id })).startCheckout.url);
    await fetch(`${stripe.url}/v1/checkout/sessions/${first}/expire`, { method: "POST" }); // Stripe expires sessions after 24 hours
    const second = (await alex.ok(START, { id })).startCheckout.url;
    expect(sessionOf(second)).not.toBe(first);
    expect(stripe.sessions.get(sessionOf(second)).status).toBe("open");
    expect((await row(id)).idempotency_key).toBe(`checkout-${id}-a2`);
    expect((await alex.ok(START, { id })).startCheckout.url).toBe(second);
  });

  it("the test checkout is refused while Stripe keys are set", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    const { startCheckout } = await alex.ok(START, { id });
    const s = sessionOf(startCheckout.url);
    expect(errorCode(await alex.gql(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s }))).toBe("FORBIDDEN");
    expect(errorCode(await alex.gql(`query($s: String!) { testCheckout(sessionId: $s) { id } }`, { s }))).toBe("FORBIDDEN");
    expect((await row(id)).status).toBe("PENDING");
  });

  it("an applicant cannot start checkout for another's payment", async () => {
    const { id } = await newPayment();
    const other = new Client(srv.url);
    await other.signUp("someone.else@example.org", "Sam Else");
    const before = stripe.requests.length;
    expect(errorCode(await other.gql(START, { id }))).toBe("NOT_FOUND");
    expect(stripe.requests.length).toBe(before);
  });
});

describe("the Stripe webhook", () => {
  it("applies the same event delivered five times, and an earlier event after a later one, once", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    const session = stripe.complete(sessionOf((await alex.ok(START, { id })).startCheckout.url));
    const earlier = stripe.event("checkout.session.completed", session, { created: 1000 });
    const later = stripe.event("checkout.session.completed", session, { created: 2000 });

    const responses = await Promise.all([1, 2, 3, 4, 5].map(() => deliver(later)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await deliver(later)).status).toBe(200);
    expect((await deliver(earlier)).status).toBe(200);

    const p = await row(id);
    expect(p.status).toBe("PAID");
    expect(p.provider_payment_intent).toBe(session.payment_intent);
    expect(p.receipt_number).toMatch(/^LKV-\d{4}-\d{6}$/);
    expect(onPaidCalls.filter((x) => x === id).length).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM outbox_email WHERE kind = 'payment.receipt' AND body_text LIKE $1`, [`%${p.receipt_number}%`])).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'payment.paid' AND entity_id = $1`, [id])).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM payment_event WHERE payment_id = $1`, [id])).toBe(2);
    expect((await alex.ok(PAYMENT, { id })).payment).toMatchObject({ status: "PAID", method: "card", provider: "stripe", receiptNumber: p.receipt_number });
  });

  it("refuses a bad signature with 400 and changes nothing", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    const session = stripe.complete(sessionOf((await alex.ok(START, { id })).startCheckout.url));
    const event = stripe.event("checkout.session.completed", session);
    expect((await deliver(event, "whsec_someone_else")).status).toBe(400);
    expect((await deliver(event, WEBHOOK_SECRET, "t=1,v1=deadbeef")).status).toBe(400);
    const unsigned = await fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(event) });
    expect(unsigned.status).toBe(400);
    // Signed, then altered: the signature no longer matches.
    const payload = JSON.stringify(event);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const tampered = payload.replace(`"amount_total":${session.amount_total}`, `"amount_total":1`);
    expect((await fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: tampered })).status).toBe(400);

    expect((await row(id)).status).toBe("PENDING");
    expect(await count(`SELECT count(*)::int AS n FROM payment_event WHERE provider_event_id = $1`, [event.id])).toBe(0);
    // The genuine delivery afterwards still works.
    expect((await deliver(event)).status).toBe(200);
    expect((await row(id)).status).toBe("PAID");
  });

  it("does not accept a completed session whose amount or currency differs from the payment", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    const session = stripe.complete(sessionOf((await alex.ok(START, { id })).startCheckout.url));
    expect((await deliver(stripe.event("checkout.session.completed", { ...session, amount_total: 100 }))).status).toBe(200);
    expect((await deliver(stripe.event("checkout.session.completed", { ...session, currency: "cad" }))).status).toBe(200);
    const p = await row(id);
    expect(p.status).toBe("PENDING");
    expect(p.receipt_number).toBeNull();
    expect(onPaidCalls).not.toContain(id);
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const { district } = await clerk.ok(`{ district(slug: "lakeview") { id } }`);
    const log = await clerk.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action details } } }`, { f: { districtId: district.id, entityId: id, action: "payment.amount_mismatch" } });
    expect(log.auditLog.entries.length).toBe(2);
    expect(log.auditLog.entries.map((e: any) => e.details.amountTotal).sort()).toEqual([100, 25000]);
  });

  it("ignores event types it does not handle (remembering them) and sessions it does not know", async () => {
    const other = stripe.event("payment_intent.created", { id: "pi_123", object: "payment_intent" });
    expect((await deliver(other)).status).toBe(200);
    expect((await deliver(other)).status).toBe(200);
    expect(await count(`SELECT count(*)::int AS n FROM payment_event WHERE provider_event_id = $1`, [other.id])).toBe(1);
    const stranger = stripe.event("checkout.session.completed", {
      id: "cs_test_not_ours",
      object: "checkout.session",
      payment_status: "paid",
      amount_total: 100,
      currency: "usd",
      client_reference_id: null,
    });
    expect((await deliver(stranger)).status).toBe(200);
    const unpaid = stripe.event("checkout.session.completed", { id: "cs_test_unpaid", object: "checkout.session", payment_status: "unpaid", amount_total: 100, currency: "usd" });
    expect((await deliver(unpaid)).status).toBe(200);
  });

  it("finds the payment by the session's client_reference_id when the session id was not stored yet", async () => {
    const { id } = await newPayment();
    // As if the server stopped between Stripe making the session and the payment storing its id.
    const res = await fetch(`${stripe.url}/v1/checkout/sessions`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        mode: "payment",
        client_reference_id: id,
        "line_items[0][quantity]": "1",
        "line_items[0][price_data][currency]": "usd",
        "line_items[0][price_data][unit_amount]": "25000",
      }).toString(),
    });
    const created = await res.json();
    const session = stripe.complete(created.id);
    expect((await deliver(stripe.event("checkout.session.completed", session))).status).toBe(200);
    const p = await row(id);
    expect(p.status).toBe("PAID");
    expect(p.provider_session_id).toBe(session.id);
  });
});

describe("counter payments and refunds with Stripe configured", () => {
  it("refunds the deposit through Stripe once, with an idempotency key", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    const session = stripe.complete(sessionOf((await alex.ok(START, { id })).startCheckout.url));
    await deliver(stripe.event("checkout.session.completed", session));
    const clerk = await signedIn(DEMO.lakeviewClerk);
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["inspection-fee"], reason: "asked" } }))).toBe("BAD_USER_INPUT");
    const refund = (await clerk.ok(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason: "As-built drawings approved" } })).refundPayment;
    expect(refund).toMatchObject({ amountCents: 10000, method: "card", lineCodes: ["as-built-deposit"] });
    const calls = stripe.requests.filter((r) => r.path === "/v1/refunds" && r.params.metadata?.paymentId === id);
    expect(calls.length).toBe(1);
    expect(calls[0].params).toMatchObject({ payment_intent: session.payment_intent, amount: "10000" });
    expect(calls[0].idempotencyKey).toMatch(new RegExp(`^refund-${id}-`));
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason: "again" } }))).toBe("CONFLICT");
    expect(stripe.requests.filter((r) => r.path === "/v1/refunds" && r.params.metadata?.paymentId === id).length).toBe(1);
    const p = await row(id);
    expect(p).toMatchObject({ status: "PARTIALLY_REFUNDED", refunded_cents: 10000 });
    const [r] = await srv.running.ds.query(`SELECT provider_refund_id FROM refund WHERE payment_id = $1`, [id]);
    expect(stripe.refunds.has(r.provider_refund_id)).toBe(true);
  });

  it("a counter payment closes the open card checkout; a card payment completing anyway is flagged", async () => {
    const { id } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    const sid = sessionOf((await alex.ok(START, { id })).startCheckout.url);
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const paid = (await clerk.ok(COUNTER, { i: { paymentId: id, method: "cash" } })).recordCounterPayment;
    expect(paid).toMatchObject({ status: "PAID", method: "cash" });
    expect(stripe.sessions.get(sid).status).toBe("expired");

    // Had the payer paid on Stripe's page meanwhile, the completed event is not applied again but flagged.
    const session = stripe.sessions.get(sid);
    session.status = "open";
    stripe.complete(sid);
    expect((await deliver(stripe.event("checkout.session.completed", session))).status).toBe(200);
    const p = await row(id);
    expect(p).toMatchObject({ status: "PAID", method: "cash", receipt_number: paid.receiptNumber });
    expect(await count(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'payment.duplicate_checkout' AND entity_id = $1`, [id])).toBe(1);
    expect(onPaidCalls.filter((x) => x === id).length).toBe(1);
  });
});

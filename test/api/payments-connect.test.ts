import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { District } from "../../api/districts/district.entity.js";
import { rulebookOn } from "../../api/districts/districts.service.js";
import { connectAccountByOperator } from "../../api/payments/connect.service.js";
import { createPayment, registerPayable } from "../../api/payments/payments.service.js";
import { Client, DEMO, errorCode, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * Each district's own Stripe account (Stripe Connect): two districts, two connected accounts, and
 * every call for a district's payment made on its account (the Stripe-Account header), against the
 * local stand-in. Events of connected accounts come signed with the Connect endpoint's secret.
 */

const PLATFORM_SECRET = "whsec_platform";
const CONNECT_SECRET = "whsec_connect";
let srv: TestServer;
let stripe: StandIn;
const signer = new Stripe("sk_test_x");
const paidFor: string[] = [];
const districts: Record<"lakeview" | "huron", { id: string; name: string }> = {} as any;
const accountOf: Record<"lakeview" | "huron", string> = {} as any;

beforeAll(async () => {
  registerPayable("ConnectTestFee", {
    async onPaid(_tx, payment) {
      paidFor.push(payment.id);
    },
    async title(id) {
      return `Connect test fee ${id.slice(0, 8)}`;
    },
    href: (id) => `/connect-test-fees/${id}`,
  });
  stripe = await startStripeStandIn();
  srv = await startTestServer({
    env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: PLATFORM_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET, STRIPE_API_BASE: stripe.url },
  });
  for (const slug of ["lakeview", "huron"] as const) districts[slug] = await srv.running.ds.getRepository(District).findOneByOrFail({ slug });
});
afterAll(async () => {
  await srv?.close();
  await stripe?.close();
});

const ACCOUNT = `query($d: ID!) { districtStripeAccount(districtId: $d) { districtId accountId connectedBy chargesEnabled detailsSubmitted payoutsEnabled takesCardPayments connectWebhookConfigured } }`;
const ONBOARD = `mutation($d: ID!) { startStripeOnboarding(districtId: $d) { url accountId } }`;
const REFRESH = `mutation($d: ID!) { refreshStripeAccount(districtId: $d) { accountId chargesEnabled takesCardPayments } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`;
const PAYMENT = `query($id: ID!) { payment(id: $id) { id status cardPayments } }`;
const REFUND = `mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id amountCents method } }`;

async function newPayment(slug: "lakeview" | "huron"): Promise<string> {
  const ds = srv.running.ds;
  const district = await ds.getRepository(District).findOneByOrFail({ slug });
  const book = await rulebookOn(ds, district);
  const [payer] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const p = await ds.transaction((tx) =>
    createPayment(tx, { userId: null }, {
      districtId: district.id,
      payerId: payer.id,
      payableType: "ConnectTestFee",
      payableId: randomUUID(),
      lines: [
        { code: "fee", label: "Test fee", section: "Test section", amountCents: 5000 },
        { code: "deposit", label: "Test deposit", section: "Test section", amountCents: 2500, refundable: true },
      ],
      rulebookVersionId: book.version.id,
    }),
  );
  return p.id;
}

/** Delivers an event to the webhook as Stripe does: the raw JSON, signed with the endpoint's secret. */
async function deliver(event: unknown, secret: string): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret });
  return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}

const row = async (id: string) => (await srv.running.ds.query(`SELECT * FROM payment WHERE id = $1`, [id]))[0];
const count = async (sql: string, params: unknown[]) => (await srv.running.ds.query(sql, params))[0].n as number;
const sessionOf = (url: string) => url.split("/").pop()!;
/** Everything a payment touches: its row, its events, its audit entries. */
const traces = async (id: string) => ({
  payment: await row(id),
  events: await count(`SELECT count(*)::int AS n FROM payment_event WHERE payment_id = $1`, [id]),
  audit: await count(`SELECT count(*)::int AS n FROM audit_entry WHERE entity_id = $1`, [id]),
});

describe("connecting a district's own Stripe account", () => {
  it("without one a district takes counter payments only, and says so", async () => {
    const id = await newPayment("lakeview");
    const alex = await signedInAs(srv.url, DEMO.applicant);
    expect((await alex.ok(PAYMENT, { id })).payment.cardPayments).toBe(false);
    const before = stripe.requests.length;
    const r = await alex.gql(START, { id });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toBe(`${districts.lakeview.name} takes payments at the district office only (cash or check): it has not connected its own card payment account yet.`);
    expect(stripe.requests.length).toBe(before);
    // The Clerk takes it at the counter.
    const clerk = await signedInAs(srv.url, DEMO.lakeviewClerk);
    const paid = await clerk.ok(`mutation($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { status } }`, { i: { paymentId: id, method: "cash" } });
    expect(paid.recordCounterPayment.status).toBe("PAID");
  });

  it("only the district's ADMIN sees and connects its account", async () => {
    const d = districts.lakeview.id;
    expect(errorCode(await (await signedInAs(srv.url, DEMO.huronAdmin)).gql(ACCOUNT, { d }))).toBe("NOT_FOUND");
    expect(errorCode(await (await signedInAs(srv.url, DEMO.huronAdmin)).gql(ONBOARD, { d }))).toBe("NOT_FOUND");
    const clerk = await signedInAs(srv.url, DEMO.lakeviewClerk);
    for (const q of [ACCOUNT, ONBOARD, REFRESH]) expect(errorCode(await clerk.gql(q, { d }))).toBe("FORBIDDEN");
    expect(errorCode(await (await signedInAs(srv.url, DEMO.applicant)).gql(ONBOARD, { d }))).toBe("FORBIDDEN");
    expect(errorCode(await new Client(srv.url).gql(ACCOUNT, { d }))).toBe("UNAUTHENTICATED");
    expect(stripe.requests.filter((r) => r.path === "/v1/accounts").length).toBe(0);
    const admin = await signedInAs(srv.url, DEMO.lakeviewAdmin);
    expect((await admin.ok(ACCOUNT, { d })).districtStripeAccount).toMatchObject({ accountId: null, takesCardPayments: false, connectWebhookConfigured: true });
  });

  it("Lakeview's ADMIN connects through Stripe's onboarding; card payments open once Stripe says it takes charges", async () => {
    const d = districts.lakeview.id;
    const admin = await signedInAs(srv.url, DEMO.lakeviewAdmin);
    const first = (await admin.ok(ONBOARD, { d })).startStripeOnboarding;
    expect(first.url).toMatch(/^https:\/\/connect\.stripe\.test\/setup\/s\/acct_/);
    const account = stripe.accounts.get(first.accountId);
    expect(account).toMatchObject({ type: "standard", metadata: { districtId: d, districtSlug: "lakeview" }, charges_enabled: false });
    const link = stripe.requests.find((r) => r.path === "/v1/account_links")!;
    expect(link.params).toMatchObject({
      account: first.accountId,
      type: "account_onboarding",
      return_url: `http://tapline.test/staff/stripe?districtId=${d}&link=returned`,
      refresh_url: `http://tapline.test/staff/stripe?districtId=${d}&link=expired`,
    });
    // Pressing again resumes the same account with a fresh link.
    const again = (await admin.ok(ONBOARD, { d })).startStripeOnboarding;
    expect(again.accountId).toBe(first.accountId);
    expect(stripe.requests.filter((r) => r.path === "/v1/accounts" && r.method === "POST").length).toBe(1);
    expect((await admin.ok(ACCOUNT, { d })).districtStripeAccount).toMatchObject({ accountId: first.accountId, connectedBy: "ADMIN", chargesEnabled: false, takesCardPayments: false });
    expect(await count(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'payment.stripe_account_connected' AND entity_id = $1`, [d])).toBe(1);

    // The town finishes onboarding; Stripe tells the Connect endpoint (account.updated).
    const updated = stripe.event("account.updated", stripe.finishOnboarding(first.accountId));
    expect(updated.account).toBe(first.accountId);
    expect((await deliver(updated, PLATFORM_SECRET)).status).toBe(400); // a connected account's event carries the Connect endpoint's signature
    expect((await admin.ok(ACCOUNT, { d })).districtStripeAccount.chargesEnabled).toBe(false);
    expect((await deliver(updated, CONNECT_SECRET)).status).toBe(200);
    expect((await admin.ok(ACCOUNT, { d })).districtStripeAccount).toMatchObject({ chargesEnabled: true, detailsSubmitted: true, payoutsEnabled: true, takesCardPayments: true });
    expect(await count(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'payment.stripe_account_status' AND entity_id = $1`, [d])).toBe(1);
    accountOf.lakeview = first.accountId;
  });

  it("Huron's account is entered by the deployment's operator, checked with Stripe; its ADMIN sees it and refreshes its status", async () => {
    const ds = srv.running.ds;
    const d = districts.huron.id;
    await expect(connectAccountByOperator(ds, srv.config, "huron", "not-an-account")).rejects.toMatchObject({ code: "BAD_USER_INPUT" });
    await expect(connectAccountByOperator(ds, srv.config, "huron", accountOf.lakeview)).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(connectAccountByOperator(ds, srv.config, "huron", "acct_unknown0")).rejects.toThrow();
    const existing = stripe.addAccount({ chargesEnabled: false });
    const c = await connectAccountByOperator(ds, srv.config, "huron", existing.id);
    expect(c).toMatchObject({ accountId: existing.id, connectedBy: "OPERATOR", chargesEnabled: false });
    const admin = await signedInAs(srv.url, DEMO.huronAdmin);
    expect(errorCode(await admin.gql(ONBOARD, { d }))).toBe("CONFLICT"); // the operator's account is changed by the operator
    stripe.finishOnboarding(existing.id);
    expect((await admin.ok(REFRESH, { d })).refreshStripeAccount).toMatchObject({ accountId: existing.id, chargesEnabled: true, takesCardPayments: true });
    accountOf.huron = existing.id;
  });
});

describe("two districts, two accounts", () => {
  it("a payment in each lands on its own account, a refund too; no money passes through the platform", async () => {
    const alex = await signedInAs(srv.url, DEMO.applicant);
    const ids = { lakeview: await newPayment("lakeview"), huron: await newPayment("huron") };
    const sessions: Record<string, any> = {};
    for (const slug of ["lakeview", "huron"] as const) {
      const id = ids[slug];
      expect((await alex.ok(PAYMENT, { id })).payment.cardPayments).toBe(true);
      const sid = sessionOf((await alex.ok(START, { id })).startCheckout.url);
      const create = stripe.requests.find((r) => r.path === "/v1/checkout/sessions" && r.params.client_reference_id === id)!;
      expect(create.account).toBe(accountOf[slug]);
      expect(create.params.payment_intent_data?.application_fee_amount).toBeUndefined();
      expect(stripe.accountOf.get(sid)).toBe(accountOf[slug]);
      expect((await row(id)).stripe_account_id).toBe(accountOf[slug]);
      sessions[slug] = stripe.complete(sid);
      expect(stripe.accountOf.get(sessions[slug].payment_intent)).toBe(accountOf[slug]);
    }
    // A repeated Pay looks the session up on the district's account.
    await alex.ok(START, { id: ids.huron });
    expect(stripe.requests.filter((r) => r.path === `/v1/checkout/sessions/${sessions.huron.id}` && r.method === "GET").map((r) => r.account)).toEqual([accountOf.huron]);

    for (const slug of ["lakeview", "huron"] as const) {
      const event = stripe.event("checkout.session.completed", sessions[slug]);
      expect(event.account).toBe(accountOf[slug]);
      expect((await deliver(event, CONNECT_SECRET)).status).toBe(200);
      expect((await row(ids[slug])).status).toBe("PAID");
    }
    expect(paidFor.filter((x) => x === ids.lakeview || x === ids.huron).length).toBe(2);

    for (const slug of ["lakeview", "huron"] as const) {
      const clerk = await signedInAs(srv.url, slug === "lakeview" ? DEMO.lakeviewClerk : DEMO.huronClerk);
      const refund = (await clerk.ok(REFUND, { i: { paymentId: ids[slug], lineCodes: ["deposit"], reason: "Work approved" } })).refundPayment;
      expect(refund).toMatchObject({ amountCents: 2500, method: "card" });
      const call = stripe.requests.filter((r) => r.path === "/v1/refunds" && r.params.metadata?.paymentId === ids[slug]);
      expect(call.map((r) => r.account)).toEqual([accountOf[slug]]);
      const [stored] = await srv.running.ds.query(`SELECT provider_refund_id FROM refund WHERE payment_id = $1`, [ids[slug]]);
      expect(stripe.accountOf.get(stored.provider_refund_id)).toBe(accountOf[slug]);
    }
    // Every call about a payment carried its district's account; none moved money on the platform.
    const moneyCalls = stripe.requests.filter((r) => /^\/v1\/(checkout|refunds)/.test(r.path) && r.method === "POST");
    expect(moneyCalls.every((r) => r.account === accountOf.lakeview || r.account === accountOf.huron)).toBe(true);
    expect(stripe.requests.filter((r) => /^\/v1\/(transfers|payouts|application_fees)/.test(r.path))).toEqual([]);
  });

  it("an event of one district's account never touches the other's payment", async () => {
    const alex = await signedInAs(srv.url, DEMO.applicant);
    const huronPayment = await newPayment("huron");
    const session = stripe.complete(sessionOf((await alex.ok(START, { id: huronPayment })).startCheckout.url));
    const before = await traces(huronPayment);
    // Lakeview's account names Huron's session, or Huron's payment as the session's reference.
    const forged = [
      stripe.event("checkout.session.completed", session, { account: accountOf.lakeview }),
      stripe.event("checkout.session.completed", { ...session, id: "cs_test_lakeviews_own" }, { account: accountOf.lakeview }),
      stripe.event("checkout.session.expired", { ...session, status: "expired" }, { account: accountOf.lakeview }),
    ];
    for (const e of forged) expect((await deliver(e, CONNECT_SECRET)).status).toBe(200);
    // Nor does the platform's own endpoint reach a payment made on a district's account.
    const { account: _a, ...platformEvent } = stripe.event("checkout.session.completed", session);
    expect((await deliver(platformEvent, PLATFORM_SECRET)).status).toBe(200);
    expect(await traces(huronPayment)).toEqual(before);
    expect(paidFor).not.toContain(huronPayment);
    // Huron's own event pays it.
    expect((await deliver(stripe.event("checkout.session.completed", session), CONNECT_SECRET)).status).toBe(200);
    expect((await row(huronPayment)).status).toBe("PAID");
  });

  it("an event naming an account no district owns is refused and changes nothing", async () => {
    const alex = await signedInAs(srv.url, DEMO.applicant);
    const id = await newPayment("lakeview");
    const session = stripe.complete(sessionOf((await alex.ok(START, { id })).startCheckout.url));
    const before = await traces(id);
    const stranger = stripe.addAccount();
    const events = [
      stripe.event("checkout.session.completed", session, { account: stranger.id }),
      stripe.event("account.updated", { ...stranger, charges_enabled: false }),
    ];
    for (const e of events) {
      expect((await deliver(e, CONNECT_SECRET)).status).toBe(400);
      expect(await count(`SELECT count(*)::int AS n FROM payment_event WHERE provider_event_id = $1`, [e.id])).toBe(0);
    }
    expect(await traces(id)).toEqual(before);
    expect(await count(`SELECT count(*)::int AS n FROM district_stripe_account WHERE account_id = $1`, [stranger.id])).toBe(0);
  });

  it("a district that leaves its account still refunds on it and still hears of payments made on it", async () => {
    const alex = await signedInAs(srv.url, DEMO.applicant);
    const id = await newPayment("huron");
    const session = stripe.complete(sessionOf((await alex.ok(START, { id })).startCheckout.url));
    await connectAccountByOperator(srv.running.ds, srv.config, "huron", null);
    expect((await alex.ok(PAYMENT, { id: await newPayment("huron") })).payment.cardPayments).toBe(false);
    expect((await deliver(stripe.event("checkout.session.completed", session), CONNECT_SECRET)).status).toBe(200);
    expect((await row(id)).status).toBe("PAID");
    const clerk = await signedInAs(srv.url, DEMO.huronClerk);
    await clerk.ok(REFUND, { i: { paymentId: id, lineCodes: ["deposit"], reason: "Work approved" } });
    expect(stripe.requests.filter((r) => r.path === "/v1/refunds" && r.params.metadata?.paymentId === id).map((r) => r.account)).toEqual([accountOf.huron]);
  });
});

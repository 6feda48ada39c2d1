import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { District } from "../../api/districts/district.entity.js";
import { rulebookOn } from "../../api/districts/districts.service.js";
import { createPayment, registerPayable } from "../../api/payments/payments.service.js";
import { SIGNATURE_TOLERANCE_SECONDS, signatureTooFarAhead } from "../../api/payments/webhook.js";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * Stripe webhook signatures are good for the tolerance (5 minutes) on both sides of now: the SDK
 * refuses older ones, the webhook route refuses ones from the future (a signature made ahead of
 * time would otherwise stay good until then, and for the tolerance after).
 */

const WEBHOOK_SECRET = "whsec_time";
let srv: TestServer;
let stripe: StandIn;
const signer = new Stripe("sk_test_x");

beforeAll(async () => {
  registerPayable("TimeTestFee", {
    async onPaid() {},
    async title(id) {
      return `Time test fee ${id.slice(0, 8)}`;
    },
    href: (id) => `/time-test-fees/${id}`,
  });
  stripe = await startStripeStandIn();
  srv = await startTestServer({ env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url } });
  await connectDistrictAccount(stripe, srv, "lakeview"); // card payments run on the district's own account
});
afterAll(async () => {
  await srv?.close();
  await stripe?.close();
});

const now = () => Math.floor(Date.now() / 1000);

/** A payment of the demo applicant's, its Checkout Session completed and paid on the stand-in. */
async function paidSession(): Promise<{ paymentId: string; session: any }> {
  const ds = srv.running.ds;
  const district = await ds.getRepository(District).findOneByOrFail({ slug: "lakeview" });
  const book = await rulebookOn(ds, district);
  const fee = book.require("lateral.fee.residential");
  const [payer] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const p = await ds.transaction((tx) =>
    createPayment(
      tx,
      { userId: null },
      {
        districtId: district.id,
        payerId: payer.id,
        payableType: "TimeTestFee",
        payableId: randomUUID(),
        lines: [{ code: "inspection-fee", label: fee.label, section: fee.section, amountCents: fee.value }],
        rulebookVersionId: book.version.id,
      },
    ),
  );
  const alex = new Client(srv.url);
  await alex.signIn(DEMO.applicant);
  const url: string = (await alex.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: p.id })).startCheckout.url;
  return { paymentId: p.id, session: stripe.complete(url.split("/").pop()!) };
}

/** Delivers the event signed with the webhook secret at `timestamp` (seconds). */
function deliverAt(event: unknown, timestamp: number): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp });
  return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}

const status = async (id: string) => (await srv.running.ds.query(`SELECT status FROM payment WHERE id = $1`, [id]))[0].status as string;
const recorded = async (eventId: string) =>
  (await srv.running.ds.query(`SELECT count(*)::int AS n FROM payment_event WHERE provider_event_id = $1`, [eventId]))[0].n as number;

describe("the Stripe webhook's signature time", () => {
  it("refuses a signature timestamped an hour ahead, and one more than the tolerance ahead, changing nothing", async () => {
    const { paymentId, session } = await paidSession();
    const event = stripe.event("checkout.session.completed", session);
    expect((await deliverAt(event, now() + 3600)).status).toBe(400);
    expect((await deliverAt(event, now() + SIGNATURE_TOLERANCE_SECONDS + 60)).status).toBe(400);
    expect(await status(paymentId)).toBe("PENDING");
    expect(await recorded(event.id)).toBe(0);
    // Signed now, the same event is applied.
    expect((await deliverAt(event, now())).status).toBe(200);
    expect(await status(paymentId)).toBe("PAID");
  });

  it("refuses one more than the tolerance old, as the SDK does", async () => {
    const { paymentId, session } = await paidSession();
    const event = stripe.event("checkout.session.completed", session);
    expect((await deliverAt(event, now() - 3600)).status).toBe(400);
    expect((await deliverAt(event, now() - SIGNATURE_TOLERANCE_SECONDS - 60)).status).toBe(400);
    expect(await status(paymentId)).toBe("PENDING");
    expect(await recorded(event.id)).toBe(0);
  });

  it("accepts signatures within the tolerance on either side (clocks a little apart)", async () => {
    for (const skew of [-(SIGNATURE_TOLERANCE_SECONDS - 60), SIGNATURE_TOLERANCE_SECONDS - 60]) {
      const { paymentId, session } = await paidSession();
      const event = stripe.event("checkout.session.completed", session);
      expect((await deliverAt(event, now() + skew)).status).toBe(200);
      expect(await status(paymentId)).toBe("PAID");
    }
  });

  it("reads the timestamp as the SDK does: the last t= wins, at the boundary the signature is still good", () => {
    const t = 1_800_000_000;
    expect(signatureTooFarAhead(`t=${t},v1=abc`, t * 1000)).toBe(false);
    expect(signatureTooFarAhead(`t=${t + SIGNATURE_TOLERANCE_SECONDS},v1=abc`, t * 1000)).toBe(false);
    expect(signatureTooFarAhead(`t=${t + SIGNATURE_TOLERANCE_SECONDS + 1},v1=abc`, t * 1000)).toBe(true);
    expect(signatureTooFarAhead(`t=${t},t=${t + 3600},v1=abc`, t * 1000)).toBe(true);
    expect(signatureTooFarAhead(`t=${t + 3600},t=${t},v1=abc`, t * 1000)).toBe(false);
    expect(signatureTooFarAhead(`v1=abc`, t * 1000)).toBe(true);
  });
});

import { pino } from "pino";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { runDueJobs } from "../../api/jobs/queue.js";
import { cancelPendingPayments } from "../../api/payments/payments.service.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";
import { application as industrialApplication, firm, signedIn } from "./industrial-helpers.js";

/**
 * Cancelled payments over HTTP: what a withdrawn application, a cancelled or refused load leaves
 * behind (a CANCELLED payment with its reason, audited, that nobody can pay any more), the Stripe
 * checkout closed by a job after the transaction, an abandoned checkout (checkout.session.expired),
 * and a card payment completing at Stripe after the cancellation (kept, receipted, flagged for
 * refund, not applied). One server with the built-in test checkout, one with Stripe's stand-in.
 */

const TZ = "America/New_York";
const WEBHOOK_SECRET = "whsec_test";
const log = pino({ level: "silent" });
const signer = new Stripe("sk_test_x");

let srv: TestServer; // no Stripe keys: the built-in test checkout
let srvS: TestServer; // Stripe, through the stand-in
let stripe: StandIn;
let lakeview: { id: string };
let lakeviewS: { id: string };

/**
 * The ADMIN records figures the Town Board set, effective today. The Board's resolution number and
 * date are sent when the API's input has them (a change to rulebooks being made alongside adds them).
 */
async function boardSets(server: TestServer, districtId: string, reason: string, changes: { key: string; value: number }[]) {
  const admin = await signedIn(server, DEMO.lakeviewAdmin);
  const { __type } = await admin.ok(`{ __type(name: "ChangeRulebookInput") { inputFields { name } } }`);
  const resolution = __type.inputFields.some((f: { name: string }) => f.name === "resolutionNumber") ? { resolutionNumber: "2026-41", resolutionAdoptedOn: dateIn(TZ) } : {};
  await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, { i: { districtId, effectiveDate: dateIn(TZ), reason, ...resolution, changes } });
}
const setIndustrialFee = (server: TestServer, districtId: string) =>
  boardSets(server, districtId, "Town Board resolution sets the fee", [{ key: "industrial.applicationFee", value: 50000 }]);

beforeAll(async () => {
  stripe = await startStripeStandIn();
  [srv, srvS] = await Promise.all([
    startTestServer(),
    startTestServer({ env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url } }),
  ]);
  await connectDistrictAccount(stripe, srvS, "lakeview"); // card payments run on the district's own account
  const q = `{ district(slug: "lakeview") { id } }`;
  lakeview = (await new Client(srv.url).ok(q)).district;
  lakeviewS = (await new Client(srvS.url).ok(q)).district;
  await setIndustrialFee(srv, lakeview.id);
  await setIndustrialFee(srvS, lakeviewS.id);
  // The Town Board sets the dumping fee (SUL 1208): $60.00 per 1,000 gallons, at least $50.00 a load.
  await boardSets(srv, lakeview.id, "Town Board resolution: septage dumping fees", [
    { key: "hauler.dumpingFeePer1000Gallons", value: 6000 },
    { key: "hauler.dumpingFeeMinimumPerLoad", value: 5000 },
  ]);
});
afterAll(async () => {
  await Promise.all([srv?.close(), srvS?.close()]);
  await stripe?.close();
});

const PAYMENT = `query($id: ID!) { payment(id: $id) { id status amountCents refundedCents receiptNumber paidAt provider cancelledAt cancelReason refundDue
  lines { code refundable refunded } } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`;
const COMPLETE = `mutation($s: String!, $o: String!) { completeTestCheckout(sessionId: $s, outcome: $o) { id status receiptNumber } }`;
const COUNTER = `mutation($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { id status receiptNumber } }`;
const REFUND = `mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id amountCents lineCodes method receiptNumber } }`;
const WITHDRAWN = "This payment was cancelled: The application was withdrawn. Nothing is due.";

const sessionOf = (url: string) => url.split("/").pop()!;
const row = async (s: TestServer, id: string) => (await s.running.ds.query(`SELECT * FROM payment WHERE id = $1`, [id]))[0];
const auditOf = async (s: TestServer, entityId: string) =>
  (await s.running.ds.query(`SELECT action, actor_id, reason, details FROM audit_entry WHERE entity_id = $1 ORDER BY id`, [entityId])) as {
    action: string;
    actor_id: string | null;
    reason: string | null;
    details: any;
  }[];
const userId = async (s: TestServer, email: string) => (await s.running.ds.query(`SELECT id FROM app_user WHERE email = $1`, [email]))[0].id as string;
const expireJobs = async (s: TestServer, paymentId: string) =>
  (await s.running.ds.query(`SELECT status, payload FROM job WHERE name = 'payments.expire-checkout' AND payload->>'paymentId' = $1`, [paymentId])) as { status: string; payload: any }[];

/** An industrial user applies for a discharge permit; the $500.00 fee is a pending payment. */
async function industrialApplicant(server: TestServer, districtId: string, name: string) {
  const f = await firm(server, name, "cancel.example");
  const { saveIndustrialApplication: d } = await f.owner.ok(`mutation($i: IndustrialApplicationInput!) { saveIndustrialApplication(input: $i) { id } }`, {
    i: industrialApplication(f, districtId),
  });
  const { submitIndustrialApplication: s } = await f.owner.ok(`mutation($id: ID!) { submitIndustrialApplication(id: $id) { status paymentId } }`, { id: d.id });
  expect(s.status).toBe("SUBMITTED");
  return { f, permitId: d.id as string, paymentId: s.paymentId as string };
}
const WITHDRAW = `mutation($id: ID!) { withdrawIndustrialApplication(id: $id) { id status paidAt } }`;

/** Delivers an event to the webhook as Stripe does: the raw JSON, signed. */
async function deliver(event: unknown): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return fetch(`${srvS.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}

describe("cancelling when the payable is abandoned (built-in test checkout)", () => {
  it("a withdrawn industrial application cancels its unpaid fee with the reason, audited; nobody can pay it any more; nothing else changes", async () => {
    const { f, permitId, paymentId } = await industrialApplicant(srv, lakeview.id, "Harbor Plating Works LLC");
    const other = await industrialApplicant(srv, lakeview.id, "Other Plating Inc");
    // The payer opened the test checkout before withdrawing.
    const sessionId = sessionOf((await f.owner.ok(START, { id: paymentId })).startCheckout.url);
    const clerk = await signedIn(srv, DEMO.lakeviewClerk);

    const { withdrawIndustrialApplication: w } = await f.owner.ok(WITHDRAW, { id: permitId });
    expect(w).toMatchObject({ status: "WITHDRAWN", paidAt: null });

    const { payment } = await f.owner.ok(PAYMENT, { id: paymentId });
    expect(payment).toMatchObject({ status: "CANCELLED", cancelReason: "The application was withdrawn.", receiptNumber: null, paidAt: null, refundDue: false });
    expect(Date.parse(payment.cancelledAt)).toBeGreaterThan(Date.now() - 60_000);
    const ownerId = await userId(srv, f.ownerEmail);
    const cancelled = (await auditOf(srv, paymentId)).filter((e) => e.action === "payment.cancelled");
    expect(cancelled).toEqual([
      expect.objectContaining({ actor_id: ownerId, reason: "The application was withdrawn.", details: expect.objectContaining({ payableType: "IndustrialPermit", payableId: permitId, provider: "test" }) }),
    ]);
    // The test checkout is closed by the status change itself: no job.
    expect(await expireJobs(srv, paymentId)).toEqual([]);

    // Refused everywhere, with the reason.
    const pay = await f.owner.gql(COMPLETE, { s: sessionId, o: "PAY" });
    expect(errorCode(pay)).toBe("CONFLICT");
    expect(pay.errors![0].message).toBe(WITHDRAWN);
    const start = await f.owner.gql(START, { id: paymentId });
    expect(errorCode(start)).toBe("CONFLICT");
    expect(start.errors![0].message).toBe(WITHDRAWN);
    const counter = await clerk.gql(COUNTER, { i: { paymentId, method: "cash" } });
    expect(errorCode(counter)).toBe("CONFLICT");
    expect(counter.errors![0].message).toBe(WITHDRAWN);
    // The test checkout page still finds it, to say so.
    expect((await f.owner.ok(`query($s: String!) { testCheckout(sessionId: $s) { status cancelReason } }`, { s: sessionId })).testCheckout).toEqual({
      status: "CANCELLED",
      cancelReason: "The application was withdrawn.",
    });

    const p = await row(srv, paymentId);
    expect(p).toMatchObject({ status: "CANCELLED", receipt_number: null, paid_at: null });
    expect((await srv.running.ds.query(`SELECT count(*)::int AS n FROM outbox_email WHERE kind = 'payment.receipt' AND recipient_id = $1`, [ownerId]))[0].n).toBe(0);
    expect((await auditOf(srv, permitId)).map((e) => e.action)).not.toContain("industrial.fee_paid");

    // The other applicant's fee is untouched and still payable.
    expect((await row(srv, other.paymentId)).status).toBe("PENDING");
    expect((await other.f.owner.ok(START, { id: other.paymentId })).startCheckout.provider).toBe("test");

    // The payer's list and the Clerk's ledger say it in words the pages show; CANCELLED filters it.
    const mine = (await f.owner.ok(`{ myPayments { id status cancelReason refundDue } }`)).myPayments;
    expect(mine).toContainEqual({ id: paymentId, status: "CANCELLED", cancelReason: "The application was withdrawn.", refundDue: false });
    const ledger = (await clerk.ok(`query($d: ID!) { districtPayments(districtId: $d, status: "CANCELLED", first: 200) { payments { id cancelReason } } }`, { d: lakeview.id })).districtPayments;
    expect(ledger.payments).toContainEqual({ id: paymentId, cancelReason: "The application was withdrawn." });
  });

  it("a load cancelled by the hauler, or refused by the Operator, before its dumping fee is paid cancels the fee; a paid fee stays paid for refund", async () => {
    const [board, operator] = await Promise.all([DEMO.lakeviewBoard, DEMO.lakeviewOperator].map((e) => signedIn(srv, e)));
    // A licensed hauler (the application fee paid through the test checkout).
    const c = new Client(srv.url);
    const email = `owner${Date.now() % 100000}@cancel-haulers.example.com`;
    await c.signUp(email, "Dana Owner");
    const { createOrganization: org } = await c.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: "Septic Cancel LLC", kind: "HAULER" } });
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");
    const { uploadDocument: doc } = await c.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
      i: { filename: "part-364-permit.pdf", contentBase64: pdf, organizationId: org.id },
    });
    const truck = { make: "International", model: "HV607", tankCapacityGallons: 3000, plate: `CXL${Date.now() % 10000}`, plateState: "NY", colour: "White", registeredOwner: "Septic Cancel LLC" };
    const { saveHaulerLicenseDraft: draft } = await c.ok(`mutation($i: HaulerLicenseDraftInput!) { saveHaulerLicenseDraft(input: $i) { id } }`, {
      i: {
        organizationId: org.id,
        districtId: lakeview.id,
        part364PermitNumber: "9A-123",
        part364ExpiresOn: addCalendarDays(dateIn(TZ), 300),
        part364DocumentId: doc.id,
        annualVolumeGallons: 250000,
        serviceArea: "Town of Lakeview",
        vehicles: [truck],
      },
    });
    const { submitHaulerLicense: sub } = await c.ok(`mutation($id: ID!) { submitHaulerLicense(id: $id, certify: true) { paymentId } }`, { id: draft.id });
    const payTest = async (paymentId: string) => {
      const s = sessionOf((await c.ok(START, { id: paymentId })).startCheckout.url);
      expect((await c.ok(COMPLETE, { s, o: "PAY" })).completeTestCheckout.status).toBe("PAID");
    };
    await payTest(sub.paymentId);
    const { decideHaulerLicense: license } = await board.ok(`mutation($i: DecideHaulerLicenseInput!) { decideHaulerLicense(input: $i) { id vehicles { id } } }`, {
      i: { id: draft.id, decision: "APPROVE", dumpingLocation: "Lakeview WWTP septage receiving station", dumpingDays: [0, 1, 2, 3, 4, 5, 6], dumpingFrom: "07:00", dumpingTo: "15:00" },
    });
    const BOOK = `mutation($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { id status feeCents paymentId } }`;
    const book = async () =>
      (
        await c.ok(BOOK, {
          i: {
            licenseId: license.id,
            vehicleId: license.vehicles[0].id,
            sourceAddress: "14 Lake Street, Lakeview",
            sourceKind: "RESIDENTIAL_SEPTIC_TANK",
            estimatedGallons: 2500,
            plannedArrival: `${addCalendarDays(dateIn(TZ), 3)}T09:00`,
          },
        })
      ).bookHaulerLoad;
    const CANCEL = `mutation($id: ID!, $r: String) { cancelHaulerLoad(id: $id, reason: $r) { id status refundDue } }`;
    const REFUSE = `mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id status refundDue } }`;
    const haulerId = await userId(srv, email);
    const operatorId = await userId(srv, DEMO.lakeviewOperator);

    // Cancelled by the hauler before paying.
    const one = await book();
    expect(one.feeCents).toBe(15000);
    expect((await c.ok(CANCEL, { id: one.id, r: "Truck broke down" })).cancelHaulerLoad).toMatchObject({ status: "CANCELLED", refundDue: false });
    expect((await c.ok(PAYMENT, { id: one.paymentId })).payment).toMatchObject({ status: "CANCELLED", cancelReason: "The hauling company cancelled the load: Truck broke down" });
    expect((await auditOf(srv, one.paymentId)).filter((e) => e.action === "payment.cancelled")).toEqual([
      expect.objectContaining({ actor_id: haulerId, reason: "The hauling company cancelled the load: Truck broke down" }),
    ]);
    expect(errorCode(await c.gql(START, { id: one.paymentId }))).toBe("CONFLICT");

    // Refused by the Operator before paying.
    const two = await book();
    expect((await operator.ok(REFUSE, { i: { id: two.id, decision: "REFUSE", reason: "The station is closed for repairs that day" } })).decideHaulerLoad.status).toBe("REFUSED");
    expect((await c.ok(PAYMENT, { id: two.paymentId })).payment).toMatchObject({
      status: "CANCELLED",
      cancelReason: "The District Operator refused the load: The station is closed for repairs that day",
    });
    expect((await auditOf(srv, two.paymentId)).filter((e) => e.action === "payment.cancelled")).toEqual([expect.objectContaining({ actor_id: operatorId })]);

    // Paid, then cancelled: the payment stays PAID (the load is marked for the Clerk's refund), nothing cancelled.
    const three = await book();
    await payTest(three.paymentId);
    expect((await c.ok(CANCEL, { id: three.id })).cancelHaulerLoad).toMatchObject({ status: "CANCELLED", refundDue: true });
    expect((await c.ok(PAYMENT, { id: three.paymentId })).payment).toMatchObject({ status: "PAID", cancelledAt: null, cancelReason: null, refundDue: false });
    expect((await auditOf(srv, three.paymentId)).map((e) => e.action)).not.toContain("payment.cancelled");
    // The licence's own fee is untouched.
    expect((await row(srv, sub.paymentId)).status).toBe("PAID");
  });
});

describe("Stripe checkouts of cancelled and abandoned payments", () => {
  it("an expired session (checkout.session.expired) leaves the payment due, forgets the session once, and the next Pay makes a new one", async () => {
    const { f, paymentId } = await industrialApplicant(srvS, lakeviewS.id, "Expired Checkout Plating LLC");
    const first = sessionOf((await f.owner.ok(START, { id: paymentId })).startCheckout.url);
    // Stripe lets the session lapse (24 hours) and tells the webhook.
    await fetch(`${stripe.url}/v1/checkout/sessions/${first}/expire`, { method: "POST" });
    const event = stripe.event("checkout.session.expired", stripe.sessions.get(first));
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver(event)).status).toBe(200); // repeated: applied once

    const p = await row(srvS, paymentId);
    expect(p).toMatchObject({ status: "PENDING", provider: "stripe", provider_session_id: null, idempotency_key: `checkout-${paymentId}-a2`, cancelled_at: null });
    const expired = (await auditOf(srvS, paymentId)).filter((e) => e.action === "payment.checkout_expired");
    expect(expired).toEqual([expect.objectContaining({ actor_id: null, details: expect.objectContaining({ sessionId: first, eventId: event.id }) })]);

    const second = sessionOf((await f.owner.ok(START, { id: paymentId })).startCheckout.url);
    expect(second).not.toBe(first);
    expect(stripe.sessions.get(second).status).toBe("open");
    expect((await row(srvS, paymentId)).provider_session_id).toBe(second);
    // An expired event for a session that is no longer the payment's changes nothing.
    expect((await deliver(stripe.event("checkout.session.expired", stripe.sessions.get(first)))).status).toBe(200);
    expect((await row(srvS, paymentId)).provider_session_id).toBe(second);
    // Nor does one for a session nobody knows.
    expect((await deliver(stripe.event("checkout.session.expired", { id: "cs_test_not_ours", object: "checkout.session", status: "expired" }))).status).toBe(200);
  });

  it("cancelling queues the session's closing for after the transaction; the job expires it at Stripe; paying is refused without calling Stripe", async () => {
    const { f, permitId, paymentId } = await industrialApplicant(srvS, lakeviewS.id, "Closed Checkout Plating LLC");
    const sid = sessionOf((await f.owner.ok(START, { id: paymentId })).startCheckout.url);
    const expireCalls = () => stripe.requests.filter((r) => r.path === `/v1/checkout/sessions/${sid}/expire`).length;

    await f.owner.ok(WITHDRAW, { id: permitId });
    expect((await row(srvS, paymentId)).status).toBe("CANCELLED");
    // Not called inside the withdrawal's transaction: queued.
    expect(expireCalls()).toBe(0);
    expect(stripe.sessions.get(sid).status).toBe("open");
    expect(await expireJobs(srvS, paymentId)).toEqual([{ status: "queued", payload: { paymentId, sessionId: sid } }]);
    expect((await auditOf(srvS, paymentId)).find((e) => e.action === "payment.cancelled")!.details).toMatchObject({ sessionId: sid, closeStripeSession: true });

    // Refused before Stripe is asked anything.
    const before = stripe.requests.length;
    const sessionsBefore = stripe.sessions.size;
    const start = await f.owner.gql(START, { id: paymentId });
    expect(errorCode(start)).toBe("CONFLICT");
    expect(start.errors![0].message).toBe(WITHDRAWN);
    const clerk = await signedIn(srvS, DEMO.lakeviewClerk);
    expect(errorCode(await clerk.gql(COUNTER, { i: { paymentId, method: "check", checkNumber: "12" } }))).toBe("CONFLICT");
    expect(stripe.requests.length).toBe(before);
    expect(stripe.sessions.size).toBe(sessionsBefore);

    await runDueJobs(srvS.running.ds, log);
    expect(expireCalls()).toBe(1);
    expect(stripe.sessions.get(sid).status).toBe("expired");
    expect((await expireJobs(srvS, paymentId)).map((j) => j.status)).toEqual(["done"]);
    expect((await auditOf(srvS, paymentId)).filter((e) => e.action === "payment.checkout_closed")).toEqual([
      expect.objectContaining({ details: { sessionId: sid, sessionStatus: "expired" } }),
    ]);
    // Stripe's checkout.session.expired for it changes nothing: the payment stays cancelled.
    expect((await deliver(stripe.event("checkout.session.expired", stripe.sessions.get(sid)))).status).toBe(200);
    expect(await row(srvS, paymentId)).toMatchObject({ status: "CANCELLED", provider_session_id: sid, receipt_number: null });
  });

  it("a cancellation whose transaction rolls back leaves the payment due and its checkout open", async () => {
    const { f, permitId, paymentId } = await industrialApplicant(srvS, lakeviewS.id, "Rolled Back Plating LLC");
    const sid = sessionOf((await f.owner.ok(START, { id: paymentId })).startCheckout.url);
    const failed = srvS.running.ds.transaction(async (tx) => {
      const done = await cancelPendingPayments(tx, { userId: null }, { payableType: "IndustrialPermit", payableId: permitId, reason: "The application was withdrawn." });
      expect(done.map((p) => p.status)).toEqual(["CANCELLED"]);
      throw new Error("the withdrawal failed after cancelling");
    });
    await expect(failed).rejects.toThrow("the withdrawal failed");
    expect(await row(srvS, paymentId)).toMatchObject({ status: "PENDING", cancelled_at: null, provider_session_id: sid });
    expect(await expireJobs(srvS, paymentId)).toEqual([]);
    expect((await auditOf(srvS, paymentId)).map((e) => e.action)).not.toContain("payment.cancelled");
    await runDueJobs(srvS.running.ds, log);
    expect(stripe.sessions.get(sid).status).toBe("open");
    expect(sessionOf((await f.owner.ok(START, { id: paymentId })).startCheckout.url)).toBe(sid);
  });

  it("a checkout completed at Stripe after the cancellation is kept: receipted, flagged for refund, not applied; the Clerk refunds all of it", async () => {
    const { f, permitId, paymentId } = await industrialApplicant(srvS, lakeviewS.id, "Race Plating LLC");
    const sid = sessionOf((await f.owner.ok(START, { id: paymentId })).startCheckout.url);
    await f.owner.ok(WITHDRAW, { id: permitId });
    // The payer was still on Stripe's page and pays before the job closes the session.
    const session = stripe.complete(sid);
    const completed = stripe.event("checkout.session.completed", session);
    expect((await deliver(completed)).status).toBe(200);
    expect((await deliver(completed)).status).toBe(200);

    const p = (await f.owner.ok(PAYMENT, { id: paymentId })).payment;
    expect(p).toMatchObject({ status: "PAID", provider: "stripe", cancelReason: "The application was withdrawn.", refundDue: true, amountCents: 50000 });
    expect(p.receiptNumber).toMatch(/^LKV-\d{4}-\d{6}$/);
    expect(p.cancelledAt).not.toBeNull();
    // Not applied to the withdrawn application.
    const permit = (await f.owner.ok(`query($id: ID!) { industrialPermit(id: $id) { status paidAt } }`, { id: permitId })).industrialPermit;
    expect(permit).toEqual({ status: "WITHDRAWN", paidAt: null });
    expect((await auditOf(srvS, permitId)).map((e) => e.action)).not.toContain("industrial.fee_paid");
    const actions = (await auditOf(srvS, paymentId)).map((e) => e.action);
    expect(actions.filter((a) => a === "payment.paid_after_cancel")).toHaveLength(1);
    expect(actions).not.toContain("payment.paid");
    expect((await auditOf(srvS, paymentId)).find((e) => e.action === "payment.paid_after_cancel")!.reason).toBe("The application was withdrawn.");
    // The payer's receipt says it is returned; the Clerk is told to refund it.
    const receipts = await srvS.running.ds.query(`SELECT body_text FROM outbox_email WHERE kind = 'payment.receipt' AND body_text LIKE $1`, [`%${p.receiptNumber}%`]);
    expect(receipts).toHaveLength(1);
    expect(receipts[0].body_text).toContain("returns the full amount");
    const clerkMail = await srvS.running.ds.query(`SELECT to_address, body_text FROM outbox_email WHERE kind = 'payment.refund_due' AND subject LIKE $1`, [`%${p.receiptNumber}%`]);
    expect(clerkMail.map((m: any) => m.to_address)).toEqual([DEMO.lakeviewClerk]);
    expect(clerkMail[0].body_text).toContain("status=REFUND_DUE");
    const clerk = await signedIn(srvS, DEMO.lakeviewClerk);
    const due = (await clerk.ok(`query($d: ID!) { districtPayments(districtId: $d, status: "REFUND_DUE") { payments { id refundDue } } }`, { d: lakeviewS.id })).districtPayments;
    expect(due.payments).toEqual([{ id: paymentId, refundDue: true }]);

    // The job then finds the session complete: nothing to close, and it does not fail.
    await runDueJobs(srvS.running.ds, log);
    expect((await expireJobs(srvS, paymentId)).map((j) => j.status)).toEqual(["done"]);
    expect((await auditOf(srvS, paymentId)).find((e) => e.action === "payment.checkout_closed")!.details).toEqual({ sessionId: sid, sessionStatus: "complete" });

    // The application fee is not a deposit, but money paid after cancellation goes back in full.
    expect(p.lines).toEqual([{ code: "INDUSTRIAL_PERMIT_APPLICATION_FEE", refundable: false, refunded: false }]);
    const refund = (await clerk.ok(REFUND, { i: { paymentId, lineCodes: [p.lines[0].code], reason: "Paid after the application was withdrawn" } })).refundPayment;
    expect(refund).toMatchObject({ amountCents: 50000, method: "card" });
    const calls = stripe.requests.filter((r) => r.path === "/v1/refunds" && r.params.metadata?.paymentId === paymentId);
    expect(calls.map((r) => r.params.amount)).toEqual(["50000"]);
    expect((await f.owner.ok(PAYMENT, { id: paymentId })).payment).toMatchObject({ status: "REFUNDED", refundedCents: 50000, refundDue: false });
  });
});

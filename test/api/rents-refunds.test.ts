import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { accountRefundableCardPayments } from "../../api/rents/refunds.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type GqlResponse, type TestServer } from "../harness.js";
import { issueTestBill } from "../rents-fixtures.js";
import { pageText, portal } from "../portal.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * Refunding an account's credit (issue 14): an account paid twice holds a credit; the district's
 * Town Clerk previews and then pays it back, by check (number and date) or back to the card of a
 * card payment through Stripe on the district's connected account. Never more than the credit nor
 * than what is left of the card payment (at the limit and a cent past it), a reason required, the
 * history, the payments export, the receipt to the party billed, the audit entry, and who may do
 * what, operation by operation.
 */

const CONNECT_SECRET = "whsec_connect";
const signer = new Stripe("sk_test_x");
let srv: TestServer;
let stripe: StandIn;
let lakeview: { id: string };
let huron: { id: string };
let stripeAccount: string;
let clerk: Client;
let operator: Client;
let huronClerk: Client;
let owner: Client;
let signedOut: Client;
const db = () => srv.running.ds;
const fields = (r: GqlResponse) => (r.errors?.[0]?.extensions?.fields ?? {}) as Record<string, string>;
const noonOn = (d: string) => travelTo(`${d}T16:00:00Z`);

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const BALANCE = `query($id: ID!) { serviceAccountBalance(accountId: $id) { balanceCents lines { on kind description amountCents balanceCents paymentId } } }`;
const PAY = `mutation($i: PayServiceAccountInput!) { payServiceAccount(input: $i) { id } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`;
const COUNTER = `mutation($i: AccountCounterPaymentInput!) { recordAccountCounterPayment(input: $i) { id receiptNumber } }`;
const CARDS = `query($a: ID!) { accountRefundableCardPayments(accountId: $a) { paymentId receiptNumber paidOn amountCents refundableCents test } }`;
const R = `accountId accountNumber creditCents amountCents method payeeName receiptEmail payment { paymentId receiptNumber refundableCents } checkNumber checkDate reason balanceAfterCents`;
const PREVIEW = `query($i: AccountRefundInput!) { previewAccountRefund(input: $i) { ${R} } }`;
const REFUND = `mutation($i: AccountRefundInput!) { refundAccountCredit(input: $i) { id receiptNumber on ${R} } }`;
const PAYMENTS_CSV = `query($d: ID!, $f: String, $t: String) { sewerPaymentsCsv(districtId: $d, from: $f, to: $t) { csv } }`;

let parcel = 0;
async function account(c: Client, districtId: string, ownerEmail: string | null) {
  const n = ++parcel;
  const p = (await c.ok(ADD, { i: { districtId, taxParcel: `78.${n}-1-${n}`, streetNumber: String(n), street: "Refund Road", zip: "13600", ownerName: `Owner ${n}`, ownerSince: "2020-01-01", ownerEmail } })).addSewerProperty;
  const a = (await c.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: `Occupant ${n}`, openedOn: "2024-01-01" } })).openServiceAccount;
  return { id: a.id as string, accountNumber: a.accountNumber as string, propertyId: p.id as string, districtId, n };
}

async function deliver(event: unknown): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: CONNECT_SECRET });
  return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
}

/** The owner pays `amountCents` toward the account by card on Stripe's page (the stand-in), confirmed by the webhook. */
async function payByCard(accountId: string, amountCents: number): Promise<string> {
  const p = (await owner.ok(PAY, { i: { accountId, amountCents } })).payServiceAccount;
  const url: string = (await owner.ok(START, { id: p.id })).startCheckout.url;
  const session = stripe.complete(url.split("/").pop()!);
  expect((await deliver(stripe.event("checkout.session.completed", session))).status).toBe(200);
  const [row] = await db().query(`SELECT status FROM payment WHERE id = $1`, [p.id]);
  expect(row.status).toBe("PAID");
  return p.id;
}

beforeAll(async () => {
  stripe = await startStripeStandIn();
  srv = await startTestServer({ portal: "vite", env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_platform", STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET, STRIPE_API_BASE: stripe.url } });
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  stripeAccount = await connectDistrictAccount(stripe, srv, "lakeview");
  [clerk, operator, huronClerk] = await Promise.all([DEMO.lakeviewClerk, DEMO.lakeviewOperator, DEMO.huronClerk].map((e) => signedInAs(srv.url, e)));
  owner = new Client(srv.url);
  await owner.signUp("refund-owner@example.com", "Rita Refund");
  signedOut = new Client(srv.url);
}, 120_000);
afterEach(() => resetClock());
afterAll(async () => {
  await srv?.close();
  await stripe?.close();
});

describe("a Lakeview account paid twice: its credit refunded to the card, then by check", () => {
  let acct: Awaited<ReturnType<typeof account>>;
  let card: string;
  let cash: { id: string; receiptNumber: string };
  const check = (o: Record<string, unknown> = {}) => ({ accountId: acct.id, amountCents: 15_000, method: "check", checkNumber: "2001", checkDate: "2026-05-04", reason: "Paid twice: by card and at the counter.", ...o });

  it("a bill paid by card and again in cash leaves a credit", async () => {
    noonOn("2026-05-04");
    acct = await account(clerk, lakeview.id, "refund-owner@example.com");
    await issueTestBill(db(), acct, { cycle: "OTHER", periodStart: "2026-01-01", periodEnd: "2026-03-31", mailedOn: "2026-04-01", dueOn: "2026-04-21", totalCents: 10_000 }, "RF");
    card = await payByCard(acct.id, 10_000);
    cash = (await clerk.ok(COUNTER, { i: { accountId: acct.id, amountCents: 15_000, method: "cash" } })).recordAccountCounterPayment;
    expect((await clerk.ok(BALANCE, { id: acct.id })).serviceAccountBalance.balanceCents).toBe(-15_000);
    expect((await clerk.ok(CARDS, { a: acct.id })).accountRefundableCardPayments).toEqual([
      expect.objectContaining({ paymentId: card, amountCents: 10_000, refundableCents: 10_000, paidOn: "2026-05-04", test: false }),
    ]);
  });

  it("only the district's Town Clerk: other staff FORBIDDEN, another district's Clerk NOT_FOUND, the owner FORBIDDEN, signed out UNAUTHENTICATED", async () => {
    for (const [c, code] of [
      [operator, "FORBIDDEN"],
      [huronClerk, "NOT_FOUND"],
      [owner, "FORBIDDEN"],
      [signedOut, "UNAUTHENTICATED"],
    ] as const) {
      expect(errorCode(await c.gql(CARDS, { a: acct.id })), `cards ${code}`).toBe(code);
      expect(errorCode(await c.gql(PREVIEW, { i: check() })), `preview ${code}`).toBe(code);
      expect(errorCode(await c.gql(REFUND, { i: check() })), `refund ${code}`).toBe(code);
    }
    expect(errorCode(await clerk.gql(PREVIEW, { i: check({ accountId: "not-an-id" }) }))).toBe("NOT_FOUND");
    expect((await clerk.ok(BALANCE, { id: acct.id })).serviceAccountBalance.balanceCents).toBe(-15_000);
  });

  it("the preview: the credit passes, a cent more is refused; a reason, the check's number and date are asked for; nothing changes", async () => {
    noonOn("2026-05-04");
    expect(fields(await clerk.gql(PREVIEW, { i: check({ amountCents: 15_001 }) })).amountCents).toBe("At most the account's credit, $150.00.");
    const bad = await clerk.gql(PREVIEW, { i: check({ reason: " ", checkNumber: "", checkDate: "" }) });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(Object.keys(fields(bad)).sort()).toEqual(["checkDate", "checkNumber", "reason"]);
    expect(fields(await clerk.gql(PREVIEW, { i: check({ checkDate: "2026-05-05" }) })).checkDate).toContain("today or a day before");
    expect(fields(await clerk.gql(PREVIEW, { i: check({ method: "cash" }) })).method).toBeTruthy();
    expect(fields(await clerk.gql(PREVIEW, { i: check({ method: "card" }) })).paymentId).toBeTruthy();
    // A counter payment is not a card payment.
    expect(fields(await clerk.gql(PREVIEW, { i: check({ method: "card", paymentId: cash.id, amountCents: 100 }) })).paymentId).toContain("not a card payment");
    const before = await db().query(`SELECT count(*)::int AS n FROM account_ledger_entry WHERE account_id = $1`, [acct.id]);
    const p = (await clerk.ok(PREVIEW, { i: check() })).previewAccountRefund;
    expect(p).toMatchObject({
      accountNumber: acct.accountNumber,
      creditCents: 15_000,
      amountCents: 15_000,
      method: "check",
      // SUL: the occupant is billed; the receipt goes to the sign-in the bills' email goes to (the owner here, the occupant having none).
      payeeName: `Occupant ${acct.n}`,
      receiptEmail: "refund-owner@example.com",
      checkNumber: "2001",
      checkDate: "2026-05-04",
      balanceAfterCents: 0,
    });
    expect(await db().query(`SELECT count(*)::int AS n FROM account_ledger_entry WHERE account_id = $1`, [acct.id])).toEqual(before);
  });

  it("back to the card: at most what the card paid (a cent more refused), on the district's account, once; the payment is partly refunded", async () => {
    noonOn("2026-05-04");
    expect(fields(await clerk.gql(PREVIEW, { i: check({ method: "card", paymentId: card, amountCents: 10_001 }) })).amountCents).toBe(`At most what is left of card payment ${(await db().query(`SELECT receipt_number FROM payment WHERE id = $1`, [card]))[0].receipt_number}, $100.00.`);
    expect((await clerk.ok(PREVIEW, { i: check({ method: "card", paymentId: card, amountCents: 10_000 }) })).previewAccountRefund).toMatchObject({ method: "card", payment: { paymentId: card, refundableCents: 10_000 }, balanceAfterCents: -5_000 });
    const r = (await clerk.ok(REFUND, { i: check({ method: "card", paymentId: card, amountCents: 4_000, checkNumber: null, checkDate: null }) })).refundAccountCredit;
    expect(r).toMatchObject({ amountCents: 4_000, method: "card", on: "2026-05-04", creditCents: 15_000, balanceAfterCents: -11_000, checkNumber: null });
    expect(r.receiptNumber).toMatch(/^LKV-2026-\d{6}$/);
    const sent = stripe.requests.filter((q) => q.path === "/v1/refunds");
    expect(sent).toHaveLength(1);
    const [pay] = await db().query(`SELECT status, refunded_cents, provider_payment_intent FROM payment WHERE id = $1`, [card]);
    expect(sent[0]).toMatchObject({ account: stripeAccount, params: { payment_intent: pay.provider_payment_intent, amount: "4000" } });
    expect(sent[0].idempotencyKey).toBe(`account-refund-${card}-0-4000`);
    expect(pay).toMatchObject({ status: "PARTIALLY_REFUNDED", refunded_cents: 4_000 });
    const [refund] = await db().query(`SELECT amount_cents, method, provider_refund_id, receipt_number FROM refund WHERE payment_id = $1`, [card]);
    expect(refund).toMatchObject({ amount_cents: 4_000, method: "card", receipt_number: r.receiptNumber });
    expect(stripe.refunds.get(refund.provider_refund_id)).toBeTruthy();
    // What is left of the card payment is now the limit: 6,000 passes the preview, 6,001 does not.
    expect(fields(await clerk.gql(PREVIEW, { i: check({ method: "card", paymentId: card, amountCents: 6_001 }) })).amountCents).toContain("$60.00");
    expect((await clerk.ok(PREVIEW, { i: check({ method: "card", paymentId: card, amountCents: 6_000 }) })).previewAccountRefund.amountCents).toBe(6_000);
  });

  it("by check: the rest of the credit passes, a cent more is refused; then nothing is left to refund", async () => {
    noonOn("2026-05-05");
    expect(fields(await clerk.gql(REFUND, { i: check({ amountCents: 11_001 }) })).amountCents).toBe("At most the account's credit, $110.00.");
    const r = (await clerk.ok(REFUND, { i: check({ amountCents: 11_000 }) })).refundAccountCredit;
    expect(r).toMatchObject({ amountCents: 11_000, method: "check", checkNumber: "2001", checkDate: "2026-05-04", on: "2026-05-04", balanceAfterCents: 0, payment: null });
    expect(stripe.requests.filter((q) => q.path === "/v1/refunds")).toHaveLength(1);
    expect(errorCode(await clerk.gql(REFUND, { i: check({ amountCents: 1 }) }))).toBe("CONFLICT");
    const b = (await clerk.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b.balanceCents).toBe(0);
    expect(b.lines.filter((l: any) => l.kind === "REFUND").map((l: any) => [l.on, l.amountCents, l.description, l.paymentId])).toEqual([
      ["2026-05-04", 4_000, expect.stringMatching(/^Refund LKV-2026-\d{6} to the card of payment LKV-2026-\d{6}$/), card],
      ["2026-05-04", 11_000, expect.stringMatching(new RegExp(`^Refund LKV-2026-\\d{6}, check no\\. 2001 to Occupant ${acct.n}$`)), null],
    ]);
    // The owner reads the history too.
    expect((await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance.lines.filter((l: any) => l.kind === "REFUND")).toHaveLength(2);
  });

  it("each refund is emailed to the party billed, audited with its reason, and in the payments export as money out", async () => {
    const mails = await db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = 'refund-owner@example.com' AND kind = 'rents.credit_refunded' ORDER BY created_at`);
    expect(mails.map((m: any) => m.subject)).toEqual([expect.stringMatching(/^Refund LKV-2026-\d{6}: \$40\.00 from /), expect.stringMatching(/^Refund LKV-2026-\d{6}: \$110\.00 from /)]);
    expect(mails[0].body_text).toContain("back to the card that paid receipt");
    expect(mails[1].body_text).toContain("check no. 2001, dated May 4, 2026");
    expect(mails[1].body_text).toContain("Reason: Paid twice: by card and at the counter.");
    expect(mails[1].body_text).toContain("No credit is left on the account.");
    const audits = await db().query(`SELECT reason, details FROM audit_entry WHERE action = 'rents.credit_refunded' AND entity_id = $1 ORDER BY at`, [acct.id]);
    expect(audits.map((a: any) => [a.reason, a.details.method, a.details.amountCents])).toEqual([
      ["Paid twice: by card and at the counter.", "card", 4_000],
      ["Paid twice: by card and at the counter.", "check", 11_000],
    ]);
    const csv: string = (await clerk.ok(PAYMENTS_CSV, { d: lakeview.id, f: "2026-05-04", t: "2026-05-04" })).sewerPaymentsCsv.csv;
    const mine = csv.split("\r\n").filter((l) => l.includes(acct.accountNumber));
    // Money out is below zero (a cell starting with "-" is written as text by csvCell, as the receivables' credits are).
    expect(mine.map((l) => l.replace(/^.*?"(card|cash|refund, card|refund, check)",/, "$1,"))).toEqual(['card,"","100.00"', 'cash,"","150.00"', `refund, card,"","'-40.00"`, `refund, check,"2001","'-110.00"`]);
  });

  it("the card payments' list takes the same statements with one card payment as with two", async () => {
    noonOn("2026-05-06");
    const viewer = { userId: (await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.lakeviewClerk]))[0].id, staffRoles: [{ role: "CLERK", districtId: lakeview.id }] } as any;
    const one = await countStatements(db(), () => accountRefundableCardPayments(db(), viewer, acct.id));
    await payByCard(acct.id, 2_500);
    let list: any[] = [];
    const two = await countStatements(db(), async () => (list = await accountRefundableCardPayments(db(), viewer, acct.id)));
    expect(list).toHaveLength(2);
    expect(two).toBe(one);
  });
});

describe("the same card refund sent twice at once", () => {
  it("is made once at Stripe and recorded once, whichever reads the account first", async () => {
    noonOn("2026-05-04");
    const a = await account(clerk, lakeview.id, "refund-owner@example.com");
    await issueTestBill(db(), a, { cycle: "OTHER", periodStart: "2026-01-01", periodEnd: "2026-03-31", mailedOn: "2026-04-01", dueOn: "2026-04-21", totalCents: 3_000 }, "RT");
    const paid = await payByCard(a.id, 3_000);
    await clerk.ok(COUNTER, { i: { accountId: a.id, amountCents: 3_000, method: "cash" } });
    const sentBefore = stripe.requests.filter((q) => q.path === "/v1/refunds").length;
    const ask = () => clerk.gql(REFUND, { i: { accountId: a.id, amountCents: 3_000, method: "card", paymentId: paid, reason: "Paid twice (sent twice)" } });
    // The whole credit, all the card paid: one refund of it, whether the second asks at the same time
    // (the same idempotency key: Stripe's one refund, recorded once) or after the first is recorded (nothing left).
    const answers = await Promise.all([ask(), ask()]);
    expect(answers.filter((r) => !r.errors)).toHaveLength(1);
    expect(["CONFLICT", "BAD_USER_INPUT"]).toContain(errorCode(answers.find((r) => r.errors)!));
    expect(await db().query(`SELECT status, refunded_cents FROM payment WHERE id = $1`, [paid])).toEqual([{ status: "REFUNDED", refunded_cents: 3_000 }]);
    expect(await db().query(`SELECT amount_cents FROM refund WHERE payment_id = $1`, [paid])).toEqual([{ amount_cents: 3_000 }]);
    expect((await clerk.ok(BALANCE, { id: a.id })).serviceAccountBalance.balanceCents).toBe(0);
    const sent = stripe.requests.filter((q) => q.path === "/v1/refunds").slice(sentBefore);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sent.map((q) => q.idempotencyKey))).toEqual(new Set([`account-refund-${paid}-0-3000`]));
    expect([...stripe.refunds.values()].filter((r: any) => r.metadata?.paymentId === paid)).toHaveLength(1);
  });
});

describe("Huron: the owner of record is billed (VI-3), so the check is theirs", () => {
  it("a credit from a counter payment with nothing billed is refunded to the owner of record", async () => {
    noonOn("2026-05-04");
    const a = await account(huronClerk, huron.id, null);
    await huronClerk.ok(COUNTER, { i: { accountId: a.id, amountCents: 500, method: "cash" } });
    const p = (await huronClerk.ok(PREVIEW, { i: { accountId: a.id, amountCents: 500, method: "check", checkNumber: "77", checkDate: "2026-05-04", reason: "Paid before any bill." } })).previewAccountRefund;
    expect(p).toMatchObject({ payeeName: `Owner ${a.n}`, receiptEmail: null, creditCents: 500, balanceAfterCents: 0 });
    expect(errorCode(await clerk.gql(PREVIEW, { i: { accountId: a.id, amountCents: 500, method: "check", checkNumber: "77", checkDate: "2026-05-04", reason: "x" } }))).toBe("NOT_FOUND");
  });
});

/** The first render of the page compiles it in Vite: 120 s on a busy machine. */
describe("the Clerk's account page, without JavaScript: the refund previewed, then confirmed", () => {
  const { get, post } = portal(() => srv.url);
  it("a credit shows the form; the preview says what and to whom; Confirm records it; the operator has no form", async () => {
    const a = await account(clerk, lakeview.id, null);
    await clerk.ok(COUNTER, { i: { accountId: a.id, amountCents: 3_000, method: "cash" } });
    const path = `/staff/properties/accounts/${a.id}`;
    const page = await get(clerk, path);
    expect(page.status).toBe(200);
    expect(pageText(page.html)).toContain("The account has a credit of $30.00.");
    for (const k of ["refundAmount", "refundMethod", "refundCheckNumber", "refundCheckDate", "refundReason"]) expect(page.html).toMatch(new RegExp(`<label[^>]*for="${k}"`));
    expect(pageText((await get(operator, path)).html)).not.toContain("Refund the credit");
    const fields = { intent: "refund-preview", refundAmount: "30.01", refundMethod: "check", refundCheckNumber: "9001", refundCheckDate: "2026-05-04", refundReason: "Paid before any bill." };
    const over = await post(clerk, path, fields);
    expect(over.status).toBe(400);
    expect(over.html).toMatch(/id="refundAmount-error"[^>]*>At most the account&#x27;s credit, \$30\.00\./);
    const noReason = await post(clerk, path, { ...fields, refundAmount: "30.00", refundReason: "" });
    expect(noReason.status).toBe(400);
    expect(noReason.html).toMatch(/id="refundReason-error"/);
    const preview = await post(clerk, path, { ...fields, refundAmount: "30.00" });
    expect(preview.status).toBe(200);
    const t = pageText(preview.html).replace(/ ([,.])/g, "$1");
    expect(t).toContain("Check before you confirm: a refund cannot be undone");
    expect(t).toContain(`Check no. 9001, dated May 4, 2026, to Occupant ${a.n}.`);
    expect(t).toContain(`Occupant ${a.n} has no sign-in: no receipt is emailed.`);
    expect(await db().query(`SELECT id FROM account_ledger_entry WHERE account_id = $1 AND kind = 'REFUND'`, [a.id])).toEqual([]);
    const done = await post(clerk, path, { ...fields, intent: "refund", refundAmount: "30.00" });
    expect(done.status).toBe(302);
    expect(done.location).toContain("done=refund");
    const after = pageText((await get(clerk, path)).html);
    expect(after).toContain("check no. 9001");
    expect(after).not.toContain("Refund the credit");
  }, 120_000);
});

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountBalances } from "../../api/rents/ledger.js";
import { MAX_LOOKUP_FAILURES_PER_ADDRESS, MAX_LOOKUP_FAILURES_PER_NUMBER, NO_MATCH, quickPayLookup, startQuickPay } from "../../api/rents/quick-pay.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type GqlResponse, type TestServer } from "../harness.js";
import { issueTestBill } from "../rents-fixtures.js";
import { pageText, portal } from "../portal.js";

/**
 * Paying the sewer bill as its owner does (issue 14, "Paying"): quick pay without signing in (the
 * number and ZIP show the amount due and the last bill's period and nothing else; the same answer
 * for a wrong number and a wrong ZIP; limited per address and per number, at the limit and just
 * past it, under concurrency; the payment's access token opens its done page and receipt and
 * nothing else), accounts linked to a sign-in (read and pay only), and paperless bills (only the
 * party billed chooses; the run's paper mailing, its CSV and PDF), for Lakeview and Huron, and who
 * may do what, operation by operation. The pages are rendered by Vite, without JavaScript.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let clerk: Client;
let operator: Client;
let huronClerk: Client;
let owner: Client;
let landlord: Client;
let stranger: Client;
let signedOut: Client;
const db = () => srv.running.ds;
const fields = (r: GqlResponse) => (r.errors?.[0]?.extensions?.fields ?? {}) as Record<string, string>;

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const LOOKUP = `mutation($i: QuickPayLookupInput!) { quickPayLookup(input: $i) { accountNumber districtName balanceCents pastDueCents periodFrom periodTo dueOn cardPayments } }`;
const START = `mutation($i: StartQuickPayInput!) { startQuickPay(input: $i) { url paymentId } }`;
const QUICK = `query($id: ID!, $a: String!) { quickPayment(id: $id, access: $a) { id status amountCents receiptNumber methodDescription accountNumber lines { label section amountCents } districtName } }`;
const QUICK_CHECKOUT = `query($s: String!, $a: String!) { quickPayTestCheckout(sessionId: $s, access: $a) { id status amountCents } }`;
const QUICK_PAY = `mutation($s: String!, $a: String!) { completeQuickPayTestCheckout(sessionId: $s, access: $a, outcome: "PAY") { id status receiptNumber } }`;
const PAYMENT = `query($id: ID!) { payment(id: $id) { id status payerId payerName quickPay } }`;
const LINK = `mutation($i: QuickPayLookupInput!) { linkServiceAccount(input: $i) { accountId accountNumber address balanceCents lastBill { number dueOn } bills { number totalCents } } }`;
const UNLINK = `mutation($a: ID!) { unlinkServiceAccount(accountId: $a) }`;
const LINKED = `{ myLinkedAccounts { accountId accountNumber balanceCents bills { id number } } myLinkedBills { id number } }`;
const PAY_LINKED = `mutation($i: PayLinkedServiceAccountInput!) { payLinkedServiceAccount(input: $i) { id status amountCents payerId } }`;
const BILL = `query($id: ID!) { sewerBill(id: $id) { id number totalCents } }`;
const ACCOUNT = `query($id: ID!) { serviceAccount(id: $id) { id } }`;
const WORKSHEET = `query($id: ID!) { assessmentWorksheet(accountId: $id) { accountId } }`;
const CLOSE = `mutation($i: CloseServiceAccountInput!) { closeServiceAccount(input: $i) { id } }`;
const PAPERLESS = `query($a: ID!) { serviceAccountPaperless(accountId: $a) { accountId paperless canChoose chosenByName } }`;
const SET_PAPERLESS = `mutation($i: SetPaperlessInput!) { setPaperless(input: $i) { accountId paperless canChoose } }`;
const MAILING = `query($r: ID!) { billRunPaperMailing(runId: $r) { issued onPaper paperless csvUrl pdfUrl } }`;

let parcel = 0;
let ipSeq = 0;
/** A fresh client address (X-Forwarded-For from the loopback proxy, TRUST_PROXY's default). */
const freshIp = () => `198.51.100.${++ipSeq}`;
/** An operation from a client address. */
async function from(c: Client, ip: string, query: string, variables: Record<string, unknown>): Promise<GqlResponse> {
  const res = await c.raw({ query, variables }, { "x-forwarded-for": ip });
  const json: any = await res.json();
  return { status: res.status, data: json.data ?? null, errors: json.errors, headers: res.headers };
}

/** A property (ZIP 13600 unless given) with one account. */
async function account(c: Client, districtId: string, o: { ownerEmail?: string; occupantEmail?: string; zip?: string } = {}) {
  const n = ++parcel;
  const p = (
    await c.ok(ADD, {
      i: { districtId, taxParcel: `88.${n}-1-${n}`, streetNumber: String(n), street: "Quickpay Road", zip: o.zip ?? "13600", ownerName: `Owner Person ${n}`, ownerSince: "2020-01-01", ownerEmail: o.ownerEmail ?? null },
    })
  ).addSewerProperty;
  const a = (await c.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: `Occupant Person ${n}`, occupantEmail: o.occupantEmail ?? null, openedOn: "2024-01-01" } })).openServiceAccount;
  return { id: a.id as string, accountNumber: a.accountNumber as string, propertyId: p.id as string, districtId };
}

/** An issued bill of the account's cycle (test/rents-fixtures.ts). */
const issuedBill = (acct: { id: string; propertyId: string; districtId: string }, o: { periodStart: string; periodEnd: string; mailedOn: string; dueOn: string; totalCents: number }) =>
  issueTestBill(db(), acct, { ...o, cycle: acct.districtId === huron.id ? "ALL" : "OTHER" }, "Q");

const { get, post: postForm } = portal(() => srv.url);
/** Posts a form of the page at `path`, from a client address of its own (quick pay's limits count by address). */
const post = (c: Client, path: string, form: Record<string, string>, ip = "203.0.113.9") => postForm(c, path, form, { ip });
const text = pageText;
const accessOf = (url: string) => new URL(url, "http://x").searchParams.get("access")!;
const sessionOf = (url: string) => /test-checkout\/([^?]+)/.exec(url)![1];

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [clerk, operator, huronClerk] = await Promise.all([DEMO.lakeviewClerk, DEMO.lakeviewOperator, DEMO.huronClerk].map((e) => signedInAs(srv.url, e)));
  owner = new Client(srv.url);
  await owner.signUp("paying-owner@example.com", "Olga Owner");
  landlord = new Client(srv.url);
  await landlord.signUp("paying-landlord@example.com", "Lana Landlord");
  stranger = new Client(srv.url);
  await stranger.signUp("paying-stranger@example.com", "Stan Stranger");
  signedOut = new Client(srv.url);
}, 120_000);
afterAll(() => srv?.close());

describe("quick pay: the number and ZIP show what is due and nothing else", () => {
  let acct: Awaited<ReturnType<typeof account>>;
  let bill: Awaited<ReturnType<typeof issuedBill>>;

  it("answers the amount due, the last bill's period and due date; no name, no address", async () => {
    acct = await account(clerk, lakeview.id, { ownerEmail: "paying-owner@example.com" });
    bill = await issuedBill(acct, { periodStart: "2026-04-01", periodEnd: "2026-06-30", mailedOn: "2026-07-01", dueOn: "2026-07-21", totalCents: 12_345 });
    const r = await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: ` ${acct.accountNumber.toLowerCase()} `, zip: "13600-4321" } });
    expect(r.errors).toBeUndefined();
    expect(r.data.quickPayLookup).toEqual({
      accountNumber: acct.accountNumber,
      districtName: expect.any(String),
      balanceCents: 12_345,
      pastDueCents: expect.any(Number),
      periodFrom: "2026-04-01",
      periodTo: "2026-06-30",
      dueOn: "2026-07-21",
      cardPayments: true,
    });
    const json = JSON.stringify(r.data);
    expect(json).not.toContain("Person");
    expect(json).not.toContain("Quickpay Road");
  });

  it("a wrong number and a wrong ZIP get the same answer", async () => {
    const wrongZip = await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: acct.accountNumber, zip: "13601" } });
    const wrongNumber = await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: "LKV-999999", zip: "13600" } });
    expect(errorCode(wrongZip)).toBe("BAD_USER_INPUT");
    expect(wrongZip.errors).toEqual(wrongNumber.errors);
    expect(fields(wrongZip)).toEqual({ accountNumber: NO_MATCH, zip: NO_MATCH });
    // A ZIP that is no ZIP is a field error, not an attempt.
    expect(fields(await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: acct.accountNumber, zip: "136" } }))).toEqual({ zip: expect.stringContaining("5-digit") });
  });

  it(`per account number: ${MAX_LOOKUP_FAILURES_PER_NUMBER} failures in 15 minutes are answered, the next try is refused even with the right ZIP`, async () => {
    const target = await account(clerk, lakeview.id);
    for (let i = 0; i < MAX_LOOKUP_FAILURES_PER_NUMBER - 1; i++) expect(errorCode(await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: target.accountNumber, zip: "14000" } }))).toBe("BAD_USER_INPUT");
    // At the limit: the last failure allowed is still answered (and a success does not count).
    expect((await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: target.accountNumber, zip: "13600" } })).errors).toBeUndefined();
    expect(errorCode(await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: target.accountNumber, zip: "14000" } }))).toBe("BAD_USER_INPUT");
    // Just past it: refused, whoever asks and whatever the ZIP; linking is held by the same limit.
    expect(errorCode(await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: target.accountNumber, zip: "13600" } }))).toBe("TOO_MANY_REQUESTS");
    expect(errorCode(await from(landlord, freshIp(), LINK, { i: { accountNumber: target.accountNumber, zip: "13600" } }))).toBe("TOO_MANY_REQUESTS");
    // Another number is not held.
    expect((await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: acct.accountNumber, zip: "13600" } })).errors).toBeUndefined();
  });

  it(`per client address: ${MAX_LOOKUP_FAILURES_PER_ADDRESS} failures, then refused; another address is not held`, async () => {
    const ip = freshIp();
    for (let i = 0; i < MAX_LOOKUP_FAILURES_PER_ADDRESS; i++) expect(errorCode(await from(signedOut, ip, LOOKUP, { i: { accountNumber: `LKV-9${String(i).padStart(5, "0")}`, zip: "13600" } }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await from(signedOut, ip, LOOKUP, { i: { accountNumber: acct.accountNumber, zip: "13600" } }))).toBe("TOO_MANY_REQUESTS");
    expect((await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: acct.accountNumber, zip: "13600" } })).errors).toBeUndefined();
  });

  it("tries sent at once cannot pass the limit", async () => {
    const target = await account(clerk, lakeview.id);
    const answers = await Promise.all(Array.from({ length: 12 }, () => from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: target.accountNumber, zip: "14000" } })));
    expect(answers.filter((r) => errorCode(r) === "BAD_USER_INPUT")).toHaveLength(MAX_LOOKUP_FAILURES_PER_NUMBER);
    expect(answers.filter((r) => errorCode(r) === "TOO_MANY_REQUESTS")).toHaveLength(12 - MAX_LOOKUP_FAILURES_PER_NUMBER);
  });

  let paymentId: string;
  let access: string;
  let url: string;
  it("pays without signing in: a payment with no payer, the test checkout reached with its token; the balance goes down", async () => {
    const r = await from(signedOut, freshIp(), START, { i: { accountNumber: acct.accountNumber, zip: "13600", amountCents: 10_000, email: "Payer@Example.com" } });
    expect(r.errors).toBeUndefined();
    ({ url, paymentId } = r.data.startQuickPay);
    expect(url).toMatch(/^\/payments\/test-checkout\/test_cs_[0-9a-f]+\?access=qp_/);
    access = accessOf(url);
    const [row] = await db().query(`SELECT payer_id, access_token_hash, receipt_email, lines FROM payment WHERE id = $1`, [paymentId]);
    expect(row.payer_id).toBeNull();
    expect(row.access_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.access_token_hash).not.toContain(access);
    expect(row.receipt_email).toBe("payer@example.com");
    // Stripe's page (and the token's pages) name the account, not the address.
    expect(row.lines[0].label).toBe(`Payment toward the balance of sewer account ${acct.accountNumber}`);
    expect((await signedOut.ok(QUICK_CHECKOUT, { s: sessionOf(url), a: access })).quickPayTestCheckout).toMatchObject({ id: paymentId, status: "PENDING", amountCents: 10_000 });
    const paid = (await signedOut.ok(QUICK_PAY, { s: sessionOf(url), a: access })).completeQuickPayTestCheckout;
    expect(paid).toMatchObject({ id: paymentId, status: "PAID", receiptNumber: expect.stringMatching(/^[A-Z]{3}-\d{4}-\d{6}$/) });
    expect((await accountBalances(db(), [acct.id])).get(acct.id)!.balanceCents).toBe(2_345);
    const mail = await db().query(`SELECT subject, body_text, recipient_id FROM outbox_email WHERE to_address = 'payer@example.com' AND kind = 'payment.receipt'`);
    expect(mail).toHaveLength(1);
    expect(mail[0].recipient_id).toBeNull();
    expect(mail[0].body_text).toContain(paid.receiptNumber);
    expect(mail[0].body_text).not.toContain("Quickpay Road");
    // The Clerk's ledger: "Quick pay".
    expect((await clerk.ok(PAYMENT, { id: paymentId })).payment).toMatchObject({ payerId: null, payerName: "Quick pay", quickPay: true });
  });

  it("the amount is the balance when none is given; nothing due is said so; a bad email is shown at its field", async () => {
    const empty = await account(clerk, lakeview.id);
    const none = await from(signedOut, freshIp(), START, { i: { accountNumber: empty.accountNumber, zip: "13600" } });
    expect(errorCode(none)).toBe("CONFLICT");
    expect(none.errors![0].message).toBe("Nothing is due on this account.");
    expect(fields(await from(signedOut, freshIp(), START, { i: { accountNumber: acct.accountNumber, zip: "13600", email: "not an email" } }))).toEqual({ email: expect.any(String) });
    const whole = (await from(signedOut, freshIp(), START, { i: { accountNumber: acct.accountNumber, zip: "13600" } })).data.startQuickPay;
    expect((await db().query(`SELECT amount_cents FROM payment WHERE id = $1`, [whole.paymentId]))[0].amount_cents).toBe(2_345);
  });

  it("with Stripe on and no district account that takes charges: counter only, and no payment is made", async () => {
    // The services under a Stripe configuration (no call reaches Stripe: the district has no connected account).
    const config = { ...srv.config, stripe: { secretKey: "sk_test_x", webhookSecret: "whsec_x", connectWebhookSecret: "whsec_y" } };
    const target = await account(clerk, lakeview.id);
    await issuedBill(target, { periodStart: "2026-04-01", periodEnd: "2026-06-30", mailedOn: "2026-07-01", dueOn: "2026-07-21", totalCents: 900 });
    expect((await quickPayLookup(db(), config, { accountNumber: target.accountNumber, zip: "13600" }, { ip: freshIp() })).cardPayments).toBe(false);
    await expect(startQuickPay(db(), config, { accountNumber: target.accountNumber, zip: "13600" }, { ip: freshIp() })).rejects.toThrow(/takes payments at the district office only \(cash or check\)/);
    expect(await db().query(`SELECT id FROM payment WHERE payable_id = $1`, [target.id])).toEqual([]);
  });

  it("the token opens that payment's status and receipt, and nothing else", async () => {
    expect((await signedOut.ok(QUICK, { id: paymentId, a: access })).quickPayment).toMatchObject({ status: "PAID", accountNumber: acct.accountNumber, amountCents: 10_000 });
    // A wrong token, another payment's id, a payment with a payer: NOT_FOUND alike.
    expect(errorCode(await signedOut.gql(QUICK, { id: paymentId, a: `${access}x` }))).toBe("NOT_FOUND");
    const other = (await from(signedOut, freshIp(), START, { i: { accountNumber: acct.accountNumber, zip: "13600", amountCents: 100 } })).data.startQuickPay;
    expect(errorCode(await signedOut.gql(QUICK, { id: other.paymentId, a: access }))).toBe("NOT_FOUND");
    expect(errorCode(await signedOut.gql(QUICK_CHECKOUT, { s: sessionOf(other.url), a: access }))).toBe("NOT_FOUND");
    expect(errorCode(await signedOut.gql(QUICK_PAY, { s: sessionOf(other.url), a: access }))).toBe("NOT_FOUND");
    // The payer-only operations do not take it, and no signed-in person is its payer.
    expect(errorCode(await signedOut.gql(PAYMENT, { id: paymentId }))).toBe("UNAUTHENTICATED");
    for (const c of [owner, stranger]) {
      expect(errorCode(await c.gql(PAYMENT, { id: paymentId }))).toBe("NOT_FOUND");
      expect(errorCode(await c.gql(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: other.paymentId }))).toBe("NOT_FOUND");
      expect(errorCode(await c.gql(`query($s: String!) { testCheckout(sessionId: $s) { id } }`, { s: sessionOf(other.url) }))).toBe("NOT_FOUND");
    }
    expect(errorCode(await huronClerk.gql(PAYMENT, { id: paymentId }))).toBe("NOT_FOUND");
    // Nor does it open the account, its bills or anything signed in.
    expect(errorCode(await signedOut.gql(BILL, { id: bill.id }))).toBe("UNAUTHENTICATED");
  });

  it("pages without JavaScript: /pay finds the account and leads to the checkout; the done page and the receipt open with the token only", async () => {
    const found = await post(signedOut, "/pay", { intent: "lookup", accountNumber: acct.accountNumber, zip: "13600" });
    expect(found.status, found.location ?? found.html.slice(0, 300)).toBe(200);
    expect(text(found.html)).toContain(`Account ${acct.accountNumber}`);
    expect(text(found.html)).toContain("Amount due $23.45");
    expect(text(found.html)).not.toContain("Quickpay Road");
    const wrong = await post(signedOut, "/pay", { intent: "lookup", accountNumber: acct.accountNumber, zip: "13999" });
    expect(wrong.status).toBe(400);
    expect(text(wrong.html)).toContain(NO_MATCH);
    const go = await post(signedOut, "/pay", { intent: "pay", accountNumber: acct.accountNumber, zip: "13600", amount: "5.00", email: "" });
    expect(go.status).toBe(302);
    expect(go.location).toMatch(/^\/payments\/test-checkout\/test_cs_[0-9a-f]+\?access=qp_/);
    const checkout = await get(signedOut, go.location!);
    expect(checkout.status, `${checkout.location}`).toBe(200);
    expect(text(checkout.html)).toContain("TEST CHECKOUT");

    const done = await get(signedOut, `/payments/${paymentId}/done?access=${encodeURIComponent(access)}`);
    expect(done.status, `${done.location}`).toBe(200);
    expect(text(done.html)).toContain("Payment received");
    const [{ receipt_number }] = await db().query(`SELECT receipt_number FROM payment WHERE id = $1`, [paymentId]);
    expect(text(done.html)).toContain(receipt_number);
    const receipt = await get(signedOut, `/payments/${paymentId}/receipt?access=${encodeURIComponent(access)}`);
    expect(receipt.status, `${receipt.location}`).toBe(200);
    expect(text(receipt.html)).toContain("Quick pay (paid without signing in)");
    expect(text(receipt.html)).toContain(`Sewer account ${acct.accountNumber}`);
    expect(text(receipt.html)).not.toContain("Quickpay Road");
    expect((await get(signedOut, `/payments/${paymentId}/receipt?access=qp_wrong${"x".repeat(30)}`)).status).toBe(404);
    expect((await get(signedOut, `/payments/${paymentId}/receipt`)).status).toBe(302);
  }, 120_000);
});

describe("linked accounts: read and pay, nothing else", () => {
  let acct: Awaited<ReturnType<typeof account>>;
  let bill: Awaited<ReturnType<typeof issuedBill>>;

  it("a landlord links an account by number and ZIP; the owner is told; audited", async () => {
    acct = await account(clerk, lakeview.id, { ownerEmail: "paying-owner@example.com" });
    bill = await issuedBill(acct, { periodStart: "2026-04-01", periodEnd: "2026-06-30", mailedOn: "2026-07-01", dueOn: "2026-07-21", totalCents: 5_000 });
    expect(errorCode(await from(signedOut, freshIp(), LINK, { i: { accountNumber: acct.accountNumber, zip: "13600" } }))).toBe("UNAUTHENTICATED");
    const wrong = await from(landlord, freshIp(), LINK, { i: { accountNumber: acct.accountNumber, zip: "13601" } });
    expect(fields(wrong)).toEqual({ accountNumber: NO_MATCH, zip: NO_MATCH });
    const linked = (await from(landlord, freshIp(), LINK, { i: { accountNumber: acct.accountNumber, zip: "13600" } })).data.linkServiceAccount;
    expect(linked).toMatchObject({ accountId: acct.id, balanceCents: 5_000, lastBill: { number: bill.number, dueOn: "2026-07-21" }, bills: [{ number: bill.number, totalCents: 5_000 }] });
    // Linking again changes nothing.
    await from(landlord, freshIp(), LINK, { i: { accountNumber: acct.accountNumber, zip: "13600" } });
    const audits = await db().query(`SELECT action FROM audit_entry WHERE entity_id = $1::text AND action LIKE 'rents.account_%linked' ORDER BY id`, [acct.id]);
    expect(audits.map((a: any) => a.action)).toEqual(["rents.account_linked"]);
    const told = await db().query(`SELECT subject FROM outbox_email WHERE to_address = 'paying-owner@example.com' AND kind = 'rents.account_linked'`);
    expect(told).toEqual([{ subject: `Lana Landlord linked sewer account ${acct.accountNumber} to their sign-in` }]);
    expect((await landlord.ok(LINKED)).myLinkedAccounts.map((a: any) => a.accountNumber)).toEqual([acct.accountNumber]);
  });

  it("the link reads the account's bills (the bill, the PDF) and no more: not the account, the worksheet or a change", async () => {
    expect((await landlord.ok(BILL, { id: bill.id })).sewerBill).toMatchObject({ number: bill.number });
    expect((await landlord.ok(LINKED)).myLinkedBills.map((b: any) => b.number)).toEqual([bill.number]);
    expect((await fetch(`${srv.url}/bills/${bill.id}/bill.pdf`, { headers: { cookie: landlord.cookieHeader } })).status).toBe(200);
    expect(errorCode(await landlord.gql(ACCOUNT, { id: acct.id }))).toBe("NOT_FOUND");
    expect(["FORBIDDEN", "NOT_FOUND"]).toContain(errorCode(await landlord.gql(WORKSHEET, { id: acct.id })));
    expect(errorCode(await landlord.gql(CLOSE, { i: { accountId: acct.id, lastDay: "2026-07-31", reason: "MOVE_OUT" } }))).not.toBeUndefined();
    expect(errorCode(await landlord.gql(SET_PAPERLESS, { i: { accountId: acct.id, paperless: true } }))).toBe("NOT_FOUND");
    // Strangers and the other district: nothing.
    expect(errorCode(await stranger.gql(BILL, { id: bill.id }))).toBe("NOT_FOUND");
    expect((await stranger.ok(LINKED)).myLinkedAccounts).toEqual([]);
    expect(errorCode(await stranger.gql(PAY_LINKED, { i: { accountId: acct.id } }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.gql(UNLINK, { a: acct.id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(PAY_LINKED, { i: { accountId: acct.id } }))).toBe("NOT_FOUND");
  });

  it("the landlord pays it: their own payment, through the payment page's checkout", async () => {
    const p = (await landlord.ok(PAY_LINKED, { i: { accountId: acct.id } })).payLinkedServiceAccount;
    expect(p).toMatchObject({ status: "PENDING", amountCents: 5_000, payerId: expect.any(String) });
    expect((await landlord.ok(PAY_LINKED, { i: { accountId: acct.id } })).payLinkedServiceAccount.id).toBe(p.id);
    const { url } = (await landlord.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: p.id })).startCheckout;
    await landlord.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { status } }`, { s: sessionOf(url) });
    expect((await landlord.ok(LINKED)).myLinkedAccounts[0].balanceCents).toBe(0);
  });

  it("the /properties page links, lists and unlinks without JavaScript; after unlinking the bill is closed to them", async () => {
    const other = await account(clerk, lakeview.id);
    const linked = await post(landlord, "/properties", { intent: "link", accountNumber: other.accountNumber, zip: "13600" });
    expect(linked).toMatchObject({ status: 302, location: "/properties?done=linked" });
    const page = await get(landlord, "/properties");
    expect(text(page.html)).toContain(other.accountNumber);
    expect(text(page.html)).toContain(acct.accountNumber);
    const bad = await post(landlord, "/properties", { intent: "link", accountNumber: other.accountNumber, zip: "14000" });
    expect(bad.status).toBe(400);
    expect(text(bad.html)).toContain(NO_MATCH);
    // The list and the bills: a fixed number of statements whatever the number of links.
    const two = await countStatements(db(), () => landlord.ok(LINKED));
    const third = await account(clerk, lakeview.id);
    await issuedBill(third, { periodStart: "2026-04-01", periodEnd: "2026-06-30", mailedOn: "2026-07-01", dueOn: "2026-07-21", totalCents: 1_000 });
    await from(landlord, freshIp(), LINK, { i: { accountNumber: third.accountNumber, zip: "13600" } });
    const three = await countStatements(db(), () => landlord.ok(LINKED));
    expect((await landlord.ok(LINKED)).myLinkedAccounts).toHaveLength(3);
    expect(three).toBe(two);
    expect((await post(landlord, "/properties", { intent: "unlink", accountId: acct.id })).location).toBe("/properties?done=unlinked");
    expect(errorCode(await landlord.gql(BILL, { id: bill.id }))).toBe("NOT_FOUND");
    expect(errorCode(await landlord.gql(PAY_LINKED, { i: { accountId: acct.id } }))).toBe("NOT_FOUND");
    expect(errorCode(await landlord.gql(UNLINK, { a: acct.id }))).toBe("NOT_FOUND");
    const audits = await db().query(`SELECT action FROM audit_entry WHERE entity_id = $1::text AND action LIKE 'rents.account_%linked' ORDER BY id`, [acct.id]);
    expect(audits.map((a: any) => a.action)).toEqual(["rents.account_linked", "rents.account_unlinked"]);
  }, 120_000);
});

describe("paperless: only the party billed chooses; the run's paper mailing leaves its bills out", () => {
  it("Lakeview bills the occupant (else the owner): the occupant chooses, not the owner, a linked person, the Clerk or a stranger", async () => {
    const occupant = new Client(srv.url);
    const email = `occupant-${randomUUID().slice(0, 8)}@example.com`;
    await occupant.signUp(email, "Otto Occupant");
    const acct = await account(clerk, lakeview.id, { ownerEmail: "paying-owner@example.com", occupantEmail: email });
    expect((await owner.ok(PAPERLESS, { a: acct.id })).serviceAccountPaperless).toMatchObject({ paperless: false, canChoose: false });
    expect(errorCode(await owner.gql(SET_PAPERLESS, { i: { accountId: acct.id, paperless: true } }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(SET_PAPERLESS, { i: { accountId: acct.id, paperless: true } }))).toBe("FORBIDDEN");
    expect(errorCode(await stranger.gql(SET_PAPERLESS, { i: { accountId: acct.id, paperless: true } }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(PAPERLESS, { a: acct.id }))).toBe("NOT_FOUND");
    expect(errorCode(await signedOut.gql(PAPERLESS, { a: acct.id }))).toBe("UNAUTHENTICATED");
    expect((await occupant.ok(SET_PAPERLESS, { i: { accountId: acct.id, paperless: true } })).setPaperless).toMatchObject({ paperless: true, canChoose: true });
    expect((await clerk.ok(PAPERLESS, { a: acct.id })).serviceAccountPaperless).toMatchObject({ paperless: true, chosenByName: "Otto Occupant" });
    const audits = await db().query(`SELECT action FROM audit_entry WHERE entity_id = $1::text AND action LIKE 'rents.pap%' ORDER BY id`, [acct.id]);
    expect(audits.map((a: any) => a.action)).toEqual(["rents.paperless_chosen"]);
  });

  it("Huron VI-3 bills the owner: the owner chooses, not the occupant", async () => {
    const hOwner = new Client(srv.url);
    await hOwner.signUp("huron-paying-owner@example.com", "Hal Owner");
    const hOccupant = new Client(srv.url);
    await hOccupant.signUp("huron-paying-occupant@example.com", "Ida Occupant");
    const acct = await account(huronClerk, huron.id, { ownerEmail: "huron-paying-owner@example.com", occupantEmail: "huron-paying-occupant@example.com", zip: "14850" });
    expect(errorCode(await hOccupant.gql(SET_PAPERLESS, { i: { accountId: acct.id, paperless: true } }))).toBe("FORBIDDEN");
    expect((await hOwner.ok(SET_PAPERLESS, { i: { accountId: acct.id, paperless: true } })).setPaperless.paperless).toBe(true);
    // Quick pay in Huron: its own ZIP.
    expect((await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: acct.accountNumber, zip: "14850" } })).data.quickPayLookup.accountNumber).toBe(acct.accountNumber);
  });

  it("the run's mailing counts, lists and draws only the paper bills, by the choice in force when each was issued", async () => {
    const paperlessOwner = new Client(srv.url);
    await paperlessOwner.signUp("paperless-owner@example.com", "Paula Paperless");
    const a1 = await account(clerk, lakeview.id, { ownerEmail: "paperless-owner@example.com" });
    const a2 = await account(clerk, lakeview.id, { ownerEmail: "paying-owner@example.com" });
    await paperlessOwner.ok(SET_PAPERLESS, { i: { accountId: a1.id, paperless: true } });
    const b1 = await issuedBill(a1, { periodStart: "2026-07-01", periodEnd: "2026-09-30", mailedOn: "2026-10-01", dueOn: "2026-10-21", totalCents: 7_000 });
    const b2 = await issuedBill(a2, { periodStart: "2026-07-01", periodEnd: "2026-09-30", mailedOn: "2026-10-01", dueOn: "2026-10-21", totalCents: 8_000 });
    // Chosen after the run was issued: this run's paper bill stays on paper.
    await owner.ok(SET_PAPERLESS, { i: { accountId: a2.id, paperless: true } });
    const m = (await clerk.ok(MAILING, { r: b1.runId })).billRunPaperMailing;
    expect(m).toEqual({ issued: 2, onPaper: 1, paperless: 1, csvUrl: `/bill-runs/${b1.runId}/paper-bills.csv`, pdfUrl: `/bill-runs/${b1.runId}/paper-bills.pdf` });
    expect((await operator.ok(MAILING, { r: b1.runId })).billRunPaperMailing.onPaper).toBe(1);
    const csv = await get(clerk, m.csvUrl);
    expect(csv.status).toBe(200);
    expect(csv.type).toContain("text/csv");
    const lines = csv.html.trim().split("\n");
    expect(lines[0]).toBe("bill,account,billed to,mailing address,service address,amount,due on");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(b2.number);
    expect(csv.html).not.toContain(b1.number);
    const pdf = await fetch(`${srv.url}${m.pdfUrl}`, { headers: { cookie: clerk.cookieHeader } });
    expect(pdf.status).toBe(200);
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect((bytes.toString("latin1").match(/\/Type \/Page\b/g) ?? []).length).toBe(1);
    // The run page says so and links both.
    const page = await get(clerk, `/staff/bill-runs/${b1.runId}`);
    expect(text(page.html)).toContain("1 of 2 issued bills go on paper; 1 by email only");
    // Another district's staff: NOT_FOUND on the record, 404 on the files; others: refused.
    expect(errorCode(await huronClerk.gql(MAILING, { r: b1.runId }))).toBe("NOT_FOUND");
    expect((await get(huronClerk, m.csvUrl)).status).toBe(404);
    expect((await get(huronClerk, m.pdfUrl)).status).toBe(404);
    expect(errorCode(await owner.gql(MAILING, { r: b1.runId }))).toBe("FORBIDDEN");
    expect((await get(owner, m.csvUrl)).status).toBe(404);
    expect(errorCode(await signedOut.gql(MAILING, { r: b1.runId }))).toBe("UNAUTHENTICATED");
    expect((await get(signedOut, m.csvUrl)).status).toBe(401);
  }, 120_000);
});

describe("the owner's pages and quick pay: SQL statements fixed whatever the number of bills", () => {
  // The portal's queries (web/routes/properties.tsx, properties_.bills._index.tsx, the bill page's account money).
  const ACCOUNTS_PAGE = `{ myServiceProperties { id address accounts { id accountNumber meters { id } assessment { basis edus rows { key count } } } }
    myLinkedAccounts { accountId balanceCents pastDueCents lastBill { id number } bills { id number totalCents } } myPaperlessChoices { accountId paperless canChoose } }`;
  const BILLS_PAGE = `{ mySewerBills { id number districtName address servedFrom servedTo totalCents dueOn } myLinkedBills { id number address totalCents } }`;
  const BILLS_WITH_LINES = `{ mySewerBills { id lines { description amountCents } } }`;
  const ACCOUNT_MONEY = `query($a: ID!) { serviceAccountBalance(accountId: $a) { balanceCents pastDueCents lastBill { id number } lines { kind amountCents balanceCents } openBills { billId unpaidCents pastDue } }
    serviceAccountBills(accountId: $a) { id number totalCents lines { description amountCents } } }`;
  const quarter = (k: number) => {
    const start = new Date(Date.UTC(2024, 3 * k, 1));
    const end = new Date(Date.UTC(2024, 3 * k + 3, 0));
    const mailed = new Date(Date.UTC(2024, 3 * k + 3, 1));
    const due = new Date(Date.UTC(2024, 3 * k + 3, 21));
    const d = (x: Date) => x.toISOString().slice(0, 10);
    return { periodStart: d(start), periodEnd: d(end), mailedOn: d(mailed), dueOn: d(due), totalCents: 4_000 + k };
  };

  it("the accounts page, the bills page, an account's money and bills, and quick pay's lookup: as many statements with 1 bill an account as with 8", async () => {
    const o = new Client(srv.url);
    await o.signUp("paying-counted@example.com", "Cora Counted");
    const own = await account(clerk, lakeview.id, { ownerEmail: "paying-counted@example.com" });
    const tenant = await account(clerk, lakeview.id);
    await issuedBill(own, quarter(0));
    await issuedBill(tenant, quarter(0));
    expect((await from(o, freshIp(), LINK, { i: { accountNumber: tenant.accountNumber, zip: "13600" } })).errors).toBeUndefined();
    const count = async () => ({
      accountsPage: await countStatements(db(), () => o.ok(ACCOUNTS_PAGE)),
      billsPage: await countStatements(db(), () => o.ok(BILLS_PAGE)),
      billsWithLines: await countStatements(db(), () => o.ok(BILLS_WITH_LINES)),
      accountMoney: await countStatements(db(), () => o.ok(ACCOUNT_MONEY, { a: own.id })),
      quickPay: await countStatements(db(), async () => expect((await from(signedOut, freshIp(), LOOKUP, { i: { accountNumber: own.accountNumber, zip: "13600" } })).errors).toBeUndefined()),
    });
    await count(); // the viewer's and the rulebooks' caches warm, as under load
    const one = await count();
    for (let k = 1; k < 8; k++) {
      await issuedBill(own, quarter(k));
      await issuedBill(tenant, quarter(k));
    }
    const eight = await count();
    expect((await o.ok(BILLS_PAGE)).mySewerBills).toHaveLength(8);
    expect((await o.ok(BILLS_PAGE)).myLinkedBills).toHaveLength(8);
    expect((await o.ok(ACCOUNT_MONEY, { a: own.id })).serviceAccountBills).toHaveLength(8);
    expect(eight).toEqual(one);
    // Quick pay's lookup is one statement (its limits, the lookup, the attempt and the balance; no list
    // NOTIFY), the accounts page one for its three lists (docs/benchmarks.md, issue 14); the bills
    // page two (its lists; their lines are read only when asked for, in one more).
    expect(one).toMatchObject({ quickPay: 1, accountsPage: 1, billsPage: 2, billsWithLines: 2 });
  }, 120_000);
});

import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { District } from "../../api/districts/district.entity.js";
import { rulebookOn } from "../../api/districts/districts.service.js";
import { createPayment, registerPayable } from "../../api/payments/payments.service.js";
import { Client, countStatements, DEMO, errorCode, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";

/**
 * The payout report (issue 15): each district reads the payouts of its own connected Stripe
 * account, and for one payout the payments it settled, matched to the portal's receipts by their
 * payment intent, with Stripe's fees; never another district's account. Against the stand-in.
 */

const CONNECT_SECRET = "whsec_connect";
let srv: TestServer;
let stripe: StandIn;
const signer = new Stripe("sk_test_x");
const districts: Record<"lakeview" | "huron", { id: string; name: string; timeZone: string }> = {} as any;
const accountOf: Record<"lakeview" | "huron", string> = {} as any;
const { get } = portal(() => srv.url);
const fee = (a: number) => 30 + Math.round(a * 0.029);

beforeAll(async () => {
  registerPayable("PayoutTestFee", {
    async onPaid() {},
    async title(id) {
      return `Payout test fee ${id.slice(0, 8)}`;
    },
    href: (id) => `/payout-test-fees/${id}`,
  });
  stripe = await startStripeStandIn();
  srv = await startTestServer({
    portal: "vite",
    env: { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_platform", STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET, STRIPE_API_BASE: stripe.url },
  });
  for (const slug of ["lakeview", "huron"] as const) districts[slug] = await srv.running.ds.getRepository(District).findOneByOrFail({ slug });
});
afterAll(async () => {
  await srv?.close();
  await stripe?.close();
});

const PAYOUTS = `query($d: ID!, $f: String, $t: String, $a: String, $n: Int) { districtStripePayouts(districtId: $d, from: $f, to: $t, after: $a, first: $n) {
  districtId accountId notice nextCursor payouts { id amountCents arrivalDate status automatic } } }`;
const PAYOUT = `query($d: ID!, $p: String!) { districtStripePayout(districtId: $d, payoutId: $p) { accountId notice unknownCount complete
  payout { id amountCents arrivalDate status }
  totals { amountCents feeCents netCents }
  lines { id type amountCents feeCents netCents sourceId paymentIntentId refundReceiptNumber payment { id receiptNumber districtId payableTitle payerName } } } }`;
const CSV = `query($d: ID!, $p: String!) { districtStripePayoutCsv(districtId: $d, payoutId: $p) { filename csv } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`;
const REFUND = `mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id receiptNumber } }`;

async function newPayment(slug: "lakeview" | "huron", feeCents: number): Promise<string> {
  const ds = srv.running.ds;
  const district = await ds.getRepository(District).findOneByOrFail({ slug });
  const book = await rulebookOn(ds, district);
  const [payer] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const p = await ds.transaction((tx) =>
    createPayment(tx, { userId: null }, {
      districtId: district.id,
      payerId: payer.id,
      payableType: "PayoutTestFee",
      payableId: randomUUID(),
      lines: [
        { code: "fee", label: "Test fee", section: "Test section", amountCents: feeCents },
        { code: "deposit", label: "Test deposit", section: "Test section", amountCents: 2500, refundable: true },
      ],
      rulebookVersionId: book.version.id,
    }),
  );
  return p.id;
}

/** The payer pays by card on the district's account; Stripe's Connect webhook confirms it. */
async function paidByCard(slug: "lakeview" | "huron", feeCents: number): Promise<{ id: string; receiptNumber: string; paymentIntent: string }> {
  const alex = await signedInAs(srv.url, DEMO.applicant);
  const id = await newPayment(slug, feeCents);
  const session = stripe.complete((await alex.ok(START, { id })).startCheckout.url.split("/").pop()!);
  const payload = JSON.stringify(stripe.event("checkout.session.completed", session));
  const res = await fetch(`${srv.url}/webhooks/stripe`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret: CONNECT_SECRET }) },
    body: payload,
  });
  expect(res.status).toBe(200);
  const [row] = await srv.running.ds.query(`SELECT status, receipt_number, provider_payment_intent FROM payment WHERE id = $1`, [id]);
  expect(row.status).toBe("PAID");
  return { id, receiptNumber: row.receipt_number, paymentIntent: row.provider_payment_intent };
}

const clerkOf = (slug: "lakeview" | "huron") => signedInAs(srv.url, slug === "lakeview" ? DEMO.lakeviewClerk : DEMO.huronClerk);

describe("without a connected account", () => {
  it("a deployment without Stripe keys says so, with no payouts and no call to Stripe", async () => {
    const bare = await startTestServer();
    try {
      const admin = await signedInAs(bare.url, DEMO.lakeviewAdmin);
      const before = stripe.requests.length;
      const page = (await admin.ok(PAYOUTS, { d: districts.lakeview.id })).districtStripePayouts;
      expect(page).toMatchObject({ accountId: null, payouts: [], nextCursor: null });
      expect(page.notice).toMatch(/not connected to Stripe/);
      expect((await admin.ok(PAYOUT, { d: districts.lakeview.id, p: "po_anything" })).districtStripePayout).toMatchObject({ payout: null, lines: [] });
      expect(stripe.requests.length).toBe(before);
    } finally {
      await bare.close();
    }
  });

  it("a district without its own account says so, on the page too", async () => {
    const clerk = await clerkOf("huron");
    const page = (await clerk.ok(PAYOUTS, { d: districts.huron.id })).districtStripePayouts;
    expect(page).toMatchObject({ accountId: null, payouts: [] });
    expect(page.notice).toBe(`${districts.huron.name} has no Stripe account of its own connected: its card payments have no payouts to show. The district's ADMIN connects one under Card payments.`);
    expect(errorCode(await clerk.gql(CSV, { d: districts.huron.id, p: "po_anything" }))).toBe("CONFLICT");
    const html = await get(clerk, `/staff/stripe/payouts?districtId=${districts.huron.id}`);
    expect(html.status).toBe(200);
    expect(pageText(html.html)).toContain("has no Stripe account of its own connected");
    const csv = await get(clerk, `/staff/stripe/payouts/po_anything/lines.csv?districtId=${districts.huron.id}`);
    expect(csv.status).toBe(409);
    expect(csv.html).toContain("has no Stripe account of its own connected");
  });
});

describe("two districts, two accounts", () => {
  const made: Record<string, any> = {};

  beforeAll(async () => {
    accountOf.lakeview = await connectDistrictAccount(stripe, srv, "lakeview");
    accountOf.huron = await connectDistrictAccount(stripe, srv, "huron");
    // Lakeview: two card payments, a deposit returned through the portal, and money taken in Stripe's Dashboard.
    made.l1 = await paidByCard("lakeview", 5000);
    made.l2 = await paidByCard("lakeview", 12000);
    const refund = (await (await clerkOf("lakeview")).ok(REFUND, { i: { paymentId: made.l1.id, lineCodes: ["deposit"], reason: "Work approved" } })).refundPayment;
    made.refundReceipt = refund.receiptNumber;
    made.outside = stripe.outsideCharge(accountOf.lakeview, 4200);
    // 03:00 UTC on 15 December is still the 14th in the district's zone (America/New_York).
    made.lp1 = stripe.payout(accountOf.lakeview, { arrivalDate: new Date("2026-12-15T03:00:00Z"), fee });
    made.l3 = await paidByCard("lakeview", 1000);
    // Stripe's own arrival dates are midnight UTC of the bank day: the 21st, not New York's 20th.
    made.lp2 = stripe.payout(accountOf.lakeview, { arrivalDate: new Date("2026-12-21T00:00:00Z"), fee });
    // Huron: three payouts of one payment each.
    made.h = [];
    made.hp = [];
    for (const [i, day] of ["2026-11-02", "2026-11-09", "2026-11-16"].entries()) {
      made.h.push(await paidByCard("huron", 3000 + i * 100));
      made.hp.push(stripe.payout(accountOf.huron, { arrivalDate: new Date(`${day}T17:00:00Z`), fee }));
    }
  });

  it("each district's staff see its own payouts only, read on its own account", async () => {
    const lakeview = (await (await clerkOf("lakeview")).ok(PAYOUTS, { d: districts.lakeview.id })).districtStripePayouts;
    expect(lakeview).toMatchObject({ accountId: accountOf.lakeview, notice: null, nextCursor: null });
    expect(lakeview.payouts.map((p: any) => p.id)).toEqual([made.lp2.id, made.lp1.id]);
    expect(lakeview.payouts[1]).toMatchObject({ amountCents: made.lp1.amount, arrivalDate: "2026-12-14", status: "paid", automatic: true });
    expect(lakeview.payouts[0].arrivalDate).toBe("2026-12-21");
    const admin = await signedInAs(srv.url, DEMO.lakeviewAdmin);
    expect((await admin.ok(PAYOUTS, { d: districts.lakeview.id })).districtStripePayouts.payouts.length).toBe(2);
    const huron = (await (await clerkOf("huron")).ok(PAYOUTS, { d: districts.huron.id })).districtStripePayouts;
    expect(huron.payouts.map((p: any) => p.id)).toEqual([...made.hp].reverse().map((p: any) => p.id));
    const calls = stripe.requests.filter((r) => r.path === "/v1/payouts");
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((r) => r.account === accountOf.lakeview || r.account === accountOf.huron)).toBe(true);
  });

  it("a payout's lines: the portal's payments with their receipts, the refund, money the portal does not know; nets add up to the payout", async () => {
    const clerk = await clerkOf("lakeview");
    const r = (await clerk.ok(PAYOUT, { d: districts.lakeview.id, p: made.lp1.id })).districtStripePayout;
    expect(r.payout).toMatchObject({ id: made.lp1.id, arrivalDate: "2026-12-14" });
    expect(r.lines.length).toBe(4);
    const byIntent = (pi: string, type: string) => r.lines.find((l: any) => l.paymentIntentId === pi && l.type === type);
    expect(byIntent(made.l1.paymentIntent, "charge")).toMatchObject({ amountCents: 7500, feeCents: fee(7500), netCents: 7500 - fee(7500), payment: { id: made.l1.id, receiptNumber: made.l1.receiptNumber, payerName: expect.any(String) } });
    expect(byIntent(made.l1.paymentIntent, "charge").payment.payableTitle).toMatch(/^Payout test fee /);
    expect(byIntent(made.l2.paymentIntent, "charge")).toMatchObject({ amountCents: 14500, feeCents: fee(14500), payment: { id: made.l2.id } });
    expect(byIntent(made.l1.paymentIntent, "refund")).toMatchObject({ amountCents: -2500, feeCents: 0, netCents: -2500, refundReceiptNumber: made.refundReceipt, payment: { id: made.l1.id } });
    expect(byIntent(made.outside.id, "charge")).toMatchObject({ amountCents: 4200, payment: null });
    expect(r.unknownCount).toBe(1);
    expect(r.complete).toBe(true);
    const amount = 7500 + 14500 - 2500 + 4200;
    const fees = fee(7500) + fee(14500) + fee(4200);
    expect(r.totals).toEqual({ amountCents: amount, feeCents: fees, netCents: amount - fees });
    expect(r.totals.netCents).toBe(made.lp1.amount);
    // Read on the district's account, each charge with its source expanded.
    const call = stripe.requests.filter((x) => x.path === "/v1/balance_transactions").pop()!;
    expect(call).toMatchObject({ account: accountOf.lakeview, params: { payout: made.lp1.id, expand: ["data.source"] } });
  });

  it("one query matches a payout's payments, however many lines", async () => {
    const clerk = await clerkOf("lakeview");
    await clerk.ok(PAYOUT, { d: districts.lakeview.id, p: made.lp2.id }); // warm the caches
    const one = await countStatements(srv.running.ds, () => clerk.ok(PAYOUT, { d: districts.lakeview.id, p: made.lp2.id }));
    const four = await countStatements(srv.running.ds, () => clerk.ok(PAYOUT, { d: districts.lakeview.id, p: made.lp1.id }));
    expect(four).toBe(one);
  });

  it("never another district's account: its payouts are not found, its staff are refused", async () => {
    const huronClerk = await clerkOf("huron");
    // Huron's clerk names Lakeview: not found; names Lakeview's payout under Huron: Stripe finds none on Huron's account.
    expect(errorCode(await huronClerk.gql(PAYOUTS, { d: districts.lakeview.id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(PAYOUT, { d: districts.lakeview.id, p: made.lp1.id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(PAYOUT, { d: districts.huron.id, p: made.lp1.id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(CSV, { d: districts.huron.id, p: made.lp1.id }))).toBe("NOT_FOUND");
    expect(stripe.requests.filter((r) => r.path === `/v1/payouts/${made.lp1.id}` && r.account === accountOf.huron).length).toBeGreaterThan(0);
    // Lakeview's payout as the cursor of Huron's list: no page of Huron's.
    expect(errorCode(await huronClerk.gql(PAYOUTS, { d: districts.huron.id, a: made.lp1.id }))).toBe("BAD_USER_INPUT");
    // The district's other staff, a resident, and no one signed in.
    const operator = await signedInAs(srv.url, DEMO.lakeviewOperator);
    expect(errorCode(await operator.gql(PAYOUTS, { d: districts.lakeview.id }))).toBe("FORBIDDEN");
    const alex = await signedInAs(srv.url, DEMO.applicant);
    for (const [q, v] of [[PAYOUTS, { d: districts.lakeview.id }], [PAYOUT, { d: districts.lakeview.id, p: made.lp1.id }], [CSV, { d: districts.lakeview.id, p: made.lp1.id }]] as const)
      expect(errorCode(await alex.gql(q, v))).toBe("FORBIDDEN");
    expect(errorCode(await new Client(srv.url).gql(PAYOUTS, { d: districts.lakeview.id }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await (await clerkOf("lakeview")).gql(PAYOUT, { d: districts.lakeview.id, p: "not-a-payout" }))).toBe("NOT_FOUND");
  });

  it("pages with Stripe's cursor and filters by arrival date in the district's zone", async () => {
    const clerk = await clerkOf("huron");
    const d = districts.huron.id;
    const first = (await clerk.ok(PAYOUTS, { d, n: 2 })).districtStripePayouts;
    expect(first.payouts.map((p: any) => p.id)).toEqual([made.hp[2].id, made.hp[1].id]);
    expect(first.nextCursor).toBe(made.hp[1].id);
    const next = (await clerk.ok(PAYOUTS, { d, n: 2, a: first.nextCursor })).districtStripePayouts;
    expect(next.payouts.map((p: any) => p.id)).toEqual([made.hp[0].id]);
    expect(next.nextCursor).toBeNull();
    expect(stripe.requests.filter((r) => r.path === "/v1/payouts").pop()).toMatchObject({ account: accountOf.huron, params: { starting_after: made.hp[1].id, limit: "2" } });
    const range = (await clerk.ok(PAYOUTS, { d, f: "2026-11-09", t: "2026-11-16" })).districtStripePayouts;
    expect(range.payouts.map((p: any) => p.id)).toEqual([made.hp[2].id, made.hp[1].id]);
    const day = (await clerk.ok(PAYOUTS, { d, f: "2026-11-02", t: "2026-11-02" })).districtStripePayouts;
    expect(day.payouts.map((p: any) => p.id)).toEqual([made.hp[0].id]);
    // Lakeview's payout arriving 03:00 UTC on the 15th is the 14th's.
    const l = (await (await clerkOf("lakeview")).ok(PAYOUTS, { d: districts.lakeview.id, f: "2026-12-14", t: "2026-12-14" })).districtStripePayouts;
    expect(l.payouts.map((p: any) => p.id)).toEqual([made.lp1.id]);
    for (const [f, t, ids] of [["2026-12-21", "2026-12-21", [made.lp2.id]], ["2026-12-20", "2026-12-20", []], ["2026-12-15", "2026-12-20", []]] as const)
      expect((await (await clerkOf("lakeview")).ok(PAYOUTS, { d: districts.lakeview.id, f, t })).districtStripePayouts.payouts.map((p: any) => p.id)).toEqual(ids);
    const bad = await clerk.gql(PAYOUTS, { d, f: "2026-11-31", t: "2026-11-01" });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(bad.errors![0].extensions!.fields).toMatchObject({ from: expect.any(String) });
    expect((await clerk.gql(PAYOUTS, { d, f: "2026-11-20", t: "2026-11-01" })).errors![0].extensions!.fields).toMatchObject({ to: "The end date is before the start date." });
  });

  it("a payout made by hand in the Dashboard shows without lines (Stripe lists those of automatic payouts only), and says so", async () => {
    const manual = stripe.payout(accountOf.huron, { automatic: false, arrivalDate: new Date("2026-10-01T16:00:00Z") });
    const clerk = await clerkOf("huron");
    const before = stripe.requests.filter((r) => r.path === "/v1/balance_transactions").length;
    const r = (await clerk.ok(PAYOUT, { d: districts.huron.id, p: manual.id })).districtStripePayout;
    expect(r).toMatchObject({ payout: { id: manual.id, arrivalDate: "2026-10-01" }, lines: [], unknownCount: 0 });
    expect(stripe.requests.filter((x) => x.path === "/v1/balance_transactions").length).toBe(before);
    const page = await get(clerk, `/staff/stripe/payouts/${manual.id}?districtId=${districts.huron.id}`);
    expect(pageText(page.html)).toContain("made by hand in Stripe's Dashboard");
  });

  it("a payout's lines as CSV, with a total line in cents that is the payout", async () => {
    const clerk = await clerkOf("lakeview");
    const { filename, csv } = (await clerk.ok(CSV, { d: districts.lakeview.id, p: made.lp1.id })).districtStripePayoutCsv;
    expect(filename).toBe(`payout-lakeview-2026-12-14-${made.lp1.id}.csv`);
    const rows: string[][] = parse(csv);
    expect(rows[0]).toEqual(["Payout", "Arrival date", "Stripe transaction", "Type", "Date", "Charge or refund", "Payment intent", "Portal receipt", "Refund receipt", "Paid for", "Amount", "Stripe fee", "Net", "In the portal"]);
    const body = rows.slice(1, -1);
    expect(body.length).toBe(4);
    const cents = (s: string) => Math.round(Number(s) * 100);
    const col = (name: string) => rows[0].indexOf(name);
    const sum = (name: string) => body.reduce((s, r) => s + cents(r[col(name)]), 0);
    const total = rows[rows.length - 1];
    expect(total[col("Stripe transaction")]).toBe("Total");
    for (const name of ["Amount", "Stripe fee", "Net"]) expect(cents(total[col(name)])).toBe(sum(name));
    expect(cents(total[col("Net")])).toBe(made.lp1.amount);
    const l1 = body.find((r) => r[col("Payment intent")] === made.l1.paymentIntent && r[col("Type")] === "charge")!;
    expect(l1).toEqual(expect.arrayContaining([made.lp1.id, "2026-12-14", made.l1.receiptNumber, "75.00", (fee(7500) / 100).toFixed(2), "Yes"]));
    expect(body.find((r) => r[col("Type")] === "refund")![col("Amount")]).toBe("-25.00");
    expect(body.find((r) => r[col("Type")] === "refund")![col("Refund receipt")]).toBe(made.refundReceipt);
    expect(body.find((r) => r[col("Payment intent")] === made.outside.id)![col("In the portal")]).toBe("No: not a portal payment");
  });

  it("the pages work without JavaScript: the list, a payout, its CSV; a resident is refused", async () => {
    const clerk = await clerkOf("lakeview");
    const list = await get(clerk, `/staff/stripe/payouts?districtId=${districts.lakeview.id}`);
    expect(list.status).toBe(200);
    expect(list.html).toContain(`/staff/stripe/payouts/${made.lp1.id}?districtId=${districts.lakeview.id}`);
    expect(pageText(list.html)).toContain("Payouts: ");
    const page = await get(clerk, `/staff/stripe/payouts/${made.lp1.id}?districtId=${districts.lakeview.id}`);
    expect(page.status).toBe(200);
    const text = pageText(page.html);
    expect(text).toContain(made.l1.receiptNumber);
    expect(text).toContain("not a portal payment");
    expect(text).toContain("One line is money the portal does not know");
    expect(text).toContain(`Totals (4 lines)`);
    const csv = await get(clerk, `/staff/stripe/payouts/${made.lp1.id}/lines.csv?districtId=${districts.lakeview.id}`);
    expect(csv.status).toBe(200);
    expect(csv.type).toMatch(/^text\/csv/);
    expect(csv.html).toContain(made.l1.receiptNumber);
    const bad = await get(clerk, `/staff/stripe/payouts?districtId=${districts.lakeview.id}&from=2026-13-01`);
    expect(bad.status).toBe(200);
    expect(pageText(bad.html)).toContain("Enter a date as YYYY-MM-DD.");
    // The ADMIN reaches it from the Stripe account's page.
    const admin = await signedInAs(srv.url, DEMO.lakeviewAdmin);
    expect((await get(admin, `/staff/stripe?districtId=${districts.lakeview.id}`)).html).toContain(`/staff/stripe/payouts?districtId=${districts.lakeview.id}`);
    const alex = await signedInAs(srv.url, DEMO.applicant);
    expect((await get(alex, `/staff/stripe/payouts`)).status).toBe(403);
    expect((await get(alex, `/staff/stripe/payouts/${made.lp1.id}/lines.csv`)).status).toBe(403);
  });
});

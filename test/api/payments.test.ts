import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { District } from "../../api/districts/district.entity.js";
import { rulebookOn } from "../../api/districts/districts.service.js";
import { createPayment, isPaid, paymentsFor, registerPayable, type PaymentLine } from "../../api/payments/payments.service.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer, signedInAs } from "../harness.js";

/**
 * Payments with the built-in test checkout (no Stripe keys), counter payments, refunds, receipts
 * and who may see and do what. The Stripe cases are in payments-stripe.test.ts.
 */

let srv: TestServer;
const onPaidCalls: string[] = [];
beforeAll(async () => {
  // No feature creates payments yet: a test payable type stands in for one.
  registerPayable("TestFee", {
    async onPaid(tx, payment) {
      onPaidCalls.push(payment.id);
      // runs in the transaction that marks the payment paid
      await tx.query(`INSERT INTO audit_entry (action, entity_type, entity_id, district_id) VALUES ('testfee.paid', 'TestFee', $1, $2)`, [payment.payableId, payment.districtId]);
    },
    async title(id) {
      return `Test fee ${id.slice(0, 8)}`;
    },
    async titles(ids) {
      return new Map(ids.map((id) => [id, `Test fee ${id.slice(0, 8)}`]));
    },
    href: (id) => `/test-fees/${id}`,
  });
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const PAYMENT_FIELDS = `id status amountCents refundedCents paidAt receiptNumber method checkNumber provider payableType payableId payableTitle href createdAt methodDescription
  lines { code label section amountCents refundable refunded } refunds { id amountCents reason lineCodes method receiptNumber createdAt } district { name address } payerName`;
const PAYMENT = `query($id: ID!) { payment(id: $id) { ${PAYMENT_FIELDS} } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url provider } }`;
const COMPLETE = `mutation($s: String!, $o: String!) { completeTestCheckout(sessionId: $s, outcome: $o) { id status receiptNumber } }`;
const COUNTER = `mutation($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { id status receiptNumber method checkNumber paidAt } }`;
const REFUND = `mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id amountCents lineCodes method receiptNumber reason } }`;

async function userId(email: string): Promise<string> {
  const [u] = await srv.running.ds.query(`SELECT id FROM app_user WHERE email = $1`, [email]);
  return u.id;
}

/** A pending payment made the way a feature makes one: amounts from the district's rulebook. */
async function newPayment(payerEmail = DEMO.applicant, slug = "lakeview"): Promise<{ id: string; payableId: string; lines: PaymentLine[] }> {
  const ds = srv.running.ds;
  const district = await ds.getRepository(District).findOneByOrFail({ slug });
  const book = await rulebookOn(ds, district);
  let lines: PaymentLine[];
  if (slug === "lakeview") {
    const fee = book.require("lateral.fee.residential");
    const deposit = book.require("lateral.asBuiltDepositPerSheet");
    lines = [
      { code: "inspection-fee", label: fee.label, section: fee.section, amountCents: fee.value },
      { code: "as-built-deposit", label: `${deposit.label} (2 sheets)`, section: deposit.section, amountCents: deposit.value * 2, refundable: true },
    ];
  } else {
    // Huron's law sets no figure; the Town Board's resolution would.
    lines = [{ code: "board-fee", label: "Permit fee set by the Town Board", section: "Huron III-2", amountCents: 5000 }];
  }
  const payerId = await userId(payerEmail);
  const payableId = randomUUID();
  const p = await ds.transaction((tx) =>
    createPayment(tx, { userId: null }, { districtId: district.id, payerId, payableType: "TestFee", payableId, lines, rulebookVersionId: book.version.id }),
  );
  return { id: p.id, payableId, lines };
}

const signedIn = (email: string): Promise<Client> => signedInAs(srv.url, email);

const receiptEmails = async (paymentReceipt: string) =>
  (await srv.running.ds.query(`SELECT subject, body_text FROM outbox_email WHERE kind = 'payment.receipt' AND body_text LIKE $1`, [`%${paymentReceipt}%`])) as {
    subject: string;
    body_text: string;
  }[];

describe("paying through the built-in test checkout (no Stripe keys)", () => {
  it("shows the itemised payment to its payer and marks it paid once, with one receipt", async () => {
    const { id, payableId } = await newPayment();
    const alex = await signedIn(DEMO.applicant);
    expect((await alex.ok(`{ paymentProviderMode }`)).paymentProviderMode).toBe("test");
    const { payment } = await alex.ok(PAYMENT, { id });
    expect(payment).toMatchObject({ status: "PENDING", amountCents: 35000, refundedCents: 0, receiptNumber: null, payableTitle: `Test fee ${payableId.slice(0, 8)}`, href: `/test-fees/${payableId}` });
    expect(payment.lines).toEqual([
      { code: "inspection-fee", label: "Inspection and administration fee, residential", section: "Sewer Use Law 1212", amountCents: 15000, refundable: false, refunded: false },
      { code: "as-built-deposit", label: "As-built drawing deposit, per sheet of plans (2 sheets)", section: "Sewer Use Law 606 B", amountCents: 20000, refundable: true, refunded: false },
    ]);
    expect(await isPaid(srv.running.ds, "TestFee", payableId)).toBe(false);

    // A double-clicked Pay gets the same checkout.
    const [a, b] = await Promise.all([alex.ok(START, { id }), alex.ok(START, { id })]);
    expect(a.startCheckout.provider).toBe("test");
    expect(a.startCheckout.url).toMatch(/^\/payments\/test-checkout\/test_cs_[0-9a-f]+$/);
    expect(b.startCheckout.url).toBe(a.startCheckout.url);
    expect((await alex.ok(START, { id })).startCheckout.url).toBe(a.startCheckout.url);
    const sessionId = a.startCheckout.url.split("/").pop();

    const { testCheckout } = await alex.ok(`query($s: String!) { testCheckout(sessionId: $s) { id amountCents status } }`, { s: sessionId });
    expect(testCheckout).toEqual({ id, amountCents: 35000, status: "PENDING" });

    // Cancel changes nothing; the payer can pay later.
    expect((await alex.ok(COMPLETE, { s: sessionId, o: "CANCEL" })).completeTestCheckout.status).toBe("PENDING");
    expect(errorCode(await alex.gql(COMPLETE, { s: sessionId, o: "MAYBE" }))).toBe("BAD_USER_INPUT");

    // Pay pressed five times at once: paid once.
    const before = onPaidCalls.filter((x) => x === id).length;
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => alex.ok(COMPLETE, { s: sessionId, o: "PAY" })));
    const receipts = new Set(results.map((r) => r.completeTestCheckout.receiptNumber));
    expect(receipts.size).toBe(1);
    const [receipt] = [...receipts];
    expect(receipt).toMatch(new RegExp(`^LKV-${new Date().getUTCFullYear()}-\\d{6}$`));
    expect(onPaidCalls.filter((x) => x === id).length - before).toBe(1);
    const events = await srv.running.ds.query(`SELECT provider_event_id FROM payment_event WHERE payment_id = $1`, [id]);
    expect(events.length).toBe(5); // each press is its own test event; only the first applied
    expect((await srv.running.ds.query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'testfee.paid' AND entity_id = $1`, [payableId]))[0].n).toBe(1);

    const paid = (await alex.ok(PAYMENT, { id })).payment;
    expect(paid).toMatchObject({ status: "PAID", method: "card", provider: "test", receiptNumber: receipt });
    expect(paid.methodDescription).toMatch(/test checkout/);
    expect(await isPaid(srv.running.ds, "TestFee", payableId)).toBe(true);
    expect((await paymentsFor(srv.running.ds, "TestFee", payableId)).map((p) => p.status)).toEqual(["PAID"]);

    const emails = await receiptEmails(receipt);
    expect(emails.length).toBe(1);
    expect(emails[0].body_text).toContain("Inspection and administration fee, residential (Sewer Use Law 1212): $150.00");
    expect(emails[0].body_text).toContain("As-built drawing deposit, per sheet of plans (2 sheets) (Sewer Use Law 606 B): $200.00");
    expect(emails[0].body_text).toContain("Total paid: $350.00");
    expect(emails[0].body_text).toContain("Town of Lakeview Sewer District");
    expect(emails[0].body_text).toMatch(/Date: \w+ \d{1,2}, \d{4}/);
    expect((await alex.ok(`{ myEmails { subject } }`)).myEmails.map((e: any) => e.subject)).toContain(emails[0].subject);

    // Paid: no second checkout.
    expect(errorCode(await alex.gql(START, { id }))).toBe("CONFLICT");
    expect((await alex.ok(`{ myPayments { id status } }`)).myPayments).toContainEqual({ id, status: "PAID" });
  });

  it("the webhook route answers 404 when Stripe is not configured", async () => {
    const res = await fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=x" }, body: "{}" });
    expect(res.status).toBe(404);
  });
});

describe("who may see and do what", () => {
  it("keeps a payment to its payer and the staff of its district", async () => {
    const { id } = await newPayment();
    const other = new Client(srv.url);
    await other.signUp("neighbour@example.org", "Nia Neighbour");
    expect(errorCode(await other.gql(PAYMENT, { id }))).toBe("NOT_FOUND");
    expect(errorCode(await other.gql(START, { id }))).toBe("NOT_FOUND");
    expect(errorCode(await other.gql(PAYMENT, { id: "not-a-uuid" }))).toBe("NOT_FOUND");
    expect((await other.ok(`{ myPayments { id } }`)).myPayments).toEqual([]);

    const alex = await signedIn(DEMO.applicant);
    const { startCheckout } = await alex.ok(START, { id });
    const sessionId = startCheckout.url.split("/").pop();
    expect(errorCode(await other.gql(`query($s: String!) { testCheckout(sessionId: $s) { id } }`, { s: sessionId }))).toBe("NOT_FOUND");
    expect(errorCode(await other.gql(COMPLETE, { s: sessionId, o: "PAY" }))).toBe("NOT_FOUND");

    // Huron's Clerk: not their district.
    const huronClerk = await signedIn(DEMO.huronClerk);
    expect(errorCode(await huronClerk.gql(PAYMENT, { id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(COUNTER, { i: { paymentId: id, method: "cash" } }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason: "x" } }))).toBe("NOT_FOUND");
    const { lakeview } = await huronClerk.ok(`{ lakeview: district(slug: "lakeview") { id } }`);
    expect(errorCode(await huronClerk.gql(`query($d: ID!) { districtPayments(districtId: $d) { nextCursor } }`, { d: lakeview.id }))).toBe("FORBIDDEN");

    // Lakeview staff see it; the Operator cannot take money; nobody but the payer starts a checkout.
    const operator = await signedIn(DEMO.lakeviewOperator);
    expect((await operator.ok(PAYMENT, { id })).payment.payerName).toBe("Alex Applicant");
    expect(errorCode(await operator.gql(COUNTER, { i: { paymentId: id, method: "cash" } }))).toBe("FORBIDDEN");
    expect(errorCode(await operator.gql(`query($d: ID!) { districtPayments(districtId: $d) { nextCursor } }`, { d: lakeview.id }))).toBe("FORBIDDEN");
    const clerk = await signedIn(DEMO.lakeviewClerk);
    expect((await clerk.ok(PAYMENT, { id })).payment.status).toBe("PENDING");
    expect(errorCode(await clerk.gql(START, { id }))).toBe("NOT_FOUND");
    expect(errorCode(await clerk.gql(COMPLETE, { s: sessionId, o: "PAY" }))).toBe("NOT_FOUND");
    const admin = await signedIn(DEMO.lakeviewAdmin);
    expect(errorCode(await admin.gql(COUNTER, { i: { paymentId: id, method: "cash" } }))).toBe("FORBIDDEN");
    expect((await admin.ok(`query($d: ID!) { districtPayments(districtId: $d) { payments { id } } }`, { d: lakeview.id })).districtPayments.payments.map((p: any) => p.id)).toContain(id);
  });
});

describe("the Clerk at the counter", () => {
  it("records cash, and a check with its number, each with a receipt", async () => {
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const cash = await newPayment();
    const check = await newPayment();
    const r1 = (await clerk.ok(COUNTER, { i: { paymentId: cash.id, method: "cash" } })).recordCounterPayment;
    expect(r1).toMatchObject({ status: "PAID", method: "cash", checkNumber: null });
    expect(r1.receiptNumber).toMatch(/^LKV-\d{4}-\d{6}$/);
    expect(errorCode(await clerk.gql(COUNTER, { i: { paymentId: cash.id, method: "cash" } }))).toBe("CONFLICT");

    const noNumber = await clerk.gql(COUNTER, { i: { paymentId: check.id, method: "check" } });
    expect(errorCode(noNumber)).toBe("BAD_USER_INPUT");
    expect(noNumber.errors![0].extensions!.fields).toHaveProperty("checkNumber");
    expect(errorCode(await clerk.gql(COUNTER, { i: { paymentId: check.id, method: "card" } }))).toBe("BAD_USER_INPUT");
    const r2 = (await clerk.ok(COUNTER, { i: { paymentId: check.id, method: "check", checkNumber: " 1042 " } })).recordCounterPayment;
    expect(r2).toMatchObject({ status: "PAID", method: "check", checkNumber: "1042" });

    const emails = await receiptEmails(r2.receiptNumber);
    expect(emails.length).toBe(1);
    expect(emails[0].body_text).toContain("Paid by check no. 1042");
    const alex = await signedIn(DEMO.applicant);
    expect((await alex.ok(PAYMENT, { id: check.id })).payment.methodDescription).toBe("Paid by check no. 1042");
    expect(errorCode(await alex.gql(START, { id: check.id }))).toBe("CONFLICT");

    const { district } = await clerk.ok(`{ district(slug: "lakeview") { id } }`);
    const log = await clerk.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action actorName } } }`, { f: { districtId: district.id, entityId: check.id } });
    expect(log.auditLog.entries.map((e: any) => e.action)).toEqual(["payment.paid", "payment.created"]);
    expect(log.auditLog.entries[0].actorName).toBe("Casey Clerk (Lakeview)");
  });

  it("numbers receipts in sequence per district and year", async () => {
    const lakeClerk = await signedIn(DEMO.lakeviewClerk);
    const huronClerk = await signedIn(DEMO.huronClerk);
    const numbers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await newPayment();
      numbers.push((await lakeClerk.ok(COUNTER, { i: { paymentId: p.id, method: "cash" } })).recordCounterPayment.receiptNumber);
    }
    const year = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric" }).format(new Date());
    const seq = numbers.map((n) => {
      const m = /^LKV-(\d{4})-(\d{6})$/.exec(n)!;
      expect(m[1]).toBe(year);
      return Number(m[2]);
    });
    expect(seq).toEqual([seq[0], seq[0] + 1, seq[0] + 2]);
    const h = await newPayment(DEMO.applicant, "huron");
    const huron = (await huronClerk.ok(COUNTER, { i: { paymentId: h.id, method: "cash" } })).recordCounterPayment.receiptNumber;
    expect(huron).toMatch(new RegExp(`^HRN-${year}-\\d{6}$`));
    const [{ last }] = await srv.running.ds.query(`SELECT c.last FROM receipt_counter c JOIN district d ON d.id = c.district_id WHERE d.slug = 'huron'`);
    expect(huron).toBe(`HRN-${year}-${String(last).padStart(6, "0")}`);
  });
});

describe("refunds", () => {
  it("returns only the refundable deposit, never more than paid, and not twice", async () => {
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const { id } = await newPayment();
    const reason = "Four copies of the as-built drawing approved (Sewer Use Law 606 B)";
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason } }))).toBe("CONFLICT"); // not paid yet
    await clerk.ok(COUNTER, { i: { paymentId: id, method: "check", checkNumber: "77" } });

    const fee = await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["inspection-fee"], reason } });
    expect(errorCode(fee)).toBe("BAD_USER_INPUT");
    expect(fee.errors![0].extensions!.fields!.lineCodes).toMatch(/not refundable/);
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit", "inspection-fee"], reason } }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["nope"], reason } }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason: "  " } }))).toBe("BAD_USER_INPUT");

    const refund = (await clerk.ok(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason } })).refundPayment;
    expect(refund).toMatchObject({ amountCents: 20000, lineCodes: ["as-built-deposit"], method: "check", reason });
    expect(refund.receiptNumber).toMatch(/^LKV-\d{4}-\d{6}$/);
    expect(errorCode(await clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason } }))).toBe("CONFLICT");

    const alex = await signedIn(DEMO.applicant);
    const { payment } = await alex.ok(PAYMENT, { id });
    expect(payment).toMatchObject({ status: "PARTIALLY_REFUNDED", amountCents: 35000, refundedCents: 20000 });
    expect(payment.lines.map((l: any) => [l.code, l.refunded])).toEqual([["inspection-fee", false], ["as-built-deposit", true]]);
    expect(payment.refunds).toHaveLength(1);
    const [mail] = await srv.running.ds.query(`SELECT body_text FROM outbox_email WHERE kind = 'payment.refund' AND body_text LIKE $1`, [`%${refund.receiptNumber}%`]);
    expect(mail.body_text).toContain("$200.00");
    expect(mail.body_text).toContain(reason);
    const [row] = await srv.running.ds.query(`SELECT reason FROM audit_entry WHERE action = 'payment.refunded' AND entity_id = $1`, [id]);
    expect(row.reason).toBe(reason);
  });

  it("two Clerks refunding at once return the deposit once", async () => {
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const { id } = await newPayment();
    await clerk.ok(COUNTER, { i: { paymentId: id, method: "cash" } });
    const rs = await Promise.all([1, 2, 3].map(() => clerk.gql(REFUND, { i: { paymentId: id, lineCodes: ["as-built-deposit"], reason: "approved" } })));
    expect(rs.filter((r) => !r.errors).length).toBe(1);
    expect(rs.filter((r) => errorCode(r) === "CONFLICT").length).toBe(2);
    const [p] = await srv.running.ds.query(`SELECT refunded_cents FROM payment WHERE id = $1`, [id]);
    expect(p.refunded_cents).toBe(20000);
    expect(rs.find((r) => !r.errors)!.data.refundPayment.method).toBe("cash");
  });
});

describe("the district's ledger", () => {
  it("pages newest first by cursor, filtered by status", async () => {
    const clerk = await signedIn(DEMO.lakeviewClerk);
    const { district } = await clerk.ok(`{ district(slug: "lakeview") { id } }`);
    for (let i = 0; i < 3; i++) await newPayment();
    const Q = `query($d: ID!, $s: String, $f: Int, $b: String) { districtPayments(districtId: $d, status: $s, first: $f, before: $b) {
      nextCursor payments { id status createdAt payableTitle payerName refunds { id } lines { code refunded } } } }`;
    const all = (await clerk.ok(Q, { d: district.id, f: 200 })).districtPayments;
    expect(all.nextCursor).toBeNull();
    const seen: string[] = [];
    let before: string | null = null;
    do {
      const page: any = (await clerk.ok(Q, { d: district.id, f: 2, b: before })).districtPayments;
      expect(page.payments.length).toBeLessThanOrEqual(2);
      seen.push(...page.payments.map((p: any) => p.id));
      before = page.nextCursor;
    } while (before);
    expect(seen).toEqual(all.payments.map((p: any) => p.id));
    expect(new Set(seen).size).toBe(seen.length);
    const times = all.payments.map((p: any) => Date.parse(p.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.payments.every((p: any) => p.payableTitle.startsWith("Test fee ") && p.payerName)).toBe(true);

    const pending = (await clerk.ok(Q, { d: district.id, s: "PENDING", f: 200 })).districtPayments.payments;
    expect(pending.length).toBeGreaterThanOrEqual(3);
    expect(pending.every((p: any) => p.status === "PENDING")).toBe(true);
    expect(errorCode(await clerk.gql(Q, { d: district.id, s: "LOST" }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await clerk.gql(Q, { d: district.id, b: "garbage" }))).toBe("BAD_USER_INPUT");
  });
});

import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { accountBalances, isPastDue, openItems } from "../../api/rents/ledger.js";
import { LATE_CHARGES_JOB, postLateCharges } from "../../api/rents/late-charges.service.js";
import { Client, DEMO, countStatements, errorCode, signedInAs, startTestServer, type GqlResponse, type TestServer } from "../harness.js";
import { issueTestBill } from "../rents-fixtures.js";
import { pageText, portal } from "../portal.js";

/**
 * Sewer accounts' money (issue 14): balances with credits applied to the oldest bill first, paying
 * online and at the counter (partial and over-payments, receipts), the late charges on the law's
 * day (SUL 1118: day 20 on time, day 21 the 20% penalty and 2% a month interest; Huron VI-3: 10%
 * on the 31st day after the due date, a violation on the 61st), the tax levy's sewer bills, the
 * receivables and SUL 1214's figures, and who may do what, operation by operation.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let clerk: Client;
let operator: Client;
let huronClerk: Client;
let owner: Client;
let huronOwner: Client;
let stranger: Client;
let signedOut: Client;
const db = () => srv.running.ds;
const log = pino({ level: "silent" });
const fields = (r: GqlResponse) => (r.errors?.[0]?.extensions?.fields ?? {}) as Record<string, string>;
/** Noon in New York (EDT) on a calendar day. */
const noonOn = (d: string) => travelTo(`${d}T16:00:00Z`);

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const BALANCE = `query($id: ID!) { serviceAccountBalance(accountId: $id) { accountId accountNumber asOf balanceCents pastDueCents canPay canRecordPayment
  lastBill { id number dueOn totalCents } lines { on kind description section amountCents balanceCents } openBills { number unpaidCents lateChargesUnpaidCents pastDue } } }`;
const PAYMENTS = `query($id: ID!) { serviceAccountPayments(accountId: $id) { id amountCents receiptNumber method checkNumber } }`;
const PAY = `mutation($i: PayServiceAccountInput!) { payServiceAccount(input: $i) { id status amountCents payableType lines { label section amountCents } } }`;
const COUNTER = `mutation($i: AccountCounterPaymentInput!) { recordAccountCounterPayment(input: $i) { id status amountCents receiptNumber method checkNumber } }`;
const START = `mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`;
const COMPLETE = `mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { status receiptNumber } }`;
const RECEIVABLES = `query($d: ID!, $y: Int) { sewerReceivables(districtId: $d, year: $y) { asOf rows { accountNumber balanceCents currentCents days30Cents days60Cents days90Cents over90Cents }
  totals { balanceCents currentCents days30Cents days60Cents days90Cents over90Cents } annualReview { year from to section rows { class billedCents lateChargesCents collectedCents outstandingCents } } } }`;
const RECEIVABLES_CSV = `query($d: ID!) { sewerReceivablesCsv(districtId: $d) { slug csv } }`;
const PAYMENTS_CSV = `query($d: ID!, $f: String, $t: String) { sewerPaymentsCsv(districtId: $d, from: $f, to: $t) { from to csv } }`;
const LEVY = `query($d: ID!, $a: String) { taxLevyReport(districtId: $d, asOf: $a) { asOf csv sewerBills { number accountNumber ownerName taxParcel address originalCents penaltyCents interestCents totalCents daysDelinquent } } }`;

let parcel = 0;
/** A property with one account; its owner's sign-in linked when given. */
async function account(c: Client, districtId: string, o: { ownerEmail?: string; ownerName?: string; street?: string } = {}) {
  const n = ++parcel;
  const taxParcel = `77.${n}-1-${n}`;
  const p = (await c.ok(ADD, { i: { districtId, taxParcel, streetNumber: String(n), street: o.street ?? "Ledger Lane", zip: "13600", ownerName: o.ownerName ?? `Owner ${n}`, ownerSince: "2020-01-01", ownerEmail: o.ownerEmail ?? null } }))
    .addSewerProperty;
  const a = (await c.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: `Occupant ${n}`, openedOn: "2024-01-01" } })).openServiceAccount;
  return { id: a.id as string, accountNumber: a.accountNumber as string, propertyId: p.id as string, taxParcel, districtId };
}

/** An issued bill of the account's cycle (test/rents-fixtures.ts). */
const issuedBill = (acct: { id: string; propertyId: string; districtId: string }, o: { periodStart: string; periodEnd: string; mailedOn: string; dueOn: string; totalCents: number }) =>
  issueTestBill(db(), acct, { ...o, cycle: acct.districtId === huron.id ? "ALL" : "OTHER" }, "T");

let jobRun = 0;
/** The hourly job, as the worker queues it. */
async function runLateChargesJob() {
  await enqueueJob(db(), { name: LATE_CHARGES_JOB, payload: { publicUrl: "http://tapline.test" }, singletonKey: `late-test-${++jobRun}` });
  await runDueJobs(db(), log);
}
const lateEmails = (to: string) => db().query(`SELECT subject, body_text FROM outbox_email WHERE to_address = $1 AND kind = 'rents.late_charges' ORDER BY created_at`, [to]);

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [clerk, operator, huronClerk] = await Promise.all([DEMO.lakeviewClerk, DEMO.lakeviewOperator, DEMO.huronClerk].map((e) => signedInAs(srv.url, e)));
  owner = new Client(srv.url);
  await owner.signUp("ledger-owner@example.com", "Olive Owner");
  huronOwner = new Client(srv.url);
  await huronOwner.signUp("ledger-huron@example.com", "Hugh Owner");
  stranger = new Client(srv.url);
  await stranger.signUp("ledger-stranger@example.com", "Sam Stranger");
  signedOut = new Client(srv.url);
}, 120_000);
afterEach(() => resetClock());
afterAll(() => srv?.close());

describe("SUL 1118: a Lakeview bill paid in part, late, then over-paid", () => {
  let acct: Awaited<ReturnType<typeof account>>;
  let bill: { id: string; number: string };

  it("the balance is the issued bill; nothing is past due through its 20th day", async () => {
    acct = await account(clerk, lakeview.id, { ownerEmail: "ledger-owner@example.com", ownerName: "Olive Owner" });
    bill = await issuedBill(acct, { periodStart: "2026-01-01", periodEnd: "2026-03-31", mailedOn: "2026-04-01", dueOn: "2026-04-21", totalCents: 10_000 });
    noonOn("2026-04-21");
    const b = (await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b).toMatchObject({ balanceCents: 10_000, pastDueCents: 0, canPay: true, canRecordPayment: false, lastBill: { number: bill.number, dueOn: "2026-04-21", totalCents: 10_000 } });
    await runLateChargesJob();
    expect((await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance.balanceCents).toBe(10_000);
    expect(await lateEmails("ledger-owner@example.com")).toHaveLength(0);
  });

  it("on the 21st day the job adds the 20% penalty and the first month's 2% interest, once, and emails the owner", async () => {
    noonOn("2026-04-22");
    await runLateChargesJob();
    await runLateChargesJob();
    const b = (await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b.balanceCents).toBe(10_000 + 2_000 + 200);
    expect(b.pastDueCents).toBe(12_200);
    expect(b.lines.map((l: any) => [l.on, l.kind, l.amountCents, l.section])).toEqual([
      ["2026-04-01", "BILL", 10_000, null],
      ["2026-04-22", "PENALTY", 2_000, "Sewer Use Law 1118"],
      ["2026-04-22", "INTEREST", 200, "Sewer Use Law 1118"],
    ]);
    const mails = await lateEmails("ledger-owner@example.com");
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe(`Sewer account ${acct.accountNumber}: $22.00 added for late payment`);
    expect(mails[0].body_text).toContain("Penalty, 20% of the original bill");
    expect(mails[0].body_text).toContain("Balance now: $122.00, of which $122.00 is past due.");
  });

  it("the Clerk records a check at the counter: the check number is asked for, then a receipt; the part paid goes to the bill first", async () => {
    noonOn("2026-04-22");
    const bad = await clerk.gql(COUNTER, { i: { accountId: acct.id, amountCents: 5_000, method: "check" } });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(fields(bad).checkNumber).toBe("Enter the check number.");
    expect(fields(await clerk.gql(COUNTER, { i: { accountId: acct.id, amountCents: 0, method: "cash" } })).amountCents).toContain("$0.01");
    const paid = (await clerk.ok(COUNTER, { i: { accountId: acct.id, amountCents: 5_000, method: "check", checkNumber: "1042" } })).recordAccountCounterPayment;
    expect(paid).toMatchObject({ status: "PAID", amountCents: 5_000, method: "check", checkNumber: "1042" });
    expect(paid.receiptNumber).toMatch(/^LKV-2026-\d{6}$/);
    const b = (await clerk.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b).toMatchObject({ balanceCents: 7_200, canRecordPayment: true, canPay: false });
    expect(b.openBills).toEqual([{ number: bill.number, unpaidCents: 5_000, lateChargesUnpaidCents: 2_200, pastDue: true }]);
    // The owner (the payer on record) gets the receipt.
    const [receipt] = await db().query(`SELECT subject FROM outbox_email WHERE to_address = 'ledger-owner@example.com' AND kind = 'payment.receipt'`);
    expect(receipt.subject).toContain(paid.receiptNumber);
    expect((await owner.ok(PAYMENTS, { id: acct.id })).serviceAccountPayments.map((p: any) => p.receiptNumber)).toEqual([paid.receiptNumber]);
  });

  it("interest of the second month is 2% of what of the bill is unpaid, from the day the month begins", async () => {
    noonOn("2026-05-01");
    await runLateChargesJob();
    expect((await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance.balanceCents).toBe(7_200);
    noonOn("2026-05-02");
    await runLateChargesJob();
    const b = (await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b.balanceCents).toBe(7_300);
    expect(b.lines.at(-1)).toMatchObject({ on: "2026-05-02", kind: "INTEREST", amountCents: 100 });
  });

  it("the owner pays the balance online (the test checkout); then the Clerk takes more in cash: a credit on the account", async () => {
    noonOn("2026-05-03");
    const p = (await owner.ok(PAY, { i: { accountId: acct.id } })).payServiceAccount;
    expect(p).toMatchObject({ status: "PENDING", amountCents: 7_300, payableType: "SewerAccount" });
    expect(p.lines[0].section).toBe("Sewer Use Law 1203");
    // Pressed twice: the same payment.
    expect((await owner.ok(PAY, { i: { accountId: acct.id } })).payServiceAccount.id).toBe(p.id);
    const { startCheckout } = await owner.ok(START, { id: p.id });
    expect((await owner.ok(COMPLETE, { s: startCheckout.url.split("/").pop() })).completeTestCheckout.status).toBe("PAID");
    let b = (await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b).toMatchObject({ balanceCents: 0, pastDueCents: 0, openBills: [] });
    expect(errorCode(await owner.gql(PAY, { i: { accountId: acct.id } }))).toBe("CONFLICT");
    await clerk.ok(COUNTER, { i: { accountId: acct.id, amountCents: 2_500, method: "cash" } });
    b = (await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b.balanceCents).toBe(-2_500);
    // A paid bill gets no more interest.
    noonOn("2026-06-05");
    await runLateChargesJob();
    expect((await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance.balanceCents).toBe(-2_500);
    // The next bill is paid by the credit first.
    await issuedBill(acct, { periodStart: "2026-04-01", periodEnd: "2026-06-30", mailedOn: "2026-07-01", dueOn: "2026-07-21", totalCents: 4_000 });
    noonOn("2026-07-22");
    await runLateChargesJob();
    b = (await owner.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    // Unpaid $15.00 of $40.00: the penalty is 20% of the original bill ($8.00), interest 2% of the unpaid $15.00 ($0.30).
    expect(b.balanceCents).toBe(1_500 + 800 + 30);
  });

  it("the payments export lists the counter and card payments", async () => {
    noonOn("2026-07-22");
    const csv = (await clerk.ok(PAYMENTS_CSV, { d: lakeview.id, f: "2026-01-01", t: "2026-12-31" })).sewerPaymentsCsv.csv as string;
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe(`"Date","Receipt","Account","Occupant","Service address","How","Check number","Amount"`);
    expect(lines.filter((l) => l.includes(acct.accountNumber)).map((l) => l.split(",").at(-1))).toEqual([`"50.00"`, `"73.00"`, `"25.00"`]);
    expect(csv).toContain(`"check","1042"`);
  });
});

describe("Huron VI-3: due 15 days after mailing, 10% once 30 days in arrears, a violation at 60", () => {
  let acct: Awaited<ReturnType<typeof account>>;
  it("the 30th day after the due date has no penalty, the 31st has 10% and no interest", async () => {
    acct = await account(huronClerk, huron.id, { ownerEmail: "ledger-huron@example.com", ownerName: "Hugh Owner" });
    await issuedBill(acct, { periodStart: "2026-01-01", periodEnd: "2026-03-31", mailedOn: "2026-04-01", dueOn: "2026-04-16", totalCents: 6_000 });
    noonOn("2026-04-17");
    expect((await huronOwner.ok(BALANCE, { id: acct.id })).serviceAccountBalance).toMatchObject({ balanceCents: 6_000, pastDueCents: 6_000 });
    noonOn("2026-05-16");
    await runLateChargesJob();
    expect((await huronOwner.ok(BALANCE, { id: acct.id })).serviceAccountBalance.balanceCents).toBe(6_000);
    noonOn("2026-05-17");
    await runLateChargesJob();
    const b = (await huronOwner.ok(BALANCE, { id: acct.id })).serviceAccountBalance;
    expect(b.lines.map((l: any) => [l.on, l.kind, l.amountCents, l.section])).toEqual([
      ["2026-04-01", "BILL", 6_000, null],
      ["2026-05-17", "PENALTY", 600, "Huron VI-3"],
    ]);
  });

  it("60 days in arrears is not yet a violation; the 61st day is, noted once and emailed", async () => {
    noonOn("2026-06-15");
    await runLateChargesJob();
    expect((await huronOwner.ok(BALANCE, { id: acct.id })).serviceAccountBalance.lines.some((l: any) => l.kind === "VIOLATION")).toBe(false);
    noonOn("2026-06-16");
    await runLateChargesJob();
    await runLateChargesJob();
    const v = (await huronOwner.ok(BALANCE, { id: acct.id })).serviceAccountBalance.lines.filter((l: any) => l.kind === "VIOLATION");
    expect(v).toEqual([expect.objectContaining({ on: "2026-06-16", amountCents: 0, section: "Huron VI-3" })]);
    const mails = await lateEmails("ledger-huron@example.com");
    expect(mails.map((m: any) => m.subject)).toEqual([`Sewer account ${acct.accountNumber}: $6.00 added for late payment`, `Sewer account ${acct.accountNumber}: unpaid bill in violation`]);
  });

  it("the lien (VI-4): every bill in arrears is on the levy list, with its penalty; Huron has no annual review (no SUL 1214)", async () => {
    noonOn("2026-06-16");
    const levy = (await huronClerk.ok(LEVY, { d: huron.id, a: null })).taxLevyReport;
    expect(levy.sewerBills).toEqual([expect.objectContaining({ accountNumber: acct.accountNumber, ownerName: "Hugh Owner", taxParcel: acct.taxParcel, originalCents: 6_000, penaltyCents: 600, interestCents: 0, totalCents: 6_600 })]);
    expect(levy.csv).toContain(`"Sewer rent, account ${acct.accountNumber}","60.00","6.00","0.00","66.00"`);
    const r = (await huronClerk.ok(RECEIVABLES, { d: huron.id, y: 2026 })).sewerReceivables;
    expect(r.annualReview).toBeNull();
    expect(r.rows).toEqual([expect.objectContaining({ accountNumber: acct.accountNumber, balanceCents: 6_600, days90Cents: 6_600 })]);
  });
});

describe("SUL 1118's tax levy: bills delinquent at least 60 days as of October 1", () => {
  it("lists the bill delinquent 102 days with its penalty and interest, not the one delinquent 48 days", async () => {
    const a = await account(clerk, lakeview.id, { ownerName: "Lee Levy" });
    const old = await issuedBill(a, { periodStart: "2026-04-01", periodEnd: "2026-04-30", mailedOn: "2026-06-01", dueOn: "2026-06-21", totalCents: 10_000 });
    await issuedBill(a, { periodStart: "2026-05-01", periodEnd: "2026-05-31", mailedOn: "2026-07-25", dueOn: "2026-08-14", totalCents: 5_000 });
    noonOn("2026-10-01");
    await postLateCharges(db(), "http://tapline.test");
    const levy = (await clerk.ok(LEVY, { d: lakeview.id, a: "2026-10-01" })).taxLevyReport;
    const mine = levy.sewerBills.filter((b: any) => b.accountNumber === a.accountNumber);
    // June 1 + 20 = June 21 the last day on time; October 1 is 102 days later. Four months begun: 4 × 2% of $100.00.
    expect(mine).toEqual([expect.objectContaining({ number: old.number, ownerName: "Lee Levy", taxParcel: a.taxParcel, originalCents: 10_000, penaltyCents: 2_000, interestCents: 800, totalCents: 12_800, daysDelinquent: 102 })]);
    expect(levy.csv).toContain(`"${old.number}","2026-06-01","Lee Levy","${a.taxParcel}"`);
  });
});

describe("the receivables, their exports and SUL 1214's figures", () => {
  it("ages each account's unpaid bills from their due dates, with totals; the annual review by class for the fiscal year", async () => {
    noonOn("2026-10-01");
    const r = (await clerk.ok(RECEIVABLES, { d: lakeview.id, y: 2026 })).sewerReceivables;
    expect(r.asOf).toBe("2026-10-01");
    const sum = (k: string) => r.rows.reduce((s: number, x: any) => s + x[k], 0);
    for (const k of ["balanceCents", "currentCents", "days30Cents", "days60Cents", "days90Cents", "over90Cents"]) expect(r.totals[k]).toBe(sum(k));
    expect(r.annualReview).toMatchObject({ year: 2026, from: "2026-01-01", to: "2026-12-31", section: "Sewer Use Law 1211, 1214" });
    const res = r.annualReview.rows.find((x: any) => x.class === "RESIDENTIAL");
    expect(res.billedCents).toBe(10_000 + 4_000 + 10_000 + 5_000);
    expect(res.collectedCents).toBe(5_000 + 7_300 + 2_500);
    const csv = (await operator.ok(RECEIVABLES_CSV, { d: lakeview.id })).sewerReceivablesCsv;
    expect(csv.slug).toBe("lakeview");
    expect(csv.csv.split("\r\n")[0]).toBe(`"Account","Occupant","Owner of record","Service address","Class","Balance","Not yet due","1-30 days past due","31-60 days","61-90 days","Over 90 days"`);
  });

  it("a cell that would be a spreadsheet formula is neutralised", async () => {
    await account(clerk, lakeview.id, { ownerName: "=HYPERLINK(\"http://evil\")" }).then((a) => issuedBill(a, { periodStart: "2026-07-01", periodEnd: "2026-07-31", mailedOn: "2026-08-01", dueOn: "2026-08-21", totalCents: 100 }));
    noonOn("2026-10-01");
    const csv = (await clerk.ok(RECEIVABLES_CSV, { d: lakeview.id })).sewerReceivablesCsv.csv;
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
  });

  it("balances of many accounts take the same number of statements as of one", async () => {
    const ids: string[] = (await db().query(`SELECT id FROM service_account WHERE district_id = $1`, [lakeview.id])).map((r: any) => r.id);
    expect(ids.length).toBeGreaterThan(2);
    const one = await countStatements(db(), () => accountBalances(db(), ids.slice(0, 1)));
    const many = await countStatements(db(), () => accountBalances(db(), ids));
    expect(many).toBe(one);
  });
});

describe("who may see and do what, operation by operation", () => {
  let acct: Awaited<ReturnType<typeof account>>;
  beforeAll(async () => {
    acct = await account(clerk, lakeview.id, { ownerEmail: "ledger-owner@example.com" });
    await issuedBill(acct, { periodStart: "2026-08-01", periodEnd: "2026-08-31", mailedOn: "2026-09-01", dueOn: "2026-09-21", totalCents: 3_000 });
  });
  const code = async (c: Client, q: string, v: Record<string, unknown>) => errorCode(await c.gql(q, v)) ?? "OK";

  it("the balance and the payments: the owner and the district's staff; others NOT_FOUND", async () => {
    for (const q of [BALANCE, PAYMENTS]) {
      expect(await code(signedOut, q, { id: acct.id })).toBe("UNAUTHENTICATED");
      expect(await code(stranger, q, { id: acct.id })).toBe("NOT_FOUND");
      expect(await code(huronClerk, q, { id: acct.id })).toBe("NOT_FOUND");
      expect(await code(owner, q, { id: acct.id })).toBe("OK");
      expect(await code(operator, q, { id: acct.id })).toBe("OK");
      expect(await code(clerk, q, { id: acct.id })).toBe("OK");
    }
  });

  it("paying online: the owner or occupant only", async () => {
    const v = { i: { accountId: acct.id, amountCents: 1_000 } };
    expect(await code(signedOut, PAY, v)).toBe("UNAUTHENTICATED");
    expect(await code(stranger, PAY, v)).toBe("NOT_FOUND");
    expect(await code(huronClerk, PAY, v)).toBe("NOT_FOUND");
    expect(await code(operator, PAY, v)).toBe("FORBIDDEN");
    expect(await code(clerk, PAY, v)).toBe("FORBIDDEN");
    const partial = (await owner.ok(PAY, v)).payServiceAccount;
    expect(partial.amountCents).toBe(1_000);
  });

  it("counter payments: the district's Town Clerk only", async () => {
    const v = { i: { accountId: acct.id, amountCents: 1_000, method: "cash" } };
    expect(await code(signedOut, COUNTER, v)).toBe("UNAUTHENTICATED");
    expect(await code(stranger, COUNTER, v)).toBe("FORBIDDEN");
    expect(await code(owner, COUNTER, v)).toBe("FORBIDDEN");
    expect(await code(operator, COUNTER, v)).toBe("FORBIDDEN");
    expect(await code(huronClerk, COUNTER, v)).toBe("NOT_FOUND");
    expect(await code(clerk, COUNTER, v)).toBe("OK");
  });

  it("the receivables and the exports: the district's staff; another district's FORBIDDEN", async () => {
    for (const [q, v] of [
      [RECEIVABLES, { d: lakeview.id }],
      [RECEIVABLES_CSV, { d: lakeview.id }],
      [PAYMENTS_CSV, { d: lakeview.id }],
    ] as const) {
      expect(await code(signedOut, q, v)).toBe("UNAUTHENTICATED");
      expect(await code(stranger, q, v)).toBe("FORBIDDEN");
      expect(await code(owner, q, v)).toBe("FORBIDDEN");
      expect(await code(huronClerk, q, v)).toBe("FORBIDDEN");
      expect(await code(operator, q, v)).toBe("OK");
      expect(await code(clerk, q, v)).toBe("OK");
    }
  });
});

/** The first render of each page compiles it in Vite: 120 s each on a busy machine. */
describe("the pages, without JavaScript", () => {
  const { get, post } = portal(() => srv.url);
  const text = pageText;
  let acct: Awaited<ReturnType<typeof account>>;
  let bill: { id: string; number: string };
  beforeAll(async () => {
    acct = await account(clerk, lakeview.id, { ownerEmail: "ledger-owner@example.com" });
    bill = await issuedBill(acct, { periodStart: "2026-09-01", periodEnd: "2026-09-30", mailedOn: "2026-10-01", dueOn: "2026-10-21", totalCents: 4_250 });
  });

  it("the owner's bill page shows the balance and Pay, which leads to the payment page", async () => {
    const page = await get(owner, `/properties/bills/${bill.id}`);
    expect(page.status).toBe(200);
    expect(text(page.html)).toContain(`Account ${acct.accountNumber}: balance and payments`);
    expect(text(page.html)).toContain("$42.50 owed");
    const bad = await post(owner, `/properties/bills/${bill.id}`, { accountId: acct.id, amount: "forty" });
    expect(bad.status).toBe(400);
    expect(text(bad.html)).toContain("Enter the amount in dollars, like 125.00.");
    const ok = await post(owner, `/properties/bills/${bill.id}`, { accountId: acct.id, amount: "20.00" });
    expect(ok.status).toBe(302);
    expect(ok.location).toMatch(/^\/payments\/[0-9a-f-]{36}$/);
  }, 120_000);

  it("the Clerk's account page records a counter payment, with the check number asked for at its field, and a receipt", async () => {
    const path = `/staff/properties/accounts/${acct.id}`;
    expect(text((await get(clerk, path)).html)).toContain("Record a payment at the counter");
    const bad = await post(clerk, path, { intent: "payment", amount: "12.00", method: "check", checkNumber: "" });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/id="checkNumber-error"[^>]*>Enter the check number\./);
    const ok = await post(clerk, path, { intent: "payment", amount: "12.00", method: "check", checkNumber: "2001" });
    expect(ok.status).toBe(302);
    expect(ok.location).toMatch(/done=payment&receipt=[0-9a-f-]{36}/);
    const after = text((await get(clerk, path)).html);
    expect(after).toContain("$30.50 owed");
    expect(after).toContain("check no. 2001");
    // The operator reads it but has no counter.
    expect(text((await get(operator, path)).html)).not.toContain("Record a payment at the counter");
  }, 120_000);

  it("the receivables page, with SUL 1214's figures for Lakeview and none for Huron, and its CSV", async () => {
    const lk = await get(clerk, `/staff/receivables?districtId=${lakeview.id}`);
    expect(lk.status).toBe(200);
    expect(text(lk.html)).toContain("Aging by account");
    expect(text(lk.html)).toContain("Annual review of the sewer charge system");
    const hu = await get(huronClerk, `/staff/receivables?districtId=${huron.id}`);
    expect(hu.status).toBe(200);
    expect(text(hu.html)).not.toContain("Annual review");
    const csv = await get(clerk, `/staff/receivables.csv?districtId=${lakeview.id}&kind=payments`);
    expect(csv.type).toContain("text/csv");
    expect(csv.html).toContain(`"check","2001","12.00"`);
    expect((await get(clerk, `/staff/properties?districtId=${lakeview.id}`)).html).toContain(`/staff/receivables?districtId=${lakeview.id}`);
  }, 120_000);
});

describe("balances and open items: two statements of one rule", () => {
  // accountBalances (balanceOfSql: one window) and openItems (openItemsSql: the credits' sum against
  // the debits in order) must agree on every account this file made: what is unpaid is the balance
  // when it is owed, nothing when it is a credit, and past due is what is unpaid of what is past due.
  it("every account's balance and past due part are its open items' on each of several days", async () => {
    const ids: string[] = (await db().query(`SELECT id FROM service_account ORDER BY id`)).map((r: any) => r.id);
    expect(ids.length).toBeGreaterThan(3);
    const seen = { owed: 0, pastDue: 0 };
    for (const day of ["2026-01-15", "2026-04-20", "2026-05-15", "2026-08-01"]) {
      travelTo(`${day}T16:00:00Z`);
      const balances = await accountBalances(db(), ids);
      const items = await openItems(db(), ids);
      for (const id of ids) {
        const mine = items.filter((i) => i.accountId === id);
        const unpaid = mine.reduce((s, i) => s + i.unpaidCents, 0);
        const b = balances.get(id)!;
        expect([day, id, Math.max(0, b.balanceCents), b.pastDueCents]).toEqual([day, id, unpaid, mine.filter(isPastDue).reduce((s, i) => s + i.unpaidCents, 0)]);
        seen.owed += b.balanceCents > 0 ? 1 : 0;
        seen.pastDue += b.pastDueCents > 0 ? 1 : 0;
      }
    }
    // Not vacuous: balances owed and past due, with payments and credits applied, were compared.
    expect(Math.min(seen.owed, seen.pastDue)).toBeGreaterThan(0);
  });
});

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { zonedInstant } from "../../api/common/dates.js";
import { Client, DEMO, signedInAs } from "../harness.js";
import { connectDistrictAccount } from "../stripe-standin.js";
import { expectNoAxeViolations, settled, signedInContext } from "./browser.js";
import { PUBLIC_URL, boardSetsRents, homeowner, onServer, runJobNow, sewerAccount, startStripeE2E, type SewerAccount, type StripeE2E } from "./fixtures.js";

/**
 * Sewer rents in the browser (issue 14, "Done when"), once under each law: the Town Clerk imports a
 * quarter's meter readings (the bad row reported with its line, the rest in), previews the bills,
 * reads the flagged accounts and issues them; a homeowner pays the bill by quick pay (no sign-in);
 * another signs in, reads the bill and its chart of use, turns autopay on, and the job charges the
 * bill on its due date (not the day before) through the Stripe stand-in; a bill left unpaid gets the
 * law's penalty on the law's day (not the day before) and is on the tax-levy list.
 *
 * - Lakeview (SUL 1203, 1118): fixed part and volume charge; due 20 days after billing, the 20%
 *   penalty on the 21st day; on the levy list when 60 days delinquent on October 1.
 * - Huron (VI-2, VI-3, VI-4, VII): the minimum charge per user; due 15 days after mailing, 10% once
 *   30 days in arrears (the 31st day after the due date); every bill in arrears is on the lien list.
 *
 * The register (properties, accounts, meters), the Board's rent schedule and the quarter before
 * (its reads and its bills, paid at the counter: the chart's history) are seeded through the API;
 * the rules' clock is moved to each day the story needs (the server runs in this process) and the
 * hourly jobs are run as the worker runs them.
 */

let e: StripeE2E;
const PASSWORD = "correct horse battery staple";
const TZ = "America/New_York";
const noon = (day: string) => travelTo(zonedInstant(`${day}T12:00`, TZ)!);
const url = (p: string) => `${e.srv.url}${p}`;
const text = async (page: Page, selector = "main") => {
  await settled(page);
  return page.locator(selector).innerText();
};
const dollars = (cents: number) => (cents / 100).toFixed(2);

type Town = {
  slug: string;
  /** axe on every page visited (Lakeview), or only on those whose content is this law's (Huron: the run, the bill, the account's late charges) */
  axeAll: boolean;
  districtId: string;
  clerk: string;
  cycle: string;
  zip: string;
  /** the quick payer's, the autopay owner's, the heavy user's (left unpaid) and the unread account */
  quick: SewerAccount;
  auto: SewerAccount;
  late: SewerAccount;
  unread: SewerAccount;
  autoOwner: string;
};
const towns: Record<"lakeview" | "huron", Town> = {} as any;

/** The quarter before the story's (Q4 2025): a baseline and a read per meter, the bills issued and paid at the counter. */
async function quarterBefore(t: Town): Promise<void> {
  const clerk = await signedInAs(e.srv.url, t.clerk);
  const accounts = [t.quick, t.auto, t.late, t.unread];
  const csv = ["meter,date,reading", ...accounts.map((a) => `${a.meterNumber},2025-09-30,1000`), ...accounts.map((a) => `${a.meterNumber},2025-12-30,10000`)].join("\n");
  const { importMeterReadings: imp } = await clerk.ok(`mutation($i: ImportMeterReadingsInput!) { importMeterReadings(input: $i) { rowsImported rowsRejected } }`, {
    i: { districtId: t.districtId, fileName: "q4-2025.csv", csv },
  });
  expect(imp).toEqual({ rowsImported: 8, rowsRejected: 0 });
  const { previewBillRun: run } = await clerk.ok(`mutation($i: PreviewBillRunInput!) { previewBillRun(input: $i) { id } }`, {
    i: { districtId: t.districtId, cycle: t.cycle, periodStart: "2025-10-01" },
  });
  await clerk.ok(`mutation($i: IssueBillRunInput!) { issueBillRun(input: $i) { id } }`, { i: { runId: run.id, mailedOn: "2026-01-05", confirm: true } });
  const bills: { account_id: string; total_cents: number }[] = await e.srv.running.ds.query(`SELECT account_id, total_cents FROM bill WHERE run_id = $1 AND account_id IS NOT NULL`, [run.id]);
  expect(bills).toHaveLength(4);
  for (const b of bills)
    await clerk.ok(`mutation($i: AccountCounterPaymentInput!) { recordAccountCounterPayment(input: $i) { id } }`, { i: { accountId: b.account_id, amountCents: b.total_cents, method: "cash" } });
}

beforeAll(async () => {
  e = await startStripeE2E();
  await connectDistrictAccount(e.stripe, e.srv, "huron"); // Lakeview's is connected by startStripeE2E
  noon("2026-01-05");
  const { lakeview, huron } = await new Client(e.srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`);
  await Promise.all([homeowner(e.srv.url, "avery@example.org", "Avery Autopay", PASSWORD), homeowner(e.srv.url, "harper@example.org", "Harper Autopay", PASSWORD)]);
  // The Boards' rent schedules (SUL 1203: $400.00 of fixed costs a year and $6.50 per 1,000 gallons; Huron VII: a $45.00 minimum and $5.00 per 1,000 gallons).
  await boardSetsRents(e.srv.url, DEMO.lakeviewAdmin, lakeview.id, "2025-07-01", [
    { key: "billing.fixedCostsPerYear", value: 40_000 },
    { key: "billing.volumeChargePer1000Gallons", value: 650 },
  ]);
  await boardSetsRents(e.srv.url, DEMO.huronAdmin, huron.id, "2025-07-01", [
    { key: "billing.minimumCharge", value: 4_500 },
    { key: "billing.volumeChargePer1000Gallons", value: 500 },
  ]);
  const lv = await signedInAs(e.srv.url, DEMO.lakeviewClerk);
  const hu = await signedInAs(e.srv.url, DEMO.huronClerk);
  const lvAccount = (n: number, owner: string, ownerEmail?: string) =>
    sewerAccount(lv, { districtId: lakeview.id, taxParcel: `310.4-2-${n}`, streetNumber: String(n), street: "Birch Lane", zip: "13600", ownerName: owner, ownerEmail, occupantName: owner, meterNumber: `LV-10${n}`, openedOn: "2024-01-01", homes: 1 });
  const huAccount = (n: number, owner: string, ownerEmail?: string) =>
    sewerAccount(hu, { districtId: huron.id, taxParcel: `88.3-1-${n}`, streetNumber: String(n), street: "Bay Shore Road", zip: "14500", ownerName: owner, ownerEmail, occupantName: owner, meterNumber: `HU-20${n}`, openedOn: "2024-01-01" });
  const [lq, la, ll, lu, hq, ha, hl, hu2] = await Promise.all([
    lvAccount(21, "Quinn Quickpay"),
    lvAccount(23, "Avery Autopay", "avery@example.org"),
    lvAccount(25, "Lee Latepayer"),
    lvAccount(27, "Noel Noread"),
    huAccount(41, "Quinn Minimum"),
    huAccount(43, "Harper Autopay", "harper@example.org"),
    huAccount(45, "Lou Latepayer"),
    huAccount(47, "Nell Noread"),
  ]);
  towns.lakeview = {
    slug: "lakeview",
    axeAll: true,
    districtId: lakeview.id,
    clerk: DEMO.lakeviewClerk,
    cycle: "OTHER",
    zip: "13600",
    quick: lq,
    auto: la,
    late: ll,
    unread: lu,
    autoOwner: "avery@example.org",
  };
  towns.huron = {
    slug: "huron",
    axeAll: false,
    districtId: huron.id,
    clerk: DEMO.huronClerk,
    cycle: "ALL",
    zip: "14500",
    quick: hq,
    auto: ha,
    late: hl,
    unread: hu2,
    autoOwner: "harper@example.org",
  };
  await Promise.all([quarterBefore(towns.lakeview), quarterBefore(towns.huron)]);
}, 180_000);
afterEach(() => resetClock());
afterAll(async () => {
  resetClock();
  await e?.close();
});

/** The Clerk's quarter on the portal's pages: import (one bad row), preview, flags, issue. Returns the run's page for later. */
async function clerkRunsTheQuarter(page: Page, t: Town, o: { heavyGallons: number; lines: RegExp; mailed: string; mailedText: string; due: string }) {
  // 1. The reading file: the quick payer's and the autopay owner's meters, a mistyped meter, the heavy user's; the fourth meter was not read.
  await page.goto(url("/staff/readings"));
  const csv = ["meter,date,reading", `${t.quick.meterNumber},2026-03-30,16000`, `${t.quick.meterNumber.slice(0, -1)}9,2026-03-30,12000`, `${t.auto.meterNumber},2026-03-30,19500`, `${t.late.meterNumber},2026-03-30,${10_000 + o.heavyGallons}`].join("\n");
  await page.getByLabel("Reading file").setInputFiles({ name: "route-1-q1-2026.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Import the readings" }).click();
  await page.waitForURL((u) => u.searchParams.has("import"));
  const report = await text(page, "section[aria-labelledby=report]");
  expect(report).toContain("3 rows of 4 imported. 1 row not imported: correct them and import them again.");
  expect(report).toMatch(new RegExp(`3\\s+Unknown meter "${t.quick.meterNumber.slice(0, -1)}9"`));
  if (t.axeAll) await expectNoAxeViolations(page);

  // 2. The preview of Q1 2026: only the flagged bills are listed at first.
  await page.goto(url("/staff/bill-runs"));
  await page.getByLabel("Billing cycle").selectOption(t.cycle);
  await page.getByLabel("First day of the period").fill("2026-01-01");
  await page.getByRole("button", { name: "Preview the bills" }).click();
  await page.waitForURL((u) => /^\/staff\/bill-runs\/[0-9a-f-]{36}$/.test(u.pathname));
  await page.getByRole("heading", { level: 2, name: "Bills to look at" }).waitFor();
  const preview = await text(page);
  expect(preview).toContain("Bills for January 1, 2026 to March 31, 2026");
  expect(preview).toMatch(/4, 2 flagged/);
  const flagged = page.locator("main section[aria-labelledby^=bill-]");
  expect(await flagged.count()).toBe(2);
  const heavy = await flagged.filter({ hasText: t.late.accountNumber }).innerText();
  expect(heavy).toContain("Use far from the account's own history");
  const unread = await flagged.filter({ hasText: t.unread.accountNumber }).innerText();
  expect(unread).toContain("No meter read in the period");
  expect(heavy + unread).toMatch(o.lines);
  expect(preview).not.toContain(t.quick.accountNumber);
  await expectNoAxeViolations(page);

  // 3. Issue, with the mailing date the Clerk chooses, once the flagged bills are looked at.
  await page.getByLabel("Mailing date").fill(o.mailed);
  await page.getByText("I have looked at the flagged bills: issue them").click();
  await page.getByRole("button", { name: "Issue 4 bills" }).click();
  await page.getByText(/^Mailed$/).waitFor();
  const issued = await text(page);
  expect(issued).toMatch(/Status\s+Issued/);
  expect(issued).toContain(`Mailed\n${o.mailedText}, due ${o.due}`);
  const runId = new URL(page.url()).pathname.split("/").pop()!;
  const bills: { account_id: string; number: string; total_cents: number; due_on: string }[] = await e.srv.running.ds.query(
    `SELECT account_id, number, total_cents, due_on::text FROM bill WHERE run_id = $1 AND account_id IS NOT NULL`,
    [runId],
  );
  return (a: SewerAccount) => bills.find((b) => b.account_id === a.accountId)!;
}

/** A homeowner with no sign-in pays by the account number and the ZIP code, through the Stripe stand-in's checkout. */
async function quickPay(t: Town, bill: { total_cents: number }, districtName: string) {
  const ctx = await e.browser.newContext();
  try {
    const page = await ctx.newPage();
    await page.goto(url("/pay"));
    await page.getByLabel("Account number").fill(t.quick.accountNumber.toLowerCase());
    await page.getByLabel("ZIP code of the service address").fill(t.zip);
    await page.getByRole("button", { name: "Show what is due" }).click();
    await page.getByRole("heading", { level: 2, name: `Account ${t.quick.accountNumber}` }).waitFor();
    const due = await text(page);
    expect(due).toMatch(new RegExp(`Amount due\\s+\\$${dollars(bill.total_cents)}`));
    expect(due).toMatch(/Last bill's period\s+January 1, 2026 to March 31, 2026\s+Due date\s+April \d+, 2026/);
    expect(due).not.toContain(t.quick.address); // the number and the ZIP show what is due, nothing else
    expect(await page.getByLabel("Amount to pay").inputValue()).toBe(dollars(bill.total_cents));
    if (t.axeAll) await expectNoAxeViolations(page);
    await page.getByRole("button", { name: `Pay ${districtName} by card` }).click();
    await page.waitForURL((u) => u.origin === e.stripe.url && u.pathname.startsWith("/c/pay/cs_test_"));
    const completed = e.stripe.complete(new URL(page.url()).pathname.split("/").pop()!);
    expect(completed.amount_total).toBe(bill.total_cents);
    expect((await e.deliver(e.stripe.event("checkout.session.completed", completed))).status).toBe(200);
    await page.goto(onServer(e, completed.success_url));
    await page.getByRole("heading", { level: 1, name: "Payment received" }).waitFor();
    expect(await text(page)).toContain(`received $${dollars(bill.total_cents)}`);
    if (t.axeAll) await expectNoAxeViolations(page);
  } finally {
    await ctx.close();
  }
}

/** The autopay owner signs in, reads the bill and its chart, and saves a card on Stripe's page (the stand-in): autopay is on. Returns the autopay page. */
async function ownerTurnsOnAutopay(t: Town, bill: { number: string }, history: RegExp): Promise<Page> {
  const ctx = await signedInContext(e, t.autoOwner, PASSWORD);
  const page = await ctx.newPage();
  await page.goto(url("/properties"));
  expect(await text(page)).toContain(t.auto.accountNumber);
  expect(await page.getByRole("link", { name: "Autopay", exact: true }).getAttribute("href")).toBe(`/properties/autopay/${t.auto.accountId}`);
  if (t.axeAll) await expectNoAxeViolations(page);
  await page.getByRole("link", { name: "My sewer bills" }).click();
  await page.getByRole("link", { name: bill.number }).click();
  await page.waitForURL((u) => /^\/properties\/bills\/[0-9a-f-]{36}$/.test(u.pathname));
  await page.getByRole("heading", { level: 1, name: `Sewer bill ${bill.number}` }).waitFor();
  // The chart, drawn on the server, and the same figures in the table beside it: the quarter before and this one.
  await page.locator("svg[role=img] title", { hasText: "Metered water per billing period" }).waitFor({ state: "attached" });
  expect(await page.locator("svg[role=img] rect").count()).toBe(2);
  expect(await text(page, "table:has(caption:text('Metered water and amount billed per period'))")).toMatch(history);
  await expectNoAxeViolations(page);

  await page.goto(url(`/properties/autopay/${t.auto.accountId}`));
  await page.getByRole("heading", { level: 1, name: `Autopay for sewer account ${t.auto.accountNumber}` }).waitFor();
  await page.getByRole("button", { name: "Save a card for autopay" }).click();
  await page.waitForURL((u) => u.origin === e.stripe.url && u.pathname.startsWith("/c/pay/cs_test_"));
  const completed = e.stripe.complete(new URL(page.url()).pathname.split("/").pop()!);
  expect(completed.success_url).toBe(`${PUBLIC_URL}/properties/autopay/${t.auto.accountId}?setup=done`);
  await page.goto(onServer(e, completed.success_url));
  await page.getByText("Visa ending 4242", { exact: false }).waitFor();
  expect(await text(page)).toMatch(/Autopay is on \(bills due from April 1, 2026 on\)/);
  if (t.axeAll) await expectNoAxeViolations(page);
  return page;
}

/** The autopay job the day before the due date charges nothing; on the due date it charges the bill, with a receipt. */
async function autopayOnTheDueDate(page: Page, t: Town, bill: { number: string; total_cents: number; due_on: string }, dayBefore: string) {
  noon(dayBefore);
  await runJobNow(e, "rents.autopay");
  await page.reload();
  expect(await text(page)).not.toContain("Autopay charges");
  noon(bill.due_on);
  await runJobNow(e, "rents.autopay");
  await page.reload();
  const charged = await text(page, "section[aria-labelledby=charges-heading]");
  expect(charged).toMatch(new RegExp(`${bill.number}\\s+[A-Z][a-z]+ \\d+, 2026\\s+\\$${dollars(bill.total_cents)}\\s+Charged`));
  expect(charged).toMatch(/receipt [A-Z]{3}-2026-\d{6}/);
  if (t.axeAll) await expectNoAxeViolations(page);
  const [intent] = e.stripe.requests.filter((r) => r.method === "POST" && r.path === "/v1/payment_intents");
  expect(intent.params).toMatchObject({ amount: String(bill.total_cents), off_session: "true", confirm: "true" });
  e.stripe.requests.length = 0;
}

/** On the Clerk's account page: no late penalty the day before the law's day; on it, the penalty with its section. */
async function penaltyOnTheLawsDay(page: Page, t: Town, o: { dayBefore: string; day: string; penaltyCents: number; section: string }) {
  noon(o.dayBefore);
  await runJobNow(e, "rents.late-charges");
  await page.goto(url(`/staff/properties/accounts/${t.late.accountId}`));
  expect(await text(page)).not.toContain("Late penalty");
  noon(o.day);
  await runJobNow(e, "rents.late-charges");
  await page.reload();
  const money = await text(page);
  expect(money).toMatch(new RegExp(`Late penalty[^\\n]*${o.section}[^\\n]*\\$${dollars(o.penaltyCents)}`));
  await expectNoAxeViolations(page);
}

/** The Clerk downloads the tax-levy list from the delinquency page: the unpaid bills with their penalty, not the paid ones. */
async function onTheLevyList(page: Page, t: Town, bills: { late: { number: string; total_cents: number }; paid: { number: string }[] }, penaltyCents: number) {
  await page.goto(url("/staff/delinquency"));
  if (t.axeAll) await expectNoAxeViolations(page);
  const href = await page.getByRole("link", { name: "Download the tax-levy report (CSV)" }).getAttribute("href");
  const res = await page.request.get(url(href!));
  expect(res.headers()["content-type"]).toContain("text/csv");
  const csv = await res.text();
  expect(csv).toMatch(new RegExp(`"${bills.late.number}",[^\\n]*"${dollars(bills.late.total_cents)}","${dollars(penaltyCents)}"`));
  for (const p of bills.paid) expect(csv).not.toContain(p.number);
  return csv;
}

describe("sewer rents, from the meter readings to the tax levy", () => {
  it("Lakeview (SUL 1203, 1118): a quarter imported, previewed, issued; paid by quick pay and by autopay; one left unpaid gets the 20% penalty on day 21 and is on the levy list", async () => {
    const t = towns.lakeview;
    noon("2026-04-01");
    const clerk = await signedInContext(e, t.clerk);
    try {
      const c = await clerk.newPage();
      const billOf = await clerkRunsTheQuarter(c, t, { heavyGallons: 40_000, lines: /Sewer Use Law 1203[\s\S]*\$6\.50 per 1,000 gallons/, mailed: "2026-04-01", mailedText: "April 1, 2026", due: "April 21, 2026" });
      const [quick, auto, late, unread] = [t.quick, t.auto, t.late, t.unread].map(billOf);
      expect(late.due_on).toBe("2026-04-21"); // SUL 1118: 20 days after the billing date

      await quickPay(t, quick, "Town of Lakeview Sewer District");
      const ap = await ownerTurnsOnAutopay(t, auto, /October 1, 2025\s+9,000[\s\S]*January 1, 2026\s+9,500/);
      await autopayOnTheDueDate(ap, t, auto, "2026-04-20");
      await ap.context().close();

      // SUL 1118: unpaid 20 days after billing (April 21) is in default; the 20% penalty is added on April 22.
      await penaltyOnTheLawsDay(c, t, { dayBefore: "2026-04-21", day: "2026-04-22", penaltyCents: Math.round(late.total_cents * 0.2), section: "Sewer Use Law 1118" });
      // October 1: delinquent at least 60 days, the unpaid bills are reported for the tax levy (SUL 1118).
      noon("2026-10-01");
      await runJobNow(e, "rents.late-charges");
      const csv = await onTheLevyList(c, t, { late, paid: [quick, auto] }, Math.round(late.total_cents * 0.2));
      expect(csv).toContain(unread.number);
      expect(csv).toContain(`"Lee Latepayer","310.4-2-25"`);
    } finally {
      await clerk.close();
    }
  }, 240_000);

  it("Huron (VI-2, VI-3, VI-4, VII): the minimum charge per user, due 15 days after mailing, 10% on the 31st day in arrears, every bill in arrears on the lien list", async () => {
    const t = towns.huron;
    noon("2026-04-01");
    const clerk = await signedInContext(e, t.clerk);
    try {
      const c = await clerk.newPage();
      // The unread user pays the minimum; the heavy user the minimum and the use above it (40,000 gallons × $5.00 = $200.00).
      const billOf = await clerkRunsTheQuarter(c, t, {
        heavyGallons: 40_000,
        lines: /Minimum charge[^\n]*Huron VII?[^\n]*\$45\.00[\s\S]*Use charge above the minimum[^\n]*\$155\.00[\s\S]*Minimum charge[^\n]*\$45\.00/,
        mailed: "2026-04-01",
        mailedText: "April 1, 2026",
        due: "April 16, 2026",
      });
      const [quick, auto, late, unread] = [t.quick, t.auto, t.late, t.unread].map(billOf);
      expect(late.due_on).toBe("2026-04-16"); // Huron VI-3: 15 days after mailing
      expect(unread.total_cents).toBe(4_500);

      await quickPay(t, quick, "Town of Huron Sewer District No. 1");
      const ap = await ownerTurnsOnAutopay(t, auto, /October 1, 2025\s+9,000[\s\S]*January 1, 2026\s+9,500/);
      await autopayOnTheDueDate(ap, t, auto, "2026-04-15");
      await ap.context().close();

      // Huron VI-3: 10% once 30 days in arrears: nothing on May 16 (the 30th day after April 16), the penalty on May 17.
      const penalty = Math.round(late.total_cents * 0.1);
      await penaltyOnTheLawsDay(c, t, { dayBefore: "2026-05-16", day: "2026-05-17", penaltyCents: penalty, section: "Huron VI-3" });
      // Huron VI-4: rents in arrears are a lien: every unpaid bill is on the list.
      const csv = await onTheLevyList(c, t, { late, paid: [quick, auto] }, penalty);
      expect(csv).toContain(unread.number);
    } finally {
      await clerk.close();
    }
  }, 240_000);
});

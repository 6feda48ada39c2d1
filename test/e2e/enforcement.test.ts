import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { Client, DEMO } from "../harness.js";
import { expectNoAxeViolations, signedInContext, startE2E, type E2E } from "./browser.js";

/**
 * Enforcement in the browser (issue 6, "Done when"): the District Operator fines an industrial user
 * $500 a day for 3 days ($1,500.00); the user petitions the Town Board on day 15; a Board member
 * orders a show-cause hearing (9 days out is refused, 10 works); after the hearing the Board
 * modifies the fine to $750.00 and the user pays it online through the test checkout. The rules'
 * clock is moved to each day the law counts (the server runs in this process).
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  resetClock();
  await e?.close();
});
afterEach(() => resetClock());

const url = (p: string) => `${e.srv.url}${p}`;
const main = (page: Page) => page.locator("main").innerText();
const NY_NOON = (date: string) => `${date}T17:00:00Z`;
const PASSWORD = "correct horse battery staple";

describe("a fine on an industrial user, petitioned, heard, modified and paid", () => {
  it("goes from the Operator's fine to the user's online payment of the modified amount", async () => {
    travelTo(NY_NOON("2026-11-02"));
    // The industrial user: an account and its organization.
    const api = new Client(e.srv.url);
    await api.signUp("ehs@harbor-plating.example", "Morgan Ellis", PASSWORD);
    await api.ok(`mutation { createOrganization(input: { name: "Harbor Plating Co.", kind: "INDUSTRIAL_USER" }) { id } }`);

    const op = await signedInContext(e, DEMO.lakeviewOperator);
    const user = await signedInContext(e, "ehs@harbor-plating.example", PASSWORD);
    const board = await signedInContext(e, DEMO.lakeviewBoard);
    try {
      // 1. The Operator serves the fine.
      const o = await op.newPage();
      await o.goto(url("/staff/enforcement"));
      await o.getByRole("link", { name: "Serve a notice, order or fine" }).click();
      await o.getByRole("heading", { level: 1, name: "Serve a notice, order or fine" }).waitFor();
      await expectNoAxeViolations(o);
      await o.getByLabel("Kind of action").selectOption({ label: "Administrative fine (Sewer Use Law 1105)" });
      await o.getByLabel("Organization's name").fill("Harbor Plating Co.");
      await o.getByLabel("Violation found").fill("Total chromium above the daily maximum (5.00 mg/L) on three consecutive days");
      await o.getByLabel("First day of violation").fill("2026-10-30");
      await o.getByLabel("Days of violation").fill("3");
      // Under the law's $250 a day: refused beside the field, with what was typed kept.
      await o.getByLabel("Fine per day (dollars)").fill("200.00");
      await o.getByRole("button", { name: "Serve it" }).click();
      await o.locator("#finePerDay-error").waitFor();
      expect(await o.locator("#finePerDay-error").innerText()).toContain("at least $250.00 and at most $1,000.00 (Sewer Use Law 1105)");
      expect(await o.getByLabel("Organization's name").inputValue()).toBe("Harbor Plating Co.");
      expect(await o.getByLabel("Days of violation").inputValue()).toBe("3");
      await expectNoAxeViolations(o);
      await o.getByLabel("Fine per day (dollars)").fill("500.00");
      await o.getByRole("button", { name: "Serve it" }).click();
      await o.waitForURL((u) => /^\/staff\/enforcement\/[0-9a-f-]{36}$/.test(u.pathname));
      await o.getByRole("heading", { level: 1, name: /Administrative fine LKV-EA-2026-\d{4}/ }).waitFor();
      const served = await main(o);
      expect(served).toMatch(/Administrative fine LKV-EA-2026-\d{4}/);
      expect(served).toContain("Served on Harbor Plating Co.");
      expect(served).toMatch(/Total\s+\$1,500\.00/);
      expect(served).toContain("Petition the Town Board by November 17, 2026");
      await expectNoAxeViolations(o);
      const actionId = new URL(o.url()).pathname.split("/").pop()!;

      // 2. Day 15: the user petitions the Town Board.
      travelTo(NY_NOON("2026-11-17"));
      const u = await user.newPage();
      await u.goto(url("/dashboard"));
      await u.getByRole("link", { name: "My notices and orders" }).click();
      await u.getByRole("link", { name: /Administrative fine LKV-EA-2026-\d{4}/ }).click();
      await u.waitForURL((x) => x.pathname === `/enforcement/${actionId}`);
      await u.getByRole("heading", { level: 2, name: "Petition the Town Board" }).waitFor();
      const before = await main(u);
      expect(before).toContain("Petition the Town Board by November 17, 2026 (0 days left");
      expect(before).toMatch(/Total on November 17, 2026\s+\$1,500\.00/);
      await expectNoAxeViolations(u);
      await u.getByLabel("Your grounds").fill("The rinse tank valve failed; it was replaced on November 1 and every sample since is within the limit.");
      await u.getByRole("button", { name: "File the petition" }).click();
      await u.waitForURL((x) => x.searchParams.get("done") === "petition");
      await u.getByText("Your petition is filed").waitFor();
      const filed = await main(u);
      expect(filed).toContain("Your petition is filed");
      expect(filed).toContain("Petition filed November 17, 2026: Filed, awaiting decision");
      expect(filed).toContain("Nothing is due while your petition is before the Board");
      await expectNoAxeViolations(u);

      // 3. The next day a Board member orders a show-cause hearing: 9 days out is refused, 10 works.
      travelTo(NY_NOON("2026-11-18"));
      const b = await board.newPage();
      await b.goto(url("/staff/petitions"));
      await expectNoAxeViolations(b);
      await b.getByRole("link", { name: "Harbor Plating Co." }).click();
      await b.getByRole("heading", { level: 2, name: "Order a show-cause hearing (Sewer Use Law 1109)" }).waitFor();
      await expectNoAxeViolations(b);
      await b.getByLabel("Hearing date").fill("2026-11-27");
      await b.getByLabel(/^Time/).fill("19:00");
      await b.getByLabel("Place").fill("Lakeview Town Hall, 210 Harbor Road");
      await b.locator("#hearingReasons").fill("Three days above the chromium limit");
      await b.getByLabel("Proposed enforcement action").fill("The fine of $1,500.00 as served");
      await b.getByRole("button", { name: "Order the hearing and serve the notice" }).click();
      await b.locator("#hearingDate-error").waitFor();
      expect(await b.locator("#hearingDate-error").innerText()).toContain("the earliest hearing date is 2026-11-28");
      expect(await b.getByLabel("Place").inputValue()).toBe("Lakeview Town Hall, 210 Harbor Road");
      await expectNoAxeViolations(b);
      await b.getByLabel("Hearing date").fill("2026-11-28");
      await b.getByRole("button", { name: "Order the hearing and serve the notice" }).click();
      await b.waitForURL((x) => x.searchParams.get("done") === "hearing");
      await b.getByText("The hearing is ordered").waitFor();
      expect(await main(b)).toContain("Saturday, November 28, 2026 at 7:00 PM EST");

      // The user sees the notice and downloads it as a calendar file.
      await u.goto(url(`/enforcement/${actionId}`));
      const noticed = await main(u);
      expect(noticed).toContain("Show-cause hearing before the Town Board (Sewer Use Law 1109)");
      expect(noticed).toContain("Saturday, November 28, 2026 at 7:00 PM EST");
      await expectNoAxeViolations(u);
      const icsHref = await u.getByRole("link", { name: "Add the hearing to your calendar (.ics)" }).getAttribute("href");
      const ics = await u.request.get(url(icsHref!));
      expect(ics.headers()["content-type"]).toContain("text/calendar");
      expect(await ics.text()).toContain("DTSTART:20261129T000000Z");

      // 4. After the hearing the Board modifies the fine to $750.00.
      travelTo("2026-11-29T02:00:00Z");
      await b.reload();
      await b.getByRole("heading", { level: 2, name: "Decision after the hearing" }).waitFor();
      await b.click("label[for=outcome-MODIFIED]");
      await b.getByLabel("Written reasons").fill("Prompt correction and a first offence: the fine is reduced to the minimum.");
      await b.getByLabel("Modified fine, total (dollars), when modifying").fill("750.00");
      await b.getByRole("button", { name: "Record the decision" }).click();
      await b.waitForURL((x) => x.searchParams.get("done") === "outcome");
      await b.getByText("The decision after the hearing is recorded").waitFor();
      expect(await main(b)).toContain("the fine is now $750.00");
      await expectNoAxeViolations(b);

      // 5. The user pays $750.00 online through the test checkout.
      await u.goto(url(`/enforcement/${actionId}`));
      const decided = await main(u);
      expect(decided).toContain("the fine is now $750.00");
      expect(decided).toContain("The fine as served was $1,500.00; the Town Board modified it to $750.00.");
      expect(decided).toContain("entered by Bea Board (Lakeview)");
      await expectNoAxeViolations(u);
      await u.getByRole("button", { name: "Pay $750.00 online" }).click();
      await u.waitForURL((x) => /^\/payments\/[0-9a-f-]{36}$/.test(x.pathname));
      await u.getByRole("button", { name: "Pay $750.00" }).click();
      await u.waitForURL((x) => x.pathname.startsWith("/payments/test-checkout/"));
      await u.getByRole("button", { name: "Pay (test)" }).click();
      await u.getByRole("heading", { level: 1, name: "Payment received" }).waitFor();
      await u.goto(url(`/enforcement/${actionId}`));
      await u.getByText(/Paid: receipt/).waitFor();
      expect(await main(u)).toMatch(/Paid: receipt LKV-\d{4}-\d{6}/);
      await expectNoAxeViolations(u);

      // The Clerk's view of charges and the public record of final actions against industrial users.
      const [charge] = await e.srv.running.ds.query(`SELECT status, amount_cents, paid_cents FROM charge WHERE action_id = $1`, [actionId]);
      expect(charge).toEqual({ status: "PAID", amount_cents: 75000, paid_cents: 75000 });
      const anon = await e.browser.newContext();
      const p = await anon.newPage();
      await p.goto(url("/enforcement/public?district=lakeview"));
      expect(await main(p)).toContain("Harbor Plating Co.");
      await expectNoAxeViolations(p);
      await anon.close();
    } finally {
      await Promise.all([op.close(), user.close(), board.close()]);
    }
  }, 180_000); // a long scenario with a dozen axe runs, on a shared 2-core machine

  it("the Clerk bills a charge by hand; statements, hearings, the docket and the tax-levy report pass axe", async () => {
    travelTo(NY_NOON("2026-07-01"));
    const api = new Client(e.srv.url);
    await api.signUp("owner@lake-street.example", "Riley Owner", PASSWORD);
    const clerk = await signedInContext(e, DEMO.lakeviewClerk);
    const owner = await signedInContext(e, "owner@lake-street.example", PASSWORD);
    try {
      const c = await clerk.newPage();
      await c.goto(url("/staff/delinquency"));
      await expectNoAxeViolations(c);
      await c.getByLabel("Person's email").fill("owner@lake-street.example");
      await c.getByLabel("Description").fill("Sewer rent, second quarter 2026");
      await c.getByLabel("Amount (dollars)").fill("one hundred");
      await c.getByLabel("Tax parcel (optional)").fill("101.12-1-7");
      await c.getByRole("button", { name: "Bill it" }).click();
      await c.locator("#amount-error").waitFor();
      expect(await c.getByLabel("Description").inputValue()).toBe("Sewer rent, second quarter 2026");
      await expectNoAxeViolations(c);
      await c.getByLabel("Amount (dollars)").fill("100.00");
      await c.getByRole("button", { name: "Bill it" }).click();
      await c.waitForURL((x) => x.searchParams.get("billed") === "1");
      await c.getByText("The charge is billed").waitFor();

      // October 15: 72 days delinquent on October 1, so on the report with penalty and three months' interest.
      travelTo(NY_NOON("2026-10-15"));
      await c.goto(url("/staff/delinquency"));
      expect(await main(c)).toMatch(/Sewer rent, second quarter 2026[\s\S]*\$100\.00\s+\$20\.00\s+\$8\.00\s+\$128\.00\s+86 days/);
      await expectNoAxeViolations(c);
      const csv = await c.request.get(url(`/staff/delinquency/tax-levy.csv`));
      expect(csv.headers()["content-type"]).toContain("text/csv");
      expect(await csv.text()).toContain('"101.12-1-7","","Sewer rent, second quarter 2026","100.00","20.00","6.00","126.00","72"');
      // The Clerk can take it at the counter: the pending payment of today's statement appears in the ledger.
      await c.getByRole("button", { name: /^Take payment/ }).click();
      await c.waitForURL((x) => x.pathname === "/staff/payments" && x.searchParams.get("status") === "PENDING");
      await c.getByText("$128.00").first().waitFor();
      for (const path of ["/staff/hearings", "/staff/enforcement", "/staff"]) {
        await c.goto(url(path));
        await expectNoAxeViolations(c);
      }

      const o = await owner.newPage();
      await o.goto(url("/enforcement"));
      await o.getByRole("link", { name: "Sewer rent, second quarter 2026" }).click();
      await o.getByRole("heading", { level: 1, name: "Sewer rent, second quarter 2026" }).waitFor();
      const statement = await main(o);
      expect(statement).toContain("Penalty, 20% of the original bill");
      expect(statement).toContain("Interest, 2% a month for 4 months since July 1, 2026");
      expect(statement).toMatch(/Total on October 15, 2026\s+\$128\.00/);
      await expectNoAxeViolations(o);
      await o.getByRole("button", { name: "Pay $128.00 online" }).click();
      await o.waitForURL((x) => /^\/payments\/[0-9a-f-]{36}$/.test(x.pathname));

      // A deduction for metered water that does not reach the sewer (SUL 1205), filed the same way.
      await o.goto(url("/enforcement"));
      await o.getByRole("link", { name: /metered water that does not reach the sewer/ }).click();
      await o.getByRole("heading", { level: 1, name: "Metered water that does not reach the sewer" }).waitFor();
      await o.getByLabel("Sewer district").selectOption({ label: "Town of Lakeview Sewer District" });
      await o.getByRole("button", { name: "File the request" }).click();
      await o.locator("#propertyAddress-error").waitFor();
      await expectNoAxeViolations(o);
      await o.getByLabel("Property address").fill("12 Lake Street");
      await o.getByLabel(/How much of the metered water/).fill("The garden sub-meter shows 35% of the water goes to irrigation.");
      await o.getByRole("button", { name: "File the request" }).click();
      await o.getByText("Your request is filed with the District Operator.").waitFor();
      expect(await main(o)).toContain("Filed, awaiting the District Operator");
      await expectNoAxeViolations(o);
      await c.goto(url("/staff/petitions/flow"));
      expect(await main(c)).toContain("12 Lake Street");
      await expectNoAxeViolations(c);
    } finally {
      await Promise.all([clerk.close(), owner.close()]);
    }
  }, 120_000);
});

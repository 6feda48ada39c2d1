import fs from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_CONTRACTOR } from "../../api/db/demo-scene-contractors.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { DEMO_PASSWORD } from "../../api/db/demo.js";
import { DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, startE2E, type E2E } from "./browser.js";
import { LAKEVIEW, plansPdf, signUpFromHome, weekdayAhead } from "./fixtures.js";

/**
 * Issue 19's homeowner, on a fresh demo (npm start's scenes loaded): from the home page to a
 * connected permit whose as-built deposit is refunded, moving only by clicking what the pages show
 * (no typed addresses), each person on their own browser, every page checked with axe. The demo's
 * approved contractor is chosen from the list; payment goes through the labelled test checkout.
 */

let e: E2E;
let plans: string;
beforeAll(async () => {
  e = await startE2E();
  await loadDemoScenes(e.srv.running.ds, e.srv.url, e.srv.config);
  plans = plansPdf("site-plan.pdf");
});
afterAll(async () => {
  await e?.close();
  if (plans) fs.rmSync(path.dirname(plans), { recursive: true, force: true });
});

const main = async (page: Page) => {
  await settled(page);
  return page.locator("main").innerText();
};
/** A page is drawn and passes axe. */
const checked = async (page: Page, heading: string | RegExp) => {
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await expectNoAxeViolations(page);
};

/** A demo staff member signs in from the home page and opens a task of the staff home page. */
async function staffTask(ctx: BrowserContext, email: string, task: string): Promise<Page> {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(`${e.srv.url}/`);
  const signIn = page.getByRole("link", { name: "Sign in", exact: true });
  if (await signIn.count()) {
    await signIn.first().click();
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname !== "/sign-in");
  }
  await page.getByRole("link", { name: "Staff", exact: true }).first().click();
  // "Lateral permits of Town of Lakeview Sewer District": the district is named to screen readers.
  await page.getByRole("link", { name: new RegExp(`^${task} of `) }).first().click();
  await settled(page);
  return page;
}

/** The homeowner follows the dashboard's task for the permit. */
async function dashboardTask(page: Page, task: string | RegExp) {
  await page.getByRole("link", { name: "My applications" }).first().click();
  await page.getByRole("heading", { level: 1, name: "My applications" }).waitFor();
  await page.getByRole("link", { name: task }).click();
  await settled(page);
}

describe("a newcomer homeowner in Lakeview, by clicking only", () => {
  // The whole journey of four people takes about 40 s on a quiet machine: more than one ordinary test.
  it("applies choosing the demo's contractor, pays, gets the permit, has the work inspected, files the drawings and gets the deposit back", { timeout: 240_000 }, async () => {
    const homeCtx = await e.browser.newContext();
    const opCtx = await e.browser.newContext();
    const clerkCtx = await e.browser.newContext();
    try {
      const page = await homeCtx.newPage();
      await signUpFromHome(page, e.srv.url, { name: "Jordan Newcomer", email: "jordan.newcomer@example.org" });
      await expectNoAxeViolations(page);

      // The application, from the dashboard.
      await page.getByRole("link", { name: "Connect to the public sewer" }).first().click();
      await page.getByLabel("Sewer district of the property").selectOption({ label: LAKEVIEW.name });
      await page.getByRole("button", { name: "Continue" }).click();
      await checked(page, "Connect to the public sewer");
      await page.getByLabel("House number").fill("31");
      await page.getByLabel("Street").fill("Birch Street");
      await page.getByLabel("City, town or village").fill("Lakeview");
      await page.getByLabel("ZIP code").fill("13600");
      await page.getByLabel("Tax parcel number").fill("101.4-1-9");
      await page.getByLabel("Owner's name").fill("Jordan Newcomer");
      await page.click("label[for=permitClass]");
      await page.click("label[for=buildingUse]");
      await page.click("label[for=workKind]");
      await page.selectOption("#contractorId", { label: DEMO_CONTRACTOR.organization });
      await page.setInputFiles("#file", plans);
      await page.fill("#asBuiltSheets", "2");
      await page.getByRole("button", { name: "Submit the application" }).click();
      await page.getByText("Your application is submitted.").waitFor();
      await expectNoAxeViolations(page);

      // Pays $350.00 ($150.00 and a $200.00 deposit) through the labelled test checkout, and comes back.
      await page.getByRole("link", { name: "Pay $350.00" }).click();
      await page.getByRole("button", { name: "Pay $350.00" }).click();
      await page.getByRole("heading", { name: /TEST CHECKOUT/ }).waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: "Pay (test)" }).click();
      await checked(page, "Payment received");
      await page.getByRole("link", { name: /^Back to Building lateral permit application/ }).click();
      await page.getByRole("heading", { level: 1, name: "Lateral permit application" }).waitFor();
      expect(await main(page)).toContain("Next: The District Operator reviews the application");

      // The District Operator finds it in the queue and issues the permit.
      const op = await staffTask(opCtx, DEMO.lakeviewOperator, "Lateral permits");
      await checked(op, /Lateral permit/);
      await op.getByRole("link", { name: /31 Birch Street/ }).click();
      await checked(op, "Lateral permit application");
      await op.getByRole("button", { name: "Approve and issue the permit" }).click();
      await op.getByText("The permit is issued and the applicant told.").waitFor();
      const permitPath = new URL(op.url()).pathname;

      // Each inspection: the homeowner asks from the dashboard's task; the Operator schedules it and records it.
      for (const kind of ["trench", "connection", "leakage (air) test"]) {
        await dashboardTask(page, `Request the ${kind} inspection when the work is ready`);
        const form = page.locator("#request-inspection");
        await form.getByLabel(/Preferred day/).fill(weekdayAhead(9).slice(0, 10));
        await form.getByRole("button", { name: /^Request inspection/ }).click();
        await page.getByText("Your request is sent.").waitFor();
        await expectNoAxeViolations(page);

        const cal = await staffTask(opCtx, DEMO.lakeviewOperator, "Inspections this week");
        await checked(cal, /Inspections/);
        await cal.getByRole("link", { name: /31 Birch Street/ }).first().click();
        await cal.waitForURL((u) => u.pathname === permitPath);
        const box = cal.locator("div.tapline-details").first();
        await box.getByLabel(/^Date and time/).fill(weekdayAhead(10));
        await box.getByRole("button", { name: /^Schedule the inspection/ }).click();
        await cal.getByText("The inspection is scheduled and the applicant told.").waitFor();
        await box.locator("label.usa-radio__label", { hasText: /^Passed$/ }).click(); // the radio itself is visually hidden
        await box.getByRole("button", { name: /^Record the result/ }).click();
        await cal.getByText("The result is recorded and the applicant told.").waitFor();
        await expectNoAxeViolations(cal);
      }

      // Connected: the dashboard's task leads to the drawings' upload, with what the law asks.
      await dashboardTask(page, "File the as-built (record) drawings; the deposit is refunded once they are approved");
      expect(await page.locator("section[aria-labelledby=drawings-heading]").innerText()).toContain("Sewer Use Law 606 B");
      await page.setInputFiles("#drawings", plans);
      await page.getByRole("button", { name: "File the as-built drawings" }).click();
      await page.getByText("Your as-built drawings are filed.").waitFor();
      await expectNoAxeViolations(page);

      // The Operator approves them from the queue.
      const review = await staffTask(opCtx, DEMO.lakeviewOperator, "Lateral permits");
      await review.getByRole("link", { name: /31 Birch Street/ }).click();
      await review.getByRole("button", { name: "Approve the record drawings" }).click();
      await review.getByText("The record drawings are approved and the permit closed").waitFor();

      // The Clerk refunds the deposit from the payments ledger.
      const ledger = await staffTask(clerkCtx, DEMO.lakeviewClerk, "Payments");
      await checked(ledger, /Payments/);
      const row = ledger.getByRole("row").filter({ hasText: "Jordan Newcomer" });
      await expect.poll(() => row.count()).toBe(1);
      await row.locator("summary", { hasText: "Refund the deposit" }).click();
      await row.getByLabel(/^Reason/).fill("Record drawings approved (Sewer Use Law 606 B)");
      await row.getByRole("button", { name: "Refund", exact: true }).click();
      await ledger.getByText(/^Refunded \$200\.00/).waitFor();
      await expectNoAxeViolations(ledger);

      // The homeowner sees the permit closed and the deposit returned.
      await page.getByRole("link", { name: "My applications" }).first().click();
      await page.getByRole("link", { name: /^Lateral permit LKV-LP-\d{4}-\d{4}, 31 Birch Street/ }).click();
      await page.getByRole("heading", { level: 2, name: "Status: Closed" }).waitFor();
      expect(await main(page)).toMatch(/Returned \$200\.00/);
      await expectNoAxeViolations(page);
    } finally {
      await Promise.all([homeCtx.close(), opCtx.close(), clerkCtx.close()]);
    }
  });
});

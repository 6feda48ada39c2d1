import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";
import { signUpFromHome, weekdayAhead } from "./fixtures.js";

/**
 * Huron's homeowner in the browser (issue 13): the Town of Huron's law keeps no contractor list,
 * asks for no as-built drawings and states no permit fee (Huron III-1 to III-11), so the
 * application names who does the work, has no payment step, and ends when the Superintendent has
 * supervised the connection.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(() => e?.close());

const url = (p: string) => `${e.srv.url}${p}`;
const text = async (page: Page, selector = "main") => {
  await settled(page);
  return page.locator(selector).innerText();
};
const HURON = "Town of Huron Sewer District No. 1";

describe("a house in Huron, from the application to the connection", () => {
  it("the homeowner applies with no fee and no contractor list; the Superintendent issues the permit and supervises the connection", async () => {
    const home = await e.browser.newContext();
    const sup = await signedInContext(e, DEMO.huronOperator);
    try {
      const page = await home.newPage();
      await signUpFromHome(page, e.srv.url, { name: "Casey Bayshore", email: "casey.bayshore@example.org" });

      await page.getByRole("link", { name: "Connect to the public sewer" }).first().click();
      await page.waitForURL((u) => u.pathname === "/permits/new");
      await page.getByLabel("Sewer district of the property").selectOption({ label: HURON });
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL((u) => u.searchParams.get("district") === "huron");
      const form = await text(page);
      // No contractor list, no sheets, no fee: the form asks only what Huron's law asks.
      expect(form).toContain("No fee: Town of Huron Sewer District No. 1's law states none and its Town Board has set none");
      expect(form).toContain("keeps no list of approved contractors (Huron Article III)");
      expect(await page.locator("#contractorId").count()).toBe(0);
      expect(await page.locator("#asBuiltSheets").count()).toBe(0);
      expect(await page.locator("#floorAreaSqft").count()).toBe(0);
      await expectNoAxeViolations(page);

      await page.getByLabel("House number").fill("8");
      await page.getByLabel("Street").fill("Bay Shore Road");
      await page.getByLabel("City, town or village").fill("Huron");
      await page.getByLabel("ZIP code").fill("14500");
      await page.getByLabel("Tax parcel number").fill("55.1-2-3");
      await page.getByLabel("Owner's name").fill("Casey Bayshore");
      await page.click("label[for=permitClass]");
      await page.click("label[for=buildingUse]");
      await page.click("label[for=workKind]");
      // Submitted without naming who does the work: told so, next to the field.
      await page.getByRole("button", { name: "Submit the application" }).click();
      const missing = page.locator("#workDoneBy-error");
      await missing.waitFor();
      expect(await missing.innerText()).toBe("Name who will do the work: the owner, or the plumber or contractor the owner hires.");
      await page.getByLabel(/^Who will do the work/).fill("The owner, with Bay Shore Plumbing");
      await page.getByRole("button", { name: "Submit the application" }).click();
      await page.waitForURL((u) => /^\/permits\/[0-9a-f-]{36}$/.test(u.pathname) && u.searchParams.has("submitted"));
      const permitId = new URL(page.url()).pathname.split("/")[2];
      const submitted = await text(page);
      expect(submitted).toContain("Next: The Superintendent reviews the application");
      expect(submitted).not.toMatch(/Pay \$/);
      expect(await page.locator("dt:text-is('Who does the work') + dd").innerText()).toBe("The owner, with Bay Shore Plumbing");
      await expectNoAxeViolations(page);

      // The Superintendent issues the permit: nothing to pay.
      const review = await sup.newPage();
      await review.goto(url(`/staff/permits/${permitId}`));
      expect(await text(review)).toContain("None: no fee applies to this permit");
      await expectNoAxeViolations(review);
      await review.getByRole("button", { name: "Approve and issue the permit" }).click();
      await review.getByText("The permit is issued and the applicant told.").waitFor();
      expect(await review.getByRole("heading", { level: 1 }).innerText()).toMatch(/^Lateral permit HRN-LP-\d{4}-\d{4}$/);

      // The homeowner tells the Superintendent the building sewer is ready (Huron III-10).
      await page.goto(url(`/permits/${permitId}`));
      await page.getByRole("button", { name: /^Request inspection\s*: Connection inspection$/ }).click();
      await page.getByText("Your request is sent.").waitFor();

      // The connection is made under the Superintendent's supervision.
      await review.goto(url(`/staff/permits/${permitId}`));
      const box = review.locator("div.tapline-details").filter({ has: review.getByRole("heading", { level: 3, name: "Connection inspection", exact: true }) });
      await box.getByLabel(/^Date and time/).fill(weekdayAhead(10));
      await box.getByRole("button", { name: /^Schedule the inspection\s*: Connection inspection$/ }).click();
      await review.getByText("The inspection is scheduled and the applicant told.").waitFor();
      await box.locator("label.usa-radio__label", { hasText: /^Passed$/ }).click(); // the radio itself is visually hidden
      await box.getByRole("button", { name: /^Record the result\s*: Connection inspection$/ }).click();
      await review.getByText("The result is recorded and the applicant told.").waitFor();
      expect(await review.getByRole("button", { name: "Approve the record drawings" }).count()).toBe(0);

      await page.goto(url(`/permits/${permitId}`));
      await page.getByRole("heading", { level: 2, name: "Status: Connected" }).waitFor();
      expect(await text(page)).not.toContain("Next:");
      await expectNoAxeViolations(page);
      const payments = await e.srv.running.ds.query(`SELECT count(*)::int AS n FROM payment WHERE payable_id = $1`, [permitId]);
      expect(payments[0].n).toBe(0);
    } finally {
      await Promise.all([home.close(), sup.close()]);
    }
  });
});

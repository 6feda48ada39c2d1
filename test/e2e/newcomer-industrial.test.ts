import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { DEMO_INDUSTRY } from "../../api/db/demo-scene-industrial.js";
import { DEMO_PASSWORD } from "../../api/db/demo.js";
import { expectNoAxeViolations, settled, startE2E, type E2E } from "./browser.js";
import { LAKEVIEW } from "./fixtures.js";

/**
 * Issue 19's industrial user, on a fresh demo (npm start's scenes loaded): the demo's Authorized
 * Representative signs in from the home page, follows the dashboard to the open periodic report,
 * enters the lab results (one over the Zinc limit), signs the report (SUL 1005), and follows the
 * task "Notify the District Operator ... within 24 hours" to where the notification is recorded
 * (1005(4)); every task on the dashboard and the report is a link to where it is done. Only
 * clicks and typing into fields; every page checked with axe.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
  await loadDemoScenes(e.srv.running.ds, e.srv.url, e.srv.config);
});
afterAll(async () => {
  await e?.close();
});

const main = async (page: Page) => {
  await settled(page);
  return page.locator("main").innerText();
};
/** A page is drawn and passes axe. */
const checked = async (page: Page, heading: string | RegExp) => {
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await settled(page);
  await expectNoAxeViolations(page);
};

describe("the demo's industrial user, by clicking only", () => {
  it("enters the lab results, signs the report and records the notification its exceedance requires", { timeout: 120_000 }, async () => {
    // The sample day: in the open report's period (the scene's permit took effect 120 days ago), never in the future.
    const [report]: { periodStart: string; periodEnd: string }[] = await e.srv.running.ds.query(
      `SELECT r.period_start::text AS "periodStart", r.period_end::text AS "periodEnd"
         FROM industrial_report r JOIN industrial_permit p ON p.id = r.permit_id JOIN organization o ON o.id = p.organization_id
        WHERE o.name = $1 AND r.status <> 'SIGNED' ORDER BY r.due_on LIMIT 1`,
      [DEMO_INDUSTRY.organization],
    );
    const yesterday = addCalendarDays(dateIn(LAKEVIEW.timeZone), -1);
    const day = report.periodEnd < yesterday ? report.periodEnd : yesterday;
    expect(day >= report.periodStart).toBe(true);

    const ctx = await e.browser.newContext();
    try {
      const page = await ctx.newPage();
      await page.goto(`${e.srv.url}/`);
      await checked(page, "Sewer district services, online");
      await page.getByRole("link", { name: "Sign in", exact: true }).first().click();
      await checked(page, "Sign in");
      await page.getByLabel("Email address").fill(DEMO_INDUSTRY.email);
      await page.getByLabel("Password").fill(DEMO_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await checked(page, "My applications");

      // The dashboard's task is the report to file, linked.
      const fileTask = page.getByRole("link", { name: /^File the compliance report for .+ \(Sewer Use Law 1005\(3\)\)$/ });
      await fileTask.click();
      await checked(page, /^Compliance report, /);
      expect(await main(page)).toContain("No results entered yet.");

      // Two results: copper within its limit, zinc over its average daily limit (1.20 mg/L, Sewer Use Law 903).
      const enter = async (parameter: string, value: string) => {
        const form = page.locator("form", { has: page.getByRole("button", { name: "Save and check" }) });
        await form.getByLabel("Parameter").selectOption(parameter);
        await form.getByLabel("Sample type").selectOption({ label: "Composite" });
        await form.getByLabel(/^Sampled at/).fill(`${day}T08:30`);
        await form.getByLabel("Value", { exact: true }).fill(value);
        await form.getByLabel(/^Laboratory/).fill("Upstate Analytical");
        await form.getByLabel(/^Method/).fill("EPA 200.7");
        await form.getByRole("button", { name: "Save and check" }).click();
        await settled(page);
      };
      await enter("Copper", "0.35");
      await page.getByRole("heading", { name: "1 result saved, within the limits" }).waitFor();
      await expectNoAxeViolations(page);

      // The form keeps the last result's sample, lab and method for the next one. A form with several
      // problems (one the page cannot read, others the API refuses) tells them all at once, by visible label.
      const form = page.locator("form", { has: page.getByRole("button", { name: "Save and check" }) });
      await form.getByLabel("Parameter").selectOption("");
      await form.getByLabel("Value", { exact: true }).fill("1,3x");
      await form.getByLabel(/^Laboratory/).fill("");
      await form.getByLabel(/^Method/).fill("");
      await form.getByRole("button", { name: "Save and check" }).click();
      const summary = page.locator("#error-summary");
      await summary.waitFor();
      const problems = await summary.innerText();
      for (const label of ["Parameter", "Value", "Laboratory (NYSDOH-certified)", "Method (Standard Methods)"]) expect(problems).toContain(`${label}:`);
      await expectNoAxeViolations(page);

      await enter("Zinc", "1.5");
      await page.getByRole("heading", { name: "Limit exceeded" }).waitFor();
      await expectNoAxeViolations(page);
      // The report's tasks link to where each is done.
      const duties = page.locator("section[aria-labelledby=duties-heading]");
      await expect.poll(() => duties.getByRole("link", { name: /^Notify the District Operator of the Zinc violation within 24 hours/ }).count()).toBe(1);
      await expect.poll(() => duties.getByRole("link", { name: /^Repeat the Zinc sampling/ }).count()).toBe(1);

      // The Authorized Representative signs: the certification and the password (SUL 1005, CROMERR).
      await page.click("label[for=certify]");
      await page.getByLabel("Your password, to sign").fill(DEMO_PASSWORD);
      await page.getByRole("button", { name: "Sign and submit the report" }).click();
      await page.getByText("The report is signed and received.").waitFor();
      await expectNoAxeViolations(page);
      expect(await main(page)).toContain("Copy of record");

      // The dashboard's first task is now the notification, linked to where it is recorded.
      await page.getByRole("link", { name: "My applications" }).first().click();
      await checked(page, "My applications");
      const tasks = page.getByRole("link", { name: /^Notify the District Operator of the Zinc violation within 24 hours/ });
      await tasks.first().click();
      await checked(page, "Violations, discharges and milestones");
      expect(new URL(page.url()).hash).toBe("#notify");

      const notify = page.locator("form", { has: page.getByRole("button", { name: "Record the notification" }) });
      await notify.getByLabel("Violation").selectOption({ index: 0 });
      await notify.getByLabel("Whom you told at the district").fill("Oren Operator");
      await notify.getByLabel("How").selectOption({ label: "By telephone" });
      const now = new Date();
      const local = new Intl.DateTimeFormat("sv-SE", { timeZone: LAKEVIEW.timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hour12: false })
        .format(new Date(now.getTime() - 60_000))
        .replace(" ", "T");
      await notify.getByLabel("When").fill(local);
      await notify.getByLabel("What you told the district").fill("Zinc 1.5 mg/L in the composite sample; the rinse valve is being replaced");
      await notify.getByRole("button", { name: "Record the notification" }).click();
      await page.getByText("The notification is recorded, on time.").waitFor();
      await expectNoAxeViolations(page);

      // Next, the repeat sampling: a task on the dashboard with its link.
      await page.getByRole("link", { name: "My applications" }).first().click();
      await checked(page, "My applications");
      await page.getByRole("link", { name: /^Repeat the Zinc sampling/ }).first().click();
      await checked(page, "Violations, discharges and milestones");
      expect(new URL(page.url()).hash).toBe("#resample");
      await page.getByRole("button", { name: /^Start the repeat sampling report/ }).waitFor();

      // The permits page says which districts' laws issue discharge permits: Huron's has none (III-2),
      // and the page leads to what it asks instead, never to Lakeview's permit.
      await page.getByRole("link", { name: "My applications" }).first().click();
      await page.getByRole("link", { name: "Industrial discharge permits" }).first().click();
      await checked(page, "Industrial discharge permits");
      const programs = await page.locator("section[aria-labelledby=programs-heading]").innerText();
      expect(programs).toMatch(/Town of Lakeview Sewer District: issues wastewater discharge permits, and permit holders file compliance reports \(Sewer Use Law 1003 A\)/);
      expect(programs).toMatch(/Town of Huron Sewer District No\. 1: no discharge permit and no compliance reports\. .*class 2 building sewer permit.* \(Huron III-2\)/);
      await page.getByRole("link", { name: "Apply for a wastewater discharge permit" }).click();
      await checked(page, "Apply for a wastewater discharge permit");
      const districts = await page.getByLabel("Sewer district").locator("option").allInnerTexts();
      expect(districts).toEqual(["Choose the district", LAKEVIEW.name]);
    } finally {
      await ctx.close();
    }
  });
});

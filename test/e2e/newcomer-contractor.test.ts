import fs from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { DEMO_CONTRACTOR } from "../../api/db/demo-scene-contractors.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { DEMO_PASSWORD } from "../../api/db/demo.js";
import { DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, startE2E, type E2E } from "./browser.js";
import { LAKEVIEW, plansPdf } from "./fixtures.js";

/**
 * Issue 19's contracting firm, on a fresh demo (npm start's scenes loaded): its owner, new, finds
 * from the home page how to get on Lakeview's list of approved contractors (Sewer Use Law 601 A)
 * and what to file (508: the bond and the insurance certificates), signs up, registers the firm,
 * uploads the bond and certificates and applies; the Lakeview Clerk, from the staff home page,
 * approves; the firm is then on the public list. Huron's pages say plainly that its law keeps no
 * list. Only clicks and typing into fields; every page checked with axe.
 */

let e: E2E;
let pdf: string;
beforeAll(async () => {
  e = await startE2E();
  await loadDemoScenes(e.srv.running.ds, e.srv.url, e.srv.config);
  pdf = plansPdf("bond-and-certificates.pdf");
});
afterAll(async () => {
  await e?.close();
  if (pdf) fs.rmSync(path.dirname(pdf), { recursive: true, force: true });
});

const FIRM = "Birchwood Sewer & Drain LLC";
const HURON = "Town of Huron Sewer District No. 1";

/** The coverages of Lakeview's rulebook as the form's legends name them, with the minimum limit in dollars (none stated for workers' compensation). */
const POLICIES: [legend: string, limit: string][] = [
  ["Workers' compensation and employer's liability", ""],
  ["Personal injury liability, each occurrence", "500000.00"],
  ["Personal injury liability, aggregate", "500000.00"],
  ["Property damage liability", "500000.00"],
  ["Automobile bodily injury, each person", "300000.00"],
  ["Automobile bodily injury, each occurrence", "500000.00"],
  ["Automobile property damage, each occurrence", "500000.00"],
  ["Business excess liability", "2000000.00"],
];

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

/** A demo staff member signs in from the home page and opens a task of the staff home page. */
async function staffTask(ctx: BrowserContext, email: string, task: string): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(`${e.srv.url}/`);
  await page.getByRole("link", { name: "Sign in", exact: true }).first().click();
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname !== "/sign-in");
  await page.getByRole("link", { name: "Staff", exact: true }).first().click();
  await page.getByRole("link", { name: `${task} of ${LAKEVIEW.name}` }).click();
  await settled(page);
  return page;
}

describe("a newcomer contracting firm in Lakeview, by clicking only", () => {
  it("finds what the list asks, signs up, registers the firm, files the bond and certificates, is approved by the Clerk and listed", { timeout: 150_000 }, async () => {
    const inAYear = addCalendarDays(dateIn(LAKEVIEW.timeZone), 365);
    const firmCtx = await e.browser.newContext();
    const clerkCtx = await e.browser.newContext();
    try {
      const page = await firmCtx.newPage();
      await page.goto(`${e.srv.url}/`);
      await checked(page, "Sewer district services, online");

      // Huron's law keeps no list: its page says so, and offers no application.
      await page.getByRole("link", { name: `Approved contractors of ${HURON}` }).click();
      await checked(page, `Approved contractors: ${HURON}`);
      expect(await main(page)).toContain("This district keeps no list of approved contractors");
      expect(await page.getByRole("link", { name: "Apply to be an approved contractor" }).count()).toBe(0);
      await page.getByRole("link", { name: "Tapline", exact: true }).click();

      // Lakeview's list, with what a listed firm files and the sections that ask it.
      await page.getByRole("link", { name: `Approved contractors of ${LAKEVIEW.name}` }).click();
      await checked(page, `Approved contractors: ${LAKEVIEW.name}`);
      const rules = await main(page);
      expect(rules).toMatch(/Sewer Use Law 601 A/);
      expect(rules).toMatch(/A bond of at least \$5,000\.00 \(Sewer Use Law 508/);
      expect(rules).toContain("Business excess liability insurance of at least $2,000,000.00");
      expect(rules).toContain(DEMO_CONTRACTOR.organization);

      // Applying asks to sign in; a newcomer creates an account and comes back to the form.
      await page.getByRole("link", { name: "Apply to be an approved contractor" }).click();
      await checked(page, "Sign in");
      // The sign-in form's own link keeps where the person was going.
      await page.locator("main").getByRole("link", { name: "Create an account" }).click();
      await checked(page, "Create an account");
      await page.getByLabel("Your name").fill("Robin Birchwood");
      await page.getByLabel("Email address").fill("robin@birchwood.example.com");
      await page.getByLabel("Password").fill("a long and memorable password");
      await page.getByRole("button", { name: "Create account" }).click();
      await checked(page, "Sign in");
      await page.getByLabel("Email address").fill("robin@birchwood.example.com");
      await page.getByLabel("Password").fill("a long and memorable password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await checked(page, "Apply to be an approved contractor");

      // Only a firm's owner applies: the page leads to registering the firm, and back.
      await page.getByRole("link", { name: "Register your contracting firm" }).click();
      await checked(page, "Organizations");
      await page.getByLabel("Legal name").fill(FIRM);
      await page.locator("label", { hasText: /^Contracting firm/ }).click();
      await page.getByRole("button", { name: "Create organization" }).click();
      await checked(page, FIRM);
      await page.getByRole("link", { name: "Go back to where you were" }).click();
      await checked(page, "Apply to be an approved contractor");
      expect(await main(page)).toContain(`Applying to ${LAKEVIEW.name}`);

      // Asked for Huron, the form says its law keeps no list and offers nothing to file.
      await page.getByLabel("District", { exact: true }).selectOption({ label: HURON });
      await page.getByRole("button", { name: "Show this district's requirements" }).click();
      await page.getByText(`${HURON} keeps no list of approved contractors`).waitFor();
      expect(await page.getByRole("button", { name: "Send the application" }).count()).toBe(0);
      await expectNoAxeViolations(page);
      await page.getByLabel("District", { exact: true }).selectOption({ label: LAKEVIEW.name });
      await page.getByRole("button", { name: "Show this district's requirements" }).click();
      await page.getByRole("heading", { level: 2, name: `Applying to ${LAKEVIEW.name}` }).waitFor();

      // A form with several problems tells them all at once, each by its visible label.
      await page.getByLabel("Bond amount, in dollars").fill("five thousand");
      const workers = page.getByRole("group", { name: POLICIES[0][0] });
      await workers.getByLabel("Insurance company").fill("Mohawk Mutual");
      await page.getByRole("button", { name: "Send the application" }).click();
      const summary = page.locator("#error-summary");
      await summary.waitFor();
      const problems = await summary.innerText();
      for (const label of [
        "Bond amount, in dollars",
        "Bond expires on",
        "The bond",
        `${POLICIES[0][0]}: Policy number`,
        `${POLICIES[0][0]}: Policy expires on`,
        `${POLICIES[0][0]}: Certificate of insurance`,
      ])
        expect(problems).toContain(`${label}:`);
      await expectNoAxeViolations(page);

      // The bond and every certificate, at the rulebook's minimums, with their documents.
      await page.getByLabel("Bond amount, in dollars").fill("5000.00");
      await page.getByLabel("Bond expires on").fill(inAYear);
      await page.setInputFiles("#bondFile", pdf);
      for (const [legend, limit] of POLICIES) {
        const group = page.getByRole("group", { name: legend });
        await group.getByLabel("Insurance company").fill("Mohawk Mutual");
        await group.getByLabel("Policy number").fill(`MM-${legend.slice(0, 4).toUpperCase()}-1`);
        if (limit) await group.getByLabel("Limit, in dollars").fill(limit);
        await group.getByLabel("Policy expires on").fill(inAYear);
        await group.locator("input[type=file]").setInputFiles(pdf);
      }
      await page.getByRole("button", { name: "Send the application" }).click();
      await checked(page, "My contractor applications");
      expect(await main(page)).toContain("Your application is sent.");

      // The Clerk finds it from the staff home page and approves it.
      const clerk = await staffTask(clerkCtx, DEMO.lakeviewClerk, "Contractors");
      await checked(clerk, "Contractors");
      const entry = clerk.locator("section", { has: clerk.getByRole("heading", { level: 3, name: FIRM }) });
      expect(await entry.innerText()).toContain("The bond and certificates meet every minimum of the rulebook in force today.");
      await entry.getByRole("button", { name: `Approve ${FIRM}` }).click();
      await clerk.getByText("The contractor is approved and listed.").waitFor();
      await expectNoAxeViolations(clerk);

      // Huron's Clerk reads on the staff page that its law keeps no list.
      const huron = await e.browser.newContext();
      try {
        const staff = await huron.newPage();
        await staff.goto(`${e.srv.url}/`);
        await staff.getByRole("link", { name: "Sign in", exact: true }).first().click();
        await staff.getByLabel("Email address").fill(DEMO.huronClerk);
        await staff.getByLabel("Password").fill(DEMO_PASSWORD);
        await staff.getByRole("button", { name: "Sign in" }).click();
        await staff.waitForURL((u) => u.pathname !== "/sign-in");
        await staff.getByRole("link", { name: "Staff", exact: true }).first().click();
        await staff.getByRole("link", { name: `Contractors of ${HURON}` }).click();
        await checked(staff, "Contractors");
        expect(await main(staff)).toContain(`${HURON} keeps no list of approved contractors: Huron's law does not provide an approved contractor list. (Huron Article III)`);
      } finally {
        await huron.close();
      }

      // The firm is on the public list, reached from the home page.
      await page.getByRole("link", { name: "Tapline", exact: true }).click();
      await page.getByRole("link", { name: `Approved contractors of ${LAKEVIEW.name}` }).click();
      await checked(page, `Approved contractors: ${LAKEVIEW.name}`);
      await page.getByRole("rowheader", { name: FIRM }).waitFor();
    } finally {
      await Promise.all([firmCtx.close(), clerkCtx.close()]);
    }
  });
});

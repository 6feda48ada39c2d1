import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn, formatDate } from "../../api/common/dates.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { DEMO_ENFORCEMENT } from "../../api/db/demo-scene-enforcement.js";
import { DEMO_PASSWORD } from "../../api/db/demo.js";
import { DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, startE2E, type E2E } from "./browser.js";
import { LAKEVIEW, signUpFromHome } from "./fixtures.js";

/**
 * Issue 19's person served a fine, on a fresh demo (npm start's scenes loaded), moving only by
 * clicking what the pages show (no typed addresses), each person on their own browser, every page
 * checked with axe. In Lakeview the District Operator serves a newcomer a notice of violation (SUL
 * 1102) and then, as its follow-up, a fine (SUL 1105); the newcomer finds it from the dashboard and
 * petitions the Town Board within the 15 days (SUL 1104-1108); the Board finds it on its docket. The
 * demo applicant reads the demo's Huron notice: its time to correct passed (Huron V-1) and the
 * violation was referred to the court, which alone fines, on conviction (V-2): nothing to pay.
 */

const BOARD = "board@lakeview.demo.tapline.local";

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
  await expectNoAxeViolations(page);
};
/** The error summary's list, once drawn: each problem named by its field's visible label. */
const summary = async (page: Page) => {
  await page.locator("#error-summary").waitFor();
  await settled(page);
  return page.locator("#error-summary").innerText();
};

/** Signs in from the home page's "Sign in" link. */
async function signInFromHome(page: Page, email: string) {
  await page.goto(`${e.srv.url}/`);
  await page.getByRole("link", { name: "Sign in", exact: true }).first().click();
  await checked(page, "Sign in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname !== "/sign-in");
}

/** A demo staff member signs in from the home page and opens a task of the staff home page. */
async function staffTask(ctx: BrowserContext, email: string, task: string): Promise<Page> {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await signInFromHome(page, email);
  await page.getByRole("link", { name: "Staff", exact: true }).first().click();
  await checked(page, "Staff");
  // "Enforcement of Town of Lakeview Sewer District": the district is named to screen readers.
  await page.getByRole("link", { name: new RegExp(`^${task} of ${LAKEVIEW.name}`) }).click();
  await settled(page);
  return page;
}

/** A person follows a task of the dashboard. */
async function dashboardTask(page: Page, task: string | RegExp) {
  await page.getByRole("link", { name: "My applications" }).first().click();
  await checked(page, "My applications");
  await page.getByRole("link", { name: task }).click();
  await settled(page);
}

describe("a person served a fine, to a filed petition, by clicking only", () => {
  it("Lakeview: the Operator serves a notice and then the fine; the newcomer petitions the Town Board from the dashboard's task; the Board has it on its docket", { timeout: 180_000 }, async () => {
    const personCtx = await e.browser.newContext();
    const opCtx = await e.browser.newContext();
    const boardCtx = await e.browser.newContext();
    try {
      const page = await personCtx.newPage();
      await signUpFromHome(page, e.srv.url, { name: "Sam Rivera", email: "sam.rivera@example.org" });
      await expectNoAxeViolations(page);

      // The District Operator, from the staff home page's Enforcement task.
      const op = await staffTask(opCtx, DEMO.lakeviewOperator, "Enforcement");
      await checked(op, "Enforcement actions");
      await op.getByRole("link", { name: "Serve a notice, order or fine" }).click();
      await checked(op, "Serve a notice, order or fine");
      // Sent empty: every problem at once, each named by its visible label, never a field's key.
      await op.getByRole("button", { name: "Serve it" }).click();
      const empty = await summary(op);
      expect(empty).toContain("Or the person's email: Give the email of the person served");
      expect(empty).toContain("Violation found: Describe the violation found.");
      expect(empty).not.toMatch(/respondentEmail|respondentOrganizationName|violation:/);
      await expectNoAxeViolations(op);

      // The notice of violation (SUL 1102): the answer is due in 10 days.
      await op.getByLabel("Kind of action").selectOption({ label: "Notice of violation (Sewer Use Law 1102)" });
      await op.getByLabel("Or the person's email").fill("sam.rivera@example.org");
      await op.getByLabel("Violation found").fill("A sump pump at 22 Willow Lane discharges into the building sewer (Sewer Use Law 701).");
      await op.getByLabel("What the action requires").fill("Disconnect the sump pump from the building sewer.");
      await op.getByRole("button", { name: "Serve it" }).click();
      await checked(op, /^Notice of violation LKV-EA-\d{4}-\d{4}$/);
      const notice = await main(op);
      expect(notice).toContain("Served. The respondent is notified");
      expect(notice).toMatch(/Explanation and correction plan due by .+ \(10 days left\)/);

      // The fine follows from it (SUL 1105): $100.00 a day is refused beside its field, then $250.00.
      await op.getByRole("link", { name: "Serve a follow-up action" }).click();
      await checked(op, "Serve a notice, order or fine");
      expect(await op.getByLabel("Kind of action").inputValue()).toBe("FINE");
      const today = dateIn(LAKEVIEW.timeZone);
      await op.getByLabel("Violation found").fill("The sump pump at 22 Willow Lane was still connected on three days of inspection (Sewer Use Law 701).");
      await op.getByLabel("First day of violation").fill(addCalendarDays(today, -2));
      await op.getByLabel("Days of violation").fill("3");
      await op.getByLabel("Fine per day (dollars)").fill("100.00");
      await op.getByRole("button", { name: "Serve it" }).click();
      expect(await summary(op)).toContain("Fine per day (dollars): The fine for each day must be at least $250.00 and at most $1,000.00 (Sewer Use Law 1105)");
      expect(await op.getByLabel("Violation found").inputValue()).toContain("still connected");
      await expectNoAxeViolations(op);
      await op.getByLabel("Fine per day (dollars)").fill("250.00");
      await op.getByRole("button", { name: "Serve it" }).click();
      await checked(op, /^Administrative fine LKV-EA-\d{4}-\d{4}$/);
      const dueOn = addCalendarDays(today, 15);
      const fine = await main(op);
      expect(fine).toMatch(/Total\s+\$750\.00/);
      expect(fine).toContain(`Petition the Town Board by ${formatDate(dueOn)}`);

      // The newcomer finds it from the dashboard's task, which leads to the fine.
      await dashboardTask(page, "Pay the fine of $750.00 or petition the Town Board");
      await checked(page, /^Administrative fine LKV-EA-\d{4}-\d{4}$/);
      const served = await main(page);
      expect(served).toContain("Served on Sam Rivera · Town of Lakeview Sewer District · Sewer Use Law 1105");
      expect(served).toContain("The sump pump at 22 Willow Lane was still connected");
      expect(served).toContain("Each day is a separate violation (Sewer Use Law 1105)");
      expect(served).toMatch(new RegExp(`Petition the Town Board by ${formatDate(dueOn)} \\(15 days left`));
      expect(served).toContain("Follows from Notice of violation");

      // The petition: sent without grounds, the problem is named by its label; then filed.
      await page.getByRole("heading", { level: 2, name: "Petition the Town Board" }).waitFor();
      await page.getByRole("button", { name: "File the petition" }).click();
      expect(await summary(page)).toContain("Your grounds: State the grounds of the petition.");
      await expectNoAxeViolations(page);
      await page.click("label[for=relief-SUSPEND]");
      await page.getByLabel("Your grounds").fill("The sump pump was disconnected the day the notice arrived; the inspections after it found it disconnected.");
      await page.getByRole("button", { name: "File the petition" }).click();
      await page.getByText("Your petition is filed with the Town Board").waitFor();
      const filed = await main(page);
      expect(filed).toContain(`within the time to petition (until ${formatDate(dueOn)})`);
      expect(filed).toMatch(/Petition filed .+: Filed, awaiting decision/);
      expect(filed).toMatch(/Received\s+.+, from Sam Rivera/);
      expect(filed).toContain("Suspend the order or fine");
      expect(filed).toContain("Nothing is due while your petition is before the Board");
      await expectNoAxeViolations(page);

      // The Board finds it on its docket and can act on it.
      const board = await staffTask(boardCtx, BOARD, "Petitions docket");
      await checked(board, "Petitions docket");
      await board.getByRole("link", { name: "Sam Rivera" }).click();
      await checked(board, /^Petition against administrative fine LKV-EA-\d{4}-\d{4}$/);
      await board.getByRole("heading", { level: 2, name: "Decide without a hearing" }).waitFor();
      expect(await main(board)).toContain("The sump pump was disconnected the day the notice arrived");
      // Its decision form names every problem by its label, all at once.
      await board.getByRole("button", { name: "Record the decision" }).click();
      const undecided = await summary(board);
      expect(undecided).toContain("Decision: Choose one of: reject as frivolous, modify, suspend; or order a show-cause hearing.");
      expect(undecided).toContain("Written reasons: Give the written reasons for the decision.");
      await expectNoAxeViolations(board);

      // The Operator's page of the fine shows it under petition.
      await op.reload();
      await op.getByRole("heading", { level: 2, name: /Status: Under petition/ }).waitFor();
      await expectNoAxeViolations(op);
    } finally {
      await Promise.all([personCtx.close(), opCtx.close(), boardCtx.close()]);
    }
  });

  it("the demo applicant reads the demo's fine in Lakeview, open to a petition, and Huron's referral to the court, with nothing to pay (Huron V-2)", { timeout: 90_000 }, async () => {
    const ctx = await e.browser.newContext();
    try {
      const page = await ctx.newPage();
      await signInFromHome(page, DEMO_ENFORCEMENT.respondent);
      await checked(page, "My applications");

      await dashboardTask(page, "Pay the fine of $750.00 or petition the Town Board");
      await checked(page, /^Administrative fine LKV-EA-\d{4}-\d{4}$/);
      expect(await main(page)).toMatch(/Petition the Town Board by .+ \(12 days left/);

      await dashboardTask(page, "Referred to the court: nothing to pay unless it convicts");
      await checked(page, /^Notice of violation HRN-EA-\d{4}-\d{4}$/);
      const huron = await main(page);
      expect(huron).toContain("Town of Huron Sewer District No. 1 · Huron V-1");
      expect(huron).toContain("Referred to the court");
      expect(huron).toMatch(/The violation continued after the time to correct it \(.+\) on 3 days, from .+ to .+\. On .+ the District Operator referred it for prosecution\./);
      expect(huron).toContain('"shall be guilty of a violation and, on conviction thereof, shall be fined in an amount not exceeding $200.00 for each violation"');
      expect(huron).toContain("The case is before the court. Nothing is payable now.");
      // The notice asked that the violation cease by its date, not for an answer (that is SUL 1102).
      expect(huron).toMatch(/The law asks you to correct the violation by .+, not for an answer \(Huron V-1\)/);
      expect(huron).not.toContain("Explanation and correction plan due");
      expect(huron).not.toContain("Sewer Use Law");
      expect(await page.getByRole("button", { name: /^Pay / }).count()).toBe(0);
    } finally {
      await ctx.close();
    }
  });
});

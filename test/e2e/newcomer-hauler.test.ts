import fs from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { zonedWallTime } from "../../api/common/dates.js";
import { DEMO_HAULER } from "../../api/db/demo-scene-haulers.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { DEMO_PASSWORD } from "../../api/db/demo.js";
import { DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";
import { LAKEVIEW, plansPdf, signUpFromHome, weekdayAhead } from "./fixtures.js";

/**
 * Issue 19's septage hauler, on a fresh demo (npm start's scenes loaded): from the home page the
 * owner of a new hauling company signs up, sets up the company, files what the law asks before a
 * licence (the trucks it owns, its NYSDEC Part 364 permit, SUL 801-802), applies and pays; the
 * Town Board member approves from the staff home page; the owner books a load and pays its dumping
 * fee (SUL 801, 1208); on the day, the District Operator approves it and records the gallons
 * received. A new licence cannot be renewed for ten months (renewal opens 60 days before its last
 * day), so the renewal is walked by the demo's licensed hauler, whose licence sits in the window.
 * Moving only by clicking what the pages show (no typed addresses); every page checked with axe;
 * payments through the labelled test checkout.
 */

let e: E2E;
let permit: string;
beforeAll(async () => {
  e = await startE2E();
  permit = plansPdf("part-364-permit.pdf");
});
afterAll(async () => {
  resetClock();
  await e?.close();
  if (permit) fs.rmSync(path.dirname(permit), { recursive: true, force: true });
});

const HURON = "Town of Huron Sewer District No. 1";
const COMPANY = "Harbor Pump & Haul LLC";
const OWNER = { name: "Casey Newcomer", email: "casey@harborpump.example.com" };

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

/** Someone with a demo account signs in from the home page. */
async function signInFromHome(page: Page, email: string): Promise<void> {
  await page.goto(`${e.srv.url}/`);
  const signIn = page.getByRole("link", { name: "Sign in", exact: true });
  if (!(await signIn.count())) return;
  await signIn.first().click();
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
  // "Septage haulers of Town of Lakeview Sewer District": the district is named to screen readers.
  await page.getByRole("link", { name: new RegExp(`^${task} of ${LAKEVIEW.name}`) }).first().click();
  await settled(page);
  return page;
}

/** Pays on the payment page through the built-in, clearly labelled test checkout, and comes back to what was paid for. */
async function payWithTestCheckout(page: Page, total: string, back: RegExp): Promise<void> {
  await checked(page, /^Payment to /);
  await page.getByRole("button", { name: `Pay ${total}` }).click();
  await page.getByRole("heading", { name: /TEST CHECKOUT/ }).waitFor();
  await expectNoAxeViolations(page);
  await page.getByRole("button", { name: "Pay (test)" }).click();
  await checked(page, "Payment received");
  expect(await main(page)).toMatch(new RegExp(`Total paid\\s+\\${total}`));
  await page.getByRole("link", { name: back }).click();
  await settled(page);
}

/** Fills one row of the vehicles table. */
async function vehicle(page: Page, i: number, v: { make: string; model: string; capacity: string; plate: string; colour: string; owner: string }) {
  await page.getByLabel(`Vehicle ${i}: make`).fill(v.make);
  await page.getByLabel(`Vehicle ${i}: model`).fill(v.model);
  await page.getByLabel(`Vehicle ${i}: tank capacity (gallons)`).fill(v.capacity);
  await page.getByLabel(`Vehicle ${i}: plate`).fill(v.plate);
  await page.getByLabel(`Vehicle ${i}: colour`).fill(v.colour);
  await page.getByLabel(`Vehicle ${i}: registered owner`).fill(v.owner);
}

describe("before the Town Board sets Lakeview's dumping fee (as shipped, before the demo's scenes)", () => {
  it("the staff home page shows the task, leading the ADMIN to the fee in the rulebook editor and others to the district's rules", async () => {
    const admin = await signedInContext(e, DEMO.lakeviewAdmin);
    const board = await signedInContext(e, DEMO.lakeviewBoard);
    try {
      const page = await admin.newPage();
      await page.goto(`${e.srv.url}/staff`);
      await checked(page, "Staff");
      const task = page.getByRole("region", { name: `To do: set the dumping fee of ${LAKEVIEW.name}` });
      expect(await task.innerText()).toMatch(/Loads cannot be booked at Town of Lakeview Sewer District yet: the Town Board has not set the dumping fee \(Sewer Use Law 1208\)/);
      await task.getByRole("link", { name: `Enter the Board's dumping fee in ${LAKEVIEW.name}'s rulebook` }).click();
      // (The editor is the ADMIN's page, checked by its own tests.)
      await page.getByRole("heading", { level: 1, name: /^Rulebook of / }).waitFor();
      expect(new URL(page.url()).hash).toBe("#hauler.dumpingFeePer1000Gallons");
      await expect.poll(() => page.locator("#hauler\\.dumpingFeePer1000Gallons").count()).toBe(1);
      // Huron licenses no haulers: no such task there.
      expect(await page.getByRole("region", { name: /^To do: set the dumping fee of Town of Huron/ }).count()).toBe(0);

      const bp = await board.newPage();
      await bp.goto(`${e.srv.url}/staff`);
      await checked(bp, "Staff");
      await bp.getByRole("region", { name: `To do: set the dumping fee of ${LAKEVIEW.name}` }).getByRole("link", { name: `The dumping fee in ${LAKEVIEW.name}'s rules` }).click();
      await checked(bp, /Town of Lakeview Sewer District/);
      expect(await main(bp)).toContain("Dumping fee per 1,000 gallons");
    } finally {
      await admin.close();
      await board.close();
    }
  });
});

describe("a newcomer septage hauler in Lakeview, by clicking only", () => {
  // npm start's demo: its scenes set the Board's dumping fee and license the demo hauler.
  beforeAll(() => loadDemoScenes(e.srv.running.ds, e.srv.url, e.srv.config));

  // Four people's journey with axe on every page: about 40 s on a quiet machine.
  it("signs up, sets up the company, applies and pays; the Board approves; books and pays a load the Operator receives; the demo hauler starts its renewal", { timeout: 240_000 }, async () => {
    const ownerCtx = await e.browser.newContext();
    const boardCtx = await e.browser.newContext();
    const opCtx = await e.browser.newContext();
    const demoCtx = await e.browser.newContext();
    try {
      const page = await ownerCtx.newPage();
      await signUpFromHome(page, e.srv.url, OWNER);
      await expectNoAxeViolations(page);

      // Septage hauling from the dashboard: no company yet, so the page leads to setting one up, and back.
      await page.getByRole("link", { name: "Septage hauling" }).first().click();
      await checked(page, "Septage hauling");
      expect(await main(page)).toContain(`${HURON} does not license haulers (Huron IV-8)`);
      await page.getByRole("link", { name: "Set up your hauling company" }).click();
      await checked(page, "Organizations");
      await page.getByLabel(/^Legal name/).fill(COMPANY);
      await page.locator("label", { hasText: /^Septage hauling company/ }).click();
      await page.getByRole("button", { name: "Create organization" }).click();
      await checked(page, COMPANY);
      await page.getByRole("link", { name: "Go back to where you were" }).click();
      await checked(page, `Septage hauling: ${COMPANY}`);

      // The application: only Lakeview licenses haulers (chosen already); Huron's special permission is said plainly.
      await page.getByRole("link", { name: "Apply for a licence" }).click();
      await checked(page, "Apply for a septage hauler licence");
      expect(await page.getByLabel(/^Sewer district of the receiving station/).locator("option:checked").innerText()).toBe(LAKEVIEW.name);
      expect(await main(page)).toContain(`${HURON} does not license haulers (Huron IV-8)`);
      await page.getByRole("button", { name: "Start the application" }).click();
      await checked(page, "Apply for a septage hauler licence");
      expect(await main(page)).toContain("Application fee: $100.00 (Sewer Use Law 801)");

      // What the law asks first: trucks the company owns and its NYSDEC Part 364 permit. A first try
      // with a mistyped capacity and nothing else: every problem at once, each by its visible label.
      await vehicle(page, 1, { make: "Peterbilt", model: "348", capacity: "3,5OO", plate: "HPH3500", colour: "Red", owner: COMPANY });
      await page.getByRole("button", { name: "Submit and pay" }).click();
      await page.getByRole("heading", { name: "There is a problem" }).waitFor();
      const summary = await page.locator("#error-summary").innerText();
      for (const label of [
        "Tank capacity (gallons) of vehicle 1",
        "Part 364 permit number",
        "Part 364 permit expiry date",
        "Part 364 permit (upload)",
        "Approximate annual septage volume (gallons)",
        "Service area",
        "Certification",
      ])
        expect(summary).toContain(`${label}:`);
      expect(summary).not.toMatch(/vehicles\.\d|part364|annualVolume|serviceArea|certify/);
      await expectNoAxeViolations(page);
      expect(await page.getByLabel("Vehicle 1: plate").inputValue()).toBe("HPH3500");

      await page.getByLabel("Vehicle 1: tank capacity (gallons)").fill("3500");
      await vehicle(page, 2, { make: "Freightliner", model: "M2 106", capacity: "2500", plate: "HPH2500", colour: "White", owner: OWNER.name });
      await page.getByLabel(/^Part 364 permit number/).fill("7-3030-00412");
      await page.getByLabel(/^Part 364 permit expiry date/).fill(weekdayAhead(9, 400).slice(0, 10));
      await page.setInputFiles("#file", permit);
      await page.getByLabel(/^Approximate annual septage volume/).fill("180,000");
      await page.getByLabel(/^Service area/).fill("Towns of Lakeview and Harbor");
      await page.click("label[for=certify]");
      await page.getByRole("button", { name: "Submit and pay" }).click();
      await payWithTestCheckout(page, "$100.00", /^Back to /);
      await checked(page, "Septage hauler licence application");
      expect(await main(page)).toContain("the Town Board reviews the application");

      // The Town Board member, from the staff home page: the waiting application, approved.
      const board = await staffTask(boardCtx, DEMO.lakeviewBoard, "Septage haulers");
      await checked(board, "Septage haulers");
      const row = board.locator("table", { hasText: "Submitted applications" }).locator("tbody tr", { hasText: COMPANY });
      expect(await row.innerText()).toContain("New licence");
      await row.getByRole("link", { name: COMPANY }).click();
      await board.getByRole("heading", { name: "The Town Board's decision" }).waitFor();
      await expectNoAxeViolations(board);
      await board.getByLabel(/^Where dumping is allowed/).fill("Lakeview WWTP septage receiving station, 12 Plant Road");
      await board.getByRole("button", { name: "Approve the licence" }).click();
      await board.getByText("The licence is approved and the hauling company told.").waitFor();
      await expectNoAxeViolations(board);
      const licence = (await board.locator("h1").innerText()).match(/LKV-HL-\d{4}-\d{4}/)![0];

      // The owner's licence card: in force, what comes next, and a load booked from it.
      await page.getByRole("link", { name: "Septage hauling" }).first().click();
      await checked(page, `Septage hauling: ${COMPANY}`);
      const card = await page.locator("section.usa-summary-box", { hasText: `Licence ${licence}` }).innerText();
      expect(card).toMatch(/in force/i);
      expect(card).toMatch(/Next: Book each load and pay its dumping fee before you come\. Renewal opens on /);
      await page.getByRole("link", { name: `Book a load under licence ${licence}` }).click();
      await checked(page, "Book a load");
      expect(await main(page)).toContain("$60.00 per 1,000 gallons, at least $50.00 a load (Sewer Use Law 1208)");
      const arrival = weekdayAhead(9);
      await page.getByLabel(/^Vehicle/).selectOption({ label: "HPH3500: Peterbilt 348, 3,500 gallons" });
      await page.getByLabel(/^Where the septage comes from/).fill("8 Harbor Road, Lakeview");
      await page.getByLabel(/^Kind of source/).selectOption({ label: "Residential septic tank" });
      await page.getByLabel(/^Estimated gallons/).fill("2,500");
      await page.getByLabel(/^Planned arrival at the station/).fill(arrival);
      await page.getByRole("button", { name: "Book the load and pay" }).click();
      // A fee, not a deposit (SUL 801, 1208).
      await page.getByRole("heading", { level: 1, name: /^Payment to / }).waitFor();
      const payment = await main(page);
      expect(payment).toMatch(/Dumping fee, 2,500 gallons at \$60\.00 per 1,000 \(minimum \$50\.00\)/);
      expect(payment).not.toMatch(/refundable deposit/i);
      await payWithTestCheckout(page, "$150.00", /^Back to /);
      await checked(page, /^Load of /);
      expect(await main(page)).toMatch(/\$150\.00 .*paid, receipt/);

      // The booked load is on the dashboard with what happens next.
      await page.getByRole("link", { name: "My applications" }).first().click();
      await checked(page, "My applications");
      expect(await page.locator("tr", { hasText: "Load in HPH3500, 2,500 gallons" }).innerText()).toContain("The District Operator approves or refuses the load");

      // The day comes: the District Operator opens the station's day sheet from the staff home page.
      travelTo(zonedWallTime(Date.parse(`${arrival.slice(0, 10)}T08:30:00Z`), LAKEVIEW.timeZone));
      const op = await staffTask(opCtx, DEMO.lakeviewOperator, "Station day sheet");
      await checked(op, "Station day sheet");
      const item = op.locator("li", { hasText: "HPH3500" }).first();
      expect(await item.innerText()).toContain("$150.00 paid");
      await item.getByRole("button", { name: /^Approve load HPH3500/ }).click();
      await op.getByText("The load is approved.").waitFor();
      await expectNoAxeViolations(op);
      await op.locator("li", { hasText: "HPH3500" }).first().getByLabel(/^Gallons received/).fill("2,450");
      await op.locator("li", { hasText: "HPH3500" }).first().getByRole("button", { name: /^Record received/ }).click();
      await op.getByText("The gallons received are recorded.").waitFor();
      expect(await op.locator("li", { hasText: "HPH3500" }).first().innerText()).toContain("2,450 gal");
      await expectNoAxeViolations(op);

      // The owner sees the load received and the difference credited on the statement.
      await page.getByRole("link", { name: "Septage hauling" }).first().click();
      await checked(page, `Septage hauling: ${COMPANY}`);
      await page.getByRole("link", { name: new RegExp(`, ${LAKEVIEW.name}$`) }).first().click();
      await checked(page, /^Statement for /);
      expect(await main(page)).toContain("2,450 gal");
      resetClock();

      // The renewal: the demo's licensed hauler, whose licence is inside the renewal window.
      const demo = await demoCtx.newPage();
      await signInFromHome(demo, DEMO_HAULER.email);
      await demo.getByRole("link", { name: "Septage hauling" }).first().click();
      await checked(demo, `Septage hauling: ${DEMO_HAULER.organization}`);
      expect(await main(demo)).toMatch(/Next: Renew the licence before it ends on /);
      await demo.getByRole("link", { name: /^Renew licence LKV-HL-/ }).click();
      await checked(demo, /^Renew licence LKV-HL-/);
      await demo.getByRole("button", { name: "Start the renewal" }).click();
      await checked(demo, "Renew the septage hauler licence");
      expect(await demo.getByLabel("Vehicle 1: plate").inputValue()).toBe("LSS3001");
      await demo.click("label[for=certify]");
      await demo.getByRole("button", { name: "Submit and pay" }).click();
      await payWithTestCheckout(demo, "$100.00", /^Back to /);
      await checked(demo, "Licence renewal");
      expect(await main(demo)).toContain("the Town Board reviews the application");
    } finally {
      resetClock();
      await Promise.all([ownerCtx.close(), boardCtx.close(), opCtx.close(), demoCtx.close()]);
    }
  });
});

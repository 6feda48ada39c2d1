import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { addCalendarDays, dateIn, zonedWallTime } from "../../api/common/dates.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO } from "../harness.js";
import { expectNoAxeViolations, signedInContext, startE2E, type E2E } from "./browser.js";
import { LAKEVIEW, PUBLIC_URL, plansPdf } from "./fixtures.js";

/**
 * Septage haulers in the browser (issue 4, "Done when"): a hauler with two trucks applies and pays
 * the application fee, the Board member approves; later, after the clock has moved, the licence is
 * renewed from the expiry reminder; the hauler books a 2,500-gallon load inside the allowed hours and
 * pays the dumping fee; the operator approves it and records 2,400 gallons; the statement shows the
 * credit. Payments go through the portal's labelled test checkout.
 */

let e: E2E;
let permit: string;
const HAULER = { email: "dana@northshore-septic.example.com", name: "Dana Whitfield", password: "a long and memorable password", company: "North Shore Septic LLC" };
let lakeviewId: string;

beforeAll(async () => {
  e = await startE2E();
  permit = plansPdf("part-364-permit.pdf");
  // The Town Board's dumping fee (SUL 1208) is a rulebook setting the ADMIN enters: $60.00 per 1,000 gallons, at least $50.00 a load.
  const admin = new Client(e.srv.url);
  await admin.signIn(DEMO.lakeviewAdmin);
  ({ district: { id: lakeviewId } } = await admin.ok(`{ district(slug: "lakeview") { id } }`));
  await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: {
      districtId: lakeviewId,
      effectiveDate: dateIn(LAKEVIEW.timeZone),
      reason: "Town Board resolution on septage dumping fees",
      resolutionNumber: "2026-30",
      resolutionAdoptedOn: dateIn(LAKEVIEW.timeZone),
      changes: [
        { key: "hauler.dumpingFeePer1000Gallons", value: 6000 },
        { key: "hauler.dumpingFeeMinimumPerLoad", value: 5000 },
      ],
    },
  });
  // The hauler's account and company (the organizations feature has its own browser tests).
  const owner = new Client(e.srv.url);
  await owner.signUp(HAULER.email, HAULER.name, HAULER.password);
  await owner.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: HAULER.company, kind: "HAULER" } });
});
afterAll(async () => {
  resetClock();
  await e?.close();
  if (permit) fs.rmSync(path.dirname(permit), { recursive: true, force: true });
});

const url = (p: string) => `${e.srv.url}${p}`;
const main = (page: Page) => page.locator("main").innerText();
const noonOn = (d: string) => zonedWallTime(Date.parse(`${d}T12:00:00Z`), LAKEVIEW.timeZone);

/** Pays on the payment page through the built-in, clearly labelled test checkout; returns the receipt number. */
async function payWithTestCheckout(page: Page, total: string): Promise<string> {
  await page.getByRole("heading", { level: 1, name: /^Payment to / }).waitFor();
  await page.getByRole("button", { name: `Pay ${total}` }).click();
  await page.getByRole("heading", { name: /TEST CHECKOUT/ }).waitFor();
  await page.getByRole("button", { name: "Pay (test)" }).click();
  await page.getByRole("heading", { level: 1, name: "Payment received" }).waitFor();
  expect(await main(page)).toMatch(new RegExp(`Total paid\\s+\\${total}`));
  return (await page.locator("dt:text-is('Receipt number') + dd").innerText()).trim();
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

/** The Board member opens the waiting application and approves it for weekdays, 07:00 to 15:00, at the plant. */
async function boardApproves(page: Page, kind: "New licence" | "Renewal"): Promise<void> {
  await page.goto(url("/staff"));
  await page.getByRole("link", { name: /^Septage haulers of / }).first().click();
  await page.getByRole("heading", { level: 1, name: "Septage haulers" }).waitFor();
  await expectNoAxeViolations(page);
  const row = page.locator("table", { hasText: "Submitted applications" }).locator("tbody tr", { hasText: kind });
  expect(await row.innerText()).toContain("paid");
  await row.getByRole("link", { name: HAULER.company }).click();
  await page.getByRole("heading", { name: "The Town Board's decision" }).waitFor();
  await expectNoAxeViolations(page);
  expect(await main(page)).toContain("Vehicles (the applicant must own them, Sewer Use Law 802)");
  await page.getByLabel("Where dumping is allowed").fill("Lakeview WWTP septage receiving station, 12 Plant Road");
  // Monday to Friday are ticked, 07:00 to 15:00 filled in; the Board member keeps them.
  await page.getByRole("button", { name: "Approve the licence" }).click();
  await page.getByRole("heading", { level: 1, name: /^Licence LKV-HL-\d{4}-\d{4}: / }).waitFor();
}

describe("a septage hauler in Lakeview, from the application to the monthly statement", () => {
  it("applies with two trucks and pays, the Board approves; renews from the reminder; books, pays, the operator records 2,400 gallons; the statement credits $6.00", async () => {
    const hauler = await signedInContext(e, HAULER.email, HAULER.password);
    const board = await signedInContext(e, DEMO.lakeviewBoard);
    const operator = await signedInContext(e, DEMO.lakeviewOperator);
    try {
      const page = await hauler.newPage();
      const tz = LAKEVIEW.timeZone;

      // The dashboard leads to septage hauling; the owner starts an application for Lakeview.
      await page.goto(url("/dashboard"));
      await page.getByRole("link", { name: "Septage hauling" }).click();
      await page.getByRole("heading", { level: 1, name: `Septage hauling: ${HAULER.company}` }).waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole("link", { name: "Apply for a licence" }).click();
      await page.getByLabel("Sewer district of the receiving station").selectOption({ label: LAKEVIEW.name });
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: "Start the application" }).click();
      await page.getByRole("heading", { level: 1, name: "Apply for a septage hauler licence" }).waitFor();
      await expectNoAxeViolations(page);

      // Two trucks, the Part 364 permit, volume and service area. Submitting without certifying keeps everything typed.
      await vehicle(page, 1, { make: "International", model: "HV607", capacity: "3000", plate: "SEP4411", colour: "White", owner: HAULER.company });
      await vehicle(page, 2, { make: "Freightliner", model: "M2 106", capacity: "2500", plate: "SEP4412", colour: "Blue", owner: HAULER.name });
      await page.getByLabel("Part 364 permit number").fill("9-4412-00187");
      const part364Ends = addCalendarDays(dateIn(tz), 500);
      await page.getByLabel("Part 364 permit expiry date").fill(part364Ends);
      await page.setInputFiles("#file", permit);
      await page.getByLabel("Approximate annual septage volume (gallons)").fill("280,000");
      await page.getByLabel("Service area").fill("Towns of Lakeview and Harbor, Oswego County");
      expect(await main(page)).toContain("Application fee: $100.00 (Sewer Use Law 801)");
      await page.getByRole("button", { name: "Submit and pay" }).click();
      await page.getByRole("heading", { name: "There is a problem" }).waitFor();
      expect(await page.locator("#error-summary").innerText()).toContain("a false or misleading statement voids the licence");
      await expectNoAxeViolations(page);
      expect(await page.getByLabel("Vehicle 2: registered owner").inputValue()).toBe(HAULER.name);
      expect(await page.getByLabel("Service area").inputValue()).toBe("Towns of Lakeview and Harbor, Oswego County");
      await page.click("label[for=certify]");
      await page.getByRole("button", { name: "Submit and pay" }).click();
      const receipt = await payWithTestCheckout(page, "$100.00");
      expect(receipt).toMatch(/^LKV-\d{4}-\d{6}$/);

      // The Board member approves.
      const bp = await board.newPage();
      await boardApproves(bp, "New licence");
      const licenceNumber = (await bp.locator("h1").innerText()).match(/LKV-HL-\d{4}-\d{4}/)![0];

      // The hauler's licence card: in force, one year, where and when, days left.
      await page.goto(url("/haulers"));
      const card = page.locator("section.usa-summary-box", { hasText: `Licence ${licenceNumber}` });
      const cardText = await card.innerText();
      expect(cardText).toMatch(/in force/i);
      expect(cardText).toContain("Monday to Friday, 07:00 to 15:00");
      expect(cardText).toContain("Lakeview WWTP septage receiving station");
      expect(cardText).toMatch(/\((364|365) days left\)/);
      await expectNoAxeViolations(page);
      const [old] = await e.srv.running.ds.query(`SELECT id, valid_until::text AS valid_until FROM hauler_license WHERE license_number = $1`, [licenceNumber]);

      // Time passes: 60 days before the last day, the daily job sends the reminder.
      travelTo(noonOn(addCalendarDays(old.valid_until, -60)));
      await enqueueJob(e.srv.running.ds, { name: "haulers.expiry-reminders", payload: { publicUrl: PUBLIC_URL }, singletonKey: "e2e-reminder-60" });
      await runDueJobs(e.srv.running.ds, pino({ level: "silent" }));
      await page.goto(url("/account/emails"));
      const reminder = page.locator("li", { hasText: `hauler licence ${licenceNumber} ends in 60 days` }).first();
      await reminder.locator("summary").click();
      const link = await reminder.getByRole("link", { name: /\/renew$/ }).getAttribute("href");
      expect(link).toBe(`${PUBLIC_URL}/haulers/licenses/${old.id}/renew`);
      await page.goto(url(link!.slice(PUBLIC_URL.length)));
      await page.getByRole("heading", { level: 1, name: `Renew licence ${licenceNumber}` }).waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: "Start the renewal" }).click();
      await page.getByRole("heading", { level: 1, name: "Renew the septage hauler licence" }).waitFor();
      // Nothing is retyped: the trucks and answers are there to confirm.
      expect(await page.getByLabel("Vehicle 1: plate").inputValue()).toBe("SEP4411");
      expect(await page.getByLabel("Vehicle 2: tank capacity (gallons)").inputValue()).toBe("2500");
      expect(await page.getByLabel("Part 364 permit number").inputValue()).toBe("9-4412-00187");
      expect(await page.getByLabel("Approximate annual septage volume (gallons)").inputValue()).toBe("280000");
      await expectNoAxeViolations(page);
      await page.click("label[for=certify]");
      await page.getByRole("button", { name: "Submit and pay" }).click();
      await payWithTestCheckout(page, "$100.00");
      await boardApproves(bp, "Renewal");
      const renewalNumber = (await bp.locator("h1").innerText()).match(/LKV-HL-\d{4}-\d{4}/)![0];
      const [renewal] = await e.srv.running.ds.query(`SELECT valid_from::text AS valid_from FROM hauler_license WHERE license_number = $1`, [renewalNumber]);
      // Approved before the old licence ends: it starts the day after.
      expect(renewal.valid_from).toBe(addCalendarDays(old.valid_until, 1));

      // The hauler books a 2,500-gallon load for a weekday at 9:00 and pays the dumping fee.
      let day = addCalendarDays(dateIn(tz), 2);
      while ([0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay())) day = addCalendarDays(day, 1);
      await page.goto(url("/haulers"));
      await page.getByRole("link", { name: `Book a load under licence ${licenceNumber}` }).click();
      await page.getByRole("heading", { level: 1, name: "Book a load" }).waitFor();
      await expectNoAxeViolations(page);
      expect(await main(page)).toContain("$60.00 per 1,000 gallons, at least $50.00 a load (Sewer Use Law 1208)");
      await page.getByLabel("Vehicle").selectOption({ label: "SEP4411: International HV607, 3,000 gallons" });
      await page.getByLabel("Where the septage comes from").fill("14 Lake Street, Lakeview");
      await page.getByLabel("Kind of source").selectOption("RESIDENTIAL_SEPTIC_TANK");
      await page.getByLabel("Estimated gallons").fill("2,500");
      // First outside the hours: refused with the reason, everything kept.
      await page.getByLabel("Planned arrival at the station").fill(`${day}T16:30`);
      await page.getByRole("button", { name: "Book the load and pay" }).click();
      await page.getByRole("heading", { name: "There is a problem" }).waitFor();
      expect(await main(page)).toContain("is outside the allowed days and hours: Monday to Friday, 07:00 to 15:00");
      expect(await page.getByLabel("Estimated gallons").inputValue()).toBe("2,500");
      await expectNoAxeViolations(page);
      await page.getByLabel("Planned arrival at the station").fill(`${day}T09:00`);
      await page.getByRole("button", { name: "Book the load and pay" }).click();
      await payWithTestCheckout(page, "$150.00");

      // At the station the operator approves it and records 2,400 gallons, on a tablet-sized screen.
      const op = await operator.newPage();
      await op.setViewportSize({ width: 820, height: 1180 });
      await op.goto(url("/staff"));
      await op.getByRole("link", { name: /^Station day sheet of / }).first().click();
      await op.getByRole("heading", { level: 1, name: "Station day sheet" }).waitFor();
      await op.goto(url(`/staff/station?districtId=${lakeviewId}&date=${day}`));
      const item = op.locator("li", { hasText: "SEP4411" }).first();
      expect(await item.innerText()).toContain("$150.00 paid");
      await expectNoAxeViolations(op);
      const approve = item.getByRole("button", { name: /^Approve load SEP4411/ });
      expect((await approve.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await approve.click();
      await op.getByText("The load is approved.").waitFor();
      await op.locator("li", { hasText: "SEP4411" }).first().getByLabel(/^Gallons received/).fill("2400");
      await op.locator("li", { hasText: "SEP4411" }).first().getByRole("button", { name: /^Record received/ }).click();
      await op.getByText("The gallons received are recorded.").waitFor();
      expect(await op.locator("li", { hasText: "SEP4411" }).first().innerText()).toContain("2,400 gal");
      await expectNoAxeViolations(op);

      // The hauler's statement for the month: $150.00 paid on 2,500 gallons, 2,400 measured, $6.00 credited.
      await page.goto(url("/haulers"));
      await page.getByRole("link", { name: new RegExp(`, ${LAKEVIEW.name}$`) }).first().click();
      await page.getByRole("heading", { level: 1, name: /^Statement for / }).waitFor();
      const statement = await main(page);
      expect(statement).toContain("2,500 gal");
      expect(statement).toContain("2,400 gal");
      expect(statement).toContain("credit $6.00");
      expect(statement).toMatch(/Balance\s+Credit of \$6\.00/);
      await expectNoAxeViolations(page);
    } finally {
      resetClock();
      await hauler.close();
      await board.close();
      await operator.close();
    }
  }, 240_000); // a year of a licence in one story, with axe on every page: longer than the default minute on a shared machine
});

describe("the other hauler pages", () => {
  it("the licence and load pages, and Huron's special permission asked for and granted in the browser, pass axe", async () => {
    const hauler = await signedInContext(e, HAULER.email, HAULER.password);
    const superintendent = await signedInContext(e, "operator@huron.demo.tapline.local");
    try {
      const page = await hauler.newPage();
      const ds = e.srv.running.ds;
      const [licence] = await ds.query(`SELECT id, license_number FROM hauler_license WHERE license_number IS NOT NULL ORDER BY created_at LIMIT 1`);
      await page.goto(url(`/haulers/licenses/${licence.id}`));
      await page.getByRole("heading", { level: 1, name: `Septage hauler licence ${licence.license_number}` }).waitFor();
      expect(await main(page)).toContain("File a renewed Part 364 permit");
      await expectNoAxeViolations(page);
      const [load] = await ds.query(`SELECT id FROM hauler_load ORDER BY created_at LIMIT 1`);
      if (load) {
        await page.goto(url(`/haulers/loads/${load.id}`));
        await page.getByRole("heading", { level: 1, name: /^Load of / }).waitFor();
        await expectNoAxeViolations(page);
      }

      // Huron: the owner asks for written special permission (Huron IV-8) with one truck.
      await page.goto(url("/haulers/permission"));
      await page.getByRole("heading", { level: 1, name: "Ask for special permission" }).waitFor();
      await page.getByLabel("District").selectOption({ label: "Town of Huron Sewer District No. 1" });
      await page.getByLabel("Point of discharge you ask for").fill("Huron WWTP headworks manhole");
      await vehicle(page, 1, { make: "International", model: "HV607", capacity: "3000", plate: "SEP4411", colour: "White", owner: HAULER.company });
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: "Send the request" }).click();
      await page.getByText("Your request for special permission is sent.").waitFor();

      const sp = await superintendent.newPage();
      await sp.goto(url("/staff/haulers"));
      await sp.getByRole("link", { name: HAULER.company }).click();
      await sp.getByRole("heading", { level: 1, name: `Special permission: ${HAULER.company}` }).waitFor();
      await expectNoAxeViolations(sp);
      await sp.getByLabel("Conditions").fill("Residential septic tank pumpage only.");
      await sp.getByLabel("First day").fill(dateIn(LAKEVIEW.timeZone));
      await sp.getByLabel("Last day").fill(addCalendarDays(dateIn(LAKEVIEW.timeZone), 90));
      await sp.getByRole("button", { name: "Grant the permission" }).click();
      await sp.getByText("Done: granted.").waitFor();
      await page.goto(url("/haulers"));
      expect(await main(page)).toContain("Residential septic tank pumpage only.");
      await expectNoAxeViolations(page);
    } finally {
      await hauler.close();
      await superintendent.close();
    }
  }, 120_000);
});

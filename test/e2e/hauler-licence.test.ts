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
 * credit. Payments go through the portal's labelled test checkout. Until the Town Board's dumping fee
 * is in the rulebook (SUL 1208), the licence and the booking page say loads cannot be booked yet,
 * before any form, and the staff's pages show it as a task (issue 19); the fee is labelled a fee on
 * the payment page and the receipt, not a refundable deposit.
 */

let e: E2E;
let permit: string;
const HAULER = { email: "dana@northshore-septic.example.com", name: "Dana Whitfield", password: "a long and memorable password", company: "North Shore Septic LLC" };
let lakeviewId: string;

beforeAll(async () => {
  e = await startE2E();
  permit = plansPdf("part-364-permit.pdf");
  ({ district: { id: lakeviewId } } = await new Client(e.srv.url).ok(`{ district(slug: "lakeview") { id } }`));
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

/** The Town Board's dumping fee (SUL 1208), a rulebook figure the ADMIN enters with the resolution: $60.00 per 1,000 gallons, at least $50.00 a load. */
async function boardSetsDumpingFee(): Promise<void> {
  const admin = new Client(e.srv.url);
  await admin.signIn(DEMO.lakeviewAdmin);
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
}

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
async function boardApproves(page: Page, kind: "New licence" | "Renewal", feeSet = true): Promise<void> {
  await page.goto(url("/staff"));
  await page.getByRole("link", { name: /^Septage haulers of / }).first().click();
  await page.getByRole("heading", { level: 1, name: "Septage haulers" }).waitFor();
  await expectNoAxeViolations(page);
  // No dumping fee set yet: a task on the staff's page, saying who does what.
  const task = page.getByRole("region", { name: "To do: set the dumping fee" });
  if (feeSet) expect(await task.count()).toBe(0);
  else expect(await task.innerText()).toMatch(/Loads cannot be booked at Town of Lakeview Sewer District yet.*Ask the district's ADMIN to enter it/s);
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
  // The Board member is told it is done.
  await page.getByText("The licence is approved and the hauling company told.").waitFor();
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
      // Only the districts that license haulers are offered: Lakeview, chosen already; Huron's special permission is linked instead.
      expect(await page.getByLabel("Sewer district of the receiving station").inputValue()).toBe(lakeviewId);
      expect(await page.getByLabel("Sewer district of the receiving station").locator("option").allInnerTexts()).toEqual([LAKEVIEW.name]);
      expect(await main(page)).toContain("Town of Huron Sewer District No. 1 does not license haulers");
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
      await boardApproves(bp, "New licence", false);
      const licenceNumber = (await bp.locator("h1").innerText()).match(/LKV-HL-\d{4}-\d{4}/)![0];

      // The Board has not set the dumping fee yet: the licence card says loads cannot be booked, and no booking form is offered.
      await page.goto(url("/haulers"));
      const waiting = await page.locator("section.usa-summary-box", { hasText: `Licence ${licenceNumber}` }).innerText();
      expect(waiting).toMatch(/Next: Loads cannot be booked at Town of Lakeview Sewer District yet: the Town Board has not set the dumping fee \(Sewer Use Law 1208\)/);
      expect(await page.getByRole("link", { name: `Book a load under licence ${licenceNumber}` }).count()).toBe(0);
      await expectNoAxeViolations(page);
      const [issued] = await e.srv.running.ds.query(`SELECT id FROM hauler_license WHERE license_number = $1`, [licenceNumber]);
      await page.goto(url(`/haulers/loads/new?licenseId=${issued.id}`));
      await page.getByRole("heading", { level: 1, name: "Book a load" }).waitFor();
      expect(await main(page)).toMatch(/Loads cannot be booked yet\.\s+Loads cannot be booked at Town of Lakeview Sewer District yet/);
      expect(await page.getByLabel("Where the septage comes from").count()).toBe(0);
      expect(await page.getByRole("button", { name: /^Book the load/ }).count()).toBe(0);
      await expectNoAxeViolations(page);
      // The Operator's day sheet shows the task too.
      const opTask = await operator.newPage();
      await opTask.goto(url(`/staff/station?districtId=${lakeviewId}`));
      expect(await opTask.getByRole("region", { name: "To do: set the dumping fee" }).innerText()).toContain("the ADMIN enters it in the rulebook");
      await opTask.close();
      await boardSetsDumpingFee();

      // The hauler's licence card: in force, one year, where and when, days left.
      await page.goto(url("/haulers"));
      const card = page.locator("section.usa-summary-box", { hasText: `Licence ${licenceNumber}` });
      const cardText = await card.innerText();
      expect(cardText).toMatch(/in force/i);
      expect(cardText).toContain("Monday to Friday, 07:00 to 15:00");
      expect(cardText).toContain("Lakeview WWTP septage receiving station");
      expect(cardText).toMatch(/\((364|365) days left\)/);
      expect(cardText).toMatch(/Next: Book each load and pay its dumping fee before you come\. Renewal opens on /);
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
      await page.getByRole("heading", { level: 1, name: /^Payment to / }).waitFor();
      const paymentPath = new URL(page.url()).pathname;
      // The dumping fee is a fee: labelled by what it is, and not a refundable deposit.
      const due = await main(page);
      expect(due).toContain("Dumping fee, 2,500 gallons at $60.00 per 1,000 (minimum $50.00)");
      expect(due).not.toMatch(/refundable deposit/i);
      await payWithTestCheckout(page, "$150.00");
      await page.goto(url(`${paymentPath}/receipt`));
      await page.getByRole("heading", { level: 1, name: "Receipt" }).waitFor();
      const printed = await main(page);
      expect(printed).toMatch(/Dumping fee, 2,500 gallons at \$60\.00 per 1,000 \(minimum \$50\.00\)\s+Sewer Use Law 1208\s+\$150\.00/);
      expect(printed).not.toMatch(/refundable deposit/i);
      await expectNoAxeViolations(page);

      // The booked load is on the hauler's dashboard with its next step.
      await page.goto(url("/dashboard"));
      const onDashboard = await page.locator("tr", { hasText: "Load in SEP4411, 2,500 gallons" }).innerText();
      expect(onDashboard).toContain("The District Operator approves or refuses the load before you come (Sewer Use Law 804).");

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

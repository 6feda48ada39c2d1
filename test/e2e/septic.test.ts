import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, addMonths, dateIn } from "../../api/common/dates.js";
import { formatDate } from "../../api/common/format.js";
import { DEMO_HAULER, loadDemoHaulerScene } from "../../api/db/demo-scene-haulers.js";
import { Client, DEMO, signedInAs } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";
import { acceptedSewerExtension } from "./fixtures.js";

/**
 * Septic systems in the browser (issue 17, SUL 407, 408): the Operator registers an owner's septic
 * tank; a licensed hauler's load from its address, received at the station, is its pump-out and the
 * three years start again; a developer's sewer extension the Town Board accepted reaches the property
 * (SUL 507), the Operator issues the connection order from it and records each abandonment step until
 * the order closes; the owner reads it all.
 */

let e: E2E;
let lakeview: string;
let parcel: string;
const OWNER = "orchard.owner@example.org";
beforeAll(async () => {
  e = await startE2E();
  await loadDemoHaulerScene(e.srv.running.ds, e.srv.config);
  const clerk = await signedInAs(e.srv.url, DEMO.lakeviewClerk);
  const owner = new Client(e.srv.url);
  await owner.signUp(OWNER, "Olive Orchard");
  lakeview = (await clerk.ok(`{ l: district(slug: "lakeview") { id } }`)).l.id;
  parcel = "412.1-2-3";
  await clerk.ok(`mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`, {
    i: { districtId: lakeview, taxParcel: parcel, streetNumber: "12", street: "Orchard Lane", city: "Lakeview", zip: "13600", ownerName: "Olive Orchard", ownerEmail: OWNER },
  });
});
afterAll(() => e?.close());

const url = (p: string) => `${e.srv.url}${p}`;
const main = async (page: Page) => {
  await settled(page);
  return page.locator("main").innerText();
};
const today = () => dateIn("America/New_York");
/** Ticks a radio button or checkbox by its label's text (USWDS hides the input itself behind its label). */
const choose = (page: Page, label: string) => page.locator("label").filter({ hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) }).first().click();

describe("a septic tank pumped by a licensed hauler, then connected to the sewer", () => {
  it("registered, pumped from the hauler's load, ordered connected, abandoned step by step", async () => {
    const op = await signedInContext(e, DEMO.lakeviewOperator);
    const ownerCtx = await signedInContext(e, OWNER, "correct horse battery staple");
    try {
      // The Operator registers the tank, last pumped three years ago less ten days.
      const page = await op.newPage();
      await page.goto(url("/staff"));
      await page.getByRole("link", { name: /^Septic systems/ }).first().click();
      await page.waitForURL((u) => u.pathname === "/staff/septic");
      await expectNoAxeViolations(page);
      await page.getByLabel("Tax parcel").fill(parcel);
      await choose(page, "Septic tank");
      await page.getByLabel("Building 1", { exact: false }).first().fill("House");
      await page.getByLabel("Last pumped on, as reported").fill(addCalendarDays(addMonths(today(), -36), 10));
      await page.getByRole("button", { name: "Register" }).click();
      await page.getByText("The system is registered; its owner is emailed.").waitFor();
      expect(await main(page)).toContain(`the next pump-out is due by ${formatDate(addCalendarDays(today(), 10))}`);
      const systemUrl = page.url().split("?")[0];
      await expectNoAxeViolations(page);

      const mine = await ownerCtx.newPage();
      await mine.goto(url("/septic"));
      expect(await main(mine)).toContain("10 days left.");
      await expectNoAxeViolations(mine);

      // The demo hauler books and pays a load from the address; at the station the Operator approves it and records it received.
      const hauler = new Client(e.srv.url);
      await hauler.signIn(DEMO_HAULER.email);
      const { myOrganizations } = await hauler.ok(`{ myOrganizations { organization { id } } }`);
      const { haulerLicenses } = await hauler.ok(`query($o: ID!) { haulerLicenses(organizationId: $o) { id vehicles { id plate } } }`, { o: myOrganizations[0].organization.id });
      let day = addCalendarDays(today(), 2);
      while ([0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay())) day = addCalendarDays(day, 1);
      const { bookHaulerLoad: load } = await hauler.ok(`mutation($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { id paymentId } }`, {
        i: { licenseId: haulerLicenses[0].id, vehicleId: haulerLicenses[0].vehicles[0].id, sourceAddress: "12 Orchard Ln, Lakeview", sourceKind: "RESIDENTIAL_SEPTIC_TANK", estimatedGallons: 1000, plannedArrival: `${day}T09:00` },
      });
      const { startCheckout } = await hauler.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: load.paymentId });
      await hauler.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
      const plate = haulerLicenses[0].vehicles[0].plate;
      await page.goto(url(`/staff/station?districtId=${lakeview}&date=${day}`));
      await page.locator("li", { hasText: plate }).first().getByRole("button", { name: new RegExp(`^Approve load ${plate}`) }).click();
      await page.getByText("The load is approved.").waitFor();
      await page.locator("li", { hasText: plate }).first().getByLabel(/^Gallons received/).fill("950");
      await page.locator("li", { hasText: plate }).first().getByRole("button", { name: /^Record received/ }).click();
      await page.getByText("The gallons received are recorded.").waitFor();

      // The load is the pump-out: the three years start again today.
      await mine.goto(url("/septic"));
      const pumped = await main(mine);
      expect(pumped).toContain(`Last pumped ${formatDate(today())}; the next pump-out is due by ${formatDate(addMonths(today(), 36))}`);
      expect(pumped).toContain(DEMO_HAULER.organization);

      // A developer's sewer extension along Orchard Lane, accepted by the Town Board today (SUL 507; its
      // journey is the extensions' tests'). From the septic page opened for it (its works page links
      // there) the Operator ticks the property it reaches and orders it connected (408).
      const ext = await acceptedSewerExtension(e.srv.running.ds, { name: "Orchard Lane extension", location: "Orchard Lane from Harbor Road to the town line", resolutionNumber: "2026-112" });
      await page.goto(url(`/staff/septic?extension=${ext.id}`));
      const reaching = await main(page);
      expect(reaching).toContain("Sewer extension Orchard Lane extension");
      expect(reaching).toContain(`Orchard Lane from Harbor Road to the town line. Accepted by the Town Board by resolution 2026-112 of ${formatDate(today())}`);
      expect(await page.getByLabel("Sewer extension that reaches them").inputValue()).toBe(ext.id);
      await expectNoAxeViolations(page);
      await choose(page, "Order 12 Orchard Lane, Lakeview 13600 connected");
      await page.getByRole("button", { name: "Issue connection orders" }).click();
      await page.getByText("The connection orders are issued and the owners emailed.").waitFor();

      // The owner's lateral permit application for the parcel (the laterals' own browser tests walk it).
      const [u] = await e.srv.running.ds.query(`SELECT id FROM app_user WHERE email = $1`, [OWNER]);
      await e.srv.running.ds.query(`INSERT INTO lateral_permit (district_id, applicant_id, status, tax_parcel) VALUES ($1, $2, 'SUBMITTED', $3)`, [lakeview, u.id, parcel]);

      await page.goto(systemUrl);
      const ordered = await main(page);
      expect(ordered).toContain(`The sewer extension Orchard Lane extension, accepted by the Town Board by resolution 2026-112 of ${formatDate(today())} (Sewer Use Law 507), makes a public sewer available to the property (Sewer Use Law 408).`);
      expect(ordered).toContain("Public sewer: sewer extension Orchard Lane extension");
      expect(ordered).toContain("Septage cleaned out by a licensed hauler (Sewer Use Law 408): recorded");
      await choose(page, "Building lateral permit applied for, to connect directly to the public sewer");
      await page.getByLabel("Lateral permit application").selectOption({ label: "Application under review" });
      await page.getByRole("button", { name: "Record the step" }).click();
      await page.getByText("The step is recorded.").waitFor();
      await choose(page, "Tank filled with clean sand, bank-run gravel or dirt, or removed");
      await page.getByLabel("Tank", { exact: true }).selectOption({ label: "Filled" });
      await page.getByLabel("Filled with", { exact: true }).fill("Clean sand");
      await page.getByRole("button", { name: "Record the step" }).click();
      await page.getByText("The step is recorded.").waitFor();
      await choose(page, "Connection to the old system broken and both ends plugged");
      await page.getByRole("button", { name: "Record the step" }).click();
      await page.getByText("The step is recorded.").waitFor();
      const closed = await main(page);
      expect(closed).toContain("Closed.");
      expect(closed).toContain("Out of use");
      await expectNoAxeViolations(page);

      await mine.goto(url("/septic"));
      const done = await main(mine);
      expect(done).toContain("Order to connect to the public sewer");
      expect(done).toContain("The public sewer that reaches your property: the sewer extension Orchard Lane extension.");
      expect(done).toContain("Connection to the old system broken and both ends plugged (Sewer Use Law 408): recorded");
      expect(done).toContain(`Out of use since ${formatDate(today())}.`);
    } finally {
      await op.close();
      await ownerCtx.close();
    }
  }, 180_000);
});

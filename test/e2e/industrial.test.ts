import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, advanceClock, resetClock, travelTo } from "../../api/common/clock.js";
import { Client, DEMO } from "../harness.js";
import { expectNoAxeViolations, signedInContext, startE2E, type E2E } from "./browser.js";

/**
 * Industrial discharge permits in the browser (issue 5, "Done when"): the industrial user applies;
 * the District Operator publishes the notice of intent; issuance on day 13 is refused and on day 14
 * works; the December report gets a zinc composite of 1.30 mg/L against 1.20, flagged at once; the
 * Authorized Representative signs; the copy of record verifies; the 30-day resample task appears.
 * Time moves with the rules' clock (the test server runs in this process).
 */

let e: E2E;
let dir: string;
let pdf: string;
const PASSWORD = "a long and memorable password";
const OWNER = "owner@harbor-plating.example";
const AR = "ar@harbor-plating.example";

beforeAll(async () => {
  travelTo("2026-09-01T14:00:00Z");
  e = await startE2E();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-industrial-"));
  pdf = path.join(dir, "plans.pdf");
  fs.writeFileSync(pdf, "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF", "latin1");
  // The Town Board sets the application fee Lakeview's rulebook leaves blank (SUL 1004 A points to 1203, which names no amount).
  const admin = new Client(e.srv.url);
  await admin.signIn(DEMO.lakeviewAdmin);
  const { district } = await admin.ok(`{ district(slug: "lakeview") { id } }`);
  await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: { districtId: district.id, changes: [{ key: "industrial.applicationFee", value: 50000 }], effectiveDate: "2026-09-01", reason: "Board resolution sets the fee", resolutionNumber: "2026-41", resolutionAdoptedOn: "2026-08-18" },
  });
  // The industrial user: an owner who registers the organization, and its Authorized Representative.
  const owner = new Client(e.srv.url);
  await owner.signUp(OWNER, "Olive Owner", PASSWORD);
  const { createOrganization } = await owner.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: "Harbor Plating Works LLC", kind: "INDUSTRIAL_USER" } });
  const arId = await new Client(e.srv.url).signUp(AR, "Avery Rep", PASSWORD);
  await e.srv.running.ds.query(`INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, 'AUTHORIZED_REPRESENTATIVE')`, [createOrganization.id, arId]);
});
afterAll(async () => {
  resetClock();
  await e?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const url = (p: string) => `${e.srv.url}${p}`;
const main = (page: Page) => page.locator("main").innerText();

describe("an industrial user's discharge permit, from the application to a signed December report", () => {
  it("applies, gets the permit after the notice period, reports an exceedance and signs", async () => {
    const ownerCtx = await signedInContext(e, OWNER, PASSWORD);
    const arCtx = await signedInContext(e, AR, PASSWORD);
    const opCtx = await signedInContext(e, DEMO.lakeviewOperator);
    const publicCtx = await e.browser.newContext();
    try {
      // The owner applies (SUL 1004 A).
      const page = await ownerCtx.newPage();
      await page.goto(url("/dashboard"));
      await page.getByRole("link", { name: "Industrial discharge permits" }).click();
      await page.getByRole("link", { name: "Apply for a wastewater discharge permit" }).click();
      await page.waitForURL((u) => u.pathname === "/industrial/apply");
      await expectNoAxeViolations(page);
      await page.getByLabel("Industrial user").selectOption({ label: "Harbor Plating Works LLC" });
      await page.getByLabel("Sewer district").selectOption({ label: "Town of Lakeview Sewer District" });
      await page.getByLabel("Facility name").fill("Harbor Plating Works");
      await page.getByLabel("Street address").fill("12 Foundry Lane");
      await page.getByLabel("City, town or village").fill("Lakeview");
      await page.getByLabel("ZIP code").fill("13600");
      await page.getByLabel("SIC codes").fill("3471");
      await page.getByLabel("Constituent, row 1").fill("Zinc");
      await page.getByLabel("Value, row 1").fill("0.9");
      await page.getByLabel("Unit (mg/L, µg/L, s.u., °F), row 1").fill("mg/L");
      await page.setInputFiles("#labReport", pdf);
      await page.getByLabel("Time and duration of discharge").fill("Weekdays 7:00-15:00, batch rinses");
      await page.getByLabel("Average daily flow, gallons per day").fill("12000");
      await page.getByLabel("Peak flow, gallons per day").fill("20000");
      await page.setInputFiles("#plans", pdf);
      await page.getByRole("textbox", { name: "Activities and processes" }).fill("Zinc electroplating of fasteners; proprietary brightener sequence");
      await page.getByLabel("Product, row 1").fill("Zinc-plated fasteners");
      await page.getByLabel("Rate, row 1").fill("40000");
      await page.getByLabel("Unit (e.g. parts/day), row 1").fill("parts/day");
      await page.getByLabel("Raw material, row 1").fill("Zinc chloride");
      await page.getByLabel("Average a day, row 1").fill("50");
      await page.getByLabel("Maximum a day, row 1").fill("80");
      await page.getByLabel("Unit (e.g. lb/day), row 1").fill("lb/day");
      await page.getByLabel("Number of employees").fill("42");
      await page.fill("#hoursOfOperation", "Mon-Fri 6:00-16:00");
      await page.click("label[for=standardsMet]"); // yes
      await page.click("label[for=secret-activities]");
      await page.getByRole("button", { name: "Submit the application" }).click();
      await page.waitForURL((u) => /^\/industrial\/[0-9a-f-]{36}$/.test(u.pathname));
      await page.getByText("Your application is submitted").waitFor();
      const permitPath = new URL(page.url()).pathname;
      expect(await main(page)).toContain("The application fee of $500.00 (Sewer Use Law 1004 A) is not paid yet");
      await expectNoAxeViolations(page);
      // Pays through the labelled test checkout (the payments feature's own pages are tested elsewhere).
      const paymentId = (await page.getByRole("link", { name: "Pay the fee" }).getAttribute("href"))!.split("/").pop()!;
      const payer = new Client(e.srv.url);
      await payer.signIn(OWNER, PASSWORD);
      const { startCheckout } = await payer.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: paymentId });
      await payer.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { status } }`, { s: startCheckout.url.split("/").pop() });

      // The District Operator publishes the notice of intent (SUL 1004 H).
      const op = await opCtx.newPage();
      await op.goto(url("/staff/industrial"));
      await op.getByRole("link", { name: "Harbor Plating Works" }).click();
      await op.waitForURL((u) => u.pathname.startsWith("/staff/industrial/"));
      await expectNoAxeViolations(op);
      await op.getByRole("button", { name: "Publish the notice of intent" }).click();
      await op.getByText("The notice of intent is published on the public notices page.").waitFor();

      // Anyone reads it on the public notices page; the trade secret stays hidden.
      const pub = await publicCtx.newPage();
      await pub.goto(url("/notices"));
      expect(await main(pub)).toContain("intends to issue a wastewater discharge permit to Harbor Plating Works LLC");
      expect(await main(pub)).toContain("will not be issued before September 15, 2026 (Sewer Use Law 1004 H)");
      await expectNoAxeViolations(pub);
      await pub.getByRole("link", { name: /Harbor Plating Works/ }).click();
      await pub.waitForURL((u) => u.pathname === permitPath);
      await pub.getByRole("heading", { level: 1, name: "Wastewater discharge permit application" }).waitFor();
      expect(await main(pub)).toContain("Withheld from the public as a trade secret (Sewer Use Law 1014).");
      expect(await main(pub)).not.toContain("brightener");
      expect(await main(pub)).toMatch(/Zinc\s+1\.2\s+1\.6/); // the proposed limits are public
      await expectNoAxeViolations(pub);
      await pub.goto(url("/public-records?q=harbor"));
      await pub.getByRole("link", { name: "Harbor Plating Works" }).waitFor();
      await expectNoAxeViolations(pub);

      // Day 13: issuance is refused. Day 14: it works.
      travelTo("2026-09-14T14:00:00Z");
      await op.reload();
      await op.getByLabel("Expires").fill("2031-09-14");
      await op.getByRole("button", { name: "Issue the permit" }).click();
      await op.getByText(/13 days ago; the permit can be issued from September 15, 2026, 14 days after it \(Sewer Use Law 1004 H\)/).waitFor();
      await expectNoAxeViolations(op);
      advanceClock(DAY_MS);
      await op.getByLabel("Expires").fill("2031-09-14");
      await op.getByRole("button", { name: "Issue the permit" }).click();
      await op.getByText("The permit is issued and the industrial user told.").waitFor();
      expect(await main(op)).toMatch(/Discharge permit LKV-IU-2026-0001|Discharge permit [A-Z]+-IU-2026-0001/);

      // December: the AR opens the report due December 31 and enters a zinc composite of 1.30 mg/L.
      travelTo("2026-12-03T15:00:00Z");
      const ar = await arCtx.newPage();
      await ar.goto(url(permitPath));
      expect(await main(ar)).toContain("Due in June and December (Sewer Use Law 1005(3))");
      await ar.getByRole("link", { name: "Enter the results" }).click();
      await ar.waitForURL((u) => u.pathname.startsWith("/industrial/reports/"));
      await ar.getByRole("heading", { level: 1, name: "Compliance report, September 15, 2026 to November 30, 2026" }).waitFor();
      await expectNoAxeViolations(ar);
      await ar.getByLabel("Parameter").selectOption("Zinc");
      await ar.getByLabel("Sample type").selectOption("COMPOSITE");
      await ar.getByLabel("Sampled at (the district's local time)").fill("2026-11-10T08:30");
      await ar.getByLabel("Value").fill("1.30");
      await ar.getByLabel("Unit").selectOption("mg/L");
      await ar.getByLabel("Laboratory (NYSDOH-certified)").fill("Upstate Analytical (NYSDOH 11234)");
      await ar.getByLabel("Method (Standard Methods)").fill("EPA 200.7");
      await ar.getByRole("button", { name: "Save and check" }).click();
      // Flagged at once, with what the law requires now.
      const flagged = ar.locator("#saved");
      await flagged.getByRole("heading", { name: "Limit exceeded" }).waitFor();
      const alert = await flagged.innerText();
      expect(alert).toContain("Zinc (composite): 1.3 mg/L exceeds the average daily limit (composite sample) of 1.2 mg/L (Sewer Use Law 903).");
      expect(alert).toContain("Notify the District Operator of the Zinc violation within 24 hours");
      expect(alert).toContain("Repeat the Zinc sampling and analysis and send the results within 30 days (Sewer Use Law 1005(4)): due by January 2, 2027");
      // Times on the district's clock, as they are entered: the sample at 8:30, the notification due 24 hours after the entry.
      expect(alert).toMatch(/24 hours of learning of it \(Sewer Use Law 1005\(4\)\): due Dec 4, 2026, 10:0\d AM EST/);
      expect(await main(ar)).toContain("Composite, Nov 10, 2026, 8:30 AM EST");
      await expectNoAxeViolations(ar);

      // A CSV with a bad line is refused line by line; nothing from it is saved.
      const csv = path.join(dir, "results.csv");
      fs.writeFileSync(
        csv,
        "sampled_at,sample_type,parameter,value,unit,lab,method\n2026-11-12T09:00,composite,Copper,0.5,mg/L,Upstate Analytical,EPA 200.7\n2026-11-12T09:00,grab,pH,banana,s.u.,Upstate Analytical,SM 4500-H+ B\n",
      );
      await ar.setInputFiles("#csv", csv);
      await ar.getByRole("button", { name: "Upload and check" }).click();
      const summary = ar.locator("#error-summary");
      await summary.waitFor();
      expect(await summary.innerText()).toContain("1 line has errors; nothing from the file was saved.");
      expect(await summary.innerText()).toContain("Line 3: Enter the measured value, or mark the result below the detection limit.");
      expect(await ar.locator("section[aria-labelledby=results-heading] tbody tr").count()).toBe(1);
      await expectNoAxeViolations(ar);

      // The AR reviews the copy and the certification, re-enters the password and signs.
      expect(await main(ar)).toContain("I certify under penalty of law");
      await ar.getByRole("button", { name: "Sign and submit the report" }).click();
      await ar.getByText("Check the box to make the certification.").first().waitFor();
      // A wrong password is told beside the sign box, and not kept in the field.
      await ar.click("label[for=certify]");
      await ar.getByLabel("Your password, to sign").fill("not my password");
      await ar.getByRole("button", { name: "Sign and submit the report" }).click();
      await ar.locator("section[aria-labelledby=sign-heading] #error-summary", { hasText: "That password is not right." }).waitFor();
      expect(await ar.locator("#error-summary").count()).toBe(1);
      expect(await ar.getByLabel("Your password, to sign").inputValue()).toBe("");
      await ar.click("label[for=certify]");
      await ar.getByLabel("Your password, to sign").fill(PASSWORD);
      await ar.getByRole("button", { name: "Sign and submit the report" }).click();
      await ar.getByText("The report is signed and received.").waitFor();
      expect(await main(ar)).toContain("Avery Rep (ar@harbor-plating.example)");
      await expectNoAxeViolations(ar);
      const ack = await e.srv.running.ds.query(`SELECT subject FROM outbox_email WHERE to_address = $1 AND kind = 'industrial.report_acknowledgment'`, [AR]);
      expect(ack).toHaveLength(1);

      // The copy of record prints: what was signed, the signer, the time of receipt and its SHA-256.
      await ar.getByRole("link", { name: "Print the copy of record" }).click();
      await ar.getByRole("heading", { level: 1 }).waitFor();
      const record = await ar.locator("article.tapline-receipt").innerText();
      expect(record).toContain("Copy of record");
      expect(record).toContain("Avery Rep (ar@harbor-plating.example)");
      expect(record).toMatch(/SHA-256 of this copy\s+[0-9a-f]{64}/);
      expect(record).toContain("Exceeds the limit");
      await expectNoAxeViolations(ar);
      await ar.getByRole("link", { name: "Back to the report" }).click();
      await ar.getByRole("link", { name: "Print the copy of record" }).waitFor();

      // Anyone verifies the copy of record.
      const reportPath = new URL(ar.url()).pathname;
      await pub.goto(url(reportPath));
      await pub.getByRole("button", { name: "Verify the copy of record" }).click();
      await pub.getByText("The copy of record verifies: its SHA-256 matches and the stored results are those signed.").waitFor();
      await expectNoAxeViolations(pub);

      // Staff see it received, and the exceedance.
      await op.goto(url("/staff/industrial"));
      await op.getByRole("link", { name: "Compliance reports: received, late, exceedances" }).click();
      await op.getByRole("heading", { level: 1, name: "Compliance reports" }).waitFor();
      await op.getByRole("link", { name: "Harbor Plating Works" }).waitFor();
      await expectNoAxeViolations(op);
      await op.getByRole("link", { name: "Exceedances" }).click();
      await op.getByText("1.3 mg/L exceeds the average daily limit (composite sample) of 1.2 mg/L (Sewer Use Law 903).").waitFor();
      await expectNoAxeViolations(op);

      // The permit's significant non-compliance for the half-year, with the measurements behind it.
      await op.goto(url(`/staff${permitPath}`));
      const snc = await op.locator("section[aria-labelledby=snc-heading]").innerText();
      expect(snc).toContain("July 1, 2026 to December 31, 2026: in significant non-compliance");
      expect(snc).toContain("Chronic violation: 1 of 1 Zinc measurements (100%) exceed the limit");
      await expectNoAxeViolations(op);

      // The 30-day resample task is on the permit page.
      await ar.goto(url(permitPath));
      const duties = await ar.locator("section[aria-labelledby=duties-heading]").innerText();
      expect(duties).toContain("Repeat the Zinc sampling and analysis and send the results within 30 days (Sewer Use Law 1005(4)), due by January 2, 2027");
      await expectNoAxeViolations(ar);
    } finally {
      await Promise.all([ownerCtx.close(), arCtx.close(), opCtx.close(), publicCtx.close()]);
    }
  }, 180_000);
});

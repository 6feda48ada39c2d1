import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { Client, DEMO } from "../harness.js";
import { PASSWORD, applyAndNotice, firm, issue, setFee, type Firm } from "../api/industrial-helpers.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";

/**
 * An accidental discharge in the browser (SUL 1011): a member records it with the immediate
 * notification; the District Operator is emailed and sees it; the written report's causes and
 * measures are written on day 5 and the Authorized Representative signs it; the public reads it
 * (1014: never confidential).
 */

let e: E2E;
let f: Firm;
let permitId: string;

beforeAll(async () => {
  travelTo("2026-09-01T14:00:00Z");
  e = await startE2E();
  const anon = new Client(e.srv.url);
  const { district } = await anon.ok(`{ district(slug: "lakeview") { id } }`);
  await setFee(e.srv, district.id);
  f = await firm(e.srv, "Harbor Plating Works LLC");
  const operator = new Client(e.srv.url);
  await operator.signIn(DEMO.lakeviewOperator);
  permitId = await applyAndNotice(f, operator, district.id);
  travelTo("2026-09-15T14:00:00Z");
  const { reports } = await issue(operator, permitId, "2031-09-14");
  // A zinc exceedance entered on January 9: the 24-hour and 30-day duties (SUL 1005(4)).
  travelTo("2027-01-09T15:00:00Z");
  await f.member.ok(`mutation($r: ID!, $x: [IndustrialResultInput!]!) { addIndustrialResults(reportId: $r, results: $x) { id } }`, {
    r: reports[0].id,
    x: [{ parameter: "Zinc", sampleType: "COMPOSITE", sampledAt: "2026-11-10T08:30", value: 1.3, unit: "mg/L", lab: "Upstate Analytical", method: "EPA 200.7" }],
  });
  travelTo("2027-01-10T15:00:00Z");
});
afterAll(async () => {
  resetClock();
  await e?.close();
});

const url = (p: string) => `${e.srv.url}${p}`;
const main = (page: Page) => page.locator("main").innerText();

describe("an accidental discharge, from the first call to the signed written report", () => {
  it("is recorded, told to the Operator, written, signed and public", async () => {
    const memberCtx = await signedInContext(e, f.memberEmail, PASSWORD);
    const arCtx = await signedInContext(e, f.arEmail, PASSWORD);
    const opCtx = await signedInContext(e, DEMO.lakeviewOperator);
    const publicCtx = await e.browser.newContext();
    try {
      const page = await memberCtx.newPage();
      await page.goto(url(`/industrial/${permitId}`));
      await settled(page);
      await page.getByRole("link", { name: /Violations, accidental discharges and compliance schedule progress/ }).click();
      await page.waitForURL((u) => u.pathname === `/industrial/${permitId}/events`);
      await settled(page);
      await expectNoAxeViolations(page);
      // What the law asks, in the permit's rulebook's figures.
      expect(await main(page)).toContain(
        "tell the District Operator within 24 hours of learning of it, then repeat the sampling and send the results within 30 days (Sewer Use Law 1005(4)).",
      );
      // Earlier that morning the notification's row counted down to its time (due 10:00 in Lakeview, 15:00 UTC).
      travelTo("2027-01-10T10:30:00Z");
      await page.reload();
      await settled(page);
      expect(await page.getByRole("row", { name: /Notify the District Operator of the Zinc violation/ }).innerText()).toContain("Jan 10, 2027, 10:00 AM EST (4 hours left)");
      travelTo("2027-01-10T15:00:00Z");
      await page.reload();
      await settled(page);
      // The violation's notification, made by telephone 23 hours after the result was entered.
      await page.fill("#notifiedWhom", "Dana Ortiz, District Operator");
      await page.selectOption("#method", "PHONE");
      await page.fill("#notifiedAt", "2027-01-10T09:00");
      await page.getByLabel("What you told the district").fill("Zinc 1.3 mg/L on November 10; rinse valve replaced");
      await page.getByRole("button", { name: "Record the notification" }).click();
      await page.getByText("The notification is recorded, on time.").waitFor();
      await settled(page);
      expect(await main(page)).toMatch(/Notified Dana Ortiz, District Operator, by telephone/);
      await page.getByRole("button", { name: /Start the repeat sampling report: Zinc, due February 8, 2027 \(29 days left\)/ }).waitFor();
      await expectNoAxeViolations(page);
      // A mistake first: the volume is not a number; the input is kept and the error sits by the field.
      await page.getByLabel("When the discharge happened").fill("2027-01-10T08:00");
      await page.getByLabel("When you told the district").fill("2027-01-10T08:20");
      await page.fill("#slugNotifiedWhom", "Dana Ortiz, District Operator");
      await page.getByLabel("What was discharged").fill("Chromic acid rinse");
      await page.getByLabel("Estimated volume, gallons").fill("about 300");
      await page.getByRole("button", { name: "Record the discharge" }).click();
      await page.getByText("Enter the volume in gallons as a number.").first().waitFor();
      expect(await page.getByLabel("What was discharged").inputValue()).toBe("Chromic acid rinse");
      await page.getByLabel("Estimated volume, gallons").fill("300");
      await page.getByRole("button", { name: "Record the discharge" }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/industrial/slug/"));
      await settled(page);
      const slugPath = new URL(page.url()).pathname;
      const text = await main(page);
      expect(text).toContain("The discharge is recorded and the District Operator is told by email. Write the report by January 15, 2027.");
      expect(text).toContain("Due January 15, 2027 (5 days left)");
      expect(text).toContain("May be appended until February 24, 2027 (45 days left)");
      await expectNoAxeViolations(page);
      const [mail] = await e.srv.running.ds.query(`SELECT subject FROM outbox_email WHERE to_address = $1 AND kind = 'industrial.slug_reported'`, [DEMO.lakeviewOperator]);
      expect(mail.subject).toMatch(/Accidental discharge reported: Harbor Plating Works LLC/);

      // The Operator sees it in the district's list.
      const op = await opCtx.newPage();
      await op.goto(url("/staff/industrial/events"));
      await settled(op);
      expect(await main(op)).toContain("Chromic acid rinse");
      // ... with the notification, the time it was due and whether it was made by then.
      const notice = await op.getByRole("row", { name: /Dana Ortiz, District Operator, by telephone/ }).innerText();
      expect(notice).toContain("Jan 10, 2027, 10:00 AM EST");
      expect(notice).toMatch(/On time/i); // a tag, shown in capitals
      await expectNoAxeViolations(op);
      // ... and on the permit's own page, where the Operator also sets the 90-day report's date (SUL 1005(2)).
      await op.goto(url(`/staff/industrial/${permitId}/events`));
      await settled(op);
      expect(await main(op)).toContain("Chromic acid rinse");
      await op.selectOption("#kind", "NINETY_DAY");
      await op.fill("#basisOn", "2027-01-04");
      await op.getByRole("button", { name: "Set the date" }).click();
      await op.getByText("The 90-day compliance report is due April 4, 2027").waitFor();
      await settled(op);
      await expectNoAxeViolations(op);

      // Day 5: the written report.
      travelTo("2027-01-15T15:00:00Z");
      await page.goto(url(slugPath));
      await settled(page);
      expect(await main(page)).toContain("due today");
      await page.getByLabel("Causes of the discharge").fill("Float switch failed on rinse tank 3");
      await page.getByLabel("Measures taken to prevent it happening again").fill("Switch replaced; high-level alarm added");
      await page.getByRole("button", { name: "Save the written report" }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/industrial/reports/"));
      await settled(page);
      expect(await main(page)).toContain("The written report is saved");
      const reportPath = new URL(page.url()).pathname;

      // The Authorized Representative signs it like any report.
      const ar = await arCtx.newPage();
      await ar.goto(url(reportPath));
      await settled(ar);
      expect(await main(ar)).toContain("Written report of an accidental or slug discharge");
      await expectNoAxeViolations(ar);
      await ar.click("label[for=certify]");
      await ar.getByLabel("Your password, to sign").fill(PASSWORD);
      await ar.getByRole("button", { name: "Sign and submit the report" }).click();
      await ar.getByText("The report is signed and received.").waitFor();

      // Anyone reads it, causes and measures included (SUL 1014).
      const pub = await publicCtx.newPage();
      await pub.goto(url(slugPath));
      await settled(pub);
      const seen = await main(pub);
      expect(seen).toContain("Chromic acid rinse");
      expect(seen).toContain("Float switch failed on rinse tank 3");
      expect(seen).toMatch(/on time/i);
      expect(seen).not.toContain("Save the written report");
      await expectNoAxeViolations(pub);

      // The 90-day report the Operator dated is in the permit's report list, with its statement to make.
      await page.goto(url(`/industrial/${permitId}`));
      await settled(page);
      await page.getByRole("link", { name: /to April 4, 2027/ }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/industrial/reports/"));
      await settled(page);
      expect(await main(page)).toContain("Due April 4, 2027 (Sewer Use Law 1005(2))");
      await page.getByRole("button", { name: "Save the statement" }).waitFor();
      await expectNoAxeViolations(page);
    } finally {
      await Promise.all([memberCtx.close(), arCtx.close(), opCtx.close(), publicCtx.close()]);
    }
  });
});

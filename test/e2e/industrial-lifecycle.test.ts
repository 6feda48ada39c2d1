import { pino } from "pino";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";

/**
 * A permit modification in the browser (SUL 1004 B): the District Operator proposes it on the
 * staff page; 29 days' notice is refused next to the date, 30 accepted; the permittee sees it
 * coming with the days left, and the reissuance deadline and the change report on the same page;
 * on its date the job puts it into effect and the permit page shows the new limit and the history.
 */

let e: E2E;
let permitId: string;
const PASSWORD = "a long and memorable password";
const OWNER = "owner@lifecycle-e2e.example";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF", "latin1").toString("base64");

beforeAll(async () => {
  travelTo("2026-09-01T14:00:00Z");
  e = await startE2E();
  const admin = new Client(e.srv.url);
  await admin.signIn(DEMO.lakeviewAdmin);
  const { district } = await admin.ok(`{ district(slug: "lakeview") { id } }`);
  await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: { districtId: district.id, changes: [{ key: "industrial.applicationFee", value: 0 }], effectiveDate: "2026-09-01", reason: "No fee this year", resolutionNumber: "2026-40", resolutionAdoptedOn: "2026-08-18" },
  });
  // An issued permit, through the API (the application itself is the other browser test's story).
  const owner = new Client(e.srv.url);
  await owner.signUp(OWNER, "Olive Owner", PASSWORD);
  const { createOrganization: org } = await owner.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name: "Lakeside Metal Finishing", kind: "INDUSTRIAL_USER" } });
  const doc = async (filename: string) => (await owner.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename, contentBase64: PDF } })).uploadDocument.id;
  const { saveIndustrialApplication: d } = await owner.ok(`mutation($i: IndustrialApplicationInput!) { saveIndustrialApplication(input: $i) { id } }`, {
    i: {
      organizationId: org.id,
      districtId: district.id,
      facilityName: "Lakeside Metal Finishing",
      street: "4 Mill Street",
      city: "Lakeview",
      zip: "13600",
      sicCodes: ["3471"],
      constituents: [{ parameter: "Zinc", value: 0.9, unit: "mg/L" }],
      dischargeSchedule: "Weekdays",
      averageFlowGpd: 10000,
      peakFlowGpd: 15000,
      activities: "Plating",
      products: [{ name: "Parts", amount: 100, unit: "parts/day", process: null }],
      rawMaterials: [{ name: "Zinc chloride", averagePerDay: 5, maximumPerDay: 8, unit: "lb/day" }],
      employees: 12,
      hoursOfOperation: "Mon-Fri",
      pollutants: [],
      standardsMet: true,
      planDocumentIds: [await doc("plans.pdf")],
      labReportDocumentIds: [await doc("lab.pdf")],
    },
  });
  permitId = d.id;
  await owner.ok(`mutation($id: ID!) { submitIndustrialApplication(id: $id) { id } }`, { id: permitId });
  const op = new Client(e.srv.url);
  await op.signIn(DEMO.lakeviewOperator);
  await op.ok(`mutation($id: ID!) { publishIndustrialNotice(id: $id) { id } }`, { id: permitId });
  travelTo("2026-09-15T14:00:00Z");
  await op.ok(`mutation($i: IssueIndustrialPermitInput!) { issueIndustrialPermit(input: $i) { id } }`, { i: { id: permitId, expiresOn: "2031-09-14" } });
});
afterAll(async () => {
  resetClock();
  await e?.close();
});

const url = (p: string) => `${e.srv.url}${p}`;
const main = (page: Page) => page.locator("main").innerText();

describe("a permit modification on 30 days' notice", () => {
  it("is proposed by the Operator, seen by the permittee with days left, and takes effect on its date", async () => {
    travelTo("2026-10-01T14:00:00Z");
    const opCtx = await signedInContext(e, DEMO.lakeviewOperator);
    const ownerCtx = await signedInContext(e, OWNER, PASSWORD);
    try {
      const op = await opCtx.newPage();
      await op.goto(url(`/staff/industrial/${permitId}`));
      await settled(op);
      await op.getByRole("link", { name: "Propose a modification" }).click();
      await op.waitForURL((u) => u.pathname === `/staff/industrial/${permitId}/modify`);
      await settled(op);
      await expectNoAxeViolations(op);
      await op.getByRole("combobox", { name: /^Just cause/ }).selectOption("LOCAL_LIMITS");
      await op.getByLabel("Explanation (the permittee reads it)").fill("The Town Board lowered the zinc limit.");
      await op.getByLabel("Takes effect on").fill("2026-10-30");
      await op.locator(`label[for="changeLimits"]`).click();
      const zincRow = op.locator("tr", { has: op.locator('input[value="Zinc"]') }).first();
      await zincRow.getByLabel(/Average daily/).fill("0.8");
      await op.getByRole("button", { name: "Notify the permittee of the modification" }).click();
      await settled(op);
      const refused = op.locator("#effectiveOn-error");
      await refused.waitFor();
      expect(await refused.innerText()).toMatch(/October 31, 2026 at the earliest/);
      // what was typed is kept
      expect(await op.getByLabel("Explanation (the permittee reads it)").inputValue()).toBe("The Town Board lowered the zinc limit.");
      await op.getByLabel("Takes effect on").fill("2026-10-31");
      await op.getByRole("button", { name: "Notify the permittee of the modification" }).click();
      await op.waitForURL((u) => u.pathname === `/staff/industrial/${permitId}`);
      await settled(op);
      expect(await main(op)).toMatch(/The modification is proposed and the permittee notified/);
      expect(await main(op)).toMatch(/Takes effect October 31, 2026 \(30 days left\)/);

      const page = await ownerCtx.newPage();
      await page.goto(url(`/industrial/${permitId}`));
      await settled(page);
      await expectNoAxeViolations(page);
      const text = await main(page);
      expect(text).toMatch(/Modifications coming \(Sewer Use Law 1004 B\)/);
      expect(text).toMatch(/Takes effect October 31, 2026 \(30 days left\)/);
      expect(text).toMatch(/Limits: Zinc: average 0.8, maximum 1.6 mg\/L\s+Before: Zinc: average 1.2, maximum 1.6 mg\/L/);
      expect(text).toMatch(/Apply to reissue the permit by March 18, 2031/);
      await page.getByRole("link", { name: "Report a change of owner, premises or operation" }).click();
      await page.waitForURL((u) => u.pathname === `/industrial/${permitId}/change`);
      await settled(page);
      expect(await main(page)).toMatch(/cannot be reassigned, transferred or sold .*\(Sewer Use Law 1004 F\)/);
      await expectNoAxeViolations(page);
      // refused fields are shown next to them, what was typed kept
      await page.getByLabel("The change: who or what is new").fill("Moving the plating line to 9 Dock Road");
      await page.getByRole("button", { name: "Report the change and start the new application" }).click();
      await settled(page);
      await page.locator("#kind-error").waitFor();
      expect(await page.locator("#kind-error").innerText()).toMatch(/Sewer Use Law 1004 F/);
      expect(await page.getByLabel("The change: who or what is new").inputValue()).toBe("Moving the plating line to 9 Dock Road");
      await page.locator(`label[for="kind-PREMISES"], label:has-text("Different premises")`).first().click();
      await page.getByLabel("Date of the change").fill("2027-01-15");
      await page.getByRole("button", { name: "Report the change and start the new application" }).click();
      await page.waitForURL((u) => /^\/industrial\/[0-9a-f-]{36}$/.test(u.pathname) && !u.pathname.endsWith(permitId));
      await settled(page);
      expect(await main(page)).toMatch(/The change is reported and a new permit application is started/);
      expect(await main(page)).toMatch(/New permit after a change to permit LKV-IU-2026-0001 \(Sewer Use Law 1004 F\): different premises from January 15, 2027/);
      await page.getByRole("link", { name: "Continue the application" }).waitFor();

      // the reissuance application, from the permit page
      await page.goto(url(`/industrial/${permitId}`));
      await settled(page);
      await page.getByRole("link", { name: "Apply for reissuance" }).click();
      await page.waitForURL((u) => u.pathname === `/industrial/${permitId}/reissue`);
      await settled(page);
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: "Start the reissuance application" }).click();
      await page.waitForURL((u) => /^\/industrial\/[0-9a-f-]{36}$/.test(u.pathname) && !u.pathname.endsWith(permitId));
      await settled(page);
      expect(await main(page)).toMatch(/The reissuance application is started/);
      expect(await main(page)).toMatch(/Reissuance of permit LKV-IU-2026-0001 \(Sewer Use Law 1004 E\)/);

      travelTo("2026-10-31T14:00:00Z");
      while ((await runDueJobs(e.srv.running.ds, pino({ level: "silent" }))) > 0);
      await page.goto(url(`/industrial/${permitId}`));
      await settled(page);
      const after = await main(page);
      expect(after).toMatch(/History of the permit/);
      expect(after).toMatch(/In effect since October 31, 2026/);
      expect(after).toMatch(/Before: .*Zinc: average 1.2/);
      expect(await page.locator("tr", { hasText: "Zinc" }).first().innerText()).toMatch(/0\.8/);
    } finally {
      await opCtx.close();
      await ownerCtx.close();
    }
  });
});

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { Client, DEMO, signedInAs } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";

/**
 * Inflow in the browser (issue 17, SUL 701-704): the Tax Assessor's CSV of sales opens inspections;
 * one property fails for a sump pump, gets its order, passes the re-inspection and its certificate,
 * which a member of the public verifies; a reconnection found later opens an enforcement action.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
  const clerk = await signedInAs(e.srv.url, DEMO.lakeviewClerk);
  const owner = new Client(e.srv.url);
  await owner.signUp("wren.owner@example.org", "Wren Owner");
  const { l } = await clerk.ok(`{ l: district(slug: "lakeview") { id } }`);
  for (const [taxParcel, streetNumber] of [["301.2-1-7", "7"], ["301.2-1-8", "9"]])
    await clerk.ok(`mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`, {
      i: { districtId: l.id, taxParcel, streetNumber, street: "Willow Way", zip: "13600", ownerName: "Wren Owner", ownerEmail: "wren.owner@example.org" },
    });
});
afterAll(() => e?.close());

const url = (p: string) => `${e.srv.url}${p}`;
const text = async (page: Page, selector = "main") => {
  await settled(page);
  return page.locator(selector).innerText();
};
const today = () => dateIn("America/New_York");

async function record(page: Page, o: { feet?: string; kind: string; state: string; where?: string; by?: string }) {
  if (o.feet !== undefined) await page.getByLabel("Nearest storm sewer (feet from the property line)").fill(o.feet);
  await page.getByLabel("Source 1: kind").selectOption({ label: o.kind });
  if (o.where) await page.getByLabel("Source 1: where").fill(o.where);
  await page.getByLabel("Source 1: found").selectOption({ label: o.state });
  if (o.by) await page.getByLabel("Disconnect by").fill(o.by);
  await page.getByRole("button", { name: "Record", exact: true }).click();
  await page.getByText("The findings are recorded.").waitFor();
}

describe("a sale, a sump pump, the order, the certificate and a reconnection", () => {
  it("from the assessor's file to the public check and the 704 enforcement action", async () => {
    const op = await signedInContext(e, DEMO.lakeviewOperator);
    const visitor = await e.browser.newContext();
    try {
      const page = await op.newPage();
      await page.goto(url("/staff"));
      await page.getByRole("link", { name: "Inflow inspections" }).first().click();
      await page.waitForURL((u) => u.pathname === "/staff/inflow");
      await expectNoAxeViolations(page);
      const csv = ["Parcel,Sale Date,Buyer", "301.2-1-7,11/20/2026,Robin Buyer", "999.0-0-0,11/20/2026,Nobody"].join("\n");
      await page.getByLabel("Tax Assessor's sales file").setInputFiles({ name: "assessor.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
      await page.getByRole("button", { name: "Import the sales" }).click();
      await page.waitForURL((u) => u.searchParams.has("import"));
      const report = await text(page, "#report");
      expect(report).toContain("2 rows read, 1 row imported, 1 inspection opened, 1 row not imported");
      expect(report).toMatch(/3\s+Unknown parcel "999.0-0-0"/);

      await page.getByRole("link", { name: /^LKV-II-\d{4}-\d{4}$/ }).first().click();
      await page.waitForURL((u) => /^\/staff\/inflow\/[0-9a-f-]{36}$/.test(u.pathname));
      const inspectionUrl = page.url();
      expect(await text(page)).toContain("7 Willow Way (tax parcel 301.2-1-7)");
      await expectNoAxeViolations(page);

      // The sump pump, with a storm sewer 100 feet away: the order, with the date the Operator sets.
      const by = addCalendarDays(today(), 30);
      await record(page, { feet: "100", kind: "Sump pump", where: "basement", state: "Connected to the sanitary sewer", by });
      const ordered = await text(page);
      expect(ordered).toContain("Disconnection ordered, re-inspection due");
      expect(ordered).toContain("30 days left");

      // The re-inspection finds it disconnected: passed, with the certificate.
      await record(page, { feet: "100", kind: "Sump pump", where: "basement", state: "Disconnected" });
      const passed = await text(page);
      expect(passed).toContain("Passed");
      const number = /LKV-IC-\d{4}-\d{5}/.exec(passed)![0];

      // A member of the public checks the number.
      const pub = await visitor.newPage();
      await pub.goto(url("/inflow/verify"));
      await pub.getByLabel("Certificate number").fill(number);
      await pub.getByRole("button", { name: "Check" }).click();
      await pub.waitForURL((u) => u.searchParams.get("number") === number);
      const check = await text(pub);
      expect(check).toContain(`Certificate ${number}`);
      expect(check).toContain("7 Willow Way (tax parcel 301.2-1-7)");
      expect(check).toContain("No later inspection has found an inflow source connected.");
      expect(check).not.toContain("Wren");
      await expectNoAxeViolations(pub);

      // Later: the sump pump is found reconnected; the Operator opens an enforcement action from the finding.
      await page.goto(url("/staff/inflow"));
      await page.getByLabel("Tax parcel of the property to inspect").fill("301.2-1-7");
      await page.getByRole("button", { name: "Open an inspection" }).click();
      await page.getByText("The inspection is opened.").waitFor();
      expect(page.url()).not.toBe(inspectionUrl);
      await record(page, { feet: "100", kind: "Sump pump", state: "Reconnected after its disconnection", by: addCalendarDays(today(), 14) });
      await page.getByRole("button", { name: "Open an enforcement action" }).click();
      await page.waitForURL((u) => /^\/staff\/enforcement\/[0-9a-f-]{36}$/.test(u.pathname));
      expect(await text(page)).toMatch(/reconnected to the sanitary sewer after its disconnection.*Sewer Use Law 704/s);

      // The public check now says a later inspection found inflow connected.
      await pub.reload();
      expect(await text(pub)).toContain("A later inspection, on");
    } finally {
      await op.close();
      await visitor.close();
    }
  });

  it("the owner sees the inspection of their property and the certificate", async () => {
    const owner = await signedInContext(e, "wren.owner@example.org", "correct horse battery staple");
    try {
      const page = await owner.newPage();
      await page.goto(url("/inflow"));
      const list = await text(page);
      expect(list).toContain("7 Willow Way (tax parcel 301.2-1-7)");
      await expectNoAxeViolations(page);
      await page.getByRole("link", { name: /^LKV-II-/ }).last().click();
      await page.waitForURL((u) => /^\/inflow\/[0-9a-f-]{36}$/.test(u.pathname));
      expect(await text(page)).toContain("Inflow compliance certificate");
      await expectNoAxeViolations(page);
    } finally {
      await owner.close();
    }
  });
});

import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { Client, DEMO } from "../harness.js";
import { expectNoAxeViolations, signedInContext, startE2E, type E2E } from "./browser.js";

/**
 * The district's significant non-compliance in the browser (SUL 201, 1122): the District Operator
 * opens the dashboard from the staff home, chooses the past half-year, sees the permit in SNC
 * first with its criteria, opens its measurements, publishes the list after confirming, and
 * anyone reads the published list from the public records page. Every page passes axe.
 */

let e: E2E;
const url = (p: string) => `${e.srv.url}${p}`;
const main = (page: Page) => page.locator("main").innerText();

async function seedPermit(name: string, number: string, zinc: { count: number; value: number; status: string }[]): Promise<string> {
  const db = e.srv.running.ds;
  const [{ id: userId }] = await db.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const [{ id: districtId }] = await db.query(`SELECT id FROM district WHERE slug = 'lakeview'`);
  const [{ id: rb }] = await db.query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY effective_date DESC, version DESC LIMIT 1`, [districtId]);
  const [{ id: orgId }] = await db.query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'INDUSTRIAL_USER', $2) RETURNING id`, [name, userId]);
  const [{ id }] = await db.query(
    `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at,
                                    effective_on, expires_on, reporting_months, rulebook_version_id, trade_secret_fields, activities)
     VALUES ($1, $2, $3, 'ISSUED', $4 || ' plant', '2025-10-01', '2025-10-02', $5, '2025-10-20', '2025-10-20', '2030-10-19', '{6,12}', $6, '{activities}', 'Secret brightener recipe')
     RETURNING id`,
    [districtId, orgId, userId, name, number, rb],
  );
  const [{ id: reportId }] = await db.query(
    `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status) VALUES ($1, 'PERIODIC', '2025-12-01', '2026-05-31', '2026-06-30', 'DRAFT') RETURNING id`,
    [id],
  );
  for (const z of zinc)
    await db.query(
      `INSERT INTO industrial_result (report_id, permit_id, parameter, sample_type, sampled_at, value, unit, lab, method, status, basis, limit_value, limit_unit, compared_value, message, created_by_id)
       SELECT $1, $2, 'Zinc', 'COMPOSITE', '2026-03-01T12:00:00Z'::timestamptz + make_interval(hours => g), $3, 'mg/L', 'Upstate Analytical', 'EPA 200.7', $4, 'AVERAGE', 1.2, 'mg/L', $3, 'seeded', $5
         FROM generate_series(1, $6::int) g`,
      [reportId, id, z.value, z.status, userId, z.count],
    );
  await db.query(`UPDATE industrial_report SET status = 'SIGNED', signed_at = '2026-06-20T15:00:00Z', signer_id = $2 WHERE id = $1`, [reportId, userId]);
  return id;
}

beforeAll(async () => {
  travelTo("2026-08-03T14:00:00Z");
  e = await startE2E();
  await seedPermit("Clean Rinse Co", "LKV-IU-2025-0101", [{ count: 6, value: 1.0, status: "OK" }]);
  await seedPermit("Chronic Chrome Corp", "LKV-IU-2025-0102", [
    { count: 4, value: 1.3, status: "EXCEEDS" },
    { count: 2, value: 1.0, status: "OK" },
  ]);
  expect(await new Client(e.srv.url).ok(`{ publishedSncLists { id } }`)).toEqual({ publishedSncLists: [] });
});
afterAll(async () => {
  resetClock();
  await e?.close();
});

describe("significant non-compliance: the staff dashboard and the public list", () => {
  it("the Operator reviews the half-year and publishes the list; anyone reads it", async () => {
    const opCtx = await signedInContext(e, DEMO.lakeviewOperator);
    const publicCtx = await e.browser.newContext();
    try {
      const page = await opCtx.newPage();
      await page.goto(url("/staff"));
      await page.getByRole("link", { name: "Significant non-compliance" }).first().click();
      await page.waitForURL((u) => u.pathname === "/staff/industrial/snc");
      await page.getByRole("heading", { level: 1, name: "Significant non-compliance" }).waitFor();
      expect(await main(page)).toMatch(/July 1, 2026 to December 31, 2026/);
      await expectNoAxeViolations(page);

      await page.getByLabel("Period").selectOption({ label: "January to June 2026" });
      await page.getByRole("button", { name: "Show" }).click();
      await page.waitForURL((u) => u.searchParams.get("period") === "2026-01-01");
      await page.getByRole("heading", { level: 2, name: "January 1, 2026 to June 30, 2026" }).waitFor();
      const text = await main(page);
      expect(text).toMatch(/1 of 2 permits in significant non-compliance/);
      expect(text).toMatch(/Chronic \(66%\)/i);
      expect(text).toMatch(/4 of 6 Zinc measurements \(66.7%\) exceed the limit/);
      // in SNC first
      const rows = page.locator("tbody tr th[scope=row]");
      await expect.poll(() => rows.first().innerText()).toMatch(/LKV-IU-2025-0102/);
      await expectNoAxeViolations(page);

      // Publishing needs the confirmation box
      await page.getByRole("button", { name: "Publish the list" }).click();
      await page.locator(".usa-alert--error, .usa-error-message").first().waitFor();
      expect(await main(page)).toMatch(/Tick the box to confirm/);
      await expectNoAxeViolations(page);
      await page.locator("label[for=confirm]").click();
      await page.getByRole("button", { name: "Publish the list" }).click();
      await page.waitForURL((u) => u.searchParams.has("done"));
      await page.getByText(/Published on August 3, 2026 by/).waitFor();
      expect(await main(page)).toMatch(/The list is published on the public records page \(Sewer Use Law 1122\)/);
      expect(await main(page)).toMatch(/Published on August 3, 2026 by/);

      // The permit's own SNC, with the measurements behind it
      await page.getByRole("link", { name: "LKV-IU-2025-0102" }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/staff/industrial/") && u.searchParams.get("snc") === "2026-01-01");
      await page.locator("#snc-heading").waitFor();
      expect(await main(page)).toMatch(/January 1, 2026 to June 30, 2026: in significant non-compliance/);

      // Anyone, signed out, from the public records page
      const pub = await publicCtx.newPage();
      await pub.goto(url("/public-records"));
      await pub.getByRole("link", { name: "published lists of users in significant non-compliance" }).click();
      await pub.waitForURL((u) => u.pathname === "/public-records/snc");
      await pub.getByRole("heading", { level: 1, name: "Industrial users in significant non-compliance" }).waitFor();
      const list = await main(pub);
      expect(list).toMatch(/January 1, 2026 to June 30, 2026/);
      expect(list).toMatch(/Chronic Chrome Corp/);
      expect(list).toMatch(/LKV-IU-2025-0102/);
      expect(list).not.toMatch(/Clean Rinse Co/);
      expect(await pub.content()).not.toMatch(/brightener/i);
      await expectNoAxeViolations(pub);
    } finally {
      await opCtx.close();
      await publicCtx.close();
    }
  });
});

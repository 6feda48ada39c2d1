import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetClock, travelTo } from "../../api/common/clock.js";
import { DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";

/**
 * Daily flows in the browser (SUL 1005(3)(a)): the user pastes the period's daily flows into the
 * periodic report; a line that cannot be read is named with the text kept and nothing saved; once
 * saved, the days above the application's average are marked.
 */

let e: E2E;
let reportId: string;

beforeAll(async () => {
  e = await startE2E();
  travelTo(new Date("2026-11-20T15:00:00Z"));
  const db = e.srv.running.ds;
  const [{ id: userId }] = await db.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
  const [{ id: districtId }] = await db.query(`SELECT id FROM district WHERE slug = 'lakeview'`);
  const [{ id: orgId }] = await db.query(`INSERT INTO organization (name, kind, created_by_id) VALUES ('Meter Works', 'INDUSTRIAL_USER', $1) RETURNING id`, [userId]);
  await db.query(`INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, 'OWNER')`, [orgId, userId]);
  const [{ id: permitId }] = await db.query(
    `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at, effective_on, expires_on, reporting_months, average_flow_gpd)
     VALUES ($1, $2, $3, 'ISSUED', 'Meter plant', '2026-01-01', '2026-01-02', 'LKV-IU-2026-0888', '2026-01-20', '2026-01-20', '2031-01-19', '{6,12}', 12000) RETURNING id`,
    [districtId, orgId, userId],
  );
  [{ id: reportId }] = await db.query(
    `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status) VALUES ($1, 'PERIODIC', '2026-06-01', '2026-11-30', '2026-12-31', 'DUE') RETURNING id`,
    [permitId],
  );
});
afterAll(async () => {
  resetClock();
  await e?.close();
});

describe("daily flows of the periodic report", () => {
  it("are pasted in, checked line by line, and the days above the average marked", async () => {
    const ctx = await signedInContext(e, DEMO.applicant);
    try {
      const page = await ctx.newPage();
      await page.goto(`${e.srv.url}/industrial/reports/${reportId}`);
      await page.getByRole("heading", { level: 2, name: "Daily flows (Sewer Use Law 1005(3)(a))" }).waitFor();
      expect(await page.locator("main").innerText()).toMatch(/average daily flow given in the application \(12,000 gallons a day\)|No daily flows entered yet/);

      const text = "2026-11-02, 11000\n2026-11-03 about 14000\n2026-11-04, 0.0125 MGD";
      await page.getByLabel("The period's daily flows, one day a line").fill(text);
      await page.getByRole("button", { name: "Save daily flows" }).click();
      await page.locator("#flows-error").waitFor();
      await settled(page);
      expect(await page.locator("#flows-error").innerText()).toMatch(/Line 2: write the day and the flow/);
      expect(await page.getByLabel("The period's daily flows, one day a line").inputValue()).toBe(text);
      await expectNoAxeViolations(page);

      await page.getByLabel("The period's daily flows, one day a line").fill("2026-11-02, 11000\n2026-11-03, 12000\n2026-11-04, 0.0125 MGD");
      await page.getByRole("button", { name: "Save daily flows" }).click();
      await page.waitForURL((u) => u.searchParams.has("done"));
      await settled(page);
      const main = await page.locator("main").innerText();
      expect(main).toMatch(/The daily flows are saved/);
      expect(main).toMatch(/3 days entered; 1 above the average/);
      expect(main).toMatch(/12,500 \(0.0125 MGD\)/);
      expect(main).toMatch(/Above the average daily flow of 12,000 gpd in the application: reported under Sewer Use Law 1005\(3\)\(a\)/);
      await expectNoAxeViolations(page);
    } finally {
      await ctx.close();
    }
  });
});

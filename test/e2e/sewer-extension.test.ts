import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn, termLastDay } from "../../api/common/dates.js";
import { sendGuaranteeReminders } from "../../api/extensions/acceptance.service.js";
import { Client, DEMO } from "../harness.js";
import { expectNoAxeViolations, signedInContext, startE2E, type E2E } from "./browser.js";
import { LAKEVIEW } from "./fixtures.js";

/**
 * Issue 16's journey in the browser (SUL 501-507, 1301-1303): a developer applies for a 12-lot
 * extension; the District Operator checks capacity and approves; the Town Board's inspection fees
 * are entered and paid, notice given; a section fails its infiltration test, is retested and passes;
 * a manhole vacuum test is entered; a lateral on the extension is refused connection before the
 * tests pass and allowed after; the Operator inspects, approves the as-built drawings and accepts;
 * the Board concurs; the guarantee's reminder comes before its year ends; the public page shows it.
 */

let e: E2E;
const DEV = { email: "dana@meadowbrook-homes.example.com", name: "Dana Developer", password: "a long and memorable password" };
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");
let lakeview: string;
let developer: Client;
let operatorApi: Client;
let extensionId: string;
let permitId: string;
let inspectionId: string;

const url = (p: string) => `${e.srv.url}${p}`;
const main = (page: Page) => page.locator("main").innerText();
const today = () => dateIn(LAKEVIEW.timeZone);

beforeAll(async () => {
  e = await startE2E();
  lakeview = (await new Client(e.srv.url).ok(`{ district(slug: "lakeview") { id } }`)).district.id;
  developer = new Client(e.srv.url);
  await developer.signUp(DEV.email, DEV.name, DEV.password);
  await developer.ok(`mutation { createOrganization(input: { name: "Meadowbrook Homes LLC", kind: "DEVELOPER" }) { id } }`);
  for (const filename of ["plans.pdf", "specifications.pdf", "nysdoh-approval.pdf", "as-built.pdf"])
    await developer.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename, contentBase64: PDF } });
  operatorApi = new Client(e.srv.url);
  await operatorApi.signIn(DEMO.lakeviewOperator);
  const CAP = `mutation($i: RecordSewerCapacityInput!) { recordSewerCapacity(input: $i) { id } }`;
  await operatorApi.ok(CAP, { i: { districtId: lakeview, kind: "SEGMENT", name: "Harbor Road trunk", designGpd: 100_000, presentUseGpd: 60_000 } });
  await operatorApi.ok(CAP, { i: { districtId: lakeview, kind: "PLANT", name: "Lakeview treatment plant", designGpd: 1_000_000, presentUseGpd: 500_000 } });
});
afterAll(async () => {
  await e?.close();
});

describe("a developer's sewer extension, from application to the Town's acceptance", () => {
  it("the developer applies for a 12-lot extension", async () => {
    const ctx = await signedInContext(e, DEV.email, DEV.password);
    const page = await ctx.newPage();
    await page.goto(url("/extensions/apply"));
    await page.getByLabel("Sewer district").selectOption({ label: LAKEVIEW.name });
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Subdivision or project").fill("Meadowbrook Estates, section 1");
    await page.getByLabel("Where: streets and area served").fill("Meadowbrook Lane and Aster Court, off Harbor Road");
    await page.getByLabel("Map reference (subdivision map or tax map sheet)").fill("Subdivision map 2026-118");
    await page.getByLabel("Number of lots").fill("12");
    await page.getByLabel("Design flow (gallons per day)").fill("4800");
    await page.getByLabel("Pipe inside diameter (inches)").fill("8");
    await page.getByLabel(/^Licensed design professional( \(required\))?$/).fill("Riley Engineer, P.E.");
    await page.getByLabel("Design professional's State licence number").fill("NY PE 091234");
    await page.getByLabel("Plans (required)").selectOption({ label: "plans.pdf" });
    await page.getByLabel("Specifications (required)").selectOption({ label: "specifications.pdf" });
    await page.getByLabel("State approval (Health Department, NYSDEC)").selectOption({ label: "nysdoh-approval.pdf" });
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Your application is filed").waitFor();
    extensionId = new URL(page.url()).pathname.split("/")[2];
    await ctx.close();
  });

  it("the District Operator checks capacity and approves", async () => {
    const ctx = await signedInContext(e, DEMO.lakeviewOperator);
    const page = await ctx.newPage();
    await page.goto(url(`/staff/extensions/${extensionId}`));
    expect(await main(page)).toContain("Receiving sewer Harbor Road trunk: design capacity 100,000 gallons per day, present use 60,000, committed by the Town Board 0, 40,000 left; this extension 4,800");
    // USWDS draws its own box: the label is what is clicked.
    await page.locator("label[for=confirm-licensedDesigner]").click();
    await page.locator("label[for=confirm-futureFlows]").click();
    await page.getByLabel("Decision").selectOption("APPROVE");
    await page.getByRole("button", { name: "Record the decision" }).click();
    await page.getByText("The decision is recorded").waitFor();
    await ctx.close();
  });

  it("the Board's inspection fees are entered; the developer gives notice and pays them", async () => {
    const admin = await signedInContext(e, DEMO.lakeviewAdmin);
    const a = await admin.newPage();
    await a.goto(url(`/staff/extensions/${extensionId}/works`));
    await a.getByLabel("Amount the Board set").fill("abc");
    await a.getByLabel("Resolution setting the charge").fill("2026-77");
    await a.getByRole("button", { name: "Enter the charge" }).click();
    // The error sits at its field, named by its label.
    await a.getByRole("link", { name: /^Amount the Board set: Enter the amount/ }).waitFor();
    await a.getByLabel("Amount the Board set").fill("1,200.00");
    await a.getByRole("button", { name: "Enter the charge" }).click();
    await a.getByText("The Board's charge is entered").waitFor();
    await admin.close();

    const ctx = await signedInContext(e, DEV.email, DEV.password);
    const page = await ctx.newPage();
    await page.goto(url(`/extensions/${extensionId}`));
    expect(await main(page)).toContain("The inspection fees are paid before construction starts (Sewer Use Law 502 A).");
    await page.getByLabel("Construction starts on").fill(addCalendarDays(today(), 29));
    await page.getByRole("button", { name: "Give notice" }).click();
    await page.getByText(/must be told 30 days before construction starts/).first().waitFor();
    await page.getByLabel("Construction starts on").fill(addCalendarDays(today(), 30));
    await page.getByRole("button", { name: "Give notice" }).click();
    await page.getByText("Your notice of construction is given.").waitFor();
    await expectNoAxeViolations(page);
    await page.getByRole("link", { name: "Pay $1,200.00" }).click();
    await page.getByRole("heading", { level: 1, name: /^Payment to / }).waitFor();
    await page.getByRole("button", { name: "Pay $1,200.00" }).click();
    await page.getByRole("heading", { name: /TEST CHECKOUT/ }).waitFor();
    await page.getByRole("button", { name: "Pay (test)" }).click();
    await page.getByRole("heading", { level: 1, name: "Payment received" }).waitFor();
    await page.goto(url(`/extensions/${extensionId}`));
    expect(await main(page)).toMatch(/Inspection fees: \$1,200\.00 \(resolution 2026-77 of [^)]+\), paid/);
    expect(await main(page)).not.toContain("Before construction starts:");
    await ctx.close();
  });

  it("a failed infiltration test is retested and passes; a manhole vacuum test; a lateral waits for them", async () => {
    // A building lateral permit on the extension, its connection inspection scheduled (laterals' own pages are tested elsewhere).
    const ds = e.srv.running.ds;
    const { me } = await developer.ok(`{ me { id } }`);
    const [{ id: version }] = await ds.query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY effective_date DESC, version DESC LIMIT 1`, [lakeview]);
    [{ id: permitId }] = await ds.query(
      `INSERT INTO lateral_permit (district_id, applicant_id, status, permit_class, building_use, work_kind, street_number, street, city, zip, tax_parcel, owner_name,
         as_built_sheets, work_done_by, rulebook_version_id, submitted_at, approved_at, permit_number)
       VALUES ($1, $2, 'APPROVED', 'RESIDENTIAL_COMMERCIAL_INSTITUTIONAL', 'RESIDENTIAL', 'NEW_BUILDING', '4', 'Meadowbrook Lane', 'Lakeview', '13600', '42.1-1-4',
         'Meadowbrook Homes LLC', 1, 'Meadowbrook Homes LLC', $3, now() - interval '2 days', now() - interval '1 day', 'LKV-LP-E2E-0001') RETURNING id`,
      [lakeview, me.id, version],
    );
    [{ id: inspectionId }] = await ds.query(
      `INSERT INTO lateral_inspection (permit_id, kind, status, requested_by_id, scheduled_for) VALUES ($1, 'CONNECTION', 'SCHEDULED', $2, now() - interval '1 hour') RETURNING id`,
      [permitId, me.id],
    );
    const ctx = await signedInContext(e, DEMO.lakeviewOperator);
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 768, height: 1024 }); // the tests are entered on a tablet at the manhole
    await page.goto(url(`/staff/extensions/${extensionId}/works`));
    await page.getByLabel("Lateral permit number").fill("LKV-LP-E2E-0001");
    await page.getByRole("button", { name: "Record the lateral" }).click();
    await page.getByText("The lateral permit is recorded on the extension.").waitFor();

    const RESULT = `mutation($i: RecordInspectionResultInput!) { recordInspectionResult(input: $i) { status } }`;
    const before = await operatorApi.gql(RESULT, { i: { inspectionId, result: "PASSED" } });
    expect(before.errors![0].message).toBe("No section of the sewer extension has been tested yet (Sewer Use Law 502 A).");

    await page.goto(url(`/staff/extensions/${extensionId}`));
    await page.getByLabel("Section name").fill("MH-1 to MH-2");
    await page.getByRole("button", { name: "Add the section" }).click();
    await page.getByText("The section is added.").waitFor();
    const infiltration = async (gallons: string) => {
      await page.goto(url(`/staff/extensions/${extensionId}?kind=INFILTRATION`));
      await page.getByLabel(/^Section( \(required\))?$/).selectOption({ label: "MH-1 to MH-2" });
      await page.getByLabel("Length of the section (feet)").fill("400");
      await page.getByLabel("Nominal pipe diameter (inches)").fill("8");
      await page.getByLabel("Manholes in the section").fill("2");
      await page.getByLabel("Test period (minutes)").fill("120");
      await page.getByLabel("Water measured over the period (gallons)").fill(gallons);
      await page.getByRole("button", { name: "Enter the test" }).click();
      await page.getByText("The test is entered and judged.").waitFor();
    };
    // 400 ft of 8-inch pipe and 2 manholes: at most 17.35 gallons a day; 2 gallons in 2 hours is 24.
    await infiltration("2");
    expect(await main(page)).toContain("Failed");
    await infiltration("1.4");
    expect(await main(page)).toContain("Passed");

    await page.getByLabel("Section name").fill("MH-3");
    await page.getByRole("button", { name: "Add the section" }).click();
    await page.getByText("The section is added.").waitFor();
    await page.goto(url(`/staff/extensions/${extensionId}?kind=MANHOLE_VACUUM`));
    await page.getByLabel(/^Section( \(required\))?$/).selectOption({ label: "MH-3" });
    await page.getByLabel("Manhole depth (feet)").fill("12");
    await page.getByLabel("Manhole diameter (feet)").fill("5");
    await page.getByLabel("Time for the drop (seconds)").fill("180");
    await page.getByRole("button", { name: "Enter the test" }).click();
    await page.getByText("The test is entered and judged.").waitFor();
    expect(await main(page)).toContain("Every section has passed: laterals may be connected.");
    // Nothing wider than the tablet's screen (tables scroll inside their own region).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
    expect((await operatorApi.ok(RESULT, { i: { inspectionId, result: "PASSED" } })).recordInspectionResult.status).toBeTruthy();
    await ctx.close();
  });

  it("inspected, the as-built drawings approved, accepted by the Operator and by the Town Board", async () => {
    const ctx = await signedInContext(e, DEMO.lakeviewOperator);
    const page = await ctx.newPage();
    await page.goto(url(`/staff/extensions/${extensionId}/works`));
    await page.getByLabel("The work is proceeding in accordance with the approved plans and specifications").selectOption("yes");
    await page.getByLabel("Findings the Town Board reads").fill("Pipe bedding and joints per the approved plans.");
    await page.getByRole("button", { name: "Record the inspection" }).click();
    await page.getByText("The inspection is recorded and its findings sent to the Town Board.").waitFor();

    const dev = await signedInContext(e, DEV.email, DEV.password);
    const d = await dev.newPage();
    await d.goto(url(`/extensions/${extensionId}`));
    await d.getByLabel("As-built drawings").selectOption({ label: "as-built.pdf" });
    await d.getByRole("button", { name: "File the as-built drawings" }).click();
    await d.getByText("The as-built drawings are filed.").waitFor();

    await page.goto(url(`/staff/extensions/${extensionId}/works`));
    await page.getByLabel("Paper copies filed").fill("3");
    await page.getByRole("button", { name: "Approve the as-built drawings" }).click();
    await page.getByRole("link", { name: /^Paper copies filed: 4 copies of the as-built drawings are filed/ }).waitFor();
    await page.getByLabel("Paper copies filed").fill("4");
    await page.getByRole("button", { name: "Approve the as-built drawings" }).click();
    await page.getByText("The as-built drawings are approved.").waitFor();
    expect(await main(page)).toContain("Everything the law asks is done");
    await page.getByRole("button", { name: "Give final approval and acceptance" }).click();
    await page.getByText("Final approval is given").waitFor();
    await ctx.close();

    const lastDay = termLastDay(today(), 12);
    const admin = await signedInContext(e, DEMO.lakeviewAdmin);
    const a = await admin.newPage();
    await a.goto(url(`/staff/extensions/${extensionId}/works`));
    await a.getByLabel("Resolution number").fill("2026-90");
    await a.getByLabel(/^Security( \(required\))?$/).selectOption("SURETY_BOND");
    await a.getByLabel("Surety company").fill("Hudson Surety Co.");
    await a.getByLabel("Bond number").fill("HS-55120");
    await a.getByLabel("Amount of the security").fill("50,000.00");
    await a.getByLabel("Security expires on").fill(lastDay);
    await a.getByRole("button", { name: "Record the acceptance" }).click();
    await a.getByText("The Town Board's acceptance is recorded").waitFor();
    await expectNoAxeViolations(a);
    await admin.close();

    await d.goto(url(`/extensions/${extensionId}`));
    expect(await main(d)).toMatch(/The Town accepted the sewer on .+ \(Town Board resolution 2026-90\): it is the Town's\./);
    await dev.close();
  });

  it("the guarantee's reminder comes 30 days before its year ends; the public sees the accepted sewer", async () => {
    const ds = e.srv.running.ds;
    const lastDay = termLastDay(today(), 12);
    expect(await sendGuaranteeReminders(ds, addCalendarDays(lastDay, -31))).toBe(0);
    expect(await sendGuaranteeReminders(ds, addCalendarDays(lastDay, -30))).toBe(1);
    const [mail] = await ds.query(`SELECT subject FROM outbox_email WHERE kind = 'extension.guarantee_reminder' AND to_address = $1`, [DEV.email]);
    expect(mail.subject).toBe("Guarantee ends soon: Meadowbrook Estates, section 1");

    const page = await e.browser.newPage();
    await page.goto(url("/extensions/public/lakeview"));
    const text = await main(page);
    expect(text).toContain("The District Operator is told 30 days before construction starts");
    expect(text).toContain("Meadowbrook Estates, section 1 (Meadowbrook Lane and Aster Court, off Harbor Road), built by Meadowbrook Homes LLC");
    expect(text).toContain("Inspection fees, $1,200.00, resolution 2026-77");
    await expectNoAxeViolations(page);
    await page.close();
  });
});

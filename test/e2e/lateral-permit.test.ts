import fs from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext } from "./browser.js";
import { LAKEVIEW, PUBLIC_URL, approvedContractor, homeowner, onServer, plansPdf, signUpFromHome, startStripeE2E, weekdayAhead, type StripeE2E } from "./fixtures.js";

/**
 * Building lateral permits in the browser (issue 3, "Done when"): a homeowner applies, pays through
 * Stripe (a local stand-in of its API, with webhooks signed as Stripe signs them), gets a receipt;
 * the District Operator issues the permit and passes the inspections; the Clerk refunds the deposit.
 */

let e: StripeE2E;
let contractor: { id: string; name: string };
let plans: string;
beforeAll(async () => {
  e = await startStripeE2E();
  contractor = await approvedContractor(e.srv.url, "Ace Pipe and Drain");
  plans = plansPdf("site-plan.pdf");
});
afterAll(async () => {
  await e?.close();
  if (plans) fs.rmSync(path.dirname(plans), { recursive: true, force: true });
});

const url = (p: string) => `${e.srv.url}${p}`;
const text = async (page: Page, selector = "main") => {
  await settled(page);
  return page.locator(selector).innerText();
};
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** A button named "Request inspection" on screen, followed by ": <what>" for screen readers. */
const named = (visible: string, what: string) => new RegExp(`^${escape(visible)}\\s*: ${escape(what)}$`);
/** The rows of the first table under `scope`, as the page shows them (cells joined by tabs). */
/** The rows of a table, once it has rendered (a client-side navigation changes the URL a moment before the new page draws). */
const rows = async (page: Page, scope: string) => {
  await settled(page);
  await page.locator(`${scope} table tbody tr`).first().waitFor();
  return page.locator(`${scope} table tbody tr`).allInnerTexts();
};

type Application = { buildingUse: "RESIDENTIAL" | "COMMERCIAL"; floorArea?: string; sheets: string; streetNumber: string; street: string };

/** Fills the application form of /permits/new or /permits/:id/edit as a person does. */
async function fillApplication(page: Page, a: Application) {
  await page.getByLabel("House number").fill(a.streetNumber);
  await page.getByLabel("Street").fill(a.street);
  await page.getByLabel("City, town or village").fill("Lakeview");
  await page.getByLabel("ZIP code").fill("13600");
  await page.getByLabel("Tax parcel number").fill("101.2-3-4");
  await page.getByLabel("Owner's name").fill("Pat Homeowner");
  // USWDS radios are visually hidden: a person clicks the label (the first option's id is the field's name).
  await page.click("label[for=permitClass]");
  await page.click(a.buildingUse === "RESIDENTIAL" ? "label[for=buildingUse]" : `label[for=buildingUse-${a.buildingUse}]`);
  if (a.floorArea !== undefined) await page.getByLabel("Floor area of the building, in square feet").fill(a.floorArea);
  await page.click("label[for=workKind]"); // a new building
  await page.selectOption("#contractorId", { label: contractor.name });
  await page.setInputFiles("#file", plans);
  await page.fill("#asBuiltSheets", a.sheets);
}

/** From the dashboard to the Lakeview application form. */
async function startApplication(page: Page) {
  await page.goto(url("/dashboard"));
  await page.getByRole("link", { name: "Connect to the public sewer" }).click();
  await page.waitForURL((u) => u.pathname === "/permits/new");
  await page.getByLabel("Sewer district of the property").selectOption({ label: LAKEVIEW.name });
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((u) => u.pathname === "/permits/new" && u.searchParams.get("district") === LAKEVIEW.slug);
  await page.getByRole("heading", { level: 1, name: "Connect to the public sewer" }).waitFor();
}

/**
 * Pays on the payment page through the Stripe stand-in: Pay sends the browser to the stand-in's
 * checkout page; the payer pays there (the test completes the session); Stripe delivers the signed
 * `checkout.session.completed` event (twice: a repeat must not matter) and sends the browser to the
 * success URL. Returns the receipt number the done page shows.
 */
async function payThroughStripe(page: Page, paymentId: string, total: string): Promise<string> {
  await page.getByRole("button", { name: `Pay ${total}` }).click();
  await page.waitForURL((u) => u.origin === e.stripe.url && u.pathname.startsWith("/c/pay/cs_test_"));
  await page.getByRole("heading", { name: "Checkout (Stripe stand-in)" }).waitFor();
  const sessionId = new URL(page.url()).pathname.split("/").pop()!;
  const session = e.stripe.sessions.get(sessionId);
  expect(session).toMatchObject({ client_reference_id: paymentId, success_url: `${PUBLIC_URL}/payments/${paymentId}/done`, status: "open" });
  expect(session.amount_total).toBe(Math.round(Number(total.replace(/[$,]/g, "")) * 100));

  const completed = e.stripe.complete(sessionId);
  const event = e.stripe.event("checkout.session.completed", completed);
  expect((await e.deliver(event)).status).toBe(200);
  expect((await e.deliver(event)).status).toBe(200);

  await page.goto(onServer(e, completed.success_url));
  await page.getByRole("heading", { level: 1, name: "Payment received" }).waitFor();
  const receipt = (await page.locator("dt:text-is('Receipt number') + dd").innerText()).trim();
  expect(receipt).toMatch(/^LKV-\d{4}-\d{6}$/);
  const main = await text(page);
  expect(main).toContain(`received ${total}. Receipt ${receipt}`);
  expect(main).toMatch(new RegExp(`Total paid\\s+${escape(total)}`));

  // The payment was made paid once, whatever the number of deliveries.
  const db = e.srv.running.ds;
  const [p] = await db.query(`SELECT status, receipt_number, provider FROM payment WHERE id = $1`, [paymentId]);
  expect(p).toEqual({ status: "PAID", receipt_number: receipt, provider: "stripe" });
  expect((await db.query(`SELECT count(*)::int AS n FROM payment_event WHERE payment_id = $1`, [paymentId]))[0].n).toBe(1);
  expect((await db.query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'payment.paid' AND entity_id = $1`, [paymentId]))[0].n).toBe(1);
  return receipt;
}

/** The payment's id, from the permit page's Pay link. */
async function paymentIdOn(page: Page, total: string): Promise<string> {
  const href = await page.getByRole("link", { name: `Pay ${total}` }).getAttribute("href");
  expect(href).toMatch(/^\/payments\/[0-9a-f-]{36}$/);
  return href!.split("/").pop()!;
}

describe("a residential lateral in Lakeview, from the application to the deposit refund", () => {
  it("the homeowner applies and pays by card, the Operator issues the permit and passes the inspections, the Clerk refunds the deposit", async () => {
    const home = await e.browser.newContext();
    const op = await signedInContext(e, DEMO.lakeviewOperator);
    const clerk = await signedInContext(e, DEMO.lakeviewClerk);
    try {
      const page = await home.newPage();

      // Signs up.
      await signUpFromHome(page, e.srv.url, { name: "Robin Homeowner", email: "robin.homeowner@example.org" });

      // Starts "Connect to the public sewer" from the dashboard and fills the application.
      await startApplication(page);
      expect(await text(page)).toContain("Inspection and administration fee, residential: $150.00 (Sewer Use Law 1212)");
      await expectNoAxeViolations(page);
      await fillApplication(page, { buildingUse: "RESIDENTIAL", sheets: "3", streetNumber: "12", street: "Orchard Lane" });

      // Saves a draft...
      await page.getByRole("button", { name: "Save as draft" }).click();
      await page.waitForURL(/\/permits\/[0-9a-f-]{36}\/edit\?saved=1$/);
      const permitId = new URL(page.url()).pathname.split("/")[2];
      await page.getByText("Your draft is saved.").waitFor();
      expect(await page.getByLabel("site-plan.pdf (PDF)").isChecked()).toBe(true);

      // ...resumes it from the dashboard...
      await page.goto(url("/dashboard"));
      await page.getByRole("link", { name: "Lateral permit application, 12 Orchard Lane, Lakeview 13600" }).click();
      await page.waitForURL((u) => u.pathname === `/permits/${permitId}/edit`);
      await page.getByRole("heading", { level: 1, name: "Your application (draft)" }).waitFor();
      expect(await page.getByLabel("Street").inputValue()).toBe("Orchard Lane");
      expect(await page.getByLabel("Tax parcel number").inputValue()).toBe("101.2-3-4");
      expect(await page.locator("#contractorId option:checked").innerText()).toBe(contractor.name);
      expect(await page.locator("#asBuiltSheets").inputValue()).toBe("3");
      expect(await page.locator("#buildingUse").isChecked()).toBe(true);
      expect(await page.getByLabel("site-plan.pdf (PDF)").isChecked()).toBe(true);

      // ...and submits it: the fee is itemised with the sections of the law.
      await page.getByRole("button", { name: "Submit the application" }).click();
      await page.waitForURL((u) => u.pathname === `/permits/${permitId}` && u.searchParams.has("submitted"));
      await page.getByText("Your application is submitted.").waitFor();
      const fees = await rows(page, "section[aria-labelledby=fees-heading]");
      expect(fees).toHaveLength(2);
      expect(fees[0]).toMatch(/^Inspection and administration fee, residential\s+Sewer Use Law 1212\s+\$150\.00$/);
      expect(fees[1]).toMatch(/^As-built drawing deposit, 3 sheets × \$100\.00 \(refundable\)\s+Sewer Use Law 606 B\s+\$300\.00$/);
      expect(await page.locator("section[aria-labelledby=fees-heading] tfoot").innerText()).toMatch(/Total\s+\$450\.00/);
      await expectNoAxeViolations(page);

      // Pays $450.00 through Stripe.
      const paymentId = await paymentIdOn(page, "$450.00");
      await page.getByRole("link", { name: "Pay $450.00" }).click();
      await page.waitForURL((u) => u.pathname === `/payments/${paymentId}`);
      expect(await text(page)).toContain("You pay by card on Stripe's secure page");
      expect(await text(page)).not.toContain("Test checkout");
      await expectNoAxeViolations(page);
      const receipt = await payThroughStripe(page, paymentId, "$450.00");
      const done = await text(page);
      expect(done).toContain("Inspection and administration fee, residential (Sewer Use Law 1212)");
      expect(done).toContain("As-built drawing deposit, 3 sheets × $100.00 (refundable) (Sewer Use Law 606 B)");

      // The printable receipt: numbered, with the lines and their sections.
      await page.getByRole("link", { name: "View and print the receipt" }).click();
      await page.waitForURL((u) => u.pathname === `/payments/${paymentId}/receipt`);
      await page.getByRole("heading", { level: 1, name: "Receipt" }).waitFor();
      const printed = await text(page, ".tapline-receipt");
      expect(printed).toContain(LAKEVIEW.name);
      expect(printed).toMatch(new RegExp(`Receipt number\\s+${receipt}`));
      expect(printed).toMatch(/Received from\s+Robin Homeowner/);
      const lines = await rows(page, ".tapline-receipt");
      expect(lines[0]).toMatch(/^Inspection and administration fee, residential\s+Sewer Use Law 1212\s+\$150\.00$/);
      expect(lines[1]).toMatch(/^As-built drawing deposit, 3 sheets × \$100\.00 \(refundable\) \(refundable deposit\)\s+Sewer Use Law 606 B\s+\$300\.00$/);
      expect(await page.locator(".tapline-receipt tfoot").innerText()).toMatch(/Total paid\s+\$450\.00/);
      await expectNoAxeViolations(page);

      // The District Operator reviews it with the checklist, and issues the permit.
      const review = await op.newPage();
      await review.goto(url(`/staff/permits/${permitId}`));
      await review.getByRole("heading", { level: 2, name: "Reviewer's checklist" }).waitFor();
      const checklist = await rows(review, "section[aria-labelledby=checklist-heading]");
      expect(checklist).toContainEqual(expect.stringMatching(/^Inside diameter at least 4 inches\s+Sewer Use Law 605$/));
      expect(checklist).toContainEqual(expect.stringMatching(/^Slope at least 1\/4 inch per foot\s+Sewer Use Law 605$/));
      expect(checklist).toContainEqual(expect.stringMatching(/^Earth cover at least 4 feet .*\s+Sewer Use Law 609$/));
      expect(checklist).toContainEqual(expect.stringMatching(/^Cleanouts to grade at most 75 feet apart\s+Sewer Use Law 607$/));
      expect(checklist).toContainEqual(expect.stringMatching(/water meter.*\s+Sewer Use Law 616$/));
      expect(await text(review)).toContain(`Total $450.00: paid, receipt ${receipt}`);
      await expectNoAxeViolations(review);
      await review.getByRole("button", { name: "Approve and issue the permit" }).click();
      await review.getByText("The permit is issued and the applicant told.").waitFor();
      const heading = await review.getByRole("heading", { level: 1 }).innerText();
      expect(heading).toMatch(/^Lateral permit LKV-LP-\d{4}-\d{4}$/);
      const permitNumber = heading.replace("Lateral permit ", "");

      /** The homeowner asks for an inspection on the permit page. */
      const request = async (kindLabel: string, again = false) => {
        await page.goto(url(`/permits/${permitId}`));
        await page.getByRole("button", { name: named(`Request ${again ? "again" : "inspection"}`, kindLabel) }).click();
        await page.getByText("Your request is sent.").waitFor();
      };
      /** The Operator schedules it and records the result. */
      const inspect = async (kindLabel: string, when: string, result: "Passed" | "Failed", notes?: string) => {
        await review.goto(url(`/staff/permits/${permitId}`));
        const box = review.locator("div.tapline-details").filter({ has: review.getByRole("heading", { level: 3, name: kindLabel, exact: true }) });
        await box.getByLabel(/^Date and time/).fill(when);
        await box.getByRole("button", { name: named("Schedule the inspection", kindLabel) }).click();
        await review.getByText("The inspection is scheduled and the applicant told.").waitFor();
        await box.locator("label.usa-radio__label", { hasText: new RegExp(`^${result}$`) }).click(); // the radio itself is visually hidden
        if (notes) await box.getByLabel("Notes (required when it failed)").fill(notes);
        await box.getByRole("button", { name: named("Record the result", kindLabel) }).click();
        await review.getByText("The result is recorded and the applicant told.").waitFor();
      };

      // The homeowner sees the permit number and asks for the trench inspection; it fails first.
      await page.goto(url(`/permits/${permitId}`));
      await page.getByRole("heading", { level: 1, name: `Lateral permit ${permitNumber}` }).waitFor();
      const TRENCH = "Trench inspection (before backfill)";
      await request(TRENCH);
      await inspect(TRENCH, weekdayAhead(9), "Failed", "Bedding stone missing under the pipe.");
      await page.goto(url(`/permits/${permitId}`));
      expect(await text(page)).toContain("Next: Fix what failed and request the trench inspection again");
      expect(await text(page, "section[aria-labelledby=inspections-heading] tbody")).toContain("Bedding stone missing under the pipe.");

      // Asked for again, scheduled, passed; then the connection inspection and the leakage test pass.
      await request(TRENCH, true);
      await inspect(TRENCH, weekdayAhead(10), "Passed");
      for (const kind of ["Connection inspection", "Infiltration/exfiltration or air test"]) {
        await request(kind);
        await inspect(kind, weekdayAhead(11), "Passed");
      }
      await page.goto(url(`/permits/${permitId}`));
      await page.getByRole("heading", { level: 2, name: "Status: Connected" }).waitFor();
      expect(await text(page)).toContain("Next: File the as-built (record) drawings; the deposit is refunded once they are approved");
      // The inspections read when they took place, never after the connection was accepted.
      expect(await text(page, "section[aria-labelledby=inspections-heading] tbody")).not.toContain("Set for");

      // Files the as-built drawings where the step is, with what the law asks (Sewer Use Law 606 B).
      expect(await text(page, "section[aria-labelledby=drawings-heading]")).toContain("at least three tie lines to fixed points; 4 paper copies go to the District Operator");
      await page.setInputFiles("#drawings", plans);
      await page.getByRole("button", { name: "File the as-built drawings" }).click();
      await page.getByText("Your as-built drawings are filed. The District Operator reviews them.").waitFor();
      expect(await text(page)).toContain("Next: The District Operator reviews the as-built drawings you filed");
      await expectNoAxeViolations(page);

      // The Operator approves the record drawings: the permit closes, the deposit is due back.
      await review.goto(url(`/staff/permits/${permitId}`));
      expect(await text(review, "section[aria-labelledby=drawings-heading]")).toContain("Filed by the applicant");
      await review.getByRole("button", { name: "Approve the record drawings" }).click();
      await review.getByText("The record drawings are approved and the permit closed").waitFor();
      expect(await text(review)).toContain("As-built deposit of $300.00: refund due");

      // The Clerk refunds the as-built deposit from the payments ledger, with a reason: Stripe is asked once.
      const ledger = await clerk.newPage();
      await ledger.goto(url("/staff/payments?status=PAID"));
      const row = ledger.getByRole("row").filter({ hasText: "Robin Homeowner" });
      await expect.poll(() => row.count()).toBe(1);
      await row.locator("summary", { hasText: "Refund the deposit" }).click();
      const deposit = row.getByRole("checkbox", { name: /As-built drawing deposit/ });
      expect(await deposit.isChecked()).toBe(true); // the only refundable line
      await row.getByLabel(/^Reason/).fill("Record drawings approved (Sewer Use Law 606 B)");
      await row.getByRole("button", { name: "Refund", exact: true }).click();
      await ledger.getByText(/^Refunded \$300\.00 to the payer's card: refund receipt /).waitFor();
      const refunds = e.stripe.requests.filter((r) => r.method === "POST" && r.path === "/v1/refunds" && r.params.metadata?.paymentId === paymentId);
      expect(refunds).toHaveLength(1);
      expect(refunds[0].params).toMatchObject({ amount: "30000", metadata: { paymentId } });
      expect(refunds[0].params.payment_intent).toMatch(/^pi_/);

      // The homeowner sees the deposit returned, and the permit on the dashboard.
      await page.goto(url(`/permits/${permitId}`));
      await page.getByRole("heading", { level: 2, name: "Status: Closed" }).waitFor();
      const closed = await text(page);
      expect(closed).toMatch(/Returned \$300\.00 \(refund receipt LKV-\d{4}-\d{6}/);
      expect(closed).not.toContain("is due back to you");
      await page.goto(url("/dashboard"));
      const item = page.getByRole("link", { name: `Lateral permit ${permitNumber}, 12 Orchard Lane, Lakeview 13600` });
      expect(await item.getAttribute("href")).toBe(`/permits/${permitId}`);
      expect(await page.getByRole("row").filter({ has: item }).innerText()).toContain("Closed");
    } finally {
      await Promise.all([home.close(), op.close(), clerk.close()]);
    }
  });
});

describe("a commercial building of 2,400 square feet", () => {
  let ctx: BrowserContext;
  afterAll(() => ctx?.close());

  it("pays $1,200.00 (50 cents a square foot, Sewer Use Law 1212) plus the deposit", async () => {
    const who = await homeowner(e.srv.url, "sam.shopkeeper@example.org", "Sam Shopkeeper");
    ctx = await signedInContext(e, who.email, who.password);
    const page = await ctx.newPage();
    await startApplication(page);
    await fillApplication(page, { buildingUse: "COMMERCIAL", floorArea: "2,400", sheets: "1", streetNumber: "400", street: "Main Street" });
    await page.getByRole("button", { name: "Submit the application" }).click();
    await page.waitForURL((u) => /^\/permits\/[0-9a-f-]{36}$/.test(u.pathname) && u.searchParams.has("submitted"));
    const fees = await rows(page, "section[aria-labelledby=fees-heading]");
    expect(fees).toHaveLength(2);
    expect(fees[0]).toMatch(/^Inspection and administration fee, commercial: 2,400 sq ft × \$0\.50\s+Sewer Use Law 1212\s+\$1,200\.00$/);
    expect(fees[1]).toMatch(/^As-built drawing deposit, 1 sheet × \$100\.00 \(refundable\)\s+Sewer Use Law 606 B\s+\$100\.00$/);
    expect(await page.locator("section[aria-labelledby=fees-heading] tfoot").innerText()).toMatch(/Total\s+\$1,300\.00/);

    const paymentId = await paymentIdOn(page, "$1,300.00");
    await page.getByRole("link", { name: "Pay $1,300.00" }).click();
    await page.waitForURL((u) => u.pathname === `/payments/${paymentId}`);
    const receipt = await payThroughStripe(page, paymentId, "$1,300.00");
    await page.goto(url(`/payments/${paymentId}/receipt`));
    const lines = await rows(page, ".tapline-receipt");
    expect(lines[0]).toMatch(/Sewer Use Law 1212\s+\$1,200\.00$/);
    expect(lines[1]).toMatch(/Sewer Use Law 606 B\s+\$100\.00$/);
    expect(await page.locator(".tapline-receipt tfoot").innerText()).toMatch(/Total paid\s+\$1,300\.00/);
    expect(await text(page, ".tapline-receipt")).toContain(receipt);
  });
});

describe("a bad input in the browser", () => {
  let ctx: BrowserContext;
  afterAll(() => ctx?.close());

  it("a commercial building with a floor area of 0: the error is next to the field, and what was typed is kept", async () => {
    const who = await homeowner(e.srv.url, "zero.floor@example.org", "Zoe Zero");
    ctx = await signedInContext(e, who.email, who.password);
    const page = await ctx.newPage();
    await startApplication(page);
    await fillApplication(page, { buildingUse: "COMMERCIAL", floorArea: "0", sheets: "2", streetNumber: "7", street: "Mill Road" });
    await page.getByRole("button", { name: "Submit the application" }).click();

    const error = page.locator("#floorAreaSqft-error");
    await error.waitFor();
    expect(await error.innerText()).toBe("The floor area must be more than zero square feet.");
    const field = page.getByLabel("Floor area of the building, in square feet");
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    expect((await field.getAttribute("aria-describedby"))?.split(" ")).toContain("floorAreaSqft-error");
    // The message sits in the floor area's form group, and the summary links to the field.
    expect(await page.locator(".usa-form-group--error").filter({ has: field }).locator(".usa-error-message").innerText()).toBe(await error.innerText());
    expect(await page.locator("#error-summary a[href='#floorAreaSqft']").innerText()).toContain("Floor area");

    expect(await field.inputValue()).toBe("0");
    expect(await page.getByLabel("House number").inputValue()).toBe("7");
    expect(await page.getByLabel("Street").inputValue()).toBe("Mill Road");
    expect(await page.getByLabel("Tax parcel number").inputValue()).toBe("101.2-3-4");
    expect(await page.locator("#buildingUse-COMMERCIAL").isChecked()).toBe(true);
    expect(await page.locator("#workKind").isChecked()).toBe(true);
    expect(await page.locator("#contractorId option:checked").innerText()).toBe(contractor.name);
    expect(await page.locator("#asBuiltSheets").inputValue()).toBe("2");
    // The page was not reloaded: the file input still holds the chosen plan.
    expect(await page.locator("#file").evaluate((el: HTMLInputElement) => [...(el.files ?? [])].map((f) => f.name))).toEqual(["site-plan.pdf"]);
    // Nothing was saved.
    const count = `SELECT count(*)::int AS n FROM lateral_permit p JOIN app_user u ON u.id = p.applicant_id WHERE u.email = $1`;
    expect((await e.srv.running.ds.query(count, [who.email]))[0].n).toBe(0);

    // Correcting that one field is enough: the application goes through with its plan.
    await field.fill("900");
    await page.getByRole("button", { name: "Submit the application" }).click();
    await page.waitForURL((u) => /^\/permits\/[0-9a-f-]{36}$/.test(u.pathname) && u.searchParams.has("submitted"));
    expect(await text(page, "section[aria-labelledby=fees-heading] tbody")).toMatch(/900 sq ft × \$0\.50\s+Sewer Use Law 1212\s+\$450\.00/);
    expect(await page.locator("dt:text-is('Plans') + dd").innerText()).toBe("site-plan.pdf");
    expect((await e.srv.running.ds.query(count, [who.email]))[0].n).toBe(1);
  });
});

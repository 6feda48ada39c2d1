import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import Stripe from "stripe";
import { expect } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { Client, DEMO, startTestServer } from "../harness.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";
import { launchBrowser, type E2E } from "./browser.js";

/** Fixtures of the lateral permit browser tests: a portal in Stripe mode, an approved contractor, plans. */

export const WEBHOOK_SECRET = "whsec_e2e";
export const LAKEVIEW = { slug: "lakeview", name: "Town of Lakeview Sewer District", timeZone: "America/New_York" };
/** The portal's PUBLIC_URL in tests: Stripe's success and cancel URLs are made from it. */
export const PUBLIC_URL = "http://tapline.test";

export type StripeE2E = E2E & { stripe: StandIn; deliver(event: unknown): Promise<Response> };

/** The portal (with its built pages) on a fresh database, with Stripe keys set and the API pointed at a local stand-in. */
export async function startStripeE2E(): Promise<StripeE2E> {
  const stripe = await startStripeStandIn({ hostedCheckout: true });
  const srv = await startTestServer({
    portal: true,
    env: { STRIPE_SECRET_KEY: "sk_test_e2e", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url },
  });
  await connectDistrictAccount(stripe, srv, "lakeview"); // card payments run on the district's own account
  const browser = await launchBrowser();
  const signer = new Stripe("sk_test_e2e");
  return {
    srv,
    browser,
    stripe,
    /** Delivers an event to the webhook as Stripe does: the raw JSON, signed with the webhook secret. */
    async deliver(event) {
      const payload = JSON.stringify(event);
      const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
    },
    async close() {
      await browser.close();
      await srv.close();
      await stripe.close();
    },
  };
}

/** The success URL Stripe sends the browser to, on this test server rather than PUBLIC_URL. */
export const onServer = (e: E2E, url: string) => {
  expect(url.startsWith(PUBLIC_URL)).toBe(true);
  return `${e.srv.url}${url.slice(PUBLIC_URL.length)}`;
};

/** A small valid PDF of plans, in a temporary file for the browser's file input. */
export function plansPdf(name = "site-plan.pdf"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-e2e-"));
  const file = path.join(dir, name);
  fs.writeFileSync(file, "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF", "latin1");
  return file;
}

/** The Lakeview rulebook's insurance minimums (Sewer Use Law 508), in cents; workers' compensation states no limit. */
const MINIMUMS: Record<string, number | null> = {
  WORKERS_COMPENSATION: null,
  PERSONAL_INJURY_PER_OCCURRENCE: 500_000_00,
  PERSONAL_INJURY_AGGREGATE: 500_000_00,
  PROPERTY_DAMAGE: 500_000_00,
  AUTO_BODILY_INJURY_PER_PERSON: 300_000_00,
  AUTO_BODILY_INJURY_PER_OCCURRENCE: 500_000_00,
  AUTO_PROPERTY_DAMAGE: 500_000_00,
  EXCESS_LIABILITY: 2_000_000_00,
};

/**
 * An approved contractor, through the API as the firm and the Clerk do it: the firm's owner signs
 * up, creates a CONTRACTOR organization, uploads the bond and certificates, applies at the
 * minimums ($5,000.00 bond, SUL 508); the Lakeview Clerk approves.
 */
export async function approvedContractor(url: string, name: string): Promise<{ id: string; name: string }> {
  const slug = name.toLowerCase().replace(/[^a-z]+/g, "-");
  const owner = new Client(url);
  await owner.signUp(`owner@${slug}.example.com`, `Owner of ${name}`);
  const { createOrganization: org } = await owner.ok(`mutation($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }`, { i: { name, kind: "CONTRACTOR" } });
  const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF", "latin1").toString("base64");
  const { uploadDocument: doc } = await owner.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
    i: { filename: "bond-and-certificates.pdf", contentBase64: pdf, organizationId: org.id },
  });
  const { district } = await owner.ok(`{ district(slug: "${LAKEVIEW.slug}") { id } }`);
  const inAYear = addCalendarDays(dateIn(LAKEVIEW.timeZone), 365);
  const { applyAsContractor: applied } = await owner.ok(`mutation($i: ApplyAsContractorInput!) { applyAsContractor(input: $i) { id findings { item } } }`, {
    i: {
      organizationId: org.id,
      districtId: district.id,
      bondAmountCents: 5_000_00,
      bondExpiresOn: inAYear,
      bondDocumentId: doc.id,
      insurance: Object.entries(MINIMUMS).map(([coverage, limitCents]) => ({
        coverage,
        insurer: "Mohawk Mutual",
        policyNumber: `MM-${coverage.slice(0, 6)}-1`,
        limitCents,
        expiresOn: inAYear,
        certificateDocumentId: doc.id,
      })),
    },
  });
  expect(applied.findings).toEqual([]);
  const clerk = new Client(url);
  await clerk.signIn(DEMO.lakeviewClerk);
  const { decideContractor } = await clerk.ok(`mutation($i: DecideContractorInput!) { decideContractor(input: $i) { id status } }`, {
    i: { contractorId: applied.id, decision: "APPROVE", reason: "Bond and certificates checked" },
  });
  expect(decideContractor.status).toBe("APPROVED");
  return { id: applied.id, name };
}

/** A new homeowner's account through the API (for the tests that are not about signing up). */
export async function homeowner(url: string, email: string, name: string, password = "a long and memorable password"): Promise<{ email: string; name: string; password: string }> {
  await new Client(url).signUp(email, name, password);
  return { email, name, password };
}

/** "2026-12-07T09:00" for a datetime-local input: a weekday a few days ahead, as the district's clock reads it. */
export function weekdayAhead(hour: number, days = 3): string {
  let d = addCalendarDays(dateIn(LAKEVIEW.timeZone), days);
  while ([0, 6].includes(new Date(`${d}T12:00:00Z`).getUTCDay())) d = addCalendarDays(d, 1);
  return `${d}T${String(hour).padStart(2, "0")}:00`;
}

/**
 * A newcomer from the home page: "Create an account", the sign-up form, then (signing up signs no
 * one in) the sign-in form it leads to, and the dashboard. Only what the pages show is clicked.
 */
export async function signUpFromHome(page: Page, base: string, who: { name: string; email: string; password?: string }): Promise<void> {
  const password = who.password ?? "a long and memorable password";
  await page.goto(`${base}/`);
  await page.getByRole("link", { name: "Create an account" }).first().click();
  await page.getByLabel("Your name").fill(who.name);
  await page.getByLabel("Email address").fill(who.email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL((u) => u.pathname === "/sign-in");
  await page.getByLabel("Email address").fill(who.email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname === "/dashboard");
  await page.getByRole("heading", { level: 1, name: "My applications" }).waitFor();
}

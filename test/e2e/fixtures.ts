import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { pino } from "pino";
import Stripe from "stripe";
import type { DataSource } from "typeorm";
import { expect } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, startTestServer } from "../harness.js";
import { connectDistrictAccount, startStripeStandIn, type StandIn } from "../stripe-standin.js";
import { closeContexts, sharedBrowser, type E2E } from "./browser.js";

/** Fixtures of the lateral permit browser tests: a portal in Stripe mode, an approved contractor, plans. */

export const WEBHOOK_SECRET = "whsec_e2e";
export const LAKEVIEW = { slug: "lakeview", name: "Town of Lakeview Sewer District", timeZone: "America/New_York" };
/** The portal's PUBLIC_URL in tests: Stripe's success and cancel URLs are made from it. */
export const PUBLIC_URL = "http://tapline.test";

export type StripeE2E = E2E & { stripe: StandIn; deliver(event: unknown): Promise<Response> };

/** The portal (with its built pages) on a fresh database, with Stripe keys set and the API pointed at a local stand-in. */
export async function startStripeE2E(): Promise<StripeE2E> {
  const stripe = await startStripeStandIn({ hostedCheckout: true });
  const browser = sharedBrowser();
  const srv = await startTestServer({
    portal: true,
    env: { STRIPE_SECRET_KEY: "sk_test_e2e", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_CONNECT_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url },
  });
  await connectDistrictAccount(stripe, srv, "lakeview"); // card payments run on the district's own account
  const signer = new Stripe("sk_test_e2e");
  return {
    srv,
    browser: await browser,
    stripe,
    /** Delivers an event to the webhook as Stripe does: the raw JSON, signed with the webhook secret. */
    async deliver(event) {
      const payload = JSON.stringify(event);
      const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      return fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
    },
    async close() {
      await closeContexts(await browser);
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

/** The jobs' runner as the worker runs it, now on the rules' clock (`travelTo`): `name` queued once under a fresh key, then every due job run. */
let jobRuns = 0;
export async function runJobNow(e: E2E, name: string): Promise<void> {
  await enqueueJob(e.srv.running.ds, { name, payload: { publicUrl: PUBLIC_URL }, singletonKey: `e2e-${name}-${++jobRuns}` });
  while ((await runDueJobs(e.srv.running.ds, pino({ level: "silent" }), 20)) > 0);
}

/**
 * Sewer rents (issue 14): the Town Board's rent schedule, entered by the district's ADMIN as the
 * rulebook editor enters it (a resolution, effective-dated), through the API.
 */
export async function boardSetsRents(url: string, adminEmail: string, districtId: string, effectiveDate: string, changes: { key: string; value: number }[]): Promise<void> {
  const admin = new Client(url);
  await admin.signIn(adminEmail);
  await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: { districtId, effectiveDate, reason: "Sewer rent schedule", resolutionNumber: `${effectiveDate.slice(0, 4)}-12`, resolutionAdoptedOn: addCalendarDays(effectiveDate, -14), changes },
  });
}

export type SewerAccount = { propertyId: string; accountId: string; accountNumber: string; meterNumber: string; address: string; zip: string };

/**
 * A property of the register with one open account and its meter, as the Town Clerk enters them
 * (through the API): the owner's sign-in linked when `ownerEmail` is given; on a Lakeview account
 * the 1203 worksheet's one single-family home (`homes`).
 */
export async function sewerAccount(
  clerk: Client,
  o: { districtId: string; taxParcel: string; streetNumber: string; street: string; zip: string; ownerName: string; ownerEmail?: string; occupantName: string; meterNumber: string; openedOn: string; homes?: number },
): Promise<SewerAccount> {
  const { addSewerProperty: p } = await clerk.ok(`mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`, {
    i: { districtId: o.districtId, taxParcel: o.taxParcel, streetNumber: o.streetNumber, street: o.street, zip: o.zip, ownerName: o.ownerName, ownerSince: "2015-06-01", ownerEmail: o.ownerEmail ?? null },
  });
  const { openServiceAccount: a } = await clerk.ok(`mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`, {
    i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: o.occupantName, openedOn: o.openedOn },
  });
  await clerk.ok(`mutation($i: AddServiceMeterInput!) { addServiceMeter(input: $i) { id } }`, { i: { accountId: a.id, meterNumber: o.meterNumber, installedOn: o.openedOn } });
  if (o.homes)
    await clerk.ok(`mutation($i: AssessServiceAccountInput!) { assessServiceAccount(input: $i) { id } }`, {
      i: { accountId: a.id, effectiveOn: o.openedOn, counts: [{ key: "billing.edu.singleFamilyHome", count: o.homes }] },
    });
  return { propertyId: p.id, accountId: a.id, accountNumber: a.accountNumber, meterNumber: o.meterNumber, address: `${o.streetNumber} ${o.street}`, zip: o.zip };
}

/**
 * A sewer extension the Town Board has accepted (SUL 507), written to the database for the tests that
 * start from one (the extensions' own tests walk the journey: application, capacity, tests, as-built
 * drawings, final approval, the Board's concurrence). Its developer organization, the ledger's segment
 * and plant, and every approval are the district's demo Operator's; `accepted: false` leaves it
 * approved and under construction.
 */
export async function acceptedSewerExtension(
  ds: DataSource,
  o: { districtSlug?: string; name: string; location: string; resolutionNumber?: string; acceptedOn?: string; accepted?: boolean },
): Promise<{ id: string; name: string; location: string; districtId: string }> {
  const slug = o.districtSlug ?? LAKEVIEW.slug;
  const [d] = await ds.query(
    `SELECT d.id, (SELECT id FROM app_user WHERE email = $2) AS operator,
            (SELECT id FROM rulebook_version r WHERE r.district_id = d.id AND r.effective_date <= current_date ORDER BY r.effective_date DESC, r.version DESC LIMIT 1) AS rulebook
       FROM district d WHERE d.slug = $1`,
    [slug, slug === "huron" ? DEMO.huronOperator : DEMO.lakeviewOperator],
  );
  const tag = Math.random().toString(36).slice(2, 8);
  const [org] = await ds.query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'DEVELOPER', $2) RETURNING id`, [`Developer of ${o.name} ${tag}`, d.operator]);
  const [segment] = await ds.query(`INSERT INTO sewer_capacity (district_id, kind, name, design_capacity_gpd, present_use_gpd, updated_by_id) VALUES ($1, 'SEGMENT', $2, 100000, 50000, $3) RETURNING id`, [d.id, `Segment ${tag}`, d.operator]);
  const [plant] = await ds.query(`INSERT INTO sewer_capacity (district_id, kind, name, design_capacity_gpd, present_use_gpd, updated_by_id) VALUES ($1, 'PLANT', $2, 1000000, 500000, $3) RETURNING id`, [d.id, `Plant ${tag}`, d.operator]);
  const accepted = o.accepted ?? true;
  const acceptedOn = o.acceptedOn ?? dateIn(LAKEVIEW.timeZone);
  const [ext] = await ds.query(
    `INSERT INTO sewer_extension (district_id, organization_id, applicant_id, status, name, location, map_reference, lots, design_flow_gpd, sewer_type, pipe_diameter_inches, pipe_pvc,
       designer_name, designer_license, receiving_segment_id, plant_id, rulebook_version_id, decided_at, decided_by_id,
       as_built_copies, as_built_approved_at, as_built_approved_by_id, final_approved_at, final_approved_by_id,
       accepted_on, acceptance_resolution_number, accepted_recorded_by_id, guarantee_ends_on, security_kind, security_description)
     VALUES ($1, $2, $3, $4, $5, $6, 'Subdivision map 2026-1', 8, 3200, 'GRAVITY', 8, true, 'Riley Engineer, P.E.', 'NY PE 091234', $7, $8, $9, now(), $3,
       $10, $11, $12, $11, $12, $13, $14, $12, $15, $16, $17) RETURNING id`,
    [
      d.id, org.id, d.operator, accepted ? "ACCEPTED" : "APPROVED", o.name, o.location, segment.id, plant.id, d.rulebook,
      accepted ? 4 : null, accepted ? new Date() : null, accepted ? d.operator : null,
      accepted ? acceptedOn : null, accepted ? (o.resolutionNumber ?? `2026-${tag}`) : null, accepted ? addCalendarDays(acceptedOn, 364) : null, accepted ? "OTHER" : null, accepted ? "A letter of credit the Town Board approved" : null,
    ],
  );
  return { id: ext.id, name: o.name, location: o.location, districtId: d.id };
}

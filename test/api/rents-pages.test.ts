import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dateIn } from "../../api/common/dates.js";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";

/**
 * The register's pages without JavaScript (issue 14): the Clerk adds a property, opens an
 * account and fills in its worksheet by plain form posts; the owner reads their own; a Clerk of
 * another district gets a 404. Rendered by Vite (no build needed).
 */

let srv: TestServer;
let clerk: Client;
let huronClerk: Client;
let owner: Client;
let stranger: Client;

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  clerk = new Client(srv.url);
  await clerk.signIn(DEMO.lakeviewClerk);
  huronClerk = new Client(srv.url);
  await huronClerk.signIn(DEMO.huronClerk);
  owner = new Client(srv.url);
  await owner.signUp("page-owner@example.org", "Paige Owner");
  stranger = new Client(srv.url);
  await stranger.signUp("page-stranger@example.org", "Stu Stranger");
}, 120_000);
afterAll(() => srv?.close());

const { get, post } = portal(() => srv.url);
const text = pageText;

describe("the Clerk's register pages, without JavaScript", () => {
  it("adds a property, opens an account, assesses it on the worksheet; the owner reads it; another district's Clerk cannot", async () => {
    const { lakeview } = await clerk.ok(`{ lakeview: district(slug: "lakeview") { id } }`);
    const list = await get(clerk, `/staff/properties?districtId=${lakeview.id}`);
    expect(list.status).toBe(200);
    expect(text(list.html)).toContain("The Town Board has not set the fixed costs of the sewer system for the fiscal year (Sewer Use Law 1203).");
    expect(text(list.html)).toContain("has no property in its register yet");

    // A refused form names each field by its label, all at once.
    const bad = await post(clerk, `/staff/properties?districtId=${lakeview.id}`, { districtId: lakeview.id, taxParcel: "", street: "Orchard Lane", zip: "13600", ownerName: "" });
    expect(bad.status).toBe(400);
    expect(text(bad.html)).toContain("Tax parcel");
    expect(text(bad.html)).toContain("Enter the owner of record.");

    const added = await post(clerk, `/staff/properties?districtId=${lakeview.id}`, {
      districtId: lakeview.id,
      taxParcel: "120.4-1-9",
      streetNumber: "31",
      street: "Orchard Lane",
      city: "Lakeview",
      zip: "13600",
      segment: "Orchard pump station",
      ownerName: "Paige Owner",
      ownerEmail: "page-owner@example.org",
      ownerSince: "2021-05-01",
    });
    expect(added.status).toBe(302);
    const propertyPath = added.location!;
    expect(propertyPath).toMatch(/^\/staff\/properties\/[0-9a-f-]{36}$/);

    const opened = await post(clerk, propertyPath, { intent: "open", class: "COMMERCIAL", occupantName: "Orchard Café", openedOn: "2024-02-01" });
    expect(opened.status).toBe(302);
    const page = await get(clerk, `${propertyPath}?done=open`);
    expect(text(page.html)).toContain("The account is open.");
    expect(text(page.html)).toContain("Orchard pump station");
    const accountPath = /href="(\/staff\/properties\/accounts\/[0-9a-f-]{36})"/.exec(page.html)?.[1];
    expect(accountPath).toBeTruthy();

    const sheet = await get(clerk, accountPath!);
    expect(sheet.status).toBe(200);
    expect(text(sheet.html)).toContain("Restaurant, per seat");
    expect(text(sheet.html)).toContain("billed every 3 months (Sewer Use Law 1206)");
    const refused = await post(clerk, accountPath!, { intent: "assess", "count.billing.edu.restaurantPerSeat": "-3", effectiveOn: dateIn("America/New_York") });
    expect(refused.status).toBe(400);
    expect(text(refused.html)).toContain("Enter a whole number of seats");
    const assessed = await post(clerk, accountPath!, { intent: "assess", "count.billing.edu.restaurantPerSeat": "40", "count.billing.edu.tavernPerSeat": "10", effectiveOn: "2024-02-01" });
    expect(assessed.status).toBe(302);
    expect(text((await get(clerk, `${accountPath}?done=assess`)).html)).toContain("4.5 EDUs from February 1, 2024");

    const mine = await get(owner, "/properties");
    expect(mine.status).toBe(200);
    expect(text(mine.html)).toContain("31 Orchard Lane, Lakeview 13600");
    expect(text(mine.html)).toContain("You are the owner of record since May 1, 2021");
    expect(text(mine.html)).toContain("Restaurant, per seat: 40 = 4 EDUs (Sewer Use Law 1203)");
    expect(text((await get(stranger, "/properties")).html)).toContain("No property or sewer account is linked to your sign-in.");

    expect((await get(huronClerk, propertyPath)).status).toBe(404);
    expect((await get(huronClerk, accountPath!)).status).toBe(404);
    expect((await get(owner, propertyPath)).status).toBe(403);
  }, 120_000);
});

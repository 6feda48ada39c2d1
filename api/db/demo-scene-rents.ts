import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { addCalendarDays, addMonths, dateIn } from "../common/dates.js";
import { District } from "../districts/district.entity.js";
import { changeRulebook, rulebookOn } from "../districts/districts.service.js";
import { addMeter, assessAccount, openAccount } from "../rents/accounts.service.js";
import { issueBillRun, previewBillRun } from "../rents/bill-runs.service.js";
import { importReadings } from "../rents/readings.service.js";
import { createProperty } from "../rents/register.service.js";

/**
 * Sewer rents' demo scene (demo mode, `npm start` only; the tests build their own records).
 *
 * A bill needs the Town Board's rent schedule, a register of properties and accounts, meter
 * readings and a quarter that is over, so a newcomer would wait a quarter to see one. Each demo
 * district gets: the Board's figures (a resolution the ADMIN entered, in force from the start of the
 * quarter before the last), three properties with their accounts and meters (one owned by the demo
 * applicant, at the address of the enforcement scene, so signing in shows /properties with a
 * bill), the readings of the last two quarters as the Town Clerk imports them (a baseline read
 * before), and the last quarter's bills previewed and issued by the Clerk today. Lakeview bills
 * each home's EDUs and its metered water (SUL 1203); one account's use is far from its own history,
 * so the run page shows a flagged bill. In Huron two users behind one meter each pay the minimum
 * charge and the owner of record the excess (Huron VI-2, VII).
 *
 * Every step goes through the same services as the portal's forms and is skipped when done: a
 * second start finds the figures, the properties, the imports and the run, and does nothing.
 */
export const DEMO_RENTS = {
  homeowner: "applicant@demo.tapline.local",
  lakeview: {
    clerk: "clerk@lakeview.demo.tapline.local",
    admin: "admin@lakeview.demo.tapline.local",
    cycle: "OTHER",
    /** a district of three homes: $900.00 of fixed costs a year is $300.00 an EDU; $6.50 per 1,000 gallons (SUL 1203) */
    board: [
      { key: "billing.fixedCostsPerYear", value: 90_000 },
      { key: "billing.volumeChargePer1000Gallons", value: 650 },
    ],
    properties: [
      { taxParcel: "101.12-1-14", streetNumber: "14", street: "Maple Street", city: "Lakeview", zip: "13600", owner: "Alex Applicant", homeowner: true, users: ["Alex Applicant"], meter: "LV-31014", gallons: [8_200, 8_600] },
      { taxParcel: "101.12-1-16", streetNumber: "16", street: "Maple Street", city: "Lakeview", zip: "13600", owner: "Morgan Reyes", users: ["Morgan Reyes"], meter: "LV-31016", gallons: [11_400, 10_900] },
      { taxParcel: "101.12-1-20", streetNumber: "20", street: "Maple Street", city: "Lakeview", zip: "13600", owner: "Jordan Park", users: ["Jordan Park"], meter: "LV-31020", gallons: [7_000, 31_500] },
    ],
  },
  huron: {
    clerk: "clerk@huron.demo.tapline.local",
    admin: "admin@huron.demo.tapline.local",
    cycle: "ALL",
    /** a minimum charge of $45.00 a period and $5.00 per 1,000 gallons (Huron VII) */
    board: [
      { key: "billing.minimumCharge", value: 4_500 },
      { key: "billing.volumeChargePer1000Gallons", value: 500 },
    ],
    properties: [
      { taxParcel: "88.3-1-8", streetNumber: "8", street: "Lakeshore Drive", city: "Huron", zip: "14500", owner: "Alex Applicant", homeowner: true, users: ["Alex Applicant"], meter: "HU-5008", gallons: [12_800, 13_300] },
      { taxParcel: "88.3-1-10", streetNumber: "10", street: "Lakeshore Drive", city: "Huron", zip: "14500", owner: "Dana Whitcomb", users: ["Dana Whitcomb"], meter: "HU-5010", gallons: [5_100, 4_700] },
      { taxParcel: "88.3-1-12", streetNumber: "12", street: "Lakeshore Drive", city: "Huron", zip: "14500", owner: "Rita Ortiz", users: ["Sam Ortiz (upstairs)", "Kim Lee (downstairs)"], meter: "HU-5012", gallons: [24_000, 26_500] },
    ],
  },
};

type Scene = (typeof DEMO_RENTS)["lakeview"] | (typeof DEMO_RENTS)["huron"];

export async function loadRentsScene(ds: DataSource, publicUrl: string): Promise<void> {
  await rentsOf(ds, publicUrl, "lakeview", DEMO_RENTS.lakeview);
  await rentsOf(ds, publicUrl, "huron", DEMO_RENTS.huron);
}

/** The first day of the billing quarter `back` quarters before today's (quarters start in January, SUL 1206; Huron VI-3's period of three months). */
export function quarterStart(today: string, back: number): string {
  const m = Number(today.slice(5, 7));
  const start = `${today.slice(0, 4)}-${String(Math.floor((m - 1) / 3) * 3 + 1).padStart(2, "0")}-01`;
  return addMonths(start, -3 * back);
}

async function staff(ds: DataSource, email: string, districtId: string, role: "CLERK" | "ADMIN"): Promise<Viewer | null> {
  const [u] = await ds.query(`SELECT id, email, display_name FROM app_user WHERE email = $1 AND demo`, [email]);
  return u ? { userId: u.id, email: u.email, displayName: u.display_name, emailVerified: true, demo: true, staffRoles: [{ districtId, role }], sessionId: null, apiTokenId: null } : null;
}

async function rentsOf(ds: DataSource, publicUrl: string, slug: string, scene: Scene): Promise<void> {
  const district = await ds.getRepository(District).findOneBy({ slug });
  if (!district) return;
  const clerk = await staff(ds, scene.clerk, district.id, "CLERK");
  const admin = await staff(ds, scene.admin, district.id, "ADMIN");
  if (!clerk || !admin) return;
  const today = dateIn(district.timeZone);
  const last = quarterStart(today, 1); // the last quarter that is over: its bills are run
  const before = quarterStart(today, 2); // the quarter before it: the accounts' own history

  // The Board's rent schedule, in force from the start of the quarter before the last, unless set.
  const rb = await rulebookOn(ds, district, last);
  const unset = scene.board.filter((c) => rb.entry(c.key as any).value === null);
  if (unset.length) {
    const adoptedOn = addCalendarDays(before, -20);
    await changeRulebook(ds, { userId: admin.userId }, district.id, {
      effectiveDate: before,
      reason: "Town Board resolution setting the sewer rent schedule (demo)",
      resolutionNumber: `${adoptedOn.slice(0, 4)}-57`,
      resolutionAdoptedOn: adoptedOn,
      changes: unset,
    });
  }

  // The register: each property, its accounts (its users) and their meter (one meter for all of a property's users).
  const [homeowner] = await ds.query(`SELECT id FROM app_user WHERE email = $1 AND demo`, [DEMO_RENTS.homeowner]);
  for (const p of scene.properties) {
    const [known] = await ds.query(`SELECT 1 FROM sewer_property WHERE district_id = $1 AND tax_parcel = $2`, [district.id, p.taxParcel]);
    if (known) continue;
    const property = await createProperty(
      ds,
      clerk,
      { districtId: district.id, taxParcel: p.taxParcel, streetNumber: p.streetNumber, street: p.street, city: p.city, zip: p.zip, ownerName: p.owner, ownerEmail: "homeowner" in p && homeowner ? DEMO_RENTS.homeowner : null, ownerSince: "2019-05-15" },
      {},
    );
    for (const user of p.users) {
      const a = await openAccount(ds, clerk, { propertyId: property.id, class: "RESIDENTIAL", occupantName: user, openedOn: "2023-01-01" }, {});
      await addMeter(ds, clerk, { accountId: a.id, meterNumber: p.meter, installedOn: "2023-01-01" }, {});
      // SUL 1203: each home is one EDU (the worksheet's single-family row); Huron assesses each user (VI-2) on opening.
      if (slug === "lakeview") await assessAccount(ds, clerk, { accountId: a.id, effectiveOn: "2023-01-01", counts: [{ key: "billing.edu.singleFamilyHome", count: 1 }] }, {});
    }
  }

  // Two quarters of readings as the Clerk imports them: a baseline read before, then one read near each quarter's end.
  const imported = new Set<string>((await ds.query(`SELECT file_name FROM meter_reading_import WHERE district_id = $1`, [district.id])).map((r: any) => r.file_name));
  const readsOf = (start: string, i: number) => {
    const on = addCalendarDays(addMonths(start, 3), -2);
    return scene.properties.map((p) => `${p.meter},${on},${1000 + p.gallons.slice(0, i + 1).reduce((s, g) => s + g, 0)}`);
  };
  const files = [
    { name: `demo-route-1-${before.slice(0, 7)}.csv`, rows: [...scene.properties.map((p) => `${p.meter},${addCalendarDays(before, -1)},1000`), ...readsOf(before, 0)] },
    { name: `demo-route-1-${last.slice(0, 7)}.csv`, rows: readsOf(last, 1) },
  ];
  for (const f of files)
    if (!imported.has(f.name)) await importReadings(ds, clerk, { districtId: district.id, fileName: f.name, csv: ["meter,date,reading", ...f.rows].join("\n") }, {});

  // The last quarter's bills: previewed and issued by the Clerk today, unless the district has run bills already.
  const [run] = await ds.query(`SELECT id, status FROM bill_run WHERE district_id = $1 ORDER BY period_start DESC LIMIT 1`, [district.id]);
  if (run?.status === "ISSUED") return;
  const runId = run?.id ?? (await previewBillRun(ds, clerk, { districtId: district.id, cycle: scene.cycle, periodStart: last }, {})).id;
  await issueBillRun(ds, clerk, { runId, mailedOn: today, confirm: true }, { publicUrl });
}

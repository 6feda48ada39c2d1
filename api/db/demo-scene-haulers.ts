import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, addMonths, dateIn, formatDate, zonedWallTime } from "../common/dates.js";
import type { Config } from "../config.js";
import { District } from "../districts/district.entity.js";
import { changeRulebook, rulebookOn } from "../districts/districts.service.js";
import { storeDocument } from "../documents/documents.service.js";
import { licenseEnd, licenseNumber } from "../haulers/rules.js";
import { createOrganization } from "../organizations/organizations.service.js";

/**
 * The septage hauler's demo scene (demo mode, `npm start` only; the tests build their own records).
 *
 * Lakeview's law leaves the dumping fee to the Town Board (SUL 1208) and has it paid before dumping
 * (SUL 801), so until the Board sets it no load can be booked. The demo sets it as the Board would:
 * a resolution adopted six weeks ago, entered by the ADMIN through the rulebook editor's own change
 * (a new rulebook version citing the resolution, in force a month ago).
 *
 * A licence is in force only from the Board's approval, for a year (SUL 802), and renewal opens
 * `hauler.renewalWindowDays` (60) before its last day, so a newcomer could walk a renewal only after
 * ten months. The demo hauler's company therefore holds a licence whose dates put today inside that
 * window, three quarters of it left (45 days of 60, between the 60- and 30-day reminders), worked out
 * from the rulebook's term and window; its Part 364 permit is valid past the end of the licence that
 * renews it. With it the hauler books a load, pays, has it
 * received at the station and starts the renewal at once; a new company can still apply from scratch.
 * The company is made as its owner makes one, and, given the upload folder (`config`), its Part 364
 * permit is on file as an upload, so the renewal goes in without one. Loaded once: a second start
 * finds the figures set and the company there, and does nothing.
 */
export const DEMO_HAULER = {
  email: "hauler@demo.tapline.local",
  organization: "Lakeshore Septic Services LLC",
  district: "lakeview",
  admin: "admin@lakeview.demo.tapline.local",
  board: "board@lakeview.demo.tapline.local",
  /** the Board's figures: $60.00 per 1,000 gallons, at least $50.00 a load */
  ratePer1000Cents: 6000,
  minimumCents: 5000,
  /** the share of the renewal window still to run today: 3/4 of 60 days, 45 days left */
  windowLeft: 3 / 4,
};

/**
 * The demo licence's first and last days: its last day `windowLeft` of the renewal window ahead of
 * today, its first day the one whose term (SUL 802, termLastDay) ends then.
 */
export function demoLicenceDates(today: string, termMonths: number, windowDays: number): { validFrom: string; validUntil: string } {
  const validUntil = addCalendarDays(today, Math.floor(windowDays * DEMO_HAULER.windowLeft));
  let validFrom = addMonths(validUntil, -termMonths);
  while (licenseEnd(validFrom, termMonths) < validUntil) validFrom = addCalendarDays(validFrom, 1);
  while (licenseEnd(validFrom, termMonths) > validUntil) validFrom = addCalendarDays(validFrom, -1);
  return { validFrom, validUntil };
}

const PDF = Buffer.from("%PDF-1.4\n1 0 obj<< /Type /Catalog >>endobj\ntrailer<< /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");

export async function loadDemoHaulerScene(ds: DataSource, config?: Config): Promise<void> {
  const district = await ds.getRepository(District).findOneBy({ slug: DEMO_HAULER.district });
  if (!district) return;
  await setDumpingFee(ds, district);
  await licensedHauler(ds, district, config);
}

/** The Town Board's dumping fee, entered as the ADMIN's editor enters it (changeRulebook), unless a figure is already in force. */
async function setDumpingFee(ds: DataSource, district: District): Promise<void> {
  const [admin] = await ds.query(`SELECT id FROM app_user WHERE email = $1 AND demo`, [DEMO_HAULER.admin]);
  if (!admin) return;
  const rb = await rulebookOn(ds, district);
  if (typeof rb.entry("hauler.dumpingFeePer1000Gallons").value === "number") return;
  const today = dateIn(district.timeZone);
  const adoptedOn = addCalendarDays(today, -44);
  await changeRulebook(ds, { userId: admin.id }, district.id, {
    effectiveDate: addCalendarDays(today, -30),
    reason: "Town Board resolution setting the septage dumping fee (demo)",
    resolutionNumber: `${adoptedOn.slice(0, 4)}-41`,
    resolutionAdoptedOn: adoptedOn,
    changes: [
      { key: "hauler.dumpingFeePer1000Gallons", value: DEMO_HAULER.ratePer1000Cents },
      { key: "hauler.dumpingFeeMinimumPerLoad", value: DEMO_HAULER.minimumCents },
    ],
  });
}

/** The demo hauler's company, its two trucks and its licence, approved by the Board with its renewal window open today, with dates as the law has them. */
async function licensedHauler(ds: DataSource, district: District, config?: Config): Promise<void> {
  const [user] = await ds.query(`SELECT id, email, display_name FROM app_user WHERE email = $1 AND demo`, [DEMO_HAULER.email]);
  const [board] = await ds.query(`SELECT id FROM app_user WHERE email = $1 AND demo`, [DEMO_HAULER.board]);
  const [known] = await ds.query(`SELECT id FROM organization WHERE name = $1`, [DEMO_HAULER.organization]);
  if (!user || !board || known) return;
  const owner: Viewer = { userId: user.id, email: user.email, displayName: user.display_name, emailVerified: true, demo: true, staffRoles: [], sessionId: null, apiTokenId: null };
  const { id: orgId } = await createOrganization(ds, owner, { name: DEMO_HAULER.organization, kind: "HAULER" });
  const permit = config ? await storeDocument(ds, config, owner, { filename: "part-364-permit.pdf", contentBase64: PDF, organizationId: orgId }) : null;
  await ds.transaction(async (tx) => {
    const today = dateIn(district.timeZone);
    const now = await rulebookOn(tx, district);
    const term = now.require("hauler.licenseTermMonths").value;
    const { validFrom, validUntil } = demoLicenceDates(today, term, now.require("hauler.renewalWindowDays").value);
    const submittedOn = addCalendarDays(validFrom, -12);
    // The rulebook the application was judged by (its fee), as on the day it was submitted.
    const rb = await rulebookOn(tx, district, submittedOn);
    const at = (day: string, hour: number) => zonedWallTime(Date.parse(`${day}T${String(hour).padStart(2, "0")}:00:00Z`), district.timeZone);
    const year = validFrom.slice(0, 4);
    const [{ last }] = await tx.query(
      `INSERT INTO hauler_license_counter (district_id, year, last) VALUES ($1, $2, 1)
       ON CONFLICT (district_id, year) DO UPDATE SET last = hauler_license_counter.last + 1 RETURNING last`,
      [district.id, Number(year)],
    );
    const [{ id: licenseId }] = await tx.query(
      `INSERT INTO hauler_license (organization_id, district_id, applicant_id, status, license_number, part364_permit_number, part364_expires_on,
                                   part364_document_id, annual_volume_gallons, service_area, certified_at, certified_by_id, rulebook_version_id, application_fee_cents,
                                   paid_at, submitted_at, decided_at, decided_by_id, valid_from, valid_until, dumping_location, dumping_days,
                                   dumping_from, dumping_to, created_at, updated_at)
       VALUES ($1, $2, $3, 'APPROVED', $4, '9-4470-00112', $5, $14, 320000, 'Towns of Lakeview and Harbor, Oswego County', $6, $3, $7, $8,
               $6, $6, $9, $10, $11, $12, 'Lakeview WWTP septage receiving station, 12 Plant Road', '{1,2,3,4,5}', '07:00', '15:00', $13, $9)
       RETURNING id`,
      [
        orgId,
        district.id,
        user.id,
        licenseNumber(district.slug, year, last),
        // The NYSDEC Part 364 permit runs past the last day of the licence that renews this one (SUL 802).
        addCalendarDays(validUntil, 400),
        at(submittedOn, 10),
        rb.version.id,
        rb.require("hauler.applicationFee").value,
        at(validFrom, 10),
        board.id,
        validFrom,
        validUntil,
        at(addCalendarDays(submittedOn, -1), 16),
        permit?.id ?? null,
      ],
    );
    await tx.query(
      `INSERT INTO hauler_vehicle (license_id, position, make, model, tank_capacity_gallons, plate, plate_state, colour, registered_owner)
       VALUES ($1, 0, 'International', 'HV607', 3000, 'LSS3001', 'NY', 'White', $2), ($1, 1, 'Freightliner', 'M2 106', 2500, 'LSS2502', 'NY', 'Blue', $2)`,
      [licenseId, DEMO_HAULER.organization],
    );
    await audit(tx, { userId: null }, {
      action: "hauler.demo_scene",
      entityType: "HaulerLicense",
      entityId: licenseId,
      districtId: district.id,
      reason: `Demo mode: a licence approved on ${formatDate(validFrom)}, its renewal open`,
      details: { validFrom, validUntil },
    });
  });
}

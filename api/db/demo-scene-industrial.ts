import type { DataSource } from "typeorm";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, termLastDay, zonedWallTime } from "../common/dates.js";
import { rulebookOn } from "../districts/districts.service.js";
import { loadDistrict } from "../industrial/common.js";
import { defaultLimits } from "../industrial/limits.js";
import { createReports, insertLimits, nextPermitNumber, noticeOfIntent, reportPeriods, rulebookReportingMonths } from "../industrial/permits.service.js";

/**
 * The industrial user's demo scene (demo mode only). An industrial discharge permit
 * is issued only after its notice has run its days (14 in Lakeview, SUL 1004 H), so the demo's
 * industrial user gets one issued four months ago, with the district's limits and its periodic
 * reports, the current one open for lab results. Loaded once: a second start finds the organization and does nothing.
 */
export const DEMO_INDUSTRY = { email: "industry@demo.tapline.local", organization: "Harbor Plating Works LLC", district: "lakeview" };

export async function loadIndustrialScene(ds: DataSource, publicUrl: string): Promise<void> {
  await ds.transaction(async (tx) => {
    const [user] = await tx.query(`SELECT id FROM app_user WHERE email = $1 AND demo`, [DEMO_INDUSTRY.email]);
    const [known] = await tx.query(`SELECT id FROM organization WHERE name = $1`, [DEMO_INDUSTRY.organization]);
    if (!user || known) return;
    const [{ id: districtId }] = await tx.query(`SELECT id FROM district WHERE slug = $1`, [DEMO_INDUSTRY.district]);
    const district = await loadDistrict(tx, districtId);
    const rb = await rulebookOn(tx, district);
    const [{ id: orgId }] = await tx.query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'INDUSTRIAL_USER', $2) RETURNING id`, [DEMO_INDUSTRY.organization, user.id]);
    // The demo user enters the results and signs the reports as the Authorized Representative (SUL 1005(3)(c)).
    await tx.query(`INSERT INTO membership (organization_id, user_id, role) VALUES ($1, $2, 'AUTHORIZED_REPRESENTATIVE')`, [orgId, user.id]);
    // Dates as the law would have them: applied, notice published, issued the rulebook's days later
    // (SUL 1004 H), for the longest term it allows (1004 D), reporting in its months (1005(3)(a)).
    const notice = rb.require("industrial.publicNoticeDays");
    const today = dateIn(district.timeZone);
    const effectiveOn = addCalendarDays(today, -120);
    const noticeOn = addCalendarDays(effectiveOn, -notice.value);
    const submittedOn = addCalendarDays(noticeOn, -10);
    const expiresOn = termLastDay(effectiveOn, rb.require("industrial.permitMaxTermYears").value * 12);
    const months = rulebookReportingMonths(rb);
    const at = (day: string) => zonedWallTime(Date.parse(`${day}T10:00:00Z`), district.timeZone);
    const facility = { facilityName: "Harbor Plating Works", street: "12 Foundry Lane", city: "Lakeview", zip: "13600", sicCodes: ["3471"], averageFlowGpd: 12000 };
    const [{ id: permitId }] = await tx.query(
      `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, street, city, zip, sic_codes, constituents, discharge_schedule,
                                      discharge_hours_per_day, average_flow_gpd, peak_flow_gpd, activities, products, raw_materials, employees, hours_of_operation,
                                      pretreatment_hours, pollutants, standards_met, rulebook_version_id, submitted_at, notice_published_on, notice_published_at,
                                      permit_number, issued_at, effective_on, expires_on, reporting_months, notice_text)
       VALUES ($1, $2, $3, 'ISSUED', $4, $5, $6, $7, $8, $9, 'Weekdays 7:00-15:00',
               8, $10, 20000, 'Zinc electroplating of fasteners', $11, $12, 42, 'Mon-Fri 6:00-16:00',
               'Mon-Fri 6:00-16:00', $13, true, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23) RETURNING id`,
      [
        districtId,
        orgId,
        user.id,
        facility.facilityName,
        facility.street,
        facility.city,
        facility.zip,
        facility.sicCodes,
        JSON.stringify([{ parameter: "Zinc", value: 0.9, unit: "mg/L" }]),
        facility.averageFlowGpd,
        JSON.stringify([{ name: "Zinc-plated fasteners", amount: 40000, unit: "parts/day", process: "Barrel plating" }]),
        JSON.stringify([{ name: "Zinc chloride", averagePerDay: 50, maximumPerDay: 80, unit: "lb/day" }]),
        JSON.stringify([{ parameter: "Zinc", concentration: 0.9, unit: "mg/L", standardMet: true }]),
        rb.version.id,
        at(submittedOn),
        noticeOn,
        at(noticeOn),
        await nextPermitNumber(tx, district),
        at(effectiveOn),
        effectiveOn,
        expiresOn,
        months,
        noticeOfIntent(district, DEMO_INDUSTRY.organization, facility, noticeOn, notice),
      ],
    );
    await insertLimits(tx, permitId, defaultLimits(rb));
    await createReports(tx, permitId, reportPeriods(months, effectiveOn, expiresOn), district, publicUrl);
    await audit(tx, { userId: null }, { action: "industrial.demo_scene", entityType: "IndustrialPermit", entityId: permitId, districtId, reason: "Demo mode: a permit issued four months ago" });
  });
}

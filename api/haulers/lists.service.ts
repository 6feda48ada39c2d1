import { type DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { addCalendarDays, dateIn, isCalendarDate, endOfDay, type CalendarDate } from "../common/dates.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { District } from "../districts/district.entity.js";
import { listDistricts, rulebookOn } from "../districts/districts.service.js";
import { roleIn } from "../organizations/organizations.service.js";
import { HaulerLicense, HaulerLoad, HaulerPermission } from "./hauler.entity.js";
import { licenseStanding, loadBookingReadiness, permissionStanding, wallClock, type BookingReadiness, type Standing } from "./rules.js";
import { adjustmentCents, loadDistrict, part364Opts, toLoad } from "./common.js";

/** What members and staff list: a company's licences, permissions and loads, the staff queues, the station's day sheet, the monthly statement, the refunds due. */

/** How a district admits septage haulers, from its rulebook today: the choices of the licence and permission forms, and whether loads can be booked. */
export type HaulerDistrictView = {
  id: string;
  name: string;
  slug: string;
  licensesHaulers: boolean;
  grantsSpecialPermission: boolean;
  section: string;
  note: string | null;
  booking: BookingReadiness;
};

/** Every district with how it admits haulers (SUL 801: the Town Board's licence; Huron IV-8: the Superintendent's special permission). Public, like the rulebooks. */
export async function haulerDistricts(ds: DataSource): Promise<HaulerDistrictView[]> {
  return Promise.all(
    (await listDistricts(ds)).map(async (d) => {
      const rb = await rulebookOn(ds, d);
      const licensing = rb.entry("hauler.licensingEnabled");
      return {
        id: d.id,
        name: d.name,
        slug: d.slug,
        licensesHaulers: rb.enabled("hauler.licensingEnabled"),
        grantsSpecialPermission: rb.enabled("hauler.specialPermissionEnabled"),
        section: licensing.section,
        note: licensing.note ?? null,
        booking: loadBookingReadiness(rb, d.name),
      };
    }),
  );
}

export async function organizationLicenses(ds: DataSource, viewer: Viewer, organizationId: string): Promise<HaulerLicense[]> {
  if (!(await roleIn(ds, viewer.userId, organizationId))) throw notFound("That organization");
  return ds.getRepository(HaulerLicense).find({ where: { organizationId }, order: { createdAt: "DESC", id: "DESC" } });
}

export async function organizationPermissions(ds: DataSource, viewer: Viewer, organizationId: string): Promise<HaulerPermission[]> {
  if (!(await roleIn(ds, viewer.userId, organizationId))) throw notFound("That organization");
  return ds.getRepository(HaulerPermission).find({ where: { organizationId }, order: { createdAt: "DESC", id: "DESC" } });
}

export async function organizationLoads(ds: DataSource, viewer: Viewer, organizationId: string, first = 50): Promise<HaulerLoad[]> {
  if (!(await roleIn(ds, viewer.userId, organizationId))) throw notFound("That organization");
  return ds.getRepository(HaulerLoad).find({ where: { organizationId }, order: { plannedArrival: "DESC", id: "DESC" }, take: pageSize(first) });
}

/** The Board's queue: submitted licence applications and renewals, paid ones first (the fee is paid before review). */
export async function licenseQueue(ds: DataSource, viewer: Viewer, districtId: string): Promise<HaulerLicense[]> {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  return ds
    .getRepository(HaulerLicense)
    .createQueryBuilder("l")
    .where("l.district_id = :d AND l.status = 'SUBMITTED'", { d: districtId })
    .orderBy("l.paid_at IS NULL", "ASC")
    .addOrderBy("l.submitted_at", "ASC")
    .addOrderBy("l.id", "ASC")
    .limit(200)
    .getMany();
}

export async function permissionQueue(ds: DataSource, viewer: Viewer, districtId: string): Promise<HaulerPermission[]> {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  return ds.getRepository(HaulerPermission).find({ where: { districtId }, order: { createdAt: "DESC" }, take: 200 });
}

/** Approved licences whose last day is within `withinDays` (60 unless asked) of today, soonest first (index hauler_license_expiring). */
export async function expiringLicenses(ds: DataSource, viewer: Viewer, districtId: string, withinDays = 60): Promise<HaulerLicense[]> {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
  if (!Number.isInteger(withinDays) || withinDays < 0 || withinDays > 366) throw badInput({ withinDays: "Ask for 0 to 366 days." });
  const district = await loadDistrict(ds, districtId);
  const today = dateIn(district.timeZone);
  return ds
    .getRepository(HaulerLicense)
    .createQueryBuilder("l")
    .where("l.district_id = :d AND l.status = 'APPROVED' AND l.valid_until >= :today AND l.valid_until <= :until", { d: districtId, today, until: addCalendarDays(today, withinDays) })
    .orderBy("l.valid_until", "ASC")
    .addOrderBy("l.id", "ASC")
    .getMany();
}

/** One load on the day sheet, with what the station needs beside it. */
export type DaySheetRow = {
  load: HaulerLoad;
  /** "09:00", the planned arrival on the district's clock */
  arrivalTime: string;
  /** the planned arrival as an ISO instant (a string: cheaper to send for 300 rows than a DateTime) */
  arrivalAt: string;
  organizationName: string;
  plate: string;
  vehicle: string;
  tankCapacityGallons: number;
  holderNumber: string | null;
  holderInForce: boolean;
  holderReasons: string[];
  paymentStatus: string | null;
};

/**
 * The station's day sheet: every load planned for `date` (the district's zone), by arrival, with
 * its company, vehicle, licence standing and payment. One SQL statement whatever the number of loads
 * (index hauler_load_day_sheet); the rulebook comes from the in-process cache.
 */
export async function daySheet(
  ds: DataSource,
  viewer: Viewer,
  districtId: string,
  date?: string | null,
  loaded?: District | null,
  page: { first?: number | null; after?: string | null } = {},
): Promise<{ date: CalendarDate; timeZone: string; rows: DaySheetRow[]; total: number; nextCursor: string | null }> {
  if (!hasRole(viewer, "OPERATOR", districtId) && !hasRole(viewer, "CLERK", districtId)) throw forbidden("Only the District Operator and the Clerk of this district see the station's day sheet.");
  const district = loaded ?? (await loadDistrict(ds, districtId));
  const day = date ?? dateIn(district.timeZone);
  if (!isCalendarDate(day)) throw badInput({ date: "Use a date like 2026-12-07." });
  const from = endOfDay(addCalendarDays(day, -1), district.timeZone);
  const to = endOfDay(day, district.timeZone);
  const first = page.first ?? 25;
  if (!Number.isInteger(first) || first < 1 || first > 100) throw badInput({ first: "Ask for 1 to 100 loads at a time." });
  let cursor: [string, string] | null = null;
  if (page.after) {
    const { key: at, id } = decodeCursor(page.after, isInstant)!;
    cursor = [at, id];
  }
  // One page of the day by arrival (index hauler_load_day_sheet), with the whole day's count in the same statement.
  const raw: any[] = await ds.query(
    `SELECT x.*, o.name AS org_name, v.plate, v.make, v.model, v.tank_capacity_gallons, p.status AS payment_status,
            to_char(x.planned_arrival AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at, d.day_total
       FROM (SELECT id, planned_arrival, count(*) OVER () AS day_total FROM hauler_load
              WHERE district_id = $1 AND planned_arrival >= $2 AND planned_arrival < $3 AND status <> 'CANCELLED') d
       JOIN hauler_load x ON x.id = d.id
       JOIN organization o ON o.id = x.organization_id
       JOIN hauler_vehicle v ON v.id = x.vehicle_id
       LEFT JOIN payment p ON p.id = x.payment_id
      WHERE $4::timestamptz IS NULL OR (d.planned_arrival, d.id) > ($4::timestamptz, $5::uuid)
      ORDER BY d.planned_arrival ASC, d.id ASC
      LIMIT $6`,
    [districtId, from, to, cursor?.[0] ?? null, cursor?.[1] ?? null, first + 1],
  );
  const more = raw.length > first;
  if (more) raw.length = first;
  const total = raw.length ? Number(raw[0].day_total) : 0;
  const last = raw[raw.length - 1];
  // The licences and permissions the day's loads come under, once each (a day has few haulers).
  const licenseIds = [...new Set(raw.map((r) => r.license_id).filter(Boolean))];
  const permissionIds = [...new Set(raw.map((r) => r.permission_id).filter(Boolean))];
  const holders: any[] = raw.length
    ? await ds.query(
        `SELECT 'L' AS kind, id, status, license_number AS number, valid_from::text AS valid_from, valid_until::text AS valid_until, part364_expires_on::text AS part364_expires_on,
                part364_revoked_at, part364_permit_number, action_reason AS reason
           FROM hauler_license WHERE id = ANY($1::uuid[])
         UNION ALL
         SELECT 'P', id, status, NULL, valid_from::text, valid_until::text, NULL, NULL, NULL, decision_reason
           FROM hauler_permission WHERE id = ANY($2::uuid[])`,
        [licenseIds, permissionIds],
      )
    : [];
  const rb = await rulebookOn(ds, district);
  const opts = part364Opts(rb);
  const permissionSection = rb.entry("hauler.specialPermissionEnabled").section;
  const today = dateIn(district.timeZone);
  const standings = new Map<string, { number: string | null; standing: Standing }>();
  for (const h of holders)
    standings.set(h.id, {
      number: h.kind === "L" ? h.number : "Special permission",
      standing:
        h.kind === "L"
          ? licenseStanding(
              {
                status: h.status,
                validFrom: h.valid_from,
                validUntil: h.valid_until,
                part364ExpiresOn: h.part364_expires_on,
                part364RevokedAt: h.part364_revoked_at,
                part364PermitNumber: h.part364_permit_number,
                actionReason: h.reason,
              } as HaulerLicense,
              today,
              opts,
            )
          : permissionStanding({ status: h.status, validFrom: h.valid_from, validUntil: h.valid_until, decisionReason: h.reason } as HaulerPermission, today, permissionSection),
    });
  const rows = raw.map((r) => {
    const holder = standings.get(r.license_id ?? r.permission_id);
    const load = toLoad(r) as HaulerLoad;
    const minutes = wallClock(load.plannedArrival, district.timeZone).minutes;
    return {
      load,
      arrivalTime: `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`,
      arrivalAt: load.plannedArrival.toISOString(),
      organizationName: r.org_name,
      plate: r.plate,
      vehicle: `${r.make} ${r.model}`,
      tankCapacityGallons: r.tank_capacity_gallons,
      holderNumber: holder?.number ?? null,
      holderInForce: holder?.standing.inForce ?? false,
      holderReasons: holder?.standing.reasons ?? [],
      paymentStatus: r.payment_status,
    };
  });
  return {
    date: day,
    timeZone: district.timeZone,
    rows,
    total,
    nextCursor: more && last ? encodeCursor(last.cursor_at, last.id) : null,
  };
}

export type StatementLine = { load: HaulerLoad; plate: string; feePaidCents: number; adjustmentCents: number; sampleCents: number; refunded: boolean };

/**
 * A month's statement for a hauling company in a district: its loads planned that month, the
 * dumping fees paid, the difference between the fee on the measured and on the estimated gallons
 * (billed or credited, SUL 1208), sample costs (SUL 804), and the balance.
 */
export async function statement(ds: DataSource, viewer: Viewer, input: { organizationId: string; districtId: string; month?: string | null }) {
  if (!(await roleIn(ds, viewer.userId, input.organizationId))) throw notFound("That organization");
  const district = await loadDistrict(ds, input.districtId);
  const month = input.month ?? dateIn(district.timeZone).slice(0, 7);
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw badInput({ month: "Use a month like 2026-12." });
  const first = `${month}-01`;
  const nextMonth = new Date(Date.UTC(+month.slice(0, 4), +month.slice(5, 7), 1)).toISOString().slice(0, 10);
  const from = endOfDay(addCalendarDays(first, -1), district.timeZone);
  const to = endOfDay(addCalendarDays(nextMonth, -1), district.timeZone);
  const raw: any[] = await ds.query(
    `SELECT x.*, v.plate, p.status AS payment_status,
            EXISTS (SELECT 1 FROM refund r WHERE r.payment_id = x.payment_id AND r.line_codes ? 'dumping-fee') AS refunded
       FROM hauler_load x JOIN hauler_vehicle v ON v.id = x.vehicle_id LEFT JOIN payment p ON p.id = x.payment_id
      WHERE x.organization_id = $1 AND x.district_id = $2 AND x.planned_arrival >= $3 AND x.planned_arrival < $4 AND x.status <> 'CANCELLED'
      ORDER BY x.planned_arrival ASC, x.id ASC`,
    [input.organizationId, district.id, from, to],
  );
  const lines: StatementLine[] = raw.map((r) => {
    const load = toLoad(r) as HaulerLoad;
    const paid = ["PAID", "PARTIALLY_REFUNDED", "REFUNDED"].includes(r.payment_status);
    return {
      load,
      plate: r.plate,
      feePaidCents: paid ? load.feeCents : 0,
      adjustmentCents: adjustmentCents(load),
      sampleCents: load.sampleRequired && load.status !== "REFUSED" ? load.sampleCostCents ?? 0 : 0,
      refunded: r.refunded,
    };
  });
  const sum = (f: (l: StatementLine) => number) => lines.reduce((s, l) => s + f(l), 0);
  const adjustments = sum((l) => l.adjustmentCents);
  const samples = sum((l) => l.sampleCents);
  const rb = await rulebookOn(ds, district);
  return {
    month,
    districtId: district.id,
    districtName: district.name,
    timeZone: district.timeZone,
    lines,
    feesPaidCents: sum((l) => l.feePaidCents),
    refundedCents: sum((l) => (l.refunded ? l.load.feeCents : 0)),
    adjustmentsCents: adjustments,
    samplesCents: samples,
    balanceCents: adjustments + samples,
    feeSection: rb.entry("hauler.dumpingFeePer1000Gallons").section,
    sampleSection: rb.entry("hauler.sampleCost").section,
  };
}

/** Refused loads whose dumping fee the Clerk is to refund, and whether it is refunded yet. */
export async function refundsDue(ds: DataSource, viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "CLERK", districtId) && !hasRole(viewer, "OPERATOR", districtId)) throw forbidden("Only the Clerk and the District Operator see the refunds due.");
  const raw: any[] = await ds.query(
    `SELECT x.*, o.name AS org_name, v.plate, p.receipt_number
       FROM hauler_load x JOIN organization o ON o.id = x.organization_id JOIN hauler_vehicle v ON v.id = x.vehicle_id
       JOIN payment p ON p.id = x.payment_id
      WHERE x.district_id = $1 AND x.refund_due
        AND NOT EXISTS (SELECT 1 FROM refund r WHERE r.payment_id = x.payment_id AND r.line_codes ? 'dumping-fee')
      ORDER BY x.decided_at ASC LIMIT 200`,
    [districtId],
  );
  return raw.map((r) => ({ load: toLoad(r) as HaulerLoad, organizationName: r.org_name, plate: r.plate, receiptNumber: r.receipt_number as string | null }));
}

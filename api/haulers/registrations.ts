import { type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, daysBetween, formatDateTime, wallClock } from "../common/dates.js";
import { formatCents } from "../common/money.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { District } from "../districts/district.entity.js";
import { rulebookById } from "../districts/districts.service.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { registerPayable, type Payment } from "../payments/payments.service.js";
import { HaulerLicense, HaulerLoad, type LicenseStatus, type LoadStatus } from "./hauler.entity.js";
import { type Db, LICENSE_PAYABLE, LOAD_PAYABLE, part364Opts, staffOf, tell } from "./common.js";
import { LICENSE_STATUS_LABELS, LOAD_STATUS_LABELS, licenseNextStep, licenseStanding, loadBookingReadiness, renewalOpensOn, type LicenseAction } from "./rules.js";

/** Septage haulers plug into payments, documents and the dashboard here (imported once, for its effects). */

registerPayable(LICENSE_PAYABLE, {
  async onPaid(tx: EntityManager, payment: Payment) {
    const l = await tx.getRepository(HaulerLicense).createQueryBuilder("l").setLock("pessimistic_write").where("l.id = :id", { id: payment.payableId }).getOne();
    if (!l || l.paymentId !== payment.id || l.paidAt) return;
    await tx.update(HaulerLicense, { id: l.id }, { paidAt: payment.paidAt ?? clock.now(), updatedAt: clock.now() });
    await audit(tx, { userId: null }, { action: "hauler.application_fee_paid", entityType: "HaulerLicense", entityId: l.id, districtId: l.districtId, details: { paymentId: payment.id, receiptNumber: payment.receiptNumber } });
    const district = await tx.findOneByOrFail(District, { id: l.districtId });
    const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
    await tell(tx, await staffOf(tx, l.districtId, "BOARD"), l.districtId, "hauler.license_to_decide", `Hauler licence ${l.previousLicenseId ? "renewal" : "application"} to decide: ${org.name}`,
      `${org.name}'s ${l.previousLicenseId ? "renewal" : "application"} is paid and waits for the Town Board's decision.`, "Decide it in the portal: Staff, Haulers.", district);
  },
  async title(id, db) {
    return (await licenseTitles(db, [id])).get(id) ?? "Hauler licence application";
  },
  titles: (ids, db) => licenseTitles(db, ids),
  href: (id) => `/haulers/licenses/${id}`,
});

async function licenseTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows: any[] = ids.length
    ? await db.query(`SELECT l.id, l.license_number, l.previous_license_id, o.name FROM hauler_license l JOIN organization o ON o.id = l.organization_id WHERE l.id = ANY($1::uuid[])`, [ids.filter(isUuid)])
    : [];
  return new Map(rows.map((r) => [r.id, `${r.previous_license_id ? "Hauler licence renewal" : "Hauler licence application"}, ${r.name}`]));
}

registerPayable(LOAD_PAYABLE, {
  /** Paid: the load records it; where the district needs no approval of each load, it is approved by payment. */
  async onPaid(tx: EntityManager, payment: Payment) {
    const x = await tx.getRepository(HaulerLoad).createQueryBuilder("x").setLock("pessimistic_write").where("x.id = :id", { id: payment.payableId }).getOne();
    if (!x || x.paymentId !== payment.id || x.paidAt) return;
    const rb = await rulebookById(tx, x.rulebookVersionId);
    const auto = x.status === "BOOKED" && !rb.enabled("hauler.loadApprovalRequired");
    await tx.update(HaulerLoad, { id: x.id }, { paidAt: payment.paidAt ?? clock.now(), updatedAt: clock.now(), ...(auto ? { status: "APPROVED", decidedAt: clock.now() } : {}) });
    await audit(tx, { userId: null }, { action: "hauler.dumping_fee_paid", entityType: "HaulerLoad", entityId: x.id, districtId: x.districtId, details: { paymentId: payment.id, receiptNumber: payment.receiptNumber, autoApproved: auto } });
  },
  async title(id, db) {
    return (await loadTitles(db, [id])).get(id) ?? "Dumping fee";
  },
  titles: (ids, db) => loadTitles(db, ids),
  href: (id) => `/haulers/loads/${id}`,
  /** A refused or cancelled load's dumping fee is owed back (the fee is for a service not given), though no deposit. */
  async linesOwedBack(ids, db) {
    const rows: { id: string }[] = ids.length ? await db.query(`SELECT id FROM hauler_load WHERE id = ANY($1::uuid[]) AND refund_due`, [ids.filter(isUuid)]) : [];
    return new Map(rows.map((r) => [r.id, ["dumping-fee"]]));
  },
});

async function loadTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows: any[] = ids.length
    ? await db.query(
        `SELECT x.id, x.estimated_gallons, v.plate, o.name FROM hauler_load x JOIN hauler_vehicle v ON v.id = x.vehicle_id JOIN organization o ON o.id = x.organization_id WHERE x.id = ANY($1::uuid[])`,
        [ids.filter(isUuid)],
      )
    : [];
  return new Map(rows.map((r) => [r.id, `Dumping fee, ${r.name}, ${r.plate}, ${Number(r.estimated_gallons).toLocaleString("en-US")} gallons`]));
}

// The district's Board, Operators and Clerks read the Part 364 permit filed with a submitted application.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => ["BOARD", "OPERATOR", "CLERK"].includes(r.role)).map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(`SELECT 1 FROM hauler_license WHERE part364_document_id = $1 AND submitted_at IS NOT NULL AND district_id = ANY($2::uuid[]) LIMIT 1`, [doc.id, districts]);
  return rows.length > 0;
});

/** The rulebook version in force today at the row's district, as a subquery (`d` is the district; $2 the rules' clock). */
const RULEBOOK_TODAY = `(SELECT rv.id FROM rulebook_version rv WHERE rv.district_id = d.id AND rv.effective_date <= ($2::timestamptz AT TIME ZONE d.time_zone)::date
                         ORDER BY rv.effective_date DESC, rv.version DESC LIMIT 1)`;

/**
 * "My applications": each licence of the viewer's hauling companies with its next step (the one the
 * licence card shows), where it is done and by when, in one query (rulebooks from the cache). A
 * licence past its last day whose renewal is approved is done with and left off.
 */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT l.id, l.status, l.license_number, l.valid_from::text AS valid_from, l.valid_until::text AS valid_until, l.part364_expires_on::text AS part364_expires_on,
            l.part364_revoked_at, l.part364_permit_number, l.action_reason, l.payment_id, l.previous_license_id,
            (l.payment_id IS NOT NULL AND l.paid_at IS NULL) AS fee_due, o.name, d.name AS district_name, d.time_zone,
            (SELECT json_build_object('id', r.id, 'status', r.status, 'feeDue', r.payment_id IS NOT NULL AND r.paid_at IS NULL) FROM hauler_license r
              WHERE r.previous_license_id = l.id AND r.status NOT IN ('DENIED', 'WITHDRAWN') ORDER BY r.created_at DESC LIMIT 1) AS renewal,
            ${RULEBOOK_TODAY} AS rulebook_id
       FROM hauler_license l JOIN membership m ON m.organization_id = l.organization_id AND m.user_id = $1
       JOIN organization o ON o.id = l.organization_id JOIN district d ON d.id = l.district_id
      WHERE l.status IN ('DRAFT', 'SUBMITTED', 'APPROVED', 'SUSPENDED')
        AND NOT (l.status = 'APPROVED' AND l.valid_until < ($2::timestamptz AT TIME ZONE d.time_zone)::date
                 AND EXISTS (SELECT 1 FROM hauler_license r WHERE r.previous_license_id = l.id AND r.status = 'APPROVED'))
      ORDER BY l.created_at DESC LIMIT 20`,
    [viewer.userId, clock.now()],
  );
  const items: DashboardItem[] = [];
  for (const r of rows) {
    const rb = await rulebookById(ds, r.rulebook_id);
    const day = dateIn(r.time_zone);
    const l = {
      status: r.status,
      validFrom: r.valid_from,
      validUntil: r.valid_until,
      part364ExpiresOn: r.part364_expires_on,
      part364RevokedAt: r.part364_revoked_at,
      part364PermitNumber: r.part364_permit_number,
      actionReason: r.action_reason,
    } as HaulerLicense;
    const opts = part364Opts(rb);
    const standing = licenseStanding(l, day, opts);
    const w = rb.entry("hauler.renewalWindowDays").value;
    const next = licenseNextStep(l, standing, {
      day,
      feeDue: r.fee_due,
      renewalOpens: r.status === "APPROVED" && r.valid_until && typeof w === "number" ? renewalOpensOn(r.valid_until, w) : null,
      renewal: r.renewal,
      booking: loadBookingReadiness(rb, r.district_name),
      part364: opts,
    });
    const href: Record<LicenseAction, string> = {
      EDIT: `/haulers/licenses/${r.id}/edit`,
      PAY: r.payment_id ? `/payments/${r.payment_id}` : `/haulers/licenses/${r.id}`,
      RENEW: `/haulers/licenses/${r.id}/renew`,
      RENEWAL: r.renewal ? `/haulers/licenses/${r.renewal.id}` : `/haulers/licenses/${r.id}`,
      PART364: `/haulers/licenses/${r.id}`,
      BOOK: `/haulers/loads/new?licenseId=${r.id}`,
      NONE: `/haulers/licenses/${r.id}`,
    };
    items.push({
      kind: LICENSE_PAYABLE,
      id: r.id,
      title: r.license_number ? `Hauler licence ${r.license_number}, ${r.name}` : `Hauler licence ${r.previous_license_id ? "renewal" : "application"}, ${r.name}`,
      status: r.status === "APPROVED" ? standing.label : LICENSE_STATUS_LABELS[r.status as LicenseStatus],
      nextStep: next.text,
      dueDate: next.dueDate,
      daysLeft: next.dueDate ? daysBetween(day, next.dueDate) : null,
      href: href[next.action],
    });
  }
  return items;
});

/**
 * "My applications": the loads of the viewer's hauling companies still to come or to be refunded,
 * each with its next step (pay the dumping fee, wait for the Operator, come on the day, the Clerk's
 * refund), in one query (rulebooks from the cache).
 */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT x.id, x.status, x.estimated_gallons, x.planned_arrival, x.fee_cents, x.sample_required, x.payment_id, x.rulebook_version_id,
            v.plate, d.time_zone, coalesce(l.dumping_location, p.point) AS place, pay.status AS payment_status
       FROM hauler_load x JOIN membership m ON m.organization_id = x.organization_id AND m.user_id = $1
       JOIN hauler_vehicle v ON v.id = x.vehicle_id JOIN district d ON d.id = x.district_id
       LEFT JOIN hauler_license l ON l.id = x.license_id LEFT JOIN hauler_permission p ON p.id = x.permission_id
       LEFT JOIN payment pay ON pay.id = x.payment_id
      WHERE (x.status IN ('BOOKED', 'APPROVED') AND x.planned_arrival >= $2::timestamptz - interval '7 days')
         OR (x.status IN ('REFUSED', 'CANCELLED') AND x.refund_due
             AND NOT EXISTS (SELECT 1 FROM refund r WHERE r.payment_id = x.payment_id AND r.line_codes ? 'dumping-fee'))
      ORDER BY x.planned_arrival ASC, x.id ASC LIMIT 20`,
    [viewer.userId, clock.now()],
  );
  const items: DashboardItem[] = [];
  for (const r of rows) {
    const rb = await rulebookById(ds, r.rulebook_version_id);
    const arrival = new Date(r.planned_arrival);
    const day = wallClock(arrival, r.time_zone).date;
    const upcoming = r.status === "BOOKED" || r.status === "APPROVED";
    const unpaid = r.status === "BOOKED" && r.fee_cents > 0 && r.payment_status === "PENDING";
    const next = unpaid
      ? `Pay the dumping fee of ${formatCents(r.fee_cents)} before you come (${rb.entry("hauler.dumpingFeePaidBeforeDumping").section}).`
      : r.status === "BOOKED"
        ? `The District Operator approves or refuses the load before you come (${rb.entry("hauler.loadApprovalRequired").section}).`
        : r.status === "APPROVED"
          ? arrival.getTime() > clock.now().getTime()
            ? `Come to ${r.place} on ${formatDateTime(arrival, r.time_zone)}.${r.sample_required ? " The load is sampled before dumping." : ""}`
            : "The station records the gallons received."
          : `The Town Clerk refunds the dumping fee of ${formatCents(r.fee_cents)}.`;
    items.push({
      kind: LOAD_PAYABLE,
      id: r.id,
      title: `Load in ${r.plate}, ${Number(r.estimated_gallons).toLocaleString("en-US")} gallons, ${formatDateTime(arrival, r.time_zone)}`,
      status: LOAD_STATUS_LABELS[r.status as LoadStatus],
      nextStep: next,
      dueDate: upcoming ? day : null,
      daysLeft: upcoming ? daysBetween(dateIn(r.time_zone), day) : null,
      href: unpaid ? `/payments/${r.payment_id}` : `/haulers/loads/${r.id}`,
    });
  }
  return items;
});

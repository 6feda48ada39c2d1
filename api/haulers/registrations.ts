import { type DataSource, type EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, daysBetween } from "../common/dates.js";
import { registerDashboardProvider, type DashboardItem } from "../dashboard/dashboard.js";
import { District } from "../districts/district.entity.js";
import { rulebookById } from "../districts/districts.service.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { registerPayable, type Payment } from "../payments/payments.service.js";
import { HaulerLicense, HaulerLoad } from "./hauler.entity.js";
import { type Db, LICENSE_PAYABLE, LOAD_PAYABLE, staffOf, tell } from "./common.js";

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

/** "My hauler licences": each licence of the viewer's hauling companies with its days left, in one query. */
registerDashboardProvider(async (ds: DataSource, viewer: Viewer): Promise<DashboardItem[]> => {
  const rows: any[] = await ds.query(
    `SELECT l.id, l.status, l.license_number, l.valid_until::text AS valid_until, l.valid_from::text AS valid_from, o.name, d.time_zone, l.payment_id, l.paid_at
       FROM hauler_license l JOIN membership m ON m.organization_id = l.organization_id AND m.user_id = $1
       JOIN organization o ON o.id = l.organization_id JOIN district d ON d.id = l.district_id
      WHERE l.status IN ('DRAFT', 'SUBMITTED', 'APPROVED', 'SUSPENDED')
      ORDER BY l.created_at DESC LIMIT 20`,
    [viewer.userId],
  );
  return rows.map((r) => {
    const left = r.valid_until ? daysBetween(dateIn(r.time_zone), r.valid_until) : null;
    const next =
      r.status === "DRAFT"
        ? "Finish and submit the application."
        : r.status === "SUBMITTED"
          ? r.payment_id && !r.paid_at
            ? "Pay the application fee; the Town Board reviews it once paid."
            : "The Town Board reviews the application."
          : r.status === "SUSPENDED"
            ? "The licence is suspended."
            : left !== null && left < 0
              ? "The licence has expired."
              : null;
    return {
      kind: LICENSE_PAYABLE,
      id: r.id,
      title: r.license_number ? `Hauler licence ${r.license_number}, ${r.name}` : `Hauler licence application, ${r.name}`,
      status: r.status === "APPROVED" && left !== null && left < 0 ? "Expired" : r.status.charAt(0) + r.status.slice(1).toLowerCase(),
      nextStep: next,
      dueDate: r.status === "APPROVED" ? r.valid_until : null,
      daysLeft: r.status === "APPROVED" ? left : null,
      href: `/haulers/licenses/${r.id}`,
    };
  });
});

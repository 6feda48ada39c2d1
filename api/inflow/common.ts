import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import type { Actor } from "../audit/audit.service.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { districtCode } from "../districts/district-code.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { staffOf } from "../staff/staff-of.js";
import { inspectsAtSale, noInspectionAtSale } from "./rules.js";

/** What every use case of inflow shares: the rows, who may see and do what, the district's law (docs/inflow.md). */

export type Db = DataSource | EntityManager;
export type Meta = { requestId?: string; publicUrl: string };
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};

export const INSPECTION_STATUSES = ["OPEN", "ORDERED", "PASSED", "VIOLATION"] as const;
export type InspectionStatus = (typeof INSPECTION_STATUSES)[number];
export const STATUS_LABELS: Record<InspectionStatus, string> = {
  OPEN: "To inspect",
  ORDERED: "Disconnection ordered, re-inspection due",
  PASSED: "Passed",
  VIOLATION: "Prohibited connection found",
};
export const ORIGINS = ["SALE", "REQUEST", "OPERATOR"] as const;
export type Origin = (typeof ORIGINS)[number];
export const ORIGIN_LABELS: Record<Origin, string> = { SALE: "Tax Assessor's notice of sale", REQUEST: "Requested ahead of closing", OPERATOR: "Opened by the inspector" };
export const PARTY_ROLES = ["SELLER", "BUYER", "ATTORNEY"] as const;
export type PartyRole = (typeof PARTY_ROLES)[number];
export const PARTY_ROLE_LABELS: Record<PartyRole, string> = { SELLER: "Seller", BUYER: "Buyer", ATTORNEY: "Attorney" };

/** One inspection as the services read it, with its property's address. */
export type InspectionRow = {
  id: string;
  districtId: string;
  propertyId: string;
  number: string;
  origin: Origin;
  saleId: string | null;
  soldOn: string | null;
  buyerName: string | null;
  closingOn: string | null;
  status: InspectionStatus;
  orderIssuedOn: string | null;
  orderDeadline: string | null;
  certificateNumber: string | null;
  certificateIssuedOn: string | null;
  certificateBasis: string | null;
  certificateDocumentId: string | null;
  rulebookVersionId: string;
  openedAt: Date;
  closedAt: Date | null;
  taxParcel: string;
  address: string;
  ownerName: string;
  ownerUserId: string | null;
  timeZone: string;
};

export const INSPECTION_COLUMNS = `i.id, i.district_id AS "districtId", i.property_id AS "propertyId", i.number, i.origin, i.sale_id AS "saleId",
  to_char(s.sold_on, 'YYYY-MM-DD') AS "soldOn", s.buyer_name AS "buyerName", to_char(i.closing_on, 'YYYY-MM-DD') AS "closingOn", i.status,
  to_char(i.order_issued_on, 'YYYY-MM-DD') AS "orderIssuedOn", to_char(i.order_deadline, 'YYYY-MM-DD') AS "orderDeadline",
  i.certificate_number AS "certificateNumber", to_char(i.certificate_issued_on, 'YYYY-MM-DD') AS "certificateIssuedOn", i.certificate_basis AS "certificateBasis",
  i.certificate_document_id AS "certificateDocumentId", i.rulebook_version_id AS "rulebookVersionId", i.opened_at AS "openedAt", i.closed_at AS "closedAt",
  p.tax_parcel AS "taxParcel", trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '')) AS "address",
  p.owner_name AS "ownerName", p.owner_user_id AS "ownerUserId", d.time_zone AS "timeZone"`;
export const INSPECTION_FROM = `inflow_inspection i JOIN sewer_property p ON p.id = i.property_id JOIN district d ON d.id = i.district_id LEFT JOIN inflow_sale s ON s.id = i.sale_id`;

/** The district's staff, the property's owner of record and the inspection's parties (seller, buyer, attorney) see it. */
export async function mayView(db: Db, viewer: Viewer, i: Pick<InspectionRow, "id" | "districtId" | "ownerUserId">): Promise<boolean> {
  if (isStaff(viewer, i.districtId) || i.ownerUserId === viewer.userId) return true;
  const rows = await db.query(`SELECT 1 FROM inflow_party WHERE inspection_id = $1 AND user_id = $2`, [i.id, viewer.userId]);
  return rows.length > 0;
}

/** An inspection the viewer may see (locked for update when asked); NOT_FOUND otherwise, whether or not it exists. */
export async function getInspection(db: Db, viewer: Viewer, id: string, lock = false): Promise<InspectionRow> {
  if (!isUuid(id)) throw notFound("That inflow inspection");
  const [row] = await db.query(`SELECT ${INSPECTION_COLUMNS} FROM ${INSPECTION_FROM} WHERE i.id = $1${lock ? " FOR UPDATE OF i" : ""}`, [id]);
  if (!row || !(await mayView(db, viewer, row))) throw notFound("That inflow inspection");
  return row;
}

export function requireOperator(viewer: Viewer, district: Pick<District, "id" | "operatorTitle">) {
  if (!hasRole(viewer, "OPERATOR", district.id)) throw forbidden(`Only the ${district.operatorTitle} of this district can do that.`);
}
export function requireStaffOf(viewer: Viewer, districtId: string) {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
}
export function requireStatus(i: InspectionRow, allowed: InspectionStatus[], message: string) {
  if (!allowed.includes(i.status)) throw conflict(`${message} (the inspection is ${STATUS_LABELS[i.status].toLowerCase()}).`);
}

export async function loadDistrict(db: Db, id: string, field = "districtId"): Promise<District> {
  const d = isUuid(id ?? "") ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw badInput({ [field]: "Choose a district." });
  return d;
}

/** The district's law in force today, refusing where it has no inspection at sale (Huron: nothing borrowed). */
export async function lawInspectingAtSale(db: Db, district: District, field = "districtId"): Promise<Rulebook> {
  const rb = await rulebookOn(db, district);
  if (!inspectsAtSale(rb)) {
    const m = noInspectionAtSale(rb, district.lawName);
    throw conflict(m, { [field]: m });
  }
  return rb;
}

/** A property of the district by its tax parcel (the register's unique key, case-insensitive). */
export async function propertyByParcel(db: Db, districtId: string, parcel: string): Promise<{ id: string; taxParcel: string; ownerUserId: string | null; address: string } | null> {
  const [p] = await db.query(
    `SELECT id, tax_parcel AS "taxParcel", owner_user_id AS "ownerUserId", trim(coalesce(street_number || ' ', '') || street) AS address
       FROM sewer_property WHERE district_id = $1 AND lower(tax_parcel) = lower($2)`,
    [districtId, parcel],
  );
  return p ?? null;
}

/** An inspection's number: district code, II, year, a count in the district's year (the district row locked for the rest of the transaction). */
export async function nextInspectionNumbers(tx: EntityManager, district: District, year: string, n: number): Promise<string[]> {
  await tx.query(`SELECT id FROM district WHERE id = $1 FOR UPDATE`, [district.id]);
  const prefix = `${districtCode(district.slug)}-II-${year}-`;
  const [row] = await tx.query(`SELECT count(*)::int AS n FROM inflow_inspection WHERE district_id = $1 AND number LIKE $2`, [district.id, `${prefix}%`]);
  return Array.from({ length: n }, (_, k) => `${prefix}${String(row.n + k + 1).padStart(4, "0")}`);
}

/** An email to each of the district's District Operators (Superintendents), queued in the change's transaction. */
export async function emailOperators(tx: EntityManager, district: Pick<District, "id" | "name">, kind: string, subject: string, text: string) {
  const operators = await staffOf(tx, district.id, "OPERATOR");
  await enqueueEmails(
    tx,
    operators.map((o) => ({ to: o.email, recipientId: o.id, districtId: district.id, kind, subject, body: `Hello ${o.display_name},\n\n${text}\n\n${district.name}\n` })),
  );
}

/** The people an inspection's news goes to: the owner of record with a portal account and every party, once each (one query). */
export async function peopleOf(tx: Db, inspectionId: string): Promise<{ id: string; email: string; display_name: string }[]> {
  return tx.query(
    `SELECT u.id, u.email, u.display_name FROM app_user u
      WHERE u.id IN (SELECT user_id FROM inflow_party WHERE inspection_id = $1
                     UNION SELECT p.owner_user_id FROM inflow_inspection i JOIN sewer_property p ON p.id = i.property_id WHERE i.id = $1)
      ORDER BY u.email`,
    [inspectionId],
  );
}

export async function emailPeople(tx: EntityManager, inspectionId: string, district: Pick<District, "id" | "name">, kind: string, subject: string, text: string) {
  const people = await peopleOf(tx, inspectionId);
  await enqueueEmails(
    tx,
    people.map((o) => ({ to: o.email, recipientId: o.id, districtId: district.id, kind, subject, body: `Hello ${o.display_name},\n\n${text}\n\n${district.name}\n` })),
  );
}

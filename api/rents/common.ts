import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import type { Actor } from "../audit/audit.service.js";
import { isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { isUuid } from "../documents/documents.service.js";
import type { AccountClass, AssessedRow, Basis, CloseReason, Occupancy } from "./rules.js";
import { formatEdus } from "./rules.js";

/**
 * Rows of the sewer-rent register (api/rents is written in SQL, as api/industrial is: no entities
 * to register) and who may see and change them: the district's staff read its register, its Town
 * Clerk keeps it; an owner of record reads their own properties, an occupant their own accounts.
 */

export type Db = DataSource | EntityManager;
export type Meta = { requestId?: string };
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });

export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};

export function requireReader(viewer: Viewer, districtId: string) {
  if (!isStaff(viewer, districtId)) throw forbidden("Only staff of this district can read its register of properties.");
}

/** SUL 1214, Huron VIIA-2: the Town Clerk (the sewer billing clerk) keeps the accounts. */
export function requireClerk(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "CLERK", districtId)) throw forbidden("Only the Town Clerk of this district keeps its register of properties and accounts.");
}

/** A calendar date field, or a field error. */
export function dateField(fields: Record<string, string>, name: string, value: string | null | undefined, required = true): CalendarDate | null {
  const v = (value ?? "").trim();
  if (!v) {
    if (required) fields[name] = "Enter a date like 2026-12-01.";
    return null;
  }
  if (!isCalendarDate(v)) {
    fields[name] = "Use a date like 2026-12-01.";
    return null;
  }
  return v;
}

export const throwIf = (fields: Record<string, string>) => {
  if (Object.keys(fields).length) throw badInput(fields);
};

// ---------------------------------------------------------------------------------------------
// Views

export type PropertyView = {
  id: string;
  districtId: string;
  districtName: string;
  districtSlug: string;
  taxParcel: string;
  streetNumber: string | null;
  street: string;
  city: string | null;
  zip: string;
  address: string;
  segment: string | null;
  ownerName: string;
  ownerUserId: string | null;
  ownerMailingAddress: string | null;
  openAccounts: number;
};

export const PROPERTY_COLUMNS = `p.id, p.district_id, d.name AS district_name, d.slug AS district_slug, p.tax_parcel, p.street_number, p.street, p.city, p.zip,
  p.segment, p.owner_name, p.owner_user_id, p.owner_mailing_address,
  (SELECT count(*)::int FROM service_account a WHERE a.property_id = p.id AND a.closed_on IS NULL) AS open_accounts`;

export const addressOf = (r: { street_number: string | null; street: string; city: string | null; zip: string }) =>
  `${r.street_number ? `${r.street_number} ` : ""}${r.street}${r.city ? `, ${r.city}` : ""} ${r.zip}`;

export const toProperty = (r: any): PropertyView => ({
  id: r.id,
  districtId: r.district_id,
  districtName: r.district_name,
  districtSlug: r.district_slug,
  taxParcel: r.tax_parcel,
  streetNumber: r.street_number,
  street: r.street,
  city: r.city,
  zip: r.zip,
  address: addressOf(r),
  segment: r.segment,
  ownerName: r.owner_name,
  ownerUserId: r.owner_user_id,
  ownerMailingAddress: r.owner_mailing_address,
  openAccounts: r.open_accounts ?? 0,
});

export type OwnerView = { id: string; ownerName: string; mailingAddress: string | null; fromDate: CalendarDate; toDate: CalendarDate | null };
export const toOwner = (r: any): OwnerView => ({ id: r.id, ownerName: r.owner_name, mailingAddress: r.mailing_address, fromDate: r.from_date, toDate: r.to_date });

export type MeterView = { id: string; meterNumber: string; installedOn: CalendarDate; removedOn: CalendarDate | null; sharedWith: number };

/** What the final bill of a closed account will need (the bill itself comes with the bill runs). */
export type FinalBill = { lastDay: CalendarDate; forwardingAddress: string | null; finalReading: number | null; finalReadOn: CalendarDate | null; meterNumber: string | null };

export type AssessmentView = {
  id: string;
  basis: Basis;
  effectiveOn: CalendarDate;
  rows: AssessedRow[];
  eduThousandths: number | null;
  edus: string | null;
  waterUsageThousandths: number | null;
  waterUsageBasis: string | null;
  rulebookVersion: number;
  enteredAt: Date;
  enteredByName: string | null;
};

export const toAssessment = (r: any): AssessmentView => {
  const stored = r.rows as { rows: AssessedRow[]; waterUsageThousandths: number | null };
  return {
    id: r.id,
    basis: r.basis,
    effectiveOn: r.effective_on,
    rows: stored.rows ?? [],
    eduThousandths: r.edu_thousandths,
    edus: r.edu_thousandths === null ? null : formatEdus(r.edu_thousandths),
    waterUsageThousandths: stored.waterUsageThousandths ?? null,
    waterUsageBasis: r.water_usage_basis,
    rulebookVersion: r.rulebook_version,
    enteredAt: r.entered_at,
    enteredByName: r.entered_by_name ?? null,
  };
};

export type AccountView = {
  id: string;
  districtId: string;
  propertyId: string;
  accountNumber: string;
  class: AccountClass;
  occupantName: string;
  occupantUserId: string | null;
  openedOn: CalendarDate;
  closedOn: CalendarDate | null;
  closeReason: CloseReason | null;
  finalBill: FinalBill | null;
  occupancy: Occupancy;
  sharedMeterAgreement: string | null;
  sourcePermitId: string | null;
  meters: MeterView[];
  assessment: AssessmentView | null;
};

export const ACCOUNT_COLUMNS = `a.id, a.district_id, a.property_id, a.account_number, a.class, a.occupant_name, a.occupant_user_id, a.opened_on::text AS opened_on,
  a.closed_on::text AS closed_on, a.close_reason, a.final_bill, a.occupancy, a.shared_meter_agreement, a.source_permit_id`;

/**
 * Accounts with their meters and current assessments, in three statements whatever their number.
 * `where` filters `service_account a` (parameters from $1).
 */
export async function accountsWhere(db: Db, where: string, params: unknown[], order = "a.opened_on, a.account_number"): Promise<AccountView[]> {
  const rows: any[] = await db.query(`SELECT ${ACCOUNT_COLUMNS} FROM service_account a WHERE ${where} ORDER BY ${order}`, params);
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const [meters, assessments] = await Promise.all([
    db.query(
      `SELECT am.account_id, m.id, m.meter_number, m.installed_on::text AS installed_on, m.removed_on::text AS removed_on,
              (SELECT count(*)::int FROM service_account_meter x JOIN service_account o ON o.id = x.account_id
                WHERE x.meter_id = m.id AND o.closed_on IS NULL) AS shared_with
         FROM service_account_meter am JOIN service_meter m ON m.id = am.meter_id
        WHERE am.account_id = ANY($1::uuid[]) ORDER BY m.installed_on, m.meter_number`,
      [ids],
    ) as Promise<any[]>,
    db.query(
      `SELECT DISTINCT ON (s.account_id) s.account_id, s.id, s.basis, s.effective_on::text AS effective_on, s.rows, s.edu_thousandths, s.water_usage_basis,
              s.entered_at, v.version AS rulebook_version, u.display_name AS entered_by_name
         FROM service_assessment s JOIN rulebook_version v ON v.id = s.rulebook_version_id LEFT JOIN app_user u ON u.id = s.entered_by_id
        WHERE s.account_id = ANY($1::uuid[])
        ORDER BY s.account_id, s.effective_on DESC, s.entered_at DESC`,
      [ids],
    ) as Promise<any[]>,
  ]);
  return rows.map((r) => ({
    id: r.id,
    districtId: r.district_id,
    propertyId: r.property_id,
    accountNumber: r.account_number,
    class: r.class,
    occupantName: r.occupant_name,
    occupantUserId: r.occupant_user_id,
    openedOn: r.opened_on,
    closedOn: r.closed_on,
    closeReason: r.close_reason,
    finalBill: r.final_bill,
    occupancy: r.occupancy,
    sharedMeterAgreement: r.shared_meter_agreement,
    sourcePermitId: r.source_permit_id,
    meters: meters
      .filter((m) => m.account_id === r.id)
      .map((m) => ({ id: m.id, meterNumber: m.meter_number, installedOn: m.installed_on, removedOn: m.removed_on, sharedWith: m.shared_with })),
    assessment: (() => {
      const a = assessments.find((x) => x.account_id === r.id);
      return a ? toAssessment(a) : null;
    })(),
  }));
}

/** A property row, locked when asked; NOT_FOUND unless the viewer is its district's staff or its owner of record (`staffOnly`: staff only). */
export async function propertyRow(db: Db, viewer: Viewer, id: string, opts: { lock?: boolean; staffOnly?: boolean } = {}): Promise<PropertyView> {
  if (!isUuid(id)) throw notFound("That property");
  if (opts.lock) await db.query(`SELECT id FROM sewer_property WHERE id = $1 FOR UPDATE`, [id]);
  const [r] = await db.query(`SELECT ${PROPERTY_COLUMNS} FROM sewer_property p JOIN district d ON d.id = p.district_id WHERE p.id = $1`, [id]);
  if (!r) throw notFound("That property");
  if (isStaff(viewer, r.district_id)) return toProperty(r);
  if (!opts.staffOnly && r.owner_user_id === viewer.userId) return toProperty(r);
  throw notFound("That property");
}

/** An owner of record sees the accounts of their own ownership: open, or closed on or after the day they became owner (not a seller's history). */
export const ownersAccount = (closedOn: CalendarDate | null, ownerFrom: CalendarDate | null) => closedOn === null || (ownerFrom !== null && closedOn >= ownerFrom);

/**
 * SQL: the user (a parameter such as "$1") has linked the account (a column such as "b.account_id")
 * to their sign-in (a landlord, a property manager: api/rents/links.ts). A link lets its holder read
 * the account's balance and issued bills and pay them, nothing else: never the register, the
 * worksheet or a change.
 */
export const linkedSql = (accountExpr: string, userParam: string) =>
  `EXISTS (SELECT 1 FROM service_account_link l WHERE l.account_id = ${accountExpr} AND l.user_id = ${userParam} AND l.unlinked_at IS NULL)`;

/** Has the viewer linked this account to their sign-in (read and pay only)? */
export async function isLinked(db: Db, viewer: Viewer | null, accountId: string | null): Promise<boolean> {
  if (!viewer || !accountId || !isUuid(accountId)) return false;
  const [r] = await db.query(`SELECT ${linkedSql("$1::uuid", "$2::uuid")} AS linked`, [accountId, viewer.userId]);
  return r.linked === true;
}

/**
 * An account's row, locked when asked; NOT_FOUND unless the viewer is its district's staff, the
 * property's owner of record, or its occupant (`linked`: or has linked it, for reading its bills
 * and balance and paying them only; the row's `linked` says which).
 */
export async function accountRow(db: Db, viewer: Viewer, id: string, opts: { lock?: boolean; staffOnly?: boolean; linked?: boolean } = {}): Promise<any> {
  if (!isUuid(id)) throw notFound("That account");
  const [r] = await db.query(
    `SELECT a.*, a.opened_on::text AS opened_on, a.closed_on::text AS closed_on, p.owner_user_id, d.time_zone, d.slug AS district_slug,
            (SELECT o.from_date::text FROM sewer_property_owner o WHERE o.property_id = p.id AND o.to_date IS NULL) AS owner_from
       FROM service_account a JOIN sewer_property p ON p.id = a.property_id JOIN district d ON d.id = a.district_id
      WHERE a.id = $1 ${opts.lock ? "FOR UPDATE OF a" : ""}`,
    [id],
  );
  if (!r) throw notFound("That account");
  if (isStaff(viewer, r.district_id)) return r;
  if (!opts.staffOnly && (r.occupant_user_id === viewer.userId || (r.owner_user_id === viewer.userId && ownersAccount(r.closed_on, r.owner_from)))) return r;
  if (opts.linked && !opts.staffOnly && (await isLinked(db, viewer, r.id))) return { ...r, linked: true };
  throw notFound("That account");
}

/** The portal user with this email, for linking an owner or occupant to their sign-in; a field error when there is none. */
export async function userByEmail(db: Db, email: string | null | undefined, field: string, fields: Record<string, string>): Promise<string | null> {
  const e = (email ?? "").trim().toLowerCase();
  if (!e) return null;
  const [u] = await db.query(`SELECT id FROM app_user WHERE email = $1`, [e]);
  if (!u) fields[field] = "No one has signed up to the portal with that email. Leave it empty; the person can be linked later.";
  return u?.id ?? null;
}

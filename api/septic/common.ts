import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import type { Actor } from "../audit/audit.service.js";
import { isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { staffOf } from "../staff/staff-of.js";
import type { Building, SystemKind } from "./rules.js";

/**
 * What the septic use cases share: rows (written in SQL, as api/rents and api/extensions are), who
 * may see and do what, and who hears of it. The district's staff read its systems; its District
 * Operator acts (SUL 401: the rules are "enforced by the District Operator"); the owner of record of
 * the property (sewer_property.owner_user_id) reads their own systems, permits, notices and orders.
 */

export type Db = DataSource | EntityManager;
export type Meta = { requestId?: string; publicUrl?: string };
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};
export const throwIfAny = (fields: Record<string, string>) => {
  if (Object.keys(fields).length) throw badInput(fields);
};

/** A calendar date field, or a field error; `max` is the latest allowed (today for what has happened). */
export function dateField(fields: Record<string, string>, key: string, value: string | null | undefined, opts: { required?: boolean; max?: CalendarDate } = {}): CalendarDate | null {
  const v = (value ?? "").trim();
  if (!v) {
    if (opts.required) fields[key] = "Enter a date like 2026-12-01.";
    return null;
  }
  if (!isCalendarDate(v)) {
    fields[key] = "Use a date like 2026-12-01.";
    return null;
  }
  if (opts.max && v > opts.max) {
    fields[key] = "The date cannot be after today.";
    return null;
  }
  return v;
}

export async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = isUuid(id) ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw notFound("That district");
  return d;
}

export function requireOperator(viewer: Viewer, districtId: string, what: string) {
  if (!hasRole(viewer, "OPERATOR", districtId)) throw forbidden(`Only the District Operator of this district can ${what}.`);
}
export function requireStaffOf(viewer: Viewer, districtId: string) {
  if (!isStaff(viewer, districtId)) throw forbidden("You are not staff of that district.");
}

// ---------------------------------------------------------------------------------------------
// Systems

export type SystemRow = {
  id: string;
  districtId: string;
  propertyId: string;
  taxParcel: string;
  address: string;
  ownerName: string;
  ownerUserId: string | null;
  kind: SystemKind;
  buildings: Building[];
  description: string | null;
  installedOn: CalendarDate | null;
  reportedPumpedOn: CalendarDate | null;
  lastPumpedOn: CalendarDate | null;
  pumpDueOn: CalendarDate | null;
  remindedDueOn: CalendarDate | null;
  status: "IN_USE" | "ABANDONED";
  abandonedOn: CalendarDate | null;
  permitId: string | null;
  createdAt: Date;
};

export const SYSTEM_COLUMNS = `s.id, s.district_id AS "districtId", s.property_id AS "propertyId", p.tax_parcel AS "taxParcel",
  trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '') || ' ' || p.zip) AS address,
  p.owner_name AS "ownerName", p.owner_user_id AS "ownerUserId", s.kind, s.buildings, s.description,
  to_char(s.installed_on, 'YYYY-MM-DD') AS "installedOn", to_char(s.reported_pumped_on, 'YYYY-MM-DD') AS "reportedPumpedOn",
  to_char(s.last_pumped_on, 'YYYY-MM-DD') AS "lastPumpedOn", to_char(s.pump_due_on, 'YYYY-MM-DD') AS "pumpDueOn",
  to_char(s.reminded_due_on, 'YYYY-MM-DD') AS "remindedDueOn", s.status, to_char(s.abandoned_on, 'YYYY-MM-DD') AS "abandonedOn",
  s.permit_id AS "permitId", s.created_at AS "createdAt"`;
export const SYSTEM_FROM = `septic_system s JOIN sewer_property p ON p.id = s.property_id`;

/** A system the viewer may see (its district's staff, or the property's owner of record), locked when asked; NOT_FOUND otherwise. */
export async function getSystem(db: Db, viewer: Viewer, id: string, lock = false): Promise<SystemRow> {
  if (!isUuid(id)) throw notFound("That septic system");
  const [row] = await db.query(`SELECT ${SYSTEM_COLUMNS} FROM ${SYSTEM_FROM} WHERE s.id = $1${lock ? " FOR UPDATE OF s" : ""}`, [id]);
  if (!row || !(isStaff(viewer, row.districtId) || (row.ownerUserId && row.ownerUserId === viewer.userId))) throw notFound("That septic system");
  return row;
}

// ---------------------------------------------------------------------------------------------
// Who hears of it

type Person = { id: string; email: string; display_name: string };

/** The property's owner of record, when linked to a portal sign-in (else the owner hears by the district's mail, outside the portal). */
export async function ownerOf(db: Db, ownerUserId: string | null): Promise<Person[]> {
  if (!ownerUserId) return [];
  return db.query(`SELECT id, email, display_name FROM app_user WHERE id = $1`, [ownerUserId]);
}

export async function emailPeople(tx: EntityManager, people: Person[], district: { id: string; name: string }, kind: string, subject: string, text: string) {
  await enqueueEmails(
    tx,
    people.map((p) => ({ to: p.email, recipientId: p.id, districtId: district.id, kind, subject, body: `Hello ${p.display_name},\n\n${text}\n\n${district.name}\n` })),
  );
}

export async function emailOperators(tx: EntityManager, district: { id: string; name: string }, kind: string, subject: string, text: string) {
  await emailPeople(tx, await staffOf(tx, district.id, "OPERATOR"), district, kind, subject, text);
}

export const link = (meta: Meta, path: string) => `${meta.publicUrl ?? ""}${path}`;

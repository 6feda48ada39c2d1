import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import type { Actor } from "../audit/audit.service.js";
import { forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import type { MembershipRole } from "../organizations/organization.entity.js";
import { roleIn as memberRole } from "../organizations/organizations.service.js";
import type { Limit, LimitKind, Unit } from "./limits.js";

/**
 * Rows of the industrial tables (api/industrial is written in SQL: no entities to register) and
 * who may see and do what with them.
 */

export type Db = DataSource | EntityManager;
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });

export const PERMIT_STATUSES = ["DRAFT", "SUBMITTED", "NOTICE_PUBLISHED", "ISSUED", "REVOKED", "WITHDRAWN", "SUPERSEDED"] as const;
export type PermitStatus = (typeof PERMIT_STATUSES)[number];
/** Visible to anyone (SUL 1014): once the notice of intent is published. */
export const PUBLIC_STATUSES: PermitStatus[] = ["NOTICE_PUBLISHED", "ISSUED", "REVOKED", "SUPERSEDED"];
export const STATUS_LABELS: Record<PermitStatus, string> = {
  DRAFT: "Draft",
  SUBMITTED: "Submitted, under review",
  NOTICE_PUBLISHED: "Notice of intent published",
  ISSUED: "Permit issued",
  REVOKED: "Revoked",
  WITHDRAWN: "Withdrawn",
  SUPERSEDED: "Ended: replaced by a new permit (SUL 1004 F)",
};

/** SUL 1004 G: the reasons a permit may be revoked. */
export const REVOCATION_REASONS = {
  FALSIFIED_REPORTS: "Falsifying self-monitoring reports",
  TAMPERING: "Tampering with monitoring equipment",
  REFUSED_ACCESS: "Refusing the District Operator timely access to the premises",
  EFFLUENT_LIMITS: "Failure to meet effluent limitations",
  UNPAID_FINES: "Failure to pay fines",
  UNPAID_CHARGES: "Failure to pay user charges",
  COMPLIANCE_SCHEDULE: "Failure to meet compliance schedules",
} as const;
export type RevocationReason = keyof typeof REVOCATION_REASONS;

/** SUL 1014: text the user may mark as a trade secret. Wastewater constituents and characteristics never can be. */
export const TRADE_SECRET_FIELDS = ["activities", "products", "rawMaterials", "otherInfo", "employeeTypes", "pretreatmentHours"] as const;
export type TradeSecretField = (typeof TRADE_SECRET_FIELDS)[number];
export const NEVER_SECRET = ["constituents", "pollutants", "averageFlowGpd", "peakFlowGpd", "flowVariations", "dischargeSchedule", "dischargeHoursPerDay"];

export type Constituent = { parameter: string; value: number; unit: string };
export type Product = { name: string; amount: number; unit: string; process: string | null };
export type RawMaterial = { name: string; averagePerDay: number; maximumPerDay: number; unit: string };
export type Pollutant = { parameter: string; concentration: number; unit: string; standardMet: boolean };
export type Milestone = { milestone: string; dueOn: string };

export type PermitRow = {
  id: string;
  districtId: string;
  organizationId: string;
  applicantId: string;
  status: PermitStatus;
  facilityName: string | null;
  street: string | null;
  city: string | null;
  zip: string | null;
  location: string | null;
  sicCodes: string[];
  constituents: Constituent[];
  dischargeSchedule: string | null;
  dischargeHoursPerDay: number | null;
  averageFlowGpd: number | null;
  peakFlowGpd: number | null;
  flowVariations: string | null;
  activities: string | null;
  products: Product[];
  rawMaterials: RawMaterial[];
  employees: number | null;
  employeeTypes: string | null;
  hoursOfOperation: string | null;
  pretreatmentHours: string | null;
  pollutants: Pollutant[];
  standardsMet: boolean | null;
  complianceSchedule: Milestone[];
  otherInfo: string | null;
  tradeSecretFields: string[];
  rulebookVersionId: string | null;
  feeCents: number | null;
  paymentId: string | null;
  paidAt: Date | null;
  submittedAt: Date | null;
  noticePublishedOn: string | null;
  noticePublishedAt: Date | null;
  noticePublishedById: string | null;
  noticeText: string | null;
  permitNumber: string | null;
  issuedAt: Date | null;
  issuedById: string | null;
  effectiveOn: string | null;
  expiresOn: string | null;
  reportingMonths: number[];
  revokedAt: Date | null;
  revokedById: string | null;
  revocationReason: RevocationReason | null;
  revocationNotes: string | null;
  withdrawnAt: Date | null;
  // SUL 1004 B, E, F (migration 1765324800000)
  conditions: string | null;
  previousPermitId: string | null;
  previousRelation: "REISSUANCE" | "CHANGE" | null;
  reissuanceDueOn: string | null;
  reissuanceLate: boolean | null;
  changeKind: string | null;
  changeOn: string | null;
  changeDescription: string | null;
  supersededAt: Date | null;
  supersededOn: string | null;
  supersededById: string | null;
  createdAt: Date;
  updatedAt: Date;
};

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const NUMERIC = new Set(["dischargeHoursPerDay", "averageFlowGpd", "peakFlowGpd", "average", "maximum", "minimum", "value", "detectionLimit", "flowMgd", "limitValue", "comparedValue", "ratio"]);
const DATES = new Set(["noticePublishedOn", "effectiveOn", "expiresOn", "periodStart", "periodEnd", "dueOn", "reissuanceDueOn", "changeOn", "supersededOn", "noticeOn"]);

/** snake_case row → camelCase object; numeric columns to numbers; date columns to YYYY-MM-DD. */
export function rowOf<T>(r: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    const c = camel(k);
    if (v !== null && NUMERIC.has(c)) out[c] = Number(v);
    else if (v !== null && DATES.has(c)) out[c] = v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10);
    else out[c] = v;
  }
  return out as T;
}

export async function loadPermit(db: Db, id: string, lock = false): Promise<PermitRow | null> {
  if (!isUuid(id)) return null;
  const rows = await db.query(`SELECT * FROM industrial_permit WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
  return rows[0] ? rowOf<PermitRow>(rows[0]) : null;
}

export async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = await db.getRepository(District).findOneBy({ id });
  if (!d) throw notFound("That district");
  return d;
}

export async function roleIn(db: Db, viewer: Viewer | null, organizationId: string): Promise<MembershipRole | null> {
  return viewer ? memberRole(db, viewer.userId, organizationId) : null;
}

export type Relation = { role: MembershipRole | null; staff: boolean };

export async function relationTo(db: Db, viewer: Viewer | null, p: Pick<PermitRow, "organizationId" | "districtId">): Promise<Relation> {
  return { role: await roleIn(db, viewer, p.organizationId), staff: isStaff(viewer, p.districtId) };
}

/** Members see everything of their organization's permits; staff see them once submitted; anyone once the notice is out. */
export function mayView(rel: Relation, p: Pick<PermitRow, "status" | "submittedAt">): boolean {
  return rel.role !== null || (rel.staff && p.submittedAt !== null) || PUBLIC_STATUSES.includes(p.status);
}

/** Trade-secret text is shown only to the user's organization and the district's staff (SUL 1014). */
export const maySeeSecrets = (rel: Relation) => rel.role !== null || rel.staff;

/** A permit the viewer may see; NOT_FOUND otherwise, whether or not it exists. */
export async function viewablePermit(db: Db, viewer: Viewer | null, id: string, lock = false): Promise<{ p: PermitRow; rel: Relation }> {
  const p = await loadPermit(db, id, lock);
  if (!p) throw notFound("That permit");
  const rel = await relationTo(db, viewer, p);
  if (!mayView(rel, p)) throw notFound("That permit");
  return { p, rel };
}

/**
 * The organization's owner or Authorized Representative acts for it (SUL 201, 1005); another
 * organization's permit is NOT_FOUND even when it is public, a plain member is refused.
 */
export async function editablePermit(db: Db, viewer: Viewer, id: string, what: string): Promise<{ p: PermitRow; role: MembershipRole }> {
  const p = await loadPermit(db, id, true);
  if (!p) throw notFound("That permit");
  const role = await roleIn(db, viewer, p.organizationId);
  if (!role) throw notFound("That permit");
  if (role === "MEMBER") throw forbidden(`Only the organization's owner or Authorized Representative can ${what}.`);
  return { p, role };
}

/** A member of the organization (any role) for entering results; NOT_FOUND for others. */
export async function memberPermit(db: Db, viewer: Viewer, id: string): Promise<{ p: PermitRow; role: MembershipRole }> {
  const p = await loadPermit(db, id, true);
  if (!p) throw notFound("That permit");
  const role = await roleIn(db, viewer, p.organizationId);
  if (!role) throw notFound("That permit");
  return { p, role };
}

export function requireOperator(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "OPERATOR", districtId)) throw forbidden("Only the District Operator of this district can do that.");
}

export type LimitRow = Limit & { id: string; permitId: string; position: number };

export async function limitsOf(db: Db, permitIds: readonly string[]): Promise<LimitRow[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_limit WHERE permit_id = ANY($1::uuid[]) ORDER BY permit_id, position`, [permitIds]);
  return rows.map((r: any) => {
    const l = rowOf<LimitRow>(r);
    return { ...l, unit: l.unit as Unit, kind: l.kind as LimitKind };
  });
}

export function addressOf(p: Pick<PermitRow, "street" | "city" | "zip">): string {
  return [p.street, [p.city, p.zip].filter(Boolean).join(" ")].filter(Boolean).join(", ") || "(no address yet)";
}

/** The rulebook version the permit was issued under, else the district's current one (loaded when not given). */
export async function permitRulebook(db: Db, p: Pick<PermitRow, "rulebookVersionId" | "districtId">, district?: District): Promise<Rulebook> {
  if (p.rulebookVersionId) return rulebookById(db, p.rulebookVersionId);
  return rulebookOn(db, district ?? (await loadDistrict(db, p.districtId)));
}

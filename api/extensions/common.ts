import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import type { Actor } from "../audit/audit.service.js";
import { conflict, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import type { SewerType } from "./rules.js";

/** What every use case of sewer extensions shares: the rows, who may see and do what, the district's law. */

export type Db = DataSource | EntityManager;
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};

/** The rows an UPDATE ... RETURNING changed (TypeORM answers [rows, count] for an UPDATE). */
export const updated = (r: unknown): number => (Array.isArray(r) && Array.isArray(r[0]) ? r[0].length : 0);

export const EXTENSION_STATUSES = ["SUBMITTED", "APPROVED", "DENIED", "ACCEPTED"] as const;
export type ExtensionStatus = (typeof EXTENSION_STATUSES)[number];
export const STATUS_LABELS: Record<ExtensionStatus, string> = { SUBMITTED: "Under review", APPROVED: "Approved", DENIED: "Denied", ACCEPTED: "Accepted by the Town" };

export const DOCUMENT_KINDS = ["PLANS", "SPECIFICATIONS", "CALCULATIONS", "STATE_APPROVAL", "PIPE_TEST_RESULTS", "AS_BUILT"] as const;
export type ExtensionDocumentKind = (typeof DOCUMENT_KINDS)[number];
export const DOCUMENT_KIND_LABELS: Record<ExtensionDocumentKind, string> = {
  PLANS: "Plans",
  SPECIFICATIONS: "Specifications",
  CALCULATIONS: "Design calculations",
  STATE_APPROVAL: "State approval (Health Department, NYSDEC)",
  PIPE_TEST_RESULTS: "Manufacturer's pipe test results",
  AS_BUILT: "As-built drawings",
};

export type CapacityFigures = { designGpd: number; presentUseGpd: number; committedGpd: number };

/** One sewer extension application as the services read it. */
export type ExtensionRow = {
  id: string;
  districtId: string;
  organizationId: string;
  organizationName: string;
  applicantId: string;
  status: ExtensionStatus;
  name: string;
  location: string;
  mapReference: string;
  lots: number;
  designFlowGpd: number;
  sewerType: SewerType;
  pipeDiameterInches: number;
  pipePvc: boolean;
  designerName: string;
  designerLicense: string;
  receivingSegmentId: string;
  plantId: string;
  rulebookVersionId: string;
  submittedAt: Date;
  checklist: Record<string, boolean>;
  reviewNotes: string | null;
  decidedAt: Date | null;
  decidedById: string | null;
  decisionReason: string | null;
  capacityAtDecision: { segment: CapacityFigures & { name: string }; plant: CapacityFigures & { name: string } } | null;
  noticeGivenOn: string | null;
  noticeGivenAt: Date | null;
  constructionStartsOn: string | null;
  /** 507: the copies of the as-built drawings filed with the District Operator, when approved */
  asBuiltCopies: number | null;
  asBuiltApprovedAt: Date | null;
  finalApprovedAt: Date | null;
  acceptedOn: string | null;
  acceptanceResolutionNumber: string | null;
  guaranteeEndsOn: string | null;
  securityKind: "SURETY_BOND" | "OTHER" | null;
  suretyName: string | null;
  bondNumber: string | null;
  securityAmountCents: number | null;
  securityExpiresOn: string | null;
  securityDescription: string | null;
  /** the district's citation of its law, "Sewer Use Law" */
  citationPrefix: string;
};

export const EXTENSION_COLUMNS = `e.id, e.district_id AS "districtId", e.organization_id AS "organizationId", o.name AS "organizationName",
  e.applicant_id AS "applicantId", e.status, e.name, e.location, e.map_reference AS "mapReference", e.lots,
  e.design_flow_gpd AS "designFlowGpd", e.sewer_type AS "sewerType", e.pipe_diameter_inches::float8 AS "pipeDiameterInches", e.pipe_pvc AS "pipePvc",
  e.designer_name AS "designerName", e.designer_license AS "designerLicense", e.receiving_segment_id AS "receivingSegmentId", e.plant_id AS "plantId",
  e.rulebook_version_id AS "rulebookVersionId", e.submitted_at AS "submittedAt", e.checklist, e.review_notes AS "reviewNotes",
  e.decided_at AS "decidedAt", e.decided_by_id AS "decidedById", e.decision_reason AS "decisionReason", e.capacity_at_decision AS "capacityAtDecision",
  to_char(e.notice_given_on, 'YYYY-MM-DD') AS "noticeGivenOn", e.notice_given_at AS "noticeGivenAt",
  to_char(e.construction_starts_on, 'YYYY-MM-DD') AS "constructionStartsOn",
  e.as_built_copies AS "asBuiltCopies", e.as_built_approved_at AS "asBuiltApprovedAt", e.final_approved_at AS "finalApprovedAt",
  to_char(e.accepted_on, 'YYYY-MM-DD') AS "acceptedOn", e.acceptance_resolution_number AS "acceptanceResolutionNumber",
  to_char(e.guarantee_ends_on, 'YYYY-MM-DD') AS "guaranteeEndsOn", e.security_kind AS "securityKind", e.surety_name AS "suretyName",
  e.bond_number AS "bondNumber", e.security_amount_cents::float8 AS "securityAmountCents", to_char(e.security_expires_on, 'YYYY-MM-DD') AS "securityExpiresOn",
  e.security_description AS "securityDescription", dd.citation_prefix AS "citationPrefix"`;
export const EXTENSION_FROM = `sewer_extension e JOIN organization o ON o.id = e.organization_id JOIN district dd ON dd.id = e.district_id`;

/** Members of the developer organization see its applications; the district's staff see the district's. */
export async function mayView(db: Db, viewer: Viewer, e: Pick<ExtensionRow, "organizationId" | "districtId">): Promise<boolean> {
  if (isStaff(viewer, e.districtId)) return true;
  const rows = await db.query(`SELECT 1 FROM membership WHERE organization_id = $1 AND user_id = $2`, [e.organizationId, viewer.userId]);
  return rows.length > 0;
}

/** An application the viewer may see (locked for update when asked); NOT_FOUND otherwise, whether or not it exists. */
export async function getExtension(db: Db, viewer: Viewer, id: string, lock = false): Promise<ExtensionRow> {
  if (!isUuid(id)) throw notFound("That sewer extension");
  const [row] = await db.query(`SELECT ${EXTENSION_COLUMNS} FROM ${EXTENSION_FROM} WHERE e.id = $1${lock ? " FOR UPDATE OF e" : ""}`, [id]);
  if (!row || !(await mayView(db, viewer, row))) throw notFound("That sewer extension");
  return row;
}

export async function requireMember(db: Db, viewer: Viewer, e: Pick<ExtensionRow, "organizationId">, what: string) {
  const rows = await db.query(`SELECT 1 FROM membership WHERE organization_id = $1 AND user_id = $2`, [e.organizationId, viewer.userId]);
  if (!rows.length) throw forbidden(`Only the developer's people can ${what}.`);
}
export function requireOperator(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "OPERATOR", districtId)) throw forbidden("Only the District Operator of this district can do that.");
}
export function requireStatus(e: ExtensionRow, allowed: ExtensionStatus[], message: string) {
  if (!allowed.includes(e.status)) throw conflict(`${message} (the application is ${STATUS_LABELS[e.status].toLowerCase()}).`);
}

export async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = isUuid(id) ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw notFound("That district");
  return d;
}

/**
 * The district's law in force today, refusing where it has no Article 5 (Huron's law says nothing of
 * sewers built by developers, so the district has no such procedure: nothing is borrowed).
 */
export async function lawProvidingExtensions(db: Db, district: District): Promise<Rulebook> {
  const rb = await rulebookOn(db, district);
  if (!rb.enabled("extension.provided"))
    throw conflict(`${district.name}'s law has no procedure for new sewers or sewer extensions built by developers (${rb.entry("extension.provided").section}).`);
  return rb;
}

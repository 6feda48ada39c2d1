import { type DataSource, type EntityManager } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { type Actor } from "../audit/audit.service.js";
import { conflict, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { LateralPermit, type PermitStatus } from "./lateral-permit.entity.js";
import { STATUS_LABELS } from "./rules.js";

/** What every use case of lateral permits shares: who may see and do what, the permit's rulebook, notices to the applicant. */

export const PAYABLE_TYPE = "LateralPermit";
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t ? t : null;
};

/** A permit's rulebook version by id (the one its fees used); versions never change, so it is cached. */
export const rulebookOfVersion = rulebookById;

/** The rulebook a permit is judged by: the version stored on submission, else today's. */
export async function permitRulebook(ds: DataSource | EntityManager, p: LateralPermit, district: District): Promise<Rulebook> {
  return p.rulebookVersionId ? rulebookOfVersion(ds, p.rulebookVersionId) : rulebookOn(ds, district);
}

// ---------------------------------------------------------------------------------------------
// Who may see and do what

/** Drafts are the applicant's own; once submitted, the district's staff see the application too. */
export function mayView(viewer: Viewer, p: Pick<LateralPermit, "applicantId" | "districtId" | "submittedAt">): boolean {
  return p.applicantId === viewer.userId || (p.submittedAt !== null && isStaff(viewer, p.districtId));
}

/** A permit the viewer may see; NOT_FOUND otherwise, whether or not it exists. */
export async function getPermit(ds: DataSource | EntityManager, viewer: Viewer, id: string, lock = false): Promise<LateralPermit> {
  if (!isUuid(id)) throw notFound("That permit application");
  const q = ds.getRepository(LateralPermit).createQueryBuilder("p").where("p.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const p = await q.getOne();
  if (!p || !mayView(viewer, p)) throw notFound("That permit application");
  return p;
}

export function requireApplicant(viewer: Viewer, p: LateralPermit, what: string) {
  if (p.applicantId !== viewer.userId) throw forbidden(`Only the applicant can ${what}.`);
}
export function requireOperator(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "OPERATOR", districtId)) throw forbidden("Only the District Operator of this district can do that.");
}
export function requireStatus(p: LateralPermit, allowed: PermitStatus[], message: string) {
  if (!allowed.includes(p.status)) throw conflict(`${message} (the application is ${STATUS_LABELS[p.status].toLowerCase()}).`);
}

export async function loadDistrict(tx: DataSource | EntityManager, id: string): Promise<District> {
  const d = await tx.getRepository(District).findOneBy({ id });
  if (!d) throw notFound("That district");
  return d;
}

export async function applicantOf(tx: EntityManager, p: LateralPermit): Promise<User> {
  return tx.findOneByOrFail(User, { id: p.applicantId });
}

export function addressOf(p: Pick<LateralPermit, "streetNumber" | "street" | "city" | "zip">): string {
  const line1 = [p.streetNumber, p.street].filter(Boolean).join(" ");
  const line2 = [p.city, p.zip].filter(Boolean).join(" ");
  return [line1, line2].filter(Boolean).join(", ") || "(no address yet)";
}

export async function notify(tx: EntityManager, p: LateralPermit, district: District, kind: string, subject: string, body: string, publicUrl: string) {
  const applicant = await applicantOf(tx, p);
  await enqueueEmail(tx, {
    to: applicant.email,
    recipientId: applicant.id,
    districtId: district.id,
    kind,
    subject,
    body: `Hello ${applicant.displayName},\n\n${body}\n\nSee the application: ${publicUrl}/permits/${p.id}\n\n${district.name}\n`,
  });
}

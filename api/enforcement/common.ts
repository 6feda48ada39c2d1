import { In, type DataSource, type EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { type Actor } from "../audit/audit.service.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { notFound, AppError } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { districtCode } from "../districts/district-code.js";
import { rulebookById } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { Charge, EnforcementAction, Petition, ShowCauseHearing } from "./enforcement.entity.js";
import { statementFor, type Statement } from "./rules.js";

/** What every use case of enforcement shares: who is the respondent, notices to them, numbering, the related records of an action, a charge's statement. */

export const CHARGE_PAYABLE = "Charge";
export type Meta = { requestId?: string; publicUrl: string };
export const actorOf = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
export type Db = DataSource | EntityManager;

export function text(v: string | null | undefined, field: string, max: number, required: string | null, fields: Record<string, string>): string | null {
  const t = (v ?? "").replace(/\r\n/g, "\n").trim();
  if (!t) {
    if (required) fields[field] = required;
    return null;
  }
  if (t.length > max) fields[field] = `Use at most ${max.toLocaleString("en-US")} characters.`;
  return t;
}

export async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = isUuid(id) ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw notFound("That district");
  return d;
}

export const todayIn = (d: District) => dateIn(d.timeZone);

export async function memberOrgIds(db: Db, userId: string): Promise<string[]> {
  const rows: { organization_id: string }[] = await db.query(`SELECT organization_id FROM membership WHERE user_id = $1`, [userId]);
  return rows.map((r) => r.organization_id);
}

export type Respondent = { respondentUserId: string | null; respondentOrganizationId: string | null };
export async function isRespondent(db: Db, viewer: Viewer, r: Respondent): Promise<boolean> {
  if (r.respondentUserId) return r.respondentUserId === viewer.userId;
  return (await memberOrgIds(db, viewer.userId)).includes(r.respondentOrganizationId!);
}

/** People to tell: the respondent, or every member of the respondent organization. */
async function recipientsOf(tx: EntityManager, r: Respondent): Promise<{ id: string; email: string; display_name: string }[]> {
  if (r.respondentUserId) return tx.query(`SELECT id, email, display_name FROM app_user WHERE id = $1`, [r.respondentUserId]);
  return tx.query(`SELECT u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY u.email`, [r.respondentOrganizationId]);
}

export async function tell(tx: EntityManager, r: Respondent, district: District, kind: string, subject: string, body: string, link: string) {
  for (const u of await recipientsOf(tx, r))
    await enqueueEmail(tx, {
      to: u.email,
      recipientId: u.id,
      districtId: district.id,
      kind,
      subject,
      body: `Hello ${u.display_name},\n\n${body}\n\nSee it in the portal: ${link}\n\n${district.name}\n`,
    });
}

export async function nextNumber(tx: EntityManager, district: District, table: "enforcement_action" | "charge", infix: string, today: CalendarDate): Promise<string> {
  // One number at a time per district: lock the district row for the rest of the transaction.
  await tx.query(`SELECT id FROM district WHERE id = $1 FOR UPDATE`, [district.id]);
  const prefix = `${districtCode(district.slug)}-${infix}-${today.slice(0, 4)}-`;
  const [row] = await tx.query(`SELECT count(*)::int AS n FROM ${table} WHERE district_id = $1 AND number LIKE $2`, [district.id, `${prefix}%`]);
  return `${prefix}${String(row.n + 1).padStart(4, "0")}`;
}

// ---------------------------------------------------------------------------------------------
// Reading one action, one petition, one charge

/** An action the viewer may see (its respondent, or staff of its district); NOT_FOUND otherwise. */
export async function getAction(db: Db, viewer: Viewer, id: string, lock = false): Promise<EnforcementAction> {
  if (!isUuid(id)) throw notFound("That enforcement action");
  const q = db.getRepository(EnforcementAction).createQueryBuilder("a").where("a.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const a = await q.getOne();
  if (!a || !(isStaff(viewer, a.districtId) || (await isRespondent(db, viewer, a)))) throw notFound("That enforcement action");
  return a;
}

export async function getPetition(db: Db, viewer: Viewer, id: string, lock = false): Promise<{ petition: Petition; action: EnforcementAction }> {
  if (!isUuid(id)) throw notFound("That petition");
  const q = db.getRepository(Petition).createQueryBuilder("p").where("p.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const petition = await q.getOne();
  if (!petition) throw notFound("That petition");
  try {
    return { petition, action: await getAction(db, viewer, petition.actionId, lock) };
  } catch (e) {
    if (e instanceof AppError && e.code === "NOT_FOUND") throw notFound("That petition");
    throw e;
  }
}

export async function getCharge(db: Db, viewer: Viewer, id: string, lock = false): Promise<Charge> {
  if (!isUuid(id)) throw notFound("That charge");
  const q = db.getRepository(Charge).createQueryBuilder("c").where("c.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const c = await q.getOne();
  if (!c || !(isStaff(viewer, c.districtId) || (await isRespondent(db, viewer, c)))) throw notFound("That charge");
  return c;
}

export async function petitionsOf(db: Db, actionIds: readonly string[]): Promise<Petition[]> {
  if (!actionIds.length) return [];
  return db.getRepository(Petition).find({ where: { actionId: In([...actionIds]) }, order: { filedAt: "ASC" } });
}
export async function hearingsOfPetitions(db: Db, petitionIds: readonly string[]): Promise<ShowCauseHearing[]> {
  if (!petitionIds.length) return [];
  return db.getRepository(ShowCauseHearing).findBy({ petitionId: In([...petitionIds]) });
}
export async function chargesOfActions(db: Db, actionIds: readonly string[]): Promise<Charge[]> {
  if (!actionIds.length) return [];
  return db.getRepository(Charge).findBy({ actionId: In([...actionIds]) });
}
export async function documentsOfPetitions(db: Db, petitionIds: readonly string[]): Promise<{ petitionId: string; documentId: string; filename: string }[]> {
  if (!petitionIds.length) return [];
  const rows = await db.query(
    `SELECT pd.petition_id, d.id, d.filename FROM petition_document pd JOIN document d ON d.id = pd.document_id WHERE pd.petition_id = ANY($1::uuid[]) ORDER BY pd.position`,
    [[...petitionIds]],
  );
  return rows.map((r: any) => ({ petitionId: r.petition_id, documentId: r.id, filename: r.filename }));
}

/** A charge's statement today (in its district's zone), by the rulebook version it was billed under. */
export async function statementOf(db: Db, c: Charge, district: District, asOf?: CalendarDate): Promise<Statement> {
  return statementFor(await rulebookById(db, c.rulebookVersionId), c, asOf ?? todayIn(district));
}

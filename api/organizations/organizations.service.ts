import type { DataSource, EntityManager } from "typeorm";
import { normalizeEmail } from "../accounts/accounts.service.js";
import { User } from "../accounts/user.entity.js";
import type { Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { newToken, sha256 } from "../common/tokens.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { isUuid } from "../documents/documents.service.js";
import {
  Invitation,
  MEMBERSHIP_ROLES,
  Membership,
  ORGANIZATION_KINDS,
  Organization,
  type MembershipRole,
  type OrganizationKind,
} from "./organization.entity.js";

const INVITE_TTL_MS = 14 * 24 * 60 * 60 * 1000;
const actor = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });

export async function createOrganization(ds: DataSource, viewer: Viewer, input: { name: string; kind: OrganizationKind }, requestId?: string) {
  const name = input.name.trim();
  const fields: Record<string, string> = {};
  if (!name || name.length > 200) fields.name = "Enter the organization's legal name (up to 200 characters).";
  if (!ORGANIZATION_KINDS.includes(input.kind)) fields.kind = "Choose a hauling company, an industrial user or a contracting firm.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const org = await tx.save(tx.create(Organization, { name, kind: input.kind, createdById: viewer.userId }));
    await tx.insert(Membership, { organizationId: org.id, userId: viewer.userId, role: "OWNER" });
    await audit(tx, actor(viewer, requestId), { action: "organization.created", entityType: "Organization", entityId: org.id, details: { name, kind: input.kind } });
    return org;
  });
}

/** Organizations the viewer belongs to, with the viewer's role in each. */
export async function myMemberships(ds: DataSource, viewer: Viewer): Promise<{ organization: Organization; role: MembershipRole }[]> {
  const rows = await ds
    .getRepository(Membership)
    .createQueryBuilder("m")
    .innerJoinAndMapOne("m.organization", Organization, "o", "o.id = m.organization_id")
    .where("m.user_id = :u", { u: viewer.userId })
    .orderBy("o.name")
    .getMany();
  return rows.map((m: any) => ({ organization: m.organization, role: m.role }));
}

export async function membershipOf(ds: DataSource | EntityManager, userId: string, organizationId: string): Promise<Membership | null> {
  return ds.getRepository(Membership).findOne({ where: { userId, organizationId } });
}

/** The user's role in an organization, or null for a non-member (or an id that is not one). */
export async function roleIn(db: DataSource | EntityManager, userId: string, organizationId: string): Promise<MembershipRole | null> {
  if (!isUuid(organizationId)) return null;
  return (await membershipOf(db, userId, organizationId))?.role ?? null;
}

/** Only members see an organization; only its owner manages members. */
export async function requireMember(ds: DataSource, viewer: Viewer, organizationId: string, owner = false): Promise<Membership> {
  const m = await membershipOf(ds, viewer.userId, organizationId);
  if (!m) throw notFound("That organization");
  if (owner && m.role !== "OWNER") throw forbidden("Only the organization's owner can do that.");
  return m;
}

export async function listMembers(ds: DataSource, organizationId: string) {
  return ds.getRepository(Membership).find({ where: { organizationId }, order: { createdAt: "ASC" } });
}

export async function listInvitations(ds: DataSource, organizationId: string) {
  return ds.getRepository(Invitation).find({ where: { organizationId }, order: { createdAt: "DESC" } });
}

export async function inviteMember(
  ds: DataSource,
  viewer: Viewer,
  input: { organizationId: string; email: string; role: MembershipRole },
  meta: { requestId?: string; publicUrl: string },
): Promise<Invitation> {
  await requireMember(ds, viewer, input.organizationId, true);
  const email = normalizeEmail(input.email);
  const fields: Record<string, string> = {};
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fields.email = "Enter an email address like name@example.com.";
  if (!MEMBERSHIP_ROLES.includes(input.role)) fields.role = "Choose owner, authorized representative or member.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const org = await tx.findOneOrFail(Organization, { where: { id: input.organizationId } });
    const already = await tx.query(
      `SELECT 1 FROM membership m JOIN app_user u ON u.id = m.user_id WHERE m.organization_id = $1 AND u.email = $2`,
      [org.id, email],
    );
    if (already.length) throw conflict(`${email} is already a member of ${org.name}.`, { email: "Already a member." });
    const token = newToken();
    const inv = await tx.save(
      tx.create(Invitation, {
        organizationId: org.id,
        email,
        role: input.role,
        tokenHash: sha256(token),
        invitedById: viewer.userId,
        expiresAt: new Date(Date.now() + INVITE_TTL_MS),
      }),
    );
    const recipient = await tx.findOne(User, { where: { email } });
    await enqueueEmail(tx, {
      to: email,
      recipientId: recipient?.id ?? null,
      kind: "organization.invitation",
      subject: `${viewer.displayName} invited you to ${org.name} on Tapline`,
      body:
        `${viewer.displayName} invited you to join ${org.name} as ${input.role.toLowerCase().replace(/_/g, " ")}.\n\n` +
        `Sign in (or create an account with this address) and open:\n\n${meta.publicUrl}/invitations/accept?token=${token}\n\nThe invitation works for 14 days.\n`,
    });
    await audit(tx, actor(viewer, meta.requestId), { action: "organization.member_invited", entityType: "Organization", entityId: org.id, details: { email, role: input.role } });
    return inv;
  });
}

export async function acceptInvitation(ds: DataSource, viewer: Viewer, token: string, requestId?: string): Promise<Organization> {
  return ds.transaction(async (tx) => {
    const inv = await tx.createQueryBuilder(Invitation, "i").setLock("pessimistic_write").where("i.token_hash = :h", { h: sha256(token) }).getOne();
    if (!inv || inv.acceptedAt || inv.revokedAt) throw badInput({ token: "Invalid invitation" }, "This invitation is not valid or was already used.");
    if (inv.expiresAt <= new Date()) throw new AppError("DEADLINE_PASSED", "This invitation has expired. Ask the organization's owner for a new one.");
    if (inv.email !== viewer.email)
      throw forbidden(`This invitation was sent to ${inv.email}. Sign in with that address to accept it.`);
    const exists = await tx.findOne(Membership, { where: { organizationId: inv.organizationId, userId: viewer.userId } });
    if (exists) throw conflict("You are already a member of this organization.");
    await tx.insert(Membership, { organizationId: inv.organizationId, userId: viewer.userId, role: inv.role });
    await tx.update(Invitation, { id: inv.id }, { acceptedAt: new Date(), acceptedById: viewer.userId });
    await audit(tx, actor(viewer, requestId), { action: "organization.invitation_accepted", entityType: "Organization", entityId: inv.organizationId, details: { role: inv.role } });
    return tx.findOneOrFail(Organization, { where: { id: inv.organizationId } });
  });
}

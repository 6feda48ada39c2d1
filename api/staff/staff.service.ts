import type { DataSource } from "typeorm";
import { forgetViewers, forgetViewersOnCommit, normalizeEmail } from "../accounts/accounts.service.js";
import { STAFF_ROLES, StaffRole, User, type StaffRoleName } from "../accounts/user.entity.js";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { enqueueEmail } from "../outbox/outbox.service.js";

export type StaffMember = { userId: string; email: string; displayName: string; roles: StaffRoleName[] };

function requireAdmin(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "ADMIN", districtId)) throw forbidden("Only this district's ADMIN manages its staff.");
}

/** The district's staff with their roles, in one query. */
export async function listStaff(ds: DataSource, viewer: Viewer, districtId: string): Promise<StaffMember[]> {
  if (!viewer.staffRoles.some((r) => r.districtId === districtId)) throw forbidden("You are not staff of that district.");
  const rows = await ds.query(
    `SELECT u.id AS "userId", u.email, u.display_name AS "displayName", array_agg(r.role ORDER BY r.role) AS roles
       FROM staff_role r JOIN app_user u ON u.id = r.user_id
      WHERE r.district_id = $1 GROUP BY u.id ORDER BY u.display_name`,
    [districtId],
  );
  return rows;
}

/**
 * ADMIN gives a role in their district to someone who already has an account (staff sign up like
 * everyone, then are granted roles), with the reason kept in the audit log.
 */
export async function grantStaffRole(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; email: string; role: StaffRoleName; reason: string },
  requestId?: string,
): Promise<void> {
  requireAdmin(viewer, input.districtId);
  let grantedTo: string | undefined;
  const fields: Record<string, string> = {};
  if (!STAFF_ROLES.includes(input.role)) fields.role = "Choose CLERK, OPERATOR, BOARD or ADMIN.";
  if (!input.reason.trim()) fields.reason = "Say why (the audit log keeps it).";
  if (Object.keys(fields).length) throw badInput(fields);
  await ds.transaction(async (tx) => {
    const district = await tx.findOne(District, { where: { id: input.districtId } });
    if (!district) throw notFound("That district");
    const user = await tx.findOne(User, { where: { email: normalizeEmail(input.email) } });
    if (!user) throw badInput({ email: "No account uses this email address. Ask the person to create an account first." });
    const exists = await tx.findOne(StaffRole, { where: { userId: user.id, districtId: district.id, role: input.role } });
    if (exists) throw conflict(`${user.displayName} already holds the ${input.role} role here.`, { role: "Already held." });
    await tx.insert(StaffRole, { userId: user.id, districtId: district.id, role: input.role });
    await forgetViewersOnCommit(tx, user.id);
    await audit(tx, { userId: viewer.userId, requestId }, {
      action: "staff.role_granted",
      entityType: "User",
      entityId: user.id,
      districtId: district.id,
      reason: input.reason.trim(),
      details: { role: input.role, email: user.email },
    });
    await enqueueEmail(tx, {
      to: user.email,
      recipientId: user.id,
      districtId: district.id,
      kind: "staff.role_granted",
      subject: `You are now ${input.role} at ${district.name}`,
      body: `Hello ${user.displayName},\n\n${viewer.displayName} gave you the ${input.role} role at ${district.name} on Tapline.\nReason: ${input.reason.trim()}\n`,
    });
    grantedTo = user.id;
  });
  if (grantedTo) forgetViewers(grantedTo);
}

export async function revokeStaffRole(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; userId: string; role: StaffRoleName; reason: string },
  requestId?: string,
): Promise<void> {
  requireAdmin(viewer, input.districtId);
  if (!input.reason.trim()) throw badInput({ reason: "Say why (the audit log keeps it)." });
  if (input.userId === viewer.userId && input.role === "ADMIN")
    throw conflict("You cannot remove your own ADMIN role; ask another ADMIN of the district.");
  await ds.transaction(async (tx) => {
    const r = await tx.findOne(StaffRole, { where: { userId: input.userId, districtId: input.districtId, role: input.role } });
    if (!r) throw notFound("That role");
    await tx.delete(StaffRole, { id: r.id });
    // Every instance forgets their cached roles when this commits: their next request, anywhere, has it.
    await forgetViewersOnCommit(tx, input.userId);
    await audit(tx, { userId: viewer.userId, requestId }, {
      action: "staff.role_revoked",
      entityType: "User",
      entityId: input.userId,
      districtId: input.districtId,
      reason: input.reason.trim(),
      details: { role: input.role },
    });
  });
  forgetViewers(input.userId);
}

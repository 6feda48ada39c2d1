import type { EntityManager } from "typeorm";
import { conflict } from "../common/errors.js";
import type { District } from "../districts/district.entity.js";
import { type Rulebook } from "../districts/districts.service.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { STATUS_LABELS, type PermitRow, type PermitStatus } from "./common.js";

/** What the permit use cases share: the payable's names, notices to an organization's members, status checks. */

export const PAYABLE_TYPE = "IndustrialPermit";
export const FEE_CODE = "INDUSTRIAL_PERMIT_APPLICATION_FEE";
export const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/[ \t]+/g, " ").trim();
  return t ? t : null;
};

async function applicantEmail(tx: EntityManager, userId: string): Promise<{ email: string; displayName: string }> {
  const [u] = await tx.query(`SELECT email, display_name FROM app_user WHERE id = $1`, [userId]);
  return { email: u.email, displayName: u.display_name };
}

/** Emails an organization's owners and Authorized Representatives (who answer for its permits). */
export function notifyMembers(tx: EntityManager, organizationId: string, district: District, kind: string, subject: string, body: string) {
  return notifyMembersOfEach(tx, district, kind, [{ organizationId, subject, body }]);
}

/** Each organization's own message to its owners and Authorized Representatives, in two statements however many there are. */
export async function notifyMembersOfEach(tx: EntityManager, district: District, kind: string, messages: { organizationId: string; subject: string; body: string }[]) {
  if (!messages.length) return;
  const people: { organization_id: string; id: string; email: string; display_name: string }[] = await tx.query(
    `SELECT m.organization_id, u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id
      WHERE m.organization_id = ANY($1::uuid[]) AND m.role IN ('OWNER', 'AUTHORIZED_REPRESENTATIVE') ORDER BY u.email`,
    [messages.map((m) => m.organizationId)],
  );
  await enqueueEmails(
    tx,
    messages.flatMap((m) =>
      people
        .filter((u) => u.organization_id === m.organizationId)
        .map((u) => ({ to: u.email, recipientId: u.id, districtId: district.id, kind, subject: m.subject, body: `Hello ${u.display_name},\n\n${m.body}\n\n${district.name}\n` })),
    ),
  );
}

export function notifyOrganization(tx: EntityManager, p: PermitRow, district: District, kind: string, subject: string, body: string, publicUrl: string) {
  return notifyMembers(tx, p.organizationId, district, kind, subject, `${body}\n\nSee the permit: ${publicUrl}/industrial/${p.id}`);
}

export function requireEnabled(rb: Rulebook) {
  if (!rb.enabled("industrial.permitsEnabled")) {
    const e = rb.entry("industrial.permitsEnabled");
    throw conflict(`This district has no wastewater discharge permit program (${e.section}). ${e.note ?? ""}`.trim());
  }
}

export function requireStatus(p: PermitRow, allowed: PermitStatus[], message: string) {
  if (!allowed.includes(p.status)) throw conflict(`${message} (the permit is ${STATUS_LABELS[p.status].toLowerCase()}).`);
}

import type { EntityManager } from "typeorm";
import { OutboxEmail } from "./outbox-email.entity.js";

export type EmailDraft = {
  to: string;
  recipientId?: string | null;
  districtId?: string | null;
  subject: string;
  body: string;
  kind: string;
};

/** Every email goes through the outbox, in the same transaction as the change that caused it. */
export async function enqueueEmail(tx: EntityManager, draft: EmailDraft): Promise<string> {
  const r = await tx.insert(OutboxEmail, outboxRow(draft));
  return r.identifiers[0].id as string;
}

/** Several emails in one statement (a notice to many recipients). */
export async function enqueueEmails(tx: EntityManager, drafts: EmailDraft[]): Promise<void> {
  if (drafts.length) await tx.insert(OutboxEmail, drafts.map(outboxRow));
}

const outboxRow = (d: EmailDraft) => ({ toAddress: d.to, recipientId: d.recipientId ?? null, districtId: d.districtId ?? null, subject: d.subject, bodyText: d.body, kind: d.kind });

/** Emails that carry a one-time link: only the mailbox owner may read their text. */
export const SECRET_LINK_KINDS = new Set(["account.verify_email", "account.password_reset", "organization.invitation"]);

/**
 * The text a reader of the outbox sees. Staff never see one-time links. Recipients see them in the
 * portal only when the district has no mail server (then the portal is their mailbox); with SMTP
 * they come from the real mailbox, which proves the address.
 */
export function visibleBody(email: { kind: string; bodyText: string }, reader: "recipient" | "staff", smtpConfigured: boolean): string {
  if (!SECRET_LINK_KINDS.has(email.kind)) return email.bodyText;
  if (reader === "recipient" && !smtpConfigured) return email.bodyText;
  return "This email holds a one-time link, so its text is shown only in the recipient's own mailbox.";
}

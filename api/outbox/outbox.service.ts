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
  const r = await tx.insert(OutboxEmail, {
    toAddress: draft.to,
    recipientId: draft.recipientId ?? null,
    districtId: draft.districtId ?? null,
    subject: draft.subject,
    bodyText: draft.body,
    kind: draft.kind,
  });
  return r.identifiers[0].id as string;
}

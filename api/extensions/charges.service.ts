import type { DataSource, EntityManager } from "typeorm";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, isCalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { createPayment, registerPayable, type Payment } from "../payments/payments.service.js";
import { actorOf, clean, getExtension, lawProvidingExtensions, loadDistrict, requireStatus, updated, type Db } from "./common.js";

/**
 * The Town Board's charges on a sewer extension (SUL 502 A): the developer "shall pay for the entire
 * installation, including a proportionate share of the treatment plant, intercepting or trunk
 * sewers, pumping stations, force mains, and all other Town expenses incidental thereto", and
 * "inspection fees shall be paid by the applicant prior to initiating construction". The law states
 * neither amount: the Board sets each for the extension by resolution, entered by the ADMIN with the
 * resolution's number and date. Until it does there is no charge, no line and nothing to pay
 * (docs/decisions/no-fee-means-no-fee.md, docs/decisions/extension-charges.md). Each charge set is
 * one payment, paid by the developer through payments.
 */

export const CHARGE_KINDS = ["INSPECTION_FEES", "PROPORTIONATE_SHARE"] as const;
export type ChargeKind = (typeof CHARGE_KINDS)[number];
export const CHARGE_LABELS: Record<ChargeKind, string> = {
  INSPECTION_FEES: "Inspection fees",
  PROPORTIONATE_SHARE: "Proportionate share of the plant, trunk sewers, pumping stations, force mains and Town expenses",
};
/** One payable type per kind, the extension's id as the payable's: the payment's page links back to the extension. */
export const CHARGE_PAYABLES: Record<ChargeKind, string> = { INSPECTION_FEES: "SewerExtensionInspectionFees", PROPORTIONATE_SHARE: "SewerExtensionShare" };
const MAX_CENTS = 99_999_999;

export type ChargeRow = {
  id: string;
  extensionId: string;
  kind: ChargeKind;
  amountCents: number;
  description: string | null;
  resolutionNumber: string;
  resolutionAdoptedOn: string;
  paymentId: string | null;
  paymentStatus: string | null;
  paidAt: Date | null;
};

/** The charges set on these extensions, with their payment's status (one query). */
export async function chargesOf(db: Db, extensionIds: readonly string[]): Promise<ChargeRow[]> {
  if (!extensionIds.length) return [];
  return db.query(
    `SELECT c.id, c.extension_id AS "extensionId", c.kind, c.amount_cents::float8 AS "amountCents", c.description, c.resolution_number AS "resolutionNumber",
            to_char(c.resolution_adopted_on, 'YYYY-MM-DD') AS "resolutionAdoptedOn", c.payment_id AS "paymentId", p.status AS "paymentStatus", c.paid_at AS "paidAt"
       FROM extension_charge c LEFT JOIN payment p ON p.id = c.payment_id WHERE c.extension_id = ANY($1::uuid[]) ORDER BY c.extension_id, c.kind`,
    [extensionIds],
  );
}

export type SetChargeInput = { extensionId: string; kind: string; amountCents: number; description?: string | null; resolutionNumber: string; resolutionAdoptedOn: string };

/** The ADMIN enters a charge the Town Board set by resolution; the developer's payment is opened at once. */
export async function setCharge(ds: DataSource, viewer: Viewer, input: SetChargeInput, requestId?: string): Promise<ChargeRow> {
  const fields: Record<string, string> = {};
  if (!CHARGE_KINDS.includes(input.kind as ChargeKind)) fields.kind = "Choose the inspection fees or the proportionate share.";
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0 || input.amountCents > MAX_CENTS) fields.amountCents = `Enter the amount the Board set, more than $0.00 and up to ${formatCents(MAX_CENTS)}.`;
  const resolution = clean(input.resolutionNumber);
  if (!resolution || resolution.length > 60) fields.resolutionNumber = "Give the resolution's number (up to 60 characters).";
  if (!isCalendarDate(input.resolutionAdoptedOn ?? "")) fields.resolutionAdoptedOn = "Use a date like 2027-03-15.";
  const description = clean(input.description);
  if (description && description.length > 500) fields.description = "Keep the description to 500 characters.";
  return ds.transaction(async (tx) => {
    const e = await getExtension(tx, viewer, input.extensionId, true);
    if (!hasRole(viewer, "ADMIN", e.districtId)) throw forbidden("Only the district's ADMIN enters the Town Board's resolutions.");
    requireStatus(e, ["APPROVED"], "The Board's charges are entered on an approved extension");
    const district = await loadDistrict(tx, e.districtId);
    const rb = await lawProvidingExtensions(tx, district);
    if (!fields.resolutionAdoptedOn && input.resolutionAdoptedOn > dateIn(district.timeZone)) fields.resolutionAdoptedOn = "The resolution's date cannot be after today.";
    if (Object.keys(fields).length) throw badInput(fields);
    const kind = input.kind as ChargeKind;
    const [taken] = await tx.query(`SELECT 1 FROM extension_charge WHERE extension_id = $1 AND kind = $2`, [e.id, kind]);
    if (taken) throw conflict(`The ${CHARGE_LABELS[kind].toLowerCase()} of this extension are already entered.`, { kind: "Already entered for this extension." });
    const section = `${district.citationPrefix} 502 A`;
    const [{ id }] = await tx.query(
      `INSERT INTO extension_charge (extension_id, kind, amount_cents, description, resolution_number, resolution_adopted_on, set_by_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [e.id, kind, input.amountCents, description, resolution, input.resolutionAdoptedOn, viewer.userId],
    );
    const payment = await createPayment(tx, actorOf(viewer, requestId), {
      districtId: e.districtId,
      payerId: e.applicantId,
      payableType: CHARGE_PAYABLES[kind],
      payableId: e.id,
      rulebookVersionId: rb.version.id,
      lines: [{ code: kind === "INSPECTION_FEES" ? "inspection-fees" : "proportionate-share", label: `${CHARGE_LABELS[kind]}, Town Board resolution ${resolution}`.slice(0, 200), section, amountCents: input.amountCents }],
    });
    await tx.query(`UPDATE extension_charge SET payment_id = $2 WHERE id = $1`, [id, payment.id]);
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.charge_set",
      entityType: "SewerExtension",
      entityId: e.id,
      districtId: e.districtId,
      details: { kind, amountCents: input.amountCents, resolutionNumber: resolution, resolutionAdoptedOn: input.resolutionAdoptedOn, paymentId: payment.id },
    });
    await emailMembers(
      tx,
      e,
      "extension.charge_set",
      `${CHARGE_LABELS[kind].split(" of ")[0]} to pay: ${e.name}`,
      `The Town Board set the ${CHARGE_LABELS[kind].toLowerCase()} of the sewer extension ${e.name} at ${formatCents(input.amountCents)} (resolution ${resolution} of ${formatDate(input.resolutionAdoptedOn)}, ${section}).` +
        (kind === "INSPECTION_FEES" ? " They are paid before construction starts." : "") +
        `\n\nPay in the portal: Sewer extensions, ${e.name}.`,
    );
    return (await chargesOf(tx, [e.id])).find((c) => c.id === id)!;
  });
}

/** What payments calls once a charge's payment is paid: the charge records it. */
async function chargePaid(tx: EntityManager, payment: Payment, kind: ChargeKind) {
  const rows = await tx.query(`UPDATE extension_charge SET paid_at = $3 WHERE extension_id = $1 AND kind = $2 AND payment_id = $4 AND paid_at IS NULL RETURNING id`, [
    payment.payableId,
    kind,
    payment.paidAt ?? clock.now(),
    payment.id,
  ]);
  if (!updated(rows)) return;
  await audit(tx, { userId: null }, {
    action: "extension.charge_paid",
    entityType: "SewerExtension",
    entityId: payment.payableId,
    districtId: payment.districtId,
    details: { kind, paymentId: payment.id, receiptNumber: payment.receiptNumber },
  });
}

async function titles(db: Db, ids: string[], kind: ChargeKind): Promise<Map<string, string>> {
  const rows: { id: string; name: string }[] = ids.length ? await db.query(`SELECT id, name FROM sewer_extension WHERE id = ANY($1::uuid[])`, [ids.filter(isUuid)]) : [];
  return new Map(rows.map((r) => [r.id, `${CHARGE_LABELS[kind].split(" of ")[0]}, sewer extension ${r.name}`]));
}

for (const kind of CHARGE_KINDS)
  registerPayable(CHARGE_PAYABLES[kind], {
    onPaid: (tx, payment) => chargePaid(tx, payment, kind),
    async title(id, db) {
      return (await titles(db, [id], kind)).get(id) ?? CHARGE_LABELS[kind];
    },
    titles: (ids, db) => titles(db, ids, kind),
    href: (id) => `/extensions/${id}`,
  });

/** An email to each member of the developer organization, queued in the change's transaction. */
export async function emailMembers(tx: EntityManager, e: { organizationId: string; districtId: string }, kind: string, subject: string, text: string) {
  const members: { id: string; email: string; display_name: string }[] = await tx.query(
    `SELECT u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY u.email`,
    [e.organizationId],
  );
  const [{ name }] = await tx.query(`SELECT name FROM district WHERE id = $1`, [e.districtId]);
  await enqueueEmails(
    tx,
    members.map((m) => ({ to: m.email, recipientId: m.id, districtId: e.districtId, kind, subject, body: `Hello ${m.display_name},\n\n${text}\n\n${name}\n` })),
  );
}

import Stripe from "stripe";
import type { EntityManager } from "typeorm";
import { audit, type Actor } from "../audit/audit.service.js";
import { badInput } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { isUuid } from "../documents/documents.service.js";
import { Payment, type PaymentLine } from "./payment.entity.js";
import { payableHandler } from "./payables.js";

/** A payment is created by the feature that charges, in its transaction, with amounts from the district's rulebook. */

// ---------------------------------------------------------------------------------------------
// Creating payments (called by features, inside their own transaction)

const MAX_LINES = 50;
/** Stripe Checkout's largest amount in USD: $999,999.99. */
const MAX_TOTAL_CENTS = 99_999_999;

function normalizeLines(lines: PaymentLine[]): PaymentLine[] {
  if (!Array.isArray(lines) || lines.length === 0 || lines.length > MAX_LINES) throw badInput({ lines: `A payment has 1 to ${MAX_LINES} lines.` });
  const seen = new Set<string>();
  return lines.map((l, i) => {
    const code = String(l.code ?? "").trim();
    const label = String(l.label ?? "").trim();
    const section = String(l.section ?? "").trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(code)) throw badInput({ lines: `Line ${i + 1}: the code must be letters, digits, ".", "_" or "-".` });
    if (seen.has(code)) throw badInput({ lines: `Line ${i + 1}: the code "${code}" appears twice.` });
    seen.add(code);
    if (!label || label.length > 200) throw badInput({ lines: `Line ${i + 1}: a label of 1 to 200 characters is needed.` });
    if (!section || section.length > 100) throw badInput({ lines: `Line ${i + 1}: the section of the law the amount comes from is needed.` });
    if (!Number.isSafeInteger(l.amountCents) || l.amountCents <= 0) throw badInput({ lines: `Line ${i + 1}: the amount must be a positive whole number of cents.` });
    return { code, label, section, amountCents: l.amountCents, refundable: l.refundable === true };
  });
}

/** creates a PENDING payment inside the caller's transaction; amounts come from the server, never the browser */
export async function createPayment(
  tx: EntityManager,
  actor: Actor,
  input: { districtId: string; payerId: string; payableType: string; payableId: string; lines: PaymentLine[]; rulebookVersionId: string },
): Promise<Payment> {
  payableHandler(input.payableType);
  if (!isUuid(input.payableId)) throw new Error(`payable id must be a uuid, got ${input.payableId}`);
  const lines = normalizeLines(input.lines);
  const amountCents = lines.reduce((s, l) => s + l.amountCents, 0);
  if (amountCents > MAX_TOTAL_CENTS) throw badInput({ lines: `A payment can be at most ${formatCents(MAX_TOTAL_CENTS)}.` });
  const [version] = await tx.query(`SELECT district_id FROM rulebook_version WHERE id = $1`, [input.rulebookVersionId]);
  if (!version || version.district_id !== input.districtId) throw new Error("the rulebook version must belong to the payment's district");
  const created = await tx.save(
    tx.create(Payment, {
      districtId: input.districtId,
      payerId: input.payerId,
      payableType: input.payableType,
      payableId: input.payableId,
      status: "PENDING",
      lines,
      amountCents,
      currency: "usd",
      rulebookVersionId: input.rulebookVersionId,
    }),
  );
  await audit(tx, actor, {
    action: "payment.created",
    entityType: "Payment",
    entityId: created.id,
    districtId: input.districtId,
    details: { payableType: input.payableType, payableId: input.payableId, amountCents, lines: lines.map((l) => ({ code: l.code, amountCents: l.amountCents })) },
  });
  return tx.findOneOrFail(Payment, { where: { id: created.id } });
}

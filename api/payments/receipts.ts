import { clock } from "../common/clock.js";
import { districtCode } from "../districts/district-code.js";
import type { EntityManager } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { staffOf } from "../staff/staff-of.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { dateIn } from "../common/dates.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { enqueueEmail, enqueueEmails } from "../outbox/outbox.service.js";
import { Payment, Refund, refundDue, type PaymentLine, type PaymentMethod } from "./payment.entity.js";
import { payableHandler } from "./payables.js";
import { REFUND_DUE } from "./lists.service.js";
import { formatDayOf } from "../common/format.js";

/** A payment made paid: its receipt number, its receipt email, and the payable told. */

// ---------------------------------------------------------------------------------------------
// Marking paid, receipts

/** "LAK" for lakeview: the first three letters of the district's slug. */
export const receiptPrefix = districtCode;

/**
 * The next number in the district's receipt book for the year (the fiscal year is the calendar
 * year, SUL 1211) in the district's time zone: LKV-2026-000042. The counter row is locked until the
 * caller's transaction ends, so numbers are sequential without gaps.
 */
export async function nextReceiptNumber(tx: EntityManager, district: District, at: Date): Promise<string> {
  const year = Number(dateIn(district.timeZone, at).slice(0, 4));
  const [row] = await tx.query(
    `INSERT INTO receipt_counter (district_id, year, last) VALUES ($1, $2, 1)
     ON CONFLICT (district_id, year) DO UPDATE SET last = receipt_counter.last + 1 RETURNING last`,
    [district.id, year],
  );
  return `${receiptPrefix(district.slug)}-${year}-${String(row.last).padStart(6, "0")}`;
}

export async function markPaid(
  tx: EntityManager,
  p: Payment,
  how: {
    provider: "stripe" | "test" | "counter";
    method: PaymentMethod;
    checkNumber: string | null;
    sessionId: string | null;
    paymentIntent: string | null;
    actor: Actor;
    publicUrl?: string;
    details: Record<string, unknown>;
    /** the payment was cancelled before this money arrived: receipt it, do not apply it to the payable, flag it for refund */
    afterCancel?: boolean;
  },
): Promise<Payment> {
  const district = await tx.findOneOrFail(District, { where: { id: p.districtId } });
  const paidAt = clock.now();
  const receiptNumber = await nextReceiptNumber(tx, district, paidAt);
  await tx.update(
    Payment,
    { id: p.id },
    {
      status: "PAID",
      paidAt,
      receiptNumber,
      provider: how.provider,
      method: how.method,
      checkNumber: how.checkNumber,
      providerSessionId: how.sessionId,
      providerPaymentIntent: how.paymentIntent,
      updatedAt: paidAt,
    },
  );
  const paid = await tx.findOneOrFail(Payment, { where: { id: p.id } });
  if (!how.afterCancel) await payableHandler(paid.payableType).onPaid(tx, paid);
  await audit(tx, how.actor, {
    action: how.afterCancel ? "payment.paid_after_cancel" : "payment.paid",
    entityType: "Payment",
    entityId: paid.id,
    districtId: paid.districtId,
    reason: how.afterCancel ? paid.cancelReason : null,
    details: {
      ...how.details,
      provider: how.provider,
      method: how.method,
      checkNumber: how.checkNumber,
      amountCents: paid.amountCents,
      receiptNumber,
      ...(how.afterCancel ? { cancelledAt: paid.cancelledAt, refundDue: true } : {}),
    },
  });
  await enqueueReceiptEmail(tx, paid, district, how.publicUrl);
  if (how.afterCancel) await tellClerksRefundDue(tx, paid, district, how.publicUrl);
  return paid;
}

/** The district's Clerks learn that money arrived for a cancelled payment and is to be returned. */
async function tellClerksRefundDue(tx: EntityManager, p: Payment, district: District, publicUrl?: string): Promise<void> {
  const clerks = await staffOf(tx, p.districtId, "CLERK");
  const title = await payableHandler(p.payableType).title(p.payableId, tx);
  await enqueueEmails(
    tx,
    clerks.map((c) => ({
      to: c.email,
      recipientId: c.id,
      districtId: p.districtId,
      kind: "payment.refund_due",
      subject: `Refund due: ${formatCents(p.amountCents)} paid after cancellation (receipt ${p.receiptNumber})`,
      body: [
        `A card payment of ${formatCents(p.amountCents)} to ${district.name} for ${title} arrived after the payment was cancelled (${p.cancelReason}).`,
        `It has receipt ${p.receiptNumber} and was not applied to the application. Refund it in full from the payments ledger.`,
        ...(publicUrl ? ["", `${publicUrl}/staff/payments?districtId=${p.districtId}&status=${REFUND_DUE}`] : []),
        "",
      ].join("\n"),
    })),
  );
}

/** "April 3, 2026" in the district's time zone. */
export function formatReceiptDate(at: Date, timeZone: string): string {
  return formatDayOf(at, timeZone);
}

export function describeMethod(p: Pick<Payment, "method" | "provider" | "checkNumber">): string {
  if (p.method === "cash") return "Paid in cash at the district office";
  if (p.method === "check") return `Paid by check no. ${p.checkNumber}`;
  if (p.provider === "test") return "Paid by card in the test checkout (no real money moved)";
  return "Paid by card";
}

/** One receipt line: "Inspection and administration fee, residential (Sewer Use Law 1212): $150.00". */
export const receiptLine = (l: PaymentLine) => `${l.label} (${l.section}): ${formatCents(l.amountCents)}${l.refundable ? " (refundable deposit)" : ""}`;

/**
 * Who a payment's receipts and refunds are emailed to: its signed-in payer, or for quick pay (no
 * payer) the address given when paying, if any; null when there is no one to email.
 */
export async function receiptRecipient(tx: EntityManager, p: Pick<Payment, "payerId" | "receiptEmail">): Promise<{ email: string; id: string | null; greeting: string } | null> {
  if (p.payerId) {
    const payer = await tx.findOneOrFail(User, { where: { id: p.payerId } });
    return { email: payer.email, id: payer.id, greeting: `Hello ${payer.displayName},` };
  }
  return p.receiptEmail ? { email: p.receiptEmail, id: null, greeting: "Hello," } : null;
}

async function enqueueReceiptEmail(tx: EntityManager, p: Payment, district: District, publicUrl?: string): Promise<void> {
  const payer = await receiptRecipient(tx, p);
  if (!payer) return;
  const title = await payableHandler(p.payableType).title(p.payableId, tx);
  const body = [
    payer.greeting,
    "",
    `${district.name} received your payment. This is your receipt.`,
    "",
    `Receipt number: ${p.receiptNumber}`,
    `Date: ${formatReceiptDate(p.paidAt!, district.timeZone)}`,
    // Quick pay: the title names the service address, which the token's holder is not told.
    ...(p.payerId ? [`For: ${title}`] : []),
    "",
    ...p.lines.map(receiptLine),
    `Total paid: ${formatCents(p.amountCents)}`,
    `${describeMethod(p)}.`,
    ...(p.cancelledAt
      ? ["", `This payment was cancelled before your card payment reached us (${p.cancelReason}). Nothing was due, so ${district.name} returns the full amount; you will receive a refund receipt.`]
      : []),
    "",
    `${district.name}`,
    `${district.address}`,
    // A quick-pay receipt's page needs the token of the payer's return address, which is not kept: this email is the receipt.
    ...(publicUrl && p.payerId ? ["", `Print the receipt: ${publicUrl}/payments/${p.id}/receipt`] : []),
    "",
  ].join("\n");
  await enqueueEmail(tx, {
    to: payer.email,
    recipientId: payer.id,
    districtId: p.districtId,
    kind: "payment.receipt",
    subject: `Receipt ${p.receiptNumber}: ${formatCents(p.amountCents)} paid to ${district.name}`,
    body,
  });
}

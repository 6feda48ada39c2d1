import { clock } from "../common/clock.js";
import type { Logger } from "pino";
import Stripe from "stripe";
import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { sha256 } from "../common/tokens.js";
import type { Config } from "../config.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { Payment, Refund, type PaymentLine, type PaymentMethod, type PaymentStatus } from "./payment.entity.js";
import { type PayableHandler, titleKey, linesOwedBack } from "./payables.js";
import { refundsFor } from "./lists.service.js";
import { onAccount, stripeClient } from "./stripe.js";
import { lockPayment, requirePending } from "./checkout.service.js";
import { nextReceiptNumber, markPaid, formatReceiptDate, receiptRecipient } from "./receipts.js";

/** The Clerk's counter: payments made in cash or by check, and refunds of what is owed back. */

// ---------------------------------------------------------------------------------------------
// The Clerk: counter payments and refunds

/** The payment for the CLERK of its district: NOT_FOUND for outsiders, FORBIDDEN for other staff of it. */
async function paymentForClerk(ds: DataSource | EntityManager, clerk: Viewer, paymentId: string): Promise<Payment> {
  const p = isUuid(paymentId) ? await ds.getRepository(Payment).findOne({ where: { id: paymentId } }) : null;
  if (!p || !isStaff(clerk, p.districtId)) throw notFound("That payment");
  if (!hasRole(clerk, "CLERK", p.districtId)) throw forbidden("Only the district's Clerk records payments and refunds.");
  return p;
}

/** CLERK of the payment's district: records cash, or a check with its number, taken at the counter. */
export async function recordCounterPayment(
  ds: DataSource,
  config: Config,
  clerk: Viewer,
  paymentId: string,
  input: { method: "cash" | "check"; checkNumber?: string | null },
  meta: { requestId?: string; log?: Logger },
): Promise<Payment> {
  const checkNumber = String(input.checkNumber ?? "").trim();
  if (input.method !== "cash" && input.method !== "check") throw badInput({ method: "Choose cash or check." });
  if (input.method === "check" && !checkNumber) throw badInput({ checkNumber: "Enter the check number." });
  if (checkNumber.length > 40) throw badInput({ checkNumber: "A check number has at most 40 characters." });
  const found = await paymentForClerk(ds, clerk, paymentId);
  requirePending(found);

  // A card checkout may be open: close it first, so the payer cannot also pay by card.
  if (found.provider === "stripe" && found.providerSessionId && config.stripe) {
    const stripe = stripeClient(config);
    // On the account the session was made on (the district's own, or the platform's before Connect).
    const account = onAccount(found.stripeAccountId);
    const s = await stripe.checkout.sessions.retrieve(found.providerSessionId, {}, account);
    if (s.status === "complete") throw conflict("The payer has just paid this by card; wait a moment for the card processor's confirmation.");
    if (s.status === "open") {
      try {
        await stripe.checkout.sessions.expire(found.providerSessionId, {}, account);
      } catch (e) {
        if (e instanceof Stripe.errors.StripeInvalidRequestError)
          throw conflict("The payer's card checkout could not be closed (it may have just been paid). Reload and try again.");
        throw e;
      }
    }
  }

  return ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, found.id))!;
    requirePending(p);
    return markPaid(tx, p, {
      provider: "counter",
      method: input.method,
      checkNumber: input.method === "check" ? checkNumber : null,
      // kept, so a card payment completing on the old session later is flagged as paid twice
      sessionId: p.providerSessionId,
      paymentIntent: null,
      actor: { userId: clerk.userId, requestId: meta.requestId },
      publicUrl: config.publicUrl,
      details: { counter: true },
    });
  });
}

/** Which lines may be refunded now, and for how much; throws when the request cannot be met. */
function checkRefund(p: Payment, refunds: Refund[], codes: string[], owedBack: string[] = []): { amountCents: number; lines: PaymentLine[] } {
  if (p.status === "PENDING" || p.status === "CANCELLED") throw conflict("Only a paid payment can be refunded.");
  if (p.status === "REFUNDED") throw conflict("This payment is already refunded in full.");
  const refunded = new Map<string, string>();
  for (const r of refunds) for (const c of r.lineCodes) refunded.set(c, r.receiptNumber);
  const lines: PaymentLine[] = [];
  // Money paid after its payment was cancelled was never due: every line of it goes back.
  const allLines = p.cancelledAt !== null;
  for (const code of codes) {
    const line = p.lines.find((l) => l.code === code);
    if (!line) throw badInput({ lineCodes: `This payment has no line "${code}".` });
    if (!line.refundable && !allLines && !owedBack.includes(code))
      throw badInput(
        { lineCodes: `${line.label} (${line.section}) is not refundable; only a deposit, or a fee owed back for a service not given, is returned.` },
        "Only refundable lines can be refunded.",
      );
    if (refunded.has(code)) throw conflict(`${line.label} was already refunded (receipt ${refunded.get(code)}).`, { lineCodes: "Already refunded." });
    lines.push(line);
  }
  const amountCents = lines.reduce((s, l) => s + l.amountCents, 0);
  if (amountCents > p.amountCents - p.refundedCents) throw conflict(`A refund can be at most what remains paid, ${formatCents(p.amountCents - p.refundedCents)}.`);
  return { amountCents, lines };
}

/**
 * CLERK of the payment's district: returns refundable lines (the as-built deposit, SUL 606 B) and
 * lines the payable owes back (a refused load's dumping fee, PayableHandler.linesOwedBack),
 * never more than was paid and never a line twice. A Stripe payment is refunded through Stripe
 * (with an idempotency key per payment and set of lines, so a retry never refunds twice);
 * otherwise the refund is recorded as paid back by check (or cash when paid in cash).
 */
export async function refundPayment(
  ds: DataSource,
  config: Config,
  clerk: Viewer,
  paymentId: string,
  input: { lineCodes: string[]; reason: string; method?: "cash" | "check" | null },
  meta: { requestId?: string; log?: Logger },
): Promise<Refund> {
  const reason = String(input.reason ?? "").trim();
  const codes = [...new Set((input.lineCodes ?? []).map((c) => String(c).trim()).filter(Boolean))].sort();
  const fields: Record<string, string> = {};
  if (!codes.length) fields.lineCodes = "Choose the line to refund.";
  if (!reason) fields.reason = "Say why the money is returned (the receipt and the audit log keep it).";
  else if (reason.length > 1000) fields.reason = "At most 1,000 characters.";
  if (input.method && input.method !== "cash" && input.method !== "check") fields.method = "Choose cash or check.";
  if (Object.keys(fields).length) throw badInput(fields);

  const found = await paymentForClerk(ds, clerk, paymentId);
  const owedBack = async (db: DataSource | EntityManager) =>
    (await linesOwedBack(db, [{ type: found.payableType, id: found.payableId }])).get(titleKey(found.payableType, found.payableId)) ?? [];
  const { amountCents } = checkRefund(found, await refundsFor(ds, [found.id]), codes, await owedBack(ds));

  let method: PaymentMethod;
  let providerRefundId: string | null = null;
  if (found.provider === "stripe") {
    if (!config.stripe || !found.providerPaymentIntent)
      throw conflict("This payment was made by card through Stripe, which is not configured now: refund it in the Stripe dashboard.");
    const refund = await stripeClient(config).refunds.create(
      { payment_intent: found.providerPaymentIntent, amount: amountCents, metadata: { paymentId: found.id, lineCodes: codes.join(",") } },
      // The money goes back from the account that took it (a direct charge on the district's account).
      onAccount(found.stripeAccountId, { idempotencyKey: `refund-${found.id}-${sha256(codes.join(",")).slice(0, 16)}` }),
    );
    if (refund.status === "failed" || refund.status === "canceled") throw conflict(`The card processor refused the refund (${refund.status}).`);
    method = "card";
    providerRefundId = refund.id;
  } else method = input.method ?? (found.method === "cash" ? "cash" : "check");

  return ds.transaction(async (tx) => {
    const p = (await lockPayment(tx, found.id))!;
    checkRefund(p, await refundsFor(tx, [p.id]), codes, await owedBack(tx));
    const district = await tx.findOneOrFail(District, { where: { id: p.districtId } });
    const now = clock.now();
    const receiptNumber = await nextReceiptNumber(tx, district, now);
    const saved = await tx.save(
      tx.create(Refund, { paymentId: p.id, amountCents, reason, lineCodes: codes, method, providerRefundId, receiptNumber, createdById: clerk.userId }),
    );
    const refundedCents = p.refundedCents + amountCents;
    const status: PaymentStatus = refundedCents === p.amountCents ? "REFUNDED" : "PARTIALLY_REFUNDED";
    await tx.update(Payment, { id: p.id }, { refundedCents, status, updatedAt: now });
    await audit(
      tx,
      { userId: clerk.userId, requestId: meta.requestId },
      {
        action: "payment.refunded",
        entityType: "Payment",
        entityId: p.id,
        districtId: p.districtId,
        reason,
        details: { refundId: saved.id, amountCents, lineCodes: codes, method, providerRefundId, receiptNumber },
      },
    );
    const payer = await receiptRecipient(tx, p);
    const lines = p.lines.filter((l) => codes.includes(l.code));
    if (payer)
      await enqueueEmail(tx, {
      to: payer.email,
      recipientId: payer.id,
      districtId: p.districtId,
      kind: "payment.refund",
      subject: `Refund ${receiptNumber}: ${formatCents(amountCents)} from ${district.name}`,
      body: [
        payer.greeting,
        "",
        `${district.name} is returning ${formatCents(amountCents)} of payment ${p.receiptNumber}.`,
        "",
        `Refund receipt number: ${receiptNumber}`,
        `Date: ${formatReceiptDate(now, district.timeZone)}`,
        ...lines.map((l) => `${l.label} (${l.section}): ${formatCents(l.amountCents)}`),
        `Reason: ${reason}`,
        method === "card" ? "The money goes back to the card you paid with; your bank may take a few days to show it." : `Paid back by ${method}.`,
        "",
        `${district.name}`,
        `${district.address}`,
        "",
      ].join("\n"),
    });
    return tx.findOneOrFail(Refund, { where: { id: saved.id } });
  });
}


import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import type { Config } from "../config.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { Refund, type PaymentStatus } from "../payments/payment.entity.js";
import { nextReceiptNumber } from "../payments/receipts.js";
import { onAccount, stripeClient } from "../payments/stripe.js";
import { accountRow, actorOf, type Meta } from "./common.js";
import { SEWER_ACCOUNT_PAYABLE, accountBalances } from "./ledger.js";

/**
 * Refunding an account's credit (issue 14): an account that has paid more than it owes (paid
 * twice, or a credit bill after an adjustment) holds a credit. The district's Town Clerk, who takes
 * the counter's payments, pays it back: by check (its number and date recorded), or back to the
 * card of a card payment on the account, through Stripe on the account the payment was made on.
 * Never more than the credit nor than what of the card payment is not yet refunded; a reason is
 * required. The preview answers what will be refunded and to whom, changing nothing; the refund is
 * one transaction: the REFUND ledger entry (a debit that takes the credit back), its receipt number
 * from the district's receipt book, the card refund's record, the audit entry and the receipt
 * emailed to the party billed. The laws say nothing of refunds (docs/decisions/sewer-account-refunds.md).
 */

export type AccountRefundInput = {
  accountId: string;
  amountCents: number;
  /** "check" or "card" */
  method: string;
  /** card: the card payment on the account the money goes back to */
  paymentId?: string | null;
  /** check: its number and the date written on it */
  checkNumber?: string | null;
  checkDate?: string | null;
  reason: string;
};

export type RefundCardPayment = { paymentId: string; receiptNumber: string; paidOn: CalendarDate; amountCents: number; refundableCents: number; test: boolean };

export type AccountRefundPreview = {
  accountId: string;
  accountNumber: string;
  /** the credit before the refund */
  creditCents: number;
  amountCents: number;
  method: "check" | "card";
  /** the party billed (Huron VI-3: the owner of record; SUL 1201: the occupant), the check's payee */
  payeeName: string;
  /** where the receipt is emailed; null when the party billed has no sign-in */
  receiptEmail: string | null;
  payment: RefundCardPayment | null;
  checkNumber: string | null;
  checkDate: CalendarDate | null;
  reason: string;
  /** the balance after the refund (below zero: the credit left) */
  balanceAfterCents: number;
};

export type AccountRefund = AccountRefundPreview & { id: string; receiptNumber: string; on: CalendarDate };

const MAX_CENTS = 99_999_999;

/** The district's Town Clerk only (as at the counter): NOT_FOUND outside the district, FORBIDDEN for its other staff. */
async function requireAccountClerk(db: DataSource | EntityManager, viewer: Viewer, accountId: string): Promise<void> {
  const [found] = isUuid(accountId) ? await db.query(`SELECT district_id FROM service_account WHERE id = $1`, [accountId]) : [];
  if (!found || !isStaff(viewer, found.district_id)) throw notFound("That account");
  if (!hasRole(viewer, "CLERK", found.district_id)) throw forbidden("Only the Town Clerk refunds an account's credit.");
}

/** The fields' own checks, before anything is read. */
function checkFields(input: AccountRefundInput): { reason: string; checkNumber: string; checkDate: string } {
  const fields: Record<string, string> = {};
  const reason = String(input.reason ?? "").trim();
  const checkNumber = String(input.checkNumber ?? "").trim();
  const checkDate = String(input.checkDate ?? "").trim();
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents < 1 || input.amountCents > MAX_CENTS) fields.amountCents = "Enter an amount from $0.01 up to the account's credit.";
  if (input.method !== "check" && input.method !== "card") fields.method = "Choose a check, or back to the card of a card payment.";
  if (input.method === "check") {
    if (!checkNumber) fields.checkNumber = "Enter the check number.";
    else if (checkNumber.length > 40) fields.checkNumber = "A check number has at most 40 characters.";
    if (!checkDate) fields.checkDate = "Enter the date written on the check.";
    else if (!isCalendarDate(checkDate)) fields.checkDate = "Use a date like 2026-05-01.";
  }
  if (input.method === "card" && !isUuid(String(input.paymentId ?? ""))) fields.paymentId = "Choose the card payment the money goes back to.";
  if (!reason) fields.reason = "Say why the money is paid back (the receipt and the audit log keep it).";
  else if (reason.length > 1000) fields.reason = "At most 1,000 characters.";
  if (Object.keys(fields).length) throw badInput(fields);
  return { reason, checkNumber, checkDate };
}

/** The account's card payments with something not yet refunded, newest first (the form's choices). One statement. */
export async function refundableCardPayments(
  db: DataSource | EntityManager,
  accountId: string,
  timeZone: string,
  opts: { id?: string; lock?: boolean; spentToo?: boolean } = {},
): Promise<(RefundCardPayment & { row: any })[]> {
  // spentToo: also a payment already refunded in full (a refund Stripe has made is recorded whatever was refunded meanwhile).
  const rows: any[] = await db.query(
    `SELECT p.* FROM payment p
      WHERE p.payable_type = $1 AND p.payable_id = $2 AND p.method = 'card' AND p.provider IN ('stripe', 'test')
        AND ${opts.spentToo ? "p.status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')" : "p.status IN ('PAID', 'PARTIALLY_REFUNDED') AND p.refunded_cents < p.amount_cents"} ${opts.id ? "AND p.id = $3" : ""}
      ORDER BY p.paid_at DESC LIMIT 50 ${opts.lock ? "FOR UPDATE" : ""}`,
    opts.id ? [SEWER_ACCOUNT_PAYABLE, accountId, opts.id] : [SEWER_ACCOUNT_PAYABLE, accountId],
  );
  return rows.map((r) => ({
    paymentId: r.id,
    receiptNumber: r.receipt_number,
    paidOn: dateIn(timeZone, r.paid_at),
    amountCents: r.amount_cents,
    refundableCents: r.amount_cents - r.refunded_cents,
    test: r.provider === "test",
    row: r,
  }));
}

/**
 * What the refund would be, checked against the account as it is now (under its lock inside the
 * refund's transaction). `madeAtStripe`: the card refund is already made, so only who may record it
 * and on which payment are checked, not the credit or what is left of the payment (the money has
 * gone back; Stripe refunds no more than the charge has left).
 */
async function plan(db: DataSource | EntityManager, viewer: Viewer, input: AccountRefundInput, lock: boolean, madeAtStripe = false) {
  await requireAccountClerk(db, viewer, input.accountId);
  const { reason, checkNumber, checkDate } = checkFields(input);
  const a = await accountRow(db, viewer, input.accountId, { lock, staffOnly: true });
  const today = dateIn(a.time_zone);
  if (input.method === "check" && checkDate > today) throw badInput({ checkDate: "A check refund is recorded once the check is written: today or a day before." });
  const balance = (await accountBalances(db, [a.id])).get(a.id)!.balanceCents;
  const credit = Math.max(0, -balance);
  if (!credit && !madeAtStripe) throw conflict("The account has no credit to refund: it has not paid more than it owes.");
  if (input.amountCents > credit && !madeAtStripe) throw badInput({ amountCents: `At most the account's credit, ${formatCents(credit)}.` });
  let payment: (RefundCardPayment & { row: any }) | null = null;
  if (input.method === "card") {
    [payment] = await refundableCardPayments(db, a.id, a.time_zone, { id: input.paymentId!, lock, spentToo: madeAtStripe });
    if (!payment) throw badInput({ paymentId: "That is not a card payment on this account with something left to refund." });
    if (input.amountCents > payment.refundableCents && !madeAtStripe)
      throw badInput({ amountCents: `At most what is left of card payment ${payment.receiptNumber}, ${formatCents(payment.refundableCents)}.` });
  }
  const payee = await billedParty(db, a);
  const preview: AccountRefundPreview = {
    accountId: a.id,
    accountNumber: a.account_number,
    creditCents: credit,
    amountCents: input.amountCents,
    method: input.method as "check" | "card",
    payeeName: payee.name,
    receiptEmail: payee.email,
    payment: payment && { paymentId: payment.paymentId, receiptNumber: payment.receiptNumber, paidOn: payment.paidOn, amountCents: payment.amountCents, refundableCents: payment.refundableCents, test: payment.test },
    checkNumber: input.method === "check" ? checkNumber : null,
    checkDate: input.method === "check" ? checkDate : null,
    reason,
    balanceAfterCents: balance + input.amountCents,
  };
  return { a, today, payment, payee, preview };
}

/**
 * The party the account's bills are billed to, who gets the money back and the receipt: Huron VI-3
 * bills "the owners of property"; under the SUL (1201: "all persons discharging") the occupant, as
 * bill runs address them. The email is their sign-in's (the occupant's, else the owner's, as
 * paperless reads it); none when neither has one.
 */
async function billedParty(db: DataSource | EntityManager, a: any): Promise<{ name: string; email: string | null; userId: string | null }> {
  const district = await db.getRepository(District).findOneByOrFail({ id: a.district_id });
  const toOwner = (await rulebookOn(db, district)).enabled("billing.minimumPerUserBehindMeter");
  const userId = toOwner ? (a.owner_user_id ?? a.occupant_user_id) : (a.occupant_user_id ?? a.owner_user_id);
  const [r] = await db.query(`SELECT p.owner_name, u.email FROM sewer_property p LEFT JOIN app_user u ON u.id = $2 WHERE p.id = $1`, [a.property_id, userId]);
  return { name: toOwner ? r.owner_name : a.occupant_name, email: r.email ?? null, userId: r.email ? userId : null };
}

/** The Clerk's preview: what would be refunded, how and to whom, with every check of the refund itself; nothing is changed. */
export async function previewAccountRefund(ds: DataSource, viewer: Viewer, input: AccountRefundInput): Promise<AccountRefundPreview> {
  return (await plan(ds, viewer, input, false)).preview;
}

/**
 * The Clerk refunds (a part of) the account's credit, after the preview. Every check first, holding
 * nothing; a card refund through Stripe is then made (a direct refund on the district's connected
 * account, with an idempotency key of the payment, what of it was refunded before and the amount,
 * so a retry or a double submission never refunds twice), outside any transaction, as a permit's
 * refund is (api/payments/clerk.service.ts): the processor is never waited on while the account is
 * locked (on the embedded database, while its one connection waits). Then one transaction under the
 * account's lock (and the card payment's): the checks again (for a refund Stripe has made, only
 * that it is not recorded yet), the refund's receipt number, the REFUND entry, the card payment's
 * refunded amount, the audit entry and the receipt.
 */
export async function refundAccountCredit(ds: DataSource, config: Config, viewer: Viewer, input: AccountRefundInput, meta: Meta): Promise<AccountRefund> {
  const first = await plan(ds, viewer, input, false);
  let providerRefundId: string | null = null;
  const card = first.payment?.row;
  if (card?.provider === "stripe") {
    if (!config.stripe || !card.provider_payment_intent) throw conflict("This card payment went through Stripe, which is not configured now: refund it by check.");
    const refund = await stripeClient(config).refunds.create(
      { payment_intent: card.provider_payment_intent, amount: input.amountCents, metadata: { paymentId: card.id, accountId: first.a.id } },
      // The money goes back from the account that took it (a direct charge on the district's account).
      onAccount(card.stripe_account_id, { idempotencyKey: `account-refund-${card.id}-${card.refunded_cents}-${input.amountCents}` }),
    );
    if (refund.status === "failed" || refund.status === "canceled") throw conflict(`The card processor refused the refund (${refund.status}).`);
    providerRefundId = refund.id;
  }
  return ds.transaction(async (tx) => {
    const { a, today, payment, payee, preview } = await plan(tx, viewer, input, true, providerRefundId !== null);
    if (providerRefundId) {
      // The same refund asked for twice at once: Stripe made it once (the idempotency key); under the account's lock, it is recorded once.
      const [known] = await tx.query(`SELECT receipt_number FROM refund WHERE provider_refund_id = $1`, [providerRefundId]);
      if (known) throw conflict(`This refund is already recorded: receipt ${known.receipt_number}.`);
    }
    const district = await tx.getRepository(District).findOneByOrFail({ id: a.district_id });
    const now = clock.now();
    let refundId: string | null = null;
    const receiptNumber = await nextReceiptNumber(tx, district, now);
    if (payment) {
      const p = payment.row;
      const saved = await tx.save(
        tx.create(Refund, { paymentId: p.id, amountCents: input.amountCents, reason: preview.reason, lineCodes: ["sewer-rent"], method: "card", providerRefundId, receiptNumber, createdById: viewer.userId }),
      );
      refundId = saved.id;
      const refundedCents = p.refunded_cents + input.amountCents;
      const status: PaymentStatus = refundedCents === p.amount_cents ? "REFUNDED" : "PARTIALLY_REFUNDED";
      await tx.query(`UPDATE payment SET refunded_cents = $2, status = $3, updated_at = $4 WHERE id = $1`, [p.id, refundedCents, status, now]);
    }
    const on = payment ? today : preview.checkDate!;
    const description = payment
      ? `Refund ${receiptNumber} to the card of payment ${payment.receiptNumber}${payment.test ? " (test checkout: no money moves)" : ""}`
      : `Refund ${receiptNumber}, check no. ${preview.checkNumber} to ${payee.name}`;
    const [entry] = await tx.query(
      `INSERT INTO account_ledger_entry (district_id, account_id, kind, amount_cents, payment_id, refund_id, check_number, effective_on, description, reason, receipt_number, unique_key, created_by_id)
       VALUES ($1, $2, 'REFUND', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [a.district_id, a.id, input.amountCents, payment?.paymentId ?? null, refundId, preview.checkNumber, on, description.slice(0, 300), preview.reason, receiptNumber, `refund:${receiptNumber}`, viewer.userId],
    );
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "rents.credit_refunded",
      entityType: "ServiceAccount",
      entityId: a.id,
      districtId: a.district_id,
      reason: preview.reason,
      details: {
        entryId: entry.id,
        receiptNumber,
        amountCents: input.amountCents,
        creditBeforeCents: preview.creditCents,
        method: preview.method,
        checkNumber: preview.checkNumber,
        checkDate: preview.checkDate,
        paymentId: payment?.paymentId ?? null,
        refundId,
        providerRefundId,
        payee: payee.name,
      },
    });
    if (payee.email)
      await enqueueEmail(tx, {
        to: payee.email,
        recipientId: payee.userId,
        districtId: a.district_id,
        kind: "rents.credit_refunded",
        subject: `Refund ${receiptNumber}: ${formatCents(input.amountCents)} from ${district.name}`,
        body: [
          `Hello ${payee.name},`,
          "",
          `${district.name} is paying back ${formatCents(input.amountCents)} of the credit on sewer account ${a.account_number}.`,
          "",
          `Refund receipt number: ${receiptNumber}`,
          `Date: ${formatDate(on)}`,
          payment
            ? `How: back to the card that paid receipt ${payment.receiptNumber} on ${formatDate(payment.paidOn)}; your bank may take a few days to show it.`
            : `How: check no. ${preview.checkNumber}, dated ${formatDate(preview.checkDate!)}, to ${payee.name}.`,
          `Reason: ${preview.reason}`,
          preview.balanceAfterCents < 0 ? `Credit left on the account: ${formatCents(-preview.balanceAfterCents)}.` : "No credit is left on the account.",
          "",
          `${district.name}`,
          `${district.address}`,
          "",
        ].join("\n"),
      });
    return { ...preview, id: entry.id, receiptNumber, on };
  });
}

/** The Town Clerk's choices for a card refund: the account's card payments with something left to refund. */
export async function accountRefundableCardPayments(ds: DataSource, viewer: Viewer, accountId: string): Promise<RefundCardPayment[]> {
  await requireAccountClerk(ds, viewer, accountId);
  const a = await accountRow(ds, viewer, accountId, { staffOnly: true });
  return (await refundableCardPayments(ds, a.id, a.time_zone)).map(({ row: _row, ...p }) => p);
}

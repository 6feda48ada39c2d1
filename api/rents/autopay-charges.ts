import type { Logger } from "pino";
import type Stripe from "stripe";
import type { DataSource, EntityManager } from "typeorm";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, formatDate, type CalendarDate } from "../common/dates.js";
import { formatCents } from "../common/money.js";
import type { Config } from "../config.js";
import { registerJobHandler } from "../jobs/queue.js";
import { enqueueEmails, type EmailDraft } from "../outbox/outbox.service.js";
import { connectionsOf, takesCardPayments } from "../payments/connect.service.js";
import { recordProviderEvent } from "../payments/checkout.service.js";
import { Payment } from "../payments/payment.entity.js";
import { markPaid } from "../payments/receipts.js";
import { onAccount, stripeClient } from "../payments/stripe.js";
import { registerStripeEventHandler, stripeConfigOf } from "../payments/webhook.js";
import { AUTOPAY_ATTEMPTS, AUTOPAY_UNANSWERED_HOURS, cardLabel, retryOn } from "./autopay.service.js";
import { accountBalances, createAccountPayment } from "./ledger.js";

/**
 * Autopay's charges (issue 14): each issued bill of an account with autopay on is charged on its
 * due date (in the district's time zone) for the account's balance due, by the hourly job
 * `rents.autopay` (so in the first hour of the due date, whatever the zone): an off-session PaymentIntent on the district's connected account, confirmed at
 * once, with an idempotency key made of the bill and the attempt number (stored before Stripe is
 * called), so a job run again never charges twice. A success becomes a Payment toward the account
 * (createAccountPayment, the owner as payer) marked paid in one transaction with its audit entry,
 * from Stripe's answer and again, idempotently, from the Connect webhook. A declined charge is
 * tried once more AUTOPAY_RETRY_DAYS later, then left for the owner to pay; each outcome is emailed.
 */

export const AUTOPAY_JOB = "rents.autopay";
const BATCH = 200;

type Work = {
  bill_id: string;
  account_id: string;
  district_id: string;
  user_id: string;
  status: string;
  attempts: number;
  amount_cents: number;
  provider: string | null;
  stripe_account_id: string | null;
  customer_id: string | null;
  payment_method_id: string | null;
  card_label: string | null;
  number: string;
  due_on: CalendarDate;
  account_number: string;
  district_name: string;
  time_zone: string;
  email: string;
  display_name: string;
  today: CalendarDate;
  /** the test card that declines (test mode) */
  test_declines: boolean;
};

const rowsOf = (r: any): any[] => (Array.isArray(r[0]) ? r[0] : r);

/**
 * One run of the job at `clock.now()`: claims the bills due today (or since autopay was turned
 * on and not yet charged), then charges them in batches of BATCH, each batch a fixed number of
 * statements to pick and prepare its charges (the Stripe call and the payment's settlement are one
 * per charge). Returns what happened.
 */
export async function runAutopay(ds: DataSource, config: Config, log: Logger, publicUrl = config.publicUrl): Promise<{ charged: number; declined: number; skipped: number; pending: number }> {
  const now = clock.now();
  const out = { charged: 0, declined: 0, skipped: 0, pending: 0 };
  await warnExpiringCards(ds, now, publicUrl);
  // 1. Each bill due by today (in its district's zone) of an account with autopay on, from the day it was turned on: one
  //    charge row. Of an account's bills due, the newest is charged for the whole balance; older ones are covered by it.
  await ds.query(
    `WITH due AS (
       SELECT b.id AS bill_id, b.account_id, b.district_id, ap.user_id, b.due_on,
              row_number() OVER (PARTITION BY b.account_id ORDER BY b.due_on DESC, b.period_start DESC, b.id) AS n
         FROM autopay ap
         JOIN district d ON d.id = ap.district_id
         JOIN bill b ON b.account_id = ap.account_id AND b.status = 'ISSUED'
        WHERE ap.enabled AND b.due_on >= ap.enabled_on AND b.due_on <= ($1::timestamptz AT TIME ZONE d.time_zone)::date
          AND NOT EXISTS (SELECT 1 FROM autopay_charge c WHERE c.bill_id = b.id)
     )
     INSERT INTO autopay_charge (bill_id, account_id, district_id, user_id, due_on, status, outcome)
     SELECT bill_id, account_id, district_id, user_id, due_on, CASE WHEN n = 1 THEN 'CHARGING' ELSE 'SKIPPED' END,
            CASE WHEN n = 1 THEN NULL ELSE 'the account''s balance is charged with its newer bill' END
       FROM due ON CONFLICT (bill_id) DO NOTHING`,
    [now],
  );
  // 2. Charges to attempt now: new ones, those a run left halfway (the same key again), and retries due.
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const batch: Work[] = await ds.query(
      `SELECT c.bill_id, c.account_id, c.district_id, c.user_id, c.status, c.attempts, c.amount_cents, c.provider, c.stripe_account_id, c.customer_id,
              c.payment_method_id, c.card_label, b.number, c.due_on::text AS due_on, a.account_number, d.name AS district_name, d.time_zone,
              u.email, u.display_name, ($2::timestamptz AT TIME ZONE d.time_zone)::date::text AS today, coalesce(ap.test_declines, false) AS test_declines
         FROM autopay_charge c
         LEFT JOIN autopay ap ON ap.account_id = c.account_id
         JOIN district d ON d.id = c.district_id
         JOIN bill b ON b.id = c.bill_id
         JOIN service_account a ON a.id = c.account_id
         JOIN app_user u ON u.id = c.user_id
        WHERE c.status IN ('CHARGING', 'RETRY') AND c.bill_id > $1
          AND (c.status = 'CHARGING' OR c.next_attempt_on <= ($2::timestamptz AT TIME ZONE d.time_zone)::date)
        ORDER BY c.bill_id LIMIT ${BATCH}`,
      [after, now],
    );
    if (!batch.length) break;
    after = batch[batch.length - 1].bill_id;
    const ready = await prepare(ds, config, batch, publicUrl);
    out.skipped += batch.length - ready.length;
    for (const w of ready) {
      const r = await attempt(ds, config, log, w, publicUrl);
      out[r]++;
    }
  }
  return out;
}

/**
 * Warns the person billed, once per card expiry, when the saved card expires before the due date of
 * a bill autopay is to charge (an issued bill due from today on, not yet charged; the email names
 * the first such): the card is good through the last day of its expiry month (Stripe's
 * card.exp_month and exp_year, kept when it was saved). The card's "YYYY-MM" is marked warned and the emails queued in one transaction of
 * two statements whatever the number of cards; a second run finds them warned.
 */
async function warnExpiringCards(ds: DataSource, now: Date, publicUrl: string): Promise<number> {
  return ds.transaction(async (tx) => {
    const rows: any[] = rowsOf(
      await tx.query(
        `WITH next AS (
           SELECT ap.account_id, min(b.due_on) AS due_on
             FROM autopay ap
             JOIN district d ON d.id = ap.district_id
             JOIN bill b ON b.account_id = ap.account_id AND b.status = 'ISSUED'
            WHERE ap.enabled AND ap.card_exp_year IS NOT NULL AND ap.card_exp_month IS NOT NULL
              AND b.due_on >= ($1::timestamptz AT TIME ZONE d.time_zone)::date AND b.due_on >= ap.enabled_on
              AND b.due_on >= (make_date(ap.card_exp_year, ap.card_exp_month, 1) + interval '1 month')::date
              AND NOT EXISTS (SELECT 1 FROM autopay_charge c WHERE c.bill_id = b.id)
            GROUP BY ap.account_id
         )
         UPDATE autopay ap SET expiry_warned_for = to_char(make_date(ap.card_exp_year, ap.card_exp_month, 1), 'YYYY-MM'), updated_at = now()
           FROM next, app_user u, service_account a, district d
          WHERE ap.account_id = next.account_id AND u.id = ap.user_id AND a.id = ap.account_id AND d.id = ap.district_id
            AND ap.expiry_warned_for IS DISTINCT FROM to_char(make_date(ap.card_exp_year, ap.card_exp_month, 1), 'YYYY-MM')
         RETURNING ap.account_id, ap.user_id, ap.district_id, ap.provider, ap.card_brand, ap.card_last4, ap.card_exp_month, ap.card_exp_year,
                   next.due_on::text AS due_on, u.email, u.display_name, a.account_number, d.name AS district_name`,
        [now],
      ),
    );
    if (!rows.length) return 0;
    await enqueueEmails(
      tx,
      rows.map((r) =>
        email(r, `Autopay: your card expires before sewer account ${r.account_number}'s next bill is due`, [
          `The ${cardLabel(r)} that autopay charges for sewer account ${r.account_number} expires at the end of ${String(r.card_exp_month).padStart(2, "0")}/${r.card_exp_year}, before the next bill is due on ${formatDate(r.due_on)}.`,
          `Save a new card on the account's autopay page, or that bill will be declined and left for you to pay: ${publicUrl}/properties/autopay/${r.account_id}`,
        ], "rents.autopay_card_expiring"),
      ),
    );
    return rows.length;
  });
}

/**
 * Fixes each new attempt (first, or the retry) in one statement: its number, the amount (the
 * account's balance now), the card; or skips it, saying why (nothing due, autopay turned off or the
 * card removed, the person is no longer billed, the district no longer takes card payments), and
 * emails the skips that leave a bill to pay. A charge a run left halfway keeps its attempt and
 * amount (the same idempotency key must carry the same request). Returns the charges to make.
 */
async function prepare(ds: DataSource, config: Config, batch: Work[], publicUrl: string): Promise<Work[]> {
  const fresh = batch.filter((w) => w.status === "RETRY" || w.attempts === 0);
  const resumed = batch.filter((w) => !(w.status === "RETRY" || w.attempts === 0));
  if (!fresh.length) return resumed;
  const accountIds = [...new Set(fresh.map((w) => w.account_id))];
  const [balances, cards, parties, connections] = await Promise.all([
    accountBalances(ds, accountIds),
    ds.query(`SELECT * FROM autopay WHERE account_id = ANY($1::uuid[])`, [accountIds]),
    ds.query(`SELECT a.id, a.occupant_user_id, p.owner_user_id FROM service_account a JOIN sewer_property p ON p.id = a.property_id WHERE a.id = ANY($1::uuid[])`, [accountIds]),
    config.stripe ? connectionsOf(ds, [...new Set(fresh.map((w) => w.district_id))]) : Promise.resolve(new Map()),
  ]);
  const cardOf = new Map<string, any>(cards.map((c: any) => [c.account_id, c]));
  const partyOf = new Map<string, any>(parties.map((p: any) => [p.id, p]));
  type Plan = { w: Work; skip: string | null; tellOwner: boolean; amount: number; card: any };
  const plans: Plan[] = fresh.map((w) => {
    const card = cardOf.get(w.account_id);
    const party = partyOf.get(w.account_id);
    const balance = balances.get(w.account_id)?.balanceCents ?? 0;
    const plan = (skip: string | null, tellOwner = true): Plan => ({ w, skip, tellOwner, amount: skip ? 0 : balance, card });
    if (!card?.enabled || !card.payment_method_id || card.user_id !== w.user_id) return plan("autopay was turned off or its card removed before the charge");
    if (party?.occupant_user_id !== w.user_id && party?.owner_user_id !== w.user_id) return plan("the person who set up autopay is no longer billed for the account");
    if (config.stripe ? card.provider !== "stripe" || !takesCardPayments(config, connections.get(w.district_id)) || connections.get(w.district_id)?.accountId !== card.stripe_account_id : card.provider !== "test")
      return plan("the district no longer takes card payments on the account the card was saved on");
    if (balance <= 0) return plan("nothing was due: the account's balance is paid", false);
    return plan(null);
  });
  // The attempts fixed and the skips' notices commit together: a run that dies between them neither loses nor repeats a notice.
  const won = await ds.transaction(async (tx) => {
    const updated: any[] = rowsOf(
      await tx.query(
        `UPDATE autopay_charge c SET
                status = CASE WHEN t.skip IS NULL THEN 'CHARGING' ELSE 'SKIPPED' END,
                attempts = CASE WHEN t.skip IS NULL THEN c.attempts + 1 ELSE c.attempts END,
                next_attempt_on = NULL, outcome = t.skip, amount_cents = t.amount, unanswered_since = NULL,
                provider = t.provider, stripe_account_id = t.acct, customer_id = t.customer, payment_method_id = t.pm, card_label = t.label, updated_at = now()
           FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) AS t(bill_id, attempts, skip, amount, provider, acct, customer, pm, label)
          WHERE c.bill_id = t.bill_id AND c.attempts = t.attempts AND c.status IN ('CHARGING', 'RETRY')
          RETURNING c.bill_id, c.attempts, c.status`,
        [
          plans.map((p) => p.w.bill_id),
          plans.map((p) => p.w.attempts),
          plans.map((p) => p.skip),
          plans.map((p) => p.amount),
          plans.map((p) => p.card?.provider ?? null),
          plans.map((p) => p.card?.stripe_account_id ?? null),
          plans.map((p) => p.card?.customer_id ?? null),
          plans.map((p) => p.card?.payment_method_id ?? null),
          plans.map((p) => (p.card?.payment_method_id ? cardLabel(p.card) : null)),
        ],
      ),
    );
    const won = new Map<string, any>(updated.map((u) => [u.bill_id, u]));
    const notices: EmailDraft[] = plans
      .filter((p) => p.skip && p.tellOwner && won.has(p.w.bill_id))
      .map((p) =>
        email(p.w, `Autopay did not charge sewer bill ${p.w.number}`, [
          `Autopay did not charge sewer bill ${p.w.number} of account ${p.w.account_number}, due ${formatDate(p.w.due_on)}: ${p.skip}.`,
          `The bill is left for you to pay: ${publicUrl}/properties/bills/${p.w.bill_id}`,
        ], "rents.autopay_not_charged"),
      );
    if (notices.length) await enqueueEmails(tx, notices);
    return won;
  });
  const go = plans
    .filter((p) => !p.skip && won.get(p.w.bill_id)?.status === "CHARGING")
    .map((p) => ({
      ...p.w,
      status: "CHARGING",
      attempts: won.get(p.w.bill_id).attempts,
      amount_cents: p.amount,
      provider: p.card.provider,
      stripe_account_id: p.card.stripe_account_id,
      customer_id: p.card.customer_id,
      payment_method_id: p.card.payment_method_id,
      card_label: cardLabel(p.card),
      test_declines: p.card.test_declines,
    }));
  return [...resumed, ...go];
}

const email = (w: Pick<Work, "email" | "user_id" | "district_id" | "display_name" | "district_name">, subject: string, lines: string[], kind: string): EmailDraft => ({
  to: w.email,
  recipientId: w.user_id,
  districtId: w.district_id,
  kind,
  subject,
  body: [`Hello ${w.display_name},`, "", ...lines, "", w.district_name, ""].join("\n"),
});

/** One attempt: the charge on Stripe (or the test card), then its outcome recorded. */
async function attempt(ds: DataSource, config: Config, log: Logger, w: Work, publicUrl: string): Promise<"charged" | "declined" | "pending"> {
  if (w.provider === "test") {
    if (w.test_declines) {
      await recordDecline(ds, { billId: w.bill_id, attempt: w.attempts, paymentIntentId: null, reason: "the test card declines (as a real card may)", account: undefined }, publicUrl);
      return "declined";
    }
    await settleCharge(ds, { billId: w.bill_id, attempt: w.attempts, paymentIntentId: null, amountCents: w.amount_cents, account: undefined }, publicUrl, log);
    return "charged";
  }
  const stripe = stripeClient(config);
  let pi: Stripe.PaymentIntent;
  try {
    pi = await stripe.paymentIntents.create(
      {
        amount: w.amount_cents,
        currency: "usd",
        customer: w.customer_id!,
        payment_method: w.payment_method_id!,
        off_session: true,
        confirm: true,
        description: `Autopay: sewer bill ${w.number}, account ${w.account_number}`,
        metadata: { autopayBillId: w.bill_id, autopayAttempt: String(w.attempts), serviceAccountId: w.account_id },
      },
      onAccount(w.stripe_account_id, { idempotencyKey: `autopay-${w.bill_id}-a${w.attempts}` }),
    );
  } catch (err: any) {
    if (err?.type === "StripeCardError") {
      await recordDecline(ds, { billId: w.bill_id, attempt: w.attempts, paymentIntentId: err.payment_intent?.id ?? null, reason: declineText(err), account: w.stripe_account_id }, publicUrl);
      return "declined";
    }
    // Stripe refused the request itself (the card detached, the account no longer reachable): the same key
    // would be refused again, so it counts as a failed attempt (retried once with a new key, then left to pay).
    if (err?.type === "StripeInvalidRequestError" || err?.type === "StripePermissionError") {
      log.warn({ billId: w.bill_id, attempt: w.attempts, code: err.code }, "autopay charge refused by Stripe");
      await recordDecline(ds, { billId: w.bill_id, attempt: w.attempts, paymentIntentId: null, reason: `the card could not be charged (${declineText(err)})`, account: w.stripe_account_id }, publicUrl);
      return "declined";
    }
    // Network or Stripe trouble: the charge stays CHARGING and the next run sends the same key (Stripe answers what it did),
    // for AUTOPAY_UNANSWERED_HOURS from the first unanswered try; then the bill is left to pay.
    return noAnswer(ds, log, w, err, publicUrl);
  }
  if (pi.status === "succeeded") {
    await settleCharge(ds, { billId: w.bill_id, attempt: w.attempts, paymentIntentId: pi.id, amountCents: pi.amount_received || pi.amount, account: w.stripe_account_id }, publicUrl, log);
    return "charged";
  }
  if (pi.status === "processing") {
    await ds.query(`UPDATE autopay_charge SET payment_intent_id = $2, updated_at = now() WHERE bill_id = $1 AND payment_intent_id IS NULL`, [w.bill_id, pi.id]);
    return "pending"; // the webhook settles it
  }
  await recordDecline(ds, { billId: w.bill_id, attempt: w.attempts, paymentIntentId: pi.id, reason: pi.last_payment_error?.message ?? `the card needs the cardholder (${pi.status})`, account: w.stripe_account_id }, publicUrl);
  return "declined";
}

/**
 * Stripe did not answer the attempt: the first time is noted (`unanswered_since`); the next runs
 * send the same request again; once AUTOPAY_UNANSWERED_HOURS have passed since the first unanswered
 * try the bill is left for the owner to pay with the last decline's outcome and email (a success
 * Stripe reports later through the webhook is still settled and posted).
 */
async function noAnswer(ds: DataSource, log: Logger, w: Work, err: unknown, publicUrl: string): Promise<"pending" | "declined"> {
  const [c] = rowsOf(
    await ds.query(
      `UPDATE autopay_charge SET unanswered_since = coalesce(unanswered_since, $3), updated_at = now()
        WHERE bill_id = $1 AND attempts = $2 AND status = 'CHARGING' RETURNING unanswered_since`,
      [w.bill_id, w.attempts, clock.now()],
    ),
  );
  const since: Date | null = c?.unanswered_since ?? null;
  if (since && clock.now().getTime() - new Date(since).getTime() >= AUTOPAY_UNANSWERED_HOURS * 3_600_000) {
    log.error({ err, billId: w.bill_id, attempt: w.attempts, since }, `autopay charge not answered for ${AUTOPAY_UNANSWERED_HOURS} hours; the bill is left to pay`);
    const r = await recordDecline(ds, { billId: w.bill_id, attempt: w.attempts, paymentIntentId: null, reason: `the card processor did not answer for ${AUTOPAY_UNANSWERED_HOURS} hours`, account: w.stripe_account_id, unanswered: true }, publicUrl);
    return r === "declined" ? "declined" : "pending";
  }
  log.error({ err, billId: w.bill_id, attempt: w.attempts, since }, "autopay charge not made or not answered; the next run tries it again with the same idempotency key");
  return "pending";
}

const declineText = (err: any): string => {
  const m = String(err?.message ?? "the card was declined").replace(/[.\s]+$/, "");
  return m.charAt(0).toLowerCase() + m.slice(1);
};

/** The charge row, locked; with `account` given (a Stripe event), only one made on that account. */
async function lockCharge(tx: EntityManager, billId: string, account: string | null | undefined): Promise<any | null> {
  const [c] = await tx.query(
    `SELECT c.*, c.due_on::text AS due_on, b.number, a.account_number, d.name AS district_name, d.time_zone, u.email, u.display_name
       FROM autopay_charge c JOIN bill b ON b.id = c.bill_id JOIN service_account a ON a.id = c.account_id JOIN district d ON d.id = c.district_id JOIN app_user u ON u.id = c.user_id
      WHERE c.bill_id = $1 ${account !== undefined ? "AND c.stripe_account_id IS NOT DISTINCT FROM $2" : ""} FOR UPDATE OF c`,
    account !== undefined ? [billId, account] : [billId],
  );
  return c ?? null;
}

/**
 * A charge that succeeded: a Payment toward the account (the owner as payer) made and marked
 * paid (receipt, posted to the balance by the ledger's onPaid, audit, receipt email) in one
 * transaction, once: a charge already settled is left alone (Stripe's answer and the webhook both
 * come here).
 */
export async function settleCharge(
  ds: DataSource,
  input: { billId: string; attempt: number; paymentIntentId: string | null; amountCents: number; account: string | null | undefined; eventId?: string; eventType?: string },
  publicUrl: string,
  log?: Logger,
): Promise<"charged" | "already_settled" | "duplicate_event" | "unknown_charge"> {
  return ds.transaction(async (tx) => {
    const c = await lockCharge(tx, input.billId, input.account);
    if (input.eventId && !(await recordProviderEvent(tx, input.eventId, input.eventType ?? "payment_intent.succeeded", null, c?.payment_id ?? null))) return "duplicate_event";
    if (!c) return "unknown_charge";
    if (c.status === "SUCCEEDED") return "already_settled";
    if (input.amountCents !== c.amount_cents) log?.error({ billId: c.bill_id, expected: c.amount_cents, received: input.amountCents }, "autopay charge received another amount than asked; the amount received is posted");
    const created = await createAccountPayment(tx, { userId: null }, { accountId: c.account_id, payerId: c.user_id, amountCents: input.amountCents });
    await tx.update(Payment, { id: created.id }, { stripeAccountId: c.stripe_account_id, idempotencyKey: `autopay-${c.bill_id}-a${input.attempt}` });
    const p = await tx.findOneOrFail(Payment, { where: { id: created.id } });
    const paid = await markPaid(tx, p, {
      provider: c.provider === "test" ? "test" : "stripe",
      method: "card",
      checkNumber: null,
      sessionId: null,
      paymentIntent: input.paymentIntentId,
      actor: { userId: null },
      publicUrl,
      details: { autopay: true, billId: c.bill_id, attempt: input.attempt, paymentIntent: input.paymentIntentId, eventId: input.eventId ?? null },
    });
    await tx.query(
      `UPDATE autopay_charge SET status = 'SUCCEEDED', payment_id = $2, payment_intent_id = coalesce($3, payment_intent_id), next_attempt_on = NULL, outcome = NULL, updated_at = now() WHERE bill_id = $1`,
      [c.bill_id, paid.id, input.paymentIntentId],
    );
    await audit(tx, { userId: null }, {
      action: "rents.autopay_charged",
      entityType: "ServiceAccount",
      entityId: c.account_id,
      districtId: c.district_id,
      details: { billId: c.bill_id, billNumber: c.number, attempt: input.attempt, amountCents: input.amountCents, paymentId: paid.id, receiptNumber: paid.receiptNumber, card: c.card_label, paymentIntent: input.paymentIntentId },
    });
    await enqueueEmails(tx, [
      email(c, `Autopay charged ${formatCents(input.amountCents)} for sewer bill ${c.number}`, [
        `Autopay charged your ${c.card_label} ${formatCents(input.amountCents)} for sewer bill ${c.number} of account ${c.account_number}, due ${formatDate(c.due_on)}: the account's balance due.`,
        `Receipt ${paid.receiptNumber}: ${publicUrl}/payments/${paid.id}/receipt`,
      ], "rents.autopay_charged"),
    ]);
    return "charged";
  });
}

/**
 * A declined attempt: the first is tried again AUTOPAY_RETRY_DAYS later, the last leaves the bill
 * for the owner to pay (autopay stays on for the next bills); the owner is emailed either way.
 * Applied once per attempt (a repeated answer or event finds the attempt recorded).
 */
export async function recordDecline(
  ds: DataSource,
  input: { billId: string; attempt: number; paymentIntentId: string | null; reason: string; account: string | null | undefined; eventId?: string; eventType?: string; unanswered?: boolean },
  publicUrl: string,
): Promise<"declined" | "unchanged" | "duplicate_event" | "unknown_charge"> {
  return ds.transaction(async (tx) => {
    const c = await lockCharge(tx, input.billId, input.account);
    if (input.eventId && !(await recordProviderEvent(tx, input.eventId, input.eventType ?? "payment_intent.payment_failed", null, c?.payment_id ?? null))) return "duplicate_event";
    if (!c) return "unknown_charge";
    if (c.status !== "CHARGING" || c.attempts !== input.attempt) return "unchanged";
    const today = dateIn(c.time_zone);
    // Not answered for AUTOPAY_UNANSWERED_HOURS: left to pay at once (another try would send the same request again).
    const last = input.unanswered === true || c.attempts >= AUTOPAY_ATTEMPTS;
    const next = last ? null : retryOn(today);
    await tx.query(
      `UPDATE autopay_charge SET status = $2, next_attempt_on = $3, outcome = $4, payment_intent_id = coalesce($5, payment_intent_id), updated_at = now() WHERE bill_id = $1`,
      [c.bill_id, last ? "LEFT_TO_PAY" : "RETRY", next, input.reason, input.paymentIntentId],
    );
    await audit(tx, { userId: null }, {
      action: "rents.autopay_declined",
      entityType: "ServiceAccount",
      entityId: c.account_id,
      districtId: c.district_id,
      details: { billId: c.bill_id, billNumber: c.number, attempt: c.attempts, amountCents: c.amount_cents, reason: input.reason, nextAttemptOn: next, leftToPay: last, unanswered: input.unanswered === true, paymentIntent: input.paymentIntentId },
    });
    const pay = `${publicUrl}/properties/bills/${c.bill_id}`;
    await enqueueEmails(tx, [
      input.unanswered
        ? email(c, `Autopay could not charge sewer bill ${c.number}: it is left for you to pay`, [
            `Autopay could not charge your ${c.card_label} for sewer bill ${c.number} of account ${c.account_number} (${formatCents(c.amount_cents)}, due ${formatDate(c.due_on)}): ${input.reason}.`,
            `Autopay will not try this bill again: please pay it yourself online or at the district office. If the charge went through after all, it is posted to the account and any overpayment is a credit. Autopay stays on for your next bills.`,
            `Pay: ${pay}`,
          ], "rents.autopay_left_to_pay")
        : last
        ? email(c, `Autopay was declined again: sewer bill ${c.number} is left for you to pay`, [
            `Your ${c.card_label} was declined again for sewer bill ${c.number} of account ${c.account_number} (${formatCents(c.amount_cents)}, due ${formatDate(c.due_on)}): ${input.reason}.`,
            `Autopay will not try this bill again: please pay it yourself online or at the district office. Autopay stays on for your next bills; check the card on the account's autopay page.`,
            `Pay: ${pay}`,
          ], "rents.autopay_left_to_pay")
        : email(c, `Autopay was declined for sewer bill ${c.number}; we will try again on ${formatDate(next!)}`, [
            `Your ${c.card_label} was declined for sewer bill ${c.number} of account ${c.account_number} (${formatCents(c.amount_cents)}, due ${formatDate(c.due_on)}): ${input.reason}.`,
            `Autopay will try once more on ${formatDate(next!)}. You may pay it yourself before then: ${pay}`,
          ], "rents.autopay_declined"),
    ]);
    return "declined";
  });
}

registerJobHandler(AUTOPAY_JOB, async (ds, payload: { publicUrl?: string }, log) => {
  const config = stripeConfigOf(ds);
  if (!config) throw new Error("autopay needs the server's configuration (registered with the Stripe webhook)");
  const r = await runAutopay(ds, config, log, payload?.publicUrl ?? config.publicUrl);
  if (r.charged + r.declined + r.skipped + r.pending) log.info(r, "autopay run");
});

// The Connect webhook: an autopay payment intent of a district's account succeeded or failed (events may come before or after Stripe's answer).
registerStripeEventHandler(async (ds, config, log, event) => {
  if (event.type !== "payment_intent.succeeded" && event.type !== "payment_intent.payment_failed") return null;
  const pi = event.data.object as Stripe.PaymentIntent;
  const billId = pi?.metadata?.autopayBillId;
  const attemptNo = Number(pi?.metadata?.autopayAttempt);
  if (pi?.object !== "payment_intent" || !billId || !/^[0-9a-f-]{36}$/i.test(billId) || !Number.isInteger(attemptNo)) return null;
  const account = event.account ?? null;
  const r =
    event.type === "payment_intent.succeeded"
      ? await settleCharge(ds, { billId, attempt: attemptNo, paymentIntentId: pi.id, amountCents: pi.amount_received || pi.amount, account, eventId: event.id, eventType: event.type }, config.publicUrl, log)
      : await recordDecline(ds, { billId, attempt: attemptNo, paymentIntentId: pi.id, reason: declineText({ message: pi.last_payment_error?.message }), account, eventId: event.id, eventType: event.type }, config.publicUrl);
  if (r === "unknown_charge") log.warn({ eventId: event.id, billId, account }, "autopay payment intent event for no charge made on this account; ignored");
  return r === "unknown_charge" ? "ignored" : r === "charged" ? "paid" : r;
});

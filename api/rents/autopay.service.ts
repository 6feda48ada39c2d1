import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type Stripe from "stripe";
import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, formatDate, type CalendarDate } from "../common/dates.js";
import { conflict, forbidden, notFound } from "../common/errors.js";
import type { Config } from "../config.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { connectionOf, takesCardPayments } from "../payments/connect.service.js";
import { onAccount, stripeClient } from "../payments/stripe.js";
import { recordProviderEvent } from "../payments/checkout.service.js";
import { registerStripeEventHandler } from "../payments/webhook.js";
import { accountRow, addressOf, type Meta } from "./common.js";

/**
 * Autopay (issue 14, "Paying"): the person billed for a service account saves a card through
 * Stripe and each new bill is charged on its due date (api/rents/autopay-charges.ts). The card is
 * saved on the district's own Stripe account (issue 15): a Customer of that connected account, the
 * card collected by Stripe Checkout in setup mode with the Stripe-Account header, so the charges
 * are direct charges like every card payment of the district. Without Stripe keys a labelled test
 * card stands in (docs/decisions/autopay-test-card.md).
 */

/** A declined charge is tried once more this many days later, then left for the owner to pay (a setting, not law). */
export const AUTOPAY_RETRY_DAYS = 3;
/** Attempts per bill: the first on the due date and one retry. */
export const AUTOPAY_ATTEMPTS = 2;
/**
 * An attempt Stripe does not answer (network or Stripe trouble) is sent again each hour with the same
 * idempotency key, for this many hours from the first unanswered try; then the bill is left for the
 * owner to pay, as after a last decline (a setting, not law: a day of hourly tries).
 */
export const AUTOPAY_UNANSWERED_HOURS = 24;

export type AutopayCard = { brand: string; last4: string; expMonth: number | null; expYear: number | null; test: boolean; label: string };
export type AutopayChargeView = {
  billId: string;
  billNumber: string;
  dueOn: CalendarDate;
  amountCents: number;
  status: string;
  statusText: string;
  attempts: number;
  nextAttemptOn: CalendarDate | null;
  paymentId: string | null;
  receiptNumber: string | null;
};
export type AutopayView = {
  accountId: string;
  accountNumber: string;
  address: string;
  districtId: string;
  districtName: string;
  provider: "stripe" | "test";
  /** whether the district offers autopay now (its own Stripe account takes charges, or test mode) */
  offered: boolean;
  notOfferedReason: string | null;
  /** the viewer is the person billed, who manages autopay (staff only read it) */
  canManage: boolean;
  card: AutopayCard | null;
  setupPending: boolean;
  enabled: boolean;
  enabledOn: CalendarDate | null;
  retryDays: number;
  charges: AutopayChargeView[];
};

const BRANDS: Record<string, string> = { visa: "Visa", mastercard: "Mastercard", amex: "American Express", discover: "Discover", diners: "Diners Club", jcb: "JCB", unionpay: "UnionPay" };
export const cardLabel = (r: { card_brand: string | null; card_last4: string | null; provider: string }) =>
  r.provider === "test" ? `Test card ending ${r.card_last4} (no real card: no money moves)` : `${BRANDS[r.card_brand ?? ""] ?? r.card_brand ?? "Card"} ending ${r.card_last4}`;

/**
 * Who is billed for the account, who alone manages its autopay: Huron VI-3 bills the owner of
 * record ("billed to and paid by the owners of property"); SUL 1201 "all persons discharging", the
 * occupant, else the owner (as the bill run addresses the bill).
 */
export async function billedUserId(db: DataSource | EntityManager, r: { district_id: string; time_zone: string; owner_user_id: string | null; occupant_user_id: string | null }): Promise<string | null> {
  const rb = await rulebookOn(db, { id: r.district_id, timeZone: r.time_zone } as District);
  const toOwner = rb.enabled("billing.minimumPerUserBehindMeter");
  return toOwner ? (r.owner_user_id ?? r.occupant_user_id) : (r.occupant_user_id ?? r.owner_user_id);
}

type Access = { account: any; district: District; manage: boolean; viewerId: string };

/** The account for autopay: its district's staff read it; the person billed reads and manages it; anyone else NOT_FOUND. */
async function autopayAccess(db: DataSource | EntityManager, viewer: Viewer, accountId: string, manage: boolean): Promise<Access> {
  const a = await accountRow(db, viewer, accountId);
  const district = await db.getRepository(District).findOneByOrFail({ id: a.district_id });
  const billed = await billedUserId(db, a);
  const mine = billed === viewer.userId;
  if (!mine && !isStaff(viewer, a.district_id)) throw notFound("That account");
  if (manage && !mine) throw forbidden("Only the person billed for the account manages its autopay.");
  return { account: a, district, manage: mine, viewerId: viewer.userId };
}

async function offer(db: DataSource | EntityManager, config: Config, acc: Access): Promise<{ offered: boolean; reason: string | null; accountId: string | null }> {
  if (acc.account.closed_on) return { offered: false, reason: `The account was closed on ${formatDate(acc.account.closed_on)}: no bills are charged to a card.`, accountId: null };
  if (!config.stripe) return { offered: true, reason: null, accountId: null };
  const c = await connectionOf(db, acc.district.id);
  if (!takesCardPayments(config, c))
    return {
      offered: false,
      reason: `${acc.district.name} offers no autopay: it takes payments at the district office only (cash or check), as it has not connected its own card payment account yet.`,
      accountId: null,
    };
  return { offered: true, reason: null, accountId: c!.accountId };
}

const STATUS_TEXT: Record<string, string> = {
  CHARGING: "Being charged",
  SUCCEEDED: "Charged",
  RETRY: "Declined; tried again",
  LEFT_TO_PAY: "Declined twice: left for you to pay",
  SKIPPED: "Not charged",
};

async function view(db: DataSource | EntityManager, config: Config, acc: Access): Promise<AutopayView> {
  const a = acc.account;
  const [[row], [prop], charges, o] = await Promise.all([
    db.query(`SELECT *, enabled_on::text AS enabled_on FROM autopay WHERE account_id = $1`, [a.id]),
    db.query(`SELECT street_number, street, city, zip FROM sewer_property WHERE id = $1`, [a.property_id]),
    db.query(
      `SELECT c.bill_id, b.number, c.due_on::text AS due_on, c.amount_cents, c.status, c.attempts, c.next_attempt_on::text AS next_attempt_on, c.payment_id, c.outcome, p.receipt_number
         FROM autopay_charge c JOIN bill b ON b.id = c.bill_id LEFT JOIN payment p ON p.id = c.payment_id
        WHERE c.account_id = $1 ORDER BY c.due_on DESC, c.bill_id LIMIT 12`,
      [a.id],
    ),
    offer(db, config, acc),
  ]);
  // A card saved by someone no longer billed (a sale, a move) is not the billed person's.
  const ours = row && (!acc.manage || row.user_id === acc.viewerId) ? row : null;
  return {
    accountId: a.id,
    accountNumber: a.account_number,
    address: prop ? addressOf(prop) : "",
    districtId: acc.district.id,
    districtName: acc.district.name,
    provider: config.stripe ? "stripe" : "test",
    offered: o.offered,
    notOfferedReason: o.reason,
    canManage: acc.manage,
    card:
      ours?.payment_method_id
        ? { brand: ours.card_brand, last4: ours.card_last4, expMonth: ours.card_exp_month, expYear: ours.card_exp_year, test: ours.provider === "test", label: cardLabel(ours) }
        : null,
    setupPending: !!ours?.setup_session_id,
    enabled: !!ours?.enabled,
    enabledOn: ours?.enabled_on ?? null,
    retryDays: AUTOPAY_RETRY_DAYS,
    charges: charges.map((c: any) => ({
      billId: c.bill_id,
      billNumber: c.number,
      dueOn: c.due_on,
      amountCents: c.amount_cents,
      status: c.status,
      statusText: c.status === "RETRY" ? `Declined; tried again on ${formatDate(c.next_attempt_on)}` : c.outcome ? `${STATUS_TEXT[c.status]} (${c.outcome})` : STATUS_TEXT[c.status],
      attempts: c.attempts,
      nextAttemptOn: c.next_attempt_on,
      paymentId: c.payment_id,
      receiptNumber: c.receipt_number,
    })),
  };
}

/** The account's autopay as its billed person (or its district's staff) reads it. */
export async function getAutopay(ds: DataSource, config: Config, viewer: Viewer, accountId: string): Promise<AutopayView> {
  return view(ds, config, await autopayAccess(ds, viewer, accountId, false));
}

const requireOffered = async (db: DataSource | EntityManager, config: Config, acc: Access) => {
  const o = await offer(db, config, acc);
  if (!o.offered) throw conflict(o.reason!);
  return o;
};

/**
 * The billed person starts saving a card: a Customer on the district's connected account (made
 * once per person, account and Stripe account: idempotency key), then a Checkout Session in setup
 * mode on that account. Returns Stripe's page. The card is kept when the session completes
 * (finishAutopaySetup on the way back, or the webhook).
 */
export async function startAutopaySetup(ds: DataSource, config: Config, viewer: Viewer, accountId: string, meta: Meta): Promise<{ url: string }> {
  const acc = await autopayAccess(ds, viewer, accountId, true);
  const o = await requireOffered(ds, config, acc);
  if (!config.stripe) throw conflict("This portal has no Stripe keys: save the labelled test card instead (no real card, no money moves).");
  const stripe = stripeClient(config);
  const acct = o.accountId!;
  const [row] = await ds.query(`SELECT * FROM autopay WHERE account_id = $1`, [accountId]);
  const reuse = row && row.user_id === viewer.userId && row.stripe_account_id === acct && row.customer_id;
  const customerId: string = reuse
    ? row.customer_id
    : (
        await stripe.customers.create(
          { email: viewer.email, name: viewer.displayName, metadata: { userId: viewer.userId, serviceAccountId: accountId, accountNumber: acc.account.account_number } },
          onAccount(acct, { idempotencyKey: `autopay-customer-${accountId}-${viewer.userId}` }),
        )
      ).id;
  const back = `${config.publicUrl}/properties/autopay/${accountId}`;
  const session = await stripe.checkout.sessions.create(
    {
      mode: "setup",
      currency: "usd",
      customer: customerId,
      payment_method_types: ["card"],
      client_reference_id: accountId,
      metadata: { autopayAccountId: accountId },
      setup_intent_data: { metadata: { autopayAccountId: accountId }, description: `Autopay of sewer account ${acc.account.account_number}` },
      success_url: `${back}?setup=done`,
      cancel_url: back,
    },
    onAccount(acct),
  );
  if (!session.url) throw new Error(`Stripe setup session ${session.id} has no url`);
  await ds.transaction(async (tx) => {
    const changed = !row || row.user_id !== viewer.userId || row.stripe_account_id !== acct || row.provider !== "stripe";
    await tx.query(
      `INSERT INTO autopay (account_id, district_id, user_id, provider, stripe_account_id, customer_id, setup_session_id)
       VALUES ($1, $2, $3, 'stripe', $4, $5, $6)
       ON CONFLICT (account_id) DO UPDATE SET user_id = EXCLUDED.user_id, provider = 'stripe', stripe_account_id = EXCLUDED.stripe_account_id,
         customer_id = EXCLUDED.customer_id, setup_session_id = EXCLUDED.setup_session_id, updated_at = now()
         ${changed ? `, payment_method_id = NULL, card_brand = NULL, card_last4 = NULL, card_exp_month = NULL, card_exp_year = NULL, test_declines = false, enabled = false, enabled_on = NULL` : ""}`,
      [accountId, acc.district.id, viewer.userId, acct, customerId, session.id],
    );
    await audit(tx, { userId: viewer.userId, requestId: meta.requestId }, {
      action: "rents.autopay_setup_started",
      entityType: "ServiceAccount",
      entityId: accountId,
      districtId: acc.district.id,
      details: { stripeAccountId: acct, customerId, sessionId: session.id },
    });
  });
  return { url: session.url };
}

/** Back from Stripe's page: keeps the card if the setup session completed (the webhook does the same; whichever comes first). */
export async function finishAutopaySetup(ds: DataSource, config: Config, viewer: Viewer, accountId: string, meta: Meta & { log?: Logger }): Promise<AutopayView> {
  const acc = await autopayAccess(ds, viewer, accountId, true);
  const [row] = await ds.query(`SELECT * FROM autopay WHERE account_id = $1`, [accountId]);
  if (config.stripe && row?.setup_session_id && row.stripe_account_id) {
    const session = await stripeClient(config).checkout.sessions.retrieve(row.setup_session_id, {}, onAccount(row.stripe_account_id));
    if (session.status === "complete") await keepSetupCard(ds, config, row.stripe_account_id, session, { userId: viewer.userId, requestId: meta.requestId }, null);
    else if (session.status === "expired")
      await ds.query(`UPDATE autopay SET setup_session_id = NULL, updated_at = now() WHERE account_id = $1 AND setup_session_id = $2`, [accountId, session.id]);
  }
  return view(ds, config, acc);
}

/**
 * A completed setup session: its SetupIntent's card becomes the account's autopay card, and
 * autopay is on from today. Applied once (the row must still hold the session; the event id is
 * recorded when given); a card it replaces is detached from the customer.
 */
async function keepSetupCard(ds: DataSource, config: Config, stripeAccountId: string, session: Stripe.Checkout.Session, actor: Actor, eventId: string | null): Promise<"card_saved" | "unchanged" | "duplicate_event"> {
  const stripe = stripeClient(config);
  const siId = typeof session.setup_intent === "string" ? session.setup_intent : session.setup_intent?.id;
  if (!siId) return "unchanged";
  const si = await stripe.setupIntents.retrieve(siId, {}, onAccount(stripeAccountId));
  const pmId = typeof si.payment_method === "string" ? si.payment_method : si.payment_method?.id;
  if (si.status !== "succeeded" || !pmId) return "unchanged";
  const pm = await stripe.paymentMethods.retrieve(pmId, {}, onAccount(stripeAccountId));
  const out = await ds.transaction(async (tx) => {
    if (eventId && !(await recordProviderEvent(tx, eventId, "checkout.session.completed", null))) return { outcome: "duplicate_event" as const, old: null };
    const [row] = await tx.query(`SELECT a.*, d.time_zone, d.name AS district_name FROM autopay a JOIN district d ON d.id = a.district_id WHERE a.setup_session_id = $1 AND a.stripe_account_id = $2 FOR UPDATE OF a`, [session.id, stripeAccountId]);
    if (!row) return { outcome: "unchanged" as const, old: null };
    const today = dateIn(row.time_zone);
    await tx.query(
      `UPDATE autopay SET payment_method_id = $2, card_brand = $3, card_last4 = $4, card_exp_month = $5, card_exp_year = $6, setup_session_id = NULL,
              enabled = true, enabled_on = coalesce(enabled_on, $7::date), updated_at = now() WHERE account_id = $1`,
      [row.account_id, pm.id, pm.card?.brand ?? "card", pm.card?.last4 ?? "????", pm.card?.exp_month ?? null, pm.card?.exp_year ?? null, today],
    );
    await cardSavedNotice(tx, actor, row, cardLabel({ provider: "stripe", card_brand: pm.card?.brand ?? null, card_last4: pm.card?.last4 ?? null }), { paymentMethodId: pm.id, via: eventId ? "webhook" : "return" });
    return { outcome: "card_saved" as const, old: row.payment_method_id && row.payment_method_id !== pm.id ? row.payment_method_id : null };
  });
  if (out.old) await detach(config, stripeAccountId, out.old);
  return out.outcome;
}

/** Audit and the owner's email when a card is saved and autopay is on. */
async function cardSavedNotice(tx: EntityManager, actor: Actor, row: any, label: string, details: Record<string, unknown>): Promise<void> {
  await audit(tx, actor, { action: "rents.autopay_card_saved", entityType: "ServiceAccount", entityId: row.account_id, districtId: row.district_id, details: { ...details, card: label } });
  const [u] = await tx.query(`SELECT email, display_name FROM app_user WHERE id = $1`, [row.user_id]);
  const [a] = await tx.query(`SELECT account_number FROM service_account WHERE id = $1`, [row.account_id]);
  await enqueueEmail(tx, {
    to: u.email,
    recipientId: row.user_id,
    districtId: row.district_id,
    kind: "rents.autopay_on",
    subject: `Autopay is on for sewer account ${a.account_number}`,
    body: [
      `Hello ${u.display_name},`,
      "",
      `${row.district_name ?? "The district"} will charge your ${label} for each new bill of sewer account ${a.account_number} on its due date, for the account's balance due.`,
      `A declined charge is tried once more ${AUTOPAY_RETRY_DAYS} days later; if it is declined again, the bill is left for you to pay. We email you each time.`,
      "You can turn autopay off or remove the card at any time from the account's autopay page.",
      "",
    ].join("\n"),
  });
}

/** Detaches a saved card from its customer on the district's account (already gone: nothing to do). */
async function detach(config: Config, stripeAccountId: string, paymentMethodId: string): Promise<void> {
  try {
    await stripeClient(config).paymentMethods.detach(paymentMethodId, {}, onAccount(stripeAccountId));
  } catch (err: any) {
    if (err?.code === "resource_missing" || err?.code === "payment_method_unexpected_state") return;
    throw err;
  }
}

/** Without Stripe keys: the labelled test card (one that declines, to see the retry), saved at once; autopay on. */
export async function saveTestAutopayCard(ds: DataSource, config: Config, viewer: Viewer, input: { accountId: string; declines?: boolean | null }, meta: Meta): Promise<AutopayView> {
  if (config.stripe) throw forbidden("The test card is off: this portal saves real cards through Stripe.");
  const acc = await autopayAccess(ds, viewer, input.accountId, true);
  await requireOffered(ds, config, acc);
  const declines = input.declines === true;
  await ds.transaction(async (tx) => {
    const today = dateIn(acc.district.timeZone);
    const [row] = await tx.query(
      `INSERT INTO autopay (account_id, district_id, user_id, provider, payment_method_id, card_brand, card_last4, test_declines, enabled, enabled_on)
       VALUES ($1, $2, $3, 'test', $4, 'test', $5, $6, true, $7)
       ON CONFLICT (account_id) DO UPDATE SET user_id = EXCLUDED.user_id, provider = 'test', stripe_account_id = NULL, customer_id = NULL, setup_session_id = NULL,
         payment_method_id = EXCLUDED.payment_method_id, card_brand = 'test', card_last4 = EXCLUDED.card_last4, card_exp_month = NULL, card_exp_year = NULL,
         test_declines = EXCLUDED.test_declines, enabled = true,
         enabled_on = CASE WHEN autopay.enabled AND autopay.user_id = EXCLUDED.user_id THEN autopay.enabled_on ELSE EXCLUDED.enabled_on END, updated_at = now()
       RETURNING *`,
      [acc.account.id, acc.district.id, viewer.userId, `test_pm_${randomBytes(8).toString("hex")}`, declines ? "0002" : "4242", declines, today],
    );
    await cardSavedNotice(tx, { userId: viewer.userId, requestId: meta.requestId }, { ...row, district_name: acc.district.name }, cardLabel(row), { provider: "test", declines });
  });
  return view(ds, config, acc);
}

/** Turns autopay on (with the saved card; bills due from today on) or off (the card stays saved). */
export async function setAutopay(ds: DataSource, config: Config, viewer: Viewer, input: { accountId: string; enabled: boolean }, meta: Meta): Promise<AutopayView> {
  const acc = await autopayAccess(ds, viewer, input.accountId, true);
  if (input.enabled) await requireOffered(ds, config, acc);
  await ds.transaction(async (tx) => {
    const [row] = await tx.query(`SELECT * FROM autopay WHERE account_id = $1 FOR UPDATE`, [input.accountId]);
    if (input.enabled && (!row?.payment_method_id || row.user_id !== viewer.userId)) throw conflict("Save a card first: autopay charges the card you save.");
    if (input.enabled && (row.provider === "test") !== !config.stripe) throw conflict("Save your card again: the card saved was for the portal's test mode.");
    if (!row || row.enabled === input.enabled) return;
    await tx.query(`UPDATE autopay SET enabled = $2, enabled_on = $3, updated_at = now() WHERE account_id = $1`, [input.accountId, input.enabled, input.enabled ? dateIn(acc.district.timeZone) : null]);
    await audit(tx, { userId: viewer.userId, requestId: meta.requestId }, {
      action: input.enabled ? "rents.autopay_on" : "rents.autopay_off",
      entityType: "ServiceAccount",
      entityId: input.accountId,
      districtId: acc.district.id,
      details: { card: cardLabel(row) },
    });
  });
  return view(ds, config, acc);
}

/** Removes the saved card (detached from the customer on Stripe first) and turns autopay off. */
export async function removeAutopayCard(ds: DataSource, config: Config, viewer: Viewer, accountId: string, meta: Meta): Promise<AutopayView> {
  const acc = await autopayAccess(ds, viewer, accountId, true);
  const [row] = await ds.query(`SELECT * FROM autopay WHERE account_id = $1`, [accountId]);
  if (!row?.payment_method_id || row.user_id !== viewer.userId) throw conflict("No card is saved for this account's autopay.");
  if (row.provider === "stripe") {
    if (!config.stripe) throw conflict("This portal has no Stripe keys now: the card cannot be removed from Stripe.");
    await detach(config, row.stripe_account_id, row.payment_method_id);
  }
  await ds.transaction(async (tx) => {
    const r = await tx.query(
      `UPDATE autopay SET payment_method_id = NULL, card_brand = NULL, card_last4 = NULL, card_exp_month = NULL, card_exp_year = NULL, test_declines = false,
              enabled = false, enabled_on = NULL, updated_at = now() WHERE account_id = $1 AND payment_method_id = $2 RETURNING account_id`,
      [accountId, row.payment_method_id],
    );
    if (!(Array.isArray(r[0]) ? r[0] : r).length) return;
    await audit(tx, { userId: viewer.userId, requestId: meta.requestId }, {
      action: "rents.autopay_card_removed",
      entityType: "ServiceAccount",
      entityId: accountId,
      districtId: acc.district.id,
      details: { card: cardLabel(row), paymentMethodId: row.payment_method_id },
    });
  });
  return view(ds, config, acc);
}

/** The date a declined first attempt is tried again. */
export const retryOn = (today: CalendarDate) => addCalendarDays(today, AUTOPAY_RETRY_DAYS);

// A setup-mode session completed on a district's account: keep the card (the Connect webhook).
registerStripeEventHandler(async (ds, config, log, event) => {
  if (event.type !== "checkout.session.completed" || !event.account) return null;
  const s = event.data.object as Stripe.Checkout.Session;
  if (s.object !== "checkout.session" || s.mode !== "setup") return null;
  // Only a session an autopay made on this account waits for it (no call to Stripe for any other).
  const [waiting] = await ds.query(`SELECT 1 FROM autopay WHERE setup_session_id = $1 AND stripe_account_id = $2`, [s.id, event.account]);
  const outcome = waiting ? await keepSetupCard(ds, config, event.account, s, { userId: null }, event.id) : "unchanged";
  if (outcome === "unchanged") {
    const fresh = await ds.transaction((tx) => recordProviderEvent(tx, event.id, event.type, null));
    log.info({ eventId: event.id, sessionId: s.id }, "setup session completed for no autopay waiting on it on this account; ignored");
    return fresh ? "ignored" : "duplicate_event";
  }
  return outcome;
});

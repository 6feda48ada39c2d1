import express from "express";
import type { Logger } from "pino";
import type Stripe from "stripe";
import type { DataSource } from "typeorm";
import type { Config } from "../config.js";
import { listsChanged } from "../graphql/micro-cache.js";
import { configurePaymentJobs, expireCheckout, recordProviderEvent, settleCheckout, stripeClient, type SettleOutcome } from "./payments.service.js";
import { districtOwningAccount, recordAccountStatus } from "./connect.service.js";

/**
 * How far a signature's timestamp may be from now, in seconds, either way: Stripe's own default
 * (the SDK checks only the past side; signatureTooFarAhead checks the other).
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Whether a verified Stripe-Signature header is timestamped more than the tolerance ahead of
 * `nowMs`. The timestamp is read as the SDK reads it (the last `t=`), which it has just verified
 * as part of the signed payload.
 */
export function signatureTooFarAhead(header: string, nowMs = Date.now(), tolerance = SIGNATURE_TOLERANCE_SECONDS): boolean {
  let t = NaN;
  for (const item of header.split(",")) {
    const [k, v] = item.split("=");
    if (k === "t") t = parseInt(v, 10);
  }
  return !Number.isFinite(t) || t - Math.floor(nowMs / 1000) > tolerance;
}

/**
 * Another feature's Stripe events (autopay: its payment intents, its setup-mode sessions): the
 * handler answers its outcome, or null when the event is not its own. It deduplicates what it
 * applies (recordProviderEvent) and reaches only records made on the event's `account`.
 */
export type StripeEventHandler = (ds: DataSource, config: Config, log: Logger, event: Stripe.Event) => Promise<string | null>;
const eventHandlers: StripeEventHandler[] = [];
export function registerStripeEventHandler(handler: StripeEventHandler): void {
  if (!eventHandlers.includes(handler)) eventHandlers.push(handler);
}

/** This server's configuration, for jobs that call Stripe (autopay's charges): set when the webhook is registered. */
const serverConfigs = new WeakMap<DataSource, Config>();
export const stripeConfigOf = (ds: DataSource): Config | null => serverConfigs.get(ds) ?? null;

/** Session events that mean the money is in: card payments complete at once, others later. */
const PAID_EVENTS = new Set(["checkout.session.completed", "checkout.session.async_payment_succeeded"]);

/**
 * What an event does. Completed and paid checkout sessions are applied by settleCheckout; an
 * expired session (the payer abandoned the checkout) is forgotten by expireCheckout, the payment
 * staying due; a connected account's account.updated stores whether it takes charges; every other
 * event is only remembered (so a repeat is recognised) and otherwise ignored. An event of a
 * district's connected account (its `account`) reaches only payments made on that account.
 */
export async function handleStripeEvent(
  ds: DataSource,
  config: Config,
  log: Logger,
  event: Stripe.Event,
): Promise<SettleOutcome | "ignored" | "duplicate_event" | "checkout_expired" | "unchanged" | "account_updated" | (string & {})> {
  const account = event.account ?? null;
  for (const handle of eventHandlers) {
    const outcome = await handle(ds, config, log, event);
    if (outcome) return outcome;
  }
  if (event.type === "account.updated" && account) {
    const a = event.data.object as Stripe.Account;
    if (a.object === "account" && a.id === account)
      return ds.transaction(async (tx) => {
        if (!(await recordProviderEvent(tx, event.id, event.type, null))) return "duplicate_event" as const;
        await recordAccountStatus(tx, a, { userId: null }, "webhook", new Date(event.created * 1000));
        return "account_updated" as const;
      });
  }
  if (PAID_EVENTS.has(event.type)) {
    const s = event.data.object as Stripe.Checkout.Session;
    if (s.object === "checkout.session" && s.payment_status === "paid") {
      const r = await ds.transaction((tx) =>
        settleCheckout(tx, {
          provider: "stripe",
          eventId: event.id,
          type: event.type,
          sessionId: s.id,
          paymentId: s.client_reference_id ?? s.metadata?.paymentId ?? null,
          amountTotal: s.amount_total,
          currency: s.currency,
          paymentIntent: typeof s.payment_intent === "string" ? s.payment_intent : (s.payment_intent?.id ?? null),
          account,
          publicUrl: config.publicUrl,
          log,
        }),
      );
      return r.outcome;
    }
  }
  if (event.type === "checkout.session.expired") {
    const s = event.data.object as Stripe.Checkout.Session;
    if (s.object === "checkout.session" && typeof s.id === "string") {
      const r = await ds.transaction((tx) => expireCheckout(tx, { eventId: event.id, type: event.type, sessionId: s.id, account, log }));
      return r.outcome === "unknown_session" ? "ignored" : r.outcome;
    }
  }
  const obj = event.data?.object as { object?: string; id?: string } | undefined;
  const sessionId = obj?.object === "checkout.session" && typeof obj.id === "string" ? obj.id : null;
  const fresh = await ds.transaction((tx) => recordProviderEvent(tx, event.id, event.type, sessionId, null, account));
  return fresh ? "ignored" : "duplicate_event";
}

/** The connected account an event says it comes from (read before verifying, only to pick the secret). */
function accountClaimed(body: unknown): string | null {
  if (!Buffer.isBuffer(body)) return null;
  try {
    const a = JSON.parse(body.toString("utf8"))?.account;
    return typeof a === "string" && a ? a : null;
  } catch {
    return null;
  }
}

/**
 * POST /webhooks/stripe: Stripe's events, verified on the raw body. Two Stripe endpoints may point
 * here: the platform's own (STRIPE_WEBHOOK_SECRET) and the Connect endpoint, whose events carry the
 * connected `account` they come from (STRIPE_CONNECT_WEBHOOK_SECRET): an event naming an account
 * must carry the Connect endpoint's signature, one naming none the platform endpoint's.
 * A bad signature, or one timestamped more than the tolerance before or after now, is 400 and
 * changes nothing; so is an event of an account no district owns (logged); a handled (or ignored,
 * or repeated) event is 200; a failure is 500, so Stripe sends the event again later (it is
 * applied once).
 */
export function registerStripeWebhook(app: express.Express, opts: { ds: DataSource; config: Config; log: Logger }) {
  const { ds, config, log } = opts;
  // The job that closes a cancelled payment's checkout calls Stripe with this server's keys.
  configurePaymentJobs(ds, config);
  serverConfigs.set(ds, config);
  app.post("/webhooks/stripe", express.raw({ type: "application/json", limit: "512kb" }), async (req, res) => {
    res.set("Cache-Control", "no-store");
    if (!config.stripe) return res.status(404).type("text/plain").send("Stripe is not configured on this portal.");
    const signature = req.headers["stripe-signature"];
    let event: Stripe.Event;
    const claimed = accountClaimed(req.body);
    const secret = claimed ? config.stripe.connectWebhookSecret : config.stripe.webhookSecret;
    try {
      if (!Buffer.isBuffer(req.body) || typeof signature !== "string") throw new Error("no raw JSON body or no Stripe-Signature header");
      if (!secret) throw new Error("a connected account's event, and STRIPE_CONNECT_WEBHOOK_SECRET is not set");
      event = stripeClient(config).webhooks.constructEvent(req.body, signature, secret, SIGNATURE_TOLERANCE_SECONDS);
      if ((event.account ?? null) !== claimed) throw new Error("the event's account is not the one read");
      // The SDK refuses a signature older than the tolerance; one from the future is refused here.
      if (signatureTooFarAhead(signature)) throw new Error("Timestamp too far in the future");
    } catch (err: any) {
      log.warn({ reason: String(err?.message ?? err).slice(0, 200) }, "stripe webhook refused: signature verification failed");
      return res.status(400).type("text/plain").send("Webhook signature verification failed.");
    }
    // A connected account's event goes to the district that owns the account, or nowhere.
    let owned = true;
    try {
      if (event.account) owned = (await districtOwningAccount(ds, event.account)) !== null;
    } catch (err) {
      log.error({ err, eventId: event.id, type: event.type }, "stripe webhook failed; Stripe will send it again");
      return res.status(500).json({ received: false });
    }
    if (!owned) {
      log.warn({ eventId: event.id, type: event.type, account: event.account }, "stripe webhook refused: the event's account is no district's; nothing changed");
      return res.status(400).type("text/plain").send("This event's Stripe account is not connected to any district of this portal.");
    }
    try {
      const outcome = await handleStripeEvent(ds, config, log, event);
      await listsChanged(ds, log); // a state change outside GraphQL: dashboards show it at once, on every instance
      log.info({ eventId: event.id, type: event.type, outcome }, "stripe webhook handled");
      res.status(200).json({ received: true });
    } catch (err) {
      log.error({ err, eventId: event.id, type: event.type }, "stripe webhook failed; Stripe will send it again");
      res.status(500).json({ received: false });
    }
  });
}

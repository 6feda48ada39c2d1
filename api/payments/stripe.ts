import Stripe from "stripe";
import type { Config } from "../config.js";

/** The Stripe client of this deployment, or the labelled test checkout without keys. */

// ---------------------------------------------------------------------------------------------
// Stripe

const clients = new WeakMap<object, Stripe>();

/** One Stripe client per configuration; STRIPE_API_BASE points it at a local stand-in in tests. */
export function stripeClient(config: Config): Stripe {
  const s = config.stripe;
  if (!s) throw new Error("Stripe is not configured");
  let c = clients.get(s);
  if (!c) {
    c = new Stripe(s.secretKey, { ...(s.api ?? {}), maxNetworkRetries: 2, timeout: 20_000, telemetry: false });
    clients.set(s, c);
  }
  return c;
}

export const paymentProviderMode = (config: Config): "stripe" | "test" => (config.stripe ? "stripe" : "test");

/**
 * Stripe's request options for a call on a district's connected account (the Stripe-Account
 * header): a direct charge, so the money lands in that account and never in the platform's
 * balance. Null (a payment made before Connect) calls the platform account, where it was made.
 */
export function onAccount(accountId: string | null, extra: Stripe.RequestOptions = {}): Stripe.RequestOptions {
  return accountId ? { ...extra, stripeAccount: accountId } : extra;
}

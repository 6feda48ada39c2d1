import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { DataSource } from "typeorm";
import type { Config } from "../api/config.js";
import { connectAccountByOperator } from "../api/payments/connect.service.js";

/**
 * A tiny local stand-in for the parts of Stripe's API that Tapline calls, answering Stripe-shaped
 * JSON. Like Stripe, a repeated Idempotency-Key returns the first answer again (same session, same
 * refund) instead of doing the work twice. Point the server at it with STRIPE_API_BASE.
 *
 *   POST /v1/checkout/sessions             create a Checkout Session
 *   GET  /v1/checkout/sessions/:id         retrieve it
 *   POST /v1/checkout/sessions/:id/expire  expire an open one
 *   POST /v1/refunds                       refund (part of) a payment intent
 *   POST /v1/accounts                      create a connected account (Stripe Connect)
 *   GET  /v1/accounts/:id                  retrieve one
 *   POST /v1/account_links                 an onboarding link for one
 *   POST /v1/customers                     create a customer (autopay: on the district's account)
 *   GET  /v1/customers/:id                 retrieve one
 *   GET  /v1/setup_intents/:id             a setup-mode session's SetupIntent, once completed
 *   GET  /v1/payment_methods/:id           a saved card (brand, last 4)
 *   POST /v1/payment_methods/:id/detach    remove a saved card from its customer
 *   POST /v1/payment_intents               charge a saved card (off_session, confirm=true)
 *   POST /v1/payment_intents/:id/confirm   confirm one made without confirm
 *   GET  /v1/payment_intents/:id           retrieve one
 *   GET  /v1/payouts                       list an account's payouts, newest first (limit, starting_after, arrival_date[gte|lte])
 *   GET  /v1/payouts/:id                   retrieve one
 *   GET  /v1/balance_transactions          list them (payout, type, limit, starting_after, expand[]=data.source)
 *   GET  /c/pay/:id                        a trivial stand-in of Stripe's hosted checkout page
 *
 * Like Stripe, a call with the `Stripe-Account` header runs on that connected account: sessions
 * and payment intents belong to the account they were made on, and another account (or the
 * platform) gets "No such ..." for them (a call with no API key is a test acting as Stripe itself,
 * and reaches any account's). Events of a connected account's objects carry its
 * `account`, as Connect webhooks do.
 *
 * With `hostedCheckout: true`, a session's url is that page on the stand-in itself (for browser
 * tests); otherwise it is Stripe-like (https://checkout.stripe.test/c/pay/...).
 */
export type StandInRequest = { method: string; path: string; idempotencyKey: string | null; params: Record<string, any>; account: string | null };
export type StandIn = {
  url: string;
  port: number;
  requests: StandInRequest[];
  sessions: Map<string, any>;
  refunds: Map<string, any>;
  /** connected accounts, by id */
  accounts: Map<string, any>;
  customers: Map<string, any>;
  setupIntents: Map<string, any>;
  paymentMethods: Map<string, any>;
  paymentIntents: Map<string, any>;
  /** payouts, charges and balance transactions, by id (payout() makes them) */
  payouts: Map<string, any>;
  charges: Map<string, any>;
  balanceTransactions: Map<string, any>;
  /**
   * Stripe pays out an account's balance: every succeeded payment (a paid checkout session, a
   * succeeded payment intent) and refund on the account not yet paid out becomes a balance
   * transaction of a new payout (a charge with Stripe's fee, 2.9% + 30¢ unless told; a refund
   * without one), whose amount is their net. `automatic: false` is a payout made by hand in the
   * Dashboard (Stripe lists no lines for it).
   */
  payout(accountId: string, opts?: { arrivalDate?: Date; status?: string; automatic?: boolean; fee?: (amountCents: number) => number }): any;
  /** money taken on the account outside the portal (a payment in the Dashboard, say): a succeeded payment intent */
  outsideCharge(accountId: string, amountCents: number, description?: string): any;
  /** a saved card declines from now on (Stripe's card_declined, or another decline code), or is accepted again with null */
  declineCard(paymentMethodId: string, declineCode?: string | null): void;
  /** Stripe in trouble: requests to these paths answer 500 (api_error) until called with null */
  outage(paths: string[] | null): void;
  /** the connected account each session, payment intent and refund belongs to (null: the platform's own) */
  accountOf: Map<string, string | null>;
  /** an account that exists already (one the operator connects): charges enabled unless told otherwise */
  addAccount(opts?: { chargesEnabled?: boolean }): any;
  /** the account's owner finishes Stripe's onboarding: it takes charges and payouts */
  finishOnboarding(accountId: string): any;
  /**
   * The payer finishes Stripe's page: a payment session is complete and paid; a setup-mode session
   * is complete with a SetupIntent whose card (Visa 4242 unless told) is saved to the session's customer.
   */
  complete(sessionId: string, card?: { brand?: string; last4?: string; expMonth?: number; expYear?: number }): any;
  /** a Stripe-shaped event around a copy of the object (as the webhook would carry it); with `account` when the object is a connected account's */
  event(type: string, session: any, overrides?: Record<string, unknown>): any;
  close(): Promise<void>;
};

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** Stripe's form encoding (`line_items[0][price_data][currency]=usd`) back into objects and arrays. */
export function parseStripeForm(body: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.replace(/\]/g, "").split("[");
    let cur: any = out;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]);
      if (last) cur[part] = value;
      else cur = cur[part] ??= nextIsIndex ? [] : {};
    });
  }
  return out;
}

export async function startStripeStandIn(opts: { hostedCheckout?: boolean } = {}): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const sessions = new Map<string, any>();
  const refunds = new Map<string, any>();
  const accounts = new Map<string, any>();
  const accountOf = new Map<string, string | null>();
  const customers = new Map<string, any>();
  const setupIntents = new Map<string, any>();
  const paymentMethods = new Map<string, any>();
  const paymentIntents = new Map<string, any>();
  const declines = new Map<string, string>();
  let down: string[] | null = null;
  const payouts = new Map<string, any>();
  const charges = new Map<string, any>();
  const balanceTransactions = new Map<string, any>();
  /** the payout each balance transaction belongs to, and what was paid out already */
  const payoutOfTxn = new Map<string, string>();
  const paidOut = new Set<string>();
  let seq = 0; // ties of `created` (whole seconds) keep the order objects were made in
  const order = new Map<string, number>();
  const newestFirst = (a: any, b: any) => b.created - a.created || order.get(b.id)! - order.get(a.id)!;
  /** One page of a list, as Stripe's list endpoints answer (limit, starting_after). */
  const listOf = (url: string, all: any[], params: Record<string, any>): { status: number; body: any } => {
    let from = 0;
    if (params.starting_after) {
      const at = all.findIndex((o) => o.id === params.starting_after);
      if (at < 0) return error(404, `No such object: '${params.starting_after}'`);
      from = at + 1;
    }
    const limit = Math.min(Number(params.limit ?? 10), 100);
    const data = all.slice(from, from + limit);
    return { status: 200, body: { object: "list", url, has_more: from + limit < all.length, data } };
  };
  const replies = new Map<string, { status: number; body: any }>();
  let checkoutBase = "https://checkout.stripe.test"; // the stand-in's own address once listening, with hostedCheckout

  const send = (res: http.ServerResponse, status: number, body: any, replayed = false) => {
    res.writeHead(status, { "content-type": "application/json", "request-id": id("req"), ...(replayed ? { "idempotent-replayed": "true" } : {}) });
    res.end(JSON.stringify(body));
  };
  const error = (status: number, message: string, code = "resource_missing") => ({ status, body: { error: { type: "invalid_request_error", code, message } } });

  const newAccount = (params: Record<string, any>, chargesEnabled: boolean) => {
    const a = {
      id: id("acct"),
      object: "account",
      type: params.type ?? "standard",
      charges_enabled: chargesEnabled,
      details_submitted: chargesEnabled,
      payouts_enabled: chargesEnabled,
      business_profile: params.business_profile ?? {},
      metadata: params.metadata ?? {},
      created: Math.floor(Date.now() / 1000),
    };
    accounts.set(a.id, a);
    return a;
  };

  /** Charges the intent's card: succeeded, or a card error (402) carrying the intent, as Stripe answers a decline. */
  function confirmIntent(pi: any): { status: number; body: any } {
    const code = pi.payment_method ? declines.get(pi.payment_method) : "card_declined";
    if (code) {
      pi.status = "requires_payment_method";
      pi.last_payment_error = { type: "card_error", code: "card_declined", decline_code: code, message: code === "insufficient_funds" ? "Your card has insufficient funds." : "Your card was declined." };
      return { status: 402, body: { error: { ...pi.last_payment_error, payment_intent: pi } } };
    }
    pi.status = "succeeded";
    pi.amount_received = pi.amount;
    pi.latest_charge = id("ch");
    return { status: 200, body: pi };
  }

  function route(method: string, path: string, params: Record<string, any>, account: string | null, keyless: boolean): { status: number; body: any } {
    if (account && !accounts.has(account))
      return { status: 403, body: { error: { type: "invalid_request_error", code: "account_invalid", message: `The provided key does not have access to account '${account}'.` } } };
    // Objects of another account (or of the platform) are not found, as at Stripe.
    // A call with no API key is a test acting as Stripe itself (a session lapsing after 24 hours): any account's.
    const mine = (objectId: string) => keyless || (accountOf.get(objectId) ?? null) === account;
    if (method === "POST" && path === "/v1/accounts") return { status: 200, body: newAccount(params, false) };
    let a = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (method === "GET" && a) {
      const found = accounts.get(a[1]);
      return found ? { status: 200, body: found } : error(404, `No such account: '${a[1]}'`);
    }
    if (method === "POST" && path === "/v1/account_links") {
      if (!accounts.has(params.account)) return error(404, `No such account: '${params.account}'`);
      return {
        status: 200,
        body: { object: "account_link", url: `https://connect.stripe.test/setup/s/${params.account}/${randomBytes(6).toString("hex")}`, created: Math.floor(Date.now() / 1000), expires_at: Math.floor(Date.now() / 1000) + 300, sent: params },
      };
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const lineItems = (params.line_items ?? []) as any[];
      if (params.customer && (!mine(params.customer) || !customers.has(params.customer))) return error(404, `No such customer: '${params.customer}'`);
      const amount = lineItems.reduce((s, li) => s + Number(li.price_data.unit_amount) * Number(li.quantity ?? 1), 0);
      const sid = id("cs_test");
      const session = {
        id: sid,
        object: "checkout.session",
        mode: params.mode,
        status: "open",
        payment_status: params.mode === "setup" ? "no_payment_required" : "unpaid",
        amount_total: params.mode === "setup" ? null : amount,
        currency: params.mode === "setup" ? (params.currency ?? null) : (lineItems[0]?.price_data?.currency ?? "usd"),
        customer: params.customer ?? null,
        setup_intent: null as string | null,
        client_reference_id: params.client_reference_id ?? null,
        metadata: params.metadata ?? {},
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        url: `${checkoutBase}/c/pay/${sid}`,
        payment_intent: null,
        livemode: false,
        created: Math.floor(Date.now() / 1000),
        expires_at: Math.floor(Date.now() / 1000) + 86400,
        line_items_sent: lineItems,
      };
      sessions.set(sid, session);
      accountOf.set(sid, account);
      return { status: 200, body: session };
    }
    let m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const s = mine(m[1]) ? sessions.get(m[1]) : undefined;
      return s ? { status: 200, body: s } : error(404, `No such checkout.session: '${m[1]}'`);
    }
    m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (method === "POST" && m) {
      const s = mine(m[1]) ? sessions.get(m[1]) : undefined;
      if (!s) return error(404, `No such checkout.session: '${m[1]}'`);
      if (s.status !== "open") return error(400, `Only Checkout Sessions with a status in ["open"] can be expired.`, "checkout_session_not_open");
      s.status = "expired";
      s.url = null;
      return { status: 200, body: s };
    }
    if (method === "POST" && path === "/v1/customers") {
      const c = { id: id("cus"), object: "customer", email: params.email ?? null, name: params.name ?? null, metadata: params.metadata ?? {}, created: Math.floor(Date.now() / 1000) };
      customers.set(c.id, c);
      accountOf.set(c.id, account);
      return { status: 200, body: c };
    }
    m = /^\/v1\/(customers|setup_intents|payment_methods|payment_intents)\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const store = { customers, setup_intents: setupIntents, payment_methods: paymentMethods, payment_intents: paymentIntents }[m[1]]!;
      const o = mine(m[2]) ? store.get(m[2]) : undefined;
      return o ? { status: 200, body: o } : error(404, `No such ${m[1].replace(/s$/, "")}: '${m[2]}'`);
    }
    if (method === "GET" && path === "/v1/payouts") {
      const range = params.arrival_date ?? {};
      const all = [...payouts.values()]
        .filter((p) => (accountOf.get(p.id) ?? null) === account)
        .filter((p) => (range.gte === undefined || p.arrival_date >= Number(range.gte)) && (range.lte === undefined || p.arrival_date <= Number(range.lte)))
        .sort(newestFirst);
      return listOf("/v1/payouts", all, params);
    }
    m = /^\/v1\/payouts\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const p = mine(m[1]) ? payouts.get(m[1]) : undefined;
      return p ? { status: 200, body: p } : error(404, `No such payout: '${m[1]}'`);
    }
    if (method === "GET" && path === "/v1/balance_transactions") {
      if (params.payout) {
        const p = mine(params.payout) ? payouts.get(params.payout) : undefined;
        if (!p) return error(404, `No such payout: '${params.payout}'`);
        if (!p.automatic) return error(400, "Balance transaction history can only be filtered on automatic transfers, not manual.", "parameter_invalid");
      }
      const expand = ([] as string[]).concat(params.expand ?? []);
      const all = [...balanceTransactions.values()]
        .filter((t) => (accountOf.get(t.id) ?? null) === account)
        .filter((t) => !params.payout || payoutOfTxn.get(t.id) === params.payout)
        .filter((t) => !params.type || t.type === params.type)
        .sort(newestFirst);
      const page = listOf("/v1/balance_transactions", all, params);
      if (page.status === 200 && expand.includes("data.source"))
        page.body.data = page.body.data.map((t: any) => ({ ...t, source: charges.get(t.source) ?? refunds.get(t.source) ?? payouts.get(t.source) ?? t.source }));
      return page;
    }
    m = /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(path);
    if (method === "POST" && m) {
      const pm = mine(m[1]) ? paymentMethods.get(m[1]) : undefined;
      if (!pm) return error(404, `No such PaymentMethod: '${m[1]}'`);
      if (!pm.customer) return error(400, `The payment method you provided is not attached to a customer so detachment is impossible.`, "payment_method_unexpected_state");
      pm.customer = null;
      return { status: 200, body: pm };
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      const pm = params.payment_method ? (mine(params.payment_method) ? paymentMethods.get(params.payment_method) : undefined) : undefined;
      if (params.payment_method && !pm) return error(404, `No such PaymentMethod: '${params.payment_method}'`);
      if (params.customer && (!mine(params.customer) || !customers.has(params.customer))) return error(404, `No such customer: '${params.customer}'`);
      if (pm && pm.customer !== (params.customer ?? null))
        return error(400, `The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer.`, "payment_method_unexpected_state");
      const pi = {
        id: id("pi"),
        object: "payment_intent",
        amount: Number(params.amount),
        amount_received: 0,
        currency: params.currency ?? "usd",
        customer: params.customer ?? null,
        payment_method: params.payment_method ?? null,
        description: params.description ?? null,
        metadata: params.metadata ?? {},
        status: "requires_confirmation",
        last_payment_error: null as any,
        latest_charge: null as string | null,
        livemode: false,
        created: Math.floor(Date.now() / 1000),
        off_session_sent: params.off_session ?? null,
      };
      paymentIntents.set(pi.id, pi);
      accountOf.set(pi.id, account);
      return String(params.confirm) === "true" ? confirmIntent(pi) : { status: 200, body: pi };
    }
    m = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(path);
    if (method === "POST" && m) {
      const pi = mine(m[1]) ? paymentIntents.get(m[1]) : undefined;
      if (!pi) return error(404, `No such payment_intent: '${m[1]}'`);
      if (pi.status !== "requires_confirmation" && pi.status !== "requires_payment_method")
        return error(400, `This PaymentIntent's status is ${pi.status}; it cannot be confirmed.`, "payment_intent_unexpected_state");
      return confirmIntent(pi);
    }
    if (method === "POST" && path === "/v1/refunds") {
      if (!accountOf.has(params.payment_intent) || !mine(params.payment_intent)) return error(404, `No such payment_intent: '${params.payment_intent}'`);
      const refund = {
        id: id("re"),
        object: "refund",
        amount: Number(params.amount),
        currency: "usd",
        payment_intent: params.payment_intent,
        metadata: params.metadata ?? {},
        status: "succeeded",
        created: Math.floor(Date.now() / 1000),
      };
      refunds.set(refund.id, refund);
      accountOf.set(refund.id, account);
      return { status: 200, body: refund };
    }
    return error(404, `Unrecognized request URL (${method}: ${path}).`, "not_found");
  }

  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const [path, query = ""] = (req.url ?? "").split("?");
      const method = req.method ?? "GET";
      const page = /^\/c\/pay\/([^/]+)$/.exec(path);
      if (method === "GET" && page) {
        const s = sessions.get(page[1]);
        res.writeHead(s ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
        return res.end(
          `<!doctype html><html lang="en"><head><title>Checkout (Stripe stand-in)</title></head><body><main><h1>Checkout (Stripe stand-in)</h1>` +
            (s ? `<p>Session ${s.id}: ${s.status}, ${s.payment_status}, ${s.amount_total} ${s.currency}</p>` : `<p>No such session</p>`) +
            `</main></body></html>`,
        );
      }
      const idempotencyKey = (req.headers["idempotency-key"] as string | undefined) ?? null;
      const account = (req.headers["stripe-account"] as string | undefined) ?? null;
      const keyless = !req.headers.authorization;
      // (GET requests carry their parameters in the query, e.g. expand[0]=data.source)
      const params = parseStripeForm(method === "GET" ? query : body);
      requests.push({ method, path, idempotencyKey, params, account });
      if (down?.includes(path)) return send(res, 500, { error: { type: "api_error", message: "An error occurred with our connection to Stripe (stand-in outage)." } });
      if (method === "POST" && idempotencyKey) {
        // Idempotency keys are kept per account.
        const k = `${account ?? "platform"} ${path} ${idempotencyKey}`;
        const seen = replies.get(k);
        if (seen) return send(res, seen.status, seen.body, true);
        const r = route(method, path, params, account, keyless);
        replies.set(k, r);
        return send(res, r.status, r.body);
      }
      const r = route(method, path, params, account, keyless);
      send(res, r.status, r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  if (opts.hostedCheckout) checkoutBase = `http://127.0.0.1:${port}`;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    sessions,
    refunds,
    accounts,
    accountOf,
    customers,
    setupIntents,
    paymentMethods,
    paymentIntents,
    payouts,
    charges,
    balanceTransactions,
    payout(accountId, opts = {}) {
      if (!accounts.has(accountId)) throw new Error(`no account ${accountId}`);
      const now = Math.floor(Date.now() / 1000);
      const on = (objectId: string) => (accountOf.get(objectId) ?? null) === accountId && !paidOut.has(objectId);
      const paid: { pi: string; amount: number; charge: string | null; created: number }[] = [
        ...[...sessions.values()].filter((s) => s.mode === "payment" && s.payment_status === "paid" && s.payment_intent && on(s.payment_intent)).map((s) => ({ pi: s.payment_intent, amount: s.amount_total, charge: null, created: s.created })),
        ...[...paymentIntents.values()].filter((pi) => pi.status === "succeeded" && on(pi.id)).map((pi) => ({ pi: pi.id, amount: pi.amount_received, charge: pi.latest_charge, created: pi.created })),
      ];
      // (arrival_date: as at Stripe, midnight UTC of the bank day unless told)
      const po = { id: id("po"), object: "payout", amount: 0, currency: "usd", arrival_date: opts.arrivalDate ? Math.floor(opts.arrivalDate.getTime() / 1000) : (Math.floor(now / 86400) + 2) * 86400, created: now, status: opts.status ?? "paid", automatic: opts.automatic ?? true, method: "standard", type: "bank_account", description: "STRIPE PAYOUT", failure_message: null, balance_transaction: null as string | null, livemode: false };
      order.set(po.id, ++seq);
      const txn = (type: string, amount: number, fee: number, source: string, created: number, description: string | null) => {
        const t = { id: id("txn"), object: "balance_transaction", type, amount, fee, net: amount - fee, currency: "usd", source, created, available_on: created, status: "available", description, reporting_category: type };
        balanceTransactions.set(t.id, t);
        accountOf.set(t.id, accountId);
        order.set(t.id, ++seq);
        if (po.automatic) payoutOfTxn.set(t.id, po.id);
        return t;
      };
      const fee = opts.fee ?? ((a: number) => Math.round(a * 0.029) + 30);
      for (const p of paid) {
        const ch = { id: p.charge ?? id("ch"), object: "charge", amount: p.amount, amount_captured: p.amount, currency: "usd", payment_intent: p.pi, status: "succeeded", paid: true, created: p.created };
        charges.set(ch.id, ch);
        accountOf.set(ch.id, accountId);
        paidOut.add(p.pi);
        po.amount += txn("charge", p.amount, fee(p.amount), ch.id, p.created, null).net;
      }
      for (const re of [...refunds.values()].filter((x) => on(x.id))) {
        paidOut.add(re.id);
        po.amount += txn("refund", -re.amount, 0, re.id, re.created, "REFUND FOR PAYMENT").net;
      }
      po.balance_transaction = txn("payout", -po.amount, 0, po.id, now, "STRIPE PAYOUT").id;
      payouts.set(po.id, po);
      accountOf.set(po.id, accountId);
      return po;
    },
    outsideCharge(accountId, amountCents, description = "Payment taken in the Stripe Dashboard") {
      const pi = { id: id("pi"), object: "payment_intent", amount: amountCents, amount_received: amountCents, currency: "usd", customer: null, payment_method: null, description, metadata: {}, status: "succeeded", last_payment_error: null, latest_charge: id("ch"), livemode: false, created: Math.floor(Date.now() / 1000) };
      paymentIntents.set(pi.id, pi);
      accountOf.set(pi.id, accountId);
      return pi;
    },
    outage(paths) {
      down = paths;
    },
    declineCard(paymentMethodId, declineCode = "card_declined") {
      if (declineCode) declines.set(paymentMethodId, declineCode);
      else declines.delete(paymentMethodId);
    },
    addAccount(opts = {}) {
      return newAccount({}, opts.chargesEnabled ?? true);
    },
    finishOnboarding(accountId) {
      const a = accounts.get(accountId);
      if (!a) throw new Error(`no account ${accountId}`);
      Object.assign(a, { charges_enabled: true, details_submitted: true, payouts_enabled: true });
      return a;
    },
    complete(sessionId, card = {}) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      const account = accountOf.get(sessionId) ?? null;
      if (s.mode === "setup") {
        const pm = {
          id: id("pm"),
          object: "payment_method",
          type: "card",
          customer: s.customer,
          card: { brand: card.brand ?? "visa", last4: card.last4 ?? "4242", exp_month: card.expMonth ?? 12, exp_year: card.expYear ?? 2030, country: "US" },
          created: Math.floor(Date.now() / 1000),
        };
        paymentMethods.set(pm.id, pm);
        accountOf.set(pm.id, account);
        const si = { id: id("seti"), object: "setup_intent", status: "succeeded", customer: s.customer, payment_method: pm.id, usage: "off_session", metadata: s.metadata, created: pm.created };
        setupIntents.set(si.id, si);
        accountOf.set(si.id, account);
        Object.assign(s, { status: "complete", setup_intent: si.id, url: null });
        return s;
      }
      s.status = "complete";
      s.payment_status = "paid";
      s.payment_intent ??= id("pi");
      accountOf.set(s.payment_intent, accountOf.get(sessionId) ?? null);
      s.url = null;
      return s;
    },
    event(type, session, overrides = {}) {
      // (any object: a checkout session, a payment intent, an account)
      const account = session?.object === "account" ? session.id : (accountOf.get(session?.id) ?? null);
      return {
        id: id("evt"),
        object: "event",
        api_version: "2025-02-24.acacia",
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        data: { object: { ...structuredClone(session), line_items_sent: undefined } },
        ...(account ? { account } : {}),
        ...overrides,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/**
 * Connects a district to a new account of the stand-in that takes charges, as the deployment's
 * operator does (`npm run stripe-account`); returns the account's id. Card payments need it.
 */
export async function connectDistrictAccount(standIn: StandIn, server: { running: { ds: DataSource }; config: Config }, slug: string): Promise<string> {
  const account = standIn.addAccount();
  await connectAccountByOperator(server.running.ds, server.config, slug, account.id);
  return account.id;
}

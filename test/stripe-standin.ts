import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A tiny local stand-in for the parts of Stripe's API that Tapline calls, answering Stripe-shaped
 * JSON. Like Stripe, a repeated Idempotency-Key returns the first answer again (same session, same
 * refund) instead of doing the work twice. Point the server at it with STRIPE_API_BASE.
 *
 *   POST /v1/checkout/sessions             create a Checkout Session
 *   GET  /v1/checkout/sessions/:id         retrieve it
 *   POST /v1/checkout/sessions/:id/expire  expire an open one
 *   POST /v1/refunds                       refund (part of) a payment intent
 *   GET  /c/pay/:id                        a trivial stand-in of Stripe's hosted checkout page
 *
 * With `hostedCheckout: true`, a session's url is that page on the stand-in itself (for browser
 * tests); otherwise it is Stripe-like (https://checkout.stripe.test/c/pay/...).
 */
export type StandInRequest = { method: string; path: string; idempotencyKey: string | null; params: Record<string, any> };
export type StandIn = {
  url: string;
  port: number;
  requests: StandInRequest[];
  sessions: Map<string, any>;
  refunds: Map<string, any>;
  /** the payer finishes paying on Stripe's page: the session is complete and paid */
  complete(sessionId: string): any;
  /** a Stripe-shaped event around a copy of the session (as the webhook would carry it) */
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
  const replies = new Map<string, { status: number; body: any }>();
  let checkoutBase = "https://checkout.stripe.test"; // the stand-in's own address once listening, with hostedCheckout

  const send = (res: http.ServerResponse, status: number, body: any, replayed = false) => {
    res.writeHead(status, { "content-type": "application/json", "request-id": id("req"), ...(replayed ? { "idempotent-replayed": "true" } : {}) });
    res.end(JSON.stringify(body));
  };
  const error = (status: number, message: string, code = "resource_missing") => ({ status, body: { error: { type: "invalid_request_error", code, message } } });

  function route(method: string, path: string, params: Record<string, any>): { status: number; body: any } {
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const lineItems = (params.line_items ?? []) as any[];
      const amount = lineItems.reduce((s, li) => s + Number(li.price_data.unit_amount) * Number(li.quantity ?? 1), 0);
      const sid = id("cs_test");
      const session = {
        id: sid,
        object: "checkout.session",
        mode: params.mode,
        status: "open",
        payment_status: "unpaid",
        amount_total: amount,
        currency: lineItems[0]?.price_data?.currency ?? "usd",
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
      return { status: 200, body: session };
    }
    let m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const s = sessions.get(m[1]);
      return s ? { status: 200, body: s } : error(404, `No such checkout.session: '${m[1]}'`);
    }
    m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (method === "POST" && m) {
      const s = sessions.get(m[1]);
      if (!s) return error(404, `No such checkout.session: '${m[1]}'`);
      if (s.status !== "open") return error(400, `Only Checkout Sessions with a status in ["open"] can be expired.`, "checkout_session_not_open");
      s.status = "expired";
      s.url = null;
      return { status: 200, body: s };
    }
    if (method === "POST" && path === "/v1/refunds") {
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
      return { status: 200, body: refund };
    }
    return error(404, `Unrecognized request URL (${method}: ${path}).`, "not_found");
  }

  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0];
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
      const params = parseStripeForm(body);
      requests.push({ method, path, idempotencyKey, params });
      if (method === "POST" && idempotencyKey) {
        const k = `${path} ${idempotencyKey}`;
        const seen = replies.get(k);
        if (seen) return send(res, seen.status, seen.body, true);
        const r = route(method, path, params);
        replies.set(k, r);
        return send(res, r.status, r.body);
      }
      const r = route(method, path, params);
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
    complete(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      s.status = "complete";
      s.payment_status = "paid";
      s.payment_intent ??= id("pi");
      s.url = null;
      return s;
    },
    event(type, session, overrides = {}) {
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

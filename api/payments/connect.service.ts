import type { Logger } from "pino";
import Stripe from "stripe";
import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import type { Config } from "../config.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { stripeClient } from "./stripe.js";

/**
 * Each district's own Stripe account (Stripe Connect). A district's card payments are direct
 * charges on its connected account, so the money lands in the town's account and the platform
 * never holds it. The district's ADMIN connects it through Stripe's hosted onboarding (Account
 * Links), or the deployment's operator enters an existing account's id (`npm run stripe-account`).
 * Without a connected account able to take charges, the district takes payments at the counter only.
 */

export type StripeConnection = {
  districtId: string;
  accountId: string;
  connectedBy: "ADMIN" | "OPERATOR";
  chargesEnabled: boolean;
  detailsSubmitted: boolean;
  payoutsEnabled: boolean;
  statusCheckedAt: Date | null;
};

export const ACCOUNT_ID = /^acct_[A-Za-z0-9]+$/;

const fromRow = (r: any): StripeConnection => ({
  districtId: r.district_id,
  accountId: r.account_id,
  connectedBy: r.connected_by,
  chargesEnabled: r.charges_enabled,
  detailsSubmitted: r.details_submitted,
  payoutsEnabled: r.payouts_enabled,
  statusCheckedAt: r.status_checked_at ? new Date(r.status_checked_at) : null,
});

/** The connected accounts of these districts, in one query. */
export async function connectionsOf(db: DataSource | EntityManager, districtIds: readonly string[]): Promise<Map<string, StripeConnection>> {
  if (!districtIds.length) return new Map();
  const rows = await db.query(`SELECT * FROM district_stripe_account WHERE district_id = ANY($1::uuid[])`, [[...new Set(districtIds)]]);
  return new Map(rows.map((r: any) => [r.district_id, fromRow(r)]));
}

export async function connectionOf(db: DataSource | EntityManager, districtId: string): Promise<StripeConnection | null> {
  return (await connectionsOf(db, [districtId])).get(districtId) ?? null;
}

/**
 * Whether a district takes card payments online: always with the labelled test checkout (no
 * Stripe keys); with Stripe, only on its own connected account able to take charges, and only
 * when the Connect webhook's secret is set (without it no payment on that account could be confirmed).
 */
export function takesCardPayments(config: Config, c: StripeConnection | null | undefined): boolean {
  if (!config.stripe) return true;
  return !!(config.stripe.connectWebhookSecret && c?.chargesEnabled);
}

/**
 * The district whose account this is: the one it is connected to now, else the one whose
 * payments were made on it (a district that has since connected another account still gets its
 * late events and refunds). Null: no district owns it.
 */
export async function districtOwningAccount(db: DataSource | EntityManager, accountId: string): Promise<string | null> {
  const rows = await db.query(
    `(SELECT district_id FROM district_stripe_account WHERE account_id = $1)
     UNION ALL (SELECT district_id FROM payment WHERE stripe_account_id = $1 LIMIT 1) LIMIT 1`,
    [accountId],
  );
  return rows[0]?.district_id ?? null;
}

/** The district for its ADMIN: NOT_FOUND for outsiders, FORBIDDEN for its other staff. */
async function districtForAdmin(ds: DataSource, viewer: Viewer, districtId: string): Promise<District> {
  const d = isUuid(districtId) ? await ds.getRepository(District).findOne({ where: { id: districtId } }) : null;
  if (!d || !isStaff(viewer, d.id)) throw notFound("That district");
  if (!hasRole(viewer, "ADMIN", d.id)) throw forbidden("Only the district's ADMIN connects its Stripe account.");
  return d;
}

export type ConnectionView = {
  districtId: string;
  stripeConfigured: boolean;
  connectWebhookConfigured: boolean;
  connection: StripeConnection | null;
  takesCardPayments: boolean;
};

/** ADMIN: the district's Stripe account as the portal knows it. */
export async function stripeConnection(ds: DataSource, config: Config, viewer: Viewer, districtId: string): Promise<ConnectionView> {
  const d = await districtForAdmin(ds, viewer, districtId);
  return view(config, d.id, await connectionOf(ds, d.id));
}

const view = (config: Config, districtId: string, c: StripeConnection | null): ConnectionView => ({
  districtId,
  stripeConfigured: !!config.stripe,
  connectWebhookConfigured: !!config.stripe?.connectWebhookSecret,
  connection: c,
  takesCardPayments: !!config.stripe && takesCardPayments(config, c),
});

function requireStripe(config: Config): Stripe {
  if (!config.stripe) throw conflict("This portal is not connected to Stripe (no Stripe keys): card payments use the labelled test checkout.");
  return stripeClient(config);
}

/**
 * ADMIN: starts (or resumes) Stripe's hosted onboarding of the district's own account. The first
 * time, a Standard account is made for the district (the town is the merchant: Stripe's fees,
 * disputes and payouts are its own) and kept before the link is made, so its events are routed
 * to the district from the start; later calls make a fresh link for the same account (a link is
 * good once and for minutes). Returns the link's address.
 */
export async function startStripeOnboarding(ds: DataSource, config: Config, viewer: Viewer, districtId: string, meta: { requestId?: string }): Promise<{ url: string; accountId: string }> {
  const d = await districtForAdmin(ds, viewer, districtId);
  const stripe = requireStripe(config);
  let c = await connectionOf(ds, d.id);
  if (c?.connectedBy === "OPERATOR") throw conflict(`The deployment's operator connected ${d.name}'s Stripe account (${c.accountId}); ask them to change it.`);
  if (!c) {
    const account = await stripe.accounts.create(
      { type: "standard", business_profile: { name: d.name }, metadata: { districtId: d.id, districtSlug: d.slug } },
      { idempotencyKey: `connect-account-${d.id}` },
    );
    c = await ds.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO district_stripe_account (district_id, account_id, connected_by, connected_by_id, charges_enabled, details_submitted, payouts_enabled, status_checked_at)
         VALUES ($1, $2, 'ADMIN', $3, $4, $5, $6, $7) ON CONFLICT (district_id) DO NOTHING RETURNING *`,
        [d.id, account.id, viewer.userId, !!account.charges_enabled, !!account.details_submitted, !!account.payouts_enabled, clock.now()],
      );
      if (inserted.length)
        await audit(tx, { userId: viewer.userId, requestId: meta.requestId }, {
          action: "payment.stripe_account_connected",
          entityType: "District",
          entityId: d.id,
          districtId: d.id,
          details: { accountId: account.id, connectedBy: "ADMIN" },
        });
      return connectionOf(tx, d.id);
    });
    if (!c) throw new Error("the district's Stripe account was not stored");
  }
  const back = `${config.publicUrl}/staff/stripe?districtId=${d.id}`;
  const link = await stripe.accountLinks.create({ account: c.accountId, type: "account_onboarding", refresh_url: `${back}&link=expired`, return_url: `${back}&link=returned` });
  return { url: link.url, accountId: c.accountId };
}

/** ADMIN: asks Stripe whether the district's account takes charges now (after onboarding, say). */
export async function refreshStripeConnection(ds: DataSource, config: Config, viewer: Viewer, districtId: string, meta: { requestId?: string }): Promise<ConnectionView> {
  const d = await districtForAdmin(ds, viewer, districtId);
  const stripe = requireStripe(config);
  const c = await connectionOf(ds, d.id);
  if (!c) throw conflict(`${d.name} has no Stripe account connected yet.`);
  const account = await stripe.accounts.retrieve(c.accountId);
  await ds.transaction((tx) => recordAccountStatus(tx, account, { userId: viewer.userId, requestId: meta.requestId }, "refresh"));
  return view(config, d.id, await connectionOf(ds, d.id));
}

/**
 * Stores what Stripe says of a connected account (charges and payouts enabled, details
 * submitted), from the ADMIN's refresh or the account.updated event; a change of whether it takes
 * charges is audited. An account no district is connected to changes nothing (false).
 */
export async function recordAccountStatus(
  tx: EntityManager,
  account: Pick<Stripe.Account, "id" | "charges_enabled" | "details_submitted" | "payouts_enabled">,
  actor: Actor,
  via: string,
  asOf?: Date,
): Promise<boolean> {
  const [before] = await tx.query(`SELECT * FROM district_stripe_account WHERE account_id = $1 FOR UPDATE`, [account.id]);
  if (!before) return false;
  // An event older than what we last read from Stripe says nothing new (events may arrive late).
  // (Stripe's times are whole seconds: one from the same second is not older.)
  if (asOf && before.status_checked_at && Math.floor(new Date(before.status_checked_at).getTime() / 1000) > Math.floor(asOf.getTime() / 1000)) return true;
  await tx.query(
    `UPDATE district_stripe_account SET charges_enabled = $2, details_submitted = $3, payouts_enabled = $4, status_checked_at = $5, updated_at = $5 WHERE account_id = $1`,
    [account.id, !!account.charges_enabled, !!account.details_submitted, !!account.payouts_enabled, clock.now()],
  );
  if (before.charges_enabled !== !!account.charges_enabled)
    await audit(tx, actor, {
      action: "payment.stripe_account_status",
      entityType: "District",
      entityId: before.district_id,
      districtId: before.district_id,
      details: { accountId: account.id, chargesEnabled: !!account.charges_enabled, payoutsEnabled: !!account.payouts_enabled, via },
    });
  return true;
}

/**
 * The deployment's operator (`npm run stripe-account -- <district> <acct_...>`): connects an
 * existing Stripe account to a district, or with null removes the district's connection (it then
 * takes counter payments only). The account must be reachable with the platform's key (connected
 * to the platform), and not be another district's. Payments already made keep their account for
 * refunds and late events.
 */
export async function connectAccountByOperator(ds: DataSource, config: Config, districtSlug: string, accountId: string | null, log?: Logger): Promise<StripeConnection | null> {
  const d = await ds.getRepository(District).findOne({ where: { slug: districtSlug } });
  if (!d) throw notFound(`The district "${districtSlug}"`);
  const actor: Actor = { userId: null };
  if (accountId === null) {
    await ds.transaction(async (tx) => {
      const gone = await tx.query(`DELETE FROM district_stripe_account WHERE district_id = $1 RETURNING account_id`, [d.id]);
      if (gone.length)
        await audit(tx, actor, { action: "payment.stripe_account_disconnected", entityType: "District", entityId: d.id, districtId: d.id, details: { accountId: gone[0].account_id, by: "OPERATOR" } });
    });
    log?.info({ district: d.slug }, "district's Stripe account disconnected; it takes counter payments only");
    return null;
  }
  if (!ACCOUNT_ID.test(accountId)) throw badInput({ accountId: "A Stripe account id looks like acct_1Nv0FGQ9RKHgCVdK." });
  const account = await requireStripe(config).accounts.retrieve(accountId);
  await ds.transaction(async (tx) => {
    const [other] = await tx.query(`SELECT district_id FROM district_stripe_account WHERE account_id = $1 AND district_id <> $2`, [accountId, d.id]);
    if (other) throw conflict(`The Stripe account ${accountId} is already another district's.`);
    const now = clock.now();
    await tx.query(
      `INSERT INTO district_stripe_account (district_id, account_id, connected_by, connected_by_id, charges_enabled, details_submitted, payouts_enabled, status_checked_at, updated_at)
       VALUES ($1, $2, 'OPERATOR', NULL, $3, $4, $5, $6, $6)
       ON CONFLICT (district_id) DO UPDATE SET account_id = EXCLUDED.account_id, connected_by = 'OPERATOR', connected_by_id = NULL,
         charges_enabled = EXCLUDED.charges_enabled, details_submitted = EXCLUDED.details_submitted, payouts_enabled = EXCLUDED.payouts_enabled,
         status_checked_at = EXCLUDED.status_checked_at, updated_at = EXCLUDED.updated_at`,
      [d.id, accountId, !!account.charges_enabled, !!account.details_submitted, !!account.payouts_enabled, now],
    );
    await audit(tx, actor, {
      action: "payment.stripe_account_connected",
      entityType: "District",
      entityId: d.id,
      districtId: d.id,
      details: { accountId, connectedBy: "OPERATOR", chargesEnabled: !!account.charges_enabled },
    });
  });
  log?.info({ district: d.slug, accountId, chargesEnabled: account.charges_enabled }, "district's Stripe account connected by the operator");
  return connectionOf(ds, d.id);
}

import pg from "pg";
import type { Logger } from "pino";
import type { EntityManager } from "typeorm";

/**
 * Keeps every instance's in-process caches true to the database (docs/architecture.md, Caches).
 *
 * A change that makes cached entries stale announces it with NOTIFY in its own transaction
 * (`announceInvalidation`), so PostgreSQL delivers it only when that transaction commits, and to
 * every instance listening: each one keeps a dedicated connection, outside the pool, on LISTEN
 * (`listenForInvalidations`) and drops the entries named. The instance that made the change also
 * drops them itself right after the commit (the services' existing calls), so its own next
 * request never waits on the notification's round trip.
 *
 * While the listening connection is down notifications are missed, so every cache is dropped when
 * it is lost and again once it is back. On the embedded database (PGlite: one connection, one
 * instance) there is no listener: the services' own after-commit calls are the whole story.
 */
export const INVALIDATION_CHANNEL = "tapline_invalidate";

/**
 * `viewers`: the people behind sessions and API tokens (key: a user id); `public`: public answers
 * (districts, rulebooks); `lists`: the hot signed-in lists (api/graphql/micro-cache.ts), after any
 * mutation or webhook.
 */
export type CacheName = "viewers" | "public" | "lists";
export type Invalidation = { cache: CacheName; key?: string };

const forgetters = new Map<CacheName, ((key?: string) => unknown)[]>();

/** A cache says how to drop its entries for a key, or all of them when the key is undefined. */
export function onInvalidation(cache: CacheName, forget: (key?: string) => unknown): void {
  forgetters.set(cache, [...(forgetters.get(cache) ?? []), forget]);
}

/** Drops on this instance what the message names (a cache that fails to drop is reported, the others still drop). */
export async function forgetHere(message: Invalidation): Promise<void> {
  const failed: unknown[] = [];
  for (const forget of forgetters.get(message.cache) ?? [])
    try {
      await forget(message.key);
    } catch (err) {
      failed.push(err);
    }
  if (failed.length) throw new AggregateError(failed, `could not drop the ${message.cache} cache`);
}

/** Drops every cache of this instance (after notifications may have been missed). */
export async function forgetEverythingHere(): Promise<void> {
  for (const cache of forgetters.keys()) await forgetHere({ cache });
}

// Set once this process listens: only then can another instance hold what a change makes stale.
let shared = false;

/**
 * In the caller's transaction: tells every instance to drop what the change makes stale, once the
 * transaction commits (a rolled-back change tells no one). A no-op with no listener (PGlite).
 */
export async function announceInvalidation(tx: EntityManager, message: Invalidation): Promise<void> {
  if (!tx.queryRunner?.isTransactionActive) throw new Error("announceInvalidation runs inside the change's transaction");
  if (shared) await tx.query(`SELECT pg_notify($1, $2)`, [INVALIDATION_CHANNEL, JSON.stringify(message)]);
}

/**
 * After a change has committed (a mutation, a webhook, loading the shipped rulebooks): tells every
 * other instance to drop what it names, at once. For changes made in several transactions, where
 * no one transaction can carry the NOTIFY. `always` sends it before this process listens (at
 * start-up, on PostgreSQL). A no-op on PGlite; a failure is the caller's to log, never the change's.
 */
export async function announceCommitted(db: Pick<EntityManager, "query">, message: Invalidation, opts: { always?: boolean } = {}): Promise<void> {
  if (shared || opts.always) await db.query(`SELECT pg_notify($1, $2)`, [INVALIDATION_CHANNEL, JSON.stringify(message)]);
}

export type InvalidationListener = { ready: Promise<void>; stop(): Promise<void> };

/**
 * A dedicated client LISTENing on the channel (a pooled connection would be handed to queries).
 * Lost (error, end, or a heartbeat unanswered), it reconnects with capped exponential backoff
 * and jitter; every cache is dropped on the loss and on each (re)connection.
 */
export function listenForInvalidations(
  connectionString: string,
  log: Logger,
  opts: { heartbeatMs?: number; maxBackoffMs?: number } = {},
): InvalidationListener {
  shared = true;
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  const maxBackoffMs = opts.maxBackoffMs ?? 30_000;
  let client: pg.Client | null = null;
  let stopped = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));

  const retry = () => {
    if (stopped) return;
    const delay = Math.min(maxBackoffMs, 250 * 2 ** failures++) * (0.5 + Math.random() / 2);
    retryTimer = setTimeout(() => void connect(), delay);
    retryTimer.unref();
  };

  const lost = (c: pg.Client, err?: unknown) => {
    if (client !== c) return;
    client = null;
    clearInterval(heartbeat);
    log.warn({ err }, "invalidation listener lost its connection; dropping every cache and reconnecting");
    c.removeAllListeners("notification");
    c.end().catch(() => {});
    forgetEverythingHere().catch((e) => log.error({ err: e }, "dropping the caches failed"));
    retry();
  };

  const connect = async () => {
    const c = new pg.Client({ connectionString, keepAlive: true, query_timeout: 10_000, application_name: "tapline-invalidation" });
    c.on("notification", (n) => {
      if (n.channel !== INVALIDATION_CHANNEL || !n.payload) return;
      let message: Invalidation;
      try {
        message = JSON.parse(n.payload) as Invalidation;
      } catch (err) {
        log.error({ err, payload: n.payload }, "unreadable invalidation: dropping every cache");
        return void forgetEverythingHere().catch((e) => log.error({ err: e }, "dropping the caches failed"));
      }
      forgetHere(message).catch((err) => log.error({ err, message }, "dropping a cache failed"));
    });
    c.on("error", (err) => lost(c, err));
    c.on("end", () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${INVALIDATION_CHANNEL}`);
    } catch (err) {
      c.end().catch(() => {});
      log.warn({ err, attempt: failures + 1 }, "invalidation listener could not connect; retrying");
      return retry();
    }
    if (stopped) return void c.end().catch(() => {});
    client = c;
    if (failures) log.info("invalidation listener reconnected");
    failures = 0;
    await forgetEverythingHere().catch((err) => log.error({ err }, "dropping the caches failed")); // whatever was announced while no one listened
    markReady();
    heartbeat = setInterval(() => c.query("SELECT 1").catch((err) => lost(c, err)), heartbeatMs);
    heartbeat.unref();
  };

  void connect();
  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(heartbeat);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

import type { Server } from "node:http";
import type { DataSource } from "typeorm";
import { pino, type Logger } from "pino";
import type { Config } from "./config.js";
import { listenForInvalidations } from "./common/invalidation.js";
import { connect } from "./db/connect.js";
import { migrateAndLoad } from "./db/migrate.js";
import { startWorkers, type WorkerOptions } from "./jobs/worker.js";
import { createApi, createApp } from "./server.js";
import { mountPortal } from "./web.js";

/** `close()` is the graceful shutdown: see startTapline. */
export type Running = { url: string; server: Server; ds: DataSource; close(): Promise<void>; drain(): void; log: Logger };

/** The longest a graceful shutdown waits for requests in flight before it closes their connections. */
export const SHUTDOWN_GRACE_MS = 20_000;

/**
 * Replicas starting together on one PostgreSQL migrate and load one after the other (a session
 * advisory lock on a connection of its own); the later ones find nothing left to do. PGlite has one
 * connection and one instance.
 */
async function oneInstanceAtATime(ds: DataSource, shared: boolean, fn: () => Promise<void>): Promise<void> {
  if (!shared) return fn();
  const holder = ds.createQueryRunner();
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(hashtext('tapline:migrate-and-load'))`);
    await fn();
  } finally {
    await holder.query(`SELECT pg_advisory_unlock(hashtext('tapline:migrate-and-load'))`).catch(() => {});
    await holder.release();
  }
}

/** Connects, migrates, loads, and serves portal and API on one port. Used by main.ts and the tests. */
export async function startTapline(
  config: Config,
  opts: { portal?: "build" | "dev" | "vite" | "none"; workers?: boolean | WorkerOptions; demoScenes?: boolean; log?: Logger } = {},
): Promise<Running> {
  const log = opts.log ?? pino({ level: config.logLevel, redact: ["req.headers.cookie", "req.headers.authorization", "password", "*.password"] });
  const db = await connect(config);
  await oneInstanceAtATime(db.ds, !!config.databaseUrl, () =>
    migrateAndLoad(db.ds, { demo: config.demo, scenes: opts.demoScenes ? { publicUrl: config.publicUrl, config } : undefined, log, shared: !!config.databaseUrl }),
  );
  // On PostgreSQL other instances may share the database: each listens for the changes that make
  // its caches stale (api/common/invalidation.ts). PGlite has one connection and one instance.
  const invalidations = config.databaseUrl ? listenForInvalidations(config.databaseUrl, log) : null;
  if (invalidations) await Promise.race([invalidations.ready, new Promise((r) => setTimeout(r, 10_000).unref())]);
  const api = await createApi({ ds: db.ds, config, log });
  const portal = opts.portal ?? "build";
  // Vite's HMR (npm run dev) needs its websocket and inline styles: the CSP allows them then only.
  const app = createApp({ ds: db.ds, config, log, api, viteHmr: portal === "dev" });
  const closePortal = portal === "none" ? async () => {} : await mountPortal(app, config, api.execute, portal);
  const stopWorkers = opts.workers === false ? async () => {} : startWorkers(db.ds, config, log, opts.workers === true ? {} : opts.workers);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.on("error", reject);
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : config.port;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    ds: db.ds,
    log,
    /**
     * Graceful: /healthz answers 503 "draining" and every response says `Connection: close`; the
     * port stops taking connections (idle keep-alive ones are closed); requests in flight finish
     * (after SHUTDOWN_GRACE_MS their connections are cut) while the job running finishes and the
     * jobs claimed but not started go back to the queue; then the rest closes.
     */
    /** From now on /healthz answers 503 "draining" and responses close their connections; still serving. */
    drain() {
      app.locals.draining = true;
    },
    async close() {
      app.locals.draining = true;
      const served = new Promise<void>((r) => server.close(() => r()));
      let grace: NodeJS.Timeout | undefined;
      const cut = new Promise<void>((r) => (grace = setTimeout(r, SHUTDOWN_GRACE_MS)));
      await Promise.all([Promise.race([served, cut]), stopWorkers()]);
      clearTimeout(grace);
      server.closeAllConnections?.();
      await closePortal();
      await api.apollo.stop();
      await invalidations?.stop();
      await db.close();
    },
  };
}

/**
 * Graceful shutdown on SIGTERM or SIGINT (docker stop, a rolling deploy): after `drainMs` with the
 * health check answering "draining" (so a load balancer polling it stops sending here), close()
 * as above, then exit. A second signal exits at once.
 */
export function closeOnSignals(running: Running, opts: { drainMs?: number } = {}): void {
  let stopping = false;
  for (const sig of ["SIGINT", "SIGTERM"] as const)
    process.on(sig, () => {
      if (stopping) {
        running.log.warn({ signal: sig }, "second signal: exiting without waiting");
        process.exit(1);
      }
      stopping = true;
      running.log.info({ signal: sig, drainMs: opts.drainMs ?? 0 }, "shutting down: draining requests and jobs");
      running.drain();
      setTimeout(() => {
        running.close().then(
          () => {
            running.log.info("shut down");
            process.exit(0);
          },
          (err) => {
            running.log.error({ err }, "shutdown failed");
            process.exit(1);
          },
        );
      }, opts.drainMs ?? 0);
    });
}

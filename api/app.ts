import type { Server } from "node:http";
import type { DataSource } from "typeorm";
import { pino, type Logger } from "pino";
import type { Config } from "./config.js";
import { connect } from "./db/connect.js";
import { migrateAndLoad } from "./db/migrate.js";
import { startWorkers } from "./jobs/worker.js";
import { createApi, createApp } from "./server.js";
import { mountPortal } from "./web.js";

export type Running = { url: string; server: Server; ds: DataSource; close(): Promise<void>; log: Logger };

/** Connects, migrates, loads, and serves portal and API on one port. Used by main.ts and the tests. */
export async function startTapline(config: Config, opts: { portal?: "build" | "dev" | "vite" | "none"; workers?: boolean; demoScenes?: boolean; log?: Logger } = {}): Promise<Running> {
  const log = opts.log ?? pino({ level: config.logLevel, redact: ["req.headers.cookie", "req.headers.authorization", "password", "*.password"] });
  const db = await connect(config);
  await migrateAndLoad(db.ds, { demo: config.demo, scenes: opts.demoScenes ? { publicUrl: config.publicUrl, config } : undefined, log });
  const api = await createApi({ ds: db.ds, config, log });
  const portal = opts.portal ?? "build";
  // Vite's HMR (npm run dev) needs its websocket and inline styles: the CSP allows them then only.
  const app = createApp({ ds: db.ds, config, log, api, viteHmr: portal === "dev" });
  const closePortal = portal === "none" ? async () => {} : await mountPortal(app, config, api.execute, portal);
  const stopWorkers = opts.workers === false ? async () => {} : startWorkers(db.ds, config, log);
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
    async close() {
      await stopWorkers();
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      await closePortal();
      await api.apollo.stop();
      await db.close();
    },
  };
}

import type { DataSource } from "typeorm";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { loadShippedDistricts } from "../districts/districts.service.js";
import { loadDemoAccounts } from "./demo.js";
import { loadDemoScenes } from "./demo-scenes.js";

/**
 * Runs every pending migration, then loads the shipped districts (and, in demo mode, the demo
 * accounts, and with `scenes` the demo scenes: `npm start` asks for them, the tests do not).
 */
export async function migrateAndLoad(ds: DataSource, opts: { demo: boolean; scenes?: { publicUrl: string; config?: Config }; log?: Logger }): Promise<void> {
  const ran = await ds.runMigrations({ transaction: "each" });
  if (ran.length) opts.log?.info({ migrations: ran.map((m) => m.name) }, "migrations applied");
  await loadShippedDistricts(ds);
  if (opts.demo) await loadDemoAccounts(ds);
  if (opts.demo && opts.scenes) await loadDemoScenes(ds, opts.scenes.publicUrl, opts.scenes.config);
}

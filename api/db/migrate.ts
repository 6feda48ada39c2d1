import type { DataSource } from "typeorm";
import type { Logger } from "pino";
import { loadShippedDistricts } from "../districts/districts.service.js";
import { loadDemoAccounts } from "./demo.js";

/** Runs every pending migration, then loads the shipped districts (and, in demo mode, the demo accounts). */
export async function migrateAndLoad(ds: DataSource, opts: { demo: boolean; log?: Logger }): Promise<void> {
  const ran = await ds.runMigrations({ transaction: "each" });
  if (ran.length) opts.log?.info({ migrations: ran.map((m) => m.name) }, "migrations applied");
  await loadShippedDistricts(ds);
  if (opts.demo) await loadDemoAccounts(ds);
}

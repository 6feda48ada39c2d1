import type { DataSource } from "typeorm";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { announceCommitted } from "../common/invalidation.js";
import { loadShippedDistricts } from "../districts/districts.service.js";
import type { DistrictFile } from "../districts/rulebook-schema.js";
import { loadDemoAccounts } from "./demo.js";
import { loadDemoScenes } from "./demo-scenes.js";

/**
 * Runs every pending migration, then loads the shipped districts (and, in demo mode, the demo
 * accounts, and with `scenes` the demo scenes: `npm start` asks for them, the tests do not).
 * With `shared` (PostgreSQL, where other instances may run: a rolling upgrade that ships a changed
 * law file), the instances already running are told to drop their public answers at once, so they
 * serve the law version just loaded (their rules read the versions in force from the database).
 */
export async function migrateAndLoad(
  ds: DataSource,
  opts: { demo: boolean; scenes?: { publicUrl: string; config?: Config }; log?: Logger; shared?: boolean; districtFiles?: DistrictFile[] },
): Promise<void> {
  const ran = await ds.runMigrations({ transaction: "each" });
  if (ran.length) opts.log?.info({ migrations: ran.map((m) => m.name) }, "migrations applied");
  await loadShippedDistricts(ds, opts.districtFiles);
  if (opts.shared) await announceCommitted(ds, { cache: "public" }, { always: true });
  if (opts.demo) await loadDemoAccounts(ds);
  if (opts.demo && opts.scenes) await loadDemoScenes(ds, opts.scenes.publicUrl, opts.scenes.config);
}

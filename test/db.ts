import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { pino } from "pino";
import { createDataSource } from "../api/db/data-source.js";
import { startEmbeddedDatabase } from "../api/db/embedded.js";
import { migrateAndLoad } from "../api/db/migrate.js";

/**
 * Test databases. With DATABASE_URL set, a migrated template database is made once per run and
 * copied per test file (CREATE DATABASE ... TEMPLATE). Without it, a migrated PGlite data folder is
 * made once (kept in .cache/ while the migrations and shipped data do not change) and copied.
 */
export const REAL_PG = !!process.env.DATABASE_URL;
// Each run has its own template and databases, so two runs on one server (CI and a developer, or
// two developers) never drop each other's databases.
const RUN_ID = process.env.TAPLINE_TEST_RUN ?? "";
const TEMPLATE_DB = `tapline_tpl_${RUN_ID}`;

function fingerprint(): string {
  const h = createHash("sha256");
  for (const dir of ["migrations", "api/districts/data"])
    for (const f of fs.readdirSync(dir).sort()) h.update(f).update(fs.readFileSync(path.join(dir, f)));
  h.update(fs.readFileSync("api/db/demo.ts"));
  return h.digest("hex").slice(0, 16);
}

// Chosen once per run by the global setup and handed to the workers, so a migration edited while a
// run is under way (another developer's, in the same checkout) does not send its workers elsewhere.
export const templateDir = () => process.env.TAPLINE_PGLITE_TEMPLATE ?? path.resolve(`.cache/pglite-template-${fingerprint()}`);

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Called once per run from the global setup (which sets TAPLINE_TEST_RUN first). */
export async function prepareTemplate(): Promise<void> {
  const log = pino({ level: "warn" });
  if (REAL_PG) {
    if (!RUN_ID) throw new Error("TAPLINE_TEST_RUN is not set");
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
    } finally {
      await admin.end();
    }
    const ds = createDataSource(withDatabase(process.env.DATABASE_URL!, TEMPLATE_DB), { poolSize: 2 });
    await ds.initialize();
    await migrateAndLoad(ds, { demo: true, log });
    await ds.destroy();
    return;
  }
  const dir = templateDir();
  process.env.TAPLINE_PGLITE_TEMPLATE = dir;
  if (fs.existsSync(path.join(dir, "READY"))) return;
  fs.rmSync(dir, { recursive: true, force: true });
  // Older templates go, except one another run made in the last hour (it may be copying from it).
  for (const old of fs.existsSync(".cache") ? fs.readdirSync(".cache") : []) {
    const p = path.join(".cache", old);
    if (old.startsWith("pglite-template-") && Date.now() - fs.statSync(p).mtimeMs > 3_600_000) fs.rmSync(p, { recursive: true, force: true });
  }
  const db = await startEmbeddedDatabase(dir);
  const ds = createDataSource(db.url, { poolSize: 1 });
  await ds.initialize();
  await migrateAndLoad(ds, { demo: true, log });
  await ds.destroy();
  await db.stop();
  fs.writeFileSync(path.join(dir, "READY"), new Date().toISOString());
}

export type TestDatabase = { databaseUrl?: string; dataDir: string; drop(): Promise<void> };

/** A fresh, migrated database with both districts and the demo accounts, for one test file. */
export async function freshDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-test-"));
  if (REAL_PG) {
    const name = `tapline_t_${RUN_ID}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
    await admin.end();
    return {
      databaseUrl: withDatabase(process.env.DATABASE_URL!, name),
      dataDir,
      async drop() {
        const a = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await a.connect();
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await a.end();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  fs.cpSync(templateDir(), path.join(dataDir, "pglite"), { recursive: true });
  return { dataDir, async drop() { fs.rmSync(dataDir, { recursive: true, force: true }); } };
}

/** An empty database (no migrations) for the migration test. */
export async function emptyDatabase(): Promise<{ url: string; poolSize: number; drop(): Promise<void> }> {
  if (REAL_PG) {
    const name = `tapline_t_${RUN_ID}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return {
      url: withDatabase(process.env.DATABASE_URL!, name),
      poolSize: 2,
      async drop() {
        const a = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await a.connect();
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await a.end();
      },
    };
  }
  const db = await startEmbeddedDatabase(null);
  return { url: db.url, poolSize: 1, drop: () => db.stop() };
}

/** Called from the global teardown: drops this run's template and any database a crashed file left. */
export async function dropRunDatabases(): Promise<void> {
  if (!REAL_PG || !RUN_ID) return;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    const rows = await admin.query(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [TEMPLATE_DB, `tapline\\_t\\_${RUN_ID}\\_%`]);
    for (const r of rows.rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { Config } from "../config.js";
import { documentRows, type DocumentRow } from "../documents/migrate-documents.js";
import { createDocumentStore, readChecked, type DocumentStore } from "../documents/storage.js";

/**
 * `npm run backup` and `npm run restore` (docs/deploy.md, "Backups"). A backup is one folder:
 *   manifest.json   what is in it, with the size and SHA-256 of every file (written last)
 *   database.dump   pg_dump's custom format (PostgreSQL), or
 *   database.tgz    PGlite's own dump of its data folder (the embedded database)
 *   documents/<storage key>   every document the database names, checked against its SHA-256
 * The database is dumped from one snapshot and the documents listed from the same snapshot;
 * documents are written before their rows and never changed, so every one it names is there.
 */

export const BACKUP_FORMAT = "tapline-backup/1";

export type BackupManifest = {
  format: typeof BACKUP_FORMAT;
  createdAt: string;
  database: { kind: "postgresql" | "pglite"; file: string; bytes: number; sha256: string; lastMigration: string | null };
  documentStore: string;
  documents: (DocumentRow & { file: string })[];
  /** Documents the database names that could not be read whole from the store (the backup is then incomplete). */
  problems: { documentId: string; storageKey: string; problem: string }[];
};

export class BackupError extends Error {}

const sha256Of = (file: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const h = createHash("sha256");
    fs.createReadStream(file)
      .on("data", (c) => h.update(c))
      .on("end", () => resolve(h.digest("hex")))
      .on("error", reject);
  });

/** Runs pg_dump or pg_restore with the password in the environment, not on the command line. */
function runPgTool(tool: "pg_dump" | "pg_restore", databaseUrl: string, args: string[]): Promise<void> {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = "";
  return new Promise((resolve, reject) => {
    const child = spawn(tool, [...args, `--dbname=${url.toString()}`], { env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", (e: any) => reject(new BackupError(e.code === "ENOENT" ? `${tool} was not found: install the PostgreSQL client tools (the server's major version or later)` : `${tool}: ${e.message}`)));
    child.on("close", (code) => (code === 0 ? resolve() : reject(new BackupError(`${tool} failed (exit ${code}): ${stderr.trim()}`))));
  });
}

const pgliteDir = (config: Pick<Config, "dataDir">) => path.join(config.dataDir, "pglite");

/** PGlite takes one process: a postmaster.pid means Tapline has it open (or did not stop cleanly). */
function refuseOpenPglite(dir: string) {
  if (fs.existsSync(path.join(dir, "postmaster.pid")))
    throw new BackupError(`The embedded database in ${dir} is in use (or Tapline did not stop cleanly): stop Tapline, start and stop it once if it had crashed, then run this again.`);
}

async function lastMigration(query: (sql: string) => Promise<{ name: string }[]>): Promise<string | null> {
  const rows = await query(`SELECT name FROM typeorm_migrations ORDER BY timestamp DESC, id DESC LIMIT 1`);
  return rows[0]?.name ?? null;
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");

/**
 * Writes a backup folder under `outDir` and returns its path and manifest. The folder gets its
 * final name only once the manifest is written, so a folder without `.partial` is complete.
 */
export async function backup(config: Config, outDir: string, opts: { store?: DocumentStore; now?: Date } = {}): Promise<{ dir: string; manifest: BackupManifest }> {
  const createdAt = opts.now ?? new Date();
  const dir = path.resolve(outDir, `tapline-backup-${stamp(createdAt)}`);
  const partial = `${dir}.partial`;
  if (fs.existsSync(dir)) throw new BackupError(`${dir} already exists`);
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true, mode: 0o700 });
  try {
    const store = opts.store ?? createDocumentStore(config.documentStore);
    const { database, rows } = config.databaseUrl ? await dumpPostgres(config.databaseUrl, partial) : await dumpPglite(pgliteDir(config), partial);
    const manifest: BackupManifest = { format: BACKUP_FORMAT, createdAt: createdAt.toISOString(), database, documentStore: store.description, documents: [], problems: [] };
    for (const row of rows) {
      const file = `documents/${row.storageKey}`;
      try {
        const bytes = await readChecked(store, row);
        fs.mkdirSync(path.dirname(path.join(partial, file)), { recursive: true });
        fs.writeFileSync(path.join(partial, file), bytes, { mode: 0o600 });
        manifest.documents.push({ ...row, file });
      } catch (e) {
        manifest.problems.push({ documentId: row.id, storageKey: row.storageKey, problem: e instanceof Error ? e.message : String(e) });
      }
    }
    const manifestFile = path.join(partial, "manifest.json");
    fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 });
    const fd = fs.openSync(manifestFile, "r");
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(partial, dir);
    return { dir, manifest };
  } catch (e) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw e;
  }
}

/**
 * pg_dump from a snapshot this connection exports, and the document list read in that same
 * snapshot: the dump and the documents are of one moment, while the app goes on writing.
 */
async function dumpPostgres(databaseUrl: string, dir: string): Promise<{ database: BackupManifest["database"]; rows: DocumentRow[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const [{ snapshot }] = (await client.query(`SELECT pg_export_snapshot() AS snapshot`)).rows;
    const rows = await documentRows({ query: async (sql: string) => (await client.query(sql)).rows });
    const last = await lastMigration(async (sql) => (await client.query(sql)).rows);
    const file = "database.dump";
    await runPgTool("pg_dump", databaseUrl, ["--format=custom", `--snapshot=${snapshot}`, `--file=${path.join(dir, file)}`]);
    await client.query("COMMIT");
    const full = path.join(dir, file);
    return { database: { kind: "postgresql", file, bytes: fs.statSync(full).size, sha256: await sha256Of(full), lastMigration: last }, rows };
  } finally {
    await client.end();
  }
}

/** PGlite's own dump of its data folder (dumpDataDir), with Tapline stopped. */
async function dumpPglite(dataDir: string, dir: string): Promise<{ database: BackupManifest["database"]; rows: DocumentRow[] }> {
  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) throw new BackupError(`There is no embedded database in ${dataDir}`);
  refuseOpenPglite(dataDir);
  const db = await PGlite.create(dataDir);
  try {
    const query = async (sql: string) => (await db.query<any>(sql)).rows;
    const rows = await documentRows({ query });
    const last = await lastMigration(query);
    const file = "database.tgz";
    const full = path.join(dir, file);
    // Node's zlib compresses several times faster than PGlite's own "gzip" option.
    fs.writeFileSync(full, gzipSync(Buffer.from(await (await db.dumpDataDir("none")).arrayBuffer())), { mode: 0o600 });
    return { database: { kind: "pglite", file, bytes: fs.statSync(full).size, sha256: await sha256Of(full), lastMigration: last }, rows };
  } finally {
    await db.close();
  }
}

/** Reads a backup's manifest and checks every file in it against its size and SHA-256. */
export async function checkBackup(dir: string): Promise<BackupManifest> {
  const manifestFile = path.join(dir, "manifest.json");
  if (!fs.existsSync(manifestFile)) throw new BackupError(`${dir} has no manifest.json: it is not a backup, or not a complete one`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as BackupManifest;
  if (manifest.format !== BACKUP_FORMAT) throw new BackupError(`${dir} is a backup of another format (${manifest.format}); this Tapline reads ${BACKUP_FORMAT}`);
  const damaged: string[] = [];
  const files = [{ file: manifest.database.file, bytes: manifest.database.bytes, sha256: manifest.database.sha256 }, ...manifest.documents.map((d) => ({ file: d.file, bytes: d.sizeBytes, sha256: d.sha256 }))];
  for (const f of files) {
    const full = path.join(dir, f.file);
    if (path.relative(dir, full).startsWith("..")) throw new BackupError(`the manifest names a file outside the backup: ${f.file}`);
    if (!fs.existsSync(full)) damaged.push(`${f.file} is missing`);
    else if (fs.statSync(full).size !== f.bytes || (await sha256Of(full)) !== f.sha256) damaged.push(`${f.file} is not the file the manifest describes (size or SHA-256)`);
  }
  if (damaged.length) throw new BackupError(`The backup in ${dir} is damaged; nothing was restored:\n  ${damaged.join("\n  ")}`);
  return manifest;
}

/**
 * Restores a backup into an empty database and an empty document store (refusing anything else),
 * after checking every file of the backup. The database kind must be the backup's: a PostgreSQL
 * dump into PostgreSQL (DATABASE_URL), a PGlite dump into an embedded database not yet created.
 */
export async function restore(config: Config, fromDir: string, opts: { store?: DocumentStore } = {}): Promise<{ manifest: BackupManifest; documents: number }> {
  const manifest = await checkBackup(fromDir);
  const kind = config.databaseUrl ? "postgresql" : "pglite";
  if (manifest.database.kind !== kind)
    throw new BackupError(`This is a backup of ${manifest.database.kind === "pglite" ? "the embedded database (PGlite)" : "PostgreSQL"}; restore it with ${manifest.database.kind === "pglite" ? "DATABASE_URL unset" : "DATABASE_URL set"}.`);
  const store = opts.store ?? createDocumentStore(config.documentStore);
  for await (const key of store.keys()) throw new BackupError(`The document store (${store.description}) is not empty (it has ${key}): restore into an empty store.`);

  if (config.databaseUrl) {
    await refuseNonEmptyPostgres(config.databaseUrl);
    await runPgTool("pg_restore", config.databaseUrl, ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", path.join(fromDir, manifest.database.file)]);
  } else {
    const dir = pgliteDir(config);
    if (fs.existsSync(dir) && fs.readdirSync(dir).length) throw new BackupError(`${dir} is not empty: restore the embedded database into a data folder that has none.`);
    const dump = gunzipSync(fs.readFileSync(path.join(fromDir, manifest.database.file)));
    fs.mkdirSync(dir, { recursive: true });
    const db = await PGlite.create(dir, { loadDataDir: new Blob([dump]) });
    await db.close();
  }

  for (const doc of manifest.documents) {
    await store.put(doc.storageKey, fs.readFileSync(path.join(fromDir, doc.file)), doc.sha256, doc.contentType);
    // Read back: the bytes the store gives are the bytes the backup holds.
    await readChecked(store, doc);
  }
  return { manifest, documents: manifest.documents.length };
}

async function refuseNonEmptyPostgres(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
        LIMIT 3`,
    );
    if (rows.length) throw new BackupError(`The database is not empty (it has ${rows.map((r) => r.name).join(", ")}): restore into a new, empty database.`);
  } finally {
    await client.end();
  }
}

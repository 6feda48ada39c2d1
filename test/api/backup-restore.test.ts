import { PGlite } from "@electric-sql/pglite";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTapline } from "../../api/app.js";
import { loadConfig, type Config } from "../../api/config.js";
import { backup, BackupError, restore } from "../../api/db/backup.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { documentStore, readChecked } from "../../api/documents/storage.js";
import { Client, startTestServer, type TestServer } from "../harness.js";
import { emptyDatabase, REAL_PG } from "../db.js";

/**
 * npm run backup and npm run restore, on the database the run uses (PostgreSQL with DATABASE_URL,
 * PGlite without): a district with records of every kind (the demo accounts and every demo scene,
 * plus uploads) is backed up, restored into a fresh database and store, and compared table by
 * table, row by row, and document by document; then the restored copy serves a download.
 */

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0", "latin1")]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);

type Query = (sql: string) => Promise<any[]>;
type Db = { query: Query; close(): Promise<void> };

async function openDb(databaseUrl: string | undefined, dataDir: string): Promise<Db> {
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    return { query: async (sql) => (await c.query(sql)).rows, close: () => c.end() };
  }
  const db = await PGlite.create(path.join(dataDir, "pglite"));
  return { query: async (sql) => (await db.query<any>(sql)).rows, close: () => db.close() };
}

/** Every table's rows, each as JSON text, sorted: equal for two databases holding the same data. */
async function everyTable(q: Query): Promise<Record<string, string[]>> {
  const tables: { name: string }[] = await q(`SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  const out: Record<string, string[]> = {};
  for (const { name } of tables) out[name] = (await q(`SELECT to_jsonb(t)::text AS r FROM ${name} t ORDER BY 1`)).map((x) => x.r);
  return out;
}

let srv: TestServer;
let serverClosed = false;
const cleanup: (() => Promise<unknown> | void)[] = [];
let uploaderEmail: string;
let pngId: string;

// A PGlite data folder's dump and load take a while on a busy machine.
beforeAll(async () => {
  srv = await startTestServer();
  // Records of every kind: the demo scenes (contractors with their bond, an industrial permit, a
  // licensed hauler, enforcement in each district), a few uploads and a paid lateral permit application.
  await loadDemoScenes(srv.running.ds, srv.config.publicUrl, srv.config);
  uploaderEmail = "backed-up@example.org";
  const c = new Client(srv.url);
  await c.signUp(uploaderEmail);
  const UPLOAD = `mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`;
  pngId = (await c.ok(UPLOAD, { i: { filename: "photo.png", contentBase64: PNG.toString("base64") } })).uploadDocument.id;
  await c.ok(UPLOAD, { i: { filename: "photo.jpg", contentBase64: JPEG.toString("base64") } });
  // A lateral permit application with its site plan, submitted and paid (payments, receipts).
  const [contractor] = await srv.running.ds.query(`SELECT c.id AS contractor_id, c.district_id FROM contractor c WHERE c.status = 'APPROVED' LIMIT 1`);
  const plan = (await c.ok(UPLOAD, { i: { filename: "site-plan.pdf", contentBase64: Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64") } })).uploadDocument.id;
  const draft = await c.ok(`mutation($i: LateralPermitDraftInput!) { saveLateralPermitDraft(input: $i) { id } }`, {
    i: {
      districtId: contractor.district_id,
      permitClass: "RESIDENTIAL_COMMERCIAL_INSTITUTIONAL",
      buildingUse: "RESIDENTIAL",
      workKind: "NEW_BUILDING",
      streetNumber: "12",
      street: "Orchard Lane",
      city: "Lakeview",
      zip: "13600",
      taxParcel: "101.2-3-4",
      ownerName: "Pat Homeowner",
      contractorId: contractor.contractor_id,
      asBuiltSheets: 3,
      documentIds: [plan],
    },
  });
  const submitted = (await c.ok(`mutation($id: ID!) { submitLateralPermit(id: $id) { paymentId } }`, { id: draft.saveLateralPermitDraft.id })).submitLateralPermit;
  const { startCheckout } = await c.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: submitted.paymentId });
  await c.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
});
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
  if (serverClosed) await srv?.db.drop();
  else await srv?.close();
});

/** A configuration naming a fresh, empty database and document folder. */
async function emptyTarget(): Promise<Config> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-restore-"));
  cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  let databaseUrl: string | undefined;
  if (REAL_PG) {
    const db = await emptyDatabase();
    cleanup.push(() => db.drop());
    databaseUrl = db.url;
  }
  return loadConfig({
    NODE_ENV: "test",
    PORT: "0",
    HOST: "127.0.0.1",
    TAPLINE_DATA_DIR: dataDir,
    SESSION_SECRET: "test-secret-test-secret-test-secret-0123",
    PUBLIC_URL: "http://tapline.test",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
}

describe("backup and restore", () => {
  let backupDir: string;
  let target: Config;

  it("backs up the database and every document, restores them into an empty database and store, and every table's rows and every document's bytes are the same", async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-backups-"));
    cleanup.push(() => fs.rmSync(out, { recursive: true, force: true }));
    // What the backup must hold (nothing changes it afterwards: no requests, no workers).
    const query: Query = (sql) => srv.running.ds.query(sql);
    const before = await everyTable(query);
    const sourceDocs: { id: string; storage_key: string; size_bytes: number; sha256: string }[] = await query(`SELECT id, storage_key, size_bytes, sha256 FROM document ORDER BY id`);
    // PGlite is one process's: Tapline stops before its backup. PostgreSQL is backed up while it runs.
    if (!REAL_PG) {
      await srv.running.close();
      serverClosed = true;
    }
    const made = await backup(srv.config, out);
    backupDir = made.dir;
    const { manifest } = made;
    expect(path.basename(backupDir)).toMatch(/^tapline-backup-\d{8}T\d{6}Z$/);
    expect(fs.readdirSync(out)).toEqual([path.basename(backupDir)]);
    expect(manifest.database).toMatchObject({ kind: REAL_PG ? "postgresql" : "pglite", file: REAL_PG ? "database.dump" : "database.tgz", lastMigration: expect.any(String) });
    expect(manifest.problems).toEqual([]);

    // Records of every kind, documents among them.
    for (const table of ["app_user", "document", "lateral_permit", "lateral_permit_document", "payment", "contractor", "industrial_permit", "industrial_report", "hauler_license", "hauler_vehicle", "enforcement_action", "charge", "prosecution", "organization", "audit_entry", "outbox_email", "job", "rulebook_version"])
      expect([table, (before[table]?.length ?? 0) > 0]).toEqual([table, true]);
    expect(sourceDocs.length).toBeGreaterThanOrEqual(4);
    expect(manifest.documents.map((d) => d.id).sort()).toEqual(sourceDocs.map((d) => d.id).sort());

    target = await emptyTarget();
    const restored = await restore(target, backupDir);
    expect(restored.documents).toBe(sourceDocs.length);

    const copy = await openDb(target.databaseUrl, target.dataDir);
    try {
      const after = await everyTable(copy.query);
      expect(Object.keys(after)).toEqual(Object.keys(before));
      for (const table of Object.keys(before)) expect([table, after[table]]).toEqual([table, before[table]]);
    } finally {
      await copy.close();
    }
    const from = documentStore(srv.config);
    const to = documentStore(target);
    for (const d of sourceDocs) {
      const doc = { id: d.id, storageKey: d.storage_key, sizeBytes: d.size_bytes, sha256: d.sha256 };
      expect([d.id, (await readChecked(to, doc)).equals(await readChecked(from, doc))]).toEqual([d.id, true]);
    }
  }, 240_000);

  it("the restored copy runs: its owner signs in and downloads a document", async () => {
    const running = await startTapline(target, { portal: "none", workers: false, log: pino({ level: "silent" }) });
    try {
      const c = new Client(running.url);
      await c.signIn(uploaderEmail, "correct horse battery staple");
      const res = await fetch(`${running.url}/documents/${pngId}`, { headers: { cookie: c.cookieHeader } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    } finally {
      await running.close();
    }
  }, 120_000);

  it("refuses a database or a store that is not empty, and a damaged backup, changing nothing", async () => {
    // The database restored above is not empty.
    await expect(restore({ ...target, documentStore: { kind: "local", dir: fs.mkdtempSync(path.join(os.tmpdir(), "tapline-empty-store-")) } }, backupDir)).rejects.toThrow(
      REAL_PG ? /The database is not empty/ : /is not empty: restore the embedded database/,
    );
    // An empty database, but a store that is not.
    const fresh = await emptyTarget();
    await expect(restore({ ...fresh, documentStore: target.documentStore }, backupDir)).rejects.toThrow(/is not empty \(it has [0-9a-f]{2}\//);
    // One changed byte in one document: refused before anything is written.
    const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, "manifest.json"), "utf8"));
    const victim = path.join(backupDir, manifest.documents[0].file);
    const good = fs.readFileSync(victim);
    const bad = Buffer.from(good);
    bad[0] ^= 0x01;
    fs.writeFileSync(victim, bad);
    try {
      await expect(restore(fresh, backupDir)).rejects.toThrow(BackupError);
      await expect(restore(fresh, backupDir)).rejects.toThrow(`${manifest.documents[0].file} is not the file the manifest describes`);
    } finally {
      fs.writeFileSync(victim, good);
    }
    if (REAL_PG) {
      const untouched = await openDb(fresh.databaseUrl, fresh.dataDir);
      try {
        expect(await untouched.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).toEqual([{ n: 0 }]);
      } finally {
        await untouched.close();
      }
    } else expect(fs.existsSync(path.join(fresh.dataDir, "pglite"))).toBe(false);
    let storeKeys = 0;
    for await (const _ of documentStore(fresh).keys()) storeKeys++;
    expect(storeKeys).toBe(0);
  }, 120_000);
});

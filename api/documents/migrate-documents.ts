import type { DataSource } from "typeorm";
import { readChecked, type DocumentStore } from "./storage.js";

export type DocumentRow = { id: string; storageKey: string; sizeBytes: number; sha256: string; contentType: string };

/** Every document the database knows, in one query. */
export async function documentRows(db: { query(sql: string): Promise<any[]> }): Promise<DocumentRow[]> {
  return db.query(`SELECT id, storage_key AS "storageKey", size_bytes AS "sizeBytes", sha256, content_type AS "contentType" FROM document ORDER BY created_at, id`);
}

export type MigrationReport = {
  /** Documents copied and read back from the target with the database's SHA-256. */
  copied: number;
  /** Documents not copied, or copied but not read back whole, and why. */
  problems: { documentId: string; storageKey: string; problem: string }[];
  /** Objects in the source that no document names (left where they are). */
  unreferenced: string[];
};

/** Documents copied at once: enough to keep a remote store busy, each at most UPLOAD_MAX_BYTES in memory. */
const PARALLEL = 4;

/**
 * `npm run migrate-documents`: copies every document the database names from one store to another
 * (the local folder into a bucket), checking each one's SHA-256 against the database as it is read
 * from the source, sending it with the upload (so the bucket refuses damaged bytes), and reading it
 * back from the target. The source is left as it is; running it again copies everything again.
 */
export async function migrateDocuments(ds: Pick<DataSource, "query">, from: DocumentStore, to: DocumentStore, onProgress?: (done: number, total: number) => void): Promise<MigrationReport> {
  const rows = await documentRows(ds);
  const report: MigrationReport = { copied: 0, problems: [], unreferenced: [] };
  let next = 0;
  let done = 0;
  const copyOne = async (row: DocumentRow) => {
    let bytes: Buffer;
    try {
      bytes = await readChecked(from, row);
    } catch (e) {
      return report.problems.push({ documentId: row.id, storageKey: row.storageKey, problem: `not copied: ${message(e)}` });
    }
    try {
      await to.put(row.storageKey, bytes, row.sha256, row.contentType);
      await readChecked(to, row);
      report.copied++;
    } catch (e) {
      report.problems.push({ documentId: row.id, storageKey: row.storageKey, problem: `copied to ${to.description} but not read back whole: ${message(e)}` });
    }
  };
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < rows.length) {
        await copyOne(rows[next++]);
        onProgress?.(++done, rows.length);
      }
    }),
  );
  const named = new Set(rows.map((r) => r.storageKey));
  for await (const key of from.keys()) if (!named.has(key)) report.unreferenced.push(key);
  return report;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

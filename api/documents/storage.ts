import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline, Transform, type Readable, type TransformCallback } from "node:stream";
import type { Config, DocumentStoreSettings, S3Settings } from "../config.js";

/**
 * Where documents' bytes live, behind one small interface: the local folder (the default) or an
 * S3-compatible bucket, so that any instance behind a load balancer can serve any document. Keys
 * are the document's `storage_key` (`<2 hex>/<uuid>`); the database keeps who may read it and its
 * SHA-256, which every read is checked against (`checkedStream`).
 */
export interface DocumentStore {
  /** For logs and messages: "the folder /data/uploads", "the bucket tapline at http://minio:9000". */
  readonly description: string;
  /** Stores the bytes; `sha256` (hex) is sent along so a store that checks it refuses damaged bytes. */
  put(key: string, bytes: Buffer, sha256: string, contentType: string): Promise<void>;
  /** Opens an object for reading; a missing one is an error. `sha256` is the store's own, where it keeps one. */
  open(key: string): Promise<StoredObject>;
  remove(key: string): Promise<void>;
  /** Every key in the store, in no particular order. */
  keys(): AsyncIterable<string>;
}

export type StoredObject = { size: number; sha256?: string; stream: Readable };

export const STORAGE_KEY_RE = /^[0-9a-f]{2}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A new document's key: a random UUID under a folder named by its first two hex digits. */
export function newStorageKey(): string {
  const id = randomUUID();
  return `${id.slice(0, 2)}/${id}`;
}

function checkKey(key: string): string {
  // The key becomes a path or an object name: nothing but the shape the app makes is accepted.
  if (!STORAGE_KEY_RE.test(key)) throw new Error(`malformed document storage key ${JSON.stringify(key)}`);
  return key;
}

const stores = new WeakMap<Config, DocumentStore>();

/** The configured store, one per configuration (so one S3 client, with its connection pool). */
export function documentStore(config: Config): DocumentStore {
  let store = stores.get(config);
  if (!store) stores.set(config, (store = createDocumentStore(config.documentStore)));
  return store;
}

export function createDocumentStore(settings: DocumentStoreSettings): DocumentStore {
  return settings.kind === "s3" ? new S3DocumentStore(settings) : new LocalDocumentStore(settings.dir);
}

/** One file per document under the folder (outside the web root), written atomically. */
export class LocalDocumentStore implements DocumentStore {
  constructor(readonly dir: string) {}

  get description() {
    return `the folder ${this.dir}`;
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    // Writes to a temporary name in the same folder, flushes, then renames: a reader never sees half a file.
    const finalPath = path.join(this.dir, checkKey(key));
    await fs.promises.mkdir(path.dirname(finalPath), { recursive: true, mode: 0o700 });
    const tmpPath = `${finalPath}.${randomUUID()}.tmp`;
    try {
      const handle = await fs.promises.open(tmpPath, "wx", 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.promises.rename(tmpPath, finalPath);
    } catch (e) {
      await fs.promises.rm(tmpPath, { force: true }).catch(() => {});
      throw e;
    }
  }

  async open(key: string): Promise<StoredObject> {
    // Opened before anything is sent, so a missing file is an error, not a truncated download.
    const handle = await fs.promises.open(path.join(this.dir, checkKey(key)), "r");
    try {
      const { size } = await handle.stat();
      return { size, stream: handle.createReadStream() };
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async remove(key: string): Promise<void> {
    await fs.promises.rm(path.join(this.dir, checkKey(key)), { force: true });
  }

  async *keys(): AsyncIterable<string> {
    if (!fs.existsSync(this.dir)) return;
    for (const sub of await fs.promises.readdir(this.dir, { withFileTypes: true })) {
      if (!sub.isDirectory()) continue;
      for (const f of await fs.promises.readdir(path.join(this.dir, sub.name), { withFileTypes: true }))
        if (f.isFile() && !f.name.endsWith(".tmp")) yield `${sub.name}/${f.name}`;
    }
  }
}

const hexToBase64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");
const base64ToHex = (b64: string) => Buffer.from(b64, "base64").toString("hex");

/**
 * An S3-compatible bucket through the AWS SDK v3. Every object is put with its SHA-256
 * (`ChecksumAlgorithm: SHA256` and the value), which S3, MinIO, Ceph and R2 check on receipt and
 * keep; reads ask for it back (`ChecksumMode: ENABLED`), and the SDK checks the bytes against it
 * while they stream. A store that keeps no checksum (s3rver, in the tests) is still checked by the
 * app against the database's SHA-256.
 */
export class S3DocumentStore implements DocumentStore {
  readonly client: S3Client;
  constructor(readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // A store that stops answering fails the request instead of holding it (and a download) open.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
    });
  }

  get description() {
    return `the bucket ${this.settings.bucket}${this.settings.endpoint ? ` at ${this.settings.endpoint}` : ` in ${this.settings.region}`}`;
  }

  async put(key: string, bytes: Buffer, sha256: string, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: checkKey(key),
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: contentType,
        ChecksumAlgorithm: "SHA256",
        ChecksumSHA256: hexToBase64(sha256),
      }),
    );
  }

  async open(key: string): Promise<StoredObject> {
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: checkKey(key), ChecksumMode: "ENABLED" }));
    const stream = out.Body as Readable;
    // A multipart object's checksum is of its parts ("...-3"); this app puts whole objects only.
    const sha256 = out.ChecksumSHA256 && !out.ChecksumSHA256.includes("-") ? base64ToHex(out.ChecksumSHA256) : undefined;
    return { size: Number(out.ContentLength), sha256, stream };
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: checkKey(key) }));
  }

  async *keys(): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) yield o.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

export const isMissingObject = (e: unknown): boolean => (e as any)?.code === "ENOENT" || e instanceof NoSuchKey || (e as any)?.name === "NoSuchKey";

export class DocumentIntegrityError extends Error {}

/**
 * Opens a document's bytes and checks them, as they stream, against the size and SHA-256 the
 * database holds. The last chunk is held back until the whole has been hashed, so damaged bytes
 * never reach a reader whole: the stream fails instead (a download is cut short, not completed).
 */
export async function openChecked(store: DocumentStore, doc: { id: string; storageKey: string; sizeBytes: number; sha256: string }): Promise<Readable> {
  const obj = await store.open(doc.storageKey);
  const refuse = (why: string) => {
    obj.stream.destroy();
    return new DocumentIntegrityError(`document ${doc.id} (${doc.storageKey} in ${store.description}): ${why}`);
  };
  if (obj.size !== doc.sizeBytes) throw refuse(`${obj.size} bytes stored, ${doc.sizeBytes} in the database`);
  if (obj.sha256 && obj.sha256 !== doc.sha256) throw refuse(`the store's SHA-256 ${obj.sha256} is not the database's ${doc.sha256}`);
  const hash = createHash("sha256");
  let held: Buffer | null = null;
  let seen = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      hash.update(chunk);
      seen += chunk.length;
      if (held) this.push(held);
      held = chunk;
      done();
    },
    flush(done: TransformCallback) {
      const got = hash.digest("hex");
      if (seen !== doc.sizeBytes || got !== doc.sha256)
        return done(new DocumentIntegrityError(`document ${doc.id} (${doc.storageKey} in ${store.description}): read ${seen} bytes with SHA-256 ${got}, the database has ${doc.sizeBytes} bytes with ${doc.sha256}`));
      if (held) this.push(held);
      done();
    },
  });
  // pipeline, not pipe: a reader that stops early (or a failing check) closes the file or the connection too.
  return pipeline(obj.stream, check, () => {});
}

/** The whole of a document's bytes, checked as above (for backups and migrations). */
export async function readChecked(store: DocumentStore, doc: { id: string; storageKey: string; sizeBytes: number; sha256: string }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await openChecked(store, doc)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDocuments } from "../../api/documents/migrate-documents.js";
import { DocumentIntegrityError, documentStore, isMissingObject, LocalDocumentStore, openChecked, S3DocumentStore, type DocumentStore } from "../../api/documents/storage.js";
import { Client, errorCode, startTestServer, type TestServer } from "../harness.js";

/**
 * The same document tests on both stores: the local folder and an S3-compatible bucket (s3rver, an
 * S3 server in Node, started once for the file). s3rver keeps no SHA-256 of its own, so there the
 * app's check against the database's SHA-256 is what refuses damaged bytes; the requests are
 * checked to carry the checksum a real store (S3, MinIO, Ceph, R2) verifies and keeps.
 */

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1");
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0", "latin1")]);
/** Larger than one read's chunk, so the check spans several. */
const LARGE = Buffer.concat([PDF, Buffer.alloc(300 * 1024, 0x20)]);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const UPLOAD = `mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id sha256 sizeBytes } }`;

const BUCKET = "tapline-documents";
const MIGRATED_BUCKET = "tapline-migrated";
let s3: S3rver;
let s3Dir: string;
let s3Endpoint: string;
const s3Env = (bucket: string) => ({
  DOCUMENT_STORE: "s3",
  S3_BUCKET: bucket,
  S3_ENDPOINT: s3Endpoint,
  S3_FORCE_PATH_STYLE: "1",
  S3_ACCESS_KEY_ID: "S3RVER",
  S3_SECRET_ACCESS_KEY: "S3RVER",
});

const kinds = ["local", "s3"] as const;
const servers = {} as Record<(typeof kinds)[number], TestServer>;

beforeAll(async () => {
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-s3rver-"));
  s3 = new S3rver({ address: "127.0.0.1", port: 0, directory: s3Dir, silent: true });
  const { port } = (await s3.run()) as unknown as { port: number };
  s3Endpoint = `http://127.0.0.1:${port}`;
  const [local, onS3] = await Promise.all([startTestServer(), startTestServer({ env: s3Env(BUCKET) })]);
  servers.local = local;
  servers.s3 = onS3;
  for (const bucket of [BUCKET, MIGRATED_BUCKET]) await (documentStore(onS3.config) as S3DocumentStore).client.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  await s3?.close();
  if (s3Dir) fs.rmSync(s3Dir, { recursive: true, force: true });
});

async function allKeys(store: DocumentStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const k of store.keys()) keys.push(k);
  return keys.sort();
}

async function signedUp(srv: TestServer, email: string): Promise<Client> {
  const c = new Client(srv.url);
  await c.signUp(email);
  return c;
}

const download = (srv: TestServer, id: string, c?: Client) => fetch(`${srv.url}/documents/${id}`, { headers: c ? { cookie: c.cookieHeader } : {} });

describe.each(kinds)("documents kept in the %s store", (kind) => {
  const srv = () => servers[kind];
  const store = () => documentStore(srv().config);

  it("keeps, reads, lists and removes objects by key, and refuses a key the app does not make", async () => {
    expect(store()).toBeInstanceOf(kind === "s3" ? S3DocumentStore : LocalDocumentStore);
    const key = "ab/abcdef01-2345-4678-9abc-def012345678";
    await store().put(key, PNG, sha(PNG), "image/png");
    const obj = await store().open(key);
    const chunks: Buffer[] = [];
    for await (const c of obj.stream) chunks.push(c);
    expect([obj.size, Buffer.concat(chunks).equals(PNG)]).toEqual([PNG.length, true]);
    expect(await allKeys(store())).toContain(key);
    await store().remove(key);
    expect(await allKeys(store())).not.toContain(key);
    const missing = await store().open(key).catch((e) => e);
    expect(isMissingObject(missing)).toBe(true);
    for (const bad of ["../../etc/passwd", "ab/../../x", "AB/ABCDEF01-2345-4678-9abc-def012345678", ""])
      await expect(store().put(bad, PNG, sha(PNG), "image/png")).rejects.toThrow(/malformed document storage key/);
  });

  it("an upload is stored under its key; the owner downloads the same bytes, anyone else gets 404, the signed out 401", async () => {
    const owner = await signedUp(srv(), `owner-${kind}@example.org`);
    const doc = (await owner.ok(UPLOAD, { i: { filename: "plan.pdf", contentBase64: PDF.toString("base64") } })).uploadDocument;
    expect(doc).toMatchObject({ sha256: sha(PDF), sizeBytes: PDF.length });
    const [{ storage_key }] = await srv().running.ds.query(`SELECT storage_key FROM document WHERE id = $1`, [doc.id]);
    const obj = await store().open(storage_key);
    const chunks: Buffer[] = [];
    for await (const c of obj.stream) chunks.push(c);
    expect(Buffer.concat(chunks).equals(PDF)).toBe(true);

    const res = await download(srv(), doc.id, owner);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(PDF.length));
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);

    const other = await signedUp(srv(), `other-${kind}@example.org`);
    const refused = await download(srv(), doc.id, other);
    expect([refused.status, await refused.text()]).toEqual([404, "That document was not found."]);
    expect(errorCode(await other.gql(`query($id: ID!) { document(id: $id) { id } }`, { id: doc.id }))).toBe("NOT_FOUND");
    expect((await download(srv(), doc.id)).status).toBe(401);
  });

  it("a row the database refuses leaves no object behind", async () => {
    const c = await signedUp(srv(), `unlucky-${kind}@example.org`);
    const before = await allKeys(store());
    await srv().running.ds.query(`ALTER TABLE document ADD CONSTRAINT test_refuse CHECK (filename <> 'refused.pdf')`);
    try {
      expect(errorCode(await c.gql(UPLOAD, { i: { filename: "refused.pdf", contentBase64: PDF.toString("base64") } }))).toBe("INTERNAL_SERVER_ERROR");
    } finally {
      await srv().running.ds.query(`ALTER TABLE document DROP CONSTRAINT test_refuse`);
    }
    expect(await allKeys(store())).toEqual(before);
  });

  it("damaged or missing bytes are never served whole: a changed byte cuts the download short, another size or no object is a 500", async () => {
    const owner = await signedUp(srv(), `damaged-${kind}@example.org`);
    const doc = (await owner.ok(UPLOAD, { i: { filename: "lab.pdf", contentBase64: LARGE.toString("base64") } })).uploadDocument;
    const [{ storage_key: key }] = await srv().running.ds.query(`SELECT storage_key FROM document WHERE id = $1`, [doc.id]);
    const damaged = Buffer.from(LARGE);
    damaged[150_000] ^= 0x01;
    try {
      // Same size, one bit changed (put as a store would accept it, with the new bytes' checksum).
      await store().put(key, damaged, sha(damaged), "application/pdf");
      // The first bytes go out as they are read; the last are held back until the whole is hashed,
      // and the connection is cut instead of completing the download.
      const cut = await download(srv(), doc.id, owner);
      expect(cut.status).toBe(200);
      await expect(cut.arrayBuffer()).rejects.toThrow();

      const longer = Buffer.concat([LARGE, Buffer.from(" ")]);
      await store().put(key, longer, sha(longer), "application/pdf");
      const wrongSize = await download(srv(), doc.id, owner);
      expect([wrongSize.status, await wrongSize.text()]).toEqual([500, "Something went wrong on our side. Please try again."]);

      await store().remove(key);
      expect((await download(srv(), doc.id, owner)).status).toBe(500);
    } finally {
      await store().put(key, LARGE, sha(LARGE), "application/pdf");
    }
    const res = await download(srv(), doc.id, owner);
    expect([res.status, Buffer.from(await res.arrayBuffer()).equals(LARGE)]).toEqual([200, true]);

    // A store that keeps its own SHA-256 (S3, MinIO) is believed only when it is the database's.
    const lying: DocumentStore = { ...store(), description: "a store", keys: () => store().keys(), put: () => Promise.reject(), remove: () => Promise.reject(), open: async (k) => ({ ...(await store().open(k)), sha256: sha(damaged) }) };
    await expect(openChecked(lying, { id: doc.id, storageKey: key, sizeBytes: LARGE.length, sha256: sha(LARGE) })).rejects.toThrow(DocumentIntegrityError);
  });
});

describe("the S3 requests", () => {
  it("send each document's SHA-256 for the store to check on receipt, and ask for it back on every read", async () => {
    const store = documentStore(servers.s3.config) as S3DocumentStore;
    const seen: { command: string; headers: Record<string, string> }[] = [];
    const name = "test-capture-headers";
    store.client.middlewareStack.add(
      (next, context) => async (args: any) => {
        seen.push({ command: context.commandName!, headers: { ...args.request.headers } });
        return next(args);
      },
      { step: "finalizeRequest", name },
    );
    try {
      const owner = await signedUp(servers.s3, "checksums@example.org");
      const doc = (await owner.ok(UPLOAD, { i: { filename: "plan.pdf", contentBase64: PDF.toString("base64") } })).uploadDocument;
      expect(Buffer.from(await (await download(servers.s3, doc.id, owner)).arrayBuffer()).equals(PDF)).toBe(true);
    } finally {
      store.client.middlewareStack.remove(name);
    }
    const put = seen.find((s) => s.command === "PutObjectCommand")!;
    expect(put.headers["x-amz-checksum-sha256"]).toBe(Buffer.from(sha(PDF), "hex").toString("base64"));
    expect(put.headers["x-amz-sdk-checksum-algorithm"]).toBe("SHA256");
    expect(seen.find((s) => s.command === "GetObjectCommand")!.headers["x-amz-checksum-mode"]).toBe("ENABLED");
  });
});

describe("npm run migrate-documents", () => {
  it("copies every document from the local folder into a bucket, checking each SHA-256, and names any it could not copy whole", async () => {
    const srv = servers.local;
    const owner = await signedUp(srv, "migrating@example.org");
    for (const [filename, bytes] of [["a.pdf", PDF], ["b.png", PNG], ["c.pdf", PDF]] as const)
      await owner.ok(UPLOAD, { i: { filename, contentBase64: bytes.toString("base64") } });
    const rows: { id: string; storage_key: string; sha256: string }[] = await srv.running.ds.query(`SELECT id, storage_key, sha256 FROM document ORDER BY id`);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const from = documentStore(srv.config);
    const to = new S3DocumentStore({ bucket: MIGRATED_BUCKET, region: "us-east-1", endpoint: s3Endpoint, forcePathStyle: true, credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } });
    // A file no document names stays behind, and is reported.
    const stray = "ff/ffffffff-ffff-4fff-8fff-ffffffffffff";
    await from.put(stray, PDF, sha(PDF), "application/pdf");

    const report = await migrateDocuments(srv.running.ds, from, to);
    expect(report).toEqual({ copied: rows.length, problems: [], unreferenced: [stray] });
    expect(await allKeys(to)).toEqual(rows.map((r) => r.storage_key).sort());
    for (const r of rows) {
      const local = await from.open(r.storage_key);
      const remote = await to.open(r.storage_key);
      const read = async (s: NodeJS.ReadableStream) => {
        const cs: Buffer[] = [];
        for await (const c of s) cs.push(c as Buffer);
        return Buffer.concat(cs);
      };
      const [a, b] = [await read(local.stream), await read(remote.stream)];
      expect([r.id, a.equals(b), sha(b)]).toEqual([r.id, true, r.sha256]);
    }

    // A damaged file in the folder is not copied: the report names it, and the script exits 1.
    const victim = rows[0];
    const file = path.join(srv.config.uploadDir, victim.storage_key);
    const good = fs.readFileSync(file);
    const bad = Buffer.from(good);
    bad[bad.length - 1] ^= 0xff;
    fs.writeFileSync(file, bad);
    try {
      const again = await migrateDocuments(srv.running.ds, from, to);
      expect(again.copied).toBe(rows.length - 1);
      expect(again.problems).toEqual([{ documentId: victim.id, storageKey: victim.storage_key, problem: expect.stringMatching(/^not copied: .*SHA-256/) }]);
    } finally {
      fs.writeFileSync(file, good);
      await from.remove(stray);
    }
  });
});

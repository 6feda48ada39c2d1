import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerDocumentAccess } from "../../api/documents/documents.service.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const MAX = 10 * 1024 * 1024; // the default UPLOAD_MAX_BYTES the harness runs with
const uploadDir = () => path.join(srv.db.dataDir, "uploads");
/** Every file under the upload folder, temporary ones included. */
const storedFiles = (): string[] =>
  fs.existsSync(uploadDir()) ? (fs.readdirSync(uploadDir(), { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(uploadDir(), f)).isFile()) : [];
const documentRows = async (): Promise<number> => (await srv.running.ds.query(`SELECT count(*)::int AS n FROM document`))[0].n;

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1");
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0", "latin1")]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);
const EXE = Buffer.concat([Buffer.from("MZ\x90\0\x03\0\0\0", "latin1"), Buffer.alloc(64, 1)]);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const UPLOAD = `mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id filename contentType sizeBytes sha256 createdAt downloadUrl organizationId } }`;
const upload = (c: Client, filename: string, bytes: Buffer, organizationId?: string) =>
  c.gql(UPLOAD, { i: { filename, contentBase64: bytes.toString("base64"), ...(organizationId ? { organizationId } : {}) } });

function download(id: string, auth: { cookie?: string; bearer?: string } = {}) {
  return fetch(`${srv.url}/documents/${id}`, {
    headers: { ...(auth.cookie ? { cookie: auth.cookie } : {}), ...(auth.bearer ? { authorization: `Bearer ${auth.bearer}` } : {}) },
  });
}
const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

async function signedUp(email: string): Promise<Client> {
  const c = new Client(srv.url);
  await c.signUp(email);
  return c;
}

describe("document uploads", () => {
  it("stores a PDF, a PNG and a JPEG, typed by their content, with their checksum", async () => {
    const owner = await signedUp("uploader@example.org");
    const before = await documentRows();

    const pdf = await upload(owner, "site-plan.pdf", PDF);
    expect(pdf.errors).toBeUndefined();
    expect(pdf.data.uploadDocument).toMatchObject({ filename: "site-plan.pdf", contentType: "application/pdf", sizeBytes: PDF.length, sha256: sha(PDF), organizationId: null });
    expect(pdf.data.uploadDocument.downloadUrl).toBe(`/documents/${pdf.data.uploadDocument.id}`);
    expect(Date.parse(pdf.data.uploadDocument.createdAt)).not.toBeNaN();

    // The name says PDF, the bytes say PNG: the bytes win.
    const png = (await owner.ok(UPLOAD, { i: { filename: "photo.pdf", contentBase64: PNG.toString("base64") } })).uploadDocument;
    expect(png).toMatchObject({ contentType: "image/png", sizeBytes: PNG.length, sha256: sha(PNG) });
    const jpeg = (await owner.ok(UPLOAD, { i: { filename: "lateral.jpg", contentBase64: JPEG.toString("base64") } })).uploadDocument;
    expect(jpeg).toMatchObject({ contentType: "image/jpeg", sha256: sha(JPEG) });

    expect(await documentRows()).toBe(before + 3);
    const mine = (await owner.ok(`{ myDocuments { id filename } }`)).myDocuments;
    expect(mine.map((d: any) => d.id).sort()).toEqual([pdf.data.uploadDocument.id, png.id, jpeg.id].sort());
    expect((await owner.ok(`query($id: ID!) { document(id: $id) { sha256 } }`, { id: png.id })).document.sha256).toBe(sha(PNG));

    // On disk under <2 hex>/<uuid>, identical bytes, no temporary files left over.
    const row = (await srv.running.ds.query(`SELECT storage_key FROM document WHERE id = $1`, [pdf.data.uploadDocument.id]))[0];
    expect(row.storage_key).toMatch(/^([0-9a-f]{2})\/\1[0-9a-f]{6}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(fs.readFileSync(path.join(uploadDir(), row.storage_key)).equals(PDF)).toBe(true);
    expect(storedFiles().filter((f) => f.endsWith(".tmp"))).toEqual([]);

    // Who, what, when: in the audit log.
    const entries = await srv.running.ds.query(`SELECT actor_id, entity_type, details, request_id FROM audit_entry WHERE action = 'document.uploaded' AND entity_id = $1`, [
      pdf.data.uploadDocument.id,
    ]);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entity_type: "Document", details: { filename: "site-plan.pdf", contentType: "application/pdf", sha256: sha(PDF), sizeBytes: PDF.length } });
    expect(entries[0].actor_id).toBe((await owner.ok(`{ me { id } }`)).me.id);
    expect(entries[0].request_id).toBeTruthy();
  });

  it("refuses anything that is not a PDF, PNG or JPEG whatever its name, storing nothing", async () => {
    const c = await signedUp("renamer@example.org");
    const rows = await documentRows();
    const files = storedFiles();
    for (const [name, bytes] of [
      ["invoice.pdf", EXE],
      ["notes.pdf", Buffer.from("just some text, honestly a PDF\n")],
      ["drawing.png", Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>")],
      ["almost.pdf", Buffer.from("%PDF")],
    ] as const) {
      const r = await upload(c, name, bytes);
      expect([name, errorCode(r)]).toEqual([name, "BAD_USER_INPUT"]);
      expect(r.errors![0].message).toMatch(/Upload a PDF, PNG or JPEG file/);
      expect(r.errors![0].extensions!.fields).toHaveProperty("content");
    }
    expect(await documentRows()).toBe(rows);
    expect(storedFiles()).toEqual(files);
  });

  it("refuses invalid base64, an empty file and one over the limit, per field, storing nothing", async () => {
    const c = await signedUp("bulky@example.org");
    const rows = await documentRows();
    const files = storedFiles();

    const bad = await c.gql(UPLOAD, { i: { filename: "x.pdf", contentBase64: "JVBERi0x!!not base64" } });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(bad.errors![0].extensions!.fields!.content).toMatch(/base64/);

    const empty = await c.gql(UPLOAD, { i: { filename: "x.pdf", contentBase64: "" } });
    expect(errorCode(empty)).toBe("BAD_USER_INPUT");
    expect(empty.errors![0].extensions!.fields!.content).toMatch(/empty/);

    // One byte over the limit still fits the request body limit, so the service gives the answer.
    const big = Buffer.alloc(MAX + 1, 0x20);
    PDF.copy(big);
    const over = await upload(c, "huge.pdf", big);
    expect(over.status).toBe(200);
    expect(errorCode(over)).toBe("BAD_USER_INPUT");
    expect(over.errors![0].extensions!.fields!.content).toBe("The file is larger than the 10 MB limit. Upload a smaller file.");

    expect(await documentRows()).toBe(rows);
    expect(storedFiles()).toEqual(files);

    // Exactly at the limit is fine.
    const atLimit = (await c.ok(UPLOAD, { i: { filename: "max.pdf", contentBase64: big.subarray(0, MAX).toString("base64") } })).uploadDocument;
    expect(atLimit).toMatchObject({ sizeBytes: MAX, sha256: sha(big.subarray(0, MAX)) });
    expect((await c.ok(`{ documentUploadPolicy { maxBytes maxSize contentTypes } }`)).documentUploadPolicy).toEqual({
      maxBytes: MAX,
      maxSize: "10 MB",
      contentTypes: ["application/pdf", "image/png", "image/jpeg"],
    });
  });

  it("refuses a 50 MB upload at the door (413), storing nothing", async () => {
    const c = new Client(srv.url);
    await c.signUp("big-plans@example.org");
    const before = await documentRows();
    const filesBefore = storedFiles().length;
    const big = Buffer.concat([PDF, Buffer.alloc(50 * 1024 * 1024 - PDF.length, 0x20)]);
    const res = await c.raw({ query: UPLOAD, variables: { i: { filename: "plans.pdf", contentBase64: big.toString("base64") } } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await documentRows()).toBe(before);
    expect(storedFiles().length).toBe(filesBefore);
  });

  it("cleans the file name: no path, no control characters, at most 200 characters", async () => {
    const c = await signedUp("names@example.org");
    const name = async (filename: string) => (await c.ok(UPLOAD, { i: { filename, contentBase64: PDF.toString("base64") } })).uploadDocument.filename;
    expect(await name("../../etc/pass\u0001wd\r\n.pdf")).toBe("passwd.pdf");
    expect(await name("C:\\fakepath\\report.pdf")).toBe("report.pdf");
    expect(await name("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(await name("..")).toBe("document.pdf");
    const long = await name(`${"a".repeat(300)}.pdf`);
    expect(long).toHaveLength(200);
    expect(long.endsWith(".pdf")).toBe(true);
  });

  it("deletes the file when the database refuses the row", async () => {
    const c = await signedUp("unlucky@example.org");
    const rows = await documentRows();
    const files = storedFiles();
    await srv.running.ds.query(`ALTER TABLE document ADD CONSTRAINT test_refuse CHECK (filename <> 'refused.pdf')`);
    try {
      const r = await upload(c, "refused.pdf", PDF);
      expect(errorCode(r)).toBe("INTERNAL_SERVER_ERROR");
    } finally {
      await srv.running.ds.query(`ALTER TABLE document DROP CONSTRAINT test_refuse`);
    }
    expect(await documentRows()).toBe(rows);
    expect(storedFiles()).toEqual(files);
    expect((await srv.running.ds.query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'document.uploaded' AND details->>'filename' = 'refused.pdf'`))[0].n).toBe(0);
  });
});

describe("document downloads and who may read a document", () => {
  let owner: Client;
  let doc: { id: string; filename: string };
  beforeAll(async () => {
    owner = await signedUp("downloader@example.org");
    doc = (await owner.ok(UPLOAD, { i: { filename: "Plan über Kläranlage \"final\".pdf", contentBase64: PDF.toString("base64") } })).uploadDocument;
  });

  it("the owner downloads identical bytes with safe headers, by cookie or by API token", async () => {
    const res = await download(doc.id, { cookie: owner.cookieHeader });
    expect(res.status).toBe(200);
    expect((await bytesOf(res)).equals(PDF)).toBe(true);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-length")).toBe(String(PDF.length));
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="Plan _ber Kl_ranlage _final_.pdf"; filename*=UTF-8''Plan%20%C3%BCber%20Kl%C3%A4ranlage%20%22final%22.pdf`,
    );

    const png = (await owner.ok(UPLOAD, { i: { filename: "photo.png", contentBase64: PNG.toString("base64") } })).uploadDocument;
    const { createApiToken } = await owner.ok(`mutation { createApiToken(name: "downloads") { token } }`);
    const byToken = await download(png.id, { bearer: createApiToken.token });
    expect(byToken.status).toBe(200);
    expect(byToken.headers.get("content-type")).toBe("image/png");
    expect(byToken.headers.get("content-disposition")).toBe(`attachment; filename="photo.png"`);
    expect((await bytesOf(byToken)).equals(PNG)).toBe(true);
  });

  it("another account gets NOT_FOUND and 404, exactly as for a document that does not exist", async () => {
    const other = await signedUp("nosy@example.org");
    const q = `query($id: ID!) { document(id: $id) { id filename } }`;
    for (const id of [doc.id, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const r = await other.gql(q, { id });
      expect([id, errorCode(r)]).toEqual([id, "NOT_FOUND"]);
      const res = await download(id, { cookie: other.cookieHeader });
      expect([id, res.status]).toEqual([id, 404]);
      expect(await res.text()).toBe("That document was not found.");
    }
    expect((await other.ok(`{ myDocuments { id } }`)).myDocuments).toEqual([]);
  });

  it("signed out gets 401 (and UNAUTHENTICATED from the API)", async () => {
    const anon = new Client(srv.url);
    expect((await download(doc.id)).status).toBe(401);
    expect((await download(doc.id, { bearer: "tap_nonsense" })).status).toBe(401);
    expect((await download(doc.id, { cookie: "tapline_session=forged.value" })).status).toBe(401);
    for (const [q, v] of [
      [`{ myDocuments { id } }`],
      [`{ documentUploadPolicy { maxBytes } }`],
      [`query($id: ID!) { document(id: $id) { id } }`, { id: doc.id }],
      [UPLOAD, { i: { filename: "x.pdf", contentBase64: PDF.toString("base64") } }],
    ] as [string, Record<string, unknown>?][])
      expect([q, errorCode(await anon.gql(q, v))]).toEqual([q, "UNAUTHENTICATED"]);
  });

  it("members of the organization it was uploaded for may read it; others may not upload for it", async () => {
    const boss = await signedUp("boss@septic-haulers.example");
    const { createOrganization: org } = await boss.ok(`mutation { createOrganization(input: { name: "Septic Haulers LLC", kind: "HAULER" }) { id } }`);
    const worker = await signedUp("driver@septic-haulers.example");
    await boss.ok(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { id } }`, { i: { organizationId: org.id, email: "driver@septic-haulers.example", role: "MEMBER" } });
    const mail = (await worker.ok(`{ myEmails { subject bodyText } }`)).myEmails.find((m: any) => /invited you/.test(m.subject));
    await worker.ok(`mutation($t: String!) { acceptInvitation(token: $t) { id } }`, { t: /token=([A-Za-z0-9_-]+)/.exec(mail.bodyText)![1] });

    const licence = (await boss.ok(UPLOAD, { i: { filename: "truck-licence.jpg", contentBase64: JPEG.toString("base64"), organizationId: org.id } })).uploadDocument;
    expect(licence.organizationId).toBe(org.id);
    const personal = (await boss.ok(UPLOAD, { i: { filename: "personal.pdf", contentBase64: PDF.toString("base64") } })).uploadDocument;

    const res = await download(licence.id, { cookie: worker.cookieHeader });
    expect(res.status).toBe(200);
    expect((await bytesOf(res)).equals(JPEG)).toBe(true);
    expect((await worker.ok(`query($id: ID!) { document(id: $id) { filename } }`, { id: licence.id })).document.filename).toBe("truck-licence.jpg");
    // Not the owner's other documents.
    expect((await download(personal.id, { cookie: worker.cookieHeader })).status).toBe(404);

    // Someone outside the organization cannot file documents under it (or learn whether it exists).
    const outsider = await signedUp("outsider@example.org");
    const rows = await documentRows();
    const files = storedFiles();
    for (const organizationId of [org.id, "00000000-0000-4000-8000-000000000000", "nonsense"]) {
      const r = await upload(outsider, "x.pdf", PDF, organizationId);
      expect([organizationId, errorCode(r)]).toEqual([organizationId, "BAD_USER_INPUT"]);
      expect(r.errors![0].extensions!.fields).toHaveProperty("organizationId");
    }
    expect((await download(licence.id, { cookie: outsider.cookieHeader })).status).toBe(404);
    expect(await documentRows()).toBe(rows);
    expect(storedFiles()).toEqual(files);
  });

  it("a registered access rule lets others in (e.g. district staff, for a later feature)", async () => {
    const clerk = new Client(srv.url);
    await clerk.signIn(DEMO.lakeviewClerk);
    expect((await download(doc.id, { cookie: clerk.cookieHeader })).status).toBe(404);
    const unregister = registerDocumentAccess(async (_ds, viewer, d) => d.id === doc.id && viewer.staffRoles.some((r) => r.role === "CLERK"));
    try {
      const res = await download(doc.id, { cookie: clerk.cookieHeader });
      expect(res.status).toBe(200);
      expect((await bytesOf(res)).equals(PDF)).toBe(true);
      expect((await clerk.ok(`query($id: ID!) { document(id: $id) { sha256 } }`, { id: doc.id })).document.sha256).toBe(sha(PDF));
    } finally {
      unregister();
    }
    expect((await download(doc.id, { cookie: clerk.cookieHeader })).status).toBe(404);
  });
});

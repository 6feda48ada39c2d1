import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import type { DataSource, EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { badInput, notFound } from "../common/errors.js";
import type { Config } from "../config.js";
import { queryPrepared } from "../db/prepared.js";
import { membershipOf } from "../organizations/organizations.service.js";
import { Document, type DocumentContentType } from "./document.entity.js";
import { documentStore, newStorageKey, openChecked } from "./storage.js";

/**
 * Uploaded documents (site plans, lab reports, photos). The bytes live in the document store
 * (storage.ts: the local folder, outside the web root, or an S3-compatible bucket), one object per
 * document at `<2 hex>/<uuid>`; the database row holds who owns it, what it is and its checksum.
 * Nobody learns that a document they may not see exists: every refusal is NOT_FOUND.
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_FILENAME_LENGTH = 200;
export const UNSUPPORTED_TYPE_MESSAGE = "Upload a PDF, PNG or JPEG file";

export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** "10 MB", "2.5 MB", "0.001 MB": the limit as people read it. */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  const shown = mb >= 10 ? Math.round(mb * 10) / 10 : Number(mb.toPrecision(mb >= 1 ? 3 : 2));
  return `${shown} MB`;
}

/** The type is read from the first bytes of the file, never from its name or what the client says. */
export function detectContentType(bytes: Buffer): DocumentContentType | null {
  if (bytes.length >= 5 && bytes.subarray(0, 5).toString("latin1") === "%PDF-") return "application/pdf";
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  return null;
}

const DEFAULT_NAMES: Record<DocumentContentType, string> = {
  "application/pdf": "document.pdf",
  "image/png": "image.png",
  "image/jpeg": "image.jpg",
};

/**
 * The name to show and to offer on download: the last path segment (browsers on Windows may send
 * `C:\fakepath\x.pdf`), without control or invisible formatting characters (so no "gpj.exe"
 * right-to-left tricks), at most 200 characters with the extension kept.
 */
export function sanitizeFilename(raw: string, contentType: DocumentContentType): string {
  let name = raw.normalize("NFC").replace(/\p{Cc}|\p{Cf}/gu, "");
  name = name.split(/[/\\]/).pop() ?? "";
  name = name.replace(/\s+/g, " ").trim();
  if (name === "." || name === ".." || /^\.+$/.test(name)) name = "";
  if (!name) return DEFAULT_NAMES[contentType];
  const chars = Array.from(name);
  if (chars.length <= MAX_FILENAME_LENGTH) return name;
  const dot = name.lastIndexOf(".");
  const ext = dot > 0 ? Array.from(name.slice(dot)) : [];
  if (ext.length > 0 && ext.length <= 20) return chars.slice(0, MAX_FILENAME_LENGTH - ext.length).join("").trimEnd() + ext.join("");
  return chars.slice(0, MAX_FILENAME_LENGTH).join("");
}

/** Strict base64 (RFC 4648, standard alphabet); line breaks and spaces are allowed, as in MIME. */
function decodeBase64(input: string): Buffer | null {
  const s = input.replace(/[\r\n\t ]/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  const padded = s.endsWith("=");
  if (padded ? s.length % 4 !== 0 : s.length % 4 === 1) return null;
  const bytes = Buffer.from(s, "base64");
  // Non-zero bits in the last character's unused positions mean it was not produced by an encoder.
  if (bytes.toString("base64").replace(/=+$/, "") !== s.replace(/=+$/, "")) return null;
  return bytes;
}

/** Length in bytes that a base64 text decodes to, without decoding it. */
function decodedLength(input: string): number {
  const s = input.replace(/[\r\n\t =]/g, "");
  return Math.floor((s.length * 3) / 4);
}

export type StoreDocumentInput = { filename: string; contentBase64: string; organizationId?: string | null };

type CheckedUpload = { bytes: Buffer; contentType: DocumentContentType; filename: string; organizationId: string | null; sha256: string };

/** Everything about an upload that can be refused is refused here, before anything is written. */
async function checkUpload(ds: DataSource, config: Config, viewer: Viewer, input: StoreDocumentInput, field: string): Promise<CheckedUpload> {
  const limit = `The file is larger than the ${formatMegabytes(config.uploadMaxBytes)} limit. Upload a smaller file.`;
  // Refuse an obviously oversize upload before decoding it.
  if (decodedLength(input.contentBase64) > config.uploadMaxBytes) throw badInput({ [field]: limit }, limit);
  const bytes = decodeBase64(input.contentBase64);
  if (!bytes) throw badInput({ [field]: "The file could not be read: its content must be base64-encoded." });
  if (bytes.length === 0) throw badInput({ [field]: "The file is empty. Choose a file that has content." });
  if (bytes.length > config.uploadMaxBytes) throw badInput({ [field]: limit }, limit);
  const contentType = detectContentType(bytes);
  if (!contentType) throw badInput({ [field]: `${UNSUPPORTED_TYPE_MESSAGE}.` }, `${UNSUPPORTED_TYPE_MESSAGE}.`);
  const filename = sanitizeFilename(String(input.filename ?? ""), contentType);

  const organizationId = input.organizationId?.trim() || null;
  if (organizationId) {
    // Same answer whether the organization does not exist or the viewer is not in it.
    const member = isUuid(organizationId) ? await membershipOf(ds, viewer.userId, organizationId) : null;
    if (!member) throw badInput({ organizationId: "Choose one of your organizations, or none." });
  }
  return { bytes, contentType, filename, organizationId, sha256: createHash("sha256").update(bytes).digest("hex") };
}

export async function storeDocument(ds: DataSource, config: Config, viewer: Viewer, input: StoreDocumentInput, requestId?: string): Promise<Document> {
  return storeDocumentsWith(ds, config, viewer, [input], requestId, async (_tx, [doc]) => doc, "content");
}

/**
 * Stores uploads and, in the same transaction as their rows, whatever uses them (a form that
 * attaches them): when the form is refused, no document is left behind unattached. Every upload is
 * checked before any file is written; the files are removed again if the transaction fails.
 * Errors name `field` (the form's upload field), or `field.N` when there are several.
 */
export async function storeDocumentsWith<T>(
  ds: DataSource,
  config: Config,
  viewer: Viewer,
  inputs: StoreDocumentInput[],
  requestId: string | undefined,
  work: (tx: EntityManager, docs: Document[]) => Promise<T>,
  field = "content",
): Promise<T> {
  const checked: CheckedUpload[] = [];
  for (const [i, input] of inputs.entries()) checked.push(await checkUpload(ds, config, viewer, input, inputs.length > 1 ? `${field}.${i}` : field));
  const store = documentStore(config);
  const keys: string[] = [];
  try {
    // The bytes are stored before the rows commit, so no row ever names bytes that are not there.
    for (const u of checked) {
      const storageKey = newStorageKey();
      keys.push(storageKey);
      await store.put(storageKey, u.bytes, u.sha256, u.contentType);
    }
    return await ds.transaction(async (tx) => {
      const docs: Document[] = [];
      for (const [i, u] of checked.entries()) {
        const doc = await tx.save(
          tx.create(Document, { ownerId: viewer.userId, organizationId: u.organizationId, filename: u.filename, contentType: u.contentType, sizeBytes: u.bytes.length, sha256: u.sha256, storageKey: keys[i] }),
        );
        await audit(
          tx,
          { userId: viewer.userId, requestId },
          {
            action: "document.uploaded",
            entityType: "Document",
            entityId: doc.id,
            details: { filename: u.filename, contentType: u.contentType, sizeBytes: u.bytes.length, sha256: u.sha256, organizationId: u.organizationId },
          },
        );
        docs.push(doc);
      }
      return work(tx, docs);
    });
  } catch (e) {
    // No row, no file: a refused upload or form leaves nothing behind.
    for (const key of keys) await store.remove(key).catch(() => {});
    throw e;
  }
}

/** A rule that lets someone other than the owner and the organization's members see a document. */
export type DocumentAccessRule = (ds: DataSource, viewer: Viewer, doc: Document) => Promise<boolean>;
const accessRules: DocumentAccessRule[] = [];

/**
 * Later features grant access here, e.g. permits: "staff of the district a permit application was
 * filed with may read the documents attached to it". Rules are only ever additive.
 */
export function registerDocumentAccess(rule: DocumentAccessRule): () => void {
  accessRules.push(rule);
  return () => {
    const i = accessRules.indexOf(rule);
    if (i >= 0) accessRules.splice(i, 1);
  };
}

export async function mayReadDocument(ds: DataSource, viewer: Viewer, doc: Document): Promise<boolean> {
  if (doc.ownerId === viewer.userId) return true;
  if (doc.organizationId && (await membershipOf(ds, viewer.userId, doc.organizationId))) return true;
  for (const rule of accessRules) if (await rule(ds, viewer, doc)) return true;
  return false;
}

/** A document's details, if the viewer may see it; NOT_FOUND otherwise, whether or not it exists. */
export async function getDocument(ds: DataSource, viewer: Viewer, id: string): Promise<Document> {
  const doc = isUuid(id) ? await ds.getRepository(Document).findOne({ where: { id } }) : null;
  if (!doc || !(await mayReadDocument(ds, viewer, doc))) throw notFound("That document");
  return doc;
}

/**
 * The document's details and its bytes as a stream, if the viewer may see it. The stream is checked
 * against the size and SHA-256 in the database as it is read (storage.ts, `openChecked`).
 */
export async function readDocument(ds: DataSource, config: Config, viewer: Viewer, id: string): Promise<{ document: Document; stream: Readable }> {
  const document = await getDocument(ds, viewer, id);
  return { document, stream: await openChecked(documentStore(config), document) };
}

/** The documents the viewer uploaded, newest first. */
/** Whether every one of these documents is the person's own upload (one query): a form attaches only them. */
export async function allOwnedBy(db: DataSource | EntityManager, ids: readonly string[], ownerId: string): Promise<boolean> {
  const unique = [...new Set(ids)];
  if (!unique.length) return true;
  if (!unique.every(isUuid)) return false;
  const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM document WHERE id = ANY($1::uuid[]) AND owner_id = $2`, [unique, ownerId]);
  return n === unique.length;
}

/**
 * The person's own documents, newest first. A constant prepared statement (the permit form asks for
 * them on every visit; building TypeORM's find was a few percent of that page's CPU, issue 20).
 */
export async function listMyDocuments(ds: DataSource, viewer: Viewer): Promise<Document[]> {
  const rows: any[] = await queryPrepared(
    ds,
    `SELECT id, owner_id, organization_id, filename, content_type, size_bytes, sha256, storage_key, created_at
       FROM document WHERE owner_id = $1 ORDER BY created_at DESC, id`,
    [viewer.userId],
  );
  return rows.map((r) =>
    Object.assign(new Document(), {
      id: r.id,
      ownerId: r.owner_id,
      organizationId: r.organization_id,
      filename: r.filename,
      contentType: r.content_type,
      sizeBytes: r.size_bytes,
      sha256: r.sha256,
      storageKey: r.storage_key,
      createdAt: r.created_at,
    }),
  );
}

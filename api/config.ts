import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v));

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default("0.0.0.0"),
    PUBLIC_URL: optionalString.pipe(z.string().url().optional()),
    DATABASE_URL: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
        .optional(),
    ),
    TAPLINE_DATA_DIR: z.string().default("./data"),
    SESSION_SECRET: optionalString.pipe(z.string().min(32, "must be at least 32 characters").optional()),
    /** demo mode loads the demo accounts; never in production */
    TAPLINE_DEMO: z.enum(["0", "1", "true", "false"]).optional(),
    STRIPE_SECRET_KEY: optionalString,
    STRIPE_WEBHOOK_SECRET: optionalString,
    /** the signing secret of the Connect webhook endpoint (events of the districts' own Stripe accounts) */
    STRIPE_CONNECT_WEBHOOK_SECRET: optionalString,
    /** tests only: where the Stripe client sends API calls, e.g. http://127.0.0.1:12111 (a local stand-in) */
    STRIPE_API_BASE: optionalString.pipe(
      z
        .string()
        .url()
        .regex(/^https?:\/\/[^/]+\/?$/, "must be http(s)://host[:port] with no path")
        .optional(),
    ),
    SMTP_HOST: optionalString,
    SMTP_PORT: z.coerce.number().int().positive().default(587),
    SMTP_USER: optionalString,
    SMTP_PASSWORD: optionalString,
    SMTP_FROM: z.string().default("Tapline <no-reply@tapline.local>"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(10 * 1024 * 1024),
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(0),
    /** where uploaded documents' bytes live: the local folder, or an S3-compatible bucket */
    DOCUMENT_STORE: z.enum(["local", "s3"]).default("local"),
    S3_BUCKET: optionalString,
    S3_REGION: optionalString,
    S3_ENDPOINT: optionalString.pipe(z.string().url().regex(/^https?:\/\//, "must be an http:// or https:// URL").optional()),
    S3_FORCE_PATH_STYLE: z.enum(["0", "1", "true", "false"]).optional(),
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
  });

export type Config = {
  env: "development" | "production" | "test";
  production: boolean;
  demo: boolean;
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl?: string;
  dataDir: string;
  sessionSecret: string;
  stripe?: { secretKey: string; webhookSecret: string; connectWebhookSecret?: string; api?: { host: string; port: number; protocol: "http" | "https" } };
  smtp?: { host: string; port: number; user?: string; password?: string; from: string };
  smtpFrom: string;
  logLevel: string;
  uploadMaxBytes: number;
  /** On SIGTERM, how long /healthz says "draining" before the port closes (docs/deploy.md). */
  shutdownDrainMs: number;
  uploadDir: string;
  /** Where documents' bytes are kept (api/documents/storage.ts); the local folder is uploadDir. */
  documentStore: DocumentStoreSettings;
  /**
   * Express's `trust proxy`: the number of proxies in front (hops believed from the right of
   * X-Forwarded-For), or the addresses and subnets whose X-Forwarded-For is believed; `req.ip`, and
   * so the per-address limits, is the client that header names.
   */
  trustProxy: number | string[];
};

/**
 * An S3-compatible bucket (AWS S3, MinIO, Ceph, Cloudflare R2): `endpoint` for anything but AWS,
 * path-style addressing (`endpoint/bucket/key`) for MinIO and most self-hosted stores, and keys
 * given here or taken from the AWS SDK's usual sources (AWS_* variables, an instance role).
 */
export type S3Settings = {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
};
export type DocumentStoreSettings = { kind: "local"; dir: string } | ({ kind: "s3" } & S3Settings);

export class ConfigError extends Error {}

/**
 * The mode the libraries run in. React, graphql-js, Remix and Express pick their builds from
 * NODE_ENV when they are loaded, which is not the same thing as the deployment's mode (NODE_ENV,
 * read by loadConfig: secrets required, demo off): `npm start` runs their production builds however
 * it is deployed and whether the demo is on or off (development builds are several times slower);
 * `npm run dev` (TAPLINE_DEV=1) their development builds, for React's warnings and Vite's reloading;
 * the tests keep `test`.
 */
export function librariesMode(source: Record<string, string | undefined> = process.env): "production" | "development" | "test" {
  if (source.NODE_ENV === "test") return "test";
  return source.TAPLINE_DEV === "1" ? "development" : "production";
}

/** Reads and validates the environment; throws one error naming every bad or missing variable. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(source);
  // Rules across variables are checked on the raw values too, so one message names every problem.
  const blank = (k: string) => !source[k] || !String(source[k]).trim();
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join(".") || "(environment)"}: ${i.message}`);
  if (source.NODE_ENV === "production") {
    if (blank("SESSION_SECRET")) lines.push("  SESSION_SECRET: is required when NODE_ENV=production");
    if (blank("PUBLIC_URL")) lines.push("  PUBLIC_URL: is required when NODE_ENV=production");
    if (/^http:/i.test(String(source.STRIPE_API_BASE ?? "").trim())) lines.push("  STRIPE_API_BASE: must be https:// when NODE_ENV=production (it carries the Stripe secret key)");
  }
  const trustProxy = parseTrustProxy(source.TRUST_PROXY);
  if (typeof trustProxy === "string") lines.push(`  TRUST_PROXY: ${trustProxy}`);
  if (blank("STRIPE_SECRET_KEY") !== blank("STRIPE_WEBHOOK_SECRET"))
    lines.push(`  ${blank("STRIPE_SECRET_KEY") ? "STRIPE_SECRET_KEY" : "STRIPE_WEBHOOK_SECRET"}: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together or not at all`);
  if (!blank("STRIPE_CONNECT_WEBHOOK_SECRET") && blank("STRIPE_SECRET_KEY")) lines.push("  STRIPE_CONNECT_WEBHOOK_SECRET: is set only with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET");
  if (source.DOCUMENT_STORE === "s3" && blank("S3_BUCKET")) lines.push("  S3_BUCKET: is required when DOCUMENT_STORE=s3");
  if (blank("S3_ACCESS_KEY_ID") !== blank("S3_SECRET_ACCESS_KEY"))
    lines.push(`  ${blank("S3_ACCESS_KEY_ID") ? "S3_ACCESS_KEY_ID" : "S3_SECRET_ACCESS_KEY"}: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all`);
  if (!parsed.success || lines.length) throw new ConfigError(`Tapline cannot start: the environment has problems:\n${lines.join("\n")}`);
  const e = parsed.data;
  const production = e.NODE_ENV === "production";
  const dataDir = path.resolve(e.TAPLINE_DATA_DIR);
  const demo = !production && e.TAPLINE_DEMO !== "0" && e.TAPLINE_DEMO !== "false";
  return {
    env: e.NODE_ENV,
    production,
    demo,
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
    databaseUrl: e.DATABASE_URL,
    dataDir,
    sessionSecret: e.SESSION_SECRET ?? devSessionSecret(dataDir),
    stripe: e.STRIPE_SECRET_KEY
      ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET!, connectWebhookSecret: e.STRIPE_CONNECT_WEBHOOK_SECRET, api: e.STRIPE_API_BASE ? stripeApi(e.STRIPE_API_BASE) : undefined }
      : undefined,
    smtp: e.SMTP_HOST
      ? { host: e.SMTP_HOST, port: e.SMTP_PORT, user: e.SMTP_USER, password: e.SMTP_PASSWORD, from: e.SMTP_FROM }
      : undefined,
    smtpFrom: e.SMTP_FROM,
    logLevel: e.LOG_LEVEL,
    uploadMaxBytes: e.UPLOAD_MAX_BYTES,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    uploadDir: path.join(dataDir, "uploads"),
    documentStore: e.DOCUMENT_STORE === "s3" ? { kind: "s3", ...s3Settings(e) } : { kind: "local", dir: path.join(dataDir, "uploads") },
    trustProxy: trustProxy as number | string[],
  };
}

/** The names Express (proxy-addr) gives to address ranges. */
const TRUST_PROXY_NAMES = ["loopback", "linklocal", "uniquelocal"];

/**
 * TRUST_PROXY as Express's `trust proxy` value, or what is wrong with it. Unset: "loopback" (a
 * proxy on the same machine). A whole number n: the n proxies nearest the app are believed,
 * whatever their address (0 or "false": none). Otherwise a comma-separated list of IP addresses,
 * subnets (address/prefix length, or IPv4 address/netmask) and the names loopback (127.0.0.1/8,
 * ::1), linklocal (169.254.0.0/16, fe80::/10) and uniquelocal (10.0.0.0/8, 172.16.0.0/12,
 * 192.168.0.0/16, fc00::/7). "true" (believe every address) is refused: any client could then
 * name its own address and get past the per-address limits.
 */
export function parseTrustProxy(value: string | undefined): number | string[] | string {
  if (value === undefined) return ["loopback"];
  const v = value.trim();
  const expected = "give the number of proxies in front of Tapline (e.g. 1), or their addresses or subnets, comma-separated (e.g. 10.0.0.5, 172.16.0.0/12, loopback)";
  if (v === "") return `is empty: leave it out for the default (loopback), use 0 to believe no proxy, or ${expected}`;
  if (v.toLowerCase() === "true") return `"true" would believe any client's X-Forwarded-For, so anyone could pick the address the sign-in limits count; ${expected}`;
  if (v.toLowerCase() === "false") return 0;
  if (/^\d+$/.test(v)) return Number(v);
  const items = v.split(",").map((x) => x.trim());
  const bad = items.filter((x) => !isTrustItem(x));
  if (bad.length) return `${bad.map((b) => (b ? JSON.stringify(b) : "an empty entry")).join(", ")} ${bad.length > 1 ? "are not addresses, subnets or names" : "is not an address, a subnet or a name"} Express knows; ${expected}`;
  return items;
}

function isTrustItem(item: string): boolean {
  if (TRUST_PROXY_NAMES.includes(item)) return true;
  const slash = item.indexOf("/");
  const address = slash < 0 ? item : item.slice(0, slash);
  const family = isIP(address);
  if (!family) return false;
  if (slash < 0) return true;
  const range = item.slice(slash + 1);
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  // An IPv4 netmask: ones then zeros.
  if (family !== 4 || isIP(range) !== 4) return false;
  const bits = range.split(".").map((o) => Number(o).toString(2).padStart(8, "0")).join("");
  return /^1*0*$/.test(bits);
}

/** The bucket the S3_* variables name (S3_BUCKET checked by the caller). */
export function s3Settings(e: { S3_BUCKET?: string; S3_REGION?: string; S3_ENDPOINT?: string; S3_FORCE_PATH_STYLE?: string; S3_ACCESS_KEY_ID?: string; S3_SECRET_ACCESS_KEY?: string }): S3Settings {
  return {
    bucket: e.S3_BUCKET!,
    // The SDK needs a region even for stores that have none (MinIO takes any; R2 wants "auto").
    region: e.S3_REGION ?? "us-east-1",
    endpoint: e.S3_ENDPOINT,
    forcePathStyle: e.S3_FORCE_PATH_STYLE === "1" || e.S3_FORCE_PATH_STYLE === "true",
    credentials: e.S3_ACCESS_KEY_ID ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY! } : undefined,
  };
}

/** STRIPE_API_BASE ("http://127.0.0.1:12111") as the Stripe client's host, port and protocol. */
function stripeApi(base: string): { host: string; port: number; protocol: "http" | "https" } {
  const u = new URL(base);
  const protocol = u.protocol === "http:" ? "http" : "https";
  return { host: u.hostname, port: u.port ? Number(u.port) : protocol === "http" ? 80 : 443, protocol };
}

/** Outside production the secret is generated once and kept in the data folder. */
function devSessionSecret(dataDir: string): string {
  const file = path.join(dataDir, "session-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString("base64url");
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

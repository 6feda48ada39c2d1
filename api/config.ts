import { randomBytes } from "node:crypto";
import fs from "node:fs";
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
  stripe?: { secretKey: string; webhookSecret: string; api?: { host: string; port: number; protocol: "http" | "https" } };
  smtp?: { host: string; port: number; user?: string; password?: string; from: string };
  smtpFrom: string;
  logLevel: string;
  uploadMaxBytes: number;
  uploadDir: string;
};

export class ConfigError extends Error {}

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
  if (blank("STRIPE_SECRET_KEY") !== blank("STRIPE_WEBHOOK_SECRET"))
    lines.push(`  ${blank("STRIPE_SECRET_KEY") ? "STRIPE_SECRET_KEY" : "STRIPE_WEBHOOK_SECRET"}: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together or not at all`);
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
      ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET!, api: e.STRIPE_API_BASE ? stripeApi(e.STRIPE_API_BASE) : undefined }
      : undefined,
    smtp: e.SMTP_HOST
      ? { host: e.SMTP_HOST, port: e.SMTP_PORT, user: e.SMTP_USER, password: e.SMTP_PASSWORD, from: e.SMTP_FROM }
      : undefined,
    smtpFrom: e.SMTP_FROM,
    logLevel: e.LOG_LEVEL,
    uploadMaxBytes: e.UPLOAD_MAX_BYTES,
    uploadDir: path.join(dataDir, "uploads"),
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

import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("configuration from the environment", () => {
  it("names every bad or missing variable at once", () => {
    let err: unknown;
    try {
      loadConfig({ NODE_ENV: "production", PORT: "eighty", DATABASE_URL: "mysql://x", STRIPE_SECRET_KEY: "sk_test_1" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    for (const v of ["PORT", "DATABASE_URL", "SESSION_SECRET", "PUBLIC_URL", "STRIPE_WEBHOOK_SECRET"]) expect(msg).toContain(v);
  });

  it("never runs demo mode in production", () => {
    const c = loadConfig({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(40), PUBLIC_URL: "https://sewer.example.gov", TAPLINE_DEMO: "1", TAPLINE_DATA_DIR: "/tmp/tapline-cfg" });
    expect(c.demo).toBe(false);
    expect(c.production).toBe(true);
  });

  it("generates and keeps a session secret in the data folder outside production", () => {
    const dir = `/tmp/tapline-cfg-${process.pid}`;
    const a = loadConfig({ TAPLINE_DATA_DIR: dir });
    const b = loadConfig({ TAPLINE_DATA_DIR: dir });
    expect(a.sessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(b.sessionSecret).toBe(a.sessionSecret);
  });
});

import express from "express";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseTrustProxy } from "./config.js";

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

  describe("TRUST_PROXY", () => {
    const base = { TAPLINE_DATA_DIR: `/tmp/tapline-cfg-${process.pid}` };
    const trust = (v?: string) => loadConfig({ ...base, ...(v === undefined ? {} : { TRUST_PROXY: v }) }).trustProxy;
    const problem = (v: string) => {
      try {
        loadConfig({ ...base, TRUST_PROXY: v });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error(`TRUST_PROXY=${v} was accepted`);
    };

    it("is a proxy on the same machine (loopback) when unset", () => {
      expect(trust()).toEqual(["loopback"]);
    });

    it("takes a number of proxies, or addresses, subnets and Express's names", () => {
      expect(trust("1")).toBe(1);
      expect(trust(" 2 ")).toBe(2);
      expect(trust("0")).toBe(0);
      expect(trust("false")).toBe(0);
      expect(trust("10.0.0.5")).toEqual(["10.0.0.5"]);
      expect(trust("loopback, uniquelocal")).toEqual(["loopback", "uniquelocal"]);
      expect(trust("172.16.0.0/12,192.168.0.0/255.255.0.0, fd00::/8, ::1, linklocal")).toEqual(["172.16.0.0/12", "192.168.0.0/255.255.0.0", "fd00::/8", "::1", "linklocal"]);
    });

    it("refuses at start, with a message naming the setting and what it takes", () => {
      for (const bad of ["", "  ", "proxy.example.org", "10.0.0.0/33", "fd00::/129", "10.0.0.0/255.0.255.0", "10.0.0.5,,loopback", "1, loopback", "-1", "1.5", "localhost"]) {
        const msg = problem(bad);
        expect(msg).toMatch(/^Tapline cannot start: the environment has problems:\n  TRUST_PROXY: /);
        expect(msg).toMatch(/number of proxies/);
      }
      expect(problem("proxy.example.org, 10.0.0.0/40")).toContain(`"proxy.example.org", "10.0.0.0/40" are not addresses`);
    });

    it("refuses true: every client could name its own address", () => {
      expect(problem("true")).toMatch(/TRUST_PROXY: "true" would believe any client's X-Forwarded-For/);
      expect(problem("TRUE")).toMatch(/TRUST_PROXY/);
    });

    it("accepts only what Express accepts, and Express reads it as meant", () => {
      for (const v of ["1", "0", "false", "10.0.0.5", "loopback, uniquelocal", "172.16.0.0/12,192.168.0.0/255.255.0.0, fd00::/8, ::1, linklocal", "::ffff:10.0.0.1"]) {
        const value = parseTrustProxy(v);
        expect(typeof value).not.toBe("string");
        const app = express();
        expect(() => app.set("trust proxy", value)).not.toThrow();
      }
      const fn = (v: string) => {
        const app = express();
        app.set("trust proxy", parseTrustProxy(v));
        return app.get("trust proxy fn") as (addr: string, i: number) => boolean;
      };
      expect(fn("uniquelocal")("172.18.0.1", 0)).toBe(true);
      expect(fn("uniquelocal")("203.0.113.9", 0)).toBe(false);
      expect(fn("loopback")("127.0.0.1", 0)).toBe(true);
      expect(fn("10.1.0.0/16")("10.1.2.3", 0)).toBe(true);
      expect(fn("10.1.0.0/16")("10.2.0.1", 0)).toBe(false);
      expect(fn("1")("203.0.113.9", 0)).toBe(true);
      expect(fn("1")("203.0.113.9", 1)).toBe(false);
      expect(fn("0")("127.0.0.1", 0)).toBe(false);
    });
  });
});

import { beforeEach, describe, expect, it } from "vitest";
import { clearMicroCache, microCached, MICRO_CACHE_MS } from "./micro-cache.js";

describe("micro-cache", () => {
  beforeEach(() => clearMicroCache());
  const counter = () => {
    let n = 0;
    return { fn: async () => ++n, calls: () => n };
  };

  it("computes a key once while fresh, shared by concurrent callers", async () => {
    const c = counter();
    const [a, b] = await Promise.all([microCached("k", c.fn, 0), microCached("k", c.fn, 10)]);
    expect([a, b, await microCached("k", c.fn, MICRO_CACHE_MS - 1)]).toEqual([1, 1, 1]);
    expect(c.calls()).toBe(1);
  });

  it("serves the old answer once it is stale while the fresh one is computed, then the fresh one", async () => {
    const c = counter();
    await microCached("k", c.fn, 0);
    // stale: both get the old answer at once, and one refresh runs
    expect(await Promise.all([microCached("k", c.fn, MICRO_CACHE_MS + 1), microCached("k", c.fn, MICRO_CACHE_MS + 2)])).toEqual([1, 1]);
    await new Promise((r) => setTimeout(r, 0));
    expect(await microCached("k", c.fn, MICRO_CACHE_MS + 3)).toBe(2);
    expect(c.calls()).toBe(2);
  });

  it("waits for a fresh answer after a clear or when the old one is far too old", async () => {
    const c = counter();
    await microCached("k", c.fn, 0);
    clearMicroCache();
    expect(await microCached("k", c.fn, 1)).toBe(2);
    expect(await microCached("k", c.fn, 100 * MICRO_CACHE_MS)).toBe(3);
  });

  it("never keeps an error", async () => {
    let fail = true;
    const fn = async () => {
      if (fail) throw new Error("down");
      return "ok";
    };
    await expect(microCached("e", fn, 0)).rejects.toThrow("down");
    fail = false;
    expect(await microCached("e", fn, 1)).toBe("ok");
  });
});

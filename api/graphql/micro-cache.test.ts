import { describe, expect, it } from "vitest";
import { MICRO_CACHE_MS, clearMicroCache, microCached } from "./micro-cache.js";

describe("micro-cache for hot lists", () => {
  it("answers from cache within its lifetime, recomputes after, and never keeps errors", async () => {
    clearMicroCache();
    let calls = 0;
    const f = async () => ++calls;
    expect(await microCached("k", f, 1000)).toBe(1);
    expect(await microCached("k", f, 1000 + MICRO_CACHE_MS - 1)).toBe(1);
    expect(await microCached("k", f, 1000 + MICRO_CACHE_MS)).toBe(2);
    clearMicroCache();
    expect(await microCached("k", f, 1000 + MICRO_CACHE_MS)).toBe(3);
    await expect(microCached("e", async () => Promise.reject(new Error("db down")), 5000)).rejects.toThrow("db down");
    await new Promise((r) => setTimeout(r, 0));
    expect(await microCached("e", async () => "ok", 5001)).toBe("ok");
  });
});

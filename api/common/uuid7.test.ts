import { describe, expect, it } from "vitest";
import { uuid7 } from "./uuid7.js";

describe("uuid7", () => {
  it("is a version 7, variant 10 UUID whose first 48 bits are the milliseconds", () => {
    const t = Date.UTC(2026, 10, 30, 17, 0, 0, 123);
    const id = uuid7(t);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(t);
  });

  it("sorts by time and does not repeat", () => {
    const a = uuid7(1_000_000);
    const b = uuid7(1_000_001);
    expect(a < b).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => uuid7(5))).size).toBe(1000);
  });
});

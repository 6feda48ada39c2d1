import { afterEach, describe, expect, it } from "vitest";
import { advanceClock, clock, DAY_MS, resetClock, travelTo } from "./clock.js";
import { dateIn, daysLeft } from "./dates.js";

describe("the rules' clock", () => {
  afterEach(() => resetClock());

  it("moves the dates the rules read, and runs on from where it was set", () => {
    travelTo("2027-02-28T17:00:00Z");
    expect(dateIn("America/New_York")).toBe("2027-02-28");
    advanceClock(DAY_MS);
    expect(dateIn("America/New_York")).toBe("2027-03-01");
    expect(daysLeft("2027-03-15", "America/New_York")).toBe(14);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse("2027-03-01T17:00:00Z"));
  });

  it("goes back to real time", () => {
    travelTo("2030-01-01T00:00:00Z");
    resetClock();
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(1000);
  });
});

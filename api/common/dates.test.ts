import { describe, expect, it } from "vitest";
import { addCalendarDays, calendarDeadline, dateIn, daysLeft, endOfDay, isCalendarDate, zonedInstant, zonedWallTime } from "./dates.js";

const NY = "America/New_York";

describe("calendar-day deadlines in the district's time zone", () => {
  it("counts a 15-day petition window from the day of service in New York, not UTC (SUL 1104)", () => {
    // Served 9 pm on 1 March in New York = 02:00 UTC on 2 March.
    const served = new Date("2026-03-02T02:00:00Z");
    expect(dateIn(NY, served)).toBe("2026-03-01");
    expect(calendarDeadline(served, 15, NY)).toBe("2026-03-16");
  });

  it("is not shifted by the change to daylight saving time", () => {
    expect(addCalendarDays("2026-03-07", 10)).toBe("2026-03-17");
    expect(endOfDay("2026-03-08", NY).toISOString()).toBe("2026-03-09T04:00:00.000Z"); // EDT midnight
    expect(endOfDay("2026-01-15", NY).toISOString()).toBe("2026-01-16T05:00:00.000Z"); // EST midnight
  });

  it("shows days left: 0 on the last day, negative after", () => {
    expect(daysLeft("2026-11-30", NY, new Date("2026-11-30T23:00:00Z"))).toBe(0);
    expect(daysLeft("2026-11-30", NY, new Date("2026-12-01T06:00:00Z"))).toBe(-1);
    expect(daysLeft("2026-12-10", NY, new Date("2026-11-30T12:00:00Z"))).toBe(10);
  });

  it("accepts only real dates", () => {
    expect(isCalendarDate("2028-02-29")).toBe(true);
    expect(isCalendarDate("2026-02-29")).toBe(false);
    expect(isCalendarDate("2026-2-1")).toBe(false);
  });

  it("reads a wall-clock time in the zone on both sides of each daylight-saving change, in any order (offsets are remembered)", () => {
    const wall = (s: string) => Date.parse(`${s}:00Z`);
    const cases: [string, string, string][] = [
      [NY, "2026-03-08T01:59", "2026-03-08T06:59:00.000Z"], // EST, the last minute before the change
      [NY, "2026-03-08T03:00", "2026-03-08T07:00:00.000Z"], // EDT
      [NY, "2026-11-01T00:59", "2026-11-01T04:59:00.000Z"],
      [NY, "2026-11-01T02:00", "2026-11-01T07:00:00.000Z"], // EST again
      [NY, "2026-07-01T12:00", "2026-07-01T16:00:00.000Z"],
      ["Asia/Kathmandu", "2026-07-01T12:00", "2026-07-01T06:15:00.000Z"], // +05:45
      ["Australia/Lord_Howe", "2026-01-10T12:00", "2026-01-10T01:00:00.000Z"], // +11:00 in its summer
      ["Australia/Lord_Howe", "2026-07-10T12:00", "2026-07-10T01:30:00.000Z"], // +10:30
    ];
    for (let pass = 0; pass < 2; pass++)
      for (const [zone, local, utc] of pass ? [...cases].reverse() : cases) expect(zonedWallTime(wall(local), zone).toISOString(), `${zone} ${local}`).toBe(utc);
  });

  it("reads a form's or a CSV's time on the district's clock, an ISO instant as it is, and refuses times that are none", () => {
    expect(zonedInstant("2026-11-12T09:00", NY)?.toISOString()).toBe("2026-11-12T14:00:00.000Z");
    expect(zonedInstant(" 2026-11-12 09:00:30 ", NY)?.toISOString()).toBe("2026-11-12T14:00:30.000Z");
    expect(zonedInstant("2026-11-12T09:00:00Z", NY)?.toISOString()).toBe("2026-11-12T09:00:00.000Z");
    expect(zonedInstant("2026-11-12T09:00+01:00", NY)?.toISOString()).toBe("2026-11-12T08:00:00.000Z");
    for (const bad of ["2026-11-31T09:00", "2026-13-01T09:00", "2026-11-12T24:00", "2026-11-12T09:60", "next tuesday", "", null, undefined])
      expect(zonedInstant(bad, NY), String(bad)).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { addCalendarDays, calendarDeadline, dateIn, daysLeft, endOfDay, isCalendarDate } from "./dates.js";

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
});

import { describe, expect, it } from "vitest";
import { addCalendarDays, addMonths, calendarDeadline, dateIn, daysBetween, daysLeft, endOfDay, isCalendarDate, termLastDay, zonedInstant, zonedWallTime } from "./dates.js";

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

describe("months, and terms of months (SUL 802: a hauler licence is for one year)", () => {
  it("adds months as interest, compliance schedules, permit terms and SNC periods count them: the same day, or the month's last day", () => {
    const cases: [string, number, string][] = [
      ["2027-01-31", 1, "2027-02-28"],
      ["2028-01-31", 1, "2028-02-29"],
      ["2027-01-29", 1, "2027-02-28"],
      ["2027-01-28", 1, "2027-02-28"],
      ["2027-01-31", 2, "2027-03-31"], // counted from the start, not month by month
      ["2027-05-31", 1, "2027-06-30"],
      ["2027-03-31", -1, "2027-02-28"],
      ["2027-12-15", 1, "2028-01-15"],
      ["2027-01-15", -1, "2026-12-15"],
      ["2026-07-01", -60, "2021-07-01"],
      ["2028-02-29", 12, "2029-02-28"],
      ["2028-02-29", 48, "2032-02-29"],
      ["2027-01-31", 0, "2027-01-31"],
    ];
    for (const [from, months, to] of cases) expect(addMonths(from, months), `${from} + ${months}`).toBe(to);
    expect(() => addMonths("2027-1-31", 1)).toThrow();
  });

  /** The day a full year from `start` is over: the same date next year, or 1 March when that date is a 29 February the year lacks. */
  const yearLater = (start: string) => {
    const year = +start.slice(0, 4) + 1;
    const same = `${year}${start.slice(4)}`;
    return isCalendarDate(same) ? same : `${year}-03-01`;
  };
  /** The days of a range that are 29 February. */
  const leapDaysIn = (first: string, last: string) =>
    [+first.slice(0, 4), +last.slice(0, 4)].filter((y, i, ys) => ys.indexOf(y) === i).filter((y) => isCalendarDate(`${y}-02-29`) && first <= `${y}-02-29` && `${y}-02-29` <= last).length;

  it("a one-year licence starting 25 February to 3 March, in a common and a leap year, is in force for a full year and not a day more", () => {
    const expected: Record<string, string> = {
      // common year 2027 (the year after is leap)
      "2027-02-25": "2028-02-24",
      "2027-02-26": "2028-02-25",
      "2027-02-27": "2028-02-26",
      "2027-02-28": "2028-02-27",
      "2027-03-01": "2028-02-29",
      "2027-03-02": "2028-03-01",
      "2027-03-03": "2028-03-02",
      // leap year 2028
      "2028-02-25": "2029-02-24",
      "2028-02-26": "2029-02-25",
      "2028-02-27": "2029-02-26",
      "2028-02-28": "2029-02-27",
      "2028-02-29": "2029-02-28", // not 27 February: the whole year to the end of February
      "2028-03-01": "2029-02-28",
      "2028-03-02": "2029-03-01",
      "2028-03-03": "2029-03-02",
    };
    for (const [start, last] of Object.entries(expected)) {
      const end = termLastDay(start, 12);
      expect(end, start).toBe(last);
      // In force every day d with start <= d < yearLater(start), and the next term starts exactly on yearLater(start).
      expect(addCalendarDays(end, 1), start).toBe(yearLater(start));
      // 365 days, or 366 when the term holds a 29 February.
      expect(daysBetween(start, end) + 1, start).toBe(365 + leapDaysIn(start, end));
    }
  });

  it("every start from 2027 to 2032 gets its full year; a later start never ends earlier; a renewed chain has no gap and no overlap", () => {
    let prevEnd = "";
    for (let start = "2027-01-01"; start <= "2032-12-31"; start = addCalendarDays(start, 1)) {
      const end = termLastDay(start, 12);
      expect(addCalendarDays(end, 1), start).toBe(yearLater(start));
      expect(daysBetween(start, end) + 1, start).toBe(365 + leapDaysIn(start, end));
      expect(end >= prevEnd, start).toBe(true);
      prevEnd = end;
    }
    // Renewals (each starting the day after the last one's last day) from 29 February 2028.
    const chain: [string, string][] = [];
    for (let from = "2028-02-29", k = 0; k < 5; k++, from = addCalendarDays(chain[chain.length - 1][1], 1)) chain.push([from, termLastDay(from, 12)]);
    expect(chain).toEqual([
      ["2028-02-29", "2029-02-28"],
      ["2029-03-01", "2030-02-28"],
      ["2030-03-01", "2031-02-28"],
      ["2031-03-01", "2032-02-29"],
      ["2032-03-01", "2033-02-28"],
    ]);
  });

  it("terms of other lengths end the day before the same day, or with a month that has no such day", () => {
    expect(termLastDay("2027-01-31", 1)).toBe("2027-02-28");
    expect(termLastDay("2027-01-29", 1)).toBe("2027-02-28");
    expect(termLastDay("2027-01-28", 1)).toBe("2027-02-27");
    expect(termLastDay("2028-01-30", 1)).toBe("2028-02-29");
    expect(termLastDay("2027-03-31", 1)).toBe("2027-04-30");
    expect(termLastDay("2027-07-01", 6)).toBe("2027-12-31");
    expect(termLastDay("2028-02-29", 60)).toBe("2033-02-28");
    expect(termLastDay("2026-09-15", 60)).toBe("2031-09-14");
    expect(() => termLastDay("2027-01-01", 0)).toThrow();
  });
});

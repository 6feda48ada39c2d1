import { describe, expect, it } from "vitest";
import {
  countOf,
  daysLeftText,
  formatDate,
  formatDateTime,
  formatDayOf,
  formatMonth,
  formatShortDate,
  formatTime,
  hoursLeftText,
  portalTimeZone,
  statusLabel,
  zoneAbbreviation,
} from "./format.js";

const NY = "America/New_York";

describe("instants on a district's clock", () => {
  it("shows a payment the same way everywhere: the district's time with its zone, never UTC", () => {
    // The payment: 1:49 PM UTC is 8:49 AM in New York in December.
    expect(formatDateTime("2026-12-01T13:49:00Z", NY)).toBe("Dec 1, 2026, 8:49 AM EST");
    expect(formatDateTime(new Date("2026-12-01T13:49:00Z"), NY)).toBe("Dec 1, 2026, 8:49 AM EST");
    expect(formatTime("2026-12-01T13:49:00Z", NY)).toBe("8:49 AM EST");
    expect(formatDateTime("2026-12-01T13:49:00Z", NY, "full")).toBe("Tuesday, December 1, 2026 at 8:49 AM EST");
    // Another district's clock reads the same instant its own way.
    expect(formatDateTime("2026-12-01T13:49:00Z", "America/Chicago")).toBe("Dec 1, 2026, 7:49 AM CST");
  });

  it("changes abbreviation and offset on the days daylight saving starts and ends", () => {
    // 8 March 2026: 2:00 AM EST becomes 3:00 AM EDT.
    expect(formatDateTime("2026-03-08T06:59:00Z", NY)).toBe("Mar 8, 2026, 1:59 AM EST");
    expect(formatDateTime("2026-03-08T07:00:00Z", NY)).toBe("Mar 8, 2026, 3:00 AM EDT");
    // 1 November 2026: 2:00 AM EDT falls back to 1:00 AM EST; the hour from 1:00 is read twice, told apart by the zone.
    expect(formatDateTime("2026-11-01T05:30:00Z", NY)).toBe("Nov 1, 2026, 1:30 AM EDT");
    expect(formatDateTime("2026-11-01T06:30:00Z", NY)).toBe("Nov 1, 2026, 1:30 AM EST");
    expect(zoneAbbreviation("2026-07-04T16:00:00Z", NY)).toBe("EDT");
    expect(zoneAbbreviation("2026-01-04T16:00:00Z", NY)).toBe("EST");
  });

  it("puts an instant near midnight on the district's day, not UTC's", () => {
    // 04:30 UTC on 1 December is still 30 November in New York; 05:00 UTC is its midnight.
    expect(formatDayOf("2026-12-01T04:30:00Z", NY)).toBe("November 30, 2026");
    expect(formatDateTime("2026-12-01T04:59:00Z", NY)).toBe("Nov 30, 2026, 11:59 PM EST");
    expect(formatDateTime("2026-12-01T05:00:00Z", NY)).toBe("Dec 1, 2026, 12:00 AM EST");
    expect(formatDayOf("2026-12-01T05:00:00Z", NY)).toBe("December 1, 2026");
    // New Year's Eve: a receipt paid at 11:30 PM is dated in the old year.
    expect(formatDayOf("2027-01-01T04:30:00Z", NY)).toBe("December 31, 2026");
  });

  it("shows nothing for a time it cannot read rather than 'Invalid Date'", () => {
    expect(formatDateTime("not a time", NY)).toBe("");
    expect(formatTime("", NY)).toBe("");
    expect(formatDayOf("2026-13-45T00:00:00Z", NY)).toBe("");
  });
});

describe("calendar dates", () => {
  it("are words, the same day in every zone", () => {
    expect(formatDate("2027-11-30")).toBe("November 30, 2027");
    expect(formatDate("2026-12-01", { weekday: true })).toBe("Tuesday, December 1, 2026");
    expect(formatShortDate("2026-03-08")).toBe("Mar 8, 2026");
    expect(formatDate("2028-02-29")).toBe("February 29, 2028");
    expect(formatMonth("2026-11")).toBe("November 2026");
    // Not a date: given back as it is, not as a wrong date.
    expect(formatDate("soon")).toBe("soon");
  });
});

describe("counts", () => {
  it("say 1 day, never 1 days", () => {
    expect(daysLeftText(1)).toBe("1 day left");
    expect(daysLeftText(2)).toBe("2 days left");
    expect(daysLeftText(0)).toBe("due today");
    expect(daysLeftText(-1)).toBe("1 day late");
    expect(daysLeftText(-3)).toBe("3 days late");
    expect(daysLeftText(null)).toBe("");
    expect(hoursLeftText(1)).toBe("1 hour left");
    expect(hoursLeftText(-2)).toBe("2 hours late");
    expect(countOf(1, "copy", "copies")).toBe("1 copy");
    expect(countOf(1200, "gallon")).toBe("1,200 gallons");
  });
});

describe("statuses", () => {
  it("are words, never their codes", () => {
    expect(statusLabel("SUBMITTED")).toBe("Submitted");
    expect(statusLabel("submitted")).toBe("Submitted");
    expect(statusLabel("PARTIALLY_REFUNDED")).toBe("Partially refunded");
    expect(statusLabel("PAID", { PAID: "Paid in full" })).toBe("Paid in full");
    // A label already in words stays as written.
    expect(statusLabel("Waiting for payment")).toBe("Waiting for payment");
    expect(statusLabel(null)).toBe("");
  });
});

describe("the portal's clock, for records of no district", () => {
  it("is the zone the districts keep, the most kept where they differ, alphabetically first on a tie", () => {
    expect(portalTimeZone([NY, NY])).toBe(NY);
    expect(portalTimeZone(["America/Chicago", NY, NY])).toBe(NY);
    expect(portalTimeZone([NY, "America/Chicago"])).toBe("America/Chicago");
    expect(portalTimeZone([])).toBe("UTC");
  });
});

import { describe, expect, it } from "vitest";
import {
  afterRead,
  averageDailyUse,
  estimateRead,
  measureActual,
  measureReaderEstimate,
  parseKind,
  parseReadDate,
  parseReading,
  registerAdvance,
  type MeterState,
  type Register,
} from "./readings.rules.js";

/** Meter readings as SUL 1205's volume: rollover, a first read, estimates and their true-up, a lower read. */

const six: Register = { digits: 6, gallonsPerUnit: 1, startReading: null };
const state = (over: Partial<MeterState> = {}): MeterState => ({ last: null, lastActual: null, estimatedSince: 0, usage: null, ...over });
const actualAt = (readOn: string, reading: number, usage: MeterState["usage"] = null): MeterState =>
  state({ last: { readOn, reading, kind: "ACTUAL" }, lastActual: { readOn, reading }, usage });

describe("register rollover (a six-dial register shows 000000 to 999999)", () => {
  it("at the register's limit: 999,999 is a forward read, no rollover", () => {
    expect(registerAdvance(999_990, 999_999, 6)).toEqual({ units: 9, rollover: false });
  });
  it("just past the limit: 999,999 then 000,000 is one unit through the limit", () => {
    expect(registerAdvance(999_999, 0, 6)).toEqual({ units: 1, rollover: true });
    expect(registerAdvance(999_990, 15, 6)).toEqual({ units: 25, rollover: true });
  });
  it("a lower read is a rollover only when going round is the smaller movement", () => {
    expect(registerAdvance(600_000, 99_999, 6)).toEqual({ units: 499_999, rollover: true });
    expect(registerAdvance(500_000, 0, 6)).toBeNull(); // as far round as back: not a rollover
    expect(registerAdvance(13_000, 12_000, 6)).toBeNull();
  });
  it("a four-dial register in hundreds of gallons rolls over at 9,999", () => {
    const reg: Register = { digits: 4, gallonsPerUnit: 100, startReading: null };
    expect(measureActual(reg, actualAt("2026-09-30", 9_990), 5)).toEqual({ gallons: 1_500, flags: ["ROLLOVER"] });
    expect(measureActual(reg, actualAt("2026-09-30", 9_990), 10_000)).toEqual({ error: "The reading has more digits than the meter's register (4)." });
  });
});

describe("an actual read", () => {
  it("measures from the last actual read, in gallons by the register's unit", () => {
    expect(measureActual({ ...six, gallonsPerUnit: 7.4805 }, actualAt("2026-09-30", 1_000), 3_000)).toEqual({ gallons: 14_961, flags: [] });
  });
  it("a reading lower than the last that is not a rollover is refused with the last one named", () => {
    const r = measureActual(six, actualAt("2026-09-30", 13_000), 12_000);
    expect(r).toEqual({ error: "The reading 12000 is lower than the last one (13000, 2026-09-30) and is not a rollover of its register." });
  });
  it("a meter's first read counts from its start reading, else it is the baseline", () => {
    expect(measureActual({ ...six, startReading: 0 }, state(), 2_500)).toEqual({ gallons: 2_500, flags: ["FIRST_READ"] });
    expect(measureActual(six, state(), 2_500)).toEqual({ gallons: null, flags: ["BASELINE"] });
  });
});

describe("a missing read: estimated from the account's own average daily use, trued up by the next actual read", () => {
  // 92 days used 18,400 gallons: 200 a day.
  const s = actualAt("2026-06-30", 50_000, { gallons: 18_400, days: 92 });
  it("the average is the account's own actual use over its days", () => {
    expect(averageDailyUse({ gallons: 18_400, days: 92 })).toBe(200);
    expect(averageDailyUse(null)).toBeNull();
    expect(averageDailyUse({ gallons: 100, days: 0 })).toBeNull();
  });
  it("the estimate is the average times the days since the last read, marked", () => {
    expect(estimateRead(six, s, "2026-09-30")).toEqual({ reading: 68_400, gallons: 18_400, flags: ["FROM_AVERAGE"] });
  });
  it("an estimate past the register's limit wraps like the meter would", () => {
    const high = actualAt("2026-06-30", 990_000, { gallons: 18_400, days: 92 });
    expect(estimateRead(six, high, "2026-09-30")).toEqual({ reading: 8_400, gallons: 18_400, flags: ["FROM_AVERAGE", "ROLLOVER"] });
  });
  it("no history, no estimate: the reading must be entered", () => {
    expect(estimateRead(six, actualAt("2026-06-30", 50_000), "2026-09-30")).toEqual({ error: "There is no earlier use of this account to estimate from: enter the reading." });
  });
  it("the next actual read gives the gallons the meter really moved less what the estimate counted", () => {
    const est = estimateRead(six, s, "2026-09-30") as { reading: number; gallons: number };
    const after = afterRead(s, "2026-09-30", est.reading, "ESTIMATED", est.gallons);
    expect(after.lastActual).toEqual({ readOn: "2026-06-30", reading: 50_000 });
    // Really used 30,000 over the two quarters: 18,400 estimated, 11,600 on the true-up.
    expect(measureActual(six, after, 80_000)).toEqual({ gallons: 11_600, flags: ["TRUE_UP"] });
    // Overestimated: the true-up gives back (a read lower than the estimate is no error).
    expect(measureActual(six, after, 60_000)).toEqual({ gallons: -8_400, flags: ["TRUE_UP"] });
    // Lower than the last actual read is still refused.
    expect("error" in measureActual(six, after, 49_000)).toBe(true);
    const trued = afterRead(after, "2026-12-31", 80_000, "ACTUAL", 11_600);
    expect(trued).toMatchObject({ estimatedSince: 0, lastActual: { readOn: "2026-12-31", reading: 80_000 }, usage: { gallons: 48_400, days: 92 + 184 } });
  });
  it("a reader's own estimate is measured from the last read of any kind", () => {
    expect(measureReaderEstimate(six, s, 60_000)).toEqual({ gallons: 10_000, flags: [] });
    expect("error" in measureReaderEstimate(six, s, 40_000)).toBe(true);
    expect("error" in measureReaderEstimate(six, state(), 40_000)).toBe(true);
  });
});

describe("a file's fields as reading systems write them", () => {
  it("dates in two forms, and only real days", () => {
    expect(parseReadDate("2026-12-31")).toBe("2026-12-31");
    expect(parseReadDate("12/31/2026")).toBe("2026-12-31");
    expect(parseReadDate("2/29/2026")).toBeNull();
    expect(parseReadDate("31/12/2026")).toBeNull();
  });
  it("readings are whole digits; kinds A or E", () => {
    expect(parseReading("004512")).toBe(4512);
    expect(parseReading("12.5")).toBeNull();
    expect(parseReading("-3")).toBeNull();
    expect(parseReading("1,200")).toBeNull();
    expect([parseKind(""), parseKind("a"), parseKind("E"), parseKind("est"), parseKind("X")]).toEqual(["ACTUAL", "ACTUAL", "ESTIMATED", "ESTIMATED", null]);
  });
});

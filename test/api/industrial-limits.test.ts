import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { RuleEntry } from "../../api/districts/rulebook-schema.js";
import {
  checkAgainst,
  chronicViolation,
  convert,
  defaultLimits,
  dutiesFor,
  evaluate,
  formatFigure,
  isConventional,
  lateReport,
  massLbPerDay,
  massLimitFrom,
  missedMilestone,
  parseUnit,
  trcViolation,
  UnitError,
  type Limit,
  type Result,
  type RuleSource,
} from "../../api/industrial/limits.js";

/** The limits engine with the law's own figures, read from the shipped rulebooks. */

function rulebook(file: string): RuleSource & { entries: RuleEntry[] } {
  const data = JSON.parse(fs.readFileSync(`api/districts/data/${file}.json`, "utf8"));
  const entries: RuleEntry[] = data.rulebook.entries ?? data.rulebook;
  const by = new Map(entries.map((e) => [e.key, e]));
  return { entries, entry: (k) => by.get(k)! };
}
const sul = rulebook("sul-2000");
const huron = rulebook("huron");
const sulLimits = defaultLimits(sul);
const huronLimits = defaultLimits(huron);
const limitOf = (ls: Limit[], p: string) => ls.find((l) => l.parameter === p)!;
const res = (parameter: string, value: number | null, unit: Result["unit"], sampleType: Result["sampleType"] = "COMPOSITE", extra: Partial<Result> = {}): Result => ({
  parameter,
  value,
  unit,
  sampleType,
  belowDetection: false,
  detectionLimit: null,
  ...extra,
});

// SUL 903: average daily (composite), maximum instantaneous (grab), mg/L
const SUL_903: [string, number, number][] = [
  ["Arsenic", 0.2, 0.4],
  ["Cadmium", 0.04, 0.05],
  ["Chlorine", 50, 60],
  ["Chromium (hexavalent)", 0.2, 0.4],
  ["Chromium (total)", 4, 5],
  ["Copper", 0.8, 1],
  ["Cyanide (complex)", 0.4, 0.5],
  ["Cyanide (free)", 1.6, 2],
  ["Fluorides", 12, 14],
  ["Gold", 0.2, 0.4],
  ["Manganese", 4, 5],
  ["Mercury", 0.2, 0.4],
  ["Nickel", 4, 5],
  ["Phenols, total", 4, 6],
  ["Silver", 0.2, 0.4],
  ["Sulfides", 6, 8],
  ["Zinc", 1.2, 1.6],
];

describe("SUL 903 table, from the Sewer Use Law 2000 rulebook", () => {
  it.each(SUL_903)("%s: composite at the average daily %s passes, just over fails; grab at the maximum %s passes, just over fails", (p, avg, max) => {
    const l = limitOf(sulLimits, p);
    expect(l).toMatchObject({ kind: "CONCENTRATION", unit: "mg/L", average: avg, maximum: max, section: "Sewer Use Law 903" });
    expect(evaluate(res(p, avg, "mg/L", "COMPOSITE"), sulLimits).status).toBe("OK");
    const over = evaluate(res(p, avg * 1.01, "mg/L", "COMPOSITE"), sulLimits);
    expect(over).toMatchObject({ status: "EXCEEDS", basis: "AVERAGE", limitValue: avg });
    expect(evaluate(res(p, max, "mg/L", "GRAB"), sulLimits).status).toBe("OK");
    expect(evaluate(res(p, max * 1.01, "mg/L", "GRAB"), sulLimits)).toMatchObject({ status: "EXCEEDS", basis: "MAXIMUM", limitValue: max });
  });

  it("grab versus composite: zinc 1.30 mg/L exceeds the 1.20 average on a composite but not the 1.60 maximum on a grab", () => {
    const composite = evaluate(res("Zinc", 1.3, "mg/L", "COMPOSITE"), sulLimits);
    expect(composite.status).toBe("EXCEEDS");
    expect(composite.message).toBe("1.3 mg/L exceeds the average daily limit (composite sample) of 1.2 mg/L (Sewer Use Law 903).");
    expect(composite.ratio).toBeCloseTo(1.0833, 3);
    expect(evaluate(res("Zinc", 1.3, "mg/L", "GRAB"), sulLimits).status).toBe("OK");
  });

  it("tin, blank in the law, sets no limit", () => {
    expect(sulLimits.find((l) => l.parameter === "Tin")).toBeUndefined();
    expect(evaluate(res("Tin", 50, "mg/L"), sulLimits).status).toBe("NO_LIMIT");
  });

  it("pH both sides (SUL 902(3): 5.0 to 10.0)", () => {
    const ph = limitOf(sulLimits, "pH");
    expect(ph).toMatchObject({ kind: "PH", minimum: 5, maximum: 10, unit: "s.u." });
    expect(evaluate(res("pH", 5, "s.u.", "GRAB"), sulLimits).status).toBe("OK");
    expect(evaluate(res("pH", 10, "s.u.", "GRAB"), sulLimits).status).toBe("OK");
    expect(evaluate(res("pH", 4.9, "s.u.", "GRAB"), sulLimits)).toMatchObject({ status: "EXCEEDS", basis: "MINIMUM", limitValue: 5 });
    expect(evaluate(res("pH", 10.1, "s.u.", "GRAB"), sulLimits)).toMatchObject({ status: "EXCEEDS", basis: "MAXIMUM", limitValue: 10 });
    expect(evaluate(res("pH", 7, "s.u.", "COMPOSITE"), sulLimits).message).toContain("within 5 to 10");
  });

  it("temperature at most 150 °F (65 °C), converted from °C explicitly", () => {
    expect(limitOf(sulLimits, "Temperature")).toMatchObject({ kind: "TEMPERATURE", unit: "degF", maximum: 150 });
    const c65 = evaluate(res("Temperature", 65, "degC", "GRAB"), sulLimits);
    expect(c65.status).toBe("OK");
    expect(c65.conversion).toBe("65 °C = 149 °F");
    expect(evaluate(res("Temperature", 66, "degC", "GRAB"), sulLimits)).toMatchObject({ status: "EXCEEDS", comparedValue: 150.8 });
    expect(evaluate(res("Temperature", 150, "degF", "GRAB"), sulLimits).status).toBe("OK");
    expect(evaluate(res("Temperature", 151, "degF", "GRAB"), sulLimits).status).toBe("EXCEEDS");
  });

  it("fats, oils and grease at most 100 mg/L, on either sample", () => {
    expect(limitOf(sulLimits, "Fats, oils and grease")).toMatchObject({ maximum: 100, average: null, section: "Sewer Use Law 903 note (5)" });
    expect(evaluate(res("Fats, oils and grease", 100, "mg/L", "COMPOSITE"), sulLimits).status).toBe("OK");
    expect(evaluate(res("Fats, oils and grease", 101, "mg/L", "COMPOSITE"), sulLimits).status).toBe("EXCEEDS");
    expect(evaluate(res("Fats, oils and grease", 101, "mg/L", "GRAB"), sulLimits).status).toBe("EXCEEDS");
  });

  it("phenols and sulfides are not listed twice (the 903 table carries them in Lakeview)", () => {
    expect(sulLimits.filter((l) => /phenol/i.test(l.parameter))).toHaveLength(1);
    expect(sulLimits.filter((l) => /sulfide/i.test(l.parameter))).toHaveLength(1);
  });
});

describe("Huron's limits (Article IV)", () => {
  const HURON: [string, number][] = [
    ["Iron (as Fe)", 15],
    ["Chromium, hexavalent (as Cr)", 5],
    ["Copper (as Cu)", 3],
    ["Zinc (as Zn)", 2],
  ];
  it.each(HURON)("%s: 24-hour average %s ppm, any single reading at most 3 times", (p, avg) => {
    const l = limitOf(huronLimits, p);
    expect(l).toMatchObject({ unit: "ppm", average: avg, maximum: avg * 3, section: "Huron IV-21" });
    expect(evaluate(res(p, avg, "mg/L", "COMPOSITE"), huronLimits)).toMatchObject({ status: "OK", conversion: `${avg} mg/L = ${avg} ppm` });
    expect(evaluate(res(p, avg + 0.01, "ppm", "COMPOSITE"), huronLimits).status).toBe("EXCEEDS");
    expect(evaluate(res(p, avg * 3, "ppm", "GRAB"), huronLimits).status).toBe("OK");
    expect(evaluate(res(p, avg * 3 + 0.01, "ppm", "GRAB"), huronLimits)).toMatchObject({ status: "EXCEEDS", basis: "MAXIMUM" });
  });
  it("pH 6.0 to 10.0, temperature 150 °F, grease 75, phenols 10, sulfides 10 ppm", () => {
    expect(limitOf(huronLimits, "pH")).toMatchObject({ minimum: 6, maximum: 10, section: "Huron IV-5" });
    expect(evaluate(res("pH", 5.9, "s.u.", "GRAB"), huronLimits).status).toBe("EXCEEDS");
    expect(evaluate(res("pH", 6, "s.u.", "GRAB"), huronLimits).status).toBe("OK");
    expect(limitOf(huronLimits, "Temperature")).toMatchObject({ maximum: 150, section: "Huron IV-13" });
    expect(limitOf(huronLimits, "Fats, oils and grease")).toMatchObject({ maximum: 75, unit: "ppm", section: "Huron IV-15" });
    expect(limitOf(huronLimits, "Phenols, total")).toMatchObject({ maximum: 10, section: "Huron IV-17" });
    expect(limitOf(huronLimits, "Sulfides")).toMatchObject({ maximum: 10, section: "Huron IV-18" });
    expect(evaluate(res("Sulfides", 10.5, "mg/L", "GRAB"), huronLimits).status).toBe("EXCEEDS");
  });
});

describe("units: converted explicitly, never silently; incompatible units refused", () => {
  it("parses what lab sheets write", () => {
    expect(parseUnit("mg/L")).toBe("mg/L");
    expect(parseUnit("µg/L")).toBe("ug/L");
    expect(parseUnit("pH")).toBe("s.u.");
    expect(parseUnit("degrees F")).toBe("degF");
    expect(parseUnit("°C")).toBe("degC");
    expect(parseUnit("furlongs")).toBeNull();
  });
  it("µg/L against a mg/L limit: 1,300 µg/L zinc is 1.3 mg/L, over 1.2", () => {
    const e = evaluate(res("Zinc", 1300, "ug/L"), sulLimits);
    expect(e).toMatchObject({ status: "EXCEEDS", comparedValue: 1.3, conversion: "1,300 µg/L = 1.3 mg/L" });
    expect(convert(1.2, "mg/L", "ug/L")).toBe(1200);
    expect(convert(100, "degC", "degF")).toBe(212);
    expect(convert(212, "degF", "degC")).toBe(100);
    expect(convert(0.5, "MGD", "gpd")).toBe(500000);
  });
  it("refuses to compare a concentration with a temperature, or lb/day against a mg/L limit", () => {
    expect(() => convert(1, "mg/L", "degF")).toThrow(UnitError);
    expect(() => evaluate(res("Zinc", 3, "lb/day"), sulLimits)).toThrow(/cannot be compared/);
    expect(() => evaluate(res("pH", 7, "mg/L"), sulLimits)).toThrow(UnitError);
  });
});

describe("mass limits: lb/day = mg/L x MGD x 8.34 (SUL 1005(3)(b), 904)", () => {
  it("computes mass and turns a concentration limit into a mass limit at the permit's flow", () => {
    expect(massLbPerDay(1.2, 0.5)).toBe(5.004);
    const zinc = massLimitFrom(limitOf(sulLimits, "Zinc"), 0.5);
    expect(zinc).toMatchObject({ kind: "MASS", unit: "lb/day", average: 5.004, maximum: 6.672 });
  });
  it("a permit with a mass limit judges lb/day directly, and mg/L with the day's flow", () => {
    const permit: Limit[] = [{ parameter: "Zinc", kind: "MASS", unit: "lb/day", average: 5, maximum: null, minimum: null, section: "Permit condition (SUL 904)" }];
    expect(evaluate(res("Zinc", 4.9, "lb/day"), permit).status).toBe("OK");
    expect(evaluate(res("Zinc", 5.1, "lb/day"), permit).status).toBe("EXCEEDS");
    const viaFlow = evaluate(res("Zinc", 1.3, "mg/L", "COMPOSITE", { flowMgd: 0.5 }), permit);
    expect(viaFlow).toMatchObject({ status: "EXCEEDS", comparedValue: 5.421, conversion: "1.3 mg/L x 0.5 MGD x 8.34 = 5.421 lb/day" });
    expect(() => evaluate(res("Zinc", 1.3, "mg/L"), permit)).toThrow(/give the day's flow/);
  });
  it("with both a concentration and a mass limit, the worst decides", () => {
    const both: Limit[] = [limitOf(sulLimits, "Zinc"), { parameter: "Zinc", kind: "MASS", unit: "lb/day", average: 4, maximum: null, minimum: null, section: "Permit condition" }];
    const e = evaluate(res("Zinc", 1.0, "mg/L", "COMPOSITE", { flowMgd: 0.5 }), both);
    expect(e.checks.map((c) => c.status)).toEqual(["OK", "EXCEEDS"]);
    expect(e).toMatchObject({ status: "EXCEEDS", kind: "MASS" });
    expect(evaluate(res("Zinc", 1.0, "mg/L"), both).status).toBe("OK");
  });
  it("with two mass limits and no flow, a mg/L result asks for the flow; the same list judges the next result with it", () => {
    const twoMass: Limit[] = [
      { parameter: "Zinc", kind: "MASS", unit: "lb/day", average: 5, maximum: null, minimum: null, section: "Permit condition" },
      { parameter: "Zinc", kind: "MASS", unit: "lb/day", average: null, maximum: 7, minimum: null, section: "Permit condition" },
    ];
    expect(() => evaluate(res("Zinc", 1.3, "mg/L"), twoMass)).toThrow(/give the day's flow/);
    expect(evaluate(res("Zinc", 1.3, "mg/L", "COMPOSITE", { flowMgd: 0.5 }), twoMass)).toMatchObject({ status: "EXCEEDS", comparedValue: 5.421 });
    expect(() => evaluate(res("Zinc", 1.3, "mg/L"), twoMass)).toThrow(/give the day's flow/);
  });
});

describe("below the detection limit", () => {
  it("passes when the detection limit is under the limit, and is inconclusive when it is above", () => {
    const low = checkAgainst(res("Cadmium", null, "mg/L", "COMPOSITE", { belowDetection: true, detectionLimit: 0.01 }), limitOf(sulLimits, "Cadmium"));
    expect(low.status).toBe("OK");
    const high = checkAgainst(res("Cadmium", null, "mg/L", "COMPOSITE", { belowDetection: true, detectionLimit: 0.1 }), limitOf(sulLimits, "Cadmium"));
    expect(high.status).toBe("INCONCLUSIVE");
    expect(high.message).toContain("above the average daily limit");
    expect(() => evaluate(res("Cadmium", null, "mg/L", "COMPOSITE", { belowDetection: true }), sulLimits)).toThrow(/detection limit/);
  });
});

describe("duties of an exceedance (SUL 1005(4))", () => {
  it("notify within 24 hours; resample with results within 30 days", () => {
    const learned = new Date("2026-12-03T15:00:00Z");
    const [notify, resample] = dutiesFor(sul, learned, "America/New_York", "Zinc");
    expect(notify).toMatchObject({ kind: "NOTIFY", section: "Sewer Use Law 1005(4)", dueAt: new Date("2026-12-04T15:00:00Z"), dueOn: "2026-12-04" });
    expect(resample).toMatchObject({ kind: "RESAMPLE", section: "Sewer Use Law 1005(4)", dueOn: "2027-01-02" });
    expect(resample.dueAt.toISOString()).toBe("2027-01-03T05:00:00.000Z");
  });
  it("Huron's law sets neither: no duties from its rulebook", () => {
    expect(dutiesFor(huron, new Date(), "America/New_York", "Zinc")).toEqual([]);
  });
});

describe("significant non-compliance (SUL 201)", () => {
  const trcRule = { percent: 33, factorConventional: 1.4, factorOther: 1.2 };
  it("reads the SNC figures from the rulebook", () => {
    expect(sul.entry("industrial.sncChronicPercent").value).toBe(66);
    expect(sul.entry("industrial.sncTrcPercent").value).toBe(33);
    expect(sul.entry("industrial.sncTrcFactorConventional").value).toBe(1.4);
    expect(sul.entry("industrial.sncTrcFactorOther").value).toBe(1.2);
    expect(sul.entry("industrial.sncLateReportDays").value).toBe(30);
    expect(sul.entry("industrial.sncMilestoneDays").value).toBe(90);
  });
  it("chronic at exactly 66 %: 66 of 100 is SNC, 65 of 100 is not; 2 of 3 (66.7 %) is", () => {
    const ms = (over: number, total: number) => Array.from({ length: total }, (_, i) => ({ value: i < over ? 1.3 : 1.0, limit: 1.2 }));
    expect(chronicViolation(ms(66, 100), 66)).toEqual({ snc: true, exceeded: 66, total: 100 });
    expect(chronicViolation(ms(65, 100), 66).snc).toBe(false);
    expect(chronicViolation(ms(2, 3), 66).snc).toBe(true);
    expect(chronicViolation(ms(1, 2), 66).snc).toBe(false);
    expect(chronicViolation([{ value: 1.2, limit: 1.2 }], 66).snc).toBe(false); // at the limit is not over it
    expect(chronicViolation([], 66).snc).toBe(false);
  });
  it("TRC: 1.4 x the limit for BOD, TSS, fats, oil and grease; 1.2 x for all others; 33 %", () => {
    expect(["BOD (5-day)", "Suspended solids", "TSS", "Fats, oils and grease", "Oil and grease"].every(isConventional)).toBe(true);
    expect(["Zinc", "Copper", "Cyanide (free)", "Chlorine"].some(isConventional)).toBe(false);
    // zinc 1.44 = 1.2 x 1.2: at the factor counts
    const zinc = [{ value: 1.44, limit: 1.2 }, { value: 1.0, limit: 1.2 }, { value: 1.0, limit: 1.2 }];
    expect(trcViolation("Zinc", zinc, trcRule)).toEqual({ snc: true, factor: 1.2, atOrAbove: 1, total: 3 });
    // the same values for BOD (limit 250): 1.2x is not 1.4x
    const bod12 = [{ value: 300, limit: 250 }, { value: 200, limit: 250 }, { value: 200, limit: 250 }];
    expect(trcViolation("BOD (5-day)", bod12, trcRule)).toMatchObject({ snc: false, factor: 1.4, atOrAbove: 0 });
    const bod14 = [{ value: 350, limit: 250 }, { value: 200, limit: 250 }, { value: 200, limit: 250 }];
    expect(trcViolation("BOD (5-day)", bod14, trcRule)).toMatchObject({ snc: true, atOrAbove: 1 });
    // 33 %: 33 of 100 is SNC, 32 of 100 is not
    const share = (n: number) => Array.from({ length: 100 }, (_, i) => ({ value: i < n ? 1.5 : 1, limit: 1.2 }));
    expect(trcViolation("Zinc", share(33), trcRule).snc).toBe(true);
    expect(trcViolation("Zinc", share(32), trcRule).snc).toBe(false);
    expect(trcViolation("Zinc", [{ value: 1.43, limit: 1.2 }], trcRule).snc).toBe(false);
  });
  it("a report more than 30 days late: day 30 is not SNC, day 31 is", () => {
    expect(lateReport("2026-12-31", "2027-01-30", "2027-03-01", 30)).toEqual({ snc: false, daysLate: 30 });
    expect(lateReport("2026-12-31", "2027-01-31", "2027-03-01", 30)).toEqual({ snc: true, daysLate: 31 });
    expect(lateReport("2026-12-31", null, "2027-01-30", 30).snc).toBe(false);
    expect(lateReport("2026-12-31", null, "2027-01-31", 30).snc).toBe(true);
    expect(lateReport("2026-12-31", "2026-12-20", "2027-03-01", 30)).toEqual({ snc: false, daysLate: 0 });
  });
  it("a milestone missed by 90 days or more: day 89 is not SNC, day 90 is", () => {
    expect(missedMilestone("2027-03-01", null, "2027-05-29", 90)).toEqual({ snc: false, daysLate: 89 });
    expect(missedMilestone("2027-03-01", null, "2027-05-30", 90)).toEqual({ snc: true, daysLate: 90 });
    expect(missedMilestone("2027-03-01", "2027-04-01", "2027-12-01", 90).snc).toBe(false);
  });
});

describe("figures in messages", () => {
  it("print as en-US with at most six decimals, whether or not Intl is skipped for small numbers", () => {
    const intl = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });
    const twelve = (n: number) => Number(n.toPrecision(12));
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const values = [0, 1, 7.2, 100, 999.999999, 1000, 1234.5, -0.25, -999.5, 0.000001, 0.0000005, 1e-7, 1.44, 1.2 * 1.2, 0.1 + 0.2];
    for (let i = 0; i < 30_000; i++) {
      const n = (random() - 0.3) * 10 ** Math.floor(random() * 12 - 8);
      values.push(random() < 0.3 ? Math.round(n * 1000) / 1000 : n);
    }
    for (const v of values) expect(formatFigure(v), String(v)).toBe(intl.format(twelve(v)));
  });
});

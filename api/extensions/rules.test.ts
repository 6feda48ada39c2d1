import { describe, expect, it } from "vitest";
import { Rulebook, shippedDistrictFiles } from "../districts/districts.service.js";
import type { RulebookVersion } from "../districts/rulebook-version.entity.js";
import type { LimitRow, RuleEntry } from "../districts/rulebook-schema.js";
import {
  acceptanceProblems,
  asBuiltProblem,
  capacityLeft,
  guaranteeLastDay,
  earliestStart,
  entryProblems,
  hasCapacity,
  judgeTest,
  leakageAllowanceGallonsPerDay,
  manholeVacuumSeconds,
  materialsCriteria,
  noticeProblem,
  type TestEntry,
} from "./rules.js";

// The law's figures (SUL 501-506) at the limit and just past it, from the shipped rulebook.

function rulebook(slug: string, tables: Record<string, LimitRow[]> = {}): Rulebook {
  const f = shippedDistrictFiles().find((x) => x.district.slug === slug)!;
  const entries = f.rulebook.entries.map((e) => (e.key in tables ? ({ ...e, value: tables[e.key] } as RuleEntry) : e));
  return new Rulebook({ version: 1, entries } as unknown as RulebookVersion);
}
const lakeview = rulebook("lakeview");
// A district that has entered Uni-Bell rows (8-inch: 3:47 minimum, 0.760 s per foot; the vacuum table's halves).
const withTables = rulebook("lakeview", {
  "extension.airTestTable": [{ parameter: "8", unit: "seconds", average: 0.76, maximum: null, minimum: 227 }],
  "extension.sewerVacuumTestTable": [{ parameter: "8", unit: "seconds", average: 0.38, maximum: null, minimum: 113.5 }],
});

const outcome = (rb: Rulebook, e: TestEntry) => judgeTest(rb, e).outcome;
const unmet = (rb: Rulebook, e: TestEntry) => judgeTest(rb, e).criteria.filter((c) => !c.met).map((c) => c.section);

describe("infiltration (505 A-C)", () => {
  // 1,000 ft of 8-inch pipe and 3 manholes: 25 × 8 × 1000/5280 + 3 × 1.1 = 37.8787... + 3.3 = 41.1787... gallons per 24 h.
  const allowed = (25 * 8 * 1000) / 5280 + 3.3;
  const test = (gallonsPerDay: number, over: Partial<TestEntry> = {}): TestEntry => ({
    kind: "INFILTRATION",
    lengthFeet: 1000,
    nominalDiameterInches: 8,
    manholes: 3,
    periodMinutes: 120,
    gallons: gallonsPerDay / 12,
    ...over,
  });

  it("allows 25 gallons per 24 h per mile per inch of diameter, plus 1.1 per manhole", () => {
    expect(leakageAllowanceGallonsPerDay(lakeview, 1000, 8, 3)).toBeCloseTo(allowed, 9);
    expect(leakageAllowanceGallonsPerDay(lakeview, 5280, 1, 0)).toBe(25);
    expect(leakageAllowanceGallonsPerDay(lakeview, 0, 8, 1)).toBeCloseTo(1.1, 12);
  });
  it("passes at the allowance and fails just past it", () => {
    expect(outcome(lakeview, test(allowed))).toBe("PASSED");
    expect(outcome(lakeview, test(allowed + 0.01))).toBe("FAILED");
    expect(unmet(lakeview, test(allowed + 0.01))).toEqual(["Sewer Use Law 505 A; Sewer Use Law 505 B"]);
  });
  it("a manhole's allowance at exactly 1.1 gallons passes, a drop more fails", () => {
    const one = { lengthFeet: 0.0001, manholes: 1 } as const;
    expect(outcome(lakeview, test(1.1, one))).toBe("PASSED");
    expect(outcome(lakeview, test(1.11, one))).toBe("FAILED");
  });
  it("a test section of 1,000 ft passes, 1,000.1 ft fails (505 B)", () => {
    expect(outcome(lakeview, test(1, { lengthFeet: 1000 }))).toBe("PASSED");
    expect(unmet(lakeview, test(1, { lengthFeet: 1000.1 }))).toEqual(["Sewer Use Law 505 B"]);
  });
  it("a test period of 2 hours passes, 119 minutes fails (505 C)", () => {
    expect(outcome(lakeview, test(1, { periodMinutes: 120 }))).toBe("PASSED");
    expect(unmet(lakeview, { ...test(1), periodMinutes: 119 })).toEqual(["Sewer Use Law 505 C"]);
  });
  it("the measured leakage is scaled to 24 hours from the period", () => {
    // 3 gallons in 3 hours is 24 gallons a day.
    const j = judgeTest(lakeview, { ...test(0), periodMinutes: 180, gallons: 3 });
    expect(j.criteria[2].text).toContain("Leakage 24 gallons per 24 hours, at most 41.18");
  });
  it("refuses an entry with a figure missing or negative", () => {
    expect(entryProblems({ kind: "INFILTRATION", lengthFeet: 100, nominalDiameterInches: 8, manholes: 1.5, periodMinutes: 0, gallons: -1 })).toEqual({
      manholes: "Enter a whole number of manholes.",
      periodMinutes: "Enter a figure over zero.",
      gallons: "Enter a figure of zero or more.",
    });
  });
});

describe("exfiltration head limits (505 A)", () => {
  const test = (over: Partial<TestEntry>): TestEntry => ({
    kind: "EXFILTRATION",
    lengthFeet: 400,
    nominalDiameterInches: 8,
    manholes: 2,
    periodMinutes: 120,
    gallons: 0.5,
    headAbovePipeTopFeet: 5,
    groundwaterAbovePipeTopFeet: 0,
    downstreamHeadFeet: 10,
    downstreamFreeboardInches: 6,
    filledHours: 24,
    ...over,
  });
  it("passes at every limit", () => expect(outcome(lakeview, test({}))).toBe("PASSED"));
  it("at least 5 ft above the top of the pipe", () => expect(unmet(lakeview, test({ headAbovePipeTopFeet: 4.99 }))).toEqual(["Sewer Use Law 505 A"]));
  it("or 5 ft above groundwater when that is higher", () => {
    expect(outcome(lakeview, test({ groundwaterAbovePipeTopFeet: 2, headAbovePipeTopFeet: 7 }))).toBe("PASSED");
    expect(unmet(lakeview, test({ groundwaterAbovePipeTopFeet: 2, headAbovePipeTopFeet: 6.99 }))).toEqual(["Sewer Use Law 505 A"]);
  });
  it("at most 10 ft at the downstream manhole", () => expect(unmet(lakeview, test({ downstreamHeadFeet: 10.01 }))).toEqual(["Sewer Use Law 505 A"]));
  it("not within 6 inches of the downstream manhole's top", () => expect(unmet(lakeview, test({ downstreamFreeboardInches: 5.9 }))).toEqual(["Sewer Use Law 505 A"]));
  it("filled 24 hours before measuring", () => expect(unmet(lakeview, test({ filledHours: 23.9 }))).toEqual(["Sewer Use Law 505 A"]));
  it("the same rate as infiltration", () => {
    const allowed = (25 * 8 * 400) / 5280 + 2.2;
    expect(outcome(lakeview, test({ gallons: allowed / 12 }))).toBe("PASSED");
    expect(outcome(lakeview, test({ gallons: (allowed + 0.01) / 12 }))).toBe("FAILED");
  });
});

describe("deflection (505 E)", () => {
  const test = (over: Partial<TestEntry>): TestEntry => ({ kind: "DEFLECTION", lengthFeet: 300, insideDiameterInches: 7.8, mandrelDiameterInches: 7.41, mandrelPassed: true, ...over });
  it("a mandrel of 95% of the inside diameter that passes through passes", () => expect(outcome(lakeview, test({}))).toBe("PASSED"));
  it("a mandrel smaller than 95% fails", () => expect(unmet(lakeview, test({ mandrelDiameterInches: 7.409 }))).toEqual(["Sewer Use Law 505 E"]));
  it("a mandrel that does not pass through fails", () => expect(outcome(lakeview, test({ mandrelPassed: false }))).toBe("FAILED"));
  it("a length deflected 5% passes, over 5% fails", () => {
    expect(outcome(lakeview, test({ greatestDeflectionPercent: 5 }))).toBe("PASSED");
    expect(unmet(lakeview, test({ greatestDeflectionPercent: 5.01 }))).toEqual(["Sewer Use Law 505 E"]);
  });
});

describe("low-pressure air and sewer vacuum tests (505 F, G) against the district's Uni-Bell table", () => {
  const air = (over: Partial<TestEntry>): TestEntry => ({ kind: "AIR", lengthFeet: 200, nominalDiameterInches: 8, testPressurePsi: 4, seconds: 227, ...over });
  it("the district has not entered the table: not judged, and says so", () => {
    const j = judgeTest(lakeview, air({}));
    expect(j.outcome).toBe("NOT_JUDGED");
    expect(j.reason).toBe("The district has not entered the Uni-Bell table the law judges this test by (Sewer Use Law 505 F).");
    expect(judgeTest(lakeview, { kind: "SEWER_VACUUM", lengthFeet: 200, nominalDiameterInches: 8, seconds: 500 }).reason).toContain("505 G");
  });
  it("a failed criterion fails even without the table", () => expect(outcome(lakeview, air({ testPressurePsi: 10.1 }))).toBe("FAILED"));
  it("the minimum time for a short section: at it passes, a second less fails", () => {
    expect(outcome(withTables, air({ seconds: 227 }))).toBe("PASSED");
    expect(outcome(withTables, air({ seconds: 226 }))).toBe("FAILED");
  });
  it("a longer section takes the time per foot: 400 ft of 8-inch is 304 s", () => {
    expect(outcome(withTables, air({ lengthFeet: 400, seconds: 304 }))).toBe("PASSED");
    expect(outcome(withTables, air({ lengthFeet: 400, seconds: 303.9 }))).toBe("FAILED");
  });
  it("at most 10 psi", () => {
    expect(outcome(withTables, air({ testPressurePsi: 10 }))).toBe("PASSED");
    expect(unmet(withTables, air({ testPressurePsi: 10.01 }))).toEqual(["Sewer Use Law 505 F"]);
  });
  it("a diameter the table lacks is not judged", () => expect(judgeTest(withTables, air({ nominalDiameterInches: 10 })).reason).toBe("The district's Uni-Bell table has no row for 10-inch pipe (Sewer Use Law 505 F)."));
  it("sewer vacuum: 7 to 6 inches of mercury against the 0.5 psig table", () => {
    const vac = (seconds: number): TestEntry => ({ kind: "SEWER_VACUUM", lengthFeet: 400, nominalDiameterInches: 8, seconds });
    expect(outcome(withTables, vac(152))).toBe("PASSED");
    expect(outcome(withTables, vac(151.9))).toBe("FAILED");
  });
});

describe("vacuum test of manholes (505 G): each depth band and diameter", () => {
  const cases: [depth: number, diameter: number, seconds: number][] = [
    [10, 4, 120],
    [10.01, 4, 150],
    [15, 4, 150],
    [15.01, 4, 180],
    [25, 4, 180],
    [6, 5, 150],
    [12, 5, 180],
    [20, 5, 210],
    [6, 6, 180],
    [12, 6, 210],
    [20, 6, 240],
  ];
  it.each(cases)("%s ft deep, %s ft across: %s seconds; a second less fails", (depth, diameter, seconds) => {
    expect(manholeVacuumSeconds(lakeview, depth, diameter).seconds).toBe(seconds);
    const t = (s: number): TestEntry => ({ kind: "MANHOLE_VACUUM", depthFeet: depth, manholeDiameterFeet: diameter, seconds: s });
    expect(outcome(lakeview, t(seconds))).toBe("PASSED");
    expect(outcome(lakeview, t(seconds - 1))).toBe("FAILED");
  });
  it("deeper than 25 ft or another diameter: the law states no time", () => {
    expect(judgeTest(lakeview, { kind: "MANHOLE_VACUUM", depthFeet: 25.5, manholeDiameterFeet: 4, seconds: 999 })).toMatchObject({
      outcome: "NOT_JUDGED",
      reason: "The law states no vacuum test time for a manhole deeper than 25 ft (Sewer Use Law 505 G).",
    });
    expect(manholeVacuumSeconds(lakeview, 8, 7).reason).toBe("The law states vacuum test times for 4, 5 and 6-foot manholes only, not 7-foot (Sewer Use Law 505 G).");
  });
});

describe("force main pressure test (506 B)", () => {
  // 1,000 ft of 4-inch: 25 × 4 × 1000/5280 = 18.939... gallons a day.
  const allowed = (25 * 4 * 1000) / 5280;
  const test = (over: Partial<TestEntry>): TestEntry => ({
    kind: "FORCE_MAIN",
    lengthFeet: 1000,
    nominalDiameterInches: 4,
    operatingPressurePsi: 40,
    testPressurePsi: 60,
    periodMinutes: 120,
    gallons: allowed / 12,
    ...over,
  });
  it("passes at every limit", () => expect(outcome(lakeview, test({}))).toBe("PASSED"));
  it("150% of the operating pressure", () => expect(unmet(lakeview, test({ testPressurePsi: 59.9 }))).toEqual(["Sewer Use Law 506 B"]));
  it("at least 2 hours", () => expect(unmet(lakeview, test({ periodMinutes: 119, gallons: 0 }))).toEqual(["Sewer Use Law 506 B"]));
  it("25 gallons a day per mile per inch", () => expect(unmet(lakeview, test({ gallons: (allowed + 0.01) / 12 }))).toEqual(["Sewer Use Law 506 B"]));
  it("sections of at most 1,000 ft", () => expect(unmet(lakeview, test({ lengthFeet: 1001, gallons: 0 }))).toEqual(["Sewer Use Law 506 B"]));
});

describe("materials (503 A)", () => {
  const met = (sewerType: "GRAVITY" | "LOW_PRESSURE", diameterInches: number, pvc = true) => materialsCriteria(lakeview, { sewerType, diameterInches, pvc }).map((c) => c.met);
  it("gravity sewers at least 8 inches", () => {
    expect(met("GRAVITY", 8)).toEqual([true, true]);
    expect(met("GRAVITY", 7.9)).toEqual([false, true]);
  });
  it("low-pressure sewers at least 4 inches", () => {
    expect(met("LOW_PRESSURE", 4)).toEqual([true, true]);
    expect(met("LOW_PRESSURE", 3.9)).toEqual([false, true]);
  });
  it("other than PVC needs the Operator's written approval", () => expect(met("GRAVITY", 8, false)).toEqual([true, false]));
});

describe("capacity (501): committed capacity counts as used", () => {
  const c = { designGpd: 100_000, presentUseGpd: 60_000, committedGpd: 35_000 };
  it("what is left after present use and commitments", () => expect(capacityLeft(c)).toBe(5_000));
  it("a flow of exactly what is left fits; a gallon more does not", () => {
    expect(hasCapacity(c, 5_000)).toBe(true);
    expect(hasCapacity(c, 5_001)).toBe(false);
  });
});

describe("notice of construction (502 A)", () => {
  it("30 calendar days ahead", () => {
    expect(earliestStart(lakeview, "2026-12-01")).toEqual({ date: "2026-12-31", days: 30, section: "Sewer Use Law 502 A" });
    expect(noticeProblem(lakeview, "2026-12-01", "2026-12-31")).toBeNull();
    expect(noticeProblem(lakeview, "2026-12-01", "2026-12-30")).toBe(
      "The District Operator must be told 30 days before construction starts (Sewer Use Law 502 A): a notice given on December 1, 2026 allows a start on December 31, 2026 or later.",
    );
  });
});

describe("Huron's law has no Article 5", () => {
  it("the feature is off and no figure is borrowed", () => {
    const huron = rulebook("huron");
    expect(huron.enabled("extension.provided")).toBe(false);
    for (const e of huron.entries.filter((x) => x.key.startsWith("extension."))) expect([e.key, e.value]).toEqual([e.key, e.kind === "boolean" ? false : e.kind === "table" ? [] : null]);
    expect(() => judgeTest(huron, { kind: "MANHOLE_VACUUM", depthFeet: 8, manholeDiameterFeet: 4, seconds: 200 })).toThrow(/not set/);
  });
});

describe("acceptance and the guarantee (507)", () => {
  it("four copies of the as-built drawings: 4 pass, 3 do not", () => {
    expect(asBuiltProblem(lakeview, 4)).toBeNull();
    expect(asBuiltProblem(lakeview, 3)).toBe("4 copies of the as-built drawings are filed with the District Operator before the sewer is accepted (Sewer Use Law 507); 3 filed.");
  });

  it("the one-year guarantee's last day, counted as a licence's term (a leap day included)", () => {
    expect(guaranteeLastDay(lakeview, "2026-12-02")).toEqual({ date: "2027-12-01", years: 1, section: "Sewer Use Law 507" });
    expect(guaranteeLastDay(lakeview, "2028-02-29").date).toBe("2029-02-28");
    expect(guaranteeLastDay(lakeview, "2028-03-01").date).toBe("2029-02-28");
  });

  it("final approval waits for the tests, the drawings, an inspection in accordance and the Board's charges", () => {
    const done = { testsProblem: null, asBuiltApproved: true, inspections: [{ conforms: false }, { conforms: true }], unpaidCharges: [] };
    expect(acceptanceProblems("Sewer Use Law", done)).toEqual([]);
    expect(acceptanceProblems("Sewer Use Law", { ...done, inspections: [] })).toEqual(["No construction inspection has been recorded (Sewer Use Law 502 A)."]);
    expect(acceptanceProblems("Sewer Use Law", { ...done, inspections: [{ conforms: true }, { conforms: false }] })).toEqual([
      "The latest inspection found work not in accordance with the approved plans and specifications (Sewer Use Law 502 A).",
    ]);
    expect(acceptanceProblems("Sewer Use Law", { ...done, asBuiltApproved: false, unpaidCharges: ["Proportionate share"] })).toEqual([
      "The as-built drawings are not yet approved (Sewer Use Law 507).",
      "Proportionate share set by the Town Board is not paid (Sewer Use Law 502 A).",
    ]);
  });

  it("Huron's law has no guarantee or as-built rule: the figures are null", () => {
    expect(() => guaranteeLastDay(rulebook("huron"), "2026-12-02")).toThrow();
  });
});

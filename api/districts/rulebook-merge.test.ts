import { describe, expect, it } from "vitest";
import { composeLaw, planBoardChange, planLawVersion, versionInForce, type VersionRow } from "./rulebook-merge.js";
import type { RuleEntry } from "./rulebook-schema.js";

// A small rulebook: the law's cap and petition window (statute) and the Board's fee and sample cost.
const cap = (value: number): RuleEntry => ({ key: "hauler.applicationFeeMax", kind: "money", label: "Cap", section: "Law 801", source: "statute", value });
const petition = (value: number): RuleEntry => ({ key: "enforcement.petitionDays", kind: "days", label: "Petition window", section: "Law 1104", source: "statute", value });
const fee = (value: number | null, resolution?: { number: string; adoptedOn: string }): RuleEntry => ({
  key: "hauler.applicationFee",
  kind: "money",
  label: "Fee",
  section: "Law 801",
  source: "board",
  max: { entry: "hauler.applicationFeeMax", section: "Law 801" },
  value,
  ...(resolution ? { resolution } : {}),
});
const sample = (value: number | null, resolution?: { number: string; adoptedOn: string }): RuleEntry => ({
  key: "hauler.sampleCost",
  kind: "money",
  label: "Sample cost",
  section: "Law 804",
  source: "board",
  value,
  ...(resolution ? { resolution } : {}),
});
const plans = (value: boolean): RuleEntry => ({ key: "lateral.plansRequired", kind: "boolean", label: "Plans", section: "Law 602", source: "board", value });

const R1 = { number: "2026-1", adoptedOn: "2026-01-05" };
const R2 = { number: "2026-2", adoptedOn: "2026-02-02" };
const R3 = { number: "2026-3", adoptedOn: "2026-03-02" };

const law1 = [cap(10000), petition(15), fee(10000), sample(null)];
const row = (version: number, effectiveDate: string, entries: RuleEntry[], law = false): VersionRow => ({ version, effectiveDate, law, entries });
const value = (entries: RuleEntry[], key: string) => entries.find((e) => e.key === key)?.value;
const entryOf = (entries: RuleEntry[], key: string) => entries.find((e) => e.key === key);

/** The rulebook rulebookOn would give on a date once `plan` is written after `rows`. */
function onDate(rows: VersionRow[], plan: { effectiveDate: string; entries: RuleEntry[] }[], date: string): RuleEntry[] {
  let next = Math.max(...rows.map((r) => r.version));
  return versionInForce([...rows, ...plan.map((p) => row(++next, p.effectiveDate, p.entries))], date)!.entries;
}

describe("versionInForce (rulebookOn's order)", () => {
  it("takes the latest effective date on or before the day, then the highest version", () => {
    const rows = [row(1, "2005-08-01", []), row(2, "2027-01-01", []), row(3, "2026-06-01", []), row(4, "2026-06-01", [])];
    expect(versionInForce(rows, "2026-12-31")!.version).toBe(4);
    expect(versionInForce(rows, "2027-01-01")!.version).toBe(2);
    expect(versionInForce(rows, "2005-07-31")).toBeNull();
  });
});

describe("composeLaw", () => {
  it("takes statute entries from the law and keeps the Board's figures and resolutions in force", () => {
    const inForce = [cap(10000), petition(15), fee(7500, R1), sample(5000, R2)];
    const law2 = [cap(12000), petition(20), fee(10000), sample(null), plans(true)];
    const { entries, refused } = composeLaw(law2, inForce);
    expect(entries.map((e) => [e.key, e.value, e.resolution?.number ?? null])).toEqual([
      ["hauler.applicationFeeMax", 12000, null],
      ["enforcement.petitionDays", 20, null],
      ["hauler.applicationFee", 7500, "2026-1"],
      ["hauler.sampleCost", 5000, "2026-2"],
      ["lateral.plansRequired", true, null], // a key new in the law starts from the law's file
    ]);
    expect(refused).toEqual([]);
  });

  it("lets the law win where its new bound refuses the Board's figure", () => {
    const { entries, refused } = composeLaw([cap(5000), petition(15), fee(5000), sample(null)], [cap(10000), petition(15), fee(7500, R1), sample(null)]);
    expect(entryOf(entries, "hauler.applicationFee")).toEqual(fee(5000));
    expect(refused).toEqual(["hauler.applicationFee"]);
  });

  it("takes the law's figure where the previous law fixed it itself, or its kind changed", () => {
    const wasStatute: RuleEntry = { ...sample(9900), source: "statute" };
    const { entries } = composeLaw(law1, [cap(10000), petition(15), fee(10000), wasStatute]);
    expect(value(entries, "hauler.sampleCost")).toBeNull();
  });

  it("keeps figures of rows written before entries named a source", () => {
    const legacy = { ...sample(4000) } as Partial<RuleEntry>;
    delete legacy.source;
    const { entries } = composeLaw(law1, [cap(10000), petition(15), fee(10000), legacy as RuleEntry]);
    expect(value(entries, "hauler.sampleCost")).toBe(4000);
    expect(entryOf(entries, "hauler.sampleCost")!.source).toBe("board");
  });
});

describe("planLawVersion: a law amendment loaded after Board changes", () => {
  // v1 the law of 2005; v2 the Board's sample cost from 2026-03-01; v3 the Board's fee from 2027-01-01 (adopted earlier, effective later).
  const rows = [
    row(1, "2005-08-01", law1, true),
    row(2, "2026-03-01", [cap(10000), petition(15), fee(10000), sample(5000, R2)]),
    row(3, "2027-01-01", [cap(10000), petition(15), fee(8000, R3), sample(5000, R2)]),
  ];
  const law2 = { effectiveDate: "2026-06-01", entries: [cap(12000), petition(20), fee(10000), sample(null), plans(true)] };

  it("keeps on its date the Board's figures in force then, and carries the law into the later Board version", () => {
    const plan = planLawVersion(rows, law2);
    expect(plan.map((p) => [p.effectiveDate, p.carriedInto])).toEqual([
      ["2026-06-01", null],
      ["2027-01-01", 3],
    ]);
    const june = onDate(rows, plan, "2026-06-01");
    expect([value(june, "enforcement.petitionDays"), value(june, "hauler.sampleCost"), value(june, "hauler.applicationFee")]).toEqual([20, 5000, 10000]);
    expect(entryOf(june, "hauler.sampleCost")!.resolution).toEqual(R2);
    const jan = onDate(rows, plan, "2027-01-01");
    expect([value(jan, "enforcement.petitionDays"), value(jan, "hauler.applicationFeeMax"), value(jan, "hauler.applicationFee"), value(jan, "lateral.plansRequired")]).toEqual([
      20, 12000, 8000, true,
    ]);
    expect(entryOf(jan, "hauler.applicationFee")!.resolution).toEqual(R3);
    // Before the amendment nothing changes.
    expect(value(onDate(rows, plan, "2026-05-31"), "enforcement.petitionDays")).toBe(15);
  });

  it("stops at the next law version's date", () => {
    const later = [...rows, row(4, "2026-09-01", [cap(15000), petition(30), fee(10000), sample(5000, R2), plans(false)], true)];
    const plan = planLawVersion(later, law2);
    expect(plan.map((p) => p.effectiveDate)).toEqual(["2026-06-01"]);
  });

  it("adds a key the law now has to every later version (the same effective date, as when a key is added to the shipped file)", () => {
    const sameDay = { effectiveDate: "2005-08-01", entries: [...law1, plans(true)] };
    const plan = planLawVersion(rows, sameDay);
    expect(plan.map((p) => [p.effectiveDate, p.carriedInto])).toEqual([
      ["2005-08-01", null],
      ["2026-03-01", 2],
      ["2027-01-01", 3],
    ]);
    for (const d of ["2005-08-01", "2026-03-01", "2027-01-01"]) expect(value(onDate(rows, plan, d), "lateral.plansRequired")).toBe(true);
    expect(value(onDate(rows, plan, "2027-01-01"), "hauler.applicationFee")).toBe(8000);
  });

  it("writes nothing more when the later versions already agree", () => {
    expect(planLawVersion(rows, { effectiveDate: "2027-06-01", entries: law1 })).toHaveLength(1);
  });
});

describe("planBoardChange: a Board change and later versions", () => {
  const rows = [
    row(1, "2005-08-01", law1, true),
    row(2, "2027-01-01", [cap(12000), petition(20), fee(10000), sample(null)], true), // an amendment already loaded, effective later
    row(3, "2027-06-01", [cap(12000), petition(20), fee(11000, R3), sample(null)]),
  ];

  it("is carried into the later law version, and not over a later resolution of its own", () => {
    const plan = planBoardChange(rows, { effectiveDate: "2026-12-01", changes: [fee(9000, R1), sample(2500, R1)] });
    expect(plan.map((p) => [p.effectiveDate, p.carriedInto])).toEqual([
      ["2026-12-01", null],
      ["2027-01-01", 2],
      ["2027-06-01", 3],
    ]);
    const jan = onDate(rows, plan, "2027-01-01");
    expect([value(jan, "enforcement.petitionDays"), value(jan, "hauler.applicationFee"), value(jan, "hauler.sampleCost")]).toEqual([20, 9000, 2500]);
    const june = onDate(rows, plan, "2027-06-01");
    expect([value(june, "hauler.applicationFee"), value(june, "hauler.sampleCost")]).toEqual([11000, 2500]);
    expect(entryOf(june, "hauler.applicationFee")!.resolution).toEqual(R3);
  });

  it("is not carried past a bound the later law sets", () => {
    // The 2027 law lowers the cap to $80.00; the fee in force, $50.00, was within both.
    const lower = [
      row(1, "2005-08-01", [cap(10000), petition(15), fee(5000), sample(null)], true),
      row(2, "2027-01-01", [cap(8000), petition(20), fee(5000), sample(null)], true),
    ];
    const plan = planBoardChange(lower, { effectiveDate: "2026-12-01", changes: [fee(9000, R1), sample(2500, R1)] });
    expect(value(onDate(lower, plan, "2026-12-01"), "hauler.applicationFee")).toBe(9000);
    const jan = onDate(lower, plan, "2027-01-01");
    expect([value(jan, "hauler.applicationFee"), value(jan, "hauler.sampleCost")]).toEqual([5000, 2500]);
    expect(plan[1].refused).toEqual(["hauler.applicationFee"]);
  });

  it("refuses a date with no rulebook in force", () => {
    expect(() => planBoardChange(rows, { effectiveDate: "2000-01-01", changes: [fee(1, R1)] })).toThrow(/no rulebook in force/);
  });
});

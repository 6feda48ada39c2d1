import { describe, expect, it } from "vitest";
import { Rulebook, shippedDistrictFiles } from "../districts/districts.service.js";
import type { RulebookVersion } from "../districts/rulebook-version.entity.js";
import type { RuleEntry } from "../districts/rulebook-schema.js";
import { articleSection, chargesInflow, determinationProblems, disconnectionRequired, enforceable, inflowSurcharge, inflowSurchargeCents, inspectsAtSale, issuesCertificate, judgeVisit, orderDeadlineProblem, orderReminder, parseSaleDate } from "./rules.js";

// The law's figures (SUL 702, 705; Huron III-8) at the limit and just past it, from the shipped rulebooks.

function rulebook(slug: string, values: Record<string, unknown> = {}): Rulebook {
  const f = shippedDistrictFiles().find((x) => x.district.slug === slug)!;
  const entries = f.rulebook.entries.map((e) => (e.key in values ? ({ ...e, value: values[e.key] } as RuleEntry) : e));
  return new Rulebook({ version: 1, entries } as unknown as RulebookVersion);
}
const lakeview = rulebook("lakeview");
const huron = rulebook("huron");
const sump = [{ kind: "SUMP_PUMP" as const, state: "CONNECTED" as const }];

describe("SUL 702: a storm sewer within 100 feet of the property line", () => {
  it("at 100 feet disconnection is required; at 101 feet (and 100.1) it is not, unless natural drainage is sufficient", () => {
    expect(disconnectionRequired(lakeview, { stormSewerFeet: 100, naturalDrainageAdequate: false })).toMatchObject({ required: true, section: "Sewer Use Law 702" });
    expect(disconnectionRequired(lakeview, { stormSewerFeet: 101, naturalDrainageAdequate: false }).required).toBe(false);
    expect(disconnectionRequired(lakeview, { stormSewerFeet: 100.1, naturalDrainageAdequate: false }).required).toBe(false);
    expect(disconnectionRequired(lakeview, { stormSewerFeet: 0, naturalDrainageAdequate: false }).required).toBe(true);
    expect(disconnectionRequired(lakeview, { stormSewerFeet: null, naturalDrainageAdequate: false })).toMatchObject({ required: false });
    expect(disconnectionRequired(lakeview, { stormSewerFeet: null, naturalDrainageAdequate: false }).reason).toMatch(/no separate storm sewer/);
  });
  it("the District Operator's judgement that natural drainage is sufficient requires it whatever the distance", () => {
    const j = disconnectionRequired(lakeview, { stormSewerFeet: 101, naturalDrainageAdequate: true });
    expect(j.required).toBe(true);
    expect(j.reason).toMatch(/natural drainage sufficient/);
    expect(disconnectionRequired(lakeview, { stormSewerFeet: null, naturalDrainageAdequate: true }).required).toBe(true);
  });
  it("the figure is the rulebook's, not a constant", () => {
    const at150 = rulebook("lakeview", { "inflow.stormSewerWithinFeet": 150 });
    expect(disconnectionRequired(at150, { stormSewerFeet: 150, naturalDrainageAdequate: false }).required).toBe(true);
    expect(disconnectionRequired(at150, { stormSewerFeet: 151, naturalDrainageAdequate: false }).required).toBe(false);
  });
});

describe("a visit judged", () => {
  it("a sump pump connected with a storm sewer at 100 feet: a disconnection order; at 101 feet with no drainage: passes (702 does not require it)", () => {
    expect(judgeVisit(lakeview, { sources: sump, stormSewerFeet: 100, naturalDrainageAdequate: false }).outcome).toBe("ORDERED");
    const far = judgeVisit(lakeview, { sources: sump, stormSewerFeet: 101, naturalDrainageAdequate: false });
    expect(far.outcome).toBe("PASSED");
    expect(far.basis).toMatch(/not required/);
  });
  it("every source disconnected passes and issues the certificate under the SUL", () => {
    const j = judgeVisit(lakeview, { sources: [{ kind: "SUMP_PUMP", state: "DISCONNECTED" }], stormSewerFeet: 40, naturalDrainageAdequate: false });
    expect(j.outcome).toBe("PASSED");
    expect(issuesCertificate(lakeview, j.outcome)).toBe(true);
  });
  it("a source reconnected after its disconnection is ordered disconnected again even where 702 would not require it (704)", () => {
    const j = judgeVisit(lakeview, { sources: [{ kind: "SUMP_PUMP", state: "RECONNECTED" }], stormSewerFeet: null, naturalDrainageAdequate: false });
    expect(j.outcome).toBe("ORDERED");
    expect(j.basis).toMatch(/Sewer Use Law 704/);
  });
  it("Huron: no 100 feet and no inspection at sale; any connection is a violation of III-8, and no certificate", () => {
    expect(inspectsAtSale(huron)).toBe(false);
    const j = judgeVisit(huron, { sources: [{ kind: "ROOF_LEADER", state: "CONNECTED" }], stormSewerFeet: 500, naturalDrainageAdequate: false });
    expect(j.outcome).toBe("VIOLATION");
    expect(j.disconnection.section).toBe("Huron III-8");
    const pass = judgeVisit(huron, { sources: [], stormSewerFeet: null, naturalDrainageAdequate: false });
    expect(pass.outcome).toBe("PASSED");
    expect(issuesCertificate(huron, pass.outcome)).toBe(false);
  });
});

describe("enforcement from a finding", () => {
  it("SUL 704: only a source reconnected after its disconnection", () => {
    expect(enforceable(lakeview, "RECONNECTED")).toEqual({ ok: true, section: "Sewer Use Law 704" });
    expect(enforceable(lakeview, "CONNECTED").ok).toBe(false);
    expect(enforceable(lakeview, "DISCONNECTED").ok).toBe(false);
  });
  it("Huron III-8 with Article V: any connection found", () => {
    expect(enforceable(huron, "CONNECTED")).toEqual({ ok: true, section: "Huron III-8" });
    expect(enforceable(huron, "DISCONNECTED").ok).toBe(false);
  });
  it("sections of Article 7 are named from the rulebook", () => {
    expect(articleSection(lakeview, 703)).toBe("Sewer Use Law 703");
  });
});

describe("SUL 705: the inflow surcharge, at most five times the normal volume charge", () => {
  it("none until the Town Board sets a rate: no surcharge", () => {
    expect(inflowSurcharge(lakeview)).toMatchObject({ factor: null, maxFactor: 5, problem: null });
    expect(inflowSurchargeCents(lakeview, 10_000).cents).toBe(0);
  });
  it("at five times it is billed; past five (5.01) it is refused", () => {
    const at5 = rulebook("lakeview", { "billing.inflowSurchargeFactor": 5 });
    expect(inflowSurchargeCents(at5, 10_000)).toEqual({ cents: 50_000, section: "Sewer Use Law 705" });
    const past = rulebook("lakeview", { "billing.inflowSurchargeFactor": 5.01 });
    expect(inflowSurcharge(past).problem).toMatch(/at most 5 times/);
    expect(() => inflowSurchargeCents(past, 10_000)).toThrow(/at most 5 times/);
    expect(inflowSurchargeCents(rulebook("lakeview", { "billing.inflowSurchargeFactor": 1.5 }), 333).cents).toBe(500);
  });
  it("Huron sets no surcharge and provides none for its Board", () => {
    expect(inflowSurcharge(huron)).toMatchObject({ factor: null, maxFactor: null });
    expect(inflowSurcharge(rulebook("huron", { "billing.inflowSurchargeFactor": 2 })).problem).toMatch(/provides no inflow surcharge/);
  });
});

describe("the disconnection order's date and the assessor's dates", () => {
  it("the Operator sets the date; it must be after the day of the visit", () => {
    expect(orderDeadlineProblem("2026-12-01", null)).toMatch(/you set it/);
    expect(orderDeadlineProblem("2026-12-01", "2026-12-01")).toMatch(/after the day of the inspection/);
    expect(orderDeadlineProblem("2026-12-01", "2026-12-02")).toBeNull();
    expect(orderDeadlineProblem("2026-12-01", "2026-13-01")).toMatch(/like/);
  });
  it("parses 2026-12-31 and 12/31/2026, refuses impossible dates", () => {
    expect(parseSaleDate("12/31/2026")).toBe("2026-12-31");
    expect(parseSaleDate("2026-02-29")).toBeNull();
    expect(parseSaleDate("2028-02-29")).toBe("2028-02-29");
  });
});

describe("SUL 705: the District Operator's determination of the amount of inflow", () => {
  const ok = { periodFrom: "2026-06-01", periodTo: "2026-06-30", gallons: 12_000, method: "PUMP_RUN_TIME", note: "40 hours at 5 gallons a minute", controlManholeBy: null };
  it("the law has it in Lakeview, not in Huron (III-8)", () => {
    expect(chargesInflow(lakeview)).toBe(true);
    expect(chargesInflow(huron)).toBe(false);
  });
  it("a period not after today, 1 gallon or more, a method, a note; a control manhole's day after today", () => {
    expect(determinationProblems(ok, "2026-06-30")).toEqual({});
    expect(determinationProblems({ ...ok, gallons: 1 }, "2026-06-30")).toEqual({});
    expect(Object.keys(determinationProblems({ ...ok, periodTo: "2026-07-01" }, "2026-06-30"))).toEqual(["periodTo"]);
    expect(Object.keys(determinationProblems({ ...ok, periodFrom: "2026-07-01" }, "2026-07-01"))).toEqual(["periodTo"]);
    expect(Object.keys(determinationProblems({ ...ok, gallons: 0 }, "2026-06-30"))).toEqual(["gallons"]);
    expect(Object.keys(determinationProblems({ ...ok, gallons: 1.5 }, "2026-06-30"))).toEqual(["gallons"]);
    expect(Object.keys(determinationProblems({ ...ok, method: "GUESS", note: null }, "2026-06-30")).sort()).toEqual(["method", "note"]);
    expect(Object.keys(determinationProblems({ ...ok, controlManholeBy: "2026-06-30" }, "2026-06-30"))).toEqual(["controlManholeBy"]);
    expect(determinationProblems({ ...ok, controlManholeBy: "2026-07-01" }, "2026-06-30")).toEqual({});
  });
});

describe("a disconnection order's reminders, once per date", () => {
  const none = { reminded: null, lapse: null };
  it("the owner from 14 days before the date through the date; the Operators the day after", () => {
    expect(orderReminder("2027-03-15", none, "2027-02-28")).toBeNull(); // 15 days before
    expect(orderReminder("2027-03-15", none, "2027-03-01")).toBe("REMIND"); // 14 days before
    expect(orderReminder("2027-03-15", none, "2027-03-15")).toBe("REMIND"); // its last day
    expect(orderReminder("2027-03-15", { reminded: "2027-03-15", lapse: null }, "2027-03-15")).toBeNull();
    expect(orderReminder("2027-03-15", { reminded: "2027-03-15", lapse: null }, "2027-03-16")).toBe("LAPSED");
    expect(orderReminder("2027-03-15", { reminded: "2027-03-15", lapse: "2027-03-15" }, "2027-04-01")).toBeNull();
    // A new order with a new date is reminded again.
    expect(orderReminder("2027-05-01", { reminded: "2027-03-15", lapse: "2027-03-15" }, "2027-04-20")).toBe("REMIND");
  });
});

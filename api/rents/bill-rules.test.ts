import { describe, expect, it } from "vitest";
import { Rulebook, shippedDistrictFiles } from "../districts/districts.service.js";
import type { RulebookVersion } from "../districts/rulebook-version.entity.js";
import {
  billingCycles,
  billingPeriod,
  boardTasksForBills,
  daysServed,
  divRound,
  farFromHistory,
  fixedPart,
  huronUserCharge,
  inflowCharge,
  mailingAndDue,
  ownersExcess,
  reinstatementMinimums,
  surcharge,
  surchargeRates,
  useCharge,
  variablePart,
  yearDays,
} from "./bill-rules.js";

/** The law's shipped rulebook, with the Board's figures a test sets (the law sets none of them). */
const rulebook = (slug: string, board: Record<string, unknown> = {}) => {
  const f = shippedDistrictFiles().find((x) => x.district.slug === slug)!;
  const entries = f.rulebook.entries.map((e: any) => (e.key in board ? { ...e, value: board[e.key] } : e));
  return new Rulebook({ id: slug, version: 1, entries } as unknown as RulebookVersion);
};
// Board figures of a resolution: $120,000 of fixed costs for 2026, $6.50 per 1,000 gallons.
const lakeview = rulebook("lakeview", { "billing.fixedCostsPerYear": 12_000_000, "billing.volumeChargePer1000Gallons": 650 });
// Huron VII: a minimum of $45.00 a period and $5.00 per 1,000 gallons.
const huron = rulebook("huron", { "billing.minimumCharge": 4500, "billing.volumeChargePer1000Gallons": 500 });
const Q1 = { start: "2026-01-01", end: "2026-03-31" };

describe("SUL 1203: the fixed part, the Town's fixed costs divided by the district's EDUs", () => {
  // 400 EDUs served the whole quarter: 400,000 thousandths × 90 days.
  const district = 400_000n * 90n;
  it("one EDU for a whole quarter pays $120,000 / 400 EDUs × 90/365 of the fiscal year = $73.97", () => {
    const l = fixedPart(lakeview, { eduThousandths: 1000, days: 90, periodDays: 90, yearDays: 365, districtEduDays: district })!;
    expect(l).toMatchObject({ kind: "FIXED", amountCents: 7397, section: "Sewer Use Law 1203" });
    expect(l.rate).toContain("$73.97 per EDU for the period (90 of 365 days");
    expect(l.description).toContain("$120,000.00");
    expect(l.description).toContain("400 EDUs");
  });
  it("an office of 12,345 square feet (12.345 EDUs) pays $913.19 (12.345 times as much, rounded once)", () => {
    expect(fixedPart(lakeview, { eduThousandths: 12_345, days: 90, periodDays: 90, yearDays: 365, districtEduDays: district })!.amountCents).toBe(91_319);
  });
  it("no line while the Board has not set the fixed costs (and fixedChargePerEdu is not read)", () => {
    const unset = rulebook("lakeview", { "billing.fixedChargePerEdu": 5000 });
    expect(fixedPart(unset, { eduThousandths: 1000, days: 90, periodDays: 90, yearDays: 365, districtEduDays: district })).toBeNull();
    expect(boardTasksForBills(unset).map((t) => t.key)).toEqual(["billing.fixedCostsPerYear", "billing.volumeChargePer1000Gallons", "surcharge", "surcharge"]);
  });
  it("the fiscal year of SUL 1211 has 366 days in a leap year", () => {
    expect([yearDays("2026-01-01"), yearDays("2028-04-01")]).toEqual([365, 366]);
  });
});

describe("first and final bills: the days served", () => {
  it("an account opened February 15 pays for 45 of Q1's 90 days", () => {
    const s = daysServed(Q1, "2026-02-15", null)!;
    expect(s).toEqual({ from: "2026-02-15", to: "2026-03-31", days: 45, periodDays: 90 });
    expect(fixedPart(lakeview, { eduThousandths: 1000, days: s.days, periodDays: 90, yearDays: 365, districtEduDays: 400_000n * 90n })!.amountCents).toBe(3699);
  });
  it("a final bill runs to the last day served; an account closed before the period is not billed", () => {
    expect(daysServed(Q1, "2020-05-01", "2026-02-14")).toMatchObject({ from: "2026-01-01", to: "2026-02-14", days: 45 });
    expect(daysServed(Q1, "2026-03-31", "2026-03-31")).toMatchObject({ days: 1 });
    expect(daysServed(Q1, "2020-05-01", "2025-12-31")).toBeNull();
  });
});

describe("SUL 1203, 1205: the variable part per 1,000 gallons, less a deduction granted", () => {
  it("12,000 gallons at $6.50 per 1,000 are $78.00", () => {
    expect(variablePart(lakeview, { gallons: 12_000, sewerPercent: null })).toMatchObject({ kind: "VOLUME", amountCents: 7800, quantity: "12,000 gallons", rate: "$6.50 per 1,000 gallons" });
  });
  it("with 80% of the metered water granted as the basis (SUL 1205), 9,600 gallons: $62.40", () => {
    const l = variablePart(lakeview, { gallons: 12_000, sewerPercent: 80, deductionSection: "Sewer Use Law 1205" })!;
    expect(l.amountCents).toBe(6240);
    expect(l.quantity).toBe("12,000 gallons metered × 80% reaching the sewer (deduction granted, Sewer Use Law 1205) = 9,600 gallons");
  });
  it("a half cent rounds up once: 1,001 gallons at $6.50 are $6.5065 → $6.51; 77 gallons $0.5005 → $0.50", () => {
    expect(variablePart(lakeview, { gallons: 1001, sewerPercent: null })!.amountCents).toBe(651);
    expect(variablePart(lakeview, { gallons: 77, sewerPercent: null })!.amountCents).toBe(50);
    expect(divRound(5n, 10n)).toBe(1);
    expect(divRound(-5n, 10n)).toBe(-1);
  });
});

describe("SUL 1202: surcharge above the strengths of normal sewage (201)", () => {
  // The Board's rates (a resolution): $0.30 a pound of BOD, $0.25 a pound of suspended solids.
  const rated = rulebook("lakeview", { "billing.surchargePerPoundBod": 30, "billing.surchargePerPoundSuspendedSolids": 25 });
  const rates = surchargeRates(rated);
  it("the surcharged strengths and their ceilings come from the 201 table: BOD 250 mg/L, suspended solids 300 mg/L", () => {
    expect(rates.map((r) => [r.parameter, r.normalMgL, r.ratePerPoundCents, r.section])).toEqual([
      ["BOD (5-day)", 250, 30, "Sewer Use Law 1202"],
      ["Suspended solids", 300, 25, "Sewer Use Law 1202"],
    ]);
  });
  it("BOD averaging 412 mg/L over 120,000 gallons: (412 − 250) × 8.34 × 0.12 = 162.1 lb, at $0.30 a pound $48.63, with the concentrations and the formula on the line", () => {
    const lines = surcharge(rates, [{ parameter: "BOD", concentrationMgL: 400 }, { parameter: "BOD5", concentrationMgL: 424 }], 120_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ kind: "SURCHARGE", amountCents: 4863, rate: "$0.30 per pound", section: "Sewer Use Law 1202" });
    expect(lines[0].quantity).toBe("(412 − 250) mg/L × 8.34 lb per million gallons per mg/L × 0.12 million gallons = 162.1 lb");
    expect(lines[0].description).toContain("average 412 mg/L in 2 results for the period, normal sewage 250 mg/L (Sewer Use Law 201 (Sewage, Normal))");
  });
  it("at the 201 ceiling exactly, no surcharge; 1 mg/L above it over 120,000 gallons, 1.0 lb: $0.25", () => {
    expect(surcharge(rates, [{ parameter: "Suspended solids", concentrationMgL: 300 }], 120_000)).toEqual([]);
    expect(surcharge(rates, [{ parameter: "TSS", concentrationMgL: 301 }], 120_000)[0]).toMatchObject({ amountCents: 25, quantity: expect.stringContaining("= 1.0 lb") });
    expect(surcharge(rates, [{ parameter: "BOD (5-day)", concentrationMgL: 250 }], 120_000)).toEqual([]);
    expect(surcharge(rates, [{ parameter: "BOD (5-day)", concentrationMgL: 251 }], 120_000)[0].amountCents).toBe(30);
  });
  it("no Board rate: no surcharge line, and the Board's tasks say so, one per strength", () => {
    expect(surcharge(surchargeRates(lakeview), [{ parameter: "BOD (5-day)", concentrationMgL: 900 }], 120_000)).toEqual([]);
    expect(boardTasksForBills(lakeview).map((t) => t.key)).toEqual(["surcharge", "surcharge"]);
    expect(boardTasksForBills(lakeview)[0].text).toContain("Sewer Use Law 1202");
    expect(boardTasksForBills(rated).map((t) => t.key)).not.toContain("surcharge");
  });
  it("Huron's law has no normal-sewage strengths and no surcharge: no rates, no task", () => {
    expect(surchargeRates(huron)).toEqual([]);
    expect(boardTasksForBills(huron)).toEqual([]);
  });
});

describe("Huron VI-5: a residence reinstated within twelve months pays the minimum charges of the time it was discontinued", () => {
  it("discontinued March 31, reinstated July 1: the second quarter, one minimum of $45.00", () => {
    expect(reinstatementMinimums(huron, { discontinuedLastDay: "2026-03-31", reinstatedOn: "2026-07-01", periodMonths: 3 })).toMatchObject({
      kind: "REINSTATEMENT_MINIMUMS",
      amountCents: 4500,
      section: "Huron VI-5",
      quantity: "91 days discontinued, April 1, 2026 to June 30, 2026, over 1 billing period",
    });
  });
  it("part of a period pays for its days: May 15 to June 30 is 47 of the quarter's 91 days, $23.24", () => {
    expect(reinstatementMinimums(huron, { discontinuedLastDay: "2026-05-14", reinstatedOn: "2026-07-01", periodMonths: 3 })!.amountCents).toBe(2324);
  });
  it("reinstated twelve months to the day after the filing: three whole quarters and 90 of 91 days; one day later, nothing by this rule", () => {
    // 4,500 × 3 + round(4,500 × 90 / 91) = 13,500 + 4,451
    expect(reinstatementMinimums(huron, { discontinuedLastDay: "2025-06-30", reinstatedOn: "2026-06-30", periodMonths: 3 })!.amountCents).toBe(17_951);
    expect(reinstatementMinimums(huron, { discontinuedLastDay: "2025-06-30", reinstatedOn: "2026-07-01", periodMonths: 3 })).toBeNull();
  });
  it("no line without the Board's minimum, and none under the Sewer Use Law (it has no such rule)", () => {
    expect(reinstatementMinimums(rulebook("huron"), { discontinuedLastDay: "2026-03-31", reinstatedOn: "2026-07-01", periodMonths: 3 })).toBeNull();
    expect(reinstatementMinimums(rulebook("lakeview", { "billing.minimumCharge": 4500 }), { discontinuedLastDay: "2026-03-31", reinstatedOn: "2026-07-01", periodMonths: 3 })).toBeNull();
  });
});

describe("billing periods: SUL 1206 monthly for industrial users, quarterly for the others; Huron VI-3 the Board's, at least three months", () => {
  it("Lakeview has two cycles", () => {
    expect(billingCycles(lakeview).map((c) => [c.cycle, c.months])).toEqual([["INDUSTRIAL", 1], ["OTHER", 3]]);
    expect(billingPeriod(lakeview, "INDUSTRIAL", "2026-02-01")).toMatchObject({ ok: true, end: "2026-02-28", classes: ["INDUSTRIAL"], section: "Sewer Use Law 1206" });
    expect(billingPeriod(lakeview, "OTHER", "2026-04-01")).toMatchObject({ ok: true, end: "2026-06-30", classes: ["RESIDENTIAL", "COMMERCIAL", "INSTITUTIONAL"] });
    expect(billingPeriod(lakeview, "OTHER", "2026-02-01")).toMatchObject({ ok: false, field: "periodStart", message: "Periods of 3 months start in January, April, July, October (Sewer Use Law 1206)." });
    expect(billingPeriod(lakeview, "OTHER", "2026-04-02")).toMatchObject({ ok: false, field: "periodStart" });
    expect(billingPeriod(lakeview, "ALL", "2026-04-01")).toMatchObject({ ok: false, field: "cycle" });
  });
  it("Huron bills every class on the Board's one period of three months", () => {
    expect(billingCycles(huron).map((c) => [c.cycle, c.months])).toEqual([["ALL", 3]]);
    expect(billingPeriod(huron, "ALL", "2026-01-01")).toMatchObject({ ok: true, end: "2026-03-31", section: "Huron VI-3" });
  });
});

describe("Huron VI-3: mailed on or after the first of the month after the period, due 15 days after mailing", () => {
  it("Q1 bills cannot be mailed March 31; mailed April 1 they are due April 16", () => {
    expect(mailingAndDue(huron, "2026-03-31", "2026-03-31")).toMatchObject({ ok: false, message: "The bills cannot be mailed before April 1, 2026 (Huron VI-3: bills are mailed on or after the first day of the month after the period)." });
    expect(mailingAndDue(huron, "2026-03-31", "2026-04-01")).toMatchObject({ ok: true, dueOn: "2026-04-16", dueText: "Due on or before April 16, 2026, 15 days after mailing (Huron VI-3)." });
    expect(mailingAndDue(huron, "2026-03-31", "2026-04-10")).toMatchObject({ ok: true, dueOn: "2026-04-25" });
  });
  it("SUL 1118 sets no due date: the bill reads the 20th day after billing, when it defaults", () => {
    expect(mailingAndDue(lakeview, "2026-03-31", "2026-04-01")).toMatchObject({ ok: true, dueOn: "2026-04-21", section: "Sewer Use Law 1118" });
    expect((mailingAndDue(lakeview, "2026-03-31", "2026-04-01") as any).dueText).toContain("penalty of 20%");
  });
});

describe("Huron VI-2, VI-5, VII: a minimum per user; users behind one meter each pay it and the owner the excess", () => {
  it("a user alone on a meter pays the minimum, and the use charge above it", () => {
    expect(huronUserCharge(huron, { days: 90, periodDays: 90, useCents: useCharge(huron, 5000), usersBehindMeter: 1 }).lines.map((l) => [l.kind, l.amountCents])).toEqual([["MINIMUM", 4500]]);
    expect(huronUserCharge(huron, { days: 90, periodDays: 90, useCents: useCharge(huron, 15_000), usersBehindMeter: 1 }).lines.map((l) => [l.kind, l.amountCents])).toEqual([
      ["MINIMUM", 4500],
      ["USE_ABOVE_MINIMUM", 3000],
    ]);
  });
  it("three users behind one meter using 40,000 gallons ($200.00) each pay $45.00; the owner pays the $65.00 excess", () => {
    const use = useCharge(huron, 40_000)!;
    expect(use).toBe(20_000);
    for (let i = 0; i < 3; i++) expect(huronUserCharge(huron, { days: 90, periodDays: 90, useCents: use, usersBehindMeter: 3 }).lines.map((l) => [l.kind, l.amountCents])).toEqual([["MINIMUM", 4500]]);
    expect(ownersExcess(use, 3 * 4500, 3, "Huron VI-2")).toMatchObject({ kind: "OWNER_EXCESS", amountCents: 6500, section: "Huron VI-2" });
    expect(ownersExcess(useCharge(huron, 20_000)!, 3 * 4500, 3, "Huron VI-2")).toBeNull();
  });
  it("VI-5: an unoccupied residence pays the minimum with no use; a first bill pays it for the days served", () => {
    const vacant = huronUserCharge(huron, { days: 90, periodDays: 90, useCents: 0, usersBehindMeter: 1, occupancy: "UNOCCUPIED" }).lines;
    expect(vacant).toHaveLength(1);
    expect(vacant[0]).toMatchObject({ amountCents: 4500 });
    expect(vacant[0].description).toContain("Huron VI-5");
    expect(huronUserCharge(huron, { days: 45, periodDays: 90, useCents: 0, usersBehindMeter: 1 }).lines[0].amountCents).toBe(2250);
  });
  it("no minimum set by the Board: no line, a task", () => {
    expect(huronUserCharge(rulebook("huron"), { days: 90, periodDays: 90, useCents: null, usersBehindMeter: 1 })).toMatchObject({ lines: [], task: expect.stringContaining("Huron VII") });
  });
});

describe("what a preview flags", () => {
  const history = [
    { from: "2025-01-01", to: "2025-03-31", gallons: 9000 },
    { from: "2025-04-01", to: "2025-06-30", gallons: 9100 },
  ];
  it("use more than double or under half the account's own average per day", () => {
    expect(farFromHistory(9000, 90, history).far).toBe(false);
    expect(farFromHistory(40_000, 90, history).far).toBe(true);
    expect(farFromHistory(2000, 90, history).far).toBe(true);
    expect(farFromHistory(2000, 90, []).far).toBe(false);
  });
});

describe("SUL 705: inflow billed according to Article 12, and the Board's surcharge of at most five times", () => {
  const june = { gallons: 12_000, from: "2026-06-01", to: "2026-06-30", methodLabel: "Metered at a control manhole" };
  it("the Board's factor null: the volume line only, 12,000 gallons × $6.50 per 1,000 = $78.00, with its figure, rate and section, and the flag", () => {
    const c = inflowCharge(lakeview, june);
    expect(c.lines).toEqual([
      {
        kind: "INFLOW",
        description: "Inflow, Sewer Use Law 705: determined by the District Operator for June 1, 2026 to June 30, 2026 (metered at a control manhole), billed according to Article 12",
        quantity: "12,000 gallons of inflow",
        rate: "$6.50 per 1,000 gallons, the normal sewage volume charge (Sewer Use Law 1203)",
        amountCents: 7800,
        section: "Sewer Use Law 705",
      },
    ]);
    expect(c.flag).toEqual({ code: "INFLOW_BILLED", text: "Inflow billed (Sewer Use Law 705): 12,000 gallons determined for June 1, 2026 to June 30, 2026" });
    expect(c.problem).toBeNull();
  });
  it("the Board's factor at the cap, 5: a surcharge of 5 × $78.00 = $390.00; 1.5 on 333 gallons' $2.16 is $3.24 (half up once)", () => {
    const at5 = rulebook("lakeview", { "billing.volumeChargePer1000Gallons": 650, "billing.inflowSurchargeFactor": 5 });
    const c = inflowCharge(at5, june);
    expect(c.lines.map((l) => [l.kind, l.amountCents, l.section])).toEqual([
      ["INFLOW", 7800, "Sewer Use Law 705"],
      ["INFLOW_SURCHARGE", 39_000, "Sewer Use Law 705"],
    ]);
    expect(c.lines[1]).toMatchObject({ description: "Inflow surcharge, Sewer Use Law 705: set by the Town Board", quantity: "$78.00 inflow volume charge", rate: "5 times the normal sewage volume charge (at most 5, Sewer Use Law 705)" });
    const half = inflowCharge(rulebook("lakeview", { "billing.volumeChargePer1000Gallons": 650, "billing.inflowSurchargeFactor": 1.5 }), { ...june, gallons: 333 });
    expect(half.lines.map((l) => l.amountCents)).toEqual([216, 324]);
  });
  it("5.01, past the cap: no surcharge line, the volume line still, and the problem for the Clerk", () => {
    const past = inflowCharge(rulebook("lakeview", { "billing.volumeChargePer1000Gallons": 650, "billing.inflowSurchargeFactor": 5.01 }), june);
    expect(past.lines.map((l) => l.kind)).toEqual(["INFLOW"]);
    expect(past.problem).toMatch(/at most 5 times the normal sewage volume charge \(Sewer Use Law 705\); 5.01 is set/);
  });
  it("zero gallons: no line and no flag; no volume charge set by the Board: no line", () => {
    expect(inflowCharge(lakeview, { ...june, gallons: 0 })).toEqual({ lines: [], flag: null, problem: null });
    expect(inflowCharge(rulebook("lakeview"), june).lines).toEqual([]);
  });
  it("Huron (III-8 forbids inflow, sets no charge): no line, whatever the gallons and the rate", () => {
    expect(inflowCharge(huron, june)).toEqual({ lines: [], flag: null, problem: null });
  });
});

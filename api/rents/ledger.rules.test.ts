import { describe, expect, it } from "vitest";
import { Rulebook, shippedDistrictFiles } from "../districts/districts.service.js";
import type { RulebookVersion } from "../districts/rulebook-version.entity.js";
import { agingBucket, lateChargesDue, type LateCharge } from "./ledger.rules.js";

/** Late charges of a sewer bill with the laws' own figures (SUL 1118; Huron VI-3), at the limit and just past it. */
const shipped = (slug: string) => {
  const f = shippedDistrictFiles().find((x) => x.district.slug === slug)!;
  return new Rulebook({ id: slug, version: 1, entries: f.rulebook.entries } as unknown as RulebookVersion);
};
const keys = (l: LateCharge[]) => l.map((c) => c.key);

describe("SUL 1118: 20 calendar days from billing, 20% of the original bill, 2% a month on the unpaid balance", () => {
  const rb = shipped("lakeview");
  const bill = { id: "b1", number: "LKV-202603-0000001", totalCents: 10_000, mailedOn: "2026-04-01" };
  it("day 20 is on time; day 21 adds the penalty and the first month of interest", () => {
    expect(lateChargesDue(rb, bill, 10_000, new Set(), "2026-04-21")).toEqual([]);
    const late = lateChargesDue(rb, bill, 10_000, new Set(), "2026-04-22");
    expect(late.map((c) => [c.kind, c.amountCents, c.effectiveOn, c.section])).toEqual([
      ["PENALTY", 2000, "2026-04-22", "Sewer Use Law 1118"],
      ["INTEREST", 200, "2026-04-22", "Sewer Use Law 1118"],
    ]);
  });
  it("each month begun from the billing date adds 2% of what of the bill is unpaid; posted charges are not added again", () => {
    const posted = new Set(["penalty:b1", "interest:b1:1"]);
    expect(lateChargesDue(rb, bill, 10_000, posted, "2026-05-01")).toEqual([]);
    const m2 = lateChargesDue(rb, bill, 4_000, posted, "2026-05-02");
    expect(m2.map((c) => [c.key, c.amountCents, c.effectiveOn])).toEqual([["interest:b1:2", 80, "2026-05-02"]]);
  });
  it("a bill paid in full gets nothing; a run that missed days posts each month on its own day", () => {
    expect(lateChargesDue(rb, bill, 0, new Set(), "2026-09-01")).toEqual([]);
    const caught = lateChargesDue(rb, bill, 10_000, new Set(), "2026-06-02");
    expect(keys(caught)).toEqual(["penalty:b1", "interest:b1:1", "interest:b1:2", "interest:b1:3"]);
    expect(caught.map((c) => c.effectiveOn)).toEqual(["2026-04-22", "2026-04-22", "2026-05-02", "2026-06-02"]);
  });
  it("the SUL makes no violation of late payment", () => {
    expect(lateChargesDue(rb, bill, 10_000, new Set(), "2027-04-01").some((c) => c.kind === "VIOLATION")).toBe(false);
  });
});

describe("Huron VI-3: due 15 days after mailing, 10% once 30 days in arrears, a violation at 60 days", () => {
  const rb = shipped("huron");
  // Mailed April 1: due April 16; May 16 is the 30th day after it, May 17 the first in arrears past 30.
  const bill = { id: "h1", number: "HUR-202603-0000001", totalCents: 10_000, mailedOn: "2026-04-01" };
  it("day 30 after the due date has no penalty; day 31 has 10%, and no interest", () => {
    expect(lateChargesDue(rb, bill, 10_000, new Set(), "2026-05-16")).toEqual([]);
    const late = lateChargesDue(rb, bill, 10_000, new Set(), "2026-05-17");
    expect(late.map((c) => [c.kind, c.amountCents, c.effectiveOn, c.section])).toEqual([["PENALTY", 1000, "2026-05-17", "Huron VI-3"]]);
  });
  it("the 10% is of what of the bill is unpaid that day (VI-3: 'any unpaid sewer charge'); Lakeview's 20% of the original bill", () => {
    const [partly] = lateChargesDue(rb, bill, 4_000, new Set(), "2026-05-17");
    expect([partly.kind, partly.amountCents]).toEqual(["PENALTY", 400]);
    expect(partly.description).toContain("10% of the unpaid $40.00 of bill HUR-202603-0000001 ($100.00)");
    const lakeview = shipped("lakeview");
    const [sul] = lateChargesDue(lakeview, { ...bill, id: "b2" }, 4_000, new Set(), "2026-04-22");
    expect([sul.kind, sul.amountCents]).toEqual(["PENALTY", 2000]);
  });
  it("60 days in arrears is not yet a violation; the 61st day is", () => {
    const posted = new Set(["penalty:h1"]);
    expect(lateChargesDue(rb, bill, 10_000, posted, "2026-06-15")).toEqual([]);
    const v = lateChargesDue(rb, bill, 10_000, posted, "2026-06-16");
    expect(v.map((c) => [c.kind, c.amountCents, c.effectiveOn])).toEqual([["VIOLATION", 0, "2026-06-16"]]);
    expect(v[0].description).toContain("unpaid 60 days after its due date April 16, 2026");
  });
});

describe("aging", () => {
  it("buckets by days past the due date", () => {
    expect(["2026-05-01", "2026-05-02", "2026-05-31", "2026-06-01", "2026-06-30", "2026-07-01", "2026-07-30", "2026-07-31"].map((d) => agingBucket("2026-05-01", d))).toEqual([
      "current", "days30", "days30", "days60", "days60", "days90", "days90", "over90",
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { Rulebook, shippedDistrictFiles } from "../districts/districts.service.js";
import type { RulebookVersion } from "../districts/rulebook-version.entity.js";
import { statementFor } from "./rules.js";

/** Which bills the late penalty reaches: SUL 1118 "any payments which are due", Huron VI-3 "any unpaid sewer charge". */
const shipped = (slug: string) => {
  const f = shippedDistrictFiles().find((x) => x.district.slug === slug)!;
  return new Rulebook({ id: slug, version: 1, entries: f.rulebook.entries } as unknown as RulebookVersion);
};
const bill = (actionId: string | null) => ({ amountCents: 60000, billedOn: "2026-01-15", label: "Fine", section: "x", actionId });

describe("the late penalty's reach", () => {
  it("Huron VI-3: a sewer charge is penalized past 30 days in arrears, a court's fine never (Huron V-2)", () => {
    const rb = shipped("huron");
    // Due January 30 (15 days after mailing); March 1 the last day without penalty, March 2 in arrears.
    expect(statementFor(rb, bill(null), "2026-03-02")).toMatchObject({ delinquent: true, totalCents: 66000 });
    const fine = statementFor(rb, bill("action-1"), "2026-03-02");
    expect(fine).toMatchObject({ delinquent: false, totalCents: 60000, violation: null });
    expect(fine.lines.map((l) => l.code)).toEqual(["charge"]);
    expect(fine.explanation).toContain("No late penalty is added to a fine (Huron VI-3 applies to sewer charges).");
    expect(statementFor(rb, bill("action-1"), "2026-12-31")).toMatchObject({ delinquent: false, totalCents: 60000, violation: null });
  });

  it("SUL 1118: a fine is penalized as every other bill, on time on day 20 and not on day 21", () => {
    const rb = shipped("lakeview");
    expect(statementFor(rb, bill("action-1"), "2026-02-04")).toMatchObject({ delinquent: false, totalCents: 60000 });
    expect(statementFor(rb, bill("action-1"), "2026-02-05")).toMatchObject({ delinquent: true, totalCents: 60000 + 12000 + 1200 });
  });

  it("a rulebook version written before the entry existed charges every bill alike", () => {
    const f = shippedDistrictFiles().find((x) => x.district.slug === "huron")!;
    const old = new Rulebook({ id: "old", version: 1, entries: f.rulebook.entries.filter((e: { key: string }) => e.key !== "billing.penaltyOnEveryPaymentDue") } as unknown as RulebookVersion);
    expect(statementFor(old, bill("action-1"), "2026-03-02")).toMatchObject({ delinquent: true, totalCents: 66000 });
  });
});

import { describe, expect, it } from "vitest";
import { Rulebook, shippedDistrictFiles } from "../districts/districts.service.js";
import type { RuleEntry } from "../districts/rulebook-schema.js";
import type { RulebookVersion } from "../districts/rulebook-version.entity.js";
import {
  addressKey,
  nuisanceDeadline,
  nuisanceLapsed,
  nuisanceNoticeUnavailable,
  nuisanceReminderDue,
  orderComplete,
  orderSteps,
  permitFee,
  permitsUnavailable,
  pumpDueOn,
  pumpReminderDue,
  pumpStanding,
  sharedTankProblem,
  systemsForbidden,
} from "./rules.js";

// SUL Article 4 and Huron II-3, II-4 from the shipped rulebooks, at the limit and just past it.

function rulebook(slug: string, values: Record<string, unknown> = {}): Rulebook {
  const f = shippedDistrictFiles().find((x) => x.district.slug === slug)!;
  const entries = f.rulebook.entries.map((e) => (e.key in values ? ({ ...e, value: values[e.key] } as RuleEntry) : e));
  return new Rulebook({ version: 1, entries } as unknown as RulebookVersion);
}
const lakeview = rulebook("lakeview");
const huron = rulebook("huron");

describe("SUL 407: pumped at three-year intervals", () => {
  it("is due on the same date three years after the last pumping: in time on that day, overdue the day after", () => {
    const due = pumpDueOn(lakeview, "2024-03-15", null);
    expect(due).toBe("2027-03-15");
    expect(pumpStanding(lakeview, due, "2024-03-15", null, "2027-03-15")).toMatchObject({ state: "DUE_SOON", daysLeft: 0, section: "Sewer Use Law 407" });
    expect(pumpStanding(lakeview, due, "2024-03-15", null, "2027-03-16")).toMatchObject({ state: "OVERDUE", daysLeft: -1 });
    expect(pumpStanding(lakeview, due, "2024-03-15", null, "2027-03-16").text).toBe(
      "Last pumped March 15, 2024; the next pump-out was due by March 15, 2027 (pumped by a licensed hauler at least every 3 years (Sewer Use Law 407)).",
    );
  });

  it("a pumping on 29 February is due by 28 February three years on", () => {
    expect(pumpDueOn(lakeview, "2024-02-29", null)).toBe("2027-02-28");
  });

  it("counts from the later of the last pumping and the installation; nothing on record is due now", () => {
    expect(pumpDueOn(lakeview, "2020-05-01", "2022-06-10")).toBe("2025-06-10");
    expect(pumpDueOn(lakeview, null, null)).toBeNull();
    expect(pumpStanding(lakeview, null, null, null, "2026-12-01").state).toBe("NO_RECORD");
  });

  it("is due soon from 60 days ahead (the district's reminder, not the law's), in time before", () => {
    expect(pumpStanding(lakeview, "2027-03-15", "2024-03-15", null, "2027-01-14").state).toBe("DUE_SOON"); // 60 days
    expect(pumpStanding(lakeview, "2027-03-15", "2024-03-15", null, "2027-01-13").state).toBe("IN_TIME"); // 61 days
    expect(pumpReminderDue("2027-03-15", null, "2027-01-14")).toBe(true);
    expect(pumpReminderDue("2027-03-15", null, "2027-01-13")).toBe(false);
    expect(pumpReminderDue("2027-03-15", "2027-03-15", "2027-02-01")).toBe(false); // once per due date
  });

  it("Huron sets no interval: no septic tank may be kept at all (II-3)", () => {
    expect(pumpDueOn(huron, "2024-03-15", null)).toBeNull();
    expect(pumpStanding(huron, null, "2024-03-15", null, "2027-03-16")).toMatchObject({ state: "NOT_REQUIRED", section: "Huron II-3" });
  });
});

describe("SUL 405: ninety days after receipt of the written notice", () => {
  it("the day of receipt is day 0, the 90th day is the last; the day after it has lapsed", () => {
    const d = nuisanceDeadline(lakeview, "2026-12-01")!;
    expect(d).toEqual({ repairBy: "2027-03-01", days: 90, section: "Sewer Use Law 405" });
    expect(nuisanceLapsed(d.repairBy, "2027-03-01")).toBe(false);
    expect(nuisanceLapsed(d.repairBy, "2027-03-02")).toBe(true);
  });
  it("reminds from 14 days before the last day until it passes", () => {
    expect(nuisanceReminderDue("2027-03-01", "2027-02-15")).toBe(true);
    expect(nuisanceReminderDue("2027-03-01", "2027-02-14")).toBe(false);
    expect(nuisanceReminderDue("2027-03-01", "2027-03-02")).toBe(false);
  });
  it("Huron has no such notice", () => {
    expect(nuisanceDeadline(huron, "2026-12-01")).toBeNull();
    expect(nuisanceNoticeUnavailable(huron)).toBe(
      "The district's law has no notice to repair a septic system: none may be kept at all (Huron II-3). Order the property connected to the public sewer instead.",
    );
  });
});

describe("SUL 402: two separate buildings on one tank", () => {
  it("refuses two homes, or a home and a separate business, on one tank", () => {
    expect(sharedTankProblem(lakeview, [{ name: "House", use: "DWELLING" }, { name: "Cottage", use: "DWELLING" }])).toBe(
      "No two separate buildings, each a family's home or a separate business, may be connected to the same septic tank (Sewer Use Law 402): House and Cottage need a system each.",
    );
    expect(sharedTankProblem(lakeview, [{ name: "House", use: "DWELLING" }, { name: "Shop", use: "BUSINESS" }])).not.toBeNull();
  });
  it("allows one home with its garage", () => {
    expect(sharedTankProblem(lakeview, [{ name: "House", use: "DWELLING" }, { name: "Garage", use: "ACCESSORY" }])).toBeNull();
    expect(sharedTankProblem(lakeview, [{ name: "House", use: "DWELLING" }])).toBeNull();
  });
});

describe("SUL 403: the construction permit and its fee", () => {
  it("Lakeview: permits, no fee until the Board sets one", () => {
    expect(permitsUnavailable(lakeview)).toBeNull();
    expect(permitFee(lakeview)).toBeNull();
    expect(permitFee(rulebook("lakeview", { "septic.constructionPermitFee": 7500 }))).toEqual({ cents: 7500, section: "Sewer Use Law 403", label: "Septic system construction permit fee" });
  });
  it("Huron: none may be built or kept in the district (II-3)", () => {
    expect(systemsForbidden(huron)).toEqual({
      reason: "No septic tank, cesspool or other private sewage disposal may be built or kept within the district (Huron II-3).",
      section: "Huron II-3",
    });
    expect(permitsUnavailable(huron)).toContain("Huron II-3");
    expect(systemsForbidden(lakeview)).toBeNull();
  });
});

describe("SUL 408; Huron II-3, II-4: when the public sewer arrives", () => {
  it("Lakeview: lateral permit, pumped, filled or removed, plugged; complete only when all are recorded", () => {
    expect(orderSteps(lakeview, "Sewer Use Law 602").map((s) => [s.step, s.section])).toEqual([
      ["LATERAL_PERMIT", "Sewer Use Law 408, Sewer Use Law 602"],
      ["PUMPED", "Sewer Use Law 408"],
      ["FILLED_OR_REMOVED", "Sewer Use Law 408"],
      ["PLUGGED", "Sewer Use Law 408"],
    ]);
    const progress = { lateralPermitId: "x", pumpOutId: "y", tankDisposition: "FILLED", pluggedOn: null, discontinuedOn: null };
    expect(orderComplete(lakeview, progress)).toBe(false);
    expect(orderComplete(lakeview, { ...progress, pluggedOn: "2026-12-01" })).toBe(true);
  });
  it("Huron names no method: the building sewer permit and the system out of use", () => {
    expect(orderSteps(huron, "Huron III-2").map((s) => [s.step, s.section])).toEqual([
      ["LATERAL_PERMIT", "Huron II-4, Huron III-2"],
      ["DISCONTINUED", "Huron II-3"],
    ]);
    expect(orderComplete(huron, { lateralPermitId: "x", pumpOutId: null, tankDisposition: null, pluggedOn: null, discontinuedOn: "2026-12-01" })).toBe(true);
  });
});

describe("hauler loads matched by address", () => {
  it("ignores case, punctuation, the town after a comma and common street words", () => {
    expect(addressKey("14 Lake St., Lakeview")).toBe("14 lake street");
    expect(addressKey("14 LAKE STREET")).toBe("14 lake street");
    expect(addressKey("14 Lake Road")).not.toBe(addressKey("14 Lake Street"));
  });
});

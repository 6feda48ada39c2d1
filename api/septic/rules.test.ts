import { describe, expect, it } from "vitest";
import { Rulebook, shippedDistrictFiles } from "../districts/districts.service.js";
import type { RuleEntry } from "../districts/rulebook-schema.js";
import type { RulebookVersion } from "../districts/rulebook-version.entity.js";
import {
  addressKey,
  closingTakesSystemOutOfUse,
  effluentAlternativeRefusal,
  nuisanceDeadline,
  nuisanceLapsed,
  nuisanceNoticeUnavailable,
  nuisanceReminderDue,
  orderComplete,
  orderSteps,
  pathChangeProblem,
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

describe("SUL 408's alternative: the septic tank effluent piped or pumped to the sewer, with an easement", () => {
  const none = { lateralPermitId: null, pumpOutId: null, tankDisposition: null, pluggedOn: null, discontinuedOn: null, effluentMethod: null, easementDocumentId: null };
  const alternative = { ...none, path: "EFFLUENT_TO_SEWER" as const };

  it("Lakeview: the lateral permit, the effluent to the sewer and the easement, each citing 408", () => {
    expect(effluentAlternativeRefusal(lakeview)).toBeNull();
    expect(orderSteps(lakeview, "Sewer Use Law 602", "EFFLUENT_TO_SEWER").map((s) => [s.step, s.label, s.section])).toEqual([
      ["LATERAL_PERMIT", "Building lateral permit applied for, to connect directly to the public sewer", "Sewer Use Law 408, Sewer Use Law 602"],
      ["EFFLUENT_TO_SEWER", "Septic tank effluent piped or pumped to the sewer", "Sewer Use Law 408"],
      ["EASEMENT", "Easement to the septic tank for septage removal provided by the owner", "Sewer Use Law 408"],
    ]);
  });

  it("complete only when every step of the chosen path is recorded; the other path's steps count for nothing", () => {
    expect(orderComplete(lakeview, { ...alternative, lateralPermitId: "x", effluentMethod: "PIPED" })).toBe(false);
    expect(orderComplete(lakeview, { ...alternative, lateralPermitId: "x", easementDocumentId: "d" })).toBe(false);
    expect(orderComplete(lakeview, { ...alternative, effluentMethod: "PUMPED", easementDocumentId: "d" })).toBe(false);
    expect(orderComplete(lakeview, { ...alternative, lateralPermitId: "x", effluentMethod: "PUMPED", easementDocumentId: "d" })).toBe(true);
    // The pump-out (attached from a hauler's load) is no step of the alternative, and the alternative's records none of the first way.
    expect(orderComplete(lakeview, { ...alternative, lateralPermitId: "x", pumpOutId: "p", effluentMethod: "PIPED" })).toBe(false);
    expect(orderComplete(lakeview, { ...none, path: "ABANDON", lateralPermitId: "x", pumpOutId: "p", effluentMethod: "PIPED", easementDocumentId: "d" })).toBe(false);
    // An order with no path recorded is on the first way.
    expect(orderComplete(lakeview, { ...none, lateralPermitId: "x", effluentMethod: "PIPED", easementDocumentId: "d" })).toBe(false);
  });

  it("closing keeps the tank in use on the alternative (still pumped under 407), takes it out of use on the first way", () => {
    expect(closingTakesSystemOutOfUse("EFFLUENT_TO_SEWER")).toBe(false);
    expect(closingTakesSystemOutOfUse("ABANDON")).toBe(true);
    expect(closingTakesSystemOutOfUse(null)).toBe(true);
  });

  it("the alternative is refused once the tank is filled, removed or cut off; back to the first way always, the lateral permit kept", () => {
    expect(pathChangeProblem(lakeview, { ...none, lateralPermitId: "x", pumpOutId: "p" }, "EFFLUENT_TO_SEWER")).toBeNull();
    expect(pathChangeProblem(lakeview, { ...none, pumpOutId: "p", tankDisposition: "REMOVED" }, "EFFLUENT_TO_SEWER")).toBe(
      "The tank is already recorded removed: there is no septic tank effluent to pipe or pump to the sewer (Sewer Use Law 408).",
    );
    expect(pathChangeProblem(lakeview, { ...none, pluggedOn: "2026-12-01" }, "EFFLUENT_TO_SEWER")).toBe(
      "The connection to the old system is already recorded broken and plugged: no septic tank effluent reaches the sewer that way (Sewer Use Law 408).",
    );
    expect(pathChangeProblem(lakeview, { ...alternative, effluentMethod: "PIPED", easementDocumentId: "d" }, "ABANDON")).toBeNull();
    expect(pathChangeProblem(lakeview, alternative, "EFFLUENT_TO_SEWER")).toMatch(/^The order is already on that path/);
  });

  it("Huron: no septic tank may be kept in the district (II-3, II-4): refused with the section, its steps never the alternative's", () => {
    const refusal = "The district's law has no alternative of keeping the septic tank with its effluent piped or pumped to the sewer: the system is taken out of use (Huron II-3, II-4).";
    expect(effluentAlternativeRefusal(huron)).toBe(refusal);
    expect(pathChangeProblem(huron, none, "EFFLUENT_TO_SEWER")).toBe(refusal);
    expect(orderSteps(huron, "Huron III-2", "EFFLUENT_TO_SEWER").map((s) => s.step)).toEqual(["LATERAL_PERMIT", "DISCONTINUED"]);
    expect(orderComplete(huron, { ...alternative, lateralPermitId: "x", effluentMethod: "PIPED", easementDocumentId: "d" })).toBe(false);
  });

  it("reads the rulebook, not the district: Lakeview's law without the alternative refuses it too", () => {
    const without = rulebook("lakeview", { "septic.effluentToSewerAlternative": false });
    expect(effluentAlternativeRefusal(without)).toBe("The district's law has no alternative of keeping the septic tank with its effluent piped or pumped to the sewer: the system is taken out of use (Sewer Use Law 408).");
    expect(orderSteps(without, "Sewer Use Law 602", "EFFLUENT_TO_SEWER").map((s) => s.step)).toEqual(["LATERAL_PERMIT", "PUMPED", "FILLED_OR_REMOVED", "PLUGGED"]);
  });
});

describe("hauler loads matched by address", () => {
  it("ignores case, punctuation, the town after a comma and common street words", () => {
    expect(addressKey("14 Lake St., Lakeview")).toBe("14 lake street");
    expect(addressKey("14 LAKE STREET")).toBe("14 lake street");
    expect(addressKey("14 Lake Road")).not.toBe(addressKey("14 Lake Street"));
  });
});

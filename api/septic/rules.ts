import { addCalendarDays, addMonths, daysBetween, type CalendarDate } from "../common/dates.js";
import { formatDate } from "../common/format.js";
import type { Rulebook } from "../districts/districts.service.js";

/**
 * Private wastewater disposal (SUL Article 4; Huron II-3, II-4) as pure functions over a rulebook
 * version: whether the district allows septic systems at all (SUL 401; Huron II-3: none), the
 * buildings one tank may serve (402), what a construction permit needs (403-404), the 90 days of a
 * nuisance notice (405), the three-year pump-out (407) and the steps after a public sewer arrives
 * (408; Huron II-3, II-4). Every figure is read from the rulebook with its section.
 */

export const SYSTEM_KINDS = ["SEPTIC_TANK", "CESSPOOL"] as const;
export type SystemKind = (typeof SYSTEM_KINDS)[number];
export const SYSTEM_KIND_LABELS: Record<SystemKind, string> = { SEPTIC_TANK: "Septic tank", CESSPOOL: "Cesspool" };

/** What a building served is used for; 402 speaks of a separate business and of a family's dwelling. */
export const BUILDING_USES = ["DWELLING", "BUSINESS", "ACCESSORY"] as const;
export type BuildingUse = (typeof BUILDING_USES)[number];
export const BUILDING_USE_LABELS: Record<BuildingUse, string> = {
  DWELLING: "A family's home",
  BUSINESS: "A separate business",
  ACCESSORY: "Accessory to another building (garage, shed, workshop)",
};
export type Building = { name: string; use: BuildingUse };

export const DESIGNER_CREDENTIALS = ["PROFESSIONAL_ENGINEER", "LICENSED_SURVEYOR", "ARCHITECT"] as const;
export type DesignerCredential = (typeof DESIGNER_CREDENTIALS)[number];
export const DESIGNER_CREDENTIAL_LABELS: Record<DesignerCredential, string> = {
  PROFESSIONAL_ENGINEER: "Professional engineer",
  LICENSED_SURVEYOR: "Licensed surveyor",
  ARCHITECT: "Architect",
};

/** Reminders are the district's practice, not the law's: how far ahead owners hear that a pump-out is due, and owners of a nuisance notice that its time is running out. */
export const PUMP_OUT_REMINDER_DAYS = 60;
export const NUISANCE_REMINDER_DAYS = 14;

// ---------------------------------------------------------------------------------------------
// SUL 401; Huron II-3

/** Null where the district's law allows septic systems; otherwise why not (Huron II-3: none may be built or kept in the district). */
export function systemsForbidden(rb: Rulebook): { reason: string; section: string } | null {
  const e = rb.entry("septic.systemsAllowed");
  if (e.value === true) return null;
  return { reason: `No septic tank, cesspool or other private sewage disposal may be built or kept within the district (${e.section}).`, section: e.section };
}

// ---------------------------------------------------------------------------------------------
// SUL 402

/**
 * SUL 402: "No two separate permanent buildings, where the intended use for either is for a distinct
 * and separate business or a dwelling place for a private family or families, shall be connected to
 * the same individual septic tank". Read as: two or more of the buildings served are each a home or
 * a separate business (docs/decisions/septic-two-buildings.md); an accessory building with a home
 * does not count. The problem in words, or null.
 */
export function sharedTankProblem(rb: Rulebook, buildings: Building[]): string | null {
  if (!rb.enabled("septic.twoBuildingsOneTankProhibited")) return null;
  const separate = buildings.filter((b) => b.use !== "ACCESSORY");
  if (separate.length < 2) return null;
  const section = rb.entry("septic.twoBuildingsOneTankProhibited").section;
  return `No two separate buildings, each a family's home or a separate business, may be connected to the same septic tank (${section}): ${separate.map((b) => b.name).join(" and ")} need a system each.`;
}

// ---------------------------------------------------------------------------------------------
// SUL 403-404

/** The fee the Board set for a construction permit, or null: no fee, no payment step (docs/decisions/no-fee-means-no-fee.md). */
export function permitFee(rb: Rulebook): { cents: number; section: string; label: string } | null {
  const e = rb.entry("septic.constructionPermitFee");
  return typeof e.value === "number" && e.value > 0 ? { cents: e.value, section: e.section, label: e.label } : null;
}

/** Why the district has no construction permits (Huron II-3), or null. */
export function permitsUnavailable(rb: Rulebook): string | null {
  const forbidden = systemsForbidden(rb);
  if (forbidden) return forbidden.reason;
  if (!rb.enabled("septic.constructionPermitRequired")) return `The district's law has no septic construction permit (${rb.entry("septic.constructionPermitRequired").section}).`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// SUL 407: pumped at three-year intervals or more often

export type PumpState = "NOT_REQUIRED" | "NO_RECORD" | "IN_TIME" | "DUE_SOON" | "OVERDUE";
export type PumpStanding = { state: PumpState; dueOn: CalendarDate | null; daysLeft: number | null; text: string; section: string };

/**
 * The last day the next pump-out is due: the same date `years` later (a last pumping on 29 February
 * is due by 28 February), counted from the latest of the last pumping and the installation. Null
 * where the law sets no interval (Huron) or nothing is on record.
 */
export function pumpDueOn(rb: Rulebook, lastPumpedOn: CalendarDate | null, installedOn: CalendarDate | null): CalendarDate | null {
  const e = rb.entry("septic.pumpingIntervalYears");
  if (typeof e.value !== "number") return null;
  const from = [lastPumpedOn, installedOn].filter((d): d is CalendarDate => !!d).sort().pop();
  return from ? addMonths(from, 12 * e.value) : null;
}

/** Where a system stands on `today`: the due day itself is still in time; the day after it is overdue. */
export function pumpStanding(rb: Rulebook, dueOn: CalendarDate | null, lastPumpedOn: CalendarDate | null, installedOn: CalendarDate | null, today: CalendarDate): PumpStanding {
  const e = rb.entry("septic.pumpingIntervalYears");
  if (typeof e.value !== "number")
    return { state: "NOT_REQUIRED", dueOn: null, daysLeft: null, text: `The district's law sets no pump-out interval (${e.section}).`, section: e.section };
  const every = `pumped by a licensed hauler at least every ${e.value} years (${e.section})`;
  if (!dueOn)
    return { state: "NO_RECORD", dueOn: null, daysLeft: null, text: `No pump-out is on record. A septic tank or cesspool is ${every}: have it pumped now.`, section: e.section };
  const left = daysBetween(today, dueOn);
  const last = lastPumpedOn ? `Last pumped ${formatDate(lastPumpedOn)}` : `Installed ${formatDate(installedOn!)}`;
  if (left < 0) return { state: "OVERDUE", dueOn, daysLeft: left, text: `${last}; the next pump-out was due by ${formatDate(dueOn)} (${every}).`, section: e.section };
  const state: PumpState = left <= PUMP_OUT_REMINDER_DAYS ? "DUE_SOON" : "IN_TIME";
  return { state, dueOn, daysLeft: left, text: `${last}; the next pump-out is due by ${formatDate(dueOn)} (${every}).`, section: e.section };
}

/** Whether the owner should be reminded today of the pump-out due on `dueOn` (once per due date, from PUMP_OUT_REMINDER_DAYS ahead). */
export function pumpReminderDue(dueOn: CalendarDate | null, remindedDueOn: CalendarDate | null, today: CalendarDate): boolean {
  if (!dueOn) return false;
  return remindedDueOn !== dueOn && daysBetween(today, dueOn) <= PUMP_OUT_REMINDER_DAYS;
}

// ---------------------------------------------------------------------------------------------
// SUL 405: ninety days after receipt of the written notice

/** The last day to repair, rebuild or relocate: the day of receipt is day 0, the last day is day 90. Null where the law has no such notice (Huron). */
export function nuisanceDeadline(rb: Rulebook, receivedOn: CalendarDate): { repairBy: CalendarDate; days: number; section: string } | null {
  const e = rb.entry("septic.nuisanceRepairDays");
  if (typeof e.value !== "number") return null;
  return { repairBy: addCalendarDays(receivedOn, e.value), days: e.value, section: e.section };
}

/** Why the district has no 405 notice (Huron: no septic system may be kept at all), or null. */
export function nuisanceNoticeUnavailable(rb: Rulebook): string | null {
  const e = rb.entry("septic.nuisanceRepairDays");
  if (typeof e.value === "number") return null;
  return `The district's law has no notice to repair a septic system: none may be kept at all (${e.section}). Order the property connected to the public sewer instead.`;
}

/** The notice's time has passed from the day after its last day. */
export const nuisanceLapsed = (repairBy: CalendarDate, today: CalendarDate) => today > repairBy;
/** The reminder goes out once, from NUISANCE_REMINDER_DAYS before the last day until it passes. */
export const nuisanceReminderDue = (repairBy: CalendarDate, today: CalendarDate) => daysBetween(today, repairBy) <= NUISANCE_REMINDER_DAYS && today <= repairBy;

// ---------------------------------------------------------------------------------------------
// SUL 408; Huron II-3, II-4: when the public sewer arrives

export const ORDER_STEPS = ["LATERAL_PERMIT", "PUMPED", "FILLED_OR_REMOVED", "PLUGGED", "DISCONTINUED", "EFFLUENT_TO_SEWER", "EASEMENT"] as const;
export type OrderStep = (typeof ORDER_STEPS)[number];
export const TANK_DISPOSITIONS = ["FILLED", "REMOVED"] as const;
export type TankDisposition = (typeof TANK_DISPOSITIONS)[number];
/** How the tank's effluent reaches the sewer under SUL 408's alternative: "piped or pumped". */
export const EFFLUENT_METHODS = ["PIPED", "PUMPED"] as const;
export type EffluentMethod = (typeof EFFLUENT_METHODS)[number];
export const EFFLUENT_METHOD_LABELS: Record<EffluentMethod, string> = { PIPED: "Piped to the sewer", PUMPED: "Pumped to the sewer" };

/**
 * The ways an order is met (docs/decisions/septic-408-effluent-alternative.md). ABANDON: the system
 * taken out of use (SUL 408's first way: pumped, filled or removed, plugged; Huron: no longer kept),
 * every order's path until the District Operator chooses another. EFFLUENT_TO_SEWER: SUL 408's
 * "Alternatively, the septic tank effluent may be piped or pumped to the sewer; the owner shall
 * provide an easement to the septic tank for septage removal": the tank stays in use.
 */
export const ORDER_PATHS = ["ABANDON", "EFFLUENT_TO_SEWER"] as const;
export type OrderPath = (typeof ORDER_PATHS)[number];
export const ORDER_PATH_LABELS: Record<OrderPath, string> = {
  ABANDON: "The old system taken out of use",
  EFFLUENT_TO_SEWER: "The septic tank kept, its effluent piped or pumped to the sewer, with an easement for septage removal",
};

/** Why the district's law has no effluent-to-sewer alternative (Huron II-3, II-4: no septic tank may be kept), or null where it has one (SUL 408). */
export function effluentAlternativeRefusal(rb: Rulebook): string | null {
  const e = rb.entry("septic.effluentToSewerAlternative");
  if (e.value === true) return null;
  return `The district's law has no alternative of keeping the septic tank with its effluent piped or pumped to the sewer: the system is taken out of use (${e.section}).`;
}

/**
 * The steps a connection order asks for, in the order the work goes, with their sections. SUL 408:
 * connect (the lateral permit), pump by a licensed hauler, fill or remove, break and plug the old
 * connection. Huron names no method (II-3 forbids keeping the tank; II-4 requires the connection):
 * the lateral permit (III-1) and the system out of use. On SUL 408's alternative (EFFLUENT_TO_SEWER,
 * where the rulebook has it): the lateral permit, the tank's effluent piped or pumped to the sewer,
 * and the owner's easement to the tank for septage removal.
 */
export function orderSteps(rb: Rulebook, lateralSection: string, path: OrderPath = "ABANDON"): { step: OrderStep; label: string; section: string }[] {
  const connect = rb.entry("septic.connectionOnSewerRequired").section;
  if (path === "EFFLUENT_TO_SEWER" && !effluentAlternativeRefusal(rb)) {
    const s = rb.entry("septic.effluentToSewerAlternative").section;
    return [
      { step: "LATERAL_PERMIT", label: "Building lateral permit applied for, to connect directly to the public sewer", section: `${connect}, ${lateralSection}` },
      { step: "EFFLUENT_TO_SEWER", label: "Septic tank effluent piped or pumped to the sewer", section: s },
      { step: "EASEMENT", label: "Easement to the septic tank for septage removal provided by the owner", section: s },
    ];
  }
  if (rb.enabled("septic.abandonmentStepsPrescribed")) {
    const s = rb.entry("septic.abandonmentStepsPrescribed").section;
    return [
      { step: "LATERAL_PERMIT", label: "Building lateral permit applied for, to connect directly to the public sewer", section: `${connect}, ${lateralSection}` },
      { step: "PUMPED", label: "Septage cleaned out by a licensed hauler", section: s },
      { step: "FILLED_OR_REMOVED", label: "Tank filled with clean sand, bank-run gravel or dirt, or removed", section: s },
      { step: "PLUGGED", label: "Connection to the old system broken and both ends plugged", section: s },
    ];
  }
  const forbidden = rb.entry("septic.systemsAllowed").section;
  return [
    { step: "LATERAL_PERMIT", label: "Building sewer permit applied for, to connect directly to the public sewer", section: `${connect}, ${lateralSection}` },
    { step: "DISCONTINUED", label: "Septic system no longer used or kept", section: forbidden },
  ];
}

export type OrderProgress = {
  path?: OrderPath | null;
  lateralPermitId: string | null;
  pumpOutId: string | null;
  tankDisposition: string | null;
  pluggedOn: string | null;
  discontinuedOn: string | null;
  effluentMethod?: string | null;
  easementDocumentId?: string | null;
};

/** Which of the order's steps are recorded. */
export function stepDone(step: OrderStep, o: OrderProgress): boolean {
  switch (step) {
    case "LATERAL_PERMIT":
      return !!o.lateralPermitId;
    case "PUMPED":
      return !!o.pumpOutId;
    case "FILLED_OR_REMOVED":
      return !!o.tankDisposition;
    case "PLUGGED":
      return !!o.pluggedOn;
    case "DISCONTINUED":
      return !!o.discontinuedOn;
    case "EFFLUENT_TO_SEWER":
      return !!o.effluentMethod;
    case "EASEMENT":
      return !!o.easementDocumentId;
  }
}

/** The order closes when every step of its path is recorded (a step of the other path counts for nothing, but the lateral permit is both paths'). */
export const orderComplete = (rb: Rulebook, o: OrderProgress) => orderSteps(rb, "", o.path ?? "ABANDON").every((s) => stepDone(s.step, o));

/** Closing takes the system out of use (its pump-out clock stops) on the first way only; on the alternative the tank stays in use and is still pumped every three years (SUL 407). */
export const closingTakesSystemOutOfUse = (path: OrderPath | null | undefined) => (path ?? "ABANDON") === "ABANDON";

/**
 * Why the order cannot be put on `to`, or null. The alternative only where the district's law has it
 * (Huron II-3, II-4 refuse it), and only while the tank is whole and connected: a tank filled or
 * removed, or cut off and plugged, has no effluent to pipe or pump. Back to the first way is always
 * possible: the effluent's and the easement's records stay on the order and count for nothing.
 */
export function pathChangeProblem(rb: Rulebook, o: OrderProgress, to: OrderPath): string | null {
  if ((o.path ?? "ABANDON") === to) return `The order is already on that path: ${ORDER_PATH_LABELS[to].toLowerCase()}.`;
  if (to === "ABANDON") return null;
  const refused = effluentAlternativeRefusal(rb);
  if (refused) return refused;
  const section = rb.entry("septic.effluentToSewerAlternative").section;
  if (o.tankDisposition) return `The tank is already recorded ${o.tankDisposition === "REMOVED" ? "removed" : "filled"}: there is no septic tank effluent to pipe or pump to the sewer (${section}).`;
  if (o.pluggedOn) return `The connection to the old system is already recorded broken and plugged: no septic tank effluent reaches the sewer that way (${section}).`;
  return null;
}

/** Hauler loads match a system by address: case, punctuation, spacing and common street words aside ("14 Lake St." = "14 lake street"). */
const STREET_WORDS: Record<string, string> = {
  st: "street", rd: "road", ave: "avenue", av: "avenue", dr: "drive", ln: "lane", ct: "court", pl: "place", blvd: "boulevard", hwy: "highway", rte: "route", cir: "circle", ter: "terrace", pkwy: "parkway",
  n: "north", s: "south", e: "east", w: "west",
};
export function addressKey(address: string): string {
  return address
    .toLowerCase()
    .split(",")[0]
    .replace(/[^a-z0-9 ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => STREET_WORDS[w] ?? w)
    .join(" ");
}

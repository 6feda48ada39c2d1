import { clock } from "../common/clock.js";
import { districtCode } from "../districts/district-code.js";
import { daysLeft as daysLeftIn, dateIn, formatDate, type CalendarDate } from "../common/dates.js";
import { AppError } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import type { Rulebook } from "../districts/districts.service.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";
import type { BuildingUse, FeeLine, InspectionKind, InspectionStatus, PermitStatus } from "./lateral-permit.entity.js";

/**
 * The rules of building lateral permits that need no database: fees from the rulebook, the
 * reviewer's checklist, which inspections a permit needs, what is due next, street names.
 * Every figure comes from the rulebook version given, with its section; none is a constant here.
 */

export const INSPECTION_LABELS: Record<InspectionKind, string> = {
  TRENCH: "Trench inspection (before backfill)",
  CONNECTION: "Connection inspection",
  LEAKAGE_TEST: "Infiltration/exfiltration or air test",
};
const INSPECTION_SHORT: Record<InspectionKind, string> = { TRENCH: "trench", CONNECTION: "connection", LEAKAGE_TEST: "leakage (air) test" };
export const inspectionName = (k: InspectionKind) => INSPECTION_SHORT[k];

/** Which inspections the rulebook requires (SUL 612, 613 A-B; Huron III-10), in the order the work goes. */
export function requiredInspections(rb: Rulebook): { kind: InspectionKind; section: string; label: string }[] {
  const out: { kind: InspectionKind; section: string; label: string }[] = [];
  const add = (kind: InspectionKind, key: RulebookKey) => {
    if (rb.enabled(key)) out.push({ kind, section: rb.entry(key).section, label: INSPECTION_LABELS[kind] });
  };
  add("TRENCH", "lateral.trenchInspectionRequired");
  add("CONNECTION", "lateral.connectionSupervised");
  add("LEAKAGE_TEST", "lateral.leakageTestRequired");
  // A connection is always inspected before it is accepted, whatever else the rulebook says.
  if (!out.some((i) => i.kind === "CONNECTION")) out.splice(out[0]?.kind === "TRENCH" ? 1 : 0, 0, { kind: "CONNECTION", section: rb.entry("lateral.connectionSupervised").section, label: INSPECTION_LABELS.CONNECTION });
  return out;
}

export const FEE_CODES = {
  residential: "LATERAL_FEE_RESIDENTIAL",
  floorArea: "LATERAL_FEE_FLOOR_AREA",
  impact: "LATERAL_IMPACT_FEE",
  deposit: "AS_BUILT_DEPOSIT",
} as const;

const USE_WORDS: Record<BuildingUse, string> = { RESIDENTIAL: "residential", COMMERCIAL: "commercial", INSTITUTIONAL: "institutional", INDUSTRIAL: "industrial" };

function moneyOf(rb: Rulebook, key: RulebookKey): { value: number; section: string; label: string } | null {
  const e = rb.entry(key);
  return typeof e.value === "number" ? { value: e.value, section: e.section, label: e.label } : null;
}

const sqft = (n: number) => n.toLocaleString("en-US");

/** Bounds of what an application can state (not the law's figures: a typing error's guard). */
export const MAX_FLOOR_AREA_SQFT = 10_000_000;
export const MAX_SHEETS = 500;

/**
 * What an application must carry in this district, from its rulebook: whether plans are filed with
 * it (SUL 602, 606 B; Huron III-2), whether the contractor comes from the district's approved list
 * (SUL 601 A) or the applicant names who does the work (Huron keeps no list), whether sheets of
 * plans are counted for the as-built deposit (SUL 606 B), whether a floor area is needed for a fee.
 */
export type ApplicationRequirements = {
  plans: { required: boolean; section: string };
  contractor: { fromApprovedList: boolean; section: string };
  asBuiltDrawings: { required: boolean; copies: number | null; depositPerSheetCents: number | null; section: string };
  floorAreaFee: boolean;
};
export function applicationRequirements(rb: Rulebook): ApplicationRequirements {
  const copies = rb.entry("lateral.asBuiltCopies");
  const deposit = moneyOf(rb, "lateral.asBuiltDepositPerSheet");
  return {
    plans: { required: rb.enabled("lateral.plansRequired"), section: rb.entry("lateral.plansRequired").section },
    contractor: { fromApprovedList: rb.enabled("contractor.approvedListEnabled"), section: rb.entry("contractor.approvedListEnabled").section },
    asBuiltDrawings: {
      required: typeof copies.value === "number" && copies.value > 0,
      copies: typeof copies.value === "number" ? copies.value : null,
      depositPerSheetCents: deposit?.value ?? null,
      section: copies.section,
    },
    floorAreaFee: moneyOf(rb, "lateral.fee.commercialPerSquareFoot") !== null,
  };
}

/**
 * The fee lines of an application, computed from the rulebook in force on the submission date
 * (SUL 1212, 606 B): never from anything the browser sends. A fee the district's law states no
 * figure for, and its Board has not set, is no fee (Huron III-3: the owner bears the costs of the
 * work): the application then has no lines and no payment step (docs/decisions/no-fee-means-no-fee.md).
 */
export function computeFees(rb: Rulebook, a: { buildingUse: BuildingUse; floorAreaSqft: number | null; asBuiltSheets: number | null }): FeeLine[] {
  const lines: FeeLine[] = [];
  if (a.buildingUse === "RESIDENTIAL") {
    const fee = moneyOf(rb, "lateral.fee.residential");
    if (fee && fee.value > 0) lines.push({ code: FEE_CODES.residential, label: fee.label, section: fee.section, amountCents: fee.value });
  } else {
    const perFoot = moneyOf(rb, "lateral.fee.commercialPerSquareFoot");
    if (perFoot && perFoot.value > 0) {
      if (!a.floorAreaSqft || a.floorAreaSqft <= 0) throw new AppError("BAD_USER_INPUT", "Enter the building's floor area.", { floorAreaSqft: "Enter the floor area in square feet." });
      lines.push({
        code: FEE_CODES.floorArea,
        label: `Inspection and administration fee, ${USE_WORDS[a.buildingUse]}: ${sqft(a.floorAreaSqft)} sq ft × ${formatCents(perFoot.value)}`,
        section: perFoot.section,
        amountCents: a.floorAreaSqft * perFoot.value,
      });
    }
  }
  const impact = moneyOf(rb, "lateral.impactFee");
  if (impact && impact.value > 0) lines.push({ code: FEE_CODES.impact, label: impact.label, section: impact.section, amountCents: impact.value });
  const deposit = moneyOf(rb, "lateral.asBuiltDepositPerSheet");
  const sheets = a.asBuiltSheets ?? 0;
  if (applicationRequirements(rb).asBuiltDrawings.required && deposit && deposit.value > 0 && sheets > 0)
    lines.push({
      code: FEE_CODES.deposit,
      label: `As-built drawing deposit, ${sheets} ${sheets === 1 ? "sheet" : "sheets"} × ${formatCents(deposit.value)} (refundable)`,
      section: deposit.section,
      amountCents: sheets * deposit.value,
      refundable: true,
    });
  return lines;
}

/** The refundable part of the fees paid (the as-built deposit, SUL 606 B). */
export const depositHeldCents = (lines: FeeLine[]): number => lines.filter((l) => l.refundable).reduce((sum, l) => sum + l.amountCents, 0);

export type ChecklistItem = { key: string; label: string; requirement: string; section: string };

const FRACTIONS: Record<string, string> = { "0.125": "1/8", "0.25": "1/4", "0.375": "3/8", "0.5": "1/2", "0.75": "3/4" };
function figure(value: number, unit?: string): string {
  const n = FRACTIONS[String(value)] ?? value.toLocaleString("en-US");
  if (!unit) return n;
  // "1/4 inch per foot", "4 inches", "4 feet"
  const singular = value <= 1 ? unit.replace(/^inches\b/, "inch").replace(/^feet\b/, "foot") : unit;
  return `${n} ${singular}`;
}

/**
 * The reviewer's checklist: the physical minimums of SUL 603 A, 605-609 and 616 (Huron III-6,
 * III-9), from the rulebook, with sections. Entries the district's law does not set are left out.
 */
export function reviewChecklist(rb: Rulebook): ChecklistItem[] {
  const items: ChecklistItem[] = [];
  const num = (key: RulebookKey, text: (v: string) => string) => {
    const e = rb.entry(key);
    if (typeof e.value === "number") items.push({ key, label: e.label, requirement: text(figure(e.value, e.unit)), section: e.section });
  };
  const flag = (key: RulebookKey, text: string) => {
    const e = rb.entry(key);
    if (e.value === true) items.push({ key, label: e.label, requirement: text, section: e.section });
  };
  num("lateral.minDiameterInches", (v) => `Inside diameter at least ${v}`);
  num("lateral.minSlopeInchesPerFoot", (v) => `Slope at least ${v}`);
  const insulated = rb.entry("lateral.minCoverInsulatedFeet");
  num("lateral.minCoverFeet", (v) =>
    typeof insulated.value === "number" ? `Earth cover at least ${v} (${figure(insulated.value, insulated.unit)} if insulated as the District Operator approves)` : `Earth cover at least ${v}`,
  );
  num("lateral.castIronWithinFeetOfWater", (v) => `Cast iron soil pipe within ${v} of a water main or water service`);
  num("lateral.castIronFromBuildingFeet", (v) => `Cast iron soil pipe through the building wall and for at least ${v} out`);
  num("lateral.maxCleanoutSpacingFeet", (v) => `Cleanouts to grade at most ${v} apart`);
  num("lateral.cleanoutTurnDegrees", (v) => `A cleanout at every change of direction of ${v} or more`);
  num("lateral.minBasementEntryInches", (v) => `Enters the basement at least ${v} above the floor`);
  flag("lateral.underBasementProhibited", "No lateral under a basement, and no building over an existing lateral, without written approval");
  flag("lateral.waterMeterRequired", "A potable water meter the District Operator accepts on the newly connected building");
  return items;
}

/** "harbor rd", whether typed "Harbor Road", "HARBOR RD." or " harbor  road ". */
const SUFFIXES: Record<string, string> = {
  street: "st", avenue: "ave", av: "ave", road: "rd", drive: "dr", lane: "ln", boulevard: "blvd", court: "ct",
  place: "pl", terrace: "ter", circle: "cir", highway: "hwy", parkway: "pkwy", way: "way", trail: "trl",
  north: "n", south: "s", east: "e", west: "w",
};
export function normalizeStreet(raw: string): string {
  const words = raw
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[.,#]/g, " ")
    .split(/\s+/)
    .filter(Boolean);
  return words.map((w, i) => (i > 0 ? (SUFFIXES[w] ?? w) : w)).join(" ");
}

export const permitNumber = (slug: string, year: string, n: number) => `${districtCode(slug)}-LP-${year}-${String(n).padStart(4, "0")}`;

export type InspectionLike = { kind: InspectionKind; status: InspectionStatus; scheduledFor: Date | null; requestedAt: Date; resultNotes?: string | null };
export type NextStep = { text: string | null; dueDate: CalendarDate | null; daysLeft: number | null; inspectionToRequest: InspectionKind | null };

/** Latest inspection of each kind (by request time). */
export function latestByKind(inspections: InspectionLike[]): Map<InspectionKind, InspectionLike> {
  const m = new Map<InspectionKind, InspectionLike>();
  for (const i of [...inspections].sort((a, b) => a.requestedAt.getTime() - b.requestedAt.getTime())) m.set(i.kind, i);
  return m;
}

/** The first required inspection (in the order the work goes) that has not passed; null when all have. */
export function nextRequiredKind(required: InspectionKind[], inspections: Pick<InspectionLike, "kind" | "status">[]): InspectionKind | null {
  const passed = new Set(inspections.filter((i) => i.status === "PASSED").map((i) => i.kind));
  return required.find((k) => !passed.has(k)) ?? null;
}

/**
 * Kinds the applicant may request now: the next one the work needs, when it has no open request.
 * A later inspection is never asked for before the earlier ones have passed.
 */
export function requestableKinds(required: InspectionKind[], inspections: InspectionLike[]): InspectionKind[] {
  const next = nextRequiredKind(required, inspections);
  const open = inspections.some((i) => i.kind === next && (i.status === "REQUESTED" || i.status === "SCHEDULED"));
  return next && !open ? [next] : [];
}

/** What is due next on a permit, and by when, in the district's time zone. */
export function nextStep(
  p: { status: PermitStatus; feeTotalCents: number; paid: boolean; depositRefundDueCents: number; asBuiltRequired: boolean; asBuiltFiled: boolean; depositHeldCents: number },
  /** what the district's law calls the official: "District Operator" (SUL 201), "Superintendent" (Huron I) */
  operator: string,
  inspections: InspectionLike[],
  required: InspectionKind[],
  timeZone: string,
  now: Date = clock.now(),
): NextStep {
  const none = { dueDate: null, daysLeft: null, inspectionToRequest: null };
  switch (p.status) {
    case "DRAFT":
      return { text: "Finish the application and submit it", ...none };
    case "SUBMITTED":
      return p.paid || p.feeTotalCents === 0
        ? { text: `The ${operator} reviews the application`, ...none }
        : { text: `Pay the fees of ${formatCents(p.feeTotalCents)}; the permit is issued only once they are paid`, ...none };
    case "CHANGES_REQUESTED":
      return { text: `Make the changes the ${operator} asked for and submit the application again`, ...none };
    case "APPROVED": {
      const scheduled = inspections
        .filter((i) => i.status === "SCHEDULED" && i.scheduledFor)
        .sort((a, b) => a.scheduledFor!.getTime() - b.scheduledFor!.getTime())[0];
      if (scheduled) {
        const due = dateIn(timeZone, scheduled.scheduledFor!);
        return { text: `${INSPECTION_LABELS[scheduled.kind]} on ${formatDate(due)}`, dueDate: due, daysLeft: daysLeftIn(due, timeZone, now), inspectionToRequest: null };
      }
      const requested = inspections.find((i) => i.status === "REQUESTED");
      const canRequest = requestableKinds(required, inspections);
      if (canRequest.length) {
        const k = canRequest[0];
        const failed = latestByKind(inspections).get(k)?.status === "FAILED";
        return {
          text: failed ? `Fix what failed and request the ${inspectionName(k)} inspection again` : `Request the ${inspectionName(k)} inspection when the work is ready`,
          dueDate: null,
          daysLeft: null,
          inspectionToRequest: k,
        };
      }
      if (requested) return { text: `The ${operator} schedules the ${inspectionName(requested.kind)} inspection`, ...none };
      return { text: `The ${operator} accepts the connection`, ...none };
    }
    case "CONNECTED":
      // Where the law asks for no as-built drawings (Huron), an accepted connection is the end of the work.
      if (!p.asBuiltRequired) return { text: null, ...none };
      if (p.asBuiltFiled) return { text: `The ${operator} reviews the as-built drawings you filed`, ...none };
      return { text: p.depositHeldCents > 0 ? "File the as-built (record) drawings; the deposit is refunded once they are approved" : "File the as-built (record) drawings", ...none };
    case "CLOSED":
      return p.depositRefundDueCents > 0 ? { text: `The Town Clerk refunds the as-built deposit of ${formatCents(p.depositRefundDueCents)}`, ...none } : { text: null, ...none };
    case "WITHDRAWN":
      return { text: null, ...none };
  }
}

export const STATUS_LABELS: Record<PermitStatus, string> = {
  DRAFT: "Draft",
  SUBMITTED: "Submitted",
  CHANGES_REQUESTED: "Changes requested",
  APPROVED: "Permit issued",
  CONNECTED: "Connected",
  CLOSED: "Closed",
  WITHDRAWN: "Withdrawn",
};


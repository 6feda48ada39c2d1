import { formatCalendarDate as formatDate, formatDateTime } from "~/components/format";

/** What the applicant's and the staff's permit pages read, and how they show it. */
export type PermitView = {
  id: string;
  status: string;
  statusLabel: string;
  permitNumber: string | null;
  address: string;
  permitClass: string | null;
  buildingUse: string | null;
  floorAreaSqft: number | null;
  workKind: string | null;
  taxParcel: string | null;
  ownerName: string | null;
  agentName: string | null;
  applicantName: string;
  asBuiltSheets: number | null;
  workDoneBy: string | null;
  requirements: { approvedContractor: { required: boolean; section: string }; asBuiltDrawings: { required: boolean; section: string; copies: number | null } };
  reviewNotes: string | null;
  submittedAt: string | null;
  approvedAt: string | null;
  connectedAt: string | null;
  closedAt: string | null;
  withdrawnAt: string | null;
  feeTotalCents: number;
  pdfUrl: string | null;
  viewerIsApplicant: boolean;
  viewerIsOperator: boolean;
  district: { id: string; name: string; timeZone: string; operatorTitle: string };
  feeLines: { code: string; label: string; section: string; amountCents: number; refundable: boolean }[];
  payment: null | { id: string; status: string; receiptNumber: string | null; paidAt: string | null; refunds: { receiptNumber: string; amountCents: number; createdAt: string }[] };
  contractor: null | { id: string; name: string; standing: { choosable: boolean; reasons: string[] } };
  documents: { id: string; filename: string; downloadUrl: string }[];
  recordDrawings: { id: string; filename: string; downloadUrl: string }[];
  asBuiltFiledAt: string | null;
  inspections: {
    id: string;
    kind: string;
    kindLabel: string;
    status: string;
    requestedAt: string;
    preferredOn: string | null;
    scheduledFor: string | null;
    inspectedAt: string | null;
    inspectorName: string | null;
    resultNotes: string | null;
    applicantNotes: string | null;
  }[];
  requiredInspections: { kind: string; label: string; section: string; status: string; requestable: boolean }[];
  checklist: { key: string; label: string; requirement: string; section: string }[];
  nextStep: { text: string | null; dueDate: string | null; daysLeft: number | null };
  depositRefund: null | { amountCents: number; refunded: boolean; receiptNumber: string | null };
};

export const PERMIT_VIEW_FIELDS = `id status statusLabel permitNumber address permitClass buildingUse floorAreaSqft workKind taxParcel ownerName agentName applicantName
  asBuiltSheets workDoneBy requirements { approvedContractor { required section } asBuiltDrawings { required section copies } } reviewNotes submittedAt approvedAt connectedAt closedAt withdrawnAt feeTotalCents pdfUrl viewerIsApplicant viewerIsOperator
  district { id name timeZone operatorTitle }
  feeLines { code label section amountCents refundable }
  payment { id status receiptNumber paidAt refunds { receiptNumber amountCents createdAt } }
  contractor { id name standing { choosable reasons } }
  documents { id filename downloadUrl }
  recordDrawings { id filename downloadUrl }
  asBuiltFiledAt
  inspections { id kind kindLabel status requestedAt preferredOn scheduledFor inspectedAt inspectorName resultNotes applicantNotes }
  requiredInspections { kind label section status requestable }
  checklist { key label requirement section }
  nextStep { text dueDate daysLeft }
  depositRefund { amountCents refunded receiptNumber }`;

export { money } from "./money";
export const CLASS_LABELS: Record<string, string> = {
  RESIDENTIAL_COMMERCIAL_INSTITUTIONAL: "Class 1: residential, commercial or institutional",
  INDUSTRIAL: "Class 2: industrial wastes",
};
export const USE_LABELS: Record<string, string> = { RESIDENTIAL: "Residential", COMMERCIAL: "Commercial", INSTITUTIONAL: "Institutional", INDUSTRIAL: "Industrial" };
export const WORK_LABELS: Record<string, string> = { NEW_BUILDING: "New building", EXISTING_LATERAL: "Existing lateral" };
export const INSPECTION_STATUS: Record<string, string> = { NOT_REQUESTED: "Not requested yet", REQUESTED: "Requested", SCHEDULED: "Scheduled", PASSED: "Passed", FAILED: "Failed" };

/** An inspection's time, an appointment, on the district's clock: "Wednesday, December 2, 2026 at 9:00 AM EST". */
export const districtTime = (iso: string, timeZone: string): string => formatDateTime(iso, timeZone, "full");


/** When an inspection took place, is set for, or was asked for, as the district's clock reads it. */
export function inspectionWhen(i: PermitView["inspections"][number], timeZone: string): string {
  if (i.inspectedAt) return districtTime(i.inspectedAt, timeZone);
  if (i.scheduledFor) return `Set for ${districtTime(i.scheduledFor, timeZone)}`;
  return i.preferredOn ? `Asked for ${formatDay(i.preferredOn)}` : "Not scheduled yet";
}

/** "Monday, December 7, 2026" for a calendar date (a preferred inspection day). */
export const formatDay = (day: string): string => formatDate(day, { weekday: true });

import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from "typeorm";

export const PERMIT_STATUSES = ["DRAFT", "SUBMITTED", "CHANGES_REQUESTED", "APPROVED", "CONNECTED", "CLOSED", "WITHDRAWN"] as const;
export type PermitStatus = (typeof PERMIT_STATUSES)[number];
/** SUL 602; Huron III-2: (1) residential, commercial and institutional service; (2) industrial wastes. */
export const PERMIT_CLASSES = ["RESIDENTIAL_COMMERCIAL_INSTITUTIONAL", "INDUSTRIAL"] as const;
export type PermitClass = (typeof PERMIT_CLASSES)[number];
export const BUILDING_USES = ["RESIDENTIAL", "COMMERCIAL", "INSTITUTIONAL", "INDUSTRIAL"] as const;
export type BuildingUse = (typeof BUILDING_USES)[number];
/** SUL 604: a new building, or work on an existing lateral. */
export const WORK_KINDS = ["NEW_BUILDING", "EXISTING_LATERAL"] as const;
export type WorkKind = (typeof WORK_KINDS)[number];
/** SUL 612-613. */
export const INSPECTION_KINDS = ["TRENCH", "CONNECTION", "LEAKAGE_TEST"] as const;
export type InspectionKind = (typeof INSPECTION_KINDS)[number];
export const INSPECTION_STATUSES = ["REQUESTED", "SCHEDULED", "PASSED", "FAILED"] as const;
export type InspectionStatus = (typeof INSPECTION_STATUSES)[number];

/** One line of the fee, as computed from the rulebook on submission; money in integer cents. */
export type PermitDocumentKind = "PLAN" | "AS_BUILT";

export type FeeLine = { code: string; label: string; section: string; amountCents: number; refundable?: boolean };

@Entity("lateral_permit")
export class LateralPermit {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("uuid", { name: "applicant_id" }) applicantId: string;
  @Column("text") status: PermitStatus;
  @Column("text", { name: "permit_class", nullable: true }) permitClass: PermitClass | null;
  @Column("text", { name: "building_use", nullable: true }) buildingUse: BuildingUse | null;
  @Column("integer", { name: "floor_area_sqft", nullable: true }) floorAreaSqft: number | null;
  @Column("text", { name: "work_kind", nullable: true }) workKind: WorkKind | null;
  @Column("text", { name: "street_number", nullable: true }) streetNumber: string | null;
  @Column("text", { nullable: true }) street: string | null;
  @Column("text", { nullable: true }) city: string | null;
  @Column("text", { nullable: true }) zip: string | null;
  @Column("text", { name: "tax_parcel", nullable: true }) taxParcel: string | null;
  @Column("text", { name: "owner_name", nullable: true }) ownerName: string | null;
  @Column("text", { name: "agent_name", nullable: true }) agentName: string | null;
  @Column("uuid", { name: "contractor_id", nullable: true }) contractorId: string | null;
  /** Who does the work, where the district keeps no list of approved contractors (Huron III-2) */
  @Column("text", { name: "work_done_by", nullable: true }) workDoneBy: string | null;
  @Column("integer", { name: "as_built_sheets", nullable: true }) asBuiltSheets: number | null;
  @Column("uuid", { name: "rulebook_version_id", nullable: true }) rulebookVersionId: string | null;
  @Column("jsonb", { name: "fee_lines", default: () => "'[]'" }) feeLines: FeeLine[];
  @Column("integer", { name: "fee_total_cents", default: 0 }) feeTotalCents: number;
  @Column("uuid", { name: "payment_id", nullable: true }) paymentId: string | null;
  @Column("timestamptz", { name: "paid_at", nullable: true }) paidAt: Date | null;
  @Column("text", { name: "permit_number", nullable: true }) permitNumber: string | null;
  @Column("timestamptz", { name: "submitted_at", nullable: true }) submittedAt: Date | null;
  @Column("timestamptz", { name: "changes_requested_at", nullable: true }) changesRequestedAt: Date | null;
  @Column("text", { name: "review_notes", nullable: true }) reviewNotes: string | null;
  @Column("timestamptz", { name: "approved_at", nullable: true }) approvedAt: Date | null;
  @Column("uuid", { name: "approved_by_id", nullable: true }) approvedById: string | null;
  @Column("timestamptz", { name: "connected_at", nullable: true }) connectedAt: Date | null;
  @Column("timestamptz", { name: "as_built_filed_at", nullable: true }) asBuiltFiledAt: Date | null;
  @Column("timestamptz", { name: "as_built_approved_at", nullable: true }) asBuiltApprovedAt: Date | null;
  @Column("uuid", { name: "as_built_approved_by_id", nullable: true }) asBuiltApprovedById: string | null;
  /**
   * The as-built deposit due back once the record drawings are approved (SUL 606 B); the Clerk
   * refunds it from the payments ledger, and the payment's refunds show when that is done.
   */
  @Column("integer", { name: "deposit_refund_due_cents", default: 0 }) depositRefundDueCents: number;
  @Column("timestamptz", { name: "withdrawn_at", nullable: true }) withdrawnAt: Date | null;
  @Column("timestamptz", { name: "closed_at", nullable: true }) closedAt: Date | null;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

@Entity("lateral_permit_document")
export class LateralPermitDocument {
  @PrimaryColumn("uuid", { name: "permit_id" }) permitId: string;
  @PrimaryColumn("uuid", { name: "document_id" }) documentId: string;
  @Column("integer") position: number;
  /** PLAN: filed with the application (SUL 602); AS_BUILT: the record drawings filed after connection (SUL 606 B) */
  @Column("text") kind: PermitDocumentKind;
}

@Entity("lateral_inspection")
export class LateralInspection {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "permit_id" }) permitId: string;
  @Column("text") kind: InspectionKind;
  @Column("text") status: InspectionStatus;
  @Column("timestamptz", { name: "requested_at", default: () => "now()" }) requestedAt: Date;
  @Column("uuid", { name: "requested_by_id" }) requestedById: string;
  @Column("text", { name: "applicant_notes", nullable: true }) applicantNotes: string | null;
  /** The day the applicant would like the inspection, in the district's zone */
  @Column("date", { name: "preferred_on", nullable: true }) preferredOn: string | null;
  @Column("timestamptz", { name: "scheduled_for", nullable: true }) scheduledFor: Date | null;
  @Column("uuid", { name: "scheduled_by_id", nullable: true }) scheduledById: string | null;
  @Column("uuid", { name: "inspector_id", nullable: true }) inspectorId: string | null;
  @Column("text", { name: "result_notes", nullable: true }) resultNotes: string | null;
  @Column("timestamptz", { name: "recorded_at", nullable: true }) recordedAt: Date | null;
  @Column("uuid", { name: "recorded_by_id", nullable: true }) recordedById: string | null;
  /** When the inspection took place (at or before the result was recorded) */
  @Column("timestamptz", { name: "inspected_at", nullable: true }) inspectedAt: Date | null;
}

@Entity("sewer_moratorium")
export class SewerMoratorium {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("text", { name: "segment_name" }) segmentName: string;
  @Column("text", { array: true }) streets: string[];
  @Column("text") reason: string;
  /** The rulebook section the moratorium rests on (lateral.moratoriumEnabled), e.g. "Sewer Use Law 310". */
  @Column("text") section: string;
  @Column("uuid", { name: "declared_by_id" }) declaredById: string;
  @Column("timestamptz", { name: "declared_at", default: () => "now()" }) declaredAt: Date;
  @Column("timestamptz", { name: "lifted_at", nullable: true }) liftedAt: Date | null;
  @Column("uuid", { name: "lifted_by_id", nullable: true }) liftedById: string | null;
  @Column("text", { name: "lift_reason", nullable: true }) liftReason: string | null;
}

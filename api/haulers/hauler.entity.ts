import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

/**
 * Septage haulers (SUL Article 8, 1208; Huron IV-8); see migrations/1764892800000-Haulers.ts.
 * EXPIRED is never stored by a job: a licence whose valid_until has passed reads as expired (see
 * rules.ts licenseStanding); the value exists so a record can be closed by hand if ever needed.
 */
export const LICENSE_STATUSES = ["DRAFT", "SUBMITTED", "APPROVED", "DENIED", "SUSPENDED", "REVOKED", "EXPIRED", "WITHDRAWN"] as const;
export type LicenseStatus = (typeof LICENSE_STATUSES)[number];
export const PERMISSION_STATUSES = ["REQUESTED", "GRANTED", "DENIED", "REVOKED"] as const;
export type PermissionStatus = (typeof PERMISSION_STATUSES)[number];
export const LOAD_STATUSES = ["BOOKED", "APPROVED", "REFUSED", "RECEIVED", "CANCELLED"] as const;
export type LoadStatus = (typeof LOAD_STATUSES)[number];
export const SOURCE_KINDS = ["RESIDENTIAL_SEPTIC_TANK", "HOLDING_TANK", "PORTABLE_TOILETS", "GREASE_TRAP", "OTHER"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

@Entity("hauler_license")
export class HaulerLicense {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "organization_id" }) organizationId: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("uuid", { name: "applicant_id" }) applicantId: string;
  @Column("uuid", { name: "previous_license_id", nullable: true }) previousLicenseId: string | null;
  @Column("text") status: LicenseStatus;
  @Column("text", { name: "license_number", nullable: true }) licenseNumber: string | null;
  @Column("text", { name: "part364_permit_number", nullable: true }) part364PermitNumber: string | null;
  @Column("date", { name: "part364_expires_on", nullable: true }) part364ExpiresOn: string | null;
  @Column("uuid", { name: "part364_document_id", nullable: true }) part364DocumentId: string | null;
  @Column("timestamptz", { name: "part364_revoked_at", nullable: true }) part364RevokedAt: Date | null;
  @Column("date", { name: "part364_notice_sent_for", nullable: true }) part364NoticeSentFor: string | null;
  @Column("integer", { name: "annual_volume_gallons", nullable: true }) annualVolumeGallons: number | null;
  @Column("text", { name: "service_area", nullable: true }) serviceArea: string | null;
  @Column("text", { name: "other_information", nullable: true }) otherInformation: string | null;
  @Column("timestamptz", { name: "certified_at", nullable: true }) certifiedAt: Date | null;
  @Column("uuid", { name: "certified_by_id", nullable: true }) certifiedById: string | null;
  @Column("uuid", { name: "rulebook_version_id", nullable: true }) rulebookVersionId: string | null;
  @Column("integer", { name: "application_fee_cents", nullable: true }) applicationFeeCents: number | null;
  @Column("uuid", { name: "payment_id", nullable: true }) paymentId: string | null;
  @Column("timestamptz", { name: "paid_at", nullable: true }) paidAt: Date | null;
  @Column("timestamptz", { name: "submitted_at", nullable: true }) submittedAt: Date | null;
  @Column("timestamptz", { name: "decided_at", nullable: true }) decidedAt: Date | null;
  @Column("uuid", { name: "decided_by_id", nullable: true }) decidedById: string | null;
  @Column("text", { name: "decision_reason", nullable: true }) decisionReason: string | null;
  @Column("date", { name: "valid_from", nullable: true }) validFrom: string | null;
  @Column("date", { name: "valid_until", nullable: true }) validUntil: string | null;
  @Column("text", { name: "dumping_location", nullable: true }) dumpingLocation: string | null;
  @Column("integer", { name: "dumping_days", array: true, nullable: true }) dumpingDays: number[] | null;
  @Column("time", { name: "dumping_from", nullable: true }) dumpingFrom: string | null;
  @Column("time", { name: "dumping_to", nullable: true }) dumpingTo: string | null;
  @Column("integer", { name: "reminders_sent", array: true, default: () => "'{}'" }) remindersSent: number[];
  @Column("timestamptz", { name: "action_at", nullable: true }) actionAt: Date | null;
  @Column("uuid", { name: "action_by_id", nullable: true }) actionById: string | null;
  @Column("text", { name: "action_reason", nullable: true }) actionReason: string | null;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

@Entity("hauler_permission")
export class HaulerPermission {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "organization_id" }) organizationId: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("uuid", { name: "requested_by_id" }) requestedById: string;
  @Column("text") status: PermissionStatus;
  @Column("text", { name: "requested_point" }) requestedPoint: string;
  @Column("text", { name: "requested_conditions", nullable: true }) requestedConditions: string | null;
  @Column("text", { nullable: true }) point: string | null;
  @Column("text", { nullable: true }) conditions: string | null;
  @Column("date", { name: "valid_from", nullable: true }) validFrom: string | null;
  @Column("date", { name: "valid_until", nullable: true }) validUntil: string | null;
  @Column("integer", { name: "dumping_days", array: true, nullable: true }) dumpingDays: number[] | null;
  @Column("time", { name: "dumping_from", nullable: true }) dumpingFrom: string | null;
  @Column("time", { name: "dumping_to", nullable: true }) dumpingTo: string | null;
  @Column("timestamptz", { name: "decided_at", nullable: true }) decidedAt: Date | null;
  @Column("uuid", { name: "decided_by_id", nullable: true }) decidedById: string | null;
  @Column("text", { name: "decision_reason", nullable: true }) decisionReason: string | null;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

@Entity("hauler_vehicle")
export class HaulerVehicle {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "license_id", nullable: true }) licenseId: string | null;
  @Column("uuid", { name: "permission_id", nullable: true }) permissionId: string | null;
  @Column("integer") position: number;
  @Column("text") make: string;
  @Column("text") model: string;
  @Column("integer", { name: "tank_capacity_gallons" }) tankCapacityGallons: number;
  @Column("text") plate: string;
  @Column("text", { name: "plate_state" }) plateState: string;
  @Column("text") colour: string;
  @Column("text", { name: "registered_owner" }) registeredOwner: string;
}

@Entity("hauler_load")
export class HaulerLoad {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("uuid", { name: "organization_id" }) organizationId: string;
  @Column("uuid", { name: "license_id", nullable: true }) licenseId: string | null;
  @Column("uuid", { name: "permission_id", nullable: true }) permissionId: string | null;
  @Column("uuid", { name: "vehicle_id" }) vehicleId: string;
  @Column("uuid", { name: "booked_by_id" }) bookedById: string;
  @Column("text") status: LoadStatus;
  @Column("text", { name: "source_address" }) sourceAddress: string;
  @Column("text", { name: "source_kind" }) sourceKind: SourceKind;
  @Column("text", { name: "source_description", nullable: true }) sourceDescription: string | null;
  @Column("integer", { name: "estimated_gallons" }) estimatedGallons: number;
  @Column("timestamptz", { name: "planned_arrival" }) plannedArrival: Date;
  @Column("uuid", { name: "rulebook_version_id" }) rulebookVersionId: string;
  @Column("integer", { name: "rate_per_1000_cents", nullable: true }) ratePer1000Cents: number | null;
  @Column("integer", { name: "minimum_cents", nullable: true }) minimumCents: number | null;
  @Column("integer", { name: "fee_cents", default: 0 }) feeCents: number;
  @Column("uuid", { name: "payment_id", nullable: true }) paymentId: string | null;
  @Column("timestamptz", { name: "paid_at", nullable: true }) paidAt: Date | null;
  @Column("boolean", { name: "sample_required", default: false }) sampleRequired: boolean;
  @Column("integer", { name: "sample_cost_cents", nullable: true }) sampleCostCents: number | null;
  @Column("text", { name: "sample_notes", nullable: true }) sampleNotes: string | null;
  @Column("timestamptz", { name: "decided_at", nullable: true }) decidedAt: Date | null;
  @Column("uuid", { name: "decided_by_id", nullable: true }) decidedById: string | null;
  @Column("text", { name: "refusal_reason", nullable: true }) refusalReason: string | null;
  @Column("boolean", { name: "refund_due", default: false }) refundDue: boolean;
  @Column("integer", { name: "measured_gallons", nullable: true }) measuredGallons: number | null;
  @Column("timestamptz", { name: "received_at", nullable: true }) receivedAt: Date | null;
  @Column("uuid", { name: "received_by_id", nullable: true }) receivedById: string | null;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

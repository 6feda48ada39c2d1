import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from "typeorm";

/** SUL 1102-1108, 1117; Huron V-1, V-2. */
export const ACTION_KINDS = [
  "NOTICE_OF_VIOLATION",
  "CONSENT_ORDER",
  "COMPLIANCE_ORDER",
  "FINE",
  "CEASE_AND_DESIST",
  "PERMIT_TERMINATION",
  "WATER_SEVERANCE",
  "SUMMARY_ABATEMENT",
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export const ACTION_STATUSES = ["SERVED", "UNDER_PETITION", "FINAL", "SUSPENDED", "VACATED", "RECONNECTED"] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];
export type PetitionTo = "TOWN_BOARD" | "DISTRICT_OPERATOR";
export const RELIEFS = ["MODIFY", "SUSPEND", "RECONNECT", "CONTINUED_USE"] as const;
export type Relief = (typeof RELIEFS)[number];
export const PETITION_STATUSES = ["FILED", "HEARING_ORDERED", "REJECTED", "MODIFIED", "SUSPENDED", "RECONNECTED", "UPHELD", "VACATED", "WITHDRAWN"] as const;
export type PetitionStatus = (typeof PETITION_STATUSES)[number];
export const OPEN_PETITION: PetitionStatus[] = ["FILED", "HEARING_ORDERED"];
export const HEARING_OUTCOMES = ["UPHELD", "MODIFIED", "VACATED"] as const;
export type HearingOutcome = (typeof HEARING_OUTCOMES)[number];
export const CHARGE_STATUSES = ["OPEN", "HELD", "PAID", "CANCELLED"] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/** One day of a fine: each day is a separate violation (SUL 1105; Huron V-2). */
export type FineDay = { date: string; amountCents: number };

@Entity("enforcement_action")
export class EnforcementAction {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("text") number: string;
  @Column("text") kind: ActionKind;
  @Column("text") status: ActionStatus;
  @Column("uuid", { name: "respondent_user_id", nullable: true }) respondentUserId: string | null;
  @Column("uuid", { name: "respondent_organization_id", nullable: true }) respondentOrganizationId: string | null;
  @Column("text", { name: "respondent_name" }) respondentName: string;
  @Column("text") violation: string;
  @Column("text", { nullable: true }) requirements: string | null;
  @Column("text") section: string;
  @Column("date", { name: "correct_by", nullable: true }) correctBy: string | null;
  @Column("date", { name: "served_on" }) servedOn: string;
  @Column("date", { name: "answer_due_on", nullable: true }) answerDueOn: string | null;
  @Column("date", { name: "petition_due_on", nullable: true }) petitionDueOn: string | null;
  @Column("text", { name: "petition_to", nullable: true }) petitionTo: PetitionTo | null;
  @Column("date", { name: "hearing_due_on", nullable: true }) hearingDueOn: string | null;
  @Column("date", { name: "final_on", nullable: true }) finalOn: string | null;
  @Column("text", { name: "final_reason", nullable: true }) finalReason: string | null;
  @Column("uuid", { name: "escalates_id", nullable: true }) escalatesId: string | null;
  @Column("text", { name: "subject_type", nullable: true }) subjectType: string | null;
  @Column("uuid", { name: "subject_id", nullable: true }) subjectId: string | null;
  @Column("text", { name: "subject_label", nullable: true }) subjectLabel: string | null;
  @Column("jsonb", { name: "fine_days", default: () => "'[]'" }) fineDays: FineDay[];
  @Column("integer", { name: "fine_total_cents", default: 0 }) fineTotalCents: number;
  @Column("integer", { name: "original_fine_total_cents", default: 0 }) originalFineTotalCents: number;
  @Column("text", { nullable: true }) response: string | null;
  @Column("text", { name: "response_plan", nullable: true }) responsePlan: string | null;
  @Column("timestamptz", { name: "responded_at", nullable: true }) respondedAt: Date | null;
  @Column("uuid", { name: "responded_by_id", nullable: true }) respondedById: string | null;
  @Column("uuid", { name: "rulebook_version_id" }) rulebookVersionId: string;
  @Column("uuid", { name: "created_by_id" }) createdById: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

@Entity("petition")
export class Petition {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "action_id" }) actionId: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("text", { name: "addressed_to" }) addressedTo: PetitionTo;
  @Column("text") relief: Relief;
  @Column("text") grounds: string;
  @Column("text") status: PetitionStatus;
  @Column("uuid", { name: "filed_by_id" }) filedById: string;
  @Column("timestamptz", { name: "filed_at", default: () => "now()" }) filedAt: Date;
  @Column("date", { name: "filed_on" }) filedOn: string;
  @Column("uuid", { name: "decided_by_id", nullable: true }) decidedById: string | null;
  @Column("timestamptz", { name: "decided_at", nullable: true }) decidedAt: Date | null;
  @Column("text", { name: "decision_reasons", nullable: true }) decisionReasons: string | null;
  @Column("text", { name: "new_terms", nullable: true }) newTerms: string | null;
  @Column("integer", { name: "new_amount_cents", nullable: true }) newAmountCents: number | null;
  @Column("timestamptz", { name: "withdrawn_at", nullable: true }) withdrawnAt: Date | null;
  @Column("uuid", { name: "withdrawn_by_id", nullable: true }) withdrawnById: string | null;
}

@Entity("petition_document")
export class PetitionDocument {
  @PrimaryColumn("uuid", { name: "petition_id" }) petitionId: string;
  @PrimaryColumn("uuid", { name: "document_id" }) documentId: string;
  @Column("integer") position: number;
}

@Entity("show_cause_hearing")
export class ShowCauseHearing {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "petition_id" }) petitionId: string;
  @Column("uuid", { name: "action_id" }) actionId: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("timestamptz", { name: "scheduled_for" }) scheduledFor: Date;
  @Column("date", { name: "hearing_date" }) hearingDate: string;
  @Column("text") place: string;
  @Column("text") reasons: string;
  @Column("text", { name: "proposed_action" }) proposedAction: string;
  @Column("text", { name: "information_requested", nullable: true }) informationRequested: string | null;
  @Column("date", { name: "notice_served_on" }) noticeServedOn: string;
  @Column("uuid", { name: "ordered_by_id" }) orderedById: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("text", { nullable: true }) outcome: HearingOutcome | null;
  @Column("text", { name: "outcome_reasons", nullable: true }) outcomeReasons: string | null;
  @Column("integer", { name: "new_amount_cents", nullable: true }) newAmountCents: number | null;
  @Column("text", { name: "new_terms", nullable: true }) newTerms: string | null;
  @Column("uuid", { name: "decided_by_id", nullable: true }) decidedById: string | null;
  @Column("timestamptz", { name: "decided_at", nullable: true }) decidedAt: Date | null;
}

@Entity("charge")
export class Charge {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("text") number: string;
  @Column("uuid", { name: "respondent_user_id", nullable: true }) respondentUserId: string | null;
  @Column("uuid", { name: "respondent_organization_id", nullable: true }) respondentOrganizationId: string | null;
  @Column("text", { name: "respondent_name" }) respondentName: string;
  @Column("text") label: string;
  @Column("text") section: string;
  @Column("integer", { name: "amount_cents" }) amountCents: number;
  @Column("date", { name: "billed_on" }) billedOn: string;
  @Column("text") status: ChargeStatus;
  @Column("uuid", { name: "action_id", nullable: true }) actionId: string | null;
  @Column("text", { name: "tax_parcel", nullable: true }) taxParcel: string | null;
  @Column("text", { name: "property_address", nullable: true }) propertyAddress: string | null;
  @Column("uuid", { name: "payment_id", nullable: true }) paymentId: string | null;
  @Column("timestamptz", { name: "paid_at", nullable: true }) paidAt: Date | null;
  @Column("integer", { name: "paid_cents", nullable: true }) paidCents: number | null;
  @Column("uuid", { name: "rulebook_version_id" }) rulebookVersionId: string;
  @Column("uuid", { name: "created_by_id" }) createdById: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

export const FLOW_DEDUCTION_STATUSES = ["FILED", "PERCENTAGE_SET", "METERING_DIRECTED", "REJECTED", "WITHDRAWN"] as const;
export type FlowDeductionStatus = (typeof FLOW_DEDUCTION_STATUSES)[number];

/** SUL 1205: metered water that does not reach the sewer. */
@Entity("flow_deduction_request")
export class FlowDeductionRequest {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("uuid", { name: "filed_by_id" }) filedById: string;
  @Column("uuid", { name: "organization_id", nullable: true }) organizationId: string | null;
  @Column("text", { name: "property_address" }) propertyAddress: string;
  @Column("text", { name: "tax_parcel", nullable: true }) taxParcel: string | null;
  @Column("text") evidence: string;
  @Column("text") status: FlowDeductionStatus;
  @Column("integer", { name: "sewer_percent", nullable: true }) sewerPercent: number | null;
  @Column("text", { name: "decision_reasons", nullable: true }) decisionReasons: string | null;
  @Column("uuid", { name: "decided_by_id", nullable: true }) decidedById: string | null;
  @Column("timestamptz", { name: "decided_at", nullable: true }) decidedAt: Date | null;
  @Column("timestamptz", { name: "filed_at", default: () => "now()" }) filedAt: Date;
  @Column("uuid", { name: "rulebook_version_id" }) rulebookVersionId: string;
}

@Entity("flow_deduction_document")
export class FlowDeductionDocument {
  @PrimaryColumn("uuid", { name: "request_id" }) requestId: string;
  @PrimaryColumn("uuid", { name: "document_id" }) documentId: string;
  @Column("integer") position: number;
}

export const JUDGMENTS = ["CONVICTED", "ACQUITTED", "DISMISSED"] as const;
export type Judgment = (typeof JUDGMENTS)[number];

/** Huron V-2: a notice's violation referred for prosecution, and the court's judgment as the Clerk records it. */
@Entity("prosecution")
export class Prosecution {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "action_id" }) actionId: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  /** The days the violation continued after the notice's time to correct, each a separate offense (V-2). */
  @Column("jsonb", { name: "continued_days" }) continuedDays: string[];
  @Column("date", { name: "referred_on" }) referredOn: string;
  @Column("uuid", { name: "referred_by_id" }) referredById: string;
  @Column("timestamptz", { name: "referred_at", default: () => "now()" }) referredAt: Date;
  @Column("text", { nullable: true }) judgment: Judgment | null;
  @Column("text", { nullable: true }) court: string | null;
  @Column("text", { name: "docket_number", nullable: true }) docketNumber: string | null;
  @Column("date", { name: "judgment_on", nullable: true }) judgmentOn: string | null;
  /** The offenses (days) the court convicted of, with the fine it imposed for each. */
  @Column("jsonb", { name: "offense_days", default: () => "'[]'" }) offenseDays: FineDay[];
  @Column("integer", { name: "fine_total_cents", default: 0 }) fineTotalCents: number;
  @Column("uuid", { name: "recorded_by_id", nullable: true }) recordedById: string | null;
  @Column("timestamptz", { name: "recorded_at", nullable: true }) recordedAt: Date | null;
}

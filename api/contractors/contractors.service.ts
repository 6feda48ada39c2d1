/**
 * Approved contractors. A district that keeps a list of approved contractors for new users
 * (SUL 601 A) lists contracting firms whose bond and insurance certificates (SUL 508) its Clerk has
 * checked against the minimums of the district's rulebook. Every figure comes from the rulebook
 * (`contractor.*` keys); nothing here is a constant of the law. One file per use case; this one
 * re-exports them for the resolver and the other features.
 */
export { CONTRACTOR_STATUSES, COVERAGES, COVERAGE_RULES, coverageLabel } from "./common.js";
export type { ContractorStatus, Coverage, InsuranceInput, ApplyInput } from "./common.js";
export { checkAgainstMinimums, contractorStanding, renewedFiling } from "./rules.js";
export type { FiledApplication, Finding, ContractorStanding } from "./rules.js";
export { RENEWAL_STATUSES } from "./views.js";
export type { InsuranceView, RenewalStatus, RenewalView, ContractorView } from "./views.js";
export { myContractorApplications, getContractor, districtContractors, publicContractorList, choosableContractors, isChoosable, contractorStandings } from "./lists.service.js";
export type { PublicContractor } from "./lists.service.js";
export { contractorRequirements } from "./requirements.service.js";
export type { Requirement, ContractorRequirements } from "./requirements.service.js";
export { applyAsContractor } from "./applications.service.js";
export { decideContractor, suspendContractor, reinstateContractor } from "./decisions.service.js";
export { renewContractor, decideContractorRenewal } from "./renewals.service.js";
export type { RenewInput } from "./renewals.service.js";
export { EXPIRY_REMINDER_JOB, sendExpiryReminders } from "./reminders.service.js";
export { dashboardItems } from "./dashboard.js";
import "./registrations.js";

/**
 * Industrial wastewater discharge permits (SUL Article 10): the industrial user's owner or
 * Authorized Representative applies with SUL 1004 A's items and pays the fee; the District
 * Operator publishes the notice of intent (1004 H) and, at least 14 days later, issues the permit
 * for at most 5 years (1004 D) with its limits (903, 904) and reporting months (1005(3)); the
 * permit's schedule makes the report periods and their due dates. Revocation names a 1004 G
 * reason. Reissuance reminders go out before the 180-day deadline (1004 E).
 */
export { PAYABLE_TYPE, FEE_CODE, clean, notifyMembers, notifyMembersOfEach, notifyOrganization, requireEnabled, requireStatus } from "./permit-common.js";
export { COLUMNS, JSON_COLUMNS, saveApplication, refuseTransfer, documentsOf, scheduleProblems, submitApplication, insertLimits, withdrawApplication } from "./applications.service.js";
export type { ApplicationInput } from "./applications.service.js";
export { staffPermit, noticeOfIntent, publishNotice, setLimits, checkLimits, nextPermitNumber, rulebookReportingMonths, parseMonths, monthNames, reportPeriods, createReports, checkMonths, issuePermit, SUPERSEDE_JOB, PROGRESS_REMINDER_JOB, scheduleProgressReminders, revokePermit } from "./issuance.service.js";
export type { LimitInput, IssueInput } from "./issuance.service.js";
export { myPermits, districtPermits, notices, publicPermits } from "./permit-lists.service.js";
export { REISSUANCE_REMINDER_JOB, REPORT_REMINDER_JOB } from "./permit-reminders.js";
import "./permit-registrations.js";

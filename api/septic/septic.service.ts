/** Septic systems' use cases, for the resolver and the hauler-load hook (docs/septic.md). */
import "./registrations.js";
export { districtSystems, linkPumpOut, recentLoadsFor, mySystems, pumpOutFromLoad, pumpOutsOf, registerSystem, systemsOfProperty, SYSTEM_FILTERS } from "./systems.service.js";
export { applyForPermit, decidePermit, districtPermits, getPermit, inspectionsOf, myPermits, permitDocumentsOf, recordInspection, INSPECTION_STAGE_LABELS, PERMIT_DOCUMENT_LABELS } from "./permits.service.js";
export { districtNotices, escalateNotice, getNotice, noticesOf, recordCorrected, serveNotice } from "./notices.service.js";
export { acceptedExtensions, choosePath, districtOrders, getOrder, lateralCandidatesOf, issueOrders, ordersOf, recordStep, stepsOf } from "./orders.service.js";
export { getSystem, loadDistrict } from "./common.js";
export { sendSepticReminders, REMINDER_JOB } from "./reminders.service.js";

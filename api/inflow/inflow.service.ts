/** Inflow's use cases, for the resolver (docs/inflow.md). */
import "./registrations.js";
export { getInspection, loadDistrict, STATUS_LABELS, ORIGIN_LABELS, PARTY_ROLE_LABELS } from "./common.js";
export { importSales, recordSale, getSaleImport } from "./sales.service.js";
export { requestInspection, openInspection, recordVisit, visitsOf, sourcesOf, photosOf, partiesOf, districtInspections, myInspections, publicCertificate, dueOn, daysLeftOf, propertiesDischargingInflow } from "./inspections.service.js";
export { openEnforcement } from "./enforcement.service.js";
export { recordDetermination, determinationsOf } from "./determinations.service.js";

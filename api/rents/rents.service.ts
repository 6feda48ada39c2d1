/** The sewer-rent register's use cases, for the resolver (docs/sewer-rents.md). */
import "./registrations.js";
export { createProperty, getProperty, listProperties, myProperties, recordSale, registerSummary, updateProperty } from "./register.service.js";
export { addMeter, assessAccount, closeAccount, getAccount, linkIndustrialPermit, openAccount, removeMeter, worksheet, type Worksheet } from "./accounts.service.js";
export type { AssessmentView } from "./common.js";

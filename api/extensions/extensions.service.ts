/** Sewer extensions' use cases, for the resolver (docs/sewer-extensions.md). */
import "./registrations.js";
export { applyForExtension, attachDocuments, decideExtension, districtExtensions, documentsOf, giveConstructionNotice, myExtensions, reviewOf } from "./applications.service.js";
export { capacityLedger, commitCapacity, extensionDistricts, recordCapacity, releaseCommitment } from "./capacity.service.js";
export { addTestSection, attemptsOf, connectionProblem, recordTest, sectionStanding, sectionsOf, type RecordTestInput as RecordTestInputType } from "./tests.service.js";
export { getExtension, loadDistrict } from "./common.js";
export { lateralConnectionProblem, lateralsOf, linkLateral } from "./laterals.service.js";

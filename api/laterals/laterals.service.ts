/**
 * Building lateral permits (SUL Article 6, 1212; Huron Article III): the homeowner applies, pays,
 * the District Operator reviews and issues the permit, inspects the work and accepts the
 * connection; the as-built deposit is refunded when the record drawings are approved. Every
 * change is a transaction with an audit entry; every notice goes through the outbox.
 */
export { PAYABLE_TYPE, addressOf, getPermit, mayView, rulebookOfVersion } from "./common.js";
export * from "./applications.service.js";
export * from "./inspections.service.js";
export * from "./record-drawings.service.js";
export * from "./moratoria.service.js";
export * from "./lists.service.js";
import "./registrations.js";

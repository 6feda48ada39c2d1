/**
 * Septage haulers (SUL Article 8, 1208; Huron IV-8). A HAULER organization's owner applies for the
 * Town Board's annual licence, pays the application fee (at most the rulebook's cap, SUL 801)
 * before the Board reviews it; the Board approves (stating where, which days and what hours
 * dumping is allowed, SUL 803) or denies. Drivers book loads and pay the dumping fee before
 * dumping (SUL 801, 1208); the District Operator approves or refuses each load, may order a sample
 * at the licensee's cost (SUL 804) and records the gallons received. Whether a licence is in force
 * is worked out from its dates (SUL 802): no job flips a status when a date passes. In Huron there
 * are no licences: the Superintendent grants written special permission (Huron IV-8) in their place.
 *
 * Every change is one transaction with its audit entry and its emails.
 */
export { LICENSE_PAYABLE, LOAD_PAYABLE, REMINDER_JOB, adjustmentCents, getLicense, getLoad, getPermission, part364Opts, standingOf, vehiclesOf, type ScheduleInput, type VehicleInput } from "./common.js";
export * from "./licenses.service.js";
export * from "./permissions.service.js";
export * from "./loads.service.js";
export * from "./lists.service.js";
export * from "./reminders.service.js";
import "./registrations.js";

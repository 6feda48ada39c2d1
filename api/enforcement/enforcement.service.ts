/**
 * Enforcement (SUL Article 11; Huron Article V) and delinquent charges (SUL 1118; Huron VI-3, VI-4).
 * The District Operator serves notices, orders and fines; the respondent (a person, or an
 * organization whose members see it) answers, pays or petitions; the Town Board decides petitions
 * and holds show-cause hearings. Every change is one transaction with an audit entry, and the
 * people concerned hear of it through the outbox. Figures come from the rulebook version stored on
 * the action or charge; dates are calendar dates in the district's zone, from the rules' clock.
 */
export { CHARGE_PAYABLE, getAction, getPetition, getCharge, petitionsOf, hearingsOfPetitions, chargesOfActions, documentsOfPetitions, statementOf } from "./common.js";
export { createAction, respondToNotice } from "./actions.service.js";
export type { CreateActionInput } from "./actions.service.js";
export { filePetition, withdrawPetition, decidePetition } from "./petitions.service.js";
export type { DecidePetitionInput } from "./petitions.service.js";
export { referForProsecution, recordJudgment, prosecutionsOf, referralBlocked, convictionLaw, JUDGMENT_LABELS } from "./prosecutions.service.js";
export type { ReferInput, JudgmentInput } from "./prosecutions.service.js";
export { orderHearing, decideHearing } from "./hearings.service.js";
export type { OrderHearingInput, DecideHearingInput } from "./hearings.service.js";
export { billCharge, payCharge, myCharges, districtCharges, taxLevyReport } from "./charges.service.js";
export type { BillChargeInput, ChargeRow } from "./charges.service.js";
export { myActions, districtActions, docket, hearingCalendar, publicActions } from "./lists.service.js";
export type { DocketItem } from "./lists.service.js";
// Shared pieces the resolver reads too.
export { loadDistrict, isRespondent, todayIn } from "./common.js";
export { finality } from "./rules.js";
export { daysLeft } from "../common/dates.js";
export { OPEN_PETITION } from "./enforcement.entity.js";
import "./registrations.js";

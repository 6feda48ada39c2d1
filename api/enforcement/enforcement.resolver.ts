import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { hasRole, isStaff } from "../accounts/viewer.js";
import { dateIn, daysBetween } from "../common/dates.js";
import { forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { Access } from "../graphql/access.js";
import { PageOf } from "../graphql/page.js";
import { microCached } from "../graphql/micro-cache.js";
import { metaOf, type Context } from "../graphql/context.js";
import { PaymentType } from "../payments/payments.resolver.js";
import { Payment } from "../payments/payments.service.js";
import { EnforcementAction, ShowCauseHearing } from "./enforcement.entity.js";
import * as svc from "./enforcement.service.js";
import { ACTION_STATUS_LABELS, DECISION_LABELS, KINDS, PETITION_STATUS_LABELS, PETITION_TO_LABELS, RELIEF_LABELS, fineLimits, finality, kindProvided, petitionable, sectionFor, type Statement } from "./rules.js";
import { hearingIcs } from "./ics.js";
import { TaxLevySewerBillType } from "../rents/ledger.resolver.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("FineDay", { description: "One day of a fine: each day is a separate violation (SUL 1105; Huron V-2)", simpleResolvers: true })
export class FineDayType {
  @Field(() => String, { description: "YYYY-MM-DD" }) date: string;
  @Field(() => Int, { description: "Integer cents" }) amountCents: number;
}

@ObjectType("Option", { simpleResolvers: true })
export class OptionType {
  @Field(() => String) value: string;
  @Field(() => String) label: string;
}

@ObjectType("StatementLine", { simpleResolvers: true })
export class StatementLineType {
  @Field(() => String, { description: "charge, penalty or interest" }) code: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => Int, { description: "Integer cents" }) amountCents: number;
}

@ObjectType("ChargeStatement", { description: "What a charge costs on a date: the bill, and penalty and interest once delinquent (SUL 1118; Huron VI-3)", simpleResolvers: true })
export class StatementType {
  @Field(() => String) asOf: string;
  @Field(() => String) billedOn: string;
  @Field(() => String, { description: "The day lateness counts from: the billing date (SUL 1118) or the due date (Huron VI-3)" }) dueOn: string;
  @Field(() => String, { description: "The last day it can be paid without penalty" }) lastDayWithoutPenalty: string;
  @Field(() => Int) daysSinceBilling: number;
  @Field(() => Boolean) delinquent: boolean;
  @Field(() => Int) daysDelinquent: number;
  @Field(() => Int) interestMonths: number;
  @Field(() => [StatementLineType]) lines: StatementLineType[];
  @Field(() => Int, { description: "Integer cents" }) totalCents: number;
  @Field(() => String, { nullable: true, description: "Huron VI-3: unpaid this long after the due date is a violation, from this date" }) violationSince: string | null;
  @Field(() => String, { nullable: true }) violationSection: string | null;
  @Field(() => String) explanation: string;
}

const toStatement = (s: Statement): StatementType => ({ ...s, violationSince: s.violation?.since ?? null, violationSection: s.violation?.section ?? null });

@ObjectType("Charge", { description: "A billed amount: a fine, or a charge the Clerk billed", simpleResolvers: true })
export class ChargeType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) number: string;
  @Field(() => String) respondentName: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => Int, { description: "The bill, integer cents (a modified fine's new amount)" }) amountCents: number;
  @Field(() => String) billedOn: string;
  @Field(() => String, { description: "OPEN, HELD (a petition is before the Board), PAID or CANCELLED" }) status: string;
  @Field(() => ID, { nullable: true }) actionId: string | null;
  @Field(() => String, { nullable: true }) taxParcel: string | null;
  @Field(() => String, { nullable: true }) propertyAddress: string | null;
  @Field(() => ID, { nullable: true, description: "The payment prepared for it (pending or paid)" }) paymentId: string | null;
  @Field(() => Date, { nullable: true }) paidAt: Date | null;
  @Field(() => Int, { nullable: true }) paidCents: number | null;
  @Field(() => StatementType, { description: "Today's statement (or as of the report date)" }) statement: StatementType;
}
const toCharge = (r: svc.ChargeRow): ChargeType => ({ ...r.charge, statement: toStatement(r.statement) });

export const ChargePageType = PageOf("ChargePage", () => ChargeType);

@ObjectType("PetitionDocument", { simpleResolvers: true })
export class PetitionDocumentType {
  @Field(() => ID) id: string;
  @Field(() => String) filename: string;
}

@ObjectType("ShowCauseHearing", { description: "A show-cause hearing before the Town Board (SUL 1109)" })
export class HearingType {
  @Field(() => ID) id: string;
  @Field(() => ID) petitionId: string;
  @Field(() => ID) actionId: string;
  @Field(() => Date) scheduledFor: Date;
  @Field(() => String, { description: "YYYY-MM-DD in the district's zone" }) hearingDate: string;
  @Field(() => String) place: string;
  @Field(() => String) reasons: string;
  @Field(() => String) proposedAction: string;
  @Field(() => String, { nullable: true }) informationRequested: string | null;
  @Field(() => String, { description: "The day the notice was served" }) noticeServedOn: string;
  @Field(() => String, { nullable: true, description: "UPHELD, MODIFIED or VACATED" }) outcome: string | null;
  @Field(() => String, { nullable: true }) outcomeReasons: string | null;
  @Field(() => Int, { nullable: true }) newAmountCents: number | null;
  @Field(() => String, { nullable: true }) newTerms: string | null;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  orderedById: string;
  decidedById: string | null;
}

@ObjectType("Petition", { description: "A petition to the Town Board (or the District Operator) against an order or fine (SUL 1104-1108)" })
export class PetitionType {
  @Field(() => ID) id: string;
  @Field(() => ID) actionId: string;
  @Field(() => String, { description: "TOWN_BOARD or DISTRICT_OPERATOR" }) addressedTo: string;
  @Field(() => String) relief: string;
  @Field(() => String) grounds: string;
  @Field(() => String) status: string;
  @Field(() => String) filedOn: string;
  @Field(() => Date) filedAt: Date;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => String, { nullable: true }) decisionReasons: string | null;
  @Field(() => String, { nullable: true }) newTerms: string | null;
  @Field(() => Int, { nullable: true }) newAmountCents: number | null;
  @Field(() => Date, { nullable: true }) withdrawnAt: Date | null;
  filedById: string;
  decidedById: string | null;
  districtId: string;
}

@ObjectType("EnforcementAction", { description: "A notice, order or fine served by the District Operator (SUL Article 11; Huron Article V)" })
export class ActionType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => String, { description: 'e.g. "LKV-EA-2026-0001"' }) number: string;
  @Field(() => String) kind: string;
  @Field(() => String) status: string;
  @Field(() => ID, { nullable: true }) respondentUserId: string | null;
  @Field(() => ID, { nullable: true }) respondentOrganizationId: string | null;
  @Field(() => String) respondentName: string;
  @Field(() => String) violation: string;
  @Field(() => String, { nullable: true }) requirements: string | null;
  @Field(() => String) section: string;
  @Field(() => String, { nullable: true, description: "Correct by (for a compliance order: service is cut unless corrected by this date)" }) correctBy: string | null;
  @Field(() => String, { description: "The date of mailing, when the notice counts as given (SUL 1111)" }) servedOn: string;
  @Field(() => String, { nullable: true, description: "Explanation and correction plan due (SUL 1102)" }) answerDueOn: string | null;
  @Field(() => String, { nullable: true, description: "Last day to petition (SUL 1104-1108)" }) petitionDueOn: string | null;
  @Field(() => String, { nullable: true, description: "TOWN_BOARD, or DISTRICT_OPERATOR for a water severance" }) petitionTo: string | null;
  @Field(() => String, { nullable: true, description: "Summary abatement: the hearing is held by this date (SUL 1117)" }) hearingDueOn: string | null;
  @Field(() => String, { nullable: true }) finalReason: string | null;
  @Field(() => ID, { nullable: true }) escalatesId: string | null;
  @Field(() => String, { nullable: true, description: "The kind of record behind it: LateralPermit, Contractor, HaulerLicense, ..." }) subjectType: string | null;
  @Field(() => ID, { nullable: true }) subjectId: string | null;
  @Field(() => String, { nullable: true }) subjectLabel: string | null;
  @Field(() => [FineDayType]) fineDays: FineDayType[];
  @Field(() => Int) fineTotalCents: number;
  @Field(() => Int, { description: "The fine as served, before any modification" }) originalFineTotalCents: number;
  @Field(() => String, { nullable: true }) response: string | null;
  @Field(() => String, { nullable: true }) responsePlan: string | null;
  @Field(() => Date, { nullable: true }) respondedAt: Date | null;
  @Field(() => Date) createdAt: Date;
  rulebookVersionId: string;
  finalOn: string | null;
}

@ObjectType("Prosecution", { description: "Huron V-2: a notice's violation referred for prosecution after its time to correct, and the court's judgment as the Town Clerk recorded it" })
export class ProsecutionType {
  @Field(() => ID) id: string;
  @Field(() => ID) actionId: string;
  @Field(() => [String], { description: "The days (YYYY-MM-DD) the violation continued after the time to correct, each a separate offense" }) continuedDays: string[];
  @Field(() => String) referredOn: string;
  @Field(() => String, { nullable: true, description: "CONVICTED, ACQUITTED or DISMISSED; null while before the court" }) judgment: string | null;
  @Field(() => String, { nullable: true }) court: string | null;
  @Field(() => String, { nullable: true, description: "The court's docket or case number" }) docketNumber: string | null;
  @Field(() => String, { nullable: true, description: "The date of conviction (or acquittal or dismissal)" }) judgmentOn: string | null;
  @Field(() => [FineDayType], { description: "On conviction: each offense (day) with the fine the court imposed" }) offenseDays: FineDayType[];
  @Field(() => Int, { description: "The court's fine, integer cents (0 unless convicted)" }) fineTotalCents: number;
  @Field(() => Date, { nullable: true }) recordedAt: Date | null;
  @Field(() => String, { nullable: true, description: "Convicted, Acquitted or Dismissed" }) judgmentLabel: string | null;
  @Field(() => String, { description: "What the law says (Huron V-2), with the rulebook's cap" }) law: string;
  referredById: string;
  recordedById: string | null;
}

export const ActionPageType = PageOf("EnforcementActionPage", () => ActionType);

@ObjectType("DocketItem", { description: "An open petition on the docket", simpleResolvers: true })
export class DocketItemType {
  @Field(() => ID) petitionId: string;
  @Field(() => String) status: string;
  @Field(() => String) statusLabel: string;
  @Field(() => String) relief: string;
  @Field(() => String) grounds: string;
  @Field(() => String) filedOn: string;
  @Field(() => Date) filedAt: Date;
  @Field(() => String) filedByName: string;
  @Field(() => String) addressedTo: string;
  @Field(() => ID) actionId: string;
  @Field(() => String) actionNumber: string;
  @Field(() => String) actionKind: string;
  @Field(() => String) actionKindLabel: string;
  @Field(() => String) respondentName: string;
  @Field(() => String) servedOn: string;
  @Field(() => String, { nullable: true }) petitionDueOn: string | null;
  @Field(() => Int) fineTotalCents: number;
  @Field(() => ID, { nullable: true }) hearingId: string | null;
  @Field(() => Date, { nullable: true }) hearingAt: Date | null;
  @Field(() => String, { nullable: true }) hearingPlace: string | null;
  @Field(() => Int) documentCount: number;
}

@ObjectType("Docket", { simpleResolvers: true })
export class DocketType {
  @Field(() => [DocketItemType]) items: DocketItemType[];
  @Field(() => String, { nullable: true }) nextCursor: string | null;
}

@ObjectType("HearingCalendarItem", { simpleResolvers: true })
export class HearingCalendarItemType {
  @Field(() => ID) id: string;
  @Field(() => ID) petitionId: string;
  @Field(() => ID) actionId: string;
  @Field(() => String) actionNumber: string;
  @Field(() => String) actionKind: string;
  @Field(() => String) respondentName: string;
  @Field(() => Date) scheduledFor: Date;
  @Field(() => String) place: string;
  @Field(() => String, { nullable: true }) outcome: string | null;
}

@ObjectType("PublicEnforcementAction", { description: "A final enforcement action against an industrial user: a public record (SUL 1014, 1122)", simpleResolvers: true })
export class PublicActionType {
  @Field(() => String) number: string;
  @Field(() => String) kindLabel: string;
  @Field(() => String) respondentName: string;
  @Field(() => String) violation: string;
  @Field(() => String) section: string;
  @Field(() => String) servedOn: string;
  @Field(() => String, { nullable: true }) finalOn: string | null;
  @Field(() => Int) fineTotalCents: number;
}

@ObjectType("TaxLevyReport", { description: "Delinquent charges for the tax levy (SUL 1118; Huron VI-4)", simpleResolvers: true })
export class TaxLevyReportType {
  @Field(() => String) asOf: string;
  @Field(() => Boolean) enabled: boolean;
  @Field(() => Int, { nullable: true }) minDaysDelinquent: number | null;
  @Field(() => String, { nullable: true, description: "Report to the Board and Assessor by" }) reportDue: string | null;
  @Field(() => String) section: string;
  @Field(() => [ChargeType]) items: ChargeType[];
  @Field(() => [TaxLevySewerBillType], { description: "The district's delinquent sewer bills (issue 14)" }) sewerBills: TaxLevySewerBillType[];
  @Field(() => String, { description: "The report as CSV (RFC 4180)" }) csv: string;
}

@ObjectType("EnforcementKind", { simpleResolvers: true })
export class EnforcementKindType {
  @Field(() => String) kind: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String, { nullable: true, description: "Who a petition goes to; null when the law provides none" }) petitionTo: string | null;
}

@ObjectType("EnforcementRules", { description: "The district's enforcement figures, from its rulebook", simpleResolvers: true })
export class EnforcementRulesType {
  @Field(() => [EnforcementKindType], { description: "The kinds of action the district's law provides (Huron: the notice and the fine only)" }) kinds: EnforcementKindType[];
  @Field(() => Int) fineMinPerDayCents: number;
  @Field(() => Int) fineMaxPerDayCents: number;
  @Field(() => String) fineSection: string;
  @Field(() => Boolean) fineRequiresPriorNotice: boolean;
  @Field(() => Boolean) petitionsEnabled: boolean;
  @Field(() => Int, { nullable: true }) petitionDays: number | null;
  @Field(() => Int, { nullable: true }) showCauseNoticeMinDays: number | null;
}

// ---------------------------------------------------------------------------------------------
// Inputs

@InputType()
export class FineDayInput {
  @Field(() => String) date: string;
  @Field(() => Int) amountCents: number;
}

@InputType()
export class CreateEnforcementActionInput {
  @Field(() => ID) districtId: string;
  @Field(() => String, { description: "NOTICE_OF_VIOLATION, CONSENT_ORDER, COMPLIANCE_ORDER, FINE, CEASE_AND_DESIST, PERMIT_TERMINATION, WATER_SEVERANCE or SUMMARY_ABATEMENT" }) kind: string;
  @Field(() => String, { nullable: true, description: "The person served (their account's email)" }) respondentEmail?: string | null;
  @Field(() => String, { nullable: true, description: "Or the organization served, by name" }) respondentOrganizationName?: string | null;
  @Field(() => ID, { nullable: true, description: "Or the organization served, by id" }) respondentOrganizationId?: string | null;
  @Field(() => String) violation: string;
  @Field(() => String, { nullable: true }) requirements?: string | null;
  @Field(() => String, { nullable: true }) correctBy?: string | null;
  @Field(() => String, { nullable: true, description: "Date of mailing (today by default)" }) servedOn?: string | null;
  @Field(() => ID, { nullable: true, description: "The earlier action this one follows from" }) escalatesId?: string | null;
  @Field(() => String, { nullable: true }) subjectType?: string | null;
  @Field(() => ID, { nullable: true }) subjectId?: string | null;
  @Field(() => String, { nullable: true }) subjectLabel?: string | null;
  @Field(() => [FineDayInput], { nullable: true }) fineDays?: FineDayInput[] | null;
  @Field(() => String, { nullable: true }) taxParcel?: string | null;
  @Field(() => String, { nullable: true }) propertyAddress?: string | null;
}

@InputType()
export class ReferForProsecutionInput {
  @Field(() => ID, { description: "The written notice whose time to correct has passed" }) actionId: string;
  @Field(() => [String], { description: "Each day (YYYY-MM-DD) the violation continued after the time to correct" }) continuedDays: string[];
}

@InputType()
export class RecordCourtJudgmentInput {
  @Field(() => ID) actionId: string;
  @Field(() => String, { description: "CONVICTED, ACQUITTED or DISMISSED" }) judgment: string;
  @Field(() => String) court: string;
  @Field(() => String) docketNumber: string;
  @Field(() => String, { description: "The date of conviction (or acquittal or dismissal), YYYY-MM-DD" }) judgmentOn: string;
  @Field(() => [FineDayInput], { nullable: true, description: "On conviction: each day convicted of with the fine imposed (at most the rulebook's cap, Huron V-2)" }) offenseDays?: FineDayInput[] | null;
}

@InputType()
export class RespondToNoticeInput {
  @Field(() => ID) actionId: string;
  @Field(() => String) explanation: string;
  @Field(() => String) correctionPlan: string;
}

@InputType()
export class FilePetitionInput {
  @Field(() => ID) actionId: string;
  @Field(() => String) grounds: string;
  @Field(() => String, { description: "MODIFY, SUSPEND, RECONNECT or CONTINUED_USE" }) relief: string;
  @Field(() => [ID], { nullable: true }) documentIds?: string[] | null;
}

@InputType()
export class DecidePetitionInput {
  @Field(() => ID) petitionId: string;
  @Field(() => String, { description: "REJECT (frivolous), MODIFY, SUSPEND or RECONNECT" }) decision: string;
  @Field(() => String) reasons: string;
  @Field(() => Int, { nullable: true, description: "A modified fine, integer cents" }) newAmountCents?: number | null;
  @Field(() => String, { nullable: true }) newTerms?: string | null;
}

@InputType()
export class OrderShowCauseHearingInput {
  @Field(() => ID) petitionId: string;
  @Field(() => String, { description: "Local date and time in the district's zone, YYYY-MM-DDTHH:MM" }) scheduledFor: string;
  @Field(() => String) place: string;
  @Field(() => String) reasons: string;
  @Field(() => String) proposedAction: string;
  @Field(() => String, { nullable: true }) informationRequested?: string | null;
}

@InputType()
export class DecideHearingInput {
  @Field(() => ID) hearingId: string;
  @Field(() => String, { description: "UPHELD, MODIFIED or VACATED" }) outcome: string;
  @Field(() => String) reasons: string;
  @Field(() => Int, { nullable: true }) newAmountCents?: number | null;
  @Field(() => String, { nullable: true }) newTerms?: string | null;
}

@InputType()
export class BillChargeInput {
  @Field(() => ID) districtId: string;
  @Field(() => String, { nullable: true }) respondentEmail?: string | null;
  @Field(() => String, { nullable: true }) respondentOrganizationName?: string | null;
  @Field(() => String) label: string;
  @Field(() => Int) amountCents: number;
  @Field(() => String, { nullable: true, description: "The billing (mailing) date, today by default" }) billedOn?: string | null;
  @Field(() => String, { nullable: true }) taxParcel?: string | null;
  @Field(() => String, { nullable: true }) propertyAddress?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Per-request loaders (no query per row in lists)

const perRequest = new WeakMap<Context, ReturnType<typeof makeLoaders>>();
function makeLoaders(ctx: Context) {
  function group<T>(fetch: (ids: readonly string[]) => Promise<T[]>, key: (row: T) => string | null) {
    return new DataLoader<string, T[]>(async (ids) => {
      const rows = await fetch(ids);
      return ids.map((id) => rows.filter((r) => key(r) === id));
    });
  }
  return {
    petitions: group((ids) => svc.petitionsOf(ctx.ds, ids), (r) => r.actionId),
    hearings: group((ids) => svc.hearingsOfPetitions(ctx.ds, ids), (r) => r.petitionId),
    charges: group((ids) => svc.chargesOfActions(ctx.ds, ids), (r) => r.actionId),
    prosecutions: group((ids) => svc.prosecutionsOf(ctx.ds, ids), (r) => r.actionId),
    documents: group((ids) => svc.documentsOfPetitions(ctx.ds, ids), (r) => r.petitionId),
    actions: new DataLoader<string, EnforcementAction | null>(async (ids) => {
      const rows = await ctx.ds.getRepository(EnforcementAction).findByIds([...ids]);
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    }),
    later: group((ids) => ctx.ds.getRepository(EnforcementAction).createQueryBuilder("a").where("a.escalates_id IN (:...ids)", { ids: [...ids] }).orderBy("a.served_on").getMany(), (r) => r.escalatesId),
  };
}
const loadersOf = (ctx: Context) => perRequest.get(ctx) ?? perRequest.set(ctx, makeLoaders(ctx)).get(ctx)!;
const districtOf = async (ctx: Context, id: string) => (await ctx.loaders.district.load(id))!;
const today = async (ctx: Context, districtId: string) => dateIn((await districtOf(ctx, districtId)).timeZone);
const userName = async (ctx: Context, id: string | null) => (id ? ((await ctx.loaders.user.load(id))?.displayName ?? null) : null);

// ---------------------------------------------------------------------------------------------

@Resolver(() => ActionType)
export class EnforcementResolver {
  @FieldResolver(() => String) kindLabel(@Root() a: ActionType) {
    return KINDS[a.kind as keyof typeof KINDS].label;
  }
  @FieldResolver(() => String) statusLabel(@Root() a: ActionType) {
    return ACTION_STATUS_LABELS[a.status];
  }
  @FieldResolver(() => District) district(@Root() a: ActionType, @Ctx() ctx: Context) {
    return districtOf(ctx, a.districtId);
  }
  @FieldResolver(() => String, { nullable: true }) petitionToLabel(@Root() a: ActionType) {
    return a.petitionTo ? PETITION_TO_LABELS[a.petitionTo as "TOWN_BOARD"] : null;
  }
  @FieldResolver(() => Int, { nullable: true, description: "Days left to petition, in the district's zone (0 on the last day, negative once closed)" })
  async petitionDaysLeft(@Root() a: ActionType, @Ctx() ctx: Context) {
    return a.petitionDueOn ? daysBetween(await today(ctx, a.districtId), a.petitionDueOn) : null;
  }
  @FieldResolver(() => Int, { nullable: true }) async answerDaysLeft(@Root() a: ActionType, @Ctx() ctx: Context) {
    return a.answerDueOn ? daysBetween(await today(ctx, a.districtId), a.answerDueOn) : null;
  }
  @FieldResolver(() => Boolean, { description: "Final: by decision, on service where the law gives no petition, or by default after the window (SUL 1110)" })
  async final(@Root() a: ActionType, @Ctx() ctx: Context) {
    return finality(a as any, await today(ctx, a.districtId)).final;
  }
  @FieldResolver(() => Boolean) async finalByDefault(@Root() a: ActionType, @Ctx() ctx: Context) {
    return finality(a as any, await today(ctx, a.districtId)).byDefault;
  }
  @FieldResolver(() => String, { nullable: true, name: "finalOn" }) async finalOnField(@Root() a: ActionType, @Ctx() ctx: Context) {
    return finality(a as any, await today(ctx, a.districtId)).finalOn;
  }
  @FieldResolver(() => String, { nullable: true, name: "finalExplanation" }) async finalExplanation(@Root() a: ActionType, @Ctx() ctx: Context) {
    return finality(a as any, await today(ctx, a.districtId)).reason;
  }
  @FieldResolver(() => Boolean, { description: "The viewer may file a petition now (served on them, window open, none open)" })
  async canPetition(@Root() a: ActionType, @Ctx() ctx: Context) {
    return a.status === "SERVED" && !!a.petitionDueOn && (await today(ctx, a.districtId)) <= a.petitionDueOn && (await svc.isRespondent(ctx.ds, ctx.viewer!, a));
  }
  @FieldResolver(() => [OptionType], { description: "The relief a petition may ask for" }) reliefOptions(@Root() a: ActionType) {
    return KINDS[a.kind as keyof typeof KINDS].reliefs.map((r) => ({ value: r, label: RELIEF_LABELS[r] }));
  }
  @FieldResolver(() => [OptionType], { description: "Decisions open on a petition against it, besides a show-cause hearing" }) decisionOptions(@Root() a: ActionType) {
    return KINDS[a.kind as keyof typeof KINDS].decisions.map((d) => ({ value: d, label: DECISION_LABELS[d] }));
  }
  @FieldResolver(() => [PetitionType]) petitions(@Root() a: ActionType, @Ctx() ctx: Context) {
    return loadersOf(ctx).petitions.load(a.id);
  }
  @FieldResolver(() => ChargeType, { nullable: true, description: "The fine's charge and today's statement" })
  async charge(@Root() a: ActionType, @Ctx() ctx: Context) {
    const [c] = await loadersOf(ctx).charges.load(a.id);
    if (!c) return null;
    return toCharge({ charge: c, statement: await svc.statementOf(ctx.ds, c, await districtOf(ctx, c.districtId)) });
  }
  @FieldResolver(() => ProsecutionType, { nullable: true, description: "Huron V-2: the violation referred for prosecution and the court's judgment" })
  async prosecution(@Root() a: ActionType, @Ctx() ctx: Context) {
    const [p] = await loadersOf(ctx).prosecutions.load(a.id);
    if (!p) return null;
    const rb = await rulebookOn(ctx.ds, await districtOf(ctx, a.districtId), p.referredOn);
    return { ...p, judgmentLabel: p.judgment ? svc.JUDGMENT_LABELS[p.judgment] : null, law: svc.convictionLaw(rb) };
  }
  @FieldResolver(() => String, { nullable: true, description: "District Operator: why the notice's violation cannot be referred for prosecution today (null: it can)" })
  async referralBlockedReason(@Root() a: ActionType, @Ctx() ctx: Context) {
    if (!hasRole(ctx.viewer!, "OPERATOR", a.districtId)) return "Only the District Operator refers a violation for prosecution.";
    const district = await districtOf(ctx, a.districtId);
    const [p] = await loadersOf(ctx).prosecutions.load(a.id);
    return svc.referralBlocked(await rulebookOn(ctx.ds, district), a as EnforcementAction, p ?? null, dateIn(district.timeZone));
  }
  @FieldResolver(() => Boolean, { description: "The viewer (the district's Town Clerk) may record the court's judgment now" })
  async canRecordJudgment(@Root() a: ActionType, @Ctx() ctx: Context) {
    const [p] = await loadersOf(ctx).prosecutions.load(a.id);
    return !!p && !p.judgment && hasRole(ctx.viewer!, "CLERK", a.districtId);
  }
  @FieldResolver(() => ActionType, { nullable: true, description: "The earlier action this one follows from" })
  async escalates(@Root() a: ActionType, @Ctx() ctx: Context) {
    return a.escalatesId ? loadersOf(ctx).actions.load(a.escalatesId) : null;
  }
  @FieldResolver(() => [ActionType], { description: "Later actions that follow from this one" }) laterActions(@Root() a: ActionType, @Ctx() ctx: Context) {
    return loadersOf(ctx).later.load(a.id);
  }

  @Access("PUBLIC")
  @Query(() => EnforcementRulesType, { description: "The district's enforcement figures from its rulebook in force today" })
  async enforcementRules(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context): Promise<EnforcementRulesType> {
    const district = await svc.loadDistrict(ctx.ds, districtId);
    const rb = await rulebookOn(ctx.ds, district);
    const limits = fineLimits(rb);
    const days = rb.entry("enforcement.petitionDays").value;
    const showCause = rb.entry("enforcement.showCauseNoticeMinDays").value;
    return {
      kinds: (Object.keys(KINDS) as (keyof typeof KINDS)[]).filter((k) => kindProvided(rb, k)).map((k) => ({ kind: k, label: KINDS[k].label, section: sectionFor(rb, k), petitionTo: petitionable(rb, k) ? KINDS[k].petitionTo : null })),
      fineMinPerDayCents: limits.minCents,
      fineMaxPerDayCents: limits.maxCents,
      fineSection: limits.section,
      fineRequiresPriorNotice: rb.enabled("enforcement.fineRequiresPriorNotice"),
      petitionsEnabled: rb.enabled("enforcement.petitionsEnabled"),
      petitionDays: typeof days === "number" ? days : null,
      showCauseNoticeMinDays: typeof showCause === "number" ? showCause : null,
    };
  }

  @Access("SIGNED_IN")
  @Query(() => [ActionType], { description: "Notices, orders and fines served on me or my organizations, newest first" })
  myEnforcementActions(@Ctx() ctx: Context) {
    return svc.myActions(ctx.ds, ctx.viewer!);
  }

  @Access("SIGNED_IN")
  @Query(() => ActionType, { description: "An action: for whoever it was served on, or staff of its district; NOT_FOUND otherwise" })
  enforcementAction(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return svc.getAction(ctx.ds, ctx.viewer!, id);
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => ActionPageType, { description: "Staff: the district's actions, newest first; one person's or organization's history when filtered" })
  districtEnforcementActions(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("respondentUserId", () => ID, { nullable: true }) respondentUserId?: string,
    @Arg("respondentOrganizationId", () => ID, { nullable: true }) respondentOrganizationId?: string,
    @Arg("first", () => Int, { nullable: true }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ) {
    return svc.districtActions(ctx.ds, ctx.viewer!, { districtId, respondentUserId, respondentOrganizationId, first, after });
  }

  @Access("PUBLIC")
  @Query(() => [PublicActionType], { description: "Public record: final enforcement actions against industrial users (SUL 1014, 1122)" })
  async publicEnforcementActions(@Arg("districtSlug", () => String) districtSlug: string, @Ctx() ctx: Context): Promise<PublicActionType[]> {
    return (await svc.publicActions(ctx.ds, districtSlug)).map(({ action: a, finality: f }) => ({
      number: a.number,
      kindLabel: KINDS[a.kind].label,
      respondentName: a.respondentName,
      violation: a.violation,
      section: a.section,
      servedOn: a.servedOn,
      finalOn: f.finalOn,
      fineTotalCents: a.fineTotalCents,
    }));
  }

  @Access("OPERATOR")
  @Mutation(() => ActionType, { description: "District Operator: serve a notice, order or fine (SUL 1102-1108, 1117; Huron V)" })
  createEnforcementAction(@Arg("input", () => CreateEnforcementActionInput) input: CreateEnforcementActionInput, @Ctx() ctx: Context) {
    return svc.createAction(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => ActionType, { description: "District Operator (Huron V-2): the violation continued after the notice's time to correct; refer it for prosecution with the days it continued" })
  async referForProsecution(@Arg("input", () => ReferForProsecutionInput) input: ReferForProsecutionInput, @Ctx() ctx: Context) {
    await svc.referForProsecution(ctx.ds, ctx.viewer!, input, metaOf(ctx));
    return svc.getAction(ctx.ds, ctx.viewer!, input.actionId);
  }

  @Access("CLERK")
  @Mutation(() => ActionType, { description: "Town Clerk (Huron V-2): record the court's judgment; a conviction's fine becomes a charge" })
  async recordCourtJudgment(@Arg("input", () => RecordCourtJudgmentInput) input: RecordCourtJudgmentInput, @Ctx() ctx: Context) {
    await svc.recordJudgment(ctx.ds, ctx.viewer!, input, metaOf(ctx));
    return svc.getAction(ctx.ds, ctx.viewer!, input.actionId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => ActionType, { description: "Answer a notice of violation with an explanation and a correction plan (SUL 1102)" })
  respondToNotice(@Arg("input", () => RespondToNoticeInput) input: RespondToNoticeInput, @Ctx() ctx: Context) {
    return svc.respondToNotice(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }
}

@Resolver(() => PetitionType)
export class PetitionsResolver {
  @FieldResolver(() => String) statusLabel(@Root() p: PetitionType) {
    return PETITION_STATUS_LABELS[p.status];
  }
  @FieldResolver(() => String) reliefLabel(@Root() p: PetitionType) {
    return RELIEF_LABELS[p.relief as keyof typeof RELIEF_LABELS];
  }
  @FieldResolver(() => String, { nullable: true }) filedByName(@Root() p: PetitionType, @Ctx() ctx: Context) {
    return userName(ctx, p.filedById);
  }
  @FieldResolver(() => String, { nullable: true, description: "The Board member (or Operator) who entered the decision" }) decidedByName(@Root() p: PetitionType, @Ctx() ctx: Context) {
    return userName(ctx, p.decidedById);
  }
  @FieldResolver(() => [PetitionDocumentType]) async documents(@Root() p: PetitionType, @Ctx() ctx: Context) {
    return (await loadersOf(ctx).documents.load(p.id)).map((d) => ({ id: d.documentId, filename: d.filename }));
  }
  @FieldResolver(() => HearingType, { nullable: true }) async hearing(@Root() p: PetitionType, @Ctx() ctx: Context) {
    return (await loadersOf(ctx).hearings.load(p.id))[0] ?? null;
  }
  @FieldResolver(() => ActionType) async action(@Root() p: PetitionType, @Ctx() ctx: Context) {
    return loadersOf(ctx).actions.load(p.actionId);
  }
  @FieldResolver(() => Boolean, { description: "The viewer may withdraw it" }) async canWithdraw(@Root() p: PetitionType, @Ctx() ctx: Context) {
    if (p.status !== "FILED" && p.status !== "HEARING_ORDERED") return false;
    const a = await loadersOf(ctx).actions.load(p.actionId);
    return !!a && (await svc.isRespondent(ctx.ds, ctx.viewer!, a));
  }
  @FieldResolver(() => Boolean, { description: "The viewer may decide it (BOARD, or the Operator for a water severance)" }) canDecide(@Root() p: PetitionType, @Ctx() ctx: Context) {
    return p.addressedTo === "TOWN_BOARD" ? hasRole(ctx.viewer, "BOARD", p.districtId) : hasRole(ctx.viewer, "OPERATOR", p.districtId);
  }

  @Access("SIGNED_IN")
  @Query(() => PetitionType, { description: "A petition: for the respondent, or staff of the district" })
  async petition(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return (await svc.getPetition(ctx.ds, ctx.viewer!, id)).petition;
  }

  @Access("BOARD", "OPERATOR")
  @Query(() => DocketType, { description: "The Board's docket of open petitions, oldest first (the Operator's for water severances); one SQL statement" })
  async petitionDocket(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("first", () => Int, { nullable: true }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ): Promise<DocketType> {
    // Authorization first, then the short-lived cache shared by those who see the same docket
    // (cleared by any mutation on this instance, so a decision leaves the docket at once).
    const roles = (["BOARD", "OPERATOR"] as const).filter((r) => hasRole(ctx.viewer, r, districtId));
    if (!roles.length) throw forbidden("The docket is for the Town Board (and the District Operator for water severances) of this district.");
    return microCached(`petition-docket:${districtId}:${roles.join(",")}:${first ?? ""}:${after ?? ""}`, async () => {
      const page = await svc.docket(ctx.ds, ctx.viewer!, { districtId, first, after });
      return { ...page, items: page.items.map((i) => ({ ...i, statusLabel: PETITION_STATUS_LABELS[i.status], actionKindLabel: KINDS[i.actionKind].label })) };
    });
  }

  @Access("SIGNED_IN")
  @Mutation(() => PetitionType, { description: "Petition the Town Board (the District Operator for a water severance) within the time allowed (SUL 1104-1108)" })
  filePetition(@Arg("input", () => FilePetitionInput) input: FilePetitionInput, @Ctx() ctx: Context) {
    return svc.filePetition(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => PetitionType, { description: "Withdraw my petition before it is decided" })
  withdrawPetition(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return svc.withdrawPetition(ctx.ds, ctx.viewer!, id, metaOf(ctx));
  }

  @Access("BOARD", "OPERATOR")
  @Mutation(() => PetitionType, { description: "Board: reject as frivolous, modify or suspend (Operator: reject or reconnect, for a water severance)" })
  decidePetition(@Arg("input", () => DecidePetitionInput) input: DecidePetitionInput, @Ctx() ctx: Context) {
    return svc.decidePetition(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }
}

@Resolver(() => HearingType)
export class HearingsResolver {
  @FieldResolver(() => String, { nullable: true }) orderedByName(@Root() h: HearingType, @Ctx() ctx: Context) {
    return userName(ctx, h.orderedById);
  }
  @FieldResolver(() => String, { nullable: true }) decidedByName(@Root() h: HearingType, @Ctx() ctx: Context) {
    return userName(ctx, h.decidedById);
  }

  @Access("BOARD", "OPERATOR")
  @Mutation(() => HearingType, { description: "Order the petitioner to show cause at a hearing, noticed at least the rulebook's days ahead (SUL 1109)" })
  orderShowCauseHearing(@Arg("input", () => OrderShowCauseHearingInput) input: OrderShowCauseHearingInput, @Ctx() ctx: Context) {
    return svc.orderHearing(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }

  @Access("BOARD")
  @Mutation(() => HearingType, { description: "Board, after the hearing: uphold, modify or vacate, with written reasons (SUL 1109)" })
  decideShowCauseHearing(@Arg("input", () => DecideHearingInput) input: DecideHearingInput, @Ctx() ctx: Context) {
    return svc.decideHearing(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => [HearingCalendarItemType], { description: "Staff: the district's show-cause hearings from a date on (today by default)" })
  hearingCalendar(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context, @Arg("from", () => String, { nullable: true }) from?: string) {
    return svc.hearingCalendar(ctx.ds, ctx.viewer!, { districtId, from });
  }

  @Access("SIGNED_IN")
  @Query(() => String, { description: "The hearing notice as an iCalendar (.ics) file, for the respondent or staff" })
  async hearingIcs(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<string> {
    const h = await ctx.ds.getRepository(ShowCauseHearing).findOneBy({ id: /^[0-9a-f-]{36}$/i.test(id) ? id : "00000000-0000-0000-0000-000000000000" });
    if (!h) throw notFound("That hearing");
    const a = await svc.getAction(ctx.ds, ctx.viewer!, h.actionId).catch(() => {
      throw notFound("That hearing");
    });
    const district = await districtOf(ctx, a.districtId);
    return hearingIcs(h, a, district, ctx.config.publicUrl);
  }
}

@Resolver(() => ChargeType)
export class ChargesResolver {
  @FieldResolver(() => District) district(@Root() c: ChargeType, @Ctx() ctx: Context) {
    return districtOf(ctx, c.districtId);
  }
  @FieldResolver(() => PaymentType, { nullable: true }) async payment(@Root() c: ChargeType, @Ctx() ctx: Context) {
    if (!c.paymentId) return null;
    const p = await ctx.ds.getRepository(Payment).findOneBy({ id: c.paymentId });
    return p && (p.payerId === ctx.viewer?.userId || isStaff(ctx.viewer, p.districtId)) ? p : null;
  }

  @Access("SIGNED_IN")
  @Query(() => [ChargeType], { description: "Charges billed to me or my organizations, with today's statements" })
  async myCharges(@Ctx() ctx: Context) {
    return (await svc.myCharges(ctx.ds, ctx.viewer!)).map(toCharge);
  }

  @Access("SIGNED_IN")
  @Query(() => ChargeType, { description: "A charge and today's statement: for whoever was billed, or staff of its district" })
  async charge(@Arg("id", () => ID) id: string, @Ctx() ctx: Context, @Arg("asOf", () => String, { nullable: true }) asOf?: string) {
    const c = await svc.getCharge(ctx.ds, ctx.viewer!, id);
    if (asOf && !isStaff(ctx.viewer, c.districtId)) throw forbidden("Only staff read a statement as of another date.");
    return toCharge({ charge: c, statement: await svc.statementOf(ctx.ds, c, await districtOf(ctx, c.districtId), asOf || undefined) });
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => ChargePageType, { description: "Staff: the district's charges with today's statements, oldest bill first" })
  async districtCharges(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("status", () => String, { nullable: true }) status?: string,
    @Arg("first", () => Int, { nullable: true }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ) {
    const page = await svc.districtCharges(ctx.ds, ctx.viewer!, { districtId, status, first, after });
    return { items: page.items.map(toCharge), nextCursor: page.nextCursor };
  }

  @Access("CLERK", "ADMIN")
  @Query(() => TaxLevyReportType, { description: "Clerk: delinquent charges for the tax levy (SUL 1118), as of the rulebook's date or a chosen one" })
  async taxLevyReport(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context, @Arg("asOf", () => String, { nullable: true }) asOf?: string) {
    const r = await svc.taxLevyReport(ctx.ds, ctx.viewer!, { districtId, asOf });
    return { ...r, items: r.items.map(toCharge) };
  }

  @Access("CLERK", "ADMIN")
  @Mutation(() => ChargeType, { description: "Clerk: bill a charge by hand (its delinquency then follows SUL 1118 / Huron VI-3)" })
  async billCharge(@Arg("input", () => BillChargeInput) input: BillChargeInput, @Ctx() ctx: Context) {
    const c = await svc.billCharge(ctx.ds, ctx.viewer!, input, metaOf(ctx));
    return toCharge({ charge: c, statement: await svc.statementOf(ctx.ds, c, await districtOf(ctx, c.districtId)) });
  }

  @Access("SIGNED_IN")
  @Mutation(() => PaymentType, { description: "Prepare the payment of a charge at today's statement (pay it at /payments/:id, online or at the Clerk's counter)" })
  payCharge(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return svc.payCharge(ctx.ds, ctx.viewer!, id, metaOf(ctx));
  }
}


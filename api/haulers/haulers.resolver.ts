import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { In } from "typeorm";
import { hasRole } from "../accounts/viewer.js";
import { dateIn } from "../common/dates.js";
import { forbidden } from "../common/errors.js";
import { isUuid } from "../documents/documents.service.js";
import { microCached } from "../graphql/micro-cache.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { PaymentType } from "../payments/payments.resolver.js";
import { Payment } from "../payments/payments.service.js";
import { HaulerLicense, HaulerLoad, HaulerPermission, HaulerVehicle, type SourceKind } from "./hauler.entity.js";
import * as haulers from "./haulers.service.js";
import {
  LICENSE_STATUS_LABELS,
  SOURCE_KIND_LABELS,
  describeSchedule,
  hhmm,
  licenseNextStep,
  licenseStanding,
  loadBookingReadiness,
  part364Warning,
  permissionStanding,
  renewalOpensOn,
  type Standing,
} from "./rules.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("HaulerVehicle", { description: "A truck that carries septage (SUL 801)", simpleResolvers: true })
export class HaulerVehicleType {
  @Field(() => ID) id: string;
  @Field(() => String) make: string;
  @Field(() => String) model: string;
  @Field(() => Int) tankCapacityGallons: number;
  @Field(() => String) plate: string;
  @Field(() => String, { description: "Two letters, e.g. NY" }) plateState: string;
  @Field(() => String) colour: string;
  @Field(() => String, { description: "The registered owner; the applicant must own the vehicles (SUL 802)" }) registeredOwner: string;
}

@ObjectType("HaulerStanding", { description: "Whether a licence (or special permission) is in force today, worked out from its dates", simpleResolvers: true })
export class HaulerStandingType {
  @Field(() => String, { description: "IN_FORCE, NOT_YET_IN_FORCE, EXPIRED, PART364_LAPSED, PART364_REVOKED, SUSPENDED, REVOKED, or the application's status" }) state: string;
  @Field(() => String) label: string;
  @Field(() => Boolean) inForce: boolean;
  @Field(() => [String], { description: "Why loads are refused, and what to do" }) reasons: string[];
  @Field(() => Int, { nullable: true, description: "Days left to the last day (0 on it, negative after)" }) daysLeft: number | null;
}

@ObjectType("HaulerLoadBooking", { description: "Whether loads can be booked at a district today, from its rulebook (a licence's own standing is separate)", simpleResolvers: true })
export class HaulerLoadBookingType {
  @Field(() => Boolean) ready: boolean;
  @Field(() => String, { nullable: true, description: "Why not, in words, with the sections: shown before the booking form" }) reason: string | null;
  @Field(() => String, { nullable: true, description: 'The section of the missing figure, e.g. "Sewer Use Law 1208"' }) section: string | null;
}

@ObjectType("HaulerDistrict", { description: "How a district admits septage haulers, from its rulebook today", simpleResolvers: true })
export class HaulerDistrictType {
  @Field(() => ID) id: string;
  @Field(() => String) name: string;
  @Field(() => String) slug: string;
  @Field(() => Boolean, { description: "The Town Board licenses haulers (SUL 801): the licence application lists these districts" }) licensesHaulers: boolean;
  @Field(() => Boolean, { description: "Septage is accepted by the Superintendent's written special permission (Huron IV-8)" }) grantsSpecialPermission: boolean;
  @Field(() => String) section: string;
  @Field(() => String, { nullable: true, description: "What the law says about it, in plain words" }) note: string | null;
  @Field(() => HaulerLoadBookingType) booking: HaulerLoadBookingType;
}

@ObjectType("HaulerLicenseNextStep", { description: "What the company does next about a licence, by when and where", simpleResolvers: true })
export class HaulerLicenseNextStepType {
  @Field(() => String, { nullable: true }) text: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD on the district's clock" }) dueDate: string | null;
  @Field(() => String, { description: "Where it is done: EDIT, PAY, RENEW, RENEWAL (the renewal's page), PART364 (the licence page), BOOK or NONE" }) action: string;
}

@ObjectType("HaulerLicenseRef", { simpleResolvers: true })
export class HaulerLicenseRefType {
  @Field(() => ID) id: string;
  @Field(() => String) status: string;
  @Field(() => String, { description: "The status in words" }) statusLabel: string;
  @Field(() => String, { nullable: true }) licenseNumber: string | null;
  @Field(() => String, { nullable: true }) validFrom: string | null;
  @Field(() => String, { nullable: true }) validUntil: string | null;
}

/** Another licence as a reference, its status in words. */
const licenseRef = (l: HaulerLicense | null | undefined) => (l ? { ...l, statusLabel: LICENSE_STATUS_LABELS[l.status] } : null);

@ObjectType("HaulerLicense", { description: "A septage hauler licence from the Town Board and its application (SUL 801-803)", simpleResolvers: true })
export class HaulerLicenseType {
  @Field(() => ID) id: string;
  @Field(() => ID) organizationId: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID, { nullable: true, description: "The licence this one renews" }) previousLicenseId: string | null;
  @Field(() => String, { description: "DRAFT, SUBMITTED, APPROVED, DENIED, SUSPENDED, REVOKED (expiry is in standing)" }) status: string;
  @Field(() => String, { nullable: true, description: 'e.g. "LKV-HL-2026-0001"' }) licenseNumber: string | null;
  @Field(() => String, { nullable: true }) part364PermitNumber: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) part364ExpiresOn: string | null;
  @Field(() => ID, { nullable: true }) part364DocumentId: string | null;
  @Field(() => Date, { nullable: true }) part364RevokedAt: Date | null;
  @Field(() => Int, { nullable: true }) annualVolumeGallons: number | null;
  @Field(() => String, { nullable: true }) serviceArea: string | null;
  @Field(() => String, { nullable: true }) otherInformation: string | null;
  @Field(() => Date, { nullable: true, description: "When the applicant certified the statements true (SUL 802)" }) certifiedAt: Date | null;
  @Field(() => Int, { nullable: true, description: "Integer cents" }) applicationFeeCents: number | null;
  @Field(() => ID, { nullable: true }) paymentId: string | null;
  @Field(() => Date, { nullable: true }) paidAt: Date | null;
  @Field(() => Date, { nullable: true }) submittedAt: Date | null;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => String, { nullable: true, description: "The Board's reasons" }) decisionReason: string | null;
  @Field(() => String, { nullable: true, description: "First day in force, YYYY-MM-DD" }) validFrom: string | null;
  @Field(() => String, { nullable: true, description: "Last day in force, YYYY-MM-DD" }) validUntil: string | null;
  @Field(() => String, { nullable: true, description: "Where dumping is allowed (SUL 803)" }) dumpingLocation: string | null;
  @Field(() => [Int], { nullable: true, description: "Days of the week dumping is allowed, 0 = Sunday" }) dumpingDays: number[] | null;
  @Field(() => String, { nullable: true, description: "Opening time, HH:MM" }) dumpingFrom: string | null;
  @Field(() => String, { nullable: true, description: "Closing time, HH:MM" }) dumpingTo: string | null;
  @Field(() => Date, { nullable: true }) actionAt: Date | null;
  @Field(() => String, { nullable: true, description: "The operator's reason for a suspension, revocation or reinstatement" }) actionReason: string | null;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("HaulerPermission", { description: "Huron: the Superintendent's written special permission for a stated point and conditions (Huron IV-8)", simpleResolvers: true })
export class HaulerPermissionType {
  @Field(() => ID) id: string;
  @Field(() => ID) organizationId: string;
  @Field(() => ID) districtId: string;
  @Field(() => String, { description: "REQUESTED, GRANTED, DENIED or REVOKED" }) status: string;
  @Field(() => String) requestedPoint: string;
  @Field(() => String, { nullable: true }) requestedConditions: string | null;
  @Field(() => String, { nullable: true }) point: string | null;
  @Field(() => String, { nullable: true }) conditions: string | null;
  @Field(() => String, { nullable: true }) validFrom: string | null;
  @Field(() => String, { nullable: true }) validUntil: string | null;
  @Field(() => [Int], { nullable: true }) dumpingDays: number[] | null;
  @Field(() => String, { nullable: true }) dumpingFrom: string | null;
  @Field(() => String, { nullable: true }) dumpingTo: string | null;
  @Field(() => String, { nullable: true }) decisionReason: string | null;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("HaulerLoad", { description: "A booked load of septage (SUL 801, 803, 804, 1208)", simpleResolvers: true })
export class HaulerLoadType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID) organizationId: string;
  @Field(() => ID, { nullable: true }) licenseId: string | null;
  @Field(() => ID, { nullable: true }) permissionId: string | null;
  @Field(() => ID) vehicleId: string;
  @Field(() => String, { description: "BOOKED, APPROVED, REFUSED, RECEIVED or CANCELLED" }) status: string;
  @Field(() => String) sourceAddress: string;
  @Field(() => String, { description: "RESIDENTIAL_SEPTIC_TANK, HOLDING_TANK, PORTABLE_TOILETS, GREASE_TRAP or OTHER" }) sourceKind: string;
  @Field(() => String, { nullable: true }) sourceDescription: string | null;
  @Field(() => Int) estimatedGallons: number;
  @Field(() => Date) plannedArrival: Date;
  @Field(() => Int, { nullable: true, description: "Cents per 1,000 gallons when booked" }) ratePer1000Cents: number | null;
  @Field(() => Int, { nullable: true, description: "Minimum per load when booked, cents" }) minimumCents: number | null;
  @Field(() => Int, { description: "Dumping fee on the estimate, cents" }) feeCents: number;
  @Field(() => ID, { nullable: true }) paymentId: string | null;
  @Field(() => Date, { nullable: true }) paidAt: Date | null;
  @Field(() => Boolean) sampleRequired: boolean;
  @Field(() => Int, { nullable: true }) sampleCostCents: number | null;
  @Field(() => String, { nullable: true }) sampleNotes: string | null;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => String, { nullable: true }) refusalReason: string | null;
  @Field(() => Boolean, { description: "The dumping fee is to be refunded (a refused load, unless the reason says otherwise)" }) refundDue: boolean;
  @Field(() => Int, { nullable: true }) measuredGallons: number | null;
  @Field(() => Date, { nullable: true }) receivedAt: Date | null;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("StationDaySheetRow", { simpleResolvers: true })
export class DaySheetRowType {
  @Field(() => HaulerLoadType) load: HaulerLoad;
  @Field(() => String, { description: 'Planned arrival on the district\'s clock, "09:00"' }) arrivalTime: string;
  @Field(() => String, { description: "Planned arrival, ISO 8601 instant" }) arrivalAt: string;
  @Field(() => String) organizationName: string;
  @Field(() => String) plate: string;
  @Field(() => String, { description: "Make and model" }) vehicle: string;
  @Field(() => Int) tankCapacityGallons: number;
  @Field(() => String, { nullable: true, description: "The licence number, or 'Special permission'" }) holderNumber: string | null;
  @Field(() => Boolean, { description: "The licence or permission is in force today" }) holderInForce: boolean;
  @Field(() => [String]) holderReasons: string[];
  @Field(() => String, { nullable: true }) paymentStatus: string | null;
}

@ObjectType("StationDaySheet", { description: "The receiving station's booked loads of one day", simpleResolvers: true })
export class DaySheetType {
  @Field(() => String) date: string;
  @Field(() => String) timeZone: string;
  @Field(() => [DaySheetRowType], { description: "One page of the day's loads, by arrival" }) rows: DaySheetRowType[];
  @Field(() => Int, { description: "Loads booked for the whole day" }) total: number;
  @Field(() => String, { nullable: true, description: "Pass as `after` for the next page" }) nextCursor: string | null;
}

@ObjectType("HaulerStatementLine", { simpleResolvers: true })
export class StatementLineType {
  @Field(() => HaulerLoadType) load: HaulerLoad;
  @Field(() => String) plate: string;
  @Field(() => Int) feePaidCents: number;
  @Field(() => Int, { description: "Fee on measured gallons less fee paid: positive billed, negative credited" }) adjustmentCents: number;
  @Field(() => Int) sampleCents: number;
  @Field(() => Boolean) refunded: boolean;
}

@ObjectType("HaulerStatement", { description: "A hauling company's month at one district's station", simpleResolvers: true })
export class StatementType {
  @Field(() => String, { description: "YYYY-MM" }) month: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) districtName: string;
  @Field(() => String) timeZone: string;
  @Field(() => [StatementLineType]) lines: StatementLineType[];
  @Field(() => Int) feesPaidCents: number;
  @Field(() => Int) refundedCents: number;
  @Field(() => Int, { description: "Sum of the measured-versus-estimated differences; negative is a credit" }) adjustmentsCents: number;
  @Field(() => Int) samplesCents: number;
  @Field(() => Int, { description: "adjustments + samples: positive is due, negative is a credit" }) balanceCents: number;
  @Field(() => String) feeSection: string;
  @Field(() => String) sampleSection: string;
}

@ObjectType("HaulerRefundDue", { simpleResolvers: true })
export class RefundDueType {
  @Field(() => HaulerLoadType) load: HaulerLoad;
  @Field(() => String) organizationName: string;
  @Field(() => String) plate: string;
  @Field(() => String, { nullable: true }) receiptNumber: string | null;
}

// ---------------------------------------------------------------------------------------------
// Inputs

@InputType("HaulerVehicleInput")
export class VehicleInput {
  @Field(() => String, { nullable: true }) make?: string | null;
  @Field(() => String, { nullable: true }) model?: string | null;
  @Field(() => Int, { nullable: true }) tankCapacityGallons?: number | null;
  @Field(() => String, { nullable: true }) plate?: string | null;
  @Field(() => String, { nullable: true }) plateState?: string | null;
  @Field(() => String, { nullable: true }) colour?: string | null;
  @Field(() => String, { nullable: true }) registeredOwner?: string | null;
}

@InputType("HaulerLicenseDraftInput", { description: "The licence application (SUL 801); every field may be empty in a draft" })
export class LicenseDraftInput {
  @Field(() => ID, { nullable: true, description: "Omit to start a new application" }) id?: string | null;
  @Field(() => ID, { nullable: true, description: "The hauling company (required for a new application)" }) organizationId?: string | null;
  @Field(() => ID, { nullable: true, description: "Required for a new application" }) districtId?: string | null;
  @Field(() => String, { nullable: true }) part364PermitNumber?: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) part364ExpiresOn?: string | null;
  @Field(() => ID, { nullable: true }) part364DocumentId?: string | null;
  @Field(() => Int, { nullable: true }) annualVolumeGallons?: number | null;
  @Field(() => String, { nullable: true }) serviceArea?: string | null;
  @Field(() => String, { nullable: true }) otherInformation?: string | null;
  @Field(() => [VehicleInput], { nullable: true }) vehicles?: VehicleInput[] | null;
}

@InputType("DecideHaulerLicenseInput")
export class DecideLicenseInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "APPROVE or DENY" }) decision: string;
  @Field(() => String, { nullable: true, description: "Required to deny" }) reason?: string | null;
  @Field(() => String, { nullable: true, description: "Required to approve (SUL 803)" }) dumpingLocation?: string | null;
  @Field(() => [Int], { nullable: true, description: "0 = Sunday" }) dumpingDays?: number[] | null;
  @Field(() => String, { nullable: true, description: "HH:MM" }) dumpingFrom?: string | null;
  @Field(() => String, { nullable: true, description: "HH:MM" }) dumpingTo?: string | null;
}

@InputType("UpdateHaulerPart364Input")
export class Part364Input {
  @Field(() => ID) licenseId: string;
  @Field(() => String) permitNumber: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) expiresOn: string;
  @Field(() => ID) documentId: string;
}

@InputType("ActOnHaulerLicenseInput")
export class ActInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "SUSPEND, REVOKE, REINSTATE or PART364_REVOKED" }) action: string;
  @Field(() => String) reason: string;
}

@InputType("RequestHaulerPermissionInput")
export class RequestPermissionInput {
  @Field(() => ID) organizationId: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) requestedPoint: string;
  @Field(() => String, { nullable: true }) requestedConditions?: string | null;
  @Field(() => [VehicleInput], { nullable: true }) vehicles?: VehicleInput[] | null;
}

@InputType("DecideHaulerPermissionInput")
export class DecidePermissionInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "GRANT or DENY" }) decision: string;
  @Field(() => String, { nullable: true }) reason?: string | null;
  @Field(() => String, { nullable: true }) point?: string | null;
  @Field(() => String, { nullable: true }) conditions?: string | null;
  @Field(() => String, { nullable: true }) validFrom?: string | null;
  @Field(() => String, { nullable: true }) validUntil?: string | null;
  @Field(() => [Int], { nullable: true }) dumpingDays?: number[] | null;
  @Field(() => String, { nullable: true }) dumpingFrom?: string | null;
  @Field(() => String, { nullable: true }) dumpingTo?: string | null;
}

@InputType("BookHaulerLoadInput")
export class BookLoadInput {
  @Field(() => ID, { nullable: true }) licenseId?: string | null;
  @Field(() => ID, { nullable: true, description: "Huron: instead of a licence" }) permissionId?: string | null;
  @Field(() => ID) vehicleId: string;
  @Field(() => String) sourceAddress: string;
  @Field(() => String) sourceKind: string;
  @Field(() => String, { nullable: true }) sourceDescription?: string | null;
  @Field(() => Int) estimatedGallons: number;
  @Field(() => String, { description: "Date and time as the district's clock reads it (2026-12-07T09:30) or an ISO instant" }) plannedArrival: string;
}

@InputType("DecideHaulerLoadInput")
export class DecideLoadInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "APPROVE or REFUSE" }) decision: string;
  @Field(() => String, { nullable: true }) reason?: string | null;
  @Field(() => Boolean, { nullable: true, description: "Refuse: false when the reason says the fee is not refunded" }) refund?: boolean | null;
  @Field(() => Boolean, { nullable: true }) sampleRequired?: boolean | null;
  @Field(() => Int, { nullable: true, description: "Cents, when the rulebook sets no sample cost (actual cost, SUL 804)" }) sampleCostCents?: number | null;
  @Field(() => String, { nullable: true }) sampleNotes?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Per-request loaders

function loadersFor(ctx: Context) {
  const ds = ctx.ds;
  const group = <K extends string>(rows: HaulerVehicle[], key: "licenseId" | "permissionId", ids: readonly K[]) => ids.map((id) => rows.filter((r) => r[key] === id));
  return {
    licenseVehicles: new DataLoader<string, HaulerVehicle[]>(async (ids) => group(await haulers.vehiclesOf(ds, { licenseIds: [...ids] }), "licenseId", ids)),
    permissionVehicles: new DataLoader<string, HaulerVehicle[]>(async (ids) => group(await haulers.vehiclesOf(ds, { permissionIds: [...ids] }), "permissionId", ids)),
    vehicle: new DataLoader<string, HaulerVehicle | null>(async (ids) => {
      const rows = await ds.getRepository(HaulerVehicle).findBy({ id: In([...ids]) });
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    }),
    payment: new DataLoader<string, Payment | null>(async (ids) => {
      const rows = await ds.getRepository(Payment).findBy({ id: In([...ids]) });
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    }),
    license: new DataLoader<string, HaulerLicense | null>(async (ids) => {
      const rows = await ds.getRepository(HaulerLicense).findBy({ id: In([...ids]) });
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    }),
    renewal: new DataLoader<string, HaulerLicense | null>(async (ids) => {
      const rows = await ds.getRepository(HaulerLicense).find({ where: { previousLicenseId: In([...ids]) }, order: { createdAt: "DESC" } });
      return ids.map((id) => rows.find((r) => r.previousLicenseId === id && r.status !== "DENIED" && r.status !== "WITHDRAWN") ?? null);
    }),
    rulebook: new DataLoader<string, Rulebook>(async (districtIds) =>
      Promise.all(districtIds.map(async (id) => rulebookOn(ds, (await ctx.loaders.district.load(id))!))),
    ),
    role: new DataLoader<string, string | null>(async (orgIds) => {
      const rows: { organization_id: string; role: string }[] = await ds.query(`SELECT organization_id, role FROM membership WHERE user_id = $1 AND organization_id = ANY($2::uuid[])`, [
        ctx.viewer!.userId,
        [...orgIds],
      ]);
      return orgIds.map((id) => rows.find((r) => r.organization_id === id)?.role ?? null);
    }),
  };
}
const perRequest = new WeakMap<Context, ReturnType<typeof loadersFor>>();
function loaders(ctx: Context) {
  let l = perRequest.get(ctx);
  if (!l) perRequest.set(ctx, (l = loadersFor(ctx)));
  return l;
}
const meta = (ctx: Context) => ({ requestId: ctx.requestId, publicUrl: ctx.config.publicUrl });
const today = async (ctx: Context, districtId: string) => dateIn((await ctx.loaders.district.load(districtId))!.timeZone);

// ---------------------------------------------------------------------------------------------

@Resolver(() => HaulerLicenseType)
export class HaulerLicensesResolver {
  @Access("SIGNED_IN")
  @Query(() => HaulerLicenseType, { description: "A licence or application: its company's members, and staff of its district once submitted" })
  haulerLicense(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return haulers.getLicense(ctx.ds, ctx.viewer!, id);
  }

  @Access("PUBLIC")
  @Query(() => [HaulerDistrictType], { description: "Every district with how it admits septage haulers (a Town Board licence, SUL 801, or special permission, Huron IV-8) and whether loads can be booked" })
  haulerDistricts(@Ctx() ctx: Context) {
    return haulers.haulerDistricts(ctx.ds);
  }

  @Access("SIGNED_IN")
  @Query(() => [HaulerLicenseType], { description: "A hauling company's licences and applications, newest first (members only)" })
  haulerLicenses(@Arg("organizationId", () => ID) organizationId: string, @Ctx() ctx: Context) {
    return haulers.organizationLicenses(ctx.ds, ctx.viewer!, organizationId);
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => [HaulerLicenseType], { description: "Licence applications and renewals waiting for the Town Board, paid ones first" })
  haulerLicenseQueue(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return haulers.licenseQueue(ctx.ds, ctx.viewer!, districtId);
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => [HaulerLicenseType], { description: "Approved licences whose last day is within the given days (60 unless asked), soonest first" })
  haulerLicensesExpiring(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context, @Arg("withinDays", () => Int, { nullable: true }) withinDays?: number) {
    return haulers.expiringLicenses(ctx.ds, ctx.viewer!, districtId, withinDays ?? 60);
  }

  @Access("SIGNED_IN")
  @Mutation(() => HaulerLicenseType, { description: "The company's owner starts an application (no id) or saves the draft" })
  saveHaulerLicenseDraft(@Arg("input", () => LicenseDraftInput) input: LicenseDraftInput, @Ctx() ctx: Context) {
    return haulers.saveLicenseDraft(ctx.ds, ctx.viewer!, input, ctx.requestId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => HaulerLicenseType, { description: "Submits the application with the owner's certification; opens the application fee's payment" })
  submitHaulerLicense(
    @Arg("id", () => ID) id: string,
    @Arg("certify", () => Boolean) certify: boolean,
    @Ctx() ctx: Context,
    @Arg("draft", () => LicenseDraftInput, {
      nullable: true,
      description: "The answers as the form holds them (its id, organizationId and districtId are ignored): saved and submitted together, every problem reported at once",
    })
    draft?: LicenseDraftInput | null,
  ) {
    return haulers.submitLicense(ctx.ds, ctx.viewer!, { id, certify, draft: draft ?? null }, meta(ctx));
  }

  @Access("BOARD")
  @Mutation(() => HaulerLicenseType, { description: "The Town Board approves (with dumping location, days and hours) or denies (with reasons)" })
  decideHaulerLicense(@Arg("input", () => DecideLicenseInput) input: DecideLicenseInput, @Ctx() ctx: Context) {
    return haulers.decideLicense(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => HaulerLicenseType, { description: "Starts the renewal of an approved licence once its window opens: a draft with the vehicles and answers copied" })
  startHaulerLicenseRenewal(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return haulers.startRenewal(ctx.ds, ctx.viewer!, id, ctx.requestId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => HaulerLicenseType, { description: "Files a renewed Part 364 permit on an approved licence (reinstates one invalid for a lapsed or revoked permit)" })
  updateHaulerPart364(@Arg("input", () => Part364Input) input: Part364Input, @Ctx() ctx: Context) {
    return haulers.updatePart364(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => HaulerLicenseType, { description: "The District Operator suspends, revokes or reinstates a licence, or records its Part 364 permit revoked (SUL 802)" })
  actOnHaulerLicense(@Arg("input", () => ActInput) input: ActInput, @Ctx() ctx: Context) {
    return haulers.actOnLicense(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @FieldResolver(() => String) statusLabel(@Root() l: HaulerLicense) {
    return LICENSE_STATUS_LABELS[l.status];
  }
  @FieldResolver(() => String) async organizationName(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return (await ctx.loaders.organization.load(l.organizationId))?.name ?? "";
  }
  @FieldResolver(() => String) async districtName(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return (await ctx.loaders.district.load(l.districtId))?.name ?? "";
  }
  @FieldResolver(() => String) async timeZone(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return (await ctx.loaders.district.load(l.districtId))!.timeZone;
  }
  @FieldResolver(() => [HaulerVehicleType]) vehicles(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return loaders(ctx).licenseVehicles.load(l.id);
  }
  @FieldResolver(() => HaulerStandingType, { description: "In force today? Worked out from the dates on the rules' clock" })
  async standing(@Root() l: HaulerLicense, @Ctx() ctx: Context): Promise<Standing> {
    const rb = await loaders(ctx).rulebook.load(l.districtId);
    return licenseStanding(l, await today(ctx, l.districtId), haulers.part364Opts(rb));
  }
  @FieldResolver(() => String, { nullable: true, description: "Days and hours dumping is allowed, in words" }) schedule(@Root() l: HaulerLicense) {
    return l.dumpingDays?.length ? describeSchedule(l) : null;
  }
  @FieldResolver(() => String, { nullable: true }) dumpingFromText(@Root() l: HaulerLicense) {
    return l.dumpingFrom ? hhmm(l.dumpingFrom) : null;
  }
  @FieldResolver(() => String, { nullable: true }) dumpingToText(@Root() l: HaulerLicense) {
    return l.dumpingTo ? hhmm(l.dumpingTo) : null;
  }
  @FieldResolver(() => PaymentType, { nullable: true }) payment(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return l.paymentId ? loaders(ctx).payment.load(l.paymentId) : null;
  }
  @FieldResolver(() => String, { nullable: true, description: "The day renewal opens (hauler.renewalWindowDays before the last day)" })
  async renewalOpensOn(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    if (l.status !== "APPROVED" || !l.validUntil) return null;
    const w = (await loaders(ctx).rulebook.load(l.districtId)).entry("hauler.renewalWindowDays").value;
    return typeof w === "number" ? renewalOpensOn(l.validUntil, w) : null;
  }
  @FieldResolver(() => Boolean, { description: "The renewal window is open today (and the licence is approved)" })
  async renewalOpen(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    const opens = await this.renewalOpensOn(l, ctx);
    return opens !== null && (await today(ctx, l.districtId)) >= opens;
  }
  @FieldResolver(() => HaulerLoadBookingType, { description: "Whether the district takes bookings of loads today (the dumping fee set, where it is paid first)" })
  async loadBooking(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return loadBookingReadiness(await loaders(ctx).rulebook.load(l.districtId), (await ctx.loaders.district.load(l.districtId))!.name);
  }
  @FieldResolver(() => String, { nullable: true, description: "A warning when the Part 364 permit on file expires before the licence ends (SUL 802), saying whether before renewal opens" })
  async part364Warning(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    const rb = await loaders(ctx).rulebook.load(l.districtId);
    return part364Warning(l, await today(ctx, l.districtId), haulers.part364Opts(rb), await this.renewalOpensOn(l, ctx));
  }
  @FieldResolver(() => HaulerLicenseNextStepType, { description: "What the company does next, by when and where (the dashboard says the same)" })
  async nextStep(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    const [rb, day, opens, renewal, district] = await Promise.all([
      loaders(ctx).rulebook.load(l.districtId),
      today(ctx, l.districtId),
      this.renewalOpensOn(l, ctx),
      loaders(ctx).renewal.load(l.id),
      ctx.loaders.district.load(l.districtId),
    ]);
    const opts = haulers.part364Opts(rb);
    return licenseNextStep(l, licenseStanding(l, day, opts), {
      day,
      feeDue: !!l.paymentId && !l.paidAt,
      renewalOpens: opens,
      renewal: renewal ? { status: renewal.status, feeDue: !!renewal.paymentId && !renewal.paidAt } : null,
      booking: loadBookingReadiness(rb, district!.name),
      part364: opts,
    });
  }
  @FieldResolver(() => HaulerLicenseRefType, { nullable: true, description: "The renewal of this licence, if one is started" }) async renewal(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return licenseRef(await loaders(ctx).renewal.load(l.id));
  }
  @FieldResolver(() => HaulerLicenseRefType, { nullable: true, description: "The licence this one renews" }) async previous(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return l.previousLicenseId ? licenseRef(await loaders(ctx).license.load(l.previousLicenseId)) : null;
  }
  @FieldResolver(() => Boolean, { description: "The viewer owns the hauling company (applies, renews, files the Part 364 permit)" })
  async viewerIsOwner(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return (await loaders(ctx).role.load(l.organizationId)) === "OWNER";
  }
  @FieldResolver(() => Boolean, { description: "The viewer belongs to the hauling company (books loads)" })
  async viewerIsMember(@Root() l: HaulerLicense, @Ctx() ctx: Context) {
    return (await loaders(ctx).role.load(l.organizationId)) !== null;
  }
}

@Resolver(() => HaulerPermissionType)
export class HaulerPermissionsResolver {
  @Access("SIGNED_IN")
  @Query(() => HaulerPermissionType) haulerPermission(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return haulers.getPermission(ctx.ds, ctx.viewer!, id);
  }

  @Access("SIGNED_IN")
  @Query(() => [HaulerPermissionType], { description: "A hauling company's special permissions (Huron IV-8), members only" })
  haulerPermissions(@Arg("organizationId", () => ID) organizationId: string, @Ctx() ctx: Context) {
    return haulers.organizationPermissions(ctx.ds, ctx.viewer!, organizationId);
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => [HaulerPermissionType], { description: "The district's special permissions, newest first" })
  haulerPermissionQueue(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return haulers.permissionQueue(ctx.ds, ctx.viewer!, districtId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => HaulerPermissionType, { description: "Huron: the hauling company's owner asks for written special permission (Huron IV-8)" })
  requestHaulerPermission(@Arg("input", () => RequestPermissionInput) input: RequestPermissionInput, @Ctx() ctx: Context) {
    return haulers.requestPermission(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => HaulerPermissionType, { description: "The Superintendent (District Operator) grants, stating point, conditions, dates, days and hours, or denies" })
  decideHaulerPermission(@Arg("input", () => DecidePermissionInput) input: DecidePermissionInput, @Ctx() ctx: Context) {
    return haulers.decidePermission(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @FieldResolver(() => String) async organizationName(@Root() p: HaulerPermission, @Ctx() ctx: Context) {
    return (await ctx.loaders.organization.load(p.organizationId))?.name ?? "";
  }
  @FieldResolver(() => [HaulerVehicleType]) vehicles(@Root() p: HaulerPermission, @Ctx() ctx: Context) {
    return loaders(ctx).permissionVehicles.load(p.id);
  }
  @FieldResolver(() => HaulerStandingType) async standing(@Root() p: HaulerPermission, @Ctx() ctx: Context) {
    const rb = await loaders(ctx).rulebook.load(p.districtId);
    return permissionStanding(p, await today(ctx, p.districtId), rb.entry("hauler.specialPermissionEnabled").section);
  }
  @FieldResolver(() => HaulerLoadBookingType, { description: "Whether the district takes bookings of loads today" })
  async loadBooking(@Root() p: HaulerPermission, @Ctx() ctx: Context) {
    return loadBookingReadiness(await loaders(ctx).rulebook.load(p.districtId), (await ctx.loaders.district.load(p.districtId))!.name);
  }
  @FieldResolver(() => String, { nullable: true }) schedule(@Root() p: HaulerPermission) {
    return p.dumpingDays?.length ? describeSchedule(p) : null;
  }
}

@Resolver(() => HaulerLoadType)
export class HaulerLoadsResolver {
  @Access("SIGNED_IN")
  @Query(() => HaulerLoadType, { description: "A load: its company's members and its district's staff" })
  haulerLoad(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return haulers.getLoad(ctx.ds, ctx.viewer!, id);
  }

  @Access("SIGNED_IN")
  @Query(() => [HaulerLoadType], { description: "A hauling company's loads, latest arrival first (members only)" })
  haulerLoads(@Arg("organizationId", () => ID) organizationId: string, @Ctx() ctx: Context, @Arg("first", () => Int, { nullable: true }) first?: number) {
    return haulers.organizationLoads(ctx.ds, ctx.viewer!, organizationId, first ?? 50);
  }

  @Access("SIGNED_IN")
  @Query(() => StatementType, { description: "A month's statement of a hauling company at one district (members only)" })
  haulerStatement(
    @Arg("organizationId", () => ID) organizationId: string,
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("month", () => String, { nullable: true, description: "YYYY-MM; this month unless given" }) month?: string,
  ) {
    return haulers.statement(ctx.ds, ctx.viewer!, { organizationId, districtId, month });
  }

  @Access("OPERATOR", "CLERK")
  @Query(() => DaySheetType, { description: "The receiving station's loads of a day (today unless given), by arrival, a page at a time; a fixed number of SQL statements" })
  async stationDaySheet(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("date", () => String, { nullable: true }) date?: string,
    @Arg("first", () => Int, { nullable: true, description: "1 to 100; 25 unless given" }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ) {
    // Authorization first, then the short-lived cache shared by the district's station staff (any mutation clears it).
    if (!hasRole(ctx.viewer, "OPERATOR", districtId) && !hasRole(ctx.viewer, "CLERK", districtId))
      throw forbidden("Only the District Operator and the Clerk of this district see the station's day sheet.");
    // The day defaults to today in the district's zone; a given day costs no statement before the cache.
    const district = date ? null : isUuid(districtId) ? await ctx.loaders.district.load(districtId) : null;
    const day = date ?? (district ? dateIn(district.timeZone) : "");
    return microCached(`station-day:${districtId}:${day}:${first ?? ""}:${after ?? ""}`, () =>
      haulers.daySheet(ctx.ds, ctx.viewer!, districtId, day || null, district, { first, after }),
    );
  }

  @Access("CLERK", "OPERATOR")
  @Query(() => [RefundDueType], { description: "Refused loads whose dumping fee is still to be refunded" })
  haulerRefundsDue(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return haulers.refundsDue(ctx.ds, ctx.viewer!, districtId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => HaulerLoadType, { description: "A member of the hauling company books a load and opens its dumping fee's payment" })
  bookHaulerLoad(@Arg("input", () => BookLoadInput) input: BookLoadInput, @Ctx() ctx: Context) {
    return haulers.bookLoad(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => HaulerLoadType, { description: "A member of the hauling company cancels a load not yet decided, before its arrival; a paid fee is refunded" })
  cancelHaulerLoad(@Arg("id", () => ID) id: string, @Ctx() ctx: Context, @Arg("reason", () => String, { nullable: true }) reason?: string) {
    return haulers.cancelLoad(ctx.ds, ctx.viewer!, { id, reason: reason ?? null }, meta(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => HaulerLoadType, { description: "The District Operator approves (not before the fee is paid; may require a sample) or refuses a load" })
  decideHaulerLoad(@Arg("input", () => DecideLoadInput) input: DecideLoadInput, @Ctx() ctx: Context) {
    return haulers.decideLoad(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => HaulerLoadType, { description: "The District Operator records the gallons received at the station" })
  recordHaulerLoadReceived(@Arg("id", () => ID) id: string, @Arg("measuredGallons", () => Int) measuredGallons: number, @Ctx() ctx: Context) {
    return haulers.recordReceived(ctx.ds, ctx.viewer!, { id, measuredGallons }, meta(ctx));
  }

  @FieldResolver(() => String) sourceKindLabel(@Root() x: HaulerLoad) {
    return SOURCE_KIND_LABELS[x.sourceKind as SourceKind] ?? x.sourceKind;
  }
  @FieldResolver(() => HaulerVehicleType, { nullable: true }) vehicle(@Root() x: HaulerLoad, @Ctx() ctx: Context) {
    return loaders(ctx).vehicle.load(x.vehicleId);
  }
  @FieldResolver(() => String) async organizationName(@Root() x: HaulerLoad, @Ctx() ctx: Context) {
    return (await ctx.loaders.organization.load(x.organizationId))?.name ?? "";
  }
  @FieldResolver(() => String) async timeZone(@Root() x: HaulerLoad, @Ctx() ctx: Context) {
    return (await ctx.loaders.district.load(x.districtId))!.timeZone;
  }
  @FieldResolver(() => String, { nullable: true }) async licenseNumber(@Root() x: HaulerLoad, @Ctx() ctx: Context) {
    return x.licenseId ? ((await loaders(ctx).license.load(x.licenseId))?.licenseNumber ?? null) : null;
  }
  @FieldResolver(() => PaymentType, { nullable: true }) payment(@Root() x: HaulerLoad, @Ctx() ctx: Context) {
    return x.paymentId ? loaders(ctx).payment.load(x.paymentId) : null;
  }
  @FieldResolver(() => Int, { description: "Fee on measured gallons less the fee paid (positive billed, negative credited); 0 until received" })
  adjustmentCents(@Root() x: HaulerLoad) {
    return haulers.adjustmentCents(x);
  }
}

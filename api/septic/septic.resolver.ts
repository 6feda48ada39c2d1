import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { isStaff } from "../accounts/viewer.js";
import { dateIn, daysBetween } from "../common/dates.js";
import { unauthenticated } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { District } from "../districts/district.entity.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { PageOf } from "../graphql/page.js";
import { groupBy, perRequest } from "../industrial/loaders.js";
import type { SystemRow } from "./common.js";
import type { NoticeRow } from "./notices.service.js";
import type { OrderRow } from "./orders.service.js";
import type { InspectionRow, PermitRow } from "./permits.service.js";
import {
  BUILDING_USE_LABELS,
  DESIGNER_CREDENTIAL_LABELS,
  EFFLUENT_METHOD_LABELS,
  NUISANCE_REMINDER_DAYS,
  ORDER_PATH_LABELS,
  PUMP_OUT_REMINDER_DAYS,
  SYSTEM_KIND_LABELS,
  effluentAlternativeRefusal,
  nuisanceLapsed,
  permitFee,
  permitsUnavailable,
  pumpStanding,
  systemsForbidden,
  type Building,
} from "./rules.js";
import * as septic from "./septic.service.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("SepticBuilding", { description: "A building a septic system serves (SUL 402)", simpleResolvers: true })
export class BuildingType {
  @Field(() => String) name: string;
  @Field(() => String, { description: "DWELLING, BUSINESS or ACCESSORY" }) use: string;
  @Field(() => String) useLabel: string;
}

@ObjectType("SepticPumpStanding", { description: "Where a system stands on its pump-outs today (SUL 407)", simpleResolvers: true })
export class PumpStandingType {
  @Field(() => String, { description: "NOT_REQUIRED, NO_RECORD, IN_TIME, DUE_SOON or OVERDUE" }) state: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the last day of the interval" }) dueOn: string | null;
  @Field(() => Int, { nullable: true, description: "Days left until the due day (0 on it, negative once overdue)" }) daysLeft: number | null;
  @Field(() => String) text: string;
  @Field(() => String) section: string;
}

@ObjectType("SepticPumpOut", { description: "A licensed hauler's load from the system, received at the district's station (SUL 407)", simpleResolvers: true })
export class PumpOutType {
  @Field(() => ID) id: string;
  @Field(() => ID) haulerLoadId: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) pumpedOn: string;
  @Field(() => String, { description: "ADDRESS (matched from the load's source address) or OPERATOR (linked by the District Operator)" }) matchedBy: string;
  @Field(() => String) haulerName: string;
  @Field(() => String, { nullable: true }) licenseNumber: string | null;
  @Field(() => Int, { nullable: true }) gallons: number | null;
}

@ObjectType("SepticNuisanceNotice", { description: "The District Operator's written notice to repair, rebuild or relocate (SUL 405)", simpleResolvers: true })
export class NoticeType {
  @Field(() => ID) id: string;
  @Field(() => ID) systemId: string;
  @Field(() => String) address: string;
  @Field(() => String) condition: string;
  @Field(() => String, { description: "YYYY-MM-DD, the day the owner received it (day 0)" }) receivedOn: string;
  @Field(() => String, { description: "YYYY-MM-DD, the last day to repair, rebuild or relocate" }) repairBy: string;
  @Field(() => String, { description: "OPEN, CORRECTED or ESCALATED" }) status: string;
  @Field(() => String, { nullable: true }) correctedOn: string | null;
  @Field(() => String, { nullable: true }) correctionNote: string | null;
  @Field(() => ID, { nullable: true }) enforcementActionId: string | null;
}

@ObjectType("SepticRecentLoad", { description: "A licensed hauler's load received at the district's station, not yet this system's pump-out", simpleResolvers: true })
export class RecentLoadType {
  @Field(() => ID) id: string;
  @Field(() => String) sourceAddress: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) receivedOn: string;
  @Field(() => String) haulerName: string;
  @Field(() => Int, { nullable: true }) gallons: number | null;
}

@ObjectType("SepticLateralCandidate", { description: "A lateral permit application of the district for the order's tax parcel", simpleResolvers: true })
export class LateralCandidateType {
  @Field(() => ID) id: string;
  @Field(() => String, { nullable: true }) permitNumber: string | null;
  @Field(() => String) status: string;
}

@ObjectType("SepticConnectionStep", { description: "A step of a connection order (SUL 408; Huron II-3, II-4)", simpleResolvers: true })
export class StepType {
  @Field(() => String, { description: "LATERAL_PERMIT, PUMPED, FILLED_OR_REMOVED, PLUGGED or DISCONTINUED; on SUL 408's alternative EFFLUENT_TO_SEWER and EASEMENT" }) step: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => Boolean) done: boolean;
}

@ObjectType("SepticConnectionOrder", { description: "An order to connect a septic property the public sewer now reaches (SUL 408; Huron II-4)", simpleResolvers: true })
export class OrderType {
  @Field(() => ID) id: string;
  @Field(() => ID) systemId: string;
  @Field(() => String) address: string;
  @Field(() => String) reason: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) issuedOn: string;
  @Field(() => String, { description: "OPEN or CLOSED" }) status: string;
  @Field(() => ID, { nullable: true }) lateralPermitId: string | null;
  @Field(() => String, { nullable: true }) lateralPermitNumber: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the licensed hauler's pump-out" }) pumpedOn: string | null;
  @Field(() => String, { nullable: true, description: "FILLED or REMOVED" }) tankDisposition: string | null;
  @Field(() => String, { nullable: true }) tankDispositionOn: string | null;
  @Field(() => String, { nullable: true }) fillMaterial: string | null;
  @Field(() => String, { nullable: true }) pluggedOn: string | null;
  @Field(() => String, { nullable: true }) discontinuedOn: string | null;
  @Field(() => String, { description: "How the order is met: ABANDON (the old system out of use) or EFFLUENT_TO_SEWER (SUL 408's alternative: the tank kept, its effluent piped or pumped to the sewer, with an easement for septage removal)" }) path: string;
  @Field(() => String, { nullable: true, description: "PIPED or PUMPED: how the septic tank effluent reaches the sewer (SUL 408's alternative)" }) effluentMethod: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day the effluent was piped or pumped to the sewer" }) effluentOn: string | null;
  @Field(() => ID, { nullable: true, description: "The owner's recorded easement to the septic tank for septage removal (a document)" }) easementDocumentId: string | null;
  @Field(() => String, { nullable: true }) easementFilename: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day the easement was recorded" }) easementRecordedOn: string | null;
  @Field(() => String, { nullable: true }) closedOn: string | null;
  @Field(() => ID, { nullable: true, description: "The accepted sewer extension that made the public sewer available (SUL 408, 507), when the order names one" }) extensionId: string | null;
  @Field(() => String, { nullable: true, description: "That sewer extension's name" }) extensionName: string | null;
}

@ObjectType("SepticOrderExtension", { description: "A sewer extension the Town Board accepted (SUL 507): a public sewer a connection order may name (408)", simpleResolvers: true })
export class OrderExtensionType {
  @Field(() => ID) id: string;
  @Field(() => String) name: string;
  @Field(() => String) location: string;
  @Field(() => String, { description: "YYYY-MM-DD, the Town Board's resolution" }) acceptedOn: string;
  @Field(() => String, { description: "The Town Board's resolution accepting it" }) resolutionNumber: string;
}

@ObjectType("SepticSystem", { description: "A septic tank or cesspool on a property of the register (SUL 401-402)", simpleResolvers: true })
export class SystemType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID) propertyId: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String) address: string;
  @Field(() => String) ownerName: string;
  @Field(() => String, { description: "SEPTIC_TANK or CESSPOOL" }) kind: string;
  @Field(() => String, { nullable: true }) description: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) installedOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the last pumping reported when registered (no hauler load behind it)" }) reportedPumpedOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the last pumping on record" }) lastPumpedOn: string | null;
  @Field(() => String, { description: "IN_USE or ABANDONED" }) status: string;
  @Field(() => String, { nullable: true }) abandonedOn: string | null;
  @Field(() => ID, { nullable: true }) permitId: string | null;
}

@ObjectType("SepticInspection", { description: "An inspection of the construction at any stage (SUL 404)", simpleResolvers: true })
export class InspectionType {
  @Field(() => ID) id: string;
  @Field(() => String) inspectedOn: string;
  @Field(() => String, { description: "SITE, EXCAVATION, TANK, ABSORPTION_FIELD or FINAL" }) stage: string;
  @Field(() => String) stageLabel: string;
  @Field(() => String, { description: "SATISFACTORY or DEFICIENT" }) result: string;
  @Field(() => String, { nullable: true }) notes: string | null;
}

@ObjectType("SepticPermitDocument", { simpleResolvers: true })
export class PermitDocumentType {
  @Field(() => ID) documentId: string;
  @Field(() => String, { description: "PERCOLATION_TESTS, COMPUTATIONS, PLOT_PLAN or OTHER" }) kind: string;
  @Field(() => String) kindLabel: string;
  @Field(() => String) filename: string;
}

@ObjectType("SepticPermit", { description: "A construction permit for a private wastewater disposal system (SUL 403-404)", simpleResolvers: true })
export class PermitType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID) propertyId: string;
  @Field(() => String) address: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String) applicantName: string;
  @Field(() => String, { description: "SUBMITTED, ISSUED, DENIED or COMPLETED" }) status: string;
  @Field(() => String, { nullable: true }) permitNumber: string | null;
  @Field(() => String) systemKind: string;
  @Field(() => String) percolationSummary: string;
  @Field(() => String) designerName: string;
  @Field(() => String, { description: "PROFESSIONAL_ENGINEER, LICENSED_SURVEYOR or ARCHITECT" }) designerCredential: string;
  @Field(() => String) designerLicense: string;
  @Field(() => Int, { description: "The Board's fee in cents; 0 where it has set none (no payment step)" }) feeCents: number;
  @Field(() => String, { nullable: true }) feeSection: string | null;
  @Field(() => ID, { nullable: true }) paymentId: string | null;
  @Field(() => Date) submittedAt: Date;
  @Field(() => String, { nullable: true }) decisionReason: string | null;
  @Field(() => String, { nullable: true }) issuedOn: string | null;
  @Field(() => String, { nullable: true }) completedOn: string | null;
  @Field(() => ID, { nullable: true, description: "The system registered when the final inspection found it complete" }) systemId: string | null;
}

@ObjectType("SepticDistrict", { description: "What a district's law says of septic systems (SUL Article 4; Huron II-3, II-4)", simpleResolvers: true })
export class SepticDistrictType {
  @Field(() => ID) id: string;
  @Field(() => String) slug: string;
  @Field(() => String) name: string;
  @Field(() => Boolean) systemsAllowed: boolean;
  @Field(() => String, { nullable: true, description: "Why no construction permit can be had here" }) permitsUnavailable: string | null;
  @Field(() => Int, { description: "The Board's construction permit fee in cents; 0 where none is set" }) permitFeeCents: number;
  @Field(() => String) permitFeeSection: string;
  @Field(() => Int, { nullable: true }) pumpingIntervalYears: number | null;
  @Field(() => String) pumpingSection: string;
  @Field(() => Int, { nullable: true }) nuisanceRepairDays: number | null;
  @Field(() => Int, { description: "How many days ahead owners are reminded of a pump-out (the district's practice)" }) pumpOutReminderDays: number;
  @Field(() => Int, { description: "How many days before a notice's last day the owner is reminded" }) nuisanceReminderDays: number;
}

const SystemPage = PageOf("SepticSystemPage", () => SystemType);

// ---------------------------------------------------------------------------------------------
// Inputs

@InputType("SepticBuildingInput")
export class BuildingInput {
  @Field(() => String) name: string;
  @Field(() => String, { description: "DWELLING, BUSINESS or ACCESSORY" }) use: string;
}

@InputType("RegisterSepticSystemInput")
export class RegisterInput {
  @Field(() => ID) propertyId: string;
  @Field(() => String, { description: "SEPTIC_TANK or CESSPOOL" }) kind: string;
  @Field(() => [BuildingInput]) buildings: BuildingInput[];
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) installedOn?: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the last pumping known (no hauler load on record)" }) reportedPumpedOn?: string | null;
}

@InputType("SepticPermitDocumentInput")
export class PermitDocumentInput {
  @Field(() => ID) documentId: string;
  @Field(() => String, { description: "PERCOLATION_TESTS, COMPUTATIONS, PLOT_PLAN or OTHER" }) kind: string;
}

@InputType("ApplyForSepticPermitInput")
export class ApplyInput {
  @Field(() => ID) propertyId: string;
  @Field(() => String, { description: "SEPTIC_TANK or CESSPOOL" }) systemKind: string;
  @Field(() => [BuildingInput]) buildings: BuildingInput[];
  @Field(() => String) percolationSummary: string;
  @Field(() => String) designerName: string;
  @Field(() => String, { description: "PROFESSIONAL_ENGINEER, LICENSED_SURVEYOR or ARCHITECT" }) designerCredential: string;
  @Field(() => String) designerLicense: string;
  @Field(() => [PermitDocumentInput]) documents: PermitDocumentInput[];
}

@InputType("DecideSepticPermitInput")
export class DecideInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "ISSUE or DENY" }) decision: string;
  @Field(() => String, { nullable: true }) reason?: string | null;
}

@InputType("RecordSepticInspectionInput")
export class InspectionInput {
  @Field(() => ID) permitId: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, today unless given" }) inspectedOn?: string | null;
  @Field(() => String, { description: "SITE, EXCAVATION, TANK, ABSORPTION_FIELD or FINAL" }) stage: string;
  @Field(() => String, { description: "SATISFACTORY or DEFICIENT" }) result: string;
  @Field(() => String, { nullable: true }) notes?: string | null;
}

@InputType("ServeSepticNuisanceNoticeInput")
export class ServeNoticeInput {
  @Field(() => ID) systemId: string;
  @Field(() => String) condition: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day the owner received the notice; today unless given" }) receivedOn?: string | null;
}

@InputType("RecordSepticNuisanceCorrectedInput")
export class CorrectedInput {
  @Field(() => ID) id: string;
  @Field(() => String, { nullable: true }) correctedOn?: string | null;
  @Field(() => String) note: string;
}

@InputType("EscalateSepticNuisanceNoticeInput")
export class EscalateInput {
  @Field(() => ID) id: string;
  @Field(() => String, { nullable: true, description: "An enforcement action kind; NOTICE_OF_VIOLATION unless given" }) kind?: string | null;
  @Field(() => String, { nullable: true, description: "The owner's portal email when the owner of record has no linked sign-in" }) respondentEmail?: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) correctBy?: string | null;
}

@InputType("IssueSepticConnectionOrdersInput")
export class IssueOrdersInput {
  @Field(() => [ID]) systemIds: string[];
  @Field(() => String, { nullable: true, description: "Which public sewer now reaches the properties; with an extension named, the Operator's note, if any, after the extension's own words" }) reason?: string | null;
  @Field(() => ID, { nullable: true, description: "The district's sewer extension, accepted by the Town Board (SUL 507), that made the public sewer available (408)" }) extensionId?: string | null;
}

@InputType("SepticUploadInput", { description: "A file uploaded with the step: its name and its bytes, base64-encoded" })
export class SepticUploadInput {
  @Field(() => String) filename: string;
  @Field(() => String) contentBase64: string;
}

@InputType("RecordSepticConnectionStepInput")
export class StepInput {
  @Field(() => ID) orderId: string;
  @Field(() => String, { description: "LATERAL_PERMIT, FILLED_OR_REMOVED, PLUGGED or DISCONTINUED (the pump-out comes from a hauler load); on SUL 408's alternative EFFLUENT_TO_SEWER or EASEMENT" }) step: string;
  @Field(() => ID, { nullable: true }) lateralPermitId?: string | null;
  @Field(() => String, { nullable: true, description: "FILLED or REMOVED" }) disposition?: string | null;
  @Field(() => String, { nullable: true }) fillMaterial?: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, today unless given" }) on?: string | null;
  @Field(() => String, { nullable: true, description: "PIPED or PUMPED, for EFFLUENT_TO_SEWER" }) effluentMethod?: string | null;
  @Field(() => SepticUploadInput, { nullable: true, description: "For EASEMENT: the recorded easement (PDF, PNG or JPEG), stored with the step" }) easementDocument?: SepticUploadInput | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, for EASEMENT: the day the easement was recorded" }) easementRecordedOn?: string | null;
}

@InputType("ChooseSepticConnectionPathInput")
export class PathInput {
  @Field(() => ID) orderId: string;
  @Field(() => String, { description: "ABANDON or EFFLUENT_TO_SEWER" }) path: string;
}

// ---------------------------------------------------------------------------------------------
// Loaders: one query per kind of related row

const rows = perRequest((ctx: Context) => ({
  pumpOuts: new DataLoader(async (ids: readonly string[]) => groupBy(await septic.pumpOutsOf(ctx.ds, ids), (r) => r.systemId, ids)),
  notices: new DataLoader(async (ids: readonly string[]) => groupBy(await septic.noticesOf(ctx.ds, ids), (r) => r.systemId, ids)),
  orders: new DataLoader(async (ids: readonly string[]) => groupBy(await septic.ordersOf(ctx.ds, ids), (r) => r.systemId, ids)),
  laterals: new DataLoader(async (ids: readonly string[]) => groupBy(await septic.lateralCandidatesOf(ctx.ds, ids), (r) => r.orderId, ids)),
  documents: new DataLoader(async (ids: readonly string[]) => groupBy(await septic.permitDocumentsOf(ctx.ds, ids), (r) => r.permitId, ids)),
  inspections: new DataLoader(async (ids: readonly string[]) => groupBy(await septic.inspectionsOf(ctx.ds, ids), (r) => r.permitId, ids)),
  districts: new DataLoader(async (ids: readonly string[]) => {
    const found = await ctx.ds.getRepository(District).createQueryBuilder("d").where("d.id IN (:...ids)", { ids }).getMany();
    return Promise.all(ids.map(async (id) => {
      const d = found.find((x) => x.id === id)!;
      return { district: d, rb: await rulebookOn(ctx.ds, d), today: dateIn(d.timeZone) };
    }));
  }),
}));

const viewerOf = (ctx: Context) => {
  if (!ctx.viewer) throw unauthenticated();
  return ctx.viewer;
};
const meta = (ctx: Context) => ({ requestId: ctx.requestId, publicUrl: ctx.config.publicUrl });
const STATUS_LABELS: Record<string, string> = {
  IN_USE: "In use",
  ABANDONED: "Out of use",
  OPEN: "Open",
  CLOSED: "Closed",
  CORRECTED: "Repaired",
  ESCALATED: "Enforcement action opened",
  SUBMITTED: "Under review",
  ISSUED: "Permit issued",
  DENIED: "Denied",
  COMPLETED: "Construction complete",
};

// ---------------------------------------------------------------------------------------------
// Resolvers

@Resolver(() => SystemType)
export class SepticSystemsResolver {
  @FieldResolver(() => String) kindLabel(@Root() s: SystemRow) {
    return SYSTEM_KIND_LABELS[s.kind];
  }
  @FieldResolver(() => String) statusLabel(@Root() s: SystemRow) {
    return STATUS_LABELS[s.status];
  }
  @FieldResolver(() => [BuildingType]) buildings(@Root() s: SystemRow): BuildingType[] {
    return (s.buildings as Building[]).map((b) => ({ ...b, useLabel: BUILDING_USE_LABELS[b.use] }));
  }
  @FieldResolver(() => String, { nullable: true, description: "Where the district's law allows no septic system at all (Huron II-3), why" })
  async forbiddenReason(@Root() s: SystemRow, @Ctx() ctx: Context): Promise<string | null> {
    return systemsForbidden((await rows(ctx).districts.load(s.districtId)).rb)?.reason ?? null;
  }
  @FieldResolver(() => PumpStandingType, { description: "The three-year pump-out as of today (SUL 407)" })
  async pumpStanding(@Root() s: SystemRow, @Ctx() ctx: Context): Promise<PumpStandingType> {
    const { rb, today } = await rows(ctx).districts.load(s.districtId);
    if (s.status !== "IN_USE") return { state: "NOT_REQUIRED", dueOn: null, daysLeft: null, text: `Out of use since ${formatDate(s.abandonedOn!)}.`, section: rb.entry("septic.pumpingIntervalYears").section };
    return pumpStanding(rb, s.pumpDueOn, s.lastPumpedOn, s.installedOn, today);
  }
  @FieldResolver(() => [RecentLoadType], { nullable: true, description: "The district's staff only: licensed loads received in the last 90 days, to link one the address match missed" })
  async recentLoads(@Root() s: SystemRow, @Ctx() ctx: Context): Promise<RecentLoadType[] | null> {
    if (!isStaff(ctx.viewer, s.districtId)) return null;
    return septic.recentLoadsFor(ctx.ds, s, (await rows(ctx).districts.load(s.districtId)).district.timeZone);
  }
  @FieldResolver(() => [PumpOutType]) async pumpOuts(@Root() s: SystemRow, @Ctx() ctx: Context) {
    return rows(ctx).pumpOuts.load(s.id);
  }
  @FieldResolver(() => [NoticeType]) async nuisanceNotices(@Root() s: SystemRow, @Ctx() ctx: Context) {
    return rows(ctx).notices.load(s.id);
  }
  @FieldResolver(() => [OrderType]) async connectionOrders(@Root() s: SystemRow, @Ctx() ctx: Context) {
    return rows(ctx).orders.load(s.id);
  }

  @Query(() => [SystemType], { description: "The septic systems on properties I own of record" })
  @Access("SIGNED_IN")
  async mySepticSystems(@Ctx() ctx: Context) {
    return septic.mySystems(ctx.ds, viewerOf(ctx));
  }

  @Query(() => SystemType, { description: "A septic system: the district's staff and the property's owner of record" })
  @Access("SIGNED_IN")
  async septicSystem(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return septic.getSystem(ctx.ds, viewerOf(ctx), id);
  }

  @Query(() => SystemPage, { description: "The district's septic systems: ALL (newest first), OVERDUE (longest first, none on record first) or DUE_SOON; its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async districtSepticSystems(
    @Arg("districtId", () => ID) districtId: string,
    @Arg("filter", () => String, { nullable: true }) filter: string | null,
    @Arg("first", () => Int, { nullable: true }) first: number | null,
    @Arg("after", () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: Context,
  ) {
    return septic.districtSystems(ctx.ds, viewerOf(ctx), { districtId, filter, first, after });
  }

  @Query(() => [SepticDistrictType], { description: "Each district's septic rules: allowed or not, the permit fee, the intervals" })
  @Access("PUBLIC")
  async septicDistricts(@Ctx() ctx: Context): Promise<SepticDistrictType[]> {
    const districts = await ctx.ds.getRepository(District).find({ order: { name: "ASC" } });
    return Promise.all(
      districts.map(async (d) => {
        const rb: Rulebook = await rulebookOn(ctx.ds, d);
        const fee = permitFee(rb);
        const num = (k: "septic.pumpingIntervalYears" | "septic.nuisanceRepairDays") => (typeof rb.entry(k).value === "number" ? (rb.entry(k).value as number) : null);
        return {
          id: d.id,
          slug: d.slug,
          name: d.name,
          systemsAllowed: !systemsForbidden(rb),
          permitsUnavailable: permitsUnavailable(rb),
          permitFeeCents: fee?.cents ?? 0,
          permitFeeSection: rb.entry("septic.constructionPermitFee").section,
          pumpingIntervalYears: num("septic.pumpingIntervalYears"),
          pumpingSection: rb.entry("septic.pumpingIntervalYears").section,
          nuisanceRepairDays: num("septic.nuisanceRepairDays"),
          pumpOutReminderDays: PUMP_OUT_REMINDER_DAYS,
          nuisanceReminderDays: NUISANCE_REMINDER_DAYS,
        };
      }),
    );
  }

  @Mutation(() => SystemType, { description: "The District Operator registers a property's septic tank or cesspool (SUL 401, 402)" })
  @Access("OPERATOR")
  async registerSepticSystem(@Arg("input", () => RegisterInput) input: RegisterInput, @Ctx() ctx: Context) {
    return septic.registerSystem(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }

  @Mutation(() => SystemType, { description: "The District Operator records a licensed hauler's received load as the system's pump-out, when its address did not match (SUL 407)" })
  @Access("OPERATOR")
  async linkSepticPumpOut(@Arg("systemId", () => ID) systemId: string, @Arg("haulerLoadId", () => ID) haulerLoadId: string, @Ctx() ctx: Context) {
    return septic.linkPumpOut(ctx.ds, viewerOf(ctx), { systemId, haulerLoadId }, meta(ctx));
  }
}

@Resolver(() => NoticeType)
export class SepticNoticesResolver {
  @FieldResolver(() => String) statusLabel(@Root() n: NoticeRow) {
    return STATUS_LABELS[n.status];
  }
  @FieldResolver(() => Int, { nullable: true, description: "Days left to the last day (0 on it, negative once passed); open notices only" })
  async daysLeft(@Root() n: NoticeRow, @Ctx() ctx: Context): Promise<number | null> {
    if (n.status !== "OPEN") return null;
    return daysBetween((await rows(ctx).districts.load(n.districtId)).today, n.repairBy);
  }
  @FieldResolver(() => Boolean, { description: "The 90 days have passed without a repair recorded; the Operator may open an enforcement action" })
  async lapsed(@Root() n: NoticeRow, @Ctx() ctx: Context): Promise<boolean> {
    return n.status === "OPEN" && nuisanceLapsed(n.repairBy, (await rows(ctx).districts.load(n.districtId)).today);
  }
  @FieldResolver(() => String) async section(@Root() n: NoticeRow, @Ctx() ctx: Context): Promise<string> {
    return (await rulebookById(ctx.ds, n.rulebookVersionId)).entry("septic.nuisanceRepairDays").section;
  }

  @Query(() => [NoticeType], { description: "The district's open notices by their last day; its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async districtSepticNotices(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return septic.districtNotices(ctx.ds, viewerOf(ctx), districtId);
  }

  @Mutation(() => NoticeType, { description: "The District Operator serves the written notice: 90 days from its receipt to repair, rebuild or relocate (SUL 405)" })
  @Access("OPERATOR")
  async serveSepticNuisanceNotice(@Arg("input", () => ServeNoticeInput) input: ServeNoticeInput, @Ctx() ctx: Context) {
    return septic.serveNotice(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }

  @Mutation(() => NoticeType, { description: "The District Operator records the system repaired, rebuilt or relocated" })
  @Access("OPERATOR")
  async recordSepticNuisanceCorrected(@Arg("input", () => CorrectedInput) input: CorrectedInput, @Ctx() ctx: Context) {
    return septic.recordCorrected(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }

  @Mutation(() => NoticeType, { description: "From the day after the last day, the District Operator opens an enforcement action" })
  @Access("OPERATOR")
  async escalateSepticNuisanceNotice(@Arg("input", () => EscalateInput) input: EscalateInput, @Ctx() ctx: Context) {
    return septic.escalateNotice(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }
}

@Resolver(() => OrderType)
export class SepticOrdersResolver {
  @FieldResolver(() => String) statusLabel(@Root() o: OrderRow) {
    return STATUS_LABELS[o.status];
  }
  @FieldResolver(() => [LateralCandidateType], { nullable: true, description: "The district's staff only: lateral permit applications for the property's tax parcel" })
  async lateralCandidates(@Root() o: OrderRow, @Ctx() ctx: Context): Promise<LateralCandidateType[] | null> {
    if (!isStaff(ctx.viewer, o.districtId)) return null;
    return (await rows(ctx).laterals.load(o.id)).map(({ orderId: _o, ...c }) => c);
  }
  @FieldResolver(() => String) pathLabel(@Root() o: OrderRow) {
    return ORDER_PATH_LABELS[o.path];
  }
  @FieldResolver(() => String, { nullable: true }) effluentMethodLabel(@Root() o: OrderRow) {
    return o.effluentMethod ? EFFLUENT_METHOD_LABELS[o.effluentMethod] : null;
  }
  @FieldResolver(() => String, { nullable: true, description: "Why the district's law has no alternative of keeping the tank with its effluent piped or pumped to the sewer (Huron II-3, II-4); null where SUL 408 allows it" })
  async effluentAlternativeRefusal(@Root() o: OrderRow, @Ctx() ctx: Context): Promise<string | null> {
    return effluentAlternativeRefusal(await rulebookById(ctx.ds, o.rulebookVersionId));
  }
  @FieldResolver(() => [StepType], { description: "The steps the law asks for on the order's path, in the order the work goes, and which are recorded" })
  async steps(@Root() o: OrderRow, @Ctx() ctx: Context): Promise<StepType[]> {
    return septic.stepsOf(await rulebookById(ctx.ds, o.rulebookVersionId), o);
  }

  @Query(() => [OrderExtensionType], { description: "The district's sewer extensions the Town Board has accepted, newest first: the public sewers a connection order may name (SUL 408, 507); its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async septicOrderExtensions(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return septic.acceptedExtensions(ctx.ds, viewerOf(ctx), districtId);
  }

  @Query(() => [OrderType], { description: "The district's open connection orders, oldest first; its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async districtSepticConnectionOrders(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return septic.districtOrders(ctx.ds, viewerOf(ctx), districtId);
  }

  @Mutation(() => [OrderType], { description: "The District Operator orders septic properties the public sewer now reaches connected (SUL 408; Huron II-4)" })
  @Access("OPERATOR")
  async issueSepticConnectionOrders(@Arg("input", () => IssueOrdersInput) input: IssueOrdersInput, @Ctx() ctx: Context) {
    return septic.issueOrders(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }

  @Mutation(() => OrderType, { description: "The District Operator records a step of a connection order; it closes when every step of its path is recorded" })
  @Access("OPERATOR")
  async recordSepticConnectionStep(@Arg("input", () => StepInput) input: StepInput, @Ctx() ctx: Context) {
    return septic.recordStep(ctx.ds, ctx.config, viewerOf(ctx), input, meta(ctx));
  }

  @Mutation(() => OrderType, { description: "The District Operator records how a connection order is met: the old system out of use, or SUL 408's alternative (the tank kept, its effluent piped or pumped to the sewer, with an easement for septage removal; not in Huron, II-3, II-4)" })
  @Access("OPERATOR")
  async chooseSepticConnectionPath(@Arg("input", () => PathInput) input: PathInput, @Ctx() ctx: Context) {
    return septic.choosePath(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }
}

@Resolver(() => PermitType)
export class SepticPermitsResolver {
  @FieldResolver(() => String) statusLabel(@Root() p: PermitRow) {
    return STATUS_LABELS[p.status];
  }
  @FieldResolver(() => String) systemKindLabel(@Root() p: PermitRow) {
    return SYSTEM_KIND_LABELS[p.systemKind];
  }
  @FieldResolver(() => String) designerCredentialLabel(@Root() p: PermitRow) {
    return DESIGNER_CREDENTIAL_LABELS[p.designerCredential];
  }
  @FieldResolver(() => [BuildingType]) buildings(@Root() p: PermitRow): BuildingType[] {
    return p.buildings.map((b) => ({ ...b, useLabel: BUILDING_USE_LABELS[b.use] }));
  }
  @FieldResolver(() => [PermitDocumentType]) async documents(@Root() p: PermitRow, @Ctx() ctx: Context) {
    return (await rows(ctx).documents.load(p.id)).map((d) => ({ ...d, kindLabel: septic.PERMIT_DOCUMENT_LABELS[d.kind] }));
  }
  @FieldResolver(() => [InspectionType]) async inspections(@Root() p: PermitRow, @Ctx() ctx: Context) {
    return (await rows(ctx).inspections.load(p.id)).map((i: InspectionRow) => ({ ...i, stageLabel: septic.INSPECTION_STAGE_LABELS[i.stage] }));
  }

  @Query(() => PermitType, { description: "A septic construction permit: its applicant and the district's staff" })
  @Access("SIGNED_IN")
  async septicPermit(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return septic.getPermit(ctx.ds, viewerOf(ctx), id);
  }

  @Query(() => [PermitType], { description: "My septic construction permits, newest first" })
  @Access("SIGNED_IN")
  async mySepticPermits(@Ctx() ctx: Context) {
    return septic.myPermits(ctx.ds, viewerOf(ctx));
  }

  @Query(() => [PermitType], { description: "The district's septic construction permits, those under review first; its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async districtSepticPermits(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return septic.districtPermits(ctx.ds, viewerOf(ctx), districtId);
  }

  @Mutation(() => PermitType, { description: "The owner of record applies for a septic construction permit (SUL 403)" })
  @Access("SIGNED_IN")
  async applyForSepticPermit(@Arg("input", () => ApplyInput) input: ApplyInput, @Ctx() ctx: Context) {
    return septic.applyForPermit(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }

  @Mutation(() => PermitType, { description: "The District Operator issues the written permit or denies it (SUL 404)" })
  @Access("OPERATOR")
  async decideSepticPermit(@Arg("input", () => DecideInput) input: DecideInput, @Ctx() ctx: Context) {
    return septic.decidePermit(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }

  @Mutation(() => PermitType, { description: "The District Operator records an inspection at any stage (SUL 404); a satisfactory final one registers the system" })
  @Access("OPERATOR")
  async recordSepticInspection(@Arg("input", () => InspectionInput) input: InspectionInput, @Ctx() ctx: Context) {
    return septic.recordInspection(ctx.ds, viewerOf(ctx), input, meta(ctx));
  }
}

import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { isStaff } from "../accounts/viewer.js";
import { unauthenticated } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import * as acceptance from "./acceptance.service.js";
import { CHARGE_LABELS, setCharge, type ChargeRow } from "./charges.service.js";
import type { ExtensionRow } from "./common.js";
// A cycle by design: the extensions resolver extends this class, and these mutations answer its type (read lazily, at schema build).
import { ExtensionType } from "./extensions.resolver.js";
import { rows } from "./loaders.js";
import * as plans from "./plans.service.js";
import type { PlanRow } from "./plans.service.js";
import { publicRecord, type PublicRecord } from "./public.service.js";
import { acceptanceProblems } from "./rules.js";
import { sectionStanding } from "./tests.service.js";

/**
 * Construction and acceptance of sewer extensions in GraphQL (SUL 502 A, 507, Article 13): the
 * Board's charges, inspections, as-built drawings, acceptance, the guarantee and its claims, and the
 * public record. An abstract resolver the extensions' resolver extends, so the schema lists one.
 */

@ObjectType("SewerExtensionCharge", { description: "A charge the Town Board set on the extension by resolution (SUL 502 A), paid through payments", simpleResolvers: true })
export class ChargeType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "INSPECTION_FEES or PROPORTIONATE_SHARE" }) kind: string;
  @Field(() => String) label: string;
  @Field(() => Float, { description: "Cents" }) amountCents: number;
  @Field(() => String, { description: "e.g. $1,200.00" }) amount: string;
  @Field(() => String, { nullable: true }) description: string | null;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) resolutionAdoptedOn: string;
  @Field(() => ID, { nullable: true, description: "The payment to pay (its page: /payments/:id)" }) paymentId: string | null;
  @Field(() => String, { nullable: true }) paymentStatus: string | null;
  @Field(() => Boolean) paid: boolean;
  @Field(() => Date, { nullable: true }) paidAt: Date | null;
}

@ObjectType("SewerExtensionInspection", { description: "A periodic inspection by the District Operator, without prior notice; findings reported to the Town Board (SUL 502 A)", simpleResolvers: true })
export class InspectionType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) inspectedOn: string;
  @Field(() => Boolean, { description: "The work is proceeding in accordance with the approved plans and specifications" }) conforms: boolean;
  @Field(() => String) findings: string;
  @Field(() => Boolean, { description: "Excavation required to inspect facilities covered before inspection" }) excavationRequired: boolean;
  @Field(() => String) inspectorName: string;
  @Field(() => Date) recordedAt: Date;
}

@ObjectType("GuaranteeClaim", { description: "A defect found while the guarantee runs (SUL 507)", simpleResolvers: true })
export class ClaimType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) noticedOn: string;
  @Field(() => String) defect: string;
  @Field(() => Date) recordedAt: Date;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day the defect was remedied; null while the claim is open" }) remediedOn: string | null;
  @Field(() => String, { nullable: true }) remedy: string | null;
}

@ObjectType("SewerExtensionInspectionPlan", {
  description: "An inspection the District Operator plans (SUL 502 A); the district's staff only, never told to the developer (inspections are made without prior notice)",
  simpleResolvers: true,
})
export class InspectionPlanType {
  @Field(() => ID) id: string;
  @Field(() => ID) extensionId: string;
  @Field(() => String) extensionName: string;
  @Field(() => String) organizationName: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) plannedOn: string;
  @Field(() => String, { description: "What the inspection looks at" }) scope: string;
  @Field(() => String) plannedByName: string;
  @Field(() => Date) plannedAt: Date;
  @Field(() => ID, { nullable: true, description: "The inspection whose findings closed it; null while open" }) inspectionId: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day of that inspection" }) inspectedOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day the District Operator cancelled it; null unless cancelled" }) cancelledOn: string | null;
  @Field(() => String, { nullable: true, description: "Why it was cancelled" }) cancellationReason: string | null;
  @Field(() => String, { nullable: true }) cancelledByName: string | null;
}

@ObjectType("ExpiringSewerGuarantee", { description: "An accepted sewer whose guarantee ends within the district's reminder days, or ended with a claim still open (SUL 507)", simpleResolvers: true })
export class ExpiringGuaranteeType {
  @Field(() => ID) extensionId: string;
  @Field(() => String) name: string;
  @Field(() => String) organizationName: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) acceptedOn: string;
  @Field(() => String, { description: "YYYY-MM-DD, the guarantee's last day" }) guaranteeEndsOn: string;
  @Field(() => Int, { description: "Days from today to the last day; 0 on it, negative once ended" }) daysLeft: number;
  @Field(() => Int, { description: "Claims not yet remedied" }) openClaims: number;
}

@ObjectType("SewerExtensionProcedureStep", { simpleResolvers: true })
export class StepType {
  @Field(() => String) text: string;
  @Field(() => String) section: string;
}
@ObjectType("PublicCapacityCommitment", { description: "Capacity the Town Board committed by resolution (SUL 501)", simpleResolvers: true })
export class PublicCommitmentType {
  @Field(() => String) lineName: string;
  @Field(() => String, { description: "SEGMENT or PLANT" }) lineKind: string;
  @Field(() => String) committedTo: string;
  @Field(() => Int, { description: "Gallons per day" }) flowGpd: number;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String) resolutionAdoptedOn: string;
  @Field(() => String, { nullable: true }) expiresOn: string | null;
  @Field(() => String, { nullable: true }) releasedOn: string | null;
  @Field(() => String, { nullable: true }) releaseResolutionNumber: string | null;
  @Field(() => Boolean) inForce: boolean;
}
@ObjectType("PublicCommittedCapacity", { description: "Capacity committed by resolution and in force today, by segment or plant", simpleResolvers: true })
export class CommittedLineType {
  @Field(() => String) lineName: string;
  @Field(() => String) lineKind: string;
  @Field(() => Int) committedGpd: number;
}
@ObjectType("PublicExtensionCharge", { simpleResolvers: true })
export class PublicChargeType {
  @Field(() => String) extensionName: string;
  @Field(() => String) kind: string;
  @Field(() => String) label: string;
  @Field(() => String) amount: string;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String) resolutionAdoptedOn: string;
}
@ObjectType("AcceptedSewer", { description: "A sewer the Town accepted (SUL 507)", simpleResolvers: true })
export class AcceptedType {
  @Field(() => String) name: string;
  @Field(() => String) location: string;
  @Field(() => String) developer: string;
  @Field(() => String) acceptedOn: string;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String) guaranteeEndsOn: string;
}
@ObjectType("SewerExtensionPublicRecord", { description: "What the public sees of a district's sewer extensions (SUL 1301-1303)", simpleResolvers: true })
export class PublicRecordType {
  @Field(() => ID) districtId: string;
  @Field(() => String) districtName: string;
  @Field(() => Boolean) provided: boolean;
  @Field(() => String) section: string;
  @Field(() => [StepType], { description: "The procedure for applying, with the law's figures in force (1302)" }) procedure: StepType[];
  @Field(() => [CommittedLineType]) committedByLine: CommittedLineType[];
  @Field(() => [PublicCommitmentType], { description: "The Board's commitments and releases (1303)" }) commitments: PublicCommitmentType[];
  @Field(() => [PublicChargeType], { description: "Charges the Board set by resolution (502 A)" }) charges: PublicChargeType[];
  @Field(() => [AcceptedType]) accepted: AcceptedType[];
}

@InputType("SetSewerExtensionChargeInput")
export class ChargeInput {
  @Field(() => ID) extensionId: string;
  @Field(() => String, { description: "INSPECTION_FEES or PROPORTIONATE_SHARE" }) kind: string;
  @Field(() => Float, { description: "Cents" }) amountCents: number;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) resolutionAdoptedOn: string;
}
@InputType("RecordExtensionInspectionInput")
export class InspectionInput {
  @Field(() => ID) extensionId: string;
  @Field(() => String, { description: "YYYY-MM-DD, not after today" }) inspectedOn: string;
  @Field(() => Boolean, { description: "The work is proceeding in accordance with the approved plans and specifications" }) conforms: boolean;
  @Field(() => String) findings: string;
  @Field(() => Boolean, { nullable: true }) excavationRequired?: boolean | null;
  @Field(() => ID, { nullable: true, description: "The planned inspection these findings close, if any" }) planId?: string | null;
}
@InputType("PlanExtensionInspectionInput")
export class PlanInput {
  @Field(() => ID) extensionId: string;
  @Field(() => String, { description: "YYYY-MM-DD, today or later" }) plannedOn: string;
  @Field(() => String, { description: "What the inspection looks at" }) scope: string;
}
@InputType("MoveExtensionInspectionPlanInput")
export class MovePlanInput {
  @Field(() => ID) planId: string;
  @Field(() => String, { description: "YYYY-MM-DD, today or later" }) plannedOn: string;
  @Field(() => String, { description: "Why, for the record" }) reason: string;
}
@InputType("CancelExtensionInspectionPlanInput")
export class CancelPlanInput {
  @Field(() => ID) planId: string;
  @Field(() => String, { description: "Why, for the record" }) reason: string;
}
@InputType("RecordGuaranteeClaimRemediedInput")
export class RemedyInput {
  @Field(() => ID) claimId: string;
  @Field(() => String, { description: "YYYY-MM-DD, not before the defect was found nor after today" }) remediedOn: string;
  @Field(() => String) remedy: string;
}
@InputType("ApproveAsBuiltDrawingsInput")
export class AsBuiltInput {
  @Field(() => ID) extensionId: string;
  @Field(() => Int, { description: "Paper copies filed with the District Operator (four, SUL 507)" }) copiesFiled: number;
}
@InputType("RecordTownBoardAcceptanceInput")
export class AcceptanceInput {
  @Field(() => ID) extensionId: string;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String, { description: "YYYY-MM-DD, the resolution's day: the sewer is the Town's from it" }) acceptedOn: string;
  @Field(() => String, { description: "SURETY_BOND or OTHER" }) securityKind: string;
  @Field(() => String, { nullable: true }) suretyName?: string | null;
  @Field(() => String, { nullable: true }) bondNumber?: string | null;
  @Field(() => Float, { nullable: true, description: "Cents" }) amountCents?: number | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, not before the guarantee's last day" }) expiresOn?: string | null;
  @Field(() => String, { nullable: true, description: "The other security the Town Board approved" }) description?: string | null;
}
@InputType("RecordGuaranteeClaimInput")
export class ClaimInput {
  @Field(() => ID) extensionId: string;
  @Field(() => String, { description: "YYYY-MM-DD, while the guarantee runs" }) noticedOn: string;
  @Field(() => String) defect: string;
}

const chargeView = (c: ChargeRow): ChargeType => ({ ...c, label: CHARGE_LABELS[c.kind], amount: formatCents(c.amountCents), paid: !!c.paidAt });
const viewerOf = (ctx: Context) => {
  if (!ctx.viewer) throw unauthenticated();
  return ctx.viewer;
};

@Resolver(() => ExtensionType)
export abstract class SewerExtensionWorksResolver {
  @FieldResolver(() => [ChargeType], { description: "The Town Board's charges set by resolution (SUL 502 A); none until it sets them" })
  async charges(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<ChargeType[]> {
    return (await rows(ctx).charges.load(e.id)).map(chargeView);
  }

  @FieldResolver(() => [InspectionType], { description: "The District Operator's inspections, oldest first (SUL 502 A)" })
  async inspections(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<InspectionType[]> {
    return rows(ctx).inspections.load(e.id);
  }

  @FieldResolver(() => [InspectionPlanType], { nullable: true, description: "Planned inspections, open and closed, by day (SUL 502 A); the district's staff only, null for anyone else" })
  async plannedInspections(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<PlanRow[] | null> {
    if (!isStaff(ctx.viewer, e.districtId)) return null;
    return rows(ctx).plans.load(e.id);
  }

  @FieldResolver(() => [ClaimType], { description: "Defects claimed under the guarantee (SUL 507)" })
  async guaranteeClaims(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<ClaimType[]> {
    return rows(ctx).claims.load(e.id);
  }

  @FieldResolver(() => [String], { description: "What construction waits for (SUL 502 A): empty when it may start on the day announced" })
  async constructionProblems(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<string[]> {
    if (e.status !== "APPROVED") return [];
    const out: string[] = [];
    const prefix = lawPrefix(e);
    if (!e.constructionStartsOn) out.push(`Notice of the start of construction is not yet given (${prefix} 502 A).`);
    const fees = (await rows(ctx).charges.load(e.id)).find((c) => c.kind === "INSPECTION_FEES");
    if (fees && !fees.paidAt) out.push(`The inspection fees are paid before construction starts (${prefix} 502 A).`);
    return out;
  }

  @FieldResolver(() => [String], { description: "What the District Operator's final approval waits for (SUL 502 A, 507); empty when nothing, or once given" })
  async acceptanceProblems(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<string[]> {
    if (e.status !== "APPROVED" || e.finalApprovedAt) return [];
    const [sections, attempts, inspections, charges] = await Promise.all([
      rows(ctx).sections.load(e.id),
      rows(ctx).attempts.load(e.id),
      rows(ctx).inspections.load(e.id),
      rows(ctx).charges.load(e.id),
    ]);
    const prefix = lawPrefix(e);
    const open = sections.filter((s) => !sectionStanding(attempts.filter((a) => a.sectionId === s.id)).passed);
    const testsProblem = !sections.length
      ? `No section of the sewer extension has been tested yet (${prefix} 502 A).`
      : open.length
        ? `These sections of the sewer extension have not passed their tests: ${open.map((s) => s.name).join(", ")} (${prefix} 502 A).`
        : null;
    return acceptanceProblems(prefix, { testsProblem, asBuiltApproved: !!e.asBuiltApprovedAt, inspections, unpaidCharges: charges.filter((c) => !c.paidAt).map((c) => CHARGE_LABELS[c.kind].split(" of ")[0]) });
  }

  @Query(() => PublicRecordType, { description: "What the public sees of a district's sewer extensions: the procedure and the Town Board's resolutions (SUL 1301-1303)" })
  @Access("PUBLIC")
  async sewerExtensionPublicRecord(@Arg("districtSlug", () => String) districtSlug: string, @Ctx() ctx: Context): Promise<PublicRecord> {
    return publicRecord(ctx.ds, districtSlug);
  }

  @Query(() => [InspectionPlanType], { description: "The district's planned inspections not yet made, earliest first (SUL 502 A); its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async plannedSewerExtensionInspections(
    @Arg("districtId", () => ID) districtId: string,
    @Arg("first", () => Int, { nullable: true }) first: number | null,
    @Ctx() ctx: Context,
  ): Promise<PlanRow[]> {
    return plans.openPlans(ctx.ds, viewerOf(ctx), districtId, first);
  }

  @Query(() => [ExpiringGuaranteeType], { description: "Guarantees ending within the district's reminder days, or ended with a claim open, by last day (SUL 507); its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async expiringSewerGuarantees(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context): Promise<plans.ExpiringRow[]> {
    return plans.expiringGuarantees(ctx.ds, viewerOf(ctx), districtId);
  }

  @Mutation(() => InspectionPlanType, { description: "The District Operator plans an inspection; the developer is not told (SUL 502 A)" })
  @Access("OPERATOR")
  async planExtensionInspection(@Arg("input", () => PlanInput) input: PlanInput, @Ctx() ctx: Context): Promise<PlanRow> {
    return plans.planInspection(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => InspectionPlanType, { description: "The District Operator moves a planned inspection to another day, with the reason; the developer is not told (SUL 502 A)" })
  @Access("OPERATOR")
  async moveExtensionInspectionPlan(@Arg("input", () => MovePlanInput) input: MovePlanInput, @Ctx() ctx: Context): Promise<PlanRow> {
    return plans.movePlan(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => InspectionPlanType, { description: "The District Operator cancels a planned inspection, with the reason; it stays on the record, marked cancelled (SUL 502 A)" })
  @Access("OPERATOR")
  async cancelExtensionInspectionPlan(@Arg("input", () => CancelPlanInput) input: CancelPlanInput, @Ctx() ctx: Context): Promise<PlanRow> {
    return plans.cancelPlan(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ClaimType, { description: "The District Operator records a claimed defect as remedied (SUL 507)" })
  @Access("OPERATOR")
  async recordGuaranteeClaimRemedied(@Arg("input", () => RemedyInput) input: RemedyInput, @Ctx() ctx: Context): Promise<ClaimType> {
    return plans.remedyClaim(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ChargeType, { description: "The ADMIN enters a charge the Town Board set by resolution; the developer's payment opens (SUL 502 A)" })
  @Access("ADMIN")
  async setSewerExtensionCharge(@Arg("input", () => ChargeInput) input: ChargeInput, @Ctx() ctx: Context): Promise<ChargeType> {
    return chargeView(await setCharge(ctx.ds, viewerOf(ctx), input, ctx.requestId));
  }

  @Mutation(() => InspectionType, { description: "The District Operator records an inspection and its findings, reported to the Town Board (SUL 502 A)" })
  @Access("OPERATOR")
  async recordExtensionInspection(@Arg("input", () => InspectionInput) input: InspectionInput, @Ctx() ctx: Context): Promise<InspectionType> {
    return acceptance.recordInspection(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ExtensionType, { description: "The District Operator approves the as-built drawings, with the copies filed (SUL 507)" })
  @Access("OPERATOR")
  async approveAsBuiltDrawings(@Arg("input", () => AsBuiltInput) input: AsBuiltInput, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return acceptance.approveAsBuilt(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ExtensionType, { description: "The District Operator's final approval and acceptance; the Town Board's concurrence follows (SUL 507)" })
  @Access("OPERATOR")
  async giveSewerExtensionFinalApproval(@Arg("extensionId", () => ID) extensionId: string, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return acceptance.finalApprove(ctx.ds, viewerOf(ctx), { extensionId }, ctx.requestId);
  }

  @Mutation(() => ExtensionType, { description: "The ADMIN enters the Town Board's concurrence with the guarantee's security; the sewer is the Town's (SUL 507)" })
  @Access("ADMIN")
  async recordTownBoardAcceptance(@Arg("input", () => AcceptanceInput) input: AcceptanceInput, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return acceptance.recordAcceptance(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ClaimType, { description: "The District Operator records a defect under the guarantee (SUL 507)" })
  @Access("OPERATOR")
  async recordGuaranteeClaim(@Arg("input", () => ClaimInput) input: ClaimInput, @Ctx() ctx: Context): Promise<ClaimType> {
    return acceptance.recordClaim(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }
}

/** The district's citation prefix, carried on the row by EXTENSION_COLUMNS. */
const lawPrefix = (e: ExtensionRow) => e.citationPrefix;


import { Arg, Ctx, Directive, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { registerDashboardProvider } from "../dashboard/dashboard.js";
import { District } from "../districts/district.entity.js";
import { Access } from "../graphql/access.js";
import { CACHE_PUBLIC } from "../graphql/cache.js";
import type { Context } from "../graphql/context.js";
import { microCached } from "../graphql/micro-cache.js";
import { OrganizationType } from "../organizations/organizations.resolver.js";
import * as contractors from "./contractors.service.js";

@ObjectType("ContractorBond", { description: "The bond a contractor files with the Town Clerk (SUL 508(1))" })
export class ContractorBondType {
  @Field(() => Int, { description: "Integer cents" }) amountCents: number;
  @Field(() => String, { description: "YYYY-MM-DD: the last day the bond is in force" }) expiresOn: string;
  @Field(() => ID) documentId: string;
  @Field(() => String) documentFilename: string;
  @Field(() => String, { description: "GET this path to download the bond (the firm's members and the district's Clerk, Operator and ADMINs)" }) downloadUrl: string;
}

@ObjectType("ContractorInsurance", { description: "A certificate of insurance on file (SUL 508(2))" })
export class ContractorInsuranceType {
  @Field(() => String, { description: `One of ${contractors.COVERAGES.join(", ")}` }) coverage: string;
  @Field(() => String, { description: "The coverage in words" }) label: string;
  @Field(() => String) insurer: string;
  @Field(() => String) policyNumber: string;
  @Field(() => Float, { nullable: true, description: "The policy's limit in integer cents; null when the certificate states none (workers' compensation)" })
  limitCents: number | null;
  @Field(() => String, { description: "YYYY-MM-DD: the last day the policy is in force" }) expiresOn: string;
  @Field(() => ID) certificateDocumentId: string;
  @Field(() => String) certificateFilename: string;
  @Field(() => String) downloadUrl: string;
}

@ObjectType("ContractorFinding", { description: "Where a filing falls short of the district's rulebook, with the section" })
export class ContractorFindingType {
  @Field(() => String, { description: '"bond" or the coverage' }) item: string;
  @Field(() => String) message: string;
  @Field(() => String, { description: 'e.g. "Sewer Use Law 508(1)"' }) section: string;
}

@ObjectType("ContractorStanding", { description: "Whether applicants may choose the contractor today, and if not why" })
export class ContractorStandingType {
  @Field(() => Boolean) choosable: boolean;
  @Field(() => [String]) reasons: string[];
}

@ObjectType("ContractorRenewal", { description: "A renewed bond and/or renewed certificates an approved contractor files (SUL 508); the filing on record stays in force until the Clerk accepts it" })
export class ContractorRenewalType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "PENDING, ACCEPTED or REJECTED" }) status: string;
  @Field(() => ContractorBondType, { nullable: true, description: "The renewed bond; null when only certificates are renewed" }) bond: ContractorBondType | null;
  @Field(() => [ContractorInsuranceType], { description: "The renewed certificates; each replaces the one on file for its coverage" }) insurance: ContractorInsuranceType[];
  @Field(() => [ContractorFindingType], { description: "Shortfalls of the filing as it would stand once accepted, against the rulebook in force today; acceptance needs none" })
  findings: ContractorFindingType[];
  @Field(() => String, { nullable: true }) decisionReason: string | null;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => Date) filedAt: Date;
}

@ObjectType("Contractor", { description: "A contracting firm's application to, and place on, a district's list of approved contractors (SUL 601 A, 508)" })
export class ContractorType {
  @Field(() => ID) id: string;
  organizationId: string;
  districtId: string;
  @Field(() => String, { description: "APPLIED, APPROVED, REJECTED or SUSPENDED" }) status: string;
  @Field(() => ContractorBondType) bond: ContractorBondType;
  @Field(() => [ContractorInsuranceType]) insurance: ContractorInsuranceType[];
  @Field(() => [ContractorFindingType], { description: "Shortfalls against the rulebook in force today; approval needs none" }) findings: ContractorFindingType[];
  @Field(() => ContractorStandingType) standing: ContractorStandingType;
  @Field(() => String, { description: "YYYY-MM-DD in the district's zone: the day findings and standing are worked out for" }) asOf: string;
  @Field(() => ID, { description: "The rulebook version the application, or the decision, was made under" }) rulebookVersionId: string;
  @Field(() => String, { nullable: true }) decisionReason: string | null;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => String, { nullable: true }) suspendedReason: string | null;
  @Field(() => ContractorRenewalType, { nullable: true, description: "The latest renewal filed while approved: waiting for the Clerk, or the last decided" })
  renewal: ContractorRenewalType | null;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date) updatedAt: Date;
}

@ObjectType("ApprovedContractor", { description: "A contractor on a district's public list: no private data" })
export class ApprovedContractorType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "The firm's name" }) name: string;
  @Field(() => String, { description: "YYYY-MM-DD in the district's zone" }) approvedSince: string;
}

@ObjectType("ContractorRequirement", { description: "One contractor rule of the district's rulebook in force today" })
@Directive(CACHE_PUBLIC)
export class ContractorRequirementType {
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String, { nullable: true }) note: string | null;
  @Field(() => Boolean, { description: "False when this district's law does not require it" }) required: boolean;
  @Field(() => Int, { nullable: true, description: "The minimum in integer cents, where the law sets one" }) minimumCents: number | null;
}

@ObjectType("ContractorCoverageRequirement")
@Directive(CACHE_PUBLIC)
export class ContractorCoverageRequirementType extends ContractorRequirementType {
  @Field(() => String) coverage: string;
}

@ObjectType("ContractorRequirements", { description: "What a district's law asks of approved contractors (SUL 601 A, 508), from its rulebook" })
@Directive(CACHE_PUBLIC)
export class ContractorRequirementsType {
  @Field(() => Boolean, { description: "False when the district keeps no list of approved contractors" }) approvedListEnabled: boolean;
  @Field(() => ContractorRequirementType) list: ContractorRequirementType;
  @Field(() => ContractorRequirementType) bond: ContractorRequirementType;
  @Field(() => [ContractorCoverageRequirementType]) coverages: ContractorCoverageRequirementType[];
  @Field(() => Int, { nullable: true }) cancellationNoticeBusinessDays: number | null;
  @Field(() => ContractorRequirementType) cancellationNotice: ContractorRequirementType;
  @Field(() => Int, { nullable: true, description: "Calendar days before an expiry that the firm is reminded" }) expiryReminderDays: number | null;
  @Field(() => Int) rulebookVersion: number;
}

@InputType()
export class ContractorInsuranceInput {
  @Field(() => String, { description: `One of ${contractors.COVERAGES.join(", ")}` }) coverage: string;
  @Field(() => String) insurer: string;
  @Field(() => String) policyNumber: string;
  @Field(() => Float, { nullable: true, description: "Integer cents; may be left out for workers' compensation" }) limitCents?: number | null;
  @Field(() => String, { description: "YYYY-MM-DD" }) expiresOn: string;
  @Field(() => ID, { description: "An uploaded document of mine or my firm's" }) certificateDocumentId: string;
}

@InputType()
export class ApplyAsContractorInput {
  @Field(() => ID, { description: "A contracting firm I own" }) organizationId: string;
  @Field(() => ID) districtId: string;
  @Field(() => Int, { description: "Integer cents" }) bondAmountCents: number;
  @Field(() => String, { description: "YYYY-MM-DD" }) bondExpiresOn: string;
  @Field(() => ID) bondDocumentId: string;
  @Field(() => [ContractorInsuranceInput]) insurance: ContractorInsuranceInput[];
}

@InputType()
export class DecideContractorInput {
  @Field(() => ID) contractorId: string;
  @Field(() => String, { description: "APPROVE or REJECT" }) decision: string;
  @Field(() => String, { nullable: true, description: "Required to reject; the firm reads it" }) reason?: string | null;
}

@InputType()
export class SuspendContractorInput {
  @Field(() => ID) contractorId: string;
  @Field(() => String) reason: string;
}

@InputType()
export class ReinstateContractorInput {
  @Field(() => ID) contractorId: string;
  @Field(() => String) reason: string;
}

@InputType()
export class RenewContractorInput {
  @Field(() => ID, { description: "An approved contractor of a firm I own" }) contractorId: string;
  @Field(() => Int, { nullable: true, description: "Integer cents; with bondExpiresOn and bondDocumentId to renew the bond, or all left out" }) bondAmountCents?: number | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) bondExpiresOn?: string | null;
  @Field(() => ID, { nullable: true }) bondDocumentId?: string | null;
  @Field(() => [ContractorInsuranceInput], { nullable: true, description: "Renewed certificates; each replaces the one on file for its coverage" })
  insurance?: ContractorInsuranceInput[] | null;
}

@InputType()
export class DecideContractorRenewalInput {
  @Field(() => ID) renewalId: string;
  @Field(() => String, { description: "ACCEPT or REJECT" }) decision: string;
  @Field(() => String, { nullable: true, description: "Required to reject; the firm reads it" }) reason?: string | null;
}

function presentRenewal(r: contractors.RenewalView | null): ContractorRenewalType | null {
  if (!r) return null;
  return {
    id: r.id,
    status: r.status,
    bond: r.bond && { ...r.bond, downloadUrl: `/documents/${r.bond.documentId}` },
    insurance: r.insurance.map((i) => ({ ...i, downloadUrl: `/documents/${i.certificateDocumentId}` })),
    findings: r.findings,
    decisionReason: r.decisionReason,
    decidedAt: r.decidedAt,
    filedAt: r.filedAt,
  };
}

function present(c: contractors.ContractorView): ContractorType {
  return {
    id: c.id,
    organizationId: c.organizationId,
    districtId: c.districtId,
    status: c.status,
    bond: {
      amountCents: c.bondAmountCents,
      expiresOn: c.bondExpiresOn,
      documentId: c.bondDocumentId,
      documentFilename: c.bondDocumentFilename,
      downloadUrl: `/documents/${c.bondDocumentId}`,
    },
    insurance: c.insurance.map((i) => ({ ...i, downloadUrl: `/documents/${i.certificateDocumentId}` })),
    findings: c.findings,
    standing: c.standing,
    asOf: c.today,
    rulebookVersionId: c.rulebookVersionId,
    decisionReason: c.decisionReason,
    decidedAt: c.decidedAt,
    suspendedReason: c.suspendedReason,
    renewal: presentRenewal(c.renewal),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

registerDashboardProvider((ds, viewer) => contractors.dashboardItems(ds, viewer));

@Resolver(() => ContractorType)
export class ContractorsResolver {
  @Access("PUBLIC")
  @Query(() => [ApprovedContractorType], { description: "A district's approved contractors whose bond and insurance are in force today (SUL 601 A)" })
  approvedContractors(@Arg("districtSlug", () => String) districtSlug: string, @Ctx() ctx: Context) {
    // The same for everyone and read by every lateral permit form (issue 20): kept as the hot lists
    // are (api/graphql/micro-cache.ts), dropped on every instance by any change a mutation makes; a
    // bond or certificate that lapses at midnight leaves the list within MICRO_CACHE_MS.
    return microCached(`approved-contractors:${districtSlug}`, () => contractors.publicContractorList(ctx.ds, districtSlug));
  }

  @Access("PUBLIC")
  @Query(() => ContractorRequirementsType, { description: "What a district's rulebook in force today asks of approved contractors" })
  contractorRequirements(@Arg("districtSlug", () => String) districtSlug: string, @Ctx() ctx: Context) {
    return contractors.contractorRequirements(ctx.ds, districtSlug);
  }

  @Access("SIGNED_IN")
  @Query(() => [ContractorType], { description: "The contractor applications of the firms I belong to, newest first" })
  async myContractorApplications(@Ctx() ctx: Context) {
    return (await contractors.myContractorApplications(ctx.ds, ctx.viewer!)).map(present);
  }

  @Access("SIGNED_IN")
  @Query(() => ContractorType, { description: "For the firm's members and the staff of its district (NOT_FOUND otherwise)" })
  async contractor(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return present(await contractors.getContractor(ctx.ds, ctx.viewer!, id));
  }

  @Access("CLERK", "OPERATOR", "ADMIN")
  @Query(() => [ContractorType], { description: "Staff: the district's contractors, oldest first, optionally of one status" })
  async districtContractors(
    @Arg("districtId", () => ID) districtId: string,
    @Arg("status", () => String, { nullable: true, description: "APPLIED, APPROVED, REJECTED or SUSPENDED" }) status: string | null,
    @Ctx() ctx: Context,
  ) {
    return (await contractors.districtContractors(ctx.ds, ctx.viewer!, districtId, status)).map(present);
  }

  @Access("SIGNED_IN")
  @Mutation(() => ContractorType, { description: "An owner of a contracting firm applies, or changes a pending or rejected application" })
  async applyAsContractor(@Arg("input", () => ApplyAsContractorInput) input: ApplyAsContractorInput, @Ctx() ctx: Context) {
    return present(await contractors.applyAsContractor(ctx.ds, ctx.viewer!, input, ctx.requestId));
  }

  @Access("CLERK")
  @Mutation(() => ContractorType, { description: "The Clerk of the district approves (only with no findings) or rejects (with a reason)" })
  async decideContractor(@Arg("input", () => DecideContractorInput) input: DecideContractorInput, @Ctx() ctx: Context) {
    return present(await contractors.decideContractor(ctx.ds, ctx.viewer!, input.contractorId, input, ctx.requestId));
  }

  @Access("CLERK", "OPERATOR")
  @Mutation(() => ContractorType, { description: "The Clerk or Operator of the district suspends an approved contractor, with a reason" })
  async suspendContractor(@Arg("input", () => SuspendContractorInput) input: SuspendContractorInput, @Ctx() ctx: Context) {
    return present(await contractors.suspendContractor(ctx.ds, ctx.viewer!, input.contractorId, input, ctx.requestId));
  }

  @Access("CLERK", "OPERATOR")
  @Mutation(() => ContractorType, { description: "The Clerk or Operator of the district reinstates a suspended contractor, with a reason" })
  async reinstateContractor(@Arg("input", () => ReinstateContractorInput) input: ReinstateContractorInput, @Ctx() ctx: Context) {
    return present(await contractors.reinstateContractor(ctx.ds, ctx.viewer!, input.contractorId, input, ctx.requestId));
  }

  @Access("SIGNED_IN")
  @Mutation(() => ContractorType, { description: "An owner of an approved contractor files a renewed bond and/or certificates; the filing on record stays in force until the Clerk accepts it" })
  async renewContractor(@Arg("input", () => RenewContractorInput) input: RenewContractorInput, @Ctx() ctx: Context) {
    return present(await contractors.renewContractor(ctx.ds, ctx.viewer!, input, ctx.requestId));
  }

  @Access("CLERK")
  @Mutation(() => ContractorType, { description: "The Clerk of the district accepts a renewal (only with no findings; its figures replace those on file) or rejects it (with a reason)" })
  async decideContractorRenewal(@Arg("input", () => DecideContractorRenewalInput) input: DecideContractorRenewalInput, @Ctx() ctx: Context) {
    return present(await contractors.decideContractorRenewal(ctx.ds, ctx.viewer!, input, ctx.requestId));
  }

  @FieldResolver(() => OrganizationType)
  async organization(@Root() c: ContractorType, @Ctx() ctx: Context) {
    return ctx.loaders.organization.load(c.organizationId);
  }

  @FieldResolver(() => District)
  async district(@Root() c: ContractorType, @Ctx() ctx: Context) {
    return ctx.loaders.district.load(c.districtId);
  }
}

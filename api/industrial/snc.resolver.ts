import { Arg, Ctx, Field, Float, ID, Int, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import { hasRole, isStaff } from "../accounts/viewer.js";
import { clock } from "../common/clock.js";
import { forbidden } from "../common/errors.js";
import { badPage, pageSize } from "../common/paging.js";
import { getDistrict } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { microCached } from "../graphql/micro-cache.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { SncCountsFields, SncFindingFields } from "./industrial.resolver.js";
import { publishedSncLists, publishSncList, sncDashboard, type DashboardPermit, type Publication, type PublishedList, type SncDashboard } from "./snc.service.js";

/** The district's significant non-compliance dashboard (SUL 201) and the published list (SUL 1122). */

@ObjectType("IndustrialSncDashboardParameter", { simpleResolvers: true })
class DashboardParameterType extends SncCountsFields {}

@ObjectType("IndustrialSncDashboardFinding", { simpleResolvers: true })
class DashboardFindingType extends SncFindingFields {}

@ObjectType("IndustrialSncDashboardPermit", { simpleResolvers: true })
class DashboardPermitType {
  @Field(() => ID, { description: "Its measurements: industrialPermitSnc(permitId, periodStart)" }) permitId: string;
  @Field(() => String) permitNumber: string;
  @Field(() => String, { nullable: true }) facilityName: string | null;
  @Field(() => String) organizationName: string;
  @Field(() => String) status: string;
  @Field(() => Boolean) inSnc: boolean;
  @Field(() => [String], { description: "Criteria met: CHRONIC, TRC, LATE_REPORT, MILESTONE" }) criteria: string[];
  @Field(() => [DashboardFindingType]) findings: DashboardPermit["findings"];
  @Field(() => [DashboardParameterType], { description: "Counts per parameter over the period" }) parameters: DashboardPermit["parameters"];
  @Field(() => Int, { description: "Reports due in the period" }) reportsDue: number;
}

@ObjectType("IndustrialSncPublication", { simpleResolvers: true })
class PublicationType {
  @Field(() => ID) id: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => String) publishedOn: string;
  @Field(() => Date) publishedAt: Date;
  @Field(() => String) publishedByName: string;
  @Field(() => String) section: string;
}

@ObjectType("IndustrialSncDashboard", { description: "Every permit in force in the district over one period, with its significant non-compliance (SUL 201)", simpleResolvers: true })
class DashboardType {
  @Field(() => ID) districtId: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => [String], { description: "Period starts that can be chosen, newest first" }) periods: string[];
  @Field(() => [DashboardPermitType], { description: "A page of the permits: in SNC first, then by permit number" }) permits: DashboardPermit[];
  @Field(() => String, { nullable: true, description: "Pass as `after` for the next page" }) nextCursor: string | null;
  @Field(() => Int, { description: "Permits in force in the period, all pages" }) totalPermits: number;
  @Field(() => Int, { description: "Of them, in significant non-compliance" }) inSncCount: number;
  @Field(() => [String], { description: "Criteria the portal does not judge, and why" }) notJudged: string[];
  @Field(() => PublicationType, { nullable: true, description: "The period's published list (SUL 1122), if published" }) publication: Publication | null;
  @Field(() => Boolean) publicationEnabled: boolean;
  @Field(() => String) publicationSection: string;
  @Field(() => Boolean, { description: "Whether the viewer may publish this period's list now" }) canPublish: boolean;
  @Field(() => String, { description: "The first day the period's list can be published (the day after it ends)" }) publishableFrom: string;
}

@ObjectType("PublicSncListing", { simpleResolvers: true })
class PublicListingType {
  @Field(() => String) organizationName: string;
  @Field(() => [String]) permitNumbers: string[];
  @Field(() => [String], { description: "Criteria met: CHRONIC, TRC, LATE_REPORT, MILESTONE" }) criteria: string[];
  @Field(() => [String], { description: "The findings as published" }) findings: string[];
}

@ObjectType("PublicSncList", { description: "A published list of users in significant non-compliance (SUL 1122)", simpleResolvers: true })
class PublicListType {
  @Field(() => ID) id: string;
  @Field(() => String) districtName: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => String) publishedOn: string;
  @Field(() => String) section: string;
  @Field(() => [PublicListingType]) listings: PublicListingType[];
}

@Resolver()
export class IndustrialSncResolver {
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => DashboardType, { description: "Staff: every permit of the district over a six-month period with its significant non-compliance (SUL 201); the current period by default" })
  async industrialSncDashboard(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("periodStart", () => String, { nullable: true, description: "First day of a period, YYYY-01-01 or YYYY-07-01" }) periodStart?: string,
    @Arg("first", () => Int, { nullable: true, description: "Permits per page, 25 by default, at most 200" }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ): Promise<SncDashboard & { nextCursor: string | null; totalPermits: number }> {
    // Authorization first, then the short-lived cache shared by the district's staff (cleared by any
    // mutation). The key holds what differs between them (whether they may publish) and the
    // rules' clock minute, so a new day (late reports) or a moved test clock never reads an old answer.
    if (!isUuid(districtId) || !isStaff(ctx.viewer, districtId)) throw forbidden("Only this district's staff see its significant non-compliance.");
    const publisher = hasRole(ctx.viewer, "OPERATOR", districtId) || hasRole(ctx.viewer, "ADMIN", districtId);
    const minute = Math.floor(clock.now().getTime() / 60_000);
    const size = pageSize(first, 25);
    const offset = after ? Number(after) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw badPage();
    // The whole period is judged (and cached) at once, so the order (in SNC first) and the counts
    // cover every permit; a page of it is returned.
    const all = await microCached(`snc-dashboard:${districtId}:${periodStart ?? ""}:${publisher}:${minute}`, () => sncDashboard(ctx.ds, ctx.viewer!, { districtId, periodStart }));
    const end = offset + size;
    return { ...all, permits: all.permits.slice(offset, end), nextCursor: end < all.permits.length ? String(end) : null, totalPermits: all.permits.length };
  }

  @Access("OPERATOR", "ADMIN")
  @Mutation(() => PublicationType, { description: "Operator or administrator: freeze and publish the list of users in significant non-compliance for a period that has ended (SUL 1122)" })
  publishSncList(@Arg("districtId", () => ID) districtId: string, @Arg("periodStart", () => String) periodStart: string, @Ctx() ctx: Context): Promise<Publication> {
    return publishSncList(ctx.ds, ctx.viewer!, { districtId, periodStart }, ctx.requestId, ctx.config.publicUrl);
  }

  @Access("PUBLIC")
  @Query(() => [PublicListType], { description: "Public: the published lists of users in significant non-compliance (SUL 1122), newest period first" })
  async publishedSncLists(@Ctx() ctx: Context, @Arg("districtSlug", () => String, { nullable: true }) districtSlug?: string): Promise<PublicListType[]> {
    const districtId = districtSlug ? (await getDistrict(ctx.ds, { slug: districtSlug })).id : null;
    const lists: PublishedList[] = await publishedSncLists(ctx.ds, districtId);
    return lists.map((l) => ({
      id: l.id,
      districtName: l.districtName,
      periodStart: l.periodStart,
      periodEnd: l.periodEnd,
      publishedOn: l.publishedOn,
      section: l.section,
      listings: l.listings.map((x) => ({ organizationName: x.organizationName, permitNumbers: x.permitNumbers, criteria: x.criteria, findings: x.findings.map((f) => `${f.permitNumber}: ${f.text} (${f.section})`) })),
    }));
  }
}

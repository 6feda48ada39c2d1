import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from "type-graphql";
import { hasRole } from "../accounts/viewer.js";
import { forbidden } from "../common/errors.js";
import { forgetHere } from "../common/invalidation.js";
import { Access } from "../graphql/access.js";
import { actorOf, type Context } from "../graphql/context.js";
import { District } from "./district.entity.js";
import * as districts from "./districts.service.js";
import { ChangeRulebookInput, RulebookType } from "./districts.types.js";
import { presentRulebook } from "./present.js";

@Resolver(() => District)
export class DistrictsResolver {
  @Access("PUBLIC")
  @Query(() => [District], { description: "Every district served here (public, SUL 1302-1303)" })
  districts(@Ctx() ctx: Context): Promise<District[]> {
    return districts.listDistricts(ctx.ds);
  }

  @Access("PUBLIC")
  @Query(() => District)
  district(@Arg("slug", () => String) slug: string, @Ctx() ctx: Context): Promise<District> {
    return districts.getDistrict(ctx.ds, { slug });
  }

  @FieldResolver(() => RulebookType, { description: "The rulebook in force on a date (YYYY-MM-DD; today in the district's zone by default)" })
  async rulebook(@Root() d: District, @Arg("on", () => String, { nullable: true }) on: string | null, @Ctx() ctx: Context): Promise<RulebookType> {
    return presentRulebook((await districts.rulebookOn(ctx.ds, d, on ?? undefined)).version);
  }

  @FieldResolver(() => [RulebookType], { description: "Every version, newest first" })
  async rulebookVersions(@Root() d: District, @Ctx() ctx: Context): Promise<RulebookType[]> {
    return (await districts.listRulebookVersions(ctx.ds, d.id)).map(presentRulebook);
  }

  @Access("ADMIN")
  @Mutation(() => RulebookType, { description: "ADMIN: change settings; makes a new rulebook version and an audit entry" })
  async changeRulebook(@Arg("input", () => ChangeRulebookInput) input: ChangeRulebookInput, @Ctx() ctx: Context): Promise<RulebookType> {
    if (!hasRole(ctx.viewer, "ADMIN", input.districtId)) throw forbidden("Only this district's ADMIN may change its rulebook.");
    const v = await districts.changeRulebook(ctx.ds, actorOf(ctx), input.districtId, input);
    // This instance drops its public answers and kept pages now (the others on the commit's NOTIFY).
    await forgetHere({ cache: "public" });
    return presentRulebook(v);
  }
}

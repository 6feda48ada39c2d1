import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, ObjectType, Query, Resolver, Root } from "type-graphql";
import { GraphQLJSON } from "graphql-scalars";
import { Max, Min } from "class-validator";
import { forbidden } from "../common/errors.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { listAudit } from "./audit.query.js";

@ObjectType("AuditEntry", { description: "Who did what, on which record, when and why" })
export class AuditEntryType {
  @Field(() => ID) id: string;
  @Field(() => Date) at: Date;
  @Field(() => ID, { nullable: true }) actorId: string | null;
  @Field(() => ID, { nullable: true }) districtId: string | null;
  @Field(() => String) action: string;
  @Field(() => String) entityType: string;
  @Field(() => String) entityId: string;
  @Field(() => String, { nullable: true }) reason: string | null;
  @Field(() => GraphQLJSON) details: Record<string, unknown>;
  @Field(() => String, { nullable: true }) requestId: string | null;
}

@ObjectType()
export class AuditPage {
  @Field(() => [AuditEntryType]) entries: AuditEntryType[];
  @Field(() => String, { nullable: true, description: "Pass as `before` for the next page" }) nextCursor: string | null;
}

@InputType()
export class AuditFilter {
  @Field(() => ID) districtId: string;
  @Field(() => String, { nullable: true }) action?: string;
  @Field(() => String, { nullable: true }) entityType?: string;
  @Field(() => String, { nullable: true }) entityId?: string;
  @Field(() => ID, { nullable: true }) actorId?: string;
  @Field(() => String, { nullable: true }) before?: string;
  @Field(() => Int, { nullable: true }) @Min(1) @Max(200) first?: number;
}

@Resolver(() => AuditEntryType)
export class AuditResolver {
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => AuditPage, { description: "Staff: the district's audit log, newest first, filtered" })
  async auditLog(@Arg("filter", () => AuditFilter) filter: AuditFilter, @Ctx() ctx: Context): Promise<AuditPage> {
    if (!ctx.viewer!.staffRoles.some((r) => r.districtId === filter.districtId)) throw forbidden("You are not staff of that district.");
    return listAudit(ctx.ds, filter);
  }

  @FieldResolver(() => String, { nullable: true, description: "The actor's name (null for the system)" })
  async actorName(@Root() e: AuditEntryType, @Ctx() ctx: Context): Promise<string | null> {
    if (!e.actorId) return null;
    return (await ctx.loaders.user.load(e.actorId))?.displayName ?? null;
  }
}

import { Arg, Ctx, Field, ID, Int, ObjectType, Query, Resolver } from "type-graphql";
import { forbidden } from "../common/errors.js";
import { pageSize } from "../common/paging.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { OutboxEmail } from "./outbox-email.entity.js";
import { visibleBody } from "./outbox.service.js";

@ObjectType("Email", { description: "An email as the outbox holds it" })
export class OutboxEmailType {
  @Field(() => ID) id: string;
  @Field(() => String) toAddress: string;
  @Field(() => String) subject: string;
  @Field(() => String) bodyText: string;
  @Field(() => String) kind: string;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date, { nullable: true }) sentAt: Date | null;
}

@Resolver()
export class OutboxResolver {
  @Access("SIGNED_IN")
  @Query(() => [OutboxEmailType], { description: "Emails sent to me, newest first (read here when the district has no mail server)" })
  async myEmails(@Ctx() ctx: Context, @Arg("first", () => Int, { nullable: true }) first?: number): Promise<OutboxEmail[]> {
    const rows = await ctx.ds.getRepository(OutboxEmail).find({
      where: { recipientId: ctx.viewer!.userId },
      order: { createdAt: "DESC" },
      take: pageSize(first, 20, 100),
    });
    return rows.map((e) => ({ ...e, bodyText: visibleBody(e, "recipient", !!ctx.config.smtp) }));
  }

  @Access("CLERK", "ADMIN")
  @Query(() => [OutboxEmailType], { description: "Staff: the district's outgoing email" })
  async districtOutbox(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context, @Arg("first", () => Int, { nullable: true }) first?: number): Promise<OutboxEmail[]> {
    if (!ctx.viewer!.staffRoles.some((r) => r.districtId === districtId && (r.role === "CLERK" || r.role === "ADMIN")))
      throw forbidden("You are not the Clerk or an ADMIN of that district.");
    const rows = await ctx.ds.getRepository(OutboxEmail).find({ where: { districtId }, order: { createdAt: "DESC" }, take: pageSize(first) });
    return rows.map((e) => ({ ...e, bodyText: visibleBody(e, "staff", !!ctx.config.smtp) }));
  }
}

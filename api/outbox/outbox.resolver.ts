import { Arg, Ctx, Field, ID, Int, ObjectType, Query, Resolver } from "type-graphql";
import { forbidden } from "../common/errors.js";
import { portalTimeZone } from "../common/format.js";
import { District } from "../districts/district.entity.js";
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
  @Field(() => String, { description: "The clock its times are shown on: its district's zone, or the portal's for an email of no district (docs/decisions/portal-clock.md)" })
  timeZone: string;
}

/** Each email with the clock it is read on: one query for the districts' zones (a handful of rows), none per email. */
async function withClock(ctx: Context, rows: OutboxEmail[], body: (e: OutboxEmail) => string): Promise<OutboxEmailType[]> {
  const districts = await ctx.ds.getRepository(District).find({ select: { id: true, timeZone: true } });
  const zones = new Map(districts.map((d) => [d.id, d.timeZone]));
  const portal = portalTimeZone(districts.map((d) => d.timeZone));
  return rows.map((e) => ({ ...e, bodyText: body(e), timeZone: (e.districtId && zones.get(e.districtId)) || portal }));
}

@Resolver()
export class OutboxResolver {
  @Access("SIGNED_IN")
  @Query(() => [OutboxEmailType], { description: "Emails sent to me, newest first (read here when the district has no mail server)" })
  async myEmails(@Ctx() ctx: Context, @Arg("first", () => Int, { nullable: true }) first?: number): Promise<OutboxEmailType[]> {
    const rows = await ctx.ds.getRepository(OutboxEmail).find({
      where: { recipientId: ctx.viewer!.userId },
      order: { createdAt: "DESC" },
      take: pageSize(first, 20, 100),
    });
    return withClock(ctx, rows, (e) => visibleBody(e, "recipient", !!ctx.config.smtp));
  }

  @Access("CLERK", "ADMIN")
  @Query(() => [OutboxEmailType], { description: "Staff: the district's outgoing email" })
  async districtOutbox(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context, @Arg("first", () => Int, { nullable: true }) first?: number): Promise<OutboxEmailType[]> {
    if (!ctx.viewer!.staffRoles.some((r) => r.districtId === districtId && (r.role === "CLERK" || r.role === "ADMIN")))
      throw forbidden("You are not the Clerk or an ADMIN of that district.");
    const rows = await ctx.ds.getRepository(OutboxEmail).find({ where: { districtId }, order: { createdAt: "DESC" }, take: pageSize(first) });
    return withClock(ctx, rows, (e) => visibleBody(e, "staff", !!ctx.config.smtp));
  }
}

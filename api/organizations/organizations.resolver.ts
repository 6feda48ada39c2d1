import { Arg, Ctx, Field, FieldResolver, ID, InputType, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import * as orgs from "./organizations.service.js";
import type { MembershipRole, OrganizationKind } from "./organization.entity.js";

@ObjectType("Organization", { description: "A hauling company, an industrial user or a contracting firm", simpleResolvers: true })
export class OrganizationType {
  @Field(() => ID) id: string;
  @Field(() => String) name: string;
  @Field(() => String, { description: "HAULER, INDUSTRIAL_USER, CONTRACTOR or DEVELOPER (builds new sewers, SUL Article 5)" }) kind: string;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("Member")
export class MemberType {
  @Field(() => ID) userId: string;
  @Field(() => String) displayName: string;
  @Field(() => String) email: string;
  @Field(() => String, { description: "OWNER, AUTHORIZED_REPRESENTATIVE (signs reports, SUL 201) or MEMBER" }) role: string;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("Invitation")
export class InvitationType {
  @Field(() => ID) id: string;
  @Field(() => String) email: string;
  @Field(() => String) role: string;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date) expiresAt: Date;
  @Field(() => Date, { nullable: true }) acceptedAt: Date | null;
}

@ObjectType({ simpleResolvers: true })
export class MyOrganization {
  @Field(() => OrganizationType) organization: OrganizationType;
  @Field(() => String, { description: "My role in it" }) role: string;
}

@InputType()
export class CreateOrganizationInput {
  @Field(() => String) name: string;
  @Field(() => String, { description: "HAULER, INDUSTRIAL_USER, CONTRACTOR or DEVELOPER (builds new sewers, SUL Article 5)" }) kind: string;
}

@InputType()
export class InviteMemberInput {
  @Field(() => ID) organizationId: string;
  @Field(() => String) email: string;
  @Field(() => String, { description: "OWNER, AUTHORIZED_REPRESENTATIVE or MEMBER" }) role: string;
}

@Resolver(() => OrganizationType)
export class OrganizationsResolver {
  @Access("SIGNED_IN")
  @Query(() => [MyOrganization])
  myOrganizations(@Ctx() ctx: Context) {
    return orgs.myMemberships(ctx.ds, ctx.viewer!);
  }

  @Access("SIGNED_IN")
  @Query(() => OrganizationType, { description: "An organization I belong to" })
  async organization(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    await orgs.requireMember(ctx.ds, ctx.viewer!, id);
    return ctx.loaders.organization.load(id);
  }

  @FieldResolver(() => [MemberType], { description: "Members only" })
  async members(@Root() o: OrganizationType, @Ctx() ctx: Context): Promise<MemberType[]> {
    await orgs.requireMember(ctx.ds, ctx.viewer!, o.id);
    const members = await orgs.listMembers(ctx.ds, o.id);
    const users = await ctx.loaders.user.loadMany(members.map((m) => m.userId));
    return members.map((m, i) => {
      const u = users[i] as { displayName: string; email: string } | null;
      return { userId: m.userId, role: m.role, createdAt: m.createdAt, displayName: u?.displayName ?? "", email: u?.email ?? "" };
    });
  }

  @FieldResolver(() => [InvitationType], { description: "Owners only" })
  async invitations(@Root() o: OrganizationType, @Ctx() ctx: Context) {
    await orgs.requireMember(ctx.ds, ctx.viewer!, o.id, true);
    return orgs.listInvitations(ctx.ds, o.id);
  }

  @Access("SIGNED_IN")
  @Mutation(() => OrganizationType, { description: "Creates an organization with me as its owner" })
  createOrganization(@Arg("input", () => CreateOrganizationInput) input: CreateOrganizationInput, @Ctx() ctx: Context) {
    return orgs.createOrganization(ctx.ds, ctx.viewer!, { name: input.name, kind: input.kind as OrganizationKind }, ctx.requestId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => InvitationType, { description: "Owners invite people by email" })
  inviteMember(@Arg("input", () => InviteMemberInput) input: InviteMemberInput, @Ctx() ctx: Context) {
    return orgs.inviteMember(ctx.ds, ctx.viewer!, { ...input, role: input.role as MembershipRole }, { requestId: ctx.requestId, publicUrl: ctx.config.publicUrl });
  }

  @Access("SIGNED_IN")
  @Mutation(() => OrganizationType)
  acceptInvitation(@Arg("token", () => String) token: string, @Ctx() ctx: Context) {
    return orgs.acceptInvitation(ctx.ds, ctx.viewer!, token, ctx.requestId);
  }
}

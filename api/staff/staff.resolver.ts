import { Arg, Ctx, Field, ID, InputType, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import type { StaffRoleName } from "../accounts/user.entity.js";
import { Ok } from "../accounts/accounts.types.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import * as staff from "./staff.service.js";

@ObjectType("StaffMember", { description: "A person holding staff roles in a district" })
export class StaffMemberType {
  @Field(() => ID) userId: string;
  @Field(() => String) email: string;
  @Field(() => String) displayName: string;
  @Field(() => [String]) roles: string[];
}

@InputType()
export class GrantStaffRoleInput {
  @Field(() => ID) districtId: string;
  @Field(() => String) email: string;
  @Field(() => String, { description: "CLERK, OPERATOR, BOARD or ADMIN" }) role: string;
  @Field(() => String) reason: string;
}

@InputType()
export class RevokeStaffRoleInput {
  @Field(() => ID) districtId: string;
  @Field(() => ID) userId: string;
  @Field(() => String) role: string;
  @Field(() => String) reason: string;
}

@Resolver()
export class StaffResolver {
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => [StaffMemberType], { description: "Staff: the district's staff and their roles" })
  districtStaff(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return staff.listStaff(ctx.ds, ctx.viewer!, districtId);
  }

  @Access("ADMIN")
  @Mutation(() => Ok, { description: "ADMIN: give a staff role in the district to an existing account" })
  async grantStaffRole(@Arg("input", () => GrantStaffRoleInput) input: GrantStaffRoleInput, @Ctx() ctx: Context): Promise<Ok> {
    await staff.grantStaffRole(ctx.ds, ctx.viewer!, { ...input, role: input.role as StaffRoleName }, ctx.requestId);
    return { ok: true, message: `${input.email} now holds the ${input.role} role.` };
  }

  @Access("ADMIN")
  @Mutation(() => Ok, { description: "ADMIN: remove a staff role" })
  async revokeStaffRole(@Arg("input", () => RevokeStaffRoleInput) input: RevokeStaffRoleInput, @Ctx() ctx: Context): Promise<Ok> {
    await staff.revokeStaffRole(ctx.ds, ctx.viewer!, { ...input, role: input.role as StaffRoleName }, ctx.requestId);
    return { ok: true, message: `The ${input.role} role is removed.` };
  }
}

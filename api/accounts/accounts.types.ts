import { Field, ID, InputType, ObjectType } from "type-graphql";
import { District } from "../districts/district.entity.js";

@ObjectType({ description: "A staff role held in one district" })
export class StaffRoleGrant {
  @Field(() => String) role: string;
  @Field(() => ID) districtId: string;
  district?: District;
}

@ObjectType({ description: "The signed-in person" })
export class Me {
  @Field(() => ID) id: string;
  @Field(() => String) email: string;
  @Field(() => String) displayName: string;
  @Field(() => Boolean) emailVerified: boolean;
  @Field(() => Boolean, { description: "A demo account (demo mode only)" }) demo: boolean;
  @Field(() => [StaffRoleGrant]) staffRoles: StaffRoleGrant[];
}

@ObjectType("Session")
export class SessionInfo {
  @Field(() => ID) id: string;
  @Field(() => String, { nullable: true }) ip: string | null;
  @Field(() => String, { nullable: true }) userAgent: string | null;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date) lastSeenAt: Date;
  @Field(() => Date) expiresAt: Date;
  @Field(() => Date, { nullable: true }) revokedAt: Date | null;
  @Field(() => Boolean, { description: "The session this request came with" }) current: boolean;
  @Field(() => Boolean) active: boolean;
}

@ObjectType("ApiToken")
export class ApiTokenInfo {
  @Field(() => ID) id: string;
  @Field(() => String) name: string;
  @Field(() => String, { description: "The first characters, to recognise it" }) tokenPrefix: string;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt: Date | null;
}

@ObjectType()
export class CreatedApiToken {
  @Field(() => String, { description: "Shown once: send it as `Authorization: Bearer <token>`" }) token: string;
  @Field(() => ApiTokenInfo) apiToken: ApiTokenInfo;
}

@ObjectType({ description: "Who signed in. The session itself is only in the httpOnly cookie, never in a reply: API clients use personal API tokens." })
export class AuthPayload {
  @Field(() => Me) me: Me;
}

@ObjectType()
export class Ok {
  @Field(() => Boolean) ok: boolean;
  @Field(() => String, { nullable: true }) message?: string;
}

// The account inputs are checked in the service, every field at once (a person sees every problem
// in one go, named by the form's labels); validators here would answer first, one field at a time.
@InputType()
export class SignUpInput {
  @Field(() => String) email: string;
  @Field(() => String, { description: "12 to 200 characters, not the email's name" }) password: string;
  @Field(() => String, { description: "1 to 100 characters" }) displayName: string;
}

@InputType()
export class SignInInput {
  @Field(() => String) email: string;
  @Field(() => String) password: string;
}

@InputType()
export class ChangePasswordInput {
  @Field(() => String) currentPassword: string;
  @Field(() => String, { description: "Checked like sign-up's: 12 to 200 characters, not the email's name" }) newPassword: string;
}

@InputType()
export class ResetPasswordInput {
  @Field(() => String) token: string;
  @Field(() => String) password: string;
}

@ObjectType({ description: "A demo account (demo mode only)" })
export class DemoAccount {
  @Field(() => String) email: string;
  @Field(() => String) displayName: string;
  @Field(() => String) role: string;
  @Field(() => String, { nullable: true }) district: string | null;
  @Field(() => String) password: string;
}

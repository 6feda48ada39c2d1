import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from "type-graphql";
import { District } from "../districts/district.entity.js";
import { Access } from "../graphql/access.js";
import { actorOf, metaOf, type Context } from "../graphql/context.js";
import * as accounts from "./accounts.service.js";
import {
  ApiTokenInfo,
  AuthPayload,
  ChangePasswordInput,
  CreatedApiToken,
  Me,
  Ok,
  ResetPasswordInput,
  SessionInfo,
  SignInInput,
  SignUpInput,
  StaffRoleGrant,
} from "./accounts.types.js";
import type { Viewer } from "./viewer.js";
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from "../db/demo.js";
import { DemoAccount } from "./accounts.types.js";

export function toMe(v: Viewer): Me {
  return {
    id: v.userId,
    email: v.email,
    displayName: v.displayName,
    emailVerified: v.emailVerified,
    demo: v.demo,
    staffRoles: v.staffRoles.map((r) => ({ role: r.role, districtId: r.districtId })),
  };
}

@Resolver(() => StaffRoleGrant)
export class StaffRoleGrantResolver {
  @FieldResolver(() => District)
  async district(@Root() g: StaffRoleGrant, @Ctx() ctx: Context): Promise<District> {
    return (await ctx.loaders.district.load(g.districtId))!;
  }
}

@Resolver()
export class AccountsResolver {
  @Access("SIGNED_IN")
  @Query(() => Me, { description: "The signed-in person" })
  me(@Ctx() ctx: Context): Me {
    return toMe(ctx.viewer!);
  }

  @Access("PUBLIC")
  @Query(() => Me, { nullable: true, description: "The signed-in person, or null when signed out" })
  viewer(@Ctx() ctx: Context): Me | null {
    return ctx.viewer ? toMe(ctx.viewer) : null;
  }

  @Access("PUBLIC")
  @Query(() => [DemoAccount], { description: "The demo accounts, listed on the sign-in page; empty unless the server runs in demo mode" })
  demoAccounts(@Ctx() ctx: Context): DemoAccount[] {
    if (!ctx.config.demo) return [];
    return DEMO_ACCOUNTS.map((a) => ({ email: a.email, displayName: a.displayName, role: a.role, district: a.district ?? null, password: DEMO_PASSWORD }));
  }

  @Access("PUBLIC")
  @Mutation(() => Ok, {
    description:
      "Creates an account (role APPLICANT) and emails a link to confirm the address; signs no one in (sign in next). " +
      "Answers the same way when the address already has an account, whose owner is emailed instead.",
  })
  async signUp(@Arg("input", () => SignUpInput) input: SignUpInput, @Ctx() ctx: Context): Promise<Ok> {
    const { email } = await accounts.signUp(ctx.ds, input, metaOf(ctx));
    return { ok: true, message: accounts.signUpAnswer(email) };
  }

  @Access("PUBLIC")
  @Mutation(() => AuthPayload, { description: "Signs in: the session is set as an httpOnly cookie (API clients use personal API tokens)" })
  async signIn(@Arg("input", () => SignInInput) input: SignInInput, @Ctx() ctx: Context): Promise<AuthPayload> {
    const { sessionToken } = await accounts.signIn(ctx.ds, input, metaOf(ctx), ctx.sessionToken);
    ctx.setSessionCookie(sessionToken);
    const { viewer } = await accounts.viewerFromSession(ctx.ds, sessionToken);
    return { me: toMe(viewer!) };
  }

  @Access("SIGNED_IN")
  @Mutation(() => Ok, {
    description:
      "Changes the password: the current one is required (a wrong one counts as a failed sign-in); every other session is signed out, " +
      "this one is replaced by a new one, and the owner is emailed",
  })
  async changePassword(@Arg("input", () => ChangePasswordInput) input: ChangePasswordInput, @Ctx() ctx: Context): Promise<Ok> {
    const { sessionToken, otherSessionsEnded: n } = await accounts.changePassword(ctx.ds, ctx.viewer!, input, metaOf(ctx));
    if (sessionToken) ctx.setSessionCookie(sessionToken);
    return {
      ok: true,
      message: `Your password is changed. ${n ? `${n} other session${n === 1 ? " was" : "s were"} signed out.` : "You were not signed in anywhere else."}`,
    };
  }

  @Access("SIGNED_IN")
  @Mutation(() => Ok, { description: "Ends this session" })
  async signOut(@Ctx() ctx: Context): Promise<Ok> {
    await accounts.signOut(ctx.ds, ctx.viewer!, ctx);
    ctx.setSessionCookie(null);
    return { ok: true, message: "You are signed out." };
  }

  @Access("SIGNED_IN")
  @Mutation(() => Ok, { description: "Ends every session of this account, on every device" })
  async signOutEverywhere(@Ctx() ctx: Context): Promise<Ok> {
    const n = await accounts.signOutEverywhere(ctx.ds, ctx.viewer!, ctx);
    ctx.setSessionCookie(null);
    return { ok: true, message: `Signed out of ${n} session${n === 1 ? "" : "s"}.` };
  }

  @Access("PUBLIC")
  @Mutation(() => Ok, { description: "Emails a one-time link (if the address has an account)" })
  async requestPasswordReset(@Arg("email", () => String) email: string, @Ctx() ctx: Context): Promise<Ok> {
    await accounts.requestPasswordReset(ctx.ds, email, metaOf(ctx));
    return { ok: true, message: "If an account uses that address, we have emailed it a link to reset the password. The link works for one hour." };
  }

  @Access("PUBLIC")
  @Mutation(() => Ok)
  async resetPassword(@Arg("input", () => ResetPasswordInput) input: ResetPasswordInput, @Ctx() ctx: Context): Promise<Ok> {
    await accounts.resetPassword(ctx.ds, input.token, input.password, metaOf(ctx));
    return { ok: true, message: "Your password is changed. Sign in with the new one; every other session was signed out." };
  }

  @Access("PUBLIC")
  @Mutation(() => Ok)
  async verifyEmail(@Arg("token", () => String) token: string, @Ctx() ctx: Context): Promise<Ok> {
    await accounts.verifyEmail(ctx.ds, token, metaOf(ctx));
    return { ok: true, message: "Your email address is confirmed." };
  }

  @Access("SIGNED_IN")
  @Mutation(() => Ok)
  async resendVerificationEmail(@Ctx() ctx: Context): Promise<Ok> {
    await accounts.resendVerification(ctx.ds, ctx.viewer!, metaOf(ctx));
    return { ok: true, message: `We sent a new confirmation link to ${ctx.viewer!.email}.` };
  }

  @Access("SIGNED_IN")
  @Query(() => [SessionInfo])
  async mySessions(@Ctx() ctx: Context): Promise<SessionInfo[]> {
    const now = Date.now();
    return (await accounts.listSessions(ctx.ds, ctx.viewer!)).map((s) => ({
      ...s,
      current: s.id === ctx.viewer!.sessionId,
      active: !s.revokedAt && s.expiresAt.getTime() > now && now - s.lastSeenAt.getTime() <= accounts.SESSION_IDLE_MS,
    }));
  }

  @Access("SIGNED_IN")
  @Mutation(() => Ok)
  async revokeSession(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<Ok> {
    await accounts.revokeSession(ctx.ds, ctx.viewer!, id, actorOf(ctx));
    if (id === ctx.viewer!.sessionId) ctx.setSessionCookie(null);
    return { ok: true, message: "That session is signed out." };
  }

  @Access("SIGNED_IN")
  @Query(() => [ApiTokenInfo])
  myApiTokens(@Ctx() ctx: Context): Promise<ApiTokenInfo[]> {
    return accounts.listApiTokens(ctx.ds, ctx.viewer!);
  }

  @Access("SIGNED_IN")
  @Mutation(() => CreatedApiToken, { description: "A personal API token, sent as a bearer token; shown once" })
  createApiToken(@Arg("name", () => String) name: string, @Ctx() ctx: Context): Promise<CreatedApiToken> {
    return accounts.createApiToken(ctx.ds, ctx.viewer!, name, actorOf(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => Ok)
  async revokeApiToken(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<Ok> {
    await accounts.revokeApiToken(ctx.ds, ctx.viewer!, id, actorOf(ctx));
    return { ok: true, message: "The token is revoked; clients using it are refused from now on." };
  }
}

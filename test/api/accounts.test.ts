import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const ME = `{ me { id email displayName emailVerified staffRoles { role districtId } } }`;

async function lastEmailTo(address: string): Promise<{ subject: string; body_text: string }> {
  const rows = await srv.running.ds.query(`SELECT subject, body_text FROM outbox_email WHERE to_address = $1 ORDER BY created_at DESC LIMIT 1`, [address]);
  if (!rows[0]) throw new Error(`no email to ${address}`);
  return rows[0];
}
/** Reset links are emailed by a job after the answer (the request does the same work for any address). */
const runJobs = () => runDueJobs(srv.running.ds, pino({ level: "silent" }), 50);
const tokenIn = (body: string) => /token=([A-Za-z0-9_-]+)/.exec(body)![1];
const auditCount = async (action: string) => (await srv.running.ds.query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = $1`, [action]))[0].n;

describe("sign up, sign in, sign out", () => {
  it("signs up an APPLICANT without signing in; signing in sets an httpOnly SameSite=Lax session cookie; both audited", async () => {
    const c = new Client(srv.url);
    const res = await c.raw({ query: `mutation($i: SignUpInput!) { signUp(input: $i) { ok message } }`, variables: { i: { email: "  Pat@Example.ORG ", displayName: "Pat", password: "correct horse battery staple" } } });
    const body: any = await res.json();
    expect(body.data.signUp).toEqual({ ok: true, message: expect.stringContaining("pat@example.org") });
    expect(res.headers.getSetCookie().filter((x) => x.startsWith("tapline_session="))).toEqual([]);
    expect(errorCode(await c.gql(ME))).toBe("UNAUTHENTICATED");
    const signIn = await c.raw({ query: `mutation($i: SignInInput!) { signIn(input: $i) { me { email displayName staffRoles { role } } } }`, variables: { i: { email: "PAT@example.org", password: "correct horse battery staple" } } });
    expect(((await signIn.json()) as any).data.signIn.me).toEqual({ email: "pat@example.org", displayName: "Pat", staffRoles: [] });
    const cookie = signIn.headers.getSetCookie().find((x) => x.startsWith("tapline_session="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect((await c.ok(ME)).me.email).toBe("pat@example.org");
    expect(await auditCount("account.signed_up")).toBeGreaterThan(0);
    expect(await auditCount("account.signed_in")).toBeGreaterThan(0);
  });

  it("answers a sign-up for an address that has an account as for a new one, emailing its owner instead; refuses a weak password per field", async () => {
    const c = new Client(srv.url);
    await c.signUp("dup@example.org");
    const again = await new Client(srv.url).gql(`mutation($i: SignUpInput!) { signUp(input: $i) { ok message } }`, { i: { email: "DUP@example.org", displayName: "X", password: "another long password" } });
    expect(again.errors).toBeUndefined();
    expect(again.data.signUp.message).toMatch(/dup@example\.org/);
    expect((await lastEmailTo("dup@example.org")).subject).toMatch(/Someone tried to create a Tapline account with your address/);
    expect((await c.ok(ME)).me.displayName).toBe("Pat Resident"); // nothing changed
    const weak = await new Client(srv.url).gql(`mutation($i: SignUpInput!) { signUp(input: $i) { ok } }`, { i: { email: "weak@example.org", displayName: "X", password: "short" } });
    expect(errorCode(weak)).toBe("BAD_USER_INPUT");
    expect(weak.errors![0].extensions!.fields!.password).toBeTruthy();
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM app_user WHERE email = 'weak@example.org'`);
    expect(n).toBe(0);
  });

  it("reports every problem of a sign-up, a sign-in and a password change at once (issue 19)", async () => {
    const fieldsOf = async (c: Client, q: string, i: Record<string, string>) => {
      const r = await c.gql(q, { i });
      expect(errorCode(r)).toBe("BAD_USER_INPUT");
      return r.errors![0].extensions!.fields as Record<string, string>;
    };
    const signUp = `mutation($i: SignUpInput!) { signUp(input: $i) { ok } }`;
    // Nothing given: every field at once, not the password first and the email after.
    expect(Object.keys(await fieldsOf(new Client(srv.url), signUp, { email: "", displayName: "", password: "" })).sort()).toEqual(["displayName", "email", "password"]);
    // Too long everywhere: still one round, and no message names a field's key.
    const long = await fieldsOf(new Client(srv.url), signUp, { email: `${"x".repeat(300)}@example.org`, displayName: "x".repeat(101), password: "x".repeat(201) });
    expect(Object.keys(long).sort()).toEqual(["displayName", "email", "password"]);
    for (const m of Object.values(long)) expect(m).not.toMatch(/displayName|email must|password must/);
    const signIn = `mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`;
    expect(Object.keys(await fieldsOf(new Client(srv.url), signIn, { email: "", password: "" })).sort()).toEqual(["email", "password"]);
    const c = new Client(srv.url);
    await c.signUp("rounds@example.org");
    const change = `mutation($i: ChangePasswordInput!) { changePassword(input: $i) { ok } }`;
    const both = await fieldsOf(c, change, { currentPassword: "x".repeat(201), newPassword: "short" });
    expect(Object.keys(both).sort()).toEqual(["currentPassword", "newPassword"]);
    for (const m of Object.values(both)) expect(m).not.toMatch(/currentPassword|newPassword/);
  });

  it("signs in with the right password only, rotating the session", async () => {
    const c = new Client(srv.url);
    await c.signUp("rotate@example.org");
    const before = c.cookies.get("tapline_session");
    const bad = await new Client(srv.url).gql(`mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, { i: { email: "rotate@example.org", password: "wrong password here" } });
    expect(errorCode(bad)).toBe("UNAUTHENTICATED");
    await c.signIn("rotate@example.org", "correct horse battery staple");
    expect(c.cookies.get("tapline_session")).not.toBe(before);
    const old = new Client(srv.url);
    old.cookies.set("tapline_session", before!);
    expect(errorCode(await old.gql(ME))).toBe("UNAUTHENTICATED");
  });

  it("rate-limits failed sign-ins per account before hashing, even with the right password afterwards", async () => {
    const c = new Client(srv.url);
    await c.signUp("limited@example.org");
    for (let i = 0; i < 5; i++) await new Client(srv.url).gql(`mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, { i: { email: "limited@example.org", password: `wrong-${i}-password` } });
    const r = await new Client(srv.url).gql(`mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, { i: { email: "limited@example.org", password: "correct horse battery staple" } });
    expect(errorCode(r)).toBe("TOO_MANY_REQUESTS");
  });

  it("keeps the rate limits' attempts 30 days, then the daily job deletes them (31 days old gone, 29 kept)", async () => {
    const ds = srv.running.ds;
    const at = (days: number) => `now() - interval '${days} days'`;
    await ds.query(`INSERT INTO sign_in_attempt (email, ip, succeeded, created_at) VALUES ('old@example.org', '192.0.2.1', false, ${at(31)}), ('kept@example.org', '192.0.2.1', false, ${at(29)})`);
    await ds.query(`INSERT INTO sign_up_attempt (ip, created_at) VALUES ('192.0.2.1', ${at(31)}), ('192.0.2.2', ${at(29)})`);
    await ds.query(`INSERT INTO account_lookup_attempt (purpose, account_number, ip, created_at) VALUES ('QUICK_PAY', 'OLD-1', '192.0.2.1', ${at(31)}), ('QUICK_PAY', 'KEPT-1', '192.0.2.1', ${at(29)})`);
    await enqueueJob(ds, { name: "accounts.prune-attempts" });
    await runJobs();
    expect(await ds.query(`SELECT email FROM sign_in_attempt WHERE email IN ('old@example.org', 'kept@example.org')`)).toEqual([{ email: "kept@example.org" }]);
    expect(await ds.query(`SELECT ip FROM sign_up_attempt WHERE ip IN ('192.0.2.1', '192.0.2.2')`)).toEqual([{ ip: "192.0.2.2" }]);
    expect(await ds.query(`SELECT account_number FROM account_lookup_attempt`)).toEqual([{ account_number: "KEPT-1" }]);
  });

  it("signs out this session, and signs out everywhere", async () => {
    const a = new Client(srv.url);
    await a.signUp("everywhere@example.org");
    const b = new Client(srv.url);
    await b.signIn("everywhere@example.org", "correct horse battery staple");
    const sessions = await a.ok(`{ mySessions { id current active } }`);
    expect(sessions.mySessions.filter((s: any) => s.active)).toHaveLength(2);
    await b.ok(`mutation { signOut { ok } }`);
    expect(errorCode(await b.gql(ME))).toBe("UNAUTHENTICATED");
    expect((await a.ok(ME)).me.email).toBe("everywhere@example.org");
    const c = new Client(srv.url);
    await c.signIn("everywhere@example.org", "correct horse battery staple");
    const out = await a.ok(`mutation { signOutEverywhere { ok message } }`);
    expect(out.signOutEverywhere.message).toMatch(/2 sessions/);
    expect(errorCode(await a.gql(ME))).toBe("UNAUTHENTICATED");
    expect(errorCode(await c.gql(ME))).toBe("UNAUTHENTICATED");
  });

  it("answers a tampered session cookie with a clear UNAUTHENTICATED and clears it", async () => {
    const c = new Client(srv.url);
    await c.signUp("tamper@example.org");
    const v = c.cookies.get("tapline_session")!;
    c.cookies.set("tapline_session", v.slice(0, -3) + (v.endsWith("AAA") ? "BBB" : "AAA"));
    const res = await c.raw({ query: ME });
    const body: any = await res.json();
    expect(body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(body.errors[0].message).toMatch(/not valid/);
    expect(res.headers.getSetCookie().some((x) => x.startsWith("tapline_session=;"))).toBe(true);
  });
});

describe("password reset and email verification", () => {
  it("resets a password by the emailed one-time link, which then no longer works", async () => {
    const c = new Client(srv.url);
    await c.signUp("forgot@example.org");
    const anon = new Client(srv.url);
    const r = await anon.ok(`mutation { requestPasswordReset(email: "Forgot@example.org") { ok message } }`);
    const unknown = await anon.ok(`mutation { requestPasswordReset(email: "nobody@example.org") { ok message } }`);
    expect(unknown.requestPasswordReset.message).toBe(r.requestPasswordReset.message); // reveals nothing
    await runJobs();
    const token = tokenIn((await lastEmailTo("forgot@example.org")).body_text);
    const RESET = `mutation($i: ResetPasswordInput!) { resetPassword(input: $i) { ok } }`;
    await anon.ok(RESET, { i: { token, password: "a brand new long password" } });
    expect(errorCode(await anon.gql(RESET, { i: { token, password: "yet another long password" } }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await c.gql(ME))).toBe("UNAUTHENTICATED"); // old sessions ended
    await new Client(srv.url).signIn("forgot@example.org", "a brand new long password");
  });

  it("sends at most 3 reset links an hour to one address, answering the same way", async () => {
    await new Client(srv.url).signUp("flood@example.org");
    const anon = new Client(srv.url);
    for (let i = 0; i < 5; i++) expect((await anon.ok(`mutation { requestPasswordReset(email: "flood@example.org") { ok } }`)).requestPasswordReset.ok).toBe(true);
    await runJobs();
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM outbox_email WHERE to_address = 'flood@example.org' AND kind = 'account.password_reset'`);
    expect(n).toBe(3);
  });

  it("refuses an expired reset link with DEADLINE_PASSED", async () => {
    await new Client(srv.url).signUp("expired@example.org");
    await new Client(srv.url).ok(`mutation { requestPasswordReset(email: "expired@example.org") { ok } }`);
    await runJobs();
    const token = tokenIn((await lastEmailTo("expired@example.org")).body_text);
    await srv.running.ds.query(`UPDATE one_time_token SET expires_at = now() - interval '1 minute' WHERE purpose = 'PASSWORD_RESET'`);
    const r = await new Client(srv.url).gql(`mutation($i: ResetPasswordInput!) { resetPassword(input: $i) { ok } }`, { i: { token, password: "a brand new long password" } });
    expect(errorCode(r)).toBe("DEADLINE_PASSED");
    expect(r.errors![0].message).toMatch(/expired/);
  });

  it("verifies the email address from the link the person reads in their emails", async () => {
    const c = new Client(srv.url);
    await c.signUp("verify@example.org");
    const emails = await c.ok(`{ myEmails { subject bodyText } }`);
    expect(emails.myEmails[0].subject).toMatch(/Confirm your email/);
    await new Client(srv.url).ok(`mutation($t: String!) { verifyEmail(token: $t) { ok } }`, { t: tokenIn(emails.myEmails[0].bodyText) });
    expect((await c.ok(ME)).me.emailVerified).toBe(true);
  });
});

describe("personal API tokens", () => {
  it("creates a token shown once, authenticates as a bearer, and stops working when revoked", async () => {
    const c = new Client(srv.url);
    await c.signUp("robot@example.org");
    const { createApiToken } = await c.ok(`mutation { createApiToken(name: "accounting export") { token apiToken { id tokenPrefix } } }`);
    expect(createApiToken.token.startsWith(createApiToken.apiToken.tokenPrefix)).toBe(true);
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM api_token WHERE token_hash = $1`, [createApiToken.token]);
    expect(n).toBe(0); // only the hash is stored
    const bot = new Client(srv.url);
    bot.bearer = createApiToken.token;
    expect((await bot.ok(ME)).me.email).toBe("robot@example.org");
    await c.ok(`mutation($id: ID!) { revokeApiToken(id: $id) { ok } }`, { id: createApiToken.apiToken.id });
    const res = await bot.raw({ query: ME });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  it("never lets one person list or revoke another's tokens or sessions", async () => {
    const a = new Client(srv.url);
    await a.signUp("owner-a@example.org");
    const { createApiToken } = await a.ok(`mutation { createApiToken(name: "a") { apiToken { id } } }`);
    const { mySessions } = await a.ok(`{ mySessions { id } }`);
    const b = new Client(srv.url);
    await b.signUp("owner-b@example.org");
    expect((await b.ok(`{ myApiTokens { id } }`)).myApiTokens).toEqual([]);
    expect(errorCode(await b.gql(`mutation($id: ID!) { revokeApiToken(id: $id) { ok } }`, { id: createApiToken.apiToken.id }))).toBe("NOT_FOUND");
    expect(errorCode(await b.gql(`mutation($id: ID!) { revokeSession(id: $id) { ok } }`, { id: mySessions[0].id }))).toBe("NOT_FOUND");
    expect((await a.ok(ME)).me.email).toBe("owner-a@example.org");
  });
});

describe("demo accounts", () => {
  it("has one account per staff role in each district, listed publicly only in demo mode", async () => {
    const d = await new Client(srv.url).ok(`{ demoAccounts { email role district } }`);
    expect(d.demoAccounts.filter((a: any) => a.district === "lakeview").map((a: any) => a.role).sort()).toEqual(["ADMIN", "BOARD", "CLERK", "CONTRACTOR", "HAULER", "INDUSTRIAL_USER", "OPERATOR"]);
    expect(d.demoAccounts.filter((a: any) => a.district === "huron").map((a: any) => a.role).sort()).toEqual(["ADMIN", "BOARD", "CLERK", "OPERATOR"]);
    const clerk = new Client(srv.url);
    await clerk.signIn(DEMO.lakeviewClerk);
    expect((await clerk.ok(`{ me { staffRoles { role district { slug name } } } }`)).me.staffRoles).toEqual([
      { role: "CLERK", district: { slug: "lakeview", name: "Town of Lakeview Sewer District" } },
    ]);
  });
});

import { GraphQLObjectType } from "graphql";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS, MAX_SIGN_UPS_PER_ADDRESS } from "../../api/accounts/accounts.service.js";
import { getSchema } from "../../api/graphql/schema.js";
import { runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, errorCode, isSessionBookkeeping, startTestServer, type TestServer } from "../harness.js";

/** Issue 18: sign-in limits under concurrency, account enumeration, password change, no session token in replies. */

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());
// Every test here comes from one address (127.0.0.1): each starts with that address's slate clean.
afterEach(async () => {
  await srv.running.ds.query(`DELETE FROM sign_in_attempt`);
  await srv.running.ds.query(`DELETE FROM sign_up_attempt`);
});

const PASSWORD = "correct horse battery staple";
const ME = `{ me { id email } }`;
const SIGN_IN = `mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`;
const SIGN_UP = `mutation($i: SignUpInput!) { signUp(input: $i) { ok message } }`;
const CHANGE = `mutation($i: ChangePasswordInput!) { changePassword(input: $i) { ok message } }`;
const q = <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => srv.running.ds.query(sql, params);
const signInAs = (email: string, password: string) => new Client(srv.url).gql(SIGN_IN, { i: { email, password } });
const codes = (rs: { errors?: unknown[] }[]) => rs.map((r) => (r.errors ? errorCode(r as any) : "OK"));
const tally = (xs: (string | undefined)[]) => xs.reduce<Record<string, number>>((t, x) => ({ ...t, [String(x)]: (t[String(x)] ?? 0) + 1 }), {});
const failedAttempts = async (where: string, params: unknown[]) => (await q<{ n: number }>(`SELECT count(*)::int AS n FROM sign_in_attempt WHERE NOT succeeded AND ${where}`, params))[0].n;
const runJobs = () => runDueJobs(srv.running.ds, pino({ level: "silent" }), 50);

describe("sign-in limits hold however many requests arrive at once", () => {
  it("100 concurrent wrong passwords for one account: only the limit's 5 are checked, the rest refused with the limit's message", async () => {
    await new Client(srv.url).signUp("race@example.org");
    const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => signInAs("race@example.org", `wrong password ${i}`)));
    expect(tally(codes(rs))).toEqual({ UNAUTHENTICATED: MAX_FAILURES_PER_ACCOUNT, TOO_MANY_REQUESTS: 100 - MAX_FAILURES_PER_ACCOUNT });
    expect(rs.find((r) => errorCode(r) === "TOO_MANY_REQUESTS")!.errors![0].message).toBe(
      "Too many failed sign-in attempts. Wait 15 minutes and try again, or reset your password.",
    );
    // Each checked password is one recorded attempt: the refused ones were never hashed.
    expect(await failedAttempts(`email = $1`, ["race@example.org"])).toBe(MAX_FAILURES_PER_ACCOUNT);
  });

  it("39 wrong passwords and the right one sent together: the right one never signs in once the limit is reached", async () => {
    const id = await new Client(srv.url).signUp("race2@example.org");
    const wrong = Array.from({ length: 39 }, (_, i) => signInAs("race2@example.org", `wrong password ${i}`));
    // The right one a moment later, while the wrong ones are still being checked.
    const right = new Promise((r) => setTimeout(r, 50)).then(() => signInAs("race2@example.org", PASSWORD));
    const rs = await Promise.all([...wrong, right]);
    expect(errorCode(rs[39])).toBe("TOO_MANY_REQUESTS");
    expect(tally(codes(rs))).toEqual({ UNAUTHENTICATED: MAX_FAILURES_PER_ACCOUNT, TOO_MANY_REQUESTS: 40 - MAX_FAILURES_PER_ACCOUNT });
    expect(await failedAttempts(`email = $1`, ["race2@example.org"])).toBe(MAX_FAILURES_PER_ACCOUNT);
    expect((await q(`SELECT count(*)::int AS n FROM user_session WHERE user_id = $1`, [id]))[0].n).toBe(1); // the harness's sign-in only
  });

  it("40 sent at once in any order: the right one signs in only when it came within the limit", async () => {
    await new Client(srv.url).signUp("race3@example.org");
    const order = Array.from({ length: 40 }, (_, i) => i).sort(() => Math.random() - 0.5);
    const rs = await Promise.all(order.map((i) => signInAs("race3@example.org", i === 0 ? PASSWORD : `wrong password ${i}`)));
    const attempts = await q<{ id: string; succeeded: boolean }>(`SELECT id, succeeded FROM sign_in_attempt WHERE email = 'race3@example.org' ORDER BY id`);
    // The harness's sign-in, then at most 5 failures, and the right one if it got a place among the
    // first 5 (then one more wrong one may follow it, once it was marked succeeded).
    const failures = attempts.filter((a) => !a.succeeded);
    const signedIn = rs[order.indexOf(0)].errors === undefined;
    expect(failures.length).toBeLessThanOrEqual(MAX_FAILURES_PER_ACCOUNT);
    expect(failures.length + (signedIn ? 1 : 0)).toBeGreaterThanOrEqual(MAX_FAILURES_PER_ACCOUNT);
    expect(tally(codes(rs)).TOO_MANY_REQUESTS).toBe(40 - failures.length - (signedIn ? 1 : 0));
    expect(attempts.filter((a) => a.succeeded)).toHaveLength(signedIn ? 2 : 1);
    if (signedIn) {
      const success = attempts.filter((a) => a.succeeded)[1];
      expect(failures.filter((f) => BigInt(f.id) < BigInt(success.id)).length).toBeLessThan(MAX_FAILURES_PER_ACCOUNT);
    }
  });

  it("100 concurrent wrong sign-ins to different accounts from one address: only the address's 30 are checked", async () => {
    const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => signInAs(`nobody-${i}@example.org`, "some wrong password")));
    expect(tally(codes(rs))).toEqual({ UNAUTHENTICATED: MAX_FAILURES_PER_ADDRESS, TOO_MANY_REQUESTS: 100 - MAX_FAILURES_PER_ADDRESS });
    expect(await failedAttempts(`true`, [])).toBe(MAX_FAILURES_PER_ADDRESS);
    // Then even a right password from that address waits.
    expect(errorCode(await signInAs(DEMO.applicant, "tapline-demo-2026"))).toBe("TOO_MANY_REQUESTS");
  });
});

describe("sign-up tells no one whether an address has an account", () => {
  it("answers alike for a new address and for one that has an account: same status, same reply, no cookie, no one signed in", async () => {
    await new Client(srv.url).signUp("taken@example.org", "Terry Taken");
    const send = async (email: string) => {
      const res = await new Client(srv.url).raw({ query: SIGN_UP, variables: { i: { email, displayName: "Someone Else", password: "another long password" } } });
      return { status: res.status, cookies: res.headers.getSetCookie(), body: (await res.text()).replaceAll(email, "<email>") };
    };
    const taken = await send("taken@example.org");
    const fresh = await send("fresh@example.org");
    expect(taken).toEqual(fresh);
    expect(taken.status).toBe(200);
    expect(taken.cookies).toEqual([]);
    expect(JSON.parse(taken.body).data.signUp.ok).toBe(true);

    // The owner is told, by email only; the account is as it was.
    const [notice] = await q(`SELECT subject, body_text, recipient_id FROM outbox_email WHERE to_address = 'taken@example.org' ORDER BY created_at DESC LIMIT 1`);
    expect(notice.subject).toBe("Someone tried to create a Tapline account with your address");
    expect(notice.body_text).toMatch(/^Hello Terry Taken,/);
    expect(notice.body_text).toContain("http://tapline.test/forgot-password");
    const [owner] = await q(`SELECT display_name FROM app_user WHERE email = 'taken@example.org'`);
    expect(owner.display_name).toBe("Terry Taken");
    expect(errorCode(await signInAs("taken@example.org", "another long password"))).toBe("UNAUTHENTICATED");
    await new Client(srv.url).signIn("taken@example.org", PASSWORD);
    // The new address got its account and a confirmation link.
    const [confirm] = await q(`SELECT subject FROM outbox_email WHERE to_address = 'fresh@example.org'`);
    expect(confirm.subject).toMatch(/Confirm your email address/);
    expect((await q(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'account.sign_up_existing'`))[0].n).toBe(1);
  });

  it("emails the owner at most 3 times an hour, answering the same way", async () => {
    await new Client(srv.url).signUp("pestered@example.org");
    for (let i = 0; i < 5; i++) expect((await new Client(srv.url).ok(SIGN_UP, { i: { email: "pestered@example.org", displayName: "X", password: PASSWORD } })).signUp.ok).toBe(true);
    expect((await q(`SELECT count(*)::int AS n FROM outbox_email WHERE to_address = 'pestered@example.org' AND kind = 'account.sign_up_existing'`))[0].n).toBe(3);
  });

  it("limits sign-ups per address, atomically: 40 at once from one address create at most 30 accounts", async () => {
    const rs = await Promise.all(
      Array.from({ length: 40 }, (_, i) => new Client(srv.url).gql(SIGN_UP, { i: { email: `bulk-${i}@example.org`, displayName: `Bulk ${i}`, password: PASSWORD } })),
    );
    expect(tally(codes(rs))).toEqual({ OK: MAX_SIGN_UPS_PER_ADDRESS, TOO_MANY_REQUESTS: 40 - MAX_SIGN_UPS_PER_ADDRESS });
    expect(rs.find((r) => r.errors)!.errors![0].message).toMatch(/Wait an hour/);
    expect((await q(`SELECT count(*)::int AS n FROM app_user WHERE email LIKE 'bulk-%'`))[0].n).toBe(MAX_SIGN_UPS_PER_ADDRESS);
    // An address that has an account counts the same: the refusal does not tell them apart either.
    expect(errorCode(await new Client(srv.url).gql(SIGN_UP, { i: { email: "bulk-0@example.org", displayName: "X", password: PASSWORD } }))).toBe("TOO_MANY_REQUESTS");
  });
});

describe("password reset does the same work for any address", () => {
  /** The SQL the data source runs during fn, session bookkeeping aside. */
  async function statements(fn: () => Promise<unknown>): Promise<string[]> {
    const logger = srv.running.ds.logger as unknown as { logQuery: (...args: unknown[]) => unknown };
    const original = logger.logQuery;
    const seen: string[] = [];
    logger.logQuery = function (this: unknown, ...args: unknown[]) {
      if (!isSessionBookkeeping(args[0])) seen.push(String(args[0]));
      return original.apply(this, args);
    };
    try {
      await fn();
      return seen;
    } finally {
      logger.logQuery = original;
    }
  }
  const reset = (email: string) => new Client(srv.url).ok(`mutation($e: String!) { requestPasswordReset(email: $e) { ok message } }`, { e: email });

  it("runs the same statements, and answers alike, for an address with an account and one without", async () => {
    await new Client(srv.url).signUp("known@example.org");
    await reset("warm-up@example.org");
    let known: unknown, unknown: unknown;
    const a = await statements(async () => (known = await reset("known@example.org")));
    const b = await statements(async () => (unknown = await reset("unknown@example.org")));
    expect(a.length).toBeGreaterThan(0);
    expect(a).toEqual(b);
    expect(known).toEqual(unknown);
    // The link is emailed afterwards, by a job, to the account only.
    await runJobs();
    expect((await q(`SELECT count(*)::int AS n FROM outbox_email WHERE to_address = 'known@example.org' AND kind = 'account.password_reset'`))[0].n).toBe(1);
    expect((await q(`SELECT count(*)::int AS n FROM outbox_email WHERE to_address IN ('unknown@example.org', 'warm-up@example.org')`))[0].n).toBe(0);
  });
});

describe("changing the password (ASVS 2.1.5)", () => {
  it("needs the current password; signs out every other session, replaces this one, keeps API tokens, emails the owner and is audited", async () => {
    const a = new Client(srv.url);
    const id = await a.signUp("changer@example.org", "Chris Changer");
    const b = new Client(srv.url);
    await b.signIn("changer@example.org", PASSWORD);
    const { createApiToken } = await a.ok(`mutation { createApiToken(name: "script") { token } }`);
    const before = a.cookies.get("tapline_session")!;

    const r = await a.ok(CHANGE, { i: { currentPassword: PASSWORD, newPassword: "a new and longer passphrase" } });
    expect(r.changePassword).toEqual({ ok: true, message: "Your password is changed. 1 other session was signed out." });
    expect(a.cookies.get("tapline_session")).not.toBe(before);
    expect((await a.ok(ME)).me.id).toBe(id); // this browser stays signed in, with a new session
    expect(errorCode(await b.gql(ME))).toBe("UNAUTHENTICATED");
    const old = new Client(srv.url);
    old.cookies.set("tapline_session", before);
    expect(errorCode(await old.gql(ME))).toBe("UNAUTHENTICATED");
    const bot = new Client(srv.url);
    bot.bearer = createApiToken.token;
    expect((await bot.ok(ME)).me.id).toBe(id);

    expect(errorCode(await signInAs("changer@example.org", PASSWORD))).toBe("UNAUTHENTICATED");
    await new Client(srv.url).signIn("changer@example.org", "a new and longer passphrase");
    const [mail] = await q(`SELECT subject, body_text, recipient_id FROM outbox_email WHERE to_address = 'changer@example.org' AND kind = 'account.password_changed'`);
    expect(mail.subject).toBe("Your Tapline password was changed");
    expect(mail.body_text).toContain("1 other session was signed out");
    expect(mail.body_text).toContain("http://tapline.test/forgot-password");
    expect(mail.recipient_id).toBe(id);
    const [entry] = await q(`SELECT actor_id, details FROM audit_entry WHERE action = 'account.password_changed' AND entity_id = $1`, [id]);
    expect(entry.actor_id).toBe(id);
    expect(entry.details.otherSessionsEnded).toBe(1);
  });

  it("refuses a wrong current password (a failed sign-in), a weak or unchanged new one, a demo account and the signed-out", async () => {
    const c = new Client(srv.url);
    await c.signUp("careful@example.org");
    const change = (currentPassword: string, newPassword: string) => c.gql(CHANGE, { i: { currentPassword, newPassword } });
    const weak = await change(PASSWORD, "short");
    expect(errorCode(weak)).toBe("BAD_USER_INPUT");
    expect(weak.errors![0].extensions!.fields!.newPassword).toBe("Use at least 12 characters.");
    expect((await change(PASSWORD, "careful and long password")).errors![0].extensions!.fields!.newPassword).toMatch(/email address/);
    expect((await change(PASSWORD, PASSWORD)).errors![0].extensions!.fields!.newPassword).toMatch(/different/);
    expect((await change("", "a new and longer passphrase")).errors![0].extensions!.fields!.currentPassword).toMatch(/Enter/);
    expect(await failedAttempts(`email = 'careful@example.org'`, [])).toBe(0); // none of those reached a password check

    const wrong = await change("not my password at all", "a new and longer passphrase");
    expect(errorCode(wrong)).toBe("BAD_USER_INPUT");
    expect(wrong.errors![0].extensions!.fields!.currentPassword).toBe("That is not your current password.");
    expect(await failedAttempts(`email = 'careful@example.org'`, [])).toBe(1);
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT - 1; i++) await change(`not my password ${i}`, "a new and longer passphrase");
    // Guessing through this form meets the sign-in limit: now even the right one waits.
    expect(errorCode(await change(PASSWORD, "a new and longer passphrase"))).toBe("TOO_MANY_REQUESTS");
    await srv.running.ds.query(`DELETE FROM sign_in_attempt`);
    expect((await change(PASSWORD, "a new and longer passphrase")).data.changePassword.message).toBe("Your password is changed. You were not signed in anywhere else.");

    const demo = new Client(srv.url);
    await demo.signIn(DEMO.applicant);
    expect(errorCode(await demo.gql(CHANGE, { i: { currentPassword: "tapline-demo-2026", newPassword: "a new and longer passphrase" } }))).toBe("FORBIDDEN");
    expect(errorCode(await new Client(srv.url).gql(CHANGE, { i: { currentPassword: PASSWORD, newPassword: "a new and longer passphrase" } }))).toBe("UNAUTHENTICATED");
  });
});

describe("the session token stays in its httpOnly cookie", () => {
  it("is not in the schema's sign-in reply, nor anywhere in the reply's body", async () => {
    const schema = await getSchema();
    expect(Object.keys((schema.getType("AuthPayload") as GraphQLObjectType).getFields())).toEqual(["me"]);
    expect(schema.getMutationType()!.getFields().signUp.type.toString()).toBe("Ok!");
    const asked = await new Client(srv.url).gql(`mutation { signIn(input: { email: "${DEMO.applicant}", password: "tapline-demo-2026" }) { sessionToken } }`);
    expect(errorCode(asked)).toBe("GRAPHQL_VALIDATION_FAILED");

    const c = new Client(srv.url);
    const res = await c.raw({ query: `mutation($i: SignInInput!) { signIn(input: $i) { __typename me { id email } } }`, variables: { i: { email: DEMO.applicant, password: "tapline-demo-2026" } } });
    const body = await res.text();
    const signed = c.cookies.get("tapline_session")!;
    const token = decodeURIComponent(signed).slice(0, decodeURIComponent(signed).lastIndexOf("."));
    expect(token.length).toBeGreaterThan(20);
    expect(body).not.toContain(token);
  });
});

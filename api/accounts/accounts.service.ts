import type { DataSource, EntityManager } from "typeorm";
import { audit, type Actor } from "../audit/audit.service.js";
import { AppError, badInput, conflict, notFound } from "../common/errors.js";
import { announceInvalidation, onInvalidation } from "../common/invalidation.js";
import { newToken, sha256 } from "../common/tokens.js";
import { enqueueJob, registerJobHandler, type JobRun } from "../jobs/queue.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { dummyHash, hashPassword, passwordProblem, verifyPassword } from "./passwords.js";
import { ApiToken, OneTimeToken, User, UserSession, type OneTimePurpose, type StaffRoleName } from "./user.entity.js";
import "./attempts.js"; // the daily job deleting old rate-limit attempts
import type { Viewer } from "./viewer.js";

export const SESSION_IDLE_MS = 2 * 60 * 60 * 1000; // signed out after 2 hours without a request
export const SESSION_MAX_MS = 30 * 24 * 60 * 60 * 1000; // and after 30 days whatever happens
const SEEN_RESOLUTION_MS = 60 * 1000; // last_seen_at is written at most once a minute
const RATE_WINDOW = "15 minutes";
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 30;
const SIGN_UP_WINDOW = "1 hour";
export const MAX_SIGN_UPS_PER_ADDRESS = 30;
const RESET_TTL_MS = 60 * 60 * 1000;
const MAX_RESETS_PER_HOUR = 3;
const MAX_SIGN_UP_NOTICES_PER_HOUR = 3;
export const PASSWORD_RESET_JOB = "account.password-reset";
const VERIFY_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const API_TOKEN_PREFIX = "tap_";

export type RequestMeta = { ip: string; userAgent: string | null; requestId?: string; publicUrl: string };
export type SessionProblem = "TAMPERED" | "EXPIRED" | "REVOKED" | "UNKNOWN";

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

type ViewerRow = {
  session_id: string | null;
  token_id: string | null;
  last_seen_at: Date | null;
  created_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  user_id: string;
  email: string;
  display_name: string;
  email_verified_at: Date | null;
  demo: boolean;
  roles: { districtId: string; role: StaffRoleName }[];
};

const ROLES_SQL = `coalesce((SELECT json_agg(json_build_object('districtId', r.district_id, 'role', r.role) ORDER BY r.role)
                     FROM staff_role r WHERE r.user_id = u.id), '[]'::json) AS roles`;

function toViewer(row: ViewerRow): Viewer {
  return {
    userId: row.user_id,
    email: row.email,
    displayName: row.display_name,
    emailVerified: row.email_verified_at !== null,
    demo: row.demo,
    staffRoles: row.roles,
    sessionId: row.session_id,
    apiTokenId: row.token_id,
  };
}

/**
 * Who a token belongs to is cached in-process for a few seconds, so a signed-in page costs no
 * session query most of the time. Every change that ends a session or changes roles announces it
 * in its transaction (`forgetViewersOnCommit`: every instance drops the person's entries when it
 * commits, api/common/invalidation.ts) and calls forgetViewers(userId) after the commit, so it
 * takes effect at once everywhere.
 */
export const VIEWER_CACHE_MS = 5_000;
const viewerCache = new Map<string, { row: ViewerRow; at: number }>();
const VIEWER_CACHE_MAX = 10_000;

export function forgetViewers(userId: string): void {
  for (const [k, v] of viewerCache) if (v.row.user_id === userId) viewerCache.delete(k);
}
const forgetSessionToken = (token: string) => viewerCache.delete(`session:${sha256(token)}`);
/** In the change's transaction: every instance forgets the person's cached sessions and tokens when it commits. */
export const forgetViewersOnCommit = (tx: EntityManager, userId: string) => announceInvalidation(tx, { cache: "viewers", key: userId });
onInvalidation("viewers", (key) => {
  if (key === undefined) viewerCache.clear();
  else if (key.startsWith("session:")) viewerCache.delete(key);
  else forgetViewers(key);
});

async function cachedViewerRow(ds: DataSource, kind: "session" | "token", tokenHash: string, now: Date): Promise<ViewerRow | undefined> {
  const key = `${kind}:${tokenHash}`;
  const hit = viewerCache.get(key);
  if (hit && now.getTime() - hit.at < VIEWER_CACHE_MS) return hit.row;
  const rows: ViewerRow[] =
    kind === "session"
      ? await ds.query(
          `SELECT s.id AS session_id, NULL AS token_id, s.last_seen_at, s.created_at, s.expires_at, s.revoked_at,
                  u.id AS user_id, u.email, u.display_name, u.email_verified_at, u.demo, ${ROLES_SQL}
             FROM user_session s JOIN app_user u ON u.id = s.user_id
            WHERE s.token_hash = $1`,
          [tokenHash],
        )
      : await ds.query(
          `SELECT NULL AS session_id, t.id AS token_id, t.last_used_at AS last_seen_at, t.revoked_at,
                  u.id AS user_id, u.email, u.display_name, u.email_verified_at, u.demo, ${ROLES_SQL}
             FROM api_token t JOIN app_user u ON u.id = t.user_id
            WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
          [tokenHash],
        );
  const row = rows[0];
  if (row && !row.revoked_at) {
    if (viewerCache.size >= VIEWER_CACHE_MAX) viewerCache.delete(viewerCache.keys().next().value!);
    viewerCache.set(key, { row, at: now.getTime() });
  } else viewerCache.delete(key);
  return row;
}

export async function viewerFromSession(
  ds: DataSource,
  token: string,
  now = new Date(),
): Promise<{ viewer: Viewer | null; problem?: SessionProblem }> {
  const row = await cachedViewerRow(ds, "session", sha256(token), now);
  if (!row) return { viewer: null, problem: "UNKNOWN" };
  if (row.revoked_at) return { viewer: null, problem: "REVOKED" };
  if (row.expires_at! <= now || now.getTime() - row.last_seen_at!.getTime() > SESSION_IDLE_MS)
    return { viewer: null, problem: "EXPIRED" };
  if (now.getTime() - row.last_seen_at!.getTime() > SEEN_RESOLUTION_MS) {
    row.last_seen_at = now;
    await ds.query(`UPDATE user_session SET last_seen_at = $2 WHERE id = $1`, [row.session_id, now]);
  }
  return { viewer: toViewer(row) };
}

export async function viewerFromApiToken(ds: DataSource, token: string, now = new Date()): Promise<Viewer | null> {
  const row = await cachedViewerRow(ds, "token", sha256(token), now);
  if (!row) return null;
  if (!row.last_seen_at || now.getTime() - row.last_seen_at.getTime() > SEEN_RESOLUTION_MS) {
    row.last_seen_at = now;
    await ds.query(`UPDATE api_token SET last_used_at = $2 WHERE id = $1`, [row.token_id, now]);
  }
  return toViewer(row);
}

async function startSession(tx: EntityManager, userId: string, meta: RequestMeta): Promise<string> {
  const token = newToken();
  const now = Date.now();
  await tx.insert(UserSession, {
    userId,
    tokenHash: sha256(token),
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
    expiresAt: new Date(now + SESSION_MAX_MS),
  });
  return token;
}

export type SignUpInput = { email: string; password: string; displayName: string };

/**
 * Takes one of the limited attempts of its kind, or refuses with TOO_MANY_REQUESTS. The check and
 * the record are one step: under transaction-scoped advisory locks on the keys (taken in the
 * order given, every caller giving the same order), the count and the insert of the attempt
 * commit before the lock is let go, so any number of concurrent requests admit at most the
 * limit. The attempt is recorded as failed before any password is hashed and marked succeeded
 * afterwards, so a request cut off in between counts against the limit.
 */
async function admitAttempt<T>(
  ds: DataSource,
  lockKeys: string[],
  countAndInsert: (tx: EntityManager) => Promise<T | "refused">,
  refusal: string,
): Promise<T> {
  const admitted = await ds.transaction(async (tx) => {
    // One statement per lock, before the count: the count's snapshot must follow the last holder's commit.
    for (const key of lockKeys) await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`tapline:${key}`]);
    return countAndInsert(tx);
  });
  if (admitted === "refused") throw new AppError("TOO_MANY_REQUESTS", refusal);
  return admitted;
}

const firstRow = (r: any): any => (Array.isArray(r[0]) ? r[0][0] : r[0]);

/** A password check against the limits per account and per address; returns the attempt's id. */
function admitSignInAttempt(ds: DataSource, email: string, ip: string): Promise<string> {
  return admitAttempt(
    ds,
    [`sign-in:email:${email}`, `sign-in:ip:${ip}`],
    async (tx) => {
      const [counts] = await tx.query(
        `SELECT (SELECT count(*) FROM sign_in_attempt WHERE email = $1 AND NOT succeeded AND created_at > now() - interval '${RATE_WINDOW}')::int AS by_email,
                (SELECT count(*) FROM sign_in_attempt WHERE ip = $2 AND NOT succeeded AND created_at > now() - interval '${RATE_WINDOW}')::int AS by_ip`,
        [email, ip],
      );
      if (counts.by_email >= MAX_FAILURES_PER_ACCOUNT || counts.by_ip >= MAX_FAILURES_PER_ADDRESS) return "refused";
      return String(firstRow(await tx.query(`INSERT INTO sign_in_attempt (email, ip, succeeded) VALUES ($1, $2, false) RETURNING id`, [email, ip])).id);
    },
    "Too many failed sign-in attempts. Wait 15 minutes and try again, or reset your password.",
  );
}

export const signUpAnswer = (email: string) =>
  `We have sent a message to ${email}. If the address is new to Tapline, your account is ready: sign in, and open the link in the message to confirm the address. ` +
  `If the address already has an account, the message says how to sign in or reset the password.`;

/**
 * Creates an account (role APPLICANT) and emails a link to confirm the address. Whether or not the
 * address already has an account, it answers the same way and signs no one in: for an existing
 * account its owner is emailed instead ("someone tried to sign up with your address"), at most a
 * few times an hour. Both ways hash the password, so the time taken does not tell them apart
 * (docs/decisions/sign-up-reveals-no-account.md). Limited per client address.
 */
export async function signUp(ds: DataSource, input: SignUpInput, meta: RequestMeta): Promise<{ email: string }> {
  const email = normalizeEmail(input.email);
  const fields: Record<string, string> = {};
  if (!email) fields.email = "Enter your email address.";
  else if (!EMAIL_RE.test(email) || email.length > 254) fields.email = "Enter an email address like name@example.com.";
  const pw = passwordProblem(input.password, email);
  if (pw) fields.password = pw;
  const displayName = input.displayName.trim();
  if (!displayName) fields.displayName = "Enter your name.";
  else if (displayName.length > 100) fields.displayName = "Use at most 100 characters.";
  if (Object.keys(fields).length) throw badInput(fields);

  await admitAttempt(
    ds,
    [`sign-up:ip:${meta.ip}`],
    async (tx) => {
      const [{ n }] = await tx.query(`SELECT count(*)::int AS n FROM sign_up_attempt WHERE ip = $1 AND created_at > now() - interval '${SIGN_UP_WINDOW}'`, [meta.ip]);
      if (n >= MAX_SIGN_UPS_PER_ADDRESS) return "refused";
      await tx.query(`INSERT INTO sign_up_attempt (ip) VALUES ($1)`, [meta.ip]);
      return true;
    },
    "Too many accounts were asked for from your network address. Wait an hour and try again.",
  );

  const passwordHash = await hashPassword(input.password);
  await ds.transaction(async (tx) => {
    const inserted = firstRow(
      await tx.query(`INSERT INTO app_user (email, display_name, password_hash) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING RETURNING id`, [email, displayName, passwordHash]),
    );
    if (inserted) {
      const user = { id: String(inserted.id), email, displayName };
      // Emails sent to this address before the account existed (an invitation) now belong to it.
      await tx.query(`UPDATE outbox_email SET recipient_id = $1 WHERE to_address = $2 AND recipient_id IS NULL`, [user.id, email]);
      await audit(tx, { userId: user.id, requestId: meta.requestId }, { action: "account.signed_up", entityType: "User", entityId: user.id });
      await sendVerification(tx, user, meta);
      return;
    }
    const [owner] = await tx.query(`SELECT id, email, display_name FROM app_user WHERE email = $1`, [email]);
    // At most a few such notices an hour, so the form cannot be used to flood a mailbox.
    const [{ n }] = await tx.query(
      `SELECT count(*)::int AS n FROM outbox_email WHERE to_address = $1 AND kind = 'account.sign_up_existing' AND created_at > now() - interval '1 hour'`,
      [email],
    );
    const notified = n < MAX_SIGN_UP_NOTICES_PER_HOUR;
    if (notified)
      await enqueueEmail(tx, {
        to: owner.email,
        recipientId: owner.id,
        kind: "account.sign_up_existing",
        subject: "Someone tried to create a Tapline account with your address",
        body:
          `Hello ${owner.display_name},\n\nSomeone (we hope you) tried to create a Tapline account with this email address, which already has one. ` +
          `Nothing was changed.\n\nTo use your account, sign in:\n\n${meta.publicUrl}/sign-in\n\n` +
          `If you have forgotten your password, choose a new one:\n\n${meta.publicUrl}/forgot-password\n\nIf it was not you, you can ignore this message.\n`,
      });
    await audit(tx, { userId: null, requestId: meta.requestId }, { action: "account.sign_up_existing", entityType: "User", entityId: owner.id, details: { ip: meta.ip, notified } });
  });
  return { email };
}

async function sendVerification(tx: EntityManager, user: Pick<User, "id" | "email" | "displayName">, meta: Pick<RequestMeta, "publicUrl">) {
  const token = await issueOneTimeToken(tx, user.id, "EMAIL_VERIFICATION", VERIFY_TTL_MS);
  await enqueueEmail(tx, {
    to: user.email,
    recipientId: user.id,
    kind: "account.verify_email",
    subject: "Confirm your email address for Tapline",
    body:
      `Hello ${user.displayName},\n\nPlease confirm your email address by opening this link:\n\n` +
      `${meta.publicUrl}/verify-email?token=${token}\n\nThe link works for 7 days.\n`,
  });
}

async function issueOneTimeToken(tx: EntityManager, userId: string, purpose: OneTimePurpose, ttlMs: number): Promise<string> {
  // A new link replaces any earlier unused one.
  await tx.query(`UPDATE one_time_token SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL`, [userId, purpose]);
  const token = newToken();
  await tx.insert(OneTimeToken, { userId, purpose, tokenHash: sha256(token), expiresAt: new Date(Date.now() + ttlMs) });
  return token;
}

export async function resendVerification(ds: DataSource, viewer: Viewer, meta: RequestMeta): Promise<void> {
  if (viewer.emailVerified) throw conflict("Your email address is already confirmed.");
  await ds.transaction(async (tx) => {
    await sendVerification(tx, { id: viewer.userId, email: viewer.email, displayName: viewer.displayName }, meta);
    await audit(tx, actorOf(viewer, meta), { action: "account.verification_sent", entityType: "User", entityId: viewer.userId });
  });
}

async function consumeOneTimeToken(tx: EntityManager, token: string, purpose: OneTimePurpose): Promise<OneTimeToken> {
  const row = await tx
    .createQueryBuilder(OneTimeToken, "t")
    .setLock("pessimistic_write")
    .where("t.token_hash = :h AND t.purpose = :p", { h: sha256(token), p: purpose })
    .getOne();
  const what = purpose === "PASSWORD_RESET" ? "password reset link" : "confirmation link";
  if (!row || row.usedAt) throw new AppError("BAD_USER_INPUT", `This ${what} is not valid or was already used. Ask for a new one.`, { token: "Invalid link" });
  if (row.expiresAt <= new Date()) throw new AppError("DEADLINE_PASSED", `This ${what} has expired. Ask for a new one.`, { token: "Expired link" });
  await tx.update(OneTimeToken, { id: row.id }, { usedAt: new Date() });
  return row;
}

export async function verifyEmail(ds: DataSource, token: string, meta: RequestMeta): Promise<void> {
  let verifiedUserId: string | undefined;
  await ds.transaction(async (tx) => {
    const t = await consumeOneTimeToken(tx, token, "EMAIL_VERIFICATION");
    verifiedUserId = t.userId;
    await tx.update(User, { id: t.userId }, { emailVerifiedAt: new Date(), updatedAt: new Date() });
    await forgetViewersOnCommit(tx, t.userId);
    await audit(tx, { userId: t.userId, requestId: meta.requestId }, { action: "account.email_verified", entityType: "User", entityId: t.userId });
  });
  if (verifiedUserId) forgetViewers(verifiedUserId);
}

/**
 * Always answers the same way and does the same work, so neither the answer nor its timing reveals
 * which addresses have accounts: the request only queues a job (one statement, whatever the
 * address); the job, run by the workers after the answer, finds the account, if any, and emails it
 * a one-time link.
 */
export async function requestPasswordReset(ds: DataSource, emailInput: string, meta: RequestMeta): Promise<void> {
  const email = normalizeEmail(emailInput);
  if (!email) throw badInput({ email: "Enter your email address." });
  if (!EMAIL_RE.test(email) || email.length > 254) throw badInput({ email: "Enter an email address like name@example.com." });
  await enqueueJob(ds, { name: PASSWORD_RESET_JOB, payload: { email, publicUrl: meta.publicUrl, requestId: meta.requestId ?? null }, maxAttempts: 3 });
}

/** The password reset job: the link, its email, their audit entry and the job's completion, in one transaction (one email however often it runs). */
export async function sendPasswordReset(ds: DataSource, payload: { email: string; publicUrl: string; requestId?: string | null }, job?: JobRun): Promise<void> {
  const { email } = payload;
  const actor: Actor = { userId: null, requestId: payload.requestId ?? undefined };
  await ds.transaction(async (tx) => {
    await job?.done(tx);
    const user = await tx.findOne(User, { where: { email } });
    if (!user) return;
    // At most a few links an hour to one address, so the form cannot be used to flood a mailbox.
    const [{ n }] = await tx.query(
      `SELECT count(*)::int AS n FROM outbox_email WHERE to_address = $1 AND kind = 'account.password_reset' AND created_at > now() - interval '1 hour'`,
      [email],
    );
    if (n >= MAX_RESETS_PER_HOUR) {
      await audit(tx, actor, { action: "account.password_reset_throttled", entityType: "User", entityId: user.id });
      return;
    }
    const token = await issueOneTimeToken(tx, user.id, "PASSWORD_RESET", RESET_TTL_MS);
    await enqueueEmail(tx, {
      to: user.email,
      recipientId: user.id,
      kind: "account.password_reset",
      subject: "Reset your Tapline password",
      body:
        `Hello ${user.displayName},\n\nSomeone (we hope you) asked to reset your Tapline password. ` +
        `To choose a new one, open this link within an hour:\n\n${payload.publicUrl}/reset-password?token=${token}\n\n` +
        `If you did not ask, ignore this message: your password stays as it is.\n`,
    });
    await audit(tx, actor, { action: "account.password_reset_requested", entityType: "User", entityId: user.id });
  });
}

registerJobHandler(PASSWORD_RESET_JOB, (ds, payload, _log, job) => sendPasswordReset(ds, payload, job));

export async function resetPassword(ds: DataSource, token: string, newPassword: string, meta: RequestMeta): Promise<void> {
  // Validate the link before spending a hash on the password.
  const pwProblem = passwordProblem(newPassword);
  if (pwProblem) throw badInput({ password: pwProblem });
  const passwordHash = await hashPassword(newPassword);
  let resetUserId: string | undefined;
  await ds.transaction(async (tx) => {
    const t = await consumeOneTimeToken(tx, token, "PASSWORD_RESET");
    resetUserId = t.userId;
    await tx.update(User, { id: t.userId }, { passwordHash, updatedAt: new Date() });
    // Whoever had the old password is signed out everywhere.
    await tx.query(`UPDATE user_session SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [t.userId]);
    await forgetViewersOnCommit(tx, t.userId);
    await audit(tx, { userId: t.userId, requestId: meta.requestId }, { action: "account.password_reset", entityType: "User", entityId: t.userId });
  });
  if (resetUserId) forgetViewers(resetUserId);
}

export type SignInInput = { email: string; password: string };

/**
 * Failed attempts are limited per account and per address, before any hashing is done, and
 * atomically (admitAttempt): however many requests arrive at once, at most the limit are checked.
 */
export async function signIn(ds: DataSource, input: SignInInput, meta: RequestMeta, previousSessionToken?: string): Promise<{ user: User; sessionToken: string }> {
  const email = normalizeEmail(input.email);
  const fields: Record<string, string> = {};
  if (!email) fields.email = "Enter your email address.";
  else if (email.length > 254) fields.email = "Enter an email address of at most 254 characters.";
  if (!input.password) fields.password = "Enter your password.";
  else if (input.password.length > 200) fields.password = "That is longer than any password here: at most 200 characters.";
  if (Object.keys(fields).length) throw badInput(fields);
  const attemptId = await admitSignInAttempt(ds, email, meta.ip);

  const user = await ds.getRepository(User).createQueryBuilder("u").addSelect("u.passwordHash").where("u.email = :email", { email }).getOne();
  const ok = user ? await verifyPassword(user.passwordHash, input.password) : (await verifyPassword(await dummyHash(), input.password), false);
  if (!user || !ok)
    throw new AppError("UNAUTHENTICATED", "That email address and password do not match an account.", {
      password: "That email address and password do not match an account.",
    });
  const result = await ds.transaction(async (tx) => {
    await tx.query(`UPDATE sign_in_attempt SET succeeded = true WHERE id = $1`, [attemptId]);
    // Rotate: the session the browser had before signing in is ended.
    if (previousSessionToken) {
      await tx.query(`UPDATE user_session SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL`, [sha256(previousSessionToken)]);
      await announceInvalidation(tx, { cache: "viewers", key: `session:${sha256(previousSessionToken)}` });
    }
    const sessionToken = await startSession(tx, user.id, meta);
    await audit(tx, { userId: user.id, requestId: meta.requestId }, { action: "account.signed_in", entityType: "User", entityId: user.id, details: { ip: meta.ip } });
    return { user, sessionToken };
  });
  if (previousSessionToken) forgetSessionToken(previousSessionToken);
  return result;
}

export type ChangePasswordInput = { currentPassword: string; newPassword: string };

/**
 * Changes the password of the signed-in person (ASVS 2.1.5): the current password is checked
 * under the sign-in limits (a wrong one counts as a failed sign-in), the new one like sign-up's.
 * Every session is ended and, when the request came with a session, a new one replaces it (the
 * caller sets it as the cookie); API tokens stay. The owner is emailed.
 */
export async function changePassword(
  ds: DataSource,
  viewer: Viewer,
  input: ChangePasswordInput,
  meta: RequestMeta,
): Promise<{ sessionToken: string | null; otherSessionsEnded: number }> {
  if (viewer.demo) throw new AppError("FORBIDDEN", "Demo accounts keep the password shown on the sign-in page.");
  const fields: Record<string, string> = {};
  if (!input.currentPassword) fields.currentPassword = "Enter your current password.";
  else if (input.currentPassword.length > 200) fields.currentPassword = "That is longer than any password here: at most 200 characters.";
  const pw = passwordProblem(input.newPassword, viewer.email);
  if (pw) fields.newPassword = pw;
  else if (input.newPassword === input.currentPassword) fields.newPassword = "Choose a password different from your current one.";
  if (Object.keys(fields).length) throw badInput(fields);

  const attemptId = await admitSignInAttempt(ds, viewer.email, meta.ip);
  const user = await ds.getRepository(User).createQueryBuilder("u").addSelect("u.passwordHash").where("u.id = :id", { id: viewer.userId }).getOne();
  if (!user || !(await verifyPassword(user.passwordHash, input.currentPassword)))
    throw badInput({ currentPassword: "That is not your current password." }, "That is not your current password.");
  const passwordHash = await hashPassword(input.newPassword);
  const result = await ds.transaction(async (tx) => {
    await tx.query(`UPDATE sign_in_attempt SET succeeded = true WHERE id = $1`, [attemptId]);
    await tx.update(User, { id: user.id }, { passwordHash, updatedAt: new Date() });
    const r = await tx.query(`UPDATE user_session SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`, [user.id]);
    await forgetViewersOnCommit(tx, user.id);
    const ended: { id: string }[] = Array.isArray(r[0]) ? r[0] : r;
    const otherSessionsEnded = ended.filter((x) => x.id !== viewer.sessionId).length;
    const sessionToken = viewer.sessionId ? await startSession(tx, user.id, meta) : null;
    await audit(tx, actorOf(viewer, meta), { action: "account.password_changed", entityType: "User", entityId: user.id, details: { ip: meta.ip, otherSessionsEnded } });
    await enqueueEmail(tx, {
      to: user.email,
      recipientId: user.id,
      kind: "account.password_changed",
      subject: "Your Tapline password was changed",
      body:
        `Hello ${user.displayName},\n\nThe password of your Tapline account was changed just now` +
        `${otherSessionsEnded ? `, and ${otherSessionsEnded} other session${otherSessionsEnded === 1 ? " was" : "s were"} signed out` : ""}.\n\n` +
        `If you did this, there is nothing more to do. If you did not, someone else knows your password: choose a new one at once:\n\n` +
        `${meta.publicUrl}/forgot-password\n\nand tell the district's clerk.\n`,
    });
    return { sessionToken, otherSessionsEnded };
  });
  forgetViewers(viewer.userId);
  return result;
}

const actorOf = (viewer: Viewer, meta: { requestId?: string }): Actor => ({ userId: viewer.userId, requestId: meta.requestId });

export async function signOut(ds: DataSource, viewer: Viewer, meta: { requestId?: string }): Promise<void> {
  if (!viewer.sessionId) return;
  await ds.transaction(async (tx) => {
    await tx.update(UserSession, { id: viewer.sessionId! }, { revokedAt: new Date() });
    await forgetViewersOnCommit(tx, viewer.userId);
    await audit(tx, actorOf(viewer, meta), { action: "account.signed_out", entityType: "UserSession", entityId: viewer.sessionId! });
  });
  forgetViewers(viewer.userId);
}

export async function signOutEverywhere(ds: DataSource, viewer: Viewer, meta: { requestId?: string }): Promise<number> {
  const result = await ds.transaction(async (tx) => {
    const r = await tx.query(`UPDATE user_session SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id`, [viewer.userId]);
    await forgetViewersOnCommit(tx, viewer.userId);
    await audit(tx, actorOf(viewer, meta), { action: "account.signed_out_everywhere", entityType: "User", entityId: viewer.userId, details: { sessions: r[0]?.length ?? r.length } });
    return Array.isArray(r[0]) ? r[0].length : r.length;
  });
  forgetViewers(viewer.userId);
  return result;
}

export async function listSessions(ds: DataSource, viewer: Viewer): Promise<UserSession[]> {
  return ds.getRepository(UserSession).find({
    where: { userId: viewer.userId },
    order: { createdAt: "DESC" },
    take: 50,
  });
}

export async function revokeSession(ds: DataSource, viewer: Viewer, sessionId: string, meta: { requestId?: string }): Promise<void> {
  await ds.transaction(async (tx) => {
    const s = await tx.findOne(UserSession, { where: { id: sessionId, userId: viewer.userId } });
    if (!s) throw notFound("That session");
    if (!s.revokedAt) await tx.update(UserSession, { id: s.id }, { revokedAt: new Date() });
    await forgetViewersOnCommit(tx, viewer.userId);
    await audit(tx, actorOf(viewer, meta), { action: "account.session_revoked", entityType: "UserSession", entityId: s.id });
  });
  forgetViewers(viewer.userId);
}

export async function createApiToken(ds: DataSource, viewer: Viewer, nameInput: string, meta: { requestId?: string }): Promise<{ token: string; apiToken: ApiToken }> {
  const name = nameInput.trim();
  if (!name || name.length > 100) throw badInput({ name: "Give the token a name of 1 to 100 characters." });
  const token = newToken(API_TOKEN_PREFIX);
  return ds.transaction(async (tx) => {
    const apiToken = await tx.save(tx.create(ApiToken, { userId: viewer.userId, name, tokenHash: sha256(token), tokenPrefix: token.slice(0, 8) }));
    await audit(tx, actorOf(viewer, meta), { action: "account.api_token_created", entityType: "ApiToken", entityId: apiToken.id, details: { name } });
    return { token, apiToken };
  });
}

export async function listApiTokens(ds: DataSource, viewer: Viewer): Promise<ApiToken[]> {
  return ds.getRepository(ApiToken).find({ where: { userId: viewer.userId }, order: { createdAt: "DESC" } });
}

export async function revokeApiToken(ds: DataSource, viewer: Viewer, id: string, meta: { requestId?: string }): Promise<void> {
  await ds.transaction(async (tx) => {
    const t = await tx.findOne(ApiToken, { where: { id, userId: viewer.userId } });
    if (!t) throw notFound("That API token");
    if (!t.revokedAt) await tx.update(ApiToken, { id }, { revokedAt: new Date() });
    await forgetViewersOnCommit(tx, viewer.userId);
    await audit(tx, actorOf(viewer, meta), { action: "account.api_token_revoked", entityType: "ApiToken", entityId: id });
  });
  forgetViewers(viewer.userId);
}

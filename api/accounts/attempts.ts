import type { DataSource } from "typeorm";
import { registerJobHandler } from "../jobs/queue.js";

/**
 * The rate limits' attempts (sign-in and sign-up, quick pay's and linking's account lookups) are
 * read over their windows (15 minutes to an hour) and kept ATTEMPTS_KEPT_DAYS more as the record of
 * abuse an ADMIN may be asked about, then deleted by a daily job: they hold email and IP addresses
 * nobody needs after that. Not law: the project's retention, in real time like the limits themselves.
 */
export const ATTEMPTS_KEPT_DAYS = 30;
export const PRUNE_ATTEMPTS_JOB = "accounts.prune-attempts";
const TABLES = ["sign_in_attempt", "sign_up_attempt", "account_lookup_attempt"] as const;

/** Deletes the attempts older than ATTEMPTS_KEPT_DAYS; one statement per table, whatever their number. */
export async function pruneAttempts(ds: DataSource): Promise<number> {
  let deleted = 0;
  for (const t of TABLES) {
    // TypeORM answers a DELETE on PostgreSQL with [rows, affected].
    const r = await ds.query(`DELETE FROM ${t} WHERE created_at < now() - make_interval(days => $1)`, [ATTEMPTS_KEPT_DAYS]);
    deleted += Number(r?.[1] ?? 0);
  }
  return deleted;
}

registerJobHandler(PRUNE_ATTEMPTS_JOB, async (ds, _payload, log) => {
  const n = await pruneAttempts(ds);
  if (n) log.info({ deleted: n }, "old sign-in and lookup attempts deleted");
});

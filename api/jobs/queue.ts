import type { DataSource, EntityManager } from "typeorm";
import type { Logger } from "pino";
import { clock } from "../common/clock.js";

/**
 * What a job's handler may use beyond its payload: `done(tx)` marks the job done inside the
 * handler's own transaction, so its changes and its completion commit together and a crash can
 * neither lose the job nor run it twice (it throws, rolling that transaction back, when this run
 * lost the job: its lease lapsed and another instance took it). A handler that does not call it is
 * marked done after it returns (at least once), so it must change nothing on a second run: it
 * works in batches, each of which checks and marks its records' state under a row lock or a unique
 * key in the transaction that writes its effects (test/api/jobs.test.ts runs every handler twice).
 */
export type JobRun = { id: string; attempt: number; done(tx: EntityManager): Promise<void> };
export type JobHandler = (ds: DataSource, payload: any, log: Logger, job: JobRun) => Promise<void>;
const handlers = new Map<string, JobHandler>();

export function registerJobHandler(name: string, handler: JobHandler): void {
  handlers.set(name, handler);
}

/** The handlers registered, by job name (test/api/jobs.test.ts runs each one twice on one job). */
export function registeredJobHandlers(): ReadonlyMap<string, JobHandler> {
  return handlers;
}

/**
 * Queues a job in PostgreSQL, in the caller's transaction. A singleton key makes it idempotent:
 * "reminder:permit-123:30d" is queued once however often the caller asks.
 */
export async function enqueueJob(
  tx: EntityManager | DataSource,
  job: { name: string; payload?: unknown; runAt?: Date; singletonKey?: string; maxAttempts?: number },
): Promise<void> {
  await tx.query(
    `INSERT INTO job (name, payload, run_at, singleton_key, max_attempts) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (singleton_key) DO NOTHING`,
    [job.name, JSON.stringify(job.payload ?? {}), job.runAt ?? clock.now(), job.singletonKey ?? null, job.maxAttempts ?? 5],
  );
}

export type JobRow = { id: string; name: string; payload: unknown; attempts: number; max_attempts: number };

/** How long a claim lasts unless its runner renews it (every third of it, while the job runs). */
export const JOB_LEASE_MS = 60_000;

export type RunOptions = {
  /** the claim's lease (JOB_LEASE_MS); a runner that died is replaced when it lapses */
  leaseMs?: number;
  /** asked before each claimed job starts: when true (shutting down) the rest go back to the queue */
  stopping?: () => boolean;
};

// A run owns its job while the row is running with its attempt number: `attempts` is the fencing
// token, since each claim increments it.
const OWNED = `id = $1 AND status = 'running' AND attempts = $2`;

/**
 * Claims due jobs with FOR UPDATE SKIP LOCKED, so with several app instances each job runs once;
 * the claim is a lease renewed while the job runs, so a job whose runner died (killed, lost its
 * database) is taken again when the lease lapses, and one that runs long is never taken twice.
 * Jobs claimed but not started when `stopping()` turns true go back to the queue as they were.
 * Returns how many were claimed.
 */
export async function runDueJobs(ds: DataSource, log: Logger, limit = 5, opts: RunOptions = {}): Promise<number> {
  const leaseMs = opts.leaseMs ?? JOB_LEASE_MS;
  const claimed = await claimDueJobs(ds, limit, leaseMs);
  for (const [i, job] of claimed.entries()) {
    if (opts.stopping?.()) {
      const rest = claimed.slice(i);
      await ds.query(
        `UPDATE job SET status = 'queued', attempts = attempts - 1, locked_until = NULL
          WHERE status = 'running' AND (id, attempts) IN (SELECT * FROM unnest($1::uuid[], $2::int[]))`,
        [rest.map((j) => j.id), rest.map((j) => j.attempts)],
      );
      log.info({ jobs: rest.length }, "shutting down: claimed jobs handed back to the queue");
      break;
    }
    await runClaimedJob(ds, log, job, leaseMs);
  }
  return claimed.length;
}

/** Claims up to `limit` due jobs (and those whose lease lapsed), each with the next attempt number. */
export async function claimDueJobs(ds: DataSource, limit: number, leaseMs = JOB_LEASE_MS): Promise<JobRow[]> {
  // run_at is on the rules' clock (api/common/clock.ts), so moved time in tests makes reminders due.
  return ds.query(
    `UPDATE job SET status = 'running', attempts = attempts + 1, locked_until = now() + make_interval(secs => $3)
      WHERE id IN (SELECT id FROM job
                    WHERE (status = 'queued' AND run_at <= $2) OR (status = 'running' AND locked_until < now())
                    ORDER BY run_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING id, name, payload, attempts, max_attempts`,
    [limit, clock.now(), leaseMs / 1000],
  ).then((r: any) => (Array.isArray(r[0]) ? r[0] : r));
}

/** What a claimed job's handler is given: `done(tx)` completes the job in the handler's transaction, fenced by the attempt. */
export function jobRunOf(job: Pick<JobRow, "id" | "attempts">): JobRun & { completed: boolean } {
  const run = {
    id: job.id,
    attempt: job.attempts,
    completed: false,
    async done(tx: EntityManager) {
      const r = await tx.query(`UPDATE job SET status = 'done', finished_at = now(), locked_until = NULL WHERE ${OWNED} RETURNING id`, [job.id, job.attempts]);
      if (!(Array.isArray(r[0]) ? r[0] : r).length) throw new Error(`job ${job.id} is no longer this run's (its lease lapsed)`);
      run.completed = true;
    },
  };
  return run;
}

/** Runs one claimed job: its handler, the lease renewed meanwhile, then its completion or its failure (both fenced by the attempt). */
export async function runClaimedJob(ds: DataSource, log: Logger, job: JobRow, leaseMs = JOB_LEASE_MS): Promise<void> {
  const handler = handlers.get(job.name);
  const run = jobRunOf(job);
  const renew = setInterval(() => {
    ds.query(`UPDATE job SET locked_until = now() + make_interval(secs => $3) WHERE ${OWNED}`, [job.id, job.attempts, leaseMs / 1000]).catch((err) =>
      log.warn({ err, jobId: job.id }, "job lease not renewed"),
    );
  }, leaseMs / 3);
  renew.unref();
  try {
    if (!handler) throw new Error(`no handler registered for job ${job.name}`);
    await handler(ds, job.payload, log.child({ job: job.name, jobId: job.id }), run);
    clearInterval(renew);
    if (!run.completed) await ds.query(`UPDATE job SET status = 'done', finished_at = now(), locked_until = NULL WHERE ${OWNED}`, [job.id, job.attempts]);
  } catch (err: any) {
    clearInterval(renew);
    const failed = job.attempts >= job.max_attempts;
    log.warn({ err, job: job.name, jobId: job.id, attempt: job.attempts }, failed ? "job failed for good" : "job failed; will retry");
    await ds.query(
      `UPDATE job SET status = $3, last_error = $4, locked_until = NULL,
              run_at = $6::timestamptz + make_interval(secs => $5), finished_at = CASE WHEN $3 = 'failed' THEN now() END
        WHERE ${OWNED}`,
      [job.id, job.attempts, failed ? "failed" : "queued", String(err?.message ?? err).slice(0, 2000), 30 * 2 ** job.attempts, clock.now()],
    );
  }
}

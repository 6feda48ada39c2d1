import type { DataSource, EntityManager } from "typeorm";
import type { Logger } from "pino";
import { clock } from "../common/clock.js";

export type JobHandler = (ds: DataSource, payload: any, log: Logger) => Promise<void>;
const handlers = new Map<string, JobHandler>();

export function registerJobHandler(name: string, handler: JobHandler): void {
  handlers.set(name, handler);
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

type JobRow = { id: string; name: string; payload: unknown; attempts: number; max_attempts: number };

/**
 * Claims due jobs with FOR UPDATE SKIP LOCKED, so with several app instances each job runs once;
 * a job whose runner died is taken again when its lock lapses. Returns how many ran.
 */
export async function runDueJobs(ds: DataSource, log: Logger, limit = 5): Promise<number> {
  // run_at is on the rules' clock (api/common/clock.ts), so moved time in tests makes reminders due.
  const claimed: JobRow[] = await ds.query(
    `UPDATE job SET status = 'running', attempts = attempts + 1, locked_until = now() + interval '5 minutes'
      WHERE id IN (SELECT id FROM job
                    WHERE (status = 'queued' AND run_at <= $2) OR (status = 'running' AND locked_until < now())
                    ORDER BY run_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING id, name, payload, attempts, max_attempts`,
    [limit, clock.now()],
  ).then((r: any) => (Array.isArray(r[0]) ? r[0] : r));
  for (const job of claimed) {
    const handler = handlers.get(job.name);
    try {
      if (!handler) throw new Error(`no handler registered for job ${job.name}`);
      await handler(ds, job.payload, log.child({ job: job.name, jobId: job.id }));
      await ds.query(`UPDATE job SET status = 'done', finished_at = now(), locked_until = NULL WHERE id = $1`, [job.id]);
    } catch (err: any) {
      const failed = job.attempts >= job.max_attempts;
      log.warn({ err, job: job.name, jobId: job.id, attempt: job.attempts }, failed ? "job failed for good" : "job failed; will retry");
      await ds.query(
        `UPDATE job SET status = $2, last_error = $3, locked_until = NULL,
                run_at = $5::timestamptz + make_interval(secs => $4), finished_at = CASE WHEN $2 = 'failed' THEN now() END
          WHERE id = $1`,
        [job.id, failed ? "failed" : "queued", String(err?.message ?? err).slice(0, 2000), 30 * 2 ** job.attempts, clock.now()],
      );
    }
  }
  return claimed.length;
}

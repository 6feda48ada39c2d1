import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import type { Config } from "../config.js";
import { clock } from "../common/clock.js";
import { registerOutboxSender } from "../outbox/sender.js";
import { enqueueJob, runDueJobs } from "./queue.js";

/** Recurring jobs: each slot's singleton key makes one instance run it once per period. */
const RECURRING: { name: string; everyMs: number }[] = [
  { name: "outbox.send", everyMs: 30_000 },
  { name: "contractors.expiry-reminders", everyMs: 24 * 60 * 60 * 1000 }, // daily; api/contractors/contractors.service.ts
  { name: "haulers.expiry-reminders", everyMs: 24 * 60 * 60 * 1000 }, // daily; api/haulers/haulers.service.ts (emails link to PUBLIC_URL)
  { name: "extensions.guarantee-reminders", everyMs: 24 * 60 * 60 * 1000 }, // daily; api/extensions/acceptance.service.ts (SUL 507)
  { name: "rents.late-charges", everyMs: 60 * 60 * 1000 }, // hourly, so each district's day starts with its late charges whatever its zone; api/rents/late-charges.service.ts
  { name: "septic.reminders", everyMs: 24 * 60 * 60 * 1000 }, // daily; api/septic/reminders.service.ts (pump-outs due, SUL 405 notices)
  { name: "inflow.order-reminders", everyMs: 24 * 60 * 60 * 1000 }, // daily; api/inflow/reminders.service.ts (disconnection orders' dates, SUL 702)
  { name: "accounts.prune-attempts", everyMs: 24 * 60 * 60 * 1000 }, // daily; api/accounts/attempts.ts (rate-limit attempts kept 30 days)
  { name: "rents.autopay", everyMs: 60 * 60 * 1000 }, // hourly: each bill is charged in the first hour of its due date in its district's zone; api/rents/autopay-charges.ts
  { name: "rents.quick-pay-expiry", everyMs: 60 * 60 * 1000 }, // hourly: quick-pay payments whose checkout expired (24 hours) are cancelled; api/rents/quick-pay.ts
];

export type WorkerOptions = { pollMs?: number; leaseMs?: number };

/**
 * Polls the queue every pollMs. The function returned stops it for a graceful shutdown: no new
 * claim, the job running finishes, and jobs claimed but not started go back to the queue.
 */
export function startWorkers(ds: DataSource, config: Config, log: Logger, opts: WorkerOptions = {}): () => Promise<void> {
  registerOutboxSender(config);
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const run = { leaseMs: opts.leaseMs, stopping: () => stopped };
  const tick = async () => {
    if (stopped) return;
    const now = clock.now().getTime();
    for (const r of RECURRING) {
      const slot = Math.floor(now / r.everyMs);
      await enqueueJob(ds, { name: r.name, singletonKey: `${r.name}:${slot}`, maxAttempts: 1, payload: { publicUrl: config.publicUrl } });
    }
    while (!stopped && (await runDueJobs(ds, log, 5, run)) > 0);
  };
  const timer = setInterval(() => {
    running = running.then(tick).catch((err) => log.error({ err }, "job worker tick failed"));
  }, opts.pollMs ?? 5_000);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

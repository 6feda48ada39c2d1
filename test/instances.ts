/**
 * App instances as child processes on one PostgreSQL database, for the tests of several instances,
 * graceful shutdown and crashes (test/api/instances.test.ts, test/api/shutdown.test.ts).
 *
 * Run as a script (by startInstance) this file is the child: the real server (API only, workers
 * polling every 100 ms) with two test-only additions: a job `test.effect` that records its effect
 * and its completion in one transaction, and a payable `CrashTestFee` whose payment writes a row.
 * Told a regular expression (`crashAfter`), the child kills itself with SIGKILL right after the
 * first SQL statement matching it has run: a chosen point, inside a transaction or between two.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type Instance = {
  url: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  /** from now on, SIGKILL right after the first statement matching `sql` (and, when given, whose values or result rows hold `marker`) */
  crashAfter(sql: RegExp, marker?: string): Promise<void>;
};

const self = fileURLToPath(import.meta.url);

/** Starts a child instance on `databaseUrl` and resolves once it listens. */
export async function startInstance(
  databaseUrl: string,
  opts: { env?: Record<string, string>; leaseMs?: number; drainMs?: number } = {},
): Promise<Instance> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-instance-"));
  const child = spawn(process.execPath, ["--import", "tsx", self], {
    env: {
      ...process.env,
      TAPLINE_TEST_CHILD: "1",
      NODE_ENV: "test",
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      TAPLINE_DATA_DIR: dataDir,
      SESSION_SECRET: "test-secret-test-secret-test-secret-0123",
      PUBLIC_URL: "http://tapline.test",
      LOG_LEVEL: process.env.TEST_LOG ?? "warn",
      TEST_LEASE_MS: String(opts.leaseMs ?? 60_000),
      TEST_DRAIN_MS: String(opts.drainMs ?? 0),
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on("exit", (code, signal) => r({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /TEST_READY (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    void exited.then((e) => reject(new Error(`instance exited (${e.code ?? e.signal}) before listening:\n${out.slice(-3000)}`)));
  });
  const crashAfter = (sql: RegExp, marker?: string) =>
    new Promise<void>((resolve) => {
      child.once("message", () => resolve());
      child.send({ crashAfter: sql.source, marker });
    });
  return { url, child, exited, output: () => out, crashAfter };
}

async function childMain(): Promise<void> {
  let crash: RegExp | null = null;
  let marker: string | undefined;
  process.on("message", (m: { crashAfter: string; marker?: string }) => {
    crash = new RegExp(m.crashAfter);
    marker = m.marker;
    process.send!({ ok: true });
  });
  process.channel?.unref();
  const pg = (await import("pg")).default;
  const query = pg.Client.prototype.query as (...a: any[]) => any;
  pg.Client.prototype.query = function (this: unknown, ...args: any[]) {
    const text = typeof args[0] === "string" ? args[0] : args[0]?.text;
    const result = query.apply(this, args);
    const values = JSON.stringify((typeof args[0] === "string" ? args[1] : args[0]?.values) ?? []);
    if (crash && typeof text === "string" && crash.test(text) && result && typeof result.then === "function")
      return result.then((r: { rows?: unknown[] }) => {
        if (marker !== undefined && !values.includes(marker) && !JSON.stringify(r?.rows ?? []).includes(marker)) return r;
        process.kill(process.pid, "SIGKILL");
        return new Promise(() => {});
      });
    return result;
  } as any;
  const { loadConfig } = await import("../api/config.js");
  const { closeOnSignals, startTapline } = await import("./../api/app.js");
  const { registerJobHandler } = await import("../api/jobs/queue.js");
  const { registerPayable } = await import("../api/payments/payables.js");
  const { pino } = await import("pino");

  registerJobHandler("test.effect", async (ds, payload: { n: number; ms?: number }, _log, job) => {
    if (payload.ms) await new Promise((r) => setTimeout(r, payload.ms));
    await ds.transaction(async (tx) => {
      await tx.query(`INSERT INTO test_job_effect (n, attempt, pid) VALUES ($1, $2, $3)`, [payload.n, job.attempt, process.pid]);
      await job.done(tx);
    });
  });
  registerPayable("CrashTestFee", {
    async onPaid(tx, payment) {
      await tx.query(`INSERT INTO test_paid_for (payment_id) VALUES ($1)`, [payment.id]);
    },
    async title(id) {
      return `Crash test fee ${id.slice(0, 8)}`;
    },
    href: (id) => `/crash-test-fees/${id}`,
  });

  const config = loadConfig();
  const running = await startTapline(config, {
    portal: "none",
    workers: { pollMs: 100, leaseMs: Number(process.env.TEST_LEASE_MS) },
    log: pino({ level: config.logLevel }),
  });
  closeOnSignals(running, { drainMs: Number(process.env.TEST_DRAIN_MS) });
  process.stdout.write(`TEST_READY ${running.url}\n`);
}

if (process.env.TAPLINE_TEST_CHILD === "1" && process.argv[1] === self) await childMain();

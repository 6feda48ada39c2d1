import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueJob, registerJobHandler, runDueJobs } from "../../api/jobs/queue.js";
import { startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());
const log = pino({ level: "silent" });

describe("job queue in PostgreSQL", () => {
  it("queues a singleton once, runs each job once even with two runners, and retries a failure", async () => {
    const ds = srv.running.ds;
    const seen: string[] = [];
    let failures = 1;
    registerJobHandler("test.record", async (_ds, p) => {
      seen.push(p.n);
    });
    registerJobHandler("test.flaky", async () => {
      if (failures-- > 0) throw new Error("mail server down");
      seen.push("flaky");
    });
    for (let i = 0; i < 6; i++) await enqueueJob(ds, { name: "test.record", payload: { n: String(i) } });
    await enqueueJob(ds, { name: "test.record", payload: { n: "once" }, singletonKey: "reminder:x:30d" });
    await enqueueJob(ds, { name: "test.record", payload: { n: "twice?" }, singletonKey: "reminder:x:30d" });
    await enqueueJob(ds, { name: "test.flaky" });
    await Promise.all([runDueJobs(ds, log, 3), runDueJobs(ds, log, 3), runDueJobs(ds, log, 3)]);
    expect(seen.sort()).toEqual(["0", "1", "2", "3", "4", "5", "once"]);
    const [flaky] = await ds.query(`SELECT status, attempts, last_error FROM job WHERE name = 'test.flaky'`);
    expect(flaky).toMatchObject({ status: "queued", attempts: 1, last_error: "mail server down" });
    // A second back: the runner's clock is Node's (milliseconds), PostgreSQL's now() has microseconds.
    await ds.query(`UPDATE job SET run_at = now() - interval '1 second' WHERE name = 'test.flaky'`);
    await runDueJobs(ds, log);
    expect(seen).toContain("flaky");
    expect((await ds.query(`SELECT count(*)::int AS n FROM job WHERE status <> 'done'`))[0].n).toBe(0);
  });
});

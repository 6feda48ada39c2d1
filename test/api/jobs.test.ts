import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advanceClock, DAY_MS, resetClock } from "../../api/common/clock.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { claimDueJobs, enqueueJob, jobRunOf, registeredJobHandlers, registerJobHandler, runClaimedJob, runDueJobs } from "../../api/jobs/queue.js";
import { registerOutboxSender } from "../../api/outbox/sender.js";
import { DEMO, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { issueTestBill } from "../rents-fixtures.js";

let srv: TestServer;
let smtp: SMTPServer;
const received: { messageId: string; data: string }[] = [];
beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, cb) {
      let data = "";
      stream.on("data", (c) => (data += c));
      stream.on("end", () => {
        received.push({ messageId: /^Message-ID: *(.*)$/im.exec(data)?.[1]?.trim() ?? "", data });
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", () => r()));
  srv = await startTestServer();
}, 120_000);
afterAll(async () => {
  resetClock();
  await srv?.close();
  await new Promise<void>((r) => smtp?.close(() => r()));
});
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

/**
 * Every registered handler, run twice on one job, changes nothing the second time: no email, ledger
 * entry, payment, audit entry or any other row doubled. Two ways a job runs twice:
 * - its run died after the handler's last commit and before the job was marked done (a SIGKILL
 *   there): the lease lapses and another runner runs it again;
 * - its lease lapsed while the first run was still going (a stalled process): a second runner took
 *   it and finished, then the first one goes on.
 * A handler that completes the job in its own transaction (`job.done(tx)`) is never run again after
 * its commit, and the stalled run's transaction rolls back; the others find their work done (their
 * state checks and unique keys, under row locks, in the transaction that writes the effect).
 * The demo scenes, with the rules' clock moved on, give the handlers work: late charges on an unpaid
 * bill of the rents scene, the contractor's and the hauler's expiry reminders, the industrial
 * permit's report reminders, a password reset, and the emails all that queues, sent over SMTP.
 */
describe("every job handler, run twice on one job", () => {
  const rowCounts = async (): Promise<Record<string, number>> => {
    const ds = srv.running.ds;
    const tables: { t: string }[] = await ds.query(
      `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('job', 'migrations') ORDER BY 1`,
    );
    const rows: { t: string; n: number }[] = await ds.query(tables.map(({ t }) => `SELECT '${t}' AS t, count(*)::int AS n FROM "${t}"`).join(" UNION ALL "));
    return Object.fromEntries(rows.map((r) => [r.t, r.n]));
  };
  const changed = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(Object.keys(after).filter((t) => after[t] !== before[t]).map((t) => [t, after[t] - (before[t] ?? 0)]));

  async function twice(name: string, payload: Record<string, unknown>): Promise<Record<string, number>> {
    const ds = srv.running.ds;
    const handler = registeredJobHandlers().get(name)!;
    const before = await rowCounts();
    await ds.query(`UPDATE job SET run_at = now() + interval '100 years' WHERE status = 'queued'`); // only this job is due
    await enqueueJob(ds, { name, payload, runAt: new Date(0) });
    const [first] = await claimDueJobs(ds, 1);
    expect(first).toMatchObject({ name, attempts: 1 });
    // 1. The first run does all its work; its process dies before the job is marked done.
    await handler(ds, first.payload, log, jobRunOf(first));
    const once = await rowCounts();
    // 2. Its lease lapses; another runner claims the job (unless it completed with its work) and runs it whole.
    await ds.query(`UPDATE job SET locked_until = now() - interval '1 second' WHERE id = $1 AND status = 'running'`, [first.id]);
    const again = await claimDueJobs(ds, 5);
    for (const j of again) await runClaimedJob(ds, log, j);
    expect(changed(once, await rowCounts())).toEqual({});
    // 3. The first run, stalled rather than dead, goes on: its completion is refused (rolled back) or it finds nothing to do.
    await handler(ds, first.payload, log, jobRunOf(first)).catch((e) => expect(String(e)).toMatch(/no longer this run's/));
    expect(changed(once, await rowCounts())).toEqual({});
    const [job] = await ds.query(`SELECT status FROM job WHERE id = $1`, [first.id]);
    expect(job.status).toBe("done");
    await ds.query(`UPDATE job SET run_at = now() WHERE status = 'queued' AND run_at > now() + interval '99 years'`);
    return changed(before, once);
  }

  it("sends no second email, posts no second charge and writes no row twice", async () => {
    const ds = srv.running.ds;
    await loadDemoScenes(ds, srv.url, srv.config);
    const port = (smtp.server.address() as AddressInfo).port;
    registerOutboxSender({ smtp: { host: "127.0.0.1", port, from: "Lakeview Sewer District <clerk@lakeview.example.gov>" } } as any);
    const publicUrl = srv.url;
    // A Lakeview sewer account whose owner signs in, with a bill unpaid since October: late charges are due (SUL 1118).
    const clerk = await signedInAs(srv.url, DEMO.lakeviewClerk);
    const { district } = await clerk.ok(`{ district(slug: "lakeview") { id } }`);
    const { addSewerProperty: property } = await clerk.ok(`mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`, {
      i: { districtId: district.id, taxParcel: "88.1-1-1", streetNumber: "1", street: "Queue Lane", zip: "13600", ownerName: "Owner One", ownerSince: "2020-01-01", ownerEmail: DEMO.applicant },
    });
    const { openServiceAccount: acct } = await clerk.ok(`mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id } }`, {
      i: { propertyId: property.id, class: "RESIDENTIAL", occupantName: "Occupant One", openedOn: "2024-01-01" },
    });
    await issueTestBill(ds, { id: acct.id, propertyId: property.id, districtId: district.id }, { cycle: "OTHER", periodStart: "2026-07-01", periodEnd: "2026-09-30", mailedOn: "2026-10-01", dueOn: "2026-10-31", totalCents: 12_345 }, "JOBS");
    const uuid = "00000000-0000-4000-8000-000000000000";
    // Jobs the scenes queued (the industrial permit's reminders), by name, with their own payloads.
    const queued: { name: string; payload: any }[] = await ds.query(`SELECT DISTINCT ON (name) name, payload FROM job WHERE status = 'queued' ORDER BY name, run_at`);
    const payloads: Record<string, Record<string, unknown>> = {
      "account.password-reset": { email: DEMO.applicant, publicUrl },
      ...Object.fromEntries(queued.map((q) => [q.name, q.payload])),
    };
    const effects: Record<string, Record<string, number>> = {};
    // Three points of the rules' clock: now, a month on (bills past due), eleven months on (licences, bonds and certificates ending).
    for (const move of [0, 35 * DAY_MS, 300 * DAY_MS]) {
      advanceClock(move);
      for (const name of [...registeredJobHandlers().keys()].filter((n) => !n.startsWith("test.") && n !== "outbox.send").sort()) {
        const e = await twice(name, payloads[name] ?? { publicUrl, reportId: uuid, permitId: uuid, modificationId: uuid, paymentId: uuid, sessionId: "cs_none", dueOn: "2026-01-01", dueAt: new Date().toISOString(), milestoneIndex: 0, progressDueOn: "2026-01-01", deadline: "2026-01-01", expiresOn: "2026-01-01" });
        if (Object.keys(e).length) effects[name] = { ...effects[name], ...e };
      }
    }
    // Not vacuous: the handlers with work did it, once.
    expect(Object.keys(effects)).toEqual(expect.arrayContaining(["account.password-reset", "rents.late-charges", "contractors.expiry-reminders", "haulers.expiry-reminders"]));
    for (const name of ["account.password-reset", "rents.late-charges", "contractors.expiry-reminders", "haulers.expiry-reminders"]) expect(effects[name].outbox_email).toBeGreaterThan(0);
    expect(effects["rents.late-charges"].account_ledger_entry).toBeGreaterThan(0);

    // The outbox: two senders at once and a run repeated send each email once.
    const unsent = (await ds.query(`SELECT count(*)::int AS n FROM outbox_email WHERE sent_at IS NULL`))[0].n;
    expect(unsent).toBeGreaterThan(0);
    await twice("outbox.send", {});
    await Promise.all([enqueueJob(ds, { name: "outbox.send", singletonKey: "a" }), enqueueJob(ds, { name: "outbox.send", singletonKey: "b" })]);
    await Promise.all([runDueJobs(ds, log, 1), runDueJobs(ds, log, 1)]);
    for (let i = 0; i < 50 && (await ds.query(`SELECT count(*)::int AS n FROM outbox_email WHERE sent_at IS NULL`))[0].n > 0; i++) {
      await enqueueJob(ds, { name: "outbox.send" });
      await runDueJobs(ds, log); // each run sends at most 50
    }
    expect((await ds.query(`SELECT count(*)::int AS n FROM outbox_email WHERE sent_at IS NULL`))[0].n).toBe(0);
    // Every email marked sent reached the mail server once (more were queued meanwhile by the scenes' reminders, due again).
    const sent = (await ds.query(`SELECT count(*)::int AS n FROM outbox_email WHERE sent_at IS NOT NULL`))[0].n;
    expect(sent).toBeGreaterThanOrEqual(unsent);
    expect(received.length).toBe(sent);
    expect(new Set(received.map((r) => r.messageId)).size).toBe(sent);
  }, 300_000);
});

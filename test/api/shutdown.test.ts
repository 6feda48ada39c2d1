import http from "node:http";
import { randomUUID } from "node:crypto";
import pg from "pg";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO, signedInAs } from "../harness.js";
import { freshDatabase, REAL_PG, type TestDatabase } from "../db.js";
import { startInstance, type Instance } from "../instances.js";

/**
 * Stopping and crashing, with app instances as child processes on one PostgreSQL:
 * - SIGTERM under load: the health check says "draining" while requests keep being answered (the
 *   load, like a load balancer polling it, then sends new ones to the other instance), requests in
 *   flight are answered, the job running finishes and claimed ones go back to the queue, then the
 *   process exits; no request fails (one refused at connect, before anything was sent, would go to
 *   the other instance, as a proxy does) and every job runs once.
 * - SIGKILL at chosen points of a payment webhook, a job and a multi-step mutation (right after the
 *   path's own write, inside its transaction), and at random moments of each: after the restart
 *   each transaction is whole or absent, no payment is paid twice or lost, no job lost.
 * PGlite serves one connection to one process, so this needs DATABASE_URL.
 */
const WEBHOOK_SECRET = "whsec_crash";
const ENV = { STRIPE_SECRET_KEY: "sk_test_crash", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET };
const LEASE_MS = 1_000;
const ME = JSON.stringify({ query: `{ me { id } }` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let db: TestDatabase;
let sql: pg.Client;
let live: Instance | undefined;
let a: Instance;
const start = (opts: { drainMs?: number } = {}) => startInstance(db.databaseUrl!, { env: ENV, leaseMs: LEASE_MS, ...opts });

/** One POST on a connection of its own (no keep-alive); resolves with the status, or rejects with the socket's error code. */
function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/graphql`, { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", (e: NodeJS.ErrnoException) => reject(e));
    req.end(body);
  });
}

async function waitFor(what: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await sleep(50);
  }
}
const one = async (q: string, params: unknown[] = []) => (await sql.query(q, params)).rows[0];

/**
 * SIGKILL at a random moment while `act` runs on the live instance (0 to `withinMs` after it
 * starts: somewhere in the path, or just after it), then a new instance. The moment is printed, so
 * a failing one can be tried again.
 */
async function killAtRandom(what: string, act: (url: string) => Promise<unknown>, withinMs: number): Promise<void> {
  const delay = Math.floor(Math.random() * withinMs);
  console.log(`SIGKILL ${delay} ms into ${what}`);
  const acting = act(live!.url).catch(() => null);
  await sleep(delay);
  live!.child.kill("SIGKILL");
  await live!.exited;
  await acting;
  live = await start();
}
const timed = async (act: () => Promise<unknown>): Promise<number> => {
  const t = Date.now();
  await act();
  return Math.max(20, Date.now() - t);
};

describe.skipIf(!REAL_PG)("shutdown and crashes (skipped without DATABASE_URL: PGlite serves one connection, so one instance)", () => {
  beforeAll(async () => {
    db = await freshDatabase();
    sql = new pg.Client({ connectionString: db.databaseUrl });
    await sql.connect();
    await sql.query(`CREATE TABLE test_job_effect (n int NOT NULL, attempt int NOT NULL, pid int NOT NULL)`);
    await sql.query(`CREATE TABLE test_paid_for (payment_id uuid NOT NULL)`);
    [a, live] = await Promise.all([start({ drainMs: 1_500 }), start()]);
  }, 180_000);
  afterAll(async () => {
    live?.child.kill("SIGTERM");
    await live?.exited;
    await sql?.end();
    await db?.drop();
  });

  it("SIGTERM under load: draining, every request answered, the jobs finished or handed back, each run once", async () => {
    const b = live!;
    const cookie = (await signedInAs(a.url, DEMO.applicant)).cookieHeader;
    const jobs = 24;
    await sql.query(`INSERT INTO job (name, payload) SELECT 'test.effect', jsonb_build_object('n', i, 'ms', 150) FROM generate_series(1, $1) i`, [jobs]);

    let aUp = true;
    let stop = false;
    const failures: string[] = [];
    let answered = 0;
    let terminated = false;
    let answeredByAAfterSigterm = 0;
    const loop = async (k: number) => {
      for (let i = k; !stop; i++) {
        const first = aUp && i % 2 === 0 ? a : b;
        try {
          const status = await post(first.url, ME, { cookie });
          if (status !== 200) failures.push(`status ${status}`);
          else {
            answered++;
            if (first === a && terminated) answeredByAAfterSigterm++;
          }
        } catch (e: any) {
          // Refused at connect: nothing was sent, so a proxy sends it to the other instance.
          if (e.code !== "ECONNREFUSED" || first !== a) {
            failures.push(e.code ?? String(e));
            continue;
          }
          aUp = false;
          const status = await post(b.url, ME, { cookie }).catch((e2) => e2.code);
          if (status === 200) answered++;
          else failures.push(`retried: ${status}`);
        }
      }
    };
    const loops = Array.from({ length: 6 }, (_, k) => loop(k));
    await waitFor(async () => Number((await one(`SELECT count(*)::int AS n FROM job WHERE name = 'test.effect' AND status = 'done'`)).n) >= 2);
    const answeredBefore = answered;
    a.child.kill("SIGTERM");
    terminated = true;
    // While it drains (drainMs) the health check says so, and it still answers. The load, like a
    // load balancer polling the health check, sends no new request there once it has seen it.
    let health = await fetch(`${a.url}/healthz`);
    for (let i = 0; i < 20 && health.status === 200; i++) health = await sleep(25).then(() => fetch(`${a.url}/healthz`));
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "draining" });
    aUp = false;
    const exit = await a.exited;
    await sleep(300);
    stop = true;
    await Promise.all(loops);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(answeredBefore);
    expect(answeredByAAfterSigterm).toBeGreaterThan(0); // in flight at the signal, or sent while it drained
    await waitFor(async () => Number((await one(`SELECT count(*)::int AS n FROM job WHERE name = 'test.effect' AND status = 'done'`)).n) === jobs);
    const effects = (await sql.query(`SELECT n, count(*)::int AS times FROM test_job_effect GROUP BY n`)).rows;
    expect(effects).toHaveLength(jobs);
    expect(effects.filter((e) => e.times !== 1)).toEqual([]);
    // A's jobs: it finished the one running, or handed it back; none left claimed by a dead process.
    expect(await one(`SELECT count(*)::int AS n FROM job WHERE status = 'running'`)).toEqual({ n: 0 });
  }, 60_000);

  it("SIGKILL in a payment webhook's transaction: nothing of it is kept; Stripe's retry pays it once", async () => {
    const [{ id: districtId }] = (await sql.query(`SELECT id FROM district WHERE slug = 'lakeview'`)).rows;
    const { id: versionId } = await one(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [districtId]);
    const { id: payerId } = await one(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
    const sessionId = `cs_test_${randomUUID().replaceAll("-", "")}`;
    const { id: paymentId } = await one(
      `INSERT INTO payment (district_id, payer_id, payable_type, payable_id, status, lines, amount_cents, currency, rulebook_version_id, provider, provider_session_id)
       VALUES ($1, $2, 'CrashTestFee', $3, 'PENDING', $4, 15000, 'usd', $5, 'stripe', $6) RETURNING id`,
      [districtId, payerId, randomUUID(), JSON.stringify([{ code: "fee", label: "Crash test fee", section: "SUL 1212", amountCents: 15000, refundable: false }]), versionId, sessionId],
    );
    const event = {
      id: `evt_${randomUUID().replaceAll("-", "")}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: { object: { object: "checkout.session", id: sessionId, payment_status: "paid", amount_total: 15000, currency: "usd", client_reference_id: paymentId, payment_intent: "pi_crash" } },
    };
    const deliver = (url: string) => {
      const payload = JSON.stringify(event);
      const header = new Stripe("sk_test_crash").webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      return fetch(`${url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload });
    };
    const state = () =>
      one(
        `SELECT p.status, p.receipt_number IS NOT NULL AS receipted,
                (SELECT count(*)::int FROM test_paid_for WHERE payment_id = p.id) AS paid_for,
                (SELECT count(*)::int FROM payment_event WHERE provider_event_id = $2) AS events,
                (SELECT count(*)::int FROM audit_entry WHERE entity_id = p.id::text AND action LIKE 'payment.paid%') AS audits
           FROM payment p WHERE p.id = $1`,
        [paymentId, event.id],
      );

    // Killed right after the payable's own write, with the payment already marked paid in the transaction.
    await live!.crashAfter(/INSERT INTO test_paid_for/);
    await expect(deliver(live!.url)).rejects.toThrow();
    expect(await live!.exited).toMatchObject({ signal: "SIGKILL" });
    expect(await state()).toEqual({ status: "PENDING", receipted: false, paid_for: 0, events: 0, audits: 0 });

    live = await start();
    expect((await deliver(live.url)).status).toBe(200); // Stripe sends it again, having had no 200
    const paid = await state();
    expect(paid).toEqual({ status: "PAID", receipted: true, paid_for: 1, events: 1, audits: 1 });
    expect((await deliver(live.url)).status).toBe(200);
    expect(await state()).toEqual(paid);
  }, 120_000);

  it("SIGKILL at random moments of payment webhooks: each payment paid once or not yet, and paid once when Stripe sends it again", async () => {
    const [{ id: districtId }] = (await sql.query(`SELECT id FROM district WHERE slug = 'lakeview'`)).rows;
    const { id: versionId } = await one(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [districtId]);
    const { id: payerId } = await one(`SELECT id FROM app_user WHERE email = $1`, [DEMO.applicant]);
    const payment = async () => {
      const sessionId = `cs_test_${randomUUID().replaceAll("-", "")}`;
      const { id } = await one(
        `INSERT INTO payment (district_id, payer_id, payable_type, payable_id, status, lines, amount_cents, currency, rulebook_version_id, provider, provider_session_id)
         VALUES ($1, $2, 'CrashTestFee', $3, 'PENDING', $4, 15000, 'usd', $5, 'stripe', $6) RETURNING id`,
        [districtId, payerId, randomUUID(), JSON.stringify([{ code: "fee", label: "Crash test fee", section: "SUL 1212", amountCents: 15000, refundable: false }]), versionId, sessionId],
      );
      const payload = JSON.stringify({
        id: `evt_${randomUUID().replaceAll("-", "")}`,
        object: "event",
        type: "checkout.session.completed",
        created: Math.floor(Date.now() / 1000),
        data: { object: { object: "checkout.session", id: sessionId, payment_status: "paid", amount_total: 15000, currency: "usd", client_reference_id: id, payment_intent: `pi_${id}` } },
      });
      const deliver = (url: string) =>
        fetch(`${url}/webhooks/stripe`, {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": new Stripe("sk_test_crash").webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
          body: payload,
        });
      const state = () =>
        one(
          `SELECT p.status, p.receipt_number IS NOT NULL AS receipted, (SELECT count(*)::int FROM test_paid_for WHERE payment_id = p.id) AS paid_for,
                  (SELECT count(*)::int FROM audit_entry WHERE entity_id = p.id::text AND action LIKE 'payment.paid%') AS audits
             FROM payment p WHERE p.id = $1`,
          [id],
        );
      return { deliver, state };
    };
    const NOT_YET = { status: "PENDING", receipted: false, paid_for: 0, audits: 0 };
    const PAID = { status: "PAID", receipted: true, paid_for: 1, audits: 1 };
    const first = await payment();
    const ms = await timed(() => first.deliver(live!.url));
    expect(await first.state()).toEqual(PAID);
    for (let i = 0; i < 3; i++) {
      const p = await payment();
      await killAtRandom("a payment webhook", p.deliver, ms * 1.5);
      expect([NOT_YET, PAID]).toContainEqual(await p.state()); // whole or absent
      expect((await p.deliver(live!.url)).status).toBe(200);
      expect(await p.state()).toEqual(PAID);
    }
  }, 180_000);

  it("SIGKILL in a job's transaction: the job, still claimed, runs again once its lease lapses, once", async () => {
    const effects = async (n: number) => (await one(`SELECT count(*)::int AS n FROM test_job_effect WHERE n = $1`, [n])).n;
    const job = (n: number) => one(`SELECT status, attempts FROM job WHERE name = 'test.effect' AND payload->>'n' = $1`, [String(n)]);
    // Inside the job's transaction, its effect written, not committed.
    await live!.crashAfter(/INSERT INTO test_job_effect/, "1001");
    await sql.query(`INSERT INTO job (name, payload) VALUES ('test.effect', '{"n": 1001}')`);
    expect(await live!.exited).toMatchObject({ signal: "SIGKILL" });
    expect(await job(1001)).toEqual({ status: "running", attempts: 1 });
    expect(await effects(1001)).toBe(0);

    live = await start();
    await waitFor(async () => (await job(1001)).status === "done");
    expect(await job(1001)).toEqual({ status: "done", attempts: 2 });
    expect(await effects(1001)).toBe(1);
  }, 120_000);

  it("SIGKILL in a multi-step mutation (a rulebook change): no version, no audit entry; done again, once", async () => {
    const admin = await signedInAs(live!.url, DEMO.lakeviewAdmin);
    const { district } = await admin.ok(`{ district(slug: "lakeview") { id } }`);
    const counts = () =>
      one(
        `SELECT (SELECT count(*)::int FROM rulebook_version WHERE district_id = $1) AS versions,
                (SELECT count(*)::int FROM audit_entry WHERE district_id = $1 AND action = 'rulebook.changed') AS audits`,
        [district.id],
      );
    const before = await counts();
    const change = {
      i: {
        districtId: district.id,
        effectiveDate: "2027-01-01",
        reason: "Board resolution 2026-41 sets an impact fee",
        resolutionNumber: "2026-41",
        resolutionAdoptedOn: "2026-11-03",
        changes: [{ key: "lateral.impactFee", value: 17500 }],
      },
    };
    const CHANGE = `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`;
    await live!.crashAfter(/INSERT INTO "rulebook_version"/);
    await expect(admin.gql(CHANGE, change)).rejects.toThrow();
    expect(await live!.exited).toMatchObject({ signal: "SIGKILL" });
    expect(await counts()).toEqual(before);

    live = await start();
    const again = await signedInAs(live.url, DEMO.lakeviewAdmin);
    await again.ok(CHANGE, change);
    expect(await counts()).toEqual({ versions: before.versions + 1, audits: before.audits + 1 });
  }, 120_000);
  it("SIGKILL at random moments of jobs: each job's effect whole, and the job done once in the end", async () => {
    const job = (n: number) => one(`SELECT status FROM job WHERE name = 'test.effect' AND payload->>'n' = $1`, [String(n)]);
    const effects = async (n: number) => (await one(`SELECT count(*)::int AS n FROM test_job_effect WHERE n = $1`, [n])).n;
    for (let i = 0; i < 2; i++) {
      const n = 2001 + i;
      // The worker polls every 100 ms: the job is claimed and run somewhere in the first 200 ms.
      await killAtRandom("a job", () => sql.query(`INSERT INTO job (name, payload) VALUES ('test.effect', $1)`, [{ n }]), 250);
      const [status, done] = [(await job(n)).status, await effects(n)];
      expect(done === 1 ? "done" : "not done").toBe(status === "done" ? "done" : "not done"); // the effect and the job's completion together
      await waitFor(async () => (await job(n)).status === "done");
      expect(await effects(n)).toBe(1);
    }
  }, 180_000);

  it("SIGKILL at random moments of a rulebook change: a version with its audit entry, or neither; done again, once", async () => {
    const admin = async () => signedInAs(live!.url, DEMO.lakeviewAdmin);
    const { district } = await (await admin()).ok(`{ district(slug: "lakeview") { id } }`);
    const counts = () =>
      one(
        `SELECT (SELECT count(*)::int FROM rulebook_version WHERE district_id = $1) AS versions,
                (SELECT count(*)::int FROM audit_entry WHERE district_id = $1 AND action = 'rulebook.changed') AS audits`,
        [district.id],
      );
    const CHANGE = `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`;
    const change = (k: number) => ({
      i: { districtId: district.id, effectiveDate: `2027-03-0${k}`, reason: `Board resolution 2026-5${k}`, resolutionNumber: `2026-5${k}`, resolutionAdoptedOn: "2026-11-03", changes: [{ key: "lateral.impactFee", value: 18000 + k }] },
    });
    let signedIn = await admin();
    const ms = await timed(() => signedIn.ok(CHANGE, change(1)));
    for (let k = 2; k <= 3; k++) {
      const before = await counts();
      signedIn = await admin();
      await killAtRandom("a rulebook change", () => signedIn.gql(CHANGE, change(k)), ms * 1.5);
      const after = await counts();
      expect([before, { versions: before.versions + 1, audits: before.audits + 1 }]).toContainEqual(after);
      if (after.versions === before.versions) await (await admin()).ok(CHANGE, change(k));
      expect(await counts()).toEqual({ versions: before.versions + 1, audits: before.audits + 1 });
    }
  }, 180_000);
});

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDataSource } from "../../api/db/data-source.js";
import { migrateAndLoad } from "../../api/db/migrate.js";
import { shippedDistrictFiles } from "../../api/districts/districts.service.js";
import { Client, DEMO, errorCode, signedInAs } from "../harness.js";
import { freshDatabase, REAL_PG, type TestDatabase } from "../db.js";
import { startInstance, type Instance } from "../instances.js";

/**
 * Two app instances (child processes) on one PostgreSQL: what one changes, the other serves at
 * once (its caches are told by LISTEN/NOTIFY, api/common/invalidation.ts), and each job runs once.
 * Each kind of cache: the viewer behind a session (signed out) and its roles (revoked, granted),
 * the public answers (a rulebook changed by the ADMIN, a law file loaded by a starting instance)
 * and the 2 s lists (a dashboard after a mutation made on the other instance).
 * PGlite serves one connection to one process, so there is nothing to share there.
 */
const ME = `{ me { id email staffRoles { role } } }`;
const OUTBOX = `query($d: ID!) { districtOutbox(districtId: $d) { id } }`;
const RULEBOOK = `query($on: String) { district(slug: "lakeview") { rulebook(on: $on) { entries { key amountCents } } } }`;
const impactFee = (d: any) => d.district.rulebook.entries.find((e: any) => e.key === "lateral.impactFee").amountCents;

/**
 * "At once" across instances is the NOTIFY's round trip: the other instance drops its entry when
 * its listening connection delivers the message, a few milliseconds after the commit, which on a
 * loaded machine can come after the next request. So a read that depends on it is retried for up
 * to 750 ms, well inside what the caches would otherwise keep (the 2 s lists, the viewers' 5 s,
 * the public answers' minute), then asserted.
 */
async function onceNotified<T>(read: () => Promise<T>, check: (v: T) => void): Promise<void> {
  const until = Date.now() + 750;
  for (;;) {
    const v = await read();
    try {
      return check(v);
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

let db: TestDatabase;
let sql: pg.Client;
let a: Instance;
let b: Instance;

describe.skipIf(!REAL_PG)("two instances on one PostgreSQL (skipped without DATABASE_URL: PGlite serves one connection, so one instance)", () => {
  beforeAll(async () => {
    db = await freshDatabase();
    sql = new pg.Client({ connectionString: db.databaseUrl });
    await sql.connect();
    await sql.query(`CREATE TABLE test_job_effect (n int NOT NULL, attempt int NOT NULL, pid int NOT NULL)`);
    // Started together: the second waits for the first's migrate-and-load (an advisory lock).
    [a, b] = await Promise.all([startInstance(db.databaseUrl!), startInstance(db.databaseUrl!)]);
  }, 180_000);
  afterAll(async () => {
    for (const i of [a, b]) i?.child.kill("SIGTERM");
    await Promise.all([a?.exited, b?.exited]);
    await sql?.end();
    await db?.drop();
  });

  it("a session signed out on one instance is refused by the other at once", async () => {
    const onA = await signedInAs(a.url, DEMO.applicant);
    const onB = new Client(b.url);
    onB.cookies = new Map(onA.cookies);
    expect((await onB.ok(ME)).me.email).toBe(DEMO.applicant); // B now holds the session in its cache
    await onA.ok(`mutation { signOut { ok } }`);
    await onceNotified(() => onB.gql(ME), (r) => expect(errorCode(r)).toBe("UNAUTHENTICATED"));
  });

  it("a role revoked on one instance is gone on the other at once, and a role granted is there at once", async () => {
    const admin = await signedInAs(a.url, DEMO.lakeviewAdmin);
    const clerkOnB = await signedInAs(b.url, DEMO.lakeviewClerk);
    const { me } = await clerkOnB.ok(`{ me { id staffRoles { districtId role } } }`);
    const lakeview = me.staffRoles.find((r: any) => r.role === "CLERK").districtId;
    await clerkOnB.ok(OUTBOX, { d: lakeview });
    await admin.ok(`mutation($i: RevokeStaffRoleInput!) { revokeStaffRole(input: $i) { ok } }`, { i: { districtId: lakeview, userId: me.id, role: "CLERK", reason: "Left the post" } });
    await onceNotified(() => clerkOnB.gql(OUTBOX, { d: lakeview }), (r) => expect(errorCode(r)).toBe("FORBIDDEN"));
    await admin.ok(`mutation($i: GrantStaffRoleInput!) { grantStaffRole(input: $i) { ok } }`, {
      i: { districtId: lakeview, email: DEMO.lakeviewClerk, role: "CLERK", reason: "Back in post" },
    });
    await onceNotified(() => clerkOnB.gql(OUTBOX, { d: lakeview }), (r) => expect(errorCode(r)).toBe(undefined));
  });

  it("a rulebook change on one instance is served by both at once (public answers dropped everywhere)", async () => {
    const pub = [new Client(a.url), new Client(b.url)];
    for (const c of pub) expect(impactFee(await c.ok(RULEBOOK, { on: "2027-02-01" }))).toBe(null); // cached for a minute
    const admin = await signedInAs(a.url, DEMO.lakeviewAdmin);
    const { district } = await admin.ok(`{ district(slug: "lakeview") { id } }`);
    await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
      i: {
        districtId: district.id,
        effectiveDate: "2027-01-01",
        reason: "Board resolution 2026-41 sets an impact fee",
        resolutionNumber: "2026-41",
        resolutionAdoptedOn: "2026-11-03",
        changes: [{ key: "lateral.impactFee", value: 17500 }],
      },
    });
    for (const c of pub) await onceNotified(() => c.ok(RULEBOOK, { on: "2027-02-01" }), (d) => expect(impactFee(d)).toBe(17500));
  });

  it("a list cached on one instance (the 2 s dashboard) shows a change made on the other at once", async () => {
    const onA = await signedInAs(a.url, DEMO.applicant);
    const onB = new Client(b.url);
    onB.cookies = new Map(onA.cookies);
    const DASHBOARD = `{ myDashboard { items { kind id } } }`;
    const { district } = await onA.ok(`{ district(slug: "lakeview") { id } }`);
    const before = (await onB.ok(DASHBOARD)).myDashboard.items; // B keeps it for 2 s
    const { saveLateralPermitDraft: draft } = await onA.ok(`mutation($i: LateralPermitDraftInput!) { saveLateralPermitDraft(input: $i) { id } }`, {
      i: { districtId: district.id, street: "Orchard Lane", streetNumber: "12" },
    });
    await onceNotified(
      async () => (await onB.ok(DASHBOARD)).myDashboard.items,
      (after: any[]) => {
        expect(after.map((i: any) => i.id)).toContain(draft.id);
        expect(after).toHaveLength(before.length + 1);
      },
    );
  });

  it("a law file loaded by an instance starting (a rolling upgrade) is served by the running ones at once", async () => {
    const FEE_MAX = `query($on: String) { district(slug: "lakeview") { rulebook(on: $on) { entries { key amountCents } } } }`;
    const feeMax = (d: any) => d.district.rulebook.entries.find((e: any) => e.key === "hauler.applicationFeeMax").amountCents;
    const pub = [new Client(a.url), new Client(b.url)];
    const was: number[] = [];
    for (const c of pub) was.push(feeMax(await c.ok(FEE_MAX, { on: "2027-07-01" }))); // cached for a minute
    // The new version's start: its shipped law file amended (a statute figure, from 2027-06-01), loaded on migrate.
    const files = shippedDistrictFiles().map((f) =>
      f.district.slug !== "lakeview"
        ? f
        : { ...f, rulebook: { ...f.rulebook, effectiveDate: "2027-06-01", entries: f.rulebook.entries.map((e: any) => (e.key === "hauler.applicationFeeMax" ? { ...e, value: was[0] + 2000 } : e)) } },
    );
    const ds = createDataSource(db.databaseUrl!, { poolSize: 2 });
    await ds.initialize();
    try {
      await migrateAndLoad(ds, { demo: false, shared: true, districtFiles: files });
    } finally {
      await ds.destroy();
    }
    for (const c of pub) await onceNotified(() => c.ok(FEE_MAX, { on: "2027-07-01" }), (d) => expect(feeMax(d)).toBe(was[0] + 2000));
  });

  it("after its listening connection is cut, an instance reconnects, having dropped what it may have missed", async () => {
    const onA = await signedInAs(a.url, DEMO.applicant);
    const onB = new Client(b.url);
    onB.cookies = new Map(onA.cookies);
    await onB.ok(ME);
    const listeners = async () =>
      (await sql.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tapline-invalidation'`)).rows.map((r) => r.pid);
    expect(await listeners()).toHaveLength(2);
    await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tapline-invalidation'`);
    // Signed out while no one listens: the notification is lost, so the caches must be dropped.
    await onA.ok(`mutation { signOut { ok } }`);
    for (let i = 0; i < 100 && (await listeners()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await listeners()).toHaveLength(2);
    await onceNotified(() => onB.gql(ME), (r) => expect(errorCode(r)).toBe("UNAUTHENTICATED")); // dropped right after LISTEN
    // Listening again: the next sign-out reaches the other instance at once.
    const again = await signedInAs(b.url, DEMO.applicant);
    const againOnA = new Client(a.url);
    againOnA.cookies = new Map(again.cookies);
    await againOnA.ok(ME);
    await again.ok(`mutation { signOut { ok } }`);
    await onceNotified(() => againOnA.gql(ME), (r) => expect(errorCode(r)).toBe("UNAUTHENTICATED"));
  });

  it("runs every job once with both instances' workers polling", async () => {
    const n = 40;
    await sql.query(`INSERT INTO job (name, payload) SELECT 'test.effect', jsonb_build_object('n', i, 'ms', 20) FROM generate_series(1, $1) i`, [n]);
    const done = async () => (await sql.query(`SELECT count(*)::int AS n FROM job WHERE name = 'test.effect' AND status = 'done'`)).rows[0].n;
    for (let i = 0; i < 200 && (await done()) < n; i++) await new Promise((r) => setTimeout(r, 50));
    const effects = (await sql.query(`SELECT n, count(*)::int AS times, min(pid) AS pid FROM test_job_effect GROUP BY n`)).rows;
    expect(effects).toHaveLength(n);
    expect(effects.every((e) => e.times === 1)).toBe(true);
    expect(new Set(effects.map((e) => e.pid)).size).toBe(2); // both instances took some
  });
});

/**
 * npm run bench: starts the server on a seeded database (a copy of the test template: PGlite, or
 * the PostgreSQL that DATABASE_URL names) and drives it over HTTP with autocannon, printing
 * requests/s and p50/p99 for named operations next to `{ __typename }` (the framework baseline).
 * Target on 2 cores: each operation >= 50% of the baseline's requests/s and p99 < 25 ms at 10
 * connections. On PostgreSQL it exits 1 when a target is missed (BENCH_ENFORCE=0 only reports);
 * on embedded PGlite (one connection, WASM) it reports only, since the targets are for production.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { pino } from "pino";
import { startTapline } from "../api/app.js";
import { loadConfig } from "../api/config.js";
import { DEMO_PASSWORD } from "../api/db/demo.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

const OPERATIONS: { name: string; query: string; signedIn?: boolean }[] = [
  { name: "baseline { __typename }", query: `{ __typename }` },
  {
    name: "public rulebook (Lakeview)",
    query: `{ district(slug: "lakeview") { name rulebook { version effectiveDate entries { key label section display note applies } } } }`,
  },
  {
    name: "signed-in dashboard",
    signedIn: true,
    query: `{ me { id displayName emailVerified } myDashboard { recentEmails items { kind id title status dueDate daysLeft href } organizations { role organization { id name } } } }`,
  },
];

process.env.TAPLINE_TEST_RUN ??= `bench${Date.now().toString(36)}`;
const { freshDatabase, prepareTemplate, dropRunDatabases } = await import("../test/db.js");
await prepareTemplate();
const db = await freshDatabase();
const config = loadConfig({
  NODE_ENV: "test",
  PORT: "0",
  HOST: "127.0.0.1",
  TAPLINE_DATA_DIR: db.dataDir,
  SESSION_SECRET: "bench-secret-bench-secret-bench-secret-00",
  ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
});
const running = await startTapline(config, { portal: "none", workers: false, log: pino({ level: "silent" }) });

async function signInCookie(): Promise<string> {
  const res = await fetch(`${running.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: `mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, variables: { i: { email: "applicant@demo.tapline.local", password: DEMO_PASSWORD } } }),
  });
  return res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
}

const cookie = await signInCookie();
const AUTOCANNON = createRequire(import.meta.url).resolve("autocannon/autocannon.js");

/** autocannon runs in its own process, so the load generator does not share the server's thread. */
async function load(op: (typeof OPERATIONS)[number], seconds: number) {
  const args = [AUTOCANNON, "-j", "-c", String(CONNECTIONS), "-d", String(seconds), "-m", "POST", "-H", "content-type=application/json"];
  if (op.signedIn) args.push("-H", `cookie=${cookie}`);
  args.push("-b", JSON.stringify({ query: op.query }), `${running.url}/graphql`);
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}
type Row = { name: string; rps: number; p50: number; p99: number; errors: number };
const rows: Row[] = [];
for (const op of OPERATIONS) {
  await load(op, 1); // warm-up
  const r = await load(op, SECONDS);
  rows.push({ name: op.name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx });
}
await running.close();
await db.drop();
await dropRunDatabases();

const base = rows[0];
const pad = (s: string | number, n: number) => String(s).padEnd(n);
console.log(`\n${config.databaseUrl ? "PostgreSQL" : "PGlite"}, ${CONNECTIONS} connections, ${SECONDS} s each\n`);
console.log(`${pad("operation", 30)}${pad("req/s", 10)}${pad("p50 ms", 9)}${pad("p99 ms", 9)}${pad("vs baseline", 13)}errors`);
let missed = false;
for (const r of rows) {
  const ratio = r.rps / base.rps;
  const ok = r === base || (ratio >= 0.5 && r.p99 < 25 && r.errors === 0);
  if (!ok) missed = true;
  console.log(`${pad(r.name, 30)}${pad(r.rps.toFixed(0), 10)}${pad(r.p50, 9)}${pad(r.p99, 9)}${pad(`${(ratio * 100).toFixed(0)}%`, 13)}${r.errors}${ok ? "" : "  <- misses target"}`);
}
const enforce = process.env.BENCH_ENFORCE ? process.env.BENCH_ENFORCE !== "0" : !!config.databaseUrl;
if (!config.databaseUrl) console.log("\nEmbedded PGlite serves one connection at a time: figures for information; targets apply on PostgreSQL (DATABASE_URL).");
if (missed && enforce) process.exit(1);

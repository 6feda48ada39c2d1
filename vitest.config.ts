import os from "node:os";
import { createRequire } from "node:module";
import { configDefaults, defineConfig } from "vitest/config";

// One graphql instance: Node loads graphql's CommonJS build for type-graphql and Apollo, so the
// code vitest transforms must not get the .mjs build.
const graphqlCjs = createRequire(import.meta.url).resolve("graphql");

// Test files at a time (each with its own server and database). Vitest's own default is
// one less than the cores, which is a single file at a time on CI's 2 cores while the other core
// waits: a file's start-up (imports, PGlite) and its requests are one process's work.
const WORKERS = Number(process.env.TAPLINE_TEST_WORKERS) || Math.max(2, os.availableParallelism() - 1);

// Browser tests that measure time (page-budget: LCP on a throttled CPU) or start `npm start`
// processes run alone, after the others. With TAPLINE_E2E_PARALLEL=1 (.ci/run) the other browser
// tests run WORKERS at a time, then these alone (project e2e-alone); without it the e2e project
// runs every browser test one file at a time, as before.
const E2E_ALONE = ["test/e2e/page-budget.test.ts", "test/e2e/npm-start.test.ts"];
const E2E_PARALLEL = process.env.TAPLINE_E2E_PARALLEL === "1";

// Every browser test file: the rules' clock and in-process caches put back (a process may have run
// another file before), and the test fails on any Content-Security-Policy violation in its pages.
const e2e = {
  globalSetup: ["test/global-setup.ts"],
  setupFiles: ["test/setup-file.ts", "test/e2e/setup-file.ts"],
  pool: "forks" as const,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlCjs }, { find: "~", replacement: new URL("./web", import.meta.url).pathname }] },
  // Vitest keeps each file's last duration here and starts the longest first; outside node_modules
  // so `npm ci` does not forget them.
  cacheDir: ".cache/vite",
  test: {
    // Read from the root config only (one pool serves every project). `isolate` here is the pool's:
    // unless it is false, every test file gets a new process, whatever a project's own `isolate`
    // says (only the modules a process imports are then shared or not). False: each worker process
    // runs file after file, API and browser tests alike (the API stages took 88-101 s instead of
    // 247-267 s on this machine, docs/benchmarks.md).
    poolOptions: { forks: { maxForks: WORKERS, minForks: 1, isolate: false } },
    projects: [
      {
        extends: true,
        test: {
          name: "api",
          include: ["test/api/**/*.test.ts", "api/**/*.test.ts", "web/**/*.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          setupFiles: ["test/setup-file.ts"],
          pool: "forks",
          // A worker process runs file after file (the pool's `isolate`, above): the app's modules are
          // imported and PGlite's WASM compiled once per worker, not once per file; each file still
          // has its own server and fresh database, and test/setup-file.ts resets the clock and drops
          // the in-process caches between files.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          ...e2e,
          name: "e2e",
          // A process runs file after file (two processes with TAPLINE_E2E_PARALLEL=1, one without):
          // the app and the portal's build are imported, PGlite's WASM compiled and Chromium launched
          // once per process, not once per file (test/e2e/browser.ts). Each file still has its own
          // server, fresh database and browser contexts.
          isolate: false,
          // Two at a time a journey may take longer than alone: the time limit, not what it checks.
          ...(E2E_PARALLEL ? { testTimeout: 120_000 } : {}),
          include: ["test/e2e/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...(E2E_PARALLEL ? E2E_ALONE : [])],
          poolOptions: { forks: { singleFork: !E2E_PARALLEL } },
        },
      },
      ...(E2E_PARALLEL
        ? [
            {
              extends: true as const,
              test: {
                ...e2e,
                name: "e2e-alone",
                include: E2E_ALONE,
                poolOptions: { forks: { singleFork: true } },
                // After every file of the first group has finished.
                sequence: { groupOrder: 1 },
              },
            },
          ]
        : []),
    ],
  },
});

import os from "node:os";
import { createRequire } from "node:module";
import { configDefaults, defineConfig } from "vitest/config";

// One graphql instance: Node loads graphql's CommonJS build for type-graphql and Apollo, so the
// code vitest transforms must not get the .mjs build.
const graphqlCjs = createRequire(import.meta.url).resolve("graphql");

// Test files at a time (each a process with its own server and database). Vitest's own default is
// one less than the cores, which is a single file at a time on CI's 2 cores while the other core
// waits: a file's start-up (imports, PGlite) and its requests are one process's work.
const WORKERS = Number(process.env.TAPLINE_TEST_WORKERS) || Math.max(2, os.availableParallelism() - 1);

// Browser tests that measure time (page-budget: LCP on a throttled CPU) or start `npm start`
// processes run alone, after the others. With TAPLINE_E2E_PARALLEL=1 (.ci/run) the other browser
// tests run WORKERS at a time, then these alone (project e2e-alone); without it the e2e project
// runs every browser test one file at a time, as before.
const E2E_ALONE = ["test/e2e/page-budget.test.ts", "test/e2e/npm-start.test.ts"];
const E2E_PARALLEL = process.env.TAPLINE_E2E_PARALLEL === "1";

const e2e = { globalSetup: ["test/global-setup.ts"], pool: "forks" as const, testTimeout: 60_000, hookTimeout: 120_000 };

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlCjs }, { find: "~", replacement: new URL("./web", import.meta.url).pathname }] },
  // Vitest keeps each file's last duration here and starts the longest first; outside node_modules
  // so `npm ci` does not forget them.
  cacheDir: ".cache/vite",
  test: {
    // Read from the root config only (one pool serves every project).
    poolOptions: { forks: { maxForks: WORKERS, minForks: 1 } },
    projects: [
      {
        extends: true,
        test: {
          name: "api",
          include: ["test/api/**/*.test.ts", "api/**/*.test.ts", "web/**/*.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          setupFiles: ["test/setup-file.ts"],
          pool: "forks",
          // A worker process runs file after file: the app's modules are imported and PGlite's WASM
          // compiled once per worker, not once per file (about 40% of the run's CPU). Each file still
          // has its own server and fresh database; test/setup-file.ts resets the clock and drops
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

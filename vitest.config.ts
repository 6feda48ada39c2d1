import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

// One graphql instance: Node loads graphql's CommonJS build for type-graphql and Apollo, so the
// code vitest transforms must not get the .mjs build.
const graphqlCjs = createRequire(import.meta.url).resolve("graphql");

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlCjs }, { find: "~", replacement: new URL("./web", import.meta.url).pathname }] },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "api",
          include: ["test/api/**/*.test.ts", "api/**/*.test.ts", "web/**/*.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          pool: "forks",
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          pool: "forks",
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});

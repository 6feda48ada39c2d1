import { randomBytes } from "node:crypto";

/** Once per run: a run id (passed to the test workers through the environment), then the template. */
export default async function setup() {
  process.env.TAPLINE_TEST_RUN ??= `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  const { prepareTemplate, dropRunDatabases } = await import("./db.js");
  await prepareTemplate();
  return async () => {
    await dropRunDatabases();
  };
}

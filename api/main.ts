import { ConfigError, loadConfig } from "./config.js";
import { startTapline } from "./app.js";

let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
const running = await startTapline(config, { portal: process.env.TAPLINE_DEV === "1" ? "dev" : "build", demoScenes: true });
running.log.info(
  { port: config.port, database: config.databaseUrl ? "postgresql" : `embedded PGlite in ${config.dataDir}`, demo: config.demo },
  `Tapline is ready at ${config.publicUrl}`,
);
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.once(sig, async () => {
    running.log.info({ signal: sig }, "shutting down");
    await running.close();
    process.exit(0);
  });

import { ConfigError, librariesMode, loadConfig } from "./config.js";

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
// The deployment's mode and the demo are read above; the libraries read NODE_ENV as they load,
// so it is set to their mode before the app (and with it React, graphql-js, Remix) is imported.
const libraries = librariesMode();
process.env.NODE_ENV = libraries;
const { closeOnSignals, startTapline } = await import("./app.js");
const running = await startTapline(config, { portal: process.env.TAPLINE_DEV === "1" ? "dev" : "build", demoScenes: true });
running.log.info(
  { url: running.url, port: config.port, database: config.databaseUrl ? "postgresql" : `embedded PGlite in ${config.dataDir}`, demo: config.demo, libraries },
  `Tapline is ready at ${config.publicUrl}`,
);
// Graceful shutdown (api/app.ts): SHUTDOWN_DRAIN_MS is how long the health check says "draining"
// before the port closes, so a load balancer that polls it has stopped sending here by then.
closeOnSignals(running, { drainMs: config.shutdownDrainMs });

import { pino } from "pino";
import { loadConfig } from "../config.js";
import { connect } from "./connect.js";
import { migrateAndLoad } from "./migrate.js";

const config = loadConfig();
const log = pino({ level: config.logLevel });
const db = await connect(config);
try {
  await migrateAndLoad(db.ds, { demo: config.demo, scenes: { publicUrl: config.publicUrl, config }, log });
  log.info("database is up to date");
} finally {
  await db.close();
}

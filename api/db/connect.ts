import path from "node:path";
import type { DataSource } from "typeorm";
import type { Config } from "../config.js";
import { createDataSource } from "./data-source.js";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "./embedded.js";

/** The real PostgreSQL when DATABASE_URL is set; otherwise PGlite kept in the data folder. */
export async function connect(config: Pick<Config, "databaseUrl" | "dataDir">): Promise<{ ds: DataSource; embedded?: EmbeddedDatabase; close(): Promise<void> }> {
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedDatabase(path.join(config.dataDir, "pglite"));
    url = embedded.url;
  }
  const ds = createDataSource(url, { poolSize: embedded ? 1 : 10 });
  await ds.initialize();
  return {
    ds,
    embedded,
    async close() {
      await ds.destroy();
      await embedded?.stop();
    },
  };
}

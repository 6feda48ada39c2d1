import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export type EmbeddedDatabase = { url: string; stop(): Promise<void> };

/**
 * Serves PGlite (PostgreSQL in WASM, data kept in `dataDir`) to the plain `pg` driver on a local
 * port, so the app runs one code path on both databases. pglite-socket takes one connection at a
 * time: the pool using it must have size 1.
 */
export async function startEmbeddedDatabase(dataDir: string | null, opts: { port?: number } = {}): Promise<EmbeddedDatabase> {
  if (dataDir) fs.mkdirSync(path.dirname(path.resolve(dataDir)), { recursive: true });
  // null: in memory, for throwaway test databases
  const db = dataDir ? await PGlite.create(path.resolve(dataDir)) : await PGlite.create();
  const server = new PGLiteSocketServer({ db, port: opts.port ?? 0, host: "127.0.0.1" });
  await server.start();
  const conn = server.getServerConn(); // "127.0.0.1:PORT"
  const port = Number(conn.split(":").pop());
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

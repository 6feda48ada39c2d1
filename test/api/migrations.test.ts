import { describe, expect, it } from "vitest";
import { createDataSource } from "../../api/db/data-source.js";
import { migrations } from "../../migrations/index.js";
import { emptyDatabase } from "../db.js";

const tables = async (ds: any) =>
  (await ds.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'typeorm_migrations' ORDER BY 1`)).map((r: any) => r.table_name);

describe("migrations", () => {
  it("run up on an empty database, down to nothing, and up again", async () => {
    const db = await emptyDatabase();
    const ds = createDataSource(db.url, { poolSize: db.poolSize });
    await ds.initialize();
    try {
      expect(await tables(ds)).toEqual([]);
      expect((await ds.runMigrations({ transaction: "each" })).length).toBe(migrations.length);
      const first = await tables(ds);
      expect(first).toContain("app_user");
      expect(first).toContain("audit_entry");
      for (let i = 0; i < migrations.length; i++) await ds.undoLastMigration({ transaction: "each" });
      expect(await tables(ds)).toEqual([]);
      await ds.runMigrations({ transaction: "each" });
      expect(await tables(ds)).toEqual(first);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });

  it("index every foreign key", async () => {
    const db = await emptyDatabase();
    const ds = createDataSource(db.url, { poolSize: db.poolSize });
    await ds.initialize();
    try {
      await ds.runMigrations();
      // A foreign key is covered when some index starts with its column(s).
      const unindexed = await ds.query(`
        SELECT c.conrelid::regclass::text AS tbl, a.attname AS col
          FROM pg_constraint c
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
         WHERE c.contype = 'f'
           AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])`);
      expect(unindexed).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});

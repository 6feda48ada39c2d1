import { createHash } from "node:crypto";

type Queryable = { query(query: string, parameters?: unknown[]): Promise<any> };
type Named = { name: string; text: string; toString(): string };
const named = new Map<string, Named>();

/**
 * Runs a hot read as a named prepared statement: node-postgres parses it once on each pooled
 * connection, and PostgreSQL plans it once there as soon as its generic plan costs no more than the
 * custom ones (plan_cache_mode auto), instead of parsing and planning it on every request. The
 * owner's pages' statements each took 0.7-3 ms of PostgreSQL's CPU unnamed and 0.1-0.3 ms named
 * (docs/benchmarks.md, issue 14): planning, not running them. Constant texts only (a text per
 * variant): every connection keeps each text it has run for its life. Counted and logged like any
 * statement (its toString is its text); a transaction's EntityManager runs it on its connection.
 */
export function queryPrepared<T = any>(db: Queryable, text: string, parameters: unknown[]): Promise<T[]> {
  let q = named.get(text);
  if (!q) {
    q = { name: `tapline_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`, text, toString: () => text };
    named.set(text, q);
  }
  // TypeORM hands the query to node-postgres as it is; node-postgres takes a { name, text } config.
  return db.query(q as unknown as string, parameters);
}

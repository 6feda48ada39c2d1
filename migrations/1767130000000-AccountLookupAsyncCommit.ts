import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Quick pay's and linking's lookup (`account_lookup`, migration 1767020000000) commits without
 * waiting for its WAL to reach the disk (`synchronous_commit = off` for its own transaction): all it
 * writes is the attempt's record, and waiting for that flush was most of a lookup's time and about
 * 40% of its PostgreSQL CPU (docs/benchmarks.md, issue 14, 2026-12-07 evening). The limits are as
 * exact as before under concurrency: an asynchronous commit is visible to the next lookup at once
 * (only its durability waits, for the WAL writer, at most about three times wal_writer_delay), and
 * the locks are still held to the commit. What a crash of PostgreSQL itself could lose is the last
 * fraction of a second's attempts, never a payment or anything else (docs/architecture.md, Access).
 * Only a transaction that has written nothing before the lookup takes the setting, and it lasts to
 * that transaction's end: callers run the lookup alone (its locks are held to the commit), so it is
 * the lookup's own. Not on the embedded PGlite (one process, no WAL writer; there an asynchronous
 * commit left the app's connection unusable: test/api/rents-paying.test.ts failed), which commits
 * as before.
 */
export class AccountLookupAsyncCommit1767130000000 implements MigrationInterface {
  name = "AccountLookupAsyncCommit1767130000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(lookupFunction(true));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(lookupFunction(false));
  }
}

/** account_lookup as migration 1767020000000 made it, with (`asyncCommit`) or without the setting. */
const lookupFunction = (asyncCommit: boolean) => `
      CREATE OR REPLACE FUNCTION account_lookup(p_purpose text, p_number text, p_ip text, p_zip text, p_max_number_failures int, p_max_ip_failures int, p_window interval)
        RETURNS TABLE (admitted boolean, account_id uuid, district_id uuid, account_number text, district_name text)
        LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      BEGIN
        ${asyncCommit ? "IF txid_current_if_assigned() IS NULL AND version() NOT LIKE '%PGlite%' THEN PERFORM set_config('synchronous_commit', 'off', true); END IF;" : ""}
        PERFORM pg_advisory_xact_lock(hashtextextended('tapline:account-lookup:number:' || p_number, 0)),
                pg_advisory_xact_lock(hashtextextended('tapline:account-lookup:ip:' || p_ip, 0));
        RETURN QUERY
          WITH c AS (
            SELECT (SELECT count(*) FROM account_lookup_attempt WHERE account_number = p_number AND NOT succeeded AND created_at > now() - p_window) < p_max_number_failures
               AND (SELECT count(*) FROM account_lookup_attempt WHERE ip = p_ip AND NOT succeeded AND created_at > now() - p_window) < p_max_ip_failures AS admitted),
          a AS (
            SELECT a.id, a.district_id, a.account_number, d.name AS district_name
              FROM service_account a JOIN sewer_property p ON p.id = a.property_id JOIN district d ON d.id = a.district_id
             WHERE a.account_number = p_number AND left(p.zip, 5) = p_zip AND (SELECT c.admitted FROM c)),
          ins AS (
            INSERT INTO account_lookup_attempt (purpose, account_number, ip, succeeded)
            SELECT p_purpose, p_number, p_ip, EXISTS (SELECT 1 FROM a) FROM c WHERE c.admitted)
          SELECT c.admitted, a.id, a.district_id, a.account_number, a.district_name FROM c LEFT JOIN a ON true;
      END $$`;

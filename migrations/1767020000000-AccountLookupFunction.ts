import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Quick pay's and linking's lookup by account number and ZIP under their limits
 * (api/rents/quick-pay.ts) in one statement instead of a transaction of four (BEGIN, the locks, the
 * count with the lookup and the attempt's record, COMMIT): the function takes the advisory locks of
 * the number and the client address (the number's first, as before), then counts, looks up and
 * records. Each statement of a volatile PL/pgSQL function reads with a snapshot of its own, so the
 * count, taken after the locks, sees the last holder's attempt: the limits stay exact under
 * concurrency. The locks are the transaction's and the caller runs it alone (autocommit), so they
 * are held to its commit. Nothing is looked up or recorded once refused.
 */
export class AccountLookupFunction1767020000000 implements MigrationInterface {
  name = "AccountLookupFunction1767020000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION account_lookup(p_purpose text, p_number text, p_ip text, p_zip text, p_max_number_failures int, p_max_ip_failures int, p_window interval)
        RETURNS TABLE (admitted boolean, account_id uuid, district_id uuid, account_number text, district_name text)
        LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      BEGIN
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
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION account_lookup(text, text, text, text, int, int, interval)`);
  }
}

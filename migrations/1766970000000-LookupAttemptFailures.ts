import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Quick pay's and linking's limits count the failed lookups of an account number and of a client
 * address in the last 15 minutes (api/rents/quick-pay.ts). The indexes hold the failures only:
 * counting through every lookup of an address, the successful ones too, grew with the district's
 * residents paying from one network (docs/benchmarks.md, quick pay).
 */
export class LookupAttemptFailures1766970000000 implements MigrationInterface {
  name = "LookupAttemptFailures1766970000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX account_lookup_attempt_failed_number ON account_lookup_attempt (account_number, created_at) WHERE NOT succeeded`);
    await q.query(`CREATE INDEX account_lookup_attempt_failed_ip ON account_lookup_attempt (ip, created_at) WHERE NOT succeeded`);
    await q.query(`DROP INDEX account_lookup_attempt_number`);
    await q.query(`DROP INDEX account_lookup_attempt_ip`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX account_lookup_attempt_number ON account_lookup_attempt (account_number, created_at)`);
    await q.query(`CREATE INDEX account_lookup_attempt_ip ON account_lookup_attempt (ip, created_at)`);
    await q.query(`DROP INDEX account_lookup_attempt_failed_number`);
    await q.query(`DROP INDEX account_lookup_attempt_failed_ip`);
  }
}

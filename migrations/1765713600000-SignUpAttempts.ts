import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Sign-ups are limited per client address like failed sign-ins: each one, for a new address or
 * for one that already has an account (answered alike), is recorded with the address it came from.
 */
export class SignUpAttempts1765713600000 implements MigrationInterface {
  name = "SignUpAttempts1765713600000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sign_up_attempt (
        id bigserial PRIMARY KEY,
        ip text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sign_up_attempt_ip ON sign_up_attempt (ip, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sign_up_attempt`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Issue 14, paying the sewer bill as its owner does: quick pay without signing in (a payment with
 * no signed-in payer, reached by an unguessable token whose SHA-256 is kept), the attempts quick
 * pay and linking are limited by, accounts linked to a person's sign-in (a landlord, a property
 * manager: read and pay, nothing else), and the billed party's choice of email only (paperless),
 * each choice kept with who made it and when.
 */
export class OwnerPaying1766860000000 implements MigrationInterface {
  name = "OwnerPaying1766860000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE payment ALTER COLUMN payer_id DROP NOT NULL`);
    // Quick pay: the token in the return URL (only its hash), and where the receipt goes if the payer gave an address.
    await q.query(`ALTER TABLE payment ADD COLUMN access_token_hash text`);
    await q.query(`ALTER TABLE payment ADD COLUMN receipt_email text CHECK (receipt_email IS NULL OR length(receipt_email) <= 254)`);
    await q.query(`CREATE UNIQUE INDEX payment_access_token ON payment (access_token_hash) WHERE access_token_hash IS NOT NULL`);

    await q.query(`
      CREATE TABLE account_lookup_attempt (
        id bigserial PRIMARY KEY,
        purpose text NOT NULL CHECK (purpose IN ('QUICK_PAY', 'LINK')),
        account_number text NOT NULL,
        ip text NOT NULL,
        succeeded boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX account_lookup_attempt_number ON account_lookup_attempt (account_number, created_at)`);
    await q.query(`CREATE INDEX account_lookup_attempt_ip ON account_lookup_attempt (ip, created_at)`);

    await q.query(`
      CREATE TABLE service_account_link (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES app_user(id),
        account_id uuid NOT NULL REFERENCES service_account(id),
        district_id uuid NOT NULL REFERENCES district(id),
        linked_at timestamptz NOT NULL DEFAULT now(),
        unlinked_at timestamptz,
        unlinked_by_id uuid REFERENCES app_user(id)
      )`);
    await q.query(`CREATE UNIQUE INDEX service_account_link_open ON service_account_link (user_id, account_id) WHERE unlinked_at IS NULL`);
    await q.query(`CREATE INDEX service_account_link_account ON service_account_link (account_id, user_id)`);
    await q.query(`CREATE INDEX service_account_link_district ON service_account_link (district_id)`);
    await q.query(`CREATE INDEX service_account_link_unlinked_by ON service_account_link (unlinked_by_id) WHERE unlinked_by_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE paperless_choice (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES service_account(id),
        paperless boolean NOT NULL,
        chosen_by_id uuid NOT NULL REFERENCES app_user(id),
        chosen_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The choice in force when a bill was issued: the latest made at or before it.
    await q.query(`CREATE INDEX paperless_choice_account ON paperless_choice (account_id, chosen_at DESC)`);
    await q.query(`CREATE INDEX paperless_choice_chosen_by ON paperless_choice (chosen_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE paperless_choice`);
    await q.query(`DROP TABLE service_account_link`);
    await q.query(`DROP TABLE account_lookup_attempt`);
    await q.query(`DROP INDEX payment_access_token`);
    await q.query(`ALTER TABLE payment DROP COLUMN receipt_email`);
    await q.query(`ALTER TABLE payment DROP COLUMN access_token_hash`);
    await q.query(`DELETE FROM payment WHERE payer_id IS NULL`);
    await q.query(`ALTER TABLE payment ALTER COLUMN payer_id SET NOT NULL`);
  }
}

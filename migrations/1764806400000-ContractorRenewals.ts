import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Renewals of an approved contractor's bond and insurance certificates (SUL 508). The firm files a
 * renewed bond and/or renewed certificates while APPROVED; the current filing stays in force (and
 * the firm choosable until it actually expires) until the Clerk accepts the renewal, whose figures
 * then replace the old ones. At most one renewal waits per contractor; decided ones are kept.
 * The renewed certificates are kept as a JSON array of
 * {coverage, insurer, policyNumber, limitCents, expiresOn, certificateDocumentId}, checked by the service.
 *
 * The expired-notice columns keep the expiry date an "it has expired" notice was last sent for,
 * apart from the reminder before it, so each is sent once per item and expiry date.
 */
export class ContractorRenewals1764806400000 implements MigrationInterface {
  name = "ContractorRenewals1764806400000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contractor_renewal (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        contractor_id uuid NOT NULL REFERENCES contractor(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'ACCEPTED', 'REJECTED')),
        bond_amount_cents bigint CHECK (bond_amount_cents >= 0),
        bond_expires_on date,
        bond_document_id uuid REFERENCES document(id),
        insurance jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(insurance) = 'array'),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        filed_by_id uuid NOT NULL REFERENCES app_user(id),
        decided_by_id uuid REFERENCES app_user(id),
        decided_at timestamptz,
        decision_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((bond_amount_cents IS NULL) = (bond_expires_on IS NULL) AND (bond_expires_on IS NULL) = (bond_document_id IS NULL)),
        CHECK (bond_amount_cents IS NOT NULL OR jsonb_array_length(insurance) > 0),
        CHECK ((decided_at IS NULL) = (decided_by_id IS NULL)),
        CHECK ((status = 'PENDING') = (decided_at IS NULL))
      )`);
    await q.query(`CREATE INDEX contractor_renewal_contractor_id ON contractor_renewal (contractor_id)`);
    await q.query(`CREATE UNIQUE INDEX contractor_renewal_one_pending ON contractor_renewal (contractor_id) WHERE status = 'PENDING'`);
    await q.query(`CREATE INDEX contractor_renewal_bond_document_id ON contractor_renewal (bond_document_id)`);
    await q.query(`CREATE INDEX contractor_renewal_rulebook_version_id ON contractor_renewal (rulebook_version_id)`);
    await q.query(`CREATE INDEX contractor_renewal_filed_by_id ON contractor_renewal (filed_by_id)`);
    await q.query(`CREATE INDEX contractor_renewal_decided_by_id ON contractor_renewal (decided_by_id)`);

    await q.query(`ALTER TABLE contractor ADD COLUMN bond_expired_notice_sent_for date`);
    await q.query(`ALTER TABLE contractor_insurance ADD COLUMN expired_notice_sent_for date`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contractor_insurance DROP COLUMN expired_notice_sent_for`);
    await q.query(`ALTER TABLE contractor DROP COLUMN bond_expired_notice_sent_for`);
    await q.query(`DROP TABLE contractor_renewal`);
  }
}

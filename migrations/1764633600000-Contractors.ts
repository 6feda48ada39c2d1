import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Approved contractors (SUL 601 A) with the bond and insurance certificates they file (SUL 508).
 * One row per contracting firm and district: the application, and once decided, the listing.
 * The reminder columns keep the expiry date a reminder was last sent for, so the daily job sends
 * one reminder per filed item and expiry date, however often it runs.
 */
export class Contractors1764633600000 implements MigrationInterface {
  name = "Contractors1764633600000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contractor (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization(id),
        district_id uuid NOT NULL REFERENCES district(id),
        status text NOT NULL DEFAULT 'APPLIED' CHECK (status IN ('APPLIED', 'APPROVED', 'REJECTED', 'SUSPENDED')),
        bond_amount_cents bigint NOT NULL CHECK (bond_amount_cents >= 0),
        bond_expires_on date NOT NULL,
        bond_document_id uuid NOT NULL REFERENCES document(id),
        bond_reminder_sent_for date,
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        applied_by_id uuid NOT NULL REFERENCES app_user(id),
        decided_by_id uuid REFERENCES app_user(id),
        decided_at timestamptz,
        decision_reason text,
        suspended_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, district_id),
        CHECK ((decided_at IS NULL) = (decided_by_id IS NULL)),
        CHECK (status <> 'SUSPENDED' OR suspended_reason IS NOT NULL)
      )`);
    // The UNIQUE index above starts with organization_id and covers that foreign key.
    await q.query(`CREATE INDEX contractor_district_status ON contractor (district_id, status)`);
    await q.query(`CREATE INDEX contractor_bond_document_id ON contractor (bond_document_id)`);
    await q.query(`CREATE INDEX contractor_rulebook_version_id ON contractor (rulebook_version_id)`);
    await q.query(`CREATE INDEX contractor_applied_by_id ON contractor (applied_by_id)`);
    await q.query(`CREATE INDEX contractor_decided_by_id ON contractor (decided_by_id)`);

    await q.query(`
      CREATE TABLE contractor_insurance (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        contractor_id uuid NOT NULL REFERENCES contractor(id) ON DELETE CASCADE,
        coverage text NOT NULL CHECK (coverage IN (
          'WORKERS_COMPENSATION', 'PERSONAL_INJURY_PER_OCCURRENCE', 'PERSONAL_INJURY_AGGREGATE', 'PROPERTY_DAMAGE',
          'AUTO_BODILY_INJURY_PER_PERSON', 'AUTO_BODILY_INJURY_PER_OCCURRENCE', 'AUTO_PROPERTY_DAMAGE', 'EXCESS_LIABILITY')),
        insurer text NOT NULL CHECK (length(insurer) BETWEEN 1 AND 200),
        policy_number text NOT NULL CHECK (length(policy_number) BETWEEN 1 AND 100),
        limit_cents bigint CHECK (limit_cents >= 0),
        expires_on date NOT NULL,
        certificate_document_id uuid NOT NULL REFERENCES document(id),
        reminder_sent_for date,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (contractor_id, coverage)
      )`);
    // The UNIQUE index above starts with contractor_id and covers that foreign key.
    await q.query(`CREATE INDEX contractor_insurance_certificate_document_id ON contractor_insurance (certificate_document_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contractor_insurance`);
    await q.query(`DROP TABLE contractor`);
  }
}

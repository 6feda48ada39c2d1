import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * SUL 502 A and 507: the Town Board's charges on a sewer extension (inspection fees, paid before
 * construction, and the proportionate share), set by resolution and paid through payments; the
 * District Operator's periodic inspections with their findings; the as-built drawings; the
 * Operator's final acceptance and the Town Board's concurrence; the one-year guarantee with its
 * security, its reminder and the claims recorded under it.
 */
export class ExtensionConstruction1766910000000 implements MigrationInterface {
  name = "ExtensionConstruction1766910000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE extension_charge (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        kind text NOT NULL CHECK (kind IN ('INSPECTION_FEES', 'PROPORTIONATE_SHARE')),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        description text CHECK (length(description) <= 500),
        resolution_number text NOT NULL CHECK (length(resolution_number) BETWEEN 1 AND 60),
        resolution_adopted_on date NOT NULL,
        payment_id uuid REFERENCES payment(id),
        paid_at timestamptz,
        set_by_id uuid NOT NULL REFERENCES app_user(id),
        set_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (extension_id, kind)
      )`);
    await q.query(`CREATE INDEX extension_charge_payment ON extension_charge (payment_id)`);
    await q.query(`CREATE INDEX extension_charge_set_by ON extension_charge (set_by_id)`);

    await q.query(`
      CREATE TABLE extension_inspection (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        inspected_on date NOT NULL,
        conforms boolean NOT NULL,
        findings text NOT NULL CHECK (length(findings) BETWEEN 1 AND 4000),
        excavation_required boolean NOT NULL DEFAULT false,
        inspector_id uuid NOT NULL REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX extension_inspection_extension ON extension_inspection (extension_id, inspected_on, recorded_at)`);
    await q.query(`CREATE INDEX extension_inspection_inspector ON extension_inspection (inspector_id)`);

    await q.query(`ALTER TABLE sewer_extension_document DROP CONSTRAINT sewer_extension_document_kind_check`);
    await q.query(`ALTER TABLE sewer_extension_document ADD CONSTRAINT sewer_extension_document_kind_check
      CHECK (kind IN ('PLANS', 'SPECIFICATIONS', 'CALCULATIONS', 'STATE_APPROVAL', 'PIPE_TEST_RESULTS', 'AS_BUILT'))`);

    await q.query(`ALTER TABLE sewer_extension DROP CONSTRAINT sewer_extension_status_check`);
    await q.query(`ALTER TABLE sewer_extension ADD CONSTRAINT sewer_extension_status_check CHECK (status IN ('SUBMITTED', 'APPROVED', 'DENIED', 'ACCEPTED'))`);
    await q.query(`ALTER TABLE sewer_extension DROP CONSTRAINT sewer_extension_check3`);
    await q.query(`ALTER TABLE sewer_extension ADD CONSTRAINT sewer_extension_notice_check CHECK (notice_given_on IS NULL OR status IN ('APPROVED', 'ACCEPTED'))`);
    await q.query(`
      ALTER TABLE sewer_extension
        ADD COLUMN as_built_copies integer CHECK (as_built_copies > 0),
        ADD COLUMN as_built_approved_at timestamptz,
        ADD COLUMN as_built_approved_by_id uuid REFERENCES app_user(id),
        ADD COLUMN final_approved_at timestamptz,
        ADD COLUMN final_approved_by_id uuid REFERENCES app_user(id),
        ADD COLUMN accepted_on date,
        ADD COLUMN acceptance_resolution_number text CHECK (length(acceptance_resolution_number) BETWEEN 1 AND 60),
        ADD COLUMN accepted_recorded_by_id uuid REFERENCES app_user(id),
        ADD COLUMN guarantee_ends_on date,
        ADD COLUMN security_kind text CHECK (security_kind IN ('SURETY_BOND', 'OTHER')),
        ADD COLUMN surety_name text CHECK (length(surety_name) <= 200),
        ADD COLUMN bond_number text CHECK (length(bond_number) <= 100),
        ADD COLUMN security_amount_cents bigint CHECK (security_amount_cents > 0),
        ADD COLUMN security_expires_on date,
        ADD COLUMN security_description text CHECK (length(security_description) <= 1000),
        ADD COLUMN guarantee_reminder_sent_for date,
        ADD CONSTRAINT sewer_extension_accepted_check CHECK ((status = 'ACCEPTED') = (accepted_on IS NOT NULL)
          AND (accepted_on IS NULL) = (guarantee_ends_on IS NULL) AND (accepted_on IS NULL) = (security_kind IS NULL)
          AND (accepted_on IS NULL OR final_approved_at IS NOT NULL) AND (final_approved_at IS NULL OR as_built_approved_at IS NOT NULL))`);
    await q.query(`CREATE INDEX sewer_extension_accepted ON sewer_extension (district_id, accepted_on DESC) WHERE accepted_on IS NOT NULL`);
    await q.query(`CREATE INDEX sewer_extension_guarantee ON sewer_extension (guarantee_ends_on) WHERE status = 'ACCEPTED'`);
    await q.query(`CREATE INDEX sewer_extension_as_built_by ON sewer_extension (as_built_approved_by_id)`);
    await q.query(`CREATE INDEX sewer_extension_final_by ON sewer_extension (final_approved_by_id)`);
    await q.query(`CREATE INDEX sewer_extension_accepted_by ON sewer_extension (accepted_recorded_by_id)`);

    await q.query(`
      CREATE TABLE guarantee_claim (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        noticed_on date NOT NULL,
        defect text NOT NULL CHECK (length(defect) BETWEEN 1 AND 4000),
        recorded_by_id uuid NOT NULL REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX guarantee_claim_extension ON guarantee_claim (extension_id, noticed_on)`);
    await q.query(`CREATE INDEX guarantee_claim_recorded_by ON guarantee_claim (recorded_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE guarantee_claim`);
    await q.query(`DROP TABLE extension_inspection`);
    await q.query(`DROP TABLE extension_charge`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The permit's life after issuance (SUL 1004 B, E, F).
 *
 * - `industrial_permit_modification`: the District Operator's modification for just cause on 30
 *   days' notice (1004 B, E): cause, new limits / reporting months / conditions (null = unchanged),
 *   the compliance schedule of the new conditions, and, once it takes effect, what it replaced.
 * - `industrial_permit.previous_permit_id` + `previous_relation`: a reissuance application (1004 E)
 *   or the new permit after a change of owner, user, premises or operation (1004 F), with the
 *   change reported; `reissuance_due_on`/`reissuance_late` mark an application filed after the
 *   180-day deadline; `conditions` holds the permit's free-text conditions.
 * - Status SUPERSEDED: a permit that ended because a new permit was issued for the change (1004 F).
 */
export class IndustrialLifecycle1765324800000 implements MigrationInterface {
  name = "IndustrialLifecycle1765324800000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE industrial_permit DROP CONSTRAINT industrial_permit_status_check`);
    await q.query(
      `ALTER TABLE industrial_permit ADD CONSTRAINT industrial_permit_status_check CHECK (status IN ('DRAFT', 'SUBMITTED', 'NOTICE_PUBLISHED', 'ISSUED', 'REVOKED', 'WITHDRAWN', 'SUPERSEDED'))`,
    );
    await q.query(`
      ALTER TABLE industrial_permit
        ADD COLUMN conditions text,
        ADD COLUMN previous_permit_id uuid REFERENCES industrial_permit(id),
        ADD COLUMN previous_relation text CHECK (previous_relation IN ('REISSUANCE', 'CHANGE')),
        ADD COLUMN reissuance_due_on date,
        ADD COLUMN reissuance_late boolean,
        ADD COLUMN change_kind text CHECK (change_kind IN ('OWNER', 'USER', 'PREMISES', 'OPERATION')),
        ADD COLUMN change_on date,
        ADD COLUMN change_description text,
        ADD COLUMN superseded_at timestamptz,
        ADD COLUMN superseded_on date,
        ADD COLUMN superseded_by_id uuid REFERENCES industrial_permit(id),
        ADD CONSTRAINT industrial_permit_previous CHECK ((previous_permit_id IS NULL) = (previous_relation IS NULL)),
        ADD CONSTRAINT industrial_permit_change CHECK ((previous_relation = 'CHANGE') = (change_kind IS NOT NULL AND change_on IS NOT NULL)),
        ADD CONSTRAINT industrial_permit_superseded CHECK ((status <> 'SUPERSEDED') OR (superseded_at IS NOT NULL AND superseded_on IS NOT NULL AND issued_at IS NOT NULL))`);
    await q.query(`CREATE INDEX industrial_permit_previous_permit_id ON industrial_permit (previous_permit_id, previous_relation)`);
    await q.query(`CREATE INDEX industrial_permit_superseded_by_id ON industrial_permit (superseded_by_id)`);

    await q.query(`
      CREATE TABLE industrial_permit_modification (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES industrial_permit(id),
        cause text NOT NULL CHECK (cause IN ('CATEGORICAL_STANDARD', 'CATEGORICAL_REVISION', 'LOCAL_LIMITS', 'PROCESS_CHANGE', 'POTW_CHANGE', 'PASS_THROUGH', 'SEWAGE_CHARACTER', 'OTHER')),
        cause_text text,
        explanation text NOT NULL,
        -- null: unchanged
        limits jsonb CHECK (limits IS NULL OR jsonb_typeof(limits) = 'array'),
        reporting_months integer[],
        conditions text,
        compliance_schedule jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(compliance_schedule) = 'array'),
        notice_on date NOT NULL,
        effective_on date NOT NULL CHECK (effective_on > notice_on),
        status text NOT NULL CHECK (status IN ('PENDING', 'WITHDRAWN', 'EFFECTIVE')),
        proposed_by_id uuid NOT NULL REFERENCES app_user(id),
        proposed_at timestamptz NOT NULL,
        withdrawn_at timestamptz,
        withdrawn_by_id uuid REFERENCES app_user(id),
        withdrawal_reason text,
        applied_at timestamptz,
        -- what the modification replaced: {limits, reportingMonths, conditions}
        replaced jsonb,
        CHECK (cause <> 'OTHER' OR cause_text IS NOT NULL),
        CHECK (limits IS NOT NULL OR reporting_months IS NOT NULL OR conditions IS NOT NULL),
        CHECK ((status = 'WITHDRAWN') = (withdrawn_at IS NOT NULL)),
        CHECK ((status = 'EFFECTIVE') = (applied_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX industrial_permit_modification_permit ON industrial_permit_modification (permit_id, effective_on)`);
    await q.query(`CREATE INDEX industrial_permit_modification_proposed_by_id ON industrial_permit_modification (proposed_by_id)`);
    await q.query(`CREATE INDEX industrial_permit_modification_withdrawn_by_id ON industrial_permit_modification (withdrawn_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE industrial_permit_modification`);
    await q.query(`UPDATE industrial_permit SET status = 'ISSUED' WHERE status = 'SUPERSEDED'`);
    await q.query(`
      ALTER TABLE industrial_permit
        DROP CONSTRAINT industrial_permit_superseded,
        DROP CONSTRAINT industrial_permit_change,
        DROP CONSTRAINT industrial_permit_previous,
        DROP COLUMN superseded_by_id,
        DROP COLUMN superseded_on,
        DROP COLUMN superseded_at,
        DROP COLUMN change_description,
        DROP COLUMN change_on,
        DROP COLUMN change_kind,
        DROP COLUMN reissuance_late,
        DROP COLUMN reissuance_due_on,
        DROP COLUMN previous_relation,
        DROP COLUMN previous_permit_id,
        DROP COLUMN conditions`);
    await q.query(`ALTER TABLE industrial_permit DROP CONSTRAINT industrial_permit_status_check`);
    await q.query(
      `ALTER TABLE industrial_permit ADD CONSTRAINT industrial_permit_status_check CHECK (status IN ('DRAFT', 'SUBMITTED', 'NOTICE_PUBLISHED', 'ISSUED', 'REVOKED', 'WITHDRAWN'))`,
    );
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Sewer bills (SUL 1203-1206, 1202; Huron VI-2, VI-3, VII): a bill run per district, billing
 * cycle and period (preview, then issue, resumable), the bills it makes (one per account and
 * period, never two: the unique indexes below; a Huron owner's excess one per meter and period),
 * their lines frozen at issue with the rulebook version used, and adjustments (credits and debits
 * with a reason, shown on the account's next bill). An issued bill is never edited: the triggers
 * refuse changing what it says.
 */
export class BillRuns1766810000000 implements MigrationInterface {
  name = "BillRuns1766810000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bill_run (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        cycle text NOT NULL CHECK (cycle IN ('INDUSTRIAL', 'OTHER', 'ALL')),
        period_start date NOT NULL,
        period_end date NOT NULL,
        status text NOT NULL CHECK (status IN ('PREVIEW', 'ISSUING', 'ISSUED')),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        mailed_on date,
        due_on date,
        tasks jsonb NOT NULL DEFAULT '[]',
        bill_count integer NOT NULL DEFAULT 0,
        flagged_count integer NOT NULL DEFAULT 0,
        issued_count integer NOT NULL DEFAULT 0,
        total_cents bigint NOT NULL DEFAULT 0,
        previewed_by_id uuid NOT NULL REFERENCES app_user(id),
        previewed_at timestamptz NOT NULL DEFAULT now(),
        issued_by_id uuid REFERENCES app_user(id),
        issued_at timestamptz,
        CHECK (period_end >= period_start),
        CHECK ((status = 'PREVIEW') = (mailed_on IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX bill_run_period ON bill_run (district_id, cycle, period_start)`);
    await q.query(`CREATE INDEX bill_run_list ON bill_run (district_id, period_start DESC, id)`);
    await q.query(`CREATE INDEX bill_run_rulebook ON bill_run (rulebook_version_id)`);
    await q.query(`CREATE INDEX bill_run_previewed_by ON bill_run (previewed_by_id)`);
    await q.query(`CREATE INDEX bill_run_issued_by ON bill_run (issued_by_id)`);

    await q.query(`CREATE SEQUENCE bill_number_seq`);
    await q.query(`
      CREATE TABLE bill (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        run_id uuid NOT NULL REFERENCES bill_run(id),
        district_id uuid NOT NULL REFERENCES district(id),
        cycle text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('ACCOUNT', 'OWNER_EXCESS')),
        account_id uuid REFERENCES service_account(id),
        meter_id uuid REFERENCES service_meter(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        bill_to text NOT NULL,
        period_start date NOT NULL,
        period_end date NOT NULL,
        served_from date NOT NULL,
        served_to date NOT NULL,
        final boolean NOT NULL DEFAULT false,
        gallons bigint,
        edu_thousandths integer,
        flags jsonb NOT NULL DEFAULT '[]',
        total_cents integer NOT NULL,
        status text NOT NULL CHECK (status IN ('PREVIEW', 'ISSUED')),
        number text UNIQUE,
        mailed_on date,
        due_on date,
        due_text text,
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        issued_at timestamptz,
        CHECK ((kind = 'ACCOUNT') = (account_id IS NOT NULL)),
        CHECK ((kind = 'OWNER_EXCESS') = (meter_id IS NOT NULL)),
        CHECK ((status = 'ISSUED') = (number IS NOT NULL AND mailed_on IS NOT NULL AND due_on IS NOT NULL AND issued_at IS NOT NULL))
      )`);
    // Never two bills for one account, or one meter's excess, in a period of a cycle.
    await q.query(`CREATE UNIQUE INDEX bill_account_period ON bill (district_id, cycle, period_start, account_id) WHERE account_id IS NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX bill_owner_excess_period ON bill (district_id, cycle, period_start, meter_id) WHERE meter_id IS NOT NULL`);
    await q.query(`CREATE INDEX bill_by_run ON bill (run_id, status, id)`);
    await q.query(`CREATE INDEX bill_by_account ON bill (account_id, period_start DESC) WHERE account_id IS NOT NULL`);
    await q.query(`CREATE INDEX bill_by_property ON bill (property_id, period_start DESC)`);
    await q.query(`CREATE INDEX bill_by_meter ON bill (meter_id) WHERE meter_id IS NOT NULL`);
    await q.query(`CREATE INDEX bill_rulebook ON bill (rulebook_version_id)`);

    await q.query(`
      CREATE TABLE bill_adjustment (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        account_id uuid NOT NULL REFERENCES service_account(id),
        amount_cents integer NOT NULL CHECK (amount_cents <> 0),
        reason text NOT NULL CHECK (reason <> ''),
        recorded_by_id uuid NOT NULL REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        applied_bill_id uuid REFERENCES bill(id)
      )`);
    await q.query(`CREATE INDEX bill_adjustment_pending ON bill_adjustment (account_id, recorded_at) WHERE applied_bill_id IS NULL`);
    await q.query(`CREATE INDEX bill_adjustment_by_account ON bill_adjustment (account_id, recorded_at DESC)`);
    await q.query(`CREATE INDEX bill_adjustment_applied ON bill_adjustment (applied_bill_id)`);
    await q.query(`CREATE INDEX bill_adjustment_district ON bill_adjustment (district_id)`);
    await q.query(`CREATE INDEX bill_adjustment_recorded_by ON bill_adjustment (recorded_by_id)`);

    await q.query(`
      CREATE TABLE bill_line (
        bill_id uuid NOT NULL REFERENCES bill(id) ON DELETE CASCADE,
        position integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('FIXED', 'VOLUME', 'MINIMUM', 'USE_ABOVE_MINIMUM', 'OWNER_EXCESS', 'SURCHARGE', 'ADJUSTMENT')),
        description text NOT NULL,
        quantity text,
        rate text,
        amount_cents integer NOT NULL,
        section text NOT NULL,
        adjustment_id uuid REFERENCES bill_adjustment(id),
        PRIMARY KEY (bill_id, position)
      )`);
    await q.query(`CREATE INDEX bill_line_adjustment ON bill_line (adjustment_id) WHERE adjustment_id IS NOT NULL`);

    // An issued bill says what it said when issued: its figures and lines are never changed.
    await q.query(`
      CREATE FUNCTION bill_issued_is_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_TABLE_NAME = 'bill' THEN
          IF OLD.status = 'ISSUED' THEN RAISE EXCEPTION 'bill % is issued and cannot be changed', OLD.number; END IF;
          RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
        END IF;
        IF EXISTS (SELECT 1 FROM bill WHERE id = OLD.bill_id AND status = 'ISSUED') THEN
          RAISE EXCEPTION 'the lines of an issued bill cannot be changed';
        END IF;
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
      END $$`);
    await q.query(`CREATE TRIGGER bill_frozen BEFORE UPDATE OR DELETE ON bill FOR EACH ROW EXECUTE FUNCTION bill_issued_is_frozen()`);
    await q.query(`CREATE TRIGGER bill_line_frozen BEFORE UPDATE OR DELETE ON bill_line FOR EACH ROW EXECUTE FUNCTION bill_issued_is_frozen()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bill_line`);
    await q.query(`DROP TABLE bill_adjustment`);
    await q.query(`DROP TABLE bill`);
    await q.query(`DROP FUNCTION bill_issued_is_frozen()`);
    await q.query(`DROP SEQUENCE bill_number_seq`);
    await q.query(`DROP TABLE bill_run`);
  }
}

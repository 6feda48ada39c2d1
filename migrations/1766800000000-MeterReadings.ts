import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Meter readings (SUL 1205: the volume billed is the metered water "as shown on the records of
 * meter readings"; Huron VI-2: one meter may serve several users). Each read keeps the gallons
 * used since the meter's previous read, worked out once at import: register rollover from the
 * meter's dials, a meter's first read from the reading it was installed at, an estimate marked
 * and trued up by the next actual read. Every import is kept with its counts and its bad rows so
 * the Clerk can read its report again.
 */
export class MeterReadings1766800000000 implements MigrationInterface {
  name = "MeterReadings1766800000000";

  async up(q: QueryRunner): Promise<void> {
    // What a register reads: its number of dials (it rolls over to zero past 10^digits - 1), the
    // gallons one unit of it stands for (1, 10, 100 gallons; 7.4805 for cubic feet), and its
    // reading when installed (a new meter's first read is measured from it; unknown: a baseline).
    await q.query(`ALTER TABLE service_meter
      ADD COLUMN register_digits integer NOT NULL DEFAULT 6 CHECK (register_digits BETWEEN 1 AND 12),
      ADD COLUMN gallons_per_unit numeric(12,4) NOT NULL DEFAULT 1 CHECK (gallons_per_unit > 0),
      ADD COLUMN start_reading bigint CHECK (start_reading >= 0)`);
    // A reading file names meters (in service or taken out) and accounts by number, as people write them.
    await q.query(`CREATE INDEX service_meter_by_number ON service_meter (district_id, lower(meter_number))`);
    await q.query(`CREATE INDEX service_account_by_number ON service_account (district_id, lower(account_number))`);

    await q.query(`
      CREATE TABLE meter_reading_import (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        file_name text NOT NULL,
        rows_read integer NOT NULL CHECK (rows_read >= 0),
        rows_imported integer NOT NULL CHECK (rows_imported >= 0),
        rows_estimated integer NOT NULL DEFAULT 0 CHECK (rows_estimated >= 0),
        rows_rejected integer NOT NULL CHECK (rows_rejected >= 0),
        errors jsonb NOT NULL DEFAULT '[]',
        entered_by_id uuid REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX meter_reading_import_list ON meter_reading_import (district_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX meter_reading_import_entered_by ON meter_reading_import (entered_by_id)`);

    await q.query(`
      CREATE TABLE meter_reading (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        meter_id uuid NOT NULL REFERENCES service_meter(id),
        read_on date NOT NULL,
        reading bigint NOT NULL CHECK (reading >= 0),
        kind text NOT NULL CHECK (kind IN ('ACTUAL', 'ESTIMATED')),
        consumption_gallons bigint,
        flags text[] NOT NULL DEFAULT '{}' CHECK (flags <@ ARRAY['ROLLOVER', 'TRUE_UP', 'FIRST_READ', 'BASELINE', 'FINAL', 'FROM_AVERAGE']::text[]),
        trued_up_by_id uuid REFERENCES meter_reading(id),
        import_id uuid REFERENCES meter_reading_import(id),
        line integer,
        entered_by_id uuid REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((consumption_gallons IS NULL) = ('BASELINE' = ANY(flags))),
        CHECK (trued_up_by_id IS NULL OR kind = 'ESTIMATED')
      )`);
    // One read a meter a day (a second is a duplicate); a meter's reads in order; a period's reads.
    await q.query(`CREATE UNIQUE INDEX meter_reading_per_day ON meter_reading (meter_id, read_on)`);
    await q.query(`CREATE INDEX meter_reading_by_district ON meter_reading (district_id, read_on)`);
    await q.query(`CREATE INDEX meter_reading_by_import ON meter_reading (import_id, line)`);
    await q.query(`CREATE INDEX meter_reading_entered_by ON meter_reading (entered_by_id)`);
    await q.query(`CREATE INDEX meter_reading_trued_up_by ON meter_reading (trued_up_by_id) WHERE trued_up_by_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE meter_reading`);
    await q.query(`DROP TABLE meter_reading_import`);
    await q.query(`DROP INDEX service_account_by_number`);
    await q.query(`DROP INDEX service_meter_by_number`);
    await q.query(`ALTER TABLE service_meter DROP COLUMN register_digits, DROP COLUMN gallons_per_unit, DROP COLUMN start_reading`);
  }
}

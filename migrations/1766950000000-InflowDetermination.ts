import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * SUL 705, docs/inflow.md and docs/decisions/inflow-on-the-bill.md: "The District Operator is
 * enabled to take whatever action is necessary to determine the amount of inflow including the
 * requirement for installation of a control manhole. The property from which the inflow originated
 * shall be billed for inflow according to Article 12 ..."
 * - inflow_determination: the District Operator's determination of a property's inflow on an
 *   inspection (gallons over a dated period, the method and a note; optionally a control manhole
 *   required by a date).
 * - bill_line.inflow_determination_id: the bill line that bills it. At most one INFLOW line per
 *   determination in the whole bill table (preview or issued): a determination is billed once.
 * - bill_line kinds INFLOW and INFLOW_SURCHARGE.
 */
export class InflowDetermination1766950000000 implements MigrationInterface {
  name = "InflowDetermination1766950000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inflow_determination (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        inspection_id uuid NOT NULL REFERENCES inflow_inspection(id),
        period_from date NOT NULL,
        period_to date NOT NULL,
        gallons bigint NOT NULL CHECK (gallons > 0),
        method text NOT NULL CHECK (method IN ('CONTROL_MANHOLE_METER', 'PUMP_RUN_TIME', 'ESTIMATE')),
        note text NOT NULL CHECK (note <> ''),
        control_manhole_by date,
        determined_by_id uuid NOT NULL REFERENCES app_user(id),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        CHECK (period_to >= period_from)
      )`);
    // The bill run's per-batch read: a batch's properties' determinations ending by the period's last day.
    await q.query(`CREATE INDEX inflow_determination_property ON inflow_determination (property_id, period_to)`);
    await q.query(`CREATE INDEX inflow_determination_inspection ON inflow_determination (inspection_id, period_from)`);
    await q.query(`CREATE INDEX inflow_determination_district ON inflow_determination (district_id)`);
    await q.query(`CREATE INDEX inflow_determination_determined_by ON inflow_determination (determined_by_id)`);
    await q.query(`CREATE INDEX inflow_determination_rulebook ON inflow_determination (rulebook_version_id)`);

    await q.query(`ALTER TABLE bill_line ADD COLUMN inflow_determination_id uuid REFERENCES inflow_determination(id)`);
    // Each determination on one INFLOW line at most, whatever the run; also the index of "is it billed".
    await q.query(`CREATE UNIQUE INDEX bill_line_inflow_once ON bill_line (inflow_determination_id) WHERE kind = 'INFLOW'`);
    await q.query(`CREATE INDEX bill_line_inflow_determination ON bill_line (inflow_determination_id) WHERE inflow_determination_id IS NOT NULL`);
    await q.query(`ALTER TABLE bill_line DROP CONSTRAINT bill_line_kind_check`);
    await q.query(
      `ALTER TABLE bill_line ADD CONSTRAINT bill_line_kind_check CHECK (kind IN ('FIXED', 'VOLUME', 'MINIMUM', 'USE_ABOVE_MINIMUM', 'OWNER_EXCESS', 'SURCHARGE', 'ADJUSTMENT', 'REINSTATEMENT_MINIMUMS', 'INFLOW', 'INFLOW_SURCHARGE'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE bill_line DROP CONSTRAINT bill_line_kind_check`);
    await q.query(
      `ALTER TABLE bill_line ADD CONSTRAINT bill_line_kind_check CHECK (kind IN ('FIXED', 'VOLUME', 'MINIMUM', 'USE_ABOVE_MINIMUM', 'OWNER_EXCESS', 'SURCHARGE', 'ADJUSTMENT', 'REINSTATEMENT_MINIMUMS'))`,
    );
    await q.query(`DROP INDEX bill_line_inflow_determination`);
    await q.query(`DROP INDEX bill_line_inflow_once`);
    await q.query(`ALTER TABLE bill_line DROP COLUMN inflow_determination_id`);
    await q.query(`DROP TABLE inflow_determination`);
  }
}

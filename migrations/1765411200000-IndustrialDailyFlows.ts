import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Daily flows of a periodic compliance report (SUL 1005(3)(a)): "a record of all daily flows which,
 * during the reporting period, exceeded the average daily flow reported in Section 1004 A". One
 * row a day, in gallons per day, with the application's average it was judged against. Like the
 * lab results they are frozen once the report is signed (the same trigger function).
 */
export class IndustrialDailyFlows1765411200000 implements MigrationInterface {
  name = "IndustrialDailyFlows1765411200000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE industrial_daily_flow (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        report_id uuid NOT NULL,
        permit_id uuid NOT NULL,
        day date NOT NULL,
        flow_gpd numeric NOT NULL CHECK (flow_gpd >= 0),
        entered_value numeric NOT NULL,
        entered_unit text NOT NULL CHECK (entered_unit IN ('gpd', 'MGD')),
        average_gpd numeric,
        above_average boolean NOT NULL,
        created_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (report_id, permit_id) REFERENCES industrial_report (id, permit_id) ON DELETE CASCADE,
        UNIQUE (report_id, day),
        CHECK (above_average = (average_gpd IS NOT NULL AND flow_gpd > average_gpd))
      )`);
    await q.query(`CREATE INDEX industrial_daily_flow_created_by_id ON industrial_daily_flow (created_by_id)`);
    await q.query(`CREATE TRIGGER industrial_daily_flow_locked BEFORE INSERT OR UPDATE OR DELETE ON industrial_daily_flow FOR EACH ROW EXECUTE FUNCTION industrial_result_locked()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE industrial_daily_flow`);
  }
}

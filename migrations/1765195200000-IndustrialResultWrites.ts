import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Saving a report's lab results in bulk (issue 5: 500 results at 50 reports a second).
 *
 * - The lock on a signed report's results (CROMERR: corrections are amendments) is checked once
 *   per INSERT statement over its new rows instead of once per row; UPDATE and DELETE keep the
 *   row trigger.
 * - A result's report and permit are one foreign key, (report_id, permit_id) to the report's
 *   (id, permit_id): one check a row instead of two, and a result can no longer name a permit
 *   other than its report's. The report's own key to the permit stays.
 * - `industrial_result_permit` (permit, parameter, sampled_at) goes: the SNC queries read
 *   `industrial_result_permit_sampled`, and every index is paid for on each of the 500 rows.
 * - `industrial_result_exceedances`: the staff's list of exceedances across the district, newest
 *   first, pages through the few results over a limit instead of all of them.
 */
export class IndustrialResultWrites1765195200000 implements MigrationInterface {
  name = "IndustrialResultWrites1765195200000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER industrial_result_locked ON industrial_result`);
    await q.query(`CREATE TRIGGER industrial_result_locked BEFORE UPDATE OR DELETE ON industrial_result FOR EACH ROW EXECUTE FUNCTION industrial_result_locked()`);
    await q.query(`
      CREATE FUNCTION industrial_result_insert_locked() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r uuid;
      BEGIN
        SELECT x.report_id INTO r
          FROM (SELECT DISTINCT report_id FROM new_results) x JOIN industrial_report p ON p.id = x.report_id
         WHERE p.status = 'SIGNED' LIMIT 1;
        IF r IS NOT NULL THEN
          RAISE EXCEPTION 'industrial report % is signed; its results cannot change (file an amendment)', r USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER industrial_result_insert_locked AFTER INSERT ON industrial_result REFERENCING NEW TABLE AS new_results FOR EACH STATEMENT EXECUTE FUNCTION industrial_result_insert_locked()`,
    );
    await q.query(`ALTER TABLE industrial_report ADD CONSTRAINT industrial_report_id_permit UNIQUE (id, permit_id)`);
    await q.query(`
      ALTER TABLE industrial_result
        DROP CONSTRAINT industrial_result_report_id_fkey,
        DROP CONSTRAINT industrial_result_permit_id_fkey,
        ADD CONSTRAINT industrial_result_report_fkey FOREIGN KEY (report_id, permit_id) REFERENCES industrial_report (id, permit_id) ON DELETE CASCADE`);
    await q.query(`DROP INDEX industrial_result_permit`);
    await q.query(`CREATE INDEX industrial_result_exceedances ON industrial_result (sampled_at DESC, id DESC) WHERE status = 'EXCEEDS'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX industrial_result_exceedances`);
    await q.query(`CREATE INDEX industrial_result_permit ON industrial_result (permit_id, parameter, sampled_at)`);
    await q.query(`
      ALTER TABLE industrial_result
        DROP CONSTRAINT industrial_result_report_fkey,
        ADD CONSTRAINT industrial_result_report_id_fkey FOREIGN KEY (report_id) REFERENCES industrial_report (id) ON DELETE CASCADE,
        ADD CONSTRAINT industrial_result_permit_id_fkey FOREIGN KEY (permit_id) REFERENCES industrial_permit (id)`);
    await q.query(`ALTER TABLE industrial_report DROP CONSTRAINT industrial_report_id_permit`);
    await q.query(`DROP TRIGGER industrial_result_insert_locked ON industrial_result`);
    await q.query(`DROP FUNCTION industrial_result_insert_locked()`);
    await q.query(`DROP TRIGGER industrial_result_locked ON industrial_result`);
    await q.query(`CREATE TRIGGER industrial_result_locked BEFORE INSERT OR UPDATE OR DELETE ON industrial_result FOR EACH ROW EXECUTE FUNCTION industrial_result_locked()`);
  }
}

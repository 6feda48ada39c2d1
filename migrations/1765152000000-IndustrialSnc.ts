import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The district's significant non-compliance (SUL 201) and its published list (SUL 1122).
 *
 * - `industrial_result_permit_sampled`: the dashboard counts each permit's results of one
 *   six-month period by sample time; (permit, sampled_at) with the judged columns included lets
 *   it read only that period's index entries (an index-only range per permit), so its cost does
 *   not grow with the years of results kept. The older (permit, parameter, sampled_at) index
 *   cannot range on time without a parameter.
 * - `industrial_snc_publication` / `industrial_snc_listing`: a published list, frozen: one row per
 *   organization in SNC with its permit numbers, the criteria met and the findings' text (figures
 *   only, never trade-secret text), the date and who published it. One list per district and period.
 */
export class IndustrialSnc1765152000000 implements MigrationInterface {
  name = "IndustrialSnc1765152000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX industrial_result_permit_sampled ON industrial_result (permit_id, sampled_at) INCLUDE (parameter, status, basis, limit_value, compared_value, report_id)`,
    );
    await q.query(`
      CREATE TABLE industrial_snc_publication (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        period_start date NOT NULL,
        period_end date NOT NULL,
        published_on date NOT NULL,
        published_at timestamptz NOT NULL DEFAULT now(),
        published_by_id uuid NOT NULL REFERENCES app_user(id),
        section text NOT NULL,
        CHECK (period_end >= period_start),
        CHECK (published_on > period_end),
        UNIQUE (district_id, period_start)
      )`);
    await q.query(`CREATE INDEX industrial_snc_publication_published_by_id ON industrial_snc_publication (published_by_id)`);
    await q.query(`CREATE INDEX industrial_snc_publication_period ON industrial_snc_publication (period_start DESC)`);
    await q.query(`
      CREATE TABLE industrial_snc_listing (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        publication_id uuid NOT NULL REFERENCES industrial_snc_publication(id),
        position integer NOT NULL CHECK (position >= 0),
        organization_id uuid NOT NULL REFERENCES organization(id),
        organization_name text NOT NULL,
        permit_ids uuid[] NOT NULL,
        permit_numbers text[] NOT NULL,
        criteria text[] NOT NULL CHECK (criteria <@ ARRAY['CHRONIC', 'TRC', 'LATE_REPORT', 'MILESTONE']::text[] AND cardinality(criteria) > 0),
        findings jsonb NOT NULL CHECK (jsonb_typeof(findings) = 'array'),
        UNIQUE (publication_id, position)
      )`);
    await q.query(`CREATE INDEX industrial_snc_listing_organization_id ON industrial_snc_listing (organization_id)`);
    // A published list is a public record as it was published: nothing changes it.
    await q.query(`
      CREATE FUNCTION industrial_snc_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a published list of significant non-compliance cannot be changed' USING ERRCODE = 'check_violation';
      END $$`);
    await q.query(`CREATE TRIGGER industrial_snc_publication_frozen BEFORE UPDATE OR DELETE ON industrial_snc_publication FOR EACH ROW EXECUTE FUNCTION industrial_snc_frozen()`);
    await q.query(`CREATE TRIGGER industrial_snc_listing_frozen BEFORE UPDATE OR DELETE ON industrial_snc_listing FOR EACH ROW EXECUTE FUNCTION industrial_snc_frozen()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE industrial_snc_listing`);
    await q.query(`DROP TABLE industrial_snc_publication`);
    await q.query(`DROP FUNCTION industrial_snc_frozen()`);
    await q.query(`DROP INDEX industrial_result_permit_sampled`);
  }
}

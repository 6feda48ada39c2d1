import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * What each district's law calls the official who reviews permits and inspects the work: the
 * "District Operator" of the Sewer Use Law (201), the "Superintendent" of Huron's law (I). Pages and
 * notices use the law's word; the shipped district file sets it on migrate.
 */
export class DistrictOperatorTitle1765670400000 implements MigrationInterface {
  name = "DistrictOperatorTitle1765670400000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE district ADD COLUMN operator_title text NOT NULL DEFAULT 'District Operator' CHECK (length(operator_title) BETWEEN 1 AND 100)`);
    await q.query(`ALTER TABLE district ALTER COLUMN operator_title DROP DEFAULT`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE district DROP COLUMN operator_title`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * SUL 502 A and 507: the District Operator's plan of inspections of a sewer extension under
 * construction (the 30 days' notice is given "so that such inspection frequencies and procedures as
 * may be necessary or required, may be established"), kept from the developer since the
 * inspections are made without prior notice, each closed by the inspection recorded with its
 * findings; a claim under the guarantee remedied; the district's guarantees by their last day.
 */
export class ExtensionInspectionPlans1766930000000 implements MigrationInterface {
  name = "ExtensionInspectionPlans1766930000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE extension_inspection_plan (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        district_id uuid NOT NULL REFERENCES district(id),
        planned_on date NOT NULL,
        scope text NOT NULL CHECK (length(scope) BETWEEN 1 AND 1000),
        planned_by_id uuid NOT NULL REFERENCES app_user(id),
        planned_at timestamptz NOT NULL DEFAULT now(),
        inspection_id uuid UNIQUE REFERENCES extension_inspection(id)
      )`);
    await q.query(`CREATE INDEX extension_inspection_plan_open ON extension_inspection_plan (district_id, planned_on, id) WHERE inspection_id IS NULL`);
    await q.query(`CREATE INDEX extension_inspection_plan_extension ON extension_inspection_plan (extension_id, planned_on)`);
    await q.query(`CREATE INDEX extension_inspection_plan_planned_by ON extension_inspection_plan (planned_by_id)`);

    await q.query(`
      ALTER TABLE guarantee_claim
        ADD COLUMN remedied_on date,
        ADD COLUMN remedy text CHECK (length(remedy) BETWEEN 1 AND 4000),
        ADD COLUMN remedied_by_id uuid REFERENCES app_user(id),
        ADD CONSTRAINT guarantee_claim_remedied_check CHECK ((remedied_on IS NULL) = (remedy IS NULL) AND (remedied_on IS NULL) = (remedied_by_id IS NULL))`);
    await q.query(`CREATE INDEX guarantee_claim_open ON guarantee_claim (extension_id) WHERE remedied_on IS NULL`);
    await q.query(`CREATE INDEX guarantee_claim_remedied_by ON guarantee_claim (remedied_by_id)`);
    await q.query(`CREATE INDEX sewer_extension_district_guarantee ON sewer_extension (district_id, guarantee_ends_on) WHERE status = 'ACCEPTED'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX sewer_extension_district_guarantee`);
    await q.query(`ALTER TABLE guarantee_claim DROP CONSTRAINT guarantee_claim_remedied_check, DROP COLUMN remedied_by_id, DROP COLUMN remedy, DROP COLUMN remedied_on`);
    await q.query(`DROP TABLE extension_inspection_plan`);
  }
}

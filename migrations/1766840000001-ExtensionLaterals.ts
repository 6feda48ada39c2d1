import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * SUL 502 A: a new sewer "must pass the infiltration test ... before any building lateral is
 * connected thereto". The District Operator records which lateral permits are on which extension;
 * such a permit's connection is refused until the extension's sections have passed.
 */
export class ExtensionLaterals1766840000001 implements MigrationInterface {
  name = "ExtensionLaterals1766840000001";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sewer_extension_lateral (
        lateral_permit_id uuid PRIMARY KEY REFERENCES lateral_permit(id),
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        linked_by_id uuid NOT NULL REFERENCES app_user(id),
        linked_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sewer_extension_lateral_extension ON sewer_extension_lateral (extension_id)`);
    await q.query(`CREATE INDEX sewer_extension_lateral_linked_by ON sewer_extension_lateral (linked_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sewer_extension_lateral`);
  }
}

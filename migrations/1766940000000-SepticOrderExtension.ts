import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A septic connection order may name the accepted sewer extension that made the public sewer
 * available to the property (SUL 408; the extension the Town's from the Board's concurrence, 507).
 * None when the sewer reached the property otherwise (and always in Huron, whose law has no
 * Article 5). Indexed for the foreign key.
 */
export class SepticOrderExtension1766940000000 implements MigrationInterface {
  name = "SepticOrderExtension1766940000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE septic_connection_order ADD COLUMN extension_id uuid REFERENCES sewer_extension(id)`);
    await q.query(`CREATE INDEX septic_connection_order_extension ON septic_connection_order (extension_id) WHERE extension_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX septic_connection_order_extension`);
    await q.query(`ALTER TABLE septic_connection_order DROP COLUMN extension_id`);
  }
}

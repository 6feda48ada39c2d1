import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * SUL 408's alternative to taking a septic tank out of use: "Alternatively, the septic tank effluent
 * may be piped or pumped to the sewer; the owner shall provide an easement to the septic tank for
 * septage removal." A connection order's path, chosen by the District Operator (ABANDON, the law's
 * first way and every order's until then; EFFLUENT_TO_SEWER, the alternative), and the alternative's
 * steps: how the effluent goes to the sewer (piped or pumped) and on what day, and the owner's recorded
 * easement (an uploaded document) with the day it was recorded
 * (docs/decisions/septic-408-effluent-alternative.md). Indexed for the document's foreign key, which
 * the document access rule reads by.
 */
export class SepticEffluentAlternative1767110000000 implements MigrationInterface {
  name = "SepticEffluentAlternative1767110000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE septic_connection_order
      ADD COLUMN path text NOT NULL DEFAULT 'ABANDON' CHECK (path IN ('ABANDON', 'EFFLUENT_TO_SEWER')),
      ADD COLUMN effluent_method text CHECK (effluent_method IN ('PIPED', 'PUMPED')),
      ADD COLUMN effluent_on date,
      ADD COLUMN easement_document_id uuid REFERENCES document(id),
      ADD COLUMN easement_recorded_on date,
      ADD CONSTRAINT septic_connection_order_effluent CHECK ((effluent_method IS NULL) = (effluent_on IS NULL)),
      ADD CONSTRAINT septic_connection_order_easement CHECK ((easement_document_id IS NULL) = (easement_recorded_on IS NULL))`);
    await q.query(`CREATE INDEX septic_connection_order_easement_document ON septic_connection_order (easement_document_id) WHERE easement_document_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX septic_connection_order_easement_document`);
    await q.query(`ALTER TABLE septic_connection_order DROP CONSTRAINT septic_connection_order_easement, DROP CONSTRAINT septic_connection_order_effluent,
      DROP COLUMN easement_recorded_on, DROP COLUMN easement_document_id, DROP COLUMN effluent_on, DROP COLUMN effluent_method, DROP COLUMN path`);
  }
}

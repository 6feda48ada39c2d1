import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Inflow off the sanitary sewer (SUL 701-705; Huron III-8), docs/inflow.md.
 * - inflow_sale_import / inflow_sale: the Tax Assessor's notices of sales (SUL 703), entered one by
 *   one or imported from the assessor's CSV (each bad row kept with its line).
 * - inflow_inspection: one inspection of a property (opened by a sale, a request ahead of closing,
 *   or the District Operator), its disconnection order's date and its certificate.
 * - inflow_party: who asked for it or follows it (seller, buyer, attorney).
 * - inflow_visit / inflow_source / inflow_visit_photo: each visit's findings, source by source (701's
 *   list), the storm sewer distance and the drainage judged (702), with photos as documents.
 */
export class Inflow1766890000000 implements MigrationInterface {
  name = "Inflow1766890000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inflow_sale_import (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        file_name text NOT NULL,
        rows_read integer NOT NULL,
        rows_imported integer NOT NULL,
        errors jsonb NOT NULL DEFAULT '[]',
        entered_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX inflow_sale_import_district ON inflow_sale_import (district_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX inflow_sale_import_entered_by ON inflow_sale_import (entered_by_id)`);

    await q.query(`
      CREATE TABLE inflow_sale (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        sold_on date NOT NULL,
        buyer_name text NOT NULL CHECK (buyer_name <> ''),
        import_id uuid REFERENCES inflow_sale_import(id),
        line integer,
        entered_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One notice per property and day of sale: a file sent twice opens nothing twice.
    await q.query(`CREATE UNIQUE INDEX inflow_sale_once ON inflow_sale (property_id, sold_on)`);
    await q.query(`CREATE INDEX inflow_sale_district ON inflow_sale (district_id, sold_on)`);
    await q.query(`CREATE INDEX inflow_sale_import_rows ON inflow_sale (import_id) WHERE import_id IS NOT NULL`);
    await q.query(`CREATE INDEX inflow_sale_entered_by ON inflow_sale (entered_by_id)`);

    await q.query(`CREATE SEQUENCE inflow_certificate_number_seq`);
    await q.query(`
      CREATE TABLE inflow_inspection (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        number text NOT NULL UNIQUE,
        origin text NOT NULL CHECK (origin IN ('SALE', 'REQUEST', 'OPERATOR')),
        sale_id uuid REFERENCES inflow_sale(id),
        closing_on date,
        status text NOT NULL CHECK (status IN ('OPEN', 'ORDERED', 'PASSED', 'VIOLATION')),
        order_issued_on date,
        order_deadline date,
        certificate_number text UNIQUE,
        certificate_issued_on date,
        certificate_basis text,
        certificate_document_id uuid REFERENCES document(id),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        opened_by_id uuid NOT NULL REFERENCES app_user(id),
        opened_at timestamptz NOT NULL DEFAULT now(),
        closed_at timestamptz,
        CHECK (status <> 'ORDERED' OR order_deadline IS NOT NULL),
        CHECK ((certificate_number IS NULL) = (certificate_issued_on IS NULL))
      )`);
    await q.query(`CREATE INDEX inflow_inspection_queue ON inflow_inspection (district_id, opened_at DESC, id DESC)`);
    await q.query(`CREATE INDEX inflow_inspection_status ON inflow_inspection (district_id, status, opened_at DESC, id DESC)`);
    await q.query(`CREATE INDEX inflow_inspection_property ON inflow_inspection (property_id, opened_at DESC)`);
    // At most one inspection under way per property: a request ahead of closing joins it.
    await q.query(`CREATE UNIQUE INDEX inflow_inspection_one_open ON inflow_inspection (property_id) WHERE status IN ('OPEN', 'ORDERED')`);
    await q.query(`CREATE INDEX inflow_inspection_sale ON inflow_inspection (sale_id) WHERE sale_id IS NOT NULL`);
    await q.query(`CREATE INDEX inflow_inspection_certificate_document ON inflow_inspection (certificate_document_id) WHERE certificate_document_id IS NOT NULL`);
    await q.query(`CREATE INDEX inflow_inspection_rulebook ON inflow_inspection (rulebook_version_id)`);
    await q.query(`CREATE INDEX inflow_inspection_opened_by ON inflow_inspection (opened_by_id)`);

    await q.query(`
      CREATE TABLE inflow_party (
        inspection_id uuid NOT NULL REFERENCES inflow_inspection(id),
        user_id uuid NOT NULL REFERENCES app_user(id),
        role text NOT NULL CHECK (role IN ('SELLER', 'BUYER', 'ATTORNEY')),
        closing_on date,
        requested_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (inspection_id, user_id)
      )`);
    await q.query(`CREATE INDEX inflow_party_user ON inflow_party (user_id, requested_at DESC)`);

    await q.query(`
      CREATE TABLE inflow_visit (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        inspection_id uuid NOT NULL REFERENCES inflow_inspection(id),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        visit_number integer NOT NULL,
        visited_on date NOT NULL,
        storm_sewer_feet numeric(8,1),
        natural_drainage_adequate boolean NOT NULL,
        disconnection_required boolean NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('PASSED', 'ORDERED', 'VIOLATION')),
        order_deadline date,
        notes text,
        inspector_id uuid NOT NULL REFERENCES app_user(id),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (inspection_id, visit_number)
      )`);
    await q.query(`CREATE INDEX inflow_visit_property ON inflow_visit (property_id, visited_on)`);
    await q.query(`CREATE INDEX inflow_visit_district ON inflow_visit (district_id)`);
    await q.query(`CREATE INDEX inflow_visit_inspector ON inflow_visit (inspector_id)`);
    await q.query(`CREATE INDEX inflow_visit_rulebook ON inflow_visit (rulebook_version_id)`);

    await q.query(`
      CREATE TABLE inflow_source (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        visit_id uuid NOT NULL REFERENCES inflow_visit(id),
        inspection_id uuid NOT NULL REFERENCES inflow_inspection(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        district_id uuid NOT NULL REFERENCES district(id),
        position integer NOT NULL,
        kind text NOT NULL,
        location text,
        state text NOT NULL CHECK (state IN ('CONNECTED', 'DISCONNECTED', 'RECONNECTED')),
        reconnects_source_id uuid REFERENCES inflow_source(id),
        CHECK ((state = 'RECONNECTED') = (reconnects_source_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX inflow_source_visit ON inflow_source (visit_id, position)`);
    await q.query(`CREATE INDEX inflow_source_inspection ON inflow_source (inspection_id)`);
    await q.query(`CREATE INDEX inflow_source_property ON inflow_source (property_id, kind, state)`);
    await q.query(`CREATE INDEX inflow_source_district ON inflow_source (district_id)`);
    await q.query(`CREATE INDEX inflow_source_reconnects ON inflow_source (reconnects_source_id) WHERE reconnects_source_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE inflow_visit_photo (
        visit_id uuid NOT NULL REFERENCES inflow_visit(id),
        document_id uuid NOT NULL REFERENCES document(id),
        position integer NOT NULL,
        PRIMARY KEY (visit_id, document_id)
      )`);
    await q.query(`CREATE INDEX inflow_visit_photo_document ON inflow_visit_photo (document_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE inflow_visit_photo, inflow_source, inflow_visit, inflow_party, inflow_inspection, inflow_sale, inflow_sale_import`);
    await q.query(`DROP SEQUENCE inflow_certificate_number_seq`);
  }
}

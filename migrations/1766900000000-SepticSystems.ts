import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Private wastewater disposal (SUL Article 4; Huron II-3, II-4): the register of septic tanks and
 * cesspools per property of the register (sewer_property) with the buildings each serves (402),
 * their pump-outs matched from licensed haulers' loads (407), construction permits with their
 * documents and inspections (403-404), nuisance notices with their 90 days (405), and connection
 * orders once a public sewer reaches the property, with each abandonment step (408).
 */
export class SepticSystems1766900000000 implements MigrationInterface {
  name = "SepticSystems1766900000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE septic_permit_number_seq`);
    await q.query(`
      CREATE TABLE septic_permit (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        applicant_id uuid NOT NULL REFERENCES app_user(id),
        status text NOT NULL CHECK (status IN ('SUBMITTED', 'ISSUED', 'DENIED', 'COMPLETED')),
        permit_number text UNIQUE,
        system_kind text NOT NULL CHECK (system_kind IN ('SEPTIC_TANK', 'CESSPOOL')),
        buildings jsonb NOT NULL CHECK (jsonb_typeof(buildings) = 'array'),
        percolation_summary text NOT NULL CHECK (length(percolation_summary) BETWEEN 1 AND 2000),
        designer_name text NOT NULL CHECK (length(designer_name) BETWEEN 1 AND 200),
        designer_credential text NOT NULL CHECK (designer_credential IN ('PROFESSIONAL_ENGINEER', 'LICENSED_SURVEYOR', 'ARCHITECT')),
        designer_license text NOT NULL CHECK (length(designer_license) BETWEEN 1 AND 100),
        fee_cents integer NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
        fee_section text,
        payment_id uuid REFERENCES payment(id),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        submitted_at timestamptz NOT NULL DEFAULT now(),
        decided_at timestamptz,
        decided_by_id uuid REFERENCES app_user(id),
        decision_reason text,
        issued_on date,
        completed_on date,
        CHECK ((status = 'SUBMITTED') = (decided_at IS NULL)),
        CHECK (status <> 'DENIED' OR decision_reason IS NOT NULL),
        CHECK ((status IN ('ISSUED', 'COMPLETED')) = (issued_on IS NOT NULL AND permit_number IS NOT NULL)),
        CHECK ((status = 'COMPLETED') = (completed_on IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX septic_permit_district ON septic_permit (district_id, submitted_at DESC, id DESC)`);
    await q.query(`CREATE INDEX septic_permit_property ON septic_permit (property_id)`);
    await q.query(`CREATE INDEX septic_permit_applicant ON septic_permit (applicant_id, submitted_at DESC)`);
    await q.query(`CREATE INDEX septic_permit_payment ON septic_permit (payment_id)`);
    await q.query(`CREATE INDEX septic_permit_rulebook ON septic_permit (rulebook_version_id)`);
    await q.query(`CREATE INDEX septic_permit_decided_by ON septic_permit (decided_by_id)`);

    // Percolation test results, computations, the plot plan with the design and cross-section (403).
    await q.query(`
      CREATE TABLE septic_permit_document (
        permit_id uuid NOT NULL REFERENCES septic_permit(id),
        document_id uuid NOT NULL REFERENCES document(id),
        kind text NOT NULL CHECK (kind IN ('PERCOLATION_TESTS', 'COMPUTATIONS', 'PLOT_PLAN', 'OTHER')),
        position integer NOT NULL,
        PRIMARY KEY (permit_id, document_id)
      )`);
    await q.query(`CREATE INDEX septic_permit_document_document ON septic_permit_document (document_id)`);

    // Inspections at any stage, without prior notice (404).
    await q.query(`
      CREATE TABLE septic_inspection (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        permit_id uuid NOT NULL REFERENCES septic_permit(id),
        inspected_on date NOT NULL,
        stage text NOT NULL CHECK (stage IN ('SITE', 'EXCAVATION', 'TANK', 'ABSORPTION_FIELD', 'FINAL')),
        result text NOT NULL CHECK (result IN ('SATISFACTORY', 'DEFICIENT')),
        notes text CHECK (length(notes) <= 4000),
        recorded_by_id uuid NOT NULL REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX septic_inspection_permit ON septic_inspection (permit_id, inspected_on, recorded_at)`);
    await q.query(`CREATE INDEX septic_inspection_recorded_by ON septic_inspection (recorded_by_id)`);

    await q.query(`
      CREATE TABLE septic_system (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        property_id uuid NOT NULL REFERENCES sewer_property(id),
        kind text NOT NULL CHECK (kind IN ('SEPTIC_TANK', 'CESSPOOL')),
        buildings jsonb NOT NULL CHECK (jsonb_typeof(buildings) = 'array'),
        description text CHECK (length(description) <= 500),
        -- the property's street address as hauler loads are matched to it (407)
        address_key text NOT NULL,
        installed_on date,
        -- the last pumping as reported when the system was registered (no hauler load behind it)
        reported_pumped_on date,
        last_pumped_on date,
        -- the last pumping (or installation) plus the law's interval in force when it was worked out; null where the law sets none or nothing is on record
        pump_due_on date,
        reminded_due_on date,
        status text NOT NULL DEFAULT 'IN_USE' CHECK (status IN ('IN_USE', 'ABANDONED')),
        abandoned_on date,
        permit_id uuid REFERENCES septic_permit(id),
        registered_by_id uuid REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((status = 'ABANDONED') = (abandoned_on IS NOT NULL))
      )`);
    // The district's list runs by the day the next pump-out is due, none on record first.
    await q.query(`CREATE INDEX septic_system_due ON septic_system (district_id, (coalesce(pump_due_on, DATE '0001-01-01')), id) WHERE status = 'IN_USE'`);
    await q.query(`CREATE INDEX septic_system_list ON septic_system (district_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX septic_system_address ON septic_system (district_id, address_key) WHERE status = 'IN_USE'`);
    await q.query(`CREATE INDEX septic_system_property ON septic_system (property_id)`);
    await q.query(`CREATE INDEX septic_system_permit ON septic_system (permit_id)`);
    await q.query(`CREATE INDEX septic_system_registered_by ON septic_system (registered_by_id)`);

    // A licensed hauler's load from the system's address is its pump-out (407).
    await q.query(`
      CREATE TABLE septic_pump_out (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        system_id uuid NOT NULL REFERENCES septic_system(id),
        hauler_load_id uuid NOT NULL REFERENCES hauler_load(id),
        pumped_on date NOT NULL,
        matched_by text NOT NULL CHECK (matched_by IN ('ADDRESS', 'OPERATOR')),
        recorded_by_id uuid REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (system_id, hauler_load_id)
      )`);
    await q.query(`CREATE INDEX septic_pump_out_system ON septic_pump_out (system_id, pumped_on DESC)`);
    await q.query(`CREATE INDEX septic_pump_out_load ON septic_pump_out (hauler_load_id)`);
    await q.query(`CREATE INDEX septic_pump_out_recorded_by ON septic_pump_out (recorded_by_id)`);

    await q.query(`
      CREATE TABLE septic_nuisance_notice (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        system_id uuid NOT NULL REFERENCES septic_system(id),
        condition text NOT NULL CHECK (length(condition) BETWEEN 1 AND 4000),
        received_on date NOT NULL,
        repair_by date NOT NULL,
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'CORRECTED', 'ESCALATED')),
        reminded_at timestamptz,
        lapse_notified_at timestamptz,
        corrected_on date,
        correction_note text,
        enforcement_action_id uuid REFERENCES enforcement_action(id),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        served_by_id uuid NOT NULL REFERENCES app_user(id),
        served_at timestamptz NOT NULL DEFAULT now(),
        CHECK (repair_by > received_on),
        CHECK ((status = 'CORRECTED') = (corrected_on IS NOT NULL)),
        CHECK ((status = 'ESCALATED') = (enforcement_action_id IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX septic_nuisance_open ON septic_nuisance_notice (district_id, repair_by, id) WHERE status = 'OPEN'`);
    await q.query(`CREATE INDEX septic_nuisance_system ON septic_nuisance_notice (system_id, received_on DESC)`);
    await q.query(`CREATE INDEX septic_nuisance_action ON septic_nuisance_notice (enforcement_action_id)`);
    await q.query(`CREATE INDEX septic_nuisance_rulebook ON septic_nuisance_notice (rulebook_version_id)`);
    await q.query(`CREATE INDEX septic_nuisance_served_by ON septic_nuisance_notice (served_by_id)`);

    await q.query(`
      CREATE TABLE septic_connection_order (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        system_id uuid NOT NULL REFERENCES septic_system(id),
        reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
        issued_on date NOT NULL,
        issued_by_id uuid NOT NULL REFERENCES app_user(id),
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'CLOSED')),
        lateral_permit_id uuid REFERENCES lateral_permit(id),
        pump_out_id uuid REFERENCES septic_pump_out(id),
        tank_disposition text CHECK (tank_disposition IN ('FILLED', 'REMOVED')),
        tank_disposition_on date,
        fill_material text CHECK (length(fill_material) <= 200),
        plugged_on date,
        discontinued_on date,
        closed_on date,
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        CHECK ((tank_disposition IS NULL) = (tank_disposition_on IS NULL)),
        CHECK ((status = 'CLOSED') = (closed_on IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX septic_connection_order_open ON septic_connection_order (system_id) WHERE status = 'OPEN'`);
    await q.query(`CREATE INDEX septic_connection_order_district ON septic_connection_order (district_id, issued_on DESC, id DESC)`);
    await q.query(`CREATE INDEX septic_connection_order_system ON septic_connection_order (system_id, issued_on DESC)`);
    await q.query(`CREATE INDEX septic_connection_order_lateral ON septic_connection_order (lateral_permit_id)`);
    await q.query(`CREATE INDEX septic_connection_order_pump_out ON septic_connection_order (pump_out_id)`);
    await q.query(`CREATE INDEX septic_connection_order_issued_by ON septic_connection_order (issued_by_id)`);
    await q.query(`CREATE INDEX septic_connection_order_rulebook ON septic_connection_order (rulebook_version_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ["septic_connection_order", "septic_nuisance_notice", "septic_pump_out", "septic_system", "septic_inspection", "septic_permit_document", "septic_permit"]) await q.query(`DROP TABLE ${t}`);
    await q.query(`DROP SEQUENCE septic_permit_number_seq`);
  }
}

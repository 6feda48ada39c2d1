import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Septage haulers (SUL Article 8, 1208; Huron IV-8).
 *
 * - hauler_license: a HAULER organization's annual licence from the Town Board (SUL 801-803): the
 *   application (Part 364 permit, annual volume, service area, certification), its fee, the Board's
 *   decision, the dates it is valid, and where/when dumping is allowed. Whether a licence is in force
 *   is worked out from its dates on the rules' clock (valid_until, part364_expires_on): no job flips
 *   the status when a date passes. A renewal is a new row pointing at the licence it renews.
 * - hauler_permission: in Huron, the Superintendent's written special permission for a stated
 *   point and conditions (Huron IV-8), used in place of a licence to book loads.
 * - hauler_vehicle: the trucks of an application or a permission (SUL 801).
 * - hauler_load: a booked load, its dumping fee (paid before dumping, SUL 801, 1208), the
 *   operator's approval or refusal, the sample (SUL 804) and the gallons measured at the station.
 */
export class Haulers1764892800000 implements MigrationInterface {
  name = "Haulers1764892800000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE hauler_license (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization(id),
        district_id uuid NOT NULL REFERENCES district(id),
        applicant_id uuid NOT NULL REFERENCES app_user(id),
        previous_license_id uuid REFERENCES hauler_license(id),
        status text NOT NULL DEFAULT 'DRAFT'
          CHECK (status IN ('DRAFT', 'SUBMITTED', 'APPROVED', 'DENIED', 'SUSPENDED', 'REVOKED', 'EXPIRED', 'WITHDRAWN')),
        license_number text UNIQUE,
        part364_permit_number text CHECK (length(part364_permit_number) <= 50),
        part364_expires_on date,
        part364_document_id uuid REFERENCES document(id),
        part364_revoked_at timestamptz,
        part364_notice_sent_for date,
        annual_volume_gallons integer CHECK (annual_volume_gallons > 0),
        service_area text CHECK (length(service_area) <= 1000),
        other_information text CHECK (length(other_information) <= 4000),
        certified_at timestamptz,
        certified_by_id uuid REFERENCES app_user(id),
        rulebook_version_id uuid REFERENCES rulebook_version(id),
        application_fee_cents integer CHECK (application_fee_cents >= 0),
        payment_id uuid REFERENCES payment(id),
        paid_at timestamptz,
        submitted_at timestamptz,
        decided_at timestamptz,
        decided_by_id uuid REFERENCES app_user(id),
        decision_reason text CHECK (length(decision_reason) <= 4000),
        valid_from date,
        valid_until date,
        dumping_location text CHECK (length(dumping_location) <= 500),
        dumping_days integer[] CHECK (dumping_days <@ ARRAY[0, 1, 2, 3, 4, 5, 6]),
        dumping_from time,
        dumping_to time,
        reminders_sent integer[] NOT NULL DEFAULT '{}',
        action_at timestamptz,
        action_by_id uuid REFERENCES app_user(id),
        action_reason text CHECK (length(action_reason) <= 4000),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- Once submitted, the application has what SUL 801 asks for and the applicant's certification (SUL 802).
        CHECK (submitted_at IS NULL OR (annual_volume_gallons IS NOT NULL AND service_area IS NOT NULL
          AND certified_at IS NOT NULL AND rulebook_version_id IS NOT NULL)),
        -- An approved licence states its term, where, which days and what hours (SUL 802-803).
        CHECK (status IN ('DRAFT', 'SUBMITTED', 'DENIED', 'WITHDRAWN') OR (license_number IS NOT NULL AND valid_from IS NOT NULL
          AND valid_until IS NOT NULL AND dumping_location IS NOT NULL AND dumping_days IS NOT NULL
          AND dumping_from IS NOT NULL AND dumping_to IS NOT NULL AND dumping_from < dumping_to)),
        CHECK (valid_until IS NULL OR valid_until >= valid_from)
      )`);
    // The organization's licences, the Board's queue, and the licences expiring soon.
    await q.query(`CREATE INDEX hauler_license_organization ON hauler_license (organization_id, district_id, created_at DESC)`);
    await q.query(`CREATE INDEX hauler_license_queue ON hauler_license (district_id, status, submitted_at, id)`);
    await q.query(`CREATE INDEX hauler_license_expiring ON hauler_license (district_id, valid_until) WHERE status = 'APPROVED'`);
    await q.query(`CREATE INDEX hauler_license_applicant_id ON hauler_license (applicant_id)`);
    await q.query(`CREATE INDEX hauler_license_previous_license_id ON hauler_license (previous_license_id)`);
    await q.query(`CREATE INDEX hauler_license_part364_document_id ON hauler_license (part364_document_id)`);
    await q.query(`CREATE INDEX hauler_license_certified_by_id ON hauler_license (certified_by_id)`);
    await q.query(`CREATE INDEX hauler_license_rulebook_version_id ON hauler_license (rulebook_version_id)`);
    await q.query(`CREATE INDEX hauler_license_payment_id ON hauler_license (payment_id)`);
    await q.query(`CREATE INDEX hauler_license_decided_by_id ON hauler_license (decided_by_id)`);
    await q.query(`CREATE INDEX hauler_license_action_by_id ON hauler_license (action_by_id)`);
    // One renewal at a time per licence.
    await q.query(`CREATE UNIQUE INDEX hauler_license_one_renewal ON hauler_license (previous_license_id) WHERE status IN ('DRAFT', 'SUBMITTED', 'APPROVED')`);

    // Licence numbers run per district and calendar year: LKV-HL-2026-0001.
    await q.query(`
      CREATE TABLE hauler_license_counter (
        district_id uuid NOT NULL REFERENCES district(id),
        year integer NOT NULL CHECK (year BETWEEN 2000 AND 9999),
        last integer NOT NULL CHECK (last >= 0),
        PRIMARY KEY (district_id, year)
      )`);

    await q.query(`
      CREATE TABLE hauler_permission (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization(id),
        district_id uuid NOT NULL REFERENCES district(id),
        requested_by_id uuid NOT NULL REFERENCES app_user(id),
        status text NOT NULL DEFAULT 'REQUESTED' CHECK (status IN ('REQUESTED', 'GRANTED', 'DENIED', 'REVOKED')),
        requested_point text NOT NULL CHECK (length(requested_point) BETWEEN 1 AND 500),
        requested_conditions text CHECK (length(requested_conditions) <= 4000),
        point text CHECK (length(point) <= 500),
        conditions text CHECK (length(conditions) <= 4000),
        valid_from date,
        valid_until date,
        dumping_days integer[] CHECK (dumping_days <@ ARRAY[0, 1, 2, 3, 4, 5, 6]),
        dumping_from time,
        dumping_to time,
        decided_at timestamptz,
        decided_by_id uuid REFERENCES app_user(id),
        decision_reason text CHECK (length(decision_reason) <= 4000),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (status NOT IN ('GRANTED', 'REVOKED') OR (point IS NOT NULL AND conditions IS NOT NULL AND valid_from IS NOT NULL
          AND valid_until IS NOT NULL AND valid_until >= valid_from AND dumping_days IS NOT NULL
          AND dumping_from IS NOT NULL AND dumping_to IS NOT NULL AND dumping_from < dumping_to))
      )`);
    await q.query(`CREATE INDEX hauler_permission_organization ON hauler_permission (organization_id, created_at DESC)`);
    await q.query(`CREATE INDEX hauler_permission_queue ON hauler_permission (district_id, status, created_at)`);
    await q.query(`CREATE INDEX hauler_permission_requested_by_id ON hauler_permission (requested_by_id)`);
    await q.query(`CREATE INDEX hauler_permission_decided_by_id ON hauler_permission (decided_by_id)`);

    await q.query(`
      CREATE TABLE hauler_vehicle (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        license_id uuid REFERENCES hauler_license(id) ON DELETE CASCADE,
        permission_id uuid REFERENCES hauler_permission(id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 0),
        make text NOT NULL CHECK (length(make) BETWEEN 1 AND 100),
        model text NOT NULL CHECK (length(model) BETWEEN 1 AND 100),
        tank_capacity_gallons integer NOT NULL CHECK (tank_capacity_gallons BETWEEN 1 AND 20000),
        plate text NOT NULL CHECK (length(plate) BETWEEN 1 AND 20),
        plate_state text NOT NULL DEFAULT 'NY' CHECK (plate_state ~ '^[A-Z]{2}$'),
        colour text NOT NULL CHECK (length(colour) BETWEEN 1 AND 50),
        registered_owner text NOT NULL CHECK (length(registered_owner) BETWEEN 1 AND 200),
        CHECK ((license_id IS NULL) <> (permission_id IS NULL))
      )`);
    await q.query(`CREATE INDEX hauler_vehicle_license_id ON hauler_vehicle (license_id, position)`);
    await q.query(`CREATE INDEX hauler_vehicle_permission_id ON hauler_vehicle (permission_id, position)`);

    await q.query(`
      CREATE TABLE hauler_load (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        organization_id uuid NOT NULL REFERENCES organization(id),
        license_id uuid REFERENCES hauler_license(id),
        permission_id uuid REFERENCES hauler_permission(id),
        vehicle_id uuid NOT NULL REFERENCES hauler_vehicle(id),
        booked_by_id uuid NOT NULL REFERENCES app_user(id),
        status text NOT NULL DEFAULT 'BOOKED' CHECK (status IN ('BOOKED', 'APPROVED', 'REFUSED', 'RECEIVED', 'CANCELLED')),
        source_address text NOT NULL CHECK (length(source_address) BETWEEN 1 AND 300),
        source_kind text NOT NULL CHECK (source_kind IN ('RESIDENTIAL_SEPTIC_TANK', 'HOLDING_TANK', 'PORTABLE_TOILETS', 'GREASE_TRAP', 'OTHER')),
        source_description text CHECK (length(source_description) <= 500),
        estimated_gallons integer NOT NULL CHECK (estimated_gallons > 0),
        planned_arrival timestamptz NOT NULL,
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        rate_per_1000_cents integer CHECK (rate_per_1000_cents >= 0),
        minimum_cents integer CHECK (minimum_cents >= 0),
        fee_cents integer NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
        payment_id uuid REFERENCES payment(id),
        paid_at timestamptz,
        sample_required boolean NOT NULL DEFAULT false,
        sample_cost_cents integer CHECK (sample_cost_cents >= 0),
        sample_notes text CHECK (length(sample_notes) <= 2000),
        decided_at timestamptz,
        decided_by_id uuid REFERENCES app_user(id),
        refusal_reason text CHECK (length(refusal_reason) <= 2000),
        refund_due boolean NOT NULL DEFAULT false,
        measured_gallons integer CHECK (measured_gallons >= 0),
        received_at timestamptz,
        received_by_id uuid REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((license_id IS NULL) <> (permission_id IS NULL)),
        CHECK (status <> 'REFUSED' OR refusal_reason IS NOT NULL),
        CHECK ((status = 'RECEIVED') = (measured_gallons IS NOT NULL AND received_at IS NOT NULL)),
        CHECK (NOT sample_required OR sample_cost_cents IS NOT NULL)
      )`);
    // The station's day sheet (by planned arrival), the organization's history and statements.
    await q.query(`CREATE INDEX hauler_load_day_sheet ON hauler_load (district_id, planned_arrival, id)`);
    await q.query(`CREATE INDEX hauler_load_organization ON hauler_load (organization_id, planned_arrival DESC)`);
    await q.query(`CREATE INDEX hauler_load_license_id ON hauler_load (license_id)`);
    await q.query(`CREATE INDEX hauler_load_permission_id ON hauler_load (permission_id)`);
    await q.query(`CREATE INDEX hauler_load_vehicle_id ON hauler_load (vehicle_id)`);
    await q.query(`CREATE INDEX hauler_load_booked_by_id ON hauler_load (booked_by_id)`);
    await q.query(`CREATE INDEX hauler_load_rulebook_version_id ON hauler_load (rulebook_version_id)`);
    await q.query(`CREATE INDEX hauler_load_payment_id ON hauler_load (payment_id)`);
    await q.query(`CREATE INDEX hauler_load_decided_by_id ON hauler_load (decided_by_id)`);
    await q.query(`CREATE INDEX hauler_load_received_by_id ON hauler_load (received_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ["hauler_load", "hauler_vehicle", "hauler_permission", "hauler_license_counter", "hauler_license"]) await q.query(`DROP TABLE ${t}`);
  }
}

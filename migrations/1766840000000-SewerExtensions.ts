import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * New sewers and sewer extensions built by developers (SUL Article 5; Huron has no such article):
 * the developer organization's application (501, 502 A and C, 503 A), the District Operator's
 * review and decision, the capacity ledger of the district's sewer segments (1204) and plant with
 * the Town Board's commitments by resolution (501), the test sections and every test attempt
 * (505 A-G, 506 B), and the 30 days' notice of construction (502 A).
 */
export class SewerExtensions1766840000000 implements MigrationInterface {
  name = "SewerExtensions1766840000000";

  async up(q: QueryRunner): Promise<void> {
    // A developer is an organization of its own kind.
    await q.query(`ALTER TABLE organization DROP CONSTRAINT organization_kind_check`);
    await q.query(`ALTER TABLE organization ADD CONSTRAINT organization_kind_check CHECK (kind IN ('HAULER', 'INDUSTRIAL_USER', 'CONTRACTOR', 'DEVELOPER'))`);

    // The capacity ledger: each sewer segment (1204) and the plant, in gallons per day.
    await q.query(`
      CREATE TABLE sewer_capacity (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        kind text NOT NULL CHECK (kind IN ('SEGMENT', 'PLANT')),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        design_capacity_gpd integer NOT NULL CHECK (design_capacity_gpd > 0),
        present_use_gpd integer NOT NULL CHECK (present_use_gpd >= 0),
        updated_by_id uuid NOT NULL REFERENCES app_user(id),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (district_id, kind, name)
      )`);
    await q.query(`CREATE INDEX sewer_capacity_updated_by ON sewer_capacity (updated_by_id)`);

    await q.query(`
      CREATE TABLE sewer_extension (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        organization_id uuid NOT NULL REFERENCES organization(id),
        applicant_id uuid NOT NULL REFERENCES app_user(id),
        status text NOT NULL CHECK (status IN ('SUBMITTED', 'APPROVED', 'DENIED')),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        location text NOT NULL CHECK (length(location) BETWEEN 1 AND 500),
        map_reference text NOT NULL CHECK (length(map_reference) BETWEEN 1 AND 200),
        lots integer NOT NULL CHECK (lots > 0),
        design_flow_gpd integer NOT NULL CHECK (design_flow_gpd > 0),
        sewer_type text NOT NULL CHECK (sewer_type IN ('GRAVITY', 'LOW_PRESSURE')),
        pipe_diameter_inches numeric NOT NULL CHECK (pipe_diameter_inches > 0),
        pipe_pvc boolean NOT NULL,
        designer_name text NOT NULL CHECK (length(designer_name) BETWEEN 1 AND 200),
        designer_license text NOT NULL CHECK (length(designer_license) BETWEEN 1 AND 100),
        receiving_segment_id uuid NOT NULL REFERENCES sewer_capacity(id),
        plant_id uuid NOT NULL REFERENCES sewer_capacity(id),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        submitted_at timestamptz NOT NULL DEFAULT now(),
        checklist jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(checklist) = 'object'),
        review_notes text,
        decided_at timestamptz,
        decided_by_id uuid REFERENCES app_user(id),
        decision_reason text,
        -- the ledger's figures when decided (501): what the decision rested on
        capacity_at_decision jsonb,
        notice_given_on date,
        notice_given_at timestamptz,
        notice_given_by_id uuid REFERENCES app_user(id),
        construction_starts_on date,
        CHECK ((status = 'SUBMITTED') = (decided_at IS NULL) AND (decided_at IS NULL) = (decided_by_id IS NULL)),
        CHECK (status <> 'DENIED' OR decision_reason IS NOT NULL),
        CHECK ((notice_given_on IS NULL) = (construction_starts_on IS NULL) AND (notice_given_on IS NULL) = (notice_given_at IS NULL)),
        CHECK (notice_given_on IS NULL OR status = 'APPROVED')
      )`);
    await q.query(`CREATE INDEX sewer_extension_district ON sewer_extension (district_id, submitted_at DESC, id DESC)`);
    await q.query(`CREATE INDEX sewer_extension_organization ON sewer_extension (organization_id, submitted_at DESC)`);
    await q.query(`CREATE INDEX sewer_extension_applicant ON sewer_extension (applicant_id)`);
    await q.query(`CREATE INDEX sewer_extension_segment ON sewer_extension (receiving_segment_id)`);
    await q.query(`CREATE INDEX sewer_extension_plant ON sewer_extension (plant_id)`);
    await q.query(`CREATE INDEX sewer_extension_rulebook ON sewer_extension (rulebook_version_id)`);
    await q.query(`CREATE INDEX sewer_extension_decided_by ON sewer_extension (decided_by_id)`);
    await q.query(`CREATE INDEX sewer_extension_notice_by ON sewer_extension (notice_given_by_id)`);

    // Plans, specifications, calculations, the State's approval, pipe test results (501, 502 C).
    await q.query(`
      CREATE TABLE sewer_extension_document (
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        document_id uuid NOT NULL REFERENCES document(id),
        kind text NOT NULL CHECK (kind IN ('PLANS', 'SPECIFICATIONS', 'CALCULATIONS', 'STATE_APPROVAL', 'PIPE_TEST_RESULTS')),
        position integer NOT NULL,
        PRIMARY KEY (extension_id, document_id)
      )`);
    await q.query(`CREATE INDEX sewer_extension_document_document ON sewer_extension_document (document_id)`);

    // The Town Board's commitments of capacity by resolution (501), until released or expired.
    await q.query(`
      CREATE TABLE capacity_commitment (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        capacity_id uuid NOT NULL REFERENCES sewer_capacity(id),
        extension_id uuid REFERENCES sewer_extension(id),
        committed_to text NOT NULL CHECK (length(committed_to) BETWEEN 1 AND 200),
        flow_gpd integer NOT NULL CHECK (flow_gpd > 0),
        resolution_number text NOT NULL CHECK (length(resolution_number) BETWEEN 1 AND 60),
        resolution_adopted_on date NOT NULL,
        expires_on date,
        released_on date,
        release_resolution_number text,
        recorded_by_id uuid NOT NULL REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        released_by_id uuid REFERENCES app_user(id),
        CHECK (expires_on IS NULL OR expires_on > resolution_adopted_on),
        CHECK ((released_on IS NULL) = (release_resolution_number IS NULL) AND (released_on IS NULL) = (released_by_id IS NULL)),
        CHECK (released_on IS NULL OR released_on >= resolution_adopted_on)
      )`);
    await q.query(`CREATE INDEX capacity_commitment_capacity ON capacity_commitment (capacity_id, resolution_adopted_on)`);
    await q.query(`CREATE INDEX capacity_commitment_extension ON capacity_commitment (extension_id)`);
    await q.query(`CREATE INDEX capacity_commitment_recorded_by ON capacity_commitment (recorded_by_id)`);
    await q.query(`CREATE INDEX capacity_commitment_released_by ON capacity_commitment (released_by_id)`);

    // Test sections (505 B: at most 1,000 ft; a manhole tested on its own is a section too) and every attempt.
    await q.query(`
      CREATE TABLE extension_test_section (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
        created_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (extension_id, name)
      )`);
    await q.query(`CREATE INDEX extension_test_section_created_by ON extension_test_section (created_by_id)`);
    await q.query(`
      CREATE TABLE extension_test_attempt (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        section_id uuid NOT NULL REFERENCES extension_test_section(id),
        extension_id uuid NOT NULL REFERENCES sewer_extension(id),
        kind text NOT NULL CHECK (kind IN ('INFILTRATION', 'EXFILTRATION', 'DEFLECTION', 'AIR', 'SEWER_VACUUM', 'MANHOLE_VACUUM', 'FORCE_MAIN')),
        attempt integer NOT NULL CHECK (attempt > 0),
        entry jsonb NOT NULL CHECK (jsonb_typeof(entry) = 'object'),
        outcome text NOT NULL CHECK (outcome IN ('PASSED', 'FAILED', 'NOT_JUDGED')),
        criteria jsonb NOT NULL CHECK (jsonb_typeof(criteria) = 'array'),
        reason text,
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        tested_on date NOT NULL,
        notes text,
        recorded_by_id uuid NOT NULL REFERENCES app_user(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (section_id, kind, attempt)
      )`);
    await q.query(`CREATE INDEX extension_test_attempt_extension ON extension_test_attempt (extension_id, recorded_at)`);
    await q.query(`CREATE INDEX extension_test_attempt_rulebook ON extension_test_attempt (rulebook_version_id)`);
    await q.query(`CREATE INDEX extension_test_attempt_recorded_by ON extension_test_attempt (recorded_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE extension_test_attempt`);
    await q.query(`DROP TABLE extension_test_section`);
    await q.query(`DROP TABLE capacity_commitment`);
    await q.query(`DROP TABLE sewer_extension_document`);
    await q.query(`DROP TABLE sewer_extension`);
    await q.query(`DROP TABLE sewer_capacity`);
    await q.query(`ALTER TABLE organization DROP CONSTRAINT organization_kind_check`);
    await q.query(`ALTER TABLE organization ADD CONSTRAINT organization_kind_check CHECK (kind IN ('HAULER', 'INDUSTRIAL_USER', 'CONTRACTOR'))`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/** Foundation: districts and rulebooks, accounts, sessions, organizations, audit, outbox, jobs, documents. */
export class Foundation1764460800000 implements MigrationInterface {
  name = "Foundation1764460800000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE district (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9-]+$'),
        name text NOT NULL,
        law_name text NOT NULL,
        citation_prefix text NOT NULL,
        time_zone text NOT NULL,
        address text NOT NULL,
        contacts jsonb NOT NULL DEFAULT '[]',
        public_notice text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE rulebook_version (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id) ON DELETE CASCADE,
        version integer NOT NULL CHECK (version > 0),
        label text NOT NULL,
        effective_date date NOT NULL,
        entries jsonb NOT NULL,
        source text NOT NULL CHECK (source IN ('shipped', 'admin')),
        source_hash text,
        reason text,
        created_by_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (district_id, version)
      )`);
    await q.query(`CREATE INDEX rulebook_version_district_effective ON rulebook_version (district_id, effective_date DESC, version DESC)`);

    await q.query(`
      CREATE TABLE app_user (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL CHECK (email = lower(email) AND position('@' in email) > 1),
        display_name text NOT NULL,
        password_hash text NOT NULL,
        email_verified_at timestamptz,
        demo boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX app_user_email ON app_user (email)`);
    await q.query(`ALTER TABLE rulebook_version ADD CONSTRAINT rulebook_version_created_by FOREIGN KEY (created_by_id) REFERENCES app_user(id)`);
    await q.query(`CREATE INDEX rulebook_version_created_by_id ON rulebook_version (created_by_id)`);

    await q.query(`
      CREATE TABLE staff_role (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
        district_id uuid NOT NULL REFERENCES district(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('CLERK', 'OPERATOR', 'BOARD', 'ADMIN')),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, district_id, role)
      )`);
    await q.query(`CREATE INDEX staff_role_district_id ON staff_role (district_id)`);

    await q.query(`
      CREATE TABLE user_session (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        ip text,
        user_agent text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX user_session_user_id ON user_session (user_id, created_at DESC)`);

    await q.query(`
      CREATE TABLE api_token (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        token_hash text NOT NULL UNIQUE,
        token_prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_token_user_id ON api_token (user_id, created_at DESC)`);

    await q.query(`
      CREATE TABLE sign_in_attempt (
        id bigserial PRIMARY KEY,
        email text NOT NULL,
        ip text NOT NULL,
        succeeded boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sign_in_attempt_email ON sign_in_attempt (email, created_at DESC)`);
    await q.query(`CREATE INDEX sign_in_attempt_ip ON sign_in_attempt (ip, created_at DESC)`);

    await q.query(`
      CREATE TABLE one_time_token (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
        purpose text NOT NULL CHECK (purpose IN ('PASSWORD_RESET', 'EMAIL_VERIFICATION')),
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`CREATE INDEX one_time_token_user_id ON one_time_token (user_id, purpose)`);

    await q.query(`
      CREATE TABLE organization (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        kind text NOT NULL CHECK (kind IN ('HAULER', 'INDUSTRIAL_USER', 'CONTRACTOR')),
        created_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX organization_created_by_id ON organization (created_by_id)`);
    await q.query(`
      CREATE TABLE membership (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('OWNER', 'AUTHORIZED_REPRESENTATIVE', 'MEMBER')),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, user_id)
      )`);
    await q.query(`CREATE INDEX membership_user_id ON membership (user_id)`);
    await q.query(`
      CREATE TABLE invitation (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organization(id) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('OWNER', 'AUTHORIZED_REPRESENTATIVE', 'MEMBER')),
        token_hash text NOT NULL UNIQUE,
        invited_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by_id uuid REFERENCES app_user(id),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX invitation_organization_id ON invitation (organization_id)`);
    await q.query(`CREATE INDEX invitation_invited_by_id ON invitation (invited_by_id)`);
    await q.query(`CREATE INDEX invitation_accepted_by_id ON invitation (accepted_by_id)`);
    await q.query(`CREATE INDEX invitation_email ON invitation (email)`);

    await q.query(`
      CREATE TABLE audit_entry (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        actor_id uuid REFERENCES app_user(id),
        district_id uuid REFERENCES district(id),
        action text NOT NULL,
        entity_type text NOT NULL,
        entity_id text NOT NULL,
        reason text,
        details jsonb NOT NULL DEFAULT '{}',
        request_id text
      )`);
    await q.query(`CREATE INDEX audit_entry_at ON audit_entry (at DESC, id DESC)`);
    await q.query(`CREATE INDEX audit_entry_actor_id ON audit_entry (actor_id, at DESC)`);
    await q.query(`CREATE INDEX audit_entry_district_id ON audit_entry (district_id, at DESC)`);
    await q.query(`CREATE INDEX audit_entry_entity ON audit_entry (entity_type, entity_id, at DESC)`);

    await q.query(`
      CREATE TABLE outbox_email (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        to_address text NOT NULL,
        recipient_id uuid REFERENCES app_user(id) ON DELETE SET NULL,
        district_id uuid REFERENCES district(id),
        subject text NOT NULL,
        body_text text NOT NULL,
        kind text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        last_error text
      )`);
    await q.query(`CREATE INDEX outbox_email_recipient_id ON outbox_email (recipient_id, created_at DESC)`);
    await q.query(`CREATE INDEX outbox_email_district_id ON outbox_email (district_id, created_at DESC)`);
    await q.query(`CREATE INDEX outbox_email_unsent ON outbox_email (created_at) WHERE sent_at IS NULL`);
    await q.query(`CREATE INDEX outbox_email_created_at ON outbox_email (created_at DESC)`);

    await q.query(`
      CREATE TABLE job (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}',
        singleton_key text UNIQUE,
        run_at timestamptz NOT NULL DEFAULT now(),
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
        locked_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX job_due ON job (run_at) WHERE status IN ('queued', 'running')`);

    await q.query(`
      CREATE TABLE document (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES app_user(id),
        organization_id uuid REFERENCES organization(id),
        filename text NOT NULL,
        content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
        size_bytes integer NOT NULL CHECK (size_bytes > 0),
        sha256 text NOT NULL CHECK (length(sha256) = 64),
        storage_key text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX document_owner_id ON document (owner_id, created_at DESC)`);
    await q.query(`CREATE INDEX document_organization_id ON document (organization_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      "document",
      "job",
      "outbox_email",
      "audit_entry",
      "invitation",
      "membership",
      "organization",
      "one_time_token",
      "sign_in_attempt",
      "api_token",
      "user_session",
      "staff_role",
    ])
      await q.query(`DROP TABLE ${t}`);
    await q.query(`ALTER TABLE rulebook_version DROP CONSTRAINT rulebook_version_created_by`);
    await q.query(`DROP TABLE app_user`);
    await q.query(`DROP TABLE rulebook_version`);
    await q.query(`DROP TABLE district`);
  }
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Enforcement (SUL Article 11; Huron Article V) and charges (SUL 1118; Huron VI-3, VI-4).
 *
 * - enforcement_action: a notice, order or fine served on a person (respondent_user_id) or an
 *   organization (respondent_organization_id), exactly one. served_on is the date of mailing in the
 *   district's zone (SUL 1111); the answer and petition deadlines are calendar dates computed from
 *   it. escalates_id links the earlier action it follows from; subject_type/subject_id/subject_label
 *   name the permit, licence, report or load behind it without a foreign key, so other features'
 *   records can be named. A fine is itemised by day in fine_days ([{date, amountCents}]).
 * - petition: the respondent's petition to the Town Board (or to the District Operator for a water
 *   severance, SUL 1108), with its grounds, relief, documents and the decision (who, when, why).
 * - show_cause_hearing: the hearing the Board orders (SUL 1109) and its outcome.
 * - charge: a billed amount (a fine, or a charge the Clerk bills by hand) with its billing date;
 *   penalty and interest are computed from the clock on a statement, never stored.
 */
export class Enforcement1764979200000 implements MigrationInterface {
  name = "Enforcement1764979200000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE enforcement_action (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        number text NOT NULL UNIQUE,
        kind text NOT NULL CHECK (kind IN ('NOTICE_OF_VIOLATION', 'CONSENT_ORDER', 'COMPLIANCE_ORDER', 'FINE', 'CEASE_AND_DESIST',
                                           'PERMIT_TERMINATION', 'WATER_SEVERANCE', 'SUMMARY_ABATEMENT')),
        status text NOT NULL DEFAULT 'SERVED' CHECK (status IN ('SERVED', 'UNDER_PETITION', 'FINAL', 'SUSPENDED', 'VACATED', 'RECONNECTED')),
        respondent_user_id uuid REFERENCES app_user(id),
        respondent_organization_id uuid REFERENCES organization(id),
        respondent_name text NOT NULL,
        violation text NOT NULL,
        requirements text,
        section text NOT NULL,
        correct_by date,
        served_on date NOT NULL,
        answer_due_on date,
        petition_due_on date,
        petition_to text CHECK (petition_to IN ('TOWN_BOARD', 'DISTRICT_OPERATOR')),
        hearing_due_on date,
        final_on date,
        final_reason text,
        escalates_id uuid REFERENCES enforcement_action(id),
        subject_type text,
        subject_id uuid,
        subject_label text,
        fine_days jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(fine_days) = 'array'),
        fine_total_cents integer NOT NULL DEFAULT 0 CHECK (fine_total_cents >= 0),
        original_fine_total_cents integer NOT NULL DEFAULT 0 CHECK (original_fine_total_cents >= 0),
        response text,
        response_plan text,
        responded_at timestamptz,
        responded_by_id uuid REFERENCES app_user(id),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        created_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((respondent_user_id IS NULL) <> (respondent_organization_id IS NULL)),
        CHECK ((subject_type IS NULL) = (subject_label IS NULL)),
        CHECK ((kind = 'FINE') = (fine_total_cents > 0 OR original_fine_total_cents > 0))
      )`);
    await q.query(`CREATE INDEX enforcement_action_district_served ON enforcement_action (district_id, served_on DESC, id DESC)`);
    await q.query(`CREATE INDEX enforcement_action_respondent_user_id ON enforcement_action (respondent_user_id) WHERE respondent_user_id IS NOT NULL`);
    await q.query(`CREATE INDEX enforcement_action_respondent_organization_id ON enforcement_action (respondent_organization_id) WHERE respondent_organization_id IS NOT NULL`);
    await q.query(`CREATE INDEX enforcement_action_escalates_id ON enforcement_action (escalates_id)`);
    await q.query(`CREATE INDEX enforcement_action_responded_by_id ON enforcement_action (responded_by_id)`);
    await q.query(`CREATE INDEX enforcement_action_rulebook_version_id ON enforcement_action (rulebook_version_id)`);
    await q.query(`CREATE INDEX enforcement_action_created_by_id ON enforcement_action (created_by_id)`);
    await q.query(`CREATE INDEX enforcement_action_subject ON enforcement_action (subject_type, subject_id)`);

    await q.query(`
      CREATE TABLE petition (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        action_id uuid NOT NULL REFERENCES enforcement_action(id),
        district_id uuid NOT NULL REFERENCES district(id),
        addressed_to text NOT NULL CHECK (addressed_to IN ('TOWN_BOARD', 'DISTRICT_OPERATOR')),
        relief text NOT NULL CHECK (relief IN ('MODIFY', 'SUSPEND', 'RECONNECT', 'CONTINUED_USE')),
        grounds text NOT NULL,
        status text NOT NULL DEFAULT 'FILED' CHECK (status IN ('FILED', 'HEARING_ORDERED', 'REJECTED', 'MODIFIED', 'SUSPENDED', 'RECONNECTED',
                                                               'UPHELD', 'VACATED', 'WITHDRAWN')),
        filed_by_id uuid NOT NULL REFERENCES app_user(id),
        filed_at timestamptz NOT NULL DEFAULT now(),
        filed_on date NOT NULL,
        decided_by_id uuid REFERENCES app_user(id),
        decided_at timestamptz,
        decision_reasons text,
        new_terms text,
        new_amount_cents integer CHECK (new_amount_cents > 0),
        withdrawn_at timestamptz,
        withdrawn_by_id uuid REFERENCES app_user(id),
        CHECK ((decided_at IS NULL) = (decided_by_id IS NULL))
      )`);
    await q.query(`CREATE INDEX petition_action_id ON petition (action_id)`);
    await q.query(`CREATE UNIQUE INDEX petition_one_open_per_action ON petition (action_id) WHERE status IN ('FILED', 'HEARING_ORDERED')`);
    await q.query(`CREATE INDEX petition_docket ON petition (district_id, filed_at, id) WHERE status IN ('FILED', 'HEARING_ORDERED')`);
    await q.query(`CREATE INDEX petition_district_filed ON petition (district_id, filed_at, id)`);
    await q.query(`CREATE INDEX petition_filed_by_id ON petition (filed_by_id)`);
    await q.query(`CREATE INDEX petition_decided_by_id ON petition (decided_by_id)`);
    await q.query(`CREATE INDEX petition_withdrawn_by_id ON petition (withdrawn_by_id)`);

    await q.query(`
      CREATE TABLE petition_document (
        petition_id uuid NOT NULL REFERENCES petition(id) ON DELETE CASCADE,
        document_id uuid NOT NULL REFERENCES document(id),
        position integer NOT NULL,
        PRIMARY KEY (petition_id, document_id)
      )`);
    await q.query(`CREATE INDEX petition_document_document_id ON petition_document (document_id)`);

    await q.query(`
      CREATE TABLE show_cause_hearing (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        petition_id uuid NOT NULL UNIQUE REFERENCES petition(id),
        action_id uuid NOT NULL REFERENCES enforcement_action(id),
        district_id uuid NOT NULL REFERENCES district(id),
        scheduled_for timestamptz NOT NULL,
        hearing_date date NOT NULL,
        place text NOT NULL,
        reasons text NOT NULL,
        proposed_action text NOT NULL,
        information_requested text,
        notice_served_on date NOT NULL,
        ordered_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        outcome text CHECK (outcome IN ('UPHELD', 'MODIFIED', 'VACATED')),
        outcome_reasons text,
        new_amount_cents integer CHECK (new_amount_cents > 0),
        new_terms text,
        decided_by_id uuid REFERENCES app_user(id),
        decided_at timestamptz,
        CHECK ((outcome IS NULL) = (decided_at IS NULL) AND (decided_at IS NULL) = (decided_by_id IS NULL)),
        CHECK (hearing_date >= notice_served_on)
      )`);
    await q.query(`CREATE INDEX show_cause_hearing_action_id ON show_cause_hearing (action_id)`);
    await q.query(`CREATE INDEX show_cause_hearing_calendar ON show_cause_hearing (district_id, scheduled_for)`);
    await q.query(`CREATE INDEX show_cause_hearing_ordered_by_id ON show_cause_hearing (ordered_by_id)`);
    await q.query(`CREATE INDEX show_cause_hearing_decided_by_id ON show_cause_hearing (decided_by_id)`);

    await q.query(`
      CREATE TABLE charge (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        number text NOT NULL UNIQUE,
        respondent_user_id uuid REFERENCES app_user(id),
        respondent_organization_id uuid REFERENCES organization(id),
        respondent_name text NOT NULL,
        label text NOT NULL,
        section text NOT NULL,
        amount_cents integer NOT NULL CHECK (amount_cents > 0),
        billed_on date NOT NULL,
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'HELD', 'PAID', 'CANCELLED')),
        action_id uuid UNIQUE REFERENCES enforcement_action(id),
        tax_parcel text,
        property_address text,
        payment_id uuid REFERENCES payment(id),
        paid_at timestamptz,
        paid_cents integer,
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        created_by_id uuid NOT NULL REFERENCES app_user(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((respondent_user_id IS NULL) <> (respondent_organization_id IS NULL)),
        CHECK ((status = 'PAID') = (paid_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX charge_district_billed ON charge (district_id, billed_on, id)`);
    await q.query(`CREATE INDEX charge_respondent_user_id ON charge (respondent_user_id) WHERE respondent_user_id IS NOT NULL`);
    await q.query(`CREATE INDEX charge_respondent_organization_id ON charge (respondent_organization_id) WHERE respondent_organization_id IS NOT NULL`);
    await q.query(`CREATE INDEX charge_payment_id ON charge (payment_id)`);
    await q.query(`CREATE INDEX charge_rulebook_version_id ON charge (rulebook_version_id)`);
    await q.query(`CREATE INDEX charge_created_by_id ON charge (created_by_id)`);

    // SUL 1205: a request to the District Operator to count only part of the metered water,
    // filed like a petition with evidence and documents.
    await q.query(`
      CREATE TABLE flow_deduction_request (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        district_id uuid NOT NULL REFERENCES district(id),
        filed_by_id uuid NOT NULL REFERENCES app_user(id),
        organization_id uuid REFERENCES organization(id),
        property_address text NOT NULL,
        tax_parcel text,
        evidence text NOT NULL,
        status text NOT NULL DEFAULT 'FILED' CHECK (status IN ('FILED', 'PERCENTAGE_SET', 'METERING_DIRECTED', 'REJECTED', 'WITHDRAWN')),
        sewer_percent integer CHECK (sewer_percent BETWEEN 1 AND 99),
        decision_reasons text,
        decided_by_id uuid REFERENCES app_user(id),
        decided_at timestamptz,
        filed_at timestamptz NOT NULL DEFAULT now(),
        rulebook_version_id uuid NOT NULL REFERENCES rulebook_version(id),
        CHECK ((status = 'PERCENTAGE_SET') = (sewer_percent IS NOT NULL)),
        CHECK ((decided_at IS NULL) = (decided_by_id IS NULL))
      )`);
    await q.query(`CREATE INDEX flow_deduction_request_district ON flow_deduction_request (district_id, filed_at, id)`);
    await q.query(`CREATE INDEX flow_deduction_request_filed_by_id ON flow_deduction_request (filed_by_id)`);
    await q.query(`CREATE INDEX flow_deduction_request_organization_id ON flow_deduction_request (organization_id)`);
    await q.query(`CREATE INDEX flow_deduction_request_decided_by_id ON flow_deduction_request (decided_by_id)`);
    await q.query(`CREATE INDEX flow_deduction_request_rulebook_version_id ON flow_deduction_request (rulebook_version_id)`);
    await q.query(`
      CREATE TABLE flow_deduction_document (
        request_id uuid NOT NULL REFERENCES flow_deduction_request(id) ON DELETE CASCADE,
        document_id uuid NOT NULL REFERENCES document(id),
        position integer NOT NULL,
        PRIMARY KEY (request_id, document_id)
      )`);
    await q.query(`CREATE INDEX flow_deduction_document_document_id ON flow_deduction_document (document_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE flow_deduction_document`);
    await q.query(`DROP TABLE flow_deduction_request`);
    await q.query(`DROP TABLE charge`);
    await q.query(`DROP TABLE show_cause_hearing`);
    await q.query(`DROP TABLE petition_document`);
    await q.query(`DROP TABLE petition`);
    await q.query(`DROP TABLE enforcement_action`);
  }
}

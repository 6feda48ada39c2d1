import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Huron V-2: a violation continuing past a written notice's time to correct is fined by a court
 * "on conviction", not by the Superintendent. The Superintendent refers the notice's violation for
 * prosecution with the days it continued; the Town Clerk records the court's judgment (conviction
 * with the fine imposed, or acquittal or dismissal). One prosecution per notice; the fine's charge
 * is made only on conviction (charge.action_id is the notice).
 */
export class Prosecutions1766250000000 implements MigrationInterface {
  name = "Prosecutions1766250000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE prosecution (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        action_id uuid NOT NULL UNIQUE REFERENCES enforcement_action(id),
        district_id uuid NOT NULL REFERENCES district(id),
        continued_days jsonb NOT NULL CHECK (jsonb_typeof(continued_days) = 'array' AND jsonb_array_length(continued_days) > 0),
        referred_on date NOT NULL,
        referred_by_id uuid NOT NULL REFERENCES app_user(id),
        referred_at timestamptz NOT NULL DEFAULT now(),
        judgment text CHECK (judgment IN ('CONVICTED', 'ACQUITTED', 'DISMISSED')),
        court text,
        docket_number text,
        judgment_on date,
        offense_days jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(offense_days) = 'array'),
        fine_total_cents integer NOT NULL DEFAULT 0 CHECK (fine_total_cents >= 0),
        recorded_by_id uuid REFERENCES app_user(id),
        recorded_at timestamptz,
        CHECK ((judgment IS NULL) = (recorded_at IS NULL) AND (judgment IS NULL) = (judgment_on IS NULL) AND (judgment IS NULL) = (court IS NULL)),
        CHECK ((judgment = 'CONVICTED') = (fine_total_cents > 0)),
        CHECK (judgment_on IS NULL OR judgment_on >= referred_on)
      )`);
    await q.query(`CREATE INDEX prosecution_district ON prosecution (district_id, referred_at)`);
    // Every foreign key indexed (a user's records are found or removed without a scan).
    await q.query(`CREATE INDEX prosecution_referred_by ON prosecution (referred_by_id)`);
    await q.query(`CREATE INDEX prosecution_recorded_by ON prosecution (recorded_by_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE prosecution`);
  }
}

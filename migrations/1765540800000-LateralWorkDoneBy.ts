import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Who does the work on a lateral, where the district keeps no list of approved contractors
 * (Huron III-2: "the owner or his agent shall make application"; SUL 601 A's list has no
 * counterpart there): the applicant names the owner or the plumber or contractor the owner hires.
 * A submitted application no longer always counts sheets of plans (SUL 606 B's as-built deposit;
 * Huron asks for no as-built drawings): the completeness check drops them and asks instead that
 * someone is named to do the work, a listed contractor or the one the applicant names.
 */
export class LateralWorkDoneBy1765540800000 implements MigrationInterface {
  name = "LateralWorkDoneBy1765540800000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE lateral_permit ADD COLUMN work_done_by text CHECK (length(work_done_by) <= 200)`);
    await q.query(`ALTER TABLE lateral_permit DROP CONSTRAINT ${await completenessCheck(q)}`);
    await q.query(`
      ALTER TABLE lateral_permit ADD CONSTRAINT lateral_permit_submitted_complete
        CHECK (submitted_at IS NULL OR (permit_class IS NOT NULL AND building_use IS NOT NULL AND work_kind IS NOT NULL
          AND street_number IS NOT NULL AND street IS NOT NULL AND city IS NOT NULL AND zip IS NOT NULL
          AND tax_parcel IS NOT NULL AND owner_name IS NOT NULL AND rulebook_version_id IS NOT NULL
          AND (contractor_id IS NOT NULL OR work_done_by IS NOT NULL)))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE lateral_permit DROP CONSTRAINT lateral_permit_submitted_complete`);
    await q.query(`ALTER TABLE lateral_permit DROP COLUMN work_done_by`);
    await q.query(`
      ALTER TABLE lateral_permit ADD CHECK (submitted_at IS NULL OR (permit_class IS NOT NULL AND building_use IS NOT NULL AND work_kind IS NOT NULL
          AND street_number IS NOT NULL AND street IS NOT NULL AND city IS NOT NULL AND zip IS NOT NULL
          AND tax_parcel IS NOT NULL AND owner_name IS NOT NULL AND as_built_sheets IS NOT NULL
          AND rulebook_version_id IS NOT NULL))`);
  }
}

/** The unnamed completeness check of 1764720000000-LateralPermits, found by what it checks. */
async function completenessCheck(q: QueryRunner): Promise<string> {
  const rows: { conname: string }[] = await q.query(
    `SELECT conname FROM pg_constraint WHERE conrelid = 'lateral_permit'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%as_built_sheets IS NOT NULL%'`,
  );
  if (rows.length !== 1) throw new Error(`expected one completeness check on lateral_permit, found ${rows.length}`);
  return `"${rows[0].conname}"`;
}

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Who does the work on a lateral, where the district keeps no list of approved contractors
 * (Huron III-2: "the owner or his agent shall make application"; SUL 601 A's list has no
 * counterpart there): the applicant names the owner or the plumber or contractor the owner hires.
 */
export class LateralWorkDoneBy1765540800000 implements MigrationInterface {
  name = "LateralWorkDoneBy1765540800000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE lateral_permit ADD COLUMN work_done_by text CHECK (length(work_done_by) <= 200)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE lateral_permit DROP COLUMN work_done_by`);
  }
}

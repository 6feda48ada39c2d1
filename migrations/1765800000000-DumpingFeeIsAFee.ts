import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A load's dumping fee is a fee, not a deposit (SUL 801, 1208: nothing makes it refundable), so its
 * payment line is not `refundable` and no page or receipt calls it a "refundable deposit". Lines
 * written before said otherwise; they are corrected here. A refused or cancelled load's fee is
 * still refunded: the payable says the line is owed back (api/haulers/registrations.ts).
 */
export class DumpingFeeIsAFee1765800000000 implements MigrationInterface {
  name = "DumpingFeeIsAFee1765800000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(setRefundable(false));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(setRefundable(true));
  }
}

const setRefundable = (to: boolean) => `
  UPDATE payment SET lines = (
    SELECT jsonb_agg(CASE WHEN e->>'code' = 'dumping-fee' THEN e || jsonb_build_object('refundable', ${to}) ELSE e END ORDER BY i)
      FROM jsonb_array_elements(lines) WITH ORDINALITY AS t(e, i))
   WHERE payable_type = 'HaulerLoad' AND lines @> '[{"code": "dumping-fee", "refundable": ${!to}}]'`;

import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A disconnection order's reminder to the owner and parties before its date, and the note to the
 * District Operators once it has passed (SUL 702, 703), each sent once per date: the date it was
 * sent for is kept, so a new order with a new date is reminded again. The daily job reads the
 * district's orders by their date.
 */
export class InflowOrderReminders1766990000000 implements MigrationInterface {
  name = "InflowOrderReminders1766990000000";

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inflow_inspection ADD COLUMN order_reminded_for date, ADD COLUMN order_lapse_notified_for date`);
    await q.query(`CREATE INDEX inflow_inspection_order_deadline ON inflow_inspection (district_id, order_deadline) WHERE status = 'ORDERED'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX inflow_inspection_order_deadline`);
    await q.query(`ALTER TABLE inflow_inspection DROP COLUMN order_reminded_for, DROP COLUMN order_lapse_notified_for`);
  }
}

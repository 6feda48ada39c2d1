import type { DataSource } from "typeorm";
import { DEMO } from "./harness.js";

let billSeq = 0;

/**
 * An issued bill as a bill run leaves it (bill runs themselves are tested in rents-bills.test.ts):
 * mailed, due, numbered and frozen, in its period's run, for tests of what follows a bill (balances,
 * paying, late charges, quick pay). `prefix` keeps one file's bill numbers apart from another's.
 */
export async function issueTestBill(
  ds: DataSource,
  acct: { id: string; propertyId: string; districtId: string },
  o: { cycle: string; periodStart: string; periodEnd: string; mailedOn: string; dueOn: string; totalCents: number },
  prefix: string,
): Promise<{ id: string; number: string; runId: string }> {
  const [{ id: versionId }] = await ds.query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [acct.districtId]);
  const [{ id: userId }] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.lakeviewClerk]);
  const [run] = await ds.query(
    `INSERT INTO bill_run (district_id, cycle, period_start, period_end, status, rulebook_version_id, mailed_on, due_on, previewed_by_id)
     VALUES ($1, $2, $3, $4, 'ISSUED', $5, $6, $7, $8)
     ON CONFLICT (district_id, cycle, period_start) DO UPDATE SET bill_count = bill_run.bill_count + 1 RETURNING id`,
    [acct.districtId, o.cycle, o.periodStart, o.periodEnd, versionId, o.mailedOn, o.dueOn, userId],
  );
  const number = `${prefix}-${o.periodStart.slice(0, 7).replace("-", "")}-${String(++billSeq).padStart(7, "0")}`;
  const [b] = await ds.query(
    `INSERT INTO bill (run_id, district_id, cycle, kind, account_id, property_id, bill_to, period_start, period_end, served_from, served_to, total_cents, status, number, mailed_on, due_on, rulebook_version_id, issued_at)
     VALUES ($1, $2, $3, 'ACCOUNT', $4, $5, 'Occupant', $6, $7, $6, $7, $8, 'ISSUED', $9, $10, $11, $12, clock_timestamp()) RETURNING id`,
    [run.id, acct.districtId, o.cycle, acct.id, acct.propertyId, o.periodStart, o.periodEnd, o.totalCents, number, o.mailedOn, o.dueOn, versionId],
  );
  return { id: b.id as string, number, runId: run.id as string };
}

import type { CalendarDate } from "../common/dates.js";
import type { Rulebook } from "../districts/districts.service.js";
import { DETERMINATION_METHOD_LABELS, chargesInflow, type DeterminationMethod } from "../inflow/rules.js";
import { inflowCharge, type BillLine, type BillTask, type FlagCode } from "./bill-rules.js";
import type { Db } from "./common.js";

/**
 * SUL 705 on the sewer bill (docs/decisions/inflow-on-the-bill.md): the District Operator's
 * determinations of inflow (api/inflow/determinations.service.ts) that a bill run's batch bills.
 * One statement a batch, whatever its number of accounts (index inflow_determination_property;
 * the bearing account by service_account_by_property; "already on a bill" by bill_line_inflow_once).
 *
 * - Which determinations: those of the batch's properties whose last day is on or before the
 *   period's last day and that no bill line carries yet (a preview of another run holds it too), so
 *   each is billed once, in the run of the period holding its last day, or, recorded after that
 *   run, in the next one. Previewing a run again recomputes it (its own lines are gone by then).
 *   A withdrawn determination is never billed (docs/decisions/inflow-determination-withdrawn.md).
 * - Which account bears it ("the property from which the inflow originated shall be billed"): of
 *   the property's accounts served in the period, the owner of record's own (its occupant is the
 *   owner's sign-in or bears the owner's name), else the longest open (first opened, then by
 *   number). Only a batch's accounts that bear one get lines.
 */

export type InflowBilled = { lines: (BillLine & { inflowDeterminationId?: string })[]; flags: { code: FlagCode; text: string }[] };

export async function inflowCharges(
  db: Db,
  rb: Rulebook,
  accounts: { id: string; property_id: string }[],
  run: { runId: string; start: CalendarDate; end: CalendarDate },
  tasks: BillTask[],
): Promise<Map<string, InflowBilled>> {
  const out = new Map<string, InflowBilled>();
  // Huron III-8: no determination of inflow and no charge: nothing is read.
  if (!accounts.length || !chargesInflow(rb)) return out;
  const rows: { id: string; account_id: string; period_from: string; period_to: string; gallons: string; method: DeterminationMethod }[] = await db.query(
    `SELECT d.id, bearer.id AS account_id, d.period_from::text AS period_from, d.period_to::text AS period_to, d.gallons::text AS gallons, d.method
       FROM (SELECT DISTINCT x AS property_id FROM unnest($1::uuid[]) AS x) props
       JOIN inflow_determination d ON d.property_id = props.property_id AND d.period_to <= $3::date AND d.withdrawn_at IS NULL
       CROSS JOIN LATERAL (
         SELECT a.id FROM service_account a JOIN sewer_property p ON p.id = a.property_id
          WHERE a.property_id = d.property_id AND a.opened_on <= $3::date AND (a.closed_on IS NULL OR a.closed_on >= $2::date)
          ORDER BY ((a.occupant_user_id IS NOT NULL AND a.occupant_user_id = p.owner_user_id) OR lower(a.occupant_name) = lower(p.owner_name)) DESC, a.opened_on, a.account_number, a.id
          LIMIT 1) bearer
      WHERE bearer.id = ANY($4::uuid[])
        AND NOT EXISTS (SELECT 1 FROM bill_line l JOIN bill b ON b.id = l.bill_id WHERE l.inflow_determination_id = d.id AND l.kind = 'INFLOW' AND b.run_id <> $5)
      ORDER BY d.period_from, d.id`,
    [accounts.map((a) => a.property_id), run.start, run.end, accounts.map((a) => a.id), run.runId],
  );
  for (const r of rows) {
    const c = inflowCharge(rb, { gallons: Number(r.gallons), from: r.period_from, to: r.period_to, methodLabel: DETERMINATION_METHOD_LABELS[r.method] ?? r.method });
    // Once per text, not once per account.
    if (c.problem && !tasks.some((t) => t.text === c.problem)) tasks.push({ key: "billing.inflowSurchargeFactor", text: c.problem });
    if (!c.lines.length) continue;
    const mine = out.get(r.account_id) ?? { lines: [], flags: [] };
    mine.lines.push(...c.lines.map((l) => ({ ...l, inflowDeterminationId: r.id })));
    if (c.flag) mine.flags.push(c.flag);
    out.set(r.account_id, mine);
  }
  return out;
}

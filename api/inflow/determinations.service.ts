import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn } from "../common/dates.js";
import { badInput, conflict } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { rulebookOn } from "../districts/districts.service.js";
import { actorOf, clean, emailPeople, getInspection, loadDistrict, requireOperator, type Db, type InspectionRow, type Meta } from "./common.js";
import { DETERMINATION_METHOD_LABELS, chargeSection, chargesInflow, determinationProblems, noInflowCharge, type DeterminationMethod } from "./rules.js";

/**
 * SUL 705: "The District Operator is enabled to take whatever action is necessary to determine the
 * amount of inflow including the requirement for installation of a control manhole. The property
 * from which the inflow originated shall be billed for inflow according to Article 12 ..." The
 * Operator records, on an inspection that found a source connected, the gallons of inflow over a
 * dated period, how they were determined (a control manhole's meter, the sump pump's measured run
 * time, an estimate) with a note, and may require a control manhole by a date. The bill run bills
 * each determination once (api/rents/inflow-charges.ts; docs/decisions/inflow-on-the-bill.md).
 * Huron's law has no such determination or charge (III-8): refused.
 */

export type DeterminationInput = {
  inspectionId: string;
  periodFrom: string;
  periodTo: string;
  gallons: number;
  method: string;
  note?: string | null;
  controlManholeBy?: string | null;
};

export async function recordDetermination(ds: DataSource, viewer: Viewer, input: DeterminationInput, meta: Meta): Promise<InspectionRow> {
  const before = await getInspection(ds, viewer, input.inspectionId);
  const district = await loadDistrict(ds, before.districtId);
  requireOperator(viewer, district);
  const rb = await rulebookOn(ds, district);
  if (!chargesInflow(rb)) {
    const m = noInflowCharge(rb, district.lawName);
    throw conflict(m);
  }
  const today = dateIn(district.timeZone);
  const d = {
    periodFrom: clean(input.periodFrom) ?? "",
    periodTo: clean(input.periodTo) ?? "",
    gallons: input.gallons,
    method: input.method,
    note: clean(input.note),
    controlManholeBy: clean(input.controlManholeBy),
  };
  const fields = determinationProblems(d, today);
  if (Object.keys(fields).length) throw badInput(fields);
  const section = chargeSection(rb);

  return ds.transaction(async (tx) => {
    // Determinations of one property take turns, so two cannot overlap.
    await tx.query(`SELECT id FROM sewer_property WHERE id = $1 FOR NO KEY UPDATE`, [before.propertyId]);
    const i = await getInspection(tx, viewer, before.id);
    // The inflow "originated" from the property: an inspection's visit found a source connected that had to be disconnected.
    const [found] = await tx.query(`SELECT to_char(min(visited_on), 'YYYY-MM-DD') AS on FROM inflow_visit WHERE inspection_id = $1 AND outcome IN ('ORDERED', 'VIOLATION')`, [i.id]);
    if (!found?.on)
      throw conflict(`The amount of inflow is determined on an inspection that found a source of inflow connected (${section}); this one has found none.`);
    const [overlap] = await tx.query(
      `SELECT to_char(period_from, 'YYYY-MM-DD') AS "from", to_char(period_to, 'YYYY-MM-DD') AS "to" FROM inflow_determination
        WHERE property_id = $1 AND period_from <= $3::date AND period_to >= $2::date ORDER BY period_from LIMIT 1`,
      [i.propertyId, d.periodFrom, d.periodTo],
    );
    if (overlap)
      throw badInput({ periodFrom: `The inflow of this property from ${formatDate(overlap.from)} to ${formatDate(overlap.to)} is already determined: a day is determined once.` });
    const [{ id }] = await tx.query(
      `INSERT INTO inflow_determination (district_id, property_id, inspection_id, period_from, period_to, gallons, method, note, control_manhole_by, determined_by_id, rulebook_version_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      [i.districtId, i.propertyId, i.id, d.periodFrom, d.periodTo, d.gallons, d.method, d.note, d.controlManholeBy, viewer.userId, rb.version.id],
    );
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "inflow.inflow_determined",
      entityType: "InflowInspection",
      entityId: i.id,
      districtId: i.districtId,
      reason: d.note ?? undefined,
      details: { determinationId: id, periodFrom: d.periodFrom, periodTo: d.periodTo, gallons: d.gallons, method: d.method, controlManholeBy: d.controlManholeBy, section },
    });
    const gallons = d.gallons.toLocaleString("en-US");
    await emailPeople(
      tx,
      i.id,
      district,
      "inflow.inflow_determined",
      `Inflow determined: ${i.address}`,
      `The ${district.operatorTitle} determined ${gallons} gallons of inflow from ${i.address} (tax parcel ${i.taxParcel}) from ${formatDate(d.periodFrom)} to ${formatDate(d.periodTo)} ` +
        `(${DETERMINATION_METHOD_LABELS[d.method as DeterminationMethod].toLowerCase()}: ${d.note}). Under ${section} the property is billed for it according to Article 12 on its sewer bill, ` +
        `with any surcharge the Town Board has set.` +
        (d.controlManholeBy ? `\n\nA control manhole is required on the property by ${formatDate(d.controlManholeBy)} (${section}).` : "") +
        `\n\nInspection ${i.number}.`,
    );
    return getInspection(tx, viewer, i.id);
  });
}

export type DeterminationRow = {
  id: string;
  inspectionId: string;
  periodFrom: string;
  periodTo: string;
  gallons: number;
  method: DeterminationMethod;
  note: string;
  controlManholeBy: string | null;
  determinedBy: string;
  recordedAt: Date;
  /** the issued bill that carries it, when one does */
  billId: string | null;
  billNumber: string | null;
};

/** The determinations of inspections with the issued bill carrying each: one statement whatever their number. */
export async function determinationsOf(db: Db, ids: readonly string[]): Promise<DeterminationRow[]> {
  if (!ids.length) return [];
  const rows = await db.query(
    `SELECT d.id, d.inspection_id AS "inspectionId", to_char(d.period_from, 'YYYY-MM-DD') AS "periodFrom", to_char(d.period_to, 'YYYY-MM-DD') AS "periodTo",
            d.gallons::text AS gallons, d.method, d.note, to_char(d.control_manhole_by, 'YYYY-MM-DD') AS "controlManholeBy", u.display_name AS "determinedBy", d.recorded_at AS "recordedAt",
            billed.id AS "billId", billed.number AS "billNumber"
       FROM inflow_determination d JOIN app_user u ON u.id = d.determined_by_id
       LEFT JOIN LATERAL (SELECT b.id, b.number FROM bill_line l JOIN bill b ON b.id = l.bill_id
                           WHERE l.inflow_determination_id = d.id AND l.kind = 'INFLOW' AND b.status = 'ISSUED' LIMIT 1) billed ON true
      WHERE d.inspection_id = ANY($1::uuid[]) ORDER BY d.inspection_id, d.period_from`,
    [ids],
  );
  return rows.map((r: any) => ({ ...r, gallons: Number(r.gallons) }));
}

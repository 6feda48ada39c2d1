import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn } from "../common/dates.js";
import { badInput, conflict, notFound } from "../common/errors.js";
import { formatDate, formatDayOf } from "../common/format.js";
import { isUuid } from "../documents/documents.service.js";
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
 * Huron's law has no such determination or charge (III-8): refused. A wrong one is withdrawn before
 * it is billed and the right one recorded (docs/decisions/inflow-determination-withdrawn.md).
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
        WHERE property_id = $1 AND period_from <= $3::date AND period_to >= $2::date AND withdrawn_at IS NULL ORDER BY period_from LIMIT 1`,
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

/** The most characters of a withdrawal's reason. */
export const MAX_WITHDRAWAL_REASON = 1000;

/**
 * The District Operator withdraws a determination not billed (a wrong figure or wrong days): kept
 * on the record with who, when and why, never billed, its days free to be determined again.
 * Refused once an issued bill carries it, or while the bill run carrying it is being issued (a
 * correction is then the Town Clerk's adjustment on the next bill). Carried only by a preview, it is
 * withdrawn and that preview is to be previewed again before it is issued (issuing refuses until
 * then: docs/decisions/inflow-determination-withdrawn.md).
 */
export async function withdrawDetermination(ds: DataSource, viewer: Viewer, input: { determinationId: string; reason: string }, meta: Meta): Promise<InspectionRow> {
  const id = input.determinationId ?? "";
  const [found] = isUuid(id) ? await ds.query(`SELECT inspection_id AS "inspectionId" FROM inflow_determination WHERE id = $1`, [id]) : [];
  if (!found) throw notFound("That determination of inflow");
  const before = await getInspection(ds, viewer, found.inspectionId);
  const district = await loadDistrict(ds, before.districtId);
  requireOperator(viewer, district);
  const rb = await rulebookOn(ds, district);
  if (!chargesInflow(rb)) throw conflict(noInflowCharge(rb, district.lawName));
  const reason = clean(input.reason);
  if (!reason) throw badInput({ reason: "Say why the determination is withdrawn (the owner reads it)." });
  if (reason.length > MAX_WITHDRAWAL_REASON) throw badInput({ reason: `Keep the reason to ${MAX_WITHDRAWAL_REASON.toLocaleString("en-US")} characters.` });

  return ds.transaction(async (tx) => {
    // The same turn as recording on the property, then the determination itself.
    await tx.query(`SELECT id FROM sewer_property WHERE id = $1 FOR NO KEY UPDATE`, [before.propertyId]);
    const [d] = await tx.query(
      `SELECT d.id, d.inspection_id AS "inspectionId", to_char(d.period_from, 'YYYY-MM-DD') AS "periodFrom", to_char(d.period_to, 'YYYY-MM-DD') AS "periodTo", d.gallons::text AS gallons,
              d.withdrawn_at AS "withdrawnAt", u.display_name AS "withdrawnBy"
         FROM inflow_determination d LEFT JOIN app_user u ON u.id = d.withdrawn_by_id WHERE d.id = $1 FOR NO KEY UPDATE OF d`,
      [id],
    );
    if (d.withdrawnAt) throw conflict(`This determination was withdrawn on ${formatDayOf(d.withdrawnAt, district.timeZone)} by ${d.withdrawnBy}.`);
    // The bill that carries it, its run locked: issuing takes the same lock before it starts.
    const [billed] = await tx.query(
      `SELECT b.status, b.number, to_char(b.mailed_on, 'YYYY-MM-DD') AS "mailedOn", r.id AS "runId", r.status AS "runStatus",
              to_char(r.period_start, 'YYYY-MM-DD') AS "periodStart", to_char(r.period_end, 'YYYY-MM-DD') AS "periodEnd"
         FROM bill_line l JOIN bill b ON b.id = l.bill_id JOIN bill_run r ON r.id = b.run_id
        WHERE l.inflow_determination_id = $1 AND l.kind = 'INFLOW' FOR UPDATE OF r`,
      [id],
    );
    if (billed?.status === "ISSUED")
      throw conflict(
        `It is billed on sewer bill ${billed.number}, issued ${formatDate(billed.mailedOn)}; an issued bill is never changed: the Town Clerk corrects it with an adjustment on the account's next bill.`,
      );
    if (billed && billed.runStatus !== "PREVIEW")
      throw conflict(
        `The sewer bills for ${formatDate(billed.periodStart)} to ${formatDate(billed.periodEnd)} carrying it are being issued; once issued, the Town Clerk corrects it with an adjustment on the account's next bill.`,
      );
    const i = await getInspection(tx, viewer, d.inspectionId);
    await tx.query(`UPDATE inflow_determination SET withdrawn_at = $2, withdrawn_by_id = $3, withdrawn_reason = $4 WHERE id = $1`, [id, clock.now(), viewer.userId, reason]);
    // The preview carrying it says so among its tasks, so the Town Clerk previews again before trying to issue it.
    if (billed)
      await tx.query(`UPDATE bill_run SET tasks = tasks || $2::jsonb WHERE id = $1`, [
        billed.runId,
        JSON.stringify([
          {
            key: "inflow.withdrawn",
            text: `The ${district.operatorTitle} withdrew the determination of inflow from ${i.address} (${formatDate(d.periodFrom)} to ${formatDate(d.periodTo)}) that this preview bills: preview the run again before issuing it.`,
          },
        ]),
      ]);
    const section = chargeSection(rb);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "inflow.determination_withdrawn",
      entityType: "InflowInspection",
      entityId: i.id,
      districtId: i.districtId,
      reason,
      details: { determinationId: id, periodFrom: d.periodFrom, periodTo: d.periodTo, gallons: Number(d.gallons), previewRunId: billed?.runId ?? null, section },
    });
    const gallons = Number(d.gallons).toLocaleString("en-US");
    await emailPeople(
      tx,
      i.id,
      district,
      "inflow.determination_withdrawn",
      `Inflow determination withdrawn: ${i.address}`,
      `The ${district.operatorTitle} withdrew the determination of ${gallons} gallons of inflow from ${i.address} (tax parcel ${i.taxParcel}) from ${formatDate(d.periodFrom)} to ${formatDate(d.periodTo)}: ${reason}` +
        `\n\nIt will not be billed (${section}).\n\nInspection ${i.number}.`,
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
  /** withdrawn by the District Operator: never billed */
  withdrawnAt: Date | null;
  /** YYYY-MM-DD in the district's zone */
  withdrawnOn: string | null;
  withdrawnBy: string | null;
  withdrawnReason: string | null;
};

/** The determinations of inspections with the issued bill carrying each: one statement whatever their number. */
export async function determinationsOf(db: Db, ids: readonly string[]): Promise<DeterminationRow[]> {
  if (!ids.length) return [];
  const rows = await db.query(
    `SELECT d.id, d.inspection_id AS "inspectionId", to_char(d.period_from, 'YYYY-MM-DD') AS "periodFrom", to_char(d.period_to, 'YYYY-MM-DD') AS "periodTo",
            d.gallons::text AS gallons, d.method, d.note, to_char(d.control_manhole_by, 'YYYY-MM-DD') AS "controlManholeBy", u.display_name AS "determinedBy", d.recorded_at AS "recordedAt",
            billed.id AS "billId", billed.number AS "billNumber", d.withdrawn_at AS "withdrawnAt",
            to_char(d.withdrawn_at AT TIME ZONE dist.time_zone, 'YYYY-MM-DD') AS "withdrawnOn", w.display_name AS "withdrawnBy", d.withdrawn_reason AS "withdrawnReason"
       FROM inflow_determination d JOIN app_user u ON u.id = d.determined_by_id JOIN district dist ON dist.id = d.district_id LEFT JOIN app_user w ON w.id = d.withdrawn_by_id
       LEFT JOIN LATERAL (SELECT b.id, b.number FROM bill_line l JOIN bill b ON b.id = l.bill_id
                           WHERE l.inflow_determination_id = d.id AND l.kind = 'INFLOW' AND b.status = 'ISSUED' LIMIT 1) billed ON true
      WHERE d.inspection_id = ANY($1::uuid[]) ORDER BY d.inspection_id, d.period_from, d.recorded_at, d.id`,
    [ids],
  );
  return rows.map((r: any) => ({ ...r, gallons: Number(r.gallons) }));
}

import type { DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { actorOf, clean, lawProvidingExtensions, loadDistrict, updated, type CapacityFigures, type Db } from "./common.js";
import { capacityLeft } from "./rules.js";

/**
 * The capacity ledger (SUL 501, 1204): each sewer segment and the plant with its design capacity
 * and present use, kept by the District Operator; the Town Board's commitments of capacity by
 * resolution, entered by the ADMIN with the resolution's number and date, until released by
 * resolution or expired. Gallons per day throughout.
 */

export const CAPACITY_KINDS = ["SEGMENT", "PLANT"] as const;
export type CapacityKind = (typeof CAPACITY_KINDS)[number];

export type CommitmentRow = {
  id: string;
  capacityId: string;
  extensionId: string | null;
  committedTo: string;
  flowGpd: number;
  resolutionNumber: string;
  resolutionAdoptedOn: string;
  expiresOn: string | null;
  releasedOn: string | null;
  releaseResolutionNumber: string | null;
  /** counts toward current use on the day asked about */
  inForce: boolean;
};
export type CapacityRow = CapacityFigures & { id: string; districtId: string; kind: CapacityKind; name: string; leftGpd: number; updatedAt: Date };
export type LedgerLine = CapacityRow & { commitments: CommitmentRow[] };

/** A commitment counts from its resolution until the day it is released or expires (that day no longer). */
const IN_FORCE = `c.resolution_adopted_on <= $DAY AND (c.released_on IS NULL OR c.released_on > $DAY) AND (c.expires_on IS NULL OR c.expires_on > $DAY)`;
const inForceOn = (param: string) => IN_FORCE.replaceAll("$DAY", param);

/**
 * Design capacity, present use and capacity committed by resolution on `day`, for the given ledger
 * lines (one query). A commitment to `exceptExtensionId` itself is left out: an application is not
 * measured against the capacity the Board committed to it.
 */
export async function capacityOn(db: Db, ids: string[], day: CalendarDate, exceptExtensionId: string | null = null): Promise<Map<string, CapacityRow>> {
  const rows: CapacityRow[] = ids.length
    ? await db.query(
        `SELECT s.id, s.district_id AS "districtId", s.kind, s.name, s.design_capacity_gpd AS "designGpd", s.present_use_gpd AS "presentUseGpd", s.updated_at AS "updatedAt",
                coalesce((SELECT sum(c.flow_gpd) FROM capacity_commitment c WHERE c.capacity_id = s.id AND ${inForceOn("$2::date")}
                            AND ($3::uuid IS NULL OR c.extension_id IS DISTINCT FROM $3::uuid)), 0)::int AS "committedGpd"
           FROM sewer_capacity s WHERE s.id = ANY($1::uuid[])`,
        [ids, day, exceptExtensionId],
      )
    : [];
  return new Map(rows.map((r) => [r.id, { ...r, leftGpd: capacityLeft(r) }]));
}

/** The district's ledger with every commitment, for its staff (two queries whatever the number of lines). */
export async function capacityLedger(ds: DataSource, viewer: Viewer, districtId: string): Promise<LedgerLine[]> {
  if (!isStaff(viewer, districtId)) throw notFound("That district's capacity ledger");
  const district = await loadDistrict(ds, districtId);
  const today = dateIn(district.timeZone);
  const lines: { id: string }[] = await ds.query(`SELECT id FROM sewer_capacity WHERE district_id = $1 ORDER BY kind DESC, name`, [districtId]);
  const figures = await capacityOn(ds, lines.map((l) => l.id), today);
  const commitments: CommitmentRow[] = lines.length
    ? await ds.query(
        `SELECT c.id, c.capacity_id AS "capacityId", c.extension_id AS "extensionId", c.committed_to AS "committedTo", c.flow_gpd AS "flowGpd",
                c.resolution_number AS "resolutionNumber", to_char(c.resolution_adopted_on, 'YYYY-MM-DD') AS "resolutionAdoptedOn",
                to_char(c.expires_on, 'YYYY-MM-DD') AS "expiresOn", to_char(c.released_on, 'YYYY-MM-DD') AS "releasedOn",
                c.release_resolution_number AS "releaseResolutionNumber", (${inForceOn("$2::date")}) AS "inForce"
           FROM capacity_commitment c WHERE c.capacity_id = ANY($1::uuid[]) ORDER BY c.resolution_adopted_on, c.recorded_at`,
        [lines.map((l) => l.id), today],
      )
    : [];
  return lines.map((l) => ({ ...figures.get(l.id)!, commitments: commitments.filter((c) => c.capacityId === l.id) }));
}

function requireLedgerKeeper(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "OPERATOR", districtId) && !hasRole(viewer, "ADMIN", districtId))
    throw forbidden("Only the District Operator or the ADMIN of this district keeps the capacity ledger.");
}

/** Adds a segment or the plant to the ledger, or updates its design capacity and present use (the Operator's figures). */
export async function recordCapacity(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; id?: string | null; kind: string; name: string; designGpd: number; presentUseGpd: number },
  requestId?: string,
): Promise<CapacityRow> {
  requireLedgerKeeper(viewer, input.districtId);
  const district = await loadDistrict(ds, input.districtId);
  await lawProvidingExtensions(ds, district);
  const fields: Record<string, string> = {};
  const name = clean(input.name);
  if (!CAPACITY_KINDS.includes(input.kind as CapacityKind)) fields.kind = "Choose a sewer segment or the treatment plant.";
  if (!name || name.length > 200) fields.name = "Name the segment or plant (up to 200 characters).";
  if (!Number.isInteger(input.designGpd) || input.designGpd <= 0) fields.designGpd = "Enter the design capacity in whole gallons per day, over zero.";
  if (!Number.isInteger(input.presentUseGpd) || input.presentUseGpd < 0) fields.presentUseGpd = "Enter the present use in whole gallons per day.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    let id = input.id ?? null;
    if (id) {
      if (!isUuid(id)) throw notFound("That ledger line");
      const r = await tx.query(
        `UPDATE sewer_capacity SET name = $3, design_capacity_gpd = $4, present_use_gpd = $5, updated_by_id = $6, updated_at = now()
          WHERE id = $1 AND district_id = $2 AND kind = $7 RETURNING id`,
        [id, input.districtId, name, input.designGpd, input.presentUseGpd, viewer.userId, input.kind],
      );
      if (!updated(r)) throw notFound("That ledger line");
    } else {
      const dup = await tx.query(`SELECT 1 FROM sewer_capacity WHERE district_id = $1 AND kind = $2 AND name = $3`, [input.districtId, input.kind, name]);
      if (dup.length) throw badInput({ name: "The ledger already has a line of that name." });
      [{ id }] = await tx.query(
        `INSERT INTO sewer_capacity (district_id, kind, name, design_capacity_gpd, present_use_gpd, updated_by_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [input.districtId, input.kind, name, input.designGpd, input.presentUseGpd, viewer.userId],
      );
    }
    await audit(tx, actorOf(viewer, requestId), {
      action: input.id ? "extension.capacity_updated" : "extension.capacity_added",
      entityType: "SewerCapacity",
      entityId: id!,
      districtId: input.districtId,
      details: { kind: input.kind, name, designGpd: input.designGpd, presentUseGpd: input.presentUseGpd },
    });
    return (await capacityOn(tx, [id!], dateIn(district.timeZone))).get(id!)!;
  });
}

function resolutionProblems(number: string | null, adoptedOn: string, today: CalendarDate, fields: Record<string, string>, prefix = "resolution") {
  if (!number || number.length > 60) fields[`${prefix}Number`] = "Give the number of the Town Board resolution, like 2026-14.";
  if (!isCalendarDate(adoptedOn)) fields[`${prefix}AdoptedOn`] = "Use a date like 2026-11-03.";
  else if (adoptedOn > today) fields[`${prefix}AdoptedOn`] = `The resolution must already be adopted: give a day no later than today (${formatDate(today)}).`;
}

/** The Town Board commits capacity of a segment or the plant by resolution (SUL 501); the ADMIN enters it. */
export async function commitCapacity(
  ds: DataSource,
  viewer: Viewer,
  input: { capacityId: string; flowGpd: number; committedTo: string; extensionId?: string | null; resolutionNumber: string; resolutionAdoptedOn: string; expiresOn?: string | null },
  requestId?: string,
): Promise<CommitmentRow> {
  if (!isUuid(input.capacityId)) throw notFound("That ledger line");
  const [line] = await ds.query(`SELECT district_id AS "districtId" FROM sewer_capacity WHERE id = $1`, [input.capacityId]);
  if (!line || !isStaff(viewer, line.districtId)) throw notFound("That ledger line");
  if (!hasRole(viewer, "ADMIN", line.districtId)) throw forbidden("Only this district's ADMIN enters the Town Board's resolutions.");
  const district = await loadDistrict(ds, line.districtId);
  const today = dateIn(district.timeZone);
  const fields: Record<string, string> = {};
  const committedTo = clean(input.committedTo);
  const number = clean(input.resolutionNumber);
  if (!Number.isInteger(input.flowGpd) || input.flowGpd <= 0) fields.flowGpd = "Enter the capacity committed in whole gallons per day, over zero.";
  if (!committedTo || committedTo.length > 200) fields.committedTo = "Say to whom the capacity is committed (up to 200 characters).";
  resolutionProblems(number, input.resolutionAdoptedOn, today, fields);
  const expiresOn = clean(input.expiresOn);
  if (expiresOn && (!isCalendarDate(expiresOn) || expiresOn <= input.resolutionAdoptedOn)) fields.expiresOn = "Give a day after the resolution's adoption, like 2028-12-31, or leave it empty.";
  if (input.extensionId) {
    const ext = isUuid(input.extensionId) ? await ds.query(`SELECT 1 FROM sewer_extension WHERE id = $1 AND district_id = $2`, [input.extensionId, line.districtId]) : [];
    if (!ext.length) fields.extensionId = "That sewer extension is not one of this district's.";
  }
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const [{ id }] = await tx.query(
      `INSERT INTO capacity_commitment (capacity_id, extension_id, committed_to, flow_gpd, resolution_number, resolution_adopted_on, expires_on, recorded_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [input.capacityId, input.extensionId || null, committedTo, input.flowGpd, number, input.resolutionAdoptedOn, expiresOn, viewer.userId],
    );
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.capacity_committed",
      entityType: "CapacityCommitment",
      entityId: id,
      districtId: line.districtId,
      details: { capacityId: input.capacityId, flowGpd: input.flowGpd, committedTo, resolution: { number, adoptedOn: input.resolutionAdoptedOn }, expiresOn },
    });
    return commitmentById(tx, id, today);
  });
}

/** The Town Board releases a commitment by resolution; it stops counting from the day released. */
export async function releaseCommitment(
  ds: DataSource,
  viewer: Viewer,
  input: { commitmentId: string; releasedOn: string; resolutionNumber: string },
  requestId?: string,
): Promise<CommitmentRow> {
  if (!isUuid(input.commitmentId)) throw notFound("That commitment");
  const [c] = await ds.query(
    `SELECT s.district_id AS "districtId", to_char(c.resolution_adopted_on, 'YYYY-MM-DD') AS "adoptedOn", c.released_on AS "releasedOn"
       FROM capacity_commitment c JOIN sewer_capacity s ON s.id = c.capacity_id WHERE c.id = $1`,
    [input.commitmentId],
  );
  if (!c || !isStaff(viewer, c.districtId)) throw notFound("That commitment");
  if (!hasRole(viewer, "ADMIN", c.districtId)) throw forbidden("Only this district's ADMIN enters the Town Board's resolutions.");
  if (c.releasedOn) throw conflict("That commitment is already released.");
  const district = await loadDistrict(ds, c.districtId);
  const today = dateIn(district.timeZone);
  const fields: Record<string, string> = {};
  const number = clean(input.resolutionNumber);
  resolutionProblems(number, input.releasedOn, today, fields, "released");
  if (fields.releasedNumber) {
    fields.resolutionNumber = fields.releasedNumber;
    delete fields.releasedNumber;
  }
  if (fields.releasedAdoptedOn) {
    fields.releasedOn = fields.releasedAdoptedOn;
    delete fields.releasedAdoptedOn;
  } else if (input.releasedOn < c.adoptedOn) fields.releasedOn = `A commitment is released on or after the day it was made (${formatDate(c.adoptedOn)}).`;
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const r = await tx.query(
      `UPDATE capacity_commitment SET released_on = $2, release_resolution_number = $3, released_by_id = $4 WHERE id = $1 AND released_on IS NULL RETURNING id`,
      [input.commitmentId, input.releasedOn, number, viewer.userId],
    );
    if (!updated(r)) throw conflict("That commitment is already released.");
    await audit(tx, actorOf(viewer, requestId), {
      action: "extension.capacity_released",
      entityType: "CapacityCommitment",
      entityId: input.commitmentId,
      districtId: c.districtId,
      details: { releasedOn: input.releasedOn, resolutionNumber: number },
    });
    return commitmentById(tx, input.commitmentId, today);
  });
}

async function commitmentById(db: Db, id: string, today: CalendarDate): Promise<CommitmentRow> {
  const [row] = await db.query(
    `SELECT c.id, c.capacity_id AS "capacityId", c.extension_id AS "extensionId", c.committed_to AS "committedTo", c.flow_gpd AS "flowGpd",
            c.resolution_number AS "resolutionNumber", to_char(c.resolution_adopted_on, 'YYYY-MM-DD') AS "resolutionAdoptedOn",
            to_char(c.expires_on, 'YYYY-MM-DD') AS "expiresOn", to_char(c.released_on, 'YYYY-MM-DD') AS "releasedOn",
            c.release_resolution_number AS "releaseResolutionNumber", (${inForceOn("$2::date")}) AS "inForce"
       FROM capacity_commitment c WHERE c.id = $1`,
    [id, today],
  );
  return row;
}

export type ExtensionDistrict = { id: string; slug: string; name: string; provided: boolean; section: string; lines: { id: string; kind: CapacityKind; name: string }[] };

/**
 * For the application form, public: each district, whether its law provides sewer extensions (with
 * the section), and the names of its ledger's segments and plant (not their figures). Two queries
 * plus each district's rulebook, which is cached.
 */
export async function extensionDistricts(ds: DataSource): Promise<ExtensionDistrict[]> {
  const districts = await ds.getRepository(District).find({ order: { name: "ASC" } });
  const lines: { id: string; districtId: string; kind: CapacityKind; name: string }[] = await ds.query(
    `SELECT id, district_id AS "districtId", kind, name FROM sewer_capacity ORDER BY kind DESC, name`,
  );
  const out: ExtensionDistrict[] = [];
  for (const d of districts) {
    const rb = await rulebookOn(ds, d);
    const provided = rb.enabled("extension.provided");
    out.push({ id: d.id, slug: d.slug, name: d.name, provided, section: rb.entry("extension.provided").section, lines: provided ? lines.filter((l) => l.districtId === d.id).map(({ districtId: _d, ...l }) => l) : [] });
  }
  return out;
}

/**
 * The figures of `capacityOn` for many applications at once (one query): for each (application,
 * ledger line, day) asked, the line's figures on that day without the commitments made to that
 * application. Keyed `${extensionId}:${lineId}`.
 */
export async function capacityForApplications(db: Db, asks: { extensionId: string; lineId: string; day: CalendarDate }[]): Promise<Map<string, CapacityRow>> {
  if (!asks.length) return new Map();
  const rows: (CapacityRow & { extensionId: string })[] = await db.query(
    `SELECT a.ext AS "extensionId", s.id, s.district_id AS "districtId", s.kind, s.name, s.design_capacity_gpd AS "designGpd", s.present_use_gpd AS "presentUseGpd", s.updated_at AS "updatedAt",
            coalesce((SELECT sum(c.flow_gpd) FROM capacity_commitment c WHERE c.capacity_id = s.id AND ${inForceOn("a.day")}
                        AND c.extension_id IS DISTINCT FROM a.ext), 0)::int AS "committedGpd"
       FROM unnest($1::uuid[], $2::uuid[], $3::date[]) AS a(ext, line, day) JOIN sewer_capacity s ON s.id = a.line`,
    [asks.map((a) => a.extensionId), asks.map((a) => a.lineId), asks.map((a) => a.day)],
  );
  return new Map(rows.map(({ extensionId, ...r }) => [`${extensionId}:${r.id}`, { ...r, leftGpd: capacityLeft(r) }]));
}

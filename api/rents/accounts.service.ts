import type { DataSource, EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { addMonths, dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { districtCode } from "../districts/district-code.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import {
  accountRow,
  accountsWhere,
  actorOf,
  clean,
  dateField,
  propertyRow,
  requireClerk,
  throwIf,
  userByEmail,
  type AccountView,
  type FinalBill,
  type Meta,
} from "./common.js";
import { recordActualRead } from "./readings.service.js";
import {
  ACCOUNT_CLASSES,
  CLOSE_REASONS,
  OCCUPANCIES,
  assessEdus,
  assessmentBasis,
  boardTasks,
  eduTable,
  formatEdus,
  periodMonths,
  waterUsageRow,
  type AccountClass,
  type Basis,
  type BoardTask,
  type CloseReason,
  type EduRow,
  type Occupancy,
} from "./rules.js";

/** Service accounts: opening one (a move-in, a connection), closing one with what its final bill needs, meters, and the assessment worksheet. */

async function districtOf(db: DataSource | EntityManager, id: string): Promise<District> {
  const d = await db.getRepository(District).findOneBy({ id });
  if (!d) throw notFound("That district");
  return d;
}

export type OpenInput = { propertyId: string; class: string; occupantName: string; occupantUserId?: string | null; openedOn: CalendarDate; sourcePermitId?: string | null };

/**
 * Opens an account on a property in the caller's transaction, with its audit entry; under a law
 * that assesses each user (Huron VI-2) the account is one user from its first day.
 */
export async function openAccountIn(tx: EntityManager, viewer: Viewer | null, input: OpenInput, actor: Actor, action = "rents.account_opened"): Promise<string> {
  const fields: Record<string, string> = {};
  if (!(ACCOUNT_CLASSES as readonly string[]).includes(input.class)) fields.class = "Choose residential, commercial, institutional or industrial.";
  const name = clean(input.occupantName);
  if (!name) fields.occupantName = "Enter the occupant (the user of the service).";
  else if (name.length > 200) fields.occupantName = "Use at most 200 characters.";
  throwIf(fields);
  const [p] = await tx.query(`SELECT p.id, p.district_id, d.slug FROM sewer_property p JOIN district d ON d.id = p.district_id WHERE p.id = $1`, [input.propertyId]);
  if (!p) throw notFound("That property");
  const [{ n }] = await tx.query(`SELECT nextval('service_account_number_seq')::int AS n`);
  const number = `${districtCode(p.slug)}-${String(n).padStart(6, "0")}`;
  const [row] = await tx.query(
    `INSERT INTO service_account (district_id, property_id, account_number, class, occupant_name, occupant_user_id, opened_on, source_permit_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [p.district_id, p.id, number, input.class, name, input.occupantUserId ?? null, input.openedOn, input.sourcePermitId ?? null],
  );
  const rb = await rulebookOn(tx, await districtOf(tx, p.district_id), input.openedOn);
  const reinstates = await reinstatedBy(tx, rb, p.id, row.id, input.openedOn);
  if (assessmentBasis(rb).basis === "USER") await insertAssessment(tx, row.id, "USER", input.openedOn, { rows: [], waterUsageThousandths: null }, null, null, rb, viewer?.userId ?? null);
  await audit(tx, actor, {
    action,
    entityType: "ServiceAccount",
    entityId: row.id,
    districtId: p.district_id,
    details: {
      accountNumber: number,
      propertyId: p.id,
      class: input.class,
      occupant: name,
      openedOn: input.openedOn,
      ...(input.sourcePermitId ? { permitId: input.sourcePermitId } : {}),
      ...(reinstates ? { reinstates: reinstates.accountNumber, discontinuedLastDay: reinstates.closedOn } : {}),
    },
  });
  return row.id;
}

/**
 * Huron VI-5: an account opened on a property within `billing.reinstatementWithinMonths` of the
 * permanent discontinuance of one of its accounts reinstates it (the latest not yet reinstated), so
 * its first bill carries the minimum charges of the time between. Nothing under a law without the rule.
 */
async function reinstatedBy(tx: EntityManager, rb: Rulebook, propertyId: string, accountId: string, openedOn: CalendarDate): Promise<{ accountNumber: string; closedOn: CalendarDate } | null> {
  const within = rb.entry("billing.reinstatementWithinMonths").value;
  if (typeof within !== "number") return null;
  const [d] = await tx.query(
    `SELECT d.id, d.account_number, d.closed_on::text AS closed_on FROM service_account d
      WHERE d.property_id = $1 AND d.close_reason = 'DISCONTINUED' AND d.closed_on < $2 AND d.id <> $3
        AND NOT EXISTS (SELECT 1 FROM service_account x WHERE x.reinstates_account_id = d.id)
      ORDER BY d.closed_on DESC LIMIT 1`,
    [propertyId, openedOn, accountId],
  );
  if (!d || openedOn > addMonths(d.closed_on, within)) return null;
  await tx.query(`UPDATE service_account SET reinstates_account_id = $2 WHERE id = $1`, [accountId, d.id]);
  return { accountNumber: d.account_number, closedOn: d.closed_on };
}

/** The Town Clerk opens an account (a move-in, a new user of the property) from the day given. */
export async function openAccount(
  ds: DataSource,
  viewer: Viewer,
  input: { propertyId: string; class: string; occupantName: string; occupantEmail?: string | null; openedOn: string },
  meta: Meta,
): Promise<AccountView> {
  return ds.transaction(async (tx) => {
    const p = await propertyRow(tx, viewer, input.propertyId, { lock: true, staffOnly: true });
    requireClerk(viewer, p.districtId);
    const fields: Record<string, string> = {};
    const openedOn = dateField(fields, "openedOn", input.openedOn);
    const occupantUserId = await userByEmail(tx, input.occupantEmail, "occupantEmail", fields);
    throwIf(fields);
    const id = await openAccountIn(tx, viewer, { ...input, occupantUserId, openedOn: openedOn! }, actorOf(viewer, meta.requestId));
    return (await accountsWhere(tx, "a.id = $1", [id]))[0];
  });
}

export type CloseInput = { accountId: string; lastDay: CalendarDate | string; reason: string; forwardingAddress?: string | null; finalReading?: number | null; finalReadOn?: string | null };

/**
 * Closes an account on the leaving party's last day, in the caller's transaction, recording what
 * its final bill will need: the last day served, where to send it, the final reading if taken.
 */
export async function closeAccountIn(tx: EntityManager, viewer: Viewer, input: CloseInput, actor: Actor, propertyId?: string): Promise<void> {
  const a = await accountRow(tx, viewer, input.accountId, { lock: true, staffOnly: true });
  requireClerk(viewer, a.district_id);
  if (propertyId && a.property_id !== propertyId) throw badInput({ closeAccountIds: "Choose accounts of this property." });
  const fields: Record<string, string> = {};
  const lastDay = dateField(fields, "lastDay", input.lastDay);
  if (!(CLOSE_REASONS as readonly string[]).includes(input.reason)) fields.reason = "Say why the account closes: sold, moved out, or permanently discontinued.";
  const forwarding = clean(input.forwardingAddress);
  if (forwarding && forwarding.length > 500) fields.forwardingAddress = "Use at most 500 characters.";
  const reading = input.finalReading ?? null;
  if (reading !== null && (!Number.isInteger(reading) || reading < 0)) fields.finalReading = "Enter the meter's reading as a whole number.";
  const readOn = dateField(fields, "finalReadOn", input.finalReadOn, reading !== null);
  if (a.closed_on) throw conflict(`Account ${a.account_number} is already closed (its last day was ${a.closed_on}).`);
  if (lastDay && lastDay < a.opened_on) fields.lastDay = `The last day cannot come before the account opened (${a.opened_on}).`;
  throwIf(fields);
  const [meter] = await tx.query(
    `SELECT m.id, m.meter_number FROM service_account_meter am JOIN service_meter m ON m.id = am.meter_id WHERE am.account_id = $1 AND m.removed_on IS NULL ORDER BY m.installed_on DESC LIMIT 1`,
    [a.id],
  );
  if (reading !== null && readOn) {
    // The final reading is a read of the account's meter (SUL 1205's records of meter readings), so the final bill measures from it.
    const [{ time_zone }] = await tx.query(`SELECT time_zone FROM district WHERE id = $1`, [a.district_id]);
    if (!meter) throw badInput({ finalReading: "The account has no meter in service to read." });
    if (readOn > dateIn(time_zone)) throw badInput({ finalReadOn: "The final reading's date cannot be in the future." });
    if (readOn < a.opened_on || (lastDay && readOn > lastDay)) throw badInput({ finalReadOn: `A final reading counts for this account when taken from its first day (${a.opened_on}) to its last day.` });
    const read = await recordActualRead(tx, { districtId: a.district_id, meterId: meter.id, meterNumber: meter.meter_number, readOn, reading, userId: viewer.userId, final: true });
    if ("error" in read) throw badInput({ finalReading: read.error });
  }
  const finalBill: FinalBill = { lastDay: lastDay!, forwardingAddress: forwarding, finalReading: reading, finalReadOn: readOn, meterNumber: meter?.meter_number ?? null };
  await tx.query(`UPDATE service_account SET closed_on = $2, close_reason = $3, final_bill = $4, updated_at = now() WHERE id = $1`, [a.id, lastDay, input.reason, JSON.stringify(finalBill)]);
  await audit(tx, actor, {
    action: "rents.account_closed",
    entityType: "ServiceAccount",
    entityId: a.id,
    districtId: a.district_id,
    details: { accountNumber: a.account_number, reason: input.reason, finalBill },
  });
}

/** The Town Clerk closes an account (a move-out, a sale, a permanent discontinuance). */
export async function closeAccount(ds: DataSource, viewer: Viewer, input: CloseInput, meta: Meta): Promise<AccountView> {
  return ds.transaction(async (tx) => {
    await closeAccountIn(tx, viewer, input, actorOf(viewer, meta.requestId));
    return (await accountsWhere(tx, "a.id = $1", [input.accountId]))[0];
  });
}

/** One account, to its district's staff, the property's owner of record (their ownership's), or its occupant. */
export async function getAccount(ds: DataSource, viewer: Viewer, id: string): Promise<AccountView> {
  const a = await accountRow(ds, viewer, id);
  return (await accountsWhere(ds, "a.id = $1", [a.id]))[0];
}

// ---------------------------------------------------------------------------------------------
// Meters (SUL 1205: the water department's meters; Huron VI-2: one meter may serve several users)

/** The Town Clerk records a meter serving the account: a new one, or one of the property's meters already in service (shared). */
export async function addMeter(ds: DataSource, viewer: Viewer, input: { accountId: string; meterNumber: string; installedOn: string; startReading?: number | null }, meta: Meta): Promise<AccountView> {
  return ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true, staffOnly: true });
    requireClerk(viewer, a.district_id);
    const fields: Record<string, string> = {};
    const number = clean(input.meterNumber);
    if (!number) fields.meterNumber = "Enter the meter's number.";
    else if (number.length > 50) fields.meterNumber = "Use at most 50 characters.";
    const installedOn = dateField(fields, "installedOn", input.installedOn);
    const start = input.startReading ?? null;
    if (start !== null && (!Number.isSafeInteger(start) || start < 0)) fields.startReading = "Enter the register's reading as a whole number.";
    if (a.closed_on) throw conflict(`Account ${a.account_number} is closed.`);
    throwIf(fields);
    const [inService] = await tx.query(
      `SELECT id, property_id, register_digits, start_reading::text AS start_reading FROM service_meter WHERE district_id = $1 AND lower(meter_number) = lower($2) AND removed_on IS NULL`,
      [a.district_id, number],
    );
    if (inService && inService.property_id !== a.property_id) throw badInput({ meterNumber: "That meter is in service at another property." });
    // A meter already serving the property keeps the start reading it was installed with: its reads are measured from it already.
    if (inService && start !== null) throw badInput({ startReading: "That meter is already in service here: its reads go on from its own; leave the start reading empty." });
    let meterId: string = inService?.id;
    if (!inService) {
      const [m] = await tx.query(`INSERT INTO service_meter (district_id, property_id, meter_number, installed_on, start_reading) VALUES ($1, $2, $3, $4, $5) RETURNING id, register_digits`, [
        a.district_id,
        a.property_id,
        number,
        installedOn,
        start,
      ]);
      if (start !== null && start >= 10 ** m.register_digits) throw badInput({ startReading: `The reading has more digits than the meter's register (${m.register_digits}).` });
      meterId = m.id;
    }
    const linked = await tx.query(`INSERT INTO service_account_meter (account_id, meter_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING meter_id`, [a.id, meterId]);
    if (!linked.length) throw conflict("That meter already serves this account.", { meterNumber: "That meter already serves this account." });
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "rents.meter_added",
      entityType: "ServiceAccount",
      entityId: a.id,
      districtId: a.district_id,
      details: { meterNumber: number, meterId, shared: !!inService, ...(start !== null ? { startReading: start } : {}) },
    });
    return (await accountsWhere(tx, "a.id = $1", [a.id]))[0];
  });
}

/**
 * SUL 1202: the Town Clerk links an account to the industrial user's discharge permit (by its
 * number; empty to unlink), so its bills carry the surcharge from the permit's own results for
 * the period. The permit must be one of the district's, issued.
 */
export async function linkIndustrialPermit(ds: DataSource, viewer: Viewer, input: { accountId: string; permitNumber?: string | null }, meta: Meta): Promise<AccountView> {
  return ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true, staffOnly: true });
    requireClerk(viewer, a.district_id);
    const number = clean(input.permitNumber);
    let permit: { id: string; permit_number: string } | undefined;
    if (number) {
      [permit] = await tx.query(`SELECT id, permit_number FROM industrial_permit WHERE district_id = $1 AND lower(permit_number) = lower($2) AND status = 'ISSUED'`, [a.district_id, number]);
      if (!permit) throw badInput({ permitNumber: `No issued industrial discharge permit of this district is numbered ${number}.` });
    }
    await tx.query(`UPDATE service_account SET industrial_permit_id = $2, updated_at = now() WHERE id = $1`, [a.id, permit?.id ?? null]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "rents.account_industrial_permit_linked",
      entityType: "ServiceAccount",
      entityId: a.id,
      districtId: a.district_id,
      details: { accountNumber: a.account_number, permitNumber: permit?.permit_number ?? null },
    });
    return (await accountsWhere(tx, "a.id = $1", [a.id]))[0];
  });
}

/** The Town Clerk records a meter taken out of service (a meter change is this, then a new meter). */
export async function removeMeter(ds: DataSource, viewer: Viewer, input: { accountId: string; meterId: string; removedOn: string }, meta: Meta): Promise<AccountView> {
  return ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true, staffOnly: true });
    requireClerk(viewer, a.district_id);
    const fields: Record<string, string> = {};
    const removedOn = dateField(fields, "removedOn", input.removedOn);
    throwIf(fields);
    const [m] = isUuid(input.meterId)
      ? await tx.query(
          `SELECT m.id, m.meter_number, m.installed_on::text AS installed_on, m.removed_on FROM service_meter m JOIN service_account_meter am ON am.meter_id = m.id
            WHERE m.id = $1 AND am.account_id = $2 FOR UPDATE OF m`,
          [input.meterId, a.id],
        )
      : [];
    if (!m) throw notFound("That meter");
    if (m.removed_on) throw conflict("That meter is already out of service.");
    if (removedOn! < m.installed_on) throw badInput({ removedOn: `The meter cannot come out before it was installed (${m.installed_on}).` });
    await tx.query(`UPDATE service_meter SET removed_on = $2 WHERE id = $1`, [m.id, removedOn]);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "rents.meter_removed", entityType: "ServiceAccount", entityId: a.id, districtId: a.district_id, details: { meterNumber: m.meter_number, removedOn } });
    return (await accountsWhere(tx, "a.id = $1", [a.id]))[0];
  });
}

// ---------------------------------------------------------------------------------------------
// The assessment worksheet (SUL 1203; Huron VI-2, VI-5)

async function insertAssessment(
  tx: EntityManager,
  accountId: string,
  basis: Basis,
  effectiveOn: CalendarDate,
  rows: { rows: unknown[]; waterUsageThousandths: number | null },
  eduThousandths: number | null,
  waterUsageBasis: string | null,
  rb: Rulebook,
  userId: string | null,
): Promise<string> {
  const [r] = await tx.query(
    `INSERT INTO service_assessment (account_id, basis, effective_on, rows, edu_thousandths, water_usage_basis, rulebook_version_id, entered_by_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [accountId, basis, effectiveOn, JSON.stringify(rows), eduThousandths, waterUsageBasis, rb.version.id, userId],
  );
  return r.id;
}

export type Worksheet = {
  accountId: string;
  basis: Basis;
  section: string;
  note: string | null;
  /** the district's EDU table with the counts of the account's present assessment (0 where none) */
  rows: (EduRow & { count: number; eduThousandths: number })[];
  waterUsage: { label: string; section: string; uses: string; edus: string | null; basis: string | null } | null;
  total: string | null;
  occupancy: Occupancy;
  sharedMeterAgreement: string | null;
  periodMonths: number;
  periodSection: string;
  rulebookVersion: number;
  tasks: BoardTask[];
};

/** The Clerk's worksheet for an account, from the rulebook in force today and the account's present assessment. */
export async function worksheet(ds: DataSource, viewer: Viewer, accountId: string): Promise<Worksheet> {
  const a = await accountRow(ds, viewer, accountId, { staffOnly: true });
  const district = await districtOf(ds, a.district_id);
  const rb = await rulebookOn(ds, district);
  const [view] = await accountsWhere(ds, "a.id = $1", [a.id]);
  const b = assessmentBasis(rb);
  const current = view.assessment;
  const counts = new Map((current?.rows ?? []).map((r) => [r.key, r.count]));
  const w = waterUsageRow(rb);
  const period = periodMonths(rb, a.class as AccountClass);
  return {
    accountId: a.id,
    basis: b.basis,
    section: b.section,
    note: b.note,
    rows: eduTable(rb).map((r) => {
      const count = counts.get(r.key) ?? 0;
      return { ...r, count, eduThousandths: current?.rows.find((x) => x.key === r.key)?.eduThousandths ?? 0 };
    }),
    waterUsage: w
      ? { ...w, edus: current?.waterUsageThousandths != null ? formatEdus(current.waterUsageThousandths) : null, basis: current?.waterUsageBasis ?? null }
      : null,
    total: current?.edus ?? null,
    occupancy: view.occupancy,
    sharedMeterAgreement: view.sharedMeterAgreement,
    periodMonths: period.months,
    periodSection: period.section,
    rulebookVersion: rb.version.version,
    tasks: boardTasks(rb),
  };
}

export type AssessInput = {
  accountId: string;
  effectiveOn: string;
  counts?: { key: string; count: number }[] | null;
  waterUsageEdus?: string | null;
  waterUsageBasis?: string | null;
  occupancy?: string | null;
  sharedMeterAgreement?: string | null;
};

/**
 * The Town Clerk saves the worksheet: under SUL 1203 a new assessment of the account's EDUs from
 * the table in force on its effective date; under Huron VI-2/VI-5 the user's occupancy and any
 * agreement of the users behind one meter. The earlier assessments are kept.
 */
export async function assessAccount(ds: DataSource, viewer: Viewer, input: AssessInput, meta: Meta): Promise<AccountView> {
  return ds.transaction(async (tx) => {
    const a = await accountRow(tx, viewer, input.accountId, { lock: true, staffOnly: true });
    requireClerk(viewer, a.district_id);
    const district = await districtOf(tx, a.district_id);
    const fields: Record<string, string> = {};
    const effectiveOn = dateField(fields, "effectiveOn", input.effectiveOn);
    const today = dateIn(district.timeZone);
    if (effectiveOn && effectiveOn < a.opened_on) fields.effectiveOn = `The assessment cannot apply before the account opened (${a.opened_on}).`;
    else if (effectiveOn && effectiveOn > today) fields.effectiveOn = "Enter a day no later than today: an assessment is entered once it applies.";
    else if (effectiveOn && a.closed_on && effectiveOn > a.closed_on) fields.effectiveOn = `The account closed on ${a.closed_on}.`;
    throwIf(fields);
    const rb = await rulebookOn(tx, district, effectiveOn!);
    const basis = assessmentBasis(rb).basis;
    const actor = actorOf(viewer, meta.requestId);
    if (basis === "EDU") {
      const r = assessEdus(rb, { counts: input.counts ?? [], waterUsageEdus: input.waterUsageEdus, waterUsageBasis: input.waterUsageBasis });
      throwIf(r.fields);
      const id = await insertAssessment(tx, a.id, "EDU", effectiveOn!, { rows: r.rows, waterUsageThousandths: r.waterUsageThousandths }, r.totalThousandths, clean(input.waterUsageBasis), rb, viewer.userId);
      await audit(tx, actor, {
        action: "rents.account_assessed",
        entityType: "ServiceAccount",
        entityId: a.id,
        districtId: a.district_id,
        details: { assessmentId: id, effectiveOn, edus: formatEdus(r.totalThousandths), rows: r.rows.map((x) => ({ key: x.key, count: x.count })), rulebookVersion: rb.version.version },
      });
    } else {
      const occupancy = input.occupancy ?? a.occupancy;
      if (!(OCCUPANCIES as readonly string[]).includes(occupancy)) fields.occupancy = "Choose occupied, unoccupied or seasonal.";
      const agreement = clean(input.sharedMeterAgreement);
      if (agreement && agreement.length > 2000) fields.sharedMeterAgreement = "Use at most 2,000 characters.";
      if ((input.counts ?? []).length || clean(input.waterUsageEdus)) fields.counts = `${district.name} assesses each user (${assessmentBasis(rb).section}), not equivalent dwelling units.`;
      throwIf(fields);
      await tx.query(`UPDATE service_account SET occupancy = $2, shared_meter_agreement = $3, updated_at = now() WHERE id = $1`, [a.id, occupancy, agreement]);
      const id = await insertAssessment(tx, a.id, "USER", effectiveOn!, { rows: [], waterUsageThousandths: null }, null, null, rb, viewer.userId);
      await audit(tx, actor, {
        action: "rents.account_assessed",
        entityType: "ServiceAccount",
        entityId: a.id,
        districtId: a.district_id,
        details: { assessmentId: id, effectiveOn, occupancy, sharedMeterAgreement: agreement, rulebookVersion: rb.version.version },
      });
    }
    return (await accountsWhere(tx, "a.id = $1", [a.id]))[0];
  });
}

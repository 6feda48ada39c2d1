import type { DataSource } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, pageSize } from "../common/paging.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import type { Page } from "../graphql/page.js";
import {
  PROPERTY_COLUMNS,
  accountsWhere,
  actorOf,
  clean,
  dateField,
  ownersAccount,
  propertyRow,
  requireClerk,
  requireReader,
  throwIf,
  toAssessment,
  toOwner,
  toProperty,
  userByEmail,
  type AccountView,
  type Db,
  type Meta,
  type OwnerView,
  type PropertyView,
} from "./common.js";
import { closeAccountIn, openAccountIn } from "./accounts.service.js";
import { readPart, type OwnerPart } from "./owners-page.js";
import { assessmentBasis, boardTasks, formatEdus, segments, type AccountClass, type BoardTask, type Basis } from "./rules.js";

/** The register of properties: listing and searching it, a property with its owners and accounts, adding and correcting one, a sale. */

const LIMITS: Record<string, number> = { taxParcel: 50, streetNumber: 20, street: 200, city: 100, zip: 10, segment: 100, ownerName: 200, ownerMailingAddress: 500 };

export type PropertyInput = {
  districtId?: string | null;
  taxParcel?: string | null;
  streetNumber?: string | null;
  street?: string | null;
  city?: string | null;
  zip?: string | null;
  segment?: string | null;
  ownerName?: string | null;
  ownerEmail?: string | null;
  ownerMailingAddress?: string | null;
  ownerSince?: string | null;
};

function propertyFields(input: PropertyInput, creating: boolean) {
  const fields: Record<string, string> = {};
  const text: Record<string, string | null> = {};
  for (const k of Object.keys(LIMITS)) {
    text[k] = clean((input as any)[k]);
    if (text[k] && text[k]!.length > LIMITS[k]) fields[k] = `Use at most ${LIMITS[k]} characters.`;
  }
  if (!text.street) fields.street = "Enter the street.";
  if (!text.zip) fields.zip = "Enter the ZIP code.";
  else if (!/^\d{5}(-\d{4})?$/.test(text.zip)) fields.zip = "Enter a ZIP code like 13600.";
  if (creating) {
    if (!text.taxParcel) fields.taxParcel = "Enter the tax parcel (section-block-lot) number.";
    if (!text.ownerName) fields.ownerName = "Enter the owner of record.";
  }
  return { fields, text };
}

/** A segment only where the district's law provides segments (SUL 1204). */
async function checkSegment(tx: Db, district: District, segment: string | null, fields: Record<string, string>) {
  if (!segment) return;
  const s = segments(await rulebookOn(tx, district));
  if (!s.enabled) fields.segment = `${district.name}'s law does not divide the district into segments (${s.section}); leave it empty.`;
}

/** The Town Clerk adds a property to the register with its owner of record (owner since `ownerSince`, today when not given). */
export async function createProperty(ds: DataSource, viewer: Viewer, input: PropertyInput, meta: Meta): Promise<PropertyDetail> {
  const districtId = input.districtId ?? "";
  if (!isUuid(districtId)) throw badInput({ districtId: "Choose a district." });
  requireClerk(viewer, districtId);
  const { fields, text } = propertyFields(input, true);
  return ds.transaction(async (tx) => {
    const district = await tx.getRepository(District).findOneBy({ id: districtId });
    if (!district) throw notFound("That district");
    const since = dateField(fields, "ownerSince", input.ownerSince, false) ?? dateIn(district.timeZone);
    const ownerUserId = await userByEmail(tx, input.ownerEmail, "ownerEmail", fields);
    await checkSegment(tx, district, text.segment, fields);
    throwIf(fields);
    const [dup] = await tx.query(`SELECT id FROM sewer_property WHERE district_id = $1 AND lower(tax_parcel) = lower($2)`, [districtId, text.taxParcel]);
    if (dup) throw conflict("That tax parcel is already in the register.", { taxParcel: "That tax parcel is already in the register." });
    const id = await insertProperty(tx, districtId, { ...text, ownerUserId }, since, viewer.userId);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "rents.property_added", entityType: "SewerProperty", entityId: id, districtId, details: { taxParcel: text.taxParcel } });
    return getProperty(tx, viewer, id);
  });
}

/** Inserts a property and its first owner of record; returns its id. */
export async function insertProperty(
  tx: import("typeorm").EntityManager,
  districtId: string,
  p: { taxParcel?: string | null; streetNumber?: string | null; street?: string | null; city?: string | null; zip?: string | null; segment?: string | null; ownerName?: string | null; ownerMailingAddress?: string | null; ownerUserId: string | null },
  since: CalendarDate,
  recordedById: string | null,
): Promise<string> {
  const [row] = await tx.query(
    `INSERT INTO sewer_property (district_id, tax_parcel, street_number, street, city, zip, segment, owner_name, owner_user_id, owner_mailing_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    [districtId, p.taxParcel, p.streetNumber ?? null, p.street, p.city ?? null, p.zip, p.segment ?? null, p.ownerName, p.ownerUserId, p.ownerMailingAddress ?? null],
  );
  await tx.query(
    `INSERT INTO sewer_property_owner (property_id, owner_name, owner_user_id, mailing_address, from_date, recorded_by_id) VALUES ($1, $2, $3, $4, $5, $6)`,
    [row.id, p.ownerName, p.ownerUserId, p.ownerMailingAddress ?? null, since, recordedById],
  );
  return row.id;
}

/** The Town Clerk corrects a property's address or segment (SUL 1204); the owner changes only by a sale, so its history is kept. */
export async function updateProperty(ds: DataSource, viewer: Viewer, id: string, input: PropertyInput, meta: Meta): Promise<PropertyDetail> {
  return ds.transaction(async (tx) => {
    const before = await propertyRow(tx, viewer, id, { lock: true, staffOnly: true });
    requireClerk(viewer, before.districtId);
    const { fields, text } = propertyFields(input, false);
    await checkSegment(tx, (await tx.getRepository(District).findOneBy({ id: before.districtId }))!, text.segment, fields);
    throwIf(fields);
    await tx.query(`UPDATE sewer_property SET street_number = $2, street = $3, city = $4, zip = $5, segment = $6, updated_at = now() WHERE id = $1`, [
      id,
      text.streetNumber,
      text.street,
      text.city,
      text.zip,
      text.segment,
    ]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "rents.property_updated",
      entityType: "SewerProperty",
      entityId: id,
      districtId: before.districtId,
      details: { from: { address: before.address, segment: before.segment }, to: { streetNumber: text.streetNumber, street: text.street, city: text.city, zip: text.zip, segment: text.segment } },
    });
    return getProperty(tx, viewer, id);
  });
}

/**
 * A sale: the seller's ownership ends the day before `transferOn`, the buyer is the owner of record
 * from it; the accounts named close on the seller's last day with what their final bills need, and
 * the buyer's own account opens on `transferOn` when they move in. One transaction, one audit entry each.
 */
export async function recordSale(
  ds: DataSource,
  viewer: Viewer,
  input: {
    propertyId: string;
    transferOn: string;
    buyerName: string;
    buyerEmail?: string | null;
    buyerMailingAddress?: string | null;
    closeAccountIds?: string[] | null;
    forwardingAddress?: string | null;
    buyerMovesIn?: boolean | null;
    buyerAccountClass?: string | null;
  },
  meta: Meta,
): Promise<PropertyDetail> {
  return ds.transaction(async (tx) => {
    const p = await propertyRow(tx, viewer, input.propertyId, { lock: true, staffOnly: true });
    requireClerk(viewer, p.districtId);
    const fields: Record<string, string> = {};
    const transferOn = dateField(fields, "transferOn", input.transferOn);
    const buyerName = clean(input.buyerName);
    if (!buyerName) fields.buyerName = "Enter the buyer, the new owner of record.";
    else if (buyerName.length > 200) fields.buyerName = "Use at most 200 characters.";
    const mailing = clean(input.buyerMailingAddress);
    if (mailing && mailing.length > 500) fields.buyerMailingAddress = "Use at most 500 characters.";
    const buyerUserId = await userByEmail(tx, input.buyerEmail, "buyerEmail", fields);
    const [current] = await tx.query(`SELECT id, from_date::text AS from_date FROM sewer_property_owner WHERE property_id = $1 AND to_date IS NULL`, [p.id]);
    if (transferOn && current && transferOn <= current.from_date)
      fields.transferOn = `The sale must come after the present owner became owner (${current.from_date}).`;
    throwIf(fields);
    const lastDay = addCalendarDays(transferOn!, -1);
    await tx.query(`UPDATE sewer_property_owner SET to_date = $2 WHERE id = $1`, [current.id, lastDay]);
    await tx.query(`INSERT INTO sewer_property_owner (property_id, owner_name, owner_user_id, mailing_address, from_date, recorded_by_id) VALUES ($1, $2, $3, $4, $5, $6)`, [
      p.id,
      buyerName,
      buyerUserId,
      mailing,
      transferOn,
      viewer.userId,
    ]);
    await tx.query(`UPDATE sewer_property SET owner_name = $2, owner_user_id = $3, owner_mailing_address = $4, updated_at = now() WHERE id = $1`, [p.id, buyerName, buyerUserId, mailing]);
    const actor = actorOf(viewer, meta.requestId);
    await audit(tx, actor, {
      action: "rents.property_sold",
      entityType: "SewerProperty",
      entityId: p.id,
      districtId: p.districtId,
      details: { from: p.ownerName, to: buyerName, transferOn, sellersLastDay: lastDay },
    });
    for (const accountId of new Set(input.closeAccountIds ?? [])) {
      await closeAccountIn(tx, viewer, { accountId, lastDay, reason: "SALE", forwardingAddress: input.forwardingAddress }, actor, p.id);
    }
    if (input.buyerMovesIn) {
      await openAccountIn(tx, viewer, { propertyId: p.id, class: input.buyerAccountClass ?? "RESIDENTIAL", occupantName: buyerName!, occupantUserId: buyerUserId, openedOn: transferOn! }, actor);
    }
    return getProperty(tx, viewer, p.id);
  });
}

// ---------------------------------------------------------------------------------------------
// Reading

const SEARCH_MAX = 100;

/**
 * The district's register, by tax parcel, a page at a time; `search` matches the start of a tax
 * parcel, an address ("12 Orchard"), a street, an owner's name, or an account number exactly.
 */
export async function listProperties(ds: DataSource, viewer: Viewer, districtId: string, opts: { search?: string | null; first?: number | null; after?: string | null }): Promise<Page<PropertyView>> {
  if (!isUuid(districtId)) throw badInput({ districtId: "Choose a district." });
  requireReader(viewer, districtId);
  const first = pageSize(opts.first, 50);
  const cursor = decodeCursor(opts.after, (k) => k.length > 0 && k.length <= 50);
  const search = clean(opts.search);
  if (search && search.length > SEARCH_MAX) throw badInput({ search: `Search with at most ${SEARCH_MAX} characters.` });
  const params: unknown[] = [districtId];
  const where = ["p.district_id = $1"];
  if (search) {
    params.push(`${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`, search.toUpperCase());
    where.push(`(lower(p.tax_parcel) LIKE $2 OR lower(p.street) LIKE $2 OR lower(coalesce(p.street_number || ' ', '') || p.street) LIKE $2 OR lower(p.owner_name) LIKE $2
      OR p.id IN (SELECT property_id FROM service_account WHERE account_number = $3))`);
  }
  if (cursor) {
    params.push(cursor.key, cursor.id);
    where.push(`(p.tax_parcel, p.id) > ($${params.length - 1}, $${params.length}::uuid)`);
  }
  params.push(first + 1);
  const rows: any[] = await ds.query(
    `SELECT ${PROPERTY_COLUMNS} FROM sewer_property p JOIN district d ON d.id = p.district_id WHERE ${where.join(" AND ")} ORDER BY p.tax_parcel, p.id LIMIT $${params.length}`,
    params,
  );
  const items = rows.slice(0, first).map(toProperty);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > first && last ? encodeCursor(last.taxParcel, last.id) : null };
}

export type PropertyDetail = PropertyView & { owners: OwnerView[]; accounts: AccountView[] };

/** A property with its owners of record and accounts: to staff all of them; to its owner their own ownership's accounts. */
export async function getProperty(ds: Db, viewer: Viewer, id: string): Promise<PropertyDetail> {
  const p = await propertyRow(ds, viewer, id);
  const staff = isStaff(viewer, p.districtId);
  const [owners, accounts] = await Promise.all([
    ds.query(`SELECT id, owner_name, mailing_address, from_date::text AS from_date, to_date::text AS to_date FROM sewer_property_owner WHERE property_id = $1 ORDER BY from_date DESC`, [p.id]),
    accountsWhere(ds, "a.property_id = $1", [p.id]),
  ]);
  const ownerList = (owners as any[]).map(toOwner);
  const ownerFrom = ownerList.find((o) => o.toDate === null)?.fromDate ?? null;
  return {
    ...p,
    owners: staff ? ownerList : ownerList.filter((o) => o.toDate === null),
    accounts: staff ? accounts : accounts.filter((a) => a.occupantUserId === viewer.userId || ownersAccount(a.closedOn, ownerFrom)),
  };
}

/**
 * The signed-in person's own properties (as owner of record) and the properties of the accounts they
 * occupy, each with its present owner and its accounts with their meters and current assessment, in
 * JSON (the accounts as accountsWhere reads them): one statement whatever their number, or a column
 * of the owner's page's (owners-page.ts).
 */
export const myPropertiesPart: OwnerPart<PropertyDetail[]> = {
  key: "properties",
  now: false,
  sql: `SELECT coalesce(json_agg(x ORDER BY x.district_name, x.street, x.street_number), '[]') FROM (
     SELECT ${PROPERTY_COLUMNS},
            (SELECT json_build_object('id', o.id, 'owner_name', o.owner_name, 'mailing_address', o.mailing_address, 'from_date', o.from_date::text, 'to_date', o.to_date::text)
               FROM sewer_property_owner o WHERE o.property_id = p.id AND o.to_date IS NULL LIMIT 1) AS owner,
            (SELECT json_agg(json_build_object(
                      'id', a.id, 'districtId', a.district_id, 'propertyId', a.property_id, 'accountNumber', a.account_number, 'class', a.class,
                      'occupantName', a.occupant_name, 'occupantUserId', a.occupant_user_id, 'openedOn', a.opened_on::text, 'closedOn', a.closed_on::text,
                      'closeReason', a.close_reason, 'finalBill', a.final_bill, 'occupancy', a.occupancy, 'sharedMeterAgreement', a.shared_meter_agreement,
                      'sourcePermitId', a.source_permit_id,
                      'meters', (SELECT json_agg(json_build_object('id', m.id, 'meterNumber', m.meter_number, 'installedOn', m.installed_on::text, 'removedOn', m.removed_on::text,
                                                                   'sharedWith', (SELECT count(*)::int FROM service_account_meter x JOIN service_account o ON o.id = x.account_id
                                                                                   WHERE x.meter_id = m.id AND o.closed_on IS NULL))
                                                 ORDER BY m.installed_on, m.meter_number)
                                   FROM service_account_meter am JOIN service_meter m ON m.id = am.meter_id WHERE am.account_id = a.id),
                      'assessment', (SELECT json_build_object('id', s.id, 'basis', s.basis, 'effective_on', s.effective_on::text, 'rows', s.rows, 'edu_thousandths', s.edu_thousandths,
                                                              'water_usage_basis', s.water_usage_basis, 'entered_at', s.entered_at, 'rulebook_version', v.version,
                                                              'entered_by_name', u.display_name)
                                       FROM service_assessment s JOIN rulebook_version v ON v.id = s.rulebook_version_id LEFT JOIN app_user u ON u.id = s.entered_by_id
                                      WHERE s.account_id = a.id ORDER BY s.effective_on DESC, s.entered_at DESC LIMIT 1))
                    ORDER BY a.opened_on, a.account_number)
               FROM service_account a WHERE a.property_id = p.id) AS accounts
       FROM sewer_property p JOIN district d ON d.id = p.district_id
      WHERE p.id IN (SELECT id FROM sewer_property WHERE owner_user_id = $1 UNION SELECT property_id FROM service_account WHERE occupant_user_id = $1)) x`,
  map: (rows: any[], viewer) =>
    rows.map((r) => {
      const p = toProperty(r);
      const mine = p.ownerUserId === viewer.userId;
      const accounts: AccountView[] = (r.accounts ?? []).map((a: any) => ({
        ...a,
        meters: a.meters ?? [],
        assessment: a.assessment ? toAssessment({ ...a.assessment, entered_at: new Date(a.assessment.entered_at) }) : null,
      }));
      return {
        ...p,
        // An occupant who is not the owner sees who owns the property, not where the owner lives.
        ownerMailingAddress: mine ? p.ownerMailingAddress : null,
        owners: r.owner && mine ? [toOwner(r.owner)] : [],
        accounts: accounts.filter((a) => a.occupantUserId === viewer.userId || (mine && ownersAccount(a.closedOn, r.owner?.from_date ?? null))),
      };
    }),
};

/** The signed-in person's properties (myPropertiesPart) in a statement of their own. */
export const myProperties = (ds: DataSource, viewer: Viewer): Promise<PropertyDetail[]> => readPart(ds, viewer, myPropertiesPart);

export type RegisterSummary = {
  districtId: string;
  basis: Basis;
  basisSection: string;
  basisNote: string | null;
  openAccounts: number;
  totalEduThousandths: number;
  totalEdus: string;
  unassessedAccounts: number;
  segmentsEnabled: boolean;
  segmentsSection: string;
  tasks: BoardTask[];
};

/**
 * What the Clerk sees above the register: how the district's law assesses accounts, the open
 * accounts and their EDUs today (the divisor of SUL 1203's fixed costs), accounts not yet
 * assessed, and the Board figures the bills still lack.
 */
export async function registerSummary(ds: DataSource, viewer: Viewer, districtId: string): Promise<RegisterSummary> {
  if (!isUuid(districtId)) throw badInput({ districtId: "Choose a district." });
  requireReader(viewer, districtId);
  const district = await ds.getRepository(District).findOneBy({ id: districtId });
  if (!district) throw notFound("That district");
  const rb = await rulebookOn(ds, district);
  const b = assessmentBasis(rb);
  const [row] = await ds.query(
    `SELECT count(*)::int AS open_accounts, count(*) FILTER (WHERE cur.basis IS NULL)::int AS unassessed, coalesce(sum(cur.edu_thousandths), 0)::int AS edus
       FROM service_account a
       LEFT JOIN LATERAL (SELECT s.basis, s.edu_thousandths FROM service_assessment s WHERE s.account_id = a.id AND s.effective_on <= $2
                           ORDER BY s.effective_on DESC, s.entered_at DESC LIMIT 1) cur ON true
      WHERE a.district_id = $1 AND a.closed_on IS NULL`,
    [districtId, dateIn(district.timeZone)],
  );
  return {
    districtId,
    basis: b.basis,
    basisSection: b.section,
    basisNote: b.note,
    openAccounts: row.open_accounts,
    totalEduThousandths: row.edus,
    totalEdus: formatEdus(row.edus),
    unassessedAccounts: row.unassessed,
    segmentsEnabled: segments(rb).enabled,
    segmentsSection: segments(rb).section,
    tasks: boardTasks(rb),
  };
}

export type { AccountClass };

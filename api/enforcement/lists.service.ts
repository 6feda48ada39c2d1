import { type DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { isCalendarDate } from "../common/dates.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { District } from "../districts/district.entity.js";
import { isUuid } from "../documents/documents.service.js";
import { Organization } from "../organizations/organization.entity.js";
import { EnforcementAction, type ActionKind } from "./enforcement.entity.js";
import { finality } from "./rules.js";
import { loadDistrict, todayIn } from "./common.js";

/** The respondent's and the district's lists: actions, the Board's docket, hearings, the public record. */

// ---------------------------------------------------------------------------------------------
// Lists

export async function myActions(ds: DataSource, viewer: Viewer): Promise<EnforcementAction[]> {
  return ds
    .getRepository(EnforcementAction)
    .createQueryBuilder("a")
    .where("a.respondent_user_id = :u OR a.respondent_organization_id IN (SELECT organization_id FROM membership WHERE user_id = :u)", { u: viewer.userId })
    .orderBy("a.served_on", "DESC")
    .addOrderBy("a.id", "DESC")
    .limit(200)
    .getMany();
}

/** The district's actions for its staff, newest first; optionally one respondent's history. */
export async function districtActions(
  ds: DataSource,
  viewer: Viewer,
  f: { districtId: string; respondentUserId?: string | null; respondentOrganizationId?: string | null; first?: number | null; after?: string | null },
) {
  const district = await loadDistrict(ds, f.districtId);
  if (!isStaff(viewer, district.id)) throw forbidden("You are not staff of that district.");
  const first = pageSize(f.first);
  const q = ds.getRepository(EnforcementAction).createQueryBuilder("a").where("a.district_id = :d", { d: district.id }).orderBy("a.served_on", "DESC").addOrderBy("a.id", "DESC").limit(first + 1);
  if (f.respondentUserId) {
    if (!isUuid(f.respondentUserId)) throw badInput({ respondentUserId: "Not a valid id." });
    q.andWhere("a.respondent_user_id = :ru", { ru: f.respondentUserId });
  }
  if (f.respondentOrganizationId) {
    if (!isUuid(f.respondentOrganizationId)) throw badInput({ respondentOrganizationId: "Not a valid id." });
    q.andWhere("a.respondent_organization_id = :ro", { ro: f.respondentOrganizationId });
  }
  if (f.after) {
    const { key: on, id } = decodeCursor(f.after, isCalendarDate)!;
    q.andWhere("(a.served_on, a.id) < (CAST(:on AS date), CAST(:id AS uuid))", { on, id });
  }
  const rows = await q.getMany();
  const items = rows.slice(0, first);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > first && last ? encodeCursor(last.servedOn, last.id) : null };
}

export type DocketItem = {
  petitionId: string;
  status: string;
  relief: string;
  grounds: string;
  filedOn: string;
  filedAt: Date;
  filedByName: string;
  addressedTo: string;
  actionId: string;
  actionNumber: string;
  actionKind: ActionKind;
  respondentName: string;
  servedOn: string;
  petitionDueOn: string | null;
  fineTotalCents: number;
  hearingId: string | null;
  hearingAt: Date | null;
  hearingPlace: string | null;
  documentCount: number;
};

/**
 * The docket: open petitions of the district, oldest first, in one statement (petition, action,
 * petitioner, hearing, document count). The Board sees petitions to the Town Board; the District
 * Operator those about a water severance.
 */
export async function docket(ds: DataSource, viewer: Viewer, f: { districtId: string; first?: number | null; after?: string | null }): Promise<{ items: DocketItem[]; nextCursor: string | null }> {
  if (!isUuid(f.districtId)) throw notFound("That district");
  const to: string[] = [];
  if (hasRole(viewer, "BOARD", f.districtId)) to.push("TOWN_BOARD");
  if (hasRole(viewer, "OPERATOR", f.districtId)) to.push("DISTRICT_OPERATOR");
  if (!to.length) throw forbidden("The docket is for the Town Board (and the District Operator for water severances) of this district.");
  const first = pageSize(f.first);
  const params: unknown[] = [f.districtId, to, first + 1];
  let after = "";
  if (f.after) {
    const { key: at, id } = decodeCursor(f.after, isInstant)!;
    params.push(at, id);
    after = `AND (p.filed_at, p.id) > ($4::timestamptz, $5::uuid)`;
  }
  const rows: any[] = await ds.query(
    `SELECT p.id, p.status, p.relief, p.grounds, p.filed_on::text AS filed_on, p.filed_at, p.addressed_to,
            to_char(p.filed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at,
            u.display_name AS filed_by_name, a.id AS action_id, a.number, a.kind, a.respondent_name, a.served_on::text AS served_on,
            a.petition_due_on::text AS petition_due_on, a.fine_total_cents, h.id AS hearing_id, h.scheduled_for, h.place,
            (SELECT count(*)::int FROM petition_document pd WHERE pd.petition_id = p.id) AS document_count
       FROM petition p
       JOIN enforcement_action a ON a.id = p.action_id
       JOIN app_user u ON u.id = p.filed_by_id
       LEFT JOIN show_cause_hearing h ON h.petition_id = p.id
      WHERE p.district_id = $1 AND p.status IN ('FILED', 'HEARING_ORDERED') AND p.addressed_to = ANY($2::text[]) ${after}
      ORDER BY p.filed_at, p.id
      LIMIT $3`,
    params,
  );
  const items = rows.slice(0, first).map((r) => ({
    petitionId: r.id,
    status: r.status,
    relief: r.relief,
    grounds: r.grounds,
    filedOn: r.filed_on,
    filedAt: new Date(r.filed_at),
    filedByName: r.filed_by_name,
    addressedTo: r.addressed_to,
    actionId: r.action_id,
    actionNumber: r.number,
    actionKind: r.kind,
    respondentName: r.respondent_name,
    servedOn: r.served_on,
    petitionDueOn: r.petition_due_on,
    fineTotalCents: r.fine_total_cents,
    hearingId: r.hearing_id,
    hearingAt: r.scheduled_for ? new Date(r.scheduled_for) : null,
    hearingPlace: r.place,
    documentCount: r.document_count,
  }));
  const last = rows[first - 1];
  return { items, nextCursor: rows.length > first && last ? encodeCursor(last.cursor_at, last.id) : null };
}

/** Hearings of the district from a date on (default: today), in order, for its staff. */
export async function hearingCalendar(ds: DataSource, viewer: Viewer, f: { districtId: string; from?: string | null }) {
  const district = await loadDistrict(ds, f.districtId);
  if (!isStaff(viewer, district.id)) throw forbidden("You are not staff of that district.");
  const from = (f.from ?? "").trim() || todayIn(district);
  if (!isCalendarDate(from)) throw badInput({ from: "Enter a date like 2026-12-01." });
  const rows: any[] = await ds.query(
    `SELECT h.*, a.number, a.respondent_name, a.kind FROM show_cause_hearing h JOIN enforcement_action a ON a.id = h.action_id
      WHERE h.district_id = $1 AND h.hearing_date >= $2 ORDER BY h.scheduled_for LIMIT 200`,
    [district.id, from],
  );
  return rows.map((r) => ({
    id: r.id,
    petitionId: r.petition_id,
    actionId: r.action_id,
    actionNumber: r.number,
    actionKind: r.kind,
    respondentName: r.respondent_name,
    scheduledFor: new Date(r.scheduled_for),
    place: r.place,
    outcome: r.outcome,
  }));
}

/**
 * Public records (SUL 1014, 1122): final enforcement actions against industrial users. Notices
 * of violation and anything served on a person (a homeowner) are never listed.
 */
export async function publicActions(ds: DataSource, districtSlug: string) {
  const [district] = await ds.getRepository(District).findBy({ slug: districtSlug });
  if (!district) throw notFound("That district");
  const today = todayIn(district);
  const rows = await ds
    .getRepository(EnforcementAction)
    .createQueryBuilder("a")
    .innerJoin(Organization, "o", "o.id = a.respondent_organization_id AND o.kind = 'INDUSTRIAL_USER'")
    .where("a.district_id = :d AND a.kind <> 'NOTICE_OF_VIOLATION'", { d: district.id })
    .andWhere("((a.status = 'FINAL' AND a.final_on <= :today) OR (a.status = 'SERVED' AND a.petition_due_on < :today))", { today })
    .orderBy("a.served_on", "DESC")
    .addOrderBy("a.id", "DESC")
    .limit(500)
    .getMany();
  return rows.map((a) => ({ action: a, finality: finality(a, today) }));
}


import type { DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import type { District } from "../districts/district.entity.js";
import { getDistrict } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { membershipOf } from "../organizations/organizations.service.js";
import { CONTRACTOR_STATUSES, type Db } from "./common.js";
import { contractorStanding, type ContractorStanding } from "./rules.js";
import { loadViews, type ContractorView } from "./views.js";

/** Reading contractors: a firm's own applications, the staff's queue, the public list and who can be chosen. */

/** The applications of every contracting firm the viewer belongs to, newest first. */
export async function myContractorApplications(ds: DataSource, viewer: Viewer): Promise<ContractorView[]> {
  return loadViews(ds, `c.organization_id IN (SELECT organization_id FROM membership WHERE user_id = $1)`, [viewer.userId]);
}

/** One application, for the firm's members and the staff of its district; NOT_FOUND for anyone else. */
export async function getContractor(ds: DataSource, viewer: Viewer, id: string): Promise<ContractorView> {
  const [c] = isUuid(id) ? await loadViews(ds, `c.id = $1`, [id]) : [];
  if (!c) throw notFound("That contractor");
  if (isStaff(viewer, c.districtId)) return c;
  if (await membershipOf(ds, viewer.userId, c.organizationId)) return c;
  throw notFound("That contractor");
}

/** Staff: the district's contractors, optionally of one status; the oldest application first (a queue). */
export async function districtContractors(ds: DataSource, viewer: Viewer, districtId: string, status?: string | null): Promise<ContractorView[]> {
  if (!(["CLERK", "OPERATOR", "ADMIN"] as const).some((r) => hasRole(viewer, r, districtId)))
    throw forbidden("Only the Clerk, the Operator or an ADMIN of that district sees its contractors.");
  if (status && !(CONTRACTOR_STATUSES as readonly string[]).includes(status)) throw badInput({ status: "Choose APPLIED, APPROVED, REJECTED or SUSPENDED." });
  return status
    ? loadViews(ds, `c.district_id = $1 AND c.status = $2`, [districtId, status], `c.updated_at ASC, c.id`)
    : loadViews(ds, `c.district_id = $1`, [districtId], `c.updated_at ASC, c.id`);
}

export type PublicContractor = { id: string; name: string; approvedSince: CalendarDate };

/**
 * The public list (SUL 601 A): approved contractors whose bond and certificates are in force today
 * in the district's zone, by name. Nothing private: the firm's name and the date it was approved.
 */
export async function publicContractorList(ds: DataSource, districtSlug: string): Promise<PublicContractor[]> {
  const district = await getDistrict(ds, { slug: districtSlug });
  return choosableContractors(ds, district);
}

/** The contractors an applicant may choose in a district today (for the lateral permit form, say). */
export async function choosableContractors(db: Db, district: Pick<District, "id" | "timeZone">, today?: CalendarDate): Promise<PublicContractor[]> {
  const day = today ?? dateIn(district.timeZone);
  const rows: { id: string; name: string; decidedAt: Date }[] = await db.query(
    `SELECT c.id, o.name, c.decided_at AS "decidedAt"
       FROM contractor c JOIN organization o ON o.id = c.organization_id
      WHERE c.district_id = $1 AND c.status = 'APPROVED' AND c.bond_expires_on >= $2
        AND NOT EXISTS (SELECT 1 FROM contractor_insurance i WHERE i.contractor_id = c.id AND i.expires_on < $2)
      ORDER BY lower(o.name), c.id`,
    [district.id, day],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, approvedSince: dateIn(district.timeZone, r.decidedAt) }));
}

/**
 * Whether a contractor can be chosen for work in a district (for the lateral permits feature: refuse
 * a contractor that cannot be chosen; warn on open permits). Not choosable, with the reasons, when
 * it is not on that district's list, not approved, suspended, or its bond or a certificate has
 * expired before `today` (a calendar date in the district's zone; today there by default). Pass
 * the caller's transaction manager when inside one.
 */
export async function isChoosable(db: Db, contractorId: string, districtId: string, today?: CalendarDate): Promise<ContractorStanding> {
  const standing = (await contractorStandings(db, [contractorId], today)).get(contractorId);
  if (!standing || standing.districtId !== districtId)
    return { choosable: false, reasons: ["This contractor is not on the district's list of approved contractors."] };
  return { choosable: standing.choosable, reasons: standing.reasons };
}

/** The standing of several contractors in one query (e.g. a warning on every open permit); unknown ids are absent. */
export async function contractorStandings(
  db: Db,
  contractorIds: string[],
  today?: CalendarDate,
): Promise<Map<string, ContractorStanding & { districtId: string; today: CalendarDate }>> {
  const ids = [...new Set(contractorIds)].filter(isUuid);
  const out = new Map<string, ContractorStanding & { districtId: string; today: CalendarDate }>();
  if (!ids.length) return out;
  const rows: { id: string; districtId: string; timeZone: string; status: string; bondExpiresOn: string; suspendedReason: string | null; insurance: { coverage: string; expiresOn: string }[] }[] =
    await db.query(
      `SELECT c.id, c.district_id AS "districtId", d.time_zone AS "timeZone", c.status, c.bond_expires_on::text AS "bondExpiresOn",
              c.suspended_reason AS "suspendedReason",
              coalesce((SELECT json_agg(json_build_object('coverage', i.coverage, 'expiresOn', i.expires_on::text) ORDER BY i.coverage)
                          FROM contractor_insurance i WHERE i.contractor_id = c.id), '[]'::json) AS insurance
         FROM contractor c JOIN district d ON d.id = c.district_id
        WHERE c.id = ANY($1::uuid[])`,
      [ids],
    );
  for (const r of rows) {
    const day = today ?? dateIn(r.timeZone);
    out.set(r.id, { ...contractorStanding(r, day), districtId: r.districtId, today: day });
  }
  return out;
}

import { type DataSource, type EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { badInput, forbidden } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant } from "../common/paging.js";
import { LateralPermit, PERMIT_STATUSES, type PermitStatus } from "./lateral-permit.entity.js";
import { reviewChecklist } from "./rules.js";
import { clean, permitRulebook, loadDistrict } from "./common.js";

/** The applicant's permits, the staff queue and the reviewer's checklist. */

// ---------------------------------------------------------------------------------------------
// Lists

export async function myPermits(ds: DataSource, viewer: Viewer): Promise<LateralPermit[]> {
  return ds.getRepository(LateralPermit).find({ where: { applicantId: viewer.userId }, order: { createdAt: "DESC", id: "DESC" } });
}

export type QueueInput = { districtId: string; status?: string | null; first?: number | null; after?: string | null };
const OPEN_STATUSES: PermitStatus[] = ["SUBMITTED", "CHANGES_REQUESTED", "APPROVED", "CONNECTED"];

/**
 * The district's applications, oldest submission first, keyset-paginated on (submitted_at, id)
 * (index lateral_permit_queue). One statement; the page's related records come from loaders.
 */
export async function queue(ds: DataSource, viewer: Viewer, input: QueueInput): Promise<{ items: LateralPermit[]; nextCursor: string | null }> {
  if (!isStaff(viewer, input.districtId)) throw forbidden("You are not staff of that district.");
  const first = input.first ?? 25;
  if (!Number.isInteger(first) || first < 1 || first > 100) throw badInput({ first: "Ask for 1 to 100 applications at a time." });
  const status = clean(input.status);
  if (status && (!PERMIT_STATUSES.includes(status as PermitStatus) || status === "DRAFT")) throw badInput({ status: "Choose a status other than draft." });
  const q = ds
    .getRepository(LateralPermit)
    .createQueryBuilder("p")
    // The cursor keeps the microseconds PostgreSQL stores (a Date would round them to milliseconds).
    .addSelect(`to_char(p.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, "cursor_at")
    .where("p.district_id = :d", { d: input.districtId })
    .andWhere("p.submitted_at IS NOT NULL")
    .orderBy("p.submitted_at", "ASC")
    .addOrderBy("p.id", "ASC")
    .limit(first + 1);
  if (status) q.andWhere("p.status = :s", { s: status });
  else q.andWhere("p.status IN (:...open)", { open: OPEN_STATUSES });
  if (input.after) {
    const { key: at, id } = decodeCursor(input.after, isInstant)!;
    q.andWhere("(p.submitted_at, p.id) > (CAST(:at AS timestamptz), CAST(:id AS uuid))", { at, id });
  }
  const { entities, raw } = await q.getRawAndEntities();
  const items = entities.slice(0, first);
  const lastRaw = raw[items.length - 1];
  return {
    items,
    nextCursor: entities.length > first && lastRaw ? encodeCursor(lastRaw.cursor_at, items[items.length - 1].id) : null,
  };
}

export async function checklistFor(ds: DataSource | EntityManager, p: LateralPermit) {
  const district = await loadDistrict(ds, p.districtId);
  return reviewChecklist(await permitRulebook(ds, p, district));
}

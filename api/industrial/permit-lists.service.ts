import type { DataSource } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { forbidden } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { isUuid } from "../documents/documents.service.js";
import { rowOf, type PermitRow } from "./common.js";

/** The organization's permits, the district's, the published notices and the public register. */

// ---------------------------------------------------------------------------------------------
// Lists

export async function myPermits(ds: DataSource, viewer: Viewer): Promise<PermitRow[]> {
  const rows = await ds.query(
    `SELECT p.* FROM industrial_permit p JOIN membership m ON m.organization_id = p.organization_id AND m.user_id = $1
      ORDER BY p.created_at DESC LIMIT 200`,
    [viewer.userId],
  );
  return rows.map((r: any) => rowOf<PermitRow>(r));
}

/**
 * Staff queue of one district: submitted applications, notices and permits (drafts stay private),
 * newest submission first, a keyset page at a time (index industrial_permit_queue).
 */
export async function districtPermits(
  ds: DataSource,
  viewer: Viewer,
  districtId: string,
  status: string | null,
  page: { first?: number | null; after?: string | null } = {},
): Promise<{ items: PermitRow[]; nextCursor: string | null }> {
  if (!isUuid(districtId) || !isStaff(viewer, districtId)) throw forbidden("Only this district's staff see its permit queue.");
  const first = pageSize(page.first);
  const cursor = decodeCursor(page.after, isInstant);
  const rows = await ds.query(
    `SELECT * FROM industrial_permit
      WHERE district_id = $1 AND submitted_at IS NOT NULL AND ($2::text IS NULL OR status = $2)
        AND ($3::timestamptz IS NULL OR (submitted_at, id) < ($3::timestamptz, $4::uuid))
      ORDER BY submitted_at DESC, id DESC LIMIT $5`,
    [districtId, status, cursor?.key ?? null, cursor?.id ?? null, first + 1],
  );
  const items = rows.slice(0, first).map((r: any) => rowOf<PermitRow>(r));
  const last = items.at(-1);
  const nextCursor = rows.length > first && last ? encodeCursor(last.submittedAt!.toISOString(), last.id) : null;
  return { items, nextCursor };
}

/** The public notices page (SUL 1004 H): notices of intent, newest first. */
export async function notices(ds: DataSource, districtId: string | null): Promise<PermitRow[]> {
  const rows = await ds.query(
    `SELECT * FROM industrial_permit WHERE notice_published_on IS NOT NULL AND ($1::uuid IS NULL OR district_id = $1)
      ORDER BY notice_published_on DESC, id LIMIT 200`,
    [districtId],
  );
  return rows.map((r: any) => rowOf<PermitRow>(r));
}

/** Public records (SUL 1014): permits, searchable by facility, organization or permit number. */
export async function publicPermits(ds: DataSource, search: string | null, districtId: string | null): Promise<PermitRow[]> {
  const q = (search ?? "").trim().slice(0, 100);
  const rows = await ds.query(
    `SELECT p.* FROM industrial_permit p JOIN organization o ON o.id = p.organization_id
      WHERE p.status IN ('NOTICE_PUBLISHED', 'ISSUED', 'REVOKED', 'SUPERSEDED') AND ($2::uuid IS NULL OR p.district_id = $2)
        AND ($1 = '' OR p.facility_name ILIKE '%' || $1 || '%' OR o.name ILIKE '%' || $1 || '%' OR p.permit_number ILIKE '%' || $1 || '%')
      ORDER BY p.notice_published_on DESC, p.id LIMIT 200`,
    [q.replace(/[\\%_]/g, (c) => `\\${c}`), districtId],
  );
  return rows.map((r: any) => rowOf<PermitRow>(r));
}

import DataLoader from "dataloader";
import type { Context } from "../graphql/context.js";
import { rowOf, type PermitRow } from "./common.js";
import type { DutyRow, ReportRow } from "./reports.service.js";

/**
 * Per-request loaders shared by the industrial resolvers (permits, reports, events, lifecycle,
 * flows): one batch query per kind of row whatever the number of rows in a response, and one
 * permit or report loaded once per request whichever resolver asks for it.
 */

/** Rows grouped under the ids asked for, in their order (a DataLoader's batch answer). */
export function groupBy<T>(rows: T[], key: (r: T) => string | null, ids: readonly string[]): T[][] {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    if (k !== null) (m.get(k) ?? m.set(k, []).get(k)!).push(r);
  }
  return ids.map((id) => m.get(id) ?? []);
}

/** `make(ctx)` once per request. */
export function perRequest<T>(make: (ctx: Context) => T): (ctx: Context) => T {
  const made = new WeakMap<Context, T>();
  return (ctx) => made.get(ctx) ?? made.set(ctx, make(ctx)).get(ctx)!;
}

function byId<T>(ctx: Context, table: "industrial_permit" | "industrial_report" | "industrial_duty"): DataLoader<string, T | null> {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = await ctx.ds.query(`SELECT * FROM ${table} WHERE id = ANY($1::uuid[])`, [[...ids]]);
    const m = new Map(rows.map((r: Record<string, unknown>) => [r.id as string, rowOf<T>(r)]));
    return ids.map((id) => (m.get(id) as T) ?? null);
  });
}

export const industrialRows = perRequest((ctx) => ({
  permit: byId<PermitRow>(ctx, "industrial_permit"),
  report: byId<ReportRow>(ctx, "industrial_report"),
  duty: byId<DutyRow>(ctx, "industrial_duty"),
}));

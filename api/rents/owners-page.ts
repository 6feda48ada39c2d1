import DataLoader from "dataloader";
import type { Viewer } from "../accounts/viewer.js";
import { clock } from "../common/clock.js";
import { queryPrepared } from "../db/prepared.js";
import type { Context } from "../graphql/context.js";
import { perRequest } from "../industrial/loaders.js";
import type { Db } from "./common.js";

/**
 * A list of the signed-in person's own (their properties, linked accounts, paperless choices) read
 * as one JSON value by a scalar subquery: `$1` the viewer's user id and, when `now`, `$2` the
 * instant (the rules' clock). `map` makes the list's views of the JSON (timestamps come as text).
 */
export type OwnerPart<T> = { key: string; now: boolean; sql: string; map(json: any, viewer: Viewer, db: Db): T | Promise<T> };

// The instant as ISO text: node-postgres writes a Date field by field in local time (about 1% of the owner's page's CPU).
const paramsOf = (parts: readonly OwnerPart<unknown>[], viewer: Viewer) => (parts.some((p) => p.now) ? [viewer.userId, clock.now().toISOString()] : [viewer.userId]);

/** One list in a statement of its own. */
export async function readPart<T>(db: Db, viewer: Viewer, part: OwnerPart<T>): Promise<T> {
  const [r] = await queryPrepared(db, `SELECT (${part.sql}) AS v`, paramsOf([part], viewer));
  return part.map(r.v, viewer, db);
}

/**
 * The statement of these lists, a column each, made once for each set of lists: the same string
 * every time, so queryPrepared finds its prepared statement without building and hashing the text
 * (about 8 KB for the owner's page) again on every request.
 */
const statements = new Map<string, string>();
function statementOf(parts: readonly OwnerPart<unknown>[]): string {
  const keys = parts.map((p) => p.key).join(",");
  let text = statements.get(keys);
  if (text === undefined) statements.set(keys, (text = `SELECT ${parts.map((p) => `(${p.sql}) AS ${p.key}`).join(",\n")}`));
  return text;
}

/**
 * The owner's /properties page asks for three of these lists at once (myServiceProperties,
 * myLinkedAccounts, myPaperlessChoices): the lists one request asks for are read in one statement,
 * a column each (docs/benchmarks.md, issue 14: a statement's round trip cost more than its work).
 */
export const ownerParts = perRequest(
  (ctx: Context) =>
    new DataLoader<OwnerPart<unknown>, unknown, string>(
      async (asked) => {
        const parts = [...asked].sort((a, b) => a.key.localeCompare(b.key));
        const [r] = await queryPrepared(ctx.ds, statementOf(parts), paramsOf(parts, ctx.viewer!));
        // A list whose views fail fails alone, as it would in a statement of its own.
        const views = new Map<string, unknown>();
        for (const p of parts) views.set(p.key, await Promise.resolve(p.map(r[p.key], ctx.viewer!, ctx.ds)).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))));
        return asked.map((p) => views.get(p.key));
      },
      { cacheKeyFn: (p) => p.key },
    ),
);

/** A list of the viewer's own, read with the others the request asks for. */
export const loadPart = <T>(ctx: Context, part: OwnerPart<T>): Promise<T> => ownerParts(ctx).load(part) as Promise<T>;

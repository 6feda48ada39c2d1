import { isUuid } from "../documents/documents.service.js";
import { badInput } from "./errors.js";

/**
 * Keyset paging shared by the staff lists: a page of `first` rows (1 to 200, the list's default
 * when not given), and a cursor made of the last row's sort key and id, so the next page starts
 * after it whatever was added since.
 */
export function pageSize(first: number | null | undefined, fallback = 50, max = 200): number {
  if (first === null || first === undefined) return fallback;
  if (!Number.isInteger(first) || first < 1 || first > max) throw badFirst(max);
  return first;
}

/** The answer to a `first` out of range: BAD_USER_INPUT naming it. */
export const badFirst = (max = 200) => badInput({ first: `Ask for 1 to ${max} at a time.` }, `first must be a whole number from 1 to ${max}.`);

/** The answer to a page link that was altered or belongs to another list (`field`: the argument, `after` or `before`). */
export const badPage = (field = "after") => badInput({ [field]: "That page link is not valid; start from the first page." });

export const encodeCursor = (key: string, id: string) => Buffer.from(`${key}|${id}`).toString("base64url");

/**
 * The sort key and id in a cursor (null without one); badPage when it is not a cursor whose key
 * passes `valid` and whose id passes `validId` (a uuid unless the list's ids are numbers).
 */
export function decodeCursor(
  after: string | null | undefined,
  valid: (key: string) => boolean,
  field = "after",
  validId: (id: string) => boolean = isUuid,
): { key: string; id: string } | null {
  if (!after) return null;
  const [key, id] = Buffer.from(after, "base64url").toString("utf8").split("|");
  if (!key || !id || !valid(key) || !validId(id)) throw badPage(field);
  return { key, id };
}

export const isInstant = (key: string) => !Number.isNaN(Date.parse(key));

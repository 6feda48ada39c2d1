import { isUuid } from "../documents/documents.service.js";
import { badInput } from "./errors.js";

/**
 * Keyset paging shared by the staff lists: a page of `first` rows (1 to 200, the list's default
 * when not given), and a cursor made of the last row's sort key and id, so the next page starts
 * after it whatever was added since.
 */
export const pageSize = (first: number | null | undefined, fallback = 50) => Math.min(Math.max(first ?? fallback, 1), 200);

/** The answer to a page link that was altered or belongs to another list. */
export const badPage = () => badInput({ after: "That page link is not valid; start from the first page." });

export const encodeCursor = (key: string, id: string) => Buffer.from(`${key}|${id}`).toString("base64url");

/** The sort key and id in a cursor (null without one); badPage when it is not a cursor whose key passes `valid`. */
export function decodeCursor(after: string | null | undefined, valid: (key: string) => boolean): { key: string; id: string } | null {
  return after ? splitCursor(Buffer.from(after, "base64url").toString("utf8"), valid) : null;
}

/** "key|id" as written, for lists whose pages the client names by the last row's key and id. */
export function splitCursor(text: string, valid: (key: string) => boolean): { key: string; id: string } {
  const [key, id] = text.split("|");
  if (!key || !isUuid(id ?? "") || !valid(key)) throw badPage();
  return { key, id };
}

export const isInstant = (key: string) => !Number.isNaN(Date.parse(key));
export const isDay = (key: string) => /^\d{4}-\d{2}-\d{2}$/.test(key);

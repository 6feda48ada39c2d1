import type { DataSource, EntityManager } from "typeorm";
import { Payment } from "./payment.entity.js";

/** Payable types: each feature that charges for something registers how it is named, where it is shown and what paying does. */

// ---------------------------------------------------------------------------------------------
// Payable types: each feature that charges for something registers how to react to payment.

export type PayableHandler = {
  /** called inside the transaction that marks the payment paid */
  onPaid(tx: EntityManager, payment: Payment): Promise<void>;
  /** what was paid for, for receipts and lists: "Lateral permit application LP-..." */
  title(payableId: string, tx: EntityManager | DataSource): Promise<string>;
  /** portal page of the thing paid for */
  href(payableId: string): string;
  /**
   * Optional: titles of many payables in one query (the staff ledger uses it so a page of payments
   * costs one query per payable type, not one per row). Without it, title() is called per payable.
   */
  titles?(payableIds: string[], ds: EntityManager | DataSource): Promise<Map<string, string>>;
  /**
   * Optional: the codes of lines each payable owes back now although they are no deposit (a fee for
   * a service not given: a refused or cancelled load's dumping fee), by payable id, in one query.
   * The Clerk may refund these lines as well as the refundable ones; the payer's pages say so.
   */
  linesOwedBack?(payableIds: string[], ds: EntityManager | DataSource): Promise<Map<string, string[]>>;
};

const handlers = new Map<string, PayableHandler>();

export function registerPayable(type: string, handler: PayableHandler): void {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,99}$/.test(type)) throw new Error(`payable type "${type}" must be a plain identifier like LateralPermit`);
  handlers.set(type, handler);
}

export function payableHandler(type: string): PayableHandler {
  const h = handlers.get(type);
  if (!h) throw new Error(`no payable handler is registered for "${type}" (call registerPayable at start)`);
  return h;
}

/** Titles for many payables, one call per payable type (see PayableHandler.titles). */
export async function payableTitles(ds: DataSource | EntityManager, keys: { type: string; id: string }[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const byType = new Map<string, Set<string>>();
  for (const k of keys) (byType.get(k.type) ?? byType.set(k.type, new Set()).get(k.type)!).add(k.id);
  for (const [type, ids] of byType) {
    const h = handlers.get(type);
    if (!h) {
      for (const id of ids) out.set(titleKey(type, id), type);
      continue;
    }
    if (h.titles) {
      const titles = await h.titles([...ids], ds);
      for (const id of ids) out.set(titleKey(type, id), titles.get(id) ?? type);
    } else for (const id of ids) out.set(titleKey(type, id), await h.title(id, ds));
  }
  return out;
}
export const titleKey = (type: string, id: string) => `${type}\u0000${id}`;

/** The lines each payable owes back though they are no deposit (see PayableHandler.linesOwedBack), keyed by titleKey; one call per payable type. */
export async function linesOwedBack(ds: DataSource | EntityManager, keys: { type: string; id: string }[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const byType = new Map<string, Set<string>>();
  for (const k of keys) (byType.get(k.type) ?? byType.set(k.type, new Set()).get(k.type)!).add(k.id);
  for (const [type, ids] of byType) {
    const h = handlers.get(type);
    if (!h?.linesOwedBack) continue;
    const owed = await h.linesOwedBack([...ids], ds);
    for (const [id, codes] of owed) out.set(titleKey(type, id), codes);
  }
  return out;
}

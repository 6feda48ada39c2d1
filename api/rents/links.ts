import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { conflict, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import type { Config } from "../config.js";
import { queryPrepared } from "../db/prepared.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmails } from "../outbox/outbox.service.js";
import { Payment } from "../payments/payment.entity.js";
import { actorOf, addressOf, type Db, type Meta } from "./common.js";
import { BALANCE_COLUMNS, SEWER_ACCOUNT_PAYABLE, accountBalances, balanceJoinsSql, createAccountPayment, toBalance, type AccountBalance } from "./ledger.js";
import { readPart, type OwnerPart } from "./owners-page.js";
import { findAccountByNumberAndZip } from "./quick-pay.js";

/**
 * Accounts linked to a sign-in (issue 14: "one signed-in person may link several accounts (a
 * landlord)"): by the account number and the service address's ZIP, as quick pay finds one, under
 * the same limits. A link lets its holder read the account's balance and issued bills and pay
 * them; nothing else (not the register, the worksheet or any change). Linking and unlinking are
 * audited, and the account's occupant and owner of record (when they sign in) are told of a link.
 */

export type LinkedBill = { id: string; number: string; servedFrom: string; servedTo: string; totalCents: number; dueOn: string | null };
export type LinkedAccountView = {
  linkId: string;
  linkedAt: Date;
  accountId: string;
  accountNumber: string;
  districtName: string;
  address: string;
  closedOn: string | null;
  balance: AccountBalance;
  bills: LinkedBill[];
};

/** Links the account with this number and ZIP to the viewer's sign-in; linking it again changes nothing. */
export async function linkServiceAccount(ds: DataSource, viewer: Viewer, input: { accountNumber: string; zip: string }, meta: Meta & { ip: string; publicUrl: string }): Promise<LinkedAccountView> {
  const a = await findAccountByNumberAndZip(ds, "LINK", input, meta.ip);
  await ds.transaction(async (tx) => {
    const [made] = await tx.query(
      `INSERT INTO service_account_link (user_id, account_id, district_id) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, account_id) WHERE unlinked_at IS NULL DO NOTHING RETURNING id`,
      [viewer.userId, a.id, a.districtId],
    );
    if (!made) return;
    await audit(tx, actorOf(viewer, meta.requestId), { action: "rents.account_linked", entityType: "ServiceAccount", entityId: a.id, districtId: a.districtId, details: { linkId: made.id } });
    // Those billed learn that someone else now reads and pays the account (a link needs only what the bill shows).
    const told: any[] = await tx.query(
      `SELECT DISTINCT u.id, u.email, u.display_name, d.name AS district_name, (SELECT display_name FROM app_user WHERE id = $2) AS linker
         FROM service_account s JOIN sewer_property p ON p.id = s.property_id JOIN district d ON d.id = s.district_id
         JOIN app_user u ON u.id IN (s.occupant_user_id, p.owner_user_id)
        WHERE s.id = $1 AND u.id <> $2`,
      [a.id, viewer.userId],
    );
    await enqueueEmails(
      tx,
      told.map((u) => ({
        to: u.email,
        recipientId: u.id,
        districtId: a.districtId,
        kind: "rents.account_linked",
        subject: `${u.linker} linked sewer account ${a.accountNumber} to their sign-in`,
        body:
          `Hello ${u.display_name},\n\n${u.linker} linked sewer account ${a.accountNumber} (${u.district_name}) to their Tapline sign-in with its number and ZIP code. ` +
          `They can now read its balance and bills and pay them; they cannot change anything.\n\n` +
          `If you do not know why, tell the Town Clerk of ${u.district_name}.\n\n${meta.publicUrl}/properties\n`,
      })),
    );
  });
  const [view] = await linkedAccounts(ds, viewer, a.id);
  return view;
}

/** Ends the viewer's link to the account (their own links only). */
export async function unlinkServiceAccount(ds: DataSource, viewer: Viewer, accountId: string, meta: Meta): Promise<boolean> {
  if (!isUuid(accountId)) throw notFound("That linked account");
  return ds.transaction(async (tx) => {
    const [row] = await tx.query(
      `UPDATE service_account_link SET unlinked_at = now(), unlinked_by_id = $1 WHERE user_id = $1 AND account_id = $2 AND unlinked_at IS NULL RETURNING id, district_id`,
      [viewer.userId, accountId],
    );
    const r = Array.isArray(row) ? row[0] : row;
    if (!r) throw notFound("That linked account");
    await audit(tx, actorOf(viewer, meta.requestId), { action: "rents.account_unlinked", entityType: "ServiceAccount", entityId: accountId, districtId: r.district_id, details: { linkId: r.id } });
    return true;
  });
}

/**
 * SQL, one JSON value: the viewer's ($1) links as of $2, the one of account $3 alone when `one`, with
 * their balances (ledger.ts, per linked account) and the newest 200 of their issued bills (read once).
 */
const linkedSql = (one: boolean) => `WITH l AS (
       SELECT l.id AS link_id, l.linked_at, l.account_id FROM service_account_link l
        WHERE l.user_id = $1 AND l.unlinked_at IS NULL ${one ? "AND l.account_id = $3" : ""}
     ), bl AS MATERIALIZED (
       SELECT b.id, b.account_id, b.number, b.served_from, b.served_to, b.total_cents, b.due_on, b.period_start
         FROM bill b WHERE b.account_id IN (SELECT account_id FROM l) AND b.status = 'ISSUED' ORDER BY b.period_start DESC, b.number DESC LIMIT 200
     )
     SELECT coalesce(json_agg(x ORDER BY x.account_number), '[]') FROM (
       SELECT l.link_id, l.linked_at, a.id, a.account_number, a.closed_on::text AS closed_on, d.name AS district_name, p.street_number, p.street, p.city, p.zip,
              ${BALANCE_COLUMNS},
              coalesce((SELECT json_agg(json_build_object('id', bl.id, 'number', bl.number, 'servedFrom', bl.served_from::text, 'servedTo', bl.served_to::text,
                                                          'totalCents', bl.total_cents, 'dueOn', bl.due_on::text) ORDER BY bl.period_start DESC, bl.number DESC)
                          FROM bl WHERE bl.account_id = a.id), '[]') AS bills
         FROM l JOIN service_account a ON a.id = l.account_id JOIN sewer_property p ON p.id = a.property_id JOIN district d ON d.id = a.district_id
         ${balanceJoinsSql("$2::timestamptz")}) x`;

const toLinked = (rows: any[]): LinkedAccountView[] =>
  rows.map((r) => ({
    linkId: r.link_id,
    linkedAt: new Date(r.linked_at),
    accountId: r.id,
    accountNumber: r.account_number,
    districtName: r.district_name,
    address: addressOf(r),
    closedOn: r.closed_on,
    balance: toBalance(r),
    bills: r.bills,
  }));

/**
 * The viewer's linked accounts with their balances and issued bills (the newest 200 of them all):
 * one statement whatever their number, or a column of the owner's page's (owners-page.ts).
 */
export const linkedAccountsPart: OwnerPart<LinkedAccountView[]> = { key: "linked", now: true, sql: linkedSql(false), map: toLinked };

/** The viewer's linked accounts (linkedAccountsPart), or their link to one account, in a statement of their own. */
export async function linkedAccounts(db: Db, viewer: Viewer, onlyAccountId?: string): Promise<LinkedAccountView[]> {
  if (!onlyAccountId) return readPart(db, viewer, linkedAccountsPart);
  const [r] = await queryPrepared(db, `SELECT (${linkedSql(true)}) AS v`, [viewer.userId, clock.now(), onlyAccountId]);
  return toLinked(r.v);
}

/** The issued bills of the viewer's linked accounts, newest first (the bills list adds them to their own). */
export async function linkedBills(db: Db, viewer: Viewer): Promise<(LinkedBill & { accountNumber: string; districtName: string; address: string })[]> {
  const rows: any[] = await queryPrepared(
    db,
    `SELECT b.id, b.number, b.served_from::text AS served_from, b.served_to::text AS served_to, b.total_cents, b.due_on::text AS due_on, a.account_number,
            d.name AS district_name, p.street_number, p.street, p.city, p.zip
       FROM bill b JOIN service_account a ON a.id = b.account_id JOIN sewer_property p ON p.id = b.property_id JOIN district d ON d.id = b.district_id
      WHERE b.account_id IN (SELECT l.account_id FROM service_account_link l WHERE l.user_id = $1 AND l.unlinked_at IS NULL) AND b.status = 'ISSUED'
      ORDER BY b.mailed_on DESC, b.number DESC LIMIT 50`,
    [viewer.userId],
  );
  return rows.map((b) => ({
    id: b.id,
    number: b.number,
    servedFrom: b.served_from,
    servedTo: b.served_to,
    totalCents: b.total_cents,
    dueOn: b.due_on,
    accountNumber: b.account_number,
    districtName: b.district_name,
    address: addressOf(b),
  }));
}

/**
 * The holder of a link pays toward the account's balance: the amount given, or the balance. The
 * payment is theirs (its page, checkout and receipt as any payment's); a pending one of theirs for
 * the same amount is reused, so a double click makes one.
 */
export async function payLinkedServiceAccount(ds: DataSource, _config: Config, viewer: Viewer, input: { accountId: string; amountCents?: number | null }, meta: Meta): Promise<Payment> {
  if (!isUuid(input.accountId)) throw notFound("That linked account");
  return ds.transaction(async (tx) => {
    const [link] = await tx.query(`SELECT account_id FROM service_account_link WHERE user_id = $1 AND account_id = $2 AND unlinked_at IS NULL`, [viewer.userId, input.accountId]);
    if (!link) throw notFound("That linked account");
    let amount = input.amountCents ?? null;
    if (amount === null) {
      const b = (await accountBalances(tx, [input.accountId])).get(input.accountId)!;
      if (b.balanceCents <= 0) throw conflict(b.balanceCents < 0 ? `Nothing is due: the account has a credit of ${formatCents(-b.balanceCents)}.` : "Nothing is due on this account.");
      amount = b.balanceCents;
    }
    const [pending] = await tx.query(
      `SELECT id FROM payment WHERE payable_type = $1 AND payable_id = $2 AND payer_id = $3 AND status = 'PENDING' AND amount_cents = $4 ORDER BY created_at DESC LIMIT 1`,
      [SEWER_ACCOUNT_PAYABLE, input.accountId, viewer.userId, amount],
    );
    if (pending) return tx.findOneByOrFail(Payment, { id: pending.id });
    return createAccountPayment(tx, actorOf(viewer, meta.requestId), { accountId: input.accountId, payerId: viewer.userId, amountCents: amount });
  });
}

import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { badInput, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { isUuid } from "../documents/documents.service.js";
import { sha256 } from "../common/tokens.js";
import { PAYMENT_STATUSES, Payment, Refund, type PaymentStatus } from "./payment.entity.js";
import { cancelPendingPayments } from "./cancellation.service.js";

/** Who may read a payment, and the payer's and the district's lists. */

// ---------------------------------------------------------------------------------------------
// Reading

export async function paymentsFor(ds: DataSource | EntityManager, payableType: string, payableId: string): Promise<Payment[]> {
  return ds.getRepository(Payment).find({ where: { payableType, payableId }, order: { createdAt: "ASC" } });
}

/**
 * Whether everything charged for the payable is paid: at least one payment received and none still
 * pending. Every line of a payment, non-refundable and refundable, is paid together; a deposit later
 * returned (SUL 606 B) still counts as paid. Money that arrived after its payment was cancelled
 * does not count: it is owed back to the payer (see cancelPendingPayments).
 */
export async function isPaid(ds: DataSource | EntityManager, payableType: string, payableId: string): Promise<boolean> {
  const [row] = await ds.query(
    `SELECT count(*) FILTER (WHERE status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED') AND cancelled_at IS NULL)::int AS received,
            count(*) FILTER (WHERE status = 'PENDING')::int AS pending
       FROM payment WHERE payable_type = $1 AND payable_id = $2`,
    [payableType, payableId],
  );
  return row.received > 0 && row.pending === 0;
}

const canRead = (viewer: Viewer, p: Payment) => (p.payerId !== null && p.payerId === viewer.userId) || isStaff(viewer, p.districtId);

/** The payment, for its payer or staff of its district; NOT_FOUND for anyone else. */
export async function getPayment(ds: DataSource, viewer: Viewer, id: string): Promise<Payment> {
  const p = isUuid(id) ? await ds.getRepository(Payment).findOne({ where: { id } }) : null;
  if (!p || !canRead(viewer, p)) throw notFound("That payment");
  return p;
}

/**
 * A quick-pay payment (no signed-in payer) for whoever holds its access token, the token of the
 * return address: this payment only, and nothing else. A wrong token, a payment with a payer and
 * no payment at all look the same (NOT_FOUND).
 */
export async function paymentByAccess(ds: DataSource, id: string, access: string): Promise<Payment> {
  const p =
    isUuid(id) && typeof access === "string" && access.length >= 20 && access.length <= 200
      ? await ds.getRepository(Payment).createQueryBuilder("p").where("p.id = :id AND p.payer_id IS NULL AND p.access_token_hash = :h", { id, h: sha256(access) }).getOne()
      : null;
  if (!p) throw notFound("That payment");
  return p;
}

export async function myPayments(ds: DataSource, viewer: Viewer, first = 50): Promise<Payment[]> {
  return ds.getRepository(Payment).find({ where: { payerId: viewer.userId }, order: { createdAt: "DESC", id: "DESC" }, take: pageSize(first) });
}

/** The ledger's filter for money received after its payment was cancelled and not yet returned. */
export const REFUND_DUE = "REFUND_DUE";

/**
 * The district's ledger for its CLERK or ADMIN, newest first, keyset-paginated on (created_at, id)
 * with the cursor kept to the microsecond (the index payment_district_created serves it).
 */
export async function districtPayments(
  ds: DataSource,
  viewer: Viewer,
  f: { districtId: string; status?: string | null; first?: number | null; before?: string | null },
): Promise<{ payments: Payment[]; nextCursor: string | null }> {
  if (!hasRole(viewer, "CLERK", f.districtId) && !hasRole(viewer, "ADMIN", f.districtId)) throw forbidden("You are not the Clerk or an ADMIN of that district.");
  const first = pageSize(f.first);
  const q = ds
    .getRepository(Payment)
    .createQueryBuilder("p")
    .addSelect(`to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, "cursor_at")
    .where("p.district_id = :d", { d: f.districtId })
    .orderBy("p.created_at", "DESC")
    .addOrderBy("p.id", "DESC")
    .limit(first + 1);
  if (f.status === REFUND_DUE) q.andWhere("p.cancelled_at IS NOT NULL AND p.paid_at IS NOT NULL AND p.refunded_cents < p.amount_cents");
  else if (f.status) {
    if (!PAYMENT_STATUSES.includes(f.status as PaymentStatus)) throw badInput({ status: `Use one of ${PAYMENT_STATUSES.join(", ")} or ${REFUND_DUE}.` });
    q.andWhere("p.status = :s", { s: f.status });
  }
  if (f.before) {
    const { key: at, id } = decodeCursor(f.before, isInstant, "before")!;
    q.andWhere("(p.created_at, p.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))", { at, id });
  }
  const { entities, raw } = await q.getRawAndEntities();
  const payments = entities.slice(0, first);
  const lastRaw = raw[payments.length - 1];
  return {
    payments,
    nextCursor: entities.length > first && lastRaw ? encodeCursor(lastRaw.cursor_at, payments[payments.length - 1].id) : null,
  };
}

export async function refundsFor(ds: DataSource | EntityManager, paymentIds: readonly string[]): Promise<Refund[]> {
  if (!paymentIds.length) return [];
  return ds
    .getRepository(Refund)
    .createQueryBuilder("r")
    .where("r.payment_id IN (:...ids)", { ids: [...paymentIds] })
    .orderBy("r.created_at", "ASC")
    .getMany();
}

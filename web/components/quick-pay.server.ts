import type { AppLoadContext } from "@remix-run/node";
import { gql, statusOf } from "~/graphql.server";

/**
 * Quick pay's pages (pay.tsx, and the payment pages reached with a quick-pay payment's access
 * token): the token comes from the checkout's return address, and opens that payment's status and
 * receipt only.
 */

export type QuickPayment = {
  id: string;
  status: string;
  amountCents: number;
  refundedCents: number;
  paidAt: string | null;
  receiptNumber: string | null;
  methodDescription: string | null;
  provider: string | null;
  cancelReason: string | null;
  accountNumber: string;
  lines: { code: string; label: string; section: string; amountCents: number }[];
  refunds: { id: string; amountCents: number; reason: string; method: string; receiptNumber: string; createdAt: string }[];
  districtName: string;
  districtAddress: string;
  timeZone: string;
};

export const QUICK_PAYMENT_FIELDS = `id status amountCents refundedCents paidAt receiptNumber methodDescription provider cancelReason accountNumber
  lines { code label section amountCents } refunds { id amountCents reason method receiptNumber createdAt } districtName districtAddress timeZone`;

/** The access token of the address (?access=...), if any. */
export const accessOf = (request: Request): string | null => new URL(request.url).searchParams.get("access") || null;

/** A public query: its data, or the API's refusal as a 4xx page. */
export async function publicQuery<T>(context: AppLoadContext, request: Request, query: string, variables: Record<string, unknown>): Promise<T> {
  const r = await gql<T>(context, request, query, variables);
  if (r.ok) return r.data;
  throw new Response(r.error.message, { status: statusOf(r.error.code) });
}

/** The quick-pay payment the token opens (NOT_FOUND for a wrong token). */
export async function quickPaymentFor(context: AppLoadContext, request: Request, id: string | undefined, access: string): Promise<QuickPayment> {
  const { quickPayment } = await publicQuery<{ quickPayment: QuickPayment }>(context, request, `query QuickPayment($id: ID!, $a: String!) { quickPayment(id: $id, access: $a) { ${QUICK_PAYMENT_FIELDS} } }`, {
    id,
    a: access,
  });
  return quickPayment;
}

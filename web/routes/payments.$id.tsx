import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useOutlet, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { FeeLinesTable } from "~/components/fee-lines";
import { money } from "~/components/money";
import { asSentence, paymentStatusLabel } from "~/components/payment-status";
import { accessOf } from "~/components/quick-pay.server";

export const meta: MetaFunction = () => [{ title: "Payment | Tapline" }];

type Line = { code: string; label: string; section: string; amountCents: number; refundable: boolean; refunded: boolean; owedBack: boolean };
type Payment = {
  id: string;
  status: string;
  amountCents: number;
  refundedCents: number;
  paidAt: string | null;
  receiptNumber: string | null;
  methodDescription: string | null;
  payerId: string;
  payableTitle: string;
  href: string;
  lines: Line[];
  refunds: { id: string; amountCents: number; reason: string; method: string; receiptNumber: string; createdAt: string }[];
  district: { name: string; timeZone: string };
  cancelledAt: string | null;
  cancelReason: string | null;
  refundDue: boolean;
  cardPayments: boolean;
};
type Data = { me: { id: string }; paymentProviderMode: string; payment: Payment };

export async function loader(args: LoaderFunctionArgs) {
  // A quick-pay payment (no payer) is read with its access token by its done page and receipt (child routes), without signing in.
  const access = accessOf(args.request);
  if (access) {
    if (!/\/(done|receipt)\/?$/.test(new URL(args.request.url).pathname)) throw redirect(`/payments/${args.params.id}/done?access=${encodeURIComponent(access)}`);
    return null;
  }
  return requireSignedIn<Data>(
    args,
    `query Payment($id: ID!) { me { id } paymentProviderMode payment(id: $id) {
      id status amountCents refundedCents paidAt receiptNumber methodDescription payerId payableTitle href cancelledAt cancelReason refundDue cardPayments
      lines { code label section amountCents refundable refunded owedBack }
      refunds { id amountCents reason method receiptNumber createdAt }
      district { name timeZone } } }`,
    { id: args.params.id },
  );
}

/** Pay: the API starts (or, after a double click, finds) the checkout; the browser goes there. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const r = await gql<{ startCheckout: { url: string; provider: string } }>(
    context,
    request,
    `mutation StartCheckout($id: ID!) { startCheckout(paymentId: $id) { url provider } }`,
    { id: params.id },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/payments/${params.id}`)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message }, { status: r.error.code === "NOT_FOUND" ? 404 : 400, headers: cookieHeaders(r) });
  }
  // Stripe's page (another site) or the portal's own test checkout.
  return redirect(r.data.startCheckout.url, { headers: cookieHeaders(r) });
}

/** The payment's (its only form is the Pay button: an error is the summary's message). */
export const LABELS = { paymentId: "Payment" };

export default function PaymentPage() {
  const outlet = useOutlet();
  // /payments/:id/done and /payments/:id/receipt are pages of their own.
  if (outlet) return outlet;
  return <PaymentDetails />;
}

function PaymentDetails() {
  const { me, paymentProviderMode, payment: p } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string }>();
  const [params] = useSearchParams();
  const payer = me.id === p.payerId;
  const received = p.status === "PAID" || p.status === "PARTIALLY_REFUNDED" || p.status === "REFUNDED";
  return (
    <div className="tablet:grid-col-10">
      <h1>Payment to {p.district.name}</h1>
      <p className="usa-intro">
        For{" "}
        <Link className="usa-link" to={p.href}>
          {p.payableTitle}
        </Link>
      </p>
      <p>
        Status: <span className="usa-tag">{paymentStatusLabel(p)}</span>
      </p>
      {p.status === "CANCELLED" && (
        <Notice>
          This payment was cancelled: {asSentence(p.cancelReason)} Nothing is due.{" "}
          <span className="text-base-dark">
            (Cancelled <DateTime iso={p.cancelledAt} timeZone={p.district.timeZone} />.)
          </span>
        </Notice>
      )}
      {p.refundDue && (
        <Notice type="warning">
          This payment was cancelled ({p.cancelReason}) before the card payment reached {p.district.name}. Nothing was due, so the district returns
          the full amount; a refund receipt follows.
        </Notice>
      )}
      <ErrorSummary message={a?.error} />
      {params.get("cancelled") && p.status === "PENDING" && <Notice>You left the checkout. Nothing was paid; you can pay when you are ready.</Notice>}
      <FeeLinesTable lines={p.lines} totalCents={p.amountCents} caption="What you pay, and the section of the law each amount comes from" />

      {p.status === "PENDING" && payer && !p.cardPayments && (
        <section aria-labelledby="pay-heading">
          <h2 id="pay-heading">Pay {money(p.amountCents)} at the district office</h2>
          <p>
            {p.district.name} takes payments at its office only, in cash or by check: it has not connected its own card payment account yet, so
            this payment cannot be made by card online. The Clerk records your payment here and you get a receipt.
          </p>
        </section>
      )}
      {p.status === "PENDING" && payer && p.cardPayments && (
        <section aria-labelledby="pay-heading">
          <h2 id="pay-heading">Pay {money(p.amountCents)}</h2>
          {paymentProviderMode === "test" ? (
            <Notice type="warning">
              <strong>Test checkout: no real money moves.</strong> This portal is not connected to a card processor; the next page only
              pretends to take a payment.
            </Notice>
          ) : (
            <p>You pay by card on Stripe's secure page, then come back here. Tapline never sees your card number.</p>
          )}
          {/* A plain form post: works without JavaScript, and the redirect may go to another site. */}
          <Form method="post" reloadDocument>
            <AuthenticityTokenInput />
            <button className="usa-button usa-button--big" type="submit">
              Pay {money(p.amountCents)}
            </button>
          </Form>
          <p className="usa-hint">You can also pay in cash or by check at the district office; the Clerk records it here.</p>
        </section>
      )}
      {p.status === "PENDING" && !payer && <p>Only the person who owes this payment can pay it online.</p>}

      {received && (
        <section aria-labelledby="receipt-heading">
          <h2 id="receipt-heading">Receipt</h2>
          <p>
            Receipt {p.receiptNumber}, <DateTime iso={p.paidAt} timeZone={p.district.timeZone} />. {p.methodDescription}.
          </p>
          <p>
            <Link className="usa-link" to={`/payments/${p.id}/receipt`}>
              View and print the receipt
            </Link>
          </p>
        </section>
      )}
      {p.refunds.length > 0 && (
        <section aria-labelledby="refunds-heading">
          <h2 id="refunds-heading">Money returned</h2>
          <ul className="usa-list">
            {p.refunds.map((r) => (
              <li key={r.id}>
                {money(r.amountCents)} on <DateTime iso={r.createdAt} timeZone={p.district.timeZone} />, {r.method === "card" ? "back to your card" : `by ${r.method}`} (receipt{" "}
                {r.receiptNumber}): {r.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

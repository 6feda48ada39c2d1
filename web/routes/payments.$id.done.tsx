import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { DateTime } from "~/components/format";
import { SuccessAlert } from "~/components/forms";
import { money } from "~/components/money";
import { accessOf, quickPaymentFor } from "~/components/quick-pay.server";

export const meta: MetaFunction = () => [{ title: "Payment status | Tapline" }];

type Payment = {
  id: string;
  status: string;
  amountCents: number;
  paidAt: string | null;
  receiptNumber: string | null;
  methodDescription: string | null;
  payableTitle: string;
  href: string;
  lines: { code: string; label: string; section: string; amountCents: number }[];
  district: { name: string; timeZone: string };
};


/**
 * Where the checkout sends the browser back. The status comes from the API (which only the webhook
 * or the test checkout can change), never from the address.
 */
export async function loader(args: LoaderFunctionArgs) {
  // Quick pay (no sign-in): the return address carries the payment's access token, which opens this payment only.
  const access = accessOf(args.request);
  if (access) {
    const q = await quickPaymentFor(args.context, args.request, args.params.id, access);
    const payment: Payment = { ...q, payableTitle: `Sewer account ${q.accountNumber}`, href: "/pay", district: { name: q.districtName, timeZone: q.timeZone } };
    return { payment, access };
  }
  const data = await requireSignedIn<{ payment: Payment }>(
    args,
    `query PaymentDone($id: ID!) { payment(id: $id) { id status amountCents paidAt receiptNumber methodDescription payableTitle href
      lines { code label section amountCents } district { name timeZone } } }`,
    { id: args.params.id },
  );
  return { payment: data.payment, access: null };
}

export default function PaymentDone() {
  const { payment: p, access } = useLoaderData<typeof loader>() as { payment: Payment; access: string | null };
  const withAccess = (path: string) => (access ? `${path}?access=${encodeURIComponent(access)}` : path);
  const received = p.status === "PAID" || p.status === "PARTIALLY_REFUNDED" || p.status === "REFUNDED";
  return (
    <div className="tablet:grid-col-8">
      {received ? (
        <>
          <h1>Payment received</h1>
          <SuccessAlert>
            {p.district.name} received {money(p.amountCents)}. Receipt {p.receiptNumber}
            {access ? ". Keep this page's address or print the receipt: it is the only way back to it without signing in." : "; a copy is in your emails."}
          </SuccessAlert>
          <dl className="tapline-facts">
            <dt>Receipt number</dt>
            <dd>{p.receiptNumber}</dd>
            <dt>Date</dt>
            <dd>
              <DateTime iso={p.paidAt} timeZone={p.district.timeZone} />
            </dd>
            <dt>For</dt>
            <dd>{p.payableTitle}</dd>
            {p.lines.map((l) => (
              <div key={l.code} style={{ display: "contents" }}>
                <dt>
                  {l.label} ({l.section})
                </dt>
                <dd>{money(l.amountCents)}</dd>
              </div>
            ))}
            <dt>Total paid</dt>
            <dd>{money(p.amountCents)}</dd>
            <dt>How</dt>
            <dd>{p.methodDescription}</dd>
          </dl>
          <ul className="usa-list usa-list--unstyled">
            <li>
              <Link className="usa-link" to={withAccess(`/payments/${p.id}/receipt`)}>
                View and print the receipt
              </Link>
            </li>
            <li>
              <Link className="usa-link" to={p.href}>
                {access ? "Pay another bill" : `Back to ${p.payableTitle}`}
              </Link>
            </li>
          </ul>
        </>
      ) : p.status === "PENDING" ? (
        <>
          <h1>Payment not confirmed yet</h1>
          <p className="usa-intro">We are waiting for confirmation from the card processor.</p>
          <p>This usually takes a few seconds. Do not pay again: once the card processor confirms, this page shows your receipt.</p>
          <p>
            {/* A plain link: reloading asks the API again. */}
            <a className="usa-link" href={withAccess(`/payments/${p.id}/done`)}>
              Refresh this page
            </a>
          </p>
          {!access && (
            <p>
              <Link className="usa-link" to={`/payments/${p.id}`}>
                Back to the payment
              </Link>
            </p>
          )}
        </>
      ) : (
        <>
          <h1>Payment cancelled</h1>
          <p>This payment was cancelled; nothing is due.</p>
        </>
      )}
    </div>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

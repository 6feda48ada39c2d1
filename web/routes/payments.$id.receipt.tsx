import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { PrintHint } from "~/components/print-hint";
import { money } from "~/components/money";
import { formatDayOf } from "~/components/format";
import receiptCss from "~/styles/receipt.css?url";
import { accessOf, quickPaymentFor } from "~/components/quick-pay.server";

type Payment = {
  id: string;
  status: string;
  amountCents: number;
  refundedCents: number;
  paidAt: string | null;
  receiptNumber: string | null;
  methodDescription: string | null;
  provider: string | null;
  payableTitle: string;
  payerName: string;
  lines: { code: string; label: string; section: string; amountCents: number; refundable: boolean }[];
  refunds: { id: string; amountCents: number; reason: string; method: string; receiptNumber: string; createdAt: string; lineCodes: string[] }[];
  district: { name: string; address: string; timeZone: string };
};

// A stylesheet rather than a <style> element: the Content-Security-Policy allows only this site's stylesheets.
export const links: LinksFunction = () => [{ rel: "stylesheet", href: receiptCss }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `Receipt ${(data as { payment?: Payment } | undefined)?.payment?.receiptNumber ?? ""} | Tapline` },
];

/** A calendar date in the district's time zone: "April 3, 2026". */
const dateIn = (iso: string, timeZone: string) => formatDayOf(iso, timeZone);

export async function loader(args: LoaderFunctionArgs) {
  // Quick pay (no sign-in): the payment's access token, from its done page, opens this receipt only.
  const access = accessOf(args.request);
  if (access) {
    const q = await quickPaymentFor(args.context, args.request, args.params.id, access);
    const payment: Payment = {
      ...q,
      payableTitle: `Sewer account ${q.accountNumber}`,
      payerName: "Quick pay (paid without signing in)",
      lines: q.lines.map((l) => ({ ...l, refundable: false })),
      refunds: q.refunds.map((r) => ({ ...r, lineCodes: [] })),
      district: { name: q.districtName, address: q.districtAddress, timeZone: q.timeZone },
    };
    return { payment, access };
  }
  const data = await requireSignedIn<{ payment: Payment }>(
    args,
    `query PaymentReceipt($id: ID!) { payment(id: $id) { id status amountCents refundedCents paidAt receiptNumber methodDescription provider payableTitle payerName
      lines { code label section amountCents refundable }
      refunds { id amountCents reason method receiptNumber createdAt lineCodes }
      district { name address timeZone } } }`,
    { id: args.params.id },
  );
  return { payment: data.payment, access: null };
}

export default function Receipt() {
  const { payment: p, access } = useLoaderData<typeof loader>() as { payment: Payment; access: string | null };
  const back = access ? `/payments/${p.id}/done?access=${encodeURIComponent(access)}` : `/payments/${p.id}`;
  const received = p.status === "PAID" || p.status === "PARTIALLY_REFUNDED" || p.status === "REFUNDED";
  if (!received || !p.paidAt) {
    return (
      <>
        <h1>No receipt yet</h1>
        <p>This payment has not been paid, so there is no receipt.</p>
        <p>
          <Link className="usa-link" to={back}>
            Back to the payment
          </Link>
        </p>
      </>
    );
  }
  const tz = p.district.timeZone;
  return (
    <>
      <PrintHint backTo={back} backLabel="Back to the payment" />
      <article className="tapline-receipt" aria-labelledby="receipt-title">
        <header className="tapline-receipt__head">
          <div>
            <h1 id="receipt-title">Receipt</h1>
            <p className="margin-y-05">
              <strong>{p.district.name}</strong>
            </p>
            <address className="tapline-address">{p.district.address}</address>
          </div>
          <dl className="tapline-facts margin-0">
            <dt>Receipt number</dt>
            <dd>{p.receiptNumber}</dd>
            <dt>Date</dt>
            <dd>
              <time dateTime={p.paidAt}>{dateIn(p.paidAt, tz)}</time>
            </dd>
          </dl>
        </header>
        <dl className="tapline-facts">
          <dt>Received from</dt>
          <dd>{p.payerName}</dd>
          <dt>For</dt>
          <dd>{p.payableTitle}</dd>
          <dt>Paid</dt>
          <dd>{p.methodDescription}</dd>
        </dl>
        <table>
          <caption className="usa-sr-only">Items paid, with the section of the law each amount comes from</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Law</th>
              <th scope="col" className="tapline-num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {p.lines.map((l) => (
              <tr key={l.code}>
                <th scope="row">
                  {l.label}
                  {l.refundable ? " (refundable deposit)" : ""}
                </th>
                <td>{l.section}</td>
                <td className="tapline-num">{money(l.amountCents)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Total paid
              </th>
              <td className="tapline-num">{money(p.amountCents)}</td>
            </tr>
          </tfoot>
        </table>
        {p.refunds.length > 0 && (
          <section aria-labelledby="refunds-title">
            <h2 id="refunds-title" className="font-heading-md">
              Returned
            </h2>
            <ul className="usa-list">
              {p.refunds.map((r) => (
                <li key={r.id}>
                  {money(r.amountCents)} on {dateIn(r.createdAt, tz)}, {r.method === "card" ? "to the card paid with" : `by ${r.method}`}, refund receipt{" "}
                  {r.receiptNumber}. {r.reason}
                </li>
              ))}
            </ul>
            <p>
              <strong>Net amount kept: {money(p.amountCents - p.refundedCents)}</strong>
            </p>
          </section>
        )}
        {p.provider === "test" && (
          <p>
            <strong>Test checkout: no real money moved for this receipt.</strong>
          </p>
        )}
      </article>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

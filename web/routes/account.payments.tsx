import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { DateTime } from "~/components/format";
import { money } from "~/components/money";
import { paymentStatusLabel } from "~/components/payment-status";

export const meta: MetaFunction = () => [{ title: "My payments | Tapline" }];

type Payment = {
  id: string;
  status: string;
  amountCents: number;
  refundedCents: number;
  receiptNumber: string | null;
  paidAt: string | null;
  createdAt: string;
  payableTitle: string;
  district: { name: string; timeZone: string };
  cancelReason: string | null;
  refundDue: boolean;
};

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ myPayments: Payment[] }>(
    args,
    `query MyPayments { myPayments(first: 100) { id status amountCents refundedCents receiptNumber paidAt createdAt payableTitle district { name timeZone } cancelReason refundDue } }`,
  );
}

export default function MyPayments() {
  const { myPayments } = useLoaderData<typeof loader>() as { myPayments: Payment[] };
  return (
    <>
      <h1>My payments</h1>
      <p>Fees and deposits you owe or paid to a district, newest first, with their receipts.</p>
      {myPayments.length === 0 ? (
        <p>No payments yet. When an application needs a fee, it appears here.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption className="usa-sr-only">My payments, newest first</caption>
          <thead>
            <tr>
              <th scope="col">For</th>
              <th scope="col">District</th>
              <th scope="col" className="tapline-num">
                Amount
              </th>
              <th scope="col">Status</th>
              <th scope="col">Receipt</th>
            </tr>
          </thead>
          <tbody>
            {myPayments.map((p) => (
              <tr key={p.id}>
                <th scope="row" data-label="For">
                  <Link className="usa-link" to={`/payments/${p.id}`}>
                    {p.payableTitle}
                  </Link>
                  <span className="display-block text-base-dark">
                    Since <DateTime iso={p.createdAt} timeZone={p.district.timeZone} />
                  </span>
                </th>
                <td data-label="District">{p.district.name}</td>
                <td data-label="Amount" className="tapline-num">
                  {money(p.amountCents)}
                  {p.refundedCents > 0 && <span className="display-block">{money(p.refundedCents)} returned</span>}
                </td>
                <td data-label="Status">
                  {paymentStatusLabel(p)}
                  {p.status === "CANCELLED" && p.cancelReason && <span className="display-block text-base-dark">{p.cancelReason}</span>}
                </td>
                <td data-label="Receipt">
                  {p.receiptNumber ? (
                    <Link className="usa-link" to={`/payments/${p.id}/receipt`}>
                      {p.receiptNumber}
                      <span className="usa-sr-only"> (receipt for {p.payableTitle})</span>
                    </Link>
                  ) : p.status === "PENDING" ? (
                    <Link className="usa-link" to={`/payments/${p.id}`}>
                      Pay<span className="usa-sr-only"> for {p.payableTitle}</span>
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { CalendarDate, DateTime } from "~/components/format";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Payout | Card payments | Staff | Tapline" }];

type Line = {
  id: string;
  type: string;
  description: string | null;
  createdAt: string;
  amountCents: number;
  feeCents: number;
  netCents: number;
  sourceId: string | null;
  paymentIntentId: string | null;
  refundReceiptNumber: string | null;
  payment: { id: string; receiptNumber: string | null; payerName: string; payableTitle: string; href: string; paidAt: string | null; amountCents: number } | null;
};
type Report = {
  accountId: string | null;
  notice: string | null;
  payout: { id: string; amountCents: number; arrivalDate: string; createdAt: string; status: string; automatic: boolean; method: string | null; failureMessage: string | null } | null;
  lines: Line[];
  totals: { amountCents: number; feeCents: number; netCents: number };
  unknownCount: number;
  complete: boolean;
};
type Data = { district: { id: string; name: string; timeZone: string }; report: Report };

const STATUS_LABELS: Record<string, string> = { paid: "Paid to the bank", pending: "Pending", in_transit: "On its way to the bank", canceled: "Cancelled", failed: "Failed" };
const TYPE_LABELS: Record<string, string> = { charge: "Card payment", payment: "Payment", refund: "Refund", payment_refund: "Refund", adjustment: "Adjustment (a dispute, say)", stripe_fee: "Stripe fee" };
const signed = (c: number) => (c < 0 ? `−${money(-c)}` : money(c));

/** One payout of the district's Stripe account and what it settled, matched to the portal's payments (Clerk or ADMIN). */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["CLERK", "ADMIN"]);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const { districtStripePayout } = await requireSignedIn<{ districtStripePayout: Report }>(
    args,
    `query Payout($d: ID!, $p: String!) { districtStripePayout(districtId: $d, payoutId: $p) { accountId notice unknownCount complete
      payout { id amountCents arrivalDate createdAt status automatic method failureMessage }
      totals { amountCents feeCents netCents }
      lines { id type description createdAt amountCents feeCents netCents sourceId paymentIntentId refundReceiptNumber
        payment { id receiptNumber payerName payableTitle href paidAt amountCents } } } }`,
    { d: district.id, p: args.params.id ?? "" },
  );
  return { district: { id: district.id, name: district.name, timeZone: district.timeZone }, report: districtStripePayout } satisfies Data;
}

export default function PayoutPage() {
  const { district, report: r } = useLoaderData<typeof loader>() as Data;
  const p = r.payout;
  const back = (
    <p>
      <Link className="usa-link" to={`/staff/stripe/payouts?districtId=${district.id}`}>
        All payouts
      </Link>
    </p>
  );
  if (!p)
    return (
      <>
        <h1>Payout: {district.name}</h1>
        <Notice type="warning">{r.notice}</Notice>
        {back}
      </>
    );
  return (
    <>
      <h1>
        Payout of {signed(p.amountCents)} arriving <CalendarDate date={p.arrivalDate} />
      </h1>
      <dl className="tapline-facts">
        <dt>District</dt>
        <dd>{district.name}</dd>
        <dt>Stripe payout</dt>
        <dd>
          <code>{p.id}</code> on the account <code>{r.accountId}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          {STATUS_LABELS[p.status] ?? p.status}
          {p.failureMessage ? `: ${p.failureMessage}` : ""}
        </dd>
        <dt>Made</dt>
        <dd>
          <DateTime iso={p.createdAt} timeZone={district.timeZone} />
        </dd>
      </dl>
      {!p.automatic ? (
        <Notice type="info">This payout was made by hand in Stripe's Dashboard: Stripe lists the payments of scheduled (automatic) payouts only.</Notice>
      ) : (
        <>
          {r.unknownCount > 0 && (
            <Notice type="warning">
              {r.unknownCount === 1 ? "One line is" : `${r.unknownCount} lines are`} money the portal does not know (taken in Stripe's Dashboard, an adjustment, or
              another system's payment): it has no receipt here.
            </Notice>
          )}
          {!r.complete && <Notice type="warning">This payout has more lines than the page lists; the totals are of the lines shown.</Notice>}
          <p>
            <a className="usa-link" href={`/staff/stripe/payouts/${p.id}/lines.csv?districtId=${district.id}`}>
              Download the lines (CSV)
            </a>
          </p>
          <table className="usa-table usa-table--stacked usa-table--borderless width-full">
            <caption>What the payout settled</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">What</th>
                <th scope="col">Portal receipt</th>
                <th scope="col">Amount</th>
                <th scope="col">Stripe fee</th>
                <th scope="col">Net</th>
              </tr>
            </thead>
            <tbody>
              {r.lines.length === 0 && (
                <tr>
                  <td colSpan={6}>Stripe lists no payments in this payout.</td>
                </tr>
              )}
              {r.lines.map((l) => (
                <tr key={l.id}>
                  <th scope="row" data-label="Date">
                    <DateTime iso={l.createdAt} timeZone={district.timeZone} />
                  </th>
                  <td data-label="What">
                    {TYPE_LABELS[l.type] ?? l.type}
                    {l.payment ? (
                      <>
                        {": "}
                        <Link className="usa-link" to={`/payments/${l.payment.id}`}>
                          {l.payment.payableTitle}
                        </Link>
                        , {l.payment.payerName}
                      </>
                    ) : (
                      <>
                        {": "}
                        <strong>not a portal payment</strong>
                        {l.description ? ` (${l.description})` : ""}
                      </>
                    )}
                    <br />
                    <code>{l.sourceId ?? l.id}</code>
                  </td>
                  <td data-label="Portal receipt">
                    {l.payment?.receiptNumber ?? "None"}
                    {l.refundReceiptNumber ? `; refund ${l.refundReceiptNumber}` : ""}
                  </td>
                  <td data-label="Amount">{signed(l.amountCents)}</td>
                  <td data-label="Stripe fee">{signed(l.feeCents)}</td>
                  <td data-label="Net">{signed(l.netCents)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={3}>
                  Totals ({r.lines.length} {r.lines.length === 1 ? "line" : "lines"})
                </th>
                <td>{signed(r.totals.amountCents)}</td>
                <td>{signed(r.totals.feeCents)}</td>
                <td>{signed(r.totals.netCents)}</td>
              </tr>
            </tfoot>
          </table>
          {r.complete && r.totals.netCents !== p.amountCents && (
            <Notice type="warning">
              The lines' net ({signed(r.totals.netCents)}) is not the payout's amount ({signed(p.amountCents)}): ask Stripe's Dashboard about the difference.
            </Notice>
          )}
        </>
      )}
      {back}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

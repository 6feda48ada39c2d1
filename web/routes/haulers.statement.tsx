import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { formatMonth, statusLabel } from "~/components/format";
import { LOAD_STATUS_LABELS, atDistrict, gallons, signed } from "~/components/hauler";
import { money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "Monthly statement | Tapline" }];

type Line = {
  plate: string;
  feePaidCents: number;
  adjustmentCents: number;
  sampleCents: number;
  refunded: boolean;
  load: { id: string; status: string; plannedArrival: string; sourceAddress: string; estimatedGallons: number; measuredGallons: number | null };
};
type Statement = {
  month: string;
  districtName: string;
  timeZone: string;
  lines: Line[];
  feesPaidCents: number;
  refundedCents: number;
  adjustmentsCents: number;
  samplesCents: number;
  balanceCents: number;
  feeSection: string;
  sampleSection: string;
};

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const d = await requireSignedIn<{ haulerStatement: Statement }>(
    args,
    `query Statement($o: ID!, $d: ID!, $m: String) { haulerStatement(organizationId: $o, districtId: $d, month: $m) {
      month districtName timeZone feesPaidCents refundedCents adjustmentsCents samplesCents balanceCents feeSection sampleSection
      lines { plate feePaidCents adjustmentCents sampleCents refunded load { id status plannedArrival sourceAddress estimatedGallons measuredGallons } } } }`,
    { o: url.searchParams.get("organizationId") ?? "", d: url.searchParams.get("districtId") ?? "", m: url.searchParams.get("month") || null },
  );
  return { ...d, organizationId: url.searchParams.get("organizationId") ?? "" };
}

/** The month's loads, fees paid, and the difference between measured and estimated gallons billed or credited (SUL 1208). */
export default function MonthlyStatement() {
  const { haulerStatement: s, organizationId } = useLoaderData<typeof loader>() as { haulerStatement: Statement; organizationId: string };
  const monthName = formatMonth(s.month);
  return (
    <>
      <h1>Statement for {monthName}</h1>
      <p className="usa-intro">{s.districtName}</p>
      <table className="usa-table usa-table--borderless usa-table--stacked">
        <caption>Loads planned in {monthName}</caption>
        <thead>
          <tr>
            <th scope="col">Arrival</th>
            <th scope="col">Truck</th>
            <th scope="col">Estimated</th>
            <th scope="col">Measured</th>
            <th scope="col">Fee paid</th>
            <th scope="col">Measured vs. estimated</th>
            <th scope="col">Sample</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {s.lines.map((l) => (
            <tr key={l.load.id}>
              <th scope="row" data-label="Arrival">
                <Link className="usa-link" to={`/haulers/loads/${l.load.id}`}>
                  {atDistrict(l.load.plannedArrival, s.timeZone)}
                </Link>
              </th>
              <td data-label="Truck">{l.plate}</td>
              <td data-label="Estimated">{gallons(l.load.estimatedGallons)}</td>
              <td data-label="Measured">{gallons(l.load.measuredGallons)}</td>
              <td data-label="Fee paid">
                {money(l.feePaidCents)}
                {l.refunded ? " (refunded)" : ""}
              </td>
              <td data-label="Measured vs. estimated">{signed(l.adjustmentCents)}</td>
              <td data-label="Sample">{l.sampleCents ? money(l.sampleCents) : ""}</td>
              <td data-label="Status">{statusLabel(l.load.status, LOAD_STATUS_LABELS)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {s.lines.length === 0 && <p>No loads this month.</p>}
      <h2>Summary</h2>
      <dl className="tapline-facts">
        <dt>Dumping fees paid</dt>
        <dd>{money(s.feesPaidCents)}</dd>
        {s.refundedCents > 0 && (
          <>
            <dt>Refunded (refused loads)</dt>
            <dd>{money(s.refundedCents)}</dd>
          </>
        )}
        <dt>Measured vs. estimated gallons</dt>
        <dd>
          {signed(s.adjustmentsCents)} ({s.feeSection})
        </dd>
        <dt>Samples</dt>
        <dd>
          {money(s.samplesCents)} ({s.sampleSection})
        </dd>
        <dt>Balance</dt>
        <dd>
          <strong>{s.balanceCents < 0 ? `Credit of ${money(-s.balanceCents)}` : s.balanceCents > 0 ? `${money(s.balanceCents)} due` : "Nothing due"}</strong>
        </dd>
      </dl>
      <p>
        <Link className="usa-link" to={`/haulers?organizationId=${organizationId}`}>
          Back to septage hauling
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

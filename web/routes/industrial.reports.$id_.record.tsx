import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { PrintHint } from "~/components/print-hint";
import { formatCalendarDate, formatDateTime, statusLabel } from "~/components/format";
import { gql, statusOf } from "~/graphql.server";
import receiptCss from "~/styles/receipt.css?url";

/**
 * The copy of record of a signed report, to print or save as PDF (CROMERR): exactly what was signed
 * (the stored canonical document), with the signer, the time of receipt on the district's clock and
 * the SHA-256 anyone can check on the report's page. Whoever may read the report may print it.
 */

type Doc = {
  document: string;
  district: string;
  permit: { number: string; facility: string; address: string; organization: string };
  report: { periodStart: string; periodEnd: string; dueOn: string; amends: string | null };
  results: {
    id: string;
    parameter: string;
    sampleType: string;
    sampledAt: string;
    value: number | null;
    unit: string;
    belowDetection: boolean;
    detectionLimit: number | null;
    lab: string | null;
    method: string | null;
    evaluation: { status: string; limitValue: number | null; limitUnit: string | null; section: string | null };
  }[];
  dailyFlows?: { day: string; flowGpd: number; aboveAverage: boolean }[];
  certification: string;
  signature: { signerName: string; signerEmail: string; receivedAt: string };
};
type Data = { id: string; timeZone: string; sha256: string; doc: Doc };

// A stylesheet rather than a <style> element: the Content-Security-Policy allows only this site's stylesheets.
export const links: LinksFunction = () => [{ rel: "stylesheet", href: receiptCss }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `Copy of record: ${(data as Data | undefined)?.doc.document ?? "report"} | Tapline` },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const r = await gql<{ industrialReport: { id: string; permit: { timeZone: string }; copyOfRecord: { document: string; sha256: string } | null } }>(
    context,
    request,
    `query CopyOfRecord($id: ID!) { industrialReport(id: $id) { id permit { timeZone } copyOfRecord { document sha256 } } }`,
    { id: params.id },
  );
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  const report = r.data.industrialReport;
  if (!report.copyOfRecord) throw new Response("This report is not signed yet: it has no copy of record.", { status: 404 });
  return { id: report.id, timeZone: report.permit.timeZone, sha256: report.copyOfRecord.sha256, doc: JSON.parse(report.copyOfRecord.document) as Doc } satisfies Data;
}

const STATUS_WORDS: Record<string, string> = { OK: "Within the limit", EXCEEDS: "Exceeds the limit", NO_LIMIT: "No limit set", NEEDS_FLOW: "Needs the flow" };
const figure = (x: number | null) => (x === null ? "" : x.toLocaleString("en-US", { maximumFractionDigits: 6 }));

export default function CopyOfRecord() {
  const { id, timeZone, sha256, doc } = useLoaderData<typeof loader>() as Data;
  return (
    <>
      <PrintHint backTo={`/industrial/reports/${id}`} backLabel="Back to the report" />
      <article className="tapline-receipt" aria-labelledby="record-heading">
        <div className="tapline-receipt__head">
          <h1 id="record-heading">{doc.document}</h1>
          <p>
            {doc.district}
            <br />
            Copy of record
          </p>
        </div>
        <dl className="tapline-facts">
          <dt>Permit</dt>
          <dd>
            {doc.permit.number}, {doc.permit.facility} ({doc.permit.organization})
          </dd>
          <dt>Address</dt>
          <dd>{doc.permit.address}</dd>
          <dt>Period</dt>
          <dd>
            {formatCalendarDate(doc.report.periodStart)} to {formatCalendarDate(doc.report.periodEnd)}, due {formatCalendarDate(doc.report.dueOn)}
          </dd>
          {doc.report.amends && (
            <>
              <dt>Amends</dt>
              <dd>report {doc.report.amends}</dd>
            </>
          )}
        </dl>
        <table>
          <caption>Results as signed</caption>
          <thead>
            <tr>
              <th scope="col">Parameter</th>
              <th scope="col">Sample</th>
              <th scope="col">Sampled</th>
              <th scope="col" className="tapline-num">
                Result
              </th>
              <th scope="col">Limit</th>
              <th scope="col">Judged</th>
            </tr>
          </thead>
          <tbody>
            {doc.results.map((x) => (
              <tr key={x.id}>
                <th scope="row">{x.parameter}</th>
                <td>{x.sampleType.toLowerCase()}</td>
                <td>{formatDateTime(x.sampledAt, timeZone)}</td>
                <td className="tapline-num">{x.belowDetection ? `below ${figure(x.detectionLimit)} ${x.unit}` : `${figure(x.value)} ${x.unit}`}</td>
                <td>
                  {x.evaluation.limitValue === null ? "" : `${figure(x.evaluation.limitValue)} ${x.evaluation.limitUnit ?? ""}`}
                  {x.evaluation.section ? ` (${x.evaluation.section})` : ""}
                </td>
                <td>{statusLabel(x.evaluation.status, STATUS_WORDS)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {doc.dailyFlows && doc.dailyFlows.length > 0 && (
          <p>
            Daily flows above the average: {doc.dailyFlows.filter((f) => f.aboveAverage).map((f) => `${formatCalendarDate(f.day)} (${figure(f.flowGpd)} gpd)`).join("; ") || "none"}.
          </p>
        )}
        <h2>Certification</h2>
        <p className="tapline-plain-text">{doc.certification}</p>
        <dl className="tapline-facts">
          <dt>Signed by</dt>
          <dd>
            {doc.signature.signerName} ({doc.signature.signerEmail})
          </dd>
          <dt>Received</dt>
          <dd>{formatDateTime(doc.signature.receivedAt, timeZone)}</dd>
          <dt>SHA-256 of this copy</dt>
          <dd>
            <code>{sha256}</code>
          </dd>
        </dl>
      </article>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

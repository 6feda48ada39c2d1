import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { TextField } from "~/components/forms";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Check an inflow compliance certificate | Tapline" }];

/** The form's visible labels by the keys it reports. */
export const LABELS: Record<string, string> = { number: "Certificate number" };

type Check = { number: string; districtName: string; address: string; taxParcel: string; issuedOn: string; inspectedOn: string; result: string; section: string; laterFindingOn: string | null };

/** Anyone checks a certificate by its number: the property, the day and the result; nothing private. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const number = (new URL(request.url).searchParams.get("number") ?? "").trim();
  if (!number) return { number, check: null, asked: false };
  const r = await gql<{ inflowCertificate: Check | null }>(
    context,
    request,
    `query CheckInflowCertificate($n: String!) { inflowCertificate(number: $n) { number districtName address taxParcel issuedOn inspectedOn result section laterFindingOn } }`,
    { n: number.slice(0, 60) },
  );
  return { number, check: r.ok ? r.data.inflowCertificate : null, asked: true };
}

export default function VerifyInflowCertificate() {
  const { number, check, asked } = useLoaderData<typeof loader>() as { number: string; check: Check | null; asked: boolean };
  return (
    <>
      <h1>Check an inflow compliance certificate</h1>
      <p className="usa-intro">Enter the number printed on the certificate. The page shows the property, the day it was issued and the inspection's result.</p>
      <Form method="get" className="usa-form">
        <TextField name="number" label={LABELS.number} hint="For example LKV-IC-2026-00001." defaultValue={number} error={asked && !check ? "No certificate has that number. Check it against the certificate." : undefined} />
        <button className="usa-button" type="submit">
          Check
        </button>
      </Form>
      {check && (
        <section aria-labelledby="check-heading">
          <h2 id="check-heading">Certificate {check.number}</h2>
          <dl>
            <dt>Issued by</dt>
            <dd>{check.districtName}</dd>
            <dt>Property</dt>
            <dd>
              {check.address} (tax parcel {check.taxParcel})
            </dd>
            <dt>Inspected</dt>
            <dd>
              <CalendarDate date={check.inspectedOn} /> ({check.section})
            </dd>
            <dt>Issued</dt>
            <dd>
              <CalendarDate date={check.issuedOn} />
            </dd>
            <dt>Result</dt>
            <dd>{check.result}</dd>
          </dl>
          {check.laterFindingOn ? (
            <div className="usa-alert usa-alert--warning usa-alert--slim">
              <div className="usa-alert__body">
                <p className="usa-alert__text">
                  A later inspection, on <CalendarDate date={check.laterFindingOn} />, found an inflow source connected to the sanitary sewer.
                </p>
              </div>
            </div>
          ) : (
            <p>No later inspection has found an inflow source connected.</p>
          )}
        </section>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

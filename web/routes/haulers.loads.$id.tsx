import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { DateTime, statusLabel } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { LOAD_FIELDS, LOAD_STATUS_LABELS, atDistrict, gallons, paid, signed, type LoadView } from "~/components/hauler";
import { money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "Load | Tapline" }];

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ haulerLoad: LoadView }>(args, `query Load($id: ID!) { haulerLoad(id: $id) { ${LOAD_FIELDS} } }`, { id: args.params.id });
}

/** The form's visible labels by the keys the API reports. */
export const LABELS: Record<string, string> = { reason: "Why" };

type ActionData = { error: string; fields: Record<string, string>; reason: string };

/** The hauler cancels a load not yet decided; a paid fee is refunded by the Clerk. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const reason = String(form.get("reason") ?? "").trim();
  const r = await gql(context, request, `mutation CancelLoad($id: ID!, $reason: String) { cancelHaulerLoad(id: $id, reason: $reason) { id } }`, { id: params.id, reason: reason || null });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, reason } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/haulers/loads/${params.id}?done=cancelled`, { headers: cookieHeaders(r) });
}

/** One load: its fee and payment, the operator's decision, the sample, and what the station measured. */
export default function Load() {
  const { haulerLoad: x } = useLoaderData<typeof loader>() as { haulerLoad: LoadView };
  const [params] = useSearchParams();
  const a = useActionData<ActionData>();
  return (
    <>
      <h1>
        Load of {atDistrict(x.plannedArrival, x.timeZone)} <span className="usa-tag">{statusLabel(x.status, LOAD_STATUS_LABELS)}</span>
      </h1>
      <p className="usa-intro">
        {x.organizationName}
        {x.licenseNumber ? ` · licence ${x.licenseNumber}` : " · special permission"}
      </p>
      {params.get("done") === "booked" && <SuccessAlert>The load is booked.</SuccessAlert>}
      {params.get("done") === "cancelled" && (
        <SuccessAlert>The load is cancelled.{x.refundDue ? " The dumping fee is refunded by the Town Clerk." : ""}</SuccessAlert>
      )}
      {a && <ErrorSummary message={a.error} fields={a.fields} labels={LABELS} />}
      {x.payment?.status === "PENDING" && (
        <Notice type="warning">
          The dumping fee of {money(x.feeCents)} is not paid. No load is approved before its fee is paid (Sewer Use Law 801).{" "}
          <Link className="usa-link" to={`/payments/${x.payment.id}`}>
            Pay {money(x.feeCents)}
          </Link>
        </Notice>
      )}
      {x.status === "REFUSED" && (
        <Notice type="warning">
          Refused: {x.refusalReason}
          {x.refundDue ? ` The dumping fee is refunded${x.payment && x.payment.refundedCents > 0 ? " (done)" : " by the Town Clerk"}.` : ""}
        </Notice>
      )}
      <dl className="tapline-facts">
        <dt>Truck</dt>
        <dd>{x.vehicle ? `${x.vehicle.plate}: ${x.vehicle.make} ${x.vehicle.model} (${gallons(x.vehicle.tankCapacityGallons)})` : ""}</dd>
        <dt>Source</dt>
        <dd>
          {x.sourceKindLabel}
          {x.sourceDescription ? ` (${x.sourceDescription})` : ""}, {x.sourceAddress}
        </dd>
        <dt>Estimated</dt>
        <dd>{gallons(x.estimatedGallons)}</dd>
        <dt>Dumping fee</dt>
        <dd>
          {x.feeCents ? money(x.feeCents) : "none"}
          {x.ratePer1000Cents !== null ? ` (${money(x.ratePer1000Cents)} per 1,000 gallons${x.minimumCents ? `, minimum ${money(x.minimumCents)}` : ""})` : ""}
          {x.payment && paid(x.payment.status) && (
            <>
              {" "}
              paid, receipt{" "}
              <Link className="usa-link" to={`/payments/${x.payment.id}/receipt`}>
                {x.payment.receiptNumber}
              </Link>
            </>
          )}
        </dd>
        {x.sampleRequired && (
          <>
            <dt>Sample</dt>
            <dd>
              Required by the District Operator; {money(x.sampleCostCents ?? 0)} billed on the monthly statement (Sewer Use Law 804).{x.sampleNotes ? ` ${x.sampleNotes}` : ""}
            </dd>
          </>
        )}
        {x.measuredGallons !== null && (
          <>
            <dt>Measured at the station</dt>
            <dd>
              {gallons(x.measuredGallons)}, <DateTime iso={x.receivedAt} timeZone={x.timeZone} />
            </dd>
            <dt>Difference on the statement</dt>
            <dd>{signed(x.adjustmentCents)}</dd>
          </>
        )}
      </dl>
      {x.status === "BOOKED" && (
        <Form method="post" className="usa-form">
          <AuthenticityTokenInput />
          <h2>Cancel this load</h2>
          <p>Until the District Operator decides it and before its planned arrival.{x.payment && paid(x.payment.status) ? " The dumping fee paid is refunded." : ""}</p>
          <label className="usa-label" htmlFor="reason">
            Why (optional)
          </label>
          <input className="usa-input" id="reason" name="reason" defaultValue={a?.reason ?? ""} maxLength={2000} />
          <button type="submit" className="usa-button usa-button--secondary">
            Cancel the load
          </button>
        </Form>
      )}
      <p>
        <Link className="usa-link" to={`/haulers?organizationId=${x.organizationId}`}>
          Back to septage hauling
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

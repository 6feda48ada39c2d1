import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { statusLabel } from "~/components/format";
import { PERMISSION_STATUS_LABELS, ScheduleInputs, TextArea, VehiclesTable, type Vehicle } from "~/components/hauler";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Special permission | Staff | Tapline" }];

type Perm = { id: string; districtId: string; organizationName: string; status: string; requestedPoint: string; requestedConditions: string | null; vehicles: Vehicle[] };
/** The forms' visible labels by the keys the API reports, in the forms' order. */
export const LABELS: Record<string, string> = {
  point: "Point of discharge",
  conditions: "Conditions",
  validFrom: "First day",
  validUntil: "Last day",
  dumpingDays: "Days dumping is allowed",
  dumpingFrom: "Opening time",
  dumpingTo: "Closing time",
  reason: "Reason",
  decision: "Decision",
};

type ActionData = { error: string; fields: Record<string, string>; intent: string; values: Record<string, string>; days: number[] };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ haulerPermission: Perm }>(
    args,
    `query StaffPermission($id: ID!) { haulerPermission(id: $id) { id districtId organizationName status requestedPoint requestedConditions vehicles { id make model tankCapacityGallons plate plateState colour registeredOwner } } }`,
    { id: args.params.id },
  );
}

/** The Superintendent grants written special permission with its point, conditions, dates, days and hours, or denies it (Huron IV-8). */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values: Record<string, string> = {};
  for (const k of ["point", "conditions", "validFrom", "validUntil", "dumpingFrom", "dumpingTo", "reason", "districtId"]) values[k] = String(form.get(k) ?? "").trim();
  const days = form.getAll("dumpingDays").map(Number);
  const r = await gql(context, request, `mutation DecidePermission($i: DecideHaulerPermissionInput!) { decideHaulerPermission(input: $i) { id } }`, {
    i:
      intent === "grant"
        ? { id: params.id, decision: "GRANT", point: values.point, conditions: values.conditions, validFrom: values.validFrom, validUntil: values.validUntil, dumpingDays: days, dumpingFrom: values.dumpingFrom, dumpingTo: values.dumpingTo }
        : { id: params.id, decision: "DENY", reason: values.reason },
  });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, intent, values, days } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/haulers?districtId=${values.districtId}&done=${intent === "grant" ? "granted" : "denied"}`, { headers: cookieHeaders(r) });
}

export default function StaffPermission() {
  const { haulerPermission: p } = useLoaderData<typeof loader>() as { haulerPermission: Perm };
  const a = useActionData<ActionData>();
  const e = (i: string) => (a?.intent === i ? a.fields : {});
  const v = (k: string) => (a ? a.values[k] : undefined);
  return (
    <>
      <h1>Special permission: {p.organizationName}</h1>
      <p className="usa-intro">
        Asked for: {p.requestedPoint}
        {p.requestedConditions ? `. Proposed conditions: ${p.requestedConditions}` : ""}
      </p>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <VehiclesTable vehicles={p.vehicles} caption="Vehicles" />
      {p.status === "REQUESTED" ? (
        <>
          <h2>Grant</h2>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="grant" />
            <input type="hidden" name="districtId" value={p.districtId} />
            <TextField name="point" label="Point of discharge" defaultValue={v("point") ?? p.requestedPoint} error={e("grant").point} required />
            <TextArea name="conditions" label="Conditions" defaultValue={v("conditions") ?? p.requestedConditions} error={e("grant").conditions} />
            <TextField name="validFrom" type="date" label="First day" defaultValue={v("validFrom")} error={e("grant").validFrom} required />
            <TextField name="validUntil" type="date" label="Last day" defaultValue={v("validUntil")} error={e("grant").validUntil} required />
            <ScheduleInputs errors={e("grant")} days={a?.intent === "grant" ? a.days : [1, 2, 3, 4, 5]} from={v("dumpingFrom") ?? "07:00"} to={v("dumpingTo") ?? "15:00"} />
            <button className="usa-button" type="submit">
              Grant the permission
            </button>
          </Form>
          <h2>Deny</h2>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="deny" />
            <input type="hidden" name="districtId" value={p.districtId} />
            <TextArea name="reason" label="Reason" defaultValue={a?.intent === "deny" ? v("reason") : undefined} error={e("deny").reason} />
            <button className="usa-button usa-button--secondary" type="submit">
              Deny the request
            </button>
          </Form>
        </>
      ) : (
        <p>
          Decided: <span className="usa-tag">{statusLabel(p.status, PERMISSION_STATUS_LABELS)}</span>
        </p>
      )}
      <p>
        <Link className="usa-link" to={`/staff/haulers?districtId=${p.districtId}`}>
          Back to septage haulers
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { HAULER_DISTRICT_FIELDS, HowDistrictsAdmitHaulers, TextArea, VEHICLE_LABELS, VehiclesInput, onFormRows, postedVehicles, vehicleInputs, type HaulerDistrict } from "~/components/hauler";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Ask for special permission | Tapline" }];

/** The form's visible labels by the keys the API reports, in the form's order. */
export const LABELS: Record<string, string> = {
  organizationId: "Hauling company",
  districtId: "District",
  requestedPoint: "Point of discharge you ask for",
  requestedConditions: "Proposed conditions",
  // The list as a whole first: its legend and message come before its rows on the page.
  vehicles: VEHICLE_LABELS.vehicles,
  ...VEHICLE_LABELS,
};

type Data = { organizations: { id: string; name: string }[]; organizationId: string | null; districts: HaulerDistrict[]; licensing: HaulerDistrict[] };
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string>; vehicles: Record<string, string>[] };

/** Huron: septic tank pumpage only by the Superintendent's written special permission, at stated points and conditions (Huron IV-8). */
export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ myOrganizations: { role: string; organization: { id: string; name: string; kind: string } }[]; haulerDistricts: HaulerDistrict[] }>(
    args,
    `query PermissionForm { myOrganizations { role organization { id name kind } } haulerDistricts { ${HAULER_DISTRICT_FIELDS} } }`,
  );
  return {
    organizations: d.myOrganizations.filter((m) => m.organization.kind === "HAULER" && m.role === "OWNER").map((m) => m.organization),
    organizationId: new URL(args.request.url).searchParams.get("organizationId"),
    // Only the districts that accept septage by special permission (Huron IV-8).
    districts: d.haulerDistricts.filter((x) => x.grantsSpecialPermission && !x.licensesHaulers),
    licensing: d.haulerDistricts.filter((x) => x.licensesHaulers),
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const k of ["organizationId", "districtId", "requestedPoint", "requestedConditions"]) values[k] = String(form.get(k) ?? "").trim();
  const rows = postedVehicles(form);
  // Nothing is judged here: the API reports every problem at once, each under its field.
  const { vehicles, rowOf } = vehicleInputs(rows);
  const r = await gql(context, request, `mutation AskPermission($i: RequestHaulerPermissionInput!) { requestHaulerPermission(input: $i) { id } }`, {
    i: { organizationId: values.organizationId, districtId: values.districtId, requestedPoint: values.requestedPoint, requestedConditions: values.requestedConditions || null, vehicles },
  });
  if (!r.ok) return Response.json({ error: r.error.message, fields: onFormRows(r.error.fields, rowOf), values, vehicles: rows } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/haulers?organizationId=${values.organizationId}&done=requested`, { headers: cookieHeaders(r) });
}

export default function AskPermission() {
  const { organizations, organizationId, districts, licensing } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const e = a?.fields ?? {};
  const rows = a?.vehicles.length ? a.vehicles : [{}, {}];
  return (
    <>
      <h1>Ask for special permission</h1>
      <p className="usa-intro">
        Say where you ask to discharge and list your trucks; the Superintendent states the point, conditions, days and hours in the written permission.
      </p>
      <HowDistrictsAdmitHaulers districts={districts} />
      {licensing.length > 0 && (
        <p>
          {licensing.map((d) => d.name).join(" and ")} {licensing.length === 1 ? "licenses" : "license"} haulers instead:{" "}
          <Link className="usa-link" to={`/haulers/apply${organizationId ? `?organizationId=${organizationId}` : ""}`}>
            apply for a licence
          </Link>
          .
        </p>
      )}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" className="usa-form usa-form--large maxw-none" noValidate>
        <AuthenticityTokenInput />
        <SelectField name="organizationId" label={LABELS.organizationId} options={organizations.map((o) => ({ value: o.id, label: o.name }))} defaultValue={a?.values.organizationId ?? organizationId} error={e.organizationId} required />
        <SelectField name="districtId" label={LABELS.districtId} options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={a?.values.districtId} error={e.districtId} required />
        <TextField name="requestedPoint" label={LABELS.requestedPoint} defaultValue={a?.values.requestedPoint} error={e.requestedPoint} required />
        <TextArea name="requestedConditions" label={`${LABELS.requestedConditions} (optional)`} defaultValue={a?.values.requestedConditions} error={e.requestedConditions} />
        {/* The error summary's link for the list as a whole leads here, to the list's legend. */}
        <fieldset className={`usa-fieldset usa-form-group${e.vehicles ? " usa-form-group--error" : ""}`} id="vehicles" aria-describedby={e.vehicles ? "vehicles-error" : undefined}>
          <legend className="usa-legend">{LABELS.vehicles}</legend>
          {e.vehicles && (
            <span className="usa-error-message" id="vehicles-error" role="alert">
              {e.vehicles}
            </span>
          )}
          <VehiclesInput rows={rows} errors={e} />
        </fieldset>
        <button className="usa-button" type="submit">
          Send the request
        </button>
      </Form>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

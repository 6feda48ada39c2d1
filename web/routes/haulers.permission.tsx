import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { TextArea, VehiclesInput, postedVehicles, vehicleInputs } from "~/components/hauler";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Ask for special permission | Tapline" }];

type Data = { organizations: { id: string; name: string }[]; organizationId: string | null; districts: { id: string; name: string }[] };
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string>; vehicles: Record<string, string>[] };

/** Huron: septic tank pumpage only by the Superintendent's written special permission, at stated points and conditions (Huron IV-8). */
export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ myOrganizations: { role: string; organization: { id: string; name: string; kind: string } }[]; haulerDistricts: { id: string; name: string; grantsSpecialPermission: boolean }[] }>(
    args,
    `query PermissionForm { myOrganizations { role organization { id name kind } } haulerDistricts { id name grantsSpecialPermission } }`,
  );
  return {
    organizations: d.myOrganizations.filter((m) => m.organization.kind === "HAULER" && m.role === "OWNER").map((m) => m.organization),
    organizationId: new URL(args.request.url).searchParams.get("organizationId"),
    // Only the districts that accept septage by special permission (Huron IV-8).
    districts: d.haulerDistricts.filter((x) => x.grantsSpecialPermission).map(({ id, name }) => ({ id, name })),
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const k of ["organizationId", "districtId", "requestedPoint", "requestedConditions"]) values[k] = String(form.get(k) ?? "").trim();
  const rows = postedVehicles(form);
  const { vehicles, errors } = vehicleInputs(rows);
  if (Object.keys(errors).length) return Response.json({ error: "Please correct the highlighted fields.", fields: errors, values, vehicles: rows } satisfies ActionData, { status: 400 });
  const r = await gql(context, request, `mutation AskPermission($i: RequestHaulerPermissionInput!) { requestHaulerPermission(input: $i) { id } }`, {
    i: { organizationId: values.organizationId, districtId: values.districtId, requestedPoint: values.requestedPoint, requestedConditions: values.requestedConditions || null, vehicles },
  });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, values, vehicles: rows } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/haulers?organizationId=${values.organizationId}&done=requested`, { headers: cookieHeaders(r) });
}

export default function AskPermission() {
  const { organizations, organizationId, districts } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const e = a?.fields ?? {};
  const rows = a?.vehicles.length ? a.vehicles : [{}, {}];
  return (
    <>
      <h1>Ask for special permission</h1>
      <p className="usa-intro">
        The Town of Huron admits septic tank pumpage only with the Superintendent's written special permission, at a stated point and on stated conditions
        (Huron IV-8). Say where you ask to discharge and list your trucks; the Superintendent states the point, conditions, days and hours.
      </p>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={{ organizationId: "Hauling company", districtId: "District", requestedPoint: "Point of discharge you ask for", requestedConditions: "Proposed conditions (optional)", vehicles: "Vehicles" }} />
      <Form method="post" className="usa-form usa-form--large maxw-none" noValidate>
        <AuthenticityTokenInput />
        <SelectField name="organizationId" label="Hauling company" options={organizations.map((o) => ({ value: o.id, label: o.name }))} defaultValue={a?.values.organizationId ?? organizationId} error={e.organizationId} required />
        <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={a?.values.districtId} error={e.districtId} required />
        <TextField name="requestedPoint" label="Point of discharge you ask for" defaultValue={a?.values.requestedPoint} error={e.requestedPoint} required />
        <TextArea name="requestedConditions" label="Proposed conditions (optional)" defaultValue={a?.values.requestedConditions} error={e.requestedConditions} />
        {e.vehicles && (
          <span className="usa-error-message" id="vehicles" role="alert">
            {e.vehicles}
          </span>
        )}
        <VehiclesInput rows={rows} errors={e} />
        <button className="usa-button" type="submit">
          Send the request
        </button>
      </Form>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary } from "~/components/forms";
import { HAULER_DISTRICT_FIELDS, HowDistrictsAdmitHaulers, VEHICLE_LABELS, type HaulerDistrict } from "~/components/hauler";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Apply for a hauler licence | Tapline" }];

/** The form's visible labels by the keys the API reports, in the form's order (the rest of the application is on the next page). */
export const LABELS: Record<string, string> = {
  organizationId: "Hauling company (the owner of the trucks)",
  districtId: "Sewer district of the receiving station",
  id: "Application",
  part364PermitNumber: "Part 364 permit number",
  part364ExpiresOn: "Part 364 permit expiry date",
  part364DocumentId: "Part 364 permit (upload)",
  annualVolumeGallons: "Approximate annual septage volume (gallons)",
  serviceArea: "Service area",
  otherInformation: "Anything else the District Operator asked for",
  ...VEHICLE_LABELS,
};

type Data = { organizations: { id: string; name: string }[]; organizationId: string | null; districts: HaulerDistrict[]; otherDistricts: HaulerDistrict[] };

/** Step one of the licence application: which company, at which district's station (SUL 801); only districts that license haulers are offered. */
export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ myOrganizations: { role: string; organization: { id: string; name: string; kind: string } }[]; haulerDistricts: HaulerDistrict[] }>(
    args,
    `query ApplyHauler { myOrganizations { role organization { id name kind } } haulerDistricts { ${HAULER_DISTRICT_FIELDS} } }`,
  );
  const organizations = d.myOrganizations.filter((m) => m.organization.kind === "HAULER" && m.role === "OWNER").map((m) => m.organization);
  return {
    organizations,
    organizationId: new URL(args.request.url).searchParams.get("organizationId"),
    districts: d.haulerDistricts.filter((x) => x.licensesHaulers),
    // Never offered, never the default: a district whose law licenses no haulers (Huron IV-8) is said plainly instead.
    otherDistricts: d.haulerDistricts.filter((x) => !x.licensesHaulers),
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const r = await gql<{ saveHaulerLicenseDraft: { id: string } }>(context, request, `mutation StartLicence($i: HaulerLicenseDraftInput!) { saveHaulerLicenseDraft(input: $i) { id } }`, {
    i: { organizationId: String(form.get("organizationId") ?? ""), districtId: String(form.get("districtId") ?? "") },
  });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields }, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/haulers/licenses/${r.data.saveHaulerLicenseDraft.id}/edit`, { headers: cookieHeaders(r) });
}

export default function ApplyHauler() {
  const { organizations, organizationId, districts, otherDistricts } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string; fields: Record<string, string> }>();
  return (
    <>
      <h1>Apply for a septage hauler licence</h1>
      <p className="usa-intro">
        The Town Board licenses the owner of the trucks to discharge septage at the district's receiving station. You list each truck, your NYSDEC Part
        364 waste transporter permit, the approximate septage you haul in a year and your service area, and pay the application fee before the Board
        reviews it (Sewer Use Law 801-802).
      </p>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      {organizations.length === 0 ? (
        <p>
          Only the owner of a hauling company applies.{" "}
          <Link className="usa-link" to={`/account/organizations?returnTo=${encodeURIComponent("/haulers/apply")}`}>
            Set up your hauling company
          </Link>
          , or ask its owner to apply.
        </p>
      ) : districts.length === 0 ? (
        <p>No district in this portal licenses haulers.</p>
      ) : (
        <Form method="post" className="usa-form usa-form--large">
          <AuthenticityTokenInput />
          <SelectField name="organizationId" label={LABELS.organizationId} options={organizations.map((o) => ({ value: o.id, label: o.name }))} defaultValue={organizationId} error={a?.fields?.organizationId} required />
          <SelectField
            name="districtId"
            label={LABELS.districtId}
            hint="Only the districts whose Town Board licenses haulers are listed."
            options={districts.map((d) => ({ value: d.id, label: d.name }))}
            error={a?.fields?.districtId}
            required
          />
          <button className="usa-button" type="submit">
            Start the application
          </button>
        </Form>
      )}
      <HowDistrictsAdmitHaulers districts={otherDistricts} permissionHref={`/haulers/permission${organizationId ? `?organizationId=${organizationId}` : ""}`} />
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

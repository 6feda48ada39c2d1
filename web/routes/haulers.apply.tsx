import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Apply for a hauler licence | Tapline" }];

type HaulerDistrict = { id: string; name: string; licensesHaulers: boolean; grantsSpecialPermission: boolean; section: string; note: string | null };
type Data = { organizations: { id: string; name: string }[]; organizationId: string | null; districts: HaulerDistrict[]; permissionDistricts: HaulerDistrict[] };

/** Step one of the licence application: which company, at which district's station (SUL 801); only districts that license haulers are offered. */
export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ myOrganizations: { role: string; organization: { id: string; name: string; kind: string } }[]; haulerDistricts: HaulerDistrict[] }>(
    args,
    `query ApplyHauler { myOrganizations { role organization { id name kind } } haulerDistricts { id name licensesHaulers grantsSpecialPermission section note } }`,
  );
  const organizations = d.myOrganizations.filter((m) => m.organization.kind === "HAULER" && m.role === "OWNER").map((m) => m.organization);
  return {
    organizations,
    organizationId: new URL(args.request.url).searchParams.get("organizationId"),
    districts: d.haulerDistricts.filter((x) => x.licensesHaulers),
    permissionDistricts: d.haulerDistricts.filter((x) => x.grantsSpecialPermission && !x.licensesHaulers),
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
  const { organizations, organizationId, districts, permissionDistricts } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string; fields: Record<string, string> }>();
  return (
    <>
      <h1>Apply for a septage hauler licence</h1>
      <p className="usa-intro">
        The Town Board licenses the owner of the trucks to discharge septage at the district's receiving station. You list each truck, your NYSDEC Part
        364 waste transporter permit, the approximate septage you haul in a year and your service area, and pay the application fee before the Board
        reviews it (Sewer Use Law 801-802).
      </p>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={{ organizationId: "Hauling company (the owner of the trucks)", districtId: "Sewer district of the receiving station" }} />
      {organizations.length === 0 ? (
        <p>Only the owner of a hauling company applies. Add your company under Account, Organizations.</p>
      ) : (
        <Form method="post" className="usa-form usa-form--large">
          <AuthenticityTokenInput />
          <SelectField name="organizationId" label="Hauling company (the owner of the trucks)" options={organizations.map((o) => ({ value: o.id, label: o.name }))} defaultValue={organizationId} error={a?.fields?.organizationId} required />
          <SelectField
            name="districtId"
            label="Sewer district of the receiving station"
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
      {permissionDistricts.map((d) => (
        <p key={d.id}>
          {d.name} does not license haulers ({d.section}): {d.note}{" "}
          <Link className="usa-link" to={`/haulers/permission${organizationId ? `?organizationId=${organizationId}` : ""}`}>
            Ask for special permission in {d.name}
          </Link>
          .
        </p>
      ))}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { safeRedirect } from "~/util";
import { RadioGroup } from "~/components/fields";
import { MEMBERSHIP_ROLE_LABELS, ORGANIZATION_KIND_LABELS } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Organizations | Tapline" }];

type Mine = { role: string; organization: { id: string; name: string; kind: string } };
type ActionData = { error: string; fields: Record<string, string>; values: { name: string; kind: string } };

/** Each field's visible label, in the form's order (a record the page acts on by its name): the error summary names fields by them. */
export const LABELS: Record<string, string> = { name: "Legal name", kind: "Kind of organization" };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ myOrganizations: Mine[] }>(args, `query MyOrganizations { myOrganizations { role organization { id name kind } } }`);
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { name: String(form.get("name") ?? ""), kind: String(form.get("kind") ?? "") };
  // Where the person came from (an application that needs the organization), to go back there after.
  const returnTo = String(form.get("returnTo") ?? "");
  const back = returnTo ? `&returnTo=${encodeURIComponent(safeRedirect(returnTo, "/dashboard"))}` : "";
  const r = await gql<{ createOrganization: { id: string } }>(
    context,
    request,
    `mutation CreateOrganization($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`,
    { input: values }
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect("/sign-in?redirectTo=%2Faccount%2Forganizations", { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/account/organizations/${r.data.createOrganization.id}?done=created${back}`, { headers: cookieHeaders(r) });
}

const KINDS = [
  { value: "HAULER", label: ORGANIZATION_KIND_LABELS.HAULER, description: "Pumps and hauls septage; needs a hauler licence to dump at the plant." },
  {
    value: "INDUSTRIAL_USER",
    label: ORGANIZATION_KIND_LABELS.INDUSTRIAL_USER,
    description: "Discharges industrial wastewater; holds a discharge permit and files compliance reports.",
  },
  { value: "CONTRACTOR", label: ORGANIZATION_KIND_LABELS.CONTRACTOR, description: "Builds and connects building laterals for owners." },
  { value: "DEVELOPER", label: ORGANIZATION_KIND_LABELS.DEVELOPER, description: "Subdivides land and builds the street sewers, which the Town takes over once tested and accepted." },
];

export default function MyOrganizations() {
  const { myOrganizations } = useLoaderData<typeof loader>() as { myOrganizations: Mine[] };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const returnTo = params.get("returnTo");
  return (
    <>
      <h1>Organizations</h1>
      <p>
        Hauling companies, industrial users and contracting firms deal with the district as an organization. Its owner invites the people who act for
        it.
      </p>
      <h2>Your organizations</h2>
      {myOrganizations.length === 0 ? (
        <p>You do not belong to any organization yet. Create one below, or ask its owner to invite you.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption className="usa-sr-only">Your organizations</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Your role</th>
            </tr>
          </thead>
          <tbody>
            {myOrganizations.map((m) => (
              <tr key={m.organization.id}>
                <th scope="row" data-label="Name">
                  <Link className="usa-link" to={`/account/organizations/${m.organization.id}`}>
                    {m.organization.name}
                  </Link>
                </th>
                <td data-label="Kind">{ORGANIZATION_KIND_LABELS[m.organization.kind] ?? m.organization.kind}</td>
                <td data-label="Your role">{MEMBERSHIP_ROLE_LABELS[m.role] ?? m.role}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2 id="create-heading">Create an organization</h2>
      <p>You become its owner. You can then invite others.</p>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" className="usa-form usa-form--large" noValidate aria-labelledby="create-heading">
        <AuthenticityTokenInput />
        {returnTo && <input type="hidden" name="returnTo" value={returnTo} />}
        <TextField
          name="name"
          label={LABELS.name}
          hint="As on the business registration."
          autoComplete="organization"
          defaultValue={a?.values.name}
          error={a?.fields?.name}
          required
        />
        <RadioGroup name="kind" legend={LABELS.kind} options={KINDS} defaultValue={a?.values.kind} error={a?.fields?.kind} required />
        <button className="usa-button" type="submit">
          Create organization
        </button>
      </Form>
    </>
  );
}

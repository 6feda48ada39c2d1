import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, RadioGroup, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";

export const meta: MetaFunction = () => [{ title: "Report a change of owner, premises or operation | Tapline" }];

/**
 * SUL 1004 F: a permit is never reassigned, transferred or sold. The permittee reports the change
 * and starts, for the organization that will hold it, an application for a new permit, copied
 * from this one; when that permit is issued this one ends.
 */

type Data = {
  industrialPermit: { id: string; permitNumber: string | null; facilityName: string | null; organizationId: string; organizationName: string; status: string };
  myOrganizations: { role: string; organization: { id: string; name: string; kind: string } }[];
};
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

const KINDS = [
  { value: "OWNER", label: "A new owner", description: "The business or the facility is sold or changes hands." },
  { value: "USER", label: "A new user", description: "Another company will discharge from the facility." },
  { value: "PREMISES", label: "Different premises", description: "The operation moves to another location." },
  { value: "OPERATION", label: "A new or changed operation", description: "New processes, products or wastewater at the same place." },
];

/** Each field's visible label, in the form's order: the error summary names fields by them. */
export const LABELS: Record<string, string> = {
  kind: "What changes",
  changeOn: "Date of the change",
  description: "The change: who or what is new",
  organizationId: "Who will hold the new permit",
  permitId: "Permit",
};

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(
    args,
    `query Change($id: ID!) { industrialPermit(id: $id) { id permitNumber facilityName organizationId organizationName status } myOrganizations { role organization { id name kind } } }`,
    { id: args.params.id },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = formValues(form);
  const r = await gql<{ reportIndustrialPermitChange: { id: string } }>(
    context,
    request,
    `mutation Change($i: ReportIndustrialPermitChangeInput!) { reportIndustrialPermitChange(input: $i) { id } }`,
    { i: { permitId: params.id, kind: values.kind ?? "", changeOn: values.changeOn ?? "", description: values.description ?? "", organizationId: values.organizationId || null } },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/industrial/${params.id}/change`)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  const done = "The change is reported and a new permit application is started, copied from the permit. Complete it (its own plans and laboratory report) and submit it.";
  return redirect(`/industrial/${r.data.reportIndustrialPermitChange.id}?done=${encodeURIComponent(done)}`, { headers: cookieHeaders(r) });
}

export default function ChangePage() {
  const { industrialPermit: p, myOrganizations } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const e = a?.fields ?? {};
  const v = a?.values ?? {};
  const orgs = myOrganizations
    .filter((m) => m.organization.kind === "INDUSTRIAL_USER" && (m.role === "OWNER" || m.role === "AUTHORIZED_REPRESENTATIVE"))
    .map((m) => ({ value: m.organization.id, label: m.organization.id === p.organizationId ? `${m.organization.name} (holds this permit)` : m.organization.name }));
  return (
    <>
      <p>
        <Link className="usa-link" to={`/industrial/${p.id}`}>
          Back to permit {p.permitNumber}
        </Link>
      </p>
      <h1>Report a change of owner, premises or operation</h1>
      <ErrorSummary message={a?.error} fields={e} labels={LABELS} />
      <Notice type="info">
        Permit {p.permitNumber} for {p.facilityName} was issued to {p.organizationName} for this operation at this location. It cannot be reassigned, transferred or sold to a new owner,
        a new user, different premises or a new or changed operation (Sewer Use Law 1004 F). Reporting the change starts an application for a new permit, copied from this one,
        for the organization that will hold it. When the new permit is issued, permit {p.permitNumber} ends on the date of the change or the day the new permit takes effect,
        whichever is later.
      </Notice>
      {p.status !== "ISSUED" ? (
        <p>Only an issued permit has a change to report.</p>
      ) : (
        <Form method="post" className="usa-form usa-form--large" noValidate>
          <AuthenticityTokenInput />
          <RadioGroup name="kind" legend={LABELS.kind} options={KINDS} defaultValue={v.kind ?? ""} error={e.kind} required />
          <TextField name="changeOn" type="date" label={LABELS.changeOn} defaultValue={v.changeOn ?? ""} error={e.changeOn} required />
          <div className={`usa-form-group${e.description ? " usa-form-group--error" : ""}`}>
            <label className="usa-label" htmlFor="description">
              {LABELS.description}
            </label>
            {e.description && (
              <span className="usa-error-message" id="description-error" role="alert">
                {e.description}
              </span>
            )}
            <textarea className="usa-textarea" id="description" name="description" defaultValue={v.description ?? ""} aria-describedby={e.description ? "description-error" : undefined} />
          </div>
          <SelectField
            name="organizationId"
            label={LABELS.organizationId}
            hint="You must be the owner or Authorized Representative of that organization; register the new organization first if it is not listed. Trade-secret text and documents stay with this permit's organization."
            options={orgs}
            defaultValue={v.organizationId ?? p.organizationId}
            error={e.organizationId}
          />
          <button className="usa-button" type="submit">
            Report the change and start the new application
          </button>
        </Form>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { TextArea } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Metered water not reaching the sewer | Tapline" }];

type Request = { id: string; propertyAddress: string; status: string; statusLabel: string; sewerPercent: number | null; decisionReasons: string | null; filedAt: string; district: { name: string; timeZone: string } };
type Data = {
  myFlowDeductionRequests: Request[];
  districts: { id: string; name: string }[];
  myOrganizations: { organization: { id: string; name: string } }[];
  myDocuments: { id: string; filename: string }[];
};
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string | string[]> };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(
    args,
    `query FlowRequests { myFlowDeductionRequests { id propertyAddress status statusLabel sewerPercent decisionReasons filedAt district { name timeZone } }
      districts { id name } myOrganizations { organization { id name } } myDocuments { id filename } }`,
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = {
    districtId: String(form.get("districtId") ?? ""),
    organizationId: String(form.get("organizationId") ?? ""),
    propertyAddress: String(form.get("propertyAddress") ?? ""),
    taxParcel: String(form.get("taxParcel") ?? ""),
    evidence: String(form.get("evidence") ?? ""),
    documentIds: form.getAll("documentIds").map(String),
  };
  const r = await gql(context, request, `mutation FileFlow($i: FileFlowDeductionInput!) { fileFlowDeductionRequest(input: $i) { id } }`, {
    i: { ...values, organizationId: values.organizationId || null, taxParcel: values.taxParcel || null },
  });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=/petitions/flow`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/petitions/flow?filed=1`, { headers: cookieHeaders(r) });
}

/** Each field's visible label, in the form's order (the error summary follows it). */
export const LABELS: Record<string, string> = {
  districtId: "Sewer district",
  organizationId: "Filed for",
  propertyAddress: "Property address",
  taxParcel: "Tax parcel (optional)",
  evidence: "How much of the metered water does not reach the sewer, and how you know",
  documentIds: "Documents to attach (sub-meter readings, process records)",
};

export default function FlowRequests() {
  const d = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const v = (k: string) => (a?.values[k] as string | undefined) ?? "";
  const chosen = (a?.values.documentIds as string[] | undefined) ?? [];
  return (
    <>
      <h1>Metered water that does not reach the sewer</h1>
      <p>
        Sewer charges are based on metered water. If a substantial part of it does not reach the sewer (irrigation, a process, evaporation), show the District Operator:
        the Operator then sets the percentage of metered water your charges are based on, or directs a flow meter at the owner's expense (Sewer Use Law 1205).
      </p>
      {params.get("filed") && !a && <SuccessAlert>Your request is filed with the District Operator.</SuccessAlert>}
      {d.myFlowDeductionRequests.length > 0 && (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>My requests</caption>
          <thead>
            <tr>
              <th scope="col">Property</th>
              <th scope="col">Filed</th>
              <th scope="col">Status</th>
              <th scope="col">Decision</th>
            </tr>
          </thead>
          <tbody>
            {d.myFlowDeductionRequests.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Property">
                  {r.propertyAddress}
                  <span className="display-block">{r.district.name}</span>
                </th>
                <td data-label="Filed">
                  <DateTime iso={r.filedAt} timeZone={r.district.timeZone} />
                </td>
                <td data-label="Status">{r.statusLabel}</td>
                <td data-label="Decision">
                  {r.sewerPercent ? `Charges on ${r.sewerPercent}% of metered water. ` : ""}
                  {r.decisionReasons ?? ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>File a request</h2>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" className="usa-form usa-form--large">
        <AuthenticityTokenInput />
        <SelectField name="districtId" label="Sewer district" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={v("districtId")} error={a?.fields?.districtId} />
        {d.myOrganizations.length > 0 && (
          <SelectField
            name="organizationId"
            label="Filed for"
            options={[{ value: "", label: "Myself" }, ...d.myOrganizations.map((m) => ({ value: m.organization.id, label: m.organization.name }))]}
            defaultValue={v("organizationId")}
            error={a?.fields?.organizationId}
          />
        )}
        <TextField name="propertyAddress" label="Property address" error={a?.fields?.propertyAddress} defaultValue={v("propertyAddress")} />
        <TextField name="taxParcel" label="Tax parcel (optional)" error={a?.fields?.taxParcel} defaultValue={v("taxParcel")} />
        <TextArea name="evidence" label="How much of the metered water does not reach the sewer, and how you know" error={a?.fields?.evidence} defaultValue={v("evidence")} />
        <fieldset className="usa-fieldset" id="documentIds">
          <legend className="usa-legend">Documents to attach (sub-meter readings, process records)</legend>
          {a?.fields?.documentIds && (
            <span className="usa-error-message" role="alert">
              {a.fields.documentIds}
            </span>
          )}
          {d.myDocuments.length === 0 ? (
            <p className="usa-hint">You have no uploaded documents; upload them under Account, Documents first if you want to attach any.</p>
          ) : (
            d.myDocuments.map((doc) => (
              <div className="usa-checkbox" key={doc.id}>
                <input className="usa-checkbox__input" id={`doc-${doc.id}`} type="checkbox" name="documentIds" value={doc.id} defaultChecked={chosen.includes(doc.id)} />
                <label className="usa-checkbox__label" htmlFor={`doc-${doc.id}`}>
                  {doc.filename}
                </label>
              </div>
            ))
          )}
        </fieldset>
        <button className="usa-button" type="submit">
          File the request
        </button>
      </Form>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

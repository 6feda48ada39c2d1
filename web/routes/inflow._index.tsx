import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { CalendarDate, daysLeftText } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Inflow inspections | Tapline" }];

/** The request form's visible labels by the keys the API reports, in the form's order. */
export const LABELS: Record<string, string> = {
  districtId: "District",
  taxParcel: "Tax parcel",
  role: "You are",
  closingOn: "Closing date",
};

type Row = { id: string; number: string; statusLabel: string; taxParcel: string; address: string; dueOn: string | null; daysLeft: number | null; certificateNumber: string | null };
type Rules = { districtId: string; districtName: string; inspectsAtSale: boolean; saleSection: string; inspectorTitle: string };
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ myInflowInspections: Row[]; inflowRules: Rules[] }>(
    args,
    `query MyInflow { myInflowInspections { id number statusLabel taxParcel address dueOn daysLeft certificateNumber }
       inflowRules { districtId districtName inspectsAtSale saleSection inspectorTitle } }`,
  );
  return { items: d.myInflowInspections, districts: d.inflowRules.filter((r) => r.inspectsAtSale) };
}

/** A seller, buyer or attorney asks for the inspection ahead of closing (SUL 702-703): no fee, so no payment. */
export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const values = { districtId: s("districtId"), taxParcel: s("taxParcel"), role: s("role"), closingOn: s("closingOn") };
  const r = await gql<{ requestInflowInspection: { id: string } }>(context, request, `mutation RequestInflow($i: RequestInflowInspectionInput!) { requestInflowInspection(input: $i) { id } }`, {
    i: { ...values, closingOn: values.closingOn || null },
  });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/inflow/${r.data.requestInflowInspection.id}?done=requested`, { headers: cookieHeaders(r) });
}

export default function MyInflow() {
  const { items, districts } = useLoaderData<typeof loader>() as { items: Row[]; districts: Rules[] };
  const a = useActionData<ActionData>();
  return (
    <>
      <h1>Inflow inspections</h1>
      <p className="usa-intro">
        No sump pump, footing drain, roof leader, cellar drain or catch basin may be connected to the sanitary sewer. When a property is sold, the District Operator inspects it,
        and a property that passes gets an inflow compliance certificate anyone can check.
      </p>
      <h2>Inspections of your properties and those you asked for</h2>
      {items.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <ul className="usa-list">
          {items.map((i) => (
            <li key={i.id}>
              <Link className="usa-link" to={`/inflow/${i.id}`}>
                {i.number}
              </Link>
              : {i.address} (tax parcel {i.taxParcel}), {i.statusLabel.toLowerCase()}
              {i.dueOn && (
                <>
                  , by <CalendarDate date={i.dueOn} /> ({daysLeftText(i.daysLeft)})
                </>
              )}
              {i.certificateNumber && `, certificate ${i.certificateNumber}`}
            </li>
          ))}
        </ul>
      )}
      {districts.length > 0 && (
        <section aria-labelledby="request-heading">
          <h2 id="request-heading">Ask for an inspection ahead of closing</h2>
          <p>For the seller, the buyer or their attorneys. There is no fee: the law sets none for this inspection.</p>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form" noValidate>
            <AuthenticityTokenInput />
            {districts.length > 1 ? (
              <SelectField name="districtId" label={LABELS.districtId} options={districts.map((d) => ({ value: d.districtId, label: d.districtName }))} defaultValue={a?.values.districtId} error={a?.fields?.districtId} />
            ) : (
              <input type="hidden" name="districtId" value={districts[0].districtId} />
            )}
            <TextField name="taxParcel" label={LABELS.taxParcel} hint="As on the tax bill, for example 101.1-1-1." defaultValue={a?.values.taxParcel} error={a?.fields?.taxParcel} required />
            <SelectField
              name="role"
              label={LABELS.role}
              options={[
                { value: "SELLER", label: "The seller" },
                { value: "BUYER", label: "The buyer" },
                { value: "ATTORNEY", label: "An attorney for the sale" },
              ]}
              defaultValue={a?.values.role}
              error={a?.fields?.role}
              required
            />
            <TextField name="closingOn" label={LABELS.closingOn} type="date" hint="Optional, for example 2027-03-15." defaultValue={a?.values.closingOn} error={a?.fields?.closingOn} />
            <button className="usa-button" type="submit">
              Ask for the inspection
            </button>
          </Form>
        </section>
      )}
      <p>
        <Link className="usa-link" to="/inflow/verify">
          Check an inflow compliance certificate
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

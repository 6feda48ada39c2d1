import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Properties and accounts | Staff | Tapline" }];

type Item = { id: string; taxParcel: string; address: string; ownerName: string; openAccounts: number };
type Register = {
  basis: string;
  basisSection: string;
  basisNote: string | null;
  openAccounts: number;
  totalEdus: string;
  unassessedAccounts: number;
  segmentsEnabled: boolean;
  segmentsSection: string;
  tasks: { key: string; text: string }[];
};
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

export const LABELS: Record<string, string> = {
  districtId: "District",
  taxParcel: "Tax parcel",
  streetNumber: "Number",
  street: "Street",
  city: "City or town",
  zip: "ZIP code",
  segment: "Segment",
  ownerName: "Owner of record",
  ownerEmail: "Owner's portal email",
  ownerMailingAddress: "Owner's mailing address",
  ownerSince: "Owner since",
};

/** The register of properties (SUL 1203-1206; Huron VI): search, a page at a time, and the Board figures the bills still lack. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const search = url.searchParams.get("q") ?? "";
  const after = url.searchParams.get("after") || null;
  const data = await requireSignedIn<{ sewerProperties: { items: Item[]; nextCursor: string | null }; sewerRentRegister: Register }>(
    args,
    `query PropertyRegister($d: ID!, $q: String, $a: String) {
      sewerProperties(districtId: $d, search: $q, first: 25, after: $a) { nextCursor items { id taxParcel address ownerName openAccounts } }
      sewerRentRegister(districtId: $d) { basis basisSection basisNote openAccounts totalEdus unassessedAccounts segmentsEnabled segmentsSection tasks { key text } } }`,
    { d: district.id, q: search || null, a: after },
  );
  return {
    districts: info.districts.map((d) => ({ id: d.id, name: d.name, slug: d.slug })),
    district: { id: district.id, name: district.name, slug: district.slug, clerk: district.roles.includes("CLERK"), admin: district.roles.includes("ADMIN") },
    search,
    ...data,
  };
}

/** The Town Clerk adds a property with its owner of record. */
export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const k of ["districtId", ...Object.keys(LABELS)]) values[k] = String(form.get(k) ?? "").trim();
  const r = await gql<{ addSewerProperty: { id: string } }>(context, request, `mutation AddProperty($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`, {
    i: { ...values, ownerSince: values.ownerSince || null, ownerEmail: values.ownerEmail || null },
  });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/properties/${r.data.addSewerProperty.id}`, { headers: cookieHeaders(r) });
}

export default function StaffProperties() {
  const d = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  const reg = d.sewerRentRegister;
  const page = d.sewerProperties;
  const v = (k: string) => a?.values[k];
  const qs = (after: string) => `/staff/properties?districtId=${d.district.id}&q=${encodeURIComponent(d.search)}&after=${after}`;
  return (
    <>
      <h1>Properties and accounts</h1>
      <p className="usa-intro">
        {reg.basis === "EDU"
          ? `${d.district.name} shares the fixed part of the sewer charge by equivalent dwelling units (EDUs, ${reg.basisSection}).`
          : `${d.district.name} charges a sewer rent to each user (occupant, ${reg.basisSection}).`}{" "}
        {reg.openAccounts} open {reg.openAccounts === 1 ? "account" : "accounts"}
        {reg.basis === "EDU" ? `, ${reg.totalEdus} EDUs in all today` : ""}.
      </p>
      <p>
        <Link className="usa-link" to={`/staff/bill-runs?districtId=${d.district.id}`}>
          Bill runs: preview, review and issue a period's bills
        </Link>
      </p>
      {reg.tasks.length > 0 && (
        <div className="usa-alert usa-alert--warning">
          <div className="usa-alert__body">
            <h2 className="usa-alert__heading">To do before the bills</h2>
            <ul className="usa-list">
              {reg.tasks.map((t) => (
                <li key={t.key}>{t.text}</li>
              ))}
            </ul>
            <p className="usa-alert__text">
              {d.district.admin ? (
                <Link className="usa-link" to={`/staff/rulebook/${d.district.slug}`}>
                  Enter the Board's figures in the rulebook
                </Link>
              ) : (
                <Link className="usa-link" to={`/rules/${d.district.slug}`}>
                  See the district's rules
                </Link>
              )}
            </p>
          </div>
        </div>
      )}
      {reg.unassessedAccounts > 0 && (
        <Notice>
          {reg.unassessedAccounts} open {reg.unassessedAccounts === 1 ? "account has" : "accounts have"} no assessment yet: open the account and fill in its worksheet.
        </Notice>
      )}
      <p>
        <Link className="usa-link" to={`/staff/readings?districtId=${d.district.id}`}>
          Meter readings: import a reading file and see past imports
        </Link>
      </p>
      <p>
        <Link className="usa-link" to={`/staff/receivables?districtId=${d.district.id}`}>
          Receivables: balances and their aging, payments and receivables exports, the annual figures
        </Link>
      </p>
      <Form method="get" className="usa-form" role="search" aria-label="Search the register">
        {d.districts.length > 1 ? (
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.district.id} />
        ) : (
          <input type="hidden" name="districtId" value={d.district.id} />
        )}
        <TextField name="q" label="Search" hint="The start of a tax parcel, an address, a street or an owner's name, or an account number" defaultValue={d.search} />
        <button className="usa-button" type="submit">
          Search
        </button>
      </Form>
      {page.items.length === 0 ? (
        <p>{d.search ? `No property of ${d.district.name} matches “${d.search}”.` : `${d.district.name} has no property in its register yet.`}</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>
            {d.district.name}: properties by tax parcel{d.search ? `, matching “${d.search}”` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">Tax parcel</th>
              <th scope="col">Address</th>
              <th scope="col">Owner of record</th>
              <th scope="col">Open accounts</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((p) => (
              <tr key={p.id}>
                <th scope="row" data-label="Tax parcel">
                  <Link className="usa-link" to={`/staff/properties/${p.id}`}>
                    {p.taxParcel}
                  </Link>
                </th>
                <td data-label="Address">{p.address}</td>
                <td data-label="Owner of record">{p.ownerName}</td>
                <td data-label="Open accounts">{p.openAccounts}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.nextCursor && (
        <p>
          <Link className="usa-link" to={qs(page.nextCursor)}>
            Next page
          </Link>
        </p>
      )}
      {d.district.clerk && (
        <>
          <h2 id="add">Add a property</h2>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="districtId" value={d.district.id} />
            <TextField name="taxParcel" label={LABELS.taxParcel} hint="Section-block-lot, e.g. 101.2-3-4" defaultValue={v("taxParcel")} error={a?.fields.taxParcel} required />
            <TextField name="streetNumber" label={LABELS.streetNumber} defaultValue={v("streetNumber")} error={a?.fields.streetNumber} />
            <TextField name="street" label={LABELS.street} defaultValue={v("street")} error={a?.fields.street} required />
            <TextField name="city" label={LABELS.city} defaultValue={v("city")} error={a?.fields.city} />
            <TextField name="zip" label={LABELS.zip} defaultValue={v("zip")} error={a?.fields.zip} inputMode="numeric" required />
            {reg.segmentsEnabled && (
              <TextField name="segment" label={LABELS.segment} hint={`The part of the system serving it, e.g. a pump station's (${reg.segmentsSection}); leave empty where there is none`} defaultValue={v("segment")} error={a?.fields.segment} />
            )}
            <TextField name="ownerName" label={LABELS.ownerName} defaultValue={v("ownerName")} error={a?.fields.ownerName} required />
            <TextField name="ownerEmail" type="email" label={LABELS.ownerEmail} hint="If the owner has signed up, they see the property in the portal" defaultValue={v("ownerEmail")} error={a?.fields.ownerEmail} />
            <TextField name="ownerMailingAddress" label={LABELS.ownerMailingAddress} defaultValue={v("ownerMailingAddress")} error={a?.fields.ownerMailingAddress} />
            <TextField name="ownerSince" type="date" label={LABELS.ownerSince} hint="Today when left empty" defaultValue={v("ownerSince")} error={a?.fields.ownerSince} />
            <button className="usa-button" type="submit">
              Add the property
            </button>
          </Form>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

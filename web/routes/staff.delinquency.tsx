import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { date } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { dollarsToCents, money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";
import { countOf } from "~/components/format";

export const meta: MetaFunction = () => [{ title: "Charges and delinquency | Staff | Tapline" }];

type Item = {
  id: string;
  number: string;
  label: string;
  respondentName: string;
  billedOn: string;
  status: string;
  amountCents: number;
  actionId: string | null;
  statement: { delinquent: boolean; daysDelinquent: number; totalCents: number; lastDayWithoutPenalty: string; lines: { code: string; amountCents: number }[] };
};
type Data = { districts: { id: string; name: string; roles: string[] }[]; districtId: string; status: string; items: Item[]; nextCursor: string | null; clerk: boolean };

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const status = url.searchParams.get("status") ?? "OPEN";
  const { districtCharges } = await requireSignedIn<{ districtCharges: { items: Item[]; nextCursor: string | null } }>(
    args,
    `query Charges($d: ID!, $s: String, $a: String) { districtCharges(districtId: $d, status: $s, first: 25, after: $a) { nextCursor items {
      id number label respondentName billedOn status amountCents actionId statement { delinquent daysDelinquent totalCents lastDayWithoutPenalty lines { code amountCents } } } } }`,
    { d: district.id, s: status || null, a: url.searchParams.get("after") || null },
  );
  return {
    districts: info.districts.map((d) => ({ id: d.id, name: d.name, roles: d.roles })),
    districtId: district.id,
    status,
    ...districtCharges,
    clerk: district.roles.includes("CLERK") || district.roles.includes("ADMIN"),
  } satisfies Data;
}

type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = formValues(form);
  if (values.intent === "counter") {
    // The payment of today's statement, for the Clerk to record at the counter (cash or check).
    const p = await gql<{ payCharge: { id: string } }>(context, request, `mutation PrepareCounterPayment($id: ID!) { payCharge(id: $id) { id } }`, { id: values.chargeId ?? "" });
    if (!p.ok) return Response.json({ error: p.error.message, fields: {}, values: {} } satisfies ActionData, { status: 400, headers: cookieHeaders(p) });
    return redirect(`/staff/payments?districtId=${values.districtId}&status=PENDING`, { headers: cookieHeaders(p) });
  }
  // An amount that is not dollars and cents is sent as 0, which the API refuses too, so every other
  // field is checked in the same round; its message is then the one about the format.
  const cents = dollarsToCents(values.amount ?? "");
  const unreadable = cents === undefined || cents === null;
  const who = values.respondentKind === "organization" ? { respondentOrganizationName: values.respondentOrganizationName || null } : { respondentEmail: values.respondentEmail || null };
  const r = await gql<{ billCharge: { id: string } }>(context, request, `mutation BillCharge($i: BillChargeInput!) { billCharge(input: $i) { id } }`, {
    i: { districtId: values.districtId, ...who, label: values.label ?? "", amountCents: unreadable ? 0 : cents, billedOn: values.billedOn || null, taxParcel: values.taxParcel || null, propertyAddress: values.propertyAddress || null },
  });
  if (!r.ok) {
    const fields = { ...r.error.fields };
    if (fields.amountCents) fields.amount = unreadable ? "Enter the amount in dollars, like 125.00." : fields.amountCents;
    delete fields.amountCents;
    return Response.json({ error: r.error.message, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/delinquency?districtId=${values.districtId}&billed=1`, { headers: cookieHeaders(r) });
}

const STATUSES = [
  { value: "OPEN", label: "Unpaid" },
  { value: "HELD", label: "On hold (petition)" },
  { value: "PAID", label: "Paid" },
  { value: "CANCELLED", label: "Cancelled" },
  { value: "", label: "All" },
];
/** The form's labels in its order; the API's amountCents is shown on the amount in dollars. */
export const LABELS: Record<string, string> = {
  districtId: "District",
  respondentEmail: "Person's email",
  respondentOrganizationName: "Or the organization's name",
  label: "Description",
  amount: "Amount (dollars)",
  amountCents: "Amount (dollars)",
  billedOn: "Billing (mailing) date",
  taxParcel: "Tax parcel",
  propertyAddress: "Property address",
};

export default function Delinquency() {
  const d = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const district = d.districts.find((x) => x.id === d.districtId)!;
  const v = a?.values ?? {};
  const e = a?.fields ?? {};
  const part = (i: Item, code: string) => i.statement.lines.find((l) => l.code === code)?.amountCents ?? 0;
  return (
    <>
      <h1>Charges and delinquency</h1>
      <p>Each unpaid charge with today's statement: penalty and interest as the district's law sets them (Sewer Use Law 1118; Huron VI-3).</p>
      {params.get("billed") && !a && <SuccessAlert>The charge is billed and the person or organization is notified.</SuccessAlert>}
      <Form method="get" className="usa-form">
        {d.districts.length > 1 ? (
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.districtId} />
        ) : (
          <input type="hidden" name="districtId" value={d.districtId} />
        )}
        <SelectField name="status" label="Status" options={STATUSES} defaultValue={d.status} />
        <button className="usa-button usa-button--outline" type="submit">
          Show
        </button>
      </Form>
      {d.clerk && (
        <p>
          <a className="usa-link" href={`/staff/delinquency/tax-levy.csv?districtId=${d.districtId}`}>
            Download the tax-levy report (CSV)
          </a>
          : the charges listed here and the sewer bills delinquent long enough to be added to the property taxes, as of the law's date.
        </p>
      )}
      {d.items.length === 0 ? (
        <p>No charges of {district.name} with this status.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>{district.name}: oldest bill first</caption>
          <thead>
            <tr>
              <th scope="col">Charge</th>
              <th scope="col">Billed</th>
              <th scope="col">Bill</th>
              <th scope="col">Penalty</th>
              <th scope="col">Interest</th>
              <th scope="col">Owed today</th>
              <th scope="col">Delinquent</th>
              {d.clerk && <th scope="col">At the counter</th>}
            </tr>
          </thead>
          <tbody>
            {d.items.map((i) => (
              <tr key={i.id}>
                <th scope="row" data-label="Charge">
                  {i.actionId ? (
                    <Link className="usa-link" to={`/staff/enforcement/${i.actionId}`}>
                      {i.label}
                    </Link>
                  ) : (
                    i.label
                  )}
                  <span className="display-block">
                    {i.number} · {i.respondentName}
                  </span>
                </th>
                <td data-label="Billed">{date(i.billedOn)}</td>
                <td data-label="Bill">{money(i.amountCents)}</td>
                <td data-label="Penalty">{money(part(i, "penalty"))}</td>
                <td data-label="Interest">{money(part(i, "interest"))}</td>
                <td data-label="Owed today">{i.status === "OPEN" ? money(i.statement.totalCents) : i.status.toLowerCase()}</td>
                <td data-label="Delinquent">{i.statement.delinquent ? countOf(i.statement.daysDelinquent, "day") : `No (until ${date(i.statement.lastDayWithoutPenalty)})`}</td>
                {d.clerk && (
                  <td data-label="At the counter">
                    {i.status === "OPEN" && (
                      <Form method="post">
                        <AuthenticityTokenInput />
                        <input type="hidden" name="intent" value="counter" />
                        <input type="hidden" name="districtId" value={d.districtId} />
                        <input type="hidden" name="chargeId" value={i.id} />
                        <button className="usa-button usa-button--outline" type="submit">
                          Take payment<span className="usa-sr-only"> of {i.number}</span>
                        </button>
                      </Form>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.nextCursor && (
        <p>
          <Link className="usa-link" to={`/staff/delinquency?districtId=${d.districtId}&status=${d.status}&after=${d.nextCursor}`}>
            Next page
          </Link>
        </p>
      )}
      {d.clerk && (
        <section aria-labelledby="bill-heading">
          <h2 id="bill-heading">Bill a charge</h2>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="districtId" value={d.districtId} />
            <fieldset className="usa-fieldset">
              <legend className="usa-legend">Billed to</legend>
              <div className="usa-radio">
                <input className="usa-radio__input" id="respondentKind" type="radio" name="respondentKind" value="person" defaultChecked={v.respondentKind !== "organization"} />
                <label className="usa-radio__label" htmlFor="respondentKind">
                  A person
                </label>
              </div>
              <div className="usa-radio">
                <input className="usa-radio__input" id="respondentKind-organization" type="radio" name="respondentKind" value="organization" defaultChecked={v.respondentKind === "organization"} />
                <label className="usa-radio__label" htmlFor="respondentKind-organization">
                  An organization
                </label>
              </div>
              <TextField name="respondentEmail" label={LABELS.respondentEmail} type="email" error={e.respondentEmail} defaultValue={v.respondentEmail} />
              <TextField name="respondentOrganizationName" label={LABELS.respondentOrganizationName} error={e.respondentOrganizationName} defaultValue={v.respondentOrganizationName} />
            </fieldset>
            <TextField name="label" label={LABELS.label} required hint="For example: Sewer rent, third quarter 2026" error={e.label} defaultValue={v.label} />
            <TextField name="amount" label={LABELS.amount} inputMode="decimal" required error={e.amount} defaultValue={v.amount} />
            <TextField name="billedOn" label={LABELS.billedOn} type="date" hint="Today when left empty" error={e.billedOn} defaultValue={v.billedOn} />
            <TextField name="taxParcel" label={`${LABELS.taxParcel} (optional)`} error={e.taxParcel} defaultValue={v.taxParcel} />
            <TextField name="propertyAddress" label={`${LABELS.propertyAddress} (optional)`} error={e.propertyAddress} defaultValue={v.propertyAddress} />
            <button className="usa-button" type="submit">
              Bill it
            </button>
          </Form>
        </section>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { COUNTER_PAYMENT_LABELS, CounterPaymentForm, OWNERS_EXCESS_MONEY, AccountMoneyView, excessAsAccountMoney, type OwnersExcessMoney } from "~/components/account-money";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { dollarsToCents } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Property | Staff | Tapline" }];

type Account = {
  id: string;
  accountNumber: string;
  classLabel: string;
  occupantName: string;
  openedOn: string;
  closedOn: string | null;
  closeReasonLabel: string | null;
  assessment: { basis: string; edus: string | null } | null;
};
type Property = {
  id: string;
  districtId: string;
  districtName: string;
  taxParcel: string;
  streetNumber: string | null;
  street: string;
  city: string | null;
  zip: string;
  address: string;
  segment: string | null;
  ownerName: string;
  ownerMailingAddress: string | null;
  owners: { ownerName: string; mailingAddress: string | null; fromDate: string; toDate: string | null }[];
  accounts: Account[];
};
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string> };

const CLASS_OPTIONS = [
  { value: "RESIDENTIAL", label: "Residential" },
  { value: "COMMERCIAL", label: "Commercial" },
  { value: "INSTITUTIONAL", label: "Institutional" },
  { value: "INDUSTRIAL", label: "Industrial (billed monthly under Sewer Use Law 1206)" },
];

/** Each form's labels, by intent. */
const FORMS: Record<string, Record<string, string>> = {
  update: { streetNumber: "Number", street: "Street", city: "City or town", zip: "ZIP code", segment: "Segment" },
  open: { class: "Class", occupantName: "Occupant", occupantEmail: "Occupant's portal email", openedOn: "First day served" },
  sale: {
    transferOn: "Buyer owns from",
    buyerName: "Buyer",
    buyerEmail: "Buyer's portal email",
    buyerMailingAddress: "Buyer's mailing address",
    forwardingAddress: "Seller's forwarding address",
    closeAccountIds: "Accounts to close",
    buyerAccountClass: "Buyer's account class",
    closedOn: "Seller's last day",
    buyerMovesIn: "The buyer moves in",
  },
  excess: COUNTER_PAYMENT_LABELS,
};

/** Every key the page's mutations can report, by its visible label (the record acted on is the page's). */
export const LABELS: Record<string, string> = {
  propertyId: "Property",
  districtId: "District",
  taxParcel: "Tax parcel",
  ownerName: "Owner of record",
  ownerEmail: "Owner's portal email",
  ownerMailingAddress: "Owner's mailing address",
  ownerSince: "Owner since",
  ...FORMS.update,
  ...FORMS.open,
  ...FORMS.sale,
  ...FORMS.excess,
  amountCents: FORMS.excess.amount,
};

const P = `id districtId districtName taxParcel streetNumber street city zip address segment ownerName ownerMailingAddress
  owners { ownerName mailingAddress fromDate toDate }
  accounts { id accountNumber classLabel occupantName openedOn closedOn closeReasonLabel assessment { basis edus } }`;

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const { sewerProperty } = await requireSignedIn<{ sewerProperty: Property }>(args, `query StaffProperty($id: ID!) { sewerProperty(id: $id) { ${P} } }`, { id: args.params.id });
  const { sewerRentRegister } = await requireSignedIn<{ sewerRentRegister: { segmentsEnabled: boolean; segmentsSection: string } }>(
    args,
    `query PropertySegments($d: ID!) { sewerRentRegister(districtId: $d) { segmentsEnabled segmentsSection } }`,
    { d: sewerProperty.districtId },
  );
  // Huron VI-2: the owner's excess bills on a shared meter (no account), their balance and the counter.
  const { ownersExcessBalance } = await requireSignedIn<{ ownersExcessBalance: OwnersExcessMoney }>(args, `query PropertyExcess($id: ID!) { ownersExcessBalance(propertyId: $id) { ${OWNERS_EXCESS_MONEY} } }`, {
    id: sewerProperty.id,
  });
  const roles = info.districts.find((d) => d.id === sewerProperty.districtId)?.roles ?? [];
  const url = new URL(args.request.url);
  return { property: sewerProperty, segments: sewerRentRegister, excess: ownersExcessBalance, clerk: roles.includes("CLERK"), done: url.searchParams.get("done") };
}

/** The Town Clerk corrects the address or segment, opens an account, or records a sale. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values: Record<string, string> = {};
  for (const k of Object.keys(FORMS[intent] ?? {})) values[k] = String(form.get(k) ?? "").trim();
  const orNull = (k: string) => values[k] || null;
  if (intent === "excess") {
    // The Town Clerk's counter for the owner's excess bills (Huron VI-2; api/rents/owners-excess.ts).
    const cents = dollarsToCents(values.amount ?? "");
    const p = await gql<{ recordOwnersExcessCounterPayment: { id: string } }>(
      context,
      request,
      `mutation ExcessCounterPayment($i: OwnersExcessCounterPaymentInput!) { recordOwnersExcessCounterPayment(input: $i) { id } }`,
      { i: { propertyId: params.id, amountCents: typeof cents === "number" ? cents : 0, method: values.method ?? "", checkNumber: orNull("checkNumber") } },
    );
    if (!p.ok) {
      const fields = { ...p.error.fields };
      if (fields.amountCents) fields.amount = typeof cents === "number" ? fields.amountCents : "Enter the amount in dollars, like 125.00.";
      delete fields.amountCents;
      return Response.json({ intent, error: p.error.message, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(p) });
    }
    return redirect(`/staff/properties/${params.id}?done=excess#excess`, { headers: cookieHeaders(p) });
  }
  const r =
    intent === "update"
      ? await gql(context, request, `mutation UpdateProperty($id: ID!, $i: SewerPropertyInput!) { updateSewerProperty(id: $id, input: $i) { id } }`, {
          id: params.id,
          i: { streetNumber: orNull("streetNumber"), street: values.street, city: orNull("city"), zip: values.zip, segment: orNull("segment") },
        })
      : intent === "open"
        ? await gql(context, request, `mutation OpenAccount($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id } }`, {
            i: { propertyId: params.id, class: values.class, occupantName: values.occupantName, occupantEmail: orNull("occupantEmail"), openedOn: values.openedOn },
          })
        : await gql(context, request, `mutation RecordSale($i: RecordPropertySaleInput!) { recordPropertySale(input: $i) { id } }`, {
            i: {
              propertyId: params.id,
              transferOn: values.transferOn,
              buyerName: values.buyerName,
              buyerEmail: orNull("buyerEmail"),
              buyerMailingAddress: orNull("buyerMailingAddress"),
              forwardingAddress: orNull("forwardingAddress"),
              closeAccountIds: form.getAll("closeAccountIds").map(String),
              buyerMovesIn: form.get("buyerMovesIn") === "yes",
              buyerAccountClass: values.buyerAccountClass || "RESIDENTIAL",
            },
          });
  if (!r.ok) return Response.json({ intent, error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/properties/${params.id}?done=${intent}`, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = { update: "The property is corrected.", open: "The account is open.", sale: "The sale is recorded.", excess: "The payment is recorded, with its receipt." };

export default function StaffProperty() {
  const { property: p, segments, excess, clerk, done } = useLoaderData<typeof loader>() as unknown as {
    property: Property;
    segments: { segmentsEnabled: boolean; segmentsSection: string };
    excess: OwnersExcessMoney;
    clerk: boolean;
    done: string | null;
  };
  const a = useActionData<ActionData>();
  const e = (intent: string) => (a?.intent === intent ? a.fields : {});
  const v = (intent: string, k: string) => (a?.intent === intent ? a.values[k] : undefined);
  const open = p.accounts.filter((x) => !x.closedOn);
  return (
    <>
      <h1>
        {p.address} <span className="display-block font-sans-md">Tax parcel {p.taxParcel}</span>
      </h1>
      {done && DONE[done] && (
        <div className="usa-alert usa-alert--success usa-alert--slim" role="status">
          <div className="usa-alert__body">
            <p className="usa-alert__text">{DONE[done]}</p>
          </div>
        </div>
      )}
      <dl>
        <dt>District</dt>
        <dd>{p.districtName}</dd>
        {segments.segmentsEnabled && (
          <>
            <dt>Segment ({segments.segmentsSection})</dt>
            <dd>{p.segment ?? "None"}</dd>
          </>
        )}
        <dt>Owner of record</dt>
        <dd>
          {p.ownerName}
          {p.ownerMailingAddress ? `, ${p.ownerMailingAddress}` : ""}
        </dd>
      </dl>

      <h2>Accounts</h2>
      {p.accounts.length === 0 ? (
        <p>No account yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Accounts of this property, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Occupant</th>
              <th scope="col">Class</th>
              <th scope="col">Served</th>
              <th scope="col">Assessment</th>
            </tr>
          </thead>
          <tbody>
            {p.accounts.map((x) => (
              <tr key={x.id}>
                <th scope="row" data-label="Account">
                  <Link className="usa-link" to={`/staff/properties/accounts/${x.id}`}>
                    {x.accountNumber}
                  </Link>
                </th>
                <td data-label="Occupant">{x.occupantName}</td>
                <td data-label="Class">{x.classLabel}</td>
                <td data-label="Served">
                  From <CalendarDate date={x.openedOn} />
                  {x.closedOn ? (
                    <>
                      {" "}
                      to <CalendarDate date={x.closedOn} /> ({x.closeReasonLabel})
                    </>
                  ) : (
                    ", open"
                  )}
                </td>
                <td data-label="Assessment">{!x.assessment ? "Not assessed yet" : x.assessment.basis === "EDU" ? `${x.assessment.edus} EDUs` : "One user"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {excess.lines.length > 0 && (
        <section aria-labelledby="excess">
          <h2 id="excess">Owner's excess bills on a shared meter</h2>
          <p>Huron VI-2: the users behind one meter each pay the minimum and the owner of record the excess. These bills have no account: they are a balance of their own, paid by the owner of record.</p>
          <AccountMoneyView m={excessAsAccountMoney(excess)} billHref={(id) => `/properties/bills/${id}`} receiptHref={(id) => `/payments/${id}/receipt`} />
          {excess.canRecordPayment && (
            <>
              <h3>Record a payment at the counter toward the owner's excess bills</h3>
              <p>Any amount: a part is applied to the oldest excess bill first; more than the balance is a credit the next excess bill uses. A receipt is made each time.</p>
              <CounterPaymentForm intent="excess" message={a?.intent === "excess" ? a.error : null} errors={e("excess")} value={(k) => v("excess", k)} />
            </>
          )}
        </section>
      )}

      <h2>Owners of record</h2>
      <table className="usa-table usa-table--borderless width-full">
        <caption>Owners, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Owner</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
          </tr>
        </thead>
        <tbody>
          {p.owners.map((o) => (
            <tr key={o.fromDate}>
              <th scope="row">{o.ownerName}</th>
              <td>
                <CalendarDate date={o.fromDate} />
              </td>
              <td>{o.toDate ? <CalendarDate date={o.toDate} /> : "Present owner"}</td>
            </tr>
          ))}
        </tbody>
      </table>

      {clerk && (
        <>
          <h2 id="open">Open an account</h2>
          <p>For a new occupant (a move-in, a tenant, a business): one account for each user of the property.</p>
          <ErrorSummary message={a?.intent === "open" ? a.error : null} fields={e("open")} labels={FORMS.open} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="open" />
            <SelectField name="class" label={FORMS.open.class} options={CLASS_OPTIONS} defaultValue={v("open", "class") ?? "RESIDENTIAL"} error={e("open").class} />
            <TextField name="occupantName" label={FORMS.open.occupantName} defaultValue={v("open", "occupantName")} error={e("open").occupantName} required />
            <TextField name="occupantEmail" type="email" label={FORMS.open.occupantEmail} hint="If the occupant has signed up, they see the account in the portal" defaultValue={v("open", "occupantEmail")} error={e("open").occupantEmail} />
            <TextField name="openedOn" type="date" label={FORMS.open.openedOn} defaultValue={v("open", "openedOn")} error={e("open").openedOn} required />
            <button className="usa-button" type="submit">
              Open the account
            </button>
          </Form>

          <h2 id="sale">Record a sale</h2>
          <p>The seller is owner through the day before the buyer's first day; the accounts you tick close on that last day, with what their final bills need.</p>
          <ErrorSummary message={a?.intent === "sale" ? a.error : null} fields={e("sale")} labels={FORMS.sale} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="sale" />
            <TextField name="transferOn" type="date" label={FORMS.sale.transferOn} defaultValue={v("sale", "transferOn")} error={e("sale").transferOn} required />
            <TextField name="buyerName" label={FORMS.sale.buyerName} defaultValue={v("sale", "buyerName")} error={e("sale").buyerName} required />
            <TextField name="buyerEmail" type="email" label={FORMS.sale.buyerEmail} defaultValue={v("sale", "buyerEmail")} error={e("sale").buyerEmail} />
            <TextField name="buyerMailingAddress" label={FORMS.sale.buyerMailingAddress} defaultValue={v("sale", "buyerMailingAddress")} error={e("sale").buyerMailingAddress} />
            {open.length > 0 && (
              <fieldset className="usa-fieldset">
                <legend className="usa-legend">{FORMS.sale.closeAccountIds}</legend>
                {open.map((x) => (
                  <div className="usa-checkbox" key={x.id}>
                    <input className="usa-checkbox__input" id={`close-${x.id}`} type="checkbox" name="closeAccountIds" value={x.id} />
                    <label className="usa-checkbox__label" htmlFor={`close-${x.id}`}>
                      {x.accountNumber}: {x.occupantName}
                    </label>
                  </div>
                ))}
              </fieldset>
            )}
            <TextField name="forwardingAddress" label={FORMS.sale.forwardingAddress} hint="Where the final bills of the closed accounts go" defaultValue={v("sale", "forwardingAddress")} error={e("sale").forwardingAddress} />
            <div className="usa-checkbox">
              <input className="usa-checkbox__input" id="buyerMovesIn" type="checkbox" name="buyerMovesIn" value="yes" />
              <label className="usa-checkbox__label" htmlFor="buyerMovesIn">
                The buyer moves in: open their account from their first day
              </label>
            </div>
            <SelectField name="buyerAccountClass" label={FORMS.sale.buyerAccountClass} options={CLASS_OPTIONS} defaultValue={v("sale", "buyerAccountClass") ?? "RESIDENTIAL"} error={e("sale").buyerAccountClass} />
            <button className="usa-button" type="submit">
              Record the sale
            </button>
          </Form>

          <h2 id="correct">Correct the address{segments.segmentsEnabled ? " or segment" : ""}</h2>
          <ErrorSummary message={a?.intent === "update" ? a.error : null} fields={e("update")} labels={FORMS.update} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="update" />
            <TextField name="streetNumber" label={FORMS.update.streetNumber} defaultValue={v("update", "streetNumber") ?? p.streetNumber} error={e("update").streetNumber} />
            <TextField name="street" label={FORMS.update.street} defaultValue={v("update", "street") ?? p.street} error={e("update").street} required />
            <TextField name="city" label={FORMS.update.city} defaultValue={v("update", "city") ?? p.city} error={e("update").city} />
            <TextField name="zip" label={FORMS.update.zip} defaultValue={v("update", "zip") ?? p.zip} error={e("update").zip} required />
            {segments.segmentsEnabled && (
              <TextField name="segment" label={FORMS.update.segment} hint={`${segments.segmentsSection}: e.g. a pump station's segment`} defaultValue={v("update", "segment") ?? p.segment} error={e("update").segment} />
            )}
            <button className="usa-button usa-button--outline" type="submit">
              Save the correction
            </button>
          </Form>
        </>
      )}
      <p>
        <Link className="usa-link" to={`/staff/properties?districtId=${p.districtId}`}>
          Back to the register
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

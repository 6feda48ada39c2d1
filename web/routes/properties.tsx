import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { CalendarDate } from "~/components/format";
import { dollarsToCents, money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "My properties and sewer accounts | Tapline" }];

type Account = {
  id: string;
  accountNumber: string;
  classLabel: string;
  occupantName: string;
  openedOn: string;
  closedOn: string | null;
  closeReasonLabel: string | null;
  meters: { id: string; meterNumber: string; removedOn: string | null }[];
  assessment: { basis: string; edus: string | null; effectiveOn: string; rows: { key: string; label: string; count: number; edus: string; section: string }[]; waterUsageEdus: string | null } | null;
};
type Property = { id: string; districtName: string; taxParcel: string; address: string; ownerName: string; owners: { fromDate: string }[]; accounts: Account[] };
type Linked = {
  accountId: string;
  accountNumber: string;
  districtName: string;
  address: string;
  closedOn: string | null;
  balanceCents: number;
  pastDueCents: number;
  lastBill: { id: string; number: string; periodFrom: string; periodTo: string; dueOn: string } | null;
  bills: { id: string; number: string; servedFrom: string; servedTo: string; totalCents: number; dueOn: string | null }[];
};
type Paperless = { accountId: string; paperless: boolean; canChoose: boolean; chosenAt: string | null };
type ActionData = { error?: string; fields?: Record<string, string>; values?: Record<string, string>; done?: string };

export const LABELS = { accountNumber: "Account number", zip: "ZIP code of the service address", amount: "Amount to pay", amountCents: "Amount to pay", accountId: "Account", paperless: "Bills by email only" };

/** An owner's properties (as owner of record) and an occupant's accounts, with how each is assessed: only their own; and the accounts they linked (read and pay only). */
export async function loader(args: LoaderFunctionArgs) {
  const data = await requireSignedIn<{ myServiceProperties: Property[]; myLinkedAccounts: Linked[]; myPaperlessChoices: Paperless[] }>(
    args,
    `query MyProperties { myServiceProperties { id districtName taxParcel address ownerName owners { fromDate }
      accounts { id accountNumber classLabel occupantName openedOn closedOn closeReasonLabel meters { id meterNumber removedOn }
        assessment { basis edus effectiveOn waterUsageEdus rows { key label count edus section } } } }
      myLinkedAccounts { accountId accountNumber districtName address closedOn balanceCents pastDueCents lastBill { id number periodFrom periodTo dueOn }
        bills { id number servedFrom servedTo totalCents dueOn } }
      myPaperlessChoices { accountId paperless canChoose chosenAt } }`,
  );
  const done = new URL(args.request.url).searchParams.get("done");
  return { ...data, done };
}

/** Link an account (number and ZIP), unlink one, pay a linked one, or choose bills by email only. */
export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values = Object.fromEntries(["accountNumber", "zip", "amount", "accountId"].map((k) => [k, String(form.get(k) ?? "").trim()]));
  const fail = (r: { error: { message: string; fields: Record<string, string> }; setCookies: string[] }, rename: Record<string, string> = {}) => {
    const fields = Object.fromEntries(Object.entries(r.error.fields ?? {}).map(([k, v]) => [rename[k] ?? k, v]));
    return Response.json({ error: r.error.message, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  };
  if (intent === "link") {
    const r = await gql(context, request, `mutation Link($i: QuickPayLookupInput!) { linkServiceAccount(input: $i) { accountId accountNumber } }`, {
      i: { accountNumber: values.accountNumber, zip: values.zip },
    });
    if (!r.ok) return fail(r);
    return redirect(`/properties?done=linked`, { headers: cookieHeaders(r) });
  }
  if (intent === "unlink") {
    const r = await gql(context, request, `mutation Unlink($a: ID!) { unlinkServiceAccount(accountId: $a) }`, { a: values.accountId });
    if (!r.ok) return fail(r);
    return redirect(`/properties?done=unlinked`, { headers: cookieHeaders(r) });
  }
  if (intent === "pay") {
    const cents = dollarsToCents(values.amount);
    if (cents === undefined || cents === 0) return Response.json({ error: "Check the amount.", fields: { amount: "Enter an amount in dollars and cents, like 125.50." }, values } satisfies ActionData, { status: 400 });
    const r = await gql<{ payLinkedServiceAccount: { id: string } }>(context, request, `mutation PayLinked($i: PayLinkedServiceAccountInput!) { payLinkedServiceAccount(input: $i) { id } }`, {
      i: { accountId: values.accountId, amountCents: cents },
    });
    if (!r.ok) return fail(r, { amountCents: "amount" });
    return redirect(`/payments/${r.data.payLinkedServiceAccount.id}`, { headers: cookieHeaders(r) });
  }
  if (intent === "paperless") {
    const r = await gql(context, request, `mutation SetPaperless($i: SetPaperlessInput!) { setPaperless(input: $i) { accountId paperless } }`, {
      i: { accountId: values.accountId, paperless: form.get("paperless") === "yes" },
    });
    if (!r.ok) return fail(r);
    return redirect(`/properties?done=paperless`, { headers: cookieHeaders(r) });
  }
  return Response.json({ error: "Choose what to do.", values } satisfies ActionData, { status: 400 });
}

const DONE: Record<string, string> = {
  linked: "The account is linked: you can read its bills and pay them.",
  unlinked: "The account is no longer linked to your sign-in.",
  paperless: "Your choice is saved.",
};

/** Bills by email only (or paper again): only for the person the bills are addressed to. */
function PaperlessForm({ choice }: { choice: Paperless | undefined }) {
  if (!choice?.canChoose) return null;
  return (
    <Form method="post" className="margin-top-1">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="paperless" />
      <input type="hidden" name="accountId" value={choice.accountId} />
      <input type="hidden" name="paperless" value={choice.paperless ? "no" : "yes"} />
      <span className="display-block">{choice.paperless ? "Bills by email only (not mailed on paper)." : "Bills are mailed on paper and emailed."}</span>
      <button className="usa-button usa-button--unstyled" type="submit">
        {choice.paperless ? "Mail my bills on paper again" : "Email only: stop paper bills"}
      </button>
    </Form>
  );
}

export default function MyProperties() {
  const { myServiceProperties: list, myLinkedAccounts: linked, myPaperlessChoices: paperless, done } = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  return (
    <>
      <h1>My properties and sewer accounts</h1>
      {done && DONE[done] && !a && <SuccessAlert>{DONE[done]}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <p>
        <Link className="usa-link" to="/properties/bills">
          My sewer bills
        </Link>
      </p>
      {list.length === 0 ? (
        <p>
          No property or sewer account is linked to your sign-in. The Town Clerk links them when the property is connected under your lateral permit, or when you ask at the
          Clerk's office with the email you sign in with.
        </p>
      ) : (
        list.map((p) => (
          <section key={p.id} aria-labelledby={`p-${p.id}`}>
            <h2 id={`p-${p.id}`}>{p.address}</h2>
            <p>
              {p.districtName}, tax parcel {p.taxParcel}.{" "}
              {p.owners.length > 0 ? (
                <>
                  You are the owner of record since <CalendarDate date={p.owners[0].fromDate} />.
                </>
              ) : (
                <>Owner of record: {p.ownerName}.</>
              )}
            </p>
            {p.accounts.length === 0 ? (
              <p>No sewer account of yours at this property.</p>
            ) : (
              <table className="usa-table usa-table--stacked usa-table--borderless width-full">
                <caption>Sewer accounts at {p.address}</caption>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">Occupant</th>
                    <th scope="col">Served</th>
                    <th scope="col">Assessed as</th>
                    <th scope="col">Meters</th>
                  </tr>
                </thead>
                <tbody>
                  {p.accounts.map((a) => (
                    <tr key={a.id}>
                      <th scope="row" data-label="Account">
                        {a.accountNumber}
                        <span className="display-block">{a.classLabel}</span>
                        {!a.closedOn && (
                          <Link className="usa-link display-block" to={`/properties/autopay/${a.id}`}>
                            Autopay
                          </Link>
                        )}
                      </th>
                      <td data-label="Occupant">{a.occupantName}</td>
                      <td data-label="Served">
                        From <CalendarDate date={a.openedOn} />
                        {a.closedOn ? (
                          <>
                            {" "}
                            to <CalendarDate date={a.closedOn} /> ({a.closeReasonLabel})
                          </>
                        ) : (
                          ", open"
                        )}
                      </td>
                      <td data-label="Assessed as">
                        {!a.assessment ? (
                          "Not assessed yet"
                        ) : a.assessment.basis === "EDU" ? (
                          <>
                            {a.assessment.edus} equivalent dwelling units from <CalendarDate date={a.assessment.effectiveOn} />
                            <ul className="usa-list">
                              {a.assessment.rows.map((r) => (
                                <li key={r.key}>
                                  {r.label}: {r.count} = {r.edus} EDUs ({r.section})
                                </li>
                              ))}
                              {a.assessment.waterUsageEdus && <li>Determined from water usage: {a.assessment.waterUsageEdus} EDUs</li>}
                            </ul>
                          </>
                        ) : (
                          "One user (the minimum charge applies to each user)"
                        )}
                      </td>
                      <td data-label="Meters">
                        {a.meters.filter((m) => !m.removedOn).map((m) => m.meterNumber).join(", ") || "None recorded"}
                        <PaperlessForm choice={paperless.find((c) => c.accountId === a.id)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
      <section aria-labelledby="linked">
        <h2 id="linked">Accounts you pay for others</h2>
        <p>
          A landlord or a property manager links the accounts they pay with the account number and the service address's ZIP code, both on the bill. A linked account's
          bills can be read and paid here; nothing about it can be changed, and its occupant and owner are told it was linked.
        </p>
        {linked.length > 0 && (
          <table className="usa-table usa-table--stacked usa-table--borderless width-full">
            <caption>Linked accounts</caption>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Balance</th>
                <th scope="col">Last bill</th>
                <th scope="col">Pay</th>
                <th scope="col">Link</th>
              </tr>
            </thead>
            <tbody>
              {linked.map((l) => (
                <tr key={l.accountId}>
                  <th scope="row" data-label="Account">
                    {l.accountNumber}
                    <span className="display-block">
                      {l.address} ({l.districtName})
                    </span>
                  </th>
                  <td data-label="Balance">
                    {l.balanceCents < 0 ? `Credit ${money(-l.balanceCents)}` : money(l.balanceCents)}
                    {l.pastDueCents > 0 && <span className="display-block">{money(l.pastDueCents)} past due</span>}
                  </td>
                  <td data-label="Last bill">
                    {l.lastBill ? (
                      <>
                        <Link className="usa-link" to={`/properties/bills/${l.lastBill.id}`}>
                          {l.lastBill.number}
                        </Link>
                        <span className="display-block">
                          <CalendarDate date={l.lastBill.periodFrom} /> to <CalendarDate date={l.lastBill.periodTo} />, due <CalendarDate date={l.lastBill.dueOn} />
                        </span>
                      </>
                    ) : (
                      "No bill yet"
                    )}
                  </td>
                  <td data-label="Pay">
                    <Form method="post">
                      <AuthenticityTokenInput />
                      <input type="hidden" name="intent" value="pay" />
                      <input type="hidden" name="accountId" value={l.accountId} />
                      <label className="usa-label margin-top-0" htmlFor={`amount-${l.accountId}`}>
                        Amount
                      </label>
                      {a?.values?.accountId === l.accountId && a.fields?.amount && (
                        <span className="usa-error-message" id={`amount-${l.accountId}-error`} role="alert">
                          {a.fields.amount}
                        </span>
                      )}
                      <input
                        className="usa-input usa-input--small"
                        id={`amount-${l.accountId}`}
                        name="amount"
                        inputMode="decimal"
                        aria-invalid={a?.values?.accountId === l.accountId && a.fields?.amount ? true : undefined}
                        aria-describedby={a?.values?.accountId === l.accountId && a.fields?.amount ? `amount-${l.accountId}-error` : undefined}
                        defaultValue={l.balanceCents > 0 ? (l.balanceCents / 100).toFixed(2) : ""}
                      />
                      <button className="usa-button usa-button--outline margin-top-1" type="submit">
                        Pay
                      </button>
                    </Form>
                  </td>
                  <td data-label="Link">
                    <Form method="post">
                      <AuthenticityTokenInput />
                      <input type="hidden" name="intent" value="unlink" />
                      <input type="hidden" name="accountId" value={l.accountId} />
                      <button className="usa-button usa-button--unstyled" type="submit">
                        Unlink {l.accountNumber}
                      </button>
                    </Form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <h3>Link an account</h3>
        <Form method="post" className="usa-form" noValidate>
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="link" />
          <TextField name="accountNumber" label={LABELS.accountNumber} hint="For example LKV-000123" defaultValue={a?.values?.accountNumber} error={a?.fields?.accountNumber} required />
          <TextField name="zip" label={LABELS.zip} inputMode="numeric" defaultValue={a?.values?.zip} error={a?.fields?.zip} required />
          <button className="usa-button" type="submit">
            Link the account
          </button>
        </Form>
      </section>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

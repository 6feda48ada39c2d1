import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { CalendarDate } from "~/components/format";
import { centsToDollars, dollarsToCents, money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Pay a sewer bill | Tapline" }];

type Account = {
  accountNumber: string;
  districtName: string;
  balanceCents: number;
  pastDueCents: number;
  periodFrom: string | null;
  periodTo: string | null;
  dueOn: string | null;
  cardPayments: boolean;
};
type Values = { accountNumber: string; zip: string; amount: string; email: string };
type ActionData = { account?: Account; error?: string; fields?: Record<string, string>; values: Values };

export const LABELS = { accountNumber: "Account number", zip: "ZIP code of the service address", amount: "Amount to pay", amountCents: "Amount to pay", email: "Email for the receipt (optional)" };

export async function loader({ request }: LoaderFunctionArgs) {
  return { cancelled: new URL(request.url).searchParams.get("cancelled") === "1" };
}

const LOOKUP = `mutation QuickPayLookup($i: QuickPayLookupInput!) { quickPayLookup(input: $i) { accountNumber districtName balanceCents pastDueCents periodFrom periodTo dueOn cardPayments } }`;

/** Quick pay without signing in: the number and ZIP show what is due; Pay starts the checkout. */
export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Values = {
    accountNumber: String(form.get("accountNumber") ?? "").trim(),
    zip: String(form.get("zip") ?? "").trim(),
    amount: String(form.get("amount") ?? "").trim(),
    email: String(form.get("email") ?? "").trim(),
  };
  const i = { accountNumber: values.accountNumber, zip: values.zip };
  if (form.get("intent") === "pay") {
    const cents = dollarsToCents(values.amount);
    const again = async (error: string, fields: Record<string, string>) => {
      const r = await gql<{ quickPayLookup: Account }>(context, request, LOOKUP, { i });
      return Response.json({ error, fields, values, account: r.ok ? r.data.quickPayLookup : undefined } satisfies ActionData, { status: 400 });
    };
    if (cents === undefined || cents === 0) return again("Check the amount.", { amount: "Enter an amount in dollars and cents, like 125.50." });
    const r = await gql<{ startQuickPay: { url: string } }>(context, request, `mutation StartQuickPay($i: StartQuickPayInput!) { startQuickPay(input: $i) { url paymentId } }`, {
      i: { ...i, amountCents: cents, email: values.email || null },
    });
    if (!r.ok) {
      const fields: Record<string, string> = Object.fromEntries(Object.entries(r.error.fields ?? {}).map(([k, v]) => [k === "amountCents" ? "amount" : k, v]));
      if (fields.accountNumber || r.error.code === "TOO_MANY_REQUESTS") return Response.json({ error: r.error.message, fields, values } satisfies ActionData, { status: 400 });
      return again(r.error.message, fields);
    }
    return redirect(r.data.startQuickPay.url, { headers: cookieHeaders(r) });
  }
  const r = await gql<{ quickPayLookup: Account }>(context, request, LOOKUP, { i });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: r.error.code === "TOO_MANY_REQUESTS" ? 429 : 400 });
  const account = r.data.quickPayLookup;
  return Response.json({ account, values: { ...values, amount: account.balanceCents > 0 ? centsToDollars(account.balanceCents) : "" } } satisfies ActionData);
}

export default function QuickPay() {
  const { cancelled } = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  const acct = a?.account;
  return (
    <div className="tablet:grid-col-8">
      <h1>Pay a sewer bill</h1>
      {cancelled && !a && <Notice>You left the checkout; nothing was charged. You can start again below.</Notice>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      {!acct ? (
        <>
          <p>
            No need to sign in. Enter the account number printed on your bill and the ZIP code of the address the sewer service is for. We show what is due and the last
            bill's period, then you pay by card.
          </p>
          <Form method="post" className="usa-form" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="lookup" />
            <TextField name="accountNumber" label={LABELS.accountNumber} hint="For example LKV-000123" defaultValue={a?.values.accountNumber} error={a?.fields?.accountNumber} required />
            <TextField name="zip" label={LABELS.zip} inputMode="numeric" autoComplete="postal-code" defaultValue={a?.values.zip} error={a?.fields?.zip} required />
            <button className="usa-button" type="submit">
              Show what is due
            </button>
          </Form>
          <p>
            Pay often for several properties?{" "}
            <Link className="usa-link" to="/properties">
              Sign in and link your accounts
            </Link>
            .
          </p>
        </>
      ) : (
        <>
          <h2>Account {acct.accountNumber}</h2>
          <dl className="tapline-facts">
            <dt>Amount due</dt>
            <dd>{acct.balanceCents < 0 ? `None: a credit of ${money(-acct.balanceCents)}` : money(acct.balanceCents)}</dd>
            {acct.pastDueCents > 0 && (
              <>
                <dt>Past due</dt>
                <dd>{money(acct.pastDueCents)}</dd>
              </>
            )}
            <dt>Last bill's period</dt>
            <dd>
              {acct.periodFrom ? (
                <>
                  <CalendarDate date={acct.periodFrom} /> to <CalendarDate date={acct.periodTo} />
                </>
              ) : (
                "No bill yet"
              )}
            </dd>
            <dt>Due date</dt>
            <dd>{acct.dueOn ? <CalendarDate date={acct.dueOn} /> : "None"}</dd>
          </dl>
          {acct.cardPayments ? (
            <Form method="post" className="usa-form" noValidate>
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="pay" />
              <input type="hidden" name="accountNumber" value={a!.values.accountNumber} />
              <input type="hidden" name="zip" value={a!.values.zip} />
              <TextField
                name="amount"
                label={LABELS.amount}
                hint="In dollars. Less than the amount due is a partial payment; more is a credit toward the next bill."
                inputMode="decimal"
                defaultValue={a!.values.amount}
                error={a?.fields?.amount}
                required
              />
              <TextField name="email" label={LABELS.email} type="email" autoComplete="email" hint="We email the receipt here." defaultValue={a!.values.email} error={a?.fields?.email} />
              <button className="usa-button usa-button--big" type="submit">
                Pay {acct.districtName} by card
              </button>
            </Form>
          ) : (
            <Notice type="warning">
              {acct.districtName} takes payments at the district office only (cash or check): it has not connected its own card payment account yet. Bring the account number.
            </Notice>
          )}
          <p>
            <Link className="usa-link" to="/pay">
              Another account
            </Link>
          </p>
        </>
      )}
    </div>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

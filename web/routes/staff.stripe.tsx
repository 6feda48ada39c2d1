import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Card payments | Staff | Tapline" }];

type Connection = {
  stripeConfigured: boolean;
  connectWebhookConfigured: boolean;
  accountId: string | null;
  connectedBy: string | null;
  chargesEnabled: boolean;
  detailsSubmitted: boolean;
  payoutsEnabled: boolean;
  statusCheckedAt: string | null;
  takesCardPayments: boolean;
};
type Data = { districts: { id: string; name: string; timeZone: string }[]; districtId: string; connection: Connection };

const FIELDS = `stripeConfigured connectWebhookConfigured accountId connectedBy chargesEnabled detailsSubmitted payoutsEnabled statusCheckedAt takesCardPayments`;

/** ADMIN: the district's own Stripe account, where its card payments go (Stripe Connect). */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["ADMIN"]);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  // Back from Stripe's onboarding: ask Stripe how the account stands now (its event may come later).
  if (url.searchParams.get("link") === "returned") {
    const r = await gql<{ refreshStripeAccount: Connection }>(args.context, args.request, `mutation Refresh($d: ID!) { refreshStripeAccount(districtId: $d) { ${FIELDS} } }`, { d: district.id });
    if (r.ok) return Response.json({ ...base(info.districts, district.id), connection: r.data.refreshStripeAccount } satisfies Data, { headers: cookieHeaders(r) });
  }
  const { districtStripeAccount } = await requireSignedIn<{ districtStripeAccount: Connection }>(
    args,
    `query StripeAccount($d: ID!) { districtStripeAccount(districtId: $d) { ${FIELDS} } }`,
    { d: district.id },
  );
  return { ...base(info.districts, district.id), connection: districtStripeAccount } satisfies Data;
}

const base = (districts: { id: string; name: string; timeZone: string }[], districtId: string) => ({
  districts: districts.map((d) => ({ id: d.id, name: d.name, timeZone: d.timeZone })),
  districtId,
});

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const districtId = String(form.get("districtId") ?? "");
  if (intent === "onboard") {
    const r = await gql<{ startStripeOnboarding: { url: string } }>(context, request, `mutation Onboard($d: ID!) { startStripeOnboarding(districtId: $d) { url } }`, { d: districtId });
    if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields }, { status: 400, headers: cookieHeaders(r) });
    // Stripe's hosted onboarding (another site); it sends the ADMIN back here.
    return redirect(r.data.startStripeOnboarding.url, { headers: cookieHeaders(r) });
  }
  const r = await gql(context, request, `mutation Refresh($d: ID!) { refreshStripeAccount(districtId: $d) { accountId } }`, { d: districtId });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields }, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/stripe?districtId=${districtId}&done=checked`, { headers: cookieHeaders(r) });
}

/** The page's forms name only the district (the API's other errors are the summary's message). */
export const LABELS: Record<string, string> = { districtId: "District" };

const yesNo = (v: boolean) => (v ? "Yes" : "No");

export default function StripeAccount() {
  const { districts, districtId, connection: c } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string; fields?: Record<string, string> }>();
  const [params] = useSearchParams();
  const district = districts.find((d) => d.id === districtId)!;
  const byOperator = c.connectedBy === "OPERATOR";
  return (
    <>
      <h1>Card payments: {district.name}'s Stripe account</h1>
      <p className="usa-intro">
        Card payments to {district.name} are made on the district's own Stripe account and paid out from it to the district's bank. Tapline never
        holds the money.
      </p>
      {params.get("done") === "checked" && !a && <SuccessAlert>Stripe was asked how the account stands; this page shows its answer.</SuccessAlert>}
      {params.get("link") === "expired" && (
        <Notice type="warning">Stripe's setup link had expired or was already used. Press "Continue Stripe's setup" for a new one.</Notice>
      )}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label={LABELS.districtId} options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <button className="usa-button" type="submit">
            Show
          </button>
        </Form>
      )}

      {!c.stripeConfigured ? (
        <Notice type="warning">
          This portal is not connected to Stripe (the deployment's operator has not set its Stripe keys). Payers see a test checkout, clearly
          labelled; no real money moves.
        </Notice>
      ) : (
        <>
          <h2>Where payers pay</h2>
          <p>
            {c.takesCardPayments
              ? "Payers can pay by card online; the money goes to the account below."
              : "Payers pay at the district office only, in cash or by check: the pay page tells them so. Card payments open once the account below can take them."}
          </p>
          {!c.connectWebhookConfigured && (
            <Notice type="warning">
              The deployment's operator has not set the signing secret of Stripe's Connect webhook (STRIPE_CONNECT_WEBHOOK_SECRET). Until then no
              district takes card payments, since the portal could not confirm them.
            </Notice>
          )}
          <h2>The account</h2>
          {c.accountId ? (
            <dl className="tapline-facts">
              <dt>Stripe account</dt>
              <dd>
                <code>{c.accountId}</code>
              </dd>
              <dt>Connected by</dt>
              <dd>{byOperator ? "The portal's operator" : "The district's ADMIN, through Stripe's setup"}</dd>
              <dt>Stripe lets it take card payments</dt>
              <dd>{yesNo(c.chargesEnabled)}</dd>
              <dt>The district has given Stripe the details it asks for</dt>
              <dd>{yesNo(c.detailsSubmitted)}</dd>
              <dt>Stripe pays its balance out to the district's bank</dt>
              <dd>{yesNo(c.payoutsEnabled)}</dd>
              <dt>Last heard from Stripe</dt>
              <dd>{c.statusCheckedAt ? <DateTime iso={c.statusCheckedAt} timeZone={district.timeZone} /> : "Not yet"}</dd>
            </dl>
          ) : (
            <p>No Stripe account is connected yet.</p>
          )}
          {byOperator ? (
            <p>The portal's operator connected this account; ask them to change it.</p>
          ) : (
            <Form method="post" className="usa-form">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="onboard" />
              <input type="hidden" name="districtId" value={districtId} />
              <p className="usa-hint">
                {c.accountId
                  ? "Stripe's setup asks for what it still needs (the district's details, its bank account)."
                  : "Stripe makes an account for the district and asks for its details and bank account. You come back here when it is done."}
              </p>
              <button className="usa-button" type="submit">
                {c.accountId ? "Continue Stripe's setup" : "Connect a Stripe account"}
              </button>
            </Form>
          )}
          {c.accountId && (
            <p>
              <Link className="usa-link" to={`/staff/stripe/payouts?districtId=${districtId}`}>
                Payouts to the bank
              </Link>
              : what Stripe paid out of this account, and the payments in each, with Stripe's fees.
            </p>
          )}
          {c.accountId && (
            <Form method="post" className="usa-form">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="refresh" />
              <input type="hidden" name="districtId" value={districtId} />
              <button className="usa-button usa-button--outline" type="submit">
                Ask Stripe how the account stands now
              </button>
            </Form>
          )}
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

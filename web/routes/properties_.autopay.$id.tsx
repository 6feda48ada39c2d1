import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { ErrorSummary } from "~/components/forms";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Autopay | Tapline" }];

/** The page's forms are buttons; what the API may name. */
export const LABELS = {
  accountId: "Account",
  enabled: "Autopay",
  declines: "Test card",
};

type Charge = {
  billId: string;
  billNumber: string;
  dueOn: string;
  amountCents: number;
  status: string;
  statusText: string;
  paymentId: string | null;
  receiptNumber: string | null;
};
type Autopay = {
  accountId: string;
  accountNumber: string;
  address: string;
  districtName: string;
  provider: string;
  offered: boolean;
  notOfferedReason: string | null;
  canManage: boolean;
  card: {
    label: string;
    test: boolean;
    expMonth: number | null;
    expYear: number | null;
  } | null;
  setupPending: boolean;
  enabled: boolean;
  enabledOn: string | null;
  retryDays: number;
  charges: Charge[];
};

const FIELDS = `accountId accountNumber address districtName provider offered notOfferedReason canManage setupPending enabled enabledOn retryDays
  card { label test expMonth expYear } charges { billId billNumber dueOn amountCents status statusText paymentId receiptNumber }`;

/** The account's autopay; back from Stripe's page (?setup=done) the card saved there is kept first. */
export async function loader(args: LoaderFunctionArgs) {
  const { request, context, params } = args;
  if (new URL(request.url).searchParams.get("setup") === "done")
    await gql(context, request, `mutation FinishAutopaySetup($a: ID!) { finishAutopaySetup(accountId: $a) { accountId } }`, { a: params.id });
  return requireSignedIn<{ serviceAccountAutopay: Autopay }>(args, `query Autopay($a: ID!) { serviceAccountAutopay(accountId: $a) { ${FIELDS} } }`, {
    a: params.id,
  });
}

const MUTATIONS: Record<string, { query: string; vars: (a: string) => Record<string, unknown>; done: string }> = {
  "test-card": {
    query: `mutation($i: SaveTestAutopayCardInput!) { saveTestAutopayCard(input: $i) { accountId } }`,
    vars: (a) => ({ i: { accountId: a, declines: false } }),
    done: "The test card is saved and autopay is on.",
  },
  "test-card-declines": {
    query: `mutation($i: SaveTestAutopayCardInput!) { saveTestAutopayCard(input: $i) { accountId } }`,
    vars: (a) => ({ i: { accountId: a, declines: true } }),
    done: "The declining test card is saved and autopay is on.",
  },
  on: {
    query: `mutation($i: SetAutopayInput!) { setAutopay(input: $i) { accountId } }`,
    vars: (a) => ({ i: { accountId: a, enabled: true } }),
    done: "Autopay is on.",
  },
  off: {
    query: `mutation($i: SetAutopayInput!) { setAutopay(input: $i) { accountId } }`,
    vars: (a) => ({ i: { accountId: a, enabled: false } }),
    done: "Autopay is off. Your card stays saved.",
  },
  remove: {
    query: `mutation($a: ID!) { removeAutopayCard(accountId: $a) { accountId } }`,
    vars: (a) => ({ a }),
    done: "The card is removed and autopay is off.",
  },
};

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const intent = String((await request.formData()).get("intent") ?? "");
  const a = params.id!;
  const r =
    intent === "setup"
      ? await gql<{ startAutopaySetup: { url: string } }>(context, request, `mutation($a: ID!) { startAutopaySetup(accountId: $a) { url } }`, { a })
      : MUTATIONS[intent]
      ? await gql(context, request, MUTATIONS[intent].query, MUTATIONS[intent].vars(a))
      : null;
  if (!r) return Response.json({ error: "Choose one of the page's buttons." }, { status: 400 });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED")
      throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/properties/autopay/${a}`)}`, { headers: cookieHeaders(r) });
    return Response.json(
      { error: r.error.message },
      {
        status: r.error.code === "NOT_FOUND" ? 404 : 400,
        headers: cookieHeaders(r),
      }
    );
  }
  // Stripe's page (another site), where the card is typed; or back here with what was done.
  if (intent === "setup")
    return redirect((r.data as any).startAutopaySetup.url, {
      headers: cookieHeaders(r),
    });
  return Response.json({ done: MUTATIONS[intent].done }, { headers: cookieHeaders(r) });
}

function Button({ intent, children, secondary }: { intent: string; children: React.ReactNode; secondary?: boolean }) {
  return (
    <li className="usa-button-group__item">
      <Form method="post" reloadDocument>
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value={intent} />
        <button className={`usa-button${secondary ? " usa-button--outline" : ""}`} type="submit">
          {children}
        </button>
      </Form>
    </li>
  );
}

export default function AutopayPage() {
  const { serviceAccountAutopay: ap } = useLoaderData<typeof loader>();
  const a = useActionData<{ error?: string; done?: string }>();
  const [params] = useSearchParams();
  return (
    <div className="tablet:grid-col-10">
      <p>
        <Link className="usa-link" to="/properties">
          My properties and sewer accounts
        </Link>
      </p>
      <h1>Autopay for sewer account {ap.accountNumber}</h1>
      <p className="usa-intro">
        {ap.address}, {ap.districtName}
      </p>
      <ErrorSummary message={a?.error} />
      {a?.done && <Notice>{a.done}</Notice>}
      {params.get("setup") === "done" && ap.setupPending && (
        <Notice>We are waiting for Stripe to confirm your card. Refresh this page in a moment.</Notice>
      )}

      <section aria-labelledby="how-heading">
        <h2 id="how-heading">How autopay works</h2>
        <p>
          Each new bill of this account is charged to your saved card on its due date, for the account's balance due. If the card is declined, we try
          once more {ap.retryDays} days later; if it is declined again, the bill is left for you to pay. We email you each time.
        </p>
      </section>

      {!ap.offered && (
        <Notice type="warning">{ap.notOfferedReason} You can pay each bill online when card payments are offered, or at the district office.</Notice>
      )}

      <section aria-labelledby="card-heading">
        <h2 id="card-heading">Your card</h2>
        {ap.card ? (
          <p>
            {ap.card.label}
            {ap.card.expMonth && ap.card.expYear ? `, expires ${String(ap.card.expMonth).padStart(2, "0")}/${ap.card.expYear}` : ""}. Autopay is{" "}
            <strong>{ap.enabled ? "on" : "off"}</strong>
            {ap.enabled && ap.enabledOn ? (
              <>
                {" "}
                (bills due from <CalendarDate date={ap.enabledOn} /> on)
              </>
            ) : null}
            .
          </p>
        ) : (
          <p>No card is saved for this account.</p>
        )}
        {!ap.canManage && <p>Only the person billed for this account manages its autopay.</p>}
        {ap.canManage && (
          <>
            {ap.offered && ap.provider === "stripe" && (
              <p className="usa-hint">
                You type your card on Stripe's secure page, on {ap.districtName}
                's own account. Tapline never sees your card number.
              </p>
            )}
            {ap.offered && ap.provider === "test" && (
              <Notice type="warning">
                <strong>Test mode: no real card, no real money.</strong> This portal is not connected to a card processor; a test card stands in.
              </Notice>
            )}
            <ul className="usa-button-group">
              {ap.offered && ap.provider === "stripe" && (
                <>
                  <Button intent="setup">{ap.card ? "Use another card" : "Save a card for autopay"}</Button>
                </>
              )}
              {ap.offered && ap.provider === "test" && (
                <>
                  <Button intent="test-card">Save the test card</Button>
                  <Button intent="test-card-declines" secondary>
                    Save a test card that declines
                  </Button>
                </>
              )}
              {ap.card && ap.offered && !ap.enabled && <Button intent="on">Turn autopay on</Button>}
              {ap.card && ap.enabled && (
                <Button intent="off" secondary>
                  Turn autopay off
                </Button>
              )}
              {ap.card && (
                <Button intent="remove" secondary>
                  Remove the card
                </Button>
              )}
            </ul>
          </>
        )}
      </section>

      {ap.charges.length > 0 && (
        <section aria-labelledby="charges-heading">
          <h2 id="charges-heading">Autopay charges</h2>
          <table className="usa-table usa-table--borderless">
            <caption className="usa-sr-only">Each bill autopay charged or tried, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Bill</th>
                <th scope="col">Due</th>
                <th scope="col" className="text-right">
                  Amount
                </th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {ap.charges.map((c) => (
                <tr key={c.billId}>
                  <td>
                    <Link className="usa-link" to={`/properties/bills/${c.billId}`}>
                      {c.billNumber}
                    </Link>
                  </td>
                  <td>
                    <CalendarDate date={c.dueOn} />
                  </td>
                  <td className="text-right">{c.amountCents ? money(c.amountCents) : "—"}</td>
                  <td>
                    {c.statusText}
                    {c.paymentId && c.receiptNumber ? (
                      <>
                        {" "}
                        (
                        <Link className="usa-link" to={`/payments/${c.paymentId}/receipt`}>
                          receipt {c.receiptNumber}
                        </Link>
                        )
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

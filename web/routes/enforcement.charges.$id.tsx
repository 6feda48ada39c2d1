import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { StatementTable, date, type Statement } from "~/components/enforcement";
import { NestedErrorBoundary } from "~/components/fields";
import { ErrorSummary } from "~/components/forms";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Charge | Tapline" }];

type Charge = {
  id: string;
  number: string;
  label: string;
  status: string;
  billedOn: string;
  respondentName: string;
  actionId: string | null;
  district: { name: string };
  payment: { id: string; status: string; receiptNumber: string | null } | null;
  statement: Statement;
};

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ charge: Charge }>(
    args,
    `query Charge($id: ID!) { charge(id: $id) { id number label status billedOn respondentName actionId district { name } payment { id status receiptNumber }
      statement { asOf lastDayWithoutPenalty delinquent daysDelinquent totalCents violationSince violationSection explanation lines { code label section amountCents } } } }`,
    { id: args.params.id },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const r = await gql<{ payCharge: { id: string } }>(context, request, `mutation PayCharge($id: ID!) { payCharge(id: $id) { id } }`, { id: params.id });
  if (r.ok) return redirect(`/payments/${r.data.payCharge.id}`, { headers: cookieHeaders(r) });
  if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/enforcement/charges/${params.id}`)}`, { headers: cookieHeaders(r) });
  return Response.json({ error: r.error.message }, { status: 400, headers: cookieHeaders(r) });
}

export default function ChargePage() {
  const { charge: c } = useLoaderData<typeof loader>() as { charge: Charge };
  const a = useActionData<{ error: string }>();
  return (
    <>
      <h1>{c.label}</h1>
      <p className="usa-intro">
        {c.number} · billed {date(c.billedOn)} to {c.respondentName} · {c.district.name}
      </p>
      <ErrorSummary message={a?.error} />
      {c.status === "PAID" ? (
        <p>
          Paid
          {c.payment?.receiptNumber && (
            <>
              : receipt{" "}
              <Link className="usa-link" to={`/payments/${c.payment.id}/receipt`}>
                {c.payment.receiptNumber}
              </Link>
            </>
          )}
          .
        </p>
      ) : c.status === "CANCELLED" ? (
        <p>This charge was cancelled; nothing is owed.</p>
      ) : c.status === "HELD" ? (
        <p>A petition against this fine is before the Board; nothing is due until it is decided.</p>
      ) : (
        <>
          <StatementTable s={c.statement} caption="Statement: what you owe today, and the section of the law each amount comes from" />
          <Form method="post">
            <AuthenticityTokenInput />
            <button className="usa-button" type="submit">
              Pay {money(c.statement.totalCents)} online
            </button>
          </Form>
        </>
      )}
      <p>
        {c.actionId ? (
          <Link className="usa-link" to={`/enforcement/${c.actionId}`}>
            The fine this charge is for
          </Link>
        ) : (
          <Link className="usa-link" to="/enforcement">
            All my notices, orders and charges
          </Link>
        )}
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

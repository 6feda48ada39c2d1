import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { ErrorSummary } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { money } from "~/components/money";
import { asSentence } from "~/components/payment-status";
import { accessOf, publicQuery, QUICK_PAYMENT_FIELDS, type QuickPayment } from "~/components/quick-pay.server";

export const meta: MetaFunction = () => [{ title: "TEST CHECKOUT (not a real payment) | Tapline" }];

type Session = {
  id: string;
  status: string;
  amountCents: number;
  payableTitle: string;
  lines: { code: string; label: string; section: string; amountCents: number }[];
  district: { name: string };
  cancelReason: string | null;
};


/** Only while the portal has no Stripe keys (the API refuses otherwise), and only for the payer. */
export async function loader(args: LoaderFunctionArgs) {
  // Quick pay (no sign-in): the checkout's address carries the payment's access token.
  const access = accessOf(args.request);
  if (access) {
    const { quickPayTestCheckout: q } = await publicQuery<{ quickPayTestCheckout: QuickPayment }>(
      args.context,
      args.request,
      `query QuickPayTestCheckout($s: String!, $a: String!) { quickPayTestCheckout(sessionId: $s, access: $a) { ${QUICK_PAYMENT_FIELDS} } }`,
      { s: args.params.sessionId, a: access },
    );
    const session: Session = { ...q, payableTitle: `Sewer account ${q.accountNumber}`, district: { name: q.districtName } };
    return { session, access };
  }
  const { testCheckout } = await requireSignedIn<{ testCheckout: Session }>(
    args,
    `query TestCheckout($s: String!) { testCheckout(sessionId: $s) { id status amountCents payableTitle lines { code label section amountCents } district { name } cancelReason } }`,
    { s: args.params.sessionId },
  );
  return { session: testCheckout, access: null };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const outcome = form.get("outcome") === "PAY" ? "PAY" : "CANCEL";
  const access = String(form.get("access") ?? "");
  if (access) {
    const q = await gql<{ completeQuickPayTestCheckout: { id: string } }>(
      context,
      request,
      `mutation CompleteQuickPayTestCheckout($s: String!, $a: String!, $o: String!) { completeQuickPayTestCheckout(sessionId: $s, access: $a, outcome: $o) { id status } }`,
      { s: params.sessionId, a: access, o: outcome },
    );
    if (!q.ok) return Response.json({ error: q.error.message }, { status: 400, headers: cookieHeaders(q) });
    const id = q.data.completeQuickPayTestCheckout.id;
    return redirect(outcome === "PAY" ? `/payments/${id}/done?access=${encodeURIComponent(access)}` : "/pay?cancelled=1", { headers: cookieHeaders(q) });
  }
  const r = await gql<{ completeTestCheckout: { id: string } }>(
    context,
    request,
    `mutation CompleteTestCheckout($s: String!, $o: String!) { completeTestCheckout(sessionId: $s, outcome: $o) { id status } }`,
    { s: params.sessionId, o: outcome },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED")
      throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/payments/test-checkout/${params.sessionId}`)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message }, { status: 400, headers: cookieHeaders(r) });
  }
  const id = r.data.completeTestCheckout.id;
  // Like Stripe's success_url and cancel_url: the done page reads the status from the API.
  return redirect(outcome === "PAY" ? `/payments/${id}/done` : `/payments/${id}?cancelled=1`, { headers: cookieHeaders(r) });
}

/** The test checkout's (its buttons are its only fields: an error is the summary's message). */
export const LABELS = { outcome: "Pay or cancel", sessionId: "Checkout", access: "Checkout" };

export default function TestCheckout() {
  const { session: s, access } = useLoaderData<typeof loader>() as { session: Session; access: string | null };
  const back = access ? `/payments/${s.id}/done?access=${encodeURIComponent(access)}` : `/payments/${s.id}`;
  const a = useActionData<{ error: string }>();
  return (
    <div className="tablet:grid-col-8">
      <div className="usa-alert usa-alert--warning margin-bottom-3">
        <div className="usa-alert__body">
          <h1 className="usa-alert__heading font-heading-2xl line-height-heading-1 margin-y-1">TEST CHECKOUT — this is not a real payment</h1>
          <p className="usa-alert__text">
            This portal is not connected to a card processor. Nothing is charged and no money moves. Pressing "Pay (test)" marks the payment as
            paid exactly as a real card payment would, so the rest of the process can be tried out.
          </p>
        </div>
      </div>
      <ErrorSummary message={a?.error} />
      <p>
        {s.district.name}: {s.payableTitle}
      </p>
      <ul className="usa-list usa-list--unstyled margin-bottom-2">
        {s.lines.map((l) => (
          <li key={l.code}>
            {l.label} ({l.section}): {money(l.amountCents)}
          </li>
        ))}
      </ul>
      <p className="font-heading-xl text-bold">
        Amount: {money(s.amountCents)}
      </p>
      {s.status === "PENDING" ? (
        <Form method="post" reloadDocument>
          <AuthenticityTokenInput />
          {access && <input type="hidden" name="access" value={access} />}
          <button className="usa-button usa-button--big" type="submit" name="outcome" value="PAY">
            Pay (test)
          </button>
          <button className="usa-button usa-button--outline usa-button--big" type="submit" name="outcome" value="CANCEL">
            Cancel
          </button>
        </Form>
      ) : s.status === "CANCELLED" ? (
        <p>
          This payment was cancelled: {asSentence(s.cancelReason)} Nothing is due.{" "}
          <Link className="usa-link" to={back}>
            See the payment
          </Link>
        </p>
      ) : (
        <p>
          This payment is no longer waiting.{" "}
          <Link className="usa-link" to={back}>
            See the payment
          </Link>
        </p>
      )}
    </div>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [
  { title: "Choose a new password | Tapline" },
  // The link's token is in the address: do not leak it to other sites.
  { name: "referrer", content: "same-origin" },
];

export function loader({ request }: LoaderFunctionArgs) {
  return { token: new URL(request.url).searchParams.get("token") ?? "" };
}

type ActionData = { done?: string; error?: string; fields?: Record<string, string>; linkProblem?: boolean };

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const input = { token: String(form.get("token") ?? ""), password: String(form.get("password") ?? "") };
  const r = await gql<{ resetPassword: { message: string } }>(
    context,
    request,
    `mutation ResetPassword($input: ResetPasswordInput!) { resetPassword(input: $input) { ok message } }`,
    { input }
  );
  if (!r.ok) {
    // A bad or expired link cannot be fixed on this page: say so and offer a new one.
    const linkProblem = r.error.code === "DEADLINE_PASSED" || "token" in r.error.fields;
    const { token: _t, ...fields } = r.error.fields;
    return Response.json({ error: r.error.message, fields, linkProblem } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return Response.json({ done: r.data.resetPassword.message } satisfies ActionData, { headers: cookieHeaders(r) });
}

/** The form's labels (the token is the link's). */
export const LABELS = { password: "New password" };

export default function ResetPassword() {
  const { token } = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  if (a?.done)
    return (
      <div className="tablet:grid-col-8">
        <h1>Your password is changed</h1>
        <SuccessAlert>{a.done}</SuccessAlert>
        <p>
          <Link className="usa-button" to="/sign-in">
            Sign in with your new password
          </Link>
        </p>
      </div>
    );
  if (!token || a?.linkProblem)
    return (
      <div className="tablet:grid-col-8">
        <h1>Choose a new password</h1>
        <div className="usa-alert usa-alert--error" role="alert">
          <div className="usa-alert__body">
            <h2 className="usa-alert__heading">This link does not work</h2>
            <p className="usa-alert__text">
              {a?.error ?? "The link is incomplete. Open the link from the email exactly as it was sent, or ask for a new one."}
            </p>
          </div>
        </div>
        <p>
          <Link className="usa-button" to="/forgot-password">
            Ask for a new password reset link
          </Link>
        </p>
      </div>
    );
  return (
    <div className="tablet:grid-col-8">
      <h1>Choose a new password</h1>
      <p>Choosing a new password signs you out on every device. Then sign in with the new one.</p>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" className="usa-form" noValidate>
        <AuthenticityTokenInput />
        <input type="hidden" name="token" value={token} />
        <TextField
          name="password"
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters. A short sentence is easy to remember."
          error={a?.fields?.password}
          required
        />
        <button className="usa-button" type="submit">
          Change my password
        </button>
      </Form>
    </div>
  );
}

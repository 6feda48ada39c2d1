import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Reset your password | Tapline" }];

type ActionData = { sent?: string; error?: string; fields?: Record<string, string>; email: string };

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  const r = await gql<{ requestPasswordReset: { message: string } }>(
    context,
    request,
    `mutation RequestPasswordReset($email: String!) { requestPasswordReset(email: $email) { ok message } }`,
    { email }
  );
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, email } satisfies ActionData, { status: 400 });
  return Response.json({ sent: r.data.requestPasswordReset.message, email } satisfies ActionData);
}

/** The form's labels. */
export const LABELS = { email: "Email address" };

export default function ForgotPassword() {
  const a = useActionData<ActionData>();
  return (
    <div className="tablet:grid-col-8">
      <h1>Reset your password</h1>
      {a?.sent ? (
        <>
          <SuccessAlert>{a.sent}</SuccessAlert>
          <p>
            The email comes from the district. If the district has no mail server, sign in after resetting and read it under{" "}
            <strong>Account, Emails</strong>. No email after a few minutes? Check the address and{" "}
            <Link className="usa-link" to="/forgot-password">
              ask for another link
            </Link>
            .
          </p>
          <p>
            <Link className="usa-link" to="/sign-in">
              Back to sign in
            </Link>
          </p>
        </>
      ) : (
        <>
          <p>Enter the email address of your account. We will email you a link to choose a new password.</p>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form" noValidate>
            <AuthenticityTokenInput />
            <TextField
              name="email"
              label="Email address"
              type="email"
              autoComplete="email"
              defaultValue={a?.email}
              error={a?.fields?.email}
              required
            />
            <button className="usa-button" type="submit">
              Email me a reset link
            </button>
          </Form>
          <p>
            Remembered it?{" "}
            <Link className="usa-link" to="/sign-in">
              Sign in
            </Link>
            .
          </p>
        </>
      )}
    </div>
  );
}

import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { safeRedirect } from "~/util";

export const meta: MetaFunction = () => [{ title: "Create an account | Tapline" }];

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const input = { email: String(form.get("email") ?? ""), displayName: String(form.get("displayName") ?? ""), password: String(form.get("password") ?? "") };
  const r = await gql(context, request, `mutation SignUp($input: SignUpInput!) { signUp(input: $input) { ok } }`, { input });
  if (!r.ok)
    return Response.json(
      { error: r.error.message, fields: r.error.fields, values: { email: input.email, displayName: input.displayName } },
      { status: r.error.code === "TOO_MANY_REQUESTS" ? 429 : 400, headers: cookieHeaders(r) },
    );
  // Signing up signs no one in, and the next page is the same whether or not the address already
  // had an account (docs/decisions/sign-up-reveals-no-account.md): the person signs in next.
  // Where the person was going before signing up (a page that asked them to sign in), else the dashboard.
  const next = safeRedirect(new URL(request.url).searchParams.get("redirectTo"), "/dashboard?welcome=1");
  return redirect(`/sign-in?signedUp=1&redirectTo=${encodeURIComponent(next)}`, { headers: cookieHeaders(r) });
}

/** The form's labels, in its order. */
export const LABELS = { displayName: "Your name", email: "Email address", password: "Password" };

export default function SignUp() {
  const a = useActionData<{ error: string; fields: Record<string, string>; values: { email: string; displayName: string } }>();
  return (
    <div className="tablet:grid-col-8">
      <h1>Create an account</h1>
      <p>Anyone can create an account to apply for permits, pay fees and follow their applications.</p>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" className="usa-form" noValidate>
        <AuthenticityTokenInput />
        <TextField name="displayName" label="Your name" autoComplete="name" defaultValue={a?.values.displayName} error={a?.fields?.displayName} required />
        <TextField name="email" label="Email address" type="email" autoComplete="email" defaultValue={a?.values.email} error={a?.fields?.email} required />
        <TextField name="password" label="Password" type="password" autoComplete="new-password" hint="At least 12 characters. A short sentence is easy to remember." error={a?.fields?.password} required />
        <button className="usa-button" type="submit">Create account</button>
      </Form>
      <p>Already have an account? <Link className="usa-link" to="/sign-in">Sign in</Link>.</p>
    </div>
  );
}

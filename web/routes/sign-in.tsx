import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { DEMO_ROLE_LABELS } from "~/components/format";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, portalContext } from "~/graphql.server";
import { safeRedirect } from "~/util";

export const meta: MetaFunction = () => [{ title: "Sign in | Tapline" }];

const DEMO = `query DemoAccounts { demoAccounts { email displayName role district password } }`;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const demo = portalContext(context).demo ? await gql(context, request, DEMO) : null;
  return { demoAccounts: demo?.ok ? demo.data.demoAccounts : [] };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  const r = await gql(context, request, `mutation SignIn($input: SignInInput!) { signIn(input: $input) { me { id } } }`, {
    input: { email, password: String(form.get("password") ?? "") },
  });
  if (!r.ok)
    return Response.json({ error: r.error.message, fields: r.error.fields, email }, { status: r.error.code === "TOO_MANY_REQUESTS" ? 429 : 400, headers: cookieHeaders(r) });
  return redirect(safeRedirect(new URL(request.url).searchParams.get("redirectTo"), "/dashboard"), { headers: cookieHeaders(r) });
}

/** The form's labels, in its order. */
export const LABELS = { email: "Email address", password: "Password" };

export default function SignIn() {
  const { demoAccounts } = useLoaderData<typeof loader>();
  const a = useActionData<{ error: string; fields: Record<string, string>; email: string }>();
  const nav = useNavigation();
  const [params] = useSearchParams();
  return (
    <div className="grid-row grid-gap">
      <div className="tablet:grid-col-6">
        <h1>Sign in</h1>
        {params.get("signedUp") && (
          <SuccessAlert>
            Thank you. We have sent a message to the address you gave. If it is new to Tapline, your account is ready: sign in below, and open the link in
            the message to confirm your address. If the address already had an account, the message says how to sign in or reset its password.
          </SuccessAlert>
        )}
        {params.get("signedOutEverywhere") && <SuccessAlert>You are signed out on every device. Sign in again to continue.</SuccessAlert>}
        {params.get("passwordReset") && <SuccessAlert>Your password is changed. Sign in with the new one.</SuccessAlert>}
        <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
        <Form method="post" className="usa-form" noValidate>
          <AuthenticityTokenInput />
          <TextField name="email" label="Email address" type="email" autoComplete="username" defaultValue={a?.email} error={a?.fields?.email} required />
          <TextField name="password" label="Password" type="password" autoComplete="current-password" error={a?.fields?.password} required />
          <button className="usa-button" type="submit" disabled={nav.state === "submitting"}>Sign in</button>
        </Form>
        <p><Link className="usa-link" to="/forgot-password">Forgot your password?</Link></p>
        <p>New here? <Link className="usa-link" to={params.get("redirectTo") ? `/sign-up?redirectTo=${encodeURIComponent(params.get("redirectTo")!)}` : "/sign-up"}>Create an account</Link>.</p>
      </div>
      {demoAccounts.length > 0 && (
        <div className="tablet:grid-col-6">
          <h2>Demo accounts</h2>
          <p>Demo mode only. Every demo account's password is <code>{demoAccounts[0].password}</code>.</p>
          <table className="usa-table usa-table--compact">
            <caption className="usa-sr-only">Demo accounts</caption>
            <thead><tr><th scope="col">Role</th><th scope="col">District</th><th scope="col">Email</th></tr></thead>
            <tbody>
              {demoAccounts.map((d: any) => (
                <tr key={d.email}><td>{DEMO_ROLE_LABELS[d.role] ?? d.role}</td><td>{d.district ?? "any"}</td><td><code>{d.email}</code></td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

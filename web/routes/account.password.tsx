import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { Notice } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Change your password | Tapline" }];

type Data = { me: { email: string; demo: boolean } };
type ActionData = { error: string; fields?: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(args, `query AccountPassword { me { email demo } }`);
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const input = { currentPassword: String(form.get("currentPassword") ?? ""), newPassword: String(form.get("newPassword") ?? "") };
  const r = await gql(context, request, `mutation ChangePassword($input: ChangePasswordInput!) { changePassword(input: $input) { ok message } }`, { input });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect("/sign-in?redirectTo=%2Faccount%2Fpassword", { headers: cookieHeaders(r) });
    // Passwords are never sent back to the page.
    return Response.json({ error: r.error.message, fields: r.error.fields } satisfies ActionData, {
      status: r.error.code === "TOO_MANY_REQUESTS" ? 429 : r.error.code === "FORBIDDEN" ? 403 : 400,
      headers: cookieHeaders(r),
    });
  }
  // The session this browser had was replaced by a new one: the new cookie goes with the redirect.
  return redirect("/account?done=password-changed", { headers: cookieHeaders(r) });
}

/** The form's labels, in its order. */
export const LABELS = { currentPassword: "Current password", newPassword: "New password" };

export default function ChangePassword() {
  const { me } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const nav = useNavigation();
  return (
    <>
      <h1>Change your password</h1>
      <p>
        Changing your password signs you out everywhere else: on other computers and phones, and in other browsers. This browser stays signed in. We
        email you to say the password was changed. API tokens keep working; revoke them under{" "}
        <Link className="usa-link" to="/account/tokens">
          API tokens
        </Link>{" "}
        if you need to.
      </p>
      {me.demo ? (
        <Notice type="info">Demo accounts keep the password shown on the sign-in page.</Notice>
      ) : (
        <>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form" noValidate>
            <AuthenticityTokenInput />
            {/* For password managers: which account this password belongs to. */}
            <input type="email" name="username" autoComplete="username" value={me.email} readOnly hidden />
            <TextField name="currentPassword" label="Current password" type="password" autoComplete="current-password" error={a?.fields?.currentPassword} required />
            <TextField
              name="newPassword"
              label="New password"
              type="password"
              autoComplete="new-password"
              hint="At least 12 characters. A short sentence is easy to remember."
              error={a?.fields?.newPassword}
              required
            />
            <button className="usa-button" type="submit" disabled={nav.state === "submitting"}>
              Change my password
            </button>
          </Form>
          <p>
            Forgotten your current password?{" "}
            <Link className="usa-link" to="/forgot-password">
              Reset it by email
            </Link>
            .
          </p>
        </>
      )}
    </>
  );
}

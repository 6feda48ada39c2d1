import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { ErrorSummary } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Accept an invitation | Tapline" }, { name: "referrer", content: "same-origin" }];

export async function loader(args: LoaderFunctionArgs) {
  const { me } = await requireSignedIn<{ me: { email: string; displayName: string } }>(args, `query InvitationViewer { me { email displayName } }`);
  return { me, token: new URL(args.request.url).searchParams.get("token") ?? "" };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const r = await gql<{ acceptInvitation: { id: string } }>(
    context,
    request,
    `mutation AcceptInvitation($token: String!) { acceptInvitation(token: $token) { id name } }`,
    {
      token: String(form.get("token") ?? ""),
    }
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") {
      const url = new URL(request.url);
      throw redirect(`/sign-in?redirectTo=${encodeURIComponent(url.pathname + url.search)}`, { headers: cookieHeaders(r) });
    }
    return Response.json({ error: r.error.message }, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/account/organizations/${r.data.acceptInvitation.id}?done=joined`, { headers: cookieHeaders(r) });
}

export default function AcceptInvitation() {
  const { me, token } = useLoaderData<typeof loader>();
  const a = useActionData<{ error: string }>();
  return (
    <div className="tablet:grid-col-8">
      <h1>Accept an invitation</h1>
      {!token ? (
        <>
          <ErrorSummary message="The invitation link is incomplete. Open the link from the email exactly as it was sent." />
          <p>
            <Link className="usa-link" to="/account/emails">
              Read your emails
            </Link>
          </p>
        </>
      ) : (
        <>
          <ErrorSummary message={a?.error} />
          <p>
            You are signed in as {me.displayName} ({me.email}). The invitation must have been sent to this address. Accepting lets you act for the
            organization with the role it names.
          </p>
          <Form method="post">
            <AuthenticityTokenInput />
            <input type="hidden" name="token" value={token} />
            <button className="usa-button" type="submit">
              Accept the invitation
            </button>
          </Form>
          {a?.error && (
            <p className="margin-top-3">
              <Link className="usa-link" to="/account/organizations">
                Go to your organizations
              </Link>
            </p>
          )}
        </>
      )}
    </div>
  );
}

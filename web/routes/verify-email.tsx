import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { SuccessAlert } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import type { RootData } from "~/root";

export const meta: MetaFunction = () => [{ title: "Confirm your email address | Tapline" }, { name: "referrer", content: "same-origin" }];

/** Opening the link changes nothing (mail scanners open links too): the button below does. */
export function loader({ request }: LoaderFunctionArgs) {
  return { token: new URL(request.url).searchParams.get("token") ?? "" };
}

type ActionData = { done?: string; error?: string };

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const r = await gql<{ verifyEmail: { message: string } }>(
    context,
    request,
    `mutation VerifyEmail($token: String!) { verifyEmail(token: $token) { ok message } }`,
    {
      token: String(form.get("token") ?? ""),
    }
  );
  if (!r.ok) return Response.json({ error: r.error.message } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return Response.json({ done: r.data.verifyEmail.message } satisfies ActionData, { headers: cookieHeaders(r) });
}

export default function VerifyEmail() {
  const { token } = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  const root = useRouteLoaderData("root") as RootData | undefined;
  const signedIn = !!root?.viewer;
  const newLink = signedIn ? (
    <p>
      <Link className="usa-button" to="/account">
        Ask for a new confirmation link
      </Link>
    </p>
  ) : (
    <p>
      <Link className="usa-button" to="/sign-in?redirectTo=%2Faccount">
        Sign in to ask for a new confirmation link
      </Link>
    </p>
  );
  return (
    <div className="tablet:grid-col-8">
      <h1>Confirm your email address</h1>
      {a?.done ? (
        <>
          <SuccessAlert>{a.done}</SuccessAlert>
          <p>
            <Link className="usa-link" to={signedIn ? "/dashboard" : "/sign-in"}>
              {signedIn ? "Go to my applications" : "Sign in"}
            </Link>
          </p>
        </>
      ) : a?.error || !token ? (
        <>
          <div className="usa-alert usa-alert--error" role="alert">
            <div className="usa-alert__body">
              <h2 className="usa-alert__heading">This link does not work</h2>
              <p className="usa-alert__text">{a?.error ?? "The link is incomplete. Open the link from the email exactly as it was sent."}</p>
            </div>
          </div>
          {newLink}
        </>
      ) : (
        <>
          <p>Confirm that this email address is yours, so the district can send you notices and receipts.</p>
          <Form method="post">
            <AuthenticityTokenInput />
            <input type="hidden" name="token" value={token} />
            <button className="usa-button" type="submit">
              Confirm my email address
            </button>
          </Form>
        </>
      )}
    </div>
  );
}

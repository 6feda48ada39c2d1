import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { DateTime, formatDateTime, clockOf } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "API tokens | Tapline" }];

type Token = { id: string; name: string; tokenPrefix: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };
type ActionData =
  | { created: { token: string; name: string; endpoint: string } }
  | { error: string; fields?: Record<string, string>; name?: string; form: "create" | "revoke" };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ myApiTokens: Token[]; districts: { timeZone: string }[] }>(args, `query MyApiTokens { myApiTokens { id name tokenPrefix createdAt lastUsedAt revokedAt } districts { timeZone } }`);
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "create") {
    const name = String(form.get("name") ?? "");
    const r = await gql<{ createApiToken: { token: string; apiToken: { name: string } } }>(
      context,
      request,
      `mutation CreateApiToken($name: String!) { createApiToken(name: $name) { token apiToken { id name } } }`,
      { name }
    );
    if (!r.ok) {
      if (r.error.code === "UNAUTHENTICATED") throw redirect("/sign-in?redirectTo=%2Faccount%2Ftokens", { headers: cookieHeaders(r) });
      return Response.json({ error: r.error.message, fields: r.error.fields, name, form: "create" } satisfies ActionData, {
        status: 400,
        headers: cookieHeaders(r),
      });
    }
    // Shown once, on this response only: never put the token in an address or a cache.
    const endpoint = `${new URL(request.url).origin}/graphql`;
    return Response.json(
      { created: { token: r.data.createApiToken.token, name: r.data.createApiToken.apiToken.name, endpoint } } satisfies ActionData,
      { headers: { "Cache-Control": "no-store" } }
    );
  }
  if (intent === "revoke") {
    const r = await gql(context, request, `mutation RevokeApiToken($id: ID!) { revokeApiToken(id: $id) { ok } }`, {
      id: String(form.get("id") ?? ""),
    });
    if (!r.ok) {
      if (r.error.code === "UNAUTHENTICATED") throw redirect("/sign-in?redirectTo=%2Faccount%2Ftokens", { headers: cookieHeaders(r) });
      return Response.json({ error: r.error.message, form: "revoke" } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
    }
    return redirect("/account/tokens?done=revoked", { headers: cookieHeaders(r) });
  }
  return Response.json({ error: "That form is not known. Reload the page and try again.", form: "revoke" } satisfies ActionData, { status: 400 });
}

/** The new token form's labels. */
export const LABELS = { name: "Token name" };

export default function ApiTokens() {
  const { myApiTokens, districts } = useLoaderData<typeof loader>() as { myApiTokens: Token[]; districts: { timeZone: string }[] };
  // A token belongs to no district: its times are on the portal's clock (docs/decisions/portal-clock.md).
  const tz = clockOf(districts);
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  if (a && "created" in a) return <CreatedToken {...a.created} />;
  const err = a && "error" in a ? a : undefined;
  const active = myApiTokens.filter((t) => !t.revokedAt);
  const revoked = myApiTokens.filter((t) => t.revokedAt);
  return (
    <>
      <h1>API tokens</h1>
      <p>
        A personal API token lets a program (an accounting export, a script) use Tapline's GraphQL API as you, with your permissions. Keep tokens
        secret like a password, and revoke any you no longer use.
      </p>
      {!a && params.get("done") === "revoked" && <SuccessAlert>The token is revoked. Programs using it are refused from now on.</SuccessAlert>}
      {err?.form === "revoke" && <ErrorSummary message={err.error} />}

      <h2>Your tokens</h2>
      {active.length === 0 ? (
        <p>You have no active API tokens.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Your active tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Starts with</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="usa-sr-only">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {active.map((t) => (
              <tr key={t.id}>
                <th scope="row" data-label="Name">
                  {t.name}
                </th>
                <td data-label="Starts with">
                  <code>{t.tokenPrefix}…</code>
                </td>
                <td data-label="Created">
                  <DateTime iso={t.createdAt} timeZone={tz} />
                </td>
                <td data-label="Last used">{t.lastUsedAt ? <DateTime iso={t.lastUsedAt} timeZone={tz} /> : "Never"}</td>
                <td data-label="Action">
                  <Form method="post" className="tapline-inline-form">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="revoke" />
                    <input type="hidden" name="id" value={t.id} />
                    <button className="usa-button usa-button--secondary" type="submit">
                      Revoke<span className="usa-sr-only"> the token {t.name}</span>
                    </button>
                  </Form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2 id="create-heading">Create a token</h2>
      {err?.form === "create" && <ErrorSummary message={err.error} fields={err.fields} labels={LABELS} />}
      <Form method="post" className="usa-form" noValidate aria-labelledby="create-heading">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="create" />
        <TextField
          name="name"
          label="Token name"
          hint="Say what will use it, so you recognise it later. For example: accounting export."
          defaultValue={err?.form === "create" ? err.name : undefined}
          error={err?.form === "create" ? err.fields?.name : undefined}
          required
        />
        <button className="usa-button" type="submit">
          Create token
        </button>
      </Form>

      {revoked.length > 0 && (
        <details className="tapline-details margin-top-4">
          <summary>Revoked tokens ({revoked.length})</summary>
          <ul className="usa-list">
            {revoked.map((t) => (
              <li key={t.id}>
                {t.name} (<code>{t.tokenPrefix}…</code>), revoked {formatDateTime(t.revokedAt!, tz)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function CreatedToken({ token, name, endpoint }: { token: string; name: string; endpoint: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const example = `curl ${endpoint} \\
  -H "Authorization: Bearer ${token}" \\
  -H "Content-Type: application/json" \\
  -d '{"query":"{ me { displayName email } }"}'`;
  return (
    <>
      <h1 ref={ref} tabIndex={-1}>
        Your new API token
      </h1>
      <SuccessAlert>The token “{name}” is created.</SuccessAlert>
      <div className="usa-alert usa-alert--warning">
        <div className="usa-alert__body">
          <h2 className="usa-alert__heading">Copy it now: it is shown only once</h2>
          <p className="usa-alert__text">
            Tapline keeps only a fingerprint of the token, so nobody can show it to you again. If you lose it, revoke it and create a new one.
          </p>
        </div>
      </div>
      <div className="usa-form-group">
        <label className="usa-label" htmlFor="new-token">
          Token
        </label>
        <input className="usa-input tapline-token" id="new-token" readOnly value={token} spellCheck={false} autoComplete="off" />
      </div>
      <h2>How to use it</h2>
      <p>
        Send GraphQL requests with <code>POST</code> to <code>{endpoint}</code>, with the header <code>Authorization: Bearer &lt;token&gt;</code> and
        a JSON body. For example:
      </p>
      <pre className="tapline-pre">{example}</pre>
      <p>The program acts as you: it can do what you can do in the portal. It does not need the sign-in cookie.</p>
      <p>
        <Link className="usa-link" to="/account/tokens">
          Back to your API tokens
        </Link>
      </p>
    </>
  );
}

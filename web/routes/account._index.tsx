import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { Notice } from "~/components/fields";
import { DateTime, STAFF_ROLE_LABELS, clockOf, formatDateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Profile and sessions | Tapline" }];

type Session = {
  id: string;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  revokedAt: string | null;
  current: boolean;
  active: boolean;
};
type Data = {
  me: { displayName: string; email: string; emailVerified: boolean; staffRoles: { role: string; districtId: string }[] };
  mySessions: Session[];
  districts: { id: string; name: string; slug: string; timeZone: string }[];
};

const Q = `query AccountProfile {
  me { displayName email emailVerified staffRoles { role districtId } }
  mySessions { id ip userAgent createdAt lastSeenAt expiresAt revokedAt current active }
  districts { id name slug timeZone }
}`;

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(args, Q);
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "resend") {
    const r = await gql(context, request, `mutation { resendVerificationEmail { ok message } }`);
    if (!r.ok) return failed(r);
    return redirect("/account?done=verification-sent", { headers: cookieHeaders(r) });
  }
  if (intent === "revoke") {
    const id = String(form.get("sessionId") ?? "");
    const current = form.get("current") === "1";
    const r = await gql(context, request, `mutation RevokeSession($id: ID!) { revokeSession(id: $id) { ok message } }`, { id });
    if (!r.ok) return failed(r);
    // Ending the session this browser uses signs the person out here too.
    if (current) return redirect("/sign-in", { headers: cookieHeaders(r) });
    return redirect("/account?done=session-revoked", { headers: cookieHeaders(r) });
  }
  if (intent === "everywhere") {
    const r = await gql(context, request, `mutation { signOutEverywhere { ok message } }`);
    if (!r.ok) return failed(r);
    return redirect("/sign-in?signedOutEverywhere=1", { headers: cookieHeaders(r) });
  }
  return Response.json({ error: "That form is not known. Reload the page and try again." }, { status: 400 });
}

function failed(r: { ok: false; error: { code: string; message: string }; setCookies: string[] }) {
  if (r.error.code === "UNAUTHENTICATED") return redirect("/sign-in?redirectTo=%2Faccount", { headers: cookieHeaders(r) });
  return Response.json({ error: r.error.message }, { status: r.error.code === "NOT_FOUND" ? 404 : 400, headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = {
  "session-revoked": "That session is signed out.",
  "password-changed": "Your password is changed. Every other session was signed out, and we emailed you about the change.",
};

function sessionStatus(s: Session, tz: string): string {
  if (s.current) return "This browser";
  if (s.active) return "Active";
  if (s.revokedAt) return `Signed out ${formatDateTime(s.revokedAt, tz)}`;
  return "Ended (timed out)";
}

export default function AccountProfile() {
  const { me, mySessions, districts } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string }>();
  const [params] = useSearchParams();
  // A form posted from this page keeps the address: do not repeat an earlier success next to a new problem.
  const done = a ? null : params.get("done");
  const districtName = new Map(districts.map((d) => [d.id, d]));
  const byDistrict = new Map<string, string[]>();
  for (const r of me.staffRoles) byDistrict.set(r.districtId, [...(byDistrict.get(r.districtId) ?? []), r.role]);
  const active = mySessions.filter((s) => s.active);
  const past = mySessions.filter((s) => !s.active);

  return (
    <>
      <h1>Profile and sessions</h1>
      <ErrorSummary message={a?.error} />
      {done === "verification-sent" && (
        <SuccessAlert>
          We sent a new confirmation link to {me.email}. It works for 7 days.{" "}
          <Link className="usa-link" to="/account/emails">
            Read your emails
          </Link>
          .
        </SuccessAlert>
      )}
      {done && DONE[done] && <SuccessAlert>{DONE[done]}</SuccessAlert>}

      <section aria-labelledby="who-heading">
        <h2 id="who-heading">Who you are</h2>
        <dl className="tapline-facts">
          <dt>Name</dt>
          <dd>{me.displayName}</dd>
          <dt>Email address</dt>
          <dd>
            {me.email}{" "}
            {me.emailVerified ? (
              <span className="usa-tag bg-success-darker">Confirmed</span>
            ) : (
              <span className="usa-tag bg-warning text-ink">Not confirmed</span>
            )}
          </dd>
        </dl>
        {!me.emailVerified && (
          <>
            <Notice type="warning">
              Your email address is not confirmed yet. Open the link we emailed you, or ask for a new one. Emails also appear under{" "}
              <Link className="usa-link" to="/account/emails">
                Emails
              </Link>
              .
            </Notice>
            <Form method="post" className="margin-top-2">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="resend" />
              <button className="usa-button usa-button--outline" type="submit">
                Send a new confirmation link
              </button>
            </Form>
          </>
        )}
      </section>

      {me.staffRoles.length > 0 && (
        <section aria-labelledby="roles-heading">
          <h2 id="roles-heading">Your staff roles</h2>
          <ul className="usa-list">
            {[...byDistrict].map(([id, roles]) => (
              <li key={id}>
                {districtName.get(id)?.name ?? "A district that is no longer listed"}: {roles.map((r) => STAFF_ROLE_LABELS[r] ?? r).join(", ")}
              </li>
            ))}
          </ul>
          <p>
            <Link className="usa-link" to="/staff">
              Go to the staff area
            </Link>
          </p>
        </section>
      )}

      <section aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Where you are signed in</h2>
        <p>
          Each time you sign in, on a computer or phone, starts a session. A session ends when you sign out, after 2 hours without use, or after 30
          days. If you see one you do not recognise, sign it out and{" "}
          <Link className="usa-link" to="/account/password">
            change your password
          </Link>
          .
        </p>
        <SessionsTable tz={clockOf(districts)} caption="Active sessions" sessions={active} withActions />
        <Form method="post" className="margin-y-3">
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="everywhere" />
          <button className="usa-button usa-button--secondary" type="submit">
            Sign out everywhere
          </button>
          <span className="usa-hint display-block margin-top-1">Ends every session, including this one, on every device.</span>
        </Form>
        {past.length > 0 && (
          <details className="tapline-details">
            <summary>Ended sessions ({past.length})</summary>
            <SessionsTable tz={clockOf(districts)} caption="Ended sessions" sessions={past} />
          </details>
        )}
      </section>
    </>
  );
}

function SessionsTable({ caption, sessions, withActions, tz }: { caption: string; sessions: Session[]; withActions?: boolean; tz: string }) {
  if (!sessions.length) return <p>No {caption.toLowerCase()}.</p>;
  return (
    <table className="usa-table usa-table--stacked usa-table--borderless width-full">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Last seen</th>
          <th scope="col">IP address</th>
          <th scope="col">Browser or app</th>
          <th scope="col">Status</th>
          {withActions && (
            <th scope="col">
              <span className="usa-sr-only">Action</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {sessions.map((s) => (
          <tr key={s.id}>
            <th scope="row" data-label="Started">
              <DateTime iso={s.createdAt} timeZone={tz} />
            </th>
            <td data-label="Last seen">
              <DateTime iso={s.lastSeenAt} timeZone={tz} />
            </td>
            <td data-label="IP address">{s.ip ?? "Unknown"}</td>
            <td data-label="Browser or app" className="tapline-break">
              {s.userAgent ?? "Unknown"}
            </td>
            <td data-label="Status">{s.current ? <strong>{sessionStatus(s, tz)}</strong> : sessionStatus(s, tz)}</td>
            {withActions && (
              <td data-label="Action">
                <Form method="post" className="tapline-inline-form">
                  <AuthenticityTokenInput />
                  <input type="hidden" name="intent" value="revoke" />
                  <input type="hidden" name="sessionId" value={s.id} />
                  {s.current && <input type="hidden" name="current" value="1" />}
                  <button className="usa-button usa-button--outline" type="submit">
                    Sign out this session
                    <span className="usa-sr-only">{s.current ? " (this browser)" : ` started ${formatDateTime(s.createdAt, tz)}`}</span>
                  </button>
                </Form>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { safeRedirect } from "~/util";
import { SelectField } from "~/components/fields";
import { DateTime, MEMBERSHIP_ROLE_LABELS, ORGANIZATION_KIND_LABELS, clockOf } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

type Member = { userId: string; role: string; createdAt: string };
type Invitation = { id: string; email: string; role: string; createdAt: string; expiresAt: string; acceptedAt: string | null };
type Org = { id: string; name: string; kind: string; createdAt: string; members: Member[] };
type Data = { me: { id: string }; organization: Org; invitations: Invitation[] | null; districts: { timeZone: string }[] };
type ActionData = { error: string; fields: Record<string, string>; values: { email: string; role: string } };

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${(data as Data | undefined)?.organization.name ?? "Organization"} | Tapline` },
];

/** Each field's visible label, in the form's order (a record the page acts on by its name): the error summary names fields by them. */
export const LABELS: Record<string, string> = { email: "Email address", role: "Role", organizationId: "Organization" };

export async function loader(args: LoaderFunctionArgs) {
  const id = args.params.id!;
  const base = await requireSignedIn<{ me: { id: string }; organization: Org; districts: { timeZone: string }[] }>(
    args,
    `query Organization($id: ID!) { me { id } organization(id: $id) { id name kind createdAt members { userId role createdAt } } districts { timeZone } }`,
    { id }
  );
  // Invitations resolve for owners only: anyone else gets FORBIDDEN, and the section is hidden.
  const inv = await gql<{ organization: { invitations: Invitation[] } }>(
    args.context,
    args.request,
    `query OrganizationInvitations($id: ID!) { organization(id: $id) { invitations { id email role createdAt expiresAt acceptedAt } } }`,
    { id }
  );
  return { ...base, invitations: inv.ok ? inv.data.organization.invitations : null } satisfies Data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { email: String(form.get("email") ?? ""), role: String(form.get("role") ?? "") };
  const r = await gql(context, request, `mutation InviteMember($input: InviteMemberInput!) { inviteMember(input: $input) { id } }`, {
    input: { organizationId: params.id, ...values },
  });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED")
      throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/account/organizations/${params.id}`)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/account/organizations/${params.id}?done=invited`, { headers: cookieHeaders(r) });
}

const ROLE_OPTIONS = [
  { value: "OWNER", label: "Owner" },
  { value: "AUTHORIZED_REPRESENTATIVE", label: "Authorized Representative (signs compliance reports, Sewer Use Law 201)" },
  { value: "MEMBER", label: "Member" },
];

function invitationStatus(i: Invitation): string {
  if (i.acceptedAt) return "Accepted";
  if (new Date(i.expiresAt).getTime() <= Date.now()) return "Expired";
  return "Waiting";
}

export default function OrganizationPage() {
  const { me, organization: org, invitations, districts } = useLoaderData<typeof loader>() as Data;
  // An organization belongs to no district: its times are on the portal's clock (docs/decisions/portal-clock.md).
  const tz = clockOf(districts);
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const done = a ? null : params.get("done");
  const myRole = org.members.find((m) => m.userId === me.id)?.role;
  return (
    <>
      <p className="margin-top-0">
        <Link className="usa-link" to="/account/organizations">
          All your organizations
        </Link>
      </p>
      <h1>{org.name}</h1>
      {done === "created" && <SuccessAlert>The organization is created and you are its owner. Invite the people who act for it below.</SuccessAlert>}
      <NextForKind kind={org.kind} returnTo={params.get("returnTo")} />
      {done === "invited" && <SuccessAlert>The invitation is sent. It works for 14 days.</SuccessAlert>}
      {done === "joined" && <SuccessAlert>You joined {org.name}.</SuccessAlert>}
      <dl className="tapline-facts">
        <dt>Kind</dt>
        <dd>{ORGANIZATION_KIND_LABELS[org.kind] ?? org.kind}</dd>
        <dt>Your role</dt>
        <dd>{myRole ? MEMBERSHIP_ROLE_LABELS[myRole] ?? myRole : "None"}</dd>
        <dt>Created</dt>
        <dd>
          <DateTime iso={org.createdAt} timeZone={tz} />
        </dd>
      </dl>

      <h2>Members</h2>
      <table className="usa-table usa-table--stacked usa-table--borderless width-full">
        <caption className="usa-sr-only">Members of {org.name}</caption>
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Role</th>
            <th scope="col">Member since</th>
          </tr>
        </thead>
        <tbody>
          {org.members.map((m) => (
            <tr key={m.userId}>
              <th scope="row" data-label="Member">
                {m.userId === me.id ? (
                  "You"
                ) : (
                  <>
                    Account <code>{m.userId.slice(0, 8)}</code>
                  </>
                )}
              </th>
              <td data-label="Role">{MEMBERSHIP_ROLE_LABELS[m.role] ?? m.role}</td>
              <td data-label="Member since">
                <DateTime iso={m.createdAt} timeZone={tz} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      {invitations && (
        <>
          <h2>Invitations</h2>
          {invitations.length === 0 ? (
            <p>No invitations yet.</p>
          ) : (
            <table className="usa-table usa-table--stacked usa-table--borderless width-full">
              <caption className="usa-sr-only">Invitations to {org.name}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Email address</th>
                  <th scope="col">Role</th>
                  <th scope="col">Sent</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {invitations.map((i) => (
                  <tr key={i.id}>
                    <th scope="row" data-label="Email address" className="tapline-break">
                      {i.email}
                    </th>
                    <td data-label="Role">{MEMBERSHIP_ROLE_LABELS[i.role] ?? i.role}</td>
                    <td data-label="Sent">
                      <DateTime iso={i.createdAt} timeZone={tz} />
                    </td>
                    <td data-label="Expires">
                      <DateTime iso={i.expiresAt} timeZone={tz} />
                    </td>
                    <td data-label="Status">
                      {invitationStatus(i)}
                      {i.acceptedAt && (
                        <>
                          {" "}
                          <DateTime iso={i.acceptedAt} timeZone={tz} />
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h2 id="invite-heading">Invite someone</h2>
          <p>We email them a link. They sign in, or create an account, with that address to join.</p>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form usa-form--large" noValidate aria-labelledby="invite-heading">
            <AuthenticityTokenInput />
            <TextField
              name="email"
              label="Email address"
              type="email"
              autoComplete="off"
              defaultValue={a?.values.email}
              error={a?.fields?.email}
              required
            />
            <SelectField
              name="role"
              label="Role"
              hint="Only an Authorized Representative may sign compliance reports. Owners manage members."
              options={ROLE_OPTIONS}
              defaultValue={a?.values.role ?? "MEMBER"}
              error={a?.fields?.role}
              required
            />
            <button className="usa-button" type="submit">
              Send invitation
            </button>
          </Form>
        </>
      )}
      {!invitations && <p>Only the organization's owner can see invitations and invite people.</p>}
    </>
  );
}

/** What an organization of this kind does next with the district, and the way back to where the person came from. */
const NEXT: Record<string, { to: string; label: string; why: string }[]> = {
  CONTRACTOR: [
    { to: "/contractors/apply", label: "Apply to be an approved contractor", why: "Where the district keeps a list of approved contractors (Sewer Use Law 601 A), owners choose from it." },
  ],
  HAULER: [{ to: "/haulers", label: "Apply for a hauler licence", why: "A septage hauler needs the district's licence or permission before dumping at the plant." }],
  DEVELOPER: [{ to: "/extensions/apply", label: "Apply for a sewer extension", why: "Where the district's law provides it, the District Operator approves a subdivision's new sewer before construction (Sewer Use Law 501, 502 A)." }],
  INDUSTRIAL_USER: [{ to: "/industrial/apply", label: "Apply for a discharge permit", why: "Where the district's law has a discharge permit program, a significant industrial user needs a permit; the page says which districts have one." }],
};

function NextForKind({ kind, returnTo }: { kind: string; returnTo: string | null }) {
  const back = returnTo ? safeRedirect(returnTo, "") : "";
  const next = (NEXT[kind] ?? []).filter((n) => n.to !== back);
  if (!back && !next.length) return null;
  return (
    <section aria-labelledby="next-heading" className="usa-summary-box margin-y-2">
      <div className="usa-summary-box__body">
        <h2 className="usa-summary-box__heading" id="next-heading">
          Next
        </h2>
        <ul className="usa-list usa-list--unstyled">
          {back && (
            <li>
              <Link className="usa-link" to={back}>
                Go back to where you were
              </Link>
            </li>
          )}
          {next.map((n) => (
            <li key={n.to}>
              <Link className="usa-link" to={n.to}>
                {n.label}
              </Link>
              : {n.why}
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

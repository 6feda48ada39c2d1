import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { SelectField } from "~/components/fields";
import { STAFF_ROLE_LABELS } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireSignedIn } from "~/auth.server";
import { requireCsrf } from "~/csrf.server";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Staff and roles | Staff | Tapline" }];

type Member = { userId: string; email: string; displayName: string; roles: string[] };
type Data = { districts: { id: string; name: string; admin: boolean }[]; districtId: string; staff: Member[] };
const ROLES = [
  { value: "CLERK", label: "CLERK: Town Clerk (filings, payments, bonds)" },
  { value: "OPERATOR", label: "OPERATOR: District Operator or inspector" },
  { value: "BOARD", label: "BOARD: Town Board member" },
  { value: "ADMIN", label: "ADMIN: district settings and staff accounts" },
];

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const requested = new URL(args.request.url).searchParams.get("districtId");
  const district = info.districts.find((d) => d.id === requested) ?? info.districts[0];
  const { districtStaff } = await requireSignedIn<{ districtStaff: Member[] }>(
    args,
    `query DistrictStaff($d: ID!) { districtStaff(districtId: $d) { userId email displayName roles } }`,
    { d: district.id },
  );
  return {
    districts: info.districts.map((d) => ({ id: d.id, name: d.name, admin: d.roles.includes("ADMIN") })),
    districtId: district.id,
    staff: districtStaff,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const districtId = String(form.get("districtId") ?? "");
  const reason = String(form.get("reason") ?? "");
  const role = String(form.get("role") ?? "");
  if (form.get("intent") === "revoke") {
    const r = await gql(context, request, `mutation($i: RevokeStaffRoleInput!) { revokeStaffRole(input: $i) { message } }`, {
      i: { districtId, userId: String(form.get("userId") ?? ""), role, reason },
    });
    if (!r.ok) {
      // Every problem of a removal is shown on the reason of that role's own form.
      const at = `reason-${String(form.get("userId") ?? "")}-${role}`;
      const messages = Object.values(r.error.fields);
      return Response.json({ error: r.error.message, fields: messages.length ? { [at]: messages.join(" ") } : {}, values: {} }, { status: 400 });
    }
    return redirect(`/staff/people?districtId=${districtId}&done=${encodeURIComponent(r.data.revokeStaffRole.message)}`);
  }
  const email = String(form.get("email") ?? "");
  const r = await gql(context, request, `mutation($i: GrantStaffRoleInput!) { grantStaffRole(input: $i) { message } }`, { i: { districtId, email, role, reason } });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, values: { email, role, reason } }, { status: 400 });
  return redirect(`/staff/people?districtId=${districtId}&done=${encodeURIComponent(r.data.grantStaffRole.message)}`);
}

/** The grant's labels, in the form's order (userId is the removal's, shown on its reason). */
export const LABELS: Record<string, string> = { districtId: "District", email: "Email address of the account", role: "Role", reason: "Reason", userId: "Person" };
const removeLabel = (role: string, name: string) => `Why remove the ${STAFF_ROLE_LABELS[role] ?? role} role of ${name}?`;

export default function People() {
  const { districts, districtId, staff } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<{ error: string; fields: Record<string, string>; values: { email?: string; role?: string; reason?: string } }>();
  const [params] = useSearchParams();
  const district = districts.find((d) => d.id === districtId)!;
  return (
    <>
      <h1>Staff and roles</h1>
      {params.get("done") && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary
        message={a?.error}
        fields={a?.fields}
        labels={{ ...Object.fromEntries(staff.flatMap((m) => m.roles.map((r) => [`reason-${m.userId}-${r}`, removeLabel(r, m.displayName)]))), ...LABELS }}
      />
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <button className="usa-button" type="submit">Show this district's staff</button>
        </Form>
      )}
      <table className="usa-table usa-table--stacked">
        <caption>Staff of {district.name}</caption>
        <thead>
          <tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Roles</th></tr>
        </thead>
        <tbody>
          {staff.map((m) => (
            <tr key={m.userId}>
              <th scope="row" data-label="Name">{m.displayName}</th>
              <td data-label="Email">{m.email}</td>
              <td data-label="Roles">
                <ul className="usa-list usa-list--unstyled">
                  {m.roles.map((r) => (
                    <li key={r}>
                      {r}
                      {district.admin && (
                        <details className="tapline-details">
                          <summary>Remove<span className="usa-sr-only"> the {r} role of {m.displayName}</span></summary>
                          <Form method="post" className="usa-form">
                            <AuthenticityTokenInput />
                            <input type="hidden" name="intent" value="revoke" />
                            <input type="hidden" name="districtId" value={districtId} />
                            <input type="hidden" name="userId" value={m.userId} />
                            <input type="hidden" name="role" value={r} />
                            <TextField name="reason" id={`reason-${m.userId}-${r}`} label={removeLabel(r, m.displayName)} error={a?.fields?.[`reason-${m.userId}-${r}`]} required />
                            <button className="usa-button usa-button--secondary" type="submit">Remove role</button>
                          </Form>
                        </details>
                      )}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {district.admin && (
        <>
          <h2>Give a role</h2>
          <p>The person first creates an account with their own email address; then give them a role here. They are told by email.</p>
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="grant" />
            <input type="hidden" name="districtId" value={districtId} />
            <TextField name="email" label={LABELS.email} type="email" defaultValue={a?.values?.email} error={a?.fields?.email} required />
            <SelectField name="role" label={LABELS.role} options={ROLES} defaultValue={a?.values?.role} error={a?.fields?.role} required />
            <TextField name="reason" label={LABELS.reason} hint="For example: hired as deputy clerk, Board resolution 2026-50" defaultValue={a?.values?.reason} error={a?.fields?.reason} required />
            <button className="usa-button" type="submit">Give role</button>
          </Form>
        </>
      )}
    </>
  );
}

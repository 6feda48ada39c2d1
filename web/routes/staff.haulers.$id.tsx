import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { LICENSE_FIELDS, LicenseCard, ScheduleInputs, TextArea, VehiclesTable, paid, type LicenseView } from "~/components/hauler";
import { money } from "~/components/money";
import type { StaffInfo } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Hauler licence | Staff | Tapline" }];

type ActionData = { error: string; fields: Record<string, string>; intent: string; values: Record<string, string>; days: number[] };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ haulerLicense: LicenseView }>(args, `query StaffLicence($id: ID!) { haulerLicense(id: $id) { ${LICENSE_FIELDS} } }`, { id: args.params.id });
}

/** The Board decides (SUL 801, 803); the District Operator suspends, revokes or reinstates (SUL 802). */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values: Record<string, string> = {};
  for (const k of ["reason", "dumpingLocation", "dumpingFrom", "dumpingTo", "action"]) values[k] = String(form.get(k) ?? "").trim();
  const days = form.getAll("dumpingDays").map(Number);
  const r =
    intent === "act"
      ? await gql(context, request, `mutation ActOnLicence($i: ActOnHaulerLicenseInput!) { actOnHaulerLicense(input: $i) { id } }`, {
          i: { id: params.id, action: values.action, reason: values.reason },
        })
      : await gql(context, request, `mutation DecideLicence($i: DecideHaulerLicenseInput!) { decideHaulerLicense(input: $i) { id } }`, {
          i:
            intent === "approve"
              ? { id: params.id, decision: "APPROVE", reason: values.reason || null, dumpingLocation: values.dumpingLocation, dumpingDays: days, dumpingFrom: values.dumpingFrom, dumpingTo: values.dumpingTo }
              : { id: params.id, decision: "DENY", reason: values.reason },
        });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, intent, values, days } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/haulers/${params.id}?done=${intent === "act" ? "act" : intent === "approve" ? "approved" : "denied"}`, { headers: cookieHeaders(r) });
}

/** What the person just did, said back after the redirect. */
const DONE: Record<string, string> = {
  approved: "The licence is approved and the hauling company told. It is in force as shown below.",
  denied: "The application is denied and the hauling company told, with your reason.",
  act: "The licence is changed as you decided and the hauling company told.",
};
/** Each form's visible labels by the keys the API reports, in its order (the error summary follows it). */
const FORMS: Record<string, Record<string, string>> = {
  approve: {
    decision: "Decision",
    dumpingLocation: "Where dumping is allowed",
    dumpingDays: "Days dumping is allowed",
    dumpingFrom: "Opening time",
    dumpingTo: "Closing time",
    reason: "Reason",
  },
  deny: { decision: "Decision", reason: "Reason for the denial (the hauler reads it)" },
  act: { action: "Action", reason: "Reason" },
};
/** Every key the page's mutations can report, by its visible label. */
export const LABELS: Record<string, string> = { ...FORMS.approve, ...FORMS.act, ...FORMS.deny };

export default function StaffLicence() {
  const { haulerLicense: l } = useLoaderData<typeof loader>() as { haulerLicense: LicenseView };
  const staff = useRouteLoaderData("routes/staff") as StaffInfo;
  const district = staff.districts.find((d) => d.id === l.districtId);
  const roles = district?.roles ?? [];
  const a = useActionData<ActionData>();
  const e = (intent: string) => (a?.intent === intent ? a.fields : {});
  const feePaid = !l.payment || paid(l.payment.status);
  const done = useSearchParams()[0].get("done");
  return (
    <>
      <h1>
        {l.licenseNumber ? `Licence ${l.licenseNumber}` : l.previousLicenseId ? "Licence renewal" : "Licence application"}: {l.organizationName}
      </h1>
      {done && !a && DONE[done] && <SuccessAlert>{DONE[done]}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={FORMS[a?.intent ?? ""] ?? LABELS} />
      <LicenseCard l={l} links={false} forStaff />
      <h2>Application</h2>
      <dl className="tapline-facts">
        <dt>Submitted</dt>
        <dd>
          <DateTime iso={l.submittedAt} timeZone={l.timeZone} />
        </dd>
        <dt>Certified true by the applicant</dt>
        <dd>{l.certifiedAt ? <DateTime iso={l.certifiedAt} timeZone={l.timeZone} /> : "no"}</dd>
        <dt>Application fee</dt>
        <dd>
          {money(l.applicationFeeCents ?? 0)} {feePaid ? `paid${l.payment?.receiptNumber ? `, receipt ${l.payment.receiptNumber}` : ""}` : "not paid yet"}
        </dd>
        <dt>Part 364 permit</dt>
        <dd>
          {l.part364PermitNumber ?? "none"}
          {l.part364DocumentId && (
            <>
              {" "}
              (
              <a className="usa-link" href={`/documents/${l.part364DocumentId}`}>
                the permit on file
              </a>
              )
            </>
          )}
        </dd>
        <dt>Approximate annual volume</dt>
        <dd>{l.annualVolumeGallons?.toLocaleString("en-US")} gallons</dd>
        <dt>Service area</dt>
        <dd>{l.serviceArea}</dd>
        {l.otherInformation && (
          <>
            <dt>Other information</dt>
            <dd>{l.otherInformation}</dd>
          </>
        )}
        {l.previous && (
          <>
            <dt>Renews</dt>
            <dd>
              <Link className="usa-link" to={`/staff/haulers/${l.previous.id}`}>
                licence {l.previous.licenseNumber}
              </Link>
            </dd>
          </>
        )}
      </dl>
      <VehiclesTable vehicles={l.vehicles} caption="Vehicles (the applicant must own them, Sewer Use Law 802)" />

      {l.status === "SUBMITTED" && roles.includes("BOARD") && (
        <>
          <h2>The Town Board's decision</h2>
          {!feePaid && <Notice type="warning">The application fee is not paid yet; the Board decides once it is.</Notice>}
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="approve" />
            <h3>Approve</h3>
            <TextField
              name="dumpingLocation"
              label="Where dumping is allowed"
              hint="Stated on the licence (Sewer Use Law 803)."
              defaultValue={a?.intent === "approve" ? a.values.dumpingLocation : ""}
              error={e("approve").dumpingLocation}
              required
            />
            <ScheduleInputs errors={e("approve")} days={a?.intent === "approve" ? a.days : [1, 2, 3, 4, 5]} from={a?.intent === "approve" ? a.values.dumpingFrom : "07:00"} to={a?.intent === "approve" ? a.values.dumpingTo : "15:00"} />
            <button className="usa-button usa-button--big" type="submit" disabled={!feePaid}>
              Approve the licence
            </button>
          </Form>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="deny" />
            <h3>Deny</h3>
            <TextArea name="reason" label="Reason for the denial (the hauler reads it)" error={e("deny").reason} defaultValue={a?.intent === "deny" ? a.values.reason : ""} />
            <button className="usa-button usa-button--secondary" type="submit" disabled={!feePaid}>
              Deny the application
            </button>
          </Form>
        </>
      )}

      {roles.includes("OPERATOR") && ["APPROVED", "SUSPENDED"].includes(l.status) && (
        <>
          <h2>District Operator</h2>
          <p>Suspend or revoke the licence for wilful or persistent violation, or record that the Part 364 permit was revoked (Sewer Use Law 802). The hauler is told the reason.</p>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="act" />
            <SelectField
              name="action"
              label={FORMS.act.action}
              options={[
                ...(l.status === "APPROVED" ? [{ value: "SUSPEND", label: "Suspend the licence" }] : []),
                { value: "REVOKE", label: "Revoke the licence" },
                ...(l.status === "SUSPENDED" ? [{ value: "REINSTATE", label: "Reinstate the licence" }] : []),
                ...(l.status === "APPROVED" ? [{ value: "PART364_REVOKED", label: "Record the Part 364 permit revoked" }] : []),
              ]}
              defaultValue={a?.intent === "act" ? a.values.action : undefined}
              error={e("act").action}
            />
            <TextArea name="reason" label="Reason" error={e("act").reason} defaultValue={a?.intent === "act" ? a.values.reason : ""} />
            <button className="usa-button usa-button--secondary" type="submit">
              Record the action
            </button>
          </Form>
        </>
      )}
      <p>
        <Link className="usa-link" to={`/staff/haulers?districtId=${l.districtId}`}>
          Back to septage haulers
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

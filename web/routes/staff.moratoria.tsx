import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField, TextAreaField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Moratoria | Staff | Tapline" }];

type Moratorium = { id: string; segmentName: string; streets: string[]; reason: string; section: string; declaredAt: string; liftedAt: string | null; liftReason: string | null };
type Data = { districts: { id: string; slug: string; name: string; timeZone: string }[]; districtId: string; moratoria: Moratorium[] };
type ActionData = { error: string; fields: Record<string, string>; intent: string; values: Record<string, string> };

/** ADMIN: moratoria on new connections for sewer segments (SUL 310). */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["ADMIN"]);
  const district = info.districts.find((d) => d.id === new URL(args.request.url).searchParams.get("districtId")) ?? info.districts[0];
  const { moratoria } = await requireSignedIn<{ moratoria: Moratorium[] }>(
    args,
    `query Moratoria($s: String!) { moratoria(districtSlug: $s, includeLifted: true) { id segmentName streets reason section declaredAt liftedAt liftReason } }`,
    { s: district.slug },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, slug: d.slug, name: d.name, timeZone: d.timeZone })), districtId: district.id, moratoria } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const districtId = String(form.get("districtId") ?? "");
  const values = { segmentName: String(form.get("segmentName") ?? ""), streets: String(form.get("streets") ?? ""), reason: String(form.get("reason") ?? "") };
  const r =
    intent === "lift"
      ? await gql(context, request, `mutation Lift($id: ID!, $r: String!) { liftMoratorium(id: $id, reason: $r) { id } }`, { id: String(form.get("id") ?? ""), r: values.reason })
      : await gql(context, request, `mutation Declare($i: DeclareMoratoriumInput!) { declareMoratorium(input: $i) { id } }`, {
          i: { districtId, segmentName: values.segmentName, streets: values.streets.split(/\r?\n|;/).map((s) => s.trim()).filter(Boolean), reason: values.reason },
        });
  if (!r.ok) {
    // A lift's reason is the field of that moratorium's own form.
    const liftId = String(form.get("id") ?? "");
    const fields = intent === "lift" && r.error.fields.reason ? { [`lift-${liftId}`]: r.error.fields.reason } : r.error.fields;
    return Response.json({ error: r.error.message, fields, intent, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/moratoria?districtId=${districtId}&done=${intent === "lift" ? "lifted" : "declared"}`, { headers: cookieHeaders(r) });
}

/** The declaration's labels, in the form's order. */
export const LABELS: Record<string, string> = {
  districtId: "District",
  segmentName: "Sewer segment",
  streets: "Streets it serves (one per line)",
  reason: "Reason applicants will read",
};
const LIFT_LABEL = "Why lift it?";

export default function Moratoria() {
  const { districts, districtId, moratoria } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const district = districts.find((d) => d.id === districtId)!;
  const declareErrors = a?.intent === "declare" ? a.fields : {};
  return (
    <>
      <h1>Moratoria on new connections</h1>
      <p className="usa-intro">
        When part of the sewer system is over capacity, new connections there may be refused until it is fixed. Applications for the streets you list
        are refused with your reason.
      </p>
      {params.get("done") && !a && <SuccessAlert>The moratorium is {params.get("done")}.</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={{ ...Object.fromEntries(moratoria.map((m) => [`lift-${m.id}`, LIFT_LABEL])), ...LABELS }} />
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <button className="usa-button" type="submit">
            Show
          </button>
        </Form>
      )}
      <h2>{district.name}</h2>
      {moratoria.length === 0 ? (
        <p>No moratorium has been declared.</p>
      ) : (
        <ul className="usa-list usa-list--unstyled">
          {moratoria.map((m) => (
            <li key={m.id} className="tapline-details">
              <h3 className="margin-top-0">
                {m.segmentName} {m.liftedAt ? <span className="usa-tag">Lifted</span> : <span className="usa-tag bg-secondary-dark">In force</span>}
              </h3>
              <p>
                Streets: {m.streets.join(", ")}. {m.reason} ({m.section}). Declared <DateTime iso={m.declaredAt} timeZone={district.timeZone} />.
                {m.liftedAt && (
                  <>
                    {" "}
                    Lifted <DateTime iso={m.liftedAt} timeZone={district.timeZone} />: {m.liftReason}
                  </>
                )}
              </p>
              {!m.liftedAt && (
                <Form method="post" className="usa-form">
                  <AuthenticityTokenInput />
                  <input type="hidden" name="intent" value="lift" />
                  <input type="hidden" name="id" value={m.id} />
                  <input type="hidden" name="districtId" value={districtId} />
                  <TextField
                    name="reason"
                    id={`lift-${m.id}`}
                    label={LIFT_LABEL}
                    error={a?.intent === "lift" ? a.fields[`lift-${m.id}`] : undefined}
                    required
                  />
                  <button className="usa-button usa-button--secondary" type="submit">
                    Lift the moratorium<span className="usa-sr-only"> on {m.segmentName}</span>
                  </button>
                </Form>
              )}
            </li>
          ))}
        </ul>
      )}
      <h2>Declare a moratorium</h2>
      <Form method="post" className="usa-form usa-form--large">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="declare" />
        <input type="hidden" name="districtId" value={districtId} />
        <TextField name="segmentName" label={LABELS.segmentName} hint="For example: Harbor Road pump station" defaultValue={a?.values.segmentName} error={declareErrors.segmentName} required />
        <TextAreaField name="streets" label={LABELS.streets} defaultValue={a?.values.streets} error={declareErrors.streets} required />
        <TextAreaField name="reason" label={LABELS.reason} defaultValue={a?.intent === "declare" ? a.values.reason : undefined} error={declareErrors.reason} required />
        <button className="usa-button" type="submit">
          Declare the moratorium
        </button>
      </Form>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

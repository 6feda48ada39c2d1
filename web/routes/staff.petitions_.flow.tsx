import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { TextArea } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";

export const meta: MetaFunction = () => [{ title: "Metered water requests | Staff | Tapline" }];

type Item = { id: string; propertyAddress: string; taxParcel: string | null; evidence: string; filedAt: string; filedByName: string | null; statusLabel: string };
type Data = { districts: { id: string; name: string; timeZone: string }[]; districtId: string; operator: boolean; items: Item[] };
type ActionData = { id: string; error: string; fields: Record<string, string>; values: Record<string, string> };

/** SUL 1205 requests waiting for the District Operator. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const { districtFlowDeductionRequests } = await requireSignedIn<{ districtFlowDeductionRequests: Item[] }>(
    args,
    `query FlowQueue($d: ID!) { districtFlowDeductionRequests(districtId: $d) { id propertyAddress taxParcel evidence filedAt filedByName statusLabel } }`,
    { d: district.id },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name, timeZone: d.timeZone })), districtId: district.id, operator: district.roles.includes("OPERATOR"), items: districtFlowDeductionRequests } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = formValues(form);
  const pct = values.sewerPercent?.trim() ? Number(values.sewerPercent) : null;
  const r = await gql(context, request, `mutation DecideFlow($i: DecideFlowDeductionInput!) { decideFlowDeductionRequest(input: $i) { id } }`, {
    i: { id: values.id, decision: values.decision ?? "", sewerPercent: pct !== null && Number.isInteger(pct) ? pct : null, reasons: values.reasons ?? "" },
  });
  if (!r.ok) return Response.json({ id: values.id, error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/petitions/flow?districtId=${values.districtId}&done=1`, { headers: cookieHeaders(r) });
}

/** Each field's visible label, in the form's order (the error summary follows it). */
export const LABELS: Record<string, string> = { id: "Request", decision: "Decision", sewerPercent: "Percentage that reaches the sewer (for a percentage)", reasons: "Reasons" };

export default function FlowQueue() {
  const d = useLoaderData<typeof loader>() as Data;
  const timeZone = (d.districts.find((x) => x.id === d.districtId) ?? d.districts[0]).timeZone;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  return (
    <>
      <h1>Metered water not reaching the sewer</h1>
      <p>Requests under Sewer Use Law 1205: set the percentage of metered water charges are based on, direct a flow meter at the owner's expense, or reject.</p>
      {params.get("done") && !a && <SuccessAlert>The decision is recorded and the requester is notified.</SuccessAlert>}
      {d.districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.districtId} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      {d.items.length === 0 && <p>No open requests.</p>}
      {d.items.map((r) => {
        const mine = a?.id === r.id;
        const e = mine ? a!.fields : {};
        // The form the error summary is about has the fields' own names as ids (its links go there).
        const idOf = (k: string) => (mine ? k : `${k}-${r.id}`);
        return (
          <section key={r.id} aria-labelledby={`req-${r.id}`} className="margin-bottom-4">
            <h2 id={`req-${r.id}`}>{r.propertyAddress}</h2>
            <p>
              Filed by {r.filedByName} on <DateTime iso={r.filedAt} timeZone={timeZone} />
              {r.taxParcel ? `, tax parcel ${r.taxParcel}` : ""}. {r.statusLabel}.
            </p>
            <p>{r.evidence}</p>
            {d.operator && (
              <Form method="post" className="usa-form">
                <AuthenticityTokenInput />
                {mine && <ErrorSummary message={a!.error} fields={a!.fields} labels={LABELS} />}
                <input type="hidden" name="id" value={r.id} />
                <input type="hidden" name="districtId" value={d.districtId} />
                <SelectField
                  id={idOf("decision")}
                  name="decision"
                  label="Decision"
                  options={[
                    { value: "PERCENTAGE", label: "Base charges on a percentage of metered water" },
                    { value: "METER", label: "Direct a flow meter" },
                    { value: "REJECT", label: "Reject" },
                  ]}
                  defaultValue={mine ? a!.values.decision : undefined}
                  error={e.decision}
                />
                <div className={`usa-form-group${e.sewerPercent ? " usa-form-group--error" : ""}`}>
                  <label className={`usa-label${e.sewerPercent ? " usa-label--error" : ""}`} htmlFor={idOf("sewerPercent")}>
                    Percentage that reaches the sewer (for a percentage)
                  </label>
                  {e.sewerPercent && (
                    <span className="usa-error-message" id={`${idOf("sewerPercent")}-error`} role="alert">
                      {e.sewerPercent}
                    </span>
                  )}
                  <input
                    className={`usa-input${e.sewerPercent ? " usa-input--error" : ""}`}
                    id={idOf("sewerPercent")}
                    name="sewerPercent"
                    inputMode="numeric"
                    defaultValue={mine ? a!.values.sewerPercent : undefined}
                    aria-invalid={e.sewerPercent ? true : undefined}
                    aria-describedby={e.sewerPercent ? `${idOf("sewerPercent")}-error` : undefined}
                  />
                </div>
                <TextArea name="reasons" id={idOf("reasons")} label="Reasons" error={e.reasons} defaultValue={mine ? a!.values.reasons : undefined} />
                <button className="usa-button" type="submit">
                  Record the decision
                </button>
              </Form>
            )}
          </section>
        );
      })}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

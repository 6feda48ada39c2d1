import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { MONTHS } from "~/components/industrial-lifecycle";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";
import { LIMIT_LABELS, LimitsEditor, parseLimitRows } from "~/components/industrial-limits";

export const meta: MetaFunction = () => [{ title: "Propose a permit modification | Staff | Tapline" }];

/**
 * The District Operator modifies an issued permit for just cause (SUL 1004 B, E): the cause in
 * the law's words, the new limits, reporting months or conditions, the date it takes effect (at
 * least 30 days after the notice) and a compliance schedule for the new conditions. The API
 * checks everything; its refusals are shown next to the fields. Withdrawal posts here too.
 */

type Limit = { parameter: string; kind: string; unit: string; average: number | null; maximum: number | null; minimum: number | null; section: string };
type Data = {
  industrialPermit: { id: string; permitNumber: string | null; facilityName: string | null; organizationName: string; status: string; expiresOn: string | null; reportingMonths: number[]; conditions: string | null; limits: Limit[] };
  industrialModificationCauses: { code: string; label: string; section: string }[];
};
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

const EXTRA_ROWS = 2;
const STEPS = 3;

/** Each field's visible label, in the forms' order: the error summary names fields by them. */
export const LABELS: Record<string, string> = {
  cause: "Just cause",
  causeText: "Other just cause (when chosen)",
  explanation: "Explanation (the permittee reads it)",
  effectiveOn: "Takes effect on",
  ...LIMIT_LABELS,
  reportingMonths: "Reporting months (Sewer Use Law 1005(3)(a))",
  conditions: "Conditions",
  complianceSchedule: "Compliance schedule for the new conditions (optional)",
  "complianceSchedule.*": "Step {n}",
  "complianceSchedule.*.milestone": "Step {n}",
  "complianceSchedule.*.dueOn": "Date of step {n}",
  permitId: "Permit",
  reason: "Why it is withdrawn (the permittee reads it)",
};

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(
    args,
    `query Modify($id: ID!) { industrialPermit(id: $id) { id permitNumber facilityName organizationName status expiresOn reportingMonths conditions limits { parameter kind unit average maximum minimum section } }
      industrialModificationCauses { code label section } }`,
    { id: args.params.id },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = formValues(form);
  values.reportingMonths = form.getAll("reportingMonths").map(String).join(",");
  const here = `/staff/industrial/${params.id}`;
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) => Response.json({ error, fields, values } satisfies ActionData, { status: 400, headers });
  let r;
  let done: string;
  if (values.intent === "withdraw") {
    r = await gql(context, request, `mutation W($id: ID!, $r: String!) { withdrawIndustrialPermitModification(id: $id, reason: $r) { id } }`, { id: values.modificationId ?? "", r: values.reason ?? "" });
    done = "The modification is withdrawn and the permittee told.";
  } else {
    const local: Record<string, string> = {};
    let limits: Record<string, unknown>[] | null = null;
    if (values.changeLimits) {
      const parsed = parseLimitRows(form);
      limits = parsed.limits;
      Object.assign(local, parsed.errors);
    }
    const steps = [];
    for (let i = 0; i < STEPS; i++) {
      const milestone = (values[`steps.${i}.milestone`] ?? "").trim();
      const dueOn = (values[`steps.${i}.dueOn`] ?? "").trim();
      if (milestone || dueOn) steps.push({ milestone, dueOn });
    }
    r = await gql(context, request, `mutation P($i: ProposeIndustrialModificationInput!) { proposeIndustrialPermitModification(input: $i) { id effectiveOn } }`, {
      i: {
        permitId: params.id,
        cause: values.cause ?? "",
        causeText: values.causeText || null,
        explanation: values.explanation ?? "",
        limits,
        reportingMonths: values.changeMonths ? form.getAll("reportingMonths").map(Number) : null,
        conditions: values.changeConditions ? (values.conditions ?? "") : null,
        effectiveOn: values.effectiveOn ?? "",
        complianceSchedule: steps,
      },
    });
    // A limit the page could not read went with no kind, which the API refuses: every problem is told at once.
    if (Object.keys(local).length) return fail("Please correct the highlighted fields.", { ...(r.ok ? {} : r.error.fields), ...local }, cookieHeaders(r));
    done = "The modification is proposed and the permittee notified; it takes effect on its date.";
  }
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`${here}/modify`)}`, { headers: cookieHeaders(r) });
    return fail(r.error.message, r.error.fields, cookieHeaders(r));
  }
  return redirect(`${here}?done=${encodeURIComponent(done)}`, { headers: cookieHeaders(r) });
}


export default function ProposeModification() {
  const { industrialPermit: p, industrialModificationCauses: causes } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const e = a?.fields ?? {};
  const kept = a && a.values.intent !== "withdraw" ? a.values : null;
  const v = (k: string, d: string) => (kept ? (kept[k] ?? "") : d);
  const checked = (k: string) => (kept ? !!kept[k] : false);
  const months = new Set(kept ? (kept.reportingMonths ?? "").split(",").filter(Boolean).map(Number) : p.reportingMonths);
  const rows: Limit[] = [...p.limits, ...Array.from({ length: EXTRA_ROWS }, () => ({ parameter: "", kind: "CONCENTRATION", unit: "mg/L", average: null, maximum: null, minimum: null, section: "" }))];
  const limitErrors = Object.entries(e).filter(([k]) => k.startsWith("limits"));
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/industrial/${p.id}`}>
          Back to permit {p.permitNumber}
        </Link>
      </p>
      <h1>Propose a modification of permit {p.permitNumber}</h1>
      <p className="usa-intro">
        {p.facilityName} · {p.organizationName}
      </p>
      <ErrorSummary message={a?.error} fields={e} labels={LABELS} />
      <p>
        The District Operator may modify a permit for just cause upon 30 days' notice to the permittee (Sewer Use Law 1004 B, 1004 E). The permittee is emailed today; the
        modification takes effect on its date, and new conditions come with a reasonable compliance schedule (Sewer Use Law 1004 A(12)). The permit expires on{" "}
        {p.expiresOn ? formatCalendarDate(p.expiresOn) : ""}.
      </p>
      {p.status !== "ISSUED" ? (
        <p>Only an issued permit is modified.</p>
      ) : (
        <Form method="post" className="usa-form usa-form--large maxw-none" noValidate>
          <AuthenticityTokenInput />
          <SelectField
            name="cause"
            label={LABELS.cause}
            options={[{ value: "", label: "Choose the cause (Sewer Use Law 1004 B)" }, ...causes.map((c) => ({ value: c.code, label: `${c.label} (${c.section})` }))]}
            defaultValue={v("cause", "")}
            error={e.cause}
            required
          />
          <TextField name="causeText" label={LABELS.causeText} defaultValue={v("causeText", "")} error={e.causeText} />
          <div className={`usa-form-group${e.explanation ? " usa-form-group--error" : ""}`}>
            <label className="usa-label" htmlFor="explanation">
              Explanation (the permittee reads it)
            </label>
            {e.explanation && (
              <span className="usa-error-message" role="alert">
                {e.explanation}
              </span>
            )}
            <textarea className="usa-textarea" id="explanation" name="explanation" defaultValue={v("explanation", "")} />
          </div>
          <TextField name="effectiveOn" type="date" label={LABELS.effectiveOn} hint="At least 30 days after today (Sewer Use Law 1004 B)." defaultValue={v("effectiveOn", "")} error={e.effectiveOn} required />

          <fieldset className="usa-fieldset" id="limits">
            <legend className="usa-legend usa-legend--large">Limits</legend>
            <div className="usa-checkbox">
              <input className="usa-checkbox__input" id="changeLimits" type="checkbox" name="changeLimits" value="1" defaultChecked={checked("changeLimits")} />
              <label className="usa-checkbox__label" htmlFor="changeLimits">
                Change the limits to the table below (empty a parameter to remove a row)
              </label>
            </div>
            {limitErrors.map(([k, msg]) => (
              <span key={k} className="usa-error-message" role="alert">
                {msg}
              </span>
            ))}
            <LimitsEditor rows={rows} caption="The permit's limits as modified" value={v} errors={{}} />
          </fieldset>

          <fieldset className={`usa-fieldset${e.reportingMonths ? " usa-form-group--error" : ""}`} id="reportingMonths">
            <legend className="usa-legend usa-legend--large">Reporting months (Sewer Use Law 1005(3)(a))</legend>
            <div className="usa-checkbox">
              <input className="usa-checkbox__input" id="changeMonths" type="checkbox" name="changeMonths" value="1" defaultChecked={checked("changeMonths")} />
              <label className="usa-checkbox__label" htmlFor="changeMonths">
                Change the reporting months (report periods not yet begun are made again)
              </label>
            </div>
            {e.reportingMonths && (
              <span className="usa-error-message" role="alert">
                {e.reportingMonths}
              </span>
            )}
            {MONTHS.map((m, i) => (
              <div className="usa-checkbox" key={m}>
                <input className="usa-checkbox__input" id={`month-${i + 1}`} type="checkbox" name="reportingMonths" value={i + 1} defaultChecked={months.has(i + 1)} />
                <label className="usa-checkbox__label" htmlFor={`month-${i + 1}`}>
                  {m}
                </label>
              </div>
            ))}
          </fieldset>

          <fieldset className={`usa-fieldset${e.conditions ? " usa-form-group--error" : ""}`} id="conditions-group">
            <legend className="usa-legend usa-legend--large">Conditions</legend>
            <div className="usa-checkbox">
              <input className="usa-checkbox__input" id="changeConditions" type="checkbox" name="changeConditions" value="1" defaultChecked={checked("changeConditions")} />
              <label className="usa-checkbox__label" htmlFor="changeConditions">
                Change the conditions to this text
              </label>
            </div>
            {e.conditions && (
              <span className="usa-error-message" role="alert">
                {e.conditions}
              </span>
            )}
            <label className="usa-label" htmlFor="conditions">
              Conditions
            </label>
            <textarea className="usa-textarea" id="conditions" name="conditions" defaultValue={v("conditions", p.conditions ?? "")} />
          </fieldset>

          <fieldset className={`usa-fieldset${e.complianceSchedule ? " usa-form-group--error" : ""}`} id="complianceSchedule">
            <legend className="usa-legend usa-legend--large">Compliance schedule for the new conditions (optional)</legend>
            <p className="usa-hint">Each step at most 9 months after the notice or the step before, the whole at most 18 months (Sewer Use Law 1004 A(12)(b)).</p>
            {e.complianceSchedule && (
              <span className="usa-error-message" role="alert">
                {e.complianceSchedule}
              </span>
            )}
            {Array.from({ length: STEPS }, (_, i) => (
              <div className="grid-row grid-gap" key={i}>
                <div className="grid-col-8">
                  <label className="usa-label" htmlFor={`steps.${i}.milestone`}>
                    Step {i + 1}
                  </label>
                  <input className="usa-input" id={`steps.${i}.milestone`} name={`steps.${i}.milestone`} defaultValue={v(`steps.${i}.milestone`, "")} />
                </div>
                <div className="grid-col-4">
                  <label className="usa-label" htmlFor={`steps.${i}.dueOn`}>
                    Date of step {i + 1}
                  </label>
                  <input className="usa-input" type="date" id={`steps.${i}.dueOn`} name={`steps.${i}.dueOn`} defaultValue={v(`steps.${i}.dueOn`, "")} />
                </div>
              </div>
            ))}
          </fieldset>
          <button className="usa-button margin-top-3" type="submit" name="intent" value="propose">
            Notify the permittee of the modification
          </button>
        </Form>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

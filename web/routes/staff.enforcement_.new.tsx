import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { TextArea, date } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { dollarsToCents, money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";

export const meta: MetaFunction = () => [{ title: "Serve a notice, order or fine | Staff | Tapline" }];

type Rules = {
  kinds: { kind: string; label: string; section: string; petitionTo: string | null }[];
  fineMinPerDayCents: number;
  fineMaxPerDayCents: number;
  fineSection: string;
  fineRequiresPriorNotice: boolean;
  petitionDays: number | null;
};
type Earlier = { id: string; number: string; kindLabel: string; servedOn: string; respondentName: string; respondentUserId: string | null; respondentOrganizationId: string | null; correctBy: string | null };
type Data = { districts: { id: string; name: string }[]; districtId: string; rules: Rules; earlier: Earlier | null };

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args, ["OPERATOR"]);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const escalatesId = url.searchParams.get("escalatesId");
  const data = await requireSignedIn<{ enforcementRules: Rules; enforcementAction?: Earlier }>(
    args,
    escalatesId
      ? `query NewAction($d: ID!, $e: ID!) { enforcementRules(districtId: $d) { kinds { kind label section petitionTo } fineMinPerDayCents fineMaxPerDayCents fineSection fineRequiresPriorNotice petitionDays }
          enforcementAction(id: $e) { id number kindLabel servedOn respondentName respondentUserId respondentOrganizationId correctBy } }`
      : `query NewAction($d: ID!) { enforcementRules(districtId: $d) { kinds { kind label section petitionTo } fineMinPerDayCents fineMaxPerDayCents fineSection fineRequiresPriorNotice petitionDays } }`,
    escalatesId ? { d: district.id, e: escalatesId } : { d: district.id },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name })), districtId: district.id, rules: data.enforcementRules, earlier: data.enforcementAction ?? null } satisfies Data;
}

type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = formValues(form);
  // A fine's days are entered as first day, count and amount per day; those three are checked here,
  // and every other field by the API in the same round, so the form shows every problem at once.
  const local: Record<string, string> = {};
  let fineDays: { date: string; amountCents: number }[] | null = null;
  if (values.kind === "FINE") {
    const perDay = dollarsToCents(values.finePerDay ?? "");
    const count = Number(values.fineDayCount);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.fineFirstDay ?? "")) local.fineFirstDay = "Enter the first day of violation like 2026-11-02.";
    if (!/^\d+$/.test(values.fineDayCount ?? "") || count < 1 || count > 366) local.fineDayCount = "Enter the number of days of violation (1 to 366).";
    if (perDay === undefined || perDay === null) local.finePerDay = "Enter the fine per day in dollars, like 500.00.";
    const start = Date.parse(`${values.fineFirstDay}T00:00:00Z`);
    fineDays = Object.keys(local).length || Number.isNaN(start) ? [] : Array.from({ length: count }, (_, i) => ({ date: new Date(start + i * 86_400_000).toISOString().slice(0, 10), amountCents: perDay! }));
  }
  const r = await gql<{ createEnforcementAction: { id: string } }>(context, request, `mutation Serve($i: CreateEnforcementActionInput!) { createEnforcementAction(input: $i) { id } }`, {
    i: {
      districtId: values.districtId,
      kind: values.kind,
      // A follow-up is served on the earlier action's respondent; otherwise whichever of the two is given (the API refuses both or neither).
      ...(values.escalatesId ? {} : { respondentOrganizationName: values.respondentOrganizationName || null, respondentEmail: values.respondentEmail || null }),
      violation: values.violation ?? "",
      requirements: values.requirements || null,
      correctBy: values.correctBy || null,
      servedOn: values.servedOn || null,
      escalatesId: values.escalatesId || null,
      subjectType: values.subjectType || null,
      subjectLabel: values.subjectLabel || null,
      fineDays,
      taxParcel: values.taxParcel || null,
      propertyAddress: values.propertyAddress || null,
    },
  });
  // Problems in the fine's days leave fineDays empty, which the API refuses too: never served with them.
  if (!r.ok) {
    const fields: Record<string, string> = { ...r.error.fields };
    // The API's word on a fine's days goes beside the field it comes from: the amount, or the days.
    if (fields.fineDays) {
      if (!Object.keys(local).length) local[/\$\d/.test(fields.fineDays) ? "finePerDay" : "fineFirstDay"] = fields.fineDays;
      delete fields.fineDays;
    }
    // A day's own problem (its date or its amount) goes beside the field that day comes from.
    for (const k of Object.keys(fields).filter((x) => x.startsWith("fineDays."))) {
      const to = k.endsWith(".amountCents") ? "finePerDay" : "fineFirstDay";
      if (!local[to]) local[to] = fields[k];
      delete fields[k];
    }
    // An earlier action is chosen by serving from its page; without one, the problem is the kind chosen.
    if (fields.escalatesId && !values.escalatesId) {
      fields.kind = fields.escalatesId;
      delete fields.escalatesId;
    }
    return Response.json({ error: r.error.message, fields: { ...fields, ...local }, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/enforcement/${r.data.createEnforcementAction.id}?done=served`, { headers: cookieHeaders(r) });
}

/** Each field's visible label, in the form's order (the error summary follows it). */
export const LABELS: Record<string, string> = {
  districtId: "District",
  kind: "Kind of action",
  escalatesId: "Follows from",
  respondentOrganizationName: "Organization's name",
  respondentOrganizationId: "Organization's name",
  respondentEmail: "Or the person's email",
  violation: "Violation found",
  requirements: "What the action requires",
  correctBy: "Correct by",
  servedOn: "Date of mailing",
  fineFirstDay: "First day of violation",
  fineDayCount: "Days of violation",
  fineDays: "Days of violation",
  "fineDays.*.date": "Day {n} of violation",
  finePerDay: "Fine per day (dollars)",
  "fineDays.*.amountCents": "Fine for day {n} of violation",
  taxParcel: "Tax parcel (optional)",
  propertyAddress: "Property address (optional)",
  subjectType: "Kind of record",
  subjectLabel: "Its number or name",
  subjectId: "Its number or name",
};

export default function ServeAction() {
  const { districts, districtId, rules, earlier } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const v = a?.values ?? {};
  const e = a?.fields ?? {};
  // The Operator serves a fine only where the law makes it administrative (SUL 1105); in Huron a court fines on conviction (V-2).
  const fines = rules.kinds.some((k) => k.kind === "FINE");
  return (
    <>
      <h1>Serve a notice, order or fine</h1>
      {fines ? (
        <p>
          {rules.fineSection.startsWith("Sewer Use Law") ? "The notice counts as given on the date of mailing (Sewer Use Law 1111). " : ""}A fine is {money(rules.fineMinPerDayCents)} to {money(rules.fineMaxPerDayCents)} for each day of violation (
          {rules.fineSection}){rules.fineRequiresPriorNotice ? ", and only after a written notice whose time to correct has passed" : ""}.
        </p>
      ) : (
        <p>
          Only a court fines a violation here, on conviction, up to {money(rules.fineMaxPerDayCents)} for each day it continues after the written notice's time to correct ({rules.fineSection}). Serve the notice here;
          once its time to correct has passed, refer the violation for prosecution from the notice's page.
        </p>
      )}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" className="usa-form usa-form--large">
        <AuthenticityTokenInput />
        {districts.length > 1 ? (
          <SelectField name="districtId" label="District" options={districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={v.districtId ?? districtId} />
        ) : (
          <input type="hidden" name="districtId" value={districtId} />
        )}
        <SelectField
          name="kind"
          label="Kind of action"
          options={rules.kinds.map((k) => ({ value: k.kind, label: `${k.label} (${k.section})` }))}
          defaultValue={v.kind ?? (earlier && fines ? "FINE" : "NOTICE_OF_VIOLATION")}
          error={e.kind}
        />
        {earlier ? (
          <>
            <input type="hidden" name="escalatesId" value={earlier.id} />
            <p id="escalatesId">
              Follows from {earlier.kindLabel} {earlier.number} of {date(earlier.servedOn)}, served on <strong>{earlier.respondentName}</strong>
              {earlier.correctBy ? `; time to correct ended ${date(earlier.correctBy)}` : ""}.
            </p>
            {e.escalatesId && (
              <span className="usa-error-message" role="alert">
                {e.escalatesId}
              </span>
            )}
          </>
        ) : (
          <fieldset className="usa-fieldset">
            <legend className="usa-legend">Served on (one of the two)</legend>
            <TextField name="respondentOrganizationName" label="Organization's name" hint="An industrial user, hauler or contractor" error={e.respondentOrganizationName} defaultValue={v.respondentOrganizationName} />
            <TextField name="respondentEmail" label="Or the person's email" hint="The email of the person's portal account" type="email" error={e.respondentEmail} defaultValue={v.respondentEmail} />
          </fieldset>
        )}
        <TextArea name="violation" label="Violation found" error={e.violation} defaultValue={v.violation} />
        <TextArea name="requirements" label="What the action requires" hint="For an order: the actions and their dates." error={e.requirements} defaultValue={v.requirements} />
        <TextField
          name="correctBy"
          label="Correct by"
          hint="A notice: the time to correct the violation. A compliance order: the day sewer service is cut unless it is corrected."
          type="date"
          error={e.correctBy}
          defaultValue={v.correctBy}
        />
        <TextField name="servedOn" label="Date of mailing" type="date" hint="Today when left empty" error={e.servedOn} defaultValue={v.servedOn} />
        {fines && (
          <fieldset className="usa-fieldset">
            <legend className="usa-legend">For a fine: each day is a separate violation</legend>
            <TextField name="fineFirstDay" label="First day of violation" type="date" error={e.fineFirstDay} defaultValue={v.fineFirstDay} />
            <TextField name="fineDayCount" label="Days of violation" inputMode="numeric" error={e.fineDayCount} defaultValue={v.fineDayCount} />
            <TextField name="finePerDay" label="Fine per day (dollars)" inputMode="decimal" error={e.finePerDay} defaultValue={v.finePerDay} />
            <TextField name="taxParcel" label="Tax parcel (optional)" error={e.taxParcel} defaultValue={v.taxParcel} />
            <TextField name="propertyAddress" label="Property address (optional)" error={e.propertyAddress} defaultValue={v.propertyAddress} />
          </fieldset>
        )}
        <fieldset className="usa-fieldset">
          <legend className="usa-legend">Record behind the action (optional)</legend>
          <TextField name="subjectType" label="Kind of record" hint="LateralPermit, Contractor, HaulerLicense, HaulerLoad, DischargePermit, ComplianceReport" error={e.subjectType} defaultValue={v.subjectType} />
          <TextField name="subjectLabel" label="Its number or name" error={e.subjectLabel} defaultValue={v.subjectLabel} />
        </fieldset>
        <button className="usa-button" type="submit">
          Serve it
        </button>
      </Form>
      <p>
        <Link className="usa-link" to={`/staff/enforcement?districtId=${districtId}`}>
          Back to enforcement actions
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { ACTION_FIELDS, Deadlines, Escalation, FineDaysTable, HearingNotice, ProsecutionSection, StatementTable, date, type ActionView } from "~/components/enforcement";
import { NestedErrorBoundary, RadioGroup } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { dollarsToCents, money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";

export const meta: MetaFunction = () => [{ title: "Enforcement action | Staff | Tapline" }];

type Data = { action: ActionView; operator: boolean };
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const { enforcementAction } = await requireSignedIn<{ enforcementAction: ActionView }>(args, `query StaffAction($id: ID!) { enforcementAction(id: $id) { ${ACTION_FIELDS} } }`, { id: args.params.id });
  const district = info.districts.find((d) => d.id === enforcementAction.districtId);
  return { action: enforcementAction, operator: !!district?.roles.includes("OPERATOR") } satisfies Data;
}

const JUDGMENTS = [
  { value: "CONVICTED", label: "Convicted" },
  { value: "ACQUITTED", label: "Acquitted" },
  { value: "DISMISSED", label: "Dismissed" },
];

/** Consecutive days from a first day, as the forms enter them (first day and number of days). */
function daysFrom(first: string | undefined, countText: string | undefined, local: Record<string, string>, firstKey: string, countKey: string): string[] {
  const count = Number(countText);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(first ?? "")) local[firstKey] = "Enter the first day like 2026-11-02.";
  if (!/^\d+$/.test(countText ?? "") || count < 1 || count > 366) local[countKey] = "Enter the number of days (1 to 366).";
  const start = Date.parse(`${first}T00:00:00Z`);
  if (local[firstKey] || local[countKey] || Number.isNaN(start)) return [];
  return Array.from({ length: count }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const values = formValues(await request.formData());
  const intent = values.intent ?? "";
  const local: Record<string, string> = {};
  let r;
  if (intent === "refer") {
    // Huron V-2: the days the violation continued after the notice's time to correct.
    const continuedDays = daysFrom(values.firstDay, values.dayCount, local, "firstDay", "dayCount");
    r = await gql(context, request, `mutation Refer($i: ReferForProsecutionInput!) { referForProsecution(input: $i) { id } }`, { i: { actionId: params.id, continuedDays } });
  } else if (intent === "judgment") {
    // Huron V-2: the court's judgment; on conviction the offenses (days) and the fine for each.
    let offenseDays: { date: string; amountCents: number }[] = [];
    if (values.judgment === "CONVICTED") {
      const perDay = dollarsToCents(values.finePerDay ?? "");
      if (perDay === undefined || perDay === null) local.finePerDay = "Enter the fine per day in dollars, like 200.00.";
      const days = daysFrom(values.offenseFirstDay, values.offenseDayCount, local, "offenseFirstDay", "offenseDayCount");
      offenseDays = local.finePerDay ? [] : days.map((date) => ({ date, amountCents: perDay! }));
    }
    r = await gql(context, request, `mutation Judgment($i: RecordCourtJudgmentInput!) { recordCourtJudgment(input: $i) { id } }`, {
      i: { actionId: params.id, judgment: values.judgment ?? "", court: values.court ?? "", docketNumber: values.docketNumber ?? "", judgmentOn: values.judgmentOn ?? "", offenseDays },
    });
  } else return Response.json({ intent, error: "Unknown action.", fields: {}, values } satisfies ActionData, { status: 400 });
  if (!r.ok || Object.keys(local).length) {
    const fields = { ...(r.ok ? {} : r.error.fields), ...local };
    // The API's list of days is shown beside the fields the days were entered in.
    if (fields.continuedDays && !Object.keys(local).length) fields.firstDay = fields.continuedDays;
    if (fields.offenseDays && !Object.keys(local).length) fields.finePerDay = fields.offenseDays;
    delete fields.continuedDays;
    delete fields.offenseDays;
    // A single day's problem goes beside the field that day comes from.
    for (const k of Object.keys(fields).filter((x) => /^(continuedDays|offenseDays)\./.test(x))) {
      const to = k.startsWith("continuedDays.") ? "firstDay" : k.endsWith(".amountCents") ? "finePerDay" : "offenseFirstDay";
      if (!fields[to]) fields[to] = fields[k];
      delete fields[k];
    }
    const message = r.ok ? "Please correct the highlighted fields." : r.error.message;
    return Response.json({ intent, error: message, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/enforcement/${params.id}?done=${intent}`, { headers: cookieHeaders(r) });
}

/** Each form's visible labels, in its order (the error summary follows it). */
const FORMS: Record<string, Record<string, string>> = {
  refer: {
    actionId: "Enforcement action",
    firstDay: "First day the violation continued",
    dayCount: "Number of days",
    continuedDays: "First day the violation continued",
    "continuedDays.*": "Day {n} the violation continued",
  },
  judgment: {
    actionId: "Enforcement action",
    judgment: "The court's judgment",
    court: "Court",
    docketNumber: "Docket or case number",
    judgmentOn: "Date of the judgment",
    offenseFirstDay: "First day convicted of",
    offenseDayCount: "Number of days convicted of",
    offenseDays: "Number of days convicted of",
    "offenseDays.*.date": "Day {n} convicted of",
    finePerDay: "Fine per day imposed (dollars)",
    "offenseDays.*.amountCents": "Fine imposed for day {n}",
  },
};
/** Every key either form's mutation can report, by its visible label. */
export const LABELS: Record<string, string> = { ...FORMS.refer, ...FORMS.judgment };

const DONE: Record<string, string> = {
  served: "Served. The respondent is notified by email and sees it in the portal.",
  refer: "Referred for prosecution. The respondent is notified by email and sees it in the portal; nothing is payable unless the court convicts.",
  judgment: "The court's judgment is recorded. The respondent is notified by email and sees it in the portal.",
};

export default function StaffAction() {
  const { action: a, operator } = useLoaderData<typeof loader>() as Data;
  const d = useActionData<ActionData>();
  const [params] = useSearchParams();
  const e = d?.fields ?? {};
  const v = d?.values ?? {};
  const history = a.respondentUserId ? `respondentUserId=${a.respondentUserId}` : `respondentOrganizationId=${a.respondentOrganizationId}`;
  return (
    <>
      <h1>
        {a.kindLabel} {a.number}
      </h1>
      <p className="usa-intro">
        Served on{" "}
        <Link className="usa-link" to={`/staff/enforcement?districtId=${a.districtId}&${history}`}>
          {a.respondentName}
        </Link>{" "}
        · {a.district.name} · {a.section}
      </p>
      {params.get("done") && !d && DONE[params.get("done")!] && <SuccessAlert>{DONE[params.get("done")!]}</SuccessAlert>}
      <ErrorSummary message={d?.error} fields={d?.fields} labels={FORMS[d?.intent ?? ""] ?? LABELS} />
      <section className="usa-summary-box" aria-labelledby="status-heading">
        <div className="usa-summary-box__body">
          <h2 className="usa-summary-box__heading" id="status-heading">
            Status: <span className="usa-tag">{a.final ? "Final" : a.statusLabel}</span>
          </h2>
          <div className="usa-summary-box__text">
            <Deadlines a={a} />
            {a.final && a.finalExplanation && (
              <p>
                <strong>{a.finalByDefault ? `Final since ${date(a.finalOn!)} by default (Sewer Use Law 1110):` : "Final:"}</strong> {a.finalExplanation}
              </p>
            )}
          </div>
        </div>
      </section>
      <dl className="tapline-facts">
        <dt>Violation</dt>
        <dd>{a.violation}</dd>
        {a.requirements && (
          <>
            <dt>Required</dt>
            <dd>{a.requirements}</dd>
          </>
        )}
        {a.respondedAt && (
          <>
            <dt>Answer</dt>
            <dd>
              {a.response} Correction plan: {a.responsePlan} (<DateTime iso={a.respondedAt} timeZone={a.district.timeZone} />)
            </dd>
          </>
        )}
      </dl>
      <FineDaysTable a={a} />
      {a.originalFineTotalCents !== a.fineTotalCents && <p>Served at {money(a.originalFineTotalCents)}; modified by the Town Board to {money(a.fineTotalCents)}.</p>}
      {a.charge && (
        <section aria-labelledby="charge-heading">
          <h2 id="charge-heading">Charge {a.charge.number}</h2>
          <p>Status: {a.charge.status === "OPEN" ? "unpaid" : a.charge.status === "HELD" ? "on hold while a petition is decided" : a.charge.status.toLowerCase()}</p>
          {a.charge.status === "OPEN" && <StatementTable s={a.charge.statement} caption="Statement today" />}
        </section>
      )}
      {a.petitions.length > 0 && (
        <section aria-labelledby="petitions-heading">
          <h2 id="petitions-heading">Petitions</h2>
          <ul className="usa-list">
            {a.petitions.map((p) => (
              <li key={p.id}>
                <Link className="usa-link" to={`/staff/petitions/${p.id}`}>
                  Petition of {date(p.filedOn)}
                </Link>
                : {p.statusLabel}
                {p.decidedByName ? ` (${p.decidedByName})` : ""}
                {p.hearing && <HearingNotice h={p.hearing} timeZone={a.district.timeZone} icsHref={`/enforcement/hearings/${p.hearing.id}.ics`} />}
              </li>
            ))}
          </ul>
        </section>
      )}
      <ProsecutionSection a={a} />
      {operator && a.kind === "NOTICE_OF_VIOLATION" && !a.prosecution && a.referralBlockedReason === null && (
        <section aria-labelledby="refer-heading">
          <h2 id="refer-heading">Refer for prosecution</h2>
          <p>
            The time to correct ended {date(a.correctBy!)}. If the violation continued beyond it, record the days it continued: each is a separate offense, and only the court can fine
            it, on conviction.
          </p>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="refer" />
            <TextField name="firstDay" label="First day the violation continued" type="date" error={d?.intent === "refer" ? e.firstDay : undefined} defaultValue={v.firstDay} />
            <TextField name="dayCount" label="Number of days" inputMode="numeric" error={d?.intent === "refer" ? e.dayCount : undefined} defaultValue={v.dayCount} />
            <button className="usa-button" type="submit">
              Refer to the court
            </button>
          </Form>
        </section>
      )}
      {a.canRecordJudgment && (
        <section aria-labelledby="judgment-heading">
          <h2 id="judgment-heading">Record the court's judgment</h2>
          <p>On a conviction the fine the court imposed is billed to {a.respondentName}; an acquittal or a dismissal closes the matter with nothing owed.</p>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="judgment" />
            <RadioGroup name="judgment" legend="The court's judgment" options={JUDGMENTS} error={d?.intent === "judgment" ? e.judgment : undefined} defaultValue={v.judgment ?? "CONVICTED"} />
            <TextField name="court" label="Court" error={d?.intent === "judgment" ? e.court : undefined} defaultValue={v.court} />
            <TextField name="docketNumber" label="Docket or case number" error={d?.intent === "judgment" ? e.docketNumber : undefined} defaultValue={v.docketNumber} />
            <TextField name="judgmentOn" label="Date of the judgment" type="date" error={d?.intent === "judgment" ? e.judgmentOn : undefined} defaultValue={v.judgmentOn} />
            <fieldset className="usa-fieldset">
              <legend className="usa-legend">On a conviction: the offenses (days) and the fine for each</legend>
              <TextField name="offenseFirstDay" label="First day convicted of" type="date" error={d?.intent === "judgment" ? e.offenseFirstDay : undefined} defaultValue={v.offenseFirstDay} />
              <TextField name="offenseDayCount" label="Number of days convicted of" inputMode="numeric" error={d?.intent === "judgment" ? e.offenseDayCount : undefined} defaultValue={v.offenseDayCount} />
              <TextField name="finePerDay" label="Fine per day imposed (dollars)" inputMode="decimal" error={d?.intent === "judgment" ? e.finePerDay : undefined} defaultValue={v.finePerDay} />
            </fieldset>
            <button className="usa-button" type="submit">
              Record the judgment
            </button>
          </Form>
        </section>
      )}
      <Escalation a={a} base="/staff/enforcement" />
      {operator && (
        <p>
          <Link className="usa-button usa-button--outline" to={`/staff/enforcement/new?districtId=${a.districtId}&escalatesId=${a.id}`}>
            Serve a follow-up action
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { ACTION_FIELDS, Deadlines, FineDaysTable, HearingNotice, TextArea, date, type ActionView, type PetitionView } from "~/components/enforcement";
import { NestedErrorBoundary, RadioGroup } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { dollarsToCents, money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { formValues } from "~/util";

export const meta: MetaFunction = () => [{ title: "Petition | Staff | Tapline" }];

type Data = { petition: PetitionView & { action: ActionView }; board: boolean; showCauseNoticeMinDays: number | null };
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const { petition } = await requireSignedIn<{ petition: Data["petition"] }>(
    args,
    `query StaffPetition($id: ID!) { petition(id: $id) { id status statusLabel relief reliefLabel grounds filedOn filedAt filedByName decidedAt decidedByName decisionReasons newTerms newAmountCents withdrawnAt canWithdraw canDecide
      documents { id filename }
      hearing { id scheduledFor hearingDate place reasons proposedAction informationRequested noticeServedOn outcome outcomeReasons newAmountCents newTerms decidedAt orderedByName decidedByName }
      action { ${ACTION_FIELDS} } } }`,
    { id: args.params.id },
  );
  const district = info.districts.find((d) => d.id === petition.action.districtId);
  // The notice period of a show-cause hearing, from the district's rulebook (SUL 1109: 10 days).
  const { enforcementRules } = await requireSignedIn<{ enforcementRules: { showCauseNoticeMinDays: number | null } }>(
    args,
    `query HearingRules($d: ID!) { enforcementRules(districtId: $d) { showCauseNoticeMinDays } }`,
    { d: petition.action.districtId },
  );
  return { petition, board: !!district?.roles.includes("BOARD"), showCauseNoticeMinDays: enforcementRules.showCauseNoticeMinDays } satisfies Data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = formValues(form);
  const intent = values.intent;
  const here = `/staff/petitions/${params.id}`;
  // The amount is read here and every other field by the API in the same round: every problem at once.
  const amount = dollarsToCents(values.newAmount ?? "");
  const modifying = (intent === "decide" && values.decision === "MODIFY") || (intent === "outcome" && values.outcome === "MODIFIED");
  const local: Record<string, string> = modifying && amount === undefined ? { newAmount: "Enter the amount in dollars, like 750.00." } : {};
  let r;
  if (intent === "decide")
    r = await gql(context, request, `mutation DecidePetition($i: DecidePetitionInput!) { decidePetition(input: $i) { id } }`, {
      i: { petitionId: params.id, decision: values.decision ?? "", reasons: values.reasons ?? "", newAmountCents: values.decision === "MODIFY" ? (amount ?? null) : null, newTerms: values.newTerms || null },
    });
  else if (intent === "hearing") {
    // The date and the time are two fields: say which one is missing before the API reads them as one.
    if (!values.hearingDate) local.hearingDate = "Enter the date of the hearing.";
    if (!values.hearingTime) local.hearingTime = "Enter the time of the hearing.";
    r = await gql(context, request, `mutation OrderHearing($i: OrderShowCauseHearingInput!) { orderShowCauseHearing(input: $i) { id } }`, {
      i: {
        petitionId: params.id,
        scheduledFor: `${values.hearingDate ?? ""}T${values.hearingTime ?? ""}`,
        place: values.place ?? "",
        reasons: values.reasons ?? "",
        proposedAction: values.proposedAction ?? "",
        informationRequested: values.informationRequested || null,
      },
    });
  } else if (intent === "outcome")
    r = await gql(context, request, `mutation DecideHearing($i: DecideHearingInput!) { decideShowCauseHearing(input: $i) { id } }`, {
      i: { hearingId: values.hearingId ?? "", outcome: values.outcome ?? "", reasons: values.reasons ?? "", newAmountCents: values.outcome === "MODIFIED" ? (amount ?? null) : null, newTerms: values.newTerms || null },
    });
  else return Response.json({ intent, error: "Unknown action.", fields: {}, values } satisfies ActionData, { status: 400 });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    const fields: Record<string, string> = { ...r.error.fields };
    // The API's keys, as this page's fields are named.
    const rename = (from: string, to: string) => {
      if (from in fields) {
        if (!(to in local)) fields[to] = fields[from];
        delete fields[from];
      }
    };
    rename("newAmountCents", "newAmount");
    if (local.hearingDate || local.hearingTime) delete fields.scheduledFor;
    rename("scheduledFor", "hearingDate");
    if (intent === "hearing") rename("reasons", "hearingReasons");
    return Response.json({ intent, error: r.error.message, fields: { ...fields, ...local }, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`${here}?done=${intent}`, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = {
  decide: "The decision is recorded and the petitioner is notified.",
  hearing: "The hearing is ordered and the notice is served on the petitioner.",
  outcome: "The decision after the hearing is recorded and the petitioner is notified.",
};
/** Each form's visible labels, in its order (the error summary follows it); the API's own keys by the field they are shown on. */
const FORMS: Record<string, Record<string, string>> = {
  decide: {
    petitionId: "Petition",
    decision: "Decision",
    reasons: "Written reasons",
    newAmount: "Modified fine, total (dollars), when modifying",
    newAmountCents: "Modified fine, total (dollars), when modifying",
    newTerms: "Modified terms, when modifying",
  },
  hearing: {
    petitionId: "Petition",
    hearingDate: "Hearing date",
    scheduledFor: "Hearing date",
    hearingTime: "Time",
    place: "Place",
    hearingReasons: "Reasons why the action is to be taken",
    proposedAction: "Proposed enforcement action",
    informationRequested: "Information the petitioner should supply (optional)",
  },
  outcome: {
    hearingId: "Hearing",
    outcome: "The Board",
    reasons: "Written reasons",
    newAmount: "Modified fine, total (dollars), when modifying",
    newAmountCents: "Modified fine, total (dollars), when modifying",
    newTerms: "Modified terms, when modifying",
  },
};
/** Every key the page's mutations can report, by its visible label. */
export const LABELS: Record<string, string> = { ...FORMS.decide, ...FORMS.hearing, ...FORMS.outcome };

export default function StaffPetition() {
  const { petition: p, board, showCauseNoticeMinDays } = useLoaderData<typeof loader>() as Data;
  const a = p.action;
  const d = useActionData<ActionData>();
  const [params] = useSearchParams();
  const v = (intent: string, k: string) => (d?.intent === intent ? (d.values[k] ?? "") : "");
  const e = (intent: string, k: string) => (d?.intent === intent ? d.fields?.[k] : undefined);
  const fine = a.kind === "FINE";
  return (
    <>
      <h1>Petition against {a.kindLabel.toLowerCase()} {a.number}</h1>
      <p className="usa-intro">
        {a.respondentName} · filed {date(p.filedOn)} by {p.filedByName} · {p.statusLabel}
      </p>
      {params.get("done") && !d && <SuccessAlert>{DONE[params.get("done")!] ?? "Done."}</SuccessAlert>}
      <ErrorSummary message={d?.error} fields={d?.fields} labels={FORMS[d?.intent ?? ""] ?? {}} />

      <section aria-labelledby="petition-heading">
        <h2 id="petition-heading">The petition</h2>
        <dl className="tapline-facts">
          <dt>Relief asked</dt>
          <dd>{p.reliefLabel}</dd>
          <dt>Grounds</dt>
          <dd>{p.grounds}</dd>
          <dt>Documents</dt>
          <dd>
            {p.documents.length === 0
              ? "None"
              : p.documents.map((doc, i) => (
                  <span key={doc.id}>
                    {i > 0 && ", "}
                    <a className="usa-link" href={`/documents/${doc.id}`}>
                      {doc.filename}
                    </a>
                  </span>
                ))}
          </dd>
          {p.decidedAt && (
            <>
              <dt>Decision</dt>
              <dd>
                {p.statusLabel}
                {p.newAmountCents ? `: ${money(p.newAmountCents)}` : ""}
                {p.newTerms ? `: ${p.newTerms}` : ""}. {p.decisionReasons} ({p.decidedByName}, <DateTime iso={p.decidedAt} timeZone={a.district.timeZone} />)
              </dd>
            </>
          )}
        </dl>
        {p.hearing && <HearingNotice h={p.hearing} timeZone={a.district.timeZone} icsHref={`/enforcement/hearings/${p.hearing.id}.ics`} />}
      </section>

      <section aria-labelledby="action-heading">
        <h2 id="action-heading">
          <Link className="usa-link" to={`/staff/enforcement/${a.id}`}>
            {a.kindLabel} {a.number}
          </Link>
        </h2>
        <Deadlines a={a} />
        <p>Violation: {a.violation}</p>
        {a.requirements && <p>Required: {a.requirements}</p>}
        <FineDaysTable a={a} />
      </section>

      {p.status === "FILED" && p.canDecide && (
        <>
          <section aria-labelledby="decide-heading">
            <h2 id="decide-heading">Decide without a hearing</h2>
            <Form method="post" className="usa-form usa-form--large">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="decide" />
              <RadioGroup name="decision" legend="Decision" options={a.decisionOptions} error={e("decide", "decision")} defaultValue={v("decide", "decision")} />
              <TextArea name="reasons" label="Written reasons" error={e("decide", "reasons")} defaultValue={v("decide", "reasons")} />
              {fine ? (
                <TextField name="newAmount" label="Modified fine, total (dollars), when modifying" hint={`Now ${money(a.fineTotalCents)} for ${a.fineDays.length} day(s)`} inputMode="decimal" error={e("decide", "newAmount")} defaultValue={v("decide", "newAmount")} />
              ) : (
                <TextArea name="newTerms" label="Modified terms, when modifying" error={e("decide", "newTerms")} defaultValue={v("decide", "newTerms")} />
              )}
              <button className="usa-button" type="submit">
                Record the decision
              </button>
            </Form>
          </section>
          <section aria-labelledby="hearing-heading">
            <h2 id="hearing-heading">Order a show-cause hearing (Sewer Use Law 1109)</h2>
            <p>
              The notice is served today
              {showCauseNoticeMinDays !== null ? ` and must be served at least ${showCauseNoticeMinDays} calendar days before the hearing` : ""}. It names the time and place,
              the reasons and the proposed action.
            </p>
            <Form method="post" className="usa-form usa-form--large">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="hearing" />
              <TextField name="hearingDate" label="Hearing date" type="date" error={e("hearing", "hearingDate")} defaultValue={v("hearing", "hearingDate")} />
              <TextField name="hearingTime" label="Time" hint={`${a.district.name}'s local time`} type="time" error={e("hearing", "hearingTime")} defaultValue={v("hearing", "hearingTime") || "19:00"} />
              <TextField name="place" label="Place" error={e("hearing", "place")} defaultValue={v("hearing", "place")} />
              <TextArea name="reasons" id="hearingReasons" label="Reasons why the action is to be taken" error={e("hearing", "hearingReasons")} defaultValue={v("hearing", "reasons")} />
              <TextArea name="proposedAction" label="Proposed enforcement action" error={e("hearing", "proposedAction")} defaultValue={v("hearing", "proposedAction")} />
              <TextArea name="informationRequested" label="Information the petitioner should supply (optional)" error={e("hearing", "informationRequested")} defaultValue={v("hearing", "informationRequested")} />
              <button className="usa-button" type="submit">
                Order the hearing and serve the notice
              </button>
            </Form>
          </section>
        </>
      )}

      {p.status === "HEARING_ORDERED" && p.hearing && !p.hearing.outcome && board && (
        <section aria-labelledby="outcome-heading">
          <h2 id="outcome-heading">Decision after the hearing</h2>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="outcome" />
            <input type="hidden" name="hearingId" value={p.hearing.id} />
            <RadioGroup
              name="outcome"
              legend="The Board"
              options={[
                { value: "UPHELD", label: "Upholds the order or fine" },
                { value: "MODIFIED", label: "Modifies it" },
                { value: "VACATED", label: "Vacates it" },
              ]}
              error={e("outcome", "outcome")}
              defaultValue={v("outcome", "outcome")}
            />
            <TextArea name="reasons" label="Written reasons" error={e("outcome", "reasons")} defaultValue={v("outcome", "reasons")} />
            {fine ? (
              <TextField name="newAmount" label="Modified fine, total (dollars), when modifying" hint={`Now ${money(a.fineTotalCents)} for ${a.fineDays.length} day(s)`} inputMode="decimal" error={e("outcome", "newAmount")} defaultValue={v("outcome", "newAmount")} />
            ) : (
              <TextArea name="newTerms" label="Modified terms, when modifying" error={e("outcome", "newTerms")} defaultValue={v("outcome", "newTerms")} />
            )}
            <button className="usa-button" type="submit">
              Record the decision
            </button>
          </Form>
        </section>
      )}
      <p>
        <Link className="usa-link" to={`/staff/petitions?districtId=${a.districtId}`}>
          Back to the docket
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

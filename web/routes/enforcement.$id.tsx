import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { ACTION_FIELDS, Deadlines, Escalation, FineDaysTable, HearingNotice, ProsecutionSection, StatementTable, TextArea, date, type ActionView } from "~/components/enforcement";
import { NestedErrorBoundary, Notice, RadioGroup } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Notice or order | Tapline" }];

type Data = { enforcementAction: ActionView; myDocuments: { id: string; filename: string }[] };
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string | string[]> };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(args, `query EnforcementAction($id: ID!) { enforcementAction(id: $id) { ${ACTION_FIELDS} } myDocuments { id filename } }`, { id: args.params.id });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const here = `/enforcement/${params.id}`;
  const values: Record<string, string | string[]> = {
    grounds: String(form.get("grounds") ?? ""),
    relief: String(form.get("relief") ?? ""),
    explanation: String(form.get("explanation") ?? ""),
    correctionPlan: String(form.get("correctionPlan") ?? ""),
    documentIds: form.getAll("documentIds").map(String),
  };
  let r;
  if (intent === "petition")
    r = await gql(context, request, `mutation FilePetition($i: FilePetitionInput!) { filePetition(input: $i) { id } }`, {
      i: { actionId: params.id, grounds: values.grounds, relief: values.relief, documentIds: values.documentIds },
    });
  else if (intent === "withdraw")
    r = await gql(context, request, `mutation WithdrawPetition($id: ID!) { withdrawPetition(id: $id) { id } }`, { id: String(form.get("petitionId") ?? "") });
  else if (intent === "respond")
    r = await gql(context, request, `mutation RespondToNotice($i: RespondToNoticeInput!) { respondToNotice(input: $i) { id } }`, {
      i: { actionId: params.id, explanation: values.explanation, correctionPlan: values.correctionPlan },
    });
  else if (intent === "pay") {
    const p = await gql<{ payCharge: { id: string } }>(context, request, `mutation PayCharge($id: ID!) { payCharge(id: $id) { id } }`, { id: String(form.get("chargeId") ?? "") });
    if (p.ok) return redirect(`/payments/${p.data.payCharge.id}`, { headers: cookieHeaders(p) });
    r = p;
  } else return Response.json({ intent, error: "Unknown action.", fields: {}, values }, { status: 400 });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return Response.json({ intent, error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`${here}?done=${intent}`, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = {
  withdraw: "Your petition is withdrawn.",
  respond: "Your answer is sent to the District Operator.",
};
/** Each field's visible label, in the page's order: the answer to a notice, then the petition. */
export const LABELS: Record<string, string> = {
  actionId: "Enforcement action",
  explanation: "Explain the violation",
  correctionPlan: "How you will correct it and prevent it from happening again",
  relief: "What do you ask for?",
  grounds: "Your grounds",
  documentIds: "Documents to attach",
};

/** The confirmation of a petition just filed: when it was received, and that it was in time. */
function PetitionReceived({ p, a }: { p: ActionView["petitions"][number] | undefined; a: ActionView }) {
  if (!p) return <SuccessAlert>Your petition is filed.</SuccessAlert>;
  return (
    <SuccessAlert>
      Your petition is filed with {a.petitionToLabel}: received <DateTime iso={p.filedAt} timeZone={a.district.timeZone} />, within the time to petition (until{" "}
      {date(a.petitionDueOn!)}). A confirmation is emailed to you. You will be told of every step, and the written decision appears on this page.
    </SuccessAlert>
  );
}

export default function EnforcementActionPage() {
  const { enforcementAction: a, myDocuments } = useLoaderData<typeof loader>() as Data;
  const d = useActionData<ActionData>();
  const [params] = useSearchParams();
  const tz = a.district.timeZone;
  const open = a.petitions.find((p) => p.status === "FILED" || p.status === "HEARING_ORDERED");
  const v = (k: string) => (d?.values[k] as string | undefined) ?? "";
  const chosenDocs = (d?.values.documentIds as string[] | undefined) ?? [];
  return (
    <>
      <h1>
        {a.kindLabel} {a.number}
      </h1>
      <p className="usa-intro">
        Served on {a.respondentName} · {a.district.name} · {a.section}
      </p>
      {params.get("done") === "petition" && !d ? (
        <PetitionReceived p={a.petitions.at(-1)} a={a} />
      ) : (
        params.get("done") && !d && <SuccessAlert>{DONE[params.get("done")!] ?? "Done."}</SuccessAlert>
      )}
      <ErrorSummary message={d?.error} fields={d?.fields} labels={LABELS} />

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

      <section aria-labelledby="what-heading">
        <h2 id="what-heading">What was found and what is required</h2>
        <dl className="tapline-facts">
          <dt>Violation</dt>
          <dd>{a.violation}</dd>
          {a.requirements && (
            <>
              <dt>Required</dt>
              <dd>{a.requirements}</dd>
            </>
          )}
        </dl>
        <FineDaysTable a={a} />
        {a.originalFineTotalCents !== a.fineTotalCents && (
          <p>
            The fine as served was {money(a.originalFineTotalCents)}; the Town Board modified it to {money(a.fineTotalCents)}.
          </p>
        )}
      </section>

      <ProsecutionSection a={a} />

      {a.charge && (
        <section aria-labelledby="pay-heading">
          <h2 id="pay-heading">Paying the fine</h2>
          {a.charge.status === "PAID" ? (
            <p>
              Paid
              {a.charge.payment?.receiptNumber && (
                <>
                  : receipt{" "}
                  <Link className="usa-link" to={`/payments/${a.charge.payment.id}/receipt`}>
                    {a.charge.payment.receiptNumber}
                  </Link>
                </>
              )}
              .
            </p>
          ) : a.charge.status === "HELD" ? (
            <p>Nothing is due while your petition is before the Board. If the fine stands or is modified, it is billed again from the day of the decision.</p>
          ) : a.charge.status === "CANCELLED" ? (
            <p>The fine was cancelled; nothing is owed.</p>
          ) : (
            <>
              <StatementTable s={a.charge.statement} caption="What you owe today, and the section of the law each amount comes from" />
              <Form method="post">
                <AuthenticityTokenInput />
                <input type="hidden" name="intent" value="pay" />
                <input type="hidden" name="chargeId" value={a.charge.id} />
                <button className="usa-button" type="submit">
                  Pay {money(a.charge.statement.totalCents)} online
                </button>
              </Form>
              <p className="usa-hint">You can also pay at the Town Clerk's counter.</p>
            </>
          )}
        </section>
      )}

      {a.kind === "NOTICE_OF_VIOLATION" && (
        <section aria-labelledby="answer-heading">
          <h2 id="answer-heading">Your answer</h2>
          {!a.answerDueOn && !a.respondedAt && (
            <p>The law asks you to correct the violation{a.correctBy ? ` by ${date(a.correctBy)}` : ""}, not for an answer ({a.section}); you may still write to the District Operator here.</p>
          )}
          {a.respondedAt ? (
            <dl className="tapline-facts">
              <dt>Sent</dt>
              <dd>
                <DateTime iso={a.respondedAt} timeZone={tz} />
              </dd>
              <dt>Explanation</dt>
              <dd>{a.response}</dd>
              <dt>Correction plan</dt>
              <dd>{a.responsePlan}</dd>
            </dl>
          ) : (
            <Form method="post" className="usa-form usa-form--large">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="respond" />
              <TextArea name="explanation" label="Explain the violation" error={d?.intent === "respond" ? d.fields?.explanation : undefined} defaultValue={v("explanation")} />
              <TextArea
                name="correctionPlan"
                label="How you will correct it and prevent it from happening again"
                error={d?.intent === "respond" ? d.fields?.correctionPlan : undefined}
                defaultValue={v("correctionPlan")}
              />
              <button className="usa-button" type="submit">
                Send the answer
              </button>
            </Form>
          )}
        </section>
      )}

      {a.petitions.length > 0 && (
        <section aria-labelledby="petitions-heading">
          <h2 id="petitions-heading">Petitions</h2>
          {a.petitions.map((p) => (
            <div key={p.id} className="margin-bottom-3">
              <h3>
                Petition filed {date(p.filedOn)}: {p.statusLabel}
              </h3>
              <dl className="tapline-facts">
                <dt>Received</dt>
                <dd>
                  <DateTime iso={p.filedAt} timeZone={tz} />
                  {p.filedByName ? `, from ${p.filedByName}` : ""}
                </dd>
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
                {p.decidedAt && !p.hearing?.outcome && (
                  <>
                    <dt>Decision</dt>
                    <dd>
                      {p.statusLabel}
                      {p.newAmountCents ? `: the fine is now ${money(p.newAmountCents)}` : ""}
                      {p.newTerms ? `: ${p.newTerms}` : ""}. Reasons: {p.decisionReasons} ({p.decidedByName}, <DateTime iso={p.decidedAt} timeZone={tz} />)
                    </dd>
                  </>
                )}
              </dl>
              {p.hearing && <HearingNotice h={p.hearing} timeZone={tz} icsHref={`/enforcement/hearings/${p.hearing.id}.ics`} />}
              {p.canWithdraw && (
                <Form method="post">
                  <AuthenticityTokenInput />
                  <input type="hidden" name="intent" value="withdraw" />
                  <input type="hidden" name="petitionId" value={p.id} />
                  <button className="usa-button usa-button--secondary" type="submit">
                    Withdraw this petition
                  </button>
                </Form>
              )}
            </div>
          ))}
        </section>
      )}

      {a.canPetition && !open && (
        <section aria-labelledby="petition-heading">
          <h2 id="petition-heading">Petition {a.petitionToLabel}</h2>
          <p>
            You may ask {a.petitionToLabel} in writing to {a.reliefOptions.map((r) => r.label.toLowerCase()).join(" or ")}, until {date(a.petitionDueOn!)} ({a.section}).
            A petition filed here is your written petition: it is received at once and counts as given today (you may instead send it by registered mail, Sewer Use Law
            1111). Without a petition by then the {a.kindLabel.toLowerCase()} becomes final and your right to contest it is waived (Sewer Use Law 1110).
          </p>
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="petition" />
            <RadioGroup name="relief" legend="What do you ask for?" options={a.reliefOptions} error={d?.intent === "petition" ? d.fields?.relief : undefined} defaultValue={v("relief") || a.reliefOptions[0]?.value} />
            <TextArea name="grounds" label="Your grounds" hint="Why the action should be modified or suspended." error={d?.intent === "petition" ? d.fields?.grounds : undefined} defaultValue={v("grounds")} />
            <fieldset className="usa-fieldset" id="documentIds">
              <legend className="usa-legend">Documents to attach</legend>
              {d?.intent === "petition" && d.fields?.documentIds && (
                <span className="usa-error-message" role="alert">
                  {d.fields.documentIds}
                </span>
              )}
              {myDocuments.length === 0 ? (
                <p className="usa-hint">
                  You have no uploaded documents. <Link to="/account/documents">Upload them first</Link> if you want to attach any.
                </p>
              ) : (
                myDocuments.map((doc) => (
                  <div className="usa-checkbox" key={doc.id}>
                    <input className="usa-checkbox__input" id={`doc-${doc.id}`} type="checkbox" name="documentIds" value={doc.id} defaultChecked={chosenDocs.includes(doc.id)} />
                    <label className="usa-checkbox__label" htmlFor={`doc-${doc.id}`}>
                      {doc.filename}
                    </label>
                  </div>
                ))
              )}
            </fieldset>
            <button className="usa-button" type="submit">
              File the petition
            </button>
          </Form>
        </section>
      )}
      {a.petitionDueOn && a.petitionDaysLeft !== null && a.petitionDaysLeft < 0 && a.status === "SERVED" && (
        <Notice type="warning">
          The time to petition closed on {date(a.petitionDueOn)}. A petition filed now is refused.
        </Notice>
      )}

      <Escalation a={a} base="/enforcement" />
      <p>
        <Link className="usa-link" to="/enforcement">
          All my notices and orders
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField, TextAreaField } from "~/components/fields";
import { CalendarDate, todayIn } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { ACCOUNT_MONEY, ACCOUNT_PAYMENT, AccountMoneyView, COUNTER_PAYMENT_LABELS, CounterPaymentForm, type AccountMoney, type AccountPayment } from "~/components/account-money";
import { dollarsToCents, money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "Service account | Staff | Tapline" }];

type Account = {
  id: string;
  districtId: string;
  propertyId: string;
  accountNumber: string;
  classLabel: string;
  occupantName: string;
  openedOn: string;
  closedOn: string | null;
  closeReasonLabel: string | null;
  occupancyLabel: string;
  finalBill: { lastDay: string; forwardingAddress: string | null; finalReading: number | null; finalReadOn: string | null; meterNumber: string | null } | null;
  meters: { id: string; meterNumber: string; installedOn: string; removedOn: string | null; sharedWith: number }[];
  assessment: { basis: string; effectiveOn: string; edus: string | null; waterUsageEdus: string | null; waterUsageBasis: string | null; rulebookVersion: number; enteredByName: string | null; rows: { key: string; label: string; count: number; edus: string; section: string }[] } | null;
};
type Worksheet = {
  basis: string;
  section: string;
  note: string | null;
  rows: { key: string; label: string; section: string; unit: string; countOf: string; perUnit: number; count: number; edus: string }[];
  waterUsage: { label: string; section: string; uses: string; edus: string | null; basis: string | null } | null;
  total: string | null;
  occupancy: string;
  sharedMeterAgreement: string | null;
  periodMonths: number;
  periodSection: string;
  rulebookVersion: number;
  tasks: { key: string; text: string }[];
};
type ActionData = { intent: string; error: string; fields: Record<string, string>; values: Record<string, string>; preview?: RefundPreview };
type CardPayment = { paymentId: string; receiptNumber: string; paidOn: string; amountCents: number; refundableCents: number; test: boolean };
type RefundPreview = {
  creditCents: number;
  amountCents: number;
  method: string;
  payeeName: string;
  receiptEmail: string | null;
  payment: { receiptNumber: string; paidOn: string; refundableCents: number; test: boolean } | null;
  checkNumber: string | null;
  checkDate: string | null;
  reason: string;
  balanceAfterCents: number;
};

const OCCUPANCY = [
  { value: "OCCUPIED", label: "Occupied" },
  { value: "UNOCCUPIED", label: "Unoccupied, not permanently discontinued (the minimum charge still applies)" },
  { value: "SEASONAL", label: "Seasonal (the minimum charge still applies)" },
];
const REASONS = [
  { value: "MOVE_OUT", label: "Moved out" },
  { value: "SALE", label: "Property sold" },
  { value: "DISCONTINUED", label: "Permanently discontinued" },
];
/** Each form's labels, by intent. */
const FORMS: Record<string, Record<string, string>> = {
  assess: { effectiveOn: "Applies from", counts: "Counts", waterUsageEdus: "EDUs determined from water usage", waterUsageBasis: "What they rest on", occupancy: "Occupancy", sharedMeterAgreement: "Agreement of the users behind one meter" },
  meter: { meterNumber: "Meter number", installedOn: "Installed on", startReading: "Start reading" },
  unmeter: { meterId: "Meter", removedOn: "Out of service from" },
  close: { lastDay: "Last day served", reason: "Why it closes", forwardingAddress: "Forwarding address for the final bill", finalReading: "Final meter reading", finalReadOn: "Read on" },
  payment: COUNTER_PAYMENT_LABELS,
  refund: { refundAmount: "Amount to refund (dollars)", refundMethod: "Refund by", refundPaymentId: "Card payment the money goes back to", refundCheckNumber: "Check number", refundCheckDate: "Date on the check", refundReason: "Why it is refunded" },
};
/** The refund form's field of each key the API reports. */
const REFUND_FIELDS: Record<string, string> = { amountCents: "refundAmount", method: "refundMethod", paymentId: "refundPaymentId", checkNumber: "refundCheckNumber", checkDate: "refundCheckDate", reason: "refundReason" };
const REFUND_METHODS = [
  { value: "check", label: "Check" },
  { value: "card", label: "Back to the card of a card payment" },
];

/** Every key the page's mutations can report, by its visible label (the account acted on is the page's). */
export const LABELS: Record<string, string> = {
  accountId: "Account",
  "counts.*.key": "Row {n} of the table",
  "counts.*.count": "Count in row {n} of the table",
  ...FORMS.assess,
  ...FORMS.meter,
  ...FORMS.unmeter,
  ...FORMS.close,
  ...FORMS.refund,
  ...FORMS.payment,
  amountCents: FORMS.payment.amount,
  paymentId: FORMS.refund.refundPaymentId,
  checkDate: FORMS.refund.refundCheckDate,
  reason: FORMS.refund.refundReason,
};

const A = `id districtId propertyId accountNumber classLabel occupantName openedOn closedOn closeReasonLabel occupancyLabel
  finalBill { lastDay forwardingAddress finalReading finalReadOn meterNumber }
  meters { id meterNumber installedOn removedOn sharedWith }
  assessment { basis effectiveOn edus waterUsageEdus waterUsageBasis rulebookVersion enteredByName rows { key label count edus section } }`;
const W = `basis section note rows { key label section unit countOf perUnit count edus } waterUsage { label section uses edus basis } total occupancy sharedMeterAgreement periodMonths periodSection rulebookVersion tasks { key text }`;

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const data = await requireSignedIn<{ serviceAccount: Account; assessmentWorksheet: Worksheet; serviceAccountBalance: AccountMoney; serviceAccountPayments: AccountPayment[] }>(
    args,
    `query StaffAccount($id: ID!) { serviceAccount(id: $id) { ${A} } assessmentWorksheet(accountId: $id) { ${W} }
      serviceAccountBalance(accountId: $id) { ${ACCOUNT_MONEY} } serviceAccountPayments(accountId: $id) { ${ACCOUNT_PAYMENT} } }`,
    { id: args.params.id },
  );
  // The worksheet is answered only to staff of the account's district, so the district is among theirs.
  const district = info.districts.find((d) => d.id === data.serviceAccount.districtId)!;
  const url = new URL(args.request.url);
  const clerk = district.roles.includes("CLERK");
  // The Town Clerk refunds a credit: to the card of one of these, or by check.
  let cards: CardPayment[] = [];
  if (clerk && data.serviceAccountBalance.balanceCents < 0) {
    const c = await gql<{ accountRefundableCardPayments: CardPayment[] }>(args.context, args.request, `query RefundCards($a: ID!) { accountRefundableCardPayments(accountId: $a) { paymentId receiptNumber paidOn amountCents refundableCents test } }`, { a: args.params.id });
    if (c.ok) cards = c.data.accountRefundableCardPayments;
  }
  return { ...data, clerk, cards, today: todayIn(district.timeZone), done: url.searchParams.get("done"), receipt: url.searchParams.get("receipt") };
}

/** The Town Clerk saves the worksheet, records a meter in or out of service, or closes the account. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (typeof v === "string" && k !== "csrf") values[k] = v.trim();
  const orNull = (k: string) => values[k] || null;
  // A field missing from the post (a form of another intent, or no JavaScript and a hand-made request) is sent empty, for the API to name it, never as no value.
  let r;
  if (intent === "refund-preview" || intent === "refund") {
    // The Town Clerk refunds the account's credit: a preview first, then Confirm (api/rents/refunds.ts).
    const cents = dollarsToCents(values.refundAmount ?? "");
    const method = values.refundMethod ?? "";
    const i = {
      accountId: params.id,
      amountCents: typeof cents === "number" ? cents : 0,
      method,
      paymentId: method === "card" ? orNull("refundPaymentId") : null,
      checkNumber: method === "check" ? orNull("refundCheckNumber") : null,
      checkDate: method === "check" ? orNull("refundCheckDate") : null,
      reason: values.refundReason ?? "",
    };
    const q =
      intent === "refund"
        ? await gql<{ refundAccountCredit: { receiptNumber: string } }>(context, request, `mutation RefundCredit($i: AccountRefundInput!) { refundAccountCredit(input: $i) { receiptNumber } }`, { i })
        : await gql<{ previewAccountRefund: RefundPreview }>(
            context,
            request,
            `query PreviewRefund($i: AccountRefundInput!) { previewAccountRefund(input: $i) { creditCents amountCents method payeeName receiptEmail payment { receiptNumber paidOn refundableCents test } checkNumber checkDate reason balanceAfterCents } }`,
            { i },
          );
    if (!q.ok) {
      const fields: Record<string, string> = {};
      for (const [k, msg] of Object.entries(q.error.fields ?? {})) fields[REFUND_FIELDS[k] ?? k] = k === "amountCents" && typeof cents !== "number" ? "Enter the amount in dollars, like 125.00." : msg;
      return Response.json({ intent: "refund", error: q.error.message, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(q) });
    }
    if (intent === "refund-preview") return Response.json({ intent: "refund", error: "", fields: {}, values, preview: (q.data as { previewAccountRefund: RefundPreview }).previewAccountRefund } satisfies ActionData, { headers: cookieHeaders(q) });
    return redirect(`/staff/properties/accounts/${params.id}?done=refund#money`, { headers: cookieHeaders(q) });
  } else if (intent === "payment") {
    // The Town Clerk's counter: cash or a check of any amount against the account (api/rents/ledger.service.ts).
    const cents = dollarsToCents(values.amount ?? "");
    const p = await gql<{ recordAccountCounterPayment: { id: string } }>(context, request, `mutation CounterPayment($i: AccountCounterPaymentInput!) { recordAccountCounterPayment(input: $i) { id } }`, {
      i: { accountId: params.id, amountCents: typeof cents === "number" ? cents : 0, method: values.method ?? "", checkNumber: orNull("checkNumber") },
    });
    if (!p.ok) {
      const fields = { ...p.error.fields };
      if (fields.amountCents) fields.amount = typeof cents === "number" ? fields.amountCents : "Enter the amount in dollars, like 125.00.";
      delete fields.amountCents;
      return Response.json({ intent, error: p.error.message, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(p) });
    }
    return redirect(`/staff/properties/accounts/${params.id}?done=payment&receipt=${p.data.recordAccountCounterPayment.id}#money`, { headers: cookieHeaders(p) });
  } else if (intent === "assess") {
    const counts = Object.entries(values)
      .filter(([k, v]) => k.startsWith("count.") && v !== "")
      .map(([k, v]) => ({ key: k.slice("count.".length), count: /^\d+$/.test(v) ? Number(v) : -1 }));
    r = await gql(context, request, `mutation Assess($i: AssessServiceAccountInput!) { assessServiceAccount(input: $i) { id } }`, {
      i: { accountId: params.id, effectiveOn: values.effectiveOn ?? "", counts, waterUsageEdus: orNull("waterUsageEdus"), waterUsageBasis: orNull("waterUsageBasis"), occupancy: orNull("occupancy"), sharedMeterAgreement: orNull("sharedMeterAgreement") },
    });
  } else if (intent === "meter") {
    r = await gql(context, request, `mutation AddMeter($i: AddServiceMeterInput!) { addServiceMeter(input: $i) { id } }`, {
      i: { accountId: params.id, meterNumber: values.meterNumber ?? "", installedOn: values.installedOn ?? "", startReading: values.startReading ? (/^\d+$/.test(values.startReading) ? Number(values.startReading) : -1) : null },
    });
  } else if (intent === "unmeter") {
    r = await gql(context, request, `mutation RemoveMeter($i: RemoveServiceMeterInput!) { removeServiceMeter(input: $i) { id } }`, { i: { accountId: params.id, meterId: values.meterId ?? "", removedOn: values.removedOn ?? "" } });
  } else {
    const reading = values.finalReading;
    r = await gql(context, request, `mutation CloseAccount($i: CloseServiceAccountInput!) { closeServiceAccount(input: $i) { id } }`, {
      i: { accountId: params.id, lastDay: values.lastDay ?? "", reason: values.reason ?? "", forwardingAddress: orNull("forwardingAddress"), finalReading: reading ? (/^\d+$/.test(reading) ? Number(reading) : -1) : null, finalReadOn: orNull("finalReadOn") },
    });
  }
  if (!r.ok) return Response.json({ intent, error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/properties/accounts/${params.id}?done=${intent}`, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = {
  refund: "The refund is recorded in the account's history and its receipt emailed to the party billed.",
  payment: "The payment is recorded and its receipt emailed to the payer.", assess: "The assessment is saved.", meter: "The meter is recorded.", unmeter: "The meter is out of service.", close: "The account is closed." };

export default function StaffAccount() {
  const { serviceAccount: a, assessmentWorksheet: w, serviceAccountBalance: m, serviceAccountPayments: payments, clerk, cards, today, done, receipt } = useLoaderData<typeof loader>();
  const act = useActionData<ActionData>();
  const e = (i: string) => (act?.intent === i ? act.fields : {});
  const v = (i: string, k: string) => (act?.intent === i ? act.values[k] : undefined);
  const open = !a.closedOn;
  return (
    <>
      <h1>
        Account {a.accountNumber} <span className="display-block font-sans-md">{a.occupantName}</span>
      </h1>
      {done && DONE[done] && (
        <div className="usa-alert usa-alert--success usa-alert--slim" role="status">
          <div className="usa-alert__body">
            <p className="usa-alert__text">
              {DONE[done]}
              {receipt && (
                <>
                  {" "}
                  <a className="usa-link" href={`/payments/${receipt}/receipt`}>
                    Print the receipt
                  </a>
                </>
              )}
            </p>
          </div>
        </div>
      )}
      <dl>
        <dt>Class</dt>
        <dd>
          {a.classLabel}: billed every {w.periodMonths === 1 ? "month" : `${w.periodMonths} months`} ({w.periodSection})
        </dd>
        <dt>Served</dt>
        <dd>
          From <CalendarDate date={a.openedOn} />
          {a.closedOn ? (
            <>
              {" "}
              to <CalendarDate date={a.closedOn} /> ({a.closeReasonLabel})
            </>
          ) : (
            ", open"
          )}
        </dd>
        {w.basis === "USER" && (
          <>
            <dt>Occupancy</dt>
            <dd>{a.occupancyLabel}</dd>
          </>
        )}
        <dt>Assessment</dt>
        <dd>
          {!a.assessment ? (
            "Not assessed yet"
          ) : a.assessment.basis === "EDU" ? (
            <>
              {a.assessment.edus} EDUs from <CalendarDate date={a.assessment.effectiveOn} /> (rulebook version {a.assessment.rulebookVersion})
            </>
          ) : (
            <>One user ({w.section})</>
          )}
        </dd>
      </dl>
      {a.finalBill && (
        <>
          <h2>For the final bill</h2>
          <dl>
            <dt>Last day served</dt>
            <dd>
              <CalendarDate date={a.finalBill.lastDay} />
            </dd>
            <dt>Send it to</dt>
            <dd>{a.finalBill.forwardingAddress ?? "The address on record"}</dd>
            <dt>Final reading</dt>
            <dd>
              {a.finalBill.finalReading === null ? (
                "Not taken: read the meter or estimate it on the final bill"
              ) : (
                <>
                  {a.finalBill.finalReading} on meter {a.finalBill.meterNumber ?? "(none recorded)"}, read <CalendarDate date={a.finalBill.finalReadOn} />
                </>
              )}
            </dd>
          </dl>
        </>
      )}

      <h2 id="money">Balance, payments and late charges</h2>
      <AccountMoneyView m={m} billHref={(id) => `/properties/bills/${id}`} receiptHref={(id) => `/payments/${id}/receipt`} />
      {payments.length > 0 && (
        <p>
          Payments received: {payments.map((p, i) => (
            <span key={p.id}>
              {i ? ", " : ""}
              <a className="usa-link" href={`/payments/${p.id}/receipt`}>
                {p.receiptNumber}
              </a>{" "}
              {money(p.amountCents)}
            </span>
          ))}
        </p>
      )}
      {m.canRecordPayment && (
        <>
          <h3>Record a payment at the counter</h3>
          <p>Any amount: a part of the balance is applied to the oldest bill first; more than the balance is a credit on the account. A receipt is made each time.</p>
          <CounterPaymentForm intent="payment" message={act?.intent === "payment" ? act.error : null} errors={e("payment")} value={(k) => v("payment", k)} />
        </>
      )}

      {m.canRecordPayment && m.balanceCents < 0 && <RefundForm m={m} cards={cards} act={act} today={today} />}

      <h2 id="worksheet">Assessment worksheet</h2>
      {w.note && <p>{w.note}</p>}
      {w.tasks.length > 0 && (
        <div className="usa-alert usa-alert--warning usa-alert--slim">
          <div className="usa-alert__body">
            <ul className="usa-list">
              {w.tasks.map((t) => (
                <li key={t.key}>{t.text}</li>
              ))}
            </ul>
          </div>
        </div>
      )}
      <ErrorSummary message={act?.intent === "assess" ? act.error : null} fields={e("assess")} labels={FORMS.assess} />
      <Form method="post" className="usa-form usa-form--large">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="assess" />
        {w.basis === "EDU" ? (
          <>
            <table className="usa-table usa-table--borderless width-full">
              <caption>
                Equivalent dwelling units ({w.section}, rulebook version {w.rulebookVersion}): enter a count for each row that applies
              </caption>
              <thead>
                <tr>
                  <th scope="col">Use</th>
                  <th scope="col">EDUs each</th>
                  <th scope="col">Count</th>
                  <th scope="col">EDUs now</th>
                </tr>
              </thead>
              <tbody>
                {w.rows.map((r) => {
                  const name = `count.${r.key}`;
                  const err = e("assess")[name];
                  return (
                    <tr key={r.key}>
                      <th scope="row">
                        <label htmlFor={name}>{r.label}</label>
                      </th>
                      <td>
                        {r.perUnit} {r.unit}
                      </td>
                      <td>
                        {err && (
                          <span className="usa-error-message" id={`${name}-error`}>
                            {err}
                          </span>
                        )}
                        <input
                          className={`usa-input usa-input--small${err ? " usa-input--error" : ""}`}
                          id={name}
                          name={name}
                          inputMode="numeric"
                          defaultValue={v("assess", name) ?? (r.count ? String(r.count) : "")}
                          aria-describedby={err ? `${name}-error` : undefined}
                          aria-invalid={err ? true : undefined}
                          disabled={!clerk || !open}
                        />
                      </td>
                      <td>{r.edus}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {w.waterUsage && (
              <fieldset className="usa-fieldset">
                <legend className="usa-legend">As determined by water usage ({w.waterUsage.section})</legend>
                <p className="usa-hint">{w.waterUsage.uses}</p>
                <TextField name="waterUsageEdus" label={FORMS.assess.waterUsageEdus} hint="Up to three decimals, e.g. 2.375" defaultValue={v("assess", "waterUsageEdus") ?? w.waterUsage.edus} error={e("assess").waterUsageEdus} />
                <TextField name="waterUsageBasis" label={FORMS.assess.waterUsageBasis} hint="The water usage and how it was counted" defaultValue={v("assess", "waterUsageBasis") ?? w.waterUsage.basis} error={e("assess").waterUsageBasis} />
              </fieldset>
            )}
            <p>{w.total ? `Total now: ${w.total} EDUs.` : "Not assessed yet."}</p>
          </>
        ) : (
          <>
            <p>Each user pays the minimum charge; where several users share one meter, the owner pays the excess unless they all agree otherwise and tell the Town Clerk ({w.section}).</p>
            <SelectField name="occupancy" label={FORMS.assess.occupancy} options={OCCUPANCY} defaultValue={v("assess", "occupancy") ?? w.occupancy} error={e("assess").occupancy} />
            <div className={`usa-form-group${e("assess").sharedMeterAgreement ? " usa-form-group--error" : ""}`}>
              <label className="usa-label" htmlFor="sharedMeterAgreement">
                {FORMS.assess.sharedMeterAgreement}
              </label>
              <div className="usa-hint" id="sharedMeterAgreement-hint">
                Only when all the users behind one meter have notified the Clerk of another agreement
              </div>
              {e("assess").sharedMeterAgreement && (
                <span className="usa-error-message" id="sharedMeterAgreement-error">
                  {e("assess").sharedMeterAgreement}
                </span>
              )}
              <textarea className="usa-textarea" id="sharedMeterAgreement" name="sharedMeterAgreement" aria-describedby="sharedMeterAgreement-hint" defaultValue={v("assess", "sharedMeterAgreement") ?? w.sharedMeterAgreement ?? ""} />
            </div>
          </>
        )}
        {clerk && open && (
          <>
            <TextField name="effectiveOn" type="date" label={FORMS.assess.effectiveOn} defaultValue={v("assess", "effectiveOn") ?? today} error={e("assess").effectiveOn} required />
            <button className="usa-button" type="submit">
              Save the assessment
            </button>
          </>
        )}
      </Form>

      <h2 id="meters">Meters</h2>
      {a.meters.length === 0 ? (
        <p>No meter recorded.</p>
      ) : (
        <table className="usa-table usa-table--borderless width-full">
          <caption>Water meters serving this account (Sewer Use Law 1205)</caption>
          <thead>
            <tr>
              <th scope="col">Meter</th>
              <th scope="col">In service</th>
              <th scope="col">Shared with</th>
            </tr>
          </thead>
          <tbody>
            {a.meters.map((m) => (
              <tr key={m.id}>
                <th scope="row">{m.meterNumber}</th>
                <td>
                  From <CalendarDate date={m.installedOn} />
                  {m.removedOn ? (
                    <>
                      {" "}
                      to <CalendarDate date={m.removedOn} />
                    </>
                  ) : null}
                </td>
                <td>{m.sharedWith > 1 ? `${m.sharedWith} open accounts` : "This account only"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {clerk && open && (
        <>
          <ErrorSummary message={act?.intent === "meter" ? act.error : null} fields={e("meter")} labels={FORMS.meter} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="meter" />
            <TextField name="meterNumber" label={FORMS.meter.meterNumber} hint="A meter of this property already in service is shared with this account" defaultValue={v("meter", "meterNumber")} error={e("meter").meterNumber} required />
            <TextField name="installedOn" type="date" label={FORMS.meter.installedOn} defaultValue={v("meter", "installedOn")} error={e("meter").installedOn} required />
            <TextField name="startReading" label={FORMS.meter.startReading} hint="A new meter's register reading when installed; leave empty for a meter already in service" inputMode="numeric" defaultValue={v("meter", "startReading")} error={e("meter").startReading} />
            <button className="usa-button usa-button--outline" type="submit">
              Record the meter
            </button>
          </Form>
          {a.meters.some((m) => !m.removedOn) && (
            <>
              <ErrorSummary message={act?.intent === "unmeter" ? act.error : null} fields={e("unmeter")} labels={FORMS.unmeter} />
              <Form method="post" className="usa-form">
                <AuthenticityTokenInput />
                <input type="hidden" name="intent" value="unmeter" />
                <SelectField name="meterId" label={FORMS.unmeter.meterId} options={a.meters.filter((m) => !m.removedOn).map((m) => ({ value: m.id, label: m.meterNumber }))} error={e("unmeter").meterId} />
                <TextField name="removedOn" type="date" label={FORMS.unmeter.removedOn} defaultValue={v("unmeter", "removedOn")} error={e("unmeter").removedOn} required />
                <button className="usa-button usa-button--outline" type="submit">
                  Take the meter out of service
                </button>
              </Form>
            </>
          )}

          <h2 id="close">Close the account</h2>
          <p>On the leaving party's last day; what you enter here goes on the final bill.</p>
          <ErrorSummary message={act?.intent === "close" ? act.error : null} fields={e("close")} labels={FORMS.close} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="close" />
            <TextField name="lastDay" type="date" label={FORMS.close.lastDay} defaultValue={v("close", "lastDay")} error={e("close").lastDay} required />
            <SelectField name="reason" label={FORMS.close.reason} options={REASONS} defaultValue={v("close", "reason")} error={e("close").reason} />
            <TextField name="forwardingAddress" label={FORMS.close.forwardingAddress} defaultValue={v("close", "forwardingAddress")} error={e("close").forwardingAddress} />
            <TextField name="finalReading" label={FORMS.close.finalReading} hint="Leave empty if not read" inputMode="numeric" defaultValue={v("close", "finalReading")} error={e("close").finalReading} />
            <TextField name="finalReadOn" type="date" label={FORMS.close.finalReadOn} defaultValue={v("close", "finalReadOn")} error={e("close").finalReadOn} />
            <button className="usa-button usa-button--secondary" type="submit">
              Close the account
            </button>
          </Form>
        </>
      )}
      <p>
        <Link className="usa-link" to={`/staff/properties/${a.propertyId}`}>
          Back to the property
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

/**
 * The Town Clerk refunds the account's credit (the laws say nothing of refunds:
 * docs/decisions/sewer-account-refunds.md): by check, or back to the card of a card payment; never
 * more than the credit. "Preview" shows what will be refunded and to whom; "Confirm" makes it.
 */
function RefundForm({ m, cards, act, today }: { m: AccountMoney; cards: CardPayment[]; act: ActionData | undefined; today: string }) {
  const mine = act?.intent === "refund" ? act : undefined;
  const e = mine?.fields ?? {};
  const v = (k: string) => mine?.values[k];
  const p = mine?.preview;
  return (
    <>
      <h3 id="refund">Refund the credit</h3>
      <p>
        The account has a credit of {money(-m.balanceCents)}. Refund it, or a part of it, by check to the party billed, or back to the card of a card payment on the account. A
        receipt is made and emailed to the party billed.
      </p>
      <ErrorSummary message={mine?.error || null} fields={e} labels={FORMS.refund} />
      {p && (
        <div className="usa-summary-box" role="region" aria-labelledby="refund-preview">
          <div className="usa-summary-box__body">
            <h4 className="usa-summary-box__heading" id="refund-preview">
              Check before you confirm: a refund cannot be undone
            </h4>
            <ul className="usa-list">
              <li>Refund {money(p.amountCents)} of the credit of {money(p.creditCents)}.</li>
              {p.payment ? (
                <li>
                  Back to the card that paid receipt {p.payment.receiptNumber} on <CalendarDate date={p.payment.paidOn} /> ({money(p.payment.refundableCents)} of it not yet refunded)
                  {p.payment.test ? "; a test checkout payment: no money moves" : ""}.
                </li>
              ) : (
                <li>
                  Check no. {p.checkNumber}, dated <CalendarDate date={p.checkDate} />, to {p.payeeName}.
                </li>
              )}
              <li>Reason: {p.reason}</li>
              <li>{p.receiptEmail ? `The receipt is emailed to ${p.payeeName} (${p.receiptEmail}).` : `${p.payeeName} has no sign-in: no receipt is emailed.`}</li>
              <li>{p.balanceAfterCents < 0 ? `Credit left after it: ${money(-p.balanceAfterCents)}.` : "No credit is left after it."}</li>
            </ul>
            <Form method="post">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="refund" />
              {["refundAmount", "refundMethod", "refundPaymentId", "refundCheckNumber", "refundCheckDate", "refundReason"].map((k) => (
                <input key={k} type="hidden" name={k} value={v(k) ?? ""} />
              ))}
              <button className="usa-button usa-button--secondary" type="submit">
                Confirm the refund of {money(p.amountCents)}
              </button>
            </Form>
          </div>
        </div>
      )}
      <Form method="post" className="usa-form">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="refund-preview" />
        <TextField name="refundAmount" label={FORMS.refund.refundAmount} inputMode="decimal" defaultValue={v("refundAmount") ?? (-m.balanceCents / 100).toFixed(2)} error={e.refundAmount} required />
        <SelectField name="refundMethod" label={FORMS.refund.refundMethod} options={cards.length ? REFUND_METHODS : REFUND_METHODS.slice(0, 1)} defaultValue={v("refundMethod")} error={e.refundMethod} />
        {cards.length > 0 && (
          <SelectField
            name="refundPaymentId"
            label={FORMS.refund.refundPaymentId}
            hint="For a refund to a card"
            options={cards.map((c) => ({ value: c.paymentId, label: `Receipt ${c.receiptNumber}, ${money(c.amountCents)}${c.refundableCents < c.amountCents ? ` (${money(c.refundableCents)} left)` : ""}${c.test ? ", test checkout" : ""}` }))}
            defaultValue={v("refundPaymentId")}
            error={e.refundPaymentId}
          />
        )}
        <TextField name="refundCheckNumber" label={FORMS.refund.refundCheckNumber} hint="For a check" defaultValue={v("refundCheckNumber")} error={e.refundCheckNumber} />
        <TextField name="refundCheckDate" label={FORMS.refund.refundCheckDate} type="date" hint="For a check" defaultValue={v("refundCheckDate") ?? today} error={e.refundCheckDate} />
        <TextAreaField name="refundReason" label={FORMS.refund.refundReason} hint="Kept on the receipt and in the audit log" defaultValue={v("refundReason")} error={e.refundReason} required />
        <button className="usa-button" type="submit">
          Preview the refund
        </button>
      </Form>
    </>
  );
}

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { SelectField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { money } from "~/components/money";
import { PAYMENT_STATUS_LABELS, paymentStatusLabel } from "~/components/payment-status";

export const meta: MetaFunction = () => [{ title: "Payments | Staff | Tapline" }];

type Line = { code: string; label: string; section: string; amountCents: number; refundable: boolean; refunded: boolean; owedBack: boolean };
type Payment = {
  id: string;
  status: string;
  amountCents: number;
  refundedCents: number;
  receiptNumber: string | null;
  paidAt: string | null;
  createdAt: string;
  methodDescription: string | null;
  payableTitle: string;
  href: string;
  payerName: string;
  lines: Line[];
  refunds: { id: string; amountCents: number; reason: string; receiptNumber: string; method: string }[];
  cancelledAt: string | null;
  cancelReason: string | null;
  refundDue: boolean;
};
type Data = {
  districts: { id: string; name: string; timeZone: string; clerk: boolean }[];
  districtId: string;
  status: string;
  before: string | null;
  payments: Payment[];
  nextCursor: string | null;
};
type ActionData = { error: string; fields: Record<string, string>; paymentId: string; intent: string; values: Record<string, string> };

// REFUND_DUE is the ledger's filter for money received after its payment was cancelled.
const STATUSES = ["PENDING", "PAID", "PARTIALLY_REFUNDED", "REFUNDED", "CANCELLED", "REFUND_DUE"];
const STATUS_LABELS = PAYMENT_STATUS_LABELS;
const PAGE = 25;

const LEDGER = `query DistrictPayments($d: ID!, $s: String, $f: Int, $b: String) { districtPayments(districtId: $d, status: $s, first: $f, before: $b) {
  nextCursor payments { id status amountCents refundedCents receiptNumber paidAt createdAt methodDescription payableTitle href payerName cancelledAt cancelReason refundDue
    lines { code label section amountCents refundable refunded owedBack } refunds { id amountCents reason receiptNumber method } } } }`;

/** The Clerk's and ADMIN's ledger; the API checks the district again on every call. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["CLERK", "ADMIN"]);
  const params = new URL(args.request.url).searchParams;
  const district = info.districts.find((d) => d.id === params.get("districtId")) ?? info.districts[0];
  const status = STATUSES.includes(params.get("status") ?? "") ? params.get("status")! : "";
  const before = params.get("before") || null;
  const { districtPayments } = await requireSignedIn<{ districtPayments: { payments: Payment[]; nextCursor: string | null } }>(args, LEDGER, {
    d: district.id,
    s: status || null,
    f: PAGE,
    b: before,
  }).catch((e) => {
    if (e instanceof Response && e.status === 500 && before) throw new Response("That page of the ledger does not exist. Start again from the newest payments.", { status: 400 });
    throw e;
  });
  return {
    districts: info.districts.map((d) => ({ id: d.id, name: d.name, timeZone: d.timeZone, clerk: d.roles.includes("CLERK") })),
    districtId: district.id,
    status,
    before,
    payments: districtPayments.payments,
    nextCursor: districtPayments.nextCursor,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const paymentId = String(form.get("paymentId") ?? "");
  const back = new URLSearchParams({ districtId: String(form.get("districtId") ?? ""), status: String(form.get("status") ?? "") });
  const values: Record<string, string> = { method: String(form.get("method") ?? ""), checkNumber: String(form.get("checkNumber") ?? ""), reason: String(form.get("reason") ?? "") };
  let r;
  let done = "";
  if (intent === "counter") {
    r = await gql<{ recordCounterPayment: { receiptNumber: string; amountCents: number } }>(
      context,
      request,
      `mutation RecordCounterPayment($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { receiptNumber amountCents } }`,
      { i: { paymentId, method: values.method, checkNumber: values.checkNumber || null } },
    );
    if (r.ok) done = `Recorded ${money(r.data.recordCounterPayment.amountCents)}: receipt ${r.data.recordCounterPayment.receiptNumber}. The payer was emailed the receipt.`;
  } else if (intent === "refund") {
    r = await gql<{ refundPayment: { receiptNumber: string; amountCents: number; method: string } }>(
      context,
      request,
      `mutation RefundPayment($i: RefundPaymentInput!) { refundPayment(input: $i) { receiptNumber amountCents method } }`,
      { i: { paymentId, lineCodes: form.getAll("lineCodes").map(String), reason: values.reason } },
    );
    if (r.ok) {
      const x = r.data.refundPayment;
      done = `Refunded ${money(x.amountCents)} ${x.method === "card" ? "to the payer's card" : `(pay it back by ${x.method})`}: refund receipt ${x.receiptNumber}.`;
    }
  } else throw new Response("Unknown action.", { status: 400 });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/staff/payments?${back}`)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields, paymentId, intent, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  back.set("done", done);
  return redirect(`/staff/payments?${back}`, { headers: cookieHeaders(r) });
}

function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <span className="usa-error-message" id={id} role="alert">
      {message}
    </span>
  );
}

/** The labels of the counter and refund forms, in their order (each payment has its own forms). */
export const LABELS: Record<string, string> = {
  paymentId: "Payment",
  method: "Paid by",
  checkNumber: "Check number (for a check)",
  lineCodes: "Lines to refund",
  reason: "Reason (kept on the refund receipt and in the audit log)",
};

/** The API's field errors on the fields of the payment's own form: `checkNumber` → `checkNumber-<payment>`. */
function summaryOf(a: ActionData | undefined, payments: Payment[]): { fields: Record<string, string>; labels: Record<string, string> } {
  const p = a && payments.find((x) => x.id === a.paymentId);
  if (!a || !p) return { fields: {}, labels: {} };
  const names = a.intent === "counter" ? ["method", "checkNumber"] : ["lineCodes", "reason"];
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.fields ?? {})) {
    const at = `${names.includes(k) ? k : names[0]}-${p.id}`;
    fields[at] = fields[at] ? `${fields[at]} ${v}` : v;
  }
  const labels: Record<string, string> = {};
  for (const n of names) labels[`${n}-${p.id}`] = n === "method" ? `Paid ${money(p.amountCents)} by` : LABELS[n];
  return { fields, labels };
}

function CounterForm({ p, districtId, status, a }: { p: Payment; districtId: string; status: string; a?: ActionData }) {
  const mine = a?.paymentId === p.id && a.intent === "counter" ? a : undefined;
  const id = (s: string) => `${s}-${p.id}`;
  return (
    <details className="tapline-details" open={!!mine}>
      <summary>
        Record a counter payment<span className="usa-sr-only"> for {p.payableTitle}, {p.payerName}</span>
      </summary>
      <Form method="post" className="usa-form">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="counter" />
        <input type="hidden" name="paymentId" value={p.id} />
        <input type="hidden" name="districtId" value={districtId} />
        <input type="hidden" name="status" value={status} />
        <fieldset className={`usa-fieldset${mine?.fields?.method ? " usa-form-group usa-form-group--error" : ""}`} id={id("method")}>
          <legend className="usa-legend">Paid {money(p.amountCents)} by</legend>
          <FieldError id={id("method-error")} message={mine?.fields?.method} />
          <div className="usa-radio">
            <input className="usa-radio__input" id={id("cash")} type="radio" name="method" value="cash" defaultChecked={(mine?.values.method ?? "cash") === "cash"} aria-invalid={mine?.fields?.method ? true : undefined} />
            <label className="usa-radio__label" htmlFor={id("cash")}>
              Cash
            </label>
          </div>
          <div className="usa-radio">
            <input className="usa-radio__input" id={id("check")} type="radio" name="method" value="check" defaultChecked={mine?.values.method === "check"} aria-invalid={mine?.fields?.method ? true : undefined} />
            <label className="usa-radio__label" htmlFor={id("check")}>
              Check
            </label>
          </div>
        </fieldset>
        <div className={`usa-form-group${mine?.fields?.checkNumber ? " usa-form-group--error" : ""}`}>
          <label className="usa-label" htmlFor={id("checkNumber")}>
            {LABELS.checkNumber}
          </label>
          <FieldError id={id("checkNumber-error")} message={mine?.fields?.checkNumber} />
          <input
            className="usa-input usa-input--small"
            id={id("checkNumber")}
            name="checkNumber"
            defaultValue={mine?.values.checkNumber}
            aria-invalid={mine?.fields?.checkNumber ? true : undefined}
            aria-describedby={mine?.fields?.checkNumber ? id("checkNumber-error") : undefined}
          />
        </div>
        <button className="usa-button" type="submit">
          Record payment and issue receipt
        </button>
      </Form>
    </details>
  );
}

function RefundForm({ p, districtId, status, a }: { p: Payment; districtId: string; status: string; a?: ActionData }) {
  // Money paid after its payment was cancelled was never due: every line goes back, not only deposits.
  // A fee owed back (a refused load's dumping fee) goes back too, though it is no deposit.
  const open = p.lines.filter((l) => (l.refundable || l.owedBack || p.refundDue) && !l.refunded);
  if (!open.length || (p.status !== "PAID" && p.status !== "PARTIALLY_REFUNDED")) return null;
  const mine = a?.paymentId === p.id && a.intent === "refund" ? a : undefined;
  const id = (s: string) => `${s}-${p.id}`;
  return (
    <details className="tapline-details" open={!!mine}>
      <summary>
        {p.refundDue ? "Refund the payment made after cancellation" : open.some((l) => !l.refundable) ? "Refund the fee owed back" : "Refund the deposit"}
        <span className="usa-sr-only">
          {" "}
          of {p.payableTitle}, {p.payerName}
        </span>
      </summary>
      <Form method="post" className="usa-form">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="refund" />
        <input type="hidden" name="paymentId" value={p.id} />
        <input type="hidden" name="districtId" value={districtId} />
        <input type="hidden" name="status" value={status} />
        <fieldset className={`usa-fieldset${mine?.fields?.lineCodes ? " usa-form-group usa-form-group--error" : ""}`} id={id("lineCodes")}>
          <legend className="usa-legend">{LABELS.lineCodes}</legend>
          <FieldError id={id("lineCodes-error")} message={mine?.fields?.lineCodes} />
          {open.map((l) => (
            <div className="usa-checkbox" key={l.code}>
              <input className="usa-checkbox__input" id={id(`line-${l.code}`)} type="checkbox" name="lineCodes" value={l.code} defaultChecked={open.length === 1 || p.refundDue} aria-invalid={mine?.fields?.lineCodes ? true : undefined} />
              <label className="usa-checkbox__label" htmlFor={id(`line-${l.code}`)}>
                {l.label} ({l.section}): {money(l.amountCents)}
              </label>
            </div>
          ))}
        </fieldset>
        <div className={`usa-form-group${mine?.fields?.reason ? " usa-form-group--error" : ""}`}>
          <label className="usa-label" htmlFor={id("reason")}>
            {LABELS.reason} <span className="usa-hint">(required)</span>
          </label>
          <div className="usa-hint" id={id("reason-hint")}>
            {p.refundDue
              ? `For example: paid after the payment was cancelled (${p.cancelReason})`
              : open.some((l) => !l.refundable)
                ? "For example: the load was refused at the station"
                : "For example: four copies of the as-built drawing approved (Sewer Use Law 606 B)"}
          </div>
          <FieldError id={id("reason-error")} message={mine?.fields?.reason} />
          <textarea
            className="usa-textarea"
            id={id("reason")}
            name="reason"
            rows={2}
            required
            defaultValue={mine?.values.reason}
            aria-invalid={mine?.fields?.reason ? true : undefined}
            aria-describedby={[id("reason-hint"), mine?.fields?.reason ? id("reason-error") : null].filter(Boolean).join(" ")}
          />
        </div>
        <button className="usa-button usa-button--secondary" type="submit">
          Refund
        </button>
      </Form>
    </details>
  );
}

export default function StaffPayments() {
  const { districts, districtId, status, before, payments, nextCursor } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const district = districts.find((d) => d.id === districtId)!;
  const filter = (extra: Record<string, string>) => `/staff/payments?${new URLSearchParams({ districtId, ...(status ? { status } : {}), ...extra })}`;
  return (
    <>
      <h1>Payments</h1>
      <p className="usa-intro">Fees and deposits owed to {district.name}, newest first. Record payments taken at the counter and return deposits.</p>
      <p>
        <Link className="usa-link" to={`/staff/stripe/payouts?districtId=${district.id}`}>
          Payouts to the bank
        </Link>
        : what Stripe paid out of the district's account, and the card payments in each.
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} {...summaryOf(a, payments)} />
      <Form method="get" className="usa-form tapline-date-form">
        <div className="tapline-date-form__row">
          {districts.length > 1 && (
            <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          )}
          {districts.length === 1 && <input type="hidden" name="districtId" value={districtId} />}
          <SelectField
            name="status"
            label="Status"
            options={[{ value: "", label: "All payments" }, ...STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))]}
            defaultValue={status}
          />
          <button className="usa-button" type="submit">
            Show
          </button>
        </div>
      </Form>
      {payments.length === 0 ? (
        <p>No payments{status ? ` with the status "${STATUS_LABELS[status]}"` : ""}.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full tapline-audit">
          <caption>
            Payments of {district.name}
            {status ? `: ${STATUS_LABELS[status]}` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">For and payer</th>
              <th scope="col" className="tapline-num">
                Amount
              </th>
              <th scope="col">Status</th>
              <th scope="col">{district.clerk ? "Record or refund" : "Details"}</th>
            </tr>
          </thead>
          <tbody>
            {payments.map((p) => (
              <tr key={p.id}>
                <th scope="row" data-label="For and payer">
                  <Link className="usa-link" to={`/payments/${p.id}`}>
                    {p.payableTitle}
                  </Link>
                  <span className="display-block">{p.payerName}</span>
                  <span className="display-block text-base-dark">
                    Created <DateTime iso={p.createdAt} timeZone={district.timeZone} />
                  </span>
                </th>
                <td data-label="Amount" className="tapline-num">
                  {money(p.amountCents)}
                  {p.refundedCents > 0 && <span className="display-block">{money(p.refundedCents)} returned</span>}
                </td>
                <td data-label="Status">
                  {paymentStatusLabel(p)}
                  {p.cancelReason && (
                    <span className="display-block text-base-dark">
                      Cancelled <DateTime iso={p.cancelledAt} timeZone={district.timeZone} />: {p.cancelReason}
                    </span>
                  )}
                  {p.receiptNumber && (
                    <span className="display-block">
                      <Link className="usa-link" to={`/payments/${p.id}/receipt`}>
                        Receipt {p.receiptNumber}
                      </Link>
                      , <DateTime iso={p.paidAt} timeZone={district.timeZone} />
                    </span>
                  )}
                  {p.methodDescription && <span className="display-block text-base-dark">{p.methodDescription}</span>}
                  {p.refunds.map((r) => (
                    <span className="display-block text-base-dark" key={r.id}>
                      Returned {money(r.amountCents)} ({r.method}, receipt {r.receiptNumber}): {r.reason}
                    </span>
                  ))}
                </td>
                <td data-label={district.clerk ? "Record or refund" : "Details"}>
                  <ul className="usa-list usa-list--unstyled">
                    {p.lines.map((l) => (
                      <li key={l.code}>
                        {l.label} ({l.section}): {money(l.amountCents)}
                        {l.refundable ? (l.refunded ? ", deposit returned" : ", refundable deposit") : l.refunded ? ", refunded" : l.owedBack ? ", owed back" : ""}
                      </li>
                    ))}
                  </ul>
                  {district.clerk && p.status === "PENDING" && <CounterForm p={p} districtId={districtId} status={status} a={a} />}
                  {district.clerk && <RefundForm p={p} districtId={districtId} status={status} a={a} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav aria-label="Pages of the ledger" className="tapline-pager">
        {before && (
          <Link className="usa-link" to={filter({})}>
            Newest payments
          </Link>
        )}
        {nextCursor && (
          <Link className="usa-link" to={filter({ before: nextCursor })}>
            Older payments
          </Link>
        )}
      </nav>
      {!district.clerk && <p>Only the district's Clerk records counter payments and refunds; as ADMIN you see the ledger.</p>}
    </>
  );
}

import { Form } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { CalendarDate } from "~/components/format";
import { money } from "~/components/money";

/** A sewer account's money as its owner and its staff read it (GraphQL serviceAccountBalance, serviceAccountPayments; api/rents/ledger.service.ts). */

export type AccountMoney = {
  accountId: string;
  accountNumber: string;
  asOf: string;
  balanceCents: number;
  pastDueCents: number;
  canPay: boolean;
  canRecordPayment: boolean;
  lastBill: { id: string; number: string; dueOn: string; totalCents: number } | null;
  lines: { on: string; kind: string; description: string; section: string | null; amountCents: number; balanceCents: number; billId: string | null; paymentId: string | null }[];
  openBills: { billId: string; number: string; dueOn: string; unpaidCents: number; lateChargesUnpaidCents: number; pastDue: boolean }[];
};
export type AccountPayment = { id: string; amountCents: number; receiptNumber: string | null; method: string | null; checkNumber: string | null; paidAt: string | null };

export const ACCOUNT_MONEY = `accountId accountNumber asOf balanceCents pastDueCents canPay canRecordPayment lastBill { id number dueOn totalCents }
  lines { on kind description section amountCents balanceCents billId paymentId } openBills { billId number dueOn unpaidCents lateChargesUnpaidCents pastDue }`;
export const ACCOUNT_PAYMENT = `id amountCents receiptNumber method checkNumber paidAt`;

/** A property's owner's excess bills on a shared meter (Huron VI-2: no account; GraphQL ownersExcessBalance, api/rents/owners-excess.ts). */
export type OwnersExcessMoney = Omit<AccountMoney, "accountId" | "accountNumber" | "lastBill"> & { propertyId: string; title: string; ownerName: string };
export const OWNERS_EXCESS_MONEY = `propertyId title ownerName asOf balanceCents pastDueCents canPay canRecordPayment
  lines { on kind description section amountCents balanceCents billId paymentId } openBills { billId number dueOn unpaidCents lateChargesUnpaidCents pastDue }`;
/** The owner's excess balance in the shape AccountMoneyView shows. */
export const excessAsAccountMoney = (x: OwnersExcessMoney): AccountMoney => ({ ...x, accountId: x.propertyId, accountNumber: x.title, lastBill: null });

const signed = (c: number) => (c < 0 ? `−${money(-c)}` : money(c));
const KIND_LABELS: Record<string, string> = { BILL: "Bill", PAYMENT: "Payment", PENALTY: "Late penalty", INTEREST: "Interest", VIOLATION: "Violation", REFUND: "Refund" };

/** "$1,234.50" from a balance: what is owed, or the credit. */
export function balanceText(cents: number): string {
  if (cents > 0) return `${money(cents)} owed`;
  if (cents < 0) return `${money(-cents)} credit (paid ahead)`;
  return "Nothing owed";
}

/** The balance, what is past due, the bills not fully paid, and the account's history with its running balance. */
export function AccountMoneyView({ m, billHref, receiptHref }: { m: AccountMoney; billHref: (id: string) => string; receiptHref?: (paymentId: string) => string }) {
  return (
    <>
      <dl className="usa-summary-box">
        <dt>Balance on <CalendarDate date={m.asOf} /></dt>
        <dd>
          <strong>{balanceText(m.balanceCents)}</strong>
        </dd>
        <dt>Past due</dt>
        <dd>{m.pastDueCents > 0 ? <strong>{money(m.pastDueCents)}</strong> : "Nothing"}</dd>
      </dl>
      {m.openBills.length > 0 && (
        <table className="usa-table usa-table--borderless usa-table--compact width-full">
          <caption>Bills not fully paid (a payment goes to the oldest bill first)</caption>
          <thead>
            <tr>
              <th scope="col">Bill</th>
              <th scope="col">Due</th>
              <th scope="col">Unpaid of the bill</th>
              <th scope="col">Penalty and interest unpaid</th>
            </tr>
          </thead>
          <tbody>
            {m.openBills.map((b) => (
              <tr key={b.billId}>
                <th scope="row">
                  <a className="usa-link" href={billHref(b.billId)}>
                    {b.number}
                  </a>
                  {b.pastDue ? " (past due)" : ""}
                </th>
                <td>
                  <CalendarDate date={b.dueOn} />
                </td>
                <td>{money(b.unpaidCents)}</td>
                <td>{money(b.lateChargesUnpaidCents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {m.lines.length === 0 ? (
        <p>No bill has been issued on this account yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Bills, payments and late charges</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">What</th>
              <th scope="col">Law</th>
              <th scope="col">Amount</th>
              <th scope="col">Balance</th>
            </tr>
          </thead>
          <tbody>
            {m.lines.map((l, i) => (
              <tr key={i}>
                <td data-label="Date">
                  <CalendarDate date={l.on} />
                </td>
                <th scope="row" data-label="What">
                  {KIND_LABELS[l.kind] ?? l.kind}: {l.billId && l.kind === "BILL" ? <a className="usa-link" href={billHref(l.billId)}>{l.description}</a> : l.description}
                  {l.paymentId && receiptHref ? (
                    <>
                      {" "}
                      (<a className="usa-link" href={receiptHref(l.paymentId)}>receipt</a>)
                    </>
                  ) : null}
                </th>
                <td data-label="Law">{l.section ?? ""}</td>
                <td data-label="Amount">{l.kind === "VIOLATION" ? "" : signed(l.amountCents)}</td>
                <td data-label="Balance">{signed(l.balanceCents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The counter form's labels (amount, cash or check, the check's number), as the pages' LABELS give them. */
export const COUNTER_PAYMENT_LABELS = { amount: "Amount received (dollars)", method: "Paid in", checkNumber: "Check number" };
const COUNTER_METHODS = [
  { value: "cash", label: "Cash" },
  { value: "check", label: "Check" },
];

/**
 * The Town Clerk's form for money taken at the counter (an account's balance, or a property's
 * owner's excess bills): the amount, cash or check, the check's number; posted with `intent`.
 */
export function CounterPaymentForm({ intent, message, errors, value }: { intent: string; message: string | null; errors: Record<string, string>; value: (key: string) => string | undefined }) {
  return (
    <>
      <ErrorSummary message={message} fields={errors} labels={COUNTER_PAYMENT_LABELS} />
      <Form method="post" className="usa-form">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value={intent} />
        <TextField name="amount" label={COUNTER_PAYMENT_LABELS.amount} inputMode="decimal" defaultValue={value("amount")} error={errors.amount} required />
        <SelectField name="method" label={COUNTER_PAYMENT_LABELS.method} options={COUNTER_METHODS} defaultValue={value("method")} error={errors.method} />
        <TextField name="checkNumber" label={COUNTER_PAYMENT_LABELS.checkNumber} hint="For a check" defaultValue={value("checkNumber")} error={errors.checkNumber} />
        <button className="usa-button" type="submit">
          Record the payment
        </button>
      </Form>
    </>
  );
}

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { ACCOUNT_MONEY, AccountMoneyView, OWNERS_EXCESS_MONEY, excessAsAccountMoney, type AccountMoney, type OwnersExcessMoney } from "~/components/account-money";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate, formatShortDate } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { centsToDollars, dollarsToCents, money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Sewer bill | Tapline" }];

/** The pay form's labels; the API's amountCents is shown on the amount in dollars. */
export const LABELS: Record<string, string> = { amount: "Amount to pay (dollars)", amountCents: "Amount to pay (dollars)", accountId: "Account", propertyId: "Property" };

type Line = { kindLabel: string; description: string; quantity: string | null; rate: string | null; amountCents: number; section: string };
type Point = { periodStart: string; gallons: number | null; totalCents: number; number: string };
type Bill = {
  id: string;
  districtName: string;
  number: string | null;
  accountId: string | null;
  accountNumber: string | null;
  propertyId: string;
  kind: string;
  address: string;
  taxParcel: string;
  billTo: string;
  periodStart: string;
  periodEnd: string;
  servedFrom: string;
  servedTo: string;
  final: boolean;
  gallons: number | null;
  edus: string | null;
  totalCents: number;
  statusLabel: string;
  mailedOn: string | null;
  dueOn: string | null;
  dueText: string | null;
  rulebookVersion: number;
  lines: Line[];
  usage: Point[];
};

const signed = (c: number) => (c < 0 ? `−${money(-c)}` : money(c));

/** A sewer bill as its owner or occupant reads it: lines with their sections, due date, and two years of use (SUL 1203-1206; Huron VI). */
export async function loader(args: LoaderFunctionArgs) {
  const { sewerBill } = await requireSignedIn<{ sewerBill: Bill }>(
    args,
    `query SewerBill($id: ID!) { sewerBill(id: $id) { id districtName number accountId accountNumber propertyId kind address taxParcel billTo periodStart periodEnd servedFrom servedTo final gallons edus
      totalCents statusLabel mailedOn dueOn dueText rulebookVersion lines { kindLabel description quantity rate amountCents section }
      usage { periodStart gallons totalCents number } } }`,
    { id: args.params.id },
  );
  // The account's balance, past due, payments and late charges (an owner's excess on a shared meter has no account).
  const balance = sewerBill.accountId
    ? (await requireSignedIn<{ serviceAccountBalance: AccountMoney }>(args, `query BillAccount($a: ID!) { serviceAccountBalance(accountId: $a) { ${ACCOUNT_MONEY} } }`, { a: sewerBill.accountId })).serviceAccountBalance
    : null;
  // Huron VI-2: an owner's excess bill is paid toward the property's owner's excess bills, a balance of their own.
  const excess =
    sewerBill.kind === "OWNER_EXCESS"
      ? (await requireSignedIn<{ ownersExcessBalance: OwnersExcessMoney }>(args, `query BillExcess($p: ID!) { ownersExcessBalance(propertyId: $p) { ${OWNERS_EXCESS_MONEY} } }`, { p: sewerBill.propertyId })).ownersExcessBalance
      : null;
  return { sewerBill, balance, excess };
}

type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

/** Pay: a payment toward the account's balance, or the owner's excess bills' (the amount chosen, the balance by default), then the payment page (card or the test checkout). */
export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { accountId: String(form.get("accountId") ?? ""), propertyId: String(form.get("propertyId") ?? ""), amount: String(form.get("amount") ?? "").trim() };
  const cents = dollarsToCents(values.amount);
  const amountCents = cents === undefined ? 0 : cents;
  const r = values.propertyId
    ? await gql<{ payOwnersExcess: { id: string } }>(context, request, `mutation PayExcess($i: PayOwnersExcessInput!) { payOwnersExcess(input: $i) { id } }`, { i: { propertyId: values.propertyId, amountCents } })
    : await gql<{ payServiceAccount: { id: string } }>(context, request, `mutation PayAccount($i: PayServiceAccountInput!) { payServiceAccount(input: $i) { id } }`, { i: { accountId: values.accountId, amountCents } });
  if (!r.ok) {
    const fields = { ...r.error.fields };
    if (fields.amountCents) fields.amount = cents === undefined ? "Enter the amount in dollars, like 125.00." : fields.amountCents;
    delete fields.amountCents;
    return Response.json({ error: r.error.message, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  const paid = r.data as { payServiceAccount?: { id: string }; payOwnersExcess?: { id: string } };
  return redirect(`/payments/${(paid.payOwnersExcess ?? paid.payServiceAccount)!.id}`, { headers: cookieHeaders(r) });
}

/** Bars of metered use per period, drawn on the server; the table beside it holds the same figures. */
export function UsageChart({ points, titleId }: { points: Point[]; titleId: string }) {
  const W = 480;
  const H = 200;
  const pad = { l: 56, r: 8, t: 12, b: 40 };
  const max = Math.max(1, ...points.map((p) => p.gallons ?? 0));
  const step = (W - pad.l - pad.r) / Math.max(1, points.length);
  const bar = Math.min(40, step * 0.7);
  const y = (g: number) => pad.t + (H - pad.t - pad.b) * (1 - g / max);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} width="100%" style={{ maxWidth: W }} role="img" aria-labelledby={titleId}>
      <title id={titleId}>Metered water per billing period, in gallons (the same figures as the table)</title>
      <line x1={pad.l} y1={H - pad.b} x2={W - pad.r} y2={H - pad.b} stroke="#1b1b1b" />
      <line x1={pad.l} y1={pad.t} x2={pad.l} y2={H - pad.b} stroke="#1b1b1b" />
      <text x={pad.l - 6} y={pad.t + 4} textAnchor="end" fontSize="11">
        {max.toLocaleString("en-US")}
      </text>
      <text x={pad.l - 6} y={H - pad.b} textAnchor="end" fontSize="11">
        0
      </text>
      {points.map((p, i) => {
        const x = pad.l + i * step + (step - bar) / 2;
        const g = p.gallons ?? 0;
        return (
          <g key={p.number}>
            <rect x={x} y={y(g)} width={bar} height={H - pad.b - y(g)} fill={i === points.length - 1 ? "#005ea2" : "#73b3e7"} />
            <text x={x + bar / 2} y={H - pad.b + 14} textAnchor="middle" fontSize="10">
              {formatShortDate(p.periodStart).replace(/ \d+,/, "")}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export default function SewerBillPage() {
  const { sewerBill: b, balance, excess } = useLoaderData<typeof loader>() as unknown as { sewerBill: Bill; balance: AccountMoney | null; excess: OwnersExcessMoney | null };
  const act = useActionData<ActionData>();
  return (
    <>
      <p>
        <Link className="usa-link" to="/properties">
          My properties and sewer accounts
        </Link>
      </p>
      <h1>
        Sewer bill {b.number}
        {b.final ? " (final bill)" : ""}
      </h1>
      <dl className="usa-summary-box">
        <dt>Billed to</dt>
        <dd>{b.billTo}</dd>
        <dt>Service address</dt>
        <dd>
          {b.address} (tax parcel {b.taxParcel}){b.accountNumber ? `, account ${b.accountNumber}` : ", the owner's excess on a shared meter"}
        </dd>
        <dt>Period</dt>
        <dd>
          <CalendarDate date={b.servedFrom} /> to <CalendarDate date={b.servedTo} />
          {b.servedFrom !== b.periodStart || b.servedTo !== b.periodEnd ? (
            <>
              {" "}
              (days served in the period <CalendarDate date={b.periodStart} /> to <CalendarDate date={b.periodEnd} />)
            </>
          ) : null}
        </dd>
        <dt>Billed (mailed)</dt>
        <dd>
          <CalendarDate date={b.mailedOn} />
        </dd>
        <dt>Amount</dt>
        <dd>
          <strong>{signed(b.totalCents)}</strong>
        </dd>
        <dt>Due</dt>
        <dd>{b.dueText}</dd>
      </dl>
      {balance && (
        <section aria-labelledby="account-balance">
          <h2 id="account-balance">Account {balance.accountNumber}: balance and payments</h2>
          <AccountMoneyView m={balance} billHref={(id) => `/properties/bills/${id}`} />
          {balance.canPay && balance.balanceCents > 0 && (
            <PayForm act={act} idName="accountId" id={balance.accountId} balanceCents={balance.balanceCents} hint="The balance, or part of it; paying more leaves a credit on the account" />
          )}
        </section>
      )}
      {excess && (
        <section aria-labelledby="excess-balance">
          <h2 id="excess-balance">The owner's excess bills of this property: balance and payments</h2>
          <p>Huron VI-2: the users behind one meter each pay the minimum and the owner of record the excess, billed apart from any account.</p>
          <AccountMoneyView m={excessAsAccountMoney(excess)} billHref={(id) => `/properties/bills/${id}`} />
          {excess.canPay && excess.balanceCents > 0 && (
            <PayForm act={act} idName="propertyId" id={excess.propertyId} balanceCents={excess.balanceCents} hint="The balance, or part of it; paying more leaves a credit for the next excess bill" />
          )}
        </section>
      )}
      <p>
        <a className="usa-link" href={`/bills/${b.id}/bill.pdf`}>
          Download the statement (PDF)
        </a>
      </p>
      <table className="usa-table usa-table--stacked usa-table--borderless width-full">
        <caption>What the bill is made of</caption>
        <thead>
          <tr>
            <th scope="col">Charge</th>
            <th scope="col">On</th>
            <th scope="col">Rate</th>
            <th scope="col">Law</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody>
          {b.lines.map((l, i) => (
            <tr key={i}>
              <th scope="row" data-label="Charge">
                {l.description}
              </th>
              <td data-label="On">{l.quantity ?? ""}</td>
              <td data-label="Rate">{l.rate ?? ""}</td>
              <td data-label="Law">{l.section}</td>
              <td data-label="Amount">{signed(l.amountCents)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={4}>
              Total
            </th>
            <td>{signed(b.totalCents)}</td>
          </tr>
        </tfoot>
      </table>
      <h2 id="usage">Use and charges over two years</h2>
      {b.usage.length === 0 ? (
        <p>No earlier bill.</p>
      ) : (
        <div className="grid-row grid-gap">
          <div className="tablet:grid-col-7">
            <UsageChart points={b.usage} titleId="usage-chart-title" />
          </div>
          <div className="tablet:grid-col-5">
            <table className="usa-table usa-table--borderless usa-table--compact">
              <caption>Metered water and amount billed per period</caption>
              <thead>
                <tr>
                  <th scope="col">Period from</th>
                  <th scope="col">Gallons</th>
                  <th scope="col">Billed</th>
                </tr>
              </thead>
              <tbody>
                {b.usage.map((p) => (
                  <tr key={p.number}>
                    <th scope="row">
                      <CalendarDate date={p.periodStart} />
                    </th>
                    <td>{p.gallons === null ? "no read" : p.gallons.toLocaleString("en-US")}</td>
                    <td>{signed(p.totalCents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
      <p className="font-body-2xs">
        {b.districtName}, figures of rulebook version {b.rulebookVersion}. An issued bill is never changed: a correction is shown on the next bill.
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

/** Pay toward a balance (an account's, or the property's owner's excess bills): the amount, the whole balance first offered. */
function PayForm({ act, idName, id, balanceCents, hint }: { act: ActionData | undefined; idName: "accountId" | "propertyId"; id: string; balanceCents: number; hint: string }) {
  return (
    <>
      <ErrorSummary message={act?.error ?? null} fields={act?.fields ?? {}} labels={LABELS} />
      <Form method="post" className="usa-form">
        <AuthenticityTokenInput />
        <input type="hidden" name={idName} value={id} />
        <TextField name="amount" label={LABELS.amount} hint={hint} inputMode="decimal" defaultValue={act?.values.amount ?? centsToDollars(balanceCents)} error={act?.fields.amount} required />
        <button className="usa-button" type="submit">
          Pay
        </button>
      </Form>
    </>
  );
}

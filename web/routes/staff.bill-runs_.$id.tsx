import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { CalendarDate, todayIn } from "~/components/format";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Bill run | Staff | Tapline" }];

type Line = { kindLabel: string; description: string; quantity: string | null; rate: string | null; amountCents: number; section: string };
type Bill = { id: string; kind: string; accountNumber: string | null; address: string; billTo: string; servedFrom: string; servedTo: string; totalCents: number; number: string | null; flags: { code: string; text: string }[]; lines: Line[] };
type Run = {
  id: string;
  districtId: string;
  cycleLabel: string;
  periodStart: string;
  periodEnd: string;
  status: string;
  statusLabel: string;
  rulebookVersion: number;
  mailedOn: string | null;
  dueOn: string | null;
  earliestMailing: string;
  billCount: number;
  flaggedCount: number;
  issuedCount: number;
  totalCents: number;
  tasks: { key: string; text: string }[];
};
type PaperMailing = { issued: number; onPaper: number; paperless: number; csvUrl: string; pdfUrl: string };
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

export const LABELS: Record<string, string> = {
  mailedOn: "Mailing date",
  confirm: "I have looked at the flagged bills: issue them",
  runId: "Bill run",
  maxBills: "Bills to issue now",
};

const signed = (c: number) => (c < 0 ? `−${money(-c)}` : money(c));

/** A run: its figures, what the Board has not set, the bills a person should look at (or all), and issuing with a confirmation. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  const all = url.searchParams.get("all") === "1";
  const after = url.searchParams.get("after") || null;
  const data = await requireSignedIn<{ billRun: Run; billRunBills: { items: Bill[]; nextCursor: string | null } }>(
    args,
    `query BillRun($id: ID!, $f: Boolean, $a: String) {
      billRun(id: $id) { id districtId cycleLabel periodStart periodEnd status statusLabel rulebookVersion mailedOn dueOn earliestMailing billCount flaggedCount issuedCount totalCents tasks { key text } }
      billRunBills(runId: $id, flaggedOnly: $f, first: 50, after: $a) { nextCursor items { id kind accountNumber address billTo servedFrom servedTo totalCents number
        flags { code text } lines { kindLabel description quantity rate amountCents section } } } }`,
    { id: args.params.id, f: !all, a: after },
  );
  const district = info.districts.find((d) => d.id === data.billRun.districtId)!;
  // Once bills are issued: how many go on paper (paperless accounts' bills are emailed only), with the mailing list and the PDF.
  const mailing =
    data.billRun.status === "PREVIEW"
      ? null
      : (
          await requireSignedIn<{ billRunPaperMailing: PaperMailing }>(
            args,
            `query PaperMailing($id: ID!) { billRunPaperMailing(runId: $id) { issued onPaper paperless csvUrl pdfUrl } }`,
            { id: args.params.id },
          )
        ).billRunPaperMailing;
  return { ...data, all, mailing, district: { name: district.name, clerk: district.roles.includes("CLERK"), today: todayIn(district.timeZone) } };
}

/** The Town Clerk issues the run (or resumes issuing it). */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { mailedOn: String(form.get("mailedOn") ?? "").trim(), confirm: form.get("confirm") === "yes" ? "yes" : "" };
  const r = await gql<{ issueBillRun: { id: string } }>(context, request, `mutation IssueBillRun($i: IssueBillRunInput!) { issueBillRun(input: $i) { id } }`, {
    i: { runId: params.id, mailedOn: values.mailedOn, confirm: values.confirm === "yes" },
  });
  if (!r.ok) return Response.json({ error: r.error.message, fields: r.error.fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/staff/bill-runs/${params.id}`, { headers: cookieHeaders(r) });
}

export default function StaffBillRun() {
  const d = useLoaderData<typeof loader>();
  const a = useActionData<ActionData>();
  const r = d.billRun;
  const bills = d.billRunBills;
  const base = `/staff/bill-runs/${r.id}`;
  return (
    <>
      <p>
        <Link className="usa-link" to="/staff/bill-runs">
          All bill runs
        </Link>
      </p>
      <h1>
        Bills for <CalendarDate date={r.periodStart} /> to <CalendarDate date={r.periodEnd} />
      </h1>
      <dl className="usa-summary-box">
        <dt>Cycle</dt>
        <dd>{r.cycleLabel}</dd>
        <dt>Status</dt>
        <dd>
          {r.statusLabel}
          {r.status === "ISSUING" ? `: ${r.issuedCount} of ${r.billCount} issued` : ""}
        </dd>
        <dt>Bills</dt>
        <dd>
          {r.billCount}, {r.flaggedCount} flagged, {signed(r.totalCents)} in all
        </dd>
        <dt>Rulebook</dt>
        <dd>Version {r.rulebookVersion}, in force on the period's last day</dd>
        {r.mailedOn && (
          <>
            <dt>Mailed</dt>
            <dd>
              <CalendarDate date={r.mailedOn} />, due <CalendarDate date={r.dueOn} />
            </dd>
          </>
        )}
      </dl>
      {d.mailing && (
        <section aria-labelledby="paper-mailing">
          <h2 id="paper-mailing">Paper mailing</h2>
          <p>
            {d.mailing.onPaper} of {d.mailing.issued} issued bills go on paper; {d.mailing.paperless} by email only (the account chose paperless). Every bill is also
            emailed to whoever has a sign-in.
          </p>
          <ul className="usa-list">
            <li>
              <a className="usa-link" href={d.mailing.csvUrl}>
                Mailing list (CSV)
              </a>
            </li>
            <li>
              <a className="usa-link" href={d.mailing.pdfUrl}>
                The paper bills in one PDF
              </a>
            </li>
          </ul>
        </section>
      )}
      {r.tasks.length > 0 && (
        <div className="usa-alert usa-alert--warning">
          <div className="usa-alert__body">
            <h2 className="usa-alert__heading">Not on these bills</h2>
            <ul className="usa-list">
              {r.tasks.map((t) => (
                <li key={t.text}>{t.text}</li>
              ))}
            </ul>
          </div>
        </div>
      )}
      <h2>{d.all ? "Every bill" : "Bills to look at"}</h2>
      <p>
        {d.all ? (
          <Link className="usa-link" to={base}>
            Show only the flagged bills
          </Link>
        ) : (
          <Link className="usa-link" to={`${base}?all=1`}>
            Show every bill
          </Link>
        )}
      </p>
      {bills.items.length === 0 ? (
        <p>{d.all ? "This run has no bills." : "Nothing is flagged."}</p>
      ) : (
        bills.items.map((b) => (
          <section key={b.id} className="margin-bottom-4" aria-labelledby={`bill-${b.id}`}>
            <h3 id={`bill-${b.id}`}>
              {b.number ?? (b.kind === "OWNER_EXCESS" ? "Owner's excess" : `Account ${b.accountNumber}`)}: {b.billTo}, {b.address}
            </h3>
            {b.flags.length > 0 && (
              <ul className="usa-list">
                {b.flags.map((f) => (
                  <li key={f.code}>
                    <strong>{f.text}</strong>
                  </li>
                ))}
              </ul>
            )}
            <table className="usa-table usa-table--borderless width-full">
              <caption>
                Served <CalendarDate date={b.servedFrom} /> to <CalendarDate date={b.servedTo} />: {signed(b.totalCents)}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Charge</th>
                  <th scope="col">On</th>
                  <th scope="col">Rate</th>
                  <th scope="col">Section</th>
                  <th scope="col">Amount</th>
                </tr>
              </thead>
              <tbody>
                {b.lines.map((l, i) => (
                  <tr key={i}>
                    <th scope="row">{l.description}</th>
                    <td>{l.quantity ?? ""}</td>
                    <td>{l.rate ?? ""}</td>
                    <td>{l.section}</td>
                    <td>{signed(l.amountCents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))
      )}
      {bills.nextCursor && (
        <p>
          <Link className="usa-link" to={`${base}?${d.all ? "all=1&" : ""}after=${bills.nextCursor}`}>
            Next bills
          </Link>
        </p>
      )}
      {d.district.clerk && r.status !== "ISSUED" && (
        <>
          <h2 id="issue">{r.status === "ISSUING" ? "Finish issuing" : "Issue the bills"}</h2>
          <p>
            Issuing numbers each bill, keeps its lines and the rulebook version as they are, and emails it. It is never changed afterwards.
            {r.status === "ISSUING" ? " The bills not yet issued are issued with the mailing date already chosen." : ""}
          </p>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            {r.status === "ISSUING" ? (
              <input type="hidden" name="mailedOn" value={r.mailedOn ?? ""} />
            ) : (
              <TextField
                name="mailedOn"
                type="date"
                label={LABELS.mailedOn}
                hint={`Not before ${r.earliestMailing > d.district.today ? r.earliestMailing : d.district.today}`}
                defaultValue={a?.values.mailedOn ?? (r.earliestMailing > d.district.today ? r.earliestMailing : d.district.today)}
                error={a?.fields.mailedOn}
                required
              />
            )}
            <div className={`usa-form-group${a?.fields.confirm ? " usa-form-group--error" : ""}`}>
              {a?.fields.confirm && (
                <span className="usa-error-message" id="confirm-error">
                  {a.fields.confirm}
                </span>
              )}
              <div className="usa-checkbox">
                <input className="usa-checkbox__input" id="confirm" type="checkbox" name="confirm" value="yes" aria-describedby={a?.fields.confirm ? "confirm-error" : undefined} />
                <label className="usa-checkbox__label" htmlFor="confirm">
                  {LABELS.confirm}
                </label>
              </div>
            </div>
            <button className="usa-button" type="submit">
              {r.status === "ISSUING" ? "Finish issuing" : `Issue ${r.billCount} bills`}
            </button>
          </Form>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import { redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { cookieHeaders, gql, statusOf } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Payouts | Card payments | Staff | Tapline" }];

type Payout = { id: string; amountCents: number; currency: string; arrivalDate: string; createdAt: string; status: string; automatic: boolean; method: string | null; description: string | null; failureMessage: string | null };
type Page = { accountId: string | null; notice: string | null; payouts: Payout[]; nextCursor: string | null };
type Data = {
  districts: { id: string; name: string }[];
  district: { id: string; name: string };
  filter: { from: string; to: string; after: string };
  page: Page | null;
  error: { message: string; fields: Record<string, string> } | null;
};

const PAYOUT = `id amountCents currency arrivalDate createdAt status automatic method description failureMessage`;

/** The API's fields this page can be told about (the filter's dates, the page cursor). */
export const LABELS: Record<string, string> = { districtId: "District", from: "Arriving from", to: "Arriving until", after: "Page" };

const STATUS_LABELS: Record<string, string> = { paid: "Paid to the bank", pending: "Pending", in_transit: "On its way to the bank", canceled: "Cancelled", failed: "Failed" };
const signed = (c: number) => (c < 0 ? `−${money(-c)}` : money(c));

/** The Clerk's or ADMIN's view of the district's Stripe payouts to its bank (read from Stripe on the district's own account). */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["CLERK", "ADMIN"]);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const filter = { from: url.searchParams.get("from") ?? "", to: url.searchParams.get("to") ?? "", after: url.searchParams.get("after") ?? "" };
  const r = await gql<{ districtStripePayouts: Page }>(
    args.context,
    args.request,
    `query Payouts($d: ID!, $f: String, $t: String, $a: String) { districtStripePayouts(districtId: $d, from: $f, to: $t, after: $a) { accountId notice nextCursor payouts { ${PAYOUT} } } }`,
    { d: district.id, f: filter.from || null, t: filter.to || null, a: filter.after || null },
  );
  const base = { districts: info.districts.map((d) => ({ id: d.id, name: d.name })), district: { id: district.id, name: district.name }, filter };
  if (r.ok) return Response.json({ ...base, page: r.data.districtStripePayouts, error: null } satisfies Data, { headers: cookieHeaders(r) });
  if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(url.pathname + url.search)}`, { headers: cookieHeaders(r) });
  if (r.error.code !== "BAD_USER_INPUT") throw new Response(r.error.message, { status: statusOf(r.error.code) });
  return Response.json({ ...base, page: null, error: { message: r.error.message, fields: r.error.fields } } satisfies Data, { headers: cookieHeaders(r) });
}

export default function Payouts() {
  const { districts, district, filter, page, error } = useLoaderData<typeof loader>() as Data;
  const q = (extra: Record<string, string>) => new URLSearchParams({ districtId: district.id, ...(filter.from ? { from: filter.from } : {}), ...(filter.to ? { to: filter.to } : {}), ...extra }).toString();
  return (
    <>
      <h1>Payouts: {district.name}</h1>
      <p className="usa-intro">
        What Stripe paid out of {district.name}'s own Stripe account to the district's bank, read from Stripe now. Open a payout for the payments it
        settled, matched to the portal's receipts, with Stripe's fees: the bank deposit is the payout's amount.
      </p>
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label={LABELS.districtId} options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={district.id} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      <ErrorSummary message={error?.message} fields={error?.fields} labels={LABELS} />
      {page?.notice ? (
        <Notice type="warning">{page.notice}</Notice>
      ) : (
        <>
          <Form method="get" className="usa-form">
            <input type="hidden" name="districtId" value={district.id} />
            <TextField name="from" label={LABELS.from} type="date" hint="The date the money reaches the bank (YYYY-MM-DD)" defaultValue={filter.from} error={error?.fields.from} />
            <TextField name="to" label={LABELS.to} type="date" defaultValue={filter.to} error={error?.fields.to} />
            <button className="usa-button usa-button--outline" type="submit">
              Show these payouts
            </button>
          </Form>
          {page && (
            <>
              <p>
                Stripe account <code>{page.accountId}</code>
                {filter.from || filter.to ? (
                  <>
                    , payouts arriving {filter.from ? <>from <CalendarDate date={filter.from} /> </> : ""}
                    {filter.to ? <>until <CalendarDate date={filter.to} /></> : ""}
                  </>
                ) : null}
                .
              </p>
              <table className="usa-table usa-table--stacked usa-table--borderless width-full">
                <caption>Payouts, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Arrives at the bank</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col">Payout</th>
                  </tr>
                </thead>
                <tbody>
                  {page.payouts.length === 0 && (
                    <tr>
                      <td colSpan={4}>{filter.after ? "No more payouts." : "Stripe has no payouts of this account to show."}</td>
                    </tr>
                  )}
                  {page.payouts.map((p) => (
                    <tr key={p.id}>
                      <th scope="row" data-label="Arrives at the bank">
                        <CalendarDate date={p.arrivalDate} />
                      </th>
                      <td data-label="Amount">{signed(p.amountCents)}</td>
                      <td data-label="Status">
                        {STATUS_LABELS[p.status] ?? p.status}
                        {p.failureMessage ? `: ${p.failureMessage}` : ""}
                      </td>
                      <td data-label="Payout">
                        <Link className="usa-link" to={`/staff/stripe/payouts/${p.id}?districtId=${district.id}`}>
                          {p.id}
                        </Link>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p>
                {filter.after && (
                  <>
                    <Link className="usa-link" to={`/staff/stripe/payouts?${q({})}`}>
                      Newest payouts
                    </Link>{" "}
                  </>
                )}
                {page.nextCursor && (
                  <Link className="usa-link" to={`/staff/stripe/payouts?${q({ after: page.nextCursor })}`}>
                    Older payouts
                  </Link>
                )}
              </p>
            </>
          )}
        </>
      )}
      <p>
        <Link className="usa-link" to={`/staff/payments?districtId=${district.id}`}>
          The district's payments
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

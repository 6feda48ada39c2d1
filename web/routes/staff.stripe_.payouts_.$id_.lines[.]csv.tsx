import { redirect, type LoaderFunctionArgs } from "@remix-run/node";
import { requireStaff } from "~/components/staff.server";
import { cookieHeaders, gql, statusOf } from "~/graphql.server";

/**
 * One payout's lines as CSV (Clerk or ADMIN), with a total line: for reconciling the bank deposit.
 * Without Stripe keys or a connected account there is no payout to export: a 409 saying why.
 */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args, ["CLERK", "ADMIN"]);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const r = await gql<{ out: { filename: string; csv: string } }>(
    args.context,
    args.request,
    `query PayoutCsv($d: ID!, $p: String!) { out: districtStripePayoutCsv(districtId: $d, payoutId: $p) { filename csv } }`,
    { d: district.id, p: args.params.id ?? "" },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(url.pathname + url.search)}`, { headers: cookieHeaders(r) });
    const status = r.error.code === "CONFLICT" ? 409 : statusOf(r.error.code);
    return new Response(r.error.message, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-store" } });
  }
  return new Response(r.data.out.csv, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${r.data.out.filename}"`, "cache-control": "private, no-store" },
  });
}

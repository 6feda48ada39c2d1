import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "~/auth.server";
import { requireStaff } from "~/components/staff.server";

/** One payout's lines as CSV (Clerk or ADMIN), with a total line: for reconciling the bank deposit. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args, ["CLERK", "ADMIN"]);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const { out } = await requireSignedIn<{ out: { filename: string; csv: string } }>(
    args,
    `query PayoutCsv($d: ID!, $p: String!) { out: districtStripePayoutCsv(districtId: $d, payoutId: $p) { filename csv } }`,
    { d: district.id, p: args.params.id ?? "" },
  );
  return new Response(out.csv, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${out.filename}"`, "cache-control": "private, no-store" },
  });
}

import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "~/auth.server";
import { requireStaff } from "~/components/staff.server";

/** The receivables (kind=receivables, as of today) or the payments (kind=payments, from/to, this year by default) of the district's sewer accounts, as CSV. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const payments = url.searchParams.get("kind") === "payments";
  const { out } = await requireSignedIn<{ out: { slug: string; from: string; to: string; csv: string } }>(
    args,
    payments
      ? `query PaymentsCsv($d: ID!, $f: String, $t: String) { out: sewerPaymentsCsv(districtId: $d, from: $f, to: $t) { slug from to csv } }`
      : `query ReceivablesCsv($d: ID!) { out: sewerReceivablesCsv(districtId: $d) { slug from to csv } }`,
    payments ? { d: district.id, f: url.searchParams.get("from") || null, t: url.searchParams.get("to") || null } : { d: district.id },
  );
  const name = payments ? `sewer-payments-${out.slug}-${out.from}-to-${out.to}.csv` : `sewer-receivables-${out.slug}-${out.to}.csv`;
  return new Response(out.csv, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"`, "cache-control": "private, no-store" },
  });
}

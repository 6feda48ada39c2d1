import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "~/auth.server";
import { requireStaff } from "~/components/staff.server";

/** The tax-levy report (SUL 1118) as a CSV download for the Clerk. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args, ["CLERK", "ADMIN"]);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const { taxLevyReport } = await requireSignedIn<{ taxLevyReport: { asOf: string; csv: string } }>(args, `query TaxLevy($d: ID!, $a: String) { taxLevyReport(districtId: $d, asOf: $a) { asOf csv } }`, {
    d: district.id,
    a: url.searchParams.get("asOf") || null,
  });
  return new Response(taxLevyReport.csv, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="tax-levy-${district.slug}-${taxLevyReport.asOf}.csv"`,
      "cache-control": "private, no-store",
    },
  });
}

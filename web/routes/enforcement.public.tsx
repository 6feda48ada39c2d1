import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { date } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { money } from "~/components/money";
import { gql, statusOf } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Enforcement actions against industrial users | Tapline" }];

type Row = { number: string; kindLabel: string; respondentName: string; violation: string; section: string; servedOn: string; finalOn: string | null; fineTotalCents: number };
type Data = { districts: { slug: string; name: string }[]; slug: string; rows: Row[] };

/** Public record (SUL 1014, 1122): final actions against industrial users. Notices to homeowners are never listed. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const ds = await gql<{ districts: { slug: string; name: string }[] }>(context, request, `query Districts { districts { slug name } }`);
  if (!ds.ok) throw new Response(ds.error.message, { status: 500 });
  const slug = new URL(request.url).searchParams.get("district") ?? ds.data.districts[0]?.slug ?? "";
  const r = await gql<{ publicEnforcementActions: Row[] }>(context, request, `query PublicEnforcement($s: String!) { publicEnforcementActions(districtSlug: $s) { number kindLabel respondentName violation section servedOn finalOn fineTotalCents } }`, { s: slug });
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  return { districts: ds.data.districts, slug, rows: r.data.publicEnforcementActions } satisfies Data;
}

export default function PublicEnforcement() {
  const { districts, slug, rows } = useLoaderData<typeof loader>() as Data;
  return (
    <>
      <h1>Enforcement actions against industrial users</h1>
      <p>
        Final enforcement actions against industrial users are public records (Sewer Use Law 1014, 1122). Notices served on homeowners are not listed.
      </p>
      <Form method="get" className="usa-form">
        <SelectField name="district" label="District" options={districts.map((d) => ({ value: d.slug, label: d.name }))} defaultValue={slug} />
        <button className="usa-button usa-button--outline" type="submit">
          Show
        </button>
      </Form>
      {rows.length === 0 ? (
        <p>No final enforcement actions against industrial users.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Newest first</caption>
          <thead>
            <tr>
              <th scope="col">Industrial user</th>
              <th scope="col">Action</th>
              <th scope="col">Violation</th>
              <th scope="col">Served</th>
              <th scope="col">Final</th>
              <th scope="col">Fine</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.number}>
                <th scope="row" data-label="Industrial user">
                  {r.respondentName}
                </th>
                <td data-label="Action">
                  {r.kindLabel} {r.number} ({r.section})
                </td>
                <td data-label="Violation">{r.violation}</td>
                <td data-label="Served">{date(r.servedOn)}</td>
                <td data-label="Final">{r.finalOn ? date(r.finalOn) : ""}</td>
                <td data-label="Fine">{r.fineTotalCents ? money(r.fineTotalCents) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

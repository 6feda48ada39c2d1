import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { date, districtTime } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Petitions docket | Staff | Tapline" }];

type Item = {
  petitionId: string;
  statusLabel: string;
  reliefLabel?: string;
  relief: string;
  filedOn: string;
  filedByName: string;
  actionId: string;
  actionNumber: string;
  actionKindLabel: string;
  respondentName: string;
  petitionDueOn: string | null;
  fineTotalCents: number;
  hearingAt: string | null;
  documentCount: number;
};
type Data = { districts: { id: string; name: string; timeZone: string }[]; districtId: string; items: Item[]; nextCursor: string | null };

/** The Board's docket: open petitions, oldest first (the District Operator sees water-severance petitions). */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args, ["BOARD", "OPERATOR"]);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const { petitionDocket } = await requireSignedIn<{ petitionDocket: { items: Item[]; nextCursor: string | null } }>(
    args,
    `query Docket($d: ID!, $a: String) { petitionDocket(districtId: $d, first: 20, after: $a) { nextCursor items {
      petitionId statusLabel relief filedOn filedByName actionId actionNumber actionKindLabel respondentName petitionDueOn fineTotalCents hearingAt documentCount } } }`,
    { d: district.id, a: url.searchParams.get("after") || null },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name, timeZone: d.timeZone })), districtId: district.id, ...petitionDocket } satisfies Data;
}

export default function Docket() {
  const d = useLoaderData<typeof loader>() as Data;
  const district = d.districts.find((x) => x.id === d.districtId)!;
  return (
    <>
      <h1>Petitions docket</h1>
      <p>Open petitions against orders and fines (Sewer Use Law 1104-1108), oldest first. The Board rejects, modifies or suspends, or orders a show-cause hearing (1109).</p>
      <p>
        <Link className="usa-link" to={`/staff/petitions/flow?districtId=${d.districtId}`}>
          Requests about metered water not reaching the sewer (Sewer Use Law 1205)
        </Link>
      </p>
      {d.districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.districtId} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      {d.items.length === 0 ? (
        <p>No open petitions in {district.name}.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>{district.name}: open petitions</caption>
          <thead>
            <tr>
              <th scope="col">Petition</th>
              <th scope="col">Against</th>
              <th scope="col">Filed</th>
              <th scope="col">Status</th>
              <th scope="col">Hearing</th>
            </tr>
          </thead>
          <tbody>
            {d.items.map((i) => (
              <tr key={i.petitionId}>
                <th scope="row" data-label="Petition">
                  <Link className="usa-link" to={`/staff/petitions/${i.petitionId}`}>
                    {i.respondentName}
                  </Link>
                  <span className="display-block">{i.documentCount ? `${i.documentCount} document(s)` : "No documents"}</span>
                </th>
                <td data-label="Against">
                  {i.actionKindLabel} {i.actionNumber}
                  {i.fineTotalCents ? `, ${money(i.fineTotalCents)}` : ""}
                </td>
                <td data-label="Filed">
                  {date(i.filedOn)} by {i.filedByName}
                  {i.petitionDueOn ? ` (window to ${date(i.petitionDueOn)})` : ""}
                </td>
                <td data-label="Status">{i.statusLabel}</td>
                <td data-label="Hearing">{i.hearingAt ? districtTime(i.hearingAt, district.timeZone) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.nextCursor && (
        <p>
          <Link className="usa-link" to={`/staff/petitions?districtId=${d.districtId}&after=${d.nextCursor}`}>
            Next page
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

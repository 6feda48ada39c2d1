import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { date } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Enforcement | Staff | Tapline" }];

type Item = { id: string; number: string; kindLabel: string; statusLabel: string; final: boolean; respondentName: string; respondentUserId: string | null; respondentOrganizationId: string | null; servedOn: string; petitionDueOn: string | null; fineTotalCents: number };
type Data = { districts: { id: string; name: string; roles: string[] }[]; districtId: string; filter: { u: string | null; o: string | null }; items: Item[]; nextCursor: string | null };

/** The district's enforcement actions, newest first; one respondent's history when filtered. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const u = url.searchParams.get("respondentUserId") || null;
  const o = url.searchParams.get("respondentOrganizationId") || null;
  const { districtEnforcementActions } = await requireSignedIn<{ districtEnforcementActions: { items: Item[]; nextCursor: string | null } }>(
    args,
    `query StaffEnforcement($d: ID!, $u: ID, $o: ID, $a: String) { districtEnforcementActions(districtId: $d, respondentUserId: $u, respondentOrganizationId: $o, first: 50, after: $a) {
      nextCursor items { id number kindLabel statusLabel final respondentName respondentUserId respondentOrganizationId servedOn petitionDueOn fineTotalCents } } }`,
    { d: district.id, u, o, a: url.searchParams.get("after") || null },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name, roles: d.roles })), districtId: district.id, filter: { u, o }, ...districtEnforcementActions } satisfies Data;
}

export default function StaffEnforcement() {
  const d = useLoaderData<typeof loader>() as Data;
  const district = d.districts.find((x) => x.id === d.districtId)!;
  const filtered = d.filter.u || d.filter.o;
  return (
    <>
      <h1>Enforcement actions</h1>
      {district.roles.includes("OPERATOR") && (
        <p>
          <Link className="usa-button" to={`/staff/enforcement/new?districtId=${d.districtId}`}>
            Serve a notice, order or fine
          </Link>
        </p>
      )}
      <Form method="get" className="usa-form">
        {d.districts.length > 1 ? (
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.districtId} />
        ) : (
          <input type="hidden" name="districtId" value={d.districtId} />
        )}
        {d.districts.length > 1 && (
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        )}
      </Form>
      {filtered && (
        <p>
          Showing one respondent's enforcement history.{" "}
          <Link className="usa-link" to={`/staff/enforcement?districtId=${d.districtId}`}>
            Show every action
          </Link>
        </p>
      )}
      {d.items.length === 0 ? (
        <p>No enforcement actions in {district.name}.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>{district.name}: newest first</caption>
          <thead>
            <tr>
              <th scope="col">Action</th>
              <th scope="col">Served on</th>
              <th scope="col">Status</th>
              <th scope="col">Petition by</th>
              <th scope="col">Fine</th>
            </tr>
          </thead>
          <tbody>
            {d.items.map((i) => (
              <tr key={i.id}>
                <th scope="row" data-label="Action">
                  <Link className="usa-link" to={`/staff/enforcement/${i.id}`}>
                    {i.kindLabel} {i.number}
                  </Link>
                  <span className="display-block">
                    <Link
                      className="usa-link"
                      to={`/staff/enforcement?districtId=${d.districtId}&${i.respondentUserId ? `respondentUserId=${i.respondentUserId}` : `respondentOrganizationId=${i.respondentOrganizationId}`}`}
                    >
                      {i.respondentName}
                    </Link>
                  </span>
                </th>
                <td data-label="Served on">{date(i.servedOn)}</td>
                <td data-label="Status">{i.final ? "Final" : i.statusLabel}</td>
                <td data-label="Petition by">{i.petitionDueOn ? date(i.petitionDueOn) : ""}</td>
                <td data-label="Fine">{i.fineTotalCents ? money(i.fineTotalCents) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.nextCursor && (
        <p>
          <Link className="usa-link" to={`/staff/enforcement?districtId=${d.districtId}${d.filter.u ? `&respondentUserId=${d.filter.u}` : ""}${d.filter.o ? `&respondentOrganizationId=${d.filter.o}` : ""}&after=${d.nextCursor}`}>
            Next page
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

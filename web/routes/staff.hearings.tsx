import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { districtTime } from "~/components/enforcement";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Hearing calendar | Staff | Tapline" }];

type Item = { id: string; petitionId: string; actionId: string; actionNumber: string; respondentName: string; scheduledFor: string; place: string; outcome: string | null };
type Data = { districts: { id: string; name: string; timeZone: string }[]; districtId: string; items: Item[] };

/** Show-cause hearings (SUL 1109) from today on. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const { hearingCalendar } = await requireSignedIn<{ hearingCalendar: Item[] }>(
    args,
    `query Hearings($d: ID!) { hearingCalendar(districtId: $d) { id petitionId actionId actionNumber respondentName scheduledFor place outcome } }`,
    { d: district.id },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name, timeZone: d.timeZone })), districtId: district.id, items: hearingCalendar } satisfies Data;
}

export default function Hearings() {
  const d = useLoaderData<typeof loader>() as Data;
  const district = d.districts.find((x) => x.id === d.districtId)!;
  return (
    <>
      <h1>Show-cause hearings</h1>
      {d.districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={d.districts.map((x) => ({ value: x.id, label: x.name }))} defaultValue={d.districtId} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      {d.items.length === 0 ? (
        <p>No hearings from today on in {district.name}.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>{district.name}: from today on</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Respondent</th>
              <th scope="col">Place</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {d.items.map((h) => (
              <tr key={h.id}>
                <th scope="row" data-label="When">
                  <Link className="usa-link" to={`/staff/petitions/${h.petitionId}`}>
                    {districtTime(h.scheduledFor, district.timeZone)}
                  </Link>
                </th>
                <td data-label="Respondent">
                  {h.respondentName} ({h.actionNumber})
                </td>
                <td data-label="Place">{h.place}</td>
                <td data-label="Outcome">{h.outcome ? h.outcome.toLowerCase() : "To be held"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

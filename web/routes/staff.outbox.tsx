import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { SelectField } from "~/components/fields";
import { DateTime, Linkified } from "~/components/format";
import { requireStaff } from "~/components/staff.server";
import { requireSignedIn } from "~/auth.server";

export const meta: MetaFunction = () => [{ title: "Outgoing email | Staff | Tapline" }];

type Email = { id: string; toAddress: string; subject: string; bodyText: string; kind: string; createdAt: string; sentAt: string | null; timeZone: string };
type Data = { districts: { id: string; name: string }[]; districtId: string; emails: Email[] };

export async function loader(args: LoaderFunctionArgs) {
  const staff = await requireStaff(args, ["CLERK", "ADMIN"]);
  const requested = new URL(args.request.url).searchParams.get("districtId");
  const district = staff.districts.find((d) => d.id === requested) ?? staff.districts[0];
  const { districtOutbox } = await requireSignedIn<{ districtOutbox: Email[] }>(
    args,
    `query DistrictOutbox($districtId: ID!) { districtOutbox(districtId: $districtId, first: 100) { id toAddress subject bodyText kind createdAt sentAt timeZone } }`,
    { districtId: district.id }
  );
  return { districts: staff.districts.map((d) => ({ id: d.id, name: d.name })), districtId: district.id, emails: districtOutbox } satisfies Data;
}

export default function Outbox() {
  const { districts, districtId, emails } = useLoaderData<typeof loader>() as Data;
  const name = districts.find((d) => d.id === districtId)?.name ?? "";
  return (
    <>
      <h1>Outgoing email</h1>
      <p>
        The email {name} sends: notices, receipts, reminders and account links. When the district has no mail server configured, emails are not sent;
        each person reads theirs in the portal under Account, Emails.
      </p>
      {districts.length > 1 && (
        <Form method="get" className="usa-form tapline-filter">
          <SelectField
            name="districtId"
            label="District"
            options={districts.map((d) => ({ value: d.id, label: d.name }))}
            defaultValue={districtId}
          />
          <button className="usa-button" type="submit">
            Show this district's email
          </button>
        </Form>
      )}
      {emails.length === 0 ? (
        <p>No email yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>
            The last {emails.length} emails of {name}, newest first
          </caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">To</th>
              <th scope="col">Subject and text</th>
              <th scope="col">Kind</th>
              <th scope="col">Sent</th>
            </tr>
          </thead>
          <tbody>
            {emails.map((e) => (
              <tr key={e.id}>
                <th scope="row" data-label="Created">
                  <DateTime iso={e.createdAt} timeZone={e.timeZone} />
                </th>
                <td data-label="To" className="tapline-break">
                  {e.toAddress}
                </td>
                <td data-label="Subject and text">
                  <details className="tapline-details tapline-details--inline">
                    <summary>{e.subject}</summary>
                    <div className="tapline-plain-text">
                      <Linkified text={e.bodyText} />
                    </div>
                  </details>
                </td>
                <td data-label="Kind">
                  <code>{e.kind}</code>
                </td>
                <td data-label="Sent">{e.sentAt ? <DateTime iso={e.sentAt} timeZone={e.timeZone} /> : "Not sent: read in the portal"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { SelectField } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Audit log | Staff | Tapline" }];

type Entry = {
  id: string;
  at: string;
  actorId: string | null;
  actorName: string | null;
  action: string;
  entityType: string;
  entityId: string;
  reason: string | null;
  details: Record<string, unknown>;
};
type Filter = { districtId: string; action: string; entityType: string; entityId: string; before: string };
type Data = {
  districts: { id: string; name: string }[];
  filter: Filter;
  entries: Entry[];
  nextCursor: string | null;
  error: string | null;
  fields: Record<string, string>;
};

const Q = `query AuditLog($filter: AuditFilter!) {
  auditLog(filter: $filter) { entries { id at actorId actorName action entityType entityId reason details } nextCursor }
}`;

export async function loader(args: LoaderFunctionArgs) {
  const staff = await requireStaff(args, ["CLERK", "OPERATOR", "BOARD", "ADMIN"]);
  const p = new URL(args.request.url).searchParams;
  const get = (k: string) => (p.get(k) ?? "").trim();
  const requested = get("districtId");
  const district = staff.districts.find((d) => d.id === requested) ?? staff.districts[0];
  const filter: Filter = {
    districtId: district.id,
    action: get("action"),
    entityType: get("entityType"),
    entityId: get("entityId"),
    before: get("before"),
  };
  const r = await gql<{ auditLog: { entries: Entry[]; nextCursor: string | null } }>(args.context, args.request, Q, {
    filter: {
      districtId: filter.districtId,
      action: filter.action || null,
      entityType: filter.entityType || null,
      entityId: filter.entityId || null,
      before: filter.before || null,
      first: 50,
    },
  });
  const districts = staff.districts.map((d) => ({ id: d.id, name: d.name }));
  if (!r.ok) {
    if (r.error.code === "FORBIDDEN") throw new Response(r.error.message, { status: 403 });
    return { districts, filter, entries: [], nextCursor: null, error: r.error.message, fields: r.error.fields } satisfies Data;
  }
  return { districts, filter, ...r.data.auditLog, error: null, fields: {} } satisfies Data;
}

function query(f: Filter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, before: "", ...extra })) if (v) q.set(k, v);
  return `?${q}`;
}

export default function AuditLog() {
  const { districts, filter, entries, nextCursor, error, fields } = useLoaderData<typeof loader>() as Data;
  const districtName = districts.find((d) => d.id === filter.districtId)?.name ?? "";
  const filtered = !!(filter.action || filter.entityType || filter.entityId);
  return (
    <>
      <h1>Audit log</h1>
      <p>Every change made in the portal, newest first: who made it, on which record, when and why. Entries cannot be changed or deleted.</p>
      <ErrorSummary message={error} fields={fields} labels={{ before: "Older entries link" }} />
      <Form method="get" className="usa-form usa-form--large tapline-filter">
        <fieldset className="usa-fieldset">
          <legend className="usa-legend text-bold">Filter the entries</legend>
          {districts.length > 1 ? (
            <SelectField
              name="districtId"
              label="District"
              options={districts.map((d) => ({ value: d.id, label: d.name }))}
              defaultValue={filter.districtId}
            />
          ) : (
            <input type="hidden" name="districtId" value={filter.districtId} />
          )}
          <div className="grid-row grid-gap">
            <div className="tablet:grid-col-4">
              <TextField name="action" label="Action" hint="For example: rulebook.changed" defaultValue={filter.action} />
            </div>
            <div className="tablet:grid-col-4">
              <TextField name="entityType" label="Record type" hint="For example: District, User" defaultValue={filter.entityType} />
            </div>
            <div className="tablet:grid-col-4">
              <TextField name="entityId" label="Record ID" hint="The record's identifier" defaultValue={filter.entityId} />
            </div>
          </div>
          <button className="usa-button" type="submit">
            Show entries
          </button>
          {filtered && (
            <Link
              className="usa-button usa-button--unstyled margin-left-2"
              to={query({ districtId: filter.districtId, action: "", entityType: "", entityId: "", before: "" })}
            >
              Clear the filter
            </Link>
          )}
        </fieldset>
      </Form>

      {entries.length === 0 ? (
        <p className="margin-top-4">{error ? "No entries to show." : "No entries match."}</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full margin-top-4 tapline-audit">
          <caption>
            Audit log of {districtName}
            {filter.before ? ", older entries" : ", newest first"}
            {filtered ? " (filtered)" : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Record</th>
              <th scope="col">Reason</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <th scope="row" data-label="When (UTC)">
                  <DateTime iso={e.at} />
                </th>
                <td data-label="Who">{e.actorName ?? (e.actorId ? "A deleted account" : "System")}</td>
                <td data-label="Action">
                  <code>{e.action}</code>
                </td>
                <td data-label="Record" className="tapline-break">
                  {e.entityType} <code>{e.entityId}</code>
                </td>
                <td data-label="Reason">{e.reason ?? ""}</td>
                <td data-label="Details">
                  {Object.keys(e.details ?? {}).length === 0 ? (
                    "None"
                  ) : (
                    <details className="tapline-details tapline-details--inline">
                      <summary>
                        Details<span className="usa-sr-only"> of entry {e.id}</span>
                      </summary>
                      <pre className="tapline-pre">{JSON.stringify(e.details, null, 2)}</pre>
                    </details>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav aria-label="Audit log pages" className="margin-top-2">
        <ul className="usa-list usa-list--unstyled tapline-pager">
          {filter.before && (
            <li>
              <Link className="usa-link" to={query(filter)}>
                Newest entries
              </Link>
            </li>
          )}
          {nextCursor && (
            <li>
              <Link className="usa-link" to={query(filter, { before: nextCursor })}>
                Older entries
              </Link>
            </li>
          )}
        </ul>
      </nav>
    </>
  );
}

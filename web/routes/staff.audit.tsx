import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { SelectField } from "~/components/fields";
import { DateTime, formatCalendarDate, formatDateTime, statusLabel } from "~/components/format";
import { money } from "~/components/money";
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
  districts: { id: string; name: string; timeZone: string }[];
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
  const districts = staff.districts.map((d) => ({ id: d.id, name: d.name, timeZone: d.timeZone }));
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
  const district = districts.find((d) => d.id === filter.districtId);
  const districtName = district?.name ?? "";
  const tz = district?.timeZone ?? districts[0].timeZone;
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
              <th scope="col">When</th>
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
                <th scope="row" data-label="When">
                  <DateTime iso={e.at} timeZone={tz} />
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
                      <Details value={e.details} timeZone={tz} />
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

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** "bondExpiresOn" → "Bond expires on": an entry's key in words. */
const keyWords = (k: string) => {
  const w = k.replace(/_/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return w.charAt(0).toUpperCase() + w.slice(1);
};

/** One value of an entry's details as staff read it: dates and times in words on the district's clock, codes as words, cents as money; ids as code. */
function Value({ k, v, timeZone }: { k: string; v: unknown; timeZone: string }) {
  if (v === null || v === undefined || v === "") return <>none</>;
  if (typeof v === "boolean") return <>{v ? "yes" : "no"}</>;
  if (typeof v === "number") return <>{/Cents$/.test(k) && Number.isInteger(v) ? money(v) : v.toLocaleString("en-US")}</>;
  if (typeof v === "string") {
    if (ISO_DATE.test(v)) return <time dateTime={v}>{formatCalendarDate(v)}</time>;
    if (ISO_INSTANT.test(v)) return <time dateTime={v}>{formatDateTime(v, timeZone)}</time>;
    if (ID.test(v)) return <code>{v}</code>;
    return <>{statusLabel(v)}</>;
  }
  if (Array.isArray(v))
    return v.every((x) => x === null || typeof x !== "object") ? (
      <>{v.map((x, i) => <span key={i}>{i > 0 && ", "}<Value k={k} v={x} timeZone={timeZone} /></span>)}</>
    ) : (
      <ol className="usa-list">{v.map((x, i) => <li key={i}><Value k={k} v={x} timeZone={timeZone} /></li>)}</ol>
    );
  return <Details value={v as Record<string, unknown>} timeZone={timeZone} />;
}

/** An audit entry's details as a list of what was recorded, not as JSON. */
function Details({ value, timeZone }: { value: Record<string, unknown>; timeZone: string }) {
  return (
    <dl className="tapline-audit-details">
      {Object.entries(value).map(([k, v]) => (
        <div key={k}>
          <dt>{keyWords(k)}</dt>
          <dd>
            <Value k={k} v={v} timeZone={timeZone} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

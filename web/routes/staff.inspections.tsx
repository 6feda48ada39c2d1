import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { formatCalendarDate, formatDayOf, formatTime, statusLabel } from "~/components/format";
import { INSPECTION_STATUS, formatDay } from "~/components/permit-view";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Inspections this week | Staff | Tapline" }];

type Entry = { id: string; permitId: string; kindLabel: string; status: string; scheduledFor: string | null; requestedAt: string; inspectorName: string | null; permitNumber: string | null; address: string; applicantName: string; applicantNotes: string | null; preferredOn?: string | null };
type Calendar = { weekStart: string; weekEnd: string; previousWeek: string; nextWeek: string; timeZone: string; days: { date: string; inspections: Entry[] }[]; unscheduled: Entry[] };
type Data = { districts: { id: string; name: string }[]; districtId: string; calendar: Calendar };

/** The Operator's week of lateral inspections, and the requests waiting to be scheduled. */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["OPERATOR"]);
  const params = new URL(args.request.url).searchParams;
  const district = info.districts.find((d) => d.id === params.get("districtId")) ?? info.districts[0];
  const { inspectionCalendar } = await requireSignedIn<{ inspectionCalendar: Calendar }>(
    args,
    `query Calendar($d: ID!, $w: String) { inspectionCalendar(districtId: $d, weekOf: $w) { weekStart weekEnd previousWeek nextWeek timeZone
      days { date inspections { id permitId kindLabel status scheduledFor requestedAt inspectorName permitNumber address applicantName applicantNotes } }
      unscheduled { id permitId kindLabel status scheduledFor requestedAt inspectorName permitNumber address applicantName applicantNotes preferredOn } } }`,
    { d: district.id, w: params.get("weekOf") || null },
  );
  return { districts: info.districts.map((d) => ({ id: d.id, name: d.name })), districtId: district.id, calendar: inspectionCalendar } satisfies Data;
}

const time = formatTime;

export default function Inspections() {
  const { districts, districtId, calendar: c } = useLoaderData<typeof loader>() as Data;
  const q = (weekOf: string) => `/staff/inspections?districtId=${districtId}&weekOf=${weekOf}`;
  return (
    <>
      <h1>Inspections</h1>
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <button className="usa-button" type="submit">
            Show
          </button>
        </Form>
      )}
      <h2>
        Week of {formatCalendarDate(c.weekStart)} to {formatCalendarDate(c.weekEnd)}
      </h2>
      <nav className="tapline-pager" aria-label="Weeks">
        <Link className="usa-link" to={q(c.previousWeek)}>
          Previous week
        </Link>
        <Link className="usa-link" to={q(c.nextWeek)}>
          Next week
        </Link>
      </nav>
      {c.days.map((d) => (
        <section key={d.date} aria-labelledby={`day-${d.date}`}>
          <h3 id={`day-${d.date}`}>{formatCalendarDate(d.date, { weekday: true })}</h3>
          {d.inspections.length === 0 ? (
            <p className="text-base-dark">No inspection.</p>
          ) : (
            <ul className="usa-list">
              {d.inspections.map((i) => (
                <li key={i.id}>
                  {time(i.scheduledFor!, c.timeZone)}: {i.kindLabel} at{" "}
                  <Link className="usa-link" to={`/staff/permits/${i.permitId}`}>
                    {i.address}
                  </Link>{" "}
                  ({i.permitNumber}, {i.applicantName}){i.inspectorName ? `, ${i.inspectorName}` : ""}: {statusLabel(i.status, INSPECTION_STATUS)}
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
      <h2>Waiting to be scheduled</h2>
      {c.unscheduled.length === 0 ? (
        <p>No request is waiting.</p>
      ) : (
        <ul className="usa-list">
          {c.unscheduled.map((i) => (
            <li key={i.id}>
              {i.kindLabel} at{" "}
              <Link className="usa-link" to={`/staff/permits/${i.permitId}`}>
                {i.address}
              </Link>{" "}
              ({i.permitNumber}, {i.applicantName}), requested {formatDayOf(i.requestedAt, c.timeZone)}
              {i.preferredOn ? `, preferably ${formatDay(i.preferredOn)}` : ""}
              {i.applicantNotes ? `: ${i.applicantNotes}` : ""}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { DateTime, formatCalendarDate } from "~/components/format";
import { OnTime, daysText } from "~/components/industrial-events";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Violation notifications and accidental discharges | Staff | Tapline" }];

type Notice = { id: string; dutyId: string; permitId: string; notifiedWhom: string; methodLabel: string; notifiedAt: string; dueAt: string; text: string; onTime: boolean };
type Slug = {
  id: string;
  permitId: string;
  permitNumber: string | null;
  facilityName: string | null;
  occurredAt: string;
  substance: string;
  estimatedVolumeGallons: number;
  writtenDueOn: string;
  writtenDaysLeft: number | null;
  writtenStatus: string;
  writtenLate: boolean;
};

const PAGE = 50;

/** A link to the page with these lists' positions (a list left out starts at its newest). */
function pageHref(districtId: string, at: { slugsAfter?: string | null; noticesAfter?: string | null }) {
  const q = new URLSearchParams({ districtId });
  for (const [k, v] of Object.entries(at)) if (v) q.set(k, v);
  return `?${q}`;
}

/** Back to a list's newest rows (when paged on) and on to its older ones (when there are more). */
function PageLinks({ newest, older, olderLabel }: { newest: string | null; older: string | null; olderLabel: string }) {
  return (
    <p>
      {newest && (
        <Link className="usa-link margin-right-2" to={newest}>
          Newest
        </Link>
      )}
      {older && (
        <Link className="usa-link" to={older}>
          {olderLabel}
        </Link>
      )}
    </p>
  );
}

export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const info = await requireStaff(args);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  // Each list pages on its own: ?slugsAfter= and ?noticesAfter= carry the API's cursor of the page shown.
  const slugsAfter = url.searchParams.get("slugsAfter");
  const noticesAfter = url.searchParams.get("noticesAfter");
  type Page<T> = { items: T[]; nextCursor: string | null };
  const data = await requireSignedIn<{ industrialViolationNotices: Page<Notice>; industrialSlugDischarges: Page<Slug> }>(
    args,
    `query Events($d: ID!, $na: String, $sa: String) {
      industrialViolationNotices(districtId: $d, first: ${PAGE}, after: $na) { nextCursor items { id dutyId permitId notifiedWhom methodLabel notifiedAt dueAt text onTime } }
      industrialSlugDischarges(districtId: $d, first: ${PAGE}, after: $sa) { nextCursor items { id permitId permitNumber facilityName occurredAt substance estimatedVolumeGallons writtenDueOn writtenDaysLeft writtenStatus writtenLate } } }`,
    { d: district.id, na: noticesAfter, sa: slugsAfter },
  );
  return { districtId: district.id, districtName: district.name, timeZone: district.timeZone, slugsAfter, noticesAfter, ...data };
}

/** Staff: the district's violation notifications (SUL 1005(4)) and accidental or slug discharges (1011), newest first. */
export default function StaffEvents() {
  const { districtId, districtName, timeZone, slugsAfter, noticesAfter, industrialViolationNotices, industrialSlugDischarges } = useLoaderData<typeof loader>();
  const slugs = industrialSlugDischarges.items;
  const notices = industrialViolationNotices.items;
  return (
    <>
      <h1>Violation notifications and accidental discharges</h1>
      <p className="usa-intro">{districtName}</p>
      <section aria-labelledby="slugs-heading">
        <h2 id="slugs-heading">Accidental or slug discharges (Sewer Use Law 1011)</h2>
        {slugs.length === 0 ? (
          <p>None reported.</p>
        ) : (
          <table className="usa-table usa-table--borderless usa-table--stacked width-full">
            <caption className="usa-sr-only">Newest first</caption>
            <thead>
              <tr>
                <th scope="col">Discharge</th>
                <th scope="col">Permit</th>
                <th scope="col">Written report</th>
              </tr>
            </thead>
            <tbody>
              {slugs.map((s) => (
                <tr key={s.id}>
                  <th scope="row" data-label="Discharge">
                    <Link className="usa-link" to={`/industrial/slug/${s.id}`}>
                      {s.substance}
                    </Link>
                    , about {s.estimatedVolumeGallons.toLocaleString("en-US")} gallons, <DateTime iso={s.occurredAt} timeZone={timeZone} />
                  </th>
                  <td data-label="Permit">
                    <Link className="usa-link" to={`/staff/industrial/${s.permitId}/events`}>
                      {s.permitNumber}
                    </Link>{" "}
                    {s.facilityName}
                  </td>
                  <td data-label="Written report">
                    {s.writtenStatus === "SIGNED" ? "Received" : `Due ${formatCalendarDate(s.writtenDueOn)} (${daysText(s.writtenDaysLeft)})`} {s.writtenLate && <OnTime onTime={false} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <PageLinks
          newest={slugsAfter ? pageHref(districtId, { noticesAfter }) : null}
          older={industrialSlugDischarges.nextCursor ? pageHref(districtId, { noticesAfter, slugsAfter: industrialSlugDischarges.nextCursor }) : null}
          olderLabel="Older discharges"
        />
      </section>
      <section aria-labelledby="notices-heading">
        <h2 id="notices-heading">Violation notifications (Sewer Use Law 1005(4))</h2>
        {notices.length === 0 ? (
          <p>None recorded.</p>
        ) : (
          <table className="usa-table usa-table--borderless usa-table--stacked width-full">
            <caption className="usa-sr-only">Newest first</caption>
            <thead>
              <tr>
                <th scope="col">Notified</th>
                <th scope="col">What was said</th>
                <th scope="col">Due by</th>
              </tr>
            </thead>
            <tbody>
              {notices.map((n) => (
                <tr key={n.id}>
                  <th scope="row" data-label="Notified">
                    <Link className="usa-link" to={`/staff/industrial/${n.permitId}/events`}>
                      {n.notifiedWhom}
                    </Link>
                    , {n.methodLabel.toLowerCase()}, <DateTime iso={n.notifiedAt} timeZone={timeZone} />
                  </th>
                  <td data-label="What was said">{n.text}</td>
                  <td data-label="Due by">
                    <DateTime iso={n.dueAt} timeZone={timeZone} /> <OnTime onTime={n.onTime} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <PageLinks
          newest={noticesAfter ? pageHref(districtId, { slugsAfter }) : null}
          older={industrialViolationNotices.nextCursor ? pageHref(districtId, { slugsAfter, noticesAfter: industrialViolationNotices.nextCursor }) : null}
          olderLabel="Older notifications"
        />
      </section>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

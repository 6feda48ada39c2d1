import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "New sewers and sewer extensions: public record | Tapline" }];

type Record_ = {
  districtName: string;
  provided: boolean;
  section: string;
  procedure: { text: string; section: string }[];
  committedByLine: { lineName: string; lineKind: string; committedGpd: number }[];
  commitments: { lineName: string; lineKind: string; committedTo: string; flowGpd: number; resolutionNumber: string; resolutionAdoptedOn: string; expiresOn: string | null; releasedOn: string | null; releaseResolutionNumber: string | null; inForce: boolean }[];
  charges: { extensionName: string; label: string; amount: string; resolutionNumber: string; resolutionAdoptedOn: string }[];
  accepted: { name: string; location: string; developer: string; acceptedOn: string; resolutionNumber: string; guaranteeEndsOn: string }[];
};
type Data = { r: Record_; districts: { slug: string; name: string }[]; slug: string };

/** Anyone, signed out: the procedure and the Town Board's resolutions on sewer extensions (Sewer Use Law 1301-1303). */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const r = await gql<{ sewerExtensionPublicRecord: Record_; districts: { slug: string; name: string }[] }>(
    context,
    request,
    `query PublicExtensions($s: String!) { districts { slug name } sewerExtensionPublicRecord(districtSlug: $s) { districtName provided section procedure { text section }
      committedByLine { lineName lineKind committedGpd } commitments { lineName lineKind committedTo flowGpd resolutionNumber resolutionAdoptedOn expiresOn releasedOn releaseResolutionNumber inForce }
      charges { extensionName label amount resolutionNumber resolutionAdoptedOn } accepted { name location developer acceptedOn resolutionNumber guaranteeEndsOn } } }`,
    { s: params.slug },
  );
  if (!r.ok) throw new Response(r.error.message, { status: r.error.code === "NOT_FOUND" ? 404 : 400 });
  return { r: r.data.sewerExtensionPublicRecord, districts: r.data.districts, slug: params.slug! } satisfies Data;
}

const gpd = (n: number) => n.toLocaleString("en-US");

export default function PublicExtensions() {
  const { r, districts, slug } = useLoaderData<typeof loader>() as Data;
  return (
    <>
      <h1>New sewers and sewer extensions: {r.districtName}</h1>
      {districts.length > 1 && (
        <p>
          Other districts:{" "}
          {districts
            .filter((d) => d.slug !== slug)
            .map((d, i) => (
              <span key={d.slug}>
                {i > 0 && ", "}
                <Link className="usa-link" to={`/extensions/public/${d.slug}`}>
                  {d.name}
                </Link>
              </span>
            ))}
        </p>
      )}
      {!r.provided ? (
        <p>This district's law has no procedure for new sewers or sewer extensions built by developers ({r.section}).</p>
      ) : (
        <>
          <p>
            The Town Board conducts its business with full disclosure to the public; the procedures for applying are available to any resident, and the
            orders and resolutions used in administering the law are open to public inspection (Sewer Use Law 1301-1303).
          </p>
          <h2>How to apply</h2>
          <ol className="usa-list">
            {r.procedure.map((p) => (
              <li key={p.text}>
                {p.text} ({p.section})
              </li>
            ))}
          </ol>
          <p>
            Developers apply in the portal:{" "}
            <Link className="usa-link" to="/extensions/apply">
              apply for a sewer extension
            </Link>{" "}
            (sign in first).
          </p>
          <h2>Capacity committed by the Town Board</h2>
          {r.commitments.length === 0 ? (
            <p>The Town Board has committed no capacity by resolution.</p>
          ) : (
            <>
              <ul className="usa-list">
                {r.committedByLine.map((l) => (
                  <li key={`${l.lineKind}-${l.lineName}`}>
                    {l.lineName} ({l.lineKind === "PLANT" ? "treatment plant" : "sewer segment"}): {gpd(l.committedGpd)} gallons per day committed and in force
                  </li>
                ))}
              </ul>
              <table className="usa-table usa-table--stacked usa-table--borderless width-full">
                <caption>Resolutions committing capacity (Sewer Use Law 501)</caption>
                <thead>
                  <tr>
                    <th scope="col">Segment or plant</th>
                    <th scope="col">Committed to</th>
                    <th scope="col">Gallons per day</th>
                    <th scope="col">Resolution</th>
                    <th scope="col">In force</th>
                  </tr>
                </thead>
                <tbody>
                  {r.commitments.map((c, i) => (
                    <tr key={i}>
                      <th scope="row" data-label="Segment or plant">
                        {c.lineName}
                      </th>
                      <td data-label="Committed to">{c.committedTo}</td>
                      <td data-label="Gallons per day">{gpd(c.flowGpd)}</td>
                      <td data-label="Resolution">
                        {c.resolutionNumber} of <CalendarDate date={c.resolutionAdoptedOn} />
                        {c.releasedOn && (
                          <>
                            ; released by {c.releaseResolutionNumber} from <CalendarDate date={c.releasedOn} />
                          </>
                        )}
                        {c.expiresOn && !c.releasedOn && (
                          <>
                            ; until <CalendarDate date={c.expiresOn} />
                          </>
                        )}
                      </td>
                      <td data-label="In force">{c.inForce ? "Yes" : "No"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
          <h2>Charges set by the Town Board</h2>
          {r.charges.length === 0 ? (
            <p>None.</p>
          ) : (
            <ul className="usa-list">
              {r.charges.map((c, i) => (
                <li key={i}>
                  {c.extensionName}: {c.label}, {c.amount}, resolution {c.resolutionNumber} of <CalendarDate date={c.resolutionAdoptedOn} /> (Sewer Use Law 502 A)
                </li>
              ))}
            </ul>
          )}
          <h2>Sewers accepted by the Town</h2>
          {r.accepted.length === 0 ? (
            <p>None yet.</p>
          ) : (
            <ul className="usa-list">
              {r.accepted.map((a) => (
                <li key={`${a.name}-${a.acceptedOn}`}>
                  {a.name} ({a.location}), built by {a.developer}: accepted on <CalendarDate date={a.acceptedOn} />, resolution {a.resolutionNumber}; guaranteed
                  through <CalendarDate date={a.guaranteeEndsOn} /> (Sewer Use Law 507)
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

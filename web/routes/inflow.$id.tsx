import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { Determinations, INSPECTION_FIELDS, InspectionSummary, VisitFacts, VisitPhotos, type Inspection } from "~/components/inflow";
import { SuccessAlert } from "~/components/forms";


export const meta: MetaFunction = () => [{ title: "Inflow inspection | Tapline" }];

export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ inflowInspection: Inspection; inflowRules: { districtId: string; chargeSection: string }[] }>(
    args,
    `query InflowInspection($id: ID!) { inflowInspection(id: $id) { ${INSPECTION_FIELDS} } inflowRules { districtId chargeSection } }`,
    { id: args.params.id },
  );
  const i = d.inflowInspection;
  return { i, chargeSection: d.inflowRules.find((r) => r.districtId === i.districtId)?.chargeSection ?? "" };
}

/** The owner's or requester's inspection: where it stands, the order and its date, what was found, the certificate, the inflow determined and its bill (SUL 705). */
export default function InflowInspectionPage() {
  const { i, chargeSection } = useLoaderData<typeof loader>() as { i: Inspection; chargeSection: string };
  const [params] = useSearchParams();
  return (
    <>
      <p>
        <Link className="usa-link" to="/inflow">
          Inflow inspections
        </Link>
      </p>
      <h1>Inflow inspection {i.number}</h1>
      {params.get("done") === "requested" && <SuccessAlert>Your request is filed. The District Operator will arrange the inspection; there is no fee.</SuccessAlert>}
      <InspectionSummary i={i} />
      {i.status === "ORDERED" && (
        <p>
          Disconnect each source found connected, in a fashion the District Operator approves, by the date above. Reconnecting a source once disconnected is a wilful violation
          of the law.
        </p>
      )}
      <h2>Visits</h2>
      {i.visits.length === 0 && <p>The property has not been visited yet.</p>}
      {i.visits.map((v) => (
        <section key={v.visitNumber} aria-labelledby={`visit-${v.visitNumber}`}>
          <h3 id={`visit-${v.visitNumber}`}>
            {v.visitNumber === 1 ? "Inspection" : `Re-inspection ${v.visitNumber - 1}`} of <CalendarDate date={v.visitedOn} />: {v.outcomeLabel}
          </h3>
          <VisitFacts v={v} />
          {v.sources.length > 0 && (
            <ul className="usa-list">
              {v.sources.map((s) => (
                <li key={s.id}>
                  {s.kindLabel}
                  {s.location ? ` (${s.location})` : ""}: {s.stateLabel}
                </li>
              ))}
            </ul>
          )}
          <VisitPhotos photos={v.photos} />
        </section>
      ))}
      <Determinations list={i.determinations} section={chargeSection} billLink />
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate, daysLeftText } from "~/components/format";
import { SuccessAlert } from "~/components/forms";

// The same reading of an inspection as the staff page (web/routes/staff.inflow_.$id.tsx), which a route cannot import from another route.
type Source = { id: string; kindLabel: string; location: string | null; state: string; stateLabel: string; enforceable: boolean; enforcementActionId: string | null; enforcementNumber: string | null };
type Visit = {
  visitNumber: number;
  visitedOn: string;
  stormSewerFeet: number | null;
  naturalDrainageAdequate: boolean;
  disconnectionRequired: boolean;
  outcomeLabel: string;
  orderDeadline: string | null;
  notes: string | null;
  inspectorName: string;
  sources: Source[];
  photos: { documentId: string; filename: string }[];
};
type Inspection = {
  id: string;
  districtId: string;
  number: string;
  status: string;
  statusLabel: string;
  originLabel: string;
  taxParcel: string;
  address: string;
  ownerName: string | null;
  buyerName: string | null;
  soldOn: string | null;
  closingOn: string | null;
  orderIssuedOn: string | null;
  orderDeadline: string | null;
  dueOn: string | null;
  daysLeft: number | null;
  certificateNumber: string | null;
  certificateIssuedOn: string | null;
  certificateBasis: string | null;
  certificateDocumentId: string | null;
  canInspect: boolean;
  today: string;
  parties: { name: string; roleLabel: string; closingOn: string | null }[];
  visits: Visit[];
};
const INSPECTION_FIELDS = `id districtId number status statusLabel originLabel taxParcel address ownerName buyerName soldOn closingOn orderIssuedOn orderDeadline dueOn daysLeft
  certificateNumber certificateIssuedOn certificateBasis certificateDocumentId canInspect today parties { name roleLabel closingOn }
  visits { visitNumber visitedOn stormSewerFeet naturalDrainageAdequate disconnectionRequired outcomeLabel orderDeadline notes inspectorName
    sources { id kindLabel location state stateLabel enforceable enforcementActionId enforcementNumber } photos { documentId filename } }`;

export const meta: MetaFunction = () => [{ title: "Inflow inspection | Tapline" }];

export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ inflowInspection: Inspection }>(args, `query InflowInspection($id: ID!) { inflowInspection(id: $id) { ${INSPECTION_FIELDS} } }`, { id: args.params.id });
  return d.inflowInspection;
}

/** The owner's or requester's inspection: where it stands, the order and its date, what was found, the certificate. */
export default function InflowInspectionPage() {
  const i = useLoaderData<typeof loader>() as Inspection;
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
          {v.photos.length > 0 && (
            <p>
              Photos:{" "}
              {v.photos.map((p, n) => (
                <span key={p.documentId}>
                  {n > 0 && ", "}
                  <a className="usa-link" href={`/documents/${p.documentId}`}>
                    {p.filename}
                  </a>
                </span>
              ))}
            </p>
          )}
        </section>
      ))}
    </>
  );
}

/** Where an inspection stands, as its owner and its staff both read it. */
function InspectionSummary({ i }: { i: Pick<Inspection, "address" | "taxParcel" | "statusLabel" | "originLabel" | "soldOn" | "closingOn" | "status" | "orderDeadline" | "daysLeft" | "certificateNumber" | "certificateIssuedOn" | "certificateBasis" | "certificateDocumentId"> }) {
  return (
    <dl>
      <dt>Property</dt>
      <dd>
        {i.address} (tax parcel {i.taxParcel})
      </dd>
      <dt>Status</dt>
      <dd>{i.statusLabel}</dd>
      <dt>Opened by</dt>
      <dd>
        {i.originLabel}
        {i.soldOn && (
          <>
            {" "}
            (sold on <CalendarDate date={i.soldOn} />)
          </>
        )}
      </dd>
      {i.closingOn && i.status === "OPEN" && (
        <>
          <dt>Closing</dt>
          <dd>
            <CalendarDate date={i.closingOn} /> ({daysLeftText(i.daysLeft)})
          </dd>
        </>
      )}
      {i.status === "ORDERED" && i.orderDeadline && (
        <>
          <dt>Disconnect by</dt>
          <dd>
            <CalendarDate date={i.orderDeadline} /> ({daysLeftText(i.daysLeft)}); then the property is inspected again
          </dd>
        </>
      )}
      {i.certificateNumber && (
        <>
          <dt>Inflow compliance certificate</dt>
          <dd>
            {i.certificateNumber}, issued <CalendarDate date={i.certificateIssuedOn} />: {i.certificateBasis}{" "}
            {i.certificateDocumentId && (
              <a className="usa-link" href={`/documents/${i.certificateDocumentId}`}>
                Certificate (PDF)
              </a>
            )}{" "}
            <Link className="usa-link" to={`/inflow/verify?number=${encodeURIComponent(i.certificateNumber)}`}>
              Public check
            </Link>
          </dd>
        </>
      )}
    </dl>
  );
}

/** What a visit found of the storm sewer and the drainage. */
function VisitFacts({ v }: { v: Pick<Visit, "stormSewerFeet" | "naturalDrainageAdequate" | "disconnectionRequired" | "orderDeadline" | "inspectorName" | "notes"> }) {
  return (
    <p>
      {v.stormSewerFeet === null ? "No separate storm sewer available" : `Nearest storm sewer ${v.stormSewerFeet} feet from the property line`};{" "}
      {v.naturalDrainageAdequate ? "natural drainage sufficient" : "natural drainage not sufficient"}; disconnection {v.disconnectionRequired ? "required" : "not required"}
      {v.orderDeadline && (
        <>
          ; disconnect by <CalendarDate date={v.orderDeadline} />
        </>
      )}
      . Inspected by {v.inspectorName}.{v.notes ? ` ${v.notes}` : ""}
    </p>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import { Link } from "@remix-run/react";
import { DocumentLinks } from "./document-links";
import { CalendarDate, daysLeftText } from "./format";

/** An inflow inspection as its owner, its requesters and the staff read it (SUL 701-704; Huron III-8). */

export type Source = { id: string; kindLabel: string; location: string | null; state: string; stateLabel: string; enforceable: boolean; enforcementActionId: string | null; enforcementNumber: string | null };
export type Visit = {
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
export type Inspection = {
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

export const INSPECTION_FIELDS = `id districtId number status statusLabel originLabel taxParcel address ownerName buyerName soldOn closingOn orderIssuedOn orderDeadline dueOn daysLeft
  certificateNumber certificateIssuedOn certificateBasis certificateDocumentId canInspect today parties { name roleLabel closingOn }
  visits { visitNumber visitedOn stormSewerFeet naturalDrainageAdequate disconnectionRequired outcomeLabel orderDeadline notes inspectorName
    sources { id kindLabel location state stateLabel enforceable enforcementActionId enforcementNumber } photos { documentId filename } }`;


/** Where an inspection stands, as its owner and its staff both read it. */
export function InspectionSummary({ i }: { i: Pick<Inspection, "address" | "taxParcel" | "statusLabel" | "originLabel" | "soldOn" | "closingOn" | "status" | "orderDeadline" | "daysLeft" | "certificateNumber" | "certificateIssuedOn" | "certificateBasis" | "certificateDocumentId"> }) {
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
export function VisitFacts({ v }: { v: Pick<Visit, "stormSewerFeet" | "naturalDrainageAdequate" | "disconnectionRequired" | "orderDeadline" | "inspectorName" | "notes"> }) {
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

/** A visit's photos as download links. */
export function VisitPhotos({ photos }: { photos: Visit["photos"] }) {
  if (!photos.length) return null;
  return (
    <p>
      Photos: <DocumentLinks documents={photos.map((p) => ({ id: p.documentId, filename: p.filename, downloadUrl: `/documents/${p.documentId}` }))} />
    </p>
  );
}

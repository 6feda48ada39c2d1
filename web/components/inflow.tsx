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
  outcome: string;
  outcomeLabel: string;
  orderDeadline: string | null;
  notes: string | null;
  inspectorName: string;
  sources: Source[];
  photos: { documentId: string; filename: string }[];
};
export type Determination = {
  id: string;
  periodFrom: string;
  periodTo: string;
  gallons: number;
  methodLabel: string;
  note: string;
  controlManholeBy: string | null;
  determinedBy: string;
  billId: string | null;
  billNumber: string | null;
  withdrawnAt: string | null;
  withdrawnOn: string | null;
  withdrawnBy: string | null;
  withdrawnReason: string | null;
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
  determinations: Determination[];
};

export const INSPECTION_FIELDS = `id districtId number status statusLabel originLabel taxParcel address ownerName buyerName soldOn closingOn orderIssuedOn orderDeadline dueOn daysLeft
  certificateNumber certificateIssuedOn certificateBasis certificateDocumentId canInspect today parties { name roleLabel closingOn }
  visits { visitNumber visitedOn stormSewerFeet naturalDrainageAdequate disconnectionRequired outcome outcomeLabel orderDeadline notes inspectorName
    sources { id kindLabel location state stateLabel enforceable enforcementActionId enforcementNumber } photos { documentId filename } }
  determinations { id periodFrom periodTo gallons methodLabel note controlManholeBy determinedBy billId billNumber withdrawnAt withdrawnOn withdrawnBy withdrawnReason }`;


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

/**
 * The District Operator's determinations of the amount of inflow (SUL 705), as the owner and the
 * staff both read them: the days, the gallons, how determined, a control manhole required, and the
 * sewer bill that carries each once it is issued (`billLink`: the owner's bill page), or who withdrew
 * it, when and why (never billed then); `action`: the staff's form under a determination.
 */
export function Determinations({ list, section, billLink, action }: { list: Determination[]; section: string; billLink?: boolean; action?: (d: Determination) => React.ReactNode }) {
  if (!list.length) return null;
  return (
    <section aria-labelledby="determinations-heading">
      <h2 id="determinations-heading">Inflow determined ({section})</h2>
      <p>The property is billed for the inflow on its sewer bill according to Article 12, with any surcharge the Town Board has set; each determination is billed once.</p>
      <table className="usa-table usa-table--stacked usa-table--borderless width-full">
        <caption className="usa-sr-only">Inflow determined by the District Operator</caption>
        <thead>
          <tr>
            <th scope="col">Days</th>
            <th scope="col">Gallons</th>
            <th scope="col">How determined</th>
            <th scope="col">Sewer bill</th>
          </tr>
        </thead>
        <tbody>
          {list.map((d) => (
            <tr key={d.id}>
              <th scope="row">
                <CalendarDate date={d.periodFrom} /> to <CalendarDate date={d.periodTo} />
              </th>
              <td>{d.gallons.toLocaleString("en-US")}</td>
              <td>
                {d.methodLabel}: {d.note} ({d.determinedBy})
                {d.controlManholeBy && (
                  <>
                    . A control manhole is required by <CalendarDate date={d.controlManholeBy} />
                  </>
                )}
              </td>
              <td>
                {d.withdrawnAt ? (
                  <>
                    Withdrawn <CalendarDate date={d.withdrawnOn} /> by {d.withdrawnBy}: {d.withdrawnReason}. Not billed.
                  </>
                ) : d.billNumber ? (
                  billLink && d.billId ? (
                    <Link className="usa-link" to={`/properties/bills/${d.billId}`}>
                      {d.billNumber}
                    </Link>
                  ) : (
                    d.billNumber
                  )
                ) : (
                  "Not billed yet"
                )}
                {action?.(d)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { daysLeft, dateIn, isCalendarDate } from "../common/dates.js";
import { badInput, conflict } from "../common/errors.js";
import { formatDate } from "../common/format.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { rulebookById, rulebookOn } from "../districts/districts.service.js";
import { districtCode } from "../districts/district-code.js";
import { storeDocumentsWith, type StoreDocumentInput } from "../documents/documents.service.js";
import type { Config } from "../config.js";
import {
  INSPECTION_COLUMNS,
  INSPECTION_FROM,
  INSPECTION_STATUSES,
  PARTY_ROLES,
  PARTY_ROLE_LABELS,
  actorOf,
  clean,
  emailOperators,
  emailPeople,
  getInspection,
  lawInspectingAtSale,
  loadDistrict,
  nextInspectionNumbers,
  propertyByParcel,
  requireOperator,
  requireStaffOf,
  requireStatus,
  type Db,
  type InspectionRow,
  type InspectionStatus,
  type Meta,
  type PartyRole,
} from "./common.js";
import { certificatePdf } from "./certificate-pdf.js";
import {
  SOURCE_KINDS,
  SOURCE_KIND_LABELS,
  SOURCE_STATES,
  articleSection,
  feet,
  issuesCertificate,
  judgeVisit,
  orderDeadlineProblem,
  type SourceKind,
  type SourceState,
  type VisitOutcome,
} from "./rules.js";

/** Inspections: requested ahead of closing, opened by the inspector, and each visit's findings with the order or the certificate (SUL 702-703; Huron III-8). */

// ---------------------------------------------------------------------------------------------
// Requests ahead of closing (SUL 702-703)

/**
 * A seller, buyer or attorney (any signed-in person) asks for the inspection ahead of closing. The
 * law sets no fee for it and gives the Board none to set, so there is no payment step
 * (docs/decisions/inflow-request-no-fee.md). An inspection already under way on the property is
 * joined: the requester follows it.
 */
export async function requestInspection(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; taxParcel: string; role: string; closingOn?: string | null },
  meta: Meta,
): Promise<InspectionRow> {
  const district = await loadDistrict(ds, input.districtId);
  const rb = await lawInspectingAtSale(ds, district);
  const fields: Record<string, string> = {};
  const parcel = clean(input.taxParcel);
  const property = parcel ? await propertyByParcel(ds, district.id, parcel) : null;
  if (!parcel) fields.taxParcel = "Give the property's tax parcel (section-block-lot), as on the tax bill.";
  else if (!property) fields.taxParcel = `No property of tax parcel "${parcel}" is in ${district.name}'s register. Check the number on the tax bill.`;
  if (!PARTY_ROLES.includes(input.role as PartyRole)) fields.role = "Say whether you are the seller, the buyer or an attorney.";
  const today = dateIn(district.timeZone);
  const closingOn = clean(input.closingOn);
  if (closingOn && !isCalendarDate(closingOn)) fields.closingOn = "Enter the closing date like 2027-03-15.";
  else if (closingOn && closingOn < today) fields.closingOn = "The closing date has passed: the Tax Assessor's notice of the sale opens the inspection.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    // Requests, sales and the Operator's openings of one property take turns, so two cannot both open an inspection.
    await tx.query(`SELECT id FROM sewer_property WHERE id = $1 FOR NO KEY UPDATE`, [property!.id]);
    const [open] = await tx.query(`SELECT id FROM inflow_inspection WHERE property_id = $1 AND status IN ('OPEN', 'ORDERED') FOR UPDATE`, [property!.id]);
    let id: string = open?.id;
    if (!id) {
      const [number] = await nextInspectionNumbers(tx, district, today.slice(0, 4), 1);
      [{ id }] = await tx.query(
        `INSERT INTO inflow_inspection (district_id, property_id, number, origin, closing_on, status, rulebook_version_id, opened_by_id)
         VALUES ($1, $2, $3, 'REQUEST', $4, 'OPEN', $5, $6) RETURNING id`,
        [district.id, property!.id, number, closingOn, rb.version.id, viewer.userId],
      );
    } else if (closingOn) await tx.query(`UPDATE inflow_inspection SET closing_on = least(coalesce(closing_on, $2::date), $2::date) WHERE id = $1`, [id, closingOn]);
    await tx.query(
      `INSERT INTO inflow_party (inspection_id, user_id, role, closing_on) VALUES ($1, $2, $3, $4) ON CONFLICT (inspection_id, user_id) DO UPDATE SET role = EXCLUDED.role, closing_on = EXCLUDED.closing_on`,
      [id, viewer.userId, input.role, closingOn],
    );
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: open ? "inflow.inspection_joined" : "inflow.inspection_requested",
      entityType: "InflowInspection",
      entityId: id,
      districtId: district.id,
      details: { taxParcel: property!.taxParcel, role: input.role, closingOn },
    });
    await emailOperators(
      tx,
      district,
      "inflow.inspection_requested",
      `Inflow inspection requested: ${property!.address}`,
      `The ${PARTY_ROLE_LABELS[input.role as PartyRole].toLowerCase()} asked for the inflow inspection of ${property!.address} (tax parcel ${property!.taxParcel})` +
        (closingOn ? ` ahead of the closing on ${formatDate(closingOn)}` : "") +
        ` (${articleSection(rb, 703)}).${open ? " It joins the inspection already under way." : ""}`,
    );
    return getInspection(tx, viewer, id);
  });
}

/**
 * The District Operator opens an inspection of a property without a sale (SUL 705: "whatever
 * action is necessary to determine the amount of inflow"; Huron: the Superintendent looking for a
 * connection III-8 forbids, whose finding is served under Article V).
 */
export async function openInspection(ds: DataSource, viewer: Viewer, input: { districtId: string; taxParcel: string }, meta: Meta): Promise<InspectionRow> {
  const district = await loadDistrict(ds, input.districtId);
  requireOperator(viewer, district);
  const rb = await rulebookOn(ds, district);
  const parcel = clean(input.taxParcel);
  const property = parcel ? await propertyByParcel(ds, district.id, parcel) : null;
  if (!property) throw badInput({ taxParcel: parcel ? `No property of tax parcel "${parcel}" is in ${district.name}'s register.` : "Give the property's tax parcel." });
  return ds.transaction(async (tx) => {
    await tx.query(`SELECT id FROM sewer_property WHERE id = $1 FOR NO KEY UPDATE`, [property.id]);
    const [open] = await tx.query(`SELECT number FROM inflow_inspection WHERE property_id = $1 AND status IN ('OPEN', 'ORDERED')`, [property.id]);
    if (open) throw conflict(`Inspection ${open.number} of this property is already under way.`, { taxParcel: `Inspection ${open.number} of this property is already under way.` });
    const [number] = await nextInspectionNumbers(tx, district, dateIn(district.timeZone).slice(0, 4), 1);
    const [{ id }] = await tx.query(
      `INSERT INTO inflow_inspection (district_id, property_id, number, origin, status, rulebook_version_id, opened_by_id) VALUES ($1, $2, $3, 'OPERATOR', 'OPEN', $4, $5) RETURNING id`,
      [district.id, property.id, number, rb.version.id, viewer.userId],
    );
    await audit(tx, actorOf(viewer, meta.requestId), { action: "inflow.inspection_opened", entityType: "InflowInspection", entityId: id, districtId: district.id, details: { taxParcel: property.taxParcel, number } });
    return getInspection(tx, viewer, id);
  });
}

// ---------------------------------------------------------------------------------------------
// A visit's findings (SUL 701-704; Huron III-8)

export type SourceInput = { kind: string; location?: string | null; state: string };
export type RecordVisitInput = {
  inspectionId: string;
  visitedOn: string;
  stormSewerFeet?: number | null;
  naturalDrainageAdequate: boolean;
  sources: SourceInput[];
  orderDeadline?: string | null;
  notes?: string | null;
  photos?: StoreDocumentInput[] | null;
};

const MAX_SOURCES = 30;
const MAX_PHOTOS = 20;

/**
 * The inspector records a visit: each source found (kind, where, connected or not), the nearest
 * storm sewer and the drainage judged (702), photos. Judged at once: a pass closes the inspection
 * (with an inflow compliance certificate where the law inspects at sale); connected sources where
 * 702 requires disconnection give a disconnection order with the date the Operator sets, and the
 * next visit is the re-inspection; in Huron a connection found is a violation of III-8.
 */
export async function recordVisit(ds: DataSource, config: Config, viewer: Viewer, input: RecordVisitInput, meta: Meta): Promise<InspectionRow> {
  const before = await getInspection(ds, viewer, input.inspectionId);
  const district = await loadDistrict(ds, before.districtId);
  requireOperator(viewer, district);
  requireStatus(before, ["OPEN", "ORDERED"], "Findings are recorded on an inspection under way");
  const rb = await rulebookOn(ds, district);
  const today = dateIn(district.timeZone);
  const fields: Record<string, string> = {};
  const visitedOn = clean(input.visitedOn) ?? "";
  const openedOn = dateIn(district.timeZone, new Date(before.openedAt));
  if (!isCalendarDate(visitedOn)) fields.visitedOn = "Enter the day of the inspection like 2026-12-01.";
  else if (visitedOn > today) fields.visitedOn = `The day of the inspection cannot be after today (${formatDate(today)}).`;
  else if (visitedOn < openedOn) fields.visitedOn = `The inspection was opened on ${formatDate(openedOn)}; the visit cannot be earlier.`;
  const storm = input.stormSewerFeet ?? null;
  if (storm !== null && (!Number.isFinite(storm) || storm < 0 || storm > 100_000)) fields.stormSewerFeet = "Enter the distance in feet from the property line to the nearest storm sewer, or leave it empty when there is none.";
  const sources = input.sources ?? [];
  if (sources.length > MAX_SOURCES) fields.sources = `Record at most ${MAX_SOURCES} sources on one visit.`;
  sources.forEach((s, n) => {
    if (!SOURCE_KINDS.includes(s.kind as SourceKind)) fields[`sources.${n}.kind`] = "Choose the kind of source.";
    if (!SOURCE_STATES.includes(s.state as SourceState)) fields[`sources.${n}.state`] = "Say whether it is connected to the sanitary sewer, disconnected, or reconnected after its disconnection.";
    if ((clean(s.location) ?? "").length > 200) fields[`sources.${n}.location`] = "Keep where it is to 200 characters.";
  });
  const notes = clean(input.notes);
  if (notes && notes.length > 4000) fields.notes = "Keep the notes to 4,000 characters.";
  const photos = input.photos ?? [];
  if (photos.length > MAX_PHOTOS) fields.photos = `Attach at most ${MAX_PHOTOS} photos.`;
  // 704: a source is "reconnected" only where an earlier visit recorded its kind disconnected on this property.
  const earlier: { id: string; kind: string }[] = await ds.query(
    `SELECT DISTINCT ON (kind) id, kind FROM inflow_source WHERE property_id = $1 AND state = 'DISCONNECTED' ORDER BY kind, id`,
    [before.propertyId],
  );
  const disconnectedBefore = new Map(earlier.map((e) => [e.kind, e.id]));
  sources.forEach((s, n) => {
    if (s.state === "RECONNECTED" && SOURCE_KINDS.includes(s.kind as SourceKind) && !disconnectedBefore.has(s.kind))
      fields[`sources.${n}.state`] = `No earlier inspection recorded a ${SOURCE_KIND_LABELS[s.kind as SourceKind].toLowerCase()} of this property disconnected: record it as connected.`;
  });
  if (Object.keys(fields).length) throw badInput(fields);

  const judgement = judgeVisit(rb, { sources: sources.map((s) => ({ kind: s.kind as SourceKind, state: s.state as SourceState })), stormSewerFeet: storm, naturalDrainageAdequate: input.naturalDrainageAdequate === true });
  const deadline = judgement.outcome === "ORDERED" ? clean(input.orderDeadline) : null;
  if (judgement.outcome === "ORDERED") {
    const problem = orderDeadlineProblem(visitedOn, deadline);
    if (problem) throw badInput({ orderDeadline: problem }, `${judgement.basis} ${problem}`);
  }
  // A pass where the law inspects at sale issues the certificate: its number and PDF are made before the transaction, stored with the photos.
  const certify = issuesCertificate(rb, judgement.outcome);
  let certificateNumber: string | null = null;
  const uploads: StoreDocumentInput[] = photos.map((p) => ({ filename: p.filename, contentBase64: p.contentBase64 }));
  if (certify) {
    const [{ n }] = await ds.query(`SELECT nextval('inflow_certificate_number_seq')::int AS n`);
    certificateNumber = `${districtCode(district.slug)}-IC-${today.slice(0, 4)}-${String(n).padStart(5, "0")}`;
    const [me] = await ds.query(`SELECT display_name FROM app_user WHERE id = $1`, [viewer.userId]);
    const pdf = await certificatePdf({
      number: certificateNumber,
      districtName: district.name,
      districtAddress: district.address,
      address: before.address,
      taxParcel: before.taxParcel,
      issuedOn: today,
      inspectedOn: visitedOn,
      inspectionNumber: before.number,
      basis: judgement.basis,
      section: articleSection(rb, 703),
      verifyUrl: `${meta.publicUrl}/inflow/verify`,
      inspectorTitle: district.operatorTitle,
      inspectorName: me?.display_name ?? "",
    });
    uploads.push({ filename: `inflow-certificate-${certificateNumber}.pdf`, contentBase64: pdf.toString("base64") });
  }

  return storeDocumentsWith(
    ds,
    config,
    viewer,
    uploads,
    meta.requestId,
    async (tx, docs) => {
      const i = await getInspection(tx, viewer, before.id, true);
      requireStatus(i, ["OPEN", "ORDERED"], "Findings are recorded on an inspection under way");
      const [{ n: visitNumber }] = await tx.query(`SELECT count(*)::int + 1 AS n FROM inflow_visit WHERE inspection_id = $1`, [i.id]);
      const outcome: VisitOutcome = judgement.outcome;
      const [{ id: visitId }] = await tx.query(
        `INSERT INTO inflow_visit (inspection_id, district_id, property_id, visit_number, visited_on, storm_sewer_feet, natural_drainage_adequate, disconnection_required, outcome, order_deadline, notes, inspector_id, rulebook_version_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
        [i.id, i.districtId, i.propertyId, visitNumber, visitedOn, storm, input.naturalDrainageAdequate === true, judgement.disconnection.required, outcome, deadline, notes, viewer.userId, rb.version.id],
      );
      if (sources.length)
        await tx.query(
          `INSERT INTO inflow_source (visit_id, inspection_id, property_id, district_id, position, kind, location, state, reconnects_source_id)
           SELECT $1, $2, $3, $4, s.ord, s.kind, nullif(s.location, ''), s.state, s.reconnects FROM unnest($5::text[], $6::text[], $7::text[], $8::uuid[]) WITH ORDINALITY AS s(kind, location, state, reconnects, ord)`,
          [
            visitId,
            i.id,
            i.propertyId,
            i.districtId,
            sources.map((s) => s.kind),
            sources.map((s) => clean(s.location) ?? ""),
            sources.map((s) => s.state),
            sources.map((s) => (s.state === "RECONNECTED" ? disconnectedBefore.get(s.kind)! : null)),
          ],
        );
      const photoDocs = certify ? docs.slice(0, -1) : docs;
      if (photoDocs.length)
        await tx.query(`INSERT INTO inflow_visit_photo (visit_id, document_id, position) SELECT $1, d.id, d.ord FROM unnest($2::uuid[]) WITH ORDINALITY AS d(id, ord)`, [
          visitId,
          photoDocs.map((d) => d.id),
        ]);
      const status: InspectionStatus = outcome;
      await tx.query(
        `UPDATE inflow_inspection SET status = $2, order_issued_on = CASE WHEN $2 = 'ORDERED' THEN $3::date ELSE order_issued_on END, order_deadline = CASE WHEN $2 = 'ORDERED' THEN $4::date ELSE order_deadline END,
            certificate_number = $5, certificate_issued_on = CASE WHEN $5::text IS NULL THEN NULL ELSE $6::date END, certificate_basis = CASE WHEN $5::text IS NULL THEN NULL ELSE $7 END,
            certificate_document_id = $8, closed_at = CASE WHEN $2 IN ('PASSED', 'VIOLATION') THEN now() ELSE NULL END
          WHERE id = $1`,
        [i.id, status, today, deadline, certificateNumber, today, judgement.basis, certify ? docs[docs.length - 1].id : null],
      );
      await audit(tx, actorOf(viewer, meta.requestId), {
        action: `inflow.visit_${outcome.toLowerCase()}`,
        entityType: "InflowInspection",
        entityId: i.id,
        districtId: i.districtId,
        reason: judgement.basis,
        details: {
          visitId,
          visitNumber,
          visitedOn,
          stormSewerFeet: storm,
          naturalDrainageAdequate: input.naturalDrainageAdequate === true,
          disconnectionRequired: judgement.disconnection.required,
          sources: sources.map((s) => ({ kind: s.kind, state: s.state })),
          photos: photoDocs.length,
          orderDeadline: deadline,
          certificateNumber,
        },
      });
      const connected = sources.filter((s) => s.state !== "DISCONNECTED").map((s) => SOURCE_KIND_LABELS[s.kind as SourceKind].toLowerCase() + (clean(s.location) ? ` (${clean(s.location)})` : ""));
      const where = `${i.address} (tax parcel ${i.taxParcel})`;
      if (outcome === "ORDERED")
        await emailPeople(
          tx,
          i.id,
          district,
          "inflow.disconnection_ordered",
          `Disconnection order: ${i.address}, by ${formatDate(deadline!)}`,
          `The ${district.operatorTitle} inspected ${where} on ${formatDate(visitedOn)} and found connected to the sanitary sewer: ${connected.join("; ")}. ${judgement.basis}\n\n` +
            `Disconnect ${connected.length === 1 ? "it" : "them"} in a fashion the ${district.operatorTitle} approves by ${formatDate(deadline!)}; the ${district.operatorTitle} will then inspect again (inspection ${i.number}).`,
        );
      else if (outcome === "PASSED")
        await emailPeople(
          tx,
          i.id,
          district,
          "inflow.passed",
          certificateNumber ? `Inflow compliance certificate ${certificateNumber}: ${i.address}` : `Inflow inspection passed: ${i.address}`,
          `The ${district.operatorTitle} inspected ${where} on ${formatDate(visitedOn)}: ${judgement.basis}` +
            (certificateNumber ? `\n\nInflow compliance certificate ${certificateNumber} is issued. Anyone can check it at ${meta.publicUrl}/inflow/verify?number=${encodeURIComponent(certificateNumber)}.` : ""),
        );
      else
        await emailPeople(
          tx,
          i.id,
          district,
          "inflow.violation_found",
          `Prohibited connection found: ${i.address}`,
          `The ${district.operatorTitle} inspected ${where} on ${formatDate(visitedOn)} and found connected to the sanitary sewer: ${connected.join("; ")}. ${judgement.basis} A written notice of the violation follows.`,
        );
      return getInspection(tx, viewer, i.id);
    },
    "photos",
  );
}

// ---------------------------------------------------------------------------------------------
// Visits, sources and photos of inspections (one query each, whatever the number of inspections)

export type SourceRow = {
  id: string;
  visitId: string;
  inspectionId: string;
  kind: SourceKind;
  location: string | null;
  state: SourceState;
  reconnectsSourceId: string | null;
  enforcementActionId: string | null;
  enforcementNumber: string | null;
};
export type VisitRow = {
  id: string;
  inspectionId: string;
  visitNumber: number;
  visitedOn: string;
  stormSewerFeet: number | null;
  naturalDrainageAdequate: boolean;
  disconnectionRequired: boolean;
  outcome: VisitOutcome;
  orderDeadline: string | null;
  notes: string | null;
  inspectorName: string;
  recordedAt: Date;
};
export type PhotoRow = { visitId: string; inspectionId: string; documentId: string; filename: string };

export async function visitsOf(db: Db, ids: readonly string[]): Promise<VisitRow[]> {
  if (!ids.length) return [];
  return db.query(
    `SELECT v.id, v.inspection_id AS "inspectionId", v.visit_number AS "visitNumber", to_char(v.visited_on, 'YYYY-MM-DD') AS "visitedOn", v.storm_sewer_feet::float8 AS "stormSewerFeet",
            v.natural_drainage_adequate AS "naturalDrainageAdequate", v.disconnection_required AS "disconnectionRequired", v.outcome,
            to_char(v.order_deadline, 'YYYY-MM-DD') AS "orderDeadline", v.notes, u.display_name AS "inspectorName", v.recorded_at AS "recordedAt"
       FROM inflow_visit v JOIN app_user u ON u.id = v.inspector_id WHERE v.inspection_id = ANY($1::uuid[]) ORDER BY v.inspection_id, v.visit_number`,
    [ids],
  );
}

/** Sources with the enforcement action opened from each (its subject), for the district's staff. */
export async function sourcesOf(db: Db, ids: readonly string[]): Promise<SourceRow[]> {
  if (!ids.length) return [];
  return db.query(
    `SELECT s.id, s.visit_id AS "visitId", s.inspection_id AS "inspectionId", s.kind, s.location, s.state, s.reconnects_source_id AS "reconnectsSourceId",
            a.id AS "enforcementActionId", a.number AS "enforcementNumber"
       FROM inflow_source s LEFT JOIN enforcement_action a ON a.subject_type = 'InflowSource' AND a.subject_id = s.id
      WHERE s.inspection_id = ANY($1::uuid[]) ORDER BY s.visit_id, s.position`,
    [ids],
  );
}

export async function photosOf(db: Db, ids: readonly string[]): Promise<PhotoRow[]> {
  if (!ids.length) return [];
  return db.query(
    `SELECT ph.visit_id AS "visitId", v.inspection_id AS "inspectionId", ph.document_id AS "documentId", d.filename
       FROM inflow_visit_photo ph JOIN inflow_visit v ON v.id = ph.visit_id JOIN document d ON d.id = ph.document_id
      WHERE v.inspection_id = ANY($1::uuid[]) ORDER BY ph.visit_id, ph.position`,
    [ids],
  );
}

export type PartyRow = { inspectionId: string; userId: string; name: string; role: PartyRole; closingOn: string | null };
export async function partiesOf(db: Db, ids: readonly string[]): Promise<PartyRow[]> {
  if (!ids.length) return [];
  return db.query(
    `SELECT p.inspection_id AS "inspectionId", p.user_id AS "userId", u.display_name AS name, p.role, to_char(p.closing_on, 'YYYY-MM-DD') AS "closingOn"
       FROM inflow_party p JOIN app_user u ON u.id = p.user_id WHERE p.inspection_id = ANY($1::uuid[]) ORDER BY p.inspection_id, p.requested_at`,
    [ids],
  );
}

// ---------------------------------------------------------------------------------------------
// Lists

/** The day an inspection is due by: the disconnection order's date, else the closing date asked for; null when neither. */
export const dueOn = (i: Pick<InspectionRow, "status" | "orderDeadline" | "closingOn">): string | null =>
  i.status === "ORDERED" ? i.orderDeadline : i.status === "OPEN" ? i.closingOn : null;
export const daysLeftOf = (i: InspectionRow): number | null => {
  const due = dueOn(i);
  return due ? daysLeft(due, i.timeZone) : null;
};

/** The district's inspections for its staff, newest first, keyset-paginated (index inflow_inspection_queue / _status). */
export async function districtInspections(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; status?: string | null; first?: number | null; after?: string | null },
): Promise<{ items: InspectionRow[]; nextCursor: string | null }> {
  requireStaffOf(viewer, input.districtId);
  const first = pageSize(input.first, 25, 100);
  const status = clean(input.status);
  if (status && !INSPECTION_STATUSES.includes(status as InspectionStatus)) throw badInput({ status: "Choose to inspect, ordered, passed or prohibited connection found." });
  const cursor = decodeCursor(input.after, isInstant);
  const rows: (InspectionRow & { cursorAt: string })[] = await ds.query(
    `SELECT ${INSPECTION_COLUMNS}, to_char(i.opened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
       FROM ${INSPECTION_FROM}
      WHERE i.district_id = $1 AND ($2::text IS NULL OR i.status = $2)
        AND ($3::timestamptz IS NULL OR (i.opened_at, i.id) < ($3::timestamptz, $4::uuid))
      ORDER BY i.opened_at DESC, i.id DESC LIMIT $5`,
    [input.districtId, status, cursor?.key ?? null, cursor?.id ?? null, first + 1],
  );
  const items = rows.slice(0, first);
  const last = rows.length > first ? items[items.length - 1] : null;
  return { items: items.map(({ cursorAt: _c, ...r }) => r as InspectionRow), nextCursor: last ? encodeCursor(last.cursorAt, last.id) : null };
}

/** The inspections of properties I own of record, or that I asked for or follow, newest first (one query). */
export async function myInspections(ds: DataSource, viewer: Viewer): Promise<InspectionRow[]> {
  return ds.query(
    `SELECT ${INSPECTION_COLUMNS} FROM ${INSPECTION_FROM}
      WHERE i.id IN (SELECT inspection_id FROM inflow_party WHERE user_id = $1)
         OR i.property_id IN (SELECT id FROM sewer_property WHERE owner_user_id = $1)
      ORDER BY i.opened_at DESC, i.id DESC LIMIT 200`,
    [viewer.userId],
  );
}

// ---------------------------------------------------------------------------------------------
// The public check of a certificate

export type PublicCertificate = {
  number: string;
  districtName: string;
  address: string;
  taxParcel: string;
  issuedOn: string;
  inspectedOn: string;
  result: string;
  section: string;
  /** The day a later inspection of the property found an inflow source connected, if one did. */
  laterFindingOn: string | null;
};

/** Anyone checks a certificate by its number: the property, the day, the result; nothing private. Null when no certificate has the number. */
export async function publicCertificate(ds: DataSource, number: string): Promise<PublicCertificate | null> {
  const n = clean(number)?.toUpperCase();
  if (!n || n.length > 40) return null;
  const [r] = await ds.query(
    `SELECT i.certificate_number AS number, d.name AS "districtName", trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '')) AS address, p.tax_parcel AS "taxParcel",
            to_char(i.certificate_issued_on, 'YYYY-MM-DD') AS "issuedOn", i.certificate_basis AS result, i.rulebook_version_id AS "rulebookVersionId",
            (SELECT to_char(v.visited_on, 'YYYY-MM-DD') FROM inflow_visit v WHERE v.property_id = i.property_id AND v.recorded_at > i.closed_at AND v.outcome <> 'PASSED' ORDER BY v.visited_on LIMIT 1) AS "laterFindingOn",
            (SELECT to_char(v.visited_on, 'YYYY-MM-DD') FROM inflow_visit v WHERE v.inspection_id = i.id ORDER BY v.visit_number DESC LIMIT 1) AS "inspectedOn"
       FROM inflow_inspection i JOIN sewer_property p ON p.id = i.property_id JOIN district d ON d.id = i.district_id
      WHERE i.certificate_number = $1`,
    [n],
  );
  if (!r) return null;
  const rb = await rulebookById(ds, r.rulebookVersionId);
  return { number: r.number, districtName: r.districtName, address: r.address, taxParcel: r.taxParcel, issuedOn: r.issuedOn, inspectedOn: r.inspectedOn, result: r.result, section: articleSection(rb, 703), laterFindingOn: r.laterFindingOn };
}

export { feet };

// ---------------------------------------------------------------------------------------------
// For the sewer bill (SUL 705)

export type DischargingRow = { propertyId: string; taxParcel: string; address: string; foundOn: string };

/**
 * The properties "from which the inflow originated" in a billing period (SUL 705): a visit on or
 * before the period's last day found a source connected that had to be disconnected (ORDERED, or
 * VIOLATION in Huron), and no passing visit followed it by the period's first day. One statement
 * (index inflow_visit_property); the bill's surcharge is `inflowSurchargeCents` of rules.ts.
 */
export async function propertiesDischargingInflow(db: Db, viewer: Viewer, input: { districtId: string; from: string; to: string }): Promise<DischargingRow[]> {
  requireStaffOf(viewer, input.districtId);
  if (!isCalendarDate(input.from ?? "") || !isCalendarDate(input.to ?? "") || input.from > input.to) throw badInput({ from: "Give the period's first and last days, like 2026-10-01 and 2026-12-31." });
  return db.query(
    `SELECT p.id AS "propertyId", p.tax_parcel AS "taxParcel", trim(coalesce(p.street_number || ' ', '') || p.street) AS address, to_char(min(v.visited_on), 'YYYY-MM-DD') AS "foundOn"
       FROM inflow_visit v JOIN sewer_property p ON p.id = v.property_id
      WHERE v.district_id = $1 AND v.outcome IN ('ORDERED', 'VIOLATION') AND v.visited_on <= $3::date
        AND NOT EXISTS (SELECT 1 FROM inflow_visit w WHERE w.property_id = v.property_id AND w.outcome = 'PASSED' AND w.visited_on >= v.visited_on AND w.recorded_at > v.recorded_at AND w.visited_on < $2::date)
      GROUP BY p.id, p.tax_parcel, p.street_number, p.street ORDER BY p.tax_parcel`,
    [input.districtId, input.from, input.to],
  );
}

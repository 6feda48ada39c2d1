import { Link } from "@remix-run/react";
import { formatCalendarDate, formatDateTime } from "~/components/format";
import { money } from "~/components/money";

/** Septage hauler pages: shared fields, types and pieces (SUL Article 8, 1208; Huron IV-8). */

export const DAY_OPTIONS = [
  { value: 1, label: "Monday" },
  { value: 2, label: "Tuesday" },
  { value: 3, label: "Wednesday" },
  { value: 4, label: "Thursday" },
  { value: 5, label: "Friday" },
  { value: 6, label: "Saturday" },
  { value: 0, label: "Sunday" },
];

export const SOURCE_KINDS = [
  { value: "RESIDENTIAL_SEPTIC_TANK", label: "Residential septic tank" },
  { value: "HOLDING_TANK", label: "Holding tank" },
  { value: "PORTABLE_TOILETS", label: "Portable toilets" },
  { value: "GREASE_TRAP", label: "Grease trap" },
  { value: "OTHER", label: "Other (describe it)" },
];

export type Standing = { state: string; label: string; inForce: boolean; reasons: string[]; daysLeft: number | null };
export type LoadBooking = { ready: boolean; reason: string | null; section: string | null };
export type Vehicle = { id: string; make: string; model: string; tankCapacityGallons: number; plate: string; plateState: string; colour: string; registeredOwner: string };
export type LicenseView = {
  id: string;
  organizationId: string;
  organizationName: string;
  districtId: string;
  districtName: string;
  timeZone: string;
  status: string;
  statusLabel: string;
  licenseNumber: string | null;
  previousLicenseId: string | null;
  part364PermitNumber: string | null;
  part364ExpiresOn: string | null;
  part364DocumentId: string | null;
  annualVolumeGallons: number | null;
  serviceArea: string | null;
  otherInformation: string | null;
  certifiedAt: string | null;
  applicationFeeCents: number | null;
  paidAt: string | null;
  submittedAt: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  validFrom: string | null;
  validUntil: string | null;
  dumpingLocation: string | null;
  dumpingDays: number[] | null;
  dumpingFromText: string | null;
  dumpingToText: string | null;
  schedule: string | null;
  actionReason: string | null;
  renewalOpensOn: string | null;
  renewalOpen: boolean;
  viewerIsOwner: boolean;
  viewerIsMember: boolean;
  standing: Standing;
  /** whether the district takes bookings today: no dumping fee set by the Board where it is paid first, not yet */
  loadBooking: LoadBooking;
  /** the Part 364 permit on file expires before the licence ends (SUL 802) */
  part364Warning: string | null;
  nextStep: { text: string | null; dueDate: string | null; action: string };
  vehicles: Vehicle[];
  payment: { id: string; status: string; amountCents: number; receiptNumber: string | null } | null;
  renewal: { id: string; status: string; statusLabel: string; licenseNumber: string | null; validFrom: string | null; validUntil: string | null } | null;
  previous: { id: string; status: string; licenseNumber: string | null; validFrom: string | null; validUntil: string | null } | null;
};

export const LICENSE_FIELDS = `id organizationId organizationName districtId districtName timeZone status statusLabel licenseNumber previousLicenseId
  part364PermitNumber part364ExpiresOn part364DocumentId annualVolumeGallons serviceArea otherInformation certifiedAt applicationFeeCents paidAt
  submittedAt decidedAt decisionReason validFrom validUntil dumpingLocation dumpingDays dumpingFromText dumpingToText schedule actionReason
  renewalOpensOn renewalOpen viewerIsOwner viewerIsMember
  standing { state label inForce reasons daysLeft }
  loadBooking { ready reason section } part364Warning nextStep { text dueDate action }
  vehicles { id make model tankCapacityGallons plate plateState colour registeredOwner }
  payment { id status amountCents receiptNumber }
  renewal { id status statusLabel licenseNumber validFrom validUntil }
  previous { id status licenseNumber validFrom validUntil }`;

export type LoadView = {
  id: string;
  districtId: string;
  organizationId: string;
  organizationName: string;
  timeZone: string;
  licenseId: string | null;
  permissionId: string | null;
  licenseNumber: string | null;
  status: string;
  sourceAddress: string;
  sourceKind: string;
  sourceKindLabel: string;
  sourceDescription: string | null;
  estimatedGallons: number;
  plannedArrival: string;
  ratePer1000Cents: number | null;
  minimumCents: number | null;
  feeCents: number;
  paidAt: string | null;
  sampleRequired: boolean;
  sampleCostCents: number | null;
  sampleNotes: string | null;
  decidedAt: string | null;
  refusalReason: string | null;
  refundDue: boolean;
  measuredGallons: number | null;
  receivedAt: string | null;
  adjustmentCents: number;
  vehicle: { plate: string; make: string; model: string; tankCapacityGallons: number } | null;
  payment: { id: string; status: string; amountCents: number; receiptNumber: string | null; refundedCents: number } | null;
};

export const LOAD_FIELDS = `id districtId organizationId organizationName timeZone licenseId permissionId licenseNumber status sourceAddress sourceKind sourceKindLabel
  sourceDescription estimatedGallons plannedArrival ratePer1000Cents minimumCents feeCents paidAt sampleRequired sampleCostCents sampleNotes decidedAt
  refusalReason refundDue measuredGallons receivedAt adjustmentCents
  vehicle { plate make model tankCapacityGallons } payment { id status amountCents receiptNumber refundedCents }`;

/** A special permission's status in plain words (Huron IV-8). */
export const PERMISSION_STATUS_LABELS: Record<string, string> = {
  REQUESTED: "Waiting for the Superintendent",
  GRANTED: "Granted",
  DENIED: "Denied",
  REVOKED: "Revoked",
};

export const LOAD_STATUS_LABELS: Record<string, string> = {
  BOOKED: "Booked",
  APPROVED: "Approved",
  REFUSED: "Refused",
  RECEIVED: "Received",
  CANCELLED: "Cancelled",
};

export const gallons = (n: number | null | undefined) => (n === null || n === undefined ? "" : `${n.toLocaleString("en-US")} gal`);
export const paid = (status: string | null | undefined) => !!status && ["PAID", "PARTIALLY_REFUNDED", "REFUNDED"].includes(status);

/** An instant as the district's clock reads it: "Mon, Dec 7, 9:00 AM". */
export function atDistrict(iso: string, timeZone: string): string {
  return formatDateTime(iso, timeZone, "full");
}

/** "credit $6.00" / "$6.00 due" */
export function signed(cents: number): string {
  return cents < 0 ? `credit ${money(-cents)}` : cents > 0 ? `${money(cents)} due` : "$0.00";
}

/** A licence loads may be booked under by its standing: in force, or a renewal not yet started (for days of its term). */
export const bookable = (l: Pick<LicenseView, "standing">) => l.standing.inForce || l.standing.state === "NOT_YET_IN_FORCE";

/**
 * The licence card: status, number, dates, days left, where and when dumping is allowed, why it is
 * not in force, a warning when the Part 364 permit lapses before the licence ends, why no load can
 * be booked yet, and what to do next (these last three are the hauler's, left off for staff).
 */
export function LicenseCard({ l, headingLevel = 2, links = true, forStaff = false }: { l: LicenseView; headingLevel?: 2 | 3; links?: boolean; forStaff?: boolean }) {
  const H = headingLevel === 2 ? "h2" : "h3";
  const s = l.standing;
  return (
    <section className="usa-summary-box margin-bottom-3" aria-labelledby={`licence-${l.id}`}>
      <div className="usa-summary-box__body">
        <H className="usa-summary-box__heading" id={`licence-${l.id}`}>
          {l.licenseNumber ? `Licence ${l.licenseNumber}` : l.previousLicenseId ? "Licence renewal" : "Licence application"} · {l.districtName}{" "}
          <span className="usa-tag">{s.label}</span>
        </H>
        <div className="usa-summary-box__text">
          <dl className="tapline-facts">
            <dt>Company</dt>
            <dd>{l.organizationName}</dd>
            {l.validFrom && l.validUntil && (
              <>
                <dt>Valid</dt>
                <dd>
                  {formatCalendarDate(l.validFrom)} to {formatCalendarDate(l.validUntil)}
                  {s.daysLeft !== null && s.daysLeft >= 0 && (
                    <>
                      {" "}
                      (<strong>{s.daysLeft === 1 ? "1 day left" : `${s.daysLeft} days left`}</strong>)
                    </>
                  )}
                </dd>
              </>
            )}
            {l.dumpingLocation && (
              <>
                <dt>Dumping allowed at</dt>
                <dd>{l.dumpingLocation}</dd>
              </>
            )}
            {l.schedule && (
              <>
                <dt>Days and hours</dt>
                <dd>{l.schedule}</dd>
              </>
            )}
            {l.part364PermitNumber && (
              <>
                <dt>NYSDEC Part 364 permit</dt>
                <dd>
                  {l.part364PermitNumber}
                  {l.part364ExpiresOn ? `, expires ${formatCalendarDate(l.part364ExpiresOn)}` : ""}
                </dd>
              </>
            )}
            <dt>Vehicles</dt>
            <dd>{l.vehicles.map((v) => `${v.plate} (${v.tankCapacityGallons.toLocaleString("en-US")} gal)`).join(", ") || "none listed"}</dd>
          </dl>
          {s.reasons.length > 0 && l.status !== "DRAFT" && l.status !== "SUBMITTED" && (
            <div className="usa-alert usa-alert--warning usa-alert--slim">
              <div className="usa-alert__body">
                <p className="usa-alert__text">{s.reasons.join(" ")}</p>
              </div>
            </div>
          )}
          {!forStaff && l.part364Warning && (
            <div className="usa-alert usa-alert--warning usa-alert--slim">
              <div className="usa-alert__body">
                <p className="usa-alert__text">{l.part364Warning}</p>
              </div>
            </div>
          )}
          {!forStaff && bookable(l) && !l.loadBooking.ready && l.nextStep.text !== l.loadBooking.reason && (
            <div className="usa-alert usa-alert--info usa-alert--slim">
              <div className="usa-alert__body">
                <p className="usa-alert__text">{l.loadBooking.reason}</p>
              </div>
            </div>
          )}
          {!forStaff && l.nextStep.text && (
            <p>
              <strong>Next:</strong> {l.nextStep.text}
            </p>
          )}
          {links && (
            <p>
              <Link className="usa-link" to={`/haulers/licenses/${l.id}`}>
                Open the {l.licenseNumber ? `licence ${l.licenseNumber}` : "application"}
              </Link>
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

/**
 * A task on the staff's pages while no load can be booked in the district (the Town Board has not
 * set the dumping fee, SUL 1208): who does what, with the way to where the Board's figure goes: the
 * rulebook editor's dumping fee for the ADMIN, the district's rules (where it shows as not set) for
 * the others.
 */
export function BookingTask({
  booking,
  district,
  admin,
  headingLevel = 2,
}: {
  booking: LoadBooking;
  district: { slug: string; name: string };
  admin: boolean;
  headingLevel?: 2 | 3;
}) {
  if (booking.ready) return null;
  const H = headingLevel === 2 ? "h2" : "h3";
  const id = `booking-task-${district.slug}`;
  return (
    <div className="usa-alert usa-alert--warning margin-bottom-2" role="region" aria-labelledby={id}>
      <div className="usa-alert__body">
        <H className="usa-alert__heading" id={id}>
          To do: set the dumping fee<span className="usa-sr-only"> of {district.name}</span>
        </H>
        <p className="usa-alert__text">
          {booking.reason} The Town Board sets the fee by resolution{booking.section ? ` (${booking.section})` : ""}; the ADMIN enters it in the rulebook with the
          resolution's number and adoption date.{" "}
          {admin ? (
            <Link className="usa-link" to={`/staff/rulebook/${district.slug}#hauler.dumpingFeePer1000Gallons`}>
              Enter the Board's dumping fee in {district.name}'s rulebook
            </Link>
          ) : (
            <>
              Ask the district's ADMIN to enter it once the Board has adopted it.{" "}
              <Link className="usa-link" to={`/rules/${district.slug}#topic-trucked-and-hauled-waste`}>
                The dumping fee in {district.name}'s rules
              </Link>
            </>
          )}
        </p>
      </div>
    </div>
  );
}

export type HaulerDistrict = { id: string; name: string; licensesHaulers: boolean; grantsSpecialPermission: boolean; section: string };
export const HAULER_DISTRICT_FIELDS = "id name licensesHaulers grantsSpecialPermission section";

/**
 * How each district admits septage haulers, in plain words (haulerDistricts, from each rulebook): a
 * Town Board licence (SUL 801), or, where the law licenses no haulers (Huron IV-8), the
 * Superintendent's written special permission, linked when `permissionHref` is given.
 */
export function HowDistrictsAdmitHaulers({ districts, permissionHref }: { districts: HaulerDistrict[]; permissionHref?: string }) {
  if (!districts.length) return null;
  return (
    <ul className="usa-list">
      {districts.map((d) =>
        d.licensesHaulers ? (
          <li key={d.id}>
            {d.name}: the Town Board licenses haulers for a year ({d.section}).
          </li>
        ) : (
          <li key={d.id}>
            <strong>{d.name} does not license haulers</strong> ({d.section}).{" "}
            {d.grantsSpecialPermission ? (
              <>
                Septic tank pumpage is accepted there only with the Superintendent's written special permission, at a stated point and on stated conditions.
                {permissionHref && (
                  <>
                    {" "}
                    <Link className="usa-link" to={permissionHref}>
                      Ask for special permission in {d.name}
                    </Link>
                  </>
                )}
              </>
            ) : (
              "It accepts no septage from haulers."
            )}
          </li>
        ),
      )}
    </ul>
  );
}

/** The vehicles, read only. */
export function VehiclesTable({ vehicles, caption }: { vehicles: Vehicle[]; caption: string }) {
  return (
    <table className="usa-table usa-table--borderless usa-table--stacked">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Plate</th>
          <th scope="col">Make and model</th>
          <th scope="col">Tank capacity</th>
          <th scope="col">Colour</th>
          <th scope="col">Registered owner</th>
        </tr>
      </thead>
      <tbody>
        {vehicles.map((v) => (
          <tr key={v.id}>
            <th scope="row" data-label="Plate">
              {v.plate} ({v.plateState})
            </th>
            <td data-label="Make and model">
              {v.make} {v.model}
            </td>
            <td data-label="Tank capacity">{gallons(v.tankCapacityGallons)}</td>
            <td data-label="Colour">{v.colour}</td>
            <td data-label="Registered owner">{v.registeredOwner}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const VEHICLE_COLUMNS = [
  { key: "make", label: "Make" },
  { key: "model", label: "Model" },
  { key: "tankCapacityGallons", label: "Tank capacity (gallons)" },
  { key: "plate", label: "Plate" },
  { key: "plateState", label: "State" },
  { key: "colour", label: "Colour" },
  { key: "registeredOwner", label: "Registered owner" },
] as const;

/**
 * The vehicles as a table of inputs, one row per truck; empty rows are ignored. Each input's id is
 * the API's field name ("vehicles.1.registeredOwner") so an error links to it and sits beside it.
 */
export function VehiclesInput({ rows, errors }: { rows: Record<string, string>[]; errors: Record<string, string> }) {
  return (
    <div className="usa-form-group">
      <table className="usa-table usa-table--borderless">
        <caption>Vehicles that will carry septage (one row a truck; leave extra rows empty)</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            {VEHICLE_COLUMNS.map((c) => (
              <th scope="col" key={c.key}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <th scope="row">{i + 1}</th>
              {VEHICLE_COLUMNS.map((c) => {
                const id = `vehicles.${i}.${c.key}`;
                const err = errors[id];
                return (
                  <td key={c.key} className={err ? "usa-form-group--error" : undefined}>
                    <label className="usa-sr-only" htmlFor={id}>
                      Vehicle {i + 1}: {c.label.toLowerCase()}
                    </label>
                    {err && (
                      <span className="usa-error-message" id={`${id}-error`} role="alert">
                        {err}
                      </span>
                    )}
                    <input
                      className={`usa-input${err ? " usa-input--error" : ""}`}
                      id={id}
                      name={id}
                      defaultValue={r[c.key] ?? (c.key === "plateState" ? "NY" : "")}
                      inputMode={c.key === "tankCapacityGallons" ? "numeric" : undefined}
                      aria-invalid={err ? true : undefined}
                      aria-describedby={err ? `${id}-error` : undefined}
                      style={{ minWidth: c.key === "plateState" ? "3.5rem" : "7rem" }}
                    />
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The vehicle rows a form posted, as strings (kept to show again after an error). */
export function postedVehicles(form: FormData): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  for (const [k, v] of form.entries()) {
    const m = /^vehicles\.(\d+)\.(\w+)$/.exec(k);
    if (!m) continue;
    (rows[+m[1]] ??= {})[m[2]] = String(v);
  }
  return rows.filter(Boolean);
}

/**
 * Posted rows → the API's vehicle inputs, empty rows dropped (a capacity that is not a whole number
 * goes as none, so the API names it with every other problem), and for each input the form's row.
 */
export function vehicleInputs(rows: Record<string, string>[]): { vehicles: Record<string, unknown>[]; rowOf: number[] } {
  const kept = rows.map((r, i) => ({ r, i })).filter(({ r }) => Object.entries(r).some(([k, v]) => k !== "plateState" && v.trim() !== ""));
  return {
    rowOf: kept.map(({ i }) => i),
    vehicles: kept.map(({ r }) => {
      const cap = (r.tankCapacityGallons ?? "").replace(/,/g, "").trim();
      return {
        make: r.make ?? "",
        model: r.model ?? "",
        tankCapacityGallons: /^\d{1,9}$/.test(cap) ? Number(cap) : null,
        plate: r.plate ?? "",
        plateState: r.plateState ?? "NY",
        colour: r.colour ?? "",
        registeredOwner: r.registeredOwner ?? "",
      };
    }),
  };
}

/** The API's problems of vehicle n (of the rows sent) under the form's row, so each sits beside its input. */
export function onFormRows(fields: Record<string, string> | undefined, rowOf: number[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields ?? {})) {
    const m = /^vehicles\.(\d+)\.(\w+)$/.exec(k);
    out[m ? `vehicles.${rowOf[+m[1]] ?? +m[1]}.${m[2]}` : k] = v;
  }
  return out;
}

/** The vehicles table's labels for an error summary, in the form's order: "Tank capacity (gallons) of vehicle {n}". */
export const VEHICLE_LABELS: Record<string, string> = {
  ...Object.fromEntries(VEHICLE_COLUMNS.map((c) => [`vehicles.*.${c.key}`, `${c.label} of vehicle {n}`])),
  vehicles: "Vehicles",
};

/** Day-of-week checkboxes and opening/closing times for a licence or permission (SUL 803). */
export function ScheduleInputs({ errors, days, from, to }: { errors: Record<string, string>; days: number[]; from: string; to: string }) {
  return (
    <>
      <fieldset className={`usa-fieldset usa-form-group${errors.dumpingDays ? " usa-form-group--error" : ""}`}>
        <legend className="usa-legend">Days dumping is allowed</legend>
        {errors.dumpingDays && (
          <span className="usa-error-message" role="alert">
            {errors.dumpingDays}
          </span>
        )}
        {DAY_OPTIONS.map((d, i) => (
          <div className="usa-checkbox" key={d.value}>
            <input className="usa-checkbox__input" id={i === 0 ? "dumpingDays" : `dumpingDays-${d.value}`} type="checkbox" name="dumpingDays" value={d.value} defaultChecked={days.includes(d.value)} />
            <label className="usa-checkbox__label" htmlFor={i === 0 ? "dumpingDays" : `dumpingDays-${d.value}`}>
              {d.label}
            </label>
          </div>
        ))}
      </fieldset>
      <div className={`usa-form-group${errors.dumpingFrom ? " usa-form-group--error" : ""}`}>
        <label className="usa-label" htmlFor="dumpingFrom">
          Opening time
        </label>
        {errors.dumpingFrom && (
          <span className="usa-error-message" role="alert">
            {errors.dumpingFrom}
          </span>
        )}
        <input className="usa-input usa-input--small" id="dumpingFrom" name="dumpingFrom" type="time" defaultValue={from} />
      </div>
      <div className={`usa-form-group${errors.dumpingTo ? " usa-form-group--error" : ""}`}>
        <label className="usa-label" htmlFor="dumpingTo">
          Closing time
        </label>
        {errors.dumpingTo && (
          <span className="usa-error-message" role="alert">
            {errors.dumpingTo}
          </span>
        )}
        <input className="usa-input usa-input--small" id="dumpingTo" name="dumpingTo" type="time" defaultValue={to} />
      </div>
    </>
  );
}

/** A labelled textarea that keeps what was typed and shows its error beside it. */
export function TextArea({ name, label, hint, error, defaultValue }: { name: string; label: string; hint?: string; error?: string; defaultValue?: string | null }) {
  const describedBy = [hint ? `${name}-hint` : null, error ? `${name}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={name}>
        {label}
      </label>
      {hint && (
        <div className="usa-hint" id={`${name}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <span className="usa-error-message" id={`${name}-error`} role="alert">
          {error}
        </span>
      )}
      <textarea className={`usa-textarea${error ? " usa-input--error" : ""}`} id={name} name={name} defaultValue={defaultValue ?? undefined} aria-describedby={describedBy} aria-invalid={error ? true : undefined} />
    </div>
  );
}

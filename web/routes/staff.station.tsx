import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { formatCalendarDate, statusLabel } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { BookingTask, LOAD_STATUS_LABELS, gallons, paid, type LoadBooking } from "~/components/hauler";
import { dollarsToCents, money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Station day sheet | Staff | Tapline" }];

type Row = {
  arrivalTime: string;
  organizationName: string;
  plate: string;
  vehicle: string;
  tankCapacityGallons: number;
  holderNumber: string | null;
  holderInForce: boolean;
  holderReasons: string[];
  paymentStatus: string | null;
  load: {
    id: string;
    status: string;
    estimatedGallons: number;
    sourceAddress: string;
    sourceKind: string;
    feeCents: number;
    sampleRequired: boolean;
    sampleCostCents: number | null;
    measuredGallons: number | null;
    refusalReason: string | null;
    refundDue: boolean;
  };
};
type Data = {
  districts: { id: string; slug: string; name: string; roles: string[] }[];
  booking: LoadBooking;
  districtId: string;
  operator: boolean;
  date: string;
  timeZone: string;
  rows: Row[];
  total: number;
  nextCursor: string | null;
  after: string | null;
};
type ActionData = { error: string; fields: Record<string, string>; loadId: string; values: Record<string, string> };

/** The forms' visible labels by the keys the API reports (each load's inputs carry the load in their ids). */
export const LABELS: Record<string, string> = {
  sampleRequired: "Take a sample first",
  sampleCostCents: "Sample cost in dollars",
  sampleNotes: "What to sample for",
  reason: "Reason for refusing",
  refund: "No refund",
  measuredGallons: "Gallons received",
  decision: "Decision",
};
/** Each key's input on the page, for one load. */
const INPUT_ID: Record<string, string> = { sampleRequired: "sample", sampleCostCents: "cost", sampleNotes: "sample-notes", reason: "reason", refund: "norefund", measuredGallons: "gallons" };

const SOURCE: Record<string, string> = {
  RESIDENTIAL_SEPTIC_TANK: "Residential septic tank",
  HOLDING_TANK: "Holding tank",
  PORTABLE_TOILETS: "Portable toilets",
  GREASE_TRAP: "Grease trap",
  OTHER: "Other",
};
const BIG = { minHeight: "3rem", fontSize: "1.25rem" } as const;

function shift(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The receiving station's loads of a day, for the District Operator on a tablet (SUL 804, 1208). */
export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["OPERATOR", "CLERK"]);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const after = url.searchParams.get("after") || null;
  const { stationDaySheet, haulerDistricts } = await requireSignedIn<{
    stationDaySheet: { date: string; timeZone: string; rows: Row[]; total: number; nextCursor: string | null };
    haulerDistricts: { id: string; booking: LoadBooking }[];
  }>(
    args,
    `query DaySheet($d: ID!, $day: String, $a: String) { stationDaySheet(districtId: $d, date: $day, first: 25, after: $a) { date timeZone total nextCursor rows { arrivalTime
      organizationName plate vehicle tankCapacityGallons holderNumber holderInForce holderReasons paymentStatus
      load { id status estimatedGallons sourceAddress sourceKind feeCents sampleRequired sampleCostCents measuredGallons refusalReason refundDue } } }
      haulerDistricts { id booking { ready reason section } } }`,
    { d: district.id, day: url.searchParams.get("date") || null, a: after },
  );
  return {
    after,
    districts: info.districts.map((d) => ({ id: d.id, slug: d.slug, name: d.name, roles: d.roles })),
    booking: haulerDistricts.find((x) => x.id === district.id)?.booking ?? { ready: true, reason: null, section: null },
    districtId: district.id,
    operator: district.roles.includes("OPERATOR"),
    ...stationDaySheet,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const loadId = String(form.get("loadId") ?? "");
  const values: Record<string, string> = {};
  for (const k of ["reason", "measuredGallons", "sampleCost", "sampleNotes", "districtId", "date", "after"]) values[k] = String(form.get(k) ?? "").trim();
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) => Response.json({ error, fields, loadId, values } satisfies ActionData, { status: 400, headers });
  let r;
  if (intent === "received") {
    const g = values.measuredGallons.replace(/,/g, "");
    if (!/^\d+$/.test(g)) return fail("Please correct the highlighted fields.", { measuredGallons: "Enter the gallons measured as a whole number." });
    r = await gql(context, request, `mutation Received($id: ID!, $g: Int!) { recordHaulerLoadReceived(id: $id, measuredGallons: $g) { id } }`, { id: loadId, g: Number(g) });
  } else {
    const sample = form.get("sample") === "yes";
    const cost = values.sampleCost ? dollarsToCents(values.sampleCost) : null;
    if (cost === undefined) return fail("Please correct the highlighted fields.", { sampleCostCents: "Enter the sample cost in dollars and cents, like 75.00." });
    r = await gql(context, request, `mutation DecideLoad($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id } }`, {
      i:
        intent === "approve"
          ? { id: loadId, decision: "APPROVE", sampleRequired: sample, sampleCostCents: sample ? cost : null, sampleNotes: sample ? values.sampleNotes || null : null }
          : { id: loadId, decision: "REFUSE", reason: values.reason, refund: form.get("noRefund") !== "yes" },
    });
  }
  if (!r.ok) return fail(r.error.message, r.error.fields, cookieHeaders(r));
  const back = `/staff/station?districtId=${encodeURIComponent(values.districtId)}&date=${encodeURIComponent(values.date)}${values.after ? `&after=${encodeURIComponent(values.after)}` : ""}&done=${intent}#load-${loadId}`;
  return redirect(back, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = { approve: "The load is approved.", refuse: "The load is refused.", received: "The gallons received are recorded." };

export default function Station() {
  const { districts, districtId, operator, date, rows, total, nextCursor, after, booking } = useLoaderData<typeof loader>() as Data;
  const district = districts.find((d) => d.id === districtId)!;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  return (
    <>
      <h1>Station day sheet</h1>
      <p className="usa-intro">
        {districts.find((d) => d.id === districtId)?.name} · {formatCalendarDate(date)} · {total} load{total === 1 ? "" : "s"} booked
      </p>
      {params.get("done") && !a && <SuccessAlert>{DONE[params.get("done")!] ?? "Done."}</SuccessAlert>}
      <BookingTask booking={booking} district={district} admin={district.roles.includes("ADMIN")} />
      <ErrorSummary
        message={a?.error}
        fields={a ? Object.fromEntries(Object.entries(a.fields ?? {}).map(([k, v]) => [INPUT_ID[k] ? `${INPUT_ID[k]}-${a.loadId}` : k, v])) : undefined}
        labels={a ? Object.fromEntries(Object.entries(LABELS).map(([k, v]) => [INPUT_ID[k] ? `${INPUT_ID[k]}-${a.loadId}` : k, v])) : undefined}
      />
      <nav aria-label="Days" className="margin-bottom-2">
        <ul className="usa-button-group">
          <li className="usa-button-group__item">
            <Link className="usa-button usa-button--outline usa-button--big" to={`/staff/station?districtId=${districtId}&date=${shift(date, -1)}`}>
              Previous day
            </Link>
          </li>
          <li className="usa-button-group__item">
            <Link className="usa-button usa-button--outline usa-button--big" to={`/staff/station?districtId=${districtId}`}>
              Today
            </Link>
          </li>
          <li className="usa-button-group__item">
            <Link className="usa-button usa-button--outline usa-button--big" to={`/staff/station?districtId=${districtId}&date=${shift(date, 1)}`}>
              Next day
            </Link>
          </li>
        </ul>
      </nav>
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <input type="hidden" name="date" value={date} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      {rows.length === 0 && <p>No loads are booked for this day.</p>}
      <ol className="usa-list usa-list--unstyled">
        {rows.map((r) => {
          const x = r.load;
          const errs = a?.loadId === x.id ? a.fields : {};
          const label = `${r.plate}, ${r.arrivalTime}`;
          const feeOk = x.feeCents === 0 || paid(r.paymentStatus);
          return (
            <li key={x.id} id={`load-${x.id}`} className="tapline-details margin-bottom-3" style={{ padding: "1rem" }}>
              <h2 className="margin-top-0">
                {r.arrivalTime}: {r.plate} <span className="usa-tag">{statusLabel(x.status, LOAD_STATUS_LABELS)}</span>
              </h2>
              <dl className="tapline-facts">
                <dt>Hauler</dt>
                <dd>
                  {r.organizationName}, {r.holderNumber ?? ""} {r.holderInForce ? "(in force)" : <strong>(not in force)</strong>}
                </dd>
                <dt>Truck</dt>
                <dd>
                  {r.vehicle}, tank {gallons(r.tankCapacityGallons)}
                </dd>
                <dt>Source</dt>
                <dd>
                  {SOURCE[x.sourceKind] ?? x.sourceKind}, {x.sourceAddress}
                </dd>
                <dt>Estimated</dt>
                <dd>{gallons(x.estimatedGallons)}</dd>
                <dt>Dumping fee</dt>
                <dd>{x.feeCents ? feeOk ? `${money(x.feeCents)} paid` : <strong>{money(x.feeCents)} not paid</strong> : "none"}</dd>
                {x.sampleRequired && (
                  <>
                    <dt>Sample</dt>
                    <dd>required ({money(x.sampleCostCents ?? 0)})</dd>
                  </>
                )}
                {x.measuredGallons !== null && (
                  <>
                    <dt>Measured</dt>
                    <dd>{gallons(x.measuredGallons)}</dd>
                  </>
                )}
                {x.refusalReason && (
                  <>
                    <dt>Refused</dt>
                    <dd>
                      {x.refusalReason}
                      {x.refundDue ? " (fee to be refunded)" : ""}
                    </dd>
                  </>
                )}
              </dl>
              {!r.holderInForce && x.status === "BOOKED" && <p className="text-bold">{r.holderReasons.join(" ")} Refuse the load.</p>}
              {operator && x.status === "BOOKED" && (
                <div className="grid-row grid-gap">
                  <Form method="post" className="tablet:grid-col-6">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="approve" />
                    <input type="hidden" name="loadId" value={x.id} />
                    <input type="hidden" name="districtId" value={districtId} />
                    <input type="hidden" name="date" value={date} />
                    <input type="hidden" name="after" value={after ?? ""} />
                    <div className="usa-checkbox">
                      <input className="usa-checkbox__input usa-checkbox__input--tile" id={`sample-${x.id}`} type="checkbox" name="sample" value="yes" />
                      <label className="usa-checkbox__label" htmlFor={`sample-${x.id}`} style={BIG}>
                        Take a sample first (licensee pays, Sewer Use Law 804)
                      </label>
                    </div>
                    <label className="usa-label" htmlFor={`cost-${x.id}`}>
                      Sample cost in dollars, if the rulebook sets none
                    </label>
                    {errs.sampleCostCents && (
                      <span className="usa-error-message" id={`cost-${x.id}-error`} role="alert">
                        {errs.sampleCostCents}
                      </span>
                    )}
                    <input
                      className={`usa-input${errs.sampleCostCents ? " usa-input--error" : ""}`}
                      id={`cost-${x.id}`}
                      name="sampleCost"
                      inputMode="decimal"
                      style={BIG}
                      aria-invalid={errs.sampleCostCents ? true : undefined}
                      aria-describedby={errs.sampleCostCents ? `cost-${x.id}-error` : undefined}
                    />
                    <label className="usa-label" htmlFor={`sample-notes-${x.id}`}>
                      What to sample for (optional)
                    </label>
                    <input className="usa-input" id={`sample-notes-${x.id}`} name="sampleNotes" style={BIG} />
                    <button className="usa-button usa-button--big margin-top-2" type="submit" disabled={!feeOk || !r.holderInForce}>
                      Approve<span className="usa-sr-only"> load {label}</span>
                    </button>
                    {!feeOk && <p>The dumping fee is not paid: the load cannot be approved (Sewer Use Law 801).</p>}
                  </Form>
                  <Form method="post" className="tablet:grid-col-6">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="refuse" />
                    <input type="hidden" name="loadId" value={x.id} />
                    <input type="hidden" name="districtId" value={districtId} />
                    <input type="hidden" name="date" value={date} />
                    <input type="hidden" name="after" value={after ?? ""} />
                    <label className="usa-label" htmlFor={`reason-${x.id}`}>
                      Reason for refusing
                    </label>
                    {errs.reason && (
                      <span className="usa-error-message" id={`reason-${x.id}-error`} role="alert">
                        {errs.reason}
                      </span>
                    )}
                    <textarea
                      className={`usa-textarea${errs.reason ? " usa-input--error" : ""}`}
                      id={`reason-${x.id}`}
                      name="reason"
                      style={{ fontSize: "1.25rem" }}
                      defaultValue={a?.loadId === x.id ? a.values.reason : undefined}
                      aria-invalid={errs.reason ? true : undefined}
                      aria-describedby={errs.reason ? `reason-${x.id}-error` : undefined}
                    />
                    <div className="usa-checkbox">
                      <input className="usa-checkbox__input usa-checkbox__input--tile" id={`norefund-${x.id}`} type="checkbox" name="noRefund" value="yes" />
                      <label className="usa-checkbox__label" htmlFor={`norefund-${x.id}`} style={BIG}>
                        No refund (the reason says why)
                      </label>
                    </div>
                    <button className="usa-button usa-button--big usa-button--secondary margin-top-2" type="submit">
                      Refuse<span className="usa-sr-only"> load {label}</span>
                    </button>
                  </Form>
                </div>
              )}
              {operator && x.status === "APPROVED" && (
                <Form method="post">
                  <AuthenticityTokenInput />
                  <input type="hidden" name="intent" value="received" />
                  <input type="hidden" name="loadId" value={x.id} />
                  <input type="hidden" name="districtId" value={districtId} />
                  <input type="hidden" name="date" value={date} />
                  <input type="hidden" name="after" value={after ?? ""} />
                  <label className="usa-label" htmlFor={`gallons-${x.id}`}>
                    Gallons received<span className="usa-sr-only"> from {label}</span>
                  </label>
                  {errs.measuredGallons && (
                    <span className="usa-error-message" id={`gallons-${x.id}-error`} role="alert">
                      {errs.measuredGallons}
                    </span>
                  )}
                  <input
                    className={`usa-input usa-input--medium${errs.measuredGallons ? " usa-input--error" : ""}`}
                    aria-invalid={errs.measuredGallons ? true : undefined}
                    aria-describedby={errs.measuredGallons ? `gallons-${x.id}-error` : undefined}
                    id={`gallons-${x.id}`}
                    name="measuredGallons"
                    inputMode="numeric"
                    style={BIG}
                    defaultValue={a?.loadId === x.id ? a.values.measuredGallons : undefined}
                  />
                  <button className="usa-button usa-button--big margin-top-2" type="submit">
                    Record received<span className="usa-sr-only"> for {label}</span>
                  </button>
                </Form>
              )}
            </li>
          );
        })}
      </ol>
      {(nextCursor || after) && (
        <ul className="usa-button-group">
          {after && (
            <li className="usa-button-group__item">
              <Link className="usa-button usa-button--outline usa-button--big" to={`/staff/station?districtId=${districtId}&date=${date}`}>
                First loads of the day
              </Link>
            </li>
          )}
          {nextCursor && (
            <li className="usa-button-group__item">
              <Link className="usa-button usa-button--big" to={`/staff/station?districtId=${districtId}&date=${date}&after=${encodeURIComponent(nextCursor)}`}>
                Later loads
              </Link>
            </li>
          )}
        </ul>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

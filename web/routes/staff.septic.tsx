import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, RadioGroup, SelectField, TextAreaField } from "~/components/fields";
import { CalendarDate, formatCalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Septic systems | Staff | Tapline" }];

/** The forms' visible labels by the keys the API reports, in the forms' order. */
export const LABELS: Record<string, string> = {
  districtId: "District",
  propertyId: "Tax parcel",
  kind: "Kind of system",
  buildings: "Building 1",
  "buildings.*.name": "Building {n}",
  "buildings.*.use": "What building {n} is used for",
  description: "Description",
  installedOn: "Installed on",
  reportedPumpedOn: "Last pumped on, as reported",
  systemIds: "Systems the public sewer now reaches",
  extensionId: "Sewer extension that reaches them",
  reason: "Which public sewer now reaches them",
};

const USES = [
  { value: "DWELLING", label: "A family's home" },
  { value: "BUSINESS", label: "A separate business" },
  { value: "ACCESSORY", label: "Accessory to another building (garage, shed, workshop)" },
];
const FILTERS = [
  { value: "OVERDUE", label: "Overdue" },
  { value: "DUE_SOON", label: "Due within 60 days" },
  { value: "ALL", label: "All" },
];

type Row = { id: string; address: string; taxParcel: string; ownerName: string; kindLabel: string; statusLabel: string; status: string; pumpStanding: { state: string; dueOn: string | null; daysLeft: number | null } };
type Notice = { id: string; systemId: string; address: string; repairBy: string; daysLeft: number | null; lapsed: boolean };
type Order = { id: string; systemId: string; address: string; issuedOn: string; steps: { label: string; done: boolean }[] };
type Permit = { id: string; address: string; applicantName: string; statusLabel: string; permitNumber: string | null };
type Extension = { id: string; name: string; location: string; acceptedOn: string; resolutionNumber: string };
type Data = {
  districts: { id: string; name: string }[];
  districtId: string;
  operator: boolean;
  filter: string;
  items: Row[];
  nextCursor: string | null;
  notices: Notice[];
  orders: Order[];
  permits: Permit[];
  /** The district's sewer extensions the Town Board accepted, newest first (SUL 507), and the one the page was opened for */
  extensions: Extension[];
  extension: string | null;
  district: { systemsAllowed: boolean; permitsUnavailable: string | null; pumpingIntervalYears: number | null; pumpingSection: string; pumpOutReminderDays: number; nuisanceReminderDays: number } | null;
};

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  // Opened for an accepted sewer extension (?extension=<id>, linked from its works page): its district, and every system to tick from.
  const extension = url.searchParams.get("extension") || null;
  let districtId = url.searchParams.get("districtId");
  if (!districtId && extension && info.districts.length > 1) {
    const r = await gql<{ sewerExtension: { districtId: string } }>(args.context, args.request, `query SepticExtensionDistrict($id: ID!) { sewerExtension(id: $id) { districtId } }`, { id: extension });
    if (r.ok) districtId = r.data.sewerExtension.districtId;
  }
  const district = info.districts.find((d) => d.id === districtId) ?? info.districts[0];
  const filter = FILTERS.some((f) => f.value === url.searchParams.get("filter")) ? url.searchParams.get("filter")! : extension ? "ALL" : "OVERDUE";
  const d = await requireSignedIn<{
    districtSepticSystems: { items: Row[]; nextCursor: string | null };
    districtSepticNotices: Notice[];
    districtSepticConnectionOrders: Order[];
    districtSepticPermits: Permit[];
    septicOrderExtensions: Extension[];
    septicDistricts: ({ id: string } & NonNullable<Data["district"]>)[];
  }>(
    args,
    `query StaffSeptic($d: ID!, $f: String, $a: String) {
      districtSepticSystems(districtId: $d, filter: $f, after: $a) { items { id address taxParcel ownerName kindLabel statusLabel status pumpStanding { state dueOn daysLeft } } nextCursor }
      districtSepticNotices(districtId: $d) { id systemId address repairBy daysLeft lapsed }
      districtSepticConnectionOrders(districtId: $d) { id systemId address issuedOn steps { label done } }
      districtSepticPermits(districtId: $d) { id address applicantName statusLabel permitNumber }
      septicOrderExtensions(districtId: $d) { id name location acceptedOn resolutionNumber }
      septicDistricts { id systemsAllowed permitsUnavailable pumpingIntervalYears pumpingSection pumpOutReminderDays nuisanceReminderDays } }`,
    { d: district.id, f: filter, a: url.searchParams.get("after") },
  );
  return {
    districts: info.districts.map((x) => ({ id: x.id, name: x.name })),
    districtId: district.id,
    operator: district.roles.includes("OPERATOR"),
    filter,
    ...d.districtSepticSystems,
    notices: d.districtSepticNotices,
    orders: d.districtSepticConnectionOrders,
    permits: d.districtSepticPermits,
    extensions: d.septicOrderExtensions,
    extension,
    district: d.septicDistricts.find((x) => x.id === district.id) ?? null,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const districtId = s("districtId");
  const fail = (r: { error: { message: string; fields?: Record<string, string> } }, headers: HeadersInit) =>
    Response.json({ intent: s("intent"), error: r.error.message, fields: r.error.fields ?? {}, values: Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)])) }, { status: 400, headers });
  if (s("intent") === "order") {
    const r = await gql(context, request, `mutation IssueSepticOrders($i: IssueSepticConnectionOrdersInput!) { issueSepticConnectionOrders(input: $i) { id } }`, {
      i: { systemIds: f.getAll("systemIds").map(String), reason: s("reason") || null, extensionId: s("extensionId") || null },
    });
    if (!r.ok) return fail(r, cookieHeaders(r));
    return redirect(`/staff/septic?districtId=${districtId}&done=ordered`, { headers: cookieHeaders(r) });
  }
  // The property is named by its tax parcel, as the register lists it.
  const parcel = s("taxParcel");
  const found = parcel
    ? await gql<{ sewerProperties: { items: { id: string; taxParcel: string }[] } }>(context, request, `query SepticParcel($d: ID!, $q: String) { sewerProperties(districtId: $d, search: $q, first: 5) { items { id taxParcel } } }`, { d: districtId, q: parcel })
    : null;
  const propertyId = found?.ok ? (found.data.sewerProperties.items.find((p) => p.taxParcel.toLowerCase() === parcel.toLowerCase())?.id ?? "") : "";
  const buildings = [0, 1].map((i) => ({ name: s(`building-${i}-name`), use: s(`building-${i}-use`) })).filter((b, i) => i === 0 || b.name);
  const r = await gql<{ registerSepticSystem: { id: string } }>(context, request, `mutation RegisterSeptic($i: RegisterSepticSystemInput!) { registerSepticSystem(input: $i) { id } }`, {
    i: { propertyId: propertyId || "00000000-0000-0000-0000-000000000000", kind: s("kind"), buildings, description: s("description") || null, installedOn: s("installedOn") || null, reportedPumpedOn: s("reportedPumpedOn") || null },
  });
  if (!r.ok) {
    const fields = { ...(r.error.fields ?? {}) };
    if (fields.propertyId) fields.propertyId = parcel ? "No property of the district's register has that tax parcel." : "Enter the tax parcel of a property of the district's register.";
    return fail({ error: { message: r.error.message, fields } }, cookieHeaders(r));
  }
  return redirect(`/staff/septic/${r.data.registerSepticSystem.id}?done=registered`, { headers: cookieHeaders(r) });
}

const left = (n: number | null) => (n === null ? "" : n >= 0 ? `${n} day${n === 1 ? "" : "s"} left` : `${-n} day${n === -1 ? "" : "s"} overdue`);

/** Staff: the district's septic systems by pump-out due (SUL 407), open notices (405), connection orders (408) and construction permits (403-404). */
export default function StaffSeptic() {
  const data = useLoaderData<typeof loader>() as Data;
  const { districts, districtId, operator, filter, items, nextCursor, notices, orders, permits, district, extensions, extension } = data;
  const a = useActionData<{ intent: string; error: string; fields: Record<string, string>; values: Record<string, string> }>();
  const [params] = useSearchParams();
  const v = a?.values ?? {};
  const reg = a && a.intent !== "order" ? a.fields : {};
  const ord = a && a.intent === "order" ? a.fields : {};
  // The extension the Operator chose (or the page was opened for), shown so they tick the systems it reaches.
  const chosen = extensions.find((x) => x.id === (a?.intent === "order" ? v.extensionId : extension)) ?? null;
  const keep = extension ? `&extension=${encodeURIComponent(extension)}` : "";
  return (
    <>
      <h1>Septic systems</h1>
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label={LABELS.districtId} options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          {extension && <input type="hidden" name="extension" value={extension} />}
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      {params.get("done") === "ordered" && <SuccessAlert>The connection orders are issued and the owners emailed.</SuccessAlert>}
      {district && !district.systemsAllowed && <p className="text-bold">{district.permitsUnavailable} A system found here is registered to be ordered out of use and the property connected.</p>}
      {district?.pumpingIntervalYears && (
        <p>
          Each septic tank or cesspool is pumped by a licensed hauler at least every {district.pumpingIntervalYears} years ({district.pumpingSection}); owners are emailed{" "}
          {district.pumpOutReminderDays} days ahead. A licensed hauler's load from a registered address counts when it is received at the station.
        </p>
      )}
      <nav aria-label="Which systems">
        <ul className="usa-button-group">
          {FILTERS.map((f) => (
            <li key={f.value} className="usa-button-group__item">
              <Link className={`usa-button${f.value === filter ? "" : " usa-button--outline"}`} to={`?districtId=${districtId}&filter=${f.value}${keep}`} aria-current={f.value === filter ? "page" : undefined}>
                {f.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <ErrorSummary message={a?.intent === "order" ? a.error : undefined} fields={ord} labels={LABELS} />
      <Form method="post">
        <AuthenticityTokenInput />
        <input type="hidden" name="districtId" value={districtId} />
        <input type="hidden" name="intent" value="order" />
        {operator && extension && !chosen && (
          <div className="usa-alert usa-alert--warning usa-alert--slim margin-bottom-2">
            <div className="usa-alert__body">
              <p className="usa-alert__text">That sewer extension is not one this district's Town Board has accepted (Sewer Use Law 507): it is not yet a public sewer an order can name.</p>
            </div>
          </div>
        )}
        {operator && chosen && (
          <div className="usa-summary-box margin-bottom-2" role="region" aria-labelledby="chosen-extension">
            <div className="usa-summary-box__body">
              <h2 className="usa-summary-box__heading" id="chosen-extension">
                Sewer extension {chosen.name}
              </h2>
              <p>
                {chosen.location}. Accepted by the Town Board by resolution {chosen.resolutionNumber} of <CalendarDate date={chosen.acceptedOn} /> (Sewer Use Law 507). Tick the
                septic systems on the properties it reaches: each gets an order to connect (Sewer Use Law 408).
              </p>
            </div>
          </div>
        )}
        {items.length === 0 ? (
          <p>No system in this list.</p>
        ) : (
          <table className="usa-table usa-table--stacked usa-table--borderless width-full">
            <caption>Septic systems ({FILTERS.find((f) => f.value === filter)!.label.toLowerCase()})</caption>
            <thead>
              <tr>
                {operator && <th scope="col">Order connected</th>}
                <th scope="col">Address</th>
                <th scope="col">Owner</th>
                <th scope="col">Kind</th>
                <th scope="col">Next pump-out due</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r, i) => (
                <tr key={r.id}>
                  {operator && (
                    <td data-label="Order connected">
                      {r.status === "IN_USE" && (
                        <div className="usa-checkbox">
                          <input className="usa-checkbox__input" type="checkbox" id={i === 0 ? "systemIds" : `system-${r.id}`} name="systemIds" value={r.id} aria-invalid={ord.systemIds ? true : undefined} />
                          <label className="usa-checkbox__label" htmlFor={i === 0 ? "systemIds" : `system-${r.id}`}>
                            Order<span className="usa-sr-only"> {r.address} connected</span>
                          </label>
                        </div>
                      )}
                    </td>
                  )}
                  <th scope="row" data-label="Address">
                    <Link className="usa-link" to={`/staff/septic/${r.id}`}>
                      {r.address}
                    </Link>
                    <br />
                    <span className="usa-hint">Tax parcel {r.taxParcel}</span>
                  </th>
                  <td data-label="Owner">{r.ownerName}</td>
                  <td data-label="Kind">
                    {r.kindLabel}, {r.statusLabel.toLowerCase()}
                  </td>
                  <td data-label="Next pump-out due">
                    {r.pumpStanding.state === "NO_RECORD" ? "No pump-out on record" : r.pumpStanding.dueOn ? <><CalendarDate date={r.pumpStanding.dueOn} /> ({left(r.pumpStanding.daysLeft)})</> : "Not required"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {nextCursor && (
          <p>
            <Link className="usa-link" to={`?districtId=${districtId}&filter=${filter}&after=${encodeURIComponent(nextCursor)}${keep}`}>
              More systems
            </Link>
          </p>
        )}
        {operator && items.length > 0 && (
          <div className="usa-form">
            {ord.systemIds && <span className="usa-error-message" role="alert">{ord.systemIds}</span>}
            {extensions.length > 0 && (
              <SelectField
                name="extensionId"
                label={LABELS.extensionId}
                hint="A sewer extension the Town Board accepted (Sewer Use Law 507), newest first. The order then names it with the Board's resolution."
                options={[
                  { value: "", label: "None: the public sewer reached them otherwise" },
                  ...extensions.map((x) => ({ value: x.id, label: `${x.name}, accepted ${formatCalendarDate(x.acceptedOn)} (resolution ${x.resolutionNumber})` })),
                ]}
                defaultValue={chosen?.id ?? ""}
                error={ord.extensionId}
              />
            )}
            <TextAreaField
              name="reason"
              label={LABELS.reason}
              hint={
                extensions.length > 0
                  ? "The public sewer now reaches the ticked properties: each gets an order to connect (Sewer Use Law 408). Needed when no sewer extension is chosen; otherwise a note that follows its name."
                  : "The public sewer now reaches the ticked properties: each gets an order to connect (Sewer Use Law 408; Huron II-4)."
              }
              defaultValue={v.reason}
              error={ord.reason}
            />
            <button className="usa-button" type="submit">
              Issue connection orders
            </button>
          </div>
        )}
      </Form>

      <h2>Notices to repair (Sewer Use Law 405)</h2>
      {notices.length === 0 ? (
        <p>No open notice.</p>
      ) : (
        <ul className="usa-list">
          {notices.map((n) => (
            <li key={n.id}>
              <Link className="usa-link" to={`/staff/septic/${n.systemId}`}>
                {n.address}
              </Link>
              : repair by <CalendarDate date={n.repairBy} />, {n.lapsed ? `passed ${left(n.daysLeft).replace(" overdue", "")} ago: open an enforcement action` : left(n.daysLeft)}
            </li>
          ))}
        </ul>
      )}

      <h2>Open connection orders (Sewer Use Law 408)</h2>
      {orders.length === 0 ? (
        <p>No open order.</p>
      ) : (
        <ul className="usa-list">
          {orders.map((o) => (
            <li key={o.id}>
              <Link className="usa-link" to={`/staff/septic/${o.systemId}`}>
                {o.address}
              </Link>
              : issued <CalendarDate date={o.issuedOn} />, {o.steps.filter((s) => s.done).length} of {o.steps.length} steps recorded
            </li>
          ))}
        </ul>
      )}

      <h2>Construction permits (Sewer Use Law 403, 404)</h2>
      {permits.length === 0 ? (
        <p>No application.</p>
      ) : (
        <ul className="usa-list">
          {permits.map((p) => (
            <li key={p.id}>
              <Link className="usa-link" to={`/staff/septic/permits/${p.id}`}>
                {p.address}
              </Link>
              , {p.applicantName}: {p.statusLabel}
              {p.permitNumber ? `, permit ${p.permitNumber}` : ""}
            </li>
          ))}
        </ul>
      )}

      {operator && (
        <>
          <h2>Register a septic system</h2>
          <ErrorSummary message={a && a.intent !== "order" ? a.error : undefined} fields={reg} labels={LABELS} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="districtId" value={districtId} />
            <input type="hidden" name="intent" value="register" />
            <TextField name="taxParcel" id="propertyId" label={LABELS.propertyId} hint="A property of the district's register (the Town Clerk adds properties)." defaultValue={v.taxParcel} error={reg.propertyId} required />
            <RadioGroup name="kind" legend={LABELS.kind} options={[{ value: "SEPTIC_TANK", label: "Septic tank" }, { value: "CESSPOOL", label: "Cesspool" }]} defaultValue={v.kind} error={reg.kind} required />
            <TextField name="building-0-name" id="buildings" label={LABELS.buildings} hint='e.g. "House"' defaultValue={v["building-0-name"]} error={reg.buildings} required />
            <SelectField name="building-0-use" id="building-0-use" label="What building 1 is used for" options={USES} defaultValue={v["building-0-use"]} />
            <TextField name="building-1-name" id="building-1-name" label="Building 2" hint="Leave empty if none" defaultValue={v["building-1-name"]} />
            <SelectField name="building-1-use" id="building-1-use" label="What building 2 is used for" options={USES} defaultValue={v["building-1-use"] ?? "ACCESSORY"} />
            <TextField name="description" label={LABELS.description} defaultValue={v.description} error={reg.description} />
            <TextField name="installedOn" label={LABELS.installedOn} type="date" defaultValue={v.installedOn} error={reg.installedOn} />
            <TextField name="reportedPumpedOn" label={LABELS.reportedPumpedOn} type="date" hint="Only when no licensed hauler's load is on record." defaultValue={v.reportedPumpedOn} error={reg.reportedPumpedOn} />
            <button className="usa-button" type="submit">
              Register
            </button>
          </Form>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

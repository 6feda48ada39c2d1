import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, SelectField } from "~/components/fields";
import { ErrorSummary, TextField } from "~/components/forms";
import { SOURCE_KINDS, type Vehicle } from "~/components/hauler";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Book a load | Tapline" }];

type Holder = {
  kind: "license" | "permission";
  id: string;
  title: string;
  organizationId: string;
  districtName: string;
  where: string | null;
  schedule: string | null;
  inForce: boolean;
  reasons: string[];
  vehicles: Vehicle[];
  /** whether the district takes bookings today (no dumping fee set by the Board: not yet), said before the form */
  booking: { ready: boolean; reason: string | null; section: string | null };
};
type Fee = { rate: number | null; minimum: number | null; section: string };
type Data = { holder: Holder; fee: Fee | null };
type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

/** The form's visible labels by the keys the API reports, in the form's order. */
export const LABELS: Record<string, string> = {
  vehicleId: "Vehicle",
  sourceAddress: "Where the septage comes from",
  sourceKind: "Kind of source",
  sourceDescription: "Describe the source",
  estimatedGallons: "Estimated gallons",
  plannedArrival: "Planned arrival at the station",
  licenseId: "Licence",
  permissionId: "Special permission",
};

/** Book a load under a licence (or in Huron a special permission): the fee is computed by the API from the rulebook. */
export async function loader(args: LoaderFunctionArgs) {
  const url = new URL(args.request.url);
  const licenseId = url.searchParams.get("licenseId");
  const permissionId = url.searchParams.get("permissionId");
  let holder: Holder;
  let districtId: string;
  const V = `vehicles { id make model tankCapacityGallons plate plateState colour registeredOwner } loadBooking { ready reason section }`;
  if (licenseId) {
    const { haulerLicense: l } = await requireSignedIn<any>(
      args,
      `query BookUnder($id: ID!) { haulerLicense(id: $id) { id licenseNumber organizationId districtId districtName dumpingLocation schedule standing { inForce reasons } ${V} } }`,
      { id: licenseId },
    );
    districtId = l.districtId;
    holder = { kind: "license", id: l.id, title: `Licence ${l.licenseNumber ?? ""}`, organizationId: l.organizationId, districtName: l.districtName, where: l.dumpingLocation, schedule: l.schedule, inForce: l.standing.inForce, reasons: l.standing.reasons, vehicles: l.vehicles, booking: l.loadBooking };
  } else if (permissionId) {
    const { haulerPermission: p } = await requireSignedIn<any>(
      args,
      `query BookUnderPermission($id: ID!) { haulerPermission(id: $id) { id organizationId districtId point schedule standing { inForce reasons } ${V} } }`,
      { id: permissionId },
    );
    districtId = p.districtId;
    holder = { kind: "permission", id: p.id, title: "Special permission", organizationId: p.organizationId, districtName: "", where: p.point, schedule: p.schedule, inForce: p.standing.inForce, reasons: p.standing.reasons, vehicles: p.vehicles, booking: p.loadBooking };
  } else throw new Response("Choose the licence the load comes under, from Septage hauling.", { status: 404 });
  const r = await gql<{ districts: { id: string; name: string; rulebook: { entries: { key: string; value: unknown; section: string }[] } }[] }>(
    args.context,
    args.request,
    `query LoadFee { districts { id name rulebook { entries { key value section } } } }`,
  );
  const d = r.ok ? r.data.districts.find((x) => x.id === districtId) : undefined;
  const entry = (k: string) => d?.rulebook.entries.find((e) => e.key === k);
  const rate = entry("hauler.dumpingFeePer1000Gallons");
  const min = entry("hauler.dumpingFeeMinimumPerLoad");
  if (d && !holder.districtName) holder.districtName = d.name;
  return {
    holder,
    fee: rate ? { rate: typeof rate.value === "number" ? rate.value : null, minimum: typeof min?.value === "number" ? (min.value as number) : null, section: rate.section } : null,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const k of ["holderKind", "holderId", "vehicleId", "sourceAddress", "sourceKind", "sourceDescription", "estimatedGallons", "plannedArrival"]) values[k] = String(form.get(k) ?? "").trim();
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) => Response.json({ error, fields, values } satisfies ActionData, { status: 400, headers });
  // Not a whole number: sent as 0, so the API names it with every other field in one answer.
  const g = values.estimatedGallons.replace(/,/g, "");
  const r = await gql<{ bookHaulerLoad: { id: string; payment: { id: string; status: string } | null } }>(
    context,
    request,
    `mutation BookLoad($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { id payment { id status } } }`,
    {
      i: {
        ...(values.holderKind === "permission" ? { permissionId: values.holderId } : { licenseId: values.holderId }),
        vehicleId: values.vehicleId,
        sourceAddress: values.sourceAddress,
        sourceKind: values.sourceKind,
        sourceDescription: values.sourceDescription || null,
        estimatedGallons: /^\d{1,9}$/.test(g) ? Number(g) : 0,
        plannedArrival: values.plannedArrival,
      },
    },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(new URL(request.url).pathname + new URL(request.url).search)}`, { headers: cookieHeaders(r) });
    return fail(r.error.message, r.error.fields, cookieHeaders(r));
  }
  const p = r.data.bookHaulerLoad.payment;
  return redirect(p && p.status === "PENDING" ? `/payments/${p.id}` : `/haulers/loads/${r.data.bookHaulerLoad.id}?done=booked`, { headers: cookieHeaders(r) });
}

export default function BookLoad() {
  const { holder, fee } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const e = a?.fields ?? {};
  return (
    <>
      <h1>Book a load</h1>
      <p className="usa-intro">
        {holder.title} · {holder.districtName}
      </p>
      {!holder.booking.ready && (
        <Notice type="warning">
          <strong>Loads cannot be booked yet.</strong> {holder.booking.reason}
        </Notice>
      )}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      {!holder.inForce && (
        <div className="usa-alert usa-alert--warning usa-alert--slim">
          <div className="usa-alert__body">
            <p className="usa-alert__text">{holder.reasons.join(" ")}</p>
          </div>
        </div>
      )}
      <dl className="tapline-facts">
        <dt>Dumping allowed at</dt>
        <dd>{holder.where}</dd>
        <dt>Days and hours</dt>
        <dd>{holder.schedule}</dd>
        <dt>Dumping fee</dt>
        <dd>
          {fee?.rate !== null && fee?.rate !== undefined
            ? `${money(fee.rate)} per 1,000 gallons${fee.minimum ? `, at least ${money(fee.minimum)} a load` : ""} (${fee.section}); paid before you come.`
            : `None set by the Board in this district's rulebook${fee ? ` (${fee.section})` : ""}.`}
        </dd>
      </dl>
      {holder.booking.ready && (
        <Form method="post" className="usa-form usa-form--large" noValidate>
          <AuthenticityTokenInput />
          <input type="hidden" name="holderKind" value={holder.kind} />
          <input type="hidden" name="holderId" value={holder.id} />
          <SelectField
            name="vehicleId"
            label={LABELS.vehicleId}
            options={holder.vehicles.map((v) => ({ value: v.id, label: `${v.plate}: ${v.make} ${v.model}, ${v.tankCapacityGallons.toLocaleString("en-US")} gallons` }))}
            defaultValue={a?.values.vehicleId}
            error={e.vehicleId}
            required
          />
          <TextField name="sourceAddress" label={LABELS.sourceAddress} hint="The address of the tank you pumped." defaultValue={a?.values.sourceAddress} error={e.sourceAddress} required />
          <SelectField name="sourceKind" label={LABELS.sourceKind} options={SOURCE_KINDS} defaultValue={a?.values.sourceKind} error={e.sourceKind} required />
          <TextField name="sourceDescription" label={`${LABELS.sourceDescription} (needed for "other")`} defaultValue={a?.values.sourceDescription} error={e.sourceDescription} />
          <TextField name="estimatedGallons" label={LABELS.estimatedGallons} hint="At most the tank's capacity." defaultValue={a?.values.estimatedGallons} error={e.estimatedGallons} inputMode="numeric" required />
          <TextField
            name="plannedArrival"
            type="datetime-local"
            label={LABELS.plannedArrival}
            hint={`As the district's clock reads it, inside the allowed days and hours${holder.schedule ? ` (${holder.schedule})` : ""}.`}
            defaultValue={a?.values.plannedArrival}
            error={e.plannedArrival ?? e.licenseId}
            required
          />
          <button className="usa-button" type="submit">
            Book the load{fee?.rate !== null && fee?.rate !== undefined ? " and pay" : ""}
          </button>
        </Form>
      )}
      <p>
        <Link className="usa-link" to={`/haulers?organizationId=${holder.organizationId}`}>
          Back to septage hauling
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

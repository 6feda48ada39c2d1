import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { ErrorSummary, TextField } from "~/components/forms";
import { LICENSE_FIELDS, TextArea, VEHICLE_LABELS, VehiclesInput, onFormRows, postedVehicles, vehicleInputs, type LicenseView } from "~/components/hauler";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, type GqlResult } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Hauler licence application | Tapline" }];

type Values = Record<string, string>;
type ActionData = { error: string; fields: Record<string, string>; values: Values; vehicles: Record<string, string>[] };
type Data = { l: LicenseView; fee: { value: number | null; section: string } | null };

/** The form's visible labels by the keys the API reports, in the form's order. */
export const LABELS: Record<string, string> = {
  ...VEHICLE_LABELS,
  part364PermitNumber: "Part 364 permit number",
  part364ExpiresOn: "Part 364 permit expiry date",
  file: "Part 364 permit (upload)",
  part364DocumentId: "Part 364 permit (upload)",
  annualVolumeGallons: "Approximate annual septage volume (gallons)",
  serviceArea: "Service area",
  otherInformation: "Anything else the District Operator asked for",
  certify: "Certification",
  // Set by the page, not typed: named all the same.
  organizationId: "Hauling company",
  districtId: "Sewer district",
  filename: "Part 364 permit (upload)",
  contentBase64: "Part 364 permit (upload)",
};

/** The upload's problem sits at the file input ("file"), where the person picks it. */
const onForm = (fields: Record<string, string> | undefined, rowOf: number[]) => {
  const out = onFormRows(fields, rowOf);
  for (const k of ["part364DocumentId", "filename", "contentBase64"])
    if (out[k]) {
      out.file ??= out[k];
      delete out[k];
    }
  return out;
};

export async function loader(args: LoaderFunctionArgs) {
  const { haulerLicense: l } = await requireSignedIn<{ haulerLicense: LicenseView }>(args, `query LicenceDraft($id: ID!) { haulerLicense(id: $id) { ${LICENSE_FIELDS} } }`, {
    id: args.params.id,
  });
  if (l.status !== "DRAFT") throw redirect(`/haulers/licenses/${l.id}`);
  if (!l.viewerIsOwner) throw new Response("Only the owner of the hauling company fills in the application.", { status: 403 });
  const r = await gql<{ districts: { id: string; rulebook: { entries: { key: string; value: unknown; section: string }[] } }[] }>(
    args.context,
    args.request,
    `query HaulerFee { districts { id rulebook { entries { key value section } } } }`,
  );
  const e = r.ok ? r.data.districts.find((d) => d.id === l.districtId)?.rulebook.entries.find((x) => x.key === "hauler.applicationFee") : undefined;
  return { l, fee: e ? { value: typeof e.value === "number" ? e.value : null, section: e.section } : null } satisfies Data;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "save");
  const values: Values = {};
  for (const k of ["part364PermitNumber", "part364ExpiresOn", "part364DocumentId", "annualVolumeGallons", "serviceArea", "otherInformation", "organizationId"]) values[k] = String(form.get(k) ?? "").trim();
  values.certify = form.get("certify") === "yes" ? "yes" : "";
  const rows = postedVehicles(form);
  const results: GqlResult<any>[] = [];
  const fail = (error: string, fields: Record<string, string>) =>
    Response.json({ error, fields, values, vehicles: rows } satisfies ActionData, { status: 400, headers: cookieHeaders(...results) });
  const here = `/haulers/licenses/${params.id}/edit`;
  const signIn = () => redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(...results) });

  // Nothing is judged here: the API reports every problem at once, each under its field.
  const { vehicles, rowOf } = vehicleInputs(rows);
  const volume = values.annualVolumeGallons.replace(/,/g, "");

  const file = form.get("file");
  if (file && typeof file !== "string" && file.size > 0) {
    const up = await gql<{ uploadDocument: { id: string } }>(context, request, `mutation UploadPart364($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
      i: { filename: file.name, contentBase64: Buffer.from(await file.arrayBuffer()).toString("base64"), organizationId: values.organizationId || null },
    });
    results.push(up);
    if (!up.ok) return up.error.code === "UNAUTHENTICATED" ? signIn() : fail(up.error.message, { file: up.error.message });
    values.part364DocumentId = up.data.uploadDocument.id;
  }
  const draft = {
    part364PermitNumber: values.part364PermitNumber || null,
    part364ExpiresOn: values.part364ExpiresOn || null,
    part364DocumentId: values.part364DocumentId || null,
    // Not a whole number: sent as 0, which the API refuses with the others.
    annualVolumeGallons: volume ? (/^\d{1,9}$/.test(volume) ? Number(volume) : 0) : null,
    serviceArea: values.serviceArea || null,
    otherInformation: values.otherInformation || null,
    vehicles,
  };
  if (intent !== "submit") {
    const saved = await gql<{ saveHaulerLicenseDraft: { id: string } }>(context, request, `mutation SaveLicence($i: HaulerLicenseDraftInput!) { saveHaulerLicenseDraft(input: $i) { id } }`, {
      i: { id: params.id, ...draft },
    });
    results.push(saved);
    if (!saved.ok) return saved.error.code === "UNAUTHENTICATED" ? signIn() : fail(saved.error.message, onForm(saved.error.fields, rowOf));
    return redirect(`${here}?saved=1`, { headers: cookieHeaders(...results) });
  }
  // Saved and submitted together: the form's problems and what is missing, in one answer.
  const sub = await gql<{ submitHaulerLicense: { id: string; payment: { id: string; status: string } | null } }>(
    context,
    request,
    `mutation SubmitLicence($id: ID!, $c: Boolean!, $d: HaulerLicenseDraftInput) { submitHaulerLicense(id: $id, certify: $c, draft: $d) { id payment { id status } } }`,
    { id: params.id, c: values.certify === "yes", d: { id: params.id, ...draft } },
  );
  results.push(sub);
  if (!sub.ok) return sub.error.code === "UNAUTHENTICATED" ? signIn() : fail(sub.error.message, onForm(sub.error.fields, rowOf));
  const p = sub.data.submitHaulerLicense.payment;
  return redirect(p && p.status === "PENDING" ? `/payments/${p.id}` : `/haulers/licenses/${params.id}?done=submitted`, { headers: cookieHeaders(...results) });
}

export default function EditLicence() {
  const { l, fee } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const e = a?.fields ?? {};
  const v = (k: string, current: string | number | null | undefined) => (a ? a.values[k] : current === null || current === undefined ? "" : String(current));
  const saved = l.vehicles.map((x) => ({
    make: x.make,
    model: x.model,
    tankCapacityGallons: String(x.tankCapacityGallons),
    plate: x.plate,
    plateState: x.plateState,
    colour: x.colour,
    registeredOwner: x.registeredOwner,
  }));
  const base = a ? a.vehicles : saved;
  const rows = [...base, ...Array.from({ length: Math.max(2, base.length + 1) - base.length }, () => ({}) as Record<string, string>)];
  return (
    <>
      <h1>{l.previousLicenseId ? "Renew the septage hauler licence" : "Apply for a septage hauler licence"}</h1>
      <p className="usa-intro">
        {l.organizationName} · {l.districtName}
      </p>
      {l.previous && (
        <Notice>
          This renews licence {l.previous.licenseNumber}
          {l.previous.validUntil ? `, which ends on ${formatCalendarDate(l.previous.validUntil)}` : ""}. Your vehicles and answers are copied: confirm or change
          them. A renewal approved before then starts the next day.
        </Notice>
      )}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large maxw-none" noValidate>
        <AuthenticityTokenInput />
        <input type="hidden" name="organizationId" value={l.organizationId} />
        <input type="hidden" name="part364DocumentId" value={v("part364DocumentId", l.part364DocumentId)} />

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">Vehicles</legend>
          <p className="usa-hint" id="vehicles">
            The applicant must own the vehicles: the registered owner is the company ({l.organizationName}) or its owner (Sewer Use Law 802). A load is at most
            the tank's capacity. Save the draft for more rows.
          </p>
          {e.vehicles && (
            <span className="usa-error-message" role="alert">
              {e.vehicles}
            </span>
          )}
          <VehiclesInput rows={rows} errors={e} />
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">NYSDEC Part 364 waste transporter permit</legend>
          <TextField name="part364PermitNumber" label={LABELS.part364PermitNumber} defaultValue={v("part364PermitNumber", l.part364PermitNumber)} error={e.part364PermitNumber} required />
          <TextField
            name="part364ExpiresOn"
            type="date"
            label={LABELS.part364ExpiresOn}
            hint="When it lapses, the licence is invalid at once until you upload the renewed permit (Sewer Use Law 802)."
            defaultValue={v("part364ExpiresOn", l.part364ExpiresOn)}
            error={e.part364ExpiresOn}
            required
          />
          <div className={`usa-form-group${e.file ? " usa-form-group--error" : ""}`}>
            <label className={`usa-label${e.file ? " usa-label--error" : ""}`} htmlFor="file">
              {LABELS.file}
              <span className="usa-hint"> (required)</span>
            </label>
            <div className="usa-hint" id="file-hint">
              {v("part364DocumentId", l.part364DocumentId) ? "A copy is on file; upload another to replace it." : "PDF, PNG or JPEG."}
            </div>
            {e.file && (
              <span className="usa-error-message" id="file-error" role="alert">
                {e.file}
              </span>
            )}
            <input
              className={`usa-file-input${e.file ? " usa-input--error" : ""}`}
              id="file"
              name="file"
              type="file"
              aria-describedby={e.file ? "file-hint file-error" : "file-hint"}
              aria-invalid={e.file ? true : undefined}
              accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"
            />
          </div>
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">Your business</legend>
          <TextField name="annualVolumeGallons" label={LABELS.annualVolumeGallons} defaultValue={v("annualVolumeGallons", l.annualVolumeGallons)} error={e.annualVolumeGallons} inputMode="numeric" required />
          <TextArea name="serviceArea" label={`${LABELS.serviceArea} (required)`} hint="The towns, villages or counties you pump in." defaultValue={v("serviceArea", l.serviceArea)} error={e.serviceArea} />
          <TextArea name="otherInformation" label={`${LABELS.otherInformation} (optional)`} defaultValue={v("otherInformation", l.otherInformation)} error={e.otherInformation} />
        </fieldset>

        <fieldset className="usa-fieldset">
          <legend className="usa-legend usa-legend--large">Certification and fee</legend>
          {fee && fee.value !== null && (
            <p>
              Application fee: <strong>{money(fee.value)}</strong> ({fee.section}). You pay it when you submit; the Town Board reviews the application once it is paid.
            </p>
          )}
          <div className={`usa-form-group${e.certify ? " usa-form-group--error" : ""}`}>
            {e.certify && (
              <span className="usa-error-message" role="alert">
                {e.certify}
              </span>
            )}
            <div className="usa-checkbox">
              <input className="usa-checkbox__input" id="certify" name="certify" type="checkbox" value="yes" defaultChecked={a?.values.certify === "yes"} />
              <label className="usa-checkbox__label" htmlFor="certify">
                I certify that the statements in this application are true. I understand that a false or misleading statement voids the licence (Sewer Use Law
                802).
              </label>
            </div>
          </div>
        </fieldset>
        <ul className="usa-button-group">
          <li className="usa-button-group__item">
            <button className="usa-button" type="submit" name="intent" value="submit">
              Submit and pay
            </button>
          </li>
          <li className="usa-button-group__item">
            <button className="usa-button usa-button--outline" type="submit" name="intent" value="save">
              Save the draft
            </button>
          </li>
        </ul>
      </Form>
      <p>
        <Link className="usa-link" to={`/haulers?organizationId=${l.organizationId}`}>
          Back to septage hauling
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { LICENSE_FIELDS, LicenseCard, VehiclesTable, bookable, paid, type LicenseView } from "~/components/hauler";
import { money } from "~/components/money";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, type GqlResult } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Hauler licence | Tapline" }];

/** The form's visible labels by the keys the API reports, in the form's order. */
export const LABELS: Record<string, string> = {
  permitNumber: "Part 364 permit number",
  expiresOn: "Expiry date",
  file: "The renewed permit",
  documentId: "The renewed permit",
  filename: "The renewed permit",
  contentBase64: "The renewed permit",
  organizationId: "Hauling company",
  licenseId: "Licence",
};

type ActionData = { error: string; fields: Record<string, string>; values: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ haulerLicense: LicenseView }>(args, `query Licence($id: ID!) { haulerLicense(id: $id) { ${LICENSE_FIELDS} } }`, { id: args.params.id });
}

/** The owner files a renewed Part 364 permit (reinstates a licence invalid for a lapsed or revoked permit, SUL 802). */
export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { permitNumber: String(form.get("permitNumber") ?? "").trim(), expiresOn: String(form.get("expiresOn") ?? "").trim(), organizationId: String(form.get("organizationId") ?? "") };
  const results: GqlResult<any>[] = [];
  const fail = (error: string, fields: Record<string, string>) => Response.json({ error, fields, values } satisfies ActionData, { status: 400, headers: cookieHeaders(...results) });
  const file = form.get("file");
  if (!file || typeof file === "string" || file.size === 0) return fail("Upload the renewed Part 364 permit.", { file: "Choose the permit file (PDF, PNG or JPEG)." });
  const up = await gql<{ uploadDocument: { id: string } }>(context, request, `mutation UploadPart364($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, {
    i: { filename: file.name, contentBase64: Buffer.from(await file.arrayBuffer()).toString("base64"), organizationId: values.organizationId || null },
  });
  results.push(up);
  if (!up.ok) return fail(up.error.message, { file: up.error.message });
  const r = await gql(context, request, `mutation Part364($i: UpdateHaulerPart364Input!) { updateHaulerPart364(input: $i) { id } }`, {
    i: { licenseId: params.id, permitNumber: values.permitNumber, expiresOn: values.expiresOn, documentId: up.data.uploadDocument.id },
  });
  results.push(r);
  if (!r.ok) {
    // The upload's problem sits at the file input.
    const { documentId, ...rest } = r.error.fields ?? {};
    return fail(r.error.message, documentId ? { ...rest, file: documentId } : rest);
  }
  return redirect(`/haulers/licenses/${params.id}?done=part364`, { headers: cookieHeaders(...results) });
}

const DONE: Record<string, string> = {
  part364: "The Part 364 permit is on file.",
  submitted: "Your application is submitted.",
};

export default function Licence() {
  const { haulerLicense: l } = useLoaderData<typeof loader>() as { haulerLicense: LicenseView };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const showPart364 = l.viewerIsOwner && l.status === "APPROVED";
  return (
    <>
      <h1>{l.licenseNumber ? `Septage hauler licence ${l.licenseNumber}` : l.previousLicenseId ? "Licence renewal" : "Septage hauler licence application"}</h1>
      <p className="usa-intro">
        {l.organizationName} · {l.districtName}
      </p>
      {params.get("done") && !a && <SuccessAlert>{DONE[params.get("done")!] ?? "Done."}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <LicenseCard l={l} links={false} />
      <ul className="usa-button-group margin-bottom-3">
        {l.status === "DRAFT" && l.viewerIsOwner && (
          <li className="usa-button-group__item">
            <Link className="usa-button" to={`/haulers/licenses/${l.id}/edit`}>
              Continue the application
            </Link>
          </li>
        )}
        {l.payment?.status === "PENDING" && (
          <li className="usa-button-group__item">
            <Link className="usa-button" to={`/payments/${l.payment.id}`}>
              Pay {money(l.payment.amountCents)}
            </Link>
          </li>
        )}
        {l.renewalOpen && !l.renewal && l.viewerIsOwner && (
          <li className="usa-button-group__item">
            <Link className="usa-button usa-button--outline" to={`/haulers/licenses/${l.id}/renew`}>
              Renew this licence
            </Link>
          </li>
        )}
        {l.viewerIsMember && bookable(l) && l.loadBooking.ready && (
          <li className="usa-button-group__item">
            <Link className="usa-button" to={`/haulers/loads/new?licenseId=${l.id}`}>
              Book a load
            </Link>
          </li>
        )}
      </ul>
      {l.renewal && (
        <Notice>
          Renewal: {l.renewal.licenseNumber ? `licence ${l.renewal.licenseNumber}` : "an application"} (status: {l.renewal.statusLabel})
          {l.renewal.validFrom ? `, from ${formatCalendarDate(l.renewal.validFrom)}` : ""}.{" "}
          <Link className="usa-link" to={`/haulers/licenses/${l.renewal.id}`}>
            Open the renewal
          </Link>
        </Notice>
      )}
      {!l.renewal && l.renewalOpensOn && !l.renewalOpen && <p>Renewal opens on {formatCalendarDate(l.renewalOpensOn)}.</p>}
      {l.status === "SUBMITTED" && (
        <p>{paid(l.payment?.status) || !l.payment ? "The application fee is paid; the Town Board reviews the application." : "The Town Board reviews the application once the fee is paid."}</p>
      )}
      {l.decisionReason && (
        <p>
          <strong>The Town Board:</strong> {l.decisionReason}
        </p>
      )}

      <h2>Vehicles</h2>
      <VehiclesTable vehicles={l.vehicles} caption={`Trucks on ${l.licenseNumber ? `licence ${l.licenseNumber}` : "the application"}`} />

      <h2>Application</h2>
      <dl className="tapline-facts">
        <dt>Approximate annual volume</dt>
        <dd>{l.annualVolumeGallons ? `${l.annualVolumeGallons.toLocaleString("en-US")} gallons` : "not given"}</dd>
        <dt>Service area</dt>
        <dd>{l.serviceArea ?? "not given"}</dd>
        {l.otherInformation && (
          <>
            <dt>Other information</dt>
            <dd>{l.otherInformation}</dd>
          </>
        )}
        <dt>Application fee</dt>
        <dd>
          {l.applicationFeeCents !== null ? money(l.applicationFeeCents) : "set on submission"}
          {l.payment && paid(l.payment.status) && (
            <>
              {" "}
              (paid, receipt{" "}
              <Link className="usa-link" to={`/payments/${l.payment.id}/receipt`}>
                {l.payment.receiptNumber}
              </Link>
              )
            </>
          )}
        </dd>
      </dl>

      {showPart364 && (
        <>
          <h2>File a renewed Part 364 permit</h2>
          <p>The licence is valid only while your NYSDEC Part 364 permit is (Sewer Use Law 802). When you renew the permit, upload it here with its new expiry date.</p>
          <Form method="post" encType="multipart/form-data" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="organizationId" value={l.organizationId} />
            <TextField name="permitNumber" label={LABELS.permitNumber} defaultValue={a?.values.permitNumber ?? l.part364PermitNumber} error={a?.fields.permitNumber} required />
            <TextField name="expiresOn" type="date" label={LABELS.expiresOn} defaultValue={a?.values.expiresOn} error={a?.fields.expiresOn} required />
            <div className={`usa-form-group${a?.fields.file ? " usa-form-group--error" : ""}`}>
              <label className={`usa-label${a?.fields.file ? " usa-label--error" : ""}`} htmlFor="file">
                {LABELS.file} (PDF, PNG or JPEG)<span className="usa-hint"> (required)</span>
              </label>
              {a?.fields.file && (
                <span className="usa-error-message" id="file-error" role="alert">
                  {a.fields.file}
                </span>
              )}
              <input
                className={`usa-file-input${a?.fields.file ? " usa-input--error" : ""}`}
                id="file"
                name="file"
                type="file"
                aria-invalid={a?.fields.file ? true : undefined}
                aria-describedby={a?.fields.file ? "file-error" : undefined}
                accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"
              />
            </div>
            <button className="usa-button" type="submit">
              File the permit
            </button>
          </Form>
        </>
      )}
      <p>
        <Link className="usa-link" to={`/haulers?organizationId=${l.organizationId}`}>
          Back to septage hauling
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

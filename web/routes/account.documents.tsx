import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, redirect, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { SelectField } from "~/components/fields";
import { DateTime, clockOf } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Documents | Tapline" }];

type Doc = { id: string; filename: string; contentType: string; sizeBytes: number; createdAt: string; downloadUrl: string; organizationId: string | null };
type Mine = { role: string; organization: { id: string; name: string } };
type Policy = { maxBytes: number; maxSize: string };
type Data = { myDocuments: Doc[]; myOrganizations: Mine[]; documentUploadPolicy: Policy; districts: { timeZone: string }[] };
type ActionData = { error: string; fields: Record<string, string>; values: { organizationId: string } };

const PATH = "/account/documents";
const TYPE_LABELS: Record<string, string> = { "application/pdf": "PDF", "image/png": "PNG image", "image/jpeg": "JPEG image" };
/** The upload form's labels, in its order. */
export const LABELS = { file: "File", organizationId: "Uploaded for" };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<Data>(
    args,
    `query MyDocuments { myDocuments { id filename contentType sizeBytes createdAt downloadUrl organizationId } myOrganizations { role organization { id name } } documentUploadPolicy { maxBytes maxSize } districts { timeZone } }`,
  );
}

/** The API names the content `content`; on this page it is the file input. */
function fieldsForPage(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) out[k === "content" || k === "contentBase64" || k === "filename" ? "file" : k] = v;
  return out;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const values = { organizationId: String(form.get("organizationId") ?? "") };
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) =>
    Response.json({ error, fields, values } satisfies ActionData, { status: 400, headers });

  const file = form.get("file");
  // Duck-typed: the File class differs between Node's fetch and Remix's polyfill.
  if (!file || typeof file === "string" || (file.size === 0 && !file.name)) return fail("Please correct the highlighted fields.", { file: "Choose a file to upload." });

  // Refuse an oversize file here, before base64-encoding it in memory; the API checks again.
  const policy = await gql<{ documentUploadPolicy: Policy }>(context, request, `query DocumentUploadPolicy { documentUploadPolicy { maxBytes maxSize } }`);
  if (!policy.ok) {
    if (policy.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(PATH)}`, { headers: cookieHeaders(policy) });
    throw new Response(policy.error.message, { status: 500 });
  }
  const { maxBytes, maxSize } = policy.data.documentUploadPolicy;
  if (file.size > maxBytes) {
    const message = `The file is larger than the ${maxSize} limit. Upload a smaller file.`;
    return fail(message, { file: message }, cookieHeaders(policy));
  }

  const contentBase64 = Buffer.from(await file.arrayBuffer()).toString("base64");
  const r = await gql<{ uploadDocument: { id: string } }>(
    context,
    request,
    `mutation UploadDocument($input: UploadDocumentInput!) { uploadDocument(input: $input) { id } }`,
    { input: { filename: file.name, contentBase64, organizationId: values.organizationId || null } },
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(PATH)}`, { headers: cookieHeaders(policy, r) });
    return fail(r.error.message, fieldsForPage(r.error.fields), cookieHeaders(policy, r));
  }
  return redirect(`${PATH}?done=uploaded`, { headers: cookieHeaders(policy, r) });
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export default function Documents() {
  const { myDocuments, myOrganizations, documentUploadPolicy, districts } = useLoaderData<typeof loader>() as Data;
  // An upload belongs to no district: its time is on the portal's clock (docs/decisions/portal-clock.md).
  const tz = clockOf(districts);
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const uploading = useNavigation().state === "submitting";
  const orgName = new Map(myOrganizations.map((m) => [m.organization.id, m.organization.name]));
  const fileError = a?.fields?.file;
  const describedBy = ["file-hint", fileError ? "file-error" : null].filter(Boolean).join(" ");
  return (
    <>
      <h1>Documents</h1>
      <p>
        Keep the documents the district asks for here: site plans, lab reports, licences and photos. Only you can open a document, and, if
        you upload it for one of your organizations, the members of that organization.
      </p>
      {params.get("done") === "uploaded" && !a && <SuccessAlert>The document is uploaded.</SuccessAlert>}

      <h2>Your documents</h2>
      {myDocuments.length === 0 ? (
        <p>You have not uploaded any documents yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption className="usa-sr-only">Your documents, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type and size</th>
              <th scope="col">For</th>
              <th scope="col">Uploaded</th>
            </tr>
          </thead>
          <tbody>
            {myDocuments.map((d) => (
              <tr key={d.id}>
                <th scope="row" data-label="Name">
                  {/* A plain link: the download is served by the API, not by a portal page. */}
                  <a className="usa-link" href={d.downloadUrl} download={d.filename}>
                    {d.filename}
                    <span className="usa-sr-only"> (download)</span>
                  </a>
                </th>
                <td data-label="Type and size">
                  {TYPE_LABELS[d.contentType] ?? d.contentType}, {formatSize(d.sizeBytes)}
                </td>
                <td data-label="For">{d.organizationId ? (orgName.get(d.organizationId) ?? "An organization") : "Only you"}</td>
                <td data-label="Uploaded">
                  <DateTime iso={d.createdAt} timeZone={tz} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2 id="upload-heading">Upload a document</h2>
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />
      <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large" noValidate aria-labelledby="upload-heading">
        <AuthenticityTokenInput />
        <div className={`usa-form-group${fileError ? " usa-form-group--error" : ""}`}>
          <label className={`usa-label${fileError ? " usa-label--error" : ""}`} htmlFor="file">
            File<span className="usa-sr-only"> (required)</span>
          </label>
          <div className="usa-hint" id="file-hint">
            PDF, PNG or JPEG, up to {documentUploadPolicy.maxSize}.
          </div>
          {fileError && (
            <span className="usa-error-message" id="file-error" role="alert">
              {fileError}
            </span>
          )}
          <input
            className={`usa-file-input${fileError ? " usa-input--error" : ""}`}
            id="file"
            name="file"
            type="file"
            accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"
            required
            aria-invalid={fileError ? true : undefined}
            aria-describedby={describedBy}
          />
        </div>
        {myOrganizations.length > 0 && (
          <SelectField
            name="organizationId"
            label="Uploaded for (optional)"
            hint="Members of the organization you choose can open the document too."
            options={[{ value: "", label: "Only me" }, ...myOrganizations.map((m) => ({ value: m.organization.id, label: m.organization.name }))]}
            defaultValue={a?.values.organizationId}
            error={a?.fields?.organizationId}
          />
        )}
        <button className="usa-button" type="submit" disabled={uploading}>
          {uploading ? "Uploading…" : "Upload document"}
        </button>
      </Form>
    </>
  );
}

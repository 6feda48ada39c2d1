import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useOutlet, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { DateTime, daysLeftText, formatCalendarDate, statusLabel, todayIn } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { CLASS_LABELS, INSPECTION_STATUS, PERMIT_VIEW_FIELDS, USE_LABELS, WORK_LABELS, inspectionWhen, money, type PermitView } from "~/components/permit-view";
import { FeeLinesTable } from "~/components/fee-lines";
import { DocumentLinks } from "~/components/document-links";

export const meta: MetaFunction = () => [{ title: "Lateral permit | Tapline" }];

export async function loader(args: LoaderFunctionArgs) {
  // /permits/:id/edit is a page of its own (rendered in place of this one).
  if (/\/edit\/?$/.test(new URL(args.request.url).pathname)) return null;
  return requireSignedIn<{ lateralPermit: PermitView }>(args, `query Permit($id: ID!) { lateralPermit(id: $id) { ${PERMIT_VIEW_FIELDS} } }`, { id: args.params.id });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const here = `/permits/${params.id}`;
  const text = (k: string) => String(form.get(k) ?? "").trim() || null;
  let r;
  if (intent === "withdraw") {
    r = await gql(context, request, `mutation Withdraw($id: ID!, $r: String) { withdrawLateralPermit(id: $id, reason: $r) { id } }`, { id: params.id, r: text("reason") });
  } else if (intent === "drawings") {
    const files = form.getAll("drawings").filter((f): f is File => typeof f !== "string" && f.size > 0);
    const newDrawings = await Promise.all(files.map(async (f) => ({ filename: f.name, contentBase64: Buffer.from(await f.arrayBuffer()).toString("base64") })));
    r = await gql(context, request, `mutation FileDrawings($i: FileRecordDrawingsInput!) { fileRecordDrawings(input: $i) { id } }`, { i: { permitId: params.id, newDrawings } });
  } else {
    r = await gql(context, request, `mutation RequestInspection($id: ID!, $k: String, $n: String, $d: String) { requestInspection(permitId: $id, kind: $k, notes: $n, preferredOn: $d) { id } }`, {
      id: params.id,
      k: text("kind"),
      n: text("notes"),
      d: text("preferredOn"),
    });
  }
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    // An upload's problem ("newDrawings.0", "documentIds") belongs to the drawings field on this page; the
    // inspection asked for (kind, permitId) to the request's first field.
    const onPage = (k: string) =>
      /^(drawings|newDrawings|documentIds)\b/.test(k) || (intent === "drawings" && k === "permitId") ? "drawings" : k === "kind" || k === "permitId" ? "preferredOn" : k;
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.error.fields ?? {})) fields[onPage(k)] = fields[onPage(k)] ? `${fields[onPage(k)]} ${v}` : v;
    return Response.json({ error: r.error.message, fields }, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`${here}?done=${intent === "withdraw" ? "withdrawn" : intent === "drawings" ? "drawings" : "requested"}`, { headers: cookieHeaders(r) });
}

export default function PermitPage() {
  const outlet = useOutlet();
  if (outlet) return outlet;
  return <PermitDetails />;
}

const DONE: Record<string, string> = {
  withdrawn: "Your application is withdrawn.",
  requested: "Your request is sent. The {operator} will schedule the inspection and tell you the date and time.",
  submitted: "Your application is submitted.",
  drawings: "Your as-built drawings are filed. The {operator} reviews them.",
};

/** The labels of this page's forms by the keys the API reports, in the page's order. */
export const LABELS: Record<string, string> = {
  permitId: "Preferred day",
  kind: "Preferred day",
  preferredOn: "Preferred day",
  notes: "Note for the inspector",
  drawings: "As-built drawings",
  newDrawings: "As-built drawings",
  "newDrawings.*.filename": "As-built drawings",
  "newDrawings.*.contentBase64": "As-built drawings",
  "newDrawings.*.organizationId": "As-built drawings",
  documentIds: "As-built drawings",
  reason: "Why",
};

function PermitDetails() {
  const { lateralPermit: p } = useLoaderData<typeof loader>() as { lateralPermit: PermitView };
  const a = useActionData<{ error: string; fields: Record<string, string> }>();
  const [params] = useSearchParams();
  const tz = p.district.timeZone;
  const mine = p.viewerIsApplicant;
  const paid = p.payment && ["PAID", "PARTIALLY_REFUNDED", "REFUNDED"].includes(p.payment.status);
  return (
    <>
      <h1>{p.permitNumber ? `Lateral permit ${p.permitNumber}` : "Lateral permit application"}</h1>
      <p className="usa-intro">
        {p.address} · {p.district.name}
      </p>
      {params.get("done") && !a && <SuccessAlert>{(DONE[params.get("done")!] ?? "Done.").replace("{operator}", p.district.operatorTitle)}</SuccessAlert>}
      {params.get("submitted") && !a && <SuccessAlert>{DONE.submitted}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={LABELS} />

      <section className="usa-summary-box" aria-labelledby="status-heading">
        <div className="usa-summary-box__body">
          <h2 className="usa-summary-box__heading" id="status-heading">
            Status: <span className="usa-tag">{p.statusLabel}</span>
          </h2>
          <div className="usa-summary-box__text">
            {p.nextStep.text && (
              <p>
                <strong>Next:</strong> {p.nextStep.text}
                {p.nextStep.dueDate && (
                  <>
                    {" "}
                    (by {formatCalendarDate(p.nextStep.dueDate)}, {daysLeftText(p.nextStep.daysLeft)})
                  </>
                )}
              </p>
            )}
            {mine && p.status === "SUBMITTED" && p.payment?.status === "PENDING" && (
              <p>
                <Link className="usa-button" to={`/payments/${p.payment.id}`}>
                  Pay {money(p.feeTotalCents)}
                </Link>
              </p>
            )}
            {mine && (p.status === "DRAFT" || p.status === "CHANGES_REQUESTED") && (
              <p>
                <Link className="usa-button" to={`/permits/${p.id}/edit`}>
                  {p.status === "DRAFT" ? "Continue the application" : "Make the changes"}
                </Link>
              </p>
            )}
            {p.pdfUrl && (
              <p>
                <a className="usa-link" href={p.pdfUrl}>
                  Download the permit (PDF)
                </a>
              </p>
            )}
          </div>
        </div>
      </section>

      {p.status === "CHANGES_REQUESTED" && p.reviewNotes && (
        <Notice type="warning">
          <strong>The {p.district.operatorTitle} asks for changes:</strong> {p.reviewNotes}
        </Notice>
      )}
      {p.contractor && !p.contractor.standing.choosable && !["CLOSED", "WITHDRAWN"].includes(p.status) && (
        <Notice type="warning">
          <strong>{p.contractor.name} can no longer be chosen:</strong> {p.contractor.standing.reasons.join(" ")} Contact the district office about
          this permit.
        </Notice>
      )}

      {p.feeLines.length > 0 && (
        <section aria-labelledby="fees-heading">
          <h2 id="fees-heading">Fees</h2>
          <FeeLinesTable depositNotes={false} lines={p.feeLines} totalCents={p.feeTotalCents} caption="What you pay, and the section of the law each amount comes from" />
          {p.payment && (
            <p>
              {paid ? (
                <>
                  Paid: receipt{" "}
                  <Link className="usa-link" to={`/payments/${p.payment.id}/receipt`}>
                    {p.payment.receiptNumber}
                  </Link>
                  , <DateTime iso={p.payment.paidAt} timeZone={tz} />.
                </>
              ) : (
                <>
                  Not paid yet.{" "}
                  <Link className="usa-link" to={`/payments/${p.payment.id}`}>
                    See the payment
                  </Link>
                </>
              )}
            </p>
          )}
          {p.payment && p.payment.refunds.length > 0 && (
            <ul className="usa-list">
              {p.payment.refunds.map((r) => (
                <li key={r.receiptNumber}>
                  Returned {money(r.amountCents)} (refund receipt {r.receiptNumber}, <DateTime iso={r.createdAt} timeZone={tz} />)
                </li>
              ))}
            </ul>
          )}
          {p.depositRefund && !p.depositRefund.refunded && <p>The as-built deposit of {money(p.depositRefund.amountCents)} is due back to you; the Town Clerk refunds it.</p>}
        </section>
      )}

      {p.requiredInspections.length > 0 && p.status !== "DRAFT" && p.status !== "WITHDRAWN" && (
        <section aria-labelledby="inspections-heading">
          <h2 id="inspections-heading">Inspections</h2>
          {p.status === "SUBMITTED" || p.status === "CHANGES_REQUESTED" ? (
            <p>Once the permit is issued you ask for each inspection here when the work is ready.</p>
          ) : null}
          <table className="usa-table usa-table--borderless usa-table--stacked width-full">
            <caption className="usa-sr-only">Inspections the district requires, in the order the work goes</caption>
            <thead>
              <tr>
                <th scope="col">Inspection</th>
                <th scope="col">Law</th>
                <th scope="col">Status</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {p.requiredInspections.map((r) => {
                const latest = [...p.inspections].reverse().find((i) => i.kind === r.kind);
                return (
                  <tr key={r.kind}>
                    <th scope="row" data-label="Inspection">
                      {r.label}
                    </th>
                    <td data-label="Law">{r.section}</td>
                    <td data-label="Status">
                      {statusLabel(r.status, INSPECTION_STATUS)}
                      {latest?.status === "FAILED" && latest.resultNotes && r.status === "FAILED" && <span className="display-block">{latest.resultNotes}</span>}
                    </td>
                    <td data-label="When">{latest ? inspectionWhen(latest, tz) : ""}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {mine && p.status === "APPROVED" && <RequestInspection p={p} fields={a?.fields ?? {}} />}
          {p.inspections.length > 0 && (
            <details className="tapline-details">
              <summary>Every inspection, with results</summary>
              <ul className="usa-list">
                {p.inspections.map((i) => (
                  <li key={i.id}>
                    {i.kindLabel}: {statusLabel(i.status, INSPECTION_STATUS)}, {inspectionWhen(i, tz)}
                    {i.inspectorName ? `, ${i.inspectorName}` : ""}
                    {i.resultNotes ? `: ${i.resultNotes}` : ""}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </section>
      )}

      {(p.status === "CONNECTED" || p.status === "CLOSED") && p.requirements.asBuiltDrawings.required && <RecordDrawings p={p} fields={a?.fields ?? {}} />}

      <section aria-labelledby="application-heading">
        <h2 id="application-heading">The application</h2>
        <dl className="tapline-facts">
          <dt>Property</dt>
          <dd>{p.address}</dd>
          <dt>Tax parcel</dt>
          <dd>{p.taxParcel ?? "Not given"}</dd>
          <dt>Owner</dt>
          <dd>{p.ownerName ?? "Not given"}</dd>
          {p.agentName && (
            <>
              <dt>Agent</dt>
              <dd>{p.agentName}</dd>
            </>
          )}
          <dt>Class</dt>
          <dd>{p.permitClass ? CLASS_LABELS[p.permitClass] : "Not given"}</dd>
          <dt>Building use</dt>
          <dd>
            {p.buildingUse ? USE_LABELS[p.buildingUse] : "Not given"}
            {p.floorAreaSqft ? `, ${p.floorAreaSqft.toLocaleString("en-US")} sq ft` : ""}
          </dd>
          <dt>Work</dt>
          <dd>{p.workKind ? WORK_LABELS[p.workKind] : "Not given"}</dd>
          {p.requirements.approvedContractor.required ? (
            <>
              <dt>Contractor</dt>
              <dd>{p.contractor?.name ?? "Not chosen"}</dd>
            </>
          ) : (
            <>
              <dt>Who does the work</dt>
              <dd>{p.workDoneBy ?? "Not named"}</dd>
            </>
          )}
          {p.requirements.asBuiltDrawings.required && (
            <>
              <dt>Sheets of plans</dt>
              <dd>{p.asBuiltSheets ?? "Not given"}</dd>
            </>
          )}
          <dt>Plans</dt>
          <dd>
            {p.documents.length === 0
              ? "None attached"
              : <DocumentLinks documents={p.documents} />}
          </dd>
          {p.submittedAt && (
            <>
              <dt>Submitted</dt>
              <dd>
                <DateTime iso={p.submittedAt} timeZone={tz} />
              </dd>
            </>
          )}
          {p.approvedAt && (
            <>
              <dt>Permit issued</dt>
              <dd>
                <DateTime iso={p.approvedAt} timeZone={tz} />
              </dd>
            </>
          )}
          {p.connectedAt && (
            <>
              <dt>Connection accepted</dt>
              <dd>
                <DateTime iso={p.connectedAt} timeZone={tz} />
              </dd>
            </>
          )}
        </dl>
      </section>

      {p.checklist.length > 0 && p.status !== "WITHDRAWN" && (
        <details className="tapline-details">
          <summary>What the lateral must meet</summary>
          <ul className="usa-list">
            {p.checklist.map((c) => (
              <li key={c.key}>
                {c.requirement} ({c.section})
              </li>
            ))}
          </ul>
        </details>
      )}

      {mine && ["DRAFT", "SUBMITTED", "CHANGES_REQUESTED"].includes(p.status) && (
        <details className="tapline-details">
          <summary>Withdraw the application</summary>
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="withdraw" />
            <label className="usa-label" htmlFor="reason">
              {LABELS.reason} <span className="usa-hint">(optional)</span>
            </label>
            <input className="usa-input" id="reason" name="reason" aria-invalid={a?.fields?.reason ? true : undefined} />
            <button className="usa-button usa-button--secondary" type="submit">
              Withdraw the application
            </button>
          </Form>
        </details>
      )}
      <p>
        <Link className="usa-link" to="/permits">
          All my permits
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

/** One request form for the next inspection the work needs, with the day the applicant would like and a note. */
function RequestInspection({ p, fields }: { p: PermitView; fields: Record<string, string> }) {
  const next = p.requiredInspections.find((r) => r.requestable);
  if (!next) return null;
  const again = next.status === "FAILED";
  const tz = p.district.timeZone;
  return (
    <Form method="post" className="usa-form tapline-details" id="request-inspection">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="request" />
      <input type="hidden" name="kind" value={next.kind} />
      <h3 className="margin-top-0">
        {again ? "Ask again for the" : "Ask for the"} {next.label.charAt(0).toLowerCase() + next.label.slice(1)}
      </h3>
      <p className="usa-hint">
        When the work is ready for it ({next.section}). The {p.district.operatorTitle} sets the date and time and tells you; later inspections are asked for once this
        one has passed.
      </p>
      <div className={`usa-form-group${fields.preferredOn ? " usa-form-group--error" : ""}`}>
        <label className="usa-label" htmlFor="preferredOn">
          {LABELS.preferredOn} <span className="usa-hint">(optional)</span>
        </label>
        {fields.preferredOn && (
          <span className="usa-error-message" id="preferredOn-error" role="alert">
            {fields.preferredOn}
          </span>
        )}
        <input
          className="usa-input"
          id="preferredOn"
          name="preferredOn"
          type="date"
          min={todayIn(tz)}
          aria-invalid={fields.preferredOn ? true : undefined}
          aria-describedby={fields.preferredOn ? "preferredOn-error" : undefined}
        />
      </div>
      <div className={`usa-form-group${fields.notes ? " usa-form-group--error" : ""}`}>
        <label className="usa-label" htmlFor="notes">
          {LABELS.notes} <span className="usa-hint">(optional)</span>
        </label>
        {fields.notes && (
          <span className="usa-error-message" id="notes-error" role="alert">
            {fields.notes}
          </span>
        )}
        <textarea
          className="usa-textarea"
          id="notes"
          name="notes"
          maxLength={2000}
          aria-invalid={fields.notes ? true : undefined}
          aria-describedby={fields.notes ? "notes-error" : undefined}
        />
      </div>
      <button className="usa-button" type="submit">
        Request {again ? "again" : "inspection"}
        <span className="usa-sr-only">: {next.label}</span>
      </button>
    </Form>
  );
}

/** The as-built drawings of SUL 606 B: what the law asks, the upload, and what was filed. */
function RecordDrawings({ p, fields }: { p: PermitView; fields: Record<string, string> }) {
  const need = p.requirements.asBuiltDrawings;
  const canFile = p.viewerIsApplicant && p.status === "CONNECTED";
  return (
    <section aria-labelledby="drawings-heading">
      <h2 id="drawings-heading">As-built (record) drawings</h2>
      <p>
        The district accepts the sewer only once it has the as-built drawings ({need.section}): a drawing showing where each lateral connection was actually
        made, with at least three tie lines to fixed points
        {need.copies ? `; ${need.copies} paper copies go to the ${p.district.operatorTitle}` : ""}. The as-built deposit is refunded once the {p.district.operatorTitle} approves
        them.
      </p>
      {p.recordDrawings.length > 0 && (
        <p>
          Filed
          {p.asBuiltFiledAt && (
            <>
              {" "}
              <DateTime iso={p.asBuiltFiledAt} timeZone={p.district.timeZone} />
            </>
          )}
          :{" "}
          <DocumentLinks documents={p.recordDrawings} />
        </p>
      )}
      {canFile && (
        <Form method="post" encType="multipart/form-data" className="usa-form">
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="drawings" />
          <div className={`usa-form-group${fields.drawings ? " usa-form-group--error" : ""}`}>
            <label className="usa-label" htmlFor="drawings">
              {LABELS.drawings}{" "}
              <span className="usa-hint">(PDF, PNG or JPEG{p.recordDrawings.length ? "; they replace those filed" : ""})</span>
            </label>
            {fields.drawings && (
              <span className="usa-error-message" id="drawings-error" role="alert">
                {fields.drawings}
              </span>
            )}
            <input
              className="usa-file-input"
              id="drawings"
              name="drawings"
              type="file"
              multiple
              accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"
              aria-invalid={fields.drawings ? true : undefined}
              aria-describedby={fields.drawings ? "drawings-error" : undefined}
            />
          </div>
          <button className="usa-button" type="submit">
            File the as-built drawings
          </button>
        </Form>
      )}
    </section>
  );
}

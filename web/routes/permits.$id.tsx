import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useOutlet, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { DateTime } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { CLASS_LABELS, INSPECTION_STATUS, PERMIT_VIEW_FIELDS, USE_LABELS, WORK_LABELS, districtTime, money, type PermitView } from "~/components/permit-view";
import { FeeLinesTable } from "~/components/fee-lines";

export const meta: MetaFunction = () => [{ title: "Lateral permit | Tapline" }];

export async function loader(args: LoaderFunctionArgs) {
  // /permits/:id/edit is a page of its own (rendered in place of this one).
  if (new URL(args.request.url).pathname.replace(/\/$/, "") !== `/permits/${args.params.id}`) return null;
  return requireSignedIn<{ lateralPermit: PermitView }>(args, `query Permit($id: ID!) { lateralPermit(id: $id) { ${PERMIT_VIEW_FIELDS} } }`, { id: args.params.id });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const here = `/permits/${params.id}`;
  const r =
    intent === "withdraw"
      ? await gql(context, request, `mutation Withdraw($id: ID!, $r: String) { withdrawLateralPermit(id: $id, reason: $r) { id } }`, {
          id: params.id,
          r: String(form.get("reason") ?? "") || null,
        })
      : await gql(context, request, `mutation RequestInspection($id: ID!, $k: String!, $n: String) { requestInspection(permitId: $id, kind: $k, notes: $n) { id } }`, {
          id: params.id,
          k: String(form.get("kind") ?? ""),
          n: String(form.get("notes") ?? "") || null,
        });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message, fields: r.error.fields }, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`${here}?done=${intent === "withdraw" ? "withdrawn" : "requested"}`, { headers: cookieHeaders(r) });
}

export default function PermitPage() {
  const outlet = useOutlet();
  if (outlet) return outlet;
  return <PermitDetails />;
}

const DONE: Record<string, string> = {
  withdrawn: "Your application is withdrawn.",
  requested: "Your request is sent. The District Operator will schedule the inspection and tell you the date and time.",
  submitted: "Your application is submitted.",
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
      {params.get("done") && !a && <SuccessAlert>{DONE[params.get("done")!] ?? "Done."}</SuccessAlert>}
      {params.get("submitted") && !a && <SuccessAlert>{DONE.submitted}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} />

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
                    (by {p.nextStep.dueDate}, {p.nextStep.daysLeft} {p.nextStep.daysLeft === 1 ? "day" : "days"} left)
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
          <strong>The District Operator asks for changes:</strong> {p.reviewNotes}
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
            <caption className="usa-sr-only">Inspections the district requires</caption>
            <thead>
              <tr>
                <th scope="col">Inspection</th>
                <th scope="col">Law</th>
                <th scope="col">Status</th>
                <th scope="col">When</th>
                {mine && p.status === "APPROVED" && <th scope="col">Ask for it</th>}
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
                      {INSPECTION_STATUS[r.status] ?? r.status}
                      {latest?.status === "FAILED" && latest.resultNotes && r.status === "FAILED" && <span className="display-block">{latest.resultNotes}</span>}
                    </td>
                    <td data-label="When">{latest?.scheduledFor && latest.status !== "REQUESTED" ? districtTime(latest.scheduledFor, tz) : ""}</td>
                    {mine && p.status === "APPROVED" && (
                      <td data-label="Ask for it">
                        {r.requestable ? (
                          <Form method="post">
                            <AuthenticityTokenInput />
                            <input type="hidden" name="intent" value="request" />
                            <input type="hidden" name="kind" value={r.kind} />
                            <button className="usa-button usa-button--outline" type="submit">
                              Request {r.status === "FAILED" ? "again" : "inspection"}
                              <span className="usa-sr-only">: {r.label}</span>
                            </button>
                          </Form>
                        ) : null}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
          {p.inspections.length > 0 && (
            <details className="tapline-details">
              <summary>Every inspection, with results</summary>
              <ul className="usa-list">
                {p.inspections.map((i) => (
                  <li key={i.id}>
                    {i.kindLabel}: {INSPECTION_STATUS[i.status] ?? i.status}
                    {i.scheduledFor ? `, ${districtTime(i.scheduledFor, tz)}` : ""}
                    {i.inspectorName ? `, ${i.inspectorName}` : ""}
                    {i.resultNotes ? `: ${i.resultNotes}` : ""}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </section>
      )}

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
              : p.documents.map((d, i) => (
                  <span key={d.id}>
                    {i > 0 && ", "}
                    <a className="usa-link" href={d.downloadUrl}>
                      {d.filename}
                    </a>
                  </span>
                ))}
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
              Why (optional)
            </label>
            <input className="usa-input" id="reason" name="reason" />
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

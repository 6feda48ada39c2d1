import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice, RadioGroup, SelectField, TextAreaField } from "~/components/fields";
import { DateTime, formatCalendarDate, statusLabel } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { CLASS_LABELS, INSPECTION_STATUS, PERMIT_VIEW_FIELDS, USE_LABELS, WORK_LABELS, inspectionWhen, money, type PermitView } from "~/components/permit-view";
import { DocumentLinks } from "~/components/document-links";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Review a lateral permit | Staff | Tapline" }];

type Data = { lateralPermit: PermitView; districtStaff: { userId: string; displayName: string; roles: string[] }[] };
type ActionData = { error: string; fields: Record<string, string>; intent: string; inspectionId?: string };

export async function loader(args: LoaderFunctionArgs) {
  const { lateralPermit } = await requireSignedIn<{ lateralPermit: PermitView }>(args, `query ReviewPermit($id: ID!) { lateralPermit(id: $id) { ${PERMIT_VIEW_FIELDS} } }`, {
    id: args.params.id,
  });
  const staff = lateralPermit.viewerIsOperator
    ? await requireSignedIn<{ districtStaff: Data["districtStaff"] }>(args, `query Operators($d: ID!) { districtStaff(districtId: $d) { userId displayName roles } }`, {
        d: lateralPermit.district.id,
      })
    : { districtStaff: [] };
  return { lateralPermit, districtStaff: staff.districtStaff.filter((s) => s.roles.includes("OPERATOR")) } satisfies Data;
}

const MUTATIONS: Record<string, { query: string; done: string; vars: (form: FormData, id: string) => Record<string, unknown> }> = {
  approve: { query: `mutation Approve($id: ID!) { approveLateralPermit(id: $id) { id } }`, done: "The permit is issued and the applicant told.", vars: (_f, id) => ({ id }) },
  changes: {
    query: `mutation Changes($id: ID!, $n: String!) { requestLateralPermitChanges(id: $id, notes: $n) { id } }`,
    done: "The application is sent back to the applicant with your notes.",
    vars: (f, id) => ({ id, n: String(f.get("notes") ?? "") }),
  },
  schedule: {
    query: `mutation Schedule($i: ScheduleInspectionInput!) { scheduleInspection(input: $i) { id } }`,
    done: "The inspection is scheduled and the applicant told.",
    vars: (f) => ({ i: { inspectionId: String(f.get("inspectionId") ?? ""), scheduledFor: String(f.get("scheduledFor") ?? ""), inspectorId: String(f.get("inspectorId") ?? "") || null } }),
  },
  record: {
    query: `mutation Record($i: RecordInspectionResultInput!) { recordInspectionResult(input: $i) { id } }`,
    done: "The result is recorded and the applicant told.",
    vars: (f) => ({
      i: { inspectionId: String(f.get("inspectionId") ?? ""), result: String(f.get("result") ?? ""), notes: String(f.get("notes") ?? "") || null, inspectedAt: String(f.get("inspectedAt") ?? "") || null },
    }),
  },
  drawings: {
    query: `mutation Drawings($id: ID!) { approveRecordDrawings(id: $id) { id } }`,
    done: "The record drawings are approved and the permit closed; the Clerk is told to refund the deposit.",
    vars: (_f, id) => ({ id }),
  },
};

/** The labels of this page's forms by the keys the API reports, in the page's order. */
export const LABELS: Record<string, string> = {
  notes: "Changes the applicant must make",
  inspectionId: "Inspection",
  scheduledFor: "Date and time",
  inspectorId: "Inspector",
  result: "Result",
  inspectedAt: "When it took place",
};

/** Each inspection has its own forms: a key of theirs is shown on that inspection's field. */
const INSPECTION_FIELDS: Record<string, Record<string, string>> = {
  schedule: { scheduledFor: "when", inspectorId: "inspector", inspectionId: "when" },
  record: { result: "passed", inspectedAt: "inspected", notes: "result-notes", inspectionId: "passed" },
};
const fieldIdOf = (intent: string, inspectionId: string, key: string) => {
  const prefix = INSPECTION_FIELDS[intent]?.[key] ?? Object.values(INSPECTION_FIELDS[intent] ?? {})[0];
  return prefix && inspectionId ? `${prefix}-${inspectionId}` : key;
};

/** The labels of one inspection's fields, as the page shows them. */
function inspectionLabels(i: { id: string; kindLabel: string }, tz: string): Record<string, string> {
  const zone = tz.replace(/_/g, " ");
  return {
    [`when-${i.id}`]: `Date and time (${zone})`,
    [`inspector-${i.id}`]: "Inspector",
    [`passed-${i.id}`]: `Result of the ${i.kindLabel.toLowerCase()}`,
    [`inspected-${i.id}`]: `When it took place (${zone})`,
    [`result-notes-${i.id}`]: "Notes (required when it failed)",
  };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const m = MUTATIONS[intent];
  if (!m) return Response.json({ error: "Unknown action.", fields: {}, intent } satisfies ActionData, { status: 400 });
  const here = `/staff/permits/${params.id}`;
  const r = await gql(context, request, m.query, m.vars(form, params.id!));
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(here)}`, { headers: cookieHeaders(r) });
    const inspectionId = String(form.get("inspectionId") ?? "");
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.error.fields)) {
      const at = fieldIdOf(intent, inspectionId, k);
      fields[at] = fields[at] ? `${fields[at]} ${v}` : v;
    }
    return Response.json({ error: r.error.message, fields, intent, inspectionId } satisfies ActionData, {
      status: 400,
      headers: cookieHeaders(r),
    });
  }
  return redirect(`${here}?done=${encodeURIComponent(m.done)}`, { headers: cookieHeaders(r) });
}

/** "2026-12-07T09:30" for a datetime-local input, in the district's zone. */
function localInput(iso: string | null, timeZone: string): string | undefined {
  if (!iso) return undefined;
  const p = new Intl.DateTimeFormat("en-CA", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" }).formatToParts(new Date(iso));
  const g = (t: string) => p.find((x) => x.type === t)!.value;
  return `${g("year")}-${g("month")}-${g("day")}T${g("hour")}:${g("minute")}`;
}

export default function ReviewPermit() {
  const { lateralPermit: p, districtStaff } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const tz = p.district.timeZone;
  const op = p.viewerIsOperator;
  const paid = !!p.payment && ["PAID", "PARTIALLY_REFUNDED", "REFUNDED"].includes(p.payment.status);
  const open = p.inspections.filter((i) => i.status === "REQUESTED" || i.status === "SCHEDULED");
  const err = (fieldId: string) => (a?.intent === "schedule" || a?.intent === "record" ? a.fields?.[fieldId] : undefined);
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/permits?districtId=${p.district.id}`}>
          Back to the applications
        </Link>
      </p>
      <h1>{p.permitNumber ? `Lateral permit ${p.permitNumber}` : "Lateral permit application"}</h1>
      <p className="usa-intro">
        {p.address} · {p.applicantName} · <span className="usa-tag">{p.statusLabel}</span>
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={{ ...LABELS, ...Object.assign({}, ...open.map((i) => inspectionLabels(i, tz))) }} />
      {p.nextStep.text && (
        <p>
          <strong>Next:</strong> {p.nextStep.text}
          {p.nextStep.dueDate ? ` (by ${formatCalendarDate(p.nextStep.dueDate)})` : ""}
        </p>
      )}
      {p.contractor && !p.contractor.standing.choosable && !["CLOSED", "WITHDRAWN"].includes(p.status) && (
        <Notice type="warning">
          <strong>{p.contractor.name} can no longer be chosen:</strong> {p.contractor.standing.reasons.join(" ")}
        </Notice>
      )}

      <section aria-labelledby="application-heading">
        <h2 id="application-heading">The application</h2>
        <dl className="tapline-facts">
          <dt>Applicant</dt>
          <dd>{p.applicantName}</dd>
          <dt>Owner</dt>
          <dd>
            {p.ownerName}
            {p.agentName ? ` (agent: ${p.agentName})` : ""}
          </dd>
          <dt>Property</dt>
          <dd>
            {p.address}, tax parcel {p.taxParcel}
          </dd>
          <dt>Class</dt>
          <dd>{p.permitClass ? CLASS_LABELS[p.permitClass] : ""}</dd>
          <dt>Building use</dt>
          <dd>
            {p.buildingUse ? USE_LABELS[p.buildingUse] : ""}
            {p.floorAreaSqft ? `, ${p.floorAreaSqft.toLocaleString("en-US")} sq ft` : ""}
          </dd>
          <dt>Work</dt>
          <dd>{p.workKind ? WORK_LABELS[p.workKind] : ""}</dd>
          {p.requirements.approvedContractor.required ? (
            <>
              <dt>Contractor</dt>
              <dd>{p.contractor?.name ?? "None"}</dd>
            </>
          ) : (
            <>
              <dt>Who does the work</dt>
              <dd>{p.workDoneBy}</dd>
            </>
          )}
          <dt>Plans</dt>
          <dd>
            {p.documents.length === 0
              ? op
                ? "None filed with the application; ask for what the work needs with Request changes."
                : "Only the district's Operator and Clerk open the plans."
              : <DocumentLinks documents={p.documents} />}
            {p.asBuiltSheets !== null && ` (${p.asBuiltSheets} ${p.asBuiltSheets === 1 ? "sheet" : "sheets"} showing lateral connections)`}
          </dd>
          <dt>Submitted</dt>
          <dd>
            <DateTime iso={p.submittedAt} timeZone={tz} />
          </dd>
          <dt>Fees</dt>
          <dd>
            {p.feeLines.map((l) => (
              <span className="display-block" key={l.code}>
                {l.label} ({l.section}): {money(l.amountCents)}
              </span>
            ))}
            <strong>
              {p.feeTotalCents === 0
                ? "None: no fee applies to this permit"
                : `Total ${money(p.feeTotalCents)}: ${paid ? `paid, receipt ${p.payment!.receiptNumber}` : "not paid yet"}`}
            </strong>
            {p.payment && (
              <span className="display-block">
                <Link className="usa-link" to={`/payments/${p.payment.id}`}>
                  The payment
                </Link>
              </span>
            )}
          </dd>
          {p.reviewNotes && (
            <>
              <dt>Changes asked for</dt>
              <dd>{p.reviewNotes}</dd>
            </>
          )}
        </dl>
        {p.pdfUrl && (
          <p>
            <a className="usa-link" href={p.pdfUrl}>
              The permit (PDF)
            </a>
          </p>
        )}
      </section>

      <section aria-labelledby="checklist-heading">
        <h2 id="checklist-heading">Reviewer's checklist</h2>
        <p>The physical minimums of the district's rulebook the plans and the work must meet.</p>
        <table className="usa-table usa-table--borderless width-full">
          <caption className="usa-sr-only">Minimums with the section of the law</caption>
          <thead>
            <tr>
              <th scope="col">Requirement</th>
              <th scope="col">Law</th>
            </tr>
          </thead>
          <tbody>
            {p.checklist.map((c) => (
              <tr key={c.key}>
                <td>{c.requirement}</td>
                <td>{c.section}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {op && p.status === "SUBMITTED" && (
        <section aria-labelledby="decide-heading">
          <h2 id="decide-heading">Decide</h2>
          {!paid && p.feeTotalCents > 0 && <Notice type="warning">The fees are not paid yet: the permit cannot be issued before they are.</Notice>}
          <Form method="post">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="approve" />
            <button className="usa-button" type="submit">
              Approve and issue the permit
            </button>
          </Form>
          <Form method="post" className="usa-form margin-top-3">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="changes" />
            <div className={`usa-form-group${a?.intent === "changes" && a.fields?.notes ? " usa-form-group--error" : ""}`}>
              <label className="usa-label" htmlFor="notes">
                {LABELS.notes} <span className="usa-hint">(required)</span>
              </label>
              {a?.intent === "changes" && a.fields?.notes && (
                <span className="usa-error-message" id="notes-error" role="alert">
                  {a.fields.notes}
                </span>
              )}
              <textarea className="usa-textarea" id="notes" name="notes" required aria-invalid={a?.intent === "changes" && a.fields?.notes ? true : undefined} />
            </div>
            <button className="usa-button usa-button--outline" type="submit">
              Ask for changes
            </button>
          </Form>
        </section>
      )}

      {p.status !== "SUBMITTED" && p.status !== "CHANGES_REQUESTED" && p.status !== "WITHDRAWN" && (
        <section aria-labelledby="inspections-heading">
          <h2 id="inspections-heading">Inspections</h2>
          <ul className="usa-list">
            {p.requiredInspections.map((r) => (
              <li key={r.kind}>
                {r.label} ({r.section}): {statusLabel(r.status, INSPECTION_STATUS)}
              </li>
            ))}
          </ul>
          {p.inspections.length > 0 && (
            <table className="usa-table usa-table--stacked usa-table--borderless width-full">
              <caption>Every inspection asked for, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Inspection</th>
                  <th scope="col">Status</th>
                  <th scope="col">When</th>
                  <th scope="col">Notes</th>
                </tr>
              </thead>
              <tbody>
                {p.inspections.map((i) => (
                  <tr key={i.id}>
                    <th scope="row" data-label="Inspection">
                      {i.kindLabel}
                    </th>
                    <td data-label="Status">{statusLabel(i.status, INSPECTION_STATUS)}</td>
                    <td data-label="When">
                      {inspectionWhen(i, tz)}
                      {i.inspectorName ? `, ${i.inspectorName}` : ""}
                    </td>
                    <td data-label="Notes">{[i.applicantNotes && `Applicant: ${i.applicantNotes}`, i.resultNotes].filter(Boolean).join(" · ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {op &&
            p.status === "APPROVED" &&
            open.map((i) => (
              <div key={i.id} className="tapline-details">
                <h3 className="margin-top-0">{i.kindLabel}</h3>
                <Form method="post" className="usa-form">
                  <AuthenticityTokenInput />
                  <input type="hidden" name="intent" value="schedule" />
                  <input type="hidden" name="inspectionId" value={i.id} />
                  <TextField
                    id={`when-${i.id}`}
                    name="scheduledFor"
                    type="datetime-local"
                    label={inspectionLabels(i, tz)[`when-${i.id}`]}
                    defaultValue={localInput(i.scheduledFor, tz)}
                    error={err(`when-${i.id}`)}
                    required
                  />
                  {districtStaff.length > 1 && (
                    <SelectField
                      id={`inspector-${i.id}`}
                      name="inspectorId"
                      label="Inspector"
                      options={districtStaff.map((s) => ({ value: s.userId, label: s.displayName }))}
                      error={err(`inspector-${i.id}`)}
                    />
                  )}
                  <button className="usa-button usa-button--outline" type="submit">
                    {i.status === "SCHEDULED" ? "Move the inspection" : "Schedule the inspection"}
                    <span className="usa-sr-only">: {i.kindLabel}</span>
                  </button>
                </Form>
                {i.status === "SCHEDULED" && (
                  <Form method="post" className="usa-form margin-top-2">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="record" />
                    <input type="hidden" name="inspectionId" value={i.id} />
                    <RadioGroup
                      name="result"
                      id={`passed-${i.id}`}
                      legend={inspectionLabels(i, tz)[`passed-${i.id}`]}
                      options={[
                        { value: "PASSED", label: "Passed" },
                        { value: "FAILED", label: "Failed" },
                      ]}
                      error={err(`passed-${i.id}`)}
                      required
                    />
                    <TextField
                      id={`inspected-${i.id}`}
                      name="inspectedAt"
                      type="datetime-local"
                      label={inspectionLabels(i, tz)[`inspected-${i.id}`]}
                      hint="Leave it empty if it took place just now; a time still to come is refused."
                      error={err(`inspected-${i.id}`)}
                    />
                    <TextAreaField
                      id={`result-notes-${i.id}`}
                      name="notes"
                      label={inspectionLabels(i, tz)[`result-notes-${i.id}`]}
                      error={err(`result-notes-${i.id}`)}
                    />
                    <button className="usa-button" type="submit">
                      Record the result<span className="usa-sr-only">: {i.kindLabel}</span>
                    </button>
                  </Form>
                )}
              </div>
            ))}
        </section>
      )}

      {op && p.status === "CONNECTED" && p.requirements.asBuiltDrawings.required && (
        <section aria-labelledby="drawings-heading">
          <h2 id="drawings-heading">Record drawings</h2>
          <p>
            {p.recordDrawings.length ? (
              <>
                Filed by the applicant
                {p.asBuiltFiledAt && (
                  <>
                    {" "}
                    <DateTime iso={p.asBuiltFiledAt} timeZone={tz} />
                  </>
                )}
                :{" "}
                <DocumentLinks documents={p.recordDrawings} />
                .{" "}
              </>
            ) : (
              "None filed in the portal yet. "
            )}
            When the as-built drawings meet the district's requirements ({p.requirements.asBuiltDrawings.section}), approve them: the permit closes and the Clerk
            refunds the deposit.
          </p>
          <Form method="post">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="drawings" />
            <button className="usa-button" type="submit">
              Approve the record drawings
            </button>
          </Form>
        </section>
      )}
      {p.depositRefund && (
        <p>
          As-built deposit of {money(p.depositRefund.amountCents)}:{" "}
          {p.depositRefund.refunded ? (
            `refunded (receipt ${p.depositRefund.receiptNumber})`
          ) : (
            <>
              refund due; the Clerk refunds it (receipt {p.payment?.receiptNumber}) from{" "}
              <Link className="usa-link" to={`/staff/payments?districtId=${p.district.id}&status=PAID`}>
                the payments ledger
              </Link>
              .
            </>
          )}
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

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

export const meta: MetaFunction = () => [{ title: "Septic system | Staff | Tapline" }];

/** The forms' visible labels by the keys the API reports, in the page's order. */
export const LABELS: Record<string, string> = {
  systemId: "Septic system",
  haulerLoadId: "Licensed hauler's load",
  condition: "Condition found",
  receivedOn: "Day the owner received the notice",
  note: "What was done",
  correctedOn: "Repaired on",
  respondentEmail: "Owner's portal email",
  kind: "Kind of action",
  correctBy: "Correct by",
  orderId: "Connection order",
  step: "Step",
  lateralPermitId: "Lateral permit application",
  disposition: "Tank",
  fillMaterial: "Filled with",
  effluentMethod: "Septic tank effluent",
  on: "Done on",
  easementDocument: "Recorded easement",
  "easementDocument.filename": "Recorded easement",
  "easementDocument.contentBase64": "Recorded easement",
  easementRecordedOn: "Day the easement was recorded",
  path: "How the order is met",
};

type Notice = { id: string; statusLabel: string; status: string; condition: string; receivedOn: string; repairBy: string; daysLeft: number | null; lapsed: boolean; section: string; enforcementActionId: string | null };
type Order = {
  id: string;
  status: string;
  statusLabel: string;
  reason: string;
  issuedOn: string;
  closedOn: string | null;
  extensionId: string | null;
  extensionName: string | null;
  path: string;
  pathLabel: string;
  effluentAlternativeRefusal: string | null;
  pumpedOn: string | null;
  effluentMethodLabel: string | null;
  effluentOn: string | null;
  easementDocumentId: string | null;
  easementFilename: string | null;
  easementRecordedOn: string | null;
  steps: { step: string; label: string; section: string; done: boolean }[];
  lateralCandidates: { id: string; permitNumber: string | null; status: string }[] | null;
};
type System = {
  id: string;
  districtId: string;
  address: string;
  taxParcel: string;
  ownerName: string;
  kindLabel: string;
  status: string;
  statusLabel: string;
  forbiddenReason: string | null;
  description: string | null;
  installedOn: string | null;
  reportedPumpedOn: string | null;
  buildings: { name: string; useLabel: string }[];
  pumpStanding: { state: string; text: string; daysLeft: number | null };
  pumpOuts: { haulerLoadId: string; pumpedOn: string; haulerName: string; matchedBy: string; gallons: number | null }[];
  recentLoads: { id: string; sourceAddress: string; receivedOn: string; haulerName: string; gallons: number | null }[] | null;
  nuisanceNotices: Notice[];
  connectionOrders: Order[];
};

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const d = await requireSignedIn<{ septicSystem: System }>(
    args,
    `query StaffSepticSystem($id: ID!) { septicSystem(id: $id) { id districtId address taxParcel ownerName kindLabel status statusLabel forbiddenReason description installedOn reportedPumpedOn
      buildings { name useLabel } pumpStanding { state text daysLeft } pumpOuts { haulerLoadId pumpedOn haulerName matchedBy gallons }
      recentLoads { id sourceAddress receivedOn haulerName gallons }
      nuisanceNotices { id status statusLabel condition receivedOn repairBy daysLeft lapsed section enforcementActionId }
      connectionOrders { id status statusLabel reason issuedOn closedOn extensionId extensionName path pathLabel effluentAlternativeRefusal pumpedOn effluentMethodLabel effluentOn
        easementDocumentId easementFilename easementRecordedOn steps { step label section done } lateralCandidates { id permitNumber status } } } }`,
    { id: args.params.id },
  );
  const district = info.districts.find((x) => x.id === d.septicSystem.districtId);
  return { system: d.septicSystem, operator: !!district?.roles.includes("OPERATOR") };
}

const MUTATIONS: Record<string, string> = {
  link: `mutation LinkPumpOut($s: ID!, $l: ID!) { linkSepticPumpOut(systemId: $s, haulerLoadId: $l) { id } }`,
  serve: `mutation ServeNotice($i: ServeSepticNuisanceNoticeInput!) { serveSepticNuisanceNotice(input: $i) { id } }`,
  corrected: `mutation NoticeMet($i: RecordSepticNuisanceCorrectedInput!) { recordSepticNuisanceCorrected(input: $i) { id } }`,
  escalate: `mutation Escalate($i: EscalateSepticNuisanceNoticeInput!) { escalateSepticNuisanceNotice(input: $i) { id } }`,
  step: `mutation Step($i: RecordSepticConnectionStepInput!) { recordSepticConnectionStep(input: $i) { id } }`,
  path: `mutation ChoosePath($i: ChooseSepticConnectionPathInput!) { chooseSepticConnectionPath(input: $i) { id } }`,
};

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const opt = (k: string) => s(k) || null;
  const intent = s("intent");
  // The recorded easement (SUL 408's alternative) comes with its step, in a multipart form; an empty file input is no file.
  const file = f.get("easementDocument");
  const easementDocument = file && typeof file !== "string" && file.size > 0 ? { filename: file.name, contentBase64: Buffer.from(await file.arrayBuffer()).toString("base64") } : null;
  const vars: Record<string, Record<string, unknown>> = {
    link: { s: params.id, l: s("haulerLoadId") || "00000000-0000-0000-0000-000000000000" },
    serve: { i: { systemId: params.id, condition: s("condition"), receivedOn: opt("receivedOn") } },
    corrected: { i: { id: s("noticeId"), note: s("note"), correctedOn: opt("correctedOn") } },
    escalate: { i: { id: s("noticeId"), respondentEmail: opt("respondentEmail"), correctBy: opt("correctBy") } },
    step: {
      i: {
        orderId: s("orderId"),
        step: s("step"),
        lateralPermitId: opt("lateralPermitId"),
        disposition: opt("disposition"),
        fillMaterial: opt("fillMaterial"),
        on: opt("on"),
        effluentMethod: opt("effluentMethod"),
        easementDocument,
        easementRecordedOn: opt("easementRecordedOn"),
      },
    },
    path: { i: { orderId: s("orderId"), path: s("path") } },
  };
  if (!MUTATIONS[intent]) throw new Response("Unknown form", { status: 400 });
  const r = await gql(context, request, MUTATIONS[intent], vars[intent]);
  if (!r.ok)
    return Response.json(
      { intent, target: s("noticeId") || s("orderId"), error: r.error.message, fields: r.error.fields ?? {}, values: Object.fromEntries([...f.entries()].filter(([, v]) => typeof v === "string").map(([k, v]) => [k, String(v)])) },
      { status: 400, headers: cookieHeaders(r) },
    );
  return redirect(`/staff/septic/${params.id}?done=${intent}`, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = {
  registered: "The system is registered; its owner is emailed.",
  link: "The load is recorded as the system's pump-out.",
  serve: "The notice is served; its owner is emailed.",
  corrected: "The notice is recorded as met.",
  escalate: "An enforcement action is open for the notice.",
  step: "The step is recorded.",
  path: "How the order is met is recorded; its owner is emailed.",
};

/** Staff: one septic system: pump-outs and loads to link (SUL 407), notices (405), connection orders and their steps (408). */
export default function StaffSepticSystem() {
  const { system: s, operator } = useLoaderData<typeof loader>() as { system: System; operator: boolean };
  const a = useActionData<{ intent: string; target: string; error: string; fields: Record<string, string>; values: Record<string, string> }>();
  const [params] = useSearchParams();
  const errorsFor = (intent: string, target = "") => (a && a.intent === intent && a.target === target ? a : null);
  const inUse = s.status === "IN_USE";
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/septic?districtId=${s.districtId}`}>
          Septic systems
        </Link>
      </p>
      <h1>
        {s.kindLabel} at {s.address}
      </h1>
      {DONE[params.get("done") ?? ""] && <SuccessAlert>{DONE[params.get("done")!]}</SuccessAlert>}
      <p>
        Tax parcel {s.taxParcel}, owner of record {s.ownerName}. {s.statusLabel}. Serves: {s.buildings.map((b) => `${b.name} (${b.useLabel.toLowerCase()})`).join(", ")}.
        {s.installedOn && (
          <>
            {" "}
            Installed <CalendarDate date={s.installedOn} />.
          </>
        )}
        {s.description ? ` ${s.description}` : ""}
      </p>
      {s.forbiddenReason && <p className="text-bold">{s.forbiddenReason}</p>}
      <h2>Pump-outs</h2>
      <p>{s.pumpStanding.text}</p>
      {s.reportedPumpedOn && (
        <p>
          Pumping reported when registered: <CalendarDate date={s.reportedPumpedOn} />.
        </p>
      )}
      {s.pumpOuts.length > 0 && (
        <ul className="usa-list">
          {s.pumpOuts.map((p) => (
            <li key={p.haulerLoadId}>
              <CalendarDate date={p.pumpedOn} />: {p.haulerName}
              {p.gallons !== null ? `, ${p.gallons.toLocaleString("en-US")} gallons` : ""} ({p.matchedBy === "ADDRESS" ? "matched by address" : "linked by the District Operator"})
            </li>
          ))}
        </ul>
      )}
      {operator && inUse && (s.recentLoads ?? []).length > 0 && (
        <>
          <ErrorSummary message={errorsFor("link")?.error} fields={errorsFor("link")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="link" />
            <SelectField
              name="haulerLoadId"
              label={LABELS.haulerLoadId}
              hint="A load from this system whose address did not match the register's."
              options={(s.recentLoads ?? []).map((l) => ({ value: l.id, label: `${l.sourceAddress}, received ${formatCalendarDate(l.receivedOn)} from ${l.haulerName}` }))}
              error={errorsFor("link")?.fields.haulerLoadId}
              required
            />
            <button className="usa-button usa-button--outline" type="submit">
              Record as this system's pump-out
            </button>
          </Form>
        </>
      )}

      <h2>Notices to repair, rebuild or relocate</h2>
      {s.nuisanceNotices.length === 0 && <p>None.</p>}
      {s.nuisanceNotices.map((n) => {
        const e = errorsFor("corrected", n.id) ?? errorsFor("escalate", n.id);
        return (
          <div key={n.id} className="usa-summary-box margin-bottom-2">
            <div className="usa-summary-box__body">
              <p>
                {n.condition} Received <CalendarDate date={n.receivedOn} />, repair by <CalendarDate date={n.repairBy} /> ({n.section}). {n.statusLabel}.
                {n.daysLeft !== null && (n.daysLeft >= 0 ? ` ${n.daysLeft} day${n.daysLeft === 1 ? "" : "s"} left.` : ` Passed ${-n.daysLeft} day${n.daysLeft === -1 ? "" : "s"} ago.`)}
              </p>
              {n.enforcementActionId && (
                <p>
                  <Link className="usa-link" to={`/staff/enforcement/${n.enforcementActionId}`}>
                    The enforcement action
                  </Link>
                </p>
              )}
              {operator && n.status === "OPEN" && (
                <>
                  <ErrorSummary message={e?.error} fields={e?.fields} labels={LABELS} />
                  {n.lapsed && (
                    <Form method="post" className="usa-form">
                      <AuthenticityTokenInput />
                      <input type="hidden" name="intent" value="escalate" />
                      <input type="hidden" name="noticeId" value={n.id} />
                      <TextField name="respondentEmail" label={LABELS.respondentEmail} hint="Only when the owner of record has no linked sign-in." defaultValue={e?.values.respondentEmail} error={e?.fields.respondentEmail} />
                      <TextField name="correctBy" label={LABELS.correctBy} type="date" defaultValue={e?.values.correctBy} error={e?.fields.correctBy} />
                      <button className="usa-button usa-button--secondary" type="submit">
                        Open an enforcement action
                      </button>
                    </Form>
                  )}
                  <Form method="post" className="usa-form">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="corrected" />
                    <input type="hidden" name="noticeId" value={n.id} />
                    <TextAreaField name="note" label={LABELS.note} defaultValue={e?.values.note} error={e?.fields.note} required />
                    <TextField name="correctedOn" label={LABELS.correctedOn} type="date" defaultValue={e?.values.correctedOn} error={e?.fields.correctedOn} />
                    <button className="usa-button usa-button--outline" type="submit">
                      Record as repaired
                    </button>
                  </Form>
                </>
              )}
            </div>
          </div>
        );
      })}
      {operator && inUse && !s.forbiddenReason && (
        <>
          <h3>Serve a notice</h3>
          <ErrorSummary message={errorsFor("serve")?.error} fields={errorsFor("serve")?.fields} labels={LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="serve" />
            <TextAreaField name="condition" label={LABELS.condition} hint="Where the effluent goes (a watercourse, ditch, storm sewer or water supply) and why it is hazardous, offensive or objectionable." defaultValue={errorsFor("serve")?.values.condition} error={errorsFor("serve")?.fields.condition} required />
            <TextField name="receivedOn" label={LABELS.receivedOn} type="date" hint="Today unless given: the 90 days run from it." defaultValue={errorsFor("serve")?.values.receivedOn} error={errorsFor("serve")?.fields.receivedOn} />
            <button className="usa-button" type="submit">
              Serve the notice
            </button>
          </Form>
        </>
      )}

      <h2>Connection orders</h2>
      {s.connectionOrders.length === 0 && <p>None. Issue one from the list of systems when a public sewer reaches the property.</p>}
      {s.connectionOrders.map((o) => {
        const e = errorsFor("step", o.id);
        const pe = errorsFor("path", o.id);
        const open = o.steps.filter((st) => !st.done && st.step !== "PUMPED");
        const alternative = o.path === "EFFLUENT_TO_SEWER";
        return (
          <div key={o.id} className="usa-summary-box margin-bottom-2">
            <div className="usa-summary-box__body">
              <p>
                Issued <CalendarDate date={o.issuedOn} />: {o.reason} {o.statusLabel}.
              </p>
              {o.extensionId && (
                <p>
                  Public sewer:{" "}
                  <Link className="usa-link" to={`/staff/extensions/${o.extensionId}`}>
                    sewer extension {o.extensionName}
                  </Link>
                </p>
              )}
              <ol className="usa-list">
                {o.steps.map((st) => (
                  <li key={st.step}>
                    {st.label} ({st.section}): {st.done ? "recorded" : st.step === "PUMPED" ? "waiting for a licensed hauler's load" : "to do"}
                  </li>
                ))}
              </ol>
              <p>Met by: {o.pathLabel.charAt(0).toLowerCase() + o.pathLabel.slice(1)}.</p>
              {alternative && o.pumpedOn && (
                <p>
                  Pumped by a licensed hauler <CalendarDate date={o.pumpedOn} />: the tank stays in use and its pump-outs stay due.
                </p>
              )}
              {o.effluentOn && (
                <p>
                  {o.effluentMethodLabel} <CalendarDate date={o.effluentOn} />
                  {!alternative && " (recorded while the order was met by keeping the tank; not a step of the order now)"}.
                </p>
              )}
              {o.easementDocumentId && (
                <p>
                  Easement to the septic tank for septage removal, recorded <CalendarDate date={o.easementRecordedOn!} />:{" "}
                  <a className="usa-link" href={`/documents/${o.easementDocumentId}`}>
                    {o.easementFilename}
                  </a>
                  {!alternative && " (not a step of the order now)"}
                </p>
              )}
              {operator && o.status === "OPEN" && o.effluentAlternativeRefusal && <p>{o.effluentAlternativeRefusal}</p>}
              {operator && o.status === "OPEN" && !o.effluentAlternativeRefusal && (
                <>
                  <ErrorSummary message={pe?.error} fields={pe?.fields} labels={LABELS} />
                  <Form method="post" className="usa-form">
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="path" />
                    <input type="hidden" name="orderId" value={o.id} />
                    <RadioGroup
                      name="path"
                      legend={LABELS.path}
                      hint="Sewer Use Law 408: the old system taken out of use, or alternatively the septic tank effluent piped or pumped to the sewer, the owner providing an easement to the septic tank for septage removal. The lateral permit counts either way."
                      options={[
                        { value: "ABANDON", label: "The old system taken out of use" },
                        { value: "EFFLUENT_TO_SEWER", label: "The septic tank kept, its effluent piped or pumped to the sewer, with an easement for septage removal" },
                      ]}
                      defaultValue={pe?.values.path ?? o.path}
                      error={pe?.fields.path}
                      required
                    />
                    <button className="usa-button usa-button--outline" type="submit">
                      Record how the order is met
                    </button>
                  </Form>
                </>
              )}
              {operator && o.status === "OPEN" && open.length > 0 && (
                <>
                  <ErrorSummary message={e?.error} fields={e?.fields} labels={LABELS} />
                  <Form method="post" className="usa-form" encType={alternative ? "multipart/form-data" : undefined}>
                    <AuthenticityTokenInput />
                    <input type="hidden" name="intent" value="step" />
                    <input type="hidden" name="orderId" value={o.id} />
                    <RadioGroup name="step" legend={LABELS.step} options={open.map((st) => ({ value: st.step, label: st.label }))} defaultValue={e?.values.step} error={e?.fields.step} required />
                    <SelectField
                      name="lateralPermitId"
                     
                      label={LABELS.lateralPermitId}
                      hint="For the lateral permit step."
                      options={[{ value: "", label: "None" }, ...(o.lateralCandidates ?? []).map((c) => ({ value: c.id, label: c.permitNumber ?? "Application under review" }))]}
                      defaultValue={e?.values.lateralPermitId}
                      error={e?.fields.lateralPermitId}
                    />
                    {alternative ? (
                      <SelectField
                        name="effluentMethod"
                        label={LABELS.effluentMethod}
                        hint="For the effluent step."
                        options={[{ value: "", label: "None" }, { value: "PIPED", label: "Piped to the sewer" }, { value: "PUMPED", label: "Pumped to the sewer" }]}
                        defaultValue={e?.values.effluentMethod}
                        error={e?.fields.effluentMethod}
                      />
                    ) : (
                      <>
                        <SelectField name="disposition" label={LABELS.disposition} hint="For the tank step." options={[{ value: "", label: "None" }, { value: "FILLED", label: "Filled" }, { value: "REMOVED", label: "Removed" }]} defaultValue={e?.values.disposition} error={e?.fields.disposition} />
                        <TextField name="fillMaterial" label={LABELS.fillMaterial} hint="Clean sand, bank-run gravel or dirt." defaultValue={e?.values.fillMaterial} error={e?.fields.fillMaterial} />
                      </>
                    )}
                    <TextField name="on" label={LABELS.on} type="date" hint="Today unless given." defaultValue={e?.values.on} error={e?.fields.on} />
                    {alternative && (
                      <>
                        <div className={`usa-form-group${e?.fields.easementDocument ? " usa-form-group--error" : ""}`}>
                          <label className={`usa-label${e?.fields.easementDocument ? " usa-label--error" : ""}`} htmlFor="easementDocument">
                            {LABELS.easementDocument}
                          </label>
                          <div className="usa-hint" id="easementDocument-hint">
                            For the easement step: the owner's easement to the septic tank for septage removal, as recorded (PDF, PNG or JPEG).
                          </div>
                          {e?.fields.easementDocument && (
                            <span className="usa-error-message" id="easementDocument-error" role="alert">
                              {e.fields.easementDocument}
                            </span>
                          )}
                          <input
                            className="usa-file-input"
                            id="easementDocument"
                            name="easementDocument"
                            type="file"
                            accept="application/pdf,image/png,image/jpeg"
                            aria-invalid={e?.fields.easementDocument ? true : undefined}
                            aria-describedby={`easementDocument-hint${e?.fields.easementDocument ? " easementDocument-error" : ""}`}
                          />
                        </div>
                        <TextField name="easementRecordedOn" label={LABELS.easementRecordedOn} type="date" hint="For the easement step." defaultValue={e?.values.easementRecordedOn} error={e?.fields.easementRecordedOn} />
                      </>
                    )}
                    <button className="usa-button" type="submit">
                      Record the step
                    </button>
                  </Form>
                </>
              )}
            </div>
          </div>
        );
      })}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

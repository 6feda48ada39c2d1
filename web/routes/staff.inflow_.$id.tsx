import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, RadioGroup, SelectField, TextAreaField } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { Determinations, INSPECTION_FIELDS, InspectionSummary, VisitFacts, VisitPhotos, type Inspection, type Visit } from "~/components/inflow";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Inflow inspection | Staff | Tapline" }];

/** The forms' visible labels by the keys the API reports, in the page's order. */
export const LABELS: Record<string, string> = {
  respondentEmail: "Email of the person served",
  correctBy: "Correct by",
  kind: "Kind of action",
  sourceId: "Finding",
  requirements: "What is required",
  inspectionId: "Inspection",
  determinationId: "Determination",
  visitedOn: "Day of the inspection",
  stormSewerFeet: "Nearest storm sewer (feet from the property line)",
  naturalDrainageAdequate: "Natural drainage",
  sources: "Sources found",
  "sources.*.kind": "Source {n}: kind",
  "sources.*.location": "Source {n}: where",
  "sources.*.state": "Source {n}: found",
  orderDeadline: "Disconnect by",
  notes: "Notes",
  photos: "Photos",
  "photos.*": "Photos",
  "photos.*.filename": "Photos",
  "photos.*.contentBase64": "Photos",
  periodFrom: "First day",
  periodTo: "Last day",
  gallons: "Gallons of inflow",
  method: "How the amount was determined",
  note: "Note: how it was determined",
  controlManholeBy: "Control manhole required by",
  reason: "Why it is withdrawn",
};

const ROWS = 5;

type Rules = {
  districtId: string;
  inspectsAtSale: boolean;
  inspectorTitle: string;
  prohibitionSection: string;
  stormSewerWithinFeet: number | null;
  sourceKinds: { kind: string; label: string }[];
  chargesInflow: boolean;
  chargeSection: string;
  determinationMethods: { kind: string; label: string }[];
};
type ActionData = { form: string; error: string; fields: Record<string, string>; values: Record<string, string>; sourceId?: string; determinationId?: string };


export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ inflowInspection: Inspection; inflowRules: Rules[] }>(
    args,
    `query StaffInflowInspection($id: ID!) { inflowInspection(id: $id) { ${INSPECTION_FIELDS} }
       inflowRules { districtId inspectsAtSale inspectorTitle prohibitionSection stormSewerWithinFeet sourceKinds { kind label } chargesInflow chargeSection determinationMethods { kind label } } }`,
    { id: args.params.id },
  );
  const i = d.inflowInspection;
  const rules = d.inflowRules.find((r) => r.districtId === i.districtId)!;
  return { i, rules };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const form = s("form");
  const values = Object.fromEntries([...f.entries()].filter(([, v]) => typeof v === "string").map(([k, v]) => [k, String(v)]));
  const fail = (error: string, fields: Record<string, string>, headers?: Headers) =>
    Response.json({ form, error, fields, values, sourceId: s("sourceId"), determinationId: s("determinationId") } satisfies ActionData, { status: 400, headers });
  if (form === "enforce") {
    const r = await gql<{ openInflowEnforcement: { actionId: string } }>(context, request, `mutation Enforce($i: OpenInflowEnforcementInput!) { openInflowEnforcement(input: $i) { actionId } }`, {
      i: { sourceId: s("sourceId"), respondentEmail: s("respondentEmail") || null, correctBy: s("correctBy") || null },
    });
    if (!r.ok) return fail(r.error.message, r.error.fields, cookieHeaders(r));
    return redirect(`/staff/enforcement/${r.data.openInflowEnforcement.actionId}`, { headers: cookieHeaders(r) });
  }
  if (form === "determine") {
    // SUL 705: the amount of inflow the District Operator determined.
    const gallons = s("gallons").replace(/,/g, "");
    if (!/^\d+$/.test(gallons)) return fail("Please correct the highlighted fields.", { gallons: "Enter the gallons as a whole number, like 12000." });
    const r = await gql(context, request, `mutation Determine($i: RecordInflowDeterminationInput!) { recordInflowDetermination(input: $i) { id } }`, {
      i: { inspectionId: params.id, periodFrom: s("periodFrom"), periodTo: s("periodTo"), gallons: Number(gallons), method: s("method"), note: s("note"), controlManholeBy: s("controlManholeBy") || null },
    });
    if (!r.ok) return fail(r.error.message, r.error.fields, cookieHeaders(r));
    return redirect(`/staff/inflow/${params.id}?done=determined`, { headers: cookieHeaders(r) });
  }
  if (form === "withdraw") {
    // A determination not billed, withdrawn with its reason (docs/decisions/inflow-determination-withdrawn.md).
    const r = await gql(context, request, `mutation WithdrawDetermination($i: WithdrawInflowDeterminationInput!) { withdrawInflowDetermination(input: $i) { id } }`, {
      i: { determinationId: s("determinationId"), reason: s("reason") },
    });
    if (!r.ok) return fail(r.error.message, r.error.fields, cookieHeaders(r));
    return redirect(`/staff/inflow/${params.id}?done=withdrawn`, { headers: cookieHeaders(r) });
  }
  // The findings: the rows with a kind chosen are the sources; the API's row numbers are mapped back to the form's.
  const rows = Array.from({ length: ROWS }, (_, n) => n).filter((n) => s(`sources.${n}.kind`));
  const sources = rows.map((n) => ({ kind: s(`sources.${n}.kind`), location: s(`sources.${n}.location`) || null, state: s(`sources.${n}.state`) }));
  const feet = s("stormSewerFeet").replace(/,/g, "");
  const drainage = s("naturalDrainageAdequate");
  const fields: Record<string, string> = {};
  if (feet && !/^\d+(\.\d+)?$/.test(feet)) fields.stormSewerFeet = "Enter the distance in feet, like 85, or leave it empty when there is no storm sewer.";
  if (drainage !== "yes" && drainage !== "no") fields.naturalDrainageAdequate = "Say whether natural drainage is sufficient.";
  const photos: { filename: string; contentBase64: string }[] = [];
  for (const p of f.getAll("photos")) {
    if (typeof p === "string" || (p.size === 0 && !p.name)) continue;
    photos.push({ filename: p.name, contentBase64: Buffer.from(await p.arrayBuffer()).toString("base64") });
  }
  if (Object.keys(fields).length) return fail("Please correct the highlighted fields.", fields);
  const r = await gql(context, request, `mutation Visit($i: RecordInflowVisitInput!) { recordInflowVisit(input: $i) { id } }`, {
    i: {
      inspectionId: params.id,
      visitedOn: s("visitedOn"),
      stormSewerFeet: feet ? Number(feet) : null,
      naturalDrainageAdequate: drainage === "yes",
      sources,
      orderDeadline: s("orderDeadline") || null,
      notes: s("notes") || null,
      photos,
    },
  });
  if (!r.ok) {
    const mapped: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.error.fields ?? {})) {
      const m = /^sources\.(\d+)\.(.+)$/.exec(k);
      mapped[m ? `sources.${rows[Number(m[1])]}.${m[2]}` : /^photos\.\d+$/.test(k) ? "photos" : k] = v;
    }
    return fail(r.error.message, mapped, cookieHeaders(r));
  }
  return redirect(`/staff/inflow/${params.id}?done=visit`, { headers: cookieHeaders(r) });
}

/** Staff: one inflow inspection, its visits and findings, the findings form and enforcement from a finding (SUL 702-704; Huron III-8, Article V). */
export default function StaffInflowInspection() {
  const { i, rules } = useLoaderData<typeof loader>() as { i: Inspection; rules: Rules };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const v = a?.form === "visit" ? a : undefined;
  const dt = a?.form === "determine" ? a : undefined;
  const found = i.visits.some((x) => x.outcome === "ORDERED" || x.outcome === "VIOLATION");
  const kinds = [{ value: "", label: "None" }, ...rules.sourceKinds.map((k) => ({ value: k.kind, label: k.label }))];
  const states = [
    { value: "CONNECTED", label: "Connected to the sanitary sewer" },
    { value: "DISCONNECTED", label: "Disconnected" },
    { value: "RECONNECTED", label: "Reconnected after its disconnection" },
  ];
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/inflow?districtId=${i.districtId}`}>
          Inflow inspections
        </Link>
      </p>
      <h1>Inflow inspection {i.number}</h1>
      {params.get("done") === "visit" && <SuccessAlert>The findings are recorded.</SuccessAlert>}
      {params.get("done") === "opened" && <SuccessAlert>The inspection is opened.</SuccessAlert>}
      {params.get("done") === "sale" && <SuccessAlert>The sale is recorded.</SuccessAlert>}
      {params.get("done") === "determined" && <SuccessAlert>The inflow determined is recorded; the property's next sewer bill carries it.</SuccessAlert>}
      {params.get("done") === "withdrawn" && (
        <SuccessAlert>
          The determination is withdrawn: it will not be billed, and its days can be determined again. The owner of record and the parties are told by email.
        </SuccessAlert>
      )}
      <InspectionSummary i={i} />
      {i.ownerName && <p>Owner of record: {i.ownerName}</p>}
      {i.buyerName && <p>Buyer named by the Tax Assessor: {i.buyerName}</p>}
      {i.parties.length > 0 && (
        <>
          <h2>Who asked for it</h2>
          <ul className="usa-list">
            {i.parties.map((p, n) => (
              <li key={n}>
                {p.name}, {p.roleLabel.toLowerCase()}
                {p.closingOn && (
                  <>
                    , closing on <CalendarDate date={p.closingOn} />
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Visits</h2>
      {i.visits.length === 0 && <p>No visit recorded yet.</p>}
      {i.visits.map((vi) => (
        <section key={vi.visitNumber} aria-labelledby={`visit-${vi.visitNumber}`}>
          <h3 id={`visit-${vi.visitNumber}`}>
            {vi.visitNumber === 1 ? "Inspection" : `Re-inspection ${vi.visitNumber - 1}`} of <CalendarDate date={vi.visitedOn} />: {vi.outcomeLabel}
          </h3>
          <VisitFacts v={vi} />
          {vi.sources.length > 0 && (
            <ul className="usa-list">
              {vi.sources.map((s) => (
                <li key={s.id}>
                  {s.kindLabel}
                  {s.location ? ` (${s.location})` : ""}: {s.stateLabel}
                  {s.enforcementNumber && s.enforcementActionId && (
                    <>
                      {" "}
                      — enforcement action{" "}
                      <Link className="usa-link" to={`/staff/enforcement/${s.enforcementActionId}`}>
                        {s.enforcementNumber}
                      </Link>
                    </>
                  )}
                  {s.enforceable && i.canInspect && (
                    <Form method="post" className="usa-form" noValidate>
                      <AuthenticityTokenInput />
                      <input type="hidden" name="form" value="enforce" />
                      <input type="hidden" name="sourceId" value={s.id} />
                      {a?.form === "enforce" && a.sourceId === s.id && <ErrorSummary message={a.error} fields={a.fields} labels={LABELS} />}
                      <TextField
                        name="respondentEmail"
                        label={LABELS.respondentEmail}
                        hint="Leave empty to serve the owner of record (when in the portal)."
                        defaultValue={a?.sourceId === s.id ? a.values.respondentEmail : undefined}
                        error={a?.sourceId === s.id ? a.fields?.respondentEmail : undefined}
                      />
                      <TextField
                        name="correctBy"
                        label={LABELS.correctBy}
                        type="date"
                        hint={rules.inspectsAtSale ? "Optional." : "A reasonable time to correct the violation."}
                        defaultValue={a?.sourceId === s.id ? a.values.correctBy : undefined}
                        error={a?.sourceId === s.id ? a.fields?.correctBy : undefined}
                      />
                      <button className="usa-button usa-button--secondary" type="submit">
                        Open an enforcement action
                      </button>
                    </Form>
                  )}
                </li>
              ))}
            </ul>
          )}
          <VisitPhotos photos={vi.photos} />
        </section>
      ))}
      <Determinations
        list={i.determinations}
        section={rules.chargeSection}
        action={(d) => {
          if (!i.canInspect || !rules.chargesInflow || d.withdrawnAt || d.billNumber) return null;
          // The field's id is the determination's, so the page's ids stay unique and the summary links to it.
          const w = a?.form === "withdraw" && a.determinationId === d.id ? a : undefined;
          const id = `reason-${d.id}`;
          return (
            <Form method="post" className="usa-form" noValidate>
              <AuthenticityTokenInput />
              <input type="hidden" name="form" value="withdraw" />
              <input type="hidden" name="determinationId" value={d.id} />
              <ErrorSummary message={w?.error} fields={w?.fields?.reason ? { [id]: w.fields.reason } : w?.fields} labels={{ [id]: LABELS.reason }} />
              <TextAreaField
                name="reason"
                id={id}
                label={LABELS.reason}
                hint="A wrong figure or wrong days: withdraw it, then record the right one. The owner reads the reason."
                defaultValue={w?.values.reason}
                error={w?.fields?.reason}
              />
              <button className="usa-button usa-button--secondary" type="submit">
                Withdraw
              </button>
            </Form>
          );
        }}
      />
      {i.canInspect && rules.chargesInflow && found && (
        <section aria-labelledby="determine-heading">
          <h2 id="determine-heading">Determine the amount of inflow</h2>
          <p>
            The property is billed for its inflow according to Article 12, with the Town Board's surcharge when one is set ({rules.chargeSection}). Each day is determined once; the
            bill run of the period holding the last day bills it.
          </p>
          <ErrorSummary message={dt?.error} fields={dt?.fields} labels={LABELS} />
          <Form method="post" className="usa-form usa-form--large" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="form" value="determine" />
            <TextField name="periodFrom" label={LABELS.periodFrom} type="date" defaultValue={dt?.values.periodFrom} error={dt?.fields?.periodFrom} required />
            <TextField name="periodTo" label={LABELS.periodTo} type="date" hint="Not after today." defaultValue={dt?.values.periodTo ?? i.today} error={dt?.fields?.periodTo} required />
            <TextField name="gallons" label={LABELS.gallons} inputMode="numeric" defaultValue={dt?.values.gallons} error={dt?.fields?.gallons} required />
            <RadioGroup
              name="method"
              legend={LABELS.method}
              options={rules.determinationMethods.map((m) => ({ value: m.kind, label: m.label }))}
              defaultValue={dt?.values.method ?? rules.determinationMethods[0]?.kind}
              error={dt?.fields?.method}
            />
            <TextAreaField
              name="note"
              label={LABELS.note}
              hint="The readings, the run time and the pump's rate, or what the estimate rests on. The owner reads it."
              defaultValue={dt?.values.note}
              error={dt?.fields?.note}
            />
            <TextField
              name="controlManholeBy"
              label={LABELS.controlManholeBy}
              type="date"
              hint="Optional: require a control manhole on the property by this day."
              defaultValue={dt?.values.controlManholeBy}
              error={dt?.fields?.controlManholeBy}
            />
            <button className="usa-button" type="submit">
              Record the inflow determined
            </button>
          </Form>
        </section>
      )}
      {i.canInspect && (i.status === "OPEN" || i.status === "ORDERED") && (
        <section aria-labelledby="findings-heading">
          <h2 id="findings-heading">{i.status === "ORDERED" ? "Record the re-inspection" : "Record the findings"}</h2>
          <p>
            {rules.inspectsAtSale
              ? `Connections must be disconnected where a separate storm sewer is within ${rules.stormSewerWithinFeet} feet of the property line, or where you judge natural drainage sufficient. A pass issues the inflow compliance certificate.`
              : `Every such connection is forbidden (${rules.prohibitionSection}); a connection found is a violation served with a written notice.`}
          </p>
          <ErrorSummary message={v?.error} fields={v?.fields} labels={LABELS} />
          <Form method="post" encType="multipart/form-data" className="usa-form usa-form--large" noValidate>
            <AuthenticityTokenInput />
            <input type="hidden" name="form" value="visit" />
            <TextField name="visitedOn" label={LABELS.visitedOn} type="date" defaultValue={v?.values.visitedOn ?? i.today} error={v?.fields?.visitedOn} required />
            {rules.inspectsAtSale && (
              <>
                <TextField
                  name="stormSewerFeet"
                  label={LABELS.stormSewerFeet}
                  inputMode="decimal"
                  hint="Leave empty when no separate storm sewer is available."
                  defaultValue={v?.values.stormSewerFeet}
                  error={v?.fields?.stormSewerFeet}
                />
                <RadioGroup
                  name="naturalDrainageAdequate"
                  legend={LABELS.naturalDrainageAdequate}
                  options={[
                    { value: "yes", label: "Sufficient natural drainage is available" },
                    { value: "no", label: "Not sufficient" },
                  ]}
                  defaultValue={v?.values.naturalDrainageAdequate ?? "no"}
                  error={v?.fields?.naturalDrainageAdequate}
                />
              </>
            )}
            {!rules.inspectsAtSale && <input type="hidden" name="naturalDrainageAdequate" value="no" />}
            <fieldset className="usa-fieldset">
              <legend className="usa-legend">{LABELS.sources}</legend>
              {v?.fields?.sources && (
                <span className="usa-error-message" id="sources" role="alert">
                  {v.fields.sources}
                </span>
              )}
              {Array.from({ length: ROWS }, (_, n) => (
                <div key={n} className="grid-row grid-gap">
                  <div className="grid-col-4">
                    <SelectField name={`sources.${n}.kind`} label={`Source ${n + 1}: kind`} options={kinds} defaultValue={v?.values[`sources.${n}.kind`] ?? ""} error={v?.fields?.[`sources.${n}.kind`]} />
                  </div>
                  <div className="grid-col-4">
                    <TextField name={`sources.${n}.location`} label={`Source ${n + 1}: where`} defaultValue={v?.values[`sources.${n}.location`]} error={v?.fields?.[`sources.${n}.location`]} />
                  </div>
                  <div className="grid-col-4">
                    <SelectField name={`sources.${n}.state`} label={`Source ${n + 1}: found`} options={states} defaultValue={v?.values[`sources.${n}.state`] ?? "CONNECTED"} error={v?.fields?.[`sources.${n}.state`]} />
                  </div>
                </div>
              ))}
            </fieldset>
            {rules.inspectsAtSale && (
              <TextField
                name="orderDeadline"
                label={LABELS.orderDeadline}
                type="date"
                hint="Needed when connections must be disconnected: the law sets no period, you set the date."
                defaultValue={v?.values.orderDeadline}
                error={v?.fields?.orderDeadline}
              />
            )}
            <TextAreaField name="notes" label={LABELS.notes} defaultValue={v?.values.notes} error={v?.fields?.notes} />
            <div className={`usa-form-group${v?.fields?.photos ? " usa-form-group--error" : ""}`}>
              <label className="usa-label" htmlFor="photos">
                {LABELS.photos}
              </label>
              <div className="usa-hint" id="photos-hint">
                PNG or JPEG, several at once.
              </div>
              {v?.fields?.photos && (
                <span className="usa-error-message" id="photos-error" role="alert">
                  {v.fields.photos}
                </span>
              )}
              <input className="usa-file-input" id="photos" name="photos" type="file" multiple accept="image/png,image/jpeg" aria-describedby="photos-hint" />
            </div>
            <button className="usa-button" type="submit">
              Record
            </button>
          </Form>
        </section>
      )}
    </>
  );
}


export const ErrorBoundary = NestedErrorBoundary;

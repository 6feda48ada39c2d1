import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { AsBuiltDrawings } from "~/components/extension-tests";
import { NestedErrorBoundary, SelectField, TextAreaField } from "~/components/fields";
import { CalendarDate, todayIn } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { dollarsToCents, money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Sewer extension construction and acceptance | Staff | Tapline" }];

/**
 * Each form's fields by the keys the API reports, in the page's order. The charge form's keys that
 * the acceptance form also has are renamed (`charge…`) so each field's id is the key its error names.
 */
const CHARGE_LABELS: Record<string, string> = {
  chargeKind: "Charge",
  chargeAmount: "Amount the Board set",
  chargeDescription: "What it covers",
  chargeResolutionNumber: "Resolution setting the charge",
  resolutionAdoptedOn: "That resolution adopted on",
};
const FORM_LABELS: Record<string, Record<string, string>> = {
  // A plan's move and cancel forms (one pair per planned inspection; their fields are named after the plan).
  movePlan: { planId: "Planned inspection", plannedOn: "Move to", reason: "Why it moves" },
  cancelPlan: { planId: "Planned inspection", reason: "Why it is cancelled" },
  charge: CHARGE_LABELS,
  plan: { plannedOn: "Planned for", scope: "What to look at" },
  inspection: { planId: "Planned inspection these findings close", inspectedOn: "Day of the inspection", conforms: "The work is proceeding in accordance with the approved plans and specifications", findings: "Findings the Town Board reads", excavationRequired: "Excavation required" },
  lateral: { permitNumber: "Lateral permit number", lateralPermitId: "Lateral permit number" },
  asBuilt: { copiesFiled: "Paper copies filed" },
  final: { extensionId: "Application" },
  accept: {
    resolutionNumber: "Resolution number",
    acceptedOn: "Resolution adopted on (the sewer is the Town's from this day)",
    securityKind: "Security",
    suretyName: "Surety company",
    bondNumber: "Bond number",
    amountCents: "Amount of the security",
    expiresOn: "Security expires on",
    description: "Other security the Town Board approved",
  },
  claim: { noticedOn: "Day the defect was found", defect: "Defect in materials or workmanship" },
  remedy: { claimId: "Claim", remediedOn: "Day the defect was remedied", remedy: "How it was remedied" },
};
/** Every key the page's mutations can report, with its visible label. */
export const LABELS: Record<string, string> = {
  extensionId: "Application",
  kind: "Charge",
  ...Object.assign({}, ...Object.values(FORM_LABELS)),
};
const RENAMED: Record<string, string> = { kind: "chargeKind", amountCents: "chargeAmount", description: "chargeDescription", resolutionNumber: "chargeResolutionNumber" };

type Charge = { kind: string; label: string; amount: string; resolutionNumber: string; resolutionAdoptedOn: string; paid: boolean };
type Extension = {
  id: string;
  districtId: string;
  name: string;
  status: string;
  statusLabel: string;
  constructionStartsOn: string | null;
  testsPassed: boolean;
  asBuiltCopies: number | null;
  finalApprovedAt: string | null;
  acceptedOn: string | null;
  acceptanceResolutionNumber: string | null;
  guaranteeEndsOn: string | null;
  securityKind: string | null;
  suretyName: string | null;
  bondNumber: string | null;
  securityAmountCents: number | null;
  securityExpiresOn: string | null;
  securityDescription: string | null;
  constructionProblems: string[];
  acceptanceProblems: string[];
  documents: { documentId: string; kind: string; filename: string }[];
  charges: Charge[];
  inspections: { id: string; inspectedOn: string; conforms: boolean; findings: string; excavationRequired: boolean; inspectorName: string }[];
  guaranteeClaims: { id: string; noticedOn: string; defect: string; remediedOn: string | null; remedy: string | null }[];
  /** the district's staff only (SUL 502 A: inspections without prior notice) */
  plannedInspections:
    | { id: string; plannedOn: string; scope: string; plannedByName: string; inspectionId: string | null; inspectedOn: string | null; cancelledOn: string | null; cancellationReason: string | null; cancelledByName: string | null }[]
    | null;
  laterals: { lateralPermitId: string; permitNumber: string | null; status: string }[];
};
type Data = { e: Extension; isOperator: boolean; isAdmin: boolean; timeZone: string };
type ActionData = { error: string; fields: Record<string, string>; intent: string; values: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const d = await requireSignedIn<{ sewerExtension: Extension }>(
    args,
    `query StaffExtensionWorks($id: ID!) { sewerExtension(id: $id) { id districtId name status statusLabel constructionStartsOn testsPassed asBuiltCopies finalApprovedAt
      acceptedOn acceptanceResolutionNumber guaranteeEndsOn securityKind suretyName bondNumber securityAmountCents securityExpiresOn securityDescription
      constructionProblems acceptanceProblems documents { documentId kind filename } charges { kind label amount resolutionNumber resolutionAdoptedOn paid }
      inspections { id inspectedOn conforms findings excavationRequired inspectorName } guaranteeClaims { id noticedOn defect remediedOn remedy }
      plannedInspections { id plannedOn scope plannedByName inspectionId inspectedOn cancelledOn cancellationReason cancelledByName }
      laterals { lateralPermitId permitNumber status } } }`,
    { id: args.params.id },
  );
  const district = info.districts.find((x) => x.id === d.sewerExtension.districtId);
  return {
    e: d.sewerExtension,
    isOperator: !!district?.roles.includes("OPERATOR"),
    isAdmin: !!district?.roles.includes("ADMIN"),
    timeZone: district?.timeZone ?? "America/New_York",
  } satisfies Data;
}

const cents = (v: string) => {
  const c = dollarsToCents(v);
  return c === undefined ? -1 : c;
};

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const intent = s("intent");
  const values = Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)]));
  const id = params.id!;
  const yes = (k: string) => (s(k) === "yes" ? true : s(k) === "no" ? false : (null as unknown as boolean));
  let r;
  if (intent === "charge")
    r = await gql(context, request, `mutation Charge($i: SetSewerExtensionChargeInput!) { setSewerExtensionCharge(input: $i) { kind } }`, {
      i: { extensionId: id, kind: s("chargeKind"), amountCents: cents(s("chargeAmount")) ?? -1, description: s("chargeDescription") || null, resolutionNumber: s("chargeResolutionNumber"), resolutionAdoptedOn: s("resolutionAdoptedOn") },
    });
  else if (intent === "plan")
    r = await gql(context, request, `mutation Plan($i: PlanExtensionInspectionInput!) { planExtensionInspection(input: $i) { id } }`, { i: { extensionId: id, plannedOn: s("plannedOn"), scope: s("scope") } });
  else if (intent === "movePlan")
    r = await gql(context, request, `mutation Move($i: MoveExtensionInspectionPlanInput!) { moveExtensionInspectionPlan(input: $i) { id } }`, { i: { planId: s("planId"), plannedOn: s("plannedOn"), reason: s("reason") } });
  else if (intent === "cancelPlan")
    r = await gql(context, request, `mutation Cancel($i: CancelExtensionInspectionPlanInput!) { cancelExtensionInspectionPlan(input: $i) { id } }`, { i: { planId: s("planId"), reason: s("reason") } });
  else if (intent === "inspection")
    r = await gql(context, request, `mutation Inspect($i: RecordExtensionInspectionInput!) { recordExtensionInspection(input: $i) { id } }`, {
      i: { extensionId: id, inspectedOn: s("inspectedOn"), conforms: yes("conforms"), findings: s("findings"), excavationRequired: s("excavationRequired") === "yes", planId: s("planId") || null },
    });
  else if (intent === "remedy")
    r = await gql(context, request, `mutation Remedy($i: RecordGuaranteeClaimRemediedInput!) { recordGuaranteeClaimRemedied(input: $i) { id } }`, {
      i: { claimId: s("claimId"), remediedOn: s("remediedOn"), remedy: s("remedy") },
    });
  else if (intent === "lateral")
    r = await gql(context, request, `mutation Link($i: LinkLateralToSewerExtensionInput!) { linkLateralToSewerExtension(input: $i) { id } }`, { i: { extensionId: id, permitNumber: s("permitNumber") } });
  else if (intent === "asBuilt") {
    const n = /^\d{1,3}$/.test(s("copiesFiled")) ? Number(s("copiesFiled")) : -1;
    r = await gql(context, request, `mutation AsBuilt($i: ApproveAsBuiltDrawingsInput!) { approveAsBuiltDrawings(input: $i) { id } }`, { i: { extensionId: id, copiesFiled: n } });
  } else if (intent === "final") r = await gql(context, request, `mutation Final($id: ID!) { giveSewerExtensionFinalApproval(extensionId: $id) { id } }`, { id });
  else if (intent === "accept") {
    const amount = s("amountCents") ? cents(s("amountCents")) : null;
    r = await gql(context, request, `mutation Accept($i: RecordTownBoardAcceptanceInput!) { recordTownBoardAcceptance(input: $i) { id } }`, {
      i: {
        extensionId: id,
        resolutionNumber: s("resolutionNumber"),
        acceptedOn: s("acceptedOn"),
        securityKind: s("securityKind"),
        suretyName: s("suretyName") || null,
        bondNumber: s("bondNumber") || null,
        amountCents: amount,
        expiresOn: s("expiresOn") || null,
        description: s("description") || null,
      },
    });
  } else r = await gql(context, request, `mutation Claim($i: RecordGuaranteeClaimInput!) { recordGuaranteeClaim(input: $i) { id } }`, { i: { extensionId: id, noticedOn: s("noticedOn"), defect: s("defect") } });
  if (!r.ok) {
    const fields: Record<string, string> = {};
    // A plan's own forms (one pair per planned inspection) name their fields after the plan.
    const planForm = intent === "movePlan" || intent === "cancelPlan";
    for (const [k, v] of Object.entries(r.error.fields ?? {}))
      fields[intent === "charge" ? (RENAMED[k] ?? k) : planForm ? `${intent}-${k}-${s("planId")}` : k === "lateralPermitId" ? "permitNumber" : k] = v;
    return Response.json({ error: r.error.message, fields, intent, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/extensions/${id}/works?done=${intent}`, { headers: cookieHeaders(r) });
}

const DONE: Record<string, string> = {
  charge: "The Board's charge is entered and the developer is asked to pay it.",
  plan: "The inspection is planned. The developer is not told (Sewer Use Law 502 A).",
  movePlan: "The planned inspection is moved. The developer is not told (Sewer Use Law 502 A).",
  cancelPlan: "The planned inspection is cancelled; it stays on the record.",
  inspection: "The inspection is recorded and its findings sent to the Town Board.",
  lateral: "The lateral permit is recorded on the extension.",
  asBuilt: "The as-built drawings are approved.",
  final: "Final approval is given; the Town Board is asked to concur.",
  accept: "The Town Board's acceptance is recorded: the sewer is the Town's and its guarantee runs.",
  claim: "The defect is recorded under the guarantee and the developer is told.",
  remedy: "The defect is recorded as remedied and the developer is told.",
};

/** Staff: construction and acceptance of a sewer extension (Sewer Use Law 502 A, 507). */
export default function StaffExtensionWorks() {
  const { e, isOperator, isAdmin, timeZone } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const err = (intent: string) => (a?.intent === intent ? a : undefined);
  const v = (intent: string, k: string) => err(intent)?.values?.[k];
  const fe = (intent: string, k: string) => err(intent)?.fields?.[k];
  const summary = (intent: string) => <ErrorSummary message={err(intent)?.error} fields={err(intent)?.fields} labels={FORM_LABELS[intent]} />;
  const approved = e.status === "APPROVED";
  const openPlans = (e.plannedInspections ?? []).filter((p) => !p.inspectionId && !p.cancelledOn);
  // Each open plan's move and cancel forms: fields named after the plan, its errors shown at it.
  const planField = (intent: string, k: string, planId: string) => `${intent}-${k}-${planId}`;
  const planErr = (intent: string, planId: string) => (a?.intent === intent && a.values?.planId === planId ? a : undefined);
  const planLabels = (planId: string) =>
    Object.fromEntries(["movePlan", "cancelPlan"].flatMap((intent) => Object.entries(FORM_LABELS[intent]).map(([k, label]) => [planField(intent, k, planId), label])));
  const openClaims = e.guaranteeClaims.filter((c) => !c.remediedOn);
  const open = (intent: string) => (
    <>
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value={intent} />
    </>
  );
  return (
    <>
      <p>
        <Link className="usa-link" to={`/staff/extensions/${e.id}`}>
          {e.name}: review and tests
        </Link>
      </p>
      <h1>Construction and acceptance: {e.name}</h1>
      {DONE[params.get("done") ?? ""] && <SuccessAlert>{DONE[params.get("done")!]}</SuccessAlert>}
      <p>Status: {e.statusLabel}.</p>

      <h2>The Town Board's charges</h2>
      <p>
        The developer pays the entire installation, a proportionate share of the plant, trunk sewers, pumping stations, force mains and Town expenses,
        and inspection fees before construction starts, as the Town Board sets them by resolution (Sewer Use Law 502 A). Until the Board sets one, there
        is nothing to pay.
      </p>
      {e.charges.length === 0 ? (
        <p>The Town Board has set no charge on this extension.</p>
      ) : (
        <ul className="usa-list">
          {e.charges.map((c) => (
            <li key={c.kind}>
              {c.label}: {c.amount}, resolution {c.resolutionNumber} of <CalendarDate date={c.resolutionAdoptedOn} />, {c.paid ? "paid" : "not paid yet"}
            </li>
          ))}
        </ul>
      )}
      {approved && isAdmin && (
        <>
          <h3>Enter a charge the Board set</h3>
          {summary("charge")}
          <Form method="post" className="usa-form">
            {open("charge")}
            <SelectField name="chargeKind" label={CHARGE_LABELS.chargeKind} options={[{ value: "INSPECTION_FEES", label: "Inspection fees" }, { value: "PROPORTIONATE_SHARE", label: "Proportionate share" }]} defaultValue={v("charge", "chargeKind")} error={fe("charge", "chargeKind")} required />
            <TextField name="chargeAmount" label={CHARGE_LABELS.chargeAmount} hint="In dollars, for example 1,200.00." inputMode="decimal" defaultValue={v("charge", "chargeAmount")} error={fe("charge", "chargeAmount")} required />
            <TextField name="chargeDescription" label={CHARGE_LABELS.chargeDescription} defaultValue={v("charge", "chargeDescription")} error={fe("charge", "chargeDescription")} />
            <TextField name="chargeResolutionNumber" label={CHARGE_LABELS.chargeResolutionNumber} defaultValue={v("charge", "chargeResolutionNumber")} error={fe("charge", "chargeResolutionNumber")} required />
            <TextField name="resolutionAdoptedOn" label={CHARGE_LABELS.resolutionAdoptedOn} type="date" defaultValue={v("charge", "resolutionAdoptedOn") ?? todayIn(timeZone)} error={fe("charge", "resolutionAdoptedOn")} required />
            <button className="usa-button" type="submit">
              Enter the charge
            </button>
          </Form>
        </>
      )}

      <h2>Inspections</h2>
      {e.constructionProblems.length > 0 && (
        <ul className="usa-list">
          {e.constructionProblems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {e.constructionStartsOn && (
        <p>
          Construction starts on <CalendarDate date={e.constructionStartsOn} />.
        </p>
      )}
      {e.inspections.length === 0 ? (
        <p>No inspection recorded yet.</p>
      ) : (
        <ul className="usa-list">
          {e.inspections.map((i) => (
            <li key={i.id}>
              <CalendarDate date={i.inspectedOn} />, {i.inspectorName}: {i.conforms ? "in accordance with the approved plans" : "not in accordance with the approved plans"}
              {i.excavationRequired ? ", excavation required" : ""}. {i.findings}
            </li>
          ))}
        </ul>
      )}
      {e.plannedInspections && (e.plannedInspections.length > 0 || (approved && isOperator)) && (
        <>
          <h3>Planned inspections</h3>
          <p>For the district's staff only: inspections are made without prior notice, so the developer is never shown or sent the plan (Sewer Use Law 502 A).</p>
          {e.plannedInspections.length === 0 ? (
            <p>No inspection planned.</p>
          ) : (
            <ul className="usa-list">
              {e.plannedInspections.map((p) => (
                <li key={p.id}>
                  <CalendarDate date={p.plannedOn} />: {p.scope} (planned by {p.plannedByName}
                  {p.inspectedOn ? (
                    <>
                      ; made, findings of <CalendarDate date={p.inspectedOn} /> recorded
                    </>
                  ) : p.cancelledOn ? (
                    <>
                      ; cancelled on <CalendarDate date={p.cancelledOn} /> by {p.cancelledByName}: {p.cancellationReason}
                    </>
                  ) : (
                    "; not yet made"
                  )}
                  )
                  {isOperator && !p.inspectionId && !p.cancelledOn && (
                    <details className="margin-top-1" open={!!(planErr("movePlan", p.id) || planErr("cancelPlan", p.id))}>
                      <summary>Move or cancel this inspection</summary>
                      {approved && (
                        <Form method="post" className="usa-form">
                          {open("movePlan")}
                          <input type="hidden" name="planId" value={p.id} />
                          <ErrorSummary message={planErr("movePlan", p.id)?.error} fields={planErr("movePlan", p.id)?.fields} labels={planLabels(p.id)} />
                          <TextField id={planField("movePlan", "plannedOn", p.id)} name="plannedOn" label={FORM_LABELS.movePlan.plannedOn} type="date" hint="Today or later." defaultValue={planErr("movePlan", p.id)?.values.plannedOn ?? p.plannedOn} error={planErr("movePlan", p.id)?.fields[planField("movePlan", "plannedOn", p.id)]} required />
                          <TextField id={planField("movePlan", "reason", p.id)} name="reason" label={FORM_LABELS.movePlan.reason} hint="For the record, for example: rain, the trench is flooded." defaultValue={planErr("movePlan", p.id)?.values.reason} error={planErr("movePlan", p.id)?.fields[planField("movePlan", "reason", p.id)]} required />
                          <button className="usa-button usa-button--outline" type="submit">
                            Move the inspection
                          </button>
                        </Form>
                      )}
                      <Form method="post" className="usa-form">
                        {open("cancelPlan")}
                        <input type="hidden" name="planId" value={p.id} />
                        <ErrorSummary message={planErr("cancelPlan", p.id)?.error} fields={planErr("cancelPlan", p.id)?.fields} labels={planLabels(p.id)} />
                        <TextField id={planField("cancelPlan", "reason", p.id)} name="reason" label={FORM_LABELS.cancelPlan.reason} hint="It stays on the record, marked cancelled." defaultValue={planErr("cancelPlan", p.id)?.values.reason} error={planErr("cancelPlan", p.id)?.fields[planField("cancelPlan", "reason", p.id)]} required />
                        <button className="usa-button usa-button--secondary" type="submit">
                          Cancel the inspection
                        </button>
                      </Form>
                    </details>
                  )}
                </li>
              ))}
            </ul>
          )}
          {approved && isOperator && (
            <>
              {summary("plan")}
              <Form method="post" className="usa-form usa-form--large">
                {open("plan")}
                <TextField name="plannedOn" label={FORM_LABELS.plan.plannedOn} type="date" hint="Today or later." defaultValue={v("plan", "plannedOn") ?? todayIn(timeZone)} error={fe("plan", "plannedOn")} required />
                <TextAreaField name="scope" label={FORM_LABELS.plan.scope} hint="For example: bedding and backfill of the Aster Court run; manhole 4 before it is covered." defaultValue={v("plan", "scope")} error={fe("plan", "scope")} required />
                <button className="usa-button usa-button--outline" type="submit">
                  Plan the inspection
                </button>
              </Form>
            </>
          )}
        </>
      )}
      {approved && isOperator && (
        <>
          <h3>Record an inspection</h3>
          <p>Inspections are made without prior notice; the findings go to the Town Board (Sewer Use Law 502 A).</p>
          {summary("inspection")}
          <Form method="post" className="usa-form usa-form--large">
            {open("inspection")}
            {openPlans.length > 0 && (
              <SelectField
                name="planId"
                label={FORM_LABELS.inspection.planId}
                options={[{ value: "", label: "None (not planned)" }, ...openPlans.map((p) => ({ value: p.id, label: `Planned for ${p.plannedOn}: ${p.scope}` }))]}
                defaultValue={v("inspection", "planId")}
                error={fe("inspection", "planId")}
              />
            )}
            <TextField name="inspectedOn" label={FORM_LABELS.inspection.inspectedOn} type="date" defaultValue={v("inspection", "inspectedOn") ?? todayIn(timeZone)} error={fe("inspection", "inspectedOn")} required />
            <SelectField name="conforms" label={FORM_LABELS.inspection.conforms} options={[{ value: "yes", label: "Yes" }, { value: "no", label: "No" }]} defaultValue={v("inspection", "conforms")} error={fe("inspection", "conforms")} required />
            <TextAreaField name="findings" label={FORM_LABELS.inspection.findings} defaultValue={v("inspection", "findings")} error={fe("inspection", "findings")} required />
            <SelectField name="excavationRequired" label={FORM_LABELS.inspection.excavationRequired} hint="Facilities covered before they were inspected (Sewer Use Law 502 A)." options={[{ value: "no", label: "No" }, { value: "yes", label: "Yes" }]} defaultValue={v("inspection", "excavationRequired")} error={fe("inspection", "excavationRequired")} />
            <button className="usa-button" type="submit">
              Record the inspection
            </button>
          </Form>
        </>
      )}

      <h2>Building laterals on the extension</h2>
      <p>A lateral recorded here is connected only once every section has passed its tests (Sewer Use Law 502 A).</p>
      {e.laterals.length === 0 ? (
        <p>No lateral permit recorded on the extension.</p>
      ) : (
        <ul className="usa-list">
          {e.laterals.map((l) => (
            <li key={l.lateralPermitId}>
              <Link className="usa-link" to={`/staff/permits/${l.lateralPermitId}`}>
                {l.permitNumber ?? "Lateral permit application"}
              </Link>{" "}
              ({l.status.toLowerCase()})
            </li>
          ))}
        </ul>
      )}
      {approved && isOperator && (
        <>
          {summary("lateral")}
          <Form method="post" className="usa-form">
            {open("lateral")}
            <TextField name="permitNumber" label={FORM_LABELS.lateral.permitNumber} hint="As on the permit, for example LKV-LP-2027-0001." defaultValue={v("lateral", "permitNumber")} error={fe("lateral", "permitNumber")} required />
            <button className="usa-button" type="submit">
              Record the lateral
            </button>
          </Form>
        </>
      )}

      <h2>As-built drawings</h2>
      <AsBuiltDrawings documents={e.documents} none="The developer has not filed the as-built drawings yet." />
      {e.asBuiltCopies !== null ? (
        <p>Approved, with {e.asBuiltCopies} paper copies filed (Sewer Use Law 507).</p>
      ) : (
        approved &&
        isOperator && (
          <>
            {summary("asBuilt")}
            <Form method="post" className="usa-form">
              {open("asBuilt")}
              <TextField name="copiesFiled" label={FORM_LABELS.asBuilt.copiesFiled} hint="Four copies are filed before the sewer is accepted (Sewer Use Law 507)." inputMode="numeric" defaultValue={v("asBuilt", "copiesFiled")} error={fe("asBuilt", "copiesFiled")} required />
              <button className="usa-button" type="submit">
                Approve the as-built drawings
              </button>
            </Form>
          </>
        )
      )}

      <h2>Acceptance</h2>
      {e.acceptedOn ? (
        <>
          <p>
          Accepted by the Town on <CalendarDate date={e.acceptedOn} /> (resolution {e.acceptanceResolutionNumber}). Guaranteed against defects through{" "}
          <CalendarDate date={e.guaranteeEndsOn} />, secured by{" "}
          {e.securityKind === "SURETY_BOND" ? (
            <>
              surety bond {e.bondNumber} of {e.suretyName}
              {e.securityAmountCents ? ` for ${money(e.securityAmountCents)}` : ""}, expiring <CalendarDate date={e.securityExpiresOn} />
            </>
          ) : (
            e.securityDescription
          )}
          .
          </p>
          {/* Only a Lakeview sewer is ever accepted: Huron's law has no Article 5, so it has no extension to accept. */}
          <p>
            <Link className="usa-link" to={`/staff/septic?extension=${e.id}`}>
              Septic systems this sewer reaches (Sewer Use Law 408)
            </Link>
          </p>
        </>
      ) : e.finalApprovedAt ? (
        <p>The District Operator gave final approval and acceptance; the Town Board's concurrence is awaited (Sewer Use Law 507).</p>
      ) : approved ? (
        <>
          {e.acceptanceProblems.length > 0 ? (
            <>
              <p>Final approval waits for:</p>
              <ul className="usa-list">
                {e.acceptanceProblems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </>
          ) : (
            <p>Everything the law asks is done: the District Operator may give final approval.</p>
          )}
          {isOperator && (
            <>
              {summary("final")}
              <Form method="post">
                {open("final")}
                <button className="usa-button" type="submit">
                  Give final approval and acceptance
                </button>
              </Form>
            </>
          )}
        </>
      ) : null}
      {approved && e.finalApprovedAt && isAdmin && (
        <>
          <h3>Enter the Town Board's concurrence</h3>
          {summary("accept")}
          <Form method="post" className="usa-form usa-form--large">
            {open("accept")}
            <TextField name="resolutionNumber" label={FORM_LABELS.accept.resolutionNumber} defaultValue={v("accept", "resolutionNumber")} error={fe("accept", "resolutionNumber")} required />
            <TextField name="acceptedOn" label={FORM_LABELS.accept.acceptedOn} type="date" defaultValue={v("accept", "acceptedOn") ?? todayIn(timeZone)} error={fe("accept", "acceptedOn")} required />
            <SelectField name="securityKind" label={FORM_LABELS.accept.securityKind} hint="The guarantee is secured by a surety bond or other security the Town Board approves (Sewer Use Law 507)." options={[{ value: "SURETY_BOND", label: "Surety bond" }, { value: "OTHER", label: "Other security the Board approved" }]} defaultValue={v("accept", "securityKind")} error={fe("accept", "securityKind")} required />
            <TextField name="suretyName" label={FORM_LABELS.accept.suretyName} hint="For a surety bond." defaultValue={v("accept", "suretyName")} error={fe("accept", "suretyName")} />
            <TextField name="bondNumber" label={FORM_LABELS.accept.bondNumber} hint="For a surety bond." defaultValue={v("accept", "bondNumber")} error={fe("accept", "bondNumber")} />
            <TextField name="amountCents" label={FORM_LABELS.accept.amountCents} hint="In dollars." inputMode="decimal" defaultValue={v("accept", "amountCents")} error={fe("accept", "amountCents")} />
            <TextField name="expiresOn" label={FORM_LABELS.accept.expiresOn} type="date" hint="Not before the guarantee's last day." defaultValue={v("accept", "expiresOn")} error={fe("accept", "expiresOn")} />
            <TextAreaField name="description" label={FORM_LABELS.accept.description} hint="For other security." defaultValue={v("accept", "description")} error={fe("accept", "description")} />
            <button className="usa-button" type="submit">
              Record the acceptance
            </button>
          </Form>
        </>
      )}

      {e.status === "ACCEPTED" && (
        <>
          <h2>Claims under the guarantee</h2>
          {e.guaranteeClaims.length === 0 ? (
            <p>No defect claimed.</p>
          ) : (
            <ul className="usa-list">
              {e.guaranteeClaims.map((c) => (
                <li key={c.id}>
                  <CalendarDate date={c.noticedOn} />: {c.defect}{" "}
                  {c.remediedOn ? (
                    <>
                      (remedied <CalendarDate date={c.remediedOn} />: {c.remedy})
                    </>
                  ) : (
                    "(open)"
                  )}
                </li>
              ))}
            </ul>
          )}
          {isOperator && (
            <>
              {summary("claim")}
              <Form method="post" className="usa-form usa-form--large">
                {open("claim")}
                <TextField name="noticedOn" label={FORM_LABELS.claim.noticedOn} type="date" defaultValue={v("claim", "noticedOn") ?? todayIn(timeZone)} error={fe("claim", "noticedOn")} required />
                <TextAreaField name="defect" label={FORM_LABELS.claim.defect} defaultValue={v("claim", "defect")} error={fe("claim", "defect")} required />
                <button className="usa-button" type="submit">
                  Record the defect
                </button>
              </Form>
              {openClaims.length > 0 && (
                <>
                  <h3>Record a defect remedied</h3>
                  {summary("remedy")}
                  <Form method="post" className="usa-form usa-form--large">
                    {open("remedy")}
                    <SelectField name="claimId" label={FORM_LABELS.remedy.claimId} options={openClaims.map((c) => ({ value: c.id, label: `Found ${c.noticedOn}: ${c.defect.slice(0, 80)}` }))} defaultValue={v("remedy", "claimId")} error={fe("remedy", "claimId")} required />
                    <TextField name="remediedOn" label={FORM_LABELS.remedy.remediedOn} type="date" defaultValue={v("remedy", "remediedOn") ?? todayIn(timeZone)} error={fe("remedy", "remediedOn")} required />
                    <TextAreaField name="remedy" label={FORM_LABELS.remedy.remedy} defaultValue={v("remedy", "remedy")} error={fe("remedy", "remedy")} required />
                    <button className="usa-button usa-button--outline" type="submit">
                      Record the remedy
                    </button>
                  </Form>
                </>
              )}
            </>
          )}
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

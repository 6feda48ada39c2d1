import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { CalendarDate, todayIn } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Sewer extensions | Staff | Tapline" }];

/** The ledger form's visible labels by the keys the API reports, in the form's order. */
const LEDGER_LABELS: Record<string, string> = {
  districtId: "District",
  id: "Ledger line",
  kind: "Segment or plant",
  name: "Name",
  designGpd: "Design capacity (gallons per day)",
  presentUseGpd: "Present use (gallons per day)",
};
/** The Board's resolutions (SUL 501): the release form's keys the commitment form also has are renamed (`release…`), so each field's id is its key. */
const FORM_LABELS: Record<string, Record<string, string>> = {
  ledger: LEDGER_LABELS,
  commit: {
    capacityId: "Segment or plant",
    flowGpd: "Capacity committed (gallons per day)",
    committedTo: "Committed to",
    extensionId: "Sewer extension application, if any",
    resolutionNumber: "Resolution number",
    resolutionAdoptedOn: "Resolution adopted on",
    expiresOn: "Expires on (first day it no longer counts)",
  },
  release: { commitmentId: "Commitment", releasedOn: "Released from", releaseResolutionNumber: "Release resolution number" },
};
/** Every key the page's mutations can report, with its visible label. */
export const LABELS: Record<string, string> = { ...LEDGER_LABELS, ...FORM_LABELS.commit, ...FORM_LABELS.release };

type Row = { id: string; name: string; organizationName: string; statusLabel: string; lots: number; designFlowGpd: number; testsPassed: boolean };
type Commitment = { id: string; committedTo: string; flowGpd: number; resolutionNumber: string; resolutionAdoptedOn: string; expiresOn: string | null; releasedOn: string | null; inForce: boolean };
type Line = { id: string; kind: string; name: string; designGpd: number; presentUseGpd: number; committedGpd: number; leftGpd: number; commitments: Commitment[] };
type Plan = { id: string; extensionId: string; extensionName: string; organizationName: string; plannedOn: string; scope: string; plannedByName: string };
type Expiring = { extensionId: string; name: string; organizationName: string; guaranteeEndsOn: string; daysLeft: number; openClaims: number };
type Data = {
  districts: { id: string; name: string }[];
  districtId: string;
  keepsLedger: boolean;
  isAdmin: boolean;
  timeZone: string;
  slug: string;
  items: Row[];
  nextCursor: string | null;
  ledger: Line[];
  plans: Plan[];
  expiring: Expiring[];
  awaitingBoard: Row[];
};
type ActionData = { error: string; fields: Record<string, string>; intent: string; values: Record<string, string> };

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const d = await requireSignedIn<{
    districtSewerExtensions: { items: Row[]; nextCursor: string | null };
    sewerCapacityLedger: Line[];
    plannedSewerExtensionInspections: Plan[];
    expiringSewerGuarantees: Expiring[];
    awaitingBoard: { items: Row[] };
  }>(
    args,
    `query StaffExtensions($d: ID!, $a: String) {
      districtSewerExtensions(districtId: $d, after: $a) { items { id name organizationName statusLabel lots designFlowGpd testsPassed } nextCursor }
      sewerCapacityLedger(districtId: $d) { id kind name designGpd presentUseGpd committedGpd leftGpd
        commitments { id committedTo flowGpd resolutionNumber resolutionAdoptedOn expiresOn releasedOn inForce } }
      plannedSewerExtensionInspections(districtId: $d) { id extensionId extensionName organizationName plannedOn scope plannedByName }
      expiringSewerGuarantees(districtId: $d) { extensionId name organizationName guaranteeEndsOn daysLeft openClaims }
      awaitingBoard: districtSewerExtensions(districtId: $d, status: "AWAITING_BOARD", first: 100) { items { id name organizationName statusLabel lots designFlowGpd testsPassed } } }`,
    { d: district.id, a: url.searchParams.get("after") },
  );
  return {
    districts: info.districts.map((x) => ({ id: x.id, name: x.name })),
    districtId: district.id,
    keepsLedger: district.roles.includes("OPERATOR") || district.roles.includes("ADMIN"),
    isAdmin: district.roles.includes("ADMIN"),
    timeZone: district.timeZone,
    slug: district.slug,
    ...d.districtSewerExtensions,
    ledger: d.sewerCapacityLedger,
    plans: d.plannedSewerExtensionInspections,
    expiring: d.expiringSewerGuarantees,
    awaitingBoard: d.awaitingBoard.items,
  } satisfies Data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const f = await request.formData();
  const s = (k: string) => String(f.get(k) ?? "").trim();
  const whole = (k: string) => (/^\d+$/.test(s(k).replace(/,/g, "")) ? Number(s(k).replace(/,/g, "")) : -1);
  const districtId = s("districtId");
  const intent = s("intent") || "ledger";
  let r;
  if (intent === "commit")
    r = await gql(context, request, `mutation Commit($i: CommitSewerCapacityInput!) { commitSewerCapacity(input: $i) { id } }`, {
      i: { capacityId: s("capacityId"), flowGpd: whole("flowGpd"), committedTo: s("committedTo"), extensionId: s("extensionId") || null, resolutionNumber: s("resolutionNumber"), resolutionAdoptedOn: s("resolutionAdoptedOn"), expiresOn: s("expiresOn") || null },
    });
  else if (intent === "release")
    r = await gql(context, request, `mutation Release($i: ReleaseSewerCapacityInput!) { releaseSewerCapacity(input: $i) { id } }`, {
      i: { commitmentId: s("commitmentId"), releasedOn: s("releasedOn"), resolutionNumber: s("releaseResolutionNumber") },
    });
  else {
    const i = { districtId, kind: s("kind"), name: s("name"), designGpd: whole("designGpd"), presentUseGpd: whole("presentUseGpd"), ...(s("id") ? { id: s("id") } : {}) };
    r = await gql(context, request, `mutation Ledger($i: RecordSewerCapacityInput!) { recordSewerCapacity(input: $i) { id } }`, { i });
  }
  if (!r.ok) {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.error.fields ?? {})) fields[intent === "release" && k === "resolutionNumber" ? "releaseResolutionNumber" : k] = v;
    return Response.json({ error: r.error.message, fields, intent, values: Object.fromEntries([...f.entries()].map(([k, v]) => [k, String(v)])) } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/extensions?districtId=${districtId}&done=${intent}`, { headers: cookieHeaders(r) });
}

const gpd = (n: number) => n.toLocaleString("en-US");
const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;
/** A guarantee's days left in words: "12 days left", "Ends today", "Ended 3 days ago". */
const daysLeft = (n: number) => (n > 0 ? `${days(n)} left` : n === 0 ? "Ends today" : `Ended ${days(-n)} ago`);

/** Staff: the district's sewer extensions and its capacity ledger (Sewer Use Law 501, 1204). */
export default function StaffExtensions() {
  const { districts, districtId, keepsLedger, isAdmin, timeZone, slug, items, nextCursor, ledger, plans, expiring, awaitingBoard } = useLoaderData<typeof loader>() as Data;
  const today = todayIn(timeZone);
  const action = useActionData<ActionData>();
  const a = action?.intent === "ledger" ? action : undefined;
  const err = (intent: string) => (action?.intent === intent ? action : undefined);
  const v = (intent: string, k: string) => err(intent)?.values?.[k];
  const fe = (intent: string, k: string) => err(intent)?.fields?.[k];
  const open = ledger.flatMap((l) => l.commitments.filter((c) => !c.releasedOn).map((c) => ({ value: c.id, label: `${l.name}: ${gpd(c.flowGpd)} to ${c.committedTo}, resolution ${c.resolutionNumber}` })));
  const [params] = useSearchParams();
  return (
    <>
      <h1>Sewer extensions</h1>
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <SelectField name="districtId" label={LABELS.districtId} options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <button className="usa-button usa-button--outline" type="submit">
            Show
          </button>
        </Form>
      )}
      {params.get("done") === "ledger" && <SuccessAlert>The capacity ledger is updated.</SuccessAlert>}
      {params.get("done") === "commit" && <SuccessAlert>The Town Board's commitment is entered.</SuccessAlert>}
      {params.get("done") === "release" && <SuccessAlert>The Town Board's release is entered.</SuccessAlert>}
      <p>
        <Link className="usa-link" to={`/extensions/public/${slug}`}>
          What the public sees
        </Link>{" "}
        of the district's sewer extensions (Sewer Use Law 1301-1303).
      </p>
      <h2>Applications</h2>
      {items.length === 0 ? (
        <p>No sewer extension applications.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Applications, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Developer</th>
              <th scope="col">Lots</th>
              <th scope="col">Design flow (gallons per day)</th>
              <th scope="col">Status</th>
              <th scope="col">Tests</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id}>
                <th scope="row" data-label="Project">
                  <Link className="usa-link" to={`/staff/extensions/${r.id}`}>
                    {r.name}
                  </Link>
                </th>
                <td data-label="Developer">{r.organizationName}</td>
                <td data-label="Lots">{r.lots}</td>
                <td data-label="Design flow (gallons per day)">{gpd(r.designFlowGpd)}</td>
                <td data-label="Status">{r.statusLabel}</td>
                <td data-label="Tests">{r.testsPassed ? "All sections passed" : "Not all passed yet"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {nextCursor && (
        <p>
          <Link className="usa-link" to={`?districtId=${districtId}&after=${encodeURIComponent(nextCursor)}`}>
            Older applications
          </Link>
        </p>
      )}
      <h2>For the Town Board's acceptance</h2>
      <p>
        Sewers the District Operator has given final approval and acceptance: each becomes the Town's with the Town Board's concurrence by resolution,
        which the ADMIN enters on its construction page (Sewer Use Law 507).
      </p>
      {awaitingBoard.length === 0 ? (
        <p>None awaits the Town Board.</p>
      ) : (
        <ul className="usa-list">
          {awaitingBoard.map((r) => (
            <li key={r.id}>
              <Link className="usa-link" to={`/staff/extensions/${r.id}/works`}>
                {r.name}
              </Link>{" "}
              ({r.organizationName}, {r.lots} lots)
            </li>
          ))}
        </ul>
      )}

      <h2>Planned inspections</h2>
      <p>
        Inspections are made without prior notice (Sewer Use Law 502 A): the plan is for the district's staff only and is never shown or sent to the
        developer. Recording the findings on the extension's construction page closes a planned inspection.
      </p>
      {plans.length === 0 ? (
        <p>No inspection planned.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Planned inspections not yet made, earliest first</caption>
          <thead>
            <tr>
              <th scope="col">Sewer extension</th>
              <th scope="col">Planned for</th>
              <th scope="col">What to look at</th>
              <th scope="col">Planned by</th>
            </tr>
          </thead>
          <tbody>
            {plans.map((p) => (
              <tr key={p.id}>
                <th scope="row" data-label="Sewer extension">
                  <Link className="usa-link" to={`/staff/extensions/${p.extensionId}/works`}>
                    {p.extensionName}
                  </Link>
                  <span className="display-block">{p.organizationName}</span>
                </th>
                <td data-label="Planned for">
                  <CalendarDate date={p.plannedOn} />
                  {p.plannedOn < today ? " (overdue)" : p.plannedOn === today ? " (today)" : ""}
                </td>
                <td data-label="What to look at">{p.scope}</td>
                <td data-label="Planned by">{p.plannedByName}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Guarantees ending</h2>
      <p>
        An accepted sewer is guaranteed by the developer against defects in materials or workmanship for one year (Sewer Use Law 507). Listed: the
        guarantees ending within the district's reminder days, and those already ended with a claim not yet remedied.
      </p>
      {expiring.length === 0 ? (
        <p>No guarantee is ending soon, and none has ended with a claim open.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Guarantees by last day</caption>
          <thead>
            <tr>
              <th scope="col">Sewer</th>
              <th scope="col">Last day of the guarantee</th>
              <th scope="col">Days left</th>
              <th scope="col">Open claims</th>
            </tr>
          </thead>
          <tbody>
            {expiring.map((g) => (
              <tr key={g.extensionId}>
                <th scope="row" data-label="Sewer">
                  <Link className="usa-link" to={`/staff/extensions/${g.extensionId}/works`}>
                    {g.name}
                  </Link>
                  <span className="display-block">{g.organizationName}</span>
                </th>
                <td data-label="Last day of the guarantee">
                  <CalendarDate date={g.guaranteeEndsOn} />
                </td>
                <td data-label="Days left">{daysLeft(g.daysLeft)}</td>
                <td data-label="Open claims">{g.openClaims === 0 ? "None" : g.openClaims}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Capacity ledger</h2>
      <p>
        Current use is the present use plus the capacity the Town Board has committed by resolution; an application is denied when the receiving sewer
        or the plant lacks capacity for it (Sewer Use Law 501).
      </p>
      {ledger.length === 0 ? (
        <p>The ledger has no segments or plant yet.</p>
      ) : (
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Segments and plant, gallons per day</caption>
          <thead>
            <tr>
              <th scope="col">Segment or plant</th>
              <th scope="col">Design capacity</th>
              <th scope="col">Present use</th>
              <th scope="col">Committed by the Board</th>
              <th scope="col">Left</th>
              <th scope="col">Commitments</th>
            </tr>
          </thead>
          <tbody>
            {ledger.map((l) => (
              <tr key={l.id}>
                <th scope="row" data-label="Segment or plant">
                  {l.name} ({l.kind === "PLANT" ? "plant" : "segment"})
                </th>
                <td data-label="Design capacity">{gpd(l.designGpd)}</td>
                <td data-label="Present use">{gpd(l.presentUseGpd)}</td>
                <td data-label="Committed by the Board">{gpd(l.committedGpd)}</td>
                <td data-label="Left">{l.leftGpd < 0 ? `Over by ${gpd(-l.leftGpd)}` : gpd(l.leftGpd)}</td>
                <td data-label="Commitments">
                  {l.commitments.length === 0 ? (
                    "None"
                  ) : (
                    <ul className="usa-list">
                      {l.commitments.map((c) => (
                        <li key={c.id}>
                          {gpd(c.flowGpd)} to {c.committedTo}, resolution {c.resolutionNumber} of <CalendarDate date={c.resolutionAdoptedOn} />
                          {c.releasedOn ? (
                            <>
                              , released <CalendarDate date={c.releasedOn} />
                            </>
                          ) : c.expiresOn ? (
                            <>
                              , until <CalendarDate date={c.expiresOn} />
                            </>
                          ) : null}
                          {c.inForce ? "" : " (no longer counts)"}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {keepsLedger && (
        <>
          <h3>Add a segment or the plant</h3>
          <ErrorSummary message={a?.error} fields={a?.fields} labels={LEDGER_LABELS} />
          <Form method="post" className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="ledger" />
            <input type="hidden" name="districtId" value={districtId} />
            <SelectField name="kind" label={LABELS.kind} options={[{ value: "SEGMENT", label: "Sewer segment" }, { value: "PLANT", label: "Treatment plant" }]} defaultValue={a?.values?.kind} error={a?.fields?.kind} required />
            <TextField name="name" label={LABELS.name} defaultValue={a?.values?.name} error={a?.fields?.name} required />
            <TextField name="designGpd" label={LABELS.designGpd} inputMode="numeric" defaultValue={a?.values?.designGpd} error={a?.fields?.designGpd} required />
            <TextField name="presentUseGpd" label={LABELS.presentUseGpd} inputMode="numeric" defaultValue={a?.values?.presentUseGpd} error={a?.fields?.presentUseGpd} required />
            <button className="usa-button" type="submit">
              Add to the ledger
            </button>
          </Form>
        </>
      )}
      {isAdmin && ledger.length > 0 && (
        <>
          <h3>Enter the Town Board's commitment of capacity</h3>
          <p>Capacity the Board commits by resolution counts toward current use from the resolution's day (Sewer Use Law 501).</p>
          <ErrorSummary message={err("commit")?.error} fields={err("commit")?.fields} labels={FORM_LABELS.commit} />
          <Form method="post" className="usa-form usa-form--large">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="commit" />
            <input type="hidden" name="districtId" value={districtId} />
            <SelectField name="capacityId" label={FORM_LABELS.commit.capacityId} options={ledger.map((l) => ({ value: l.id, label: `${l.name} (${l.kind === "PLANT" ? "plant" : "segment"})` }))} defaultValue={v("commit", "capacityId")} error={fe("commit", "capacityId")} required />
            <TextField name="flowGpd" label={FORM_LABELS.commit.flowGpd} inputMode="numeric" defaultValue={v("commit", "flowGpd")} error={fe("commit", "flowGpd")} required />
            <TextField name="committedTo" label={FORM_LABELS.commit.committedTo} hint="The user or development, as the resolution names it." defaultValue={v("commit", "committedTo")} error={fe("commit", "committedTo")} required />
            <SelectField name="extensionId" label={FORM_LABELS.commit.extensionId} options={[{ value: "", label: "None" }, ...items.map((r) => ({ value: r.id, label: `${r.name} (${r.statusLabel.toLowerCase()})` }))]} defaultValue={v("commit", "extensionId")} error={fe("commit", "extensionId")} />
            <TextField name="resolutionNumber" label={FORM_LABELS.commit.resolutionNumber} defaultValue={v("commit", "resolutionNumber")} error={fe("commit", "resolutionNumber")} required />
            <TextField name="resolutionAdoptedOn" label={FORM_LABELS.commit.resolutionAdoptedOn} type="date" defaultValue={v("commit", "resolutionAdoptedOn") ?? todayIn(timeZone)} error={fe("commit", "resolutionAdoptedOn")} required />
            <TextField name="expiresOn" label={FORM_LABELS.commit.expiresOn} type="date" defaultValue={v("commit", "expiresOn")} error={fe("commit", "expiresOn")} />
            <button className="usa-button" type="submit">
              Enter the commitment
            </button>
          </Form>
          {open.length > 0 && (
            <>
              <h3>Enter the Town Board's release of a commitment</h3>
              <ErrorSummary message={err("release")?.error} fields={err("release")?.fields} labels={FORM_LABELS.release} />
              <Form method="post" className="usa-form usa-form--large">
                <AuthenticityTokenInput />
                <input type="hidden" name="intent" value="release" />
                <input type="hidden" name="districtId" value={districtId} />
                <SelectField name="commitmentId" label={FORM_LABELS.release.commitmentId} options={open} defaultValue={v("release", "commitmentId")} error={fe("release", "commitmentId")} required />
                <TextField name="releasedOn" label={FORM_LABELS.release.releasedOn} type="date" defaultValue={v("release", "releasedOn") ?? todayIn(timeZone)} error={fe("release", "releasedOn")} required />
                <TextField name="releaseResolutionNumber" label={FORM_LABELS.release.releaseResolutionNumber} defaultValue={v("release", "releaseResolutionNumber")} error={fe("release", "releaseResolutionNumber")} required />
                <button className="usa-button" type="submit">
                  Enter the release
                </button>
              </Form>
            </>
          )}
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

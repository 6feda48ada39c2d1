import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { Notice, SelectField } from "~/components/fields";
import { DateTime, formatCalendarDate, statusLabel } from "~/components/format";
import { ErrorSummary, SuccessAlert } from "~/components/forms";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "Contractors | Staff | Tapline" }];

type Contractor = {
  id: string;
  status: string;
  organization: { id: string; name: string };
  bond: { amountCents: number; expiresOn: string; documentFilename: string; downloadUrl: string };
  insurance: { coverage: string; label: string; insurer: string; policyNumber: string; limitCents: number | null; expiresOn: string; certificateFilename: string; downloadUrl: string }[];
  findings: { item: string; message: string; section: string }[];
  standing: { choosable: boolean; reasons: string[] };
  decisionReason: string | null;
  decidedAt: string | null;
  suspendedReason: string | null;
  renewal: {
    id: string;
    status: string;
    bond: { amountCents: number; expiresOn: string; documentFilename: string; downloadUrl: string } | null;
    insurance: { coverage: string; label: string; insurer: string; policyNumber: string; limitCents: number | null; expiresOn: string; certificateFilename: string; downloadUrl: string }[];
    findings: { item: string; message: string; section: string }[];
    filedAt: string;
  } | null;
  createdAt: string;
  updatedAt: string;
};
type Data = {
  districts: { id: string; slug: string; name: string; timeZone: string; roles: string[] }[];
  districtId: string;
  status: string;
  contractors: Contractor[];
  /** Whether the district's law keeps a list of approved contractors (Huron's does not), with its section and note. */
  list: { approvedListEnabled: boolean; list: { section: string; note: string | null } };
};
type ActionData = { error: string; fields: Record<string, string>; contractorId: string; intent: string; reason: string };

const STATUSES = [
  { value: "APPLIED", label: "Waiting for a decision" },
  { value: "RENEWAL", label: "Renewals waiting" },
  { value: "APPROVED", label: "Approved" },
  { value: "SUSPENDED", label: "Suspended" },
  { value: "REJECTED", label: "Rejected" },
  { value: "ALL", label: "All" },
];
/** The API's keys in words (a reason's field is named per firm below: "Reason (firm)"). */
export const LABELS: Record<string, string> = { contractorId: "Contractor", renewalId: "Renewal", decision: "Decision", reason: "Reason" };
const STATUS_LABELS: Record<string, string> = { APPLIED: "Waiting for a decision", APPROVED: "Approved", REJECTED: "Rejected", SUSPENDED: "Suspended" };

const Q = `query DistrictContractors($d: ID!, $s: String, $slug: String!) {
  contractorRequirements(districtSlug: $slug) { approvedListEnabled list { section note } }
  districtContractors(districtId: $d, status: $s) {
    id status organization { id name }
    bond { amountCents expiresOn documentFilename downloadUrl }
    insurance { coverage label insurer policyNumber limitCents expiresOn certificateFilename downloadUrl }
    findings { item message section } standing { choosable reasons }
    decisionReason decidedAt suspendedReason createdAt updatedAt
    renewal {
      id status filedAt findings { item message section }
      bond { amountCents expiresOn documentFilename downloadUrl }
      insurance { coverage label insurer policyNumber limitCents expiresOn certificateFilename downloadUrl }
    }
  }
}`;

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args, ["CLERK", "OPERATOR", "ADMIN"]);
  const url = new URL(args.request.url);
  const district = info.districts.find((d) => d.id === url.searchParams.get("districtId")) ?? info.districts[0];
  const asked = url.searchParams.get("status") ?? "APPLIED";
  const status = STATUSES.some((s) => s.value === asked) ? asked : "APPLIED";
  // Renewals are filed by approved contractors (and may still wait once one is suspended): every status, those with one waiting.
  const { districtContractors, contractorRequirements } = await requireSignedIn<{ districtContractors: Contractor[]; contractorRequirements: Data["list"] }>(args, Q, {
    d: district.id,
    s: status === "ALL" || status === "RENEWAL" ? null : status,
    slug: district.slug,
  });
  return {
    districts: info.districts.map((d) => ({ id: d.id, slug: d.slug, name: d.name, timeZone: d.timeZone, roles: d.roles })),
    districtId: district.id,
    status,
    contractors: status === "RENEWAL" ? districtContractors.filter((c) => c.renewal?.status === "PENDING") : districtContractors,
    list: contractorRequirements,
  } satisfies Data;
}

const MUTATIONS: Record<string, { query: string; input: (id: string, reason: string, form: FormData) => Record<string, unknown>; done: string }> = {
  approve: {
    query: `mutation Decide($i: DecideContractorInput!) { decideContractor(input: $i) { id } }`,
    input: (contractorId, reason) => ({ contractorId, decision: "APPROVE", reason: reason || null }),
    done: "The contractor is approved and listed. The firm is told by email.",
  },
  reject: {
    query: `mutation Decide($i: DecideContractorInput!) { decideContractor(input: $i) { id } }`,
    input: (contractorId, reason) => ({ contractorId, decision: "REJECT", reason }),
    done: "The application is rejected. The firm is told by email with your reason.",
  },
  suspend: {
    query: `mutation Suspend($i: SuspendContractorInput!) { suspendContractor(input: $i) { id } }`,
    input: (contractorId, reason) => ({ contractorId, reason }),
    done: "The contractor is suspended and off the public list. The firm is told by email.",
  },
  reinstate: {
    query: `mutation Reinstate($i: ReinstateContractorInput!) { reinstateContractor(input: $i) { id } }`,
    input: (contractorId, reason) => ({ contractorId, reason }),
    done: "The contractor is reinstated. The firm is told by email.",
  },
  acceptRenewal: {
    query: `mutation DecideRenewal($i: DecideContractorRenewalInput!) { decideContractorRenewal(input: $i) { id } }`,
    input: (_id, reason, form) => ({ renewalId: String(form.get("renewalId") ?? ""), decision: "ACCEPT", reason: reason || null }),
    done: "The renewal is accepted: the renewed bond and certificates replace those on file. The firm is told by email.",
  },
  rejectRenewal: {
    query: `mutation DecideRenewal($i: DecideContractorRenewalInput!) { decideContractorRenewal(input: $i) { id } }`,
    input: (_id, reason, form) => ({ renewalId: String(form.get("renewalId") ?? ""), decision: "REJECT", reason }),
    done: "The renewal is rejected; the bond and certificates on file are unchanged. The firm is told by email with your reason.",
  },
};

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const contractorId = String(form.get("contractorId") ?? "");
  const reason = String(form.get("reason") ?? "").trim();
  const back = `districtId=${encodeURIComponent(String(form.get("districtId") ?? ""))}&status=${encodeURIComponent(String(form.get("status") ?? ""))}`;
  const m = MUTATIONS[intent];
  if (!m) throw new Response("Unknown action.", { status: 400 });
  const r = await gql(context, request, m.query, { i: m.input(contractorId, reason, form) });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/staff/contractors?${back}`)}`, { headers: cookieHeaders(r) });
    const fields = Object.fromEntries(Object.entries(r.error.fields).map(([k, v]) => [k === "reason" ? `reason-${intent}-${contractorId}` : k, v]));
    return Response.json({ error: r.error.message, fields, contractorId, intent, reason } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  return redirect(`/staff/contractors?${back}&done=${encodeURIComponent(m.done)}`, { headers: cookieHeaders(r) });
}


function ReasonForm({
  intent,
  contractor,
  label,
  button,
  required,
  hidden,
  a,
  secondary,
}: {
  intent: string;
  contractor: Contractor;
  label: string;
  button: string;
  required: boolean;
  hidden: Record<string, string>;
  a?: ActionData;
  secondary?: boolean;
}) {
  const id = `reason-${intent}-${contractor.id}`;
  const error = a?.fields?.[id];
  const mine = a?.contractorId === contractor.id && a?.intent === intent;
  return (
    <Form method="post" className="usa-form margin-bottom-3">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="contractorId" value={contractor.id} />
      {Object.entries(hidden).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
        <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={id}>
          {label}
          <span className="usa-sr-only"> ({contractor.organization.name})</span>
          {!required && " (optional)"}
        </label>
        {error && (
          <span className="usa-error-message" id={`${id}-error`} role="alert">
            {error}
          </span>
        )}
        <textarea
          className={`usa-textarea${error ? " usa-input--error" : ""}`}
          id={id}
          name="reason"
          rows={2}
          required={required}
          defaultValue={mine ? a?.reason : undefined}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </div>
      <button className={`usa-button${secondary ? " usa-button--secondary" : ""}`} type="submit">
        {button}
        <span className="usa-sr-only"> {contractor.organization.name}</span>
      </button>
    </Form>
  );
}

export default function StaffContractors() {
  const { districts, districtId, status, contractors, list } = useLoaderData<typeof loader>() as Data;
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const district = districts.find((d) => d.id === districtId)!;
  const clerk = district.roles.includes("CLERK");
  const canSuspend = clerk || district.roles.includes("OPERATOR");
  const hidden = { districtId, status };
  const labels: Record<string, string> = { ...LABELS };
  for (const c of contractors) for (const i of ["approve", "reject", "suspend", "reinstate", "acceptRenewal", "rejectRenewal"]) labels[`reason-${i}-${c.id}`] = `Reason (${c.organization.name})`;
  const caption = STATUSES.find((s) => s.value === status)?.label ?? status;
  return (
    <>
      <h1>Contractors</h1>
      <p>
        Contracting firms applying to be on the district's list of approved contractors (Sewer Use Law 601 A), with their bond and insurance certificates
        (508). Each filing is checked against the rulebook in force today; an application can be approved only when nothing falls short.{" "}
        <Link className="usa-link" to={`/contractors/${district.slug}`}>
          The public list of {district.name}
        </Link>
        .
      </p>
      {params.get("done") && !a && <SuccessAlert>{params.get("done")}</SuccessAlert>}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={labels} />
      {!list.approvedListEnabled && (
        <Notice type="info">
          {district.name} keeps no list of approved contractors: {list.list.note ?? "its law does not provide one."} ({list.list.section}) Contractors cannot
          apply to it, and owners name whoever does their work on the permit application.
        </Notice>
      )}
      {districts.length > 1 && (
        <Form method="get" className="usa-form">
          <input type="hidden" name="status" value={status} />
          <SelectField name="districtId" label="District" options={districts.map((d) => ({ value: d.id, label: d.name }))} defaultValue={districtId} />
          <button className="usa-button usa-button--outline" type="submit">
            Show this district's contractors
          </button>
        </Form>
      )}
      <nav aria-label="Contractors by status" className="tapline-subnav margin-top-2">
        <ul className="usa-list usa-list--unstyled">
          {STATUSES.map((s) => (
            <li key={s.value}>
              <Link
                className={`usa-link${s.value === status ? " tapline-subnav__current" : ""}`}
                to={`/staff/contractors?districtId=${districtId}&status=${s.value}`}
                aria-current={s.value === status ? "page" : undefined}
              >
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <h2>
        {caption}: {district.name}
      </h2>
      {contractors.length === 0 && <p>No contractor here.</p>}
      {contractors.map((c) => (
        <section key={c.id} aria-labelledby={`heading-${c.id}`} className="margin-top-4 border-top-1px border-base-lighter padding-top-2">
          <h3 id={`heading-${c.id}`}>{c.organization.name}</h3>
          <dl className="tapline-facts">
            <dt>Status</dt>
            <dd>{statusLabel(c.status, STATUS_LABELS)}</dd>
            <dt>Applied</dt>
            <dd>
              <DateTime iso={c.createdAt} timeZone={district.timeZone} />
              {c.updatedAt !== c.createdAt && (
                <>
                  ; last changed <DateTime iso={c.updatedAt} timeZone={district.timeZone} />
                </>
              )}
            </dd>
            {c.decidedAt && (
              <>
                <dt>Decided</dt>
                <dd>
                  <DateTime iso={c.decidedAt} timeZone={district.timeZone} />
                  {c.decisionReason ? `: ${c.decisionReason}` : ""}
                </dd>
              </>
            )}
            {c.suspendedReason && (
              <>
                <dt>Suspended because</dt>
                <dd>{c.suspendedReason}</dd>
              </>
            )}
            <dt>Can be chosen today</dt>
            <dd>{c.standing.choosable ? "Yes" : `No. ${c.standing.reasons.join(" ")}`}</dd>
          </dl>
          {c.findings.length === 0 ? (
            <p>The bond and certificates meet every minimum of the rulebook in force today.</p>
          ) : (
            <>
              <h4>Falls short of the law</h4>
              <ul className="usa-list">
                {c.findings.map((f, i) => (
                  <li key={i}>
                    {f.message}
                  </li>
                ))}
              </ul>
            </>
          )}
          <table className="usa-table usa-table--stacked usa-table--borderless width-full">
            <caption>Filed by {c.organization.name}</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Insurer and policy</th>
                <th scope="col">Amount or limit</th>
                <th scope="col">In force until</th>
                <th scope="col">Document</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row" data-label="Item">
                  Bond
                </th>
                <td data-label="Insurer and policy"></td>
                <td data-label="Amount or limit">{money(c.bond.amountCents)}</td>
                <td data-label="In force until">{formatCalendarDate(c.bond.expiresOn)}</td>
                <td data-label="Document">
                  <a className="usa-link" href={c.bond.downloadUrl}>
                    {c.bond.documentFilename}
                  </a>
                </td>
              </tr>
              {c.insurance.map((i) => (
                <tr key={i.coverage}>
                  <th scope="row" data-label="Item">
                    {i.label}
                  </th>
                  <td data-label="Insurer and policy">
                    {i.insurer}, {i.policyNumber}
                  </td>
                  <td data-label="Amount or limit">{i.limitCents === null ? "No amount stated" : money(i.limitCents)}</td>
                  <td data-label="In force until">{formatCalendarDate(i.expiresOn)}</td>
                  <td data-label="Document">
                    <a className="usa-link" href={i.downloadUrl}>
                      {i.certificateFilename}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {clerk && c.status === "APPLIED" && (
            <div className="grid-row grid-gap">
              <div className="tablet:grid-col-6">
                {c.findings.length === 0 ? (
                  <ReasonForm intent="approve" contractor={c} label="Note for the firm" button="Approve" required={false} hidden={hidden} a={a} />
                ) : (
                  <Notice type="warning">It cannot be approved while anything falls short of the law.</Notice>
                )}
              </div>
              <div className="tablet:grid-col-6">
                <ReasonForm intent="reject" contractor={c} label="Why reject it?" button="Reject" required hidden={hidden} a={a} secondary />
              </div>
            </div>
          )}
          {c.renewal?.status === "PENDING" && (
            <>
              <h4>
                Renewal filed <DateTime iso={c.renewal.filedAt} timeZone={district.timeZone} />
              </h4>
              <p>What is on file stays in force until the renewal is accepted; each renewed item then replaces the one on file.</p>
              {c.renewal.findings.length === 0 ? (
                <p>With the renewal, the bond and certificates meet every minimum of the rulebook in force today.</p>
              ) : (
                <>
                  <p>With the renewal, the filing falls short of the law:</p>
                  <ul className="usa-list">
                    {c.renewal.findings.map((f, i) => (
                      <li key={i}>{f.message}</li>
                    ))}
                  </ul>
                </>
              )}
              <table className="usa-table usa-table--stacked usa-table--borderless width-full">
                <caption>Renewal filed by {c.organization.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Item</th>
                    <th scope="col">Insurer and policy</th>
                    <th scope="col">Amount or limit</th>
                    <th scope="col">In force until</th>
                    <th scope="col">Document</th>
                  </tr>
                </thead>
                <tbody>
                  {c.renewal.bond && (
                    <tr>
                      <th scope="row" data-label="Item">
                        Bond
                      </th>
                      <td data-label="Insurer and policy"></td>
                      <td data-label="Amount or limit">{money(c.renewal.bond.amountCents)}</td>
                      <td data-label="In force until">{formatCalendarDate(c.renewal.bond.expiresOn)}</td>
                      <td data-label="Document">
                        <a className="usa-link" href={c.renewal.bond.downloadUrl}>
                          {c.renewal.bond.documentFilename}
                        </a>
                      </td>
                    </tr>
                  )}
                  {c.renewal.insurance.map((i) => (
                    <tr key={i.coverage}>
                      <th scope="row" data-label="Item">
                        {i.label}
                      </th>
                      <td data-label="Insurer and policy">
                        {i.insurer}, {i.policyNumber}
                      </td>
                      <td data-label="Amount or limit">{i.limitCents === null ? "No amount stated" : money(i.limitCents)}</td>
                      <td data-label="In force until">{formatCalendarDate(i.expiresOn)}</td>
                      <td data-label="Document">
                        <a className="usa-link" href={i.downloadUrl}>
                          {i.certificateFilename}
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {clerk && (
                <div className="grid-row grid-gap">
                  <div className="tablet:grid-col-6">
                    {c.renewal.findings.length === 0 ? (
                      <ReasonForm intent="acceptRenewal" contractor={c} label="Note for the firm" button="Accept the renewal" required={false} hidden={{ ...hidden, renewalId: c.renewal.id }} a={a} />
                    ) : (
                      <Notice type="warning">The renewal cannot be accepted while anything falls short of the law.</Notice>
                    )}
                  </div>
                  <div className="tablet:grid-col-6">
                    <ReasonForm
                      intent="rejectRenewal"
                      contractor={c}
                      label="Why reject the renewal?"
                      button="Reject the renewal"
                      required
                      hidden={{ ...hidden, renewalId: c.renewal.id }}
                      a={a}
                      secondary
                    />
                  </div>
                </div>
              )}
            </>
          )}
          {canSuspend && c.status === "APPROVED" && (
            <ReasonForm intent="suspend" contractor={c} label="Why suspend it?" button="Suspend" required hidden={hidden} a={a} secondary />
          )}
          {canSuspend && c.status === "SUSPENDED" && <ReasonForm intent="reinstate" contractor={c} label="Why reinstate it?" button="Reinstate" required hidden={hidden} a={a} />}
        </section>
      ))}
    </>
  );
}

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { DateTime, formatCalendarDate, statusLabel } from "~/components/format";
import { SuccessAlert } from "~/components/forms";
import { money } from "~/components/money";

export const meta: MetaFunction = () => [{ title: "My contractor applications | Tapline" }];

type Contractor = {
  id: string;
  status: string;
  organization: { id: string; name: string };
  district: { id: string; slug: string; name: string; timeZone: string };
  bond: { amountCents: number; expiresOn: string; documentFilename: string; downloadUrl: string };
  insurance: { coverage: string; label: string; insurer: string; policyNumber: string; limitCents: number | null; expiresOn: string; certificateFilename: string; downloadUrl: string }[];
  findings: { item: string; message: string; section: string }[];
  standing: { choosable: boolean; reasons: string[] };
  decisionReason: string | null;
  decidedAt: string | null;
  suspendedReason: string | null;
  renewal: Renewal | null;
  createdAt: string;
  updatedAt: string;
};
type Renewal = {
  id: string;
  status: string;
  bond: { amountCents: number; expiresOn: string } | null;
  insurance: { coverage: string; label: string; limitCents: number | null; expiresOn: string }[];
  findings: { item: string; message: string; section: string }[];
  decisionReason: string | null;
  decidedAt: string | null;
  filedAt: string;
};

const Q = `query MyContractorApplications {
  myContractorApplications {
    id status organization { id name } district { id slug name timeZone }
    bond { amountCents expiresOn documentFilename downloadUrl }
    insurance { coverage label insurer policyNumber limitCents expiresOn certificateFilename downloadUrl }
    findings { item message section } standing { choosable reasons }
    decisionReason decidedAt suspendedReason createdAt updatedAt
    renewal { id status bond { amountCents expiresOn } insurance { coverage label limitCents expiresOn } findings { item message section } decisionReason decidedAt filedAt }
  }
}`;

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ myContractorApplications: Contractor[] }>(args, Q);
}

const STATUS_LABELS: Record<string, string> = {
  APPLIED: "Waiting for the Clerk's decision",
  APPROVED: "Approved",
  REJECTED: "Rejected",
  SUSPENDED: "Suspended",
};

export default function MyContractorApplications() {
  const { myContractorApplications: list } = useLoaderData<typeof loader>() as { myContractorApplications: Contractor[] };
  const [params] = useSearchParams();
  return (
    <>
      <h1>My contractor applications</h1>
      {params.get("done") === "applied" && <SuccessAlert>Your application is sent. The Clerk checks the bond and certificates and decides; you are told by email.</SuccessAlert>}
      {params.get("done") === "renewed" && (
        <SuccessAlert>Your renewal is sent. The bond and certificates on file stay in force until the Clerk accepts it; you are told by email.</SuccessAlert>
      )}
      <p>
        <Link className="usa-button" to="/contractors/apply">
          Apply to be an approved contractor
        </Link>
      </p>
      {list.length === 0 && <p>None of your firms has applied to be an approved contractor.</p>}
      {list.map((c) => (
        <section key={c.id} id={`contractor-${c.id}`} aria-labelledby={`heading-${c.id}`} className="margin-top-5">
          <h2 id={`heading-${c.id}`}>
            {c.organization.name} in {c.district.name}
          </h2>
          <dl className="tapline-facts">
            <dt>Status</dt>
            <dd>
              <strong>{statusLabel(c.status, STATUS_LABELS)}</strong>
              {c.decidedAt && (
                <>
                  {" "}
                  (decided <DateTime iso={c.decidedAt} timeZone={c.district.timeZone} />)
                </>
              )}
            </dd>
            {c.decisionReason && (
              <>
                <dt>The Clerk's reason</dt>
                <dd>{c.decisionReason}</dd>
              </>
            )}
            {c.suspendedReason && (
              <>
                <dt>Why suspended</dt>
                <dd>{c.suspendedReason}</dd>
              </>
            )}
            <dt>Applicants can choose the firm</dt>
            <dd>{c.standing.choosable ? "Yes: it is on the district's public list." : "No."}</dd>
          </dl>
          {!c.standing.choosable && c.standing.reasons.length > 0 && (
            <ul className="usa-list">
              {c.standing.reasons.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          )}
          {c.findings.length > 0 ? (
            <div className="usa-alert usa-alert--warning">
              <div className="usa-alert__body">
                <h3 className="usa-alert__heading">Falls short of the district's law</h3>
                <p className="usa-alert__text">The Clerk cannot approve the application until these are corrected:</p>
                <ul className="usa-list">
                  {c.findings.map((f, i) => (
                    <li key={i}>{f.message}</li>
                  ))}
                </ul>
              </div>
            </div>
          ) : (
            <p>The bond and certificates meet every minimum of the district's law.</p>
          )}
          <table className="usa-table usa-table--stacked usa-table--borderless width-full">
            <caption>What {c.organization.name} filed</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
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
                    <br />
                    <span className="text-normal">
                      {i.insurer}, policy {i.policyNumber}
                    </span>
                  </th>
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
          {c.renewal && <RenewalSummary r={c.renewal} timeZone={c.district.timeZone} />}
          {c.status === "APPROVED" && (
            <p>
              <Link className="usa-link" to={`/contractors/apply?id=${c.id}&renew=1`}>
                {c.renewal?.status === "PENDING" ? "Change the renewal" : "Renew the bond or certificates"}
                <span className="usa-sr-only"> of {c.organization.name} in {c.district.name}</span>
              </Link>
            </p>
          )}
          {(c.status === "APPLIED" || c.status === "REJECTED") && (
            <p>
              <Link className="usa-link" to={`/contractors/apply?id=${c.id}`}>
                Change the application<span className="usa-sr-only"> of {c.organization.name} in {c.district.name}</span>
              </Link>
            </p>
          )}
          <p>
            <Link className="usa-link" to={`/contractors/${c.district.slug}`}>
              Approved contractors of {c.district.name}
            </Link>
          </p>
        </section>
      ))}
    </>
  );
}

const RENEWAL_LABELS: Record<string, string> = { PENDING: "Waiting for the Clerk", ACCEPTED: "Accepted", REJECTED: "Rejected" };

function RenewalSummary({ r, timeZone }: { r: Renewal; timeZone: string }) {
  return (
    <div className="margin-top-2">
      <h3>Renewal filed <DateTime iso={r.filedAt} timeZone={timeZone} /></h3>
      <p>
        <strong>{statusLabel(r.status, RENEWAL_LABELS)}</strong>
        {r.decidedAt && (
          <>
            {" "}
            (decided <DateTime iso={r.decidedAt} timeZone={timeZone} />)
          </>
        )}
        {r.decisionReason && <>. The Clerk's reason: {r.decisionReason}</>}
      </p>
      <ul className="usa-list">
        {r.bond && (
          <li>
            Bond: {money(r.bond.amountCents)}, in force until {formatCalendarDate(r.bond.expiresOn)}
          </li>
        )}
        {r.insurance.map((i) => (
          <li key={i.coverage}>
            {i.label}: {i.limitCents === null ? "no amount stated" : money(i.limitCents)}, in force until {formatCalendarDate(i.expiresOn)}
          </li>
        ))}
      </ul>
      {r.status === "PENDING" && r.findings.length > 0 && (
        <div className="usa-alert usa-alert--warning">
          <div className="usa-alert__body">
            <h4 className="usa-alert__heading">The renewal falls short of the district's law</h4>
            <ul className="usa-list">
              {r.findings.map((f, i) => (
                <li key={i}>{f.message}</li>
              ))}
            </ul>
          </div>
        </div>
      )}
    </div>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

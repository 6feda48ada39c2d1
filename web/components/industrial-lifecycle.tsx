import { Form, Link } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { Notice } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";

/**
 * The permit after issuance (SUL 1004 B, E, F) on the permit pages: pending modifications with
 * days left and the permit's history, the reissuance deadline and application, the change of
 * owner, premises or operation, and the links between a permit and the one that follows it.
 */

export const LIFECYCLE_FIELDS = `conditions previousPermitId previousRelation previousPermitNumber reissuanceDueOn reissuanceLate changeKindLabel changeOn changeDescription
  supersededOn supersededById
  reissuance { deadline daysLeft section applicationId }
  followingPermits { id relation status statusLabel permitNumber effectiveOn late }
  modifications { id status causeLabel causeSection causeText explanation effectiveOn noticeOn daysLeft reportingMonths conditions withdrawalReason
    limits { parameter kind unitLabel average maximum minimum } replacedLimits { parameter kind unitLabel average maximum minimum } replacedReportingMonths
    complianceSchedule { milestone dueOn } }`;

type ModLimit = { parameter: string; kind: string; unitLabel: string; average: number | null; maximum: number | null; minimum: number | null };
export type Modification = {
  id: string;
  status: string;
  causeLabel: string;
  causeSection: string;
  causeText: string | null;
  explanation: string;
  effectiveOn: string;
  noticeOn: string;
  daysLeft: number | null;
  reportingMonths: number[] | null;
  conditions: string | null;
  withdrawalReason: string | null;
  limits: ModLimit[] | null;
  replacedLimits: ModLimit[] | null;
  replacedReportingMonths: number[] | null;
  complianceSchedule: { milestone: string; dueOn: string }[];
};
export type Lifecycle = {
  id: string;
  status: string;
  permitNumber: string | null;
  viewerRole: string | null;
  viewerIsStaff: boolean;
  conditions: string | null;
  previousPermitId: string | null;
  previousRelation: string | null;
  previousPermitNumber: string | null;
  reissuanceDueOn: string | null;
  reissuanceLate: boolean | null;
  changeKindLabel: string | null;
  changeOn: string | null;
  changeDescription: string | null;
  supersededOn: string | null;
  supersededById: string | null;
  reissuance: { deadline: string; daysLeft: number; section: string; applicationId: string | null } | null;
  followingPermits: { id: string; relation: string; status: string; statusLabel: string; permitNumber: string | null; effectiveOn: string | null; late: boolean | null }[];
  modifications: Modification[];
  limits: ModLimit[];
};

export const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const months = (m: number[]) => m.map((x) => MONTHS[x - 1]).join(" and ");
const fig = (l: ModLimit) =>
  `${l.parameter}${l.kind === "MASS" ? " (mass)" : ""}: ${[l.average !== null ? `average ${l.average}` : null, l.maximum !== null ? `maximum ${l.maximum}` : null, l.minimum !== null ? `lowest ${l.minimum}` : null].filter(Boolean).join(", ")} ${l.unitLabel}`;
export const daysText = (d: number) => (d > 1 ? `${d} days left` : d === 1 ? "1 day left" : d === 0 ? "today" : `${-d} days ago`);

const key = (l: ModLimit) => `${l.parameter.toLowerCase()}|${l.kind}`;
const same = (a: ModLimit, b: ModLimit) => a.unitLabel === b.unitLabel && a.average === b.average && a.maximum === b.maximum && a.minimum === b.minimum;

/** The limits a modification changes, adds or removes, against those it replaced (or the permit's today while pending). */
function limitChanges(next: ModLimit[], before: ModLimit[]): { now: string[]; was: string[] } {
  const old = new Map(before.map((l) => [key(l), l]));
  const nu = new Map(next.map((l) => [key(l), l]));
  const now = next.filter((l) => !old.has(key(l)) || !same(l, old.get(key(l))!)).map(fig);
  const was = before.filter((l) => !nu.has(key(l)) || !same(l, nu.get(key(l))!)).map((l) => (nu.has(key(l)) ? fig(l) : `${fig(l)} (removed)`));
  return { now, was };
}

/** What a modification changes, and (once in effect) what it replaced. */
function Changes({ m, current }: { m: Modification; current: ModLimit[] }) {
  const diff = m.limits ? limitChanges(m.limits, m.replacedLimits ?? current) : null;
  return (
    <ul className="usa-list">
      {diff && (
        <li>
          Limits: {diff.now.length ? diff.now.join("; ") : "as before"}
          {diff.was.length > 0 && <div>Before: {diff.was.join("; ")}</div>}
        </li>
      )}
      {m.reportingMonths && (
        <li>
          Periodic reports due in {months(m.reportingMonths)}
          {m.replacedReportingMonths && ` (before: ${months(m.replacedReportingMonths)})`}
        </li>
      )}
      {m.conditions && <li>Conditions: {m.conditions}</li>}
      {m.complianceSchedule.length > 0 && (
        <li>
          Compliance schedule (Sewer Use Law 1004 A(12)): {m.complianceSchedule.map((s) => `${s.milestone} by ${formatCalendarDate(s.dueOn)}`).join("; ")}
        </li>
      )}
    </ul>
  );
}

function ModificationItem({ m, withdraw, current }: { m: Modification; withdraw?: string; current: ModLimit[] }) {
  return (
    <div className="usa-summary-box margin-bottom-2" role="region" aria-label={`Modification effective ${formatCalendarDate(m.effectiveOn)}`}>
      <div className="usa-summary-box__body">
        <h3 className="usa-summary-box__heading">
          {m.status === "PENDING" ? `Takes effect ${formatCalendarDate(m.effectiveOn)} (${daysText(m.daysLeft ?? 0)})` : m.status === "EFFECTIVE" ? `In effect since ${formatCalendarDate(m.effectiveOn)}` : `Withdrawn (was to take effect ${formatCalendarDate(m.effectiveOn)})`}
        </h3>
        <p>
          Cause: {m.causeLabel}
          {m.causeText ? `: ${m.causeText}` : ""} ({m.causeSection}). Notice given {formatCalendarDate(m.noticeOn)}.
        </p>
        <p className="tapline-plain-text">{m.explanation}</p>
        <Changes m={m} current={current} />
        {m.withdrawalReason && <p>Withdrawn: {m.withdrawalReason}</p>}
        {withdraw && m.status === "PENDING" && (
          <Form method="post" action={withdraw} className="usa-form">
            <AuthenticityTokenInput />
            <input type="hidden" name="modificationId" value={m.id} />
            <label className="usa-label" htmlFor={`reason-${m.id}`}>
              Why it is withdrawn (the permittee reads it)
            </label>
            <input className="usa-input" id={`reason-${m.id}`} name="reason" required />
            <button className="usa-button usa-button--secondary margin-top-1" type="submit" name="intent" value="withdraw">
              Withdraw this modification
            </button>
          </Form>
        )}
      </div>
    </div>
  );
}

/** Links to the permit this one reissues or replaces, and to those that follow it. */
function Links({ p, staff }: { p: Lifecycle; staff: boolean }) {
  const base = staff ? "/staff/industrial" : "/industrial";
  return (
    <>
      {p.previousPermitId && (
        <p>
          {p.previousRelation === "REISSUANCE" ? "Reissuance of permit " : "New permit after a change to permit "}
          <Link className="usa-link" to={`${base}/${p.previousPermitId}`}>
            {p.previousPermitNumber}
          </Link>
          {p.previousRelation === "REISSUANCE" ? " (Sewer Use Law 1004 E)" : ` (Sewer Use Law 1004 F): ${p.changeKindLabel?.toLowerCase()} from ${formatCalendarDate(p.changeOn!)}`}
          {p.changeDescription ? `. ${p.changeDescription}` : ""}
        </p>
      )}
      {p.reissuanceDueOn && p.reissuanceLate !== null && (
        <p>
          {p.reissuanceLate ? (
            <strong>Applied late: the reissuance application was due by {formatCalendarDate(p.reissuanceDueOn)} (Sewer Use Law 1004 E).</strong>
          ) : (
            `Applied on time (due by ${formatCalendarDate(p.reissuanceDueOn)}, Sewer Use Law 1004 E).`
          )}
        </p>
      )}
      {p.followingPermits.length > 0 && (
        <ul className="usa-list">
          {p.followingPermits.map((f) => (
            <li key={f.id}>
              {f.relation === "REISSUANCE" ? "Reissuance" : "New permit for the change"}:{" "}
              <Link className="usa-link" to={`${base}/${f.id}`}>
                {f.permitNumber ?? "application"}
              </Link>{" "}
              ({f.statusLabel.toLowerCase()}
              {f.effectiveOn ? `, from ${formatCalendarDate(f.effectiveOn)}` : ""}
              {f.late ? ", applied late" : ""})
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The permittee's view (and the public's, for what it may see). */
export function PermitLifecycle({ p }: { p: Lifecycle }) {
  const manager = p.viewerRole === "OWNER" || p.viewerRole === "AUTHORIZED_REPRESENTATIVE";
  const pending = p.modifications.filter((m) => m.status === "PENDING");
  const history = p.modifications.filter((m) => m.status !== "PENDING");
  const changeOpen = p.followingPermits.some((f) => f.relation === "CHANGE" && f.status !== "WITHDRAWN");
  return (
    <section aria-labelledby="lifecycle-heading">
      <h2 id="lifecycle-heading">After issuance</h2>
      {p.supersededOn && (
        <Notice type="warning">
          {p.status === "SUPERSEDED" ? "Ended" : "Ends"} on {formatCalendarDate(p.supersededOn)}: a new permit was issued for the change reported; a permit cannot be transferred (Sewer Use
          Law 1004 F).
        </Notice>
      )}
      <Links p={p} staff={false} />
      {p.conditions && (
        <>
          <h3>Conditions</h3>
          <p className="tapline-plain-text">{p.conditions}</p>
        </>
      )}
      {pending.length > 0 && (
        <>
          <h3>Modifications coming (Sewer Use Law 1004 B)</h3>
          {pending.map((m) => (
            <ModificationItem key={m.id} m={m} current={p.limits} />
          ))}
        </>
      )}
      {p.reissuance && (
        <>
          <h3>Reissuance (Sewer Use Law 1004 E)</h3>
          <p>
            Apply to reissue the permit by <strong>{formatCalendarDate(p.reissuance.deadline)}</strong> ({daysText(p.reissuance.daysLeft)}), at least 180 days before it
            expires ({p.reissuance.section}). {p.reissuance.daysLeft < 0 && "The deadline has passed: an application is still accepted, marked late."}
          </p>
          {p.reissuance.applicationId ? (
            <p>
              <Link className="usa-link" to={`/industrial/${p.reissuance.applicationId}`}>
                Your reissuance application
              </Link>
            </p>
          ) : (
            manager && (
              <p>
                <Link className="usa-button" to={`/industrial/${p.id}/reissue`}>
                  Apply for reissuance
                </Link>
              </p>
            )
          )}
        </>
      )}
      {p.status === "ISSUED" && manager && !changeOpen && !p.supersededOn && (
        <p>
          <Link className="usa-button usa-button--outline" to={`/industrial/${p.id}/change`}>
            Report a change of owner, premises or operation
          </Link>
        </p>
      )}
      {history.length > 0 && (
        <>
          <h3>History of the permit</h3>
          {history.map((m) => (
            <ModificationItem key={m.id} m={m} current={p.limits} />
          ))}
        </>
      )}
    </section>
  );
}

/** The staff view: links, late marking, pending modifications with withdrawal, the history. */
export function StaffLifecycle({ p }: { p: Lifecycle }) {
  const withdraw = `/staff/industrial/${p.id}/modify`;
  return (
    <section aria-labelledby="lifecycle-heading">
      <h2 id="lifecycle-heading">After issuance (Sewer Use Law 1004 B, E, F)</h2>
      {p.supersededOn && <Notice type="warning">{p.status === "SUPERSEDED" ? "Ended" : "Ends"} on {formatCalendarDate(p.supersededOn)}: replaced by a new permit (Sewer Use Law 1004 F).</Notice>}
      <Links p={p} staff />
      {p.previousRelation === "REISSUANCE" && p.status === "NOTICE_PUBLISHED" && (
        <p>Issued before permit {p.previousPermitNumber} expires, the reissued permit takes effect the day after it expires: leave the effective date empty (Sewer Use Law 1004 E).</p>
      )}
      {p.reissuance && (
        <p>
          Reissuance due by {formatCalendarDate(p.reissuance.deadline)} ({daysText(p.reissuance.daysLeft)}); {p.reissuance.applicationId ? "applied for." : "not applied for yet."}
        </p>
      )}
      {p.status === "ISSUED" && (
        <p>
          <Link className="usa-button usa-button--outline" to={`/staff/industrial/${p.id}/modify`}>
            Propose a modification
          </Link>
        </p>
      )}
      {p.modifications.map((m) => (
        <ModificationItem key={m.id} m={m} withdraw={withdraw} current={p.limits} />
      ))}
    </section>
  );
}

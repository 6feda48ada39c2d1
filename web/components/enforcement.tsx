import { Link } from "@remix-run/react";
import { countOf, formatCalendarDate, formatDateTime } from "~/components/format";
import { money } from "~/components/money";

/** What the enforcement pages read of an action (respondent and staff pages share it). */
export const ACTION_FIELDS = `id districtId district { name timeZone } number kind kindLabel status statusLabel respondentName respondentUserId respondentOrganizationId violation requirements section
  correctBy servedOn answerDueOn answerDaysLeft petitionDueOn petitionDaysLeft petitionTo petitionToLabel hearingDueOn
  final finalByDefault finalOn finalExplanation canPetition subjectType subjectLabel fineTotalCents originalFineTotalCents
  response responsePlan respondedAt createdAt
  fineDays { date amountCents } reliefOptions { value label } decisionOptions { value label }
  escalates { id number kindLabel servedOn } laterActions { id number kindLabel servedOn }
  prosecution { continuedDays referredOn judgment judgmentLabel court docketNumber judgmentOn offenseDays { date amountCents } fineTotalCents law } referralBlockedReason canRecordJudgment
  charge { id number label amountCents billedOn status paymentId payment { id status receiptNumber }
    statement { asOf lastDayWithoutPenalty delinquent daysDelinquent totalCents violationSince violationSection explanation lines { code label section amountCents } } }
  petitions { id status statusLabel relief reliefLabel grounds filedOn filedAt filedByName decidedAt decidedByName decisionReasons newTerms newAmountCents withdrawnAt canWithdraw canDecide
    documents { id filename }
    hearing { id scheduledFor hearingDate place reasons proposedAction informationRequested noticeServedOn outcome outcomeReasons newAmountCents newTerms decidedAt orderedByName decidedByName } }`;

export type Statement = {
  asOf: string;
  lastDayWithoutPenalty: string;
  delinquent: boolean;
  daysDelinquent: number;
  totalCents: number;
  violationSince: string | null;
  violationSection: string | null;
  explanation: string;
  lines: { code: string; label: string; section: string; amountCents: number }[];
};
export type Hearing = {
  id: string;
  scheduledFor: string;
  hearingDate: string;
  place: string;
  reasons: string;
  proposedAction: string;
  informationRequested: string | null;
  noticeServedOn: string;
  outcome: string | null;
  outcomeReasons: string | null;
  newAmountCents: number | null;
  newTerms: string | null;
  decidedAt: string | null;
  orderedByName: string | null;
  decidedByName: string | null;
};
export type PetitionView = {
  id: string;
  status: string;
  statusLabel: string;
  relief: string;
  reliefLabel: string;
  grounds: string;
  filedOn: string;
  filedAt: string;
  filedByName: string | null;
  decidedAt: string | null;
  decidedByName: string | null;
  decisionReasons: string | null;
  newTerms: string | null;
  newAmountCents: number | null;
  withdrawnAt: string | null;
  canWithdraw: boolean;
  canDecide: boolean;
  documents: { id: string; filename: string }[];
  hearing: Hearing | null;
};
export type ActionView = {
  id: string;
  districtId: string;
  district: { name: string; timeZone: string };
  number: string;
  kind: string;
  kindLabel: string;
  status: string;
  statusLabel: string;
  respondentName: string;
  respondentUserId: string | null;
  respondentOrganizationId: string | null;
  violation: string;
  requirements: string | null;
  section: string;
  correctBy: string | null;
  servedOn: string;
  answerDueOn: string | null;
  answerDaysLeft: number | null;
  petitionDueOn: string | null;
  petitionDaysLeft: number | null;
  petitionTo: string | null;
  petitionToLabel: string | null;
  hearingDueOn: string | null;
  final: boolean;
  finalByDefault: boolean;
  finalOn: string | null;
  finalExplanation: string | null;
  canPetition: boolean;
  subjectType: string | null;
  subjectLabel: string | null;
  fineTotalCents: number;
  originalFineTotalCents: number;
  response: string | null;
  responsePlan: string | null;
  respondedAt: string | null;
  fineDays: { date: string; amountCents: number }[];
  reliefOptions: { value: string; label: string }[];
  decisionOptions: { value: string; label: string }[];
  escalates: { id: string; number: string; kindLabel: string; servedOn: string } | null;
  laterActions: { id: string; number: string; kindLabel: string; servedOn: string }[];
  charge: {
    id: string;
    number: string;
    label: string;
    amountCents: number;
    billedOn: string;
    status: string;
    paymentId: string | null;
    payment: { id: string; status: string; receiptNumber: string | null } | null;
    statement: Statement;
  } | null;
  petitions: PetitionView[];
  prosecution: ProsecutionView | null;
  /** null: the viewer (the District Operator) may refer the notice's violation for prosecution now (Huron V-2) */
  referralBlockedReason: string | null;
  canRecordJudgment: boolean;
};
export type ProsecutionView = {
  continuedDays: string[];
  referredOn: string;
  judgment: string | null;
  judgmentLabel: string | null;
  court: string | null;
  docketNumber: string | null;
  judgmentOn: string | null;
  offenseDays: { date: string; amountCents: number }[];
  fineTotalCents: number;
  law: string;
};

/** Huron V-2: the violation referred to the court, what the law says, and the judgment once the Clerk records it. */
export function ProsecutionSection({ a }: { a: ActionView }) {
  const p = a.prosecution;
  if (!p) return null;
  const first = p.continuedDays[0];
  const last = p.continuedDays[p.continuedDays.length - 1];
  return (
    <section aria-labelledby="court-heading">
      <h2 id="court-heading">Referred to the court</h2>
      <p>
        The violation continued after the time to correct it{a.correctBy ? ` (${date(a.correctBy)})` : ""} on {daysText(p.continuedDays.length)}
        {p.continuedDays.length > 1 ? `, from ${date(first)} to ${date(last)}` : `, ${date(first)}`}. On {date(p.referredOn)} the District Operator referred it for prosecution.
      </p>
      <p>{p.law}</p>
      {!p.judgment ? (
        <p>
          <strong>The case is before the court.</strong> Nothing is payable now.
        </p>
      ) : (
        <>
          <dl className="tapline-facts">
            <dt>Judgment</dt>
            <dd>{p.judgmentLabel}</dd>
            <dt>Court</dt>
            <dd>{p.court}</dd>
            <dt>Docket or case number</dt>
            <dd>{p.docketNumber}</dd>
            <dt>{p.judgment === "CONVICTED" ? "Date of conviction" : "Date"}</dt>
            <dd>{date(p.judgmentOn!)}</dd>
          </dl>
          {p.judgment === "CONVICTED" ? (
            <table className="usa-table usa-table--borderless">
              <caption>The fine the court imposed: each day is a separate offense</caption>
              <thead>
                <tr>
                  <th scope="col">Offense (day of violation)</th>
                  <th scope="col" className="text-right">
                    Fine
                  </th>
                </tr>
              </thead>
              <tbody>
                {p.offenseDays.map((d) => (
                  <tr key={d.date}>
                    <th scope="row">{date(d.date)}</th>
                    <td className="text-right">{money(d.amountCents)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">Total</th>
                  <td className="text-right">
                    <strong>{money(p.fineTotalCents)}</strong>
                  </td>
                </tr>
              </tfoot>
            </table>
          ) : (
            <p>The matter is closed: no fine is owed.</p>
          )}
        </>
      )}
    </section>
  );
}

export const date = formatCalendarDate;
export const daysText = (n: number) => countOf(n, "day");

/** An appointment (a hearing) on the district's clock: "Saturday, November 28, 2026 at 7:00 PM EST". */
export const districtTime = (iso: string, timeZone: string): string => formatDateTime(iso, timeZone, "full");

/** The deadlines and where the action stands, in words. */
export function Deadlines({ a }: { a: ActionView }) {
  return (
    <ul className="usa-list">
      <li>
        Served (mailed) on <strong>{date(a.servedOn)}</strong>
        {/* Only the Sewer Use Law says a notice counts as given on mailing (1111); Huron's says nothing of it. */}
        {a.section.startsWith("Sewer Use Law") ? "; a notice counts as given on mailing (Sewer Use Law 1111)." : "."}
      </li>
      {a.answerDueOn && !a.respondedAt && (
        <li>
          {a.kind === "NOTICE_OF_VIOLATION" ? "Explanation and correction plan due" : "Due"} by <strong>{date(a.answerDueOn)}</strong>
          {a.answerDaysLeft !== null && a.answerDaysLeft >= 0 ? ` (${daysText(a.answerDaysLeft)} left)` : " (the date has passed)"}.
        </li>
      )}
      {a.correctBy && (
        <li>
          {a.kind === "COMPLIANCE_ORDER" ? "Sewer service is cut unless the violation is corrected by" : "Correct the violation by"} <strong>{date(a.correctBy)}</strong>.
        </li>
      )}
      {a.hearingDueOn && (
        <li>
          A hearing is held by <strong>{date(a.hearingDueOn)}</strong> (Sewer Use Law 1117).
        </li>
      )}
      {a.petitionDueOn && (
        <li>
          Petition {a.petitionToLabel} by <strong>{date(a.petitionDueOn)}</strong>
          {a.petitionDaysLeft !== null && a.petitionDaysLeft >= 0 ? ` (${daysText(a.petitionDaysLeft)} left, counted in the district's time zone)` : `: the time to petition closed on ${date(a.petitionDueOn)}`}.
        </li>
      )}
    </ul>
  );
}

export function FineDaysTable({ a }: { a: ActionView }) {
  if (!a.fineDays.length) return null;
  return (
    <table className="usa-table usa-table--borderless">
      <caption>Each day is a separate violation ({a.section})</caption>
      <thead>
        <tr>
          <th scope="col">Day of violation</th>
          <th scope="col" className="text-right">
            Fine
          </th>
        </tr>
      </thead>
      <tbody>
        {a.fineDays.map((d) => (
          <tr key={d.date}>
            <th scope="row">{date(d.date)}</th>
            <td className="text-right">{money(d.amountCents)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          <td className="text-right">
            <strong>{money(a.fineTotalCents)}</strong>
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

export function StatementTable({ s, caption }: { s: Statement; caption: string }) {
  return (
    <>
      <table className="usa-table usa-table--borderless">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Law</th>
            <th scope="col" className="text-right">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {s.lines.map((l) => (
            <tr key={l.code}>
              <th scope="row">{l.label}</th>
              <td>{l.section}</td>
              <td className="text-right">{money(l.amountCents)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total on {date(s.asOf)}
            </th>
            <td className="text-right">
              <strong>{money(s.totalCents)}</strong>
            </td>
          </tr>
        </tfoot>
      </table>
      <p className="usa-hint">{s.explanation}</p>
      {s.violationSince && (
        <p>
          Unpaid since its due date long enough to be a violation of the law from {date(s.violationSince)} ({s.violationSection}).
        </p>
      )}
    </>
  );
}

export function Escalation({ a, base }: { a: ActionView; base: string }) {
  if (!a.escalates && !a.laterActions.length && !a.subjectLabel) return null;
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Related records</h2>
      <ul className="usa-list">
        {a.subjectLabel && (
          <li>
            Behind this action: {a.subjectType} {a.subjectLabel}
          </li>
        )}
        {a.escalates && (
          <li>
            Follows from{" "}
            <Link className="usa-link" to={`${base}/${a.escalates.id}`}>
              {a.escalates.kindLabel} {a.escalates.number}
            </Link>{" "}
            of {date(a.escalates.servedOn)}
          </li>
        )}
        {a.laterActions.map((l) => (
          <li key={l.id}>
            Followed by{" "}
            <Link className="usa-link" to={`${base}/${l.id}`}>
              {l.kindLabel} {l.number}
            </Link>{" "}
            of {date(l.servedOn)}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function HearingNotice({ h, timeZone, icsHref }: { h: Hearing; timeZone: string; icsHref: string }) {
  return (
    <div className="usa-summary-box margin-y-2">
      <div className="usa-summary-box__body">
        <h3 className="usa-summary-box__heading">Show-cause hearing before the Town Board (Sewer Use Law 1109)</h3>
        <div className="usa-summary-box__text">
          <dl className="tapline-facts">
            <dt>When</dt>
            <dd>{districtTime(h.scheduledFor, timeZone)}</dd>
            <dt>Where</dt>
            <dd>{h.place}</dd>
            <dt>Reasons</dt>
            <dd>{h.reasons}</dd>
            <dt>Proposed action</dt>
            <dd>{h.proposedAction}</dd>
            {h.informationRequested && (
              <>
                <dt>Information requested</dt>
                <dd>{h.informationRequested}</dd>
              </>
            )}
            <dt>Notice served</dt>
            <dd>
              {date(h.noticeServedOn)}
              {h.orderedByName ? `, by ${h.orderedByName}` : ""}
            </dd>
          </dl>
          <p>
            <a className="usa-link" href={icsHref} download>
              Add the hearing to your calendar (.ics)
            </a>
          </p>
          {h.outcome && (
            <p>
              <strong>After the hearing the Board {h.outcome === "UPHELD" ? "upheld" : h.outcome === "MODIFIED" ? "modified" : "vacated"} the action</strong>
              {h.newAmountCents ? `: the fine is now ${money(h.newAmountCents)}` : ""}
              {h.newTerms ? `: ${h.newTerms}` : ""}. Reasons: {h.outcomeReasons}
              {h.decidedByName ? ` (entered by ${h.decidedByName})` : ""}
            </p>
          )}
        </div>
      </div>
    </div>
  );
}

/** A labelled text area whose error sits next to it and which keeps what was typed. */
export function TextArea({ name, id = name, label, hint, error, defaultValue }: { name: string; id?: string; label: string; hint?: string; error?: string; defaultValue?: string }) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={id}>
        {label}
      </label>
      {hint && (
        <div className="usa-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <span className="usa-error-message" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
      <textarea className={`usa-textarea${error ? " usa-input--error" : ""}`} id={id} name={name} rows={5} defaultValue={defaultValue} aria-invalid={error ? true : undefined} aria-describedby={describedBy} />
    </div>
  );
}


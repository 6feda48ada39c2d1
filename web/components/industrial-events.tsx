import { Form, Link } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { SelectField } from "~/components/fields";
import { DateTime, formatCalendarDate, daysLeftText } from "~/components/format";
import { TextField } from "~/components/forms";
import { TextArea } from "~/components/hauler";

/**
 * Pieces shared by the pages of the other report kinds (violation notifications, repeat sampling,
 * slug discharges, 90-day and baseline reports, milestone progress): SUL 1005, 1011, 1004 A(12).
 */

export type EventDuty = {
  id: string;
  kind: string;
  text: string;
  section: string;
  dueAt: string;
  dueOn: string;
  doneAt: string | null;
  onTime: boolean | null;
  daysLeft: number | null;
  minutesLeft: number | null;
  reportId: string;
  resampleReportId: string | null;
  notification: { notifiedWhom: string; methodLabel: string; notifiedAt: string; text: string; onTime: boolean } | null;
};
export const EVENT_DUTY_FIELDS = `id kind text section dueAt dueOn doneAt onTime daysLeft minutesLeft reportId resampleReportId notification { notifiedWhom methodLabel notifiedAt text onTime }`;

export type EventSlug = {
  id: string;
  reportId: string;
  occurredAt: string;
  notifiedAt: string;
  notifiedWhom: string;
  substance: string;
  estimatedVolumeGallons: number;
  description: string;
  causes: string | null;
  measures: string | null;
  writtenDueOn: string;
  writtenDaysLeft: number | null;
  writtenLate: boolean;
  writtenStatus: string;
  writtenSignedAt: string | null;
  analysesDueOn: string;
  analysesDaysLeft: number;
};
export const EVENT_SLUG_FIELDS = `id reportId occurredAt notifiedAt notifiedWhom substance estimatedVolumeGallons description causes measures writtenDueOn writtenDaysLeft writtenLate writtenStatus writtenSignedAt analysesDueOn analysesDaysLeft`;

export type EventMilestone = {
  index: number;
  milestone: string;
  dueOn: string;
  progressDueOn: string;
  progressDaysLeft: number | null;
  metOn: string | null;
  latest: { met: boolean; metOn: string | null; reason: string | null; expectedOn: string | null; filedAt: string } | null;
};
export const EVENT_MILESTONE_FIELDS = `index milestone dueOn progressDueOn progressDaysLeft metOn latest { met metOn reason expectedOn filedAt }`;

/** What both events pages (the member's and the staff's) read of the permit. */
export type EventsPermit = {
  id: string;
  status: string;
  permitNumber: string | null;
  facilityName: string | null;
  organizationName: string;
  timeZone: string;
  duties: EventDuty[];
  slugDischarges: EventSlug[];
  milestones: EventMilestone[];
};
export const EVENTS_PERMIT_FIELDS = `id status permitNumber facilityName organizationName timeZone
  duties { ${EVENT_DUTY_FIELDS} } slugDischarges { ${EVENT_SLUG_FIELDS} } milestones { ${EVENT_MILESTONE_FIELDS} }`;

/** A figure of the permit's rulebook with its section (null when the district's law sets none). */
export type RuleFigure = { value: number | null; section: string };
/** The rulebook's figures the member's events page states (ViolationDuties). */
export type EventRules = { notifyHours: RuleFigure; resampleDays: RuleFigure; slugWrittenReportDays: RuleFigure };
export const EVENT_RULES_FIELDS = `eventRules { notifyHours { value section } resampleDays { value section } slugWrittenReportDays { value section } }`;

/** What a violation asks of the permit holder, in the permit's rulebook's figures (SUL 1005(4)). */
export function ViolationDuties({ rules }: { rules: EventRules }) {
  const { notifyHours: hours, resampleDays: days } = rules;
  const notify = hours.value !== null ? `within ${hours.value} ${hours.value === 1 ? "hour" : "hours"} of learning of it` : "as soon as you learn of it";
  const resample = days.value !== null ? ` within ${days.value} ${days.value === 1 ? "day" : "days"}` : "";
  return (
    <>
      When your own sampling shows a violation, tell the District Operator {notify}, then repeat the sampling and send the results{resample} ({hours.section}).
    </>
  );
}

/** "N days left" / "N days late" / "due today" (the portal's one wording, format.tsx). */
export const daysText = daysLeftText;

/** "5 hours left", "40 minutes left", "2 hours late": for the 24-hour notification. */
export function timeLeftText(minutes: number): string {
  const m = Math.abs(minutes);
  const amount = m >= 60 ? `${Math.floor(m / 60)} ${m < 120 ? "hour" : "hours"}` : `${m} ${m === 1 ? "minute" : "minutes"}`;
  return `${amount} ${minutes >= 0 ? "left" : "late"}`;
}

export function OnTime({ onTime }: { onTime: boolean | null }) {
  if (onTime === null) return null;
  return <span className={`usa-tag ${onTime ? "bg-success-darker" : "bg-secondary-dark"}`}>{onTime ? "On time" : "Late"}</span>;
}

/** Duties of exceedances with their state: notification recorded, repeat sampling report, on time or late. */
export function DutyTable({ duties, reportHref, timeZone }: { duties: EventDuty[]; reportHref: (id: string) => string; timeZone: string }) {
  return (
    <table className="usa-table usa-table--borderless usa-table--stacked width-full">
      <caption className="usa-sr-only">Duties opened by results over a limit, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Duty</th>
          <th scope="col">Due</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        {duties.map((d) => (
          <tr key={d.id}>
            <th scope="row" data-label="Duty">
              {d.text} ({d.section})
            </th>
            <td data-label="Due">
              {d.kind === "NOTIFY" ? <DateTime iso={d.dueAt} timeZone={timeZone} /> : formatCalendarDate(d.dueOn)}
              {d.daysLeft !== null && d.kind === "RESAMPLE" ? ` (${daysText(d.daysLeft)})` : ""}
              {d.minutesLeft !== null && d.kind === "NOTIFY" ? ` (${timeLeftText(d.minutesLeft)})` : ""}
            </td>
            <td data-label="State">
              {d.notification ? (
                <>
                  Notified {d.notification.notifiedWhom}, {d.notification.methodLabel.toLowerCase()}, <DateTime iso={d.notification.notifiedAt} timeZone={timeZone} /> <OnTime onTime={d.notification.onTime} />
                  <br />
                  <span className="usa-hint">“{d.notification.text}”</span>
                </>
              ) : d.doneAt ? (
                <>
                  Done <DateTime iso={d.doneAt} timeZone={timeZone} /> <OnTime onTime={d.onTime} />
                </>
              ) : (
                "Open"
              )}
              {d.resampleReportId && (
                <>
                  {" "}
                  <Link className="usa-link" to={reportHref(d.resampleReportId)}>
                    Repeat sampling report
                  </Link>
                </>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SlugFacts({ s, timeZone }: { s: EventSlug; timeZone: string }) {
  return (
    <dl className="tapline-facts">
      <dt>Occurred</dt>
      <dd>
        <DateTime iso={s.occurredAt} timeZone={timeZone} />
      </dd>
      <dt>District told</dt>
      <dd>
        <DateTime iso={s.notifiedAt} timeZone={timeZone} />, {s.notifiedWhom}
      </dd>
      <dt>Discharged</dt>
      <dd>
        {s.substance}, about {s.estimatedVolumeGallons.toLocaleString("en-US")} gallons
      </dd>
      {s.description && (
        <>
          <dt>Description</dt>
          <dd>{s.description}</dd>
        </>
      )}
      <dt>Written report (Sewer Use Law 1011)</dt>
      <dd>
        Due {formatCalendarDate(s.writtenDueOn)}
        {s.writtenStatus === "SIGNED" ? (
          <>
            ; signed and received <DateTime iso={s.writtenSignedAt} timeZone={timeZone} /> <OnTime onTime={!s.writtenLate} />
          </>
        ) : (
          <>
            {" "}
            ({daysText(s.writtenDaysLeft)}){s.writtenLate ? <> <OnTime onTime={false} /></> : null}
          </>
        )}
      </dd>
      <dt>Analytical results</dt>
      <dd>
        May be appended until {formatCalendarDate(s.analysesDueOn)} ({s.analysesDaysLeft >= 0 ? daysText(s.analysesDaysLeft) : "closed"})
      </dd>
      {s.causes && (
        <>
          <dt>Causes</dt>
          <dd className="tapline-plain-text">{s.causes}</dd>
          <dt>Measures to prevent recurrence</dt>
          <dd className="tapline-plain-text">{s.measures}</dd>
        </>
      )}
    </dl>
  );
}

export function MilestoneTable({ milestones }: { milestones: EventMilestone[] }) {
  return (
    <table className="usa-table usa-table--borderless usa-table--stacked width-full">
      <caption className="usa-sr-only">Compliance schedule milestones and their progress reports</caption>
      <thead>
        <tr>
          <th scope="col">Milestone</th>
          <th scope="col">Date</th>
          <th scope="col">Progress report</th>
        </tr>
      </thead>
      <tbody>
        {milestones.map((m) => (
          <tr key={m.index}>
            <th scope="row" data-label="Milestone">
              {m.milestone}
            </th>
            <td data-label="Date">{formatCalendarDate(m.dueOn)}</td>
            <td data-label="Progress report">
              {m.latest ? (
                m.latest.met ? (
                  `Met on ${formatCalendarDate(m.latest.metOn!)}`
                ) : (
                  `Not met: ${m.latest.reason} Expected ${formatCalendarDate(m.latest.expectedOn!)}.`
                )
              ) : (
                <>
                  Due by {formatCalendarDate(m.progressDueOn)} ({daysText(m.progressDaysLeft)})
                </>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export type ReportKindInfo = {
  kind: string;
  kindLabel: string;
  basisOn: string | null;
  dutyId: string | null;
  statement: { standardsMet: boolean; measures: string | null; professionalName: string; professionalCredential: string } | null;
  slugDischarge: { id: string } | null;
};
export const REPORT_KIND_FIELDS = `kind kindLabel basisOn dutyId statement { standardsMet measures professionalName professionalCredential } slugDischarge { id }`;

/** The section of the report page a kind other than the periodic report adds (SUL 1005(1), (2), (4), 1011). */
export function ReportKindPanel({
  r,
  editable,
  errors,
  values,
  busy,
  children,
}: {
  r: ReportKindInfo;
  editable: boolean;
  errors: Record<string, string>;
  values: Record<string, string> | null;
  busy: boolean;
  children?: React.ReactNode;
}) {
  if (r.kind === "PERIODIC") return null;
  const st = r.statement;
  const val = (k: string, fallback: string) => (values ? (values[k] ?? "") : fallback);
  return (
    <section aria-labelledby="kind-heading">
      <h2 id="kind-heading">{r.kindLabel}</h2>
      {r.kind === "RESAMPLE" && <p>The repeat sampling after a violation. Signing it by its due date meets the duty to send the repeat results.</p>}
      {r.kind === "SLUG" && r.slugDischarge && (
        <p>
          The written report of an{" "}
          <Link className="usa-link" to={`/industrial/slug/${r.slugDischarge.id}`}>
            accidental or slug discharge
          </Link>
          : its causes and measures are written there; lab results are entered here.
        </p>
      )}
      {r.kind === "BASELINE" && r.basisOn && <p>Due 180 days after the categorical standard's promulgation on {formatCalendarDate(r.basisOn)}.</p>}
      {r.kind === "NINETY_DAY" && (
        <>
          {r.basisOn && <p>Due 90 days after the final compliance date or start of discharge, {formatCalendarDate(r.basisOn)}.</p>}
          {st && (
            <dl className="tapline-facts">
              <dt>Standards met consistently</dt>
              <dd>{st.standardsMet ? "Yes" : "No"}</dd>
              {st.measures && (
                <>
                  <dt>Additional O&amp;M or pretreatment needed</dt>
                  <dd className="tapline-plain-text">{st.measures}</dd>
                </>
              )}
              <dt>Qualified professional</dt>
              <dd>
                {st.professionalName}, {st.professionalCredential}
              </dd>
            </dl>
          )}
          {editable && children}
          {editable && (
            <NinetyDayForm
              errors={errors}
              busy={busy}
              standardsMet={val("standardsMet", st ? (st.standardsMet ? "yes" : "no") : "")}
              measures={val("measures", st?.measures ?? "")}
              professionalName={val("professionalName", st?.professionalName ?? "")}
              professionalCredential={val("professionalCredential", st?.professionalCredential ?? "")}
            />
          )}
        </>
      )}
    </section>
  );
}

function NinetyDayForm(props: { errors: Record<string, string>; busy: boolean; standardsMet: string; measures: string; professionalName: string; professionalCredential: string }) {
  const e = props.errors;
  return (
    <Form method="post" className="usa-form usa-form--large">
      <AuthenticityTokenInput />
      <h3>Statement and certification (Sewer Use Law 1005(2))</h3>
      <SelectField
        name="standardsMet"
        label="Are the pretreatment standards met on a consistent basis?"
        options={[
          { value: "", label: "- Choose -" },
          { value: "yes", label: "Yes" },
          { value: "no", label: "No" },
        ]}
        defaultValue={props.standardsMet}
        error={e.standardsMet}
        required
      />
      <TextArea name="measures" label="If not: the additional operation and maintenance or pretreatment needed" defaultValue={props.measures} error={e.measures} />
      <TextField name="professionalName" label="Qualified professional who reviewed it" defaultValue={props.professionalName} error={e.professionalName} required />
      <TextField name="professionalCredential" label="Professional's credential" hint="e.g. P.E., New York licence number" defaultValue={props.professionalCredential} error={e.professionalCredential} required />
      <button className="usa-button usa-button--outline" type="submit" name="intent" value="statement" disabled={props.busy}>
        Save the statement
      </button>
    </Form>
  );
}

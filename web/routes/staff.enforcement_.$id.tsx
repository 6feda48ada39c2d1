import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { ACTION_FIELDS, Deadlines, Escalation, FineDaysTable, HearingNotice, StatementTable, date, type ActionView } from "~/components/enforcement";
import { NestedErrorBoundary } from "~/components/fields";
import { DateTime } from "~/components/format";
import { SuccessAlert } from "~/components/forms";
import { money } from "~/components/money";
import { requireStaff } from "~/components/staff.server";

export const meta: MetaFunction = () => [{ title: "Enforcement action | Staff | Tapline" }];

type Data = { action: ActionView; operator: boolean };

export async function loader(args: LoaderFunctionArgs) {
  const info = await requireStaff(args);
  const { enforcementAction } = await requireSignedIn<{ enforcementAction: ActionView }>(args, `query StaffAction($id: ID!) { enforcementAction(id: $id) { ${ACTION_FIELDS} } }`, { id: args.params.id });
  const district = info.districts.find((d) => d.id === enforcementAction.districtId);
  return { action: enforcementAction, operator: !!district?.roles.includes("OPERATOR") } satisfies Data;
}

export default function StaffAction() {
  const { action: a, operator } = useLoaderData<typeof loader>() as Data;
  const [params] = useSearchParams();
  const history = a.respondentUserId ? `respondentUserId=${a.respondentUserId}` : `respondentOrganizationId=${a.respondentOrganizationId}`;
  return (
    <>
      <h1>
        {a.kindLabel} {a.number}
      </h1>
      <p className="usa-intro">
        Served on{" "}
        <Link className="usa-link" to={`/staff/enforcement?districtId=${a.districtId}&${history}`}>
          {a.respondentName}
        </Link>{" "}
        · {a.district.name} · {a.section}
      </p>
      {params.get("done") === "served" && <SuccessAlert>Served. The respondent is notified by email and sees it in the portal.</SuccessAlert>}
      <section className="usa-summary-box" aria-labelledby="status-heading">
        <div className="usa-summary-box__body">
          <h2 className="usa-summary-box__heading" id="status-heading">
            Status: <span className="usa-tag">{a.final ? "Final" : a.statusLabel}</span>
          </h2>
          <div className="usa-summary-box__text">
            <Deadlines a={a} />
            {a.final && a.finalExplanation && (
              <p>
                <strong>{a.finalByDefault ? `Final since ${date(a.finalOn!)} by default (Sewer Use Law 1110):` : "Final:"}</strong> {a.finalExplanation}
              </p>
            )}
          </div>
        </div>
      </section>
      <dl className="tapline-facts">
        <dt>Violation</dt>
        <dd>{a.violation}</dd>
        {a.requirements && (
          <>
            <dt>Required</dt>
            <dd>{a.requirements}</dd>
          </>
        )}
        {a.respondedAt && (
          <>
            <dt>Answer</dt>
            <dd>
              {a.response} Correction plan: {a.responsePlan} (<DateTime iso={a.respondedAt} timeZone={a.district.timeZone} />)
            </dd>
          </>
        )}
      </dl>
      <FineDaysTable a={a} />
      {a.originalFineTotalCents !== a.fineTotalCents && <p>Served at {money(a.originalFineTotalCents)}; modified by the Town Board to {money(a.fineTotalCents)}.</p>}
      {a.charge && (
        <section aria-labelledby="charge-heading">
          <h2 id="charge-heading">Charge {a.charge.number}</h2>
          <p>Status: {a.charge.status === "OPEN" ? "unpaid" : a.charge.status === "HELD" ? "on hold while a petition is decided" : a.charge.status.toLowerCase()}</p>
          {a.charge.status === "OPEN" && <StatementTable s={a.charge.statement} caption="Statement today" />}
        </section>
      )}
      {a.petitions.length > 0 && (
        <section aria-labelledby="petitions-heading">
          <h2 id="petitions-heading">Petitions</h2>
          <ul className="usa-list">
            {a.petitions.map((p) => (
              <li key={p.id}>
                <Link className="usa-link" to={`/staff/petitions/${p.id}`}>
                  Petition of {date(p.filedOn)}
                </Link>
                : {p.statusLabel}
                {p.decidedByName ? ` (${p.decidedByName})` : ""}
                {p.hearing && <HearingNotice h={p.hearing} timeZone={a.district.timeZone} icsHref={`/enforcement/hearings/${p.hearing.id}.ics`} />}
              </li>
            ))}
          </ul>
        </section>
      )}
      <Escalation a={a} base="/staff/enforcement" />
      {operator && (
        <p>
          <Link className="usa-button usa-button--outline" to={`/staff/enforcement/new?districtId=${a.districtId}&escalatesId=${a.id}`}>
            Serve a follow-up action
          </Link>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

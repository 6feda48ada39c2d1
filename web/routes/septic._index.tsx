import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { CalendarDate } from "~/components/format";
import { SuccessAlert } from "~/components/forms";

export const meta: MetaFunction = () => [{ title: "My septic systems | Tapline" }];

type Standing = { state: string; dueOn: string | null; daysLeft: number | null; text: string };
type Order = {
  id: string;
  statusLabel: string;
  reason: string;
  issuedOn: string;
  closedOn: string | null;
  extensionName: string | null;
  path: string;
  effluentMethod: string | null;
  effluentOn: string | null;
  easementDocumentId: string | null;
  easementFilename: string | null;
  easementRecordedOn: string | null;
  steps: { step: string; label: string; section: string; done: boolean }[];
};
type Notice = { id: string; statusLabel: string; condition: string; receivedOn: string; repairBy: string; daysLeft: number | null; lapsed: boolean; section: string };
type System = {
  id: string;
  address: string;
  taxParcel: string;
  kindLabel: string;
  statusLabel: string;
  forbiddenReason: string | null;
  buildings: { name: string; useLabel: string }[];
  pumpStanding: Standing;
  pumpOuts: { haulerLoadId: string; pumpedOn: string; haulerName: string; licenseNumber: string | null; gallons: number | null }[];
  nuisanceNotices: Notice[];
  connectionOrders: Order[];
};
type Permit = { id: string; address: string; statusLabel: string; permitNumber: string | null; feeCents: number; paymentId: string | null; decisionReason: string | null; submittedAt: string };

/** The owner's septic systems (SUL 401-408): when each was last pumped and is next due, notices with their days left, connection orders with their steps, and construction permits. */
export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ mySepticSystems: System[]; mySepticPermits: Permit[] }>(
    args,
    `query MySeptic { mySepticSystems { id address taxParcel kindLabel statusLabel forbiddenReason buildings { name useLabel }
        pumpStanding { state dueOn daysLeft text } pumpOuts { haulerLoadId pumpedOn haulerName licenseNumber gallons }
        nuisanceNotices { id statusLabel condition receivedOn repairBy daysLeft lapsed section }
        connectionOrders { id statusLabel reason issuedOn closedOn extensionName path effluentMethod effluentOn easementDocumentId easementFilename easementRecordedOn steps { step label section done } } }
      mySepticPermits { id address statusLabel permitNumber feeCents paymentId decisionReason submittedAt } }`,
  );
}

const days = (n: number) => `${Math.abs(n)} day${Math.abs(n) === 1 ? "" : "s"}`;

export default function MySeptic() {
  const { mySepticSystems: systems, mySepticPermits: permits } = useLoaderData<typeof loader>() as { mySepticSystems: System[]; mySepticPermits: Permit[] };
  const [params] = useSearchParams();
  return (
    <>
      <h1>My septic systems</h1>
      {params.get("done") === "applied" && <SuccessAlert>Your application is sent to the District Operator.</SuccessAlert>}
      <p>
        A septic tank or cesspool is pumped by a licensed hauler at least every three years (Sewer Use Law 407). When a licensed hauler's load from your
        address is received at the district's station, it is recorded here by itself.
      </p>
      <p>
        <Link className="usa-link" to="/septic/apply">
          Apply for a permit to build a septic system
        </Link>
      </p>
      {systems.length === 0 ? (
        <p>No septic system is on the register for a property you own. The District Operator records systems on the properties the Town Clerk links to your sign-in.</p>
      ) : (
        systems.map((s) => (
          <section key={s.id} aria-labelledby={`s-${s.id}`}>
            <h2 id={`s-${s.id}`}>
              {s.kindLabel} at {s.address}
            </h2>
            <p>
              Tax parcel {s.taxParcel}. {s.statusLabel}. Serves: {s.buildings.map((b) => `${b.name} (${b.useLabel.toLowerCase()})`).join(", ")}.
            </p>
            {s.forbiddenReason && <p className="text-bold">{s.forbiddenReason}</p>}
            <div className={`usa-alert usa-alert--slim ${s.pumpStanding.state === "OVERDUE" || s.pumpStanding.state === "NO_RECORD" ? "usa-alert--warning" : "usa-alert--info"}`}>
              <div className="usa-alert__body">
                <p className="usa-alert__text">
                  {s.pumpStanding.text}
                  {s.pumpStanding.daysLeft !== null && (s.pumpStanding.daysLeft >= 0 ? ` ${days(s.pumpStanding.daysLeft)} left.` : ` ${days(s.pumpStanding.daysLeft)} overdue.`)}
                </p>
              </div>
            </div>
            {s.pumpOuts.length > 0 && (
              <table className="usa-table usa-table--borderless">
                <caption>Pump-outs on record</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Licensed hauler</th>
                    <th scope="col">Gallons received</th>
                  </tr>
                </thead>
                <tbody>
                  {s.pumpOuts.map((p) => (
                    <tr key={p.haulerLoadId}>
                      <td>
                        <CalendarDate date={p.pumpedOn} />
                      </td>
                      <td>
                        {p.haulerName}
                        {p.licenseNumber ? `, licence ${p.licenseNumber}` : ""}
                      </td>
                      <td>{p.gallons === null ? "Not measured" : p.gallons.toLocaleString("en-US")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {s.nuisanceNotices.map((n) => (
              <div key={n.id} className="usa-summary-box margin-bottom-2">
                <div className="usa-summary-box__body">
                  <h3 className="usa-summary-box__heading">Notice to repair, rebuild or relocate ({n.section})</h3>
                  <p>{n.condition}</p>
                  <p>
                    Received <CalendarDate date={n.receivedOn} />; repair, rebuild or relocate by <CalendarDate date={n.repairBy} />. {n.statusLabel}.
                    {n.daysLeft !== null && (n.daysLeft >= 0 ? ` ${days(n.daysLeft)} left.` : ` The time passed ${days(n.daysLeft)} ago; the District Operator may open an enforcement action.`)}
                  </p>
                </div>
              </div>
            ))}
            {s.connectionOrders.map((o) => (
              <div key={o.id} className="usa-summary-box margin-bottom-2">
                <div className="usa-summary-box__body">
                  <h3 className="usa-summary-box__heading">Order to connect to the public sewer</h3>
                  <p>
                    Issued <CalendarDate date={o.issuedOn} />: {o.reason} {o.statusLabel}
                    {o.closedOn ? (
                      <>
                        {" "}
                        on <CalendarDate date={o.closedOn} />
                      </>
                    ) : null}
                    .
                  </p>
                  {o.extensionName && <p>The public sewer that reaches your property: the sewer extension {o.extensionName}.</p>}
                  {o.path === "EFFLUENT_TO_SEWER" && <EffluentAlternative order={o} />}
                  <ol className="usa-list">
                    {o.steps.map((st) => (
                      <li key={st.step}>
                        {st.label} ({st.section}): {st.done ? "recorded" : "to do"}
                      </li>
                    ))}
                  </ol>
                </div>
              </div>
            ))}
          </section>
        ))
      )}
      <h2>Construction permits</h2>
      {permits.length === 0 ? (
        <p>No application.</p>
      ) : (
        <ul className="usa-list">
          {permits.map((p) => (
            <li key={p.id}>
              {p.address}: {p.statusLabel}
              {p.permitNumber ? `, permit ${p.permitNumber}` : ""}
              {p.decisionReason ? `. ${p.decisionReason}` : ""}
              {p.paymentId && p.statusLabel === "Under review" ? (
                <>
                  {" "}
                  <Link className="usa-link" to={`/payments/${p.paymentId}`}>
                    Pay the permit fee
                  </Link>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** SUL 408's alternative in plain words: the tank kept, its effluent sent to the sewer, the easement; the tank still pumped (407). */
function EffluentAlternative({ order: o }: { order: Order }) {
  const section = o.steps.find((st) => st.step === "EFFLUENT_TO_SEWER")?.section ?? "Sewer Use Law 408";
  return (
    <>
      <p>
        Your septic tank stays: instead of taking it out of use, the liquid that leaves it (its effluent) is piped or pumped into the public sewer, and you give the
        district an easement so the tank can still be reached and pumped out ({section}). The tank stays in use, so it is still pumped by a licensed hauler on time,
        as shown above (Sewer Use Law 407).
      </p>
      {o.effluentOn && (
        <p>
          Effluent {o.effluentMethod === "PUMPED" ? "pumped" : "piped"} to the sewer from <CalendarDate date={o.effluentOn} />.
        </p>
      )}
      {o.easementDocumentId && (
        <p>
          Your easement to the septic tank for pumping it out, recorded <CalendarDate date={o.easementRecordedOn!} />:{" "}
          <a className="usa-link" href={`/documents/${o.easementDocumentId}`}>
            {o.easementFilename}
          </a>
        </p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

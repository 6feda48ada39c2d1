import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/link";
import { daysLeftText, formatCalendarDate, statusLabel } from "~/components/format";
import { SuccessAlert } from "~/components/forms";
import { requireSignedIn } from "~/auth.server";

export const meta: MetaFunction = () => [{ title: "My applications | Tapline" }];

const Q = `query Dashboard { me { displayName emailVerified email } myDashboard { recentEmails items { kind id title status nextStep nextStepHref dueDate daysLeft href } organizations { role organization { id name kind } } } }`;

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn(args, Q);
}

export default function Dashboard() {
  const data = useLoaderData<typeof loader>() as any;
  const [params] = useSearchParams();
  const { me, myDashboard: d } = data;
  return (
    <>
      <h1>My applications</h1>
      {params.get("welcome") && <SuccessAlert>Welcome, {me.displayName}. Your account is ready.</SuccessAlert>}
      {!me.emailVerified && (
        <div className="usa-alert usa-alert--warning usa-alert--slim"><div className="usa-alert__body"><p className="usa-alert__text">
          Please confirm your email address: we sent a link to {me.email}. <Link className="usa-link" to="/account/emails">Read your emails</Link>.
        </p></div></div>
      )}
      {d.items.length === 0 ? (
        <div className="usa-summary-box margin-top-3" role="region" aria-labelledby="empty-heading">
          <div className="usa-summary-box__body">
            <h2 className="usa-summary-box__heading" id="empty-heading">Nothing in progress yet</h2>
            <div className="usa-summary-box__text">
              <p>When you apply for a permit or licence, or when the district serves you a notice, it appears here with what is due next and by when.</p>
              <p><Link className="usa-button" to="/permits/new">Connect to the public sewer</Link></p>
              <p><Link className="usa-link" to="/rules">See the rules and fees of each district</Link>.</p>
              <p><Link className="usa-link" to="/industrial">Industrial discharge permits</Link></p>
              <p>Hauling septage? <Link className="usa-link" to="/haulers">Septage hauling</Link>: licences and loads.</p>
              <p>Building a subdivision's sewer? <Link className="usa-link" to="/extensions">Sewer extensions</Link>.</p>
            </div>
          </div>
        </div>
      ) : (
        <>
        <p><Link className="usa-link" to="/permits/new">Connect to the public sewer</Link> · <Link className="usa-link" to="/permits">My lateral permits</Link> · <Link className="usa-link" to="/enforcement">My notices and orders</Link> · <Link className="usa-link" to="/industrial">Industrial discharge permits</Link> · <Link className="usa-link" to="/haulers">Septage hauling</Link> · <Link className="usa-link" to="/extensions">Sewer extensions</Link></p>
        <table className="usa-table usa-table--stacked">
          <caption>In progress, soonest deadline first</caption>
          <thead><tr><th scope="col">What</th><th scope="col">Status</th><th scope="col">Next step</th><th scope="col">Due</th></tr></thead>
          <tbody>
            {d.items.map((i: any) => (
              <tr key={i.kind + i.id}>
                <th scope="row" data-label="What"><Link className="usa-link" to={i.href}>{i.title}</Link></th>
                <td data-label="Status">{statusLabel(i.status)}</td>
                <td data-label="Next step">{i.nextStep ? <Link className="usa-link" to={i.nextStepHref ?? i.href}>{i.nextStep}</Link> : ""}</td>
                <td data-label="Due">{i.dueDate ? `${formatCalendarDate(i.dueDate)}${i.daysLeft === null || i.daysLeft === undefined ? "" : ` (${daysLeftText(i.daysLeft)})`}` : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </>
      )}
      <h2>My organizations</h2>
      {d.organizations.length === 0 ? (
        <p>You do not belong to a hauling company, industrial user or contracting firm. <Link className="usa-link" to="/account/organizations">Add one</Link>.</p>
      ) : (
        <ul className="usa-list">
          {d.organizations.map((o: any) => (
            <li key={o.organization.id}><Link className="usa-link" to={`/account/organizations/${o.organization.id}`}>{o.organization.name}</Link> ({o.role.toLowerCase().replace(/_/g, " ")})</li>
          ))}
        </ul>
      )}
    </>
  );
}

import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Public records: users in significant non-compliance | Tapline" }];

type List = {
  id: string;
  districtName: string;
  periodStart: string;
  periodEnd: string;
  publishedOn: string;
  section: string;
  listings: { organizationName: string; permitNumbers: string[]; criteria: string[]; findings: string[] }[];
};

const CRITERIA: Record<string, string> = {
  CHRONIC: "Chronic violation (66% or more of a parameter's measurements over the limit)",
  TRC: "Technical review criteria (33% or more at or above 1.4 or 1.2 times the limit)",
  LATE_REPORT: "A required report more than 30 days late",
  MILESTONE: "A compliance schedule milestone missed by 90 days or more",
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const r = await gql<{ publishedSncLists: List[] }>(
    context,
    request,
    `query PublishedSnc { publishedSncLists { id districtName periodStart periodEnd publishedOn section listings { organizationName permitNumbers criteria findings } } }`,
  );
  if (!r.ok) throw new Response(r.error.message, { status: 500 });
  return { lists: r.data.publishedSncLists };
}

/** Public (SUL 1122): the published lists of industrial users in significant non-compliance (SUL 201), newest period first. */
export default function PublicSnc() {
  const { lists } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Industrial users in significant non-compliance</h1>
      <p className="usa-intro">
        Each year the district publishes the industrial users that were in significant non-compliance with their wastewater discharge permits (Sewer Use Law
        1122), judged over six-month periods by the criteria of Sewer Use Law 201. Permits and their reports are{" "}
        <Link className="usa-link" to="/public-records">
          public records
        </Link>
        .
      </p>
      {lists.length === 0 ? (
        <p>No list has been published yet.</p>
      ) : (
        lists.map((l) => (
          <section key={l.id} aria-labelledby={`list-${l.id}`} className="margin-bottom-4">
            <h2 id={`list-${l.id}`}>
              {l.districtName}: {formatCalendarDate(l.periodStart)} to {formatCalendarDate(l.periodEnd)}
            </h2>
            <p>
              Published {formatCalendarDate(l.publishedOn)} ({l.section}).
            </p>
            {l.listings.length === 0 ? (
              <p>No industrial user was in significant non-compliance in this period.</p>
            ) : (
              <table className="usa-table usa-table--stacked usa-table--borderless width-full">
                <caption className="usa-sr-only">
                  Users in significant non-compliance, {formatCalendarDate(l.periodStart)} to {formatCalendarDate(l.periodEnd)}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Industrial user</th>
                    <th scope="col">Permit</th>
                    <th scope="col">Criteria met</th>
                  </tr>
                </thead>
                <tbody>
                  {l.listings.map((x) => (
                    <tr key={x.organizationName}>
                      <th scope="row" data-label="Industrial user">
                        {x.organizationName}
                      </th>
                      <td data-label="Permit">{x.permitNumbers.join(", ")}</td>
                      <td data-label="Criteria met">
                        <ul className="usa-list">
                          {x.criteria.map((c) => (
                            <li key={c}>{CRITERIA[c] ?? c}</li>
                          ))}
                        </ul>
                        <details>
                          <summary>Findings</summary>
                          <ul className="usa-list font-body-2xs">
                            {x.findings.map((f, i) => (
                              <li key={i}>{f}</li>
                            ))}
                          </ul>
                        </details>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        ))
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

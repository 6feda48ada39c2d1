import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { gql, statusOf } from "~/graphql.server";
import { money } from "~/components/money";

type Requirement = { label: string; section: string; note: string | null; required: boolean; minimumCents: number | null };
type Requirements = {
  approvedListEnabled: boolean;
  list: Requirement;
  bond: Requirement;
  coverages: (Requirement & { coverage: string })[];
  cancellationNoticeBusinessDays: number | null;
  cancellationNotice: Requirement;
  expiryReminderDays: number | null;
  rulebookVersion: number;
};
type Data = {
  district: { name: string; lawName: string; slug: string; contacts: { role: string; name: string; email: string; phone: string }[] };
  contractorRequirements: Requirements;
  approvedContractors: { id: string; name: string; approvedSince: string }[];
};

const REQ = `label section note required minimumCents`;
const Q = `query PublicContractors($slug: String!) {
  district(slug: $slug) { name lawName slug contacts { role name email phone } }
  contractorRequirements(districtSlug: $slug) {
    approvedListEnabled list { ${REQ} } bond { ${REQ} } coverages { coverage ${REQ} }
    cancellationNoticeBusinessDays cancellationNotice { ${REQ} } expiryReminderDays rulebookVersion
  }
  approvedContractors(districtSlug: $slug) { id name approvedSince }
}`;

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `Approved contractors: ${(data as Data | undefined)?.district.name ?? "District"} | Tapline` },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const r = await gql<Data>(context, request, Q, { slug: params.slug });
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  return r.data;
}


export default function PublicContractors() {
  const { district: d, contractorRequirements: req, approvedContractors: list } = useLoaderData<typeof loader>() as Data;
  const clerk = d.contacts.find((c) => /clerk/i.test(c.role));
  return (
    <>
      <p className="margin-top-0">
        <Link className="usa-link" to={`/rules/${d.slug}`}>
          Rules and fees of {d.name}
        </Link>
      </p>
      <h1>Approved contractors: {d.name}</h1>

      {!req.approvedListEnabled ? (
        <section aria-labelledby="no-list-heading">
          <h2 id="no-list-heading">This district keeps no list of approved contractors</h2>
          <p>
            The {d.lawName} does not provide a list of approved contractors, and it asks no bond or insurance filing of contractors (
            {req.list.section}).{req.list.note ? ` ${req.list.note}` : ""}
          </p>
          <p>
            Before work on a sewer connection starts, ask the district office what it needs from you and your contractor
            {clerk ? (
              <>
                {" "}
                (the {clerk.role}, {clerk.name},{" "}
                <a className="usa-link" href={`mailto:${clerk.email}`}>
                  {clerk.email}
                </a>
                )
              </>
            ) : null}
            .
          </p>
        </section>
      ) : (
        <>
          <p className="usa-intro">
            The district gives each new user a list of contractors approved to work on its sewer system ({req.list.section}). Choose a contractor from
            this list for your sewer connection.
          </p>

          <section aria-labelledby="list-heading">
            <h2 id="list-heading">Contractors you can choose today</h2>
            {list.length === 0 ? (
              <p>No contractor is approved at the moment.</p>
            ) : (
              <table className="usa-table usa-table--stacked usa-table--borderless width-full">
                <caption className="usa-sr-only">Approved contractors of {d.name}, by name</caption>
                <thead>
                  <tr>
                    <th scope="col">Firm</th>
                    <th scope="col">Approved since</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((c) => (
                    <tr key={c.id}>
                      <th scope="row" data-label="Firm">
                        {c.name}
                      </th>
                      <td data-label="Approved since">{formatCalendarDate(c.approvedSince)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <p>
              A contractor leaves this list as soon as its bond or one of its insurance certificates expires, or if the district suspends it, and comes
              back once it is in order again.
            </p>
          </section>

          <section aria-labelledby="requirements-heading">
            <h2 id="requirements-heading">What an approved contractor files with the Town Clerk</h2>
            <p>A contractor who works in a highway right of way files a bond and certificates of insurance:</p>
            <ul className="usa-list">
              {req.bond.required && req.bond.minimumCents !== null && (
                <li>
                  A bond of at least <strong>{money(req.bond.minimumCents)}</strong> ({req.bond.section}).
                </li>
              )}
              {req.coverages
                .filter((c) => c.required)
                .map((c) => (
                  <li key={c.coverage}>
                    {c.label} insurance
                    {c.minimumCents !== null ? (
                      <>
                        {" "}
                        of at least <strong>{money(c.minimumCents)}</strong>
                      </>
                    ) : (
                      ", as state law requires"
                    )}{" "}
                    ({c.section}).
                  </li>
                ))}
              {req.cancellationNoticeBusinessDays !== null && (
                <li>
                  Every policy gives the Town {req.cancellationNoticeBusinessDays} business days' notice before it is cancelled ({req.cancellationNotice.section}).
                </li>
              )}
            </ul>
            {req.coverages.some((c) => c.note && /Board/.test(c.note)) && (
              <p>The Town Board reviews these minimums and may change them; the figures above are the ones in force today (rulebook version {req.rulebookVersion}).</p>
            )}
            {req.expiryReminderDays !== null && (
              <p>
                The portal reminds each approved firm {req.expiryReminderDays} days before its bond or a certificate expires.
              </p>
            )}
            <p>
              <Link className="usa-button" to={`/contractors/apply?district=${d.slug}`}>
                Apply to be an approved contractor
              </Link>
            </p>
          </section>
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

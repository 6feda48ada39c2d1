import type { LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { SuccessAlert } from "~/components/forms";
import { gql } from "~/graphql.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const r = await gql<{ districts: { slug: string; name: string; lawName: string }[] }>(context, request, `{ districts { slug name lawName } }`);
  return { districts: r.ok ? r.data.districts : [] };
}

export default function Home() {
  const { districts } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  return (
    <>
      {params.get("signedOut") && <SuccessAlert>You are signed out.</SuccessAlert>}
      <section className="usa-section padding-top-2">
        <h1>Sewer district services, online</h1>
        <p className="usa-intro">
          Apply for permits, pay fees, file reports and petitions with your town's sewer district, and follow each step from your
          dashboard, without paper forms or registered mail.
        </p>
        <p>
          <Link className="usa-button" to="/sign-up">Create an account</Link>
          <Link className="usa-button usa-button--outline" to="/sign-in">Sign in</Link>
        </p>
      </section>
      <section aria-labelledby="what-heading">
        <h2 id="what-heading">What you can do here</h2>
        <ul className="usa-list">
          <li><strong>Homeowners:</strong> apply for a building lateral (sewer connection) permit, and pay the hook-up fee where the district charges one.</li>
          <li>
            <strong>Contractors:</strong> <Link className="usa-link" to="/contractors/apply">apply to be an approved contractor</Link> in a district
            that keeps a list (owners choose from it); each district's list is linked below.
          </li>
          <li><strong>Septage haulers:</strong> where the district's law licenses haulers, apply for and renew the annual licence and prepay each load's dumping fee; elsewhere, ask for the written permission the law provides.</li>
          <li><strong>Industrial users:</strong> where the district's law issues wastewater discharge permits, hold one and file its periodic compliance reports.</li>
          <li><strong>Anyone served a notice, an order or a fine:</strong> read what it asks and by when, pay, or petition where the district's law gives a petition.</li>
          <li><strong>District staff:</strong> review, inspect, decide and enforce.</li>
        </ul>
      </section>
      <section aria-labelledby="districts-heading">
        <h2 id="districts-heading">Districts served</h2>
        <ul className="usa-card-group">
          {districts.map((d) => (
            <li key={d.slug} className="usa-card tablet:grid-col-6">
              <div className="usa-card__container">
                <div className="usa-card__header"><h3 className="usa-card__heading">{d.name}</h3></div>
                <div className="usa-card__body"><p>Governed by the {d.lawName}.</p></div>
                <div className="usa-card__footer">
                  <Link className="usa-button usa-button--outline" to={`/rules/${d.slug}`}>Rules and fees<span className="usa-sr-only"> of {d.name}</span></Link>
                  <Link className="usa-link margin-left-1" to={`/contractors/${d.slug}`}>Approved contractors<span className="usa-sr-only"> of {d.name}</span></Link>
                </div>
              </div>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

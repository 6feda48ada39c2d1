import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Rules and fees | Tapline" }];

type District = { slug: string; name: string; lawName: string; address: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const r = await gql<{ districts: District[] }>(context, request, `query Districts { districts { slug name lawName address } }`);
  if (!r.ok) throw new Response(r.error.message, { status: 500 });
  return { districts: r.data.districts };
}

export default function Rules() {
  const { districts } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Rules and fees</h1>
      <p className="usa-intro">
        Each sewer district follows its own law. Choose your district to read its fees, deadlines and rules in plain language, with the section of the
        law each comes from.
      </p>
      {districts.length === 0 ? (
        <p>No districts are served here yet.</p>
      ) : (
        <ul className="usa-card-group">
          {districts.map((d) => (
            <li key={d.slug} className="usa-card tablet:grid-col-6">
              <div className="usa-card__container">
                <div className="usa-card__header">
                  <h2 className="usa-card__heading">{d.name}</h2>
                </div>
                <div className="usa-card__body">
                  <p>Governed by the {d.lawName}.</p>
                  <p>{d.address}</p>
                </div>
                <div className="usa-card__footer">
                  <Link className="usa-button" to={`/rules/${d.slug}`}>
                    Rules and fees<span className="usa-sr-only"> of {d.name}</span>
                  </Link>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

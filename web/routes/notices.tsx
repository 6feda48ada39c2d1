import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Public notices | Tapline" }];

type Row = { id: string; status: string; statusLabel: string; facilityName: string | null; organizationName: string; districtName: string; noticePublishedOn: string; noticeText: string; earliestIssueOn: string | null; permitNumber: string | null };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const r = await gql<{ industrialNotices: Row[] }>(
    context,
    request,
    `query Notices { industrialNotices { id status statusLabel facilityName organizationName districtName noticePublishedOn noticeText earliestIssueOn permitNumber } }`,
  );
  if (!r.ok) throw new Response(r.error.message, { status: 500 });
  return r.data;
}

/** Notices of intent to issue a wastewater discharge permit (SUL 1004 H), open to anyone. */
export default function Notices() {
  const { industrialNotices: rows } = useLoaderData<typeof loader>() as { industrialNotices: Row[] };
  return (
    <>
      <h1>Public notices</h1>
      <p className="usa-intro">
        Notices of intent to issue a wastewater discharge permit, published at least 14 days before a permit is issued (Sewer Use Law 1004 H). Permits, limits and
        reports are public records (Sewer Use Law 1014): <Link className="usa-link" to="/public-records">search them</Link>. Users in significant non-compliance are published too (Sewer Use Law 1122):{" "}
        <Link className="usa-link" to="/public-records/snc">
          see the lists
        </Link>
        .
      </p>
      {rows.length === 0 ? (
        <p>No notices have been published.</p>
      ) : (
        rows.map((n) => (
          <article key={n.id} className="margin-bottom-4">
            <h2>
              <Link className="usa-link" to={`/industrial/${n.id}`}>
                {n.facilityName}, {n.organizationName}
              </Link>
            </h2>
            <p>
              {n.districtName} · published {formatCalendarDate(n.noticePublishedOn)} · {n.statusLabel}
              {n.permitNumber ? ` (${n.permitNumber})` : ""}
            </p>
            <p className="tapline-plain-text">{n.noticeText}</p>
          </article>
        ))
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

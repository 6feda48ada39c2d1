import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, Notice } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { ErrorSummary } from "~/components/forms";
import { daysText } from "~/components/industrial-lifecycle";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Apply for reissuance | Tapline" }];

/**
 * SUL 1004 E: the owner or Authorized Representative starts the reissuance application of an
 * issued permit; it is a draft copied from the permit, then submitted, paid, noticed and issued
 * like a first application.
 */

type Permit = {
  id: string;
  permitNumber: string | null;
  facilityName: string | null;
  expiresOn: string | null;
  viewerRole: string | null;
  reissuance: { deadline: string; daysLeft: number; section: string; applicationId: string | null } | null;
};

/** Each field's visible label, in the form's order (a record the page acts on by its name): the error summary names fields by them. */
export const LABELS: Record<string, string> = { permitId: "Permit" };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ industrialPermit: Permit }>(
    args,
    `query Reissue($id: ID!) { industrialPermit(id: $id) { id permitNumber facilityName expiresOn viewerRole reissuance { deadline daysLeft section applicationId } } }`,
    { id: args.params.id },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const r = await gql<{ startIndustrialReissuance: { id: string } }>(context, request, `mutation Reissue($id: ID!) { startIndustrialReissuance(permitId: $id) { id } }`, { id: params.id });
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED") throw redirect(`/sign-in?redirectTo=${encodeURIComponent(`/industrial/${params.id}/reissue`)}`, { headers: cookieHeaders(r) });
    return Response.json({ error: r.error.message }, { status: 400, headers: cookieHeaders(r) });
  }
  const done = "The reissuance application is started as a copy of the permit's application. Check each item, update what changed and submit it.";
  return redirect(`/industrial/${r.data.startIndustrialReissuance.id}?done=${encodeURIComponent(done)}`, { headers: cookieHeaders(r) });
}

export default function ReissuePage() {
  const { industrialPermit: p } = useLoaderData<typeof loader>() as { industrialPermit: Permit };
  const a = useActionData<{ error: string }>();
  return (
    <>
      <p>
        <Link className="usa-link" to={`/industrial/${p.id}`}>
          Back to permit {p.permitNumber}
        </Link>
      </p>
      <h1>Apply to reissue permit {p.permitNumber}</h1>
      <ErrorSummary message={a?.error} />
      {p.reissuance ? (
        <>
          <p className="usa-intro">
            {p.facilityName}: the permit expires on {formatCalendarDate(p.expiresOn!)}. Apply by <strong>{formatCalendarDate(p.reissuance.deadline)}</strong> (
            {daysText(p.reissuance.daysLeft)}), at least 180 days before it expires ({p.reissuance.section}).
          </p>
          {p.reissuance.daysLeft < 0 && <Notice type="warning">The deadline has passed. The application is still accepted, marked late with the date it was due.</Notice>}
          <p>
            The application starts as a copy of this permit's application: check every item, update what changed, and submit it. The fee, the notice of intent and the 14 days before
            issuance apply as for a first permit. Issued before this permit expires, the new permit takes effect the day after.
          </p>
          {p.reissuance.applicationId ? (
            <p>
              <Link className="usa-button" to={`/industrial/apply?id=${p.reissuance.applicationId}`}>
                Continue the reissuance application
              </Link>
            </p>
          ) : (
            <Form method="post">
              <AuthenticityTokenInput />
              <button className="usa-button" type="submit">
                Start the reissuance application
              </button>
            </Form>
          )}
        </>
      ) : (
        <p>Only an issued permit is reissued.</p>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

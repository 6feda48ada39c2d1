import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { formatCalendarDate } from "~/components/format";
import { ErrorSummary } from "~/components/forms";
import { LICENSE_FIELDS, LicenseCard, VehiclesTable, type LicenseView } from "~/components/hauler";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const meta: MetaFunction = () => [{ title: "Renew a hauler licence | Tapline" }];

/** Where the expiry reminder links: the renewal copies the vehicles and answers for the owner to confirm or change. */
export async function loader(args: LoaderFunctionArgs) {
  const d = await requireSignedIn<{ haulerLicense: LicenseView }>(args, `query RenewLicence($id: ID!) { haulerLicense(id: $id) { ${LICENSE_FIELDS} } }`, { id: args.params.id });
  const r = d.haulerLicense.renewal;
  if (r?.status === "DRAFT") throw redirect(`/haulers/licenses/${r.id}/edit`);
  if (r) throw redirect(`/haulers/licenses/${r.id}`);
  return d;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const r = await gql<{ startHaulerLicenseRenewal: { id: string } }>(context, request, `mutation StartRenewal($id: ID!) { startHaulerLicenseRenewal(id: $id) { id } }`, { id: params.id });
  if (!r.ok) return Response.json({ error: r.error.message }, { status: 400, headers: cookieHeaders(r) });
  return redirect(`/haulers/licenses/${r.data.startHaulerLicenseRenewal.id}/edit`, { headers: cookieHeaders(r) });
}

export default function Renew() {
  const { haulerLicense: l } = useLoaderData<typeof loader>() as { haulerLicense: LicenseView };
  const a = useActionData<{ error: string }>();
  return (
    <>
      <h1>Renew licence {l.licenseNumber}</h1>
      <ErrorSummary message={a?.error} />
      <LicenseCard l={l} links={false} />
      <p>
        The renewal starts from what is on file: the {l.vehicles.length} vehicle{l.vehicles.length === 1 ? "" : "s"} below, the Part 364 permit, the annual volume and
        the service area. You confirm or change them, certify, and pay the application fee. A renewal the Town Board approves before{" "}
        {l.validUntil ? formatCalendarDate(l.validUntil) : "the licence ends"} starts the day after.
      </p>
      <VehiclesTable vehicles={l.vehicles} caption="Vehicles copied to the renewal" />
      {l.viewerIsOwner ? (
        l.renewalOpen ? (
          <Form method="post">
            <AuthenticityTokenInput />
            <button className="usa-button usa-button--big" type="submit">
              Start the renewal
            </button>
          </Form>
        ) : (
          <p>{l.renewalOpensOn ? `Renewal opens on ${formatCalendarDate(l.renewalOpensOn)}.` : "This licence cannot be renewed."}</p>
        )
      ) : (
        <p>Only the owner of the hauling company renews the licence.</p>
      )}
      <p>
        <Link className="usa-link" to={`/haulers/licenses/${l.id}`}>
          Back to the licence
        </Link>
      </p>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;

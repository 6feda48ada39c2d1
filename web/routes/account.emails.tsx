import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { DateTime, Linkified } from "~/components/format";

export const meta: MetaFunction = () => [{ title: "Emails | Tapline" }];

type Email = { id: string; toAddress: string; subject: string; bodyText: string; createdAt: string; sentAt: string | null; timeZone: string };

export async function loader(args: LoaderFunctionArgs) {
  return requireSignedIn<{ myEmails: Email[] }>(args, `query MyEmails { myEmails(first: 50) { id toAddress subject bodyText createdAt sentAt timeZone } }`);
}

export default function Emails() {
  const { myEmails } = useLoaderData<typeof loader>() as { myEmails: Email[] };
  return (
    <>
      <h1>Emails</h1>
      <p>Emails the district sent you. When the district has no mail server configured, read them here.</p>
      {myEmails.length === 0 ? (
        <p>No emails yet.</p>
      ) : (
        <>
          <p className="usa-hint">Newest first; the last {myEmails.length} are shown. Open an email to read it.</p>
          <ul className="usa-list usa-list--unstyled tapline-email-list">
            {myEmails.map((e) => (
              <li key={e.id}>
                <details className="tapline-details tapline-email">
                  <summary>
                    <span className="tapline-email__subject">{e.subject}</span>{" "}
                    <span className="tapline-email__date">
                      <DateTime iso={e.createdAt} timeZone={e.timeZone} />
                    </span>
                  </summary>
                  <p className="tapline-email__meta">
                    To {e.toAddress}.{" "}
                    {e.sentAt ? (
                      <>
                        Sent by email <DateTime iso={e.sentAt} timeZone={e.timeZone} />.
                      </>
                    ) : (
                      "Not sent by email: read it here."
                    )}
                  </p>
                  <div className="tapline-plain-text">
                    <Linkified text={e.bodyText} />
                  </div>
                </details>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

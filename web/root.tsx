import { data, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useLoaderData, useLocation, useRouteError, Form, type ShouldRevalidateFunction } from "@remix-run/react";
import { Link } from "./components/link";
import { AuthenticityTokenInput, AuthenticityTokenProvider } from "remix-utils/csrf/react";
import uswdsCss from "./styles/design-system.scss?url";
import appCss from "./styles/app.css?url";
import { csrfFor } from "./csrf.server";
import { gql, mayBeSignedIn, portalContext } from "./graphql.server";
import { useNonce } from "./nonce";
import { isPublicPage } from "./public-pages";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: uswdsCss },
  { rel: "stylesheet", href: appCss },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = () => [{ title: "Tapline: sewer district services" }];

const VIEWER = `query RootViewer { viewer { id displayName email demo emailVerified staffRoles { role districtId } } }`;

export async function loader({ request, context }: LoaderFunctionArgs) {
  // A signed-out visitor's public page is kept and sent to others (api/page-cache.ts): nothing of
  // this visitor's goes in it, so no CSRF token (such a page has no form that posts) and no cookie.
  if (portalContext(context).publicPage) return { csrf: "", viewer: null, demo: portalContext(context).demo } satisfies RootData;
  const [token, csrfCookie] = await csrfFor(context).commitToken(request);
  // The sign-in page is kept with this token taken out and each visitor's own put back (api/page-cache.ts).
  portalContext(context).csrfTokenShown?.(token);
  // Signed out (no session cookie, no token), no one is signed in: every page spares the API the question.
  const r = mayBeSignedIn(request) ? await gql(context, request, VIEWER) : null;
  const root: RootData = { csrf: token, viewer: r?.ok ? r.data.viewer : null, demo: portalContext(context).demo };
  const cookies = csrfCookie ? [csrfCookie, ...(r?.setCookies ?? [])] : (r?.setCookies ?? []);
  if (!cookies.length) return root;
  // Handed to Remix as data, not as a JSON Response it would parse again (issue 20).
  const headers = new Headers();
  for (const c of cookies) headers.append("Set-Cookie", c);
  return data(root, { headers });
}

export type RootData = {
  csrf: string;
  demo: boolean;
  viewer: null | { id: string; displayName: string; email: string; demo: boolean; emailVerified: boolean; staffRoles: { role: string; districtId: string }[] };
};

/**
 * Leaving a public page, whose data has no CSRF token (loader above), the root's data is read again,
 * so the forms of the next page carry one (and the first visit's CSRF cookie is set then).
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, defaultShouldRevalidate }) =>
  defaultShouldRevalidate || isPublicPage(currentUrl.pathname);

/** Pages a person is not sent back to after signing in: the sign-in pages themselves, and those whose address carries a one-time token. */
const NO_RETURN = new Set(["/", "/sign-in", "/sign-up", "/sign-out", "/forgot-password", "/reset-password", "/verify-email"]);

function Header({ viewer }: { viewer: RootData["viewer"] }) {
  // Signing in (or up) from the header brings the person back to the page they were reading.
  const location = useLocation();
  const back = NO_RETURN.has(location.pathname) ? "" : `?redirectTo=${encodeURIComponent(location.pathname + location.search)}`;
  const staff = (viewer?.staffRoles.length ?? 0) > 0;
  return (
    <header className="usa-header usa-header--basic">
      <div className="usa-nav-container">
        <div className="usa-navbar">
          <div className="usa-logo">
            <em className="usa-logo__text">
              <Link to="/" title="Tapline home">Tapline</Link>
            </em>
          </div>
        </div>
        <nav aria-label="Primary navigation" className="tapline-nav">
          <ul className="usa-list usa-list--unstyled tapline-nav__list">
            <li><Link className="usa-link" to="/rules">Rules and fees</Link></li>
            {viewer ? (
              <>
                <li><Link className="usa-link" to="/dashboard">My applications</Link></li>
                {staff && <li><Link className="usa-link" to="/staff">Staff</Link></li>}
                <li><Link className="usa-link" to="/account">Account</Link></li>
                <li>
                  <Form method="post" action="/sign-out" className="tapline-inline-form">
                    <AuthenticityTokenInput />
                    <button type="submit" className="usa-button usa-button--unstyled">Sign out</button>
                  </Form>
                </li>
              </>
            ) : (
              <>
                <li><Link className="usa-link" to={`/sign-in${back}`}>Sign in</Link></li>
                <li><Link className="usa-button" to={`/sign-up${back}`}>Create an account</Link></li>
              </>
            )}
          </ul>
        </nav>
      </div>
    </header>
  );
}

export function Layout({ children }: { children: React.ReactNode }) {
  // The Content-Security-Policy allows inline scripts only with this request's nonce.
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="usa-skipnav" href="#main-content">Skip to main content</a>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  const data = useLoaderData<typeof loader>() as RootData;
  return (
    <AuthenticityTokenProvider token={data.csrf}>
      <Header viewer={data.viewer} />
      {data.demo && (
        <div className="usa-site-alert usa-site-alert--info usa-site-alert--slim" aria-label="Demo notice">
          <div className="usa-alert"><div className="usa-alert__body"><p className="usa-alert__text">Demo mode: demo accounts and test payments only. Nothing here is real.</p></div></div>
        </div>
      )}
      <main id="main-content" className="grid-container tapline-main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="usa-footer usa-footer--slim">
        <div className="grid-container usa-footer__return-to-top"><a href="#main-content">Return to top</a></div>
        <div className="usa-footer__secondary-section"><div className="grid-container"><p>Tapline serves municipal sewer districts. Procedures are public under Sewer Use Law 1302-1303.</p></div></div>
      </footer>
    </AuthenticityTokenProvider>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const title = isRouteErrorResponse(error) ? (error.status === 404 ? "Page not found" : error.status === 403 ? "Not allowed" : "Something went wrong") : "Something went wrong";
  const text = isRouteErrorResponse(error) ? (typeof error.data === "string" ? error.data : error.statusText) : "An unexpected error happened. Please try again.";
  return (
    <main id="main-content" className="grid-container tapline-main">
      <h1>{title}</h1>
      <p>{text}</p>
      <p><Link className="usa-link" to="/">Go to the home page</Link></p>
    </main>
  );
}

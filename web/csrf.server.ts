import { createCookie, type AppLoadContext } from "@remix-run/node";
import { CSRF, CSRFError } from "remix-utils/csrf/server";
import { portalContext } from "./graphql.server";

let cached: { secret: string; csrf: CSRF } | undefined;

/** Double-submit CSRF token: a signed cookie plus a hidden field on every portal form. */
export function csrfFor(context: AppLoadContext): CSRF {
  const { sessionSecret, production } = portalContext(context);
  if (cached?.secret !== sessionSecret) {
    const cookie = createCookie("tapline_csrf", { path: "/", httpOnly: true, sameSite: "lax", secure: production, secrets: [sessionSecret] });
    cached = { secret: sessionSecret, csrf: new CSRF({ cookie, secret: sessionSecret, formDataKey: "csrf" }) };
  }
  return cached.csrf;
}

/** Every action calls this first: a form without the right token changes nothing. */
export async function requireCsrf(context: AppLoadContext, request: Request): Promise<void> {
  try {
    await csrfFor(context).validate(request);
  } catch (e) {
    if (e instanceof CSRFError)
      throw new Response("This form has expired or did not come from Tapline. Go back, reload the page and try again.", { status: 403 });
    throw e;
  }
}

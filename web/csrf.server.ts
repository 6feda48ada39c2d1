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

/** The content types a portal form is sent as. */
const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/**
 * Every action calls this first: a form without the right token changes nothing. A request that is
 * not a form (another content type, none, or a body that cannot be read as one) is refused with a
 * 4xx too, never left to fail as a 500.
 */
export async function requireCsrf(context: AppLoadContext, request: Request): Promise<void> {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
  if (!FORM_TYPES.has(type))
    throw new Response("Tapline's forms are sent as form data. Go back to the Tapline page, reload it and try again.", { status: 415 });
  let form: FormData;
  try {
    form = await request.clone().formData();
  } catch {
    throw new Response("This form could not be read. Go back, reload the page and try again.", { status: 400 });
  }
  try {
    await csrfFor(context).validate(form, request.headers);
  } catch (e) {
    if (e instanceof CSRFError)
      throw new Response("This form has expired or did not come from Tapline. Go back, reload the page and try again.", { status: 403 });
    throw e;
  }
}

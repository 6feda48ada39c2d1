import type express from "express";

/** What a portal page says when a form comes from another site (or from no site: `Origin: null`). */
export const FOREIGN_ORIGIN_MESSAGE = "This form did not come from Tapline. Go back to the Tapline page, reload it and try again.";

/**
 * Whether a request that changes something carries an `Origin` other than the host it was sent to,
 * by the rule Remix applies before any action (`throwIfPotentialCSRFAttack` in
 * @remix-run/server-runtime): the origin's host against `X-Forwarded-Host` (its first value) or
 * `Host`. `Origin: null` (sandboxed frames, cross-site redirects, file pages) and an origin that is
 * not a URL count as foreign; a request without the header (older browsers, API clients) does not.
 */
export function foreignOrigin(method: string, headers: Record<string, string | string[] | undefined>): boolean {
  if (!["POST", "PUT", "PATCH", "DELETE"].includes(method.toUpperCase())) return false;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(", ") : v);
  const origin = one(headers.origin);
  if (!origin) return false;
  const host = one(headers["x-forwarded-host"])?.split(",")[0]?.trim() || one(headers.host);
  if (origin === "null" || !host) return true;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

/**
 * In front of the portal: Remix answers a form from a foreign origin by throwing, which is a 500;
 * this answers it first with a 403 that says what happened.
 */
export function refuseForeignOriginForms(req: express.Request, res: express.Response, next: express.NextFunction) {
  if (!foreignOrigin(req.method, req.headers)) return next();
  res.status(403).type("text/plain").send(FOREIGN_ORIGIN_MESSAGE);
}

import { expect } from "vitest";
import type { Client } from "./harness.js";

/**
 * The portal as a browser without JavaScript uses it, for API test files that check a page or post
 * one of its forms: `get` reads a page with the caller's cookies; `post` reads the page first for
 * its CSRF token and cookie, then posts the form there as a browser would. `base` is the server's
 * address, or a function giving it (a file's server starts in beforeAll).
 */
export function portal(base: string | (() => string)) {
  const url = () => (typeof base === "string" ? base : base());
  const get = async (c: Client, path: string) => {
    const res = await fetch(`${url()}${path}`, { headers: { cookie: c.cookieHeader }, redirect: "manual" });
    return {
      status: res.status,
      html: await res.text(),
      location: res.headers.get("location"),
      type: res.headers.get("content-type"),
      cookies: res.headers.getSetCookie().map((x) => x.split(";")[0]),
    };
  };
  /** Posts a form of the page at `path` (its CSRF token and cookie); a field given a list is sent once per value; `ip` is the client address the trusted proxy names. */
  const post = async (c: Client, path: string, fields: Record<string, string | string[]>, opts: { ip?: string } = {}) => {
    const page = await get(c, path);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1];
    expect(csrf, `a form on ${path}`).toBeTruthy();
    const body = new URLSearchParams({ csrf: csrf! });
    for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    const res = await fetch(`${url()}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: [c.cookieHeader, ...page.cookies].filter(Boolean).join("; "),
        origin: url(),
        ...(opts.ip ? { "x-forwarded-for": opts.ip } : {}),
      },
      body: body.toString(),
    });
    return { status: res.status, location: res.headers.get("location"), html: await res.text() };
  };
  return { get, post };
}

/** A page's text as a person reads it: tags dropped, entities decoded, spaces collapsed. */
export const pageText = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

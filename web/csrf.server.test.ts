import type { AppLoadContext } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { csrfFor, requireCsrf } from "./csrf.server";

/** A portal action's first step: anything but a form carrying the right token is a 4xx, never a 500. */

const context = { sessionSecret: "csrf-test-secret-csrf-test-secret-0123", production: false } as unknown as AppLoadContext;
const URL_ = "http://tapline.test/sign-in";

/** A token and the cookie that goes with it, as the root loader hands them out. */
async function tokenAndCookie(): Promise<{ token: string; cookie: string }> {
  const [token, setCookie] = await csrfFor(context).commitToken(new Request(URL_));
  return { token, cookie: setCookie!.split(";")[0] };
}

/** The status of the Response requireCsrf throws, or "passed", or the thrown thing when it is not a Response. */
async function outcome(init: RequestInit): Promise<number | "passed" | unknown> {
  try {
    await requireCsrf(context, new Request(URL_, { method: "POST", ...init }));
    return "passed";
  } catch (e) {
    return e instanceof Response ? e.status : e;
  }
}

describe("requireCsrf", () => {
  it("passes a form with the cookie's token, url-encoded or multipart, and leaves its body for the action", async () => {
    const { token, cookie } = await tokenAndCookie();
    expect(await outcome({ headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body: `csrf=${encodeURIComponent(token)}&email=a` })).toBe("passed");
    const form = new FormData();
    form.set("csrf", token);
    const request = new Request(URL_, { method: "POST", headers: { cookie }, body: form });
    await requireCsrf(context, request);
    expect((await request.formData()).get("csrf")).toBe(token);
  });

  it("refuses a request that is not a form with 415: no content type, no body, text, JSON", async () => {
    const { token, cookie } = await tokenAndCookie();
    expect(await outcome({ headers: { cookie } })).toBe(415);
    expect(await outcome({ headers: { cookie, "content-type": "text/plain" }, body: `csrf=${token}` })).toBe(415);
    expect(await outcome({ headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ csrf: token }) })).toBe(415);
    expect(await outcome({ headers: { cookie, "content-type": "application/x-www-form-urlencodedX" }, body: `csrf=${token}` })).toBe(415);
  });

  it("refuses a form body that cannot be read with 400: multipart without a boundary, or with the wrong one", async () => {
    const { token, cookie } = await tokenAndCookie();
    const body = `--right\r\ncontent-disposition: form-data; name="csrf"\r\n\r\n${token}\r\n--right--\r\n`;
    expect(await outcome({ headers: { cookie, "content-type": "multipart/form-data" }, body })).toBe(400);
    expect(await outcome({ headers: { cookie, "content-type": "multipart/form-data; boundary=wrong" }, body })).toBe(400);
    expect(await outcome({ headers: { cookie, "content-type": "multipart/form-data; boundary=right" }, body })).toBe("passed");
  });

  it("refuses a missing, wrong or unsigned token with 403", async () => {
    const { token, cookie } = await tokenAndCookie();
    const form = "application/x-www-form-urlencoded";
    expect(await outcome({ headers: { cookie, "content-type": form }, body: "email=a" })).toBe(403);
    expect(await outcome({ headers: { cookie, "content-type": form }, body: "csrf=wrong" })).toBe(403);
    expect(await outcome({ headers: { "content-type": form }, body: `csrf=${encodeURIComponent(token)}` })).toBe(403);
    const other = await csrfFor(context).commitToken(new Request(URL_));
    expect(await outcome({ headers: { cookie: other[1]!.split(";")[0], "content-type": form }, body: `csrf=${encodeURIComponent(token)}` })).toBe(403);
    expect(await outcome({ headers: { cookie: "tapline_csrf=garbage", "content-type": form }, body: `csrf=${encodeURIComponent(token)}` })).toBe(403);
  });
});

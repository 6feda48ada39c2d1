import { createRequire } from "node:module";
import express from "express";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { FOREIGN_ORIGIN_MESSAGE, foreignOrigin, refuseForeignOriginForms } from "./portal-origin.js";

// The check Remix runs before every action (a throw there is a 500): ours must refuse exactly what it would throw on.
const { throwIfPotentialCSRFAttack } = createRequire(import.meta.url)("@remix-run/server-runtime/dist/actions.js") as {
  throwIfPotentialCSRFAttack: (headers: Headers) => void;
};
/** Whether Remix throws on these request headers, passed on as @remix-run/express does (empty ones left out). */
const remixThrows = (h: Record<string, string>) => {
  try {
    throwIfPotentialCSRFAttack(new Headers(Object.entries(h).filter(([, v]) => v)));
    return false;
  } catch {
    return true;
  }
};

const CASES: Record<string, string>[] = [
  { host: "tapline.test" },
  { host: "tapline.test", origin: "http://tapline.test" },
  { host: "tapline.test", origin: "https://tapline.test" },
  { host: "tapline.test:3000", origin: "http://tapline.test:3000" },
  { host: "tapline.test:3000", origin: "http://tapline.test" },
  { host: "tapline.test", origin: "null" },
  { host: "tapline.test", origin: "https://evil.example" },
  { host: "tapline.test", origin: "not a url" },
  { host: "tapline.test", origin: "http://[::1" },
  { host: "tapline.test", origin: "" },
  { origin: "http://tapline.test" },
  { host: "127.0.0.1:3000", "x-forwarded-host": "portal.example.org", origin: "https://portal.example.org" },
  { host: "127.0.0.1:3000", "x-forwarded-host": "portal.example.org, other", origin: "https://portal.example.org" },
  { host: "127.0.0.1:3000", "x-forwarded-host": "portal.example.org", origin: "http://127.0.0.1:3000" },
  { host: "127.0.0.1:3000", "x-forwarded-host": "", origin: "http://127.0.0.1:3000" },
];

describe("forms from another origin", () => {
  it("are refused exactly when Remix would throw (a 500) instead of running the action", () => {
    for (const h of CASES) expect({ h, refused: foreignOrigin("POST", h) }).toEqual({ h, refused: remixThrows(h) });
    expect(CASES.filter((h) => foreignOrigin("POST", h)).length).toBeGreaterThan(5);
  });

  it("only for methods that run actions", () => {
    const h = { host: "tapline.test", origin: "null" };
    for (const m of ["POST", "PUT", "PATCH", "DELETE", "post"]) expect(foreignOrigin(m, h)).toBe(true);
    for (const m of ["GET", "HEAD", "OPTIONS"]) expect(foreignOrigin(m, h)).toBe(false);
  });

  it("get a 403 with a message in front of the portal; same-origin and header-less forms go through", async () => {
    const app = express();
    app.use(refuseForeignOriginForms);
    app.all("*", (_req, res) => res.status(204).end());
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const post = (headers: Record<string, string>) => fetch(`${base}/sign-in`, { method: "POST", headers, body: "csrf=x" });
      const nul = await post({ origin: "null" });
      expect(nul.status).toBe(403);
      expect(await nul.text()).toBe(FOREIGN_ORIGIN_MESSAGE);
      expect((await post({ origin: "https://evil.example" })).status).toBe(403);
      expect((await post({ origin: base })).status).toBe(204);
      expect((await post({})).status).toBe(204);
      expect((await fetch(`${base}/sign-in`, { headers: { origin: "null" } })).status).toBe(204);
    } finally {
      server.close();
    }
  });
});

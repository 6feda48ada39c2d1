import { createPath, resolvePath } from "@remix-run/react";
import { describe, expect, it } from "vitest";
import { hrefOf } from "./link";

describe("hrefOf (the server's links within the portal)", () => {
  it("is the href React Router makes of the address, whether or not it is sent as it is", () => {
    const addresses = [
      "/",
      "/dashboard",
      "/permits/0b5c7d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e",
      "/permits/new?district=lakeview",
      "/sign-in?redirectTo=%2Fpermits%2Fnew%3Fdistrict%3Dlakeview",
      "/rules/lakeview#lateral.fee.residential",
      "/a/b/",
      "/a?x=1&y=2#top",
      "/a#b?c",
      "/a#b#c",
      "/a.b/c.d",
      "/.well-known/x",
      "/a/..b/c.",
      "/a?",
      "/a#",
      "/a?#",
      "/a?b#",
      "/a//b",
      "/a/./b",
      "/a/../b",
      "/a/.",
      "/a/..",
      "/a/b/..?x=1",
      "/a?next=//elsewhere",
    ];
    for (const to of addresses) expect(hrefOf(to), to).toBe(createPath(resolvePath(to)));
  });
});

describe("Link on the server (a plain link within the portal)", () => {
  it("renders the <a> Remix's Link does, its props in order, then data-discover and the href", async () => {
    const { renderToStaticMarkup } = await import("react-dom/server");
    const { createElement } = await import("react");
    const { Link } = await import("./link");
    const html = renderToStaticMarkup(createElement(Link, { to: "/a/../b?x=1", className: "usa-link", "aria-current": "page", title: "T" } as any, "Go"));
    expect(html).toBe(`<a class="usa-link" aria-current="page" title="T" data-discover="true" href="/b?x=1">Go</a>`);
  });
  it("leaves a link with any other prop (state, prefetch, an address elsewhere) to Remix's Link", async () => {
    const { renderToStaticMarkup } = await import("react-dom/server");
    const { createElement } = await import("react");
    const { Link } = await import("./link");
    // Remix's Link needs the router's context, which a bare render lacks: it throws where the shortcut would not.
    expect(() => renderToStaticMarkup(createElement(Link, { to: "/a", prefetch: "intent" } as any, "Go"))).toThrow();
    expect(() => renderToStaticMarkup(createElement(Link, { to: "//elsewhere" } as any, "Go"))).toThrow();
    expect(() => renderToStaticMarkup(createElement(Link, { to: "b" } as any, "Go"))).toThrow();
  });
});

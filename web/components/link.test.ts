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

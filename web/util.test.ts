import { describe, expect, it } from "vitest";
import { safeRedirect } from "./util";

/**
 * The sign-in form's `redirectTo`, as `URLSearchParams.get` hands it over (decoded once). Each
 * would take a browser to another site, or (a newline) break the Location header.
 */
const BYPASSES = [
  "//evil.example/path",
  "///evil.example",
  "////evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "\\/evil.example",
  "/\t/evil.example/path", // redirectTo=/%09/evil.example/path
  "/\n/evil.example/path", // redirectTo=/%0a/evil.example/path (a 500 before)
  "/\r\n/evil.example",
  "/\u0000/evil.example",
  "/\u001f/evil.example",
  "/\u007f/evil.example",
  "\t//evil.example",
  "  //evil.example",
  "\u00a0//evil.example",
  "/\t\\evil.example",
  "/%2F/evil.example", // decodes to ///evil.example
  "/%2f%2fevil.example",
  "%2F%2Fevil.example",
  "/%5Cevil.example",
  "/%5C%5Cevil.example",
  "/%09/evil.example",
  "/%0a/evil.example",
  "/%252F%252Fevil.example", // double-encoded
  "/%25252F%25252Fevil.example", // triple-encoded
  "/%255Cevil.example",
  "/.//evil.example", // dot segments: the URL standard makes it //evil.example
  "/./\t/evil.example",
  "/a/..//evil.example",
  "/%2e//evil.example",
  "https://evil.example",
  "http:/evil.example",
  "https:evil.example",
  "//evil.example@tapline.test",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "\tjavascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "evil.example",
  "",
  "/" + Array.from({ length: 6 }).reduce<string>((x) => encodeURIComponent(x), "/") + "evil.example", // encoded six times
];

describe("safeRedirect", () => {
  it.each(BYPASSES.map((b) => [JSON.stringify(b), b]))("refuses %s", (_name, to) => {
    expect(safeRedirect(to, "/dashboard")).toBe("/dashboard");
  });

  it("refuses nothing given", () => {
    expect(safeRedirect(null, "/dashboard")).toBe("/dashboard");
    expect(safeRedirect(undefined)).toBe("/");
    expect(safeRedirect("/" + "a".repeat(5000), "/dashboard")).toBe("/dashboard");
  });

  it("keeps a path on this site with its query string and fragment", () => {
    for (const ok of [
      "/",
      "/dashboard",
      "/dashboard?welcome=1",
      "/account/organizations",
      "/staff/payments?status=PENDING&page=2",
      "/staff/payments?q=a%2Fb", // an encoded slash in a value is not a host
      "/rules/lakeview?on=2026-02-30#fees",
      "/permits/0b6f6b2e-5a8e-4d55-9a0e-0f0d7d2a1c11/edit?saved=1",
      "/search?next=//not-a-host", // after the path: a value, not where the browser goes
      "/staff/payments?q=100%25", // a stray % once decoded
    ])
      expect(safeRedirect(ok, "/fallback")).toBe(ok);
  });

  it("answers a header-safe form: control characters stripped or escaped, spaces escaped", () => {
    expect(safeRedirect("/dash\tboard", "/x")).toBe("/dashboard");
    expect(safeRedirect("/a b?c d#e f", "/x")).toBe("/a%20b?c%20d#e%20f");
    expect(safeRedirect("/caf\u00e9", "/x")).toBe("/caf%C3%A9");
    for (const to of ["/a\u0001b", "/a\u007fb?x=\u0002"]) expect(safeRedirect(to, "/x")).not.toMatch(/[\u0000-\u001f\u007f]/);
  });
});

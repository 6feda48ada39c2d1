import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { purgeExtractor, purgeSafelist } from "./purge";

// Every class USWDS and the portal's own stylesheets define (USWDS's full prebuilt stylesheet: the
// classes of every package, whatever the portal's settings).
const stylesheets = [
  createRequire(import.meta.url).resolve("@uswds/uswds/css/uswds.min.css"),
  ...fs.readdirSync(__dirname).filter((f) => f.endsWith(".css")).map((f) => path.join(__dirname, f)),
];
const definedClasses = new Set(
  stylesheets.flatMap((f) => [...fs.readFileSync(f, "utf8").matchAll(/\.((?:\\.|[\w-])+)/g)].map((m) => m[1].replace(/\\/g, ""))),
);

const webDir = path.resolve(__dirname, "..");
const sources = fs
  .readdirSync(webDir, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts"))
  .map((e) => path.join(e.parentPath, e.name));

/**
 * The prefixes a class is put together from at run time: `usa-alert--${type}`, `"usa-tag--" + tone`
 * (a word ending in `-`, `_` or `:` joined to what follows; `usa-link${active ? " x" : ""}` adds a
 * class of its own, which is in the file whole).
 */
function prefixesIn(text: string): string[] {
  const found: string[] = [];
  for (const literal of text.matchAll(/`[^`]*`/g)) {
    // An element's id, a label's htmlFor, an address: not a class.
    if (/(\b(id|htmlFor|key|href|to|name|action|aria-[a-z]+)=\{|\bid\()\s*$/.test(text.slice(Math.max(0, literal.index - 20), literal.index))) continue;
    for (const m of literal[0].matchAll(/([A-Za-z0-9_:-]*[-_:])\$\{/g)) found.push(m[1]);
  }
  for (const m of text.matchAll(/["']([A-Za-z0-9_:-]*[-_:])["']\s*\+/g)) found.push(m[1]);
  return found;
}

describe("what the production build keeps of the stylesheets", () => {
  it("reads the portal's files: every route and component", () => {
    expect(sources.length).toBeGreaterThan(90);
    expect(sources.some((f) => f.endsWith(path.join("routes", "permits.new.tsx")))).toBe(true);
  });

  it("keeps every class a route or component puts together at run time from a prefix", () => {
    const missing: string[] = [];
    for (const file of sources)
      for (const prefix of prefixesIn(fs.readFileSync(file, "utf8"))) {
        const classes = [...definedClasses].filter((c) => c.startsWith(prefix) && c !== prefix);
        for (const c of classes) if (!purgeSafelist.standard.some((re) => re.test(c))) missing.push(`${path.relative(webDir, file)}: ${prefix}\${...} can make ${c}`);
      }
    expect(missing).toEqual([]);
  });

  it("finds such a prefix, and the safelist covers the alert's (web/components/fields.tsx)", () => {
    expect(prefixesIn("<div className={`usa-alert usa-alert--${type} usa-alert--slim`}>")).toEqual(["usa-alert--"]);
    expect(prefixesIn(`const c = "usa-tag--" + tone;`)).toEqual(["usa-tag--"]);
    for (const c of ["usa-alert--info", "usa-alert--warning", "usa-alert--error", "usa-alert--success"]) expect(purgeSafelist.standard.some((re) => re.test(c))).toBe(true);
  });

  it("reads USWDS's responsive classes whole, with their colon", () => {
    expect(purgeExtractor(`<li className="usa-card tablet:grid-col-6">`)).toEqual(expect.arrayContaining(["usa-card", "tablet:grid-col-6"]));
  });
});

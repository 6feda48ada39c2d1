import { forwardRef } from "react";
import { Link as RemixLink, createPath, resolvePath, type LinkProps } from "@remix-run/react";

/** Props a plain link may carry for the server's shortcut below; any other (state, prefetch, relative...) takes Remix's Link. */
const PLAIN = new Set(["to", "className", "title", "children", "id"]);
const onServer = typeof document === "undefined";

/**
 * Remix's Link, but rendered on the server, for an address within the portal ("/..."), as the
 * `<a>` it renders there, without its hooks (issue 20: a page's 20-50 links, each resolving its
 * path through the router's context and JSON, were the largest part of a signed-in page's render).
 * The markup is Link's own: its attributes, `data-discover="true"` and the href React Router makes
 * of the address (portal basename "/"); the browser hydrates it with Remix's Link, so navigation
 * is as before.
 */
export const Link = forwardRef<HTMLAnchorElement, LinkProps>(function Link(props, ref) {
  const to = props.to;
  if (onServer && typeof to === "string" && to.charCodeAt(0) === 47 /* "/" */ && to.charCodeAt(1) !== 47) {
    const a = anchorProps(props as unknown as Record<string, unknown>, to);
    if (a) return <a {...a} />;
  }
  return <RemixLink ref={ref} {...props} />;
});

/**
 * The `<a>`'s props for a plain link, in the order Link renders them, or null when the link carries
 * any other prop. One pass over the props, no rest/spread copies: a page renders dozens of links.
 */
function anchorProps(props: Record<string, unknown>, to: string): Record<string, unknown> | null {
  const a: Record<string, unknown> = {};
  for (const k in props) {
    if (k === "to") continue;
    if (!PLAIN.has(k) && !k.startsWith("aria-")) return null;
    a[k] = props[k];
  }
  a["data-discover"] = "true";
  a.href = hrefOf(to);
  return a;
}

/**
 * The href React Router makes of an address within the portal (`createPath(resolvePath(to))`).
 * Most addresses are already it: without "//", a "." or ".." segment, or an empty query or
 * fragment, they are sent as they are, without parsing (a page's links were a few percent of a
 * signed-in page's CPU, issue 20); any other goes through React Router.
 */
export function hrefOf(to: string): string {
  if (!/\/\/|\/\.\.?(?:[/?#]|$)|[?#]$|\?#/.test(to)) return to;
  return createPath(resolvePath(to));
}

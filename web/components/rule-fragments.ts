/**
 * Server-rendered HTML of the rules page's rule lists, by content key (web/routes/rules.$slug.tsx).
 * The loader fills it (rule-fragments.server.tsx) and the page's server render reads it in the same
 * request; in the browser it stays empty: the lists are kept as the server sent them, and a
 * client-side navigation gets their HTML in the loader data instead.
 */
export const ruleFragments = new Map<string, string>();

// What the production build keeps of the stylesheets (vite.config.ts): the rules whose classes,
// elements and attributes some file in web/ names. A class put together at run time from a prefix
// (`usa-alert--${type}`) is in no file whole: its prefix is in `safelist`, and
// web/styles/purge.test.ts fails when a className template builds a class from a prefix not listed.

/** The files whose text names every class the portal renders. */
export const purgeContent = ["web/**/*.{ts,tsx}"];

/** Words of the source, with the colon of USWDS's responsive classes (`tablet:grid-col-6`). */
export function purgeExtractor(content: string): string[] {
  return content.match(/[A-Za-z0-9_:-]+/g) ?? [];
}

/** Classes made at run time from a prefix: `usa-alert--${type}` (web/components/fields.tsx's Notice). */
export const purgeSafelist = { standard: [/^usa-alert--/] };

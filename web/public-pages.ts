/**
 * Pages that are the same for every signed-out visitor: the home page and the rules pages (issue 20).
 * Signed out, they are rendered without a CSRF token (they have no form that posts) and kept whole,
 * compressed, by api/page-cache.ts; root.tsx asks for its data again when the browser leaves one,
 * so the next page's forms get a token. A page added here must show nothing that depends on who
 * asks (no form that posts, no flash message, no cookie set): its address is all that varies it.
 */
const PUBLIC_PAGES = [/^\/$/, /^\/rules\/?$/, /^\/rules\/[a-z0-9-]+\/?$/];

export const isPublicPage = (pathname: string): boolean => PUBLIC_PAGES.some((p) => p.test(pathname));

/**
 * Pages the same for every signed-out visitor but for the visitor's CSRF token (their form posts):
 * the sign-in page. Kept with the token taken out and sent to each visitor with their own
 * (api/page-cache.ts). A page added here must show nothing else that depends on who asks.
 */
const TOKEN_PAGES = [/^\/sign-in\/?$/];

export const isTokenPage = (pathname: string): boolean => TOKEN_PAGES.some((p) => p.test(pathname));
